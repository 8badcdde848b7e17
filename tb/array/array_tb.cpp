// Testbench of the PE array (docs/microarchitecture.md 9.4-9.6), one for all views: for several
// sizes (square, tall, wide, 1x1) and all three arithmetics with zero gating on and off, random
// token streams that obey the issue rules (FILL, FILL, SWAP0, contexts of random length, as short
// as one step, ending in the swap+window token, odd swap-only / MAC+window / window-only tokens,
// bubbles, window tokens COLS apart and swap-only tokens 2*COLS after the window before the last;
// operands reaching every fp16 corner and integer extreme, whole zero rows, garbage operands on
// tokens without valid), a fresh random preload word every cycle and now and then a reset. The
// reference, written here (its MACs the golden model's, sharing no code with the PEs' fp16::mac or
// the fast model's mac_row), is the array of the spec at issue-time granularity (accumulators and
// two reserve banks per PE, the edge timing formulas): every cycle pre_pop, res_valid and, while
// valid, the column and the word; after the stream every accumulator and the MAC/gated counters;
// then a window token COLS-1 cycles after the previous one must be refused.
//   array_tb [--view core|sc|all] [--seed N] [--runs N] [--long]   ArrayCore (the accelerator's
//         fast model) and the Array SC_MODULE (Pe modules and the edge), 18 array variants
//   array_rtl_tb_<cfg> [--config FILE] [--seed N] [--runs N] [--long]   array.sv Verilated for one
//         configuration; beside it runs its register twin (ArrayEdgeCore + PeCores), against which
//         the RTL's internal edge nets and res_word_o outside valid cycles are compared too
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "base/numerics/fp16.h"  // stimulus constants only: the reference MACs are the golden model's
#include "sim/golden/fp16_exact.h"
#include "sim/golden/int_exact.h"
#include "hw/common/hw_params.h"
#include "hw/common/protocol_error.h"
#include "hw/common/token.h"
#include "tb/common/bench_main.h"

#ifdef FLYCOL_VTOP
#include FLYCOL_VTOP_HEADER
// The model's root class, for the array's edge nets (public_flat_rd in array.sv). FLYCOL_NETLIST:
// the model is a Yosys netlist of array.sv (a check that Yosys reads the RTL as Verilator does),
// which has the ports but not these nets.
#ifndef FLYCOL_NETLIST
#define FLYCOL_STR2(x) #x
#define FLYCOL_STR(x) FLYCOL_STR2(x)
#define FLYCOL_ROOT_HEADER(top) FLYCOL_STR(top##___024root.h)
#define FLYCOL_ROOT_HEADER_OF(top) FLYCOL_ROOT_HEADER(top)
#include FLYCOL_ROOT_HEADER_OF(FLYCOL_VTOP)
#endif
#include "hw/array/array_edge.h"
#include "hw/pe/pe_core.h"
#include "sim/config/config.h"
#include "sim/config/config_keys.h"
#include "tb/common/verilator.h"
#else
#include <systemc>

#include "hw/array/array.h"
#include "hw/array/array_core.h"
#include "hw/array/array_edge.h"
#include "tb/common/systemc.h"
#endif

using namespace flycol;
using namespace flycol::hw;

namespace {

const char* arith_name(Arithmetic a) {
  return a == Arithmetic::fp16 ? "fp16" : a == Arithmetic::int8 ? "int8" : "int16";
}

// ---------------------------------------------------------------------------------------------
// Stimulus

// Operands and preload values: `special` is the chance of an fp16 corner value (infinity, NaN of
// any payload, subnormal, extreme) or an integer extreme; `zeros` the chance of a zero (either
// sign); bits above the element or accumulator width now and then (the C++ models drop them; the
// RTL ports do not have them).
class ValueGen {
public:
  explicit ValueGen(std::uint64_t seed) : r(seed) {}
  tb::Rand r;

  fp16::Bits half(double zeros, double special) {
    const fp16::Bits sign = fp16::Bits(r.bits(1) << 15);
    if (r.chance(zeros)) return sign;
    if (r.chance(special)) {
      switch (r.uniform(0, 6)) {
        case 0: return fp16::Bits(sign | fp16::kPosInf);
        case 1: return fp16::kCanonicalNaN;
        case 2: return fp16::Bits(sign | 0x7C00 | (1 + r.bits(10) % 0x3FF));
        case 3: return fp16::Bits(sign | fp16::kMaxNormal);
        case 4: return fp16::Bits(sign | fp16::kMinNormal);
        default: return fp16::Bits(sign | (1 + r.bits(10) % 0x3FF));  // subnormal
      }
    }
    return fp16::Bits(sign | (r.uniform(8, 17) << 10) | r.bits(10));  // about 2^-7 .. 4
  }
  elem_t elem(Arithmetic arith, double zeros, double special) {
    if (arith == Arithmetic::fp16) return half(zeros, special);
    const int ew = arith == Arithmetic::int8 ? 8 : 16;
    std::uint32_t v;
    if (r.chance(zeros)) v = 0;
    else if (r.chance(special)) v = r.chance(0.5) ? (1u << (ew - 1)) : (1u << (ew - 1)) - 1;
    else v = std::uint32_t(r.bits(ew));
    if (ew == 8 && r.chance(0.05)) v |= std::uint32_t(r.bits(8)) << 8;  // bits above the element
    return elem_t(v);
  }
  acc_t acc(Arithmetic arith, double special) {
    if (arith == Arithmetic::fp16) {
      acc_t v = half(0.1, special);
      if (r.chance(0.03)) v |= acc_t(r.bits(16)) << 16;  // bits above the accumulator
      return v;
    }
    if (r.chance(0.1)) return 0;
    if (r.chance(special)) return r.chance(0.5) ? 0x80000000u : 0x7FFFFFFFu;
    return r.chance(0.5) ? acc_t(std::int32_t(r.uniform(-100000, 100000))) : acc_t(r.bits(32));
  }
};

struct Variant {
  HwParams p;
  double zeros = 0.15, special = 0.02;
  bool odd = true;  // also swap-only, MAC+window and window-only tokens
  std::string name;
};

// ---------------------------------------------------------------------------------------------
// Reference: the array as docs/microarchitecture.md 9.5 states it, at issue-time granularity.

class Reference {
public:
  explicit Reference(const HwParams& p) : p_(p), R_(p.rows), C_(p.cols) { reset(); }

