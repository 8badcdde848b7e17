// Lockstep testbench of array.sv for one configuration (built once per configuration by
// hw/array/CMakeLists.txt). Two C++ twins run beside the Verilated array on random token streams
// that obey the issue rules (FILL, SWAP0, contexts ending in swap+window, odd tokens, bubbles, the
// 2*COLS window gap), a fresh random preload word every cycle and now and then a reset:
//  * the structural twin, ArrayEdgeCore + ROWS x COLS PeCore wired as the SystemC Array: every
//    output every cycle, including res_word_o outside valid cycles and the gated-MAC count;
//  * ArrayCore, the fast model of the accelerator top: pre_pop, res_valid, res_col, and res_word
//    while valid, every cycle; its gated MAC total after each drain.
// Then a window token 2*COLS-1 cycles after the previous one must fire the RTL assertion.
// Usage: array_rtl_tb [--config NAME|FILE] [--seed N] [--runs N] [--long]  (400 / 10000 RUNs at
// 16x16, scaled up by 256/(ROWS*COLS) for smaller arrays)
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>

#include FLYCOL_VTOP_HEADER
// The model's root class, for the array's west and north edge nets (public_flat_rd in array.sv).
// FLYCOL_NETLIST: the model is a Yosys netlist of array.sv (a check that Yosys reads the RTL as
// Verilator does), which has the ports but not these nets.
#ifndef FLYCOL_NETLIST
#define FLYCOL_STR2(x) #x
#define FLYCOL_STR(x) FLYCOL_STR2(x)
#define FLYCOL_ROOT_HEADER(top) FLYCOL_STR(top##___024root.h)
#define FLYCOL_ROOT_HEADER_OF(top) FLYCOL_ROOT_HEADER(top)
#include FLYCOL_ROOT_HEADER_OF(FLYCOL_VTOP)
#endif
#include "base/numerics/fp16.h"
#include "hw/array/array_core.h"
#include "hw/array/array_edge.h"
#include "hw/common/hw_params.h"
#include "hw/common/protocol_error.h"
#include "hw/common/token.h"
#include "hw/pe/pe_core.h"
#include "sim/config/config.h"
#include "sim/config/config_keys.h"
#include "tb/common/verilator.h"

using namespace flycol;
using namespace flycol::hw;
using flycol::tb::get_elem;
using flycol::tb::put_elem;

namespace {

const char* arith_name(Arithmetic a) {
  return a == Arithmetic::fp16 ? "fp16" : a == Arithmetic::int8 ? "int8" : "int16";
}

// Operands and preload values: fp16 corners (zeros of both signs, subnormals, extremes,
// infinities, NaNs of any payload), integer extremes, bits above the element or accumulator
// width (the C++ models drop them; the RTL ports do not have them).
class ValueGen {
public:
  explicit ValueGen(std::uint64_t seed) : rng_(seed) {}
  std::uint64_t bits(int n) { return rng_() & ((1ull << n) - 1); }
  bool chance(double p) { return std::uniform_real_distribution<double>(0, 1)(rng_) < p; }
  int uniform(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }

