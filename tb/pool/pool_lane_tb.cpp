// Testbench of the pool lane (docs/microarchitecture.md, sections 15 and 16), one for all three
// views: random max and average windows of random length (padding included, fed as the LOAD's
// pad_value), binary16 / int8 / int16 elements that reach every corner, random idle cycles inside
// and between windows, phases of back-to-back short average windows that make the divider stall the
// lane, average windows whose divisor is 0 or a power of two offered with pow2_i (the one-cycle
// shift) or without it, resets at random times; directed windows the golden layer cannot express (counts of 0 and
// below the element count, 65536-element windows) mixed in; then the directed protocol errors
// (first without valid, count > 65536, pow2_i with a count of 3, op change, first inside / element
// outside a window, a max window ending in the divider's last cycle), each refused by every view.
// The reference shares no code with the core: every window's result is golden::pool of a one-window
// layer (sim/golden/pool.h; the directed windows carry hand-computed values), and the timing is the
// spec's, written again here: in_ready_o low only for a last average element while the divider
// holds a window that does not finish in this cycle; out_valid_o 1 cycle after a max window's last
// element is taken, D + 1 after an average window's (D = 21 binary16, 16 integer: radix 4; 1 with pow2_i). in_ready_o is
// checked every cycle, out_valid_o every cycle against a queue of results owed at exact cycles,
// out_value_o with it. Built twice from this file (see hw/pool/CMakeLists.txt):
//   pool_lane_tb [--view core|sc|all] [--seed N] [--windows N] [--long]   the C++ core and the
//         SystemC module, on fp16, int8 and int16 (10 000 / 200 000 random windows each)
//   pool_lane_rtl_tb_<cfg> [--config NAME|FILE] [--seed N] [--windows N] [--long]   pool_lane.sv
//         Verilated for one configuration (FLYCOL_VTOP defined; the same stimulus as the core view
//         of that arithmetic for the same seed)
#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "hw/common/hw_params.h"
#include "hw/common/protocol_error.h"
#include "hw/pool/pool_lane_core.h"  // PoolLaneIn, the inputs of one cycle (the RTL view links no core)
#include "sim/golden/pool.h"
#include "tb/common/bench_main.h"

#include "tb/common/views.h"
#ifndef FLYCOL_VTOP
#include "hw/pool/pool_lane.h"
#endif

using namespace flycol;
using namespace flycol::hw;

namespace {

const char* arith_name(Arithmetic a) {
  return a == Arithmetic::fp16 ? "fp16" : a == Arithmetic::int8 ? "int8" : "int16";
}

// The spec's divider length D (section 16), written here again rather than taken from the core.
int divider_cycles(Arithmetic a) { return a == Arithmetic::fp16 ? 21 : 16; }

// The stream index of an arithmetic: the same seed gives the same stimulus on every view of it.
std::uint64_t stream_of(Arithmetic a) { return a == Arithmetic::fp16 ? 0 : a == Arithmetic::int8 ? 1 : 2; }

acc_t acc_mask(Arithmetic a) { return a == Arithmetic::fp16 ? 0xFFFFu : 0xFFFFFFFFu; }

// ---------------------------------------------------------------------------------------------
// Stimulus: windows as the lane sees them.

struct Window {
  bool avg = false;
  std::vector<elem_t> elems;  // in feeding order, padding included
  std::uint32_t count = 0;    // count_i with the last element (average)
  bool pow2 = false;          // pow2_i with the last element: the count is 0 or 2^k, divided by a shift
  acc_t expected = 0;         // the result word
  bool directed = false, empty = false;
  int pads = 0;
};

enum class Flavor { corners, finite, big, tiny, zeros, cancel };

class Stimulus {
public:
  Stimulus(Arithmetic a, std::uint64_t seed, bool long_run) : r(seed), arith_(a), long_(long_run) {}
  tb::Rand r;

  // Phases, drawn anew now and then (new_phase): idle rates inside and between windows, the op mix,
  // and short back-to-back average windows.
  double p_idle = 0.0;
  int max_gap = 0;
  double p_avg = 0.5;
  bool short_avg = false;

  void new_phase() {
    p_idle = r.pick({0.0, 0.0, 0.05, 0.3});
    max_gap = r.pick({0, 0, 2, 40});
    p_avg = r.pick({0.0, 0.5, 0.5, 1.0});
    short_avg = r.chance(0.2);
    if (short_avg) {
      p_idle = 0.0;
      max_gap = r.pick({0, 1});
      p_avg = r.pick({0.9, 1.0});
    }
  }

  // The LOAD's pad_value: 0 for an average tile, the type's smallest value for max.
  elem_t pad(bool avg) const {
    if (avg) return 0;
    return arith_ == Arithmetic::fp16 ? 0xFC00 : arith_ == Arithmetic::int8 ? 0x80 : 0x8000;
  }