  struct Expected {
    std::uint64_t cycle;
    int col;
    std::vector<acc_t> word;
  };
  std::deque<std::uint64_t> pops;  // cycles in which pre_pop must be high
  std::deque<Expected> results;
  std::uint64_t macs = 0, gated = 0;  // since the last reset

  void reset() {
    acc_.assign(std::size_t(R_ * C_), 0);
    for (int b = 0; b < 2; ++b) res_[b].assign(std::size_t(R_ * C_), 0);
    in_.assign(std::size_t(R_ * C_), 0);
    pops.clear();
    results.clear();
    filling_.clear();
    bank_ = 0;
    macs = gated = 0;
  }
  acc_t acc(int r, int c) const { return acc_[idx(r, c)]; }

  // Cycle `t`: first the preload word on the bus (if this is a pop cycle), then the token.
  void cycle(std::uint64_t t, const Token& tok, const acc_t* bus) {
    if (!filling_.empty() && t == filling_.front().next) {
      Fill& f = filling_.front();
      const int col = C_ - 1 - (C_ - f.left);
      for (int r = 0; r < R_; ++r) in_[idx(r, col)] = p_.arithmetic == Arithmetic::fp16 ? (bus[r] & 0xFFFF) : bus[r];
      ++f.next;
      if (--f.left == 0) {  // the window's preload now fills its reserve bank
        res_[f.bank] = in_;
        filling_.pop_front();
      }
    }
    if (!tok.any()) return;
    if (tok.valid) {
      ++macs;
      for (int r = 0; r < R_; ++r)
        for (int c = 0; c < C_; ++c) acc_[idx(r, c)] = mac(tok.a[r], tok.w[c], acc_[idx(r, c)]);
    }
    std::vector<acc_t>& res = res_[bank_];
    if (tok.window) {
      const std::vector<acc_t>& out = tok.swap ? acc_ : res;
      for (int j = 0; j < C_; ++j) {
        Expected e;
        e.cycle = t + std::uint64_t(C_ + R_ + j);
        e.col = C_ - 1 - j;
        e.word.assign(std::size_t(R_), 0);
        for (int r = 0; r < R_; ++r) e.word[std::size_t(r)] = out[idx(r, e.col)];
        results.push_back(e);
        pops.push_back(t + std::uint64_t(C_ + 1 + j));
      }
      if (tok.swap) acc_ = res;
      filling_.push_back(Fill{t + std::uint64_t(C_ + 1), C_, bank_});
      bank_ = 1 - bank_;  // every window token moves to the other bank
    } else if (tok.swap) {
      std::swap(acc_, res);
    }
  }

private:
  std::size_t idx(int r, int c) const { return std::size_t(r * C_ + c); }
  std::int32_t sext(elem_t v) const {
    return p_.arithmetic == Arithmetic::int8 ? std::int32_t(std::int8_t(v & 0xFF)) : std::int32_t(std::int16_t(v));
  }
  acc_t mac(elem_t a, elem_t w, acc_t acc) {
    if (p_.arithmetic == Arithmetic::fp16) {
      if (p_.zero_gating && (golden::half::zero(a) || golden::half::zero(w))) ++gated;
      return golden::half::mac(a, w, golden::half::Bits(acc), p_.zero_gating);
    }
    const std::int32_t sa = sext(a), sw = sext(w);
    if (p_.zero_gating && (sa == 0 || sw == 0)) ++gated;
    return acc_t(golden::int_mac(sa, sw, std::int32_t(acc)));
  }

