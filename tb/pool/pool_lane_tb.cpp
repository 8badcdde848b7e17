// Testbench of the pool lane (docs/microarchitecture.md, sections 15 and 16), one for all three
// views: random windows of all four ops (op_i 0 max, 1 average, 2 argmax, 3 masked sum) of random
// length, binary16 / int8 / int16 elements that reach every corner, random idle cycles inside and
// between windows, phases of back-to-back short windows through the divider (average, masked sum)
// that make it stall the lane, divider windows whose divisor is 0 or a power of two offered with
// pow2_i (the one-cycle shift) or without it, resets at random times. Max and average windows:
// padding fed as the LOAD's pad_value, random pad_i (not read). Argmax windows (section 16,
// "Backward of max pooling"): pad_i in random patterns (none, left / right runs, scattered, the valid
// rectangle of a 2-D window, all padding, a run before minima), padding elements holding the pad
// value or values that would win (NaN, +Inf, the largest), flavors with ties, +0 / -0, NaNs and
// valid -Inf / integer minima after padding. Masked-sum windows: (index, value) pairs whose index
// is the pair's number m or not (m +- 1, 0xFFFF, int8 junk above the element, random), odd lengths
// (a last index without its value), counts of 1 (the exact sum), of the selected values or more, 0,
// powers of two, anything (also 1 < count < selected values). Directed windows the random ones
// rarely reach (counts of 0 and below the element count, argmax ties / NaN / padding corners,
// masked-sum corners, 65536-element windows of average, argmax and masked sum: one of each pair in
// the default run) mixed in; then the directed protocol errors (first without valid, count > 65536
// and pow2_i with a count of 3 for average and masked sum, six op changes within a window among the
// four ops, first inside / element outside a window, a max or argmax window ending in the divider's
// last cycle, an argmax or masked-sum element at window position 65536: one of the two in the
// default run), each refused by every view.
// The reference shares no code with the core: a max or average window's result is golden::pool of
// a one-window layer (sim/golden/pool.h), an argmax's (L - 1) - j* with j* from golden::pool_argmax
// of a layer of the valid elements only (0xFFFF without one), a masked sum's the golden average of
// the selected values (a one-window layer, or golden::pool_backward's exact sum for a count of 1),
// else (1 < count < values) exact_average, the tb's exact rational reference, which is checked
// against the golden pooling wherever both exist; the directed windows carry hand-computed values.
// The timing is the spec's, written again here: in_ready_o low only for the last element of an
// average or masked-sum window while the divider holds a window that does not finish in this
// cycle; out_valid_o 1 cycle after a max or argmax window's last element is taken, D + 1 after an
// average or masked-sum window's (D = 21 binary16, 16 integer: radix 4; 1 with pow2_i). in_ready_o
// is checked every cycle, out_valid_o every cycle against a queue of results owed at exact cycles,
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
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "hw/common/hw_params.h"
#include "hw/common/protocol_error.h"
#include "hw/pool/pool_lane_core.h"  // PoolLaneIn, the inputs of one cycle (the RTL view links no core)
#include "sim/golden/pool.h"
#include "tb/common/bench_main.h"
#include "tb/pool/pool_reference.h"

#include "tb/common/views.h"
#ifndef FLYCOL_VTOP
#include "hw/pool/pool_lane.h"
#endif

using namespace flycol;
using namespace flycol::hw;
using namespace flycol::tb::pool_ref;  // the argmax and masked-sum references (pool_reference.h)