  // Junk for the inputs that carry nothing this cycle (count_i is 17 bits).
  std::uint32_t junk_count() { return std::uint32_t(r.bits(17)); }
  elem_t junk_elem() { return elem_t(r.bits(16)); }

  // A random window: data of one flavor between random left/right padding (or, now and then, a
  // window of padding only); its result is golden::pool of the one-window layer it stands for.
  Window random_window() {
    Window w;
    w.avg = r.chance(p_avg);
    const Flavor f = pick_flavor(w.avg);
    win_sign_ = r.chance(0.5);
    golden::PoolLayer l;
    l.op = w.avg ? golden::PoolOp::avg : golden::PoolOp::max;
    l.count_include_pad = r.chance(0.5);
    std::vector<ElemBits> data;
    if (!short_avg && r.chance(0.03)) {
      // Padding only: W = 1 with P padding columns on the left and a window of P, the layer's first
      // output (no valid element: max -Inf / the minimum, average a count of 0 or P).
      const int p = r.uniform(1, 8);
      l.w = 1;
      l.pl = p;
      l.kx = p;
      data.push_back(value(f));
      w.elems.assign(std::size_t(p), pad(w.avg));
      w.count = l.count_include_pad ? std::uint32_t(p) : 0;
      w.empty = true;
      w.pads = p;
    } else {
      const int len = draw_len();
      int pads = 0;
      if (len > 1 && r.chance(0.5)) pads = r.chance(0.1) ? r.uniform(1, len - 1) : r.uniform(1, std::min(len - 1, 8));
      const int pl = r.uniform(0, pads), pr = pads - pl, width = len - pads;
      if (f == Flavor::cancel) data = cancelling(width);
      else
        for (int i = 0; i < width; ++i) data.push_back(value(f));
      l.w = width;
      l.pl = pl;
      l.pr = pr;
      l.kx = len;
      w.elems.assign(std::size_t(pl), pad(w.avg));
      w.elems.insert(w.elems.end(), data.begin(), data.end());
      w.elems.insert(w.elems.end(), std::size_t(pr), pad(w.avg));
      w.count = std::uint32_t(l.count_include_pad ? len : width);
      w.pads = pads;
    }
    w.expected = golden::pool(l, arith_, data).at(0);
    // A divisor of 0 or 2^k may take the shift (pow2_i); often in the short phases, where back-to-back
    // one-cycle divisions follow each other.
    w.pow2 = w.avg && (w.count & (w.count - 1)) == 0 && r.chance(short_avg ? 0.7 : 0.5);
    return w;
  }

