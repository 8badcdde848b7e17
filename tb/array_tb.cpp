// Testbench of the PE array (hw/array): for several sizes and all three arithmetics, random token
// streams that obey the issue rules (FILL, SWAP0, contexts ending in swap+window, random bubbles)
// drive the signal-level Array and the fast ArrayCore side by side. (a) The Array is checked
// against an independent reference of docs/microarchitecture.md 9.4-9.6 (value, column and cycle
// of every result word, cycles of every preload pop); (b) ArrayCore against the Array, every
// output, every cycle. Usage: array_tb [--seed N] [--runs N] [--long]
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <systemc>

#include "base/numerics/int_mac.h"
#include "hw/array/array.h"
#include "hw/array/array_core.h"
#include "hw/array/array_edge.h"
#include "base/numerics/fp16.h"
#include "hw/common/protocol_error.h"

using namespace flycol;
using namespace flycol::hw;
using sc_core::sc_signal;
using sc_core::sc_vector;

namespace {

const char* arith_name(Arithmetic a) {
  return a == Arithmetic::fp16 ? "fp16" : a == Arithmetic::int8 ? "int8" : "int16";
}

// Random operands: `special` is the chance of an fp16 corner value (infinity, NaN of any payload,
// subnormal, extreme) or an integer extreme; `zeros` the chance of a zero (either sign).
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
    if (ew == 8 && chance(0.05)) v |= std::uint32_t(bits(8)) << 8;  // bits above the element
    return elem_t(v);
  }
  acc_t acc(Arithmetic arith, double special) {
    if (arith == Arithmetic::fp16) {
      acc_t v = half(0.1, special);
      if (chance(0.03)) v |= acc_t(bits(16)) << 16;  // bits above the accumulator
      return v;
    }
    if (chance(0.1)) return 0;
    if (chance(special)) return chance(0.5) ? 0x80000000u : 0x7FFFFFFFu;
    return chance(0.5) ? acc_t(std::int32_t(uniform(-100000, 100000))) : acc_t(bits(32));
  }

private:
  std::mt19937_64 rng_;
};

struct CaseCfg {
  int rows, cols;
  Arithmetic arith;
  bool gating;
  double zeros, special;  // operand value mix
  bool odd;               // also swap-only, MAC+window and mid-run window-only tokens
};

// The array as docs/microarchitecture.md 9.5 states it, at issue-time granularity: accumulators and
// reserve registers per PE on raw bits, plus the edge timing formulas.
class Reference {
public:
  explicit Reference(const HwParams& p) : p_(p), R_(p.rows), C_(p.cols), acc_(R_ * C_, 0), res_(R_ * C_, 0), in_(R_ * C_, 0) {}

  struct Expected {
    std::uint64_t cycle;
    int col;
    std::vector<acc_t> word;
  };
  std::deque<std::uint64_t> pops;  // cycles in which pre_pop must be high
  std::deque<Expected> results;
  std::uint64_t macs = 0, gated = 0;

  acc_t acc(int r, int c) const { return acc_[std::size_t(r * C_ + c)]; }