  fp16::Bits half(double zeros, double special) {
    const fp16::Bits sign = fp16::Bits(bits(1) << 15);
    if (chance(zeros)) return sign;
    if (chance(special)) {
      switch (uniform(0, 6)) {
        case 0: return fp16::Bits(sign | fp16::kPosInf);
        case 1: return fp16::kCanonicalNaN;
        case 2: return fp16::Bits(sign | 0x7C00 | (1 + bits(10) % 0x3FF));
        case 3: return fp16::Bits(sign | fp16::kMaxNormal);
        case 4: return fp16::Bits(sign | fp16::kMinNormal);
        default: return fp16::Bits(sign | (1 + bits(10) % 0x3FF));  // subnormal
      }
    }
    return fp16::Bits(sign | (uniform(8, 17) << 10) | bits(10));  // about 2^-7 .. 4
  }
  elem_t elem(Arithmetic arith, double zeros, double special) {
    if (arith == Arithmetic::fp16) return half(zeros, special);
    const int ew = arith == Arithmetic::int8 ? 8 : 16;
    std::uint32_t v;
    if (chance(zeros)) v = 0;
    else if (chance(special)) v = chance(0.5) ? (1u << (ew - 1)) : (1u << (ew - 1)) - 1;
    else v = std::uint32_t(bits(ew));
    if (ew == 8 && chance(0.05)) v |= std::uint32_t(bits(8)) << 8;
    return elem_t(v);
  }
  acc_t acc(Arithmetic arith, double special) {
    if (arith == Arithmetic::fp16) {
      acc_t v = half(0.1, special);
      if (chance(0.03)) v |= acc_t(bits(16)) << 16;
      return v;
    }
    if (chance(0.1)) return 0;
    if (chance(special)) return chance(0.5) ? 0x80000000u : 0x7FFFFFFFu;
    return chance(0.5) ? acc_t(std::int32_t(uniform(-100000, 100000))) : acc_t(bits(32));
  }

private:
  std::mt19937_64 rng_;
};

// ArrayEdgeCore and the PeCores wired as the SystemC Array (hw/array/array.cpp) does with its Pe
// modules: the register-for-register twin of array.sv.
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
  void eval_edge(const Token& tok, const acc_t* pre_word) {
    for (int r = 0; r < R_; ++r) {
      east_window_[r] = pe(r, C_ - 1).window_q();
      east_res_[r] = pe(r, C_ - 1).res_q();
    }
    ArrayEdgeCore::In in;
    in.tok = &tok;
    in.pre_word = pre_word;
    in.east_window = east_window_;
    in.east_res = east_res_;
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
          in.res_in = w.res_q();
        }
        in.w = r == 0 ? edge_.feed_w(c) : pe(r - 1, c).w_q();
        in.shift = edge_.shift(r);
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

private:
  PeCore& pe(int r, int c) { return pes_[std::size_t(r * C_ + c)]; }
  int R_, C_;
  ArrayEdgeCore edge_;
  std::vector<PeCore> pes_;
  bool east_window_[kMaxRows]{};
  acc_t east_res_[kMaxRows]{};
};

class Bench {
public:
  Bench(const HwParams& p, std::uint64_t seed, int runs)
      : p_(p), R_(p.rows), C_(p.cols), ew_(p.elem_bits), aw_(p.acc_bits), twin_(p), fast_(p), gen_(seed) {
    ctx_.fatalOnError(false);  // an assertion sets gotError(); the testbench decides
    dut_ = std::make_unique<FLYCOL_VTOP>(&ctx_);
    const bool fp = p.arithmetic == Arithmetic::fp16;
    zeros_ = 0.15;
    special_ = fp ? 0.02 : 0.05;
    plan(runs);
  }