  // Windows golden::PoolLayer cannot express (a count of 0 with valid elements, counts below the
  // element count), extreme counts and the longest window (65536 elements: the width of the exact
  // sum), with results computed by hand from section 15 / 16.
  std::vector<Window> directed() const {
    std::vector<Window> v;
    auto add = [&](bool avg, std::vector<elem_t> e, std::uint32_t count, acc_t expected) {
      Window w;
      w.avg = avg;
      w.elems = std::move(e);
      w.count = count;
      w.expected = expected;
      w.directed = true;
      v.push_back(std::move(w));
    };
    const std::vector<elem_t> long_max(65536, arith_ == Arithmetic::fp16 ? 0x7BFF : arith_ == Arithmetic::int8 ? 0x7F : 0x7FFF);
    const std::vector<elem_t> long_min(65536, arith_ == Arithmetic::fp16 ? 0xFBFF : arith_ == Arithmetic::int8 ? 0x80 : 0x8000);
    if (arith_ == Arithmetic::fp16) {
      add(true, {0x3C00, 0x3C00}, 1, 0x4000);          // (1 + 1) / 1 = 2
      add(true, {0x7BFF, 0x7BFF}, 1, 0x7C00);          // 131008: beyond binary16 (and 41 quotient bits): +Inf
      add(true, {0xFBFF, 0xFBFF, 0xFBFF}, 1, 0xFC00);  // -196512: -Inf
      add(true, {0x3C00, 0x3C00, 0x3C00}, 2, 0x3E00);  // 3 / 2 = 1.5
      add(true, {0x3C00}, 0, 0x7E00);                  // a count of 0: NaN
      add(true, {0x0000}, 0, 0x7E00);                  // ... even with a zero sum
      add(true, {0x7C00, 0x3C00}, 0, 0x7E00);          // ... and with an infinity
      add(true, {0x8000}, 1, 0x0000);                  // a zero sum gives +0
      add(true, {0x7BFF}, 65536, 0x3BFF);              // 65504 / 65536 = 1 - 2^-11
      add(true, {0x8001}, 65536, 0x8000);              // -2^-24 / 65536 rounds to -0: the sign of S
      add(true, {0x0001}, 2, 0x0000);                  // 2^-25: a tie, to the even 0
      add(true, {0x0003}, 2, 0x0002);                  // 1.5 * 2^-24: a tie, to the even 2
      add(true, {0x0001}, 65535, 0x0000);              // a zero quotient with a remainder
      add(false, {0x8000, 0x0000}, 7, 0x8000);         // max: -0 and +0 equal, the first stays
      add(false, {0x0000, 0x8000}, 7, 0x0000);
      add(false, {0xFE00, 0x3C00}, 7, 0x7E00);         // a negative NaN gives the canonical NaN
      add(true, long_max, 65536, 0x7BFF);              // 65536 x 65504: the sum needs 56 magnitude bits
      add(true, long_min, 65536, 0xFBFF);
    } else {
      const bool i8 = arith_ == Arithmetic::int8;
      if (i8) {
        add(true, {0x7F, 0x7F}, 1, 254);
        add(true, {0x80, 0x80, 0x80}, 1, acc_t(-384));
        add(true, {0x7F}, 2, 64);               // 63.5: ties away from zero
        add(true, {0x81}, 2, acc_t(-64));       // -63.5
        add(true, {0x80}, 65536, 0);
        add(false, {0xFF, 0x01}, 7, 1);
        add(false, {0x80}, 7, acc_t(-128));
      } else {
        add(true, {0x7FFF, 0x7FFF}, 1, 65534);
        add(true, {0x8000, 0x8000, 0x8000}, 1, acc_t(-98304));
        add(true, {0x7FFF, 0x7FFF}, 65536, 1);  // 65534 / 65536
        add(true, {0x7FFF}, 2, 16384);          // 16383.5
        add(true, {0x8001}, 2, acc_t(-16384));  // -16383.5
        add(false, {0x8000}, 7, acc_t(-32768));
      }
      add(true, {0x05}, 0, 0);                  // a count of 0 gives 0
      add(true, {0x00}, 3, 0);
      add(true, long_max, 65536, i8 ? 127 : 32767);
      add(true, long_min, 65536, acc_t(i8 ? -128 : -32768));  // int16: |s| = 2^31
    }
    // Every directed average window whose count is 0 or 2^k again with pow2_i (the shift), but for the
    // longest ones.
    const std::size_t n = v.size();
    for (std::size_t i = 0; i < n; ++i)
      if (v[i].avg && (v[i].count & (v[i].count - 1)) == 0 && v[i].elems.size() < 65536) {
        Window w = v[i];
        w.pow2 = true;
        v.push_back(std::move(w));
      }
    if (!long_) {  // the default run keeps one of the two longest windows
      auto it = std::find_if(v.begin(), v.end(), [](const Window& w) { return w.elems.size() == 65536; });
      v.erase(it + ((seed_bit_ & 1) ? 1 : 0));
    }
    return v;
  }
  void set_seed_bit(std::uint64_t s) { seed_bit_ = s; }

private:
  Flavor pick_flavor(bool avg) {
    if (short_avg) return r.pick({Flavor::finite, Flavor::corners, Flavor::tiny});
    const int k = r.uniform(0, 99);
    if (k < 25) return Flavor::corners;
    if (k < 50) return Flavor::finite;
    if (k < 62) return Flavor::big;
    if (k < 75) return Flavor::tiny;
    if (k < 87) return avg ? Flavor::cancel : Flavor::zeros;
    return avg ? Flavor::finite : Flavor::zeros;
  }

  int draw_len() {
    if (short_avg) return r.uniform(1, 3);
    const int k = r.uniform(0, 999);
    if (k < 450) return r.uniform(1, 9);
    if (k < 850) return r.uniform(10, 70);
    if (k < 990) return r.uniform(71, 400);
    if (k < 998 || !long_) return r.uniform(401, 2000);
    return r.uniform(2001, 65536);
  }

  elem_t value(Flavor f) { return arith_ == Arithmetic::fp16 ? half(f) : integer(f); }