  // Cycle `t`: first the preload word on the bus (if this is a pop cycle), then the token.
  void cycle(std::uint64_t t, const Token& tok, const acc_t* bus) {
    if (pop_left_ > 0 && t == pop_next_) {
      const int col = C_ - 1 - (C_ - pop_left_);
      for (int r = 0; r < R_; ++r) in_[idx(r, col)] = p_.arithmetic == Arithmetic::fp16 ? (bus[r] & 0xFFFF) : bus[r];
      ++pop_next_;
      if (--pop_left_ == 0) res_ = in_;  // the window's preload now fills the reserve registers
    }
    if (!tok.any()) return;
    if (tok.valid) {
      ++macs;
      for (int r = 0; r < R_; ++r)
        for (int c = 0; c < C_; ++c) acc_[idx(r, c)] = mac(tok.a[r], tok.w[c], acc_[idx(r, c)]);
    }
    if (tok.window) {
      Expected e;
      const std::vector<acc_t>& out = tok.swap ? acc_ : res_;
      for (int j = 0; j < C_; ++j) {
        e.cycle = t + std::uint64_t(C_ + R_ + j);
        e.col = C_ - 1 - j;
        e.word.assign(std::size_t(R_), 0);
        for (int r = 0; r < R_; ++r) e.word[std::size_t(r)] = out[idx(r, e.col)];
        results.push_back(e);
        pops.push_back(t + std::uint64_t(C_ + 1 + j));
      }
      if (tok.swap) acc_ = res_;
      pop_next_ = t + std::uint64_t(C_ + 1);
      pop_left_ = C_;
    } else if (tok.swap) {
      std::swap(acc_, res_);
    }
  }

private:
  std::size_t idx(int r, int c) const { return std::size_t(r * C_ + c); }
  std::int32_t sext(elem_t v) const {
    return p_.arithmetic == Arithmetic::int8 ? std::int32_t(std::int8_t(v & 0xFF)) : std::int32_t(std::int16_t(v));
  }
  acc_t mac(elem_t a, elem_t w, acc_t acc) {
    if (p_.arithmetic == Arithmetic::fp16) {
      if (p_.zero_gating && (fp16::is_zero(a) || fp16::is_zero(w))) ++gated;
      return fp16::mac(a, w, fp16::Bits(acc), p_.zero_gating);
    }
    const std::int32_t sa = sext(a), sw = sext(w);
    if (p_.zero_gating && (sa == 0 || sw == 0)) ++gated;
    return acc_t(intmac::mac(sa, sw, std::int32_t(acc)));
  }

  HwParams p_;
  int R_, C_;
  std::vector<acc_t> acc_, res_, in_;
  std::uint64_t pop_next_ = 0;
  int pop_left_ = 0;
};

// One array size and arithmetic: signals, the Array, the ArrayCore, the stream and the reference.
struct Bench {
  std::string label;
  CaseCfg cfg;
  HwParams p;
  int R, C;
  sc_signal<bool> tok_valid, tok_swap, tok_window, pre_pop, res_valid;
  sc_signal<int> res_col;
  sc_vector<sc_signal<elem_t>> tok_a, tok_w;
  sc_vector<sc_signal<acc_t>> pre_word, res_word;
  std::unique_ptr<Array> arr;
  std::unique_ptr<ArrayCore> fast;
  Reference ref;
  ValueGen gen;

  std::vector<Token> stream;  // planned tokens, in order, without timing
  std::size_t next = 0;
  double p_bubble;
  int gap = 1 << 20;          // cycles since the last window token, as the issue stage counts it
  Token cur;                  // on the token signals this cycle
  acc_t bus[kMaxRows]{};      // on the preload bus this cycle
  std::uint64_t last_issue = 0, done_cycle = 0;
  bool done = false;
  std::uint64_t errors_a = 0, errors_b = 0, words = 0, pops = 0, windows = 0;

  Bench(const std::string& name, const CaseCfg& c, std::uint64_t seed, int runs)
      : label(name), cfg(c), p(make_params(c)), R(c.rows), C(c.cols), tok_a((name + "_tok_a").c_str(), std::size_t(R)),
        tok_w((name + "_tok_w").c_str(), std::size_t(C)), pre_word((name + "_pre_word").c_str(), std::size_t(R)),
        res_word((name + "_res_word").c_str(), std::size_t(R)),
        arr(new Array(name.c_str(), p)), fast(new ArrayCore(p)), ref(p), gen(seed) {
    arr->tok_valid_i(tok_valid);
    arr->tok_swap_i(tok_swap);
    arr->tok_window_i(tok_window);
    arr->tok_a_i.bind(tok_a);
    arr->tok_w_i.bind(tok_w);
    arr->pre_word_i.bind(pre_word);
    arr->pre_pop_o(pre_pop);
    arr->res_valid_o(res_valid);
    arr->res_col_o(res_col);
    arr->res_word_o.bind(res_word);
    const double bubbles[] = {0.0, 0.1, 0.5};
    p_bubble = bubbles[gen.uniform(0, 2)];
    plan(runs);
  }