  int run() {
    reset();
    const std::uint64_t limit = 20 * stream_.size() * std::uint64_t(2 * C_ + 2) + 10000;
    while (errors_ == 0 && cycle_ < limit) {
      if (next_ == stream_.size() && drained()) break;
      if (gen_.uniform(0, 4999) == 0) {  // now and then a reset, wherever the stream is
        reset();
        continue;
      }
      if (gen_.uniform(0, 999) == 0) {
        const double bubbles[] = {0.0, 0.1, 0.5};
        p_bubble_ = bubbles[gen_.uniform(0, 2)];
      }
      step(next_token());
    }
    if (errors_ == 0 && next_ < stream_.size()) fail("watchdog", fmt::format("only {} of {} tokens issued", next_, stream_.size()));
    if (errors_ == 0) gap_check();
    fmt::print("array_rtl_tb [{}]: {}x{} {} {} gating, {} cycles, {} tokens ({} MAC steps, {} windows), {} result "
               "words, {} pops, {} gated MACs, {} resets, {} mismatches\n",
               FLYCOL_RTL_CONFIG, R_, C_, arith_name(p_.arithmetic), p_.zero_gating ? "with" : "without", cycle_,
               issued_, mac_steps_, windows_, words_, pops_, gated_total_, resets_, errors_);
    return errors_;
  }

private:
  // --- stimulus -----------------------------------------------------------------------------------
  Token mac_token(bool swap, bool window) {
    Token t;
    t.valid = true;
    t.swap = swap;
    t.window = window;
    const bool zero_row = gen_.chance(0.1);  // a whole row of zeros now and then
    for (int r = 0; r < R_; ++r) t.a[r] = zero_row && r == 0 ? elem_t(0) : gen_.elem(p_.arithmetic, zeros_, special_);
    for (int c = 0; c < C_; ++c) t.w[c] = gen_.elem(p_.arithmetic, zeros_, special_);
    return t;
  }
  static Token flag_token(bool swap, bool window) {
    Token t;
    t.swap = swap;
    t.window = window;
    return t;
  }
  // RUNs as the issue stage makes them (FILL, SWAP0, contexts of random length whose last step is
  // the swap+window token), with odd tokens sprinkled in: swap only, MAC+window, window only.
  void plan(int runs) {
    for (int run = 0; run < runs; ++run) {
      stream_.push_back(flag_token(false, true));
      stream_.push_back(flag_token(true, true));
      const int n_ctx = gen_.uniform(1, 5);
      for (int k = 0; k < n_ctx; ++k) {
        const int len = gen_.chance(0.3) ? 1 : gen_.uniform(1, 3 * C_ + 5);
        for (int s = 0; s + 1 < len; ++s) {
          stream_.push_back(mac_token(false, false));
          if (gen_.chance(0.02)) {
            switch (gen_.uniform(0, 2)) {
              case 0: stream_.push_back(flag_token(true, false)); break;
              case 1: stream_.push_back(mac_token(false, true)); break;
              default: stream_.push_back(flag_token(false, true)); break;
            }
          }
        }
        stream_.push_back(mac_token(true, true));
      }
    }
  }
  // The next planned token unless a bubble is drawn or the gap rule holds it back. A token without
  // valid may still carry garbage operands: the issue register must ignore them.
  Token next_token() {
    Token t;
    if (next_ < stream_.size()) {
      const Token& s = stream_[next_];
      if (!((s.window || s.swap) && gap_ < 2 * C_) && !gen_.chance(p_bubble_)) {
        t = s;
        ++next_;
        last_issue_ = cycle_;
        ++issued_;
        mac_steps_ += t.valid;
        windows_ += t.window;
      }
    }
    if (!t.valid && gen_.chance(0.3)) {
      for (int r = 0; r < R_; ++r) t.a[r] = elem_t(gen_.bits(16));
      for (int c = 0; c < C_; ++c) t.w[c] = elem_t(gen_.bits(16));
    }
    gap_ = t.window ? 1 : std::min(gap_ + 1, 1 << 20);
    return t;
  }
  bool drained() const { return cycle_ > last_issue_ + std::uint64_t(2 * C_ + R_ + 2); }

  // --- lockstep -----------------------------------------------------------------------------------
  void fail(const char* signal, const std::string& what) {
    if (errors_++ < 10) fmt::print("MISMATCH [{}] cycle {}: {}: {}\n", FLYCOL_RTL_CONFIG, cycle_, signal, what);
  }

  void drive(const Token& t, const acc_t* pre) {
    dut_->tok_valid_i = t.valid;
    dut_->tok_swap_i = t.swap;
    dut_->tok_window_i = t.window;
    for (int r = 0; r < R_; ++r) put_elem(dut_->tok_a_i, r, ew_, t.a[r]);
    for (int c = 0; c < C_; ++c) put_elem(dut_->tok_w_i, c, ew_, t.w[c]);
    for (int r = 0; r < R_; ++r) put_elem(dut_->pre_word_i, r, aw_, pre[r]);
  }

  // This cycle's outputs: the Verilated array against both twins.
  void compare() {
    const ArrayEdgeCore& e = twin_.edge();
    const bool pop = dut_->pre_pop_o, valid = dut_->res_valid_o;
    const int col = int(dut_->res_col_o);
    if (pop != e.pre_pop()) fail("pre_pop_o", fmt::format("{} (structural twin {})", pop, e.pre_pop()));
    if (pop != fast_.pre_pop()) fail("pre_pop_o", fmt::format("{} (ArrayCore {})", pop, fast_.pre_pop()));
    if (valid != e.res_valid()) fail("res_valid_o", fmt::format("{} (structural twin {})", valid, e.res_valid()));
    if (valid != fast_.res_valid()) fail("res_valid_o", fmt::format("{} (ArrayCore {})", valid, fast_.res_valid()));
    const int want_col = e.res_valid() ? e.res_col() : 0;
    if (col != want_col) fail("res_col_o", fmt::format("{} (structural twin {})", col, want_col));
    if (col != fast_.res_col()) fail("res_col_o", fmt::format("{} (ArrayCore {})", col, fast_.res_col()));
    for (int r = 0; r < R_; ++r) {
      const acc_t got = acc_t(get_elem(dut_->res_word_o, r, aw_));
      if (got != e.res_word()[r])
        fail("res_word_o", fmt::format("row {}: {:#x} (structural twin {:#x})", r, got, e.res_word()[r]));
      if (valid && fast_.res_valid() && got != fast_.res_word()[r])
        fail("res_word_o", fmt::format("column {} row {}: {:#x} (ArrayCore {:#x})", col, r, got, fast_.res_word()[r]));
    }
    // gated_cnt_o: the PE pulses of the MAC steps of the previous cycle, i.e. what the PE cores'
    // gated counters grew by at the last edge.
    const std::uint64_t g = twin_.gated();
    if (std::uint64_t(dut_->gated_cnt_o) != g - gated_seen_)
      fail("gated_cnt_o", fmt::format("{} (structural twin {})", std::uint64_t(dut_->gated_cnt_o), g - gated_seen_));
    gated_total_ += std::uint64_t(dut_->gated_cnt_o);
    gated_seen_ = g;
    words_ += valid;
    pops_ += pop;
    compare_edge_nets();
    if (ctx_.gotError()) {
      fail("assertion", "an RTL assertion fired");
      ctx_.gotError(false);
      ctx_.gotFinish(false);
    }
  }