  elem_t half(Flavor f) {
    const elem_t sign = elem_t(r.bits(1) << 15);
    switch (f) {
      case Flavor::corners: return half_corner(sign);
      case Flavor::finite:
      case Flavor::cancel: {
        elem_t h;
        do h = half_corner(elem_t(r.bits(1) << 15));
        while ((h & 0x7C00) == 0x7C00);
        return h;
      }
      case Flavor::big: {  // 32768 .. 65504, mostly of the window's sign
        const elem_t s = r.chance(0.9) ? elem_t(win_sign_ ? 0x8000 : 0) : sign;
        return elem_t(s | r.uniform(0x7800, 0x7BFF));
      }
      case Flavor::tiny: {  // subnormals and zeros, now and then the smallest normals
        if (r.chance(0.1)) return elem_t(sign | r.uniform(0x0400, 0x07FF));
        return elem_t(sign | r.bits(10));
      }
      case Flavor::zeros: {  // max: zeros of both signs among negatives
        const int k = r.uniform(0, 9);
        if (k < 5) return sign;
        if (k < 7) return elem_t(0x8000 | r.uniform(1, 0x7BFF));
        if (k < 8) return 0xFC00;
        return elem_t(0x8000 | r.uniform(1, 0x3FF));
      }
    }
    return 0;
  }
  elem_t half_corner(elem_t sign) {
    const int k = r.uniform(0, 99);
    if (k < 10) return sign;                                            // +-0
    if (k < 20) return elem_t(sign | (1 + r.bits(10) % 0x3FF));         // subnormal
    if (k < 23) return elem_t(sign | 0x7BFF);                           // max normal
    if (k < 26) return elem_t(sign | 0x0400);                           // min normal
    if (k < 28) return elem_t(sign | 0x7C00);                           // infinity
    if (k < 29) return 0x7E00;                                          // canonical NaN
    if (k < 30) return elem_t(sign | 0x7C00 | (1 + r.bits(10) % 0x3FF));  // NaN, any payload
    if (k < 50) return elem_t(sign | (r.uniform(1, 30) << 10) | r.bits(10));  // any normal
    return elem_t(sign | (r.uniform(13, 17) << 10) | r.bits(10));       // around 1
  }

  elem_t integer(Flavor f) {
    const int ew = arith_ == Arithmetic::int8 ? 8 : 16;
    const std::uint32_t mask = (1u << ew) - 1, min = 1u << (ew - 1), max = min - 1;
    std::uint32_t v = 0;
    switch (f) {
      case Flavor::corners:
      case Flavor::finite: {
        const int k = r.uniform(0, 99);
        if (k < 15) v = 0;
        else if (k < 22) v = min;
        else if (k < 29) v = max;
        else if (k < 40) v = std::uint32_t(r.uniform(-3, 3)) & mask;
        else v = std::uint32_t(r.bits(ew));
        break;
      }
      case Flavor::big: v = win_sign_ ? min + std::uint32_t(r.uniform(0, 3)) : max - std::uint32_t(r.uniform(0, 3)); break;
      case Flavor::tiny: v = std::uint32_t(r.uniform(-3, 3)) & mask; break;
      case Flavor::zeros: v = r.chance(0.3) ? min : (std::uint32_t(-r.uniform(0, 1000)) & mask); break;
      case Flavor::cancel:
        do v = std::uint32_t(r.bits(ew));
        while (v == min);
        break;
    }
    if (ew == 8 && r.chance(0.1)) v |= std::uint32_t(r.bits(8)) << 8;  // bits above the element: ignored
    return elem_t(v);
  }

  // Values and their negations, shuffled (sum zero), sometimes with one more element.
  std::vector<ElemBits> cancelling(int width) {
    std::vector<ElemBits> d;
    for (int i = 0; i + 1 < width; i += 2) {
      const elem_t x = value(Flavor::cancel);
      d.push_back(x);
      if (arith_ == Arithmetic::fp16) d.push_back(elem_t(x ^ 0x8000));
      else d.push_back(elem_t((0u - x) & (arith_ == Arithmetic::int8 ? 0xFFu : 0xFFFFu)));
    }
    if (int(d.size()) < width) d.push_back(value(Flavor::finite));
    std::shuffle(d.begin(), d.end(), r.engine());
    return d;
  }

  Arithmetic arith_;
  bool long_;
  bool win_sign_ = false;
  std::uint64_t seed_bit_ = 0;
};

// ---------------------------------------------------------------------------------------------
// The run, the same for every view. A view offers:
//   drive(in, rst_n)   the inputs of this cycle;     settle()  applies them without an edge;
//   in_ready()         in_ready_o after settle();    out()     out_valid_o, out_value_o;
//   edge()             one rising clock edge;        fault()   an assertion fired (RTL);
//   kAsyncReset        reset acts before the edge;   counters(w, s)  the statistics, if any;
//   expect_refusals_begin/end(), offer_once(in)  directed protocol errors: whether refused.

struct LaneOut {
  bool valid = false;
  acc_t value = 0;
};

struct Figures {
  std::uint64_t cycles = 0, windows = 0, avg = 0, max = 0, empty = 0, padded = 0, directed = 0, elements = 0,
                stalls = 0, idle = 0, resets = 0, cut = 0, avoided = 0, longest = 0, nan = 0, inf = 0, zero = 0,
                refusals = 0, pow2 = 0;
};

template <class View>
class Bench {
public:
  Bench(View& v, Arithmetic arith, std::uint64_t seed, bool long_run, tb::MismatchLog& log, Figures& fig)
      : v_(v), arith_(arith), d_(divider_cycles(arith)), gen_(arith, seed, long_run), log_(log), fig_(fig) {
    gen_.set_seed_bit(seed);
  }