  static HwParams make_params(const CaseCfg& c) {
    HwParams p;
    p.rows = c.rows;
    p.cols = c.cols;
    p.arithmetic = c.arith;
    p.elem_bits = c.arith == Arithmetic::int8 ? 8 : 16;
    p.acc_bits = c.arith == Arithmetic::fp16 ? 16 : 32;
    p.zero_gating = c.gating;
    return p;
  }

  Token mac_token(bool swap, bool window) {
    Token t;
    t.valid = true;
    t.swap = swap;
    t.window = window;
    // Sometimes a whole row or column of zeros, to exercise the row-gating shortcut.
    const bool zero_row = gen.chance(0.1);
    for (int r = 0; r < R; ++r) t.a[r] = zero_row && r == 0 ? elem_t(0) : gen.elem(cfg.arith, cfg.zeros, cfg.special);
    for (int c = 0; c < C; ++c) t.w[c] = gen.elem(cfg.arith, cfg.zeros, cfg.special);
    return t;
  }
  static Token flag_token(bool swap, bool window) {
    Token t;
    t.swap = swap;
    t.window = window;
    return t;
  }

  // RUNs like the issue stage makes them: FILL, SWAP0, then contexts of random length whose last
  // step is the swap+window token.
  void plan(int runs) {
    for (int run = 0; run < runs; ++run) {
      stream.push_back(flag_token(false, true));  // FILL
      stream.push_back(flag_token(true, true));   // SWAP0
      const int n_ctx = gen.uniform(1, 5);
      for (int k = 0; k < n_ctx; ++k) {
        const int len = gen.chance(0.3) ? 1 : gen.uniform(1, 3 * C + 5);
        for (int s = 0; s + 1 < len; ++s) {
          stream.push_back(mac_token(false, false));
          if (cfg.odd && gen.chance(0.02)) {
            switch (gen.uniform(0, 2)) {
              case 0: stream.push_back(flag_token(true, false)); break;   // swap only
              case 1: stream.push_back(mac_token(false, true)); break;    // MAC + window
              default: stream.push_back(flag_token(false, true)); break;  // window only
            }
          }
        }
        stream.push_back(mac_token(true, true));
      }
    }
  }

  // The token of the coming cycle: the next planned one unless a bubble is drawn or the issue rule
  // holds it back.
  void drive(std::uint64_t cycle) {
    cur = Token{};
    if (next < stream.size()) {
      const Token& t = stream[next];
      const bool needs_gap = t.window || t.swap;
      if (!(needs_gap && gap < 2 * C) && !gen.chance(p_bubble)) {
        cur = t;
        ++next;
        last_issue = cycle;
      }
    }
    gap = cur.window ? 1 : std::min(gap + 1, 1 << 20);
    tok_valid.write(cur.valid);
    tok_swap.write(cur.swap);
    tok_window.write(cur.window);
    for (int r = 0; r < R; ++r) tok_a[std::size_t(r)].write(cur.a[r]);
    for (int c = 0; c < C; ++c) tok_w[std::size_t(c)].write(cur.w[c]);
    // A fresh preload word every cycle: the array must take exactly the words of its pop cycles.
    for (int r = 0; r < R; ++r) {
      bus[r] = gen.acc(cfg.arith, cfg.special);
      pre_word[std::size_t(r)].write(bus[r]);
    }
  }

  void fail_a(std::uint64_t cycle, const std::string& what) {
    if (errors_a++ < 8) fmt::print("MISMATCH (a) {} cycle {}: {}\n", label, cycle, what);
  }
  void fail_b(std::uint64_t cycle, const std::string& what) {
    if (errors_b++ < 8) fmt::print("MISMATCH (b) {} cycle {}: {}\n", label, cycle, what);
  }