namespace {

const char* arith_name(Arithmetic a) {
  return a == Arithmetic::fp16 ? "fp16" : a == Arithmetic::int8 ? "int8" : "int16";
}

// The spec's divider length D (section 16), written here again rather than taken from the core.
int divider_cycles(Arithmetic a) { return a == Arithmetic::fp16 ? 21 : 16; }

// The stream index of an arithmetic: the same seed gives the same stimulus on every view of it.
std::uint64_t stream_of(Arithmetic a) { return a == Arithmetic::fp16 ? 0 : a == Arithmetic::int8 ? 1 : 2; }


// The spec's op_i (section 16, "Pool lane interface"), written here again: the windows of average
// and masked sum go through the divider (its ready rule and D + 1 timing), max and argmax do not.
bool through_divider(PoolLaneOp op) { return op == PoolLaneOp::Average || op == PoolLaneOp::MaskedSum; }
const char* op_name(PoolLaneOp op) {
  switch (op) {
    case PoolLaneOp::Max: return "max";
    case PoolLaneOp::Average: return "avg";
    case PoolLaneOp::Argmax: return "argmax";
    case PoolLaneOp::MaskedSum: return "masked";
  }
  return "?";
}


// ---------------------------------------------------------------------------------------------
// Stimulus: windows as the lane sees them.

struct Window {
  PoolLaneOp op = PoolLaneOp::Max;
  std::vector<elem_t> elems;  // in feeding order, padding included
  std::vector<bool> pad;      // pad_i of each element (argmax; the other ops get random pad_i)
  std::uint32_t count = 0;    // count_i with the last element (average, masked sum)
  bool pow2 = false;          // pow2_i with the last element: the count is 0 or 2^k, divided by a shift
  acc_t expected = 0;         // the result word
  bool directed = false, empty = false;
  int pads = 0;
  // Argmax: j* was a NaN; a minimum (-Inf, the integer minimum) after padding; an equal valid
  // element (ties, -0 = +0) came after j*. Masked sum: selected values; the count is below them
  // and above 1 (exact_average is the reference); a divisor of 1 with several values (the backward
  // pass's gather).
  bool arg_nan = false, arg_min_after_pad = false, arg_tie = false;
  int selected = 0;
  bool masked_below = false, masked_sum = false;
  bool avg() const { return through_divider(op); }
};

enum class Flavor { corners, finite, big, tiny, zeros, cancel, ties };

class Stimulus {
public:
  Stimulus(Arithmetic a, std::uint64_t seed, bool long_run) : r(seed), arith_(a), long_(long_run) {}
  tb::Rand r;

  // Phases, drawn anew now and then (new_phase): idle rates inside and between windows, the op mix
  // (p_avg: through the divider; p_new: of those masked sum, of the others argmax), and short
  // back-to-back windows through the divider.
  double p_idle = 0.0;
  int max_gap = 0;
  double p_avg = 0.5, p_new = 0.3;
  bool short_avg = false;

  void new_phase() {
    p_idle = r.pick({0.0, 0.0, 0.05, 0.3});
    max_gap = r.pick({0, 0, 2, 40});
    p_avg = r.pick({0.0, 0.5, 0.5, 1.0});
    p_new = r.pick({0.0, 0.25, 0.5, 1.0});
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
    const bool divider = r.chance(p_avg);
    if (r.chance(p_new)) return divider ? masked_window() : argmax_window();
    Window w;
    w.op = divider ? PoolLaneOp::Average : PoolLaneOp::Max;
    const Flavor f = pick_flavor(w.avg());
    win_sign_ = r.chance(0.5);
    golden::PoolLayer l;
    l.op = w.avg() ? golden::PoolOp::avg : golden::PoolOp::max;
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
      w.elems.assign(std::size_t(p), pad(w.avg()));
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
      w.elems.assign(std::size_t(pl), pad(w.avg()));
      w.elems.insert(w.elems.end(), data.begin(), data.end());
      w.elems.insert(w.elems.end(), std::size_t(pr), pad(w.avg()));
      w.count = std::uint32_t(l.count_include_pad ? len : width);
      w.pads = pads;
    }
    w.expected = golden::pool(l, arith_, data).at(0);
    // A divisor of 0 or 2^k may take the shift (pow2_i); often in the short phases, where back-to-back
    // one-cycle divisions follow each other.
    w.pow2 = w.avg() && (w.count & (w.count - 1)) == 0 && r.chance(short_avg ? 0.7 : 0.5);
    w.pad.assign(w.elems.size(), false);  // not read: the run drives random pad_i
    return w;
  }