  void run(std::uint64_t n_windows) {
    std::vector<Window> directed = gen_.directed();
    std::reverse(directed.begin(), directed.end());
    gen_.new_phase();
    reset_left_ = 3;
    std::uint64_t started = 0;
    bool have = false, held = false;
    int gap = 0;
    std::size_t pos = 0;
    Window w;
    while (log_.errors() < std::uint64_t(tb::MismatchLog::kMaxReported)) {
      log_.at(c_);
      if (c_ > 0) check_out();
      if (v_.fault()) log_.fail("an RTL assertion fired (message above)");
      // A reset now and then, but not inside a directed window (one of 65536 elements would rarely survive).
      if (reset_left_ == 0 && c_ > 3 && !(have && w.directed) && gen_.r.uniform(0, 19999) == 0)
        reset_left_ = gen_.r.uniform(1, 2);
      PoolLaneIn in;
      in.last = gen_.r.chance(0.5);
      in.avg = gen_.r.chance(0.5);
      in.elem = gen_.junk_elem();
      in.count = gen_.junk_count();
      in.pow2 = gen_.r.chance(0.5);  // read only with the last element of an average window
      if (reset_left_ > 0) {
        --reset_left_;
        do_reset(in);
        if (have) ++fig_.cut;
        have = held = false;
        gap = 0;
        continue;
      }
      // The next window: a directed one now and then (and all that are left at the end).
      if (!have && gap == 0) {
        if (started >= n_windows && directed.empty()) break;
        const bool take_directed = !directed.empty() && (started >= n_windows || gen_.r.chance(0.01));
        if (take_directed) {
          w = std::move(directed.back());
          directed.pop_back();
        } else {
          if (gen_.r.uniform(0, 29) == 0) gen_.new_phase();
          w = gen_.random_window();
          ++started;
        }
        have = true;
        pos = 0;
      }
      bool present = have && gap == 0 && (held || !gen_.r.chance(gen_.p_idle));
      const bool last = have && pos + 1 == w.elems.size();
      // One result port: a max window may not end in the cycle the divider finishes (its result
      // would meet the average's); the bench waits a cycle then.
      if (present && last && !w.avg && div_end_ == std::int64_t(c_)) {
        present = false;
        ++fig_.avoided;
      }
      if (present) {
        in.valid = true;
        in.first = pos == 0;
        in.last = last;
        in.elem = w.elems[pos];
        in.avg = w.avg;
        if (!(last && w.avg)) in.count = gen_.junk_count();
        else in.count = w.count;
        if (last && w.avg) in.pow2 = w.pow2;
      } else {
        ++fig_.idle;
        if (gap > 0) --gap;
      }
      v_.drive(in, true);
      v_.settle();
      // in_ready_o: low only for a last average element while the divider holds a window whose
      // last step (cycle div_end_) is not this cycle.
      const bool want_ready = !(in.valid && in.last && in.avg && std::int64_t(c_) < div_end_);
      log_.expect("in_ready_o", v_.in_ready(), want_ready);
      if (in.valid && !want_ready) ++stalls_, ++fig_.stalls;
      held = in.valid && !want_ready;
      if (in.valid && want_ready) {
        ++fig_.elements;
        if (in.last) {
          const int d = w.pow2 ? 1 : d_;  // the divider's cycles: one for a shift
          owe(w, c_ + (w.avg ? std::uint64_t(d) + 1 : 1));
          if (w.avg) div_end_ = std::int64_t(c_) + d;
          have = false;
          gap = gen_.max_gap ? gen_.r.uniform(0, gen_.max_gap) : 0;
          count_window(w);
        } else {
          ++pos;
        }
      }
      v_.edge();
      ++c_;
    }
    // Drain: the results still owed (this cycle's outputs were checked above).
    for (int i = 0; i < d_ + 2 && log_.ok(); ++i) {
      PoolLaneIn idle;
      v_.drive(idle, true);
      v_.settle();
      log_.expect("in_ready_o", v_.in_ready(), true);
      v_.edge();
      ++c_;
      log_.at(c_);
      check_out();
      if (v_.fault()) log_.fail("an RTL assertion fired (message above)");
    }
    log_.expect_true(owed_.empty(), fmt::format("{} results never came", owed_.size()));
    std::uint64_t got_windows = 0, got_stalls = 0;
    if (v_.counters(got_windows, got_stalls)) {
      log_.expect("windows() since the last reset", got_windows, windows_);
      log_.expect("divider_stall_cycles() since the last reset", got_stalls, stalls_);
    }
    if (log_.ok()) refusals();
    fig_.cycles += c_;
  }

private:
  // Checks the outputs of cycle c_ against the results owed.
  void check_out() {
    const LaneOut o = v_.out();
    const auto it = owed_.find(c_);
    const bool want = it != owed_.end();
    log_.expect("out_valid_o", o.valid, want);
    if (want && o.valid) log_.expect("out_value_o", acc_t(o.value & acc_mask(arith_)), it->second);
    if (want) owed_.erase(it);
  }