  // End of cycle `cycle`: outputs against the reference and the fast model, then both models and
  // the reference take this cycle's inputs.
  void check_and_step(std::uint64_t cycle) {
    // (a) Array against the reference.
    const bool want_pop = !ref.pops.empty() && ref.pops.front() == cycle;
    if (want_pop) ref.pops.pop_front(), ++pops;
    if (pre_pop.read() != want_pop) fail_a(cycle, fmt::format("pre_pop {} expected {}", pre_pop.read(), want_pop));
    const bool want_res = !ref.results.empty() && ref.results.front().cycle == cycle;
    if (res_valid.read() != want_res)
      fail_a(cycle, fmt::format("res_valid {} expected {}", res_valid.read(), want_res));
    if (want_res) {
      const Reference::Expected& e = ref.results.front();
      if (res_col.read() != e.col) fail_a(cycle, fmt::format("res_col {} expected {}", res_col.read(), e.col));
      for (int r = 0; r < R; ++r)
        if (res_word[std::size_t(r)].read() != e.word[std::size_t(r)])
          fail_a(cycle, fmt::format("column {} row {}: {:#x} expected {:#x}", e.col, r, res_word[std::size_t(r)].read(),
                                    e.word[std::size_t(r)]));
      ref.results.pop_front();
      ++words;
    }
    // (b) ArrayCore against the Array.
    if (fast->pre_pop() != pre_pop.read()) fail_b(cycle, fmt::format("pre_pop {}", fast->pre_pop()));
    if (fast->res_valid() != res_valid.read()) fail_b(cycle, fmt::format("res_valid {}", fast->res_valid()));
    if (fast->res_valid() && res_valid.read()) {
      if (fast->res_col() != res_col.read()) fail_b(cycle, fmt::format("res_col {} vs {}", fast->res_col(), res_col.read()));
      for (int r = 0; r < R; ++r)
        if (fast->res_word()[r] != res_word[std::size_t(r)].read())
          fail_b(cycle, fmt::format("row {}: {:#x} vs {:#x}", r, fast->res_word()[r], res_word[std::size_t(r)].read()));
    }
    ref.cycle(cycle, cur, bus);
    windows += cur.window;
    fast->eval(&cur, bus);
    fast->tick();
    if (!done && next == stream.size() && ref.results.empty() && ref.pops.empty() && cycle > last_issue + std::uint64_t(R + C + 2)) {
      done = true;
      done_cycle = cycle;
      final_checks();
    }
  }

  // After the drain every token has reached every PE: the accumulators and counters must agree.
  void final_checks() {
    for (int r = 0; r < R; ++r)
      for (int c = 0; c < C; ++c) {
        if (arr->acc_bits(r, c) != ref.acc(r, c))
          fail_a(done_cycle, fmt::format("final acc({},{}) {:#x} expected {:#x}", r, c, arr->acc_bits(r, c), ref.acc(r, c)));
        if (fast->acc_bits(r, c) != arr->acc_bits(r, c))
          fail_b(done_cycle, fmt::format("final acc({},{}) {:#x} vs {:#x}", r, c, fast->acc_bits(r, c), arr->acc_bits(r, c)));
      }
    if (arr->mac_tokens() != ref.macs || arr->gated_macs() != ref.gated)
      fail_a(done_cycle, fmt::format("counters: {} MAC tokens, {} gated; expected {} {}", arr->mac_tokens(),
                                     arr->gated_macs(), ref.macs, ref.gated));
    if (fast->mac_tokens() != ref.macs || fast->gated_macs() != ref.gated)
      fail_b(done_cycle, fmt::format("counters: {} MAC tokens, {} gated; expected {} {}", fast->mac_tokens(),
                                     fast->gated_macs(), ref.macs, ref.gated));
  }
};