  // A random argmax window (op 2): elements of one flavor (or ties among a few values, or minima:
  // -Inf / the integer minimum) and pad_i flags of a random pattern: none, left / right runs, each
  // element at random, the valid rectangle of a 2-D window, all padding, or a run of padding holding
  // the pad value before minima. A padding element holds the pad value or, half the time, a
  // value that would win if it counted (NaN, +Inf, the largest). Its result: argmax_result.
  Window argmax_window() {
    Window w;
    w.op = PoolLaneOp::Argmax;
    int len = draw_len();
    const int kf = r.uniform(0, 99);
    const bool minima = kf < 8;
    const Flavor f = kf < 30 ? Flavor::ties : pick_flavor(false);
    const elem_t lowest = pad(false);
    std::vector<bool> pads(std::size_t(len), false);
    const int kp = minima ? 99 : r.uniform(0, 99);
    if (kp < 25) {
      // no padding
    } else if (kp < 45) {  // runs on the left and right
      const int n = len > 1 ? r.uniform(1, len - 1) : 0, pl = r.uniform(0, n);
      for (int i = 0; i < pl; ++i) pads[std::size_t(i)] = true;
      for (int i = 0; i < n - pl; ++i) pads[std::size_t(len - 1 - i)] = true;
    } else if (kp < 70) {  // each element
      const double q = r.pick({0.1, 0.5, 0.9});
      for (int i = 0; i < len; ++i) pads[std::size_t(i)] = r.chance(q);
    } else if (kp < 85) {  // a ky x kx window whose valid part is a rectangle (perhaps empty)
      const int kx = r.uniform(1, std::min(len, 16)), ky = std::max(1, len / kx);
      len = ky * kx;
      pads.assign(std::size_t(len), true);
      const int a0 = r.uniform(0, ky), a1 = r.uniform(a0, ky), b0 = r.uniform(0, kx), b1 = r.uniform(b0, kx);
      for (int a = a0; a < a1; ++a)
        for (int b = b0; b < b1; ++b) pads[std::size_t(a * kx + b)] = false;
    } else if (kp < 93) {  // padding only
      pads.assign(std::size_t(len), true);
    } else {  // a run of padding first
      const int pl = r.uniform(1, len);
      for (int i = 0; i < pl; ++i) pads[std::size_t(i)] = true;
    }
    const bool tempt = r.chance(0.5);
    for (int i = 0; i < len; ++i) {
      elem_t e = minima ? lowest : value(f);
      if (minima && r.chance(0.2)) e = value(Flavor::zeros);  // a few others (zeros, negatives, -Inf)
      if (pads[std::size_t(i)]) e = tempt && r.chance(0.5) ? winner() : lowest;
      w.elems.push_back(e);
      w.pads += pads[std::size_t(i)];
    }
    w.pad = pads;
    std::int64_t j = -1;
    w.expected = argmax_result(arith_, w.elems, w.pad, &j);
    w.empty = j < 0;
    if (j >= 0) {
      const elem_t best = elem_t(w.elems[std::size_t(j)] & elem_mask(arith_));
      const bool fp = arith_ == Arithmetic::fp16;
      w.arg_nan = fp && (best & 0x7C00) == 0x7C00 && (best & 0x3FF) != 0;
      w.arg_min_after_pad = best == lowest && j > 0 && w.pad[0];
      for (std::size_t i = std::size_t(j) + 1; i < w.elems.size() && !w.arg_nan; ++i) {
        const elem_t e = elem_t(w.elems[i] & elem_mask(arith_));
        if (!w.pad[i] && (e == best || (fp && ((e | best) & 0x7FFF) == 0))) w.arg_tie = true;
      }
    }
    return w;
  }