  void owe(const Window& w, std::uint64_t at) {
    if (!owed_.emplace(at, w.expected).second) log_.fail("bench: two results owed in cycle {}", at);
    log_.note("window ({} {} elements{}{}, count {}{}) taken: {:#x} owed in cycle {}", w.avg ? "avg" : "max",
              w.elems.size(), w.empty ? ", padding only" : "", w.directed ? ", directed" : "", w.count,
              w.pow2 ? ", pow2_i" : "", w.expected, at);
  }

  void count_window(const Window& w) {
    ++windows_;
    ++fig_.windows;
    ++(w.avg ? fig_.avg : fig_.max);
    fig_.empty += w.empty;
    fig_.padded += w.pads > 0;
    fig_.directed += w.directed;
    fig_.pow2 += w.pow2;
    fig_.longest = std::max<std::uint64_t>(fig_.longest, w.elems.size());
    if (arith_ == Arithmetic::fp16) {
      const acc_t e = w.expected & 0x7FFF;
      fig_.nan += e > 0x7C00;
      fig_.inf += e == 0x7C00;
      fig_.zero += e == 0;
    }
  }

  // One reset cycle: the reference forgets the windows in flight and the results owed.
  void do_reset(const PoolLaneIn& junk) {
    PoolLaneIn in = junk;
    in.valid = in.first = false;
    v_.drive(in, false);
    log_.note("reset");
    owed_.clear();
    div_end_ = -1;
    windows_ = stalls_ = 0;
    ++fig_.resets;
    if (View::kAsyncReset) {  // the registers clear while reset is held, before the edge
      v_.settle();
      log_.expect("out_valid_o in reset", v_.out().valid, false);
      log_.expect("in_ready_o in reset", v_.in_ready(), true);
    }
    v_.edge();
    ++c_;
  }

  void reset_cycles(int n) {
    for (int i = 0; i < n; ++i) do_reset(PoolLaneIn{});
  }
  void step(const PoolLaneIn& in) {
    log_.at(c_);
    v_.drive(in, true);
    v_.settle();
    v_.edge();
    if (v_.fault()) log_.fail("an RTL assertion fired on a legal input (message above)");
    ++c_;
  }

  // The protocol errors, each refused (core: ProtocolError; module: SC_ERROR; RTL: an assertion).
  void refusals() {
    v_.expect_refusals_begin();
    auto refused = [&](const char* what, const PoolLaneIn& bad) {
      log_.at(c_);
      log_.expect_true(v_.offer_once(bad), fmt::format("directed '{}' was not refused", what));
      ++c_;
      ++fig_.refusals;
    };
    PoolLaneIn bad;
    reset_cycles(2);
    bad.first = true;
    refused("in_first_i without in_valid_i", bad);

    reset_cycles(2);
    bad = PoolLaneIn{};
    bad.valid = bad.first = bad.last = bad.avg = true;
    bad.count = 65537;
    refused("count_i 65537 with the last average element", bad);

    reset_cycles(2);
    bad = PoolLaneIn{};
    bad.valid = bad.first = bad.last = bad.avg = bad.pow2 = true;
    bad.count = 3;
    refused("pow2_i with count_i 3", bad);

    reset_cycles(2);
    PoolLaneIn good;
    good.valid = good.first = true;  // a max window opens
    step(good);
    bad = PoolLaneIn{};
    bad.valid = bad.last = bad.avg = true;
    bad.count = 1;
    refused("op_i changed within a window", bad);

    reset_cycles(2);
    step(good);
    bad = good;  // another first element while the window is open
    refused("in_first_i while a window is open", bad);

    reset_cycles(2);
    bad = PoolLaneIn{};
    bad.valid = bad.last = true;  // no window is open after reset
    refused("an element without in_first_i outside a window", bad);

    reset_cycles(2);
    good = PoolLaneIn{};
    good.valid = good.first = good.last = good.avg = true;
    good.count = 1;
    step(good);  // an average window of one element: the divider's last step is D cycles on
    for (int i = 1; i < d_; ++i) step(PoolLaneIn{});
    bad = PoolLaneIn{};
    bad.valid = bad.first = bad.last = true;
    refused("a max window ending in the divider's last cycle", bad);
    v_.expect_refusals_end();
    reset_cycles(2);
  }