  HwParams p_;
  int R_, C_;
  std::vector<acc_t> acc_, res_[2], in_;
  int bank_ = 0;  // the bank of the next window or swap
  // Windows taking their preload words, oldest first (the next pop cycle, words left, the bank).
  struct Fill {
    std::uint64_t next;
    int left, bank;
  };
  std::deque<Fill> filling_;
};

// ---------------------------------------------------------------------------------------------
// The run, the same for every view. A view offers: drive(tok, pre, rst_n) (this cycle's inputs);
// pre_pop(), res_valid(), res_col(), res_word(r) (this cycle's registered outputs); edge();
// fault(); acc(r, c, &v) and counters(&macs, &gated) (false when the view cannot show them);
// refuses_window(tok) (the last act: a window token that breaks the gap rule, this cycle).

struct Figures {
  std::uint64_t cycles = 0, tokens = 0, windows = 0, words = 0, pops = 0, pe_macs = 0, gated = 0, resets = 0;
};

template <class View>
void run_array(View& v, const Variant& var, std::uint64_t seed, int runs, bool resets, tb::MismatchLog& log,
               Figures& fig) {
  const HwParams& p = var.p;
  const int R = p.rows, C = p.cols;
  ValueGen gen(seed);
  Reference ref(p);
  auto mac_token = [&](bool swap, bool window) {
    Token t;
    t.valid = true;
    t.swap = swap;
    t.window = window;
    const bool zero_row = gen.r.chance(0.1);  // a whole row of zeros now and then
    for (int r = 0; r < R; ++r) t.a[r] = zero_row && r == 0 ? elem_t(0) : gen.elem(p.arithmetic, var.zeros, var.special);
    for (int c = 0; c < C; ++c) t.w[c] = gen.elem(p.arithmetic, var.zeros, var.special);
    return t;
  };
  auto flag_token = [](bool swap, bool window) {
    Token t;
    t.swap = swap;
    t.window = window;
    return t;
  };
  // RUNs as the issue stage makes them.
  std::vector<Token> stream;
  for (int run = 0; run < runs; ++run) {
    stream.push_back(flag_token(false, true));  // FILL
    stream.push_back(flag_token(false, true));  // FILL
    stream.push_back(flag_token(true, true));   // SWAP0
    const int n_ctx = gen.r.uniform(1, 5);
    for (int k = 0; k < n_ctx; ++k) {
      const int len = gen.r.chance(0.3) ? 1 : gen.r.uniform(1, 3 * C + 5);
      for (int s = 0; s + 1 < len; ++s) {
        stream.push_back(mac_token(false, false));
        if (var.odd && gen.r.chance(0.02)) {
          switch (gen.r.uniform(0, 2)) {
            case 0: stream.push_back(flag_token(true, false)); break;   // swap only
            case 1: stream.push_back(mac_token(false, true)); break;    // MAC + window
            default: stream.push_back(flag_token(false, true)); break;  // window only
          }
        }
      }
      stream.push_back(mac_token(true, true));
    }
  }

  std::size_t next = 0;
  // Cycles since the last window token and since the one before, as the issue stage counts them.
  int gap = 1 << 20, gap2 = 1 << 20;
  double p_bubble = 0.1;
  std::uint64_t t = 0, last_issue = 0;
  acc_t bus[kMaxRows]{};
  const acc_t zero_word[kMaxRows]{};
  auto reset_cycle = [&] {
    v.drive(Token{}, zero_word, false);
    v.edge();
    ref.reset();
    gap = gap2 = 1 << 20;
    ++fig.resets;
    ++t;
  };
  auto finish_checks = [&] {
    for (int r = 0; r < R; ++r)
      for (int c = 0; c < C; ++c) {
        acc_t got = 0;
        if (v.acc(r, c, got) && !log.expect("final accumulator", std::uint64_t(got), std::uint64_t(ref.acc(r, c)))) {
          log.fail("  PE({},{})", r, c);
          return;
        }
      }
    std::uint64_t macs = 0, gated = 0;
    if (v.counters(macs, gated)) {
      log.expect("MAC tokens", macs, ref.macs);
      log.expect("gated MACs", gated, ref.gated);
    }
    fig.pe_macs += ref.macs * std::uint64_t(R * C);
    fig.gated += ref.gated;
  };
  reset_cycle();
  const std::uint64_t limit = 20 * stream.size() * std::uint64_t(2 * C + 2) + 10000;
  tb::Watchdog dog(4 * std::uint64_t(C) + 200);
  while (log.errors() < std::uint64_t(tb::MismatchLog::kMaxReported) && t < limit) {
    log.at(t);
    if (next == stream.size() && ref.results.empty() && ref.pops.empty() && t > last_issue + std::uint64_t(R + C + 2))
      break;
    if (resets && gen.r.uniform(0, 4999) == 0) {  // now and then a reset, wherever the stream is
      // Tokens still in the array are lost: no final check here (the one after the drain is).
      fig.pe_macs += ref.macs * std::uint64_t(R * C);
      fig.gated += ref.gated;
      reset_cycle();
      log.note("reset");
      continue;
    }
    if (gen.r.uniform(0, 999) == 0) {
      const double bubbles[] = {0.0, 0.1, 0.5};
      p_bubble = bubbles[gen.r.uniform(0, 2)];
    }
    // The next planned token unless a bubble is drawn or the gap rule holds it back; a token
    // without valid may carry garbage operands.
    Token tok;
    if (next < stream.size()) {
      const Token& s = stream[next];
      const bool held = (s.window && gap < C) || (s.swap && !s.window && gap2 < 2 * C);
      if (!held && !gen.r.chance(p_bubble)) {
        tok = s;
        ++next;
        last_issue = t;
        ++fig.tokens;
        fig.windows += tok.window;
        dog.progress();
      }
    }
    if (!tok.valid && gen.r.chance(0.3)) {
      for (int r = 0; r < R; ++r) tok.a[r] = elem_t(gen.r.bits(16));
      for (int c = 0; c < C; ++c) tok.w[c] = elem_t(gen.r.bits(16));
    }
    gap2 = tok.window ? std::min(gap + 1, 1 << 20) : std::min(gap2 + 1, 1 << 20);
    gap = tok.window ? 1 : std::min(gap + 1, 1 << 20);
    // A fresh preload word every cycle: the array must take exactly the words of its pop cycles.
    for (int r = 0; r < R; ++r) bus[r] = gen.acc(p.arithmetic, var.special);
    v.drive(tok, bus, true);
    log.note("token valid {} swap {} window {}", tok.valid, tok.swap, tok.window);
    // This cycle's outputs against the reference.
    const bool want_pop = !ref.pops.empty() && ref.pops.front() == t;
    if (want_pop) ref.pops.pop_front(), ++fig.pops;
    log.expect("pre_pop", v.pre_pop(), want_pop);
    const bool want_res = !ref.results.empty() && ref.results.front().cycle == t;
    log.expect("res_valid", v.res_valid(), want_res);
    if (want_res) {
      const Reference::Expected& e = ref.results.front();
      log.expect("res_col", v.res_col(), e.col);
      for (int r = 0; r < R; ++r)
        if (!log.expect("res_word", std::uint64_t(v.res_word(r)), std::uint64_t(e.word[std::size_t(r)]))) {
          log.fail("  column {} row {}", e.col, r);
          break;
        }
      ref.results.pop_front();
      ++fig.words;
    }
    if (v.fault()) log.fail("an assertion fired or the twin disagreed (above)");
    ref.cycle(t, tok, bus);
    v.edge();
    ++t;
    if (next < stream.size() && !dog.tick(log, "the next token to issue")) break;
  }
  if (next < stream.size()) log.fail("only {} of {} tokens issued", next, stream.size());
  finish_checks();
  fig.cycles += t;
}

// ---------------------------------------------------------------------------------------------
// Views

#ifdef FLYCOL_VTOP

// ArrayEdgeCore and the PeCores wired as the SystemC Array (hw/array/array.cpp) wires its Pe
// modules: the register-for-register twin of array.sv, against which the RTL view compares what
// the reference cannot see (the edge nets, res_word_o outside valid cycles, gated_cnt_o).
class StructArray {
public:
  explicit StructArray(const HwParams& p) : R_(p.rows), C_(p.cols), edge_(p) {
    pes_.reserve(std::size_t(R_ * C_));
    for (int i = 0; i < R_ * C_; ++i) pes_.emplace_back(p);
  }
  void reset() {
    edge_.reset();
    for (PeCore& pe : pes_) pe.reset();
  }
  // The edge's outputs of this cycle (they do not depend on the token).
  // The east column's chain output is the bank the edge selects (shift_bank, from the edge's
  // registers and east_window only), so the edge is evaluated twice: once for shift_bank, once
  // with the east outputs it selects (as the SystemC Array settles in a delta cycle).
  void eval_edge(const Token& tok, const acc_t* pre_word) {
    for (int r = 0; r < R_; ++r) {
      east_window_[r] = pe(r, C_ - 1).window_q();
      east_res_[r] = 0;
    }
    ArrayEdgeCore::In in;
    in.tok = &tok;
    in.pre_word = pre_word;
    in.east_window = east_window_;
    in.east_res = east_res_;
    edge_.eval(in);
    for (int r = 0; r < R_; ++r) east_res_[r] = pe(r, C_ - 1).res_out(edge_.shift_bank(r) ? 1 : 0);
    edge_.eval(in);
  }
  // The PEs' next state from the edge outputs and their neighbours' registers, then the edge.
  void eval_pes_and_tick() {
    for (int r = 0; r < R_; ++r)
      for (int c = 0; c < C_; ++c) {
        PeIn in;
        if (c == 0) {
          in.a = edge_.feed_a(r);
          in.valid = edge_.feed_valid(r);
          in.swap = edge_.feed_swap(r);
          in.window = edge_.feed_window(r);
          in.res_in = edge_.res_in(r);
        } else {
          const PeCore& w = pe(r, c - 1);
          in.a = w.a_q();
          in.valid = w.valid_q();
          in.swap = w.swap_q();
          in.window = w.window_q();
          in.res_in = w.res_out(edge_.shift_bank(r) ? 1 : 0);
        }
        in.w = r == 0 ? edge_.feed_w(c) : pe(r - 1, c).w_q();
        in.shift = edge_.shift(r);
        in.shift_bank = edge_.shift_bank(r) ? 1 : 0;
        pe(r, c).eval(in);
      }
    edge_.tick();
    for (PeCore& pe : pes_) pe.tick();
  }
  const ArrayEdgeCore& edge() const { return edge_; }
  std::uint64_t gated() const {
    std::uint64_t n = 0;
    for (const PeCore& pe : pes_) n += pe.gated();
    return n;
  }
  acc_t acc(int r, int c) const { return pes_[std::size_t(r * C_ + c)].acc_q(); }

private:
  PeCore& pe(int r, int c) { return pes_[std::size_t(r * C_ + c)]; }
  int R_, C_;
  ArrayEdgeCore edge_;
  std::vector<PeCore> pes_;
  bool east_window_[kMaxRows]{};
  acc_t east_res_[kMaxRows]{};
};

// array.sv, Verilated for one configuration, with its twin.
class RtlView {
public:
  explicit RtlView(const HwParams& p)
      : p_(p), R_(p.rows), C_(p.cols), ew_(p.elem_bits), aw_(p.acc_bits), twin_(p),
        dut_(std::make_unique<FLYCOL_VTOP>(&ctx_)) {
    ctx_.fatalOnError(false);  // an assertion sets gotError(); the bench decides
  }
  ~RtlView() {
    dut_->final();
    write_verilator_coverage(ctx_, "array");  // coverage builds only (scripts/coverage)
  }
  RtlView(const RtlView&) = delete;
  RtlView& operator=(const RtlView&) = delete;
  void drive(const Token& t, const acc_t* pre, bool rst_n) {
    tok_ = t;
    std::copy(pre, pre + R_, pre_);
    rst_n_ = rst_n;
    // The RTL ports have exactly the element and accumulator widths.
    dut_->rst_ni = rst_n;
    dut_->tok_valid_i = t.valid;
    dut_->tok_swap_i = t.swap;
    dut_->tok_window_i = t.window;
    for (int r = 0; r < R_; ++r) tb::put_elem(dut_->tok_a_i, r, ew_, t.a[r]);
    for (int c = 0; c < C_; ++c) tb::put_elem(dut_->tok_w_i, c, ew_, t.w[c]);
    for (int r = 0; r < R_; ++r) tb::put_elem(dut_->pre_word_i, r, aw_, pre[r]);
    dut_->eval();
    if (!rst_n) {  // asynchronous in the RTL, at once in the twin
      twin_.reset();
      gated_seen_ = 0;
    }
    try {
      twin_.eval_edge(t, pre);
    } catch (const ProtocolError& e) {
      twin_error_ = e.what();
    }
    compare_twin();
  }
  bool pre_pop() { return dut_->pre_pop_o; }
  bool res_valid() { return dut_->res_valid_o; }
  int res_col() { return int(dut_->res_col_o); }
  acc_t res_word(int r) { return acc_t(tb::get_elem(dut_->res_word_o, r, aw_)); }
  void edge() {
    if (rst_n_) {
      try {
        twin_.eval_pes_and_tick();
      } catch (const ProtocolError& e) {
        twin_error_ = e.what();
      }
    }
    tb::clock_edge(ctx_, *dut_);
  }
  bool fault() {
    bool f = tb::take_assertion(ctx_);
    if (!twin_error_.empty()) {
      fmt::print(stderr, "twin: {}\n", twin_error_);
      twin_error_.clear();
      f = true;
    }
    if (!twin_diff_.empty()) {
      fmt::print(stderr, "RTL differs from its twin: {}\n", twin_diff_);
      twin_diff_.clear();
      f = true;
    }
    return f;
  }
  bool acc(int r, int c, acc_t& v) const {  // the twin's, which the RTL's outputs have matched
    v = twin_.acc(r, c);
    return true;
  }
  bool counters(std::uint64_t&, std::uint64_t& gated) const {
    gated = gated_total_;
    return false;  // gated_cnt_o is summed per cycle; the MAC count is not an RTL output
  }
  bool refuses_window(const Token& w) {
    const acc_t zero[kMaxRows]{};
    drive(w, zero, true);
    const bool twin_refused = !twin_error_.empty();  // ArrayEdgeCore's ProtocolError, as the RTL's
    twin_error_.clear();
    fmt::print("array_rtl_tb: a window token COLS-1 cycles after the last (the assertion below is expected):\n");
    tb::clock_edge(ctx_, *dut_);
#ifdef FLYCOL_NETLIST
    return twin_refused;  // a netlist has no assertions (Yosys defines SYNTHESIS)
#else
    return twin_refused && tb::take_assertion(ctx_);
#endif
  }
  std::uint64_t gated_total() const { return gated_total_; }

private:
  // What only the twin knows: res_word_o in every cycle, gated_cnt_o, and the nets between the
  // edge registers and the PEs (the issue register, the feed triangles, the preload skew line).
  void compare_twin() {
    const ArrayEdgeCore& e = twin_.edge();
    auto diff = [&](const std::string& what) {
      if (twin_diff_.empty()) twin_diff_ = what;
    };
    for (int r = 0; r < R_; ++r) {
      const acc_t got = acc_t(tb::get_elem(dut_->res_word_o, r, aw_));
      if (got != e.res_word()[r]) diff(fmt::format("res_word_o row {}: {:#x}, twin {:#x}", r, got, e.res_word()[r]));
    }
    const std::uint64_t g = twin_.gated();
    if (rst_n_ && std::uint64_t(dut_->gated_cnt_o) != g - gated_seen_)
      diff(fmt::format("gated_cnt_o {}, twin {}", std::uint64_t(dut_->gated_cnt_o), g - gated_seen_));
    if (rst_n_) gated_total_ += std::uint64_t(dut_->gated_cnt_o);
    gated_seen_ = g;
#ifndef FLYCOL_NETLIST
    const auto* root = dut_->rootp;
    const std::uint32_t emask = (1u << ew_) - 1, amask = aw_ == 16 ? 0xFFFFu : 0xFFFFFFFFu;
    for (int r = 0; r < R_; ++r) {
      const auto a = std::uint32_t(tb::get_elem(root->array__DOT__feed_a, r, ew_));
      if (a != (e.feed_a(r) & emask)) diff(fmt::format("feed_a row {}: {:#x}, twin {:#x}", r, a, e.feed_a(r) & emask));
      if (bool(tb::get_elem(root->array__DOT__feed_valid, r, 1)) != e.feed_valid(r)) diff(fmt::format("feed_valid row {}", r));
      if (bool(tb::get_elem(root->array__DOT__feed_swap, r, 1)) != e.feed_swap(r)) diff(fmt::format("feed_swap row {}", r));
      if (bool(tb::get_elem(root->array__DOT__feed_window, r, 1)) != e.feed_window(r))
        diff(fmt::format("feed_window row {}", r));
      if (bool(tb::get_elem(root->array__DOT__shift, r, 1)) != e.shift(r)) diff(fmt::format("shift row {}", r));
      if (bool(tb::get_elem(root->array__DOT__shift_bank, r, 1)) != e.shift_bank(r))
        diff(fmt::format("shift_bank row {}", r));
      const auto res = std::uint32_t(tb::get_elem(root->array__DOT__res_in, r, aw_));
      if (res != (e.res_in(r) & amask)) diff(fmt::format("res_in row {}: {:#x}, twin {:#x}", r, res, e.res_in(r) & amask));
    }
    for (int c = 0; c < C_; ++c) {
      const auto w = std::uint32_t(tb::get_elem(root->array__DOT__feed_w, c, ew_));
      if (w != (e.feed_w(c) & emask)) diff(fmt::format("feed_w column {}: {:#x}, twin {:#x}", c, w, e.feed_w(c) & emask));
    }
#endif
  }