  // A random masked-sum window (op 3): (index, value) pairs, odd lengths ending in an index. An
  // index is the pair's number m (int8: now and then with junk above its 8 bits) or, more or less
  // often, something else (m +- 1, 0xFFFF, m with a high bit, random bits); the reference selects
  // by the spec's rule, an index whose element bits equal m, whatever the draw meant. The values
  // are of one average flavor; the count is 1 (the backward pass's gather: the exact sum), the
  // number of selected values or more, 0, a power of two, or anything (also below the selected
  // values and above 1). Its result: masked_average.
  Window masked_window() {
    Window w;
    w.op = PoolLaneOp::MaskedSum;
    const int len = draw_len(), pairs = len / 2;
    const Flavor f = pick_flavor(true);
    std::vector<ElemBits> vals;
    if (f == Flavor::cancel) vals = cancelling(pairs);
    else
      for (int m = 0; m < pairs; ++m) vals.push_back(value(f));
    const double p_hit = r.pick({0.0, 0.3, 0.7, 0.9, 1.0});
    const std::uint32_t mask = elem_mask(arith_);
    std::vector<elem_t> sel;
    auto index = [&](std::uint32_t m) {
      if (r.chance(p_hit)) {
        std::uint32_t i = m;
        if (arith_ == Arithmetic::int8 && r.chance(0.2)) i = (m & 0xFF) | std::uint32_t(r.bits(8)) << 8;
        return elem_t(i);
      }
      switch (r.uniform(0, 5)) {
        case 0: return elem_t(0xFFFF);
        case 1: return elem_t(m + 1);
        case 2: return elem_t(m - 1);  // m = 0: 0xFFFF
        case 3: return elem_t(m ^ (1u << r.uniform(0, 15)));
        case 4: return elem_t(m | 0x8000);
        default: return elem_t(r.bits(16));
      }
    };
    for (int m = 0; m < pairs; ++m) {
      const elem_t i = index(std::uint32_t(m));
      w.elems.push_back(i);
      w.elems.push_back(elem_t(vals[std::size_t(m)]));
      if ((i & mask) == std::uint32_t(m)) sel.push_back(elem_t(vals[std::size_t(m)]));
    }
    if (len % 2 != 0) w.elems.push_back(index(std::uint32_t(pairs)));  // an index without its value
    const std::uint32_t n = std::uint32_t(sel.size());
    const int kc = r.uniform(0, 99);
    if (kc < 35) w.count = 1;
    else if (kc < 55) w.count = n + (r.chance(0.5) ? 0 : std::uint32_t(r.uniform(1, 5)));
    else if (kc < 62) w.count = 0;
    else if (kc < 72) w.count = 1u << r.uniform(0, 16);
    else if (kc < 90) w.count = std::uint32_t(r.uniform(1, int(std::max<std::uint32_t>(n, 1))));
    else w.count = std::uint32_t(r.uniform(0, 65536));
    bool golden_used = true;
    w.expected = masked_average(arith_, sel, w.count, &golden_used);
    w.selected = int(n);
    w.masked_below = !golden_used;
    w.masked_sum = w.count == 1 && n > 1;
    w.empty = n == 0;
    w.pow2 = (w.count & (w.count - 1)) == 0 && r.chance(short_avg ? 0.7 : 0.5);
    w.pad.assign(w.elems.size(), false);  // not read: the run drives random pad_i
    return w;
  }