  View& v_;
  Arithmetic arith_;
  int d_;
  Stimulus gen_;
  tb::MismatchLog& log_;
  Figures& fig_;
  std::uint64_t c_ = 0;
  int reset_left_ = 0;
  std::map<std::uint64_t, acc_t> owed_;  // cycle -> result word
  std::int64_t div_end_ = -1;            // the cycle of the divider's last step
  std::uint64_t windows_ = 0, stalls_ = 0;  // since the last reset, as the core counts them
};

// ---------------------------------------------------------------------------------------------
// Views

#ifdef FLYCOL_VTOP

// pool_lane.sv, Verilated for one configuration: in_elem_i is EW bits, count_i 17, out_value_o AW.
class RtlView {
public:
  static constexpr bool kAsyncReset = true;
  RtlView(const HwParams& p, std::uint64_t seed)
      : dut_(seed), elem_mask_(p.elem_bits == 8 ? 0xFFu : 0xFFFFu), acc_mask_(p.acc_bits == 16 ? 0xFFFFu : 0xFFFFFFFFu) {}
  void drive(const PoolLaneIn& in, bool rst_n) {
    dut_->rst_ni = rst_n;
    dut_->in_valid_i = in.valid;
    dut_->in_first_i = in.first;
    dut_->in_last_i = in.last;
    dut_->in_elem_i = in.elem & elem_mask_;
    dut_->op_i = in.avg;
    dut_->count_i = in.count & 0x1FFFFu;
    dut_->pow2_i = in.pow2;
  }
  void settle() { dut_->eval(); }
  bool in_ready() { return dut_->in_ready_o; }
  void edge() { dut_.edge(); }
  LaneOut out() const { return LaneOut{bool(dut_->out_valid_o), acc_t(dut_->out_value_o) & acc_mask_}; }
  bool fault() { return dut_.fault(); }
  bool counters(std::uint64_t&, std::uint64_t&) const { return false; }
  void expect_refusals_begin() { tb::expect_rtl_assertions("pool_lane_rtl_tb", "directed protocol errors"); }
  void expect_refusals_end() {}
  bool offer_once(const PoolLaneIn& in) {
    drive(in, true);
    return dut_.refuses_on_edge();
  }

private:
  tb::Dut<FLYCOL_VTOP> dut_;
  std::uint32_t elem_mask_, acc_mask_;
};

#else

// PoolLaneCore alone: eval() for in_ready_o, reset or eval+tick at the edge.
class CoreView {
public:
  static constexpr bool kAsyncReset = false;
  explicit CoreView(const HwParams& p) : core_(p) {}
  void drive(const PoolLaneIn& in, bool rst_n) {
    in_ = in;
    rst_n_ = rst_n;
  }
  void settle() {
    if (rst_n_) core_.eval(in_);
  }
  bool in_ready() const { return core_.in_ready(); }
  void edge() {
    if (!rst_n_) {
      core_.reset();
      return;
    }
    core_.eval(in_);
    core_.tick();
  }
  LaneOut out() const { return LaneOut{core_.out_valid(), core_.out_value()}; }
  bool fault() { return false; }
  bool counters(std::uint64_t& windows, std::uint64_t& stalls) const {
    windows = core_.windows();
    stalls = core_.divider_stall_cycles();
    return true;
  }
  void expect_refusals_begin() {}
  void expect_refusals_end() {}
  bool offer_once(const PoolLaneIn& in) {
    drive(in, true);
    return tb::throws<ProtocolError>([&] { edge(); });
  }

private:
  PoolLaneCore core_;
  PoolLaneIn in_;
  bool rst_n_ = false;
};

// The PoolLane SC_MODULE on its own signals and clock. Its reset is synchronous.
class ScView {
public:
  static constexpr bool kAsyncReset = false;
  ScView(const std::string& name, const HwParams& p) : dut_(name.c_str(), p) {
    dut_.clk_i(clk_.clk());
    dut_.rst_ni(rst_n_);
    dut_.in_valid_i(valid_);
    dut_.in_ready_o(ready_);
    dut_.in_first_i(first_);
    dut_.in_last_i(last_);
    dut_.in_elem_i(elem_);
    dut_.op_i(op_);
    dut_.count_i(count_);
    dut_.pow2_i(pow2_);
    dut_.out_valid_o(out_valid_);
    dut_.out_value_o(out_value_);
  }
  void drive(const PoolLaneIn& in, bool rst_n) {
    rst_n_.write(rst_n);
    valid_.write(in.valid);
    first_.write(in.first);
    last_.write(in.last);
    elem_.write(in.elem);
    op_.write(in.avg);
    count_.write(in.count);
    pow2_.write(in.pow2);
  }
  void settle() { tb::ScClock::settle(); }
  bool in_ready() const { return ready_.read(); }
  void edge() { clk_.step(); }
  LaneOut out() const { return LaneOut{out_valid_.read(), out_value_.read()}; }
  bool fault() { return false; }
  bool counters(std::uint64_t& windows, std::uint64_t& stalls) const {
    windows = dut_.core().windows();
    stalls = dut_.core().divider_stall_cycles();
    return true;
  }
  void expect_refusals_begin() { tb::expect_sc_errors(dut_.name(), "pool_lane_tb", "directed protocol errors"); }
  void expect_refusals_end() { tb::end_sc_errors(dut_.name()); }
  bool offer_once(const PoolLaneIn& in) {
    return tb::sc_errors_during(dut_.name(), [&] {
             drive(in, true);
             clk_.step();
           }) == 1;
  }

private:
  tb::ScClock clk_;
  PoolLane dut_;
  sc_core::sc_signal<bool> rst_n_, valid_, ready_, first_, last_, op_, pow2_, out_valid_;
  sc_core::sc_signal<elem_t> elem_;
  sc_core::sc_signal<std::uint32_t> count_;
  sc_core::sc_signal<acc_t> out_value_;
};

HwParams params_of(Arithmetic a) {
  HwParams p;
  p.arithmetic = a;
  p.elem_bits = a == Arithmetic::int8 ? 8 : 16;
  p.acc_bits = a == Arithmetic::fp16 ? 16 : 32;
  return p;
}

#endif

// Coverage goals of a whole run: what the stimulus is there to reach.
template <class Harness>
void coverage(Harness& h, const Figures& f, bool fp16) {
  if (h.errors() != 0) return;
  if (f.stalls == 0) h.fail("coverage: the divider never stalled the lane");
  if (f.empty == 0) h.fail("coverage: no window of padding only");
  if (f.pow2 == 0) h.fail("coverage: no average window divided by a shift (pow2_i)");
  if (f.padded == 0) h.fail("coverage: no padded window");
  if (f.longest < 65536) h.fail("coverage: no window of 65536 elements");
  if (f.cut == 0 && f.windows > 20000) h.fail("coverage: no reset cut a window");
  if (fp16 && (f.nan == 0 || f.inf == 0 || f.zero == 0)) h.fail("coverage: no NaN, infinite or zero fp16 result");
}

std::string figures(const Figures& f) {
  const std::string fp16 = f.nan + f.inf + f.zero == 0
                               ? ""
                               : fmt::format(", fp16 results {} NaN {} Inf {} +-0", f.nan, f.inf, f.zero);
  return fmt::format("{} cycles, {} windows ({} avg, {} max; {} shifted, {} padded, {} padding only, {} directed; "
                     "longest {}), {} elements, {} divider stall cycles, {} idle cycles, {} max ends moved off a divider finish{}, "
                     "{} reset cycles ({} windows cut), {} protocol errors refused",
                     f.cycles, f.windows, f.avg, f.max, f.pow2, f.padded, f.empty, f.directed, f.longest, f.elements, f.stalls,
                     f.idle, f.avoided, fp16, f.resets, f.cut, f.refusals);
}

}  // namespace