  HwParams p_;
  int R_, C_, ew_, aw_;
  StructArray twin_;
  VerilatedContext ctx_;
  std::unique_ptr<FLYCOL_VTOP> dut_;
  Token tok_;
  acc_t pre_[kMaxRows]{};
  bool rst_n_ = false;
  std::uint64_t gated_seen_ = 0, gated_total_ = 0;
  std::string twin_error_, twin_diff_;
};

#else

// ArrayCore, the fast model of the accelerator top: registered outputs, eval()+tick() at the edge.
class CoreView {
public:
  explicit CoreView(const HwParams& p) : core_(p) {}
  void drive(const Token& t, const acc_t* pre, bool rst_n) {
    tok_ = t;
    pre_ = pre;
    rst_n_ = rst_n;
  }
  bool pre_pop() { return core_.pre_pop(); }
  bool res_valid() { return core_.res_valid(); }
  int res_col() { return core_.res_col(); }
  acc_t res_word(int r) { return core_.res_word()[r]; }
  void edge() {
    if (!rst_n_) {
      core_.reset();
      return;
    }
    core_.eval(&tok_, pre_);
    core_.tick();
  }
  bool fault() { return false; }
  bool acc(int r, int c, acc_t& v) const {
    v = core_.acc_bits(r, c);
    return true;
  }
  bool counters(std::uint64_t& macs, std::uint64_t& gated) const {
    macs = core_.mac_tokens();
    gated = core_.gated_macs();
    return true;
  }
  bool refuses_window(const Token& w) {
    const acc_t zero[kMaxRows]{};
    try {
      core_.eval(&w, zero);
    } catch (const ProtocolError&) {
      return true;
    }
    return false;
  }

private:
  ArrayCore core_;
  Token tok_;
  const acc_t* pre_ = nullptr;
  bool rst_n_ = false;
};

// The Array SC_MODULE (Pe modules and the edge) on its own signals and clock. Its reset is
// synchronous and its counters restart with it.
class ScView {
public:
  ScView(const std::string& name, const HwParams& p)
      : R_(p.rows), C_(p.cols), tok_a_((name + "_tok_a").c_str(), std::size_t(R_)),
        tok_w_((name + "_tok_w").c_str(), std::size_t(C_)), pre_word_((name + "_pre_word").c_str(), std::size_t(R_)),
        res_word_((name + "_res_word").c_str(), std::size_t(R_)), arr_(name.c_str(), p) {
    arr_.clk_i(clk_.clk());
    arr_.rst_ni(rst_n_);
    arr_.tok_valid_i(valid_);
    arr_.tok_swap_i(swap_);
    arr_.tok_window_i(window_);
    arr_.tok_a_i.bind(tok_a_);
    arr_.tok_w_i.bind(tok_w_);
    arr_.pre_word_i.bind(pre_word_);
    arr_.pre_pop_o(pre_pop_);
    arr_.res_valid_o(res_valid_);
    arr_.res_col_o(res_col_);
    arr_.res_word_o.bind(res_word_);
  }
  void drive(const Token& t, const acc_t* pre, bool rst_n) {
    rst_n_.write(rst_n);
    valid_.write(t.valid);
    swap_.write(t.swap);
    window_.write(t.window);
    for (int r = 0; r < R_; ++r) tok_a_[std::size_t(r)].write(t.a[r]);
    for (int c = 0; c < C_; ++c) tok_w_[std::size_t(c)].write(t.w[c]);
    for (int r = 0; r < R_; ++r) pre_word_[std::size_t(r)].write(pre[r]);
    if (!rst_n) macs_base_ = arr_.mac_tokens(), gated_base_ = arr_.gated_macs();
    tb::ScClock::settle();
  }
  bool pre_pop() { return pre_pop_.read(); }
  bool res_valid() { return res_valid_.read(); }
  int res_col() { return res_col_.read(); }
  acc_t res_word(int r) { return res_word_[std::size_t(r)].read(); }
  void edge() { clk_.step(); }
  bool fault() { return false; }
  bool acc(int r, int c, acc_t& v) const {
    v = arr_.acc_bits(r, c);
    return true;
  }
  bool counters(std::uint64_t& macs, std::uint64_t& gated) const {
    macs = arr_.mac_tokens() - macs_base_;
    gated = arr_.gated_macs() - gated_base_;
    return true;
  }
  // The module turns the edge's protocol error into SC_REPORT_ERROR, thrown by tb::ScClock.
  bool refuses_window(const Token& w) {
    const acc_t zero[kMaxRows]{};
    drive(w, zero, true);
    try {
      clk_.step();
      for (int i = 0; i < R_ + 2; ++i) clk_.step();  // the token reaches the edge register
    } catch (const sc_core::sc_report& e) {
      return std::strstr(e.what(), "less than COLS cycles") != nullptr;
    }
    return false;
  }

private:
  int R_, C_;
  tb::ScClock clk_;
  sc_core::sc_signal<bool> rst_n_, valid_, swap_, window_, pre_pop_, res_valid_;
  sc_core::sc_signal<int> res_col_;
  sc_core::sc_vector<sc_core::sc_signal<elem_t>> tok_a_, tok_w_;
  sc_core::sc_vector<sc_core::sc_signal<acc_t>> pre_word_, res_word_;
  Array arr_;
  std::uint64_t macs_base_ = 0, gated_base_ = 0;
};

// The issue rule on the bare cores (ArrayCore and ArrayEdgeCore): a window token COLS-1 cycles
// after a window token is refused, COLS cycles after it accepted; a swap-only token 2*COLS-1 cycles
// after the window token before the last is refused, 2*COLS cycles after it accepted.
void core_rule_checks(tb::MismatchLog& log) {
  HwParams p;
  p.rows = 3;
  p.cols = 4;
  const int C = p.cols;
  // Window tokens in the cycles `windows`, then token `t` in cycle `at`: refused?
  auto refuses = [&](bool fast, std::vector<int> windows, int at, bool swap, bool window) {
    Token w;
    w.window = true;
    Token t;
    t.swap = swap;
    t.window = window;
    ArrayCore core(p);
    ArrayEdgeCore edge(p);
    bool east[kMaxRows]{};
    acc_t res[kMaxRows]{}, pre[kMaxRows]{};
    ArrayEdgeCore::In in;
    in.east_window = east;
    in.east_res = res;
    in.pre_word = pre;
    try {
      for (int i = 0; i <= at; ++i) {
        const bool win = std::find(windows.begin(), windows.end(), i) != windows.end();
        const Token* tok = i == at ? &t : win ? &w : nullptr;
        if (fast) {
          core.eval(tok, pre);
          core.tick();
        } else {
          in.tok = tok;
          edge.eval(in);
          edge.tick();
        }
      }
    } catch (const ProtocolError&) {
      return true;
    }
    return false;
  };
  for (int fast = 0; fast < 2; ++fast) {
    const char* who = fast ? "ArrayCore" : "ArrayEdgeCore";
    log.expect_true(refuses(fast, {0}, C - 1, false, true),
                    fmt::format("{} accepts a window token COLS-1 cycles after a window token", who));
    log.expect_true(!refuses(fast, {0}, C, false, true),
                    fmt::format("{} refuses a window token COLS cycles after a window token", who));
    log.expect_true(!refuses(fast, {0}, C, true, true),
                    fmt::format("{} refuses a swap+window token COLS cycles after a window token", who));
    log.expect_true(refuses(fast, {0, C}, 2 * C - 1, true, false),
                    fmt::format("{} accepts a swap token 2*COLS-1 cycles after the window token before the last", who));
    log.expect_true(!refuses(fast, {0, C}, 2 * C, true, false),
                    fmt::format("{} refuses a swap token 2*COLS cycles after the window token before the last", who));
  }
}

// The variants of the core and SystemC views: sizes (9x2 is tall, so several windows' results are
// in flight at once) x arithmetics, zero gating on and off, with and without odd tokens.
std::vector<Variant> variants() {
  struct Size {
    int r, c;
  };
  const Size sizes[] = {{16, 16}, {4, 4}, {3, 5}, {1, 1}, {2, 7}, {9, 2}};
  const Arithmetic ariths[] = {Arithmetic::fp16, Arithmetic::int8, Arithmetic::int16};
  std::vector<Variant> out;
  int n = 0;
  for (const Size& s : sizes)
    for (Arithmetic a : ariths) {
      Variant v;
      v.p.rows = s.r;
      v.p.cols = s.c;
      v.p.arithmetic = a;
      v.p.elem_bits = a == Arithmetic::int8 ? 8 : 16;
      v.p.acc_bits = a == Arithmetic::fp16 ? 16 : 32;
      v.p.zero_gating = (n % 2) == 0 || a == Arithmetic::fp16;
      if (a == Arithmetic::fp16 && s.r == 4) v.p.zero_gating = false;  // one fp16 case without gating
      v.special = a == Arithmetic::fp16 ? 0.02 : 0.05;
      v.odd = (n % 3) != 0;
      v.name = fmt::format("a{}x{}_{}_{}{}", s.r, s.c, arith_name(a), v.p.zero_gating ? "gated" : "ungated",
                           v.odd ? "_odd" : "");
      out.push_back(v);
      ++n;
    }
  return out;
}

#endif

// The gap rule, last act of a view: a window token COLS-1 cycles after the previous one.
template <class View>
void gap_check(View& v, const HwParams& p, tb::MismatchLog& log) {
  if (p.cols < 2) return;  // one column: window tokens in consecutive cycles are allowed
  const acc_t zero[kMaxRows]{};
  Token w;
  w.window = true;
  v.drive(Token{}, zero, false);
  v.edge();
  v.drive(w, zero, true);
  v.edge();
  for (int i = 1; i < p.cols - 1; ++i) {
    v.drive(Token{}, zero, true);
    v.edge();
  }
  (void)v.fault();
  log.expect_true(v.refuses_window(w), "a window token COLS-1 cycles after the previous one was not refused");
}

}  // namespace