  // The nets between the edge registers and the PEs, against ArrayEdgeCore's outputs: the issue
  // register (operands held without valid), the feed triangles and the preload skew line (zeros
  // outside pops) are checked where no output of the array shows them.
  void compare_edge_nets() {
#ifndef FLYCOL_NETLIST
    const ArrayEdgeCore& e = twin_.edge();
    const auto* root = dut_->rootp;
    const std::uint32_t emask = (1u << ew_) - 1, amask = aw_ == 16 ? 0xFFFFu : 0xFFFFFFFFu;
    for (int r = 0; r < R_; ++r) {
      const auto a = std::uint32_t(get_elem(root->array__DOT__feed_a, r, ew_));
      if (a != (e.feed_a(r) & emask)) fail("feed_a", fmt::format("row {}: {:#x} (structural twin {:#x})", r, a, e.feed_a(r) & emask));
      if (bool(get_elem(root->array__DOT__feed_valid, r, 1)) != e.feed_valid(r)) fail("feed_valid", fmt::format("row {}", r));
      if (bool(get_elem(root->array__DOT__feed_swap, r, 1)) != e.feed_swap(r)) fail("feed_swap", fmt::format("row {}", r));
      if (bool(get_elem(root->array__DOT__feed_window, r, 1)) != e.feed_window(r)) fail("feed_window", fmt::format("row {}", r));
      if (bool(get_elem(root->array__DOT__shift, r, 1)) != e.shift(r)) fail("shift", fmt::format("row {}", r));
      const auto res = std::uint32_t(get_elem(root->array__DOT__res_in, r, aw_));
      if (res != (e.res_in(r) & amask)) fail("res_in", fmt::format("row {}: {:#x} (structural twin {:#x})", r, res, e.res_in(r) & amask));
    }
    for (int c = 0; c < C_; ++c) {
      const auto w = std::uint32_t(get_elem(root->array__DOT__feed_w, c, ew_));
      if (w != (e.feed_w(c) & emask)) fail("feed_w", fmt::format("column {}: {:#x} (structural twin {:#x})", c, w, e.feed_w(c) & emask));
    }
#endif
  }

  void edge() {
    ctx_.timeInc(1);
    dut_->clk_i = 1;
    dut_->eval();
    ctx_.timeInc(1);
    dut_->clk_i = 0;
  }

  void step(const Token& t) {
    acc_t pre[kMaxRows];
    for (int r = 0; r < R_; ++r) pre[r] = gen_.acc(p_.arithmetic, special_);
    // The RTL ports have exactly the element and accumulator widths.
    acc_t pre_rtl[kMaxRows];
    for (int r = 0; r < R_; ++r) pre_rtl[r] = aw_ == 16 ? (pre[r] & 0xFFFFu) : pre[r];
    Token t_rtl = t;
    for (int r = 0; r < R_; ++r) t_rtl.a[r] = elem_t(t.a[r] & ((1u << ew_) - 1));
    for (int c = 0; c < C_; ++c) t_rtl.w[c] = elem_t(t.w[c] & ((1u << ew_) - 1));
    drive(t_rtl, pre_rtl);
    dut_->eval();
    try {
      twin_.eval_edge(t, pre);
      compare();
      twin_.eval_pes_and_tick();
      fast_.eval(&t, pre);
      fast_.tick();
    } catch (const ProtocolError& e) {
      fail("C++ twin", e.what());
    }
    edge();
    ++cycle_;
  }