  // Windows golden::PoolLayer cannot express (a count of 0 with valid elements, counts below the
  // element count), extreme counts and the longest window (65536 elements: the width of the exact
  // sum), with results computed by hand from section 15 / 16.
  std::vector<Window> directed() const {
    std::vector<Window> v;
    auto add_op = [&](PoolLaneOp op, std::vector<elem_t> e, std::uint32_t count, acc_t expected,
                      std::vector<bool> pads = {}) {
      Window w;
      w.op = op;
      w.elems = std::move(e);
      w.pad = pads.empty() ? std::vector<bool>(w.elems.size(), false) : std::move(pads);
      for (bool p : w.pad) w.pads += p;
      w.count = count;
      w.expected = expected;
      w.directed = true;
      w.empty = op == PoolLaneOp::Argmax && expected == kNoArgmax;
      v.push_back(std::move(w));
    };
    auto add = [&](bool avg, std::vector<elem_t> e, std::uint32_t count, acc_t expected) {
      add_op(avg ? PoolLaneOp::Average : PoolLaneOp::Max, std::move(e), count, expected);
    };
    const PoolLaneOp A = PoolLaneOp::Argmax, M = PoolLaneOp::MaskedSum;
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
    // Argmax (results: the position counted from the end, L - 1 - j*) and masked sums, by hand.
    const bool fp = arith_ == Arithmetic::fp16, i8 = arith_ == Arithmetic::int8;
    const elem_t lo = pad(false), hi = fp ? 0x7BFF : i8 ? 0x7F : 0x7FFF, one = fp ? 0x3C00 : 1;
    add_op(A, {lo, lo, lo}, 0, 1, {true, false, false});      // the first valid minimum, after padding
    add_op(A, {hi, lo}, 0, 0, {true, false});                 // padding never wins
    add_op(A, {hi, lo}, 0, kNoArgmax, {true, true});          // no valid element
    add_op(A, {one}, 0, 0);                                   // a window of one
    add_op(A, {one, one, one}, 0, 2);                         // ties: the first
    add_op(A, {lo, one, hi, hi}, 0, 1);
    add_op(A, {hi, one, lo}, 0, 1, {true, false, false});
    if (fp) {
      add_op(A, {0x8000, 0x0000}, 0, 1);                      // -0 = +0: the first stays
      add_op(A, {0x0000, 0x8000}, 0, 1);
      add_op(A, {0x3C00, 0x7E01, 0x7C00, 0xFE00}, 0, 2);      // the first NaN (any payload, sign)
      add_op(A, {0x7E00, 0x3C00}, 0, 0, {true, false});       // a NaN in the padding is ignored
      add_op(A, {0x0001, 0x8001}, 0, 1);                      // subnormals of both signs
      add_op(A, {0x8001, 0x0001}, 0, 0);
      add_op(A, {0xFC00, 0xFC00, 0x7E00}, 0, 0, {true, false, false});  // -Inf, then a NaN
    } else {
      add_op(A, {elem_t(i8 ? 0xFF : 0xFFFF), 1}, 0, 0);       // signed: -1 < 1
      if (i8) add_op(A, {0x7F, 0x17F}, 0, 1);                 // the bits above an int8 element are ignored
    }
    // Masked sums: pairs (index, value), the value counted where the index is the pair's number.
    if (fp) {
      add_op(M, {0, 0x3C00, 1, 0x3C00, 0xFFFF, 0x4000, 2}, 1, 0x4000);  // 1 + 1; an index without value
      add_op(M, {1, 0x3C00}, 1, 0x0000);                    // nothing selected: +0
      add_op(M, {0, 0x7BFF, 1, 0x7BFF}, 1, 0x7C00);          // 131008: +Inf
      add_op(M, {5, 0x7E00, 1, 0x3C00}, 1, 0x3C00);          // an unselected NaN does not count
      add_op(M, {0, 0x7C00, 1, 0xFC00}, 1, 0x7E00);          // +Inf with -Inf: NaN
      add_op(M, {0, 0x3C00, 1, 0x3C00, 2, 0x3C00}, 2, 0x3E00);  // 3 / 2 (a count below the values)
      add_op(M, {0, 0x3C00}, 0, 0x7E00);                    // a count of 0
      add_op(M, {0, 0x0001}, 2, 0x0000);                    // 2^-25: a tie, to the even 0
      add_op(M, {0, 0x8001, 1, 0x0001, 2, 0x8001}, 1, 0x8001);  // -2^-24
    } else if (i8) {
      add_op(M, {0, 0x7F, 1, 0x7F}, 1, 254);
      add_op(M, {0x100, 5}, 1, 5);                          // index bits above an int8 element ignored
      add_op(M, {0, 0x7F}, 2, 64);                          // 63.5: ties away from zero
      add_op(M, {0, 0x80, 1, 0x80, 2, 0x80}, 2, acc_t(-192));
      add_op(M, {0, 5}, 0, 0);
    } else {
      add_op(M, {0, 0x7FFF, 1, 0x7FFF}, 1, 65534);
      add_op(M, {0x100, 5}, 1, 0);                          // 0x100 is no pair 0
      add_op(M, {0, 0x8001}, 2, acc_t(-16384));             // -16383.5
    }
    // Every directed average or masked-sum window whose count is 0 or 2^k again with pow2_i (the
    // shift), but for the longest ones.
    const std::size_t n = v.size();
    for (std::size_t i = 0; i < n; ++i)
      if (v[i].avg() && (v[i].count & (v[i].count - 1)) == 0 && v[i].elems.size() < 65536) {
        Window w = v[i];
        w.pow2 = true;
        v.push_back(std::move(w));
      }
    if (!long_) {  // the default run keeps one of the two longest average windows
      auto it = std::find_if(v.begin(), v.end(), [](const Window& w) { return w.elems.size() == 65536; });
      v.erase(it + ((seed_bit_ & 1) ? 1 : 0));
    }
    // The longest argmax and masked-sum windows (65536 elements: window positions to 65535), one of
    // them in the default run. Argmax: 100 padding elements that would win, valid ones, the largest
    // at position 1234 and once more later, a last element of padding: 65535 - 1234. Masked sum:
    // 32768 pairs with index m and the smallest value (fp16 2^-24, integers 1) and a count of 1:
    // 32768 of them (fp16: 2^-9), int8 256 (an index of 256 or more has other element bits).
    std::vector<Window> longs;
    {
      std::vector<elem_t> e(65536, one);
      std::vector<bool> p(65536, false);
      for (int i = 0; i < 100; ++i) e[std::size_t(i)] = hi, p[std::size_t(i)] = true;
      e[1234] = e[40000] = hi;
      if (fp) e[1234] = e[40000] = 0x7C00;
      e[65535] = fp ? 0x7E00 : hi;
      p[65535] = true;
      add_op(A, e, 0, 65535 - 1234, p);
      longs.push_back(v.back());
      v.pop_back();
      std::vector<elem_t> m;
      for (std::uint32_t i = 0; i < 32768; ++i) m.push_back(elem_t(i)), m.push_back(fp ? 0x0001 : 1);
      add_op(M, m, 1, fp ? 0x1800 : i8 ? 256 : 32768);
      longs.push_back(v.back());
      v.pop_back();
    }
    if (long_) v.insert(v.end(), longs.begin(), longs.end());
    else v.push_back(longs[(seed_bit_ >> 1) & 1]);
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
      case Flavor::ties: {  // argmax: a few values, so that equal ones (and +0 / -0) meet; rare NaNs
        if (r.chance(0.03)) return r.chance(0.5) ? elem_t(0x7E00) : elem_t(0xFC00 | r.uniform(1, 0x3FF));
        return r.pick<elem_t>({0x0000, 0x8000, 0x0000, 0x8000, 0x3C00, 0xBC00, 0x7C00, 0xFC00, 0x0001, 0x8001});
      }
    }
    return 0;
  }

  // A padding element that would win an argmax if it counted.
  elem_t winner() {
    if (arith_ != Arithmetic::fp16) return arith_ == Arithmetic::int8 ? 0x7F : 0x7FFF;
    return r.pick<elem_t>({0x7E00, 0x7C00, 0x7BFF, 0x7C01, 0xFE00});
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
      case Flavor::ties: v = r.pick<std::uint32_t>({0, 0, 1, 1, mask, min, max}); break;
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
  // Argmax windows: all, with pad_i, without a valid element (0xFFFF), won by a NaN, by a minimum
  // after padding, with a later equal element; masked-sum windows: all, of odd length, selected
  // values, none selected, a count of 1 with several values, a count in (1, selected values).
  std::uint64_t argmax = 0, arg_padded = 0, arg_none = 0, arg_nan = 0, arg_min_after_pad = 0, arg_tie = 0,
                masked = 0, masked_odd = 0, masked_values = 0, masked_selected = 0, masked_none = 0,
                masked_sum = 0, masked_below = 0;
};