#ifdef FLYCOL_VTOP

int main(int argc, char** argv) {
  tb::BenchMain harness("array", {"runs", 400, 10000, "RUNs on a 16x16 array, scaled up by 256/(ROWS*COLS)"});
  if (!harness.parse(argc, argv)) return 2;
  Variant var;
  var.p = harness.params();
  const std::uint64_t runs = harness.count() * std::uint64_t(std::max(1, 256 / (var.p.rows * var.p.cols)));
  var.special = var.p.arithmetic == Arithmetic::fp16 ? 0.02 : 0.05;
  // Operand isolation (configurations with it: fornt16, small, ...; without: rect8x4) changes no
  // output: the same reference holds, and the PEs' isolation assertions run inside the array.
  harness.announce("{}x{} {} {} gating, {} operand isolation, {} RUNs", var.p.rows, var.p.cols,
                   arith_name(var.p.arithmetic), var.p.zero_gating ? "with" : "without",
                   var.p.operand_isolation ? "with" : "without", runs);
  Figures fig;
  RtlView view(var.p);
  harness.run(harness.rtl_view(), [&](tb::MismatchLog& log) {
    run_array(view, var, harness.seed(0), int(runs), true, log, fig);
    if (log.ok()) gap_check(view, var.p, log);
  });
  return harness.finish(fmt::format("{} cycles, {} tokens ({} windows), {} result words, {} pops, {} gated MACs "
                                    "(gated_cnt_o sum {}), {} resets",
                                    fig.cycles, fig.tokens, fig.windows, fig.words, fig.pops, fig.gated,
                                    view.gated_total(), fig.resets));
}