#ifdef FLYCOL_VTOP

int main(int argc, char** argv) {
  tb::BenchMain harness("pool_lane", {"windows", 10000, 200000, "random windows"});
  if (!harness.parse(argc, argv)) return 2;
  const HwParams& p = harness.params();
  harness.announce("{}, {} random windows", arith_name(p.arithmetic), harness.count());
  Figures fig;
  RtlView view(p, harness.seed());
  harness.run(harness.rtl_view(), [&](tb::MismatchLog& log) {
    Bench<RtlView>(view, p.arithmetic, harness.seed(stream_of(p.arithmetic)), harness.long_run(), log, fig)
        .run(harness.count());
  });
  coverage(harness, fig, p.arithmetic == Arithmetic::fp16);
  return harness.finish(figures(fig));
}

#else

int sc_main(int argc, char* argv[]) {
  tb::BenchMain harness("pool_lane", {"windows", 10000, 200000, "random windows per arithmetic"});
  if (!harness.parse(argc, argv)) return 2;
  harness.announce("{} random windows per arithmetic", harness.count());
  const Arithmetic ariths[] = {Arithmetic::fp16, Arithmetic::int8, Arithmetic::int16};
  // Every SC_MODULE exists before the first sc_start; the arithmetics then run one after another.
  std::vector<std::unique_ptr<ScView>> sc_views;
  for (Arithmetic a : ariths)
    sc_views.push_back(std::make_unique<ScView>(fmt::format("pool_lane_{}", arith_name(a)), params_of(a)));
  Figures fig;
  std::size_t k = 0;
  for (Arithmetic a : ariths) {
    const std::uint64_t seed = harness.seed(stream_of(a));  // the same stimulus on both views
    if (harness.core())
      harness.run(fmt::format("core {}", arith_name(a)), [&](tb::MismatchLog& log) {
        CoreView core(params_of(a));
        Bench<CoreView>(core, a, seed, harness.long_run(), log, fig).run(harness.count());
      });
    if (harness.sc())
      harness.run(fmt::format("sc {}", arith_name(a)), [&](tb::MismatchLog& log) {
        Bench<ScView>(*sc_views[k], a, seed, harness.long_run(), log, fig).run(harness.count());
      });
    ++k;
  }
  coverage(harness, fig, true);
  return harness.finish(figures(fig));
}

#endif