  // Asynchronous in the RTL, at once in the twins: compared while held, then one edge in reset.
  void reset() {
    drive(Token{}, zero_word_);
    dut_->rst_ni = 0;
    dut_->eval();
    twin_.reset();
    fast_.reset();
    gated_seen_ = 0;
    twin_.eval_edge(Token{}, zero_word_);
    compare();
    edge();
    dut_->rst_ni = 1;
    dut_->eval();
    gap_ = 1 << 20;
    ++resets_;
    ++cycle_;
  }

  // The RTL must report a window token 2*COLS-1 cycles after the previous one, as the cores do.
  void gap_check() {
    reset();
    Token w = flag_token(false, true);
    step(w);
    for (int i = 1; i < 2 * C_ - 1; ++i) step(Token{});
    drive(w, zero_word_);
    dut_->eval();
    bool fast_refused = false, twin_refused = false;
    try {
      fast_.eval(&w, zero_word_);
    } catch (const ProtocolError&) {
      fast_refused = true;
    }
    try {
      twin_.eval_edge(w, zero_word_);
    } catch (const ProtocolError&) {
      twin_refused = true;
    }
    fmt::print("array_rtl_tb: a window token 2*COLS-1 cycles after the last (the assertion below is expected):\n");
    edge();
#ifdef FLYCOL_NETLIST
    const bool rtl_refused = true;  // a netlist has no assertions (Yosys defines SYNTHESIS)
#else
    const bool rtl_refused = ctx_.gotError();
#endif
    if (!fast_refused || !twin_refused || !rtl_refused)
      fail("gap rule", fmt::format("not refused (ArrayCore {}, structural twin {}, RTL assertion {})", fast_refused,
                                   twin_refused, rtl_refused));
    ctx_.gotError(false);
    ctx_.gotFinish(false);
  }

  HwParams p_;
  int R_, C_, ew_, aw_;
  StructArray twin_;
  ArrayCore fast_;
  ValueGen gen_;
  VerilatedContext ctx_;
  std::unique_ptr<FLYCOL_VTOP> dut_;
  double zeros_ = 0.15, special_ = 0.02, p_bubble_ = 0.1;
  std::vector<Token> stream_;
  std::size_t next_ = 0;
  int gap_ = 1 << 20;
  const acc_t zero_word_[kMaxRows]{};
  std::uint64_t cycle_ = 0, last_issue_ = 0, gated_seen_ = 0, gated_total_ = 0;
  std::uint64_t issued_ = 0, mac_steps_ = 0, windows_ = 0, words_ = 0, pops_ = 0, resets_ = 0;
  int errors_ = 0;
};

}  // namespace

int main(int argc, char** argv) {
  std::uint64_t seed = 1;
  int runs = 0;  // default: 400 RUNs on a 16x16 array, more on smaller ones (same PE-cycles)
  std::string config = FLYCOL_RTL_CONFIG;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--seed" && i + 1 < argc) seed = std::strtoull(argv[++i], nullptr, 0);
    else if (a == "--runs" && i + 1 < argc) runs = std::atoi(argv[++i]);
    else if (a == "--config" && i + 1 < argc) config = argv[++i];
    else if (a == "--long") runs = -1;
    else {
      fmt::print(stderr, "usage: array_rtl_tb [--config NAME|FILE] [--seed N] [--runs N] [--long]\n");
      return 2;
    }
  }
  HwParams p;
  try {
    p = flycol::hardware_params(load_config_by_name_or_path(config));
  } catch (const std::exception& e) {
    fmt::print(stderr, "array_rtl_tb: {}\n", e.what());
    return 2;
  }
  const int scale = std::max(1, 256 / (p.rows * p.cols));
  if (runs == 0) runs = 400 * scale;
  if (runs < 0) runs = 10000 * scale;
  fmt::print("array_rtl_tb [{}]: configuration {}, seed {}, {} runs\n", FLYCOL_RTL_CONFIG, config, seed, runs);
  Bench b(p, seed * 0x9E3779B97F4A7C15ull + 7, runs);
  const int errors = b.run();
  fmt::print("array_rtl_tb [{}]: {}\n", FLYCOL_RTL_CONFIG, errors ? "FAIL" : "PASS");
  return errors ? 1 : 0;
}