#else

int sc_main(int argc, char* argv[]) {
  tb::BenchMain harness("array", {"runs", 40, 1500, "RUNs per variant and view"});
  if (!harness.parse(argc, argv)) return 2;
  harness.announce("{} RUNs per variant", harness.count());
  const std::vector<Variant> vars = variants();
  // Every SC_MODULE exists before the first sc_start.
  std::vector<std::unique_ptr<ScView>> sc_views;
  for (const Variant& v : vars) sc_views.push_back(std::make_unique<ScView>(v.name, v.p));
  Figures fig;
  if (harness.core()) harness.run("core rules", core_rule_checks);
  for (std::size_t i = 0; i < vars.size(); ++i) {
    const int runs = int(harness.count());
    if (harness.core()) {
      CoreView core(vars[i].p);
      harness.run(fmt::format("core {}", vars[i].name),
                  [&](tb::MismatchLog& log) { run_array(core, vars[i], harness.seed(i), runs, true, log, fig); });
      harness.run("core gap rule", [&](tb::MismatchLog& log) { gap_check(core, vars[i].p, log); });
    }
    // The same stimulus on both views; the Array's counters and PEs lose the tokens in flight at a
    // reset, so the module runs without.
    if (harness.sc())
      harness.run(fmt::format("sc {}", vars[i].name), [&](tb::MismatchLog& log) {
        run_array(*sc_views[i], vars[i], harness.seed(i), runs, false, log, fig);
      });
  }
  // The module's refusal stops its simulation: checked once, on the 4x4 fp16 array, after every run.
  if (harness.sc() && harness.errors() == 0)
    harness.run("sc gap rule", [&](tb::MismatchLog& log) { gap_check(*sc_views[3], vars[3].p, log); });
  return harness.finish(fmt::format("{} arrays, {} cycles, {} tokens ({} windows), {} result words, {} pops, "
                                    "{} PE MACs ({} gated), {} resets",
                                    vars.size(), fig.cycles, fig.tokens, fig.windows, fig.words, fig.pops,
                                    fig.pe_macs, fig.gated, fig.resets));
}

#endif