SC_MODULE(Harness) {
  sc_core::sc_in<bool> clk_i{"clk_i"};
  sc_signal<bool> rst_n{"rst_n"};
  std::vector<std::unique_ptr<Bench>> benches;
  std::int64_t edge = 0;
  std::uint64_t cycles = 0;
  std::uint64_t watchdog = 0;
  bool timed_out = false;
  bool finished = false;  // all benches done (or the watchdog fired): the harness pauses the simulation
  // Final phase: a window token too early on benches[violate] must be refused.
  int violate = -1;
  int violate_step = 0;

  SC_HAS_PROCESS(Harness);
  explicit Harness(sc_core::sc_module_name n) : sc_module(n) {
    SC_METHOD(step);
    sensitive << clk_i.pos();
    dont_initialize();
  }

  void step() {
    // Reset is seen at edges 0..2; cycle 0 ends at edge 3.
    const std::int64_t cycle = edge - 3;
    ++edge;
    if (finished && violate < 0) return;
    if (violate >= 0) {
      Bench& b = *benches[std::size_t(violate)];
      b.cur = Token{};
      b.cur.window = violate_step == 0 || violate_step == 2 * b.C - 1;
      b.tok_window.write(b.cur.window);
      b.tok_swap.write(false);
      b.tok_valid.write(false);
      ++violate_step;
      return;
    }
    bool all_done = true;
    for (auto& b : benches) {
      if (cycle >= 0) b->check_and_step(std::uint64_t(cycle));
      all_done &= b->done;
      if (!b->done && cycle >= 0 && std::uint64_t(cycle) > b->last_issue + 4 * std::uint64_t(b->C) + 200 &&
          b->next < b->stream.size()) {
        fmt::print("WATCHDOG {}: no token issued since cycle {}\n", b->label, b->last_issue);
        timed_out = true;
      }
    }
    if (cycle >= 0) cycles = std::uint64_t(cycle) + 1;
    if (edge >= 3) rst_n.write(true);
    if (all_done || timed_out || (watchdog && cycles > watchdog)) {
      if (!all_done && !timed_out) {
        fmt::print("WATCHDOG: still running after {} cycles\n", cycles);
        timed_out = true;
      }
      finished = true;
      sc_core::sc_pause();
      return;
    }
    if (edge >= 3)
      for (auto& b : benches) b->drive(std::uint64_t(cycle + 1));
  }
};

// Core-level checks of the issue rule, without SystemC.
int core_rule_checks() {
  int failures = 0;
  HwParams p;
  p.rows = 3;
  p.cols = 4;
  auto refuses = [&](bool fast, int gap, bool swap, bool window) {
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
      for (int i = 0; i <= gap; ++i) {
        const Token* tok = i == 0 ? &w : i == gap ? &t : nullptr;
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
    for (int kind = 0; kind < 2; ++kind) {
      const bool swap = kind == 1, window = kind == 0;
      if (!refuses(fast, 2 * p.cols - 1, swap, window)) {
        fmt::print("FAIL: {} accepts a {} token 2*COLS-1 cycles after a window token\n", who, window ? "window" : "swap");
        ++failures;
      }
      if (refuses(fast, 2 * p.cols, swap, window)) {
        fmt::print("FAIL: {} refuses a {} token 2*COLS cycles after a window token\n", who, window ? "window" : "swap");
        ++failures;
      }
    }
  }
  return failures;
}

}  // namespace