template <class View>
class Bench {
public:
  Bench(View& v, Arithmetic arith, std::uint64_t seed, bool long_run, tb::MismatchLog& log, Figures& fig)
      : v_(v), arith_(arith), d_(divider_cycles(arith)), long_(long_run), seed_(seed), gen_(arith, seed, long_run),
        log_(log), fig_(fig) {
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
      in.op = PoolLaneOp(gen_.r.bits(2));
      in.pad = gen_.r.chance(0.5);
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
      if (present && last && !w.avg() && div_end_ == std::int64_t(c_)) {
        present = false;
        ++fig_.avoided;
      }
      if (present) {
        in.valid = true;
        in.first = pos == 0;
        in.last = last;
        in.elem = w.elems[pos];
        in.op = w.op;
        in.pad = w.op == PoolLaneOp::Argmax ? bool(w.pad[pos]) : gen_.r.chance(0.5);  // read by argmax only
        if (!(last && w.avg())) in.count = gen_.junk_count();
        else in.count = w.count;
        if (last && w.avg()) in.pow2 = w.pow2;
      } else {
        ++fig_.idle;
        if (gap > 0) --gap;
      }
      v_.drive(in, true);
      v_.settle();
      // in_ready_o: low only for the last element of an average or masked-sum window (op_i bit 0)
      // while the divider holds a window whose last step (cycle div_end_) is not this cycle.
      const bool want_ready = !(in.valid && in.last && through_divider(in.op) && std::int64_t(c_) < div_end_);
      log_.expect("in_ready_o", v_.in_ready(), want_ready);
      if (in.valid && !want_ready) ++stalls_, ++fig_.stalls;
      held = in.valid && !want_ready;
      if (in.valid && want_ready) {
        ++fig_.elements;
        if (in.last) {
          const int d = w.pow2 ? 1 : d_;  // the divider's cycles: one for a shift
          owe(w, c_ + (w.avg() ? std::uint64_t(d) + 1 : 1));
          if (w.avg()) div_end_ = std::int64_t(c_) + d;
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
    log_.note("window ({} {} elements{}{}, count {}{}) taken: {:#x} owed in cycle {}", op_name(w.op),
              w.elems.size(),
              w.empty ? (w.op == PoolLaneOp::MaskedSum ? ", none selected" : ", no valid element") : "",
              w.directed ? ", directed" : "", w.count,
              w.pow2 ? ", pow2_i" : "", w.expected, at);
  }

  void count_window(const Window& w) {
    ++windows_;
    ++fig_.windows;
    switch (w.op) {
      case PoolLaneOp::Max:
      case PoolLaneOp::Average:
        ++(w.op == PoolLaneOp::Max ? fig_.max : fig_.avg);
        fig_.empty += w.empty;
        fig_.padded += w.pads > 0;
        break;
      case PoolLaneOp::Argmax:
        ++fig_.argmax;
        fig_.arg_padded += w.pads > 0;
        fig_.arg_none += w.empty;
        fig_.arg_nan += w.arg_nan;
        fig_.arg_min_after_pad += w.arg_min_after_pad;
        fig_.arg_tie += w.arg_tie;
        break;
      case PoolLaneOp::MaskedSum:
        ++fig_.masked;
        fig_.masked_odd += w.elems.size() % 2;
        fig_.masked_values += w.elems.size() / 2;
        fig_.masked_selected += std::uint64_t(w.selected);
        fig_.masked_none += w.empty;
        fig_.masked_sum += w.masked_sum;
        fig_.masked_below += w.masked_below;
        break;
    }
    fig_.directed += w.directed;
    fig_.pow2 += w.pow2;
    fig_.longest = std::max<std::uint64_t>(fig_.longest, w.elems.size());
    if (arith_ == Arithmetic::fp16 && w.op != PoolLaneOp::Argmax) {
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
    const PoolLaneOp kMax = PoolLaneOp::Max, kAvg = PoolLaneOp::Average, kArg = PoolLaneOp::Argmax,
                     kMasked = PoolLaneOp::MaskedSum;
    auto elem = [](PoolLaneOp op, bool first, bool last, std::uint32_t count = 1) {
      PoolLaneIn in;
      in.valid = true;
      in.first = first;
      in.last = last;
      in.op = op;
      in.count = count;
      return in;
    };
    PoolLaneIn bad;
    reset_cycles(2);
    bad.first = true;
    refused("in_first_i without in_valid_i", bad);

    for (PoolLaneOp op : {kAvg, kMasked}) {
      reset_cycles(2);
      refused(op == kAvg ? "count_i 65537 with the last average element"
                         : "count_i 65537 with the last masked-sum element",
              elem(op, true, true, 65537));

      reset_cycles(2);
      bad = elem(op, true, true, 3);
      bad.pow2 = true;
      refused(op == kAvg ? "pow2_i with count_i 3 (average)" : "pow2_i with count_i 3 (masked sum)", bad);
    }

    // op_i changed within a window: a window opens with the first op, an element of the second follows.
    const struct {
      PoolLaneOp open, then;
      const char* what;
    } changes[] = {{kMax, kAvg, "op_i changed within a window (max, then average)"},
                   {kArg, kMasked, "op_i changed within a window (argmax, then masked sum)"},
                   {kMasked, kAvg, "op_i changed within a window (masked sum, then average)"},
                   {kArg, kMax, "op_i changed within a window (argmax, then max)"},
                   {kAvg, kMasked, "op_i changed within a window (average, then masked sum)"},
                   {kMax, kArg, "op_i changed within a window (max, then argmax)"}};
    for (const auto& ch : changes) {
      reset_cycles(2);
      step(elem(ch.open, true, false));
      refused(ch.what, elem(ch.then, false, gen_.r.chance(0.5)));
    }

    reset_cycles(2);
    PoolLaneIn good = elem(kMax, true, false);
    step(good);
    refused("in_first_i while a window is open", good);  // another first element

    reset_cycles(2);
    step(elem(kArg, true, false));
    refused("in_first_i while an argmax window is open", elem(kArg, true, true));

    reset_cycles(2);
    bad = PoolLaneIn{};
    bad.valid = bad.last = true;  // no window is open after reset
    refused("an element without in_first_i outside a window", bad);

    // One result port: a max or argmax window may not end in the cycle the divider finishes a
    // window of one element of average or masked sum (D cycles after it is taken).
    const struct {
      PoolLaneOp div, end;
      const char* what;
    } ends[] = {{kAvg, kMax, "a max window ending in the divider's last cycle"},
                {kMasked, kArg, "an argmax window ending in the divider's last cycle (masked sum)"},
                {kAvg, kArg, "an argmax window ending in the divider's last cycle (average)"}};
    for (const auto& e : ends) {
      reset_cycles(2);
      step(elem(e.div, true, true, 3));  // the divider's last step is D cycles on
      for (int i = 1; i < d_; ++i) step(PoolLaneIn{});
      refused(e.what, elem(e.end, true, true));
    }

    // The position counter's range: an argmax or masked-sum window of 65536 elements is legal,
    // an element at position 65536 is refused (last or not). The default run takes one of the two
    // ops (by the seed), --long both.
    for (PoolLaneOp op : {kArg, kMasked}) {
      if (!long_ && (op == kArg) != ((seed_ >> 2) % 2 == 0)) continue;
      reset_cycles(2);
      step(elem(op, true, false));
      for (int i = 1; i < 65536; ++i) step(elem(op, false, false));
      refused(op == kArg ? "an argmax element at window position 65536" : "a masked-sum element at window position 65536",
              elem(op, false, op == kMasked, 1));
    }
    v_.expect_refusals_end();
    reset_cycles(2);
  }

  View& v_;
  Arithmetic arith_;
  int d_;
  bool long_;
  std::uint64_t seed_;
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
    dut_->op_i = std::uint8_t(in.op) & 3u;
    dut_->pad_i = in.pad;
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
    dut_.pad_i(pad_);
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
    op_.write(std::uint8_t(in.op));
    pad_.write(in.pad);
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
  sc_core::sc_signal<bool> rst_n_, valid_, ready_, first_, last_, pad_, pow2_, out_valid_;
  sc_core::sc_signal<std::uint8_t> op_;
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
  if (f.arg_padded == 0 || f.arg_none == 0 || f.arg_tie == 0 || f.arg_min_after_pad == 0)
    h.fail("coverage: argmax windows without padding, without a valid element, ties or a minimum after padding");
  if (fp16 && f.arg_nan == 0) h.fail("coverage: no argmax window won by a NaN");
  if (f.masked_odd == 0 || f.masked_none == 0 || f.masked_sum == 0 || f.masked_below == 0 ||
      f.masked_selected == 0 || f.masked_selected == f.masked_values)
    h.fail("coverage: masked-sum windows missing odd lengths, none selected, sums, counts below the values or misses");
}

std::string figures(const Figures& f) {
  const std::string fp16 = f.nan + f.inf + f.zero == 0
                               ? ""
                               : fmt::format(", fp16 results {} NaN {} Inf {} +-0", f.nan, f.inf, f.zero);
  return fmt::format("{} cycles, {} windows ({} avg, {} max, {} argmax, {} masked; {} shifted, {} padded, {} padding only, "
                     "{} directed; longest {}), {} elements, argmax windows: {} with pad_i, {} without a valid element, "
                     "{} won by a NaN, {} by a minimum after padding, {} with a later equal element; masked-sum "
                     "windows: {} of odd length, {} of {} values selected, {} with none, {} sums (count 1), {} with "
                     "1 < count < values; {} divider stall cycles, {} idle cycles, {} max / argmax ends moved off a "
                     "divider finish{}, {} reset cycles ({} windows cut), {} protocol errors refused",
                     f.cycles, f.windows, f.avg, f.max, f.argmax, f.masked, f.pow2, f.padded, f.empty, f.directed,
                     f.longest, f.elements, f.arg_padded, f.arg_none, f.arg_nan, f.arg_min_after_pad, f.arg_tie,
                     f.masked_odd, f.masked_selected, f.masked_values, f.masked_none, f.masked_sum, f.masked_below,
                     f.stalls, f.idle, f.avoided, fp16, f.resets, f.cut, f.refusals);
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