int sc_main(int argc, char* argv[]) {
  std::uint64_t seed = 1;
  int runs = 40;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--seed" && i + 1 < argc) seed = std::strtoull(argv[++i], nullptr, 0);
    else if (arg == "--runs" && i + 1 < argc) runs = std::atoi(argv[++i]);
    else if (arg == "--long") runs = 1500;
    else {
      fmt::print(stderr, "usage: array_tb [--seed N] [--runs N] [--long]\n");
      return 2;
    }
  }
  fmt::print("array_tb: seed {} runs {}\n", seed, runs);
  int rc = core_rule_checks() ? 1 : 0;

  sc_core::sc_clock clk("clk", 10, sc_core::SC_NS);
  Harness h("h");
  h.clk_i(clk);
  struct Size {
    int r, c;
  };
  // 9x2: tall, so that several windows' results are in flight at once.
  const Size sizes[] = {{16, 16}, {4, 4}, {3, 5}, {1, 1}, {2, 7}, {9, 2}};
  const Arithmetic ariths[] = {Arithmetic::fp16, Arithmetic::int8, Arithmetic::int16};
  std::uint64_t sub = seed * 0x9E3779B97F4A7C15ull;
  int n = 0;
  for (const Size& s : sizes)
    for (Arithmetic a : ariths) {
      CaseCfg c;
      c.rows = s.r;
      c.cols = s.c;
      c.arith = a;
      c.gating = (n % 2) == 0 || a == Arithmetic::fp16;
      c.zeros = 0.15;
      c.special = a == Arithmetic::fp16 ? 0.02 : 0.05;
      c.odd = (n % 3) != 0;
      if (a == Arithmetic::fp16 && s.r == 4) c.gating = false;  // one fp16 case without gating
      const std::string name =
          fmt::format("a{}x{}_{}_{}{}", s.r, s.c, arith_name(a), c.gating ? "gated" : "ungated", c.odd ? "_odd" : "");
      auto b = std::make_unique<Bench>(name, c, ++sub, runs);
      b->arr->clk_i(clk);
      b->arr->rst_ni(h.rst_n);
      h.benches.push_back(std::move(b));
      ++n;
    }
  std::uint64_t planned = 0;
  for (auto& b : h.benches) planned = std::max<std::uint64_t>(planned, b->stream.size() * std::uint64_t(2 * b->C + 2));
  h.watchdog = 4 * planned + 10000;

  try {
    sc_core::sc_start();  // until the harness pauses
  } catch (const std::exception& e) {
    fmt::print("FAIL: exception during the random run: {}\n", e.what());
    rc = 1;
  }
  if (h.timed_out) rc = 1;

  std::uint64_t ea = 0, eb = 0, words = 0, pops = 0, windows = 0, macs = 0, gated = 0;
  for (auto& b : h.benches) {
    ea += b->errors_a;
    eb += b->errors_b;
    words += b->words;
    pops += b->pops;
    windows += b->windows;
    macs += b->ref.macs * std::uint64_t(b->R * b->C);
    gated += b->ref.gated;
    if (!b->done) {
      fmt::print("FAIL: {} did not finish ({} of {} tokens)\n", b->label, b->next, b->stream.size());
      rc = 1;
    }
  }
  if (ea || eb) rc = 1;

  // Last: the Array must refuse a window token 2*COLS-1 cycles after the previous one.
  if (rc == 0) {
    sc_core::sc_report_handler::set_actions(sc_core::SC_ERROR, sc_core::SC_THROW);
    h.violate = 3;  // 4x4 fp16
    bool refused = false;
    try {
      sc_core::sc_start(sc_core::sc_time(10.0 * (2 * h.benches[3]->C + 4), sc_core::SC_NS));
    } catch (const std::exception& e) {
      refused = std::strstr(e.what(), "2*COLS") != nullptr;
    }
    if (!refused) {
      fmt::print("FAIL: the Array accepted window tokens 2*COLS-1 cycles apart\n");
      rc = 1;
    }
  }

  fmt::print("array_tb: {} - seed {}, {} arrays, {} cycles, {} windows, {} result words, {} pops, {} PE MACs "
             "({} gated), mismatches: {} reference vs Array, {} ArrayCore vs Array\n",
             rc ? "FAIL" : "PASS", seed, h.benches.size(), h.cycles, windows, words, pops, macs, gated, ea, eb);
  return rc;
}
