// Testbench of the pooling unit (docs/microarchitecture.md, section 16, "The pooling RUN" and
// "Backward of max pooling"), one for all three views: random pooling RUNs (max, average, argmax
// and masked sum; random n_c, n_cy, n_cx, n_ky, n_kx, pool_sy, lane_stride, divisor ranges
// pool_y0/y1/x0/x1 and divisor windows pool_ky/kx/sx (the backward pass's shares and sums),
// including ranges that clip windows to no element, ranges past the tile and lanes whose windows
// start beyond 16 bits of column), with convolution RUNs between them (the unit must stay inactive
// and ignore their pops), fed as the data feeder and the issue stage would: for each context (cy,
// cx), each channel c, each window position (ky, kx), lane r gets the tile element at row
// cy*pool_sy + ky, column (cx*ROWS + r)*lane_stride + kx of channel c, or the LOAD's pad value
// outside the tile's data (-Inf / the integer minimum for max, 0 for average; argmax: that or now
// and then any value; masked sum: 0 or 0xFFFF); pops with random bubbles, only while pool_ready_o
// is high, the next RUN started right after the unit goes inactive or later; resets at random
// times. Elements reach every binary16 class (NaN payloads, +-Inf, -0, subnormals, the largest
// finite) and the int8 / int16 extremes. Argmax RUNs: dense windows (no packing, sides to 256),
// counted ranges independent of the data (the data's, near it, or anything, to 65535; random
// pool_sx, ignored pool_ky / pool_kx), so that lanes get padding on some, all or none of their
// elements, data outside the range is padding and pad values inside it count; a "ties" flavor
// (+0 / -0, equal values, NaNs). Masked-sum RUNs: tiles of (index, value) column pairs, mostly
// the backward pass's layout (a ky x 2kx window at lane stride 2), an index being the pair number
// it has in one of the windows holding it, some pair number, 0xFFFF or random bits; mostly a 1 x 1
// divisor window (divisors 0 or 1: the gather), else small divisor windows (divisors to 6, below
// the selected values now and then) or the other divisor settings. Directed RUNs: average windows
// of 256 x 256; argmax windows of 255 x 256 (the default run: one, for half the seeds; --long also
// one whose range keeps only the windows' last row) and (--long) a masked sum of 256 x 256; an
// argmax whose last lanes start past column 65535 and an average whose last contexts start past
// row 65535, both in ranges to 65535. Then the directed protocol errors (a pop while
// pool_ready_o is low, after an average and after a masked-sum window, a start while a pooling RUN
// (max, argmax) takes elements), each refused by every view.
// The reference shares no code with the core: a max or average lane window's result is
// golden::pool of a one-window layer (sim/golden/pool.h) over the elements the lane was fed, the
// average's divisor the spec's formula written again here (rows x cols of the divisor window inside
// [pool_y0, pool_y1) x [pool_x0, pool_x1)); a window of several elements divided by 1 is the exact
// sum rounded once, from golden::pool_backward (an element that every window holds). An argmax
// lane window's result is (L - 1) - j*, j* from golden::pool_argmax of a layer of its valid
// elements only (0xFFFF without one), the element at window position (a, b) being padding unless
// row cy*pool_sy + a and column (cx*ROWS + r)*sx + b (sx = pool_sx, or lane_stride when 0) lie in
// the counted range. A masked-sum lane window's is the average over its divisor of the values
// whose index equals their pair number: golden where a layer expresses it, else (1 < divisor <
// selected values) the tb's exact rational reference, checked against golden wherever both
// exist. The timing is the spec's: res_valid_o 1 cycle after the cycle that took a max or argmax
// window's last element, D + 1 after an average or masked-sum window's (D = 21 binary16, 16
// integer: radix 4; 1 when every lane's divisor is 0 or a power of two); pool_ready_o low exactly
// when the next element is the last of an average or masked-sum window while the divider holds a
// window whose last step is not this cycle. pool_ready_o and res_valid_o are checked every cycle,
// res_word_o (all ROWS words) with every result. Built twice from this file (see
// hw/pool/CMakeLists.txt):
//   pool_unit_tb [--view core|sc|all] [--seed N] [--runs N] [--long]   the C++ core and the SystemC
//         module, on fornt16 (fp16, 16 rows), int8 (16 rows), small_int16 (4 rows) and rect8x4
//         (fp16, 8 rows) parameters (300 / 5000 random RUNs each, plus the directed RUNs)
//   pool_unit_rtl_tb_<cfg> [--config NAME|FILE] [--seed N] [--runs N] [--long]   pool_unit.sv
//         Verilated for one configuration (FLYCOL_VTOP defined; the same stimulus as the core view of
//         the configuration of the same name for the same seed)
#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "hw/common/command.h"
#include "hw/common/hw_params.h"
#include "hw/common/protocol_error.h"
#include "sim/golden/pool.h"
#include "tb/common/bench_main.h"
#include "tb/pool/pool_reference.h"

#include "tb/common/views.h"
#ifdef FLYCOL_VTOP
#include "sim/rtlgen/rtl_types.h"
#else
#include "hw/pool/pool_unit.h"
#include "hw/pool/pool_unit_core.h"
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


// The LOAD's pad_value: 0 for an average tile, the type's smallest value for max.
elem_t pad_of(Arithmetic a, bool avg) {
  if (avg) return 0;
  return a == Arithmetic::fp16 ? 0xFC00 : a == Arithmetic::int8 ? 0x80 : 0x8000;
}



// The parameter sets of the core / SystemC build, named after the RTL configurations with the same
// arithmetic and ROWS: a seed gives the same stimulus to the core view of one and the RTL view of
// the other (stream_of).
struct Setup {
  const char* tag;
  Arithmetic arith;
  int rows;
};
const Setup kSetups[] = {{"fornt16", Arithmetic::fp16, 16},
                         {"int8", Arithmetic::int8, 16},
                         {"small_int16", Arithmetic::int16, 4},
                         {"rect8x4", Arithmetic::fp16, 8},
                         {"small", Arithmetic::fp16, 4}};
constexpr int kCoreSetups = 4;  // the core / SystemC build runs the first four

std::uint64_t stream_of(const std::string& tag) {
  for (std::size_t i = 0; i < std::size(kSetups); ++i)
    if (tag == kSetups[i].tag) return i;
  return 100 + std::hash<std::string>{}(tag) % 1000;
}

// splitmix64's finalizer: element values are a hash of (RUN seed, channel, row, column), so a tile
// of any size costs no memory and every element reads the same each time it is asked for.
std::uint64_t mix(std::uint64_t z) {
  z += 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// A few draws from one hash.
struct HashDraw {
  std::uint64_t s;
  std::uint64_t next() { return s = mix(s); }
  int uniform(int lo, int hi) { return lo + int(next() % std::uint64_t(hi - lo + 1)); }
  std::uint32_t bits(int n) { return std::uint32_t(next() & ((std::uint64_t(1) << n) - 1)); }
};

// ---------------------------------------------------------------------------------------------
// Stimulus: RUNs and their tiles.

// What a RUN's data elements look like.
enum class Flavor { corners, finite, tiny, big, zeros, mirror, ties };
const char* flavor_name(Flavor f) {
  switch (f) {
    case Flavor::corners: return "corners";
    case Flavor::finite: return "finite";
    case Flavor::tiny: return "tiny";
    case Flavor::big: return "big";
    case Flavor::zeros: return "zeros";
    case Flavor::mirror: return "mirror";
    case Flavor::ties: return "ties";
  }
  return "?";
}

struct PoolRun {
  RunDesc run;          // the RUN fields on run_i (pool_op 0: a convolution RUN, pops to ignore)
  int conv_cycles = 0;  // a convolution RUN: the cycles it lasts (random pops)
  // Tile data: channel c's element (y, x) is data inside [dy0, dy1) x [dx0, dx1), the pad value
  // elsewhere (in the tile's padding or past it). For an average RUN the data rectangle lies in the
  // divisor range, so the divisor never counts fewer positions than the window has data elements.
  std::int64_t dy0 = 0, dy1 = 0, dx0 = 0, dx1 = 0;
  Flavor flavor = Flavor::corners;
  int special_pm = 0;  // binary16 corners: NaN / infinity per mille
  bool negative = false;
  std::uint64_t seed = 0;
  bool directed = false;
  bool long_walk = false;  // contexts past row or column 65535: not cut by a reset (coverage)
  elem_t pad_value = 0;    // the LOAD's pad value outside the data
  // Masked sum: even tile columns hold indices, odd ones values; an index is, per mille, the pair
  // number it has in one of the windows that hold it (hit_pm), else some pair number or none.
  int hit_pm = 0;
  std::string what;  // for notes

  bool avg() const { return run.pool_op == unsigned(PoolOp::Average); }
  bool argmax() const { return run.pool_op == unsigned(PoolOp::Argmax); }
  bool masked() const { return run.pool_op == unsigned(PoolOp::MaskedSum); }
  // Through the divider (section 16: pool_op 2 and 4 alike for the divisor, pow2_i, pool_ready_o).
  bool divides() const { return avg() || masked(); }
};

class Stimulus {
public:
  Stimulus(const HwParams& p, std::uint64_t seed, bool long_run)
      : r(seed), arith_(p.arithmetic), rows_(p.rows), long_(long_run), seed_bit_(seed >> 7) {}
  tb::Rand r;

  // The element lane `lane` gets at window position j of window c of context (cy, cx).
  elem_t elem(const PoolRun& pr, std::uint32_t c, std::uint32_t cy, std::uint32_t cx, int lane,
              std::uint32_t j) const {
    const RunDesc& d = pr.run;
    const std::int64_t y = std::int64_t(cy) * d.pool_sy + j / d.n_kx;
    const std::int64_t x = (std::int64_t(cx) * rows_ + lane) * d.lane_stride + j % d.n_kx;
    return at(pr, c, y, x);
  }

  // Channel c's tile element (y, x).
  elem_t at(const PoolRun& pr, std::uint32_t c, std::int64_t y, std::int64_t x) const {
    if (y < pr.dy0 || y >= pr.dy1 || x < pr.dx0 || x >= pr.dx1) return pr.pad_value;
    if (pr.masked()) return pair_elem(pr, c, y, x);
    if (pr.flavor == Flavor::mirror) {  // pairs of columns of opposite values: sums that cancel
      const std::uint64_t key = c * 0x1000193ull ^ std::uint64_t(y) << 24 ^ std::uint64_t(x >> 1);
      const elem_t v = value(pr, HashDraw{pr.seed ^ mix(key)});
      if ((x & 1) == 0) return v;
      return arith_ == Arithmetic::fp16 ? elem_t(v ^ 0x8000) : elem_t((0u - v) & elem_mask(arith_));
    }
    return value(pr, HashDraw{pr.seed ^ mix(c * 0x1000193ull ^ std::uint64_t(y) << 24 ^ std::uint64_t(x) << 1)});
  }

  // A masked-sum tile's element (y, x): an index in an even column, a value in an odd one (mirror:
  // columns 4k + 1 and 4k + 3 of opposite values).
  elem_t pair_elem(const PoolRun& pr, std::uint32_t c, std::int64_t y, std::int64_t x) const {
    const std::uint64_t key = c * 0x1000193ull ^ std::uint64_t(y) << 24 ^ std::uint64_t(x) << 1;
    if (x % 2 != 0) {
      if (pr.flavor != Flavor::mirror) return value(pr, HashDraw{pr.seed ^ mix(key)});
      const elem_t v = value(pr, HashDraw{pr.seed ^ mix(c * 0x1000193ull ^ std::uint64_t(y) << 24 ^ std::uint64_t(x >> 2))});
      if ((x & 2) == 0) return v;
      return arith_ == Arithmetic::fp16 ? elem_t(v ^ 0x8000) : elem_t((0u - v) & elem_mask(arith_));
    }
    HashDraw h{pr.seed ^ mix(key ^ 0x5DEECE66Dull)};
    const RunDesc& d = pr.run;
    const std::int64_t len = std::int64_t(d.n_ky) * d.n_kx, ls = d.lane_stride, sy = d.pool_sy;
    std::uint32_t i = 0;
    const int k = h.uniform(0, 999);
    if (k < pr.hit_pm) {
      // One of the windows that hold (y, x), at random: global lane g (column origin g * ls) and
      // row origin cy * sy; the element's pair number there.
      const std::int64_t g_hi = x / ls, g_lo = std::max<std::int64_t>(0, (x - std::int64_t(d.n_kx) + ls) / ls);
      const std::int64_t c_hi = y / sy, c_lo = std::max<std::int64_t>(0, (y - std::int64_t(d.n_ky) + sy) / sy);
      const std::int64_t g = g_lo + std::int64_t(h.next() % std::uint64_t(std::max<std::int64_t>(1, g_hi - g_lo + 1)));
      const std::int64_t cy = c_lo + std::int64_t(h.next() % std::uint64_t(std::max<std::int64_t>(1, c_hi - c_lo + 1)));
      const std::int64_t a = y - cy * sy, b = x - g * ls;
      i = std::uint32_t((a * d.n_kx + b) / 2);
    } else if (k < pr.hit_pm + (1000 - pr.hit_pm) / 2) {
      i = std::uint32_t(h.uniform(0, int(std::max<std::int64_t>(0, len / 2 - 1))));
    } else {
      i = h.uniform(0, 1) ? 0xFFFFu : h.bits(16);
    }
    return elem_t(i & elem_mask(arith_));  // int8: a pair number of 256 or more is no int8 element
  }

  // A random RUN: now and then a convolution RUN, else max, average, argmax or masked-sum pooling
  // (or, from directed(), a pooling RUN of op `force_op` and shape draw `force_shape`).
  PoolRun random_run(int force_op = -1, int force_shape = -1) {
    PoolRun pr;
    RunDesc& d = pr.run;
    junk_fields(d);
    pr.seed = r.bits(64);
    const int op = force_op >= 0 ? 50 : r.uniform(0, 99);
    if (op < 8) {
      d.pool_op = 0;
      d.preload = r.chance(0.5);
      d.n_kg = std::uint32_t(r.uniform(1, 4));
      d.n_c = std::uint32_t(r.uniform(1, 8));
      d.n_cy = std::uint32_t(r.uniform(1, 4));
      d.n_cx = std::uint32_t(r.uniform(1, 4));
      d.n_ky = std::uint32_t(r.uniform(1, 3));
      d.n_kx = std::uint32_t(r.uniform(1, 3));
      pr.conv_cycles = r.uniform(1, 150);
      pr.what = "convolution";
      return pr;
    }
    d.pool_op = unsigned(op < 36 ? PoolOp::Max : op < 64 ? PoolOp::Average : op < 82 ? PoolOp::Argmax : PoolOp::MaskedSum);
    d.preload = false;
    d.n_kg = 1;
    // Shape: mostly small windows and a few contexts; now and then long windows, or contexts far
    // to the right or far down (window columns or rows past 16 bits).
    const int k = force_shape >= 0 ? force_shape : r.uniform(0, 99);
    const bool far = k >= 91 && k < 96, deep = k >= 96;
    const char* shape = "small";
    if (k < 60) {
      d.n_ky = std::uint32_t(r.uniform(1, 3));
      d.n_kx = std::uint32_t(r.uniform(1, 3));
      d.n_c = std::uint32_t(r.uniform(1, 4));
      d.n_cy = std::uint32_t(r.uniform(1, 5));
      d.n_cx = std::uint32_t(r.uniform(1, 3));
    } else if (k < 82) {
      shape = "medium";
      d.n_ky = std::uint32_t(r.uniform(1, 12));
      d.n_kx = std::uint32_t(r.uniform(1, 12));
      d.n_c = std::uint32_t(r.uniform(1, 3));
      d.n_cy = std::uint32_t(r.uniform(1, 2));
      d.n_cx = std::uint32_t(r.uniform(1, 2));
    } else if (k < 91) {
      shape = "long";
      const int big = r.uniform(13, 256), other = r.uniform(1, 3);
      const bool tall = r.chance(0.5);
      d.n_ky = std::uint32_t(tall ? big : other);
      d.n_kx = std::uint32_t(tall ? other : big);
      d.n_c = std::uint32_t(r.uniform(1, 2));
      d.n_cy = 1;
      d.n_cx = std::uint32_t(r.uniform(1, 2));
    } else {
      shape = far ? "far" : "deep";
      d.n_ky = std::uint32_t(r.uniform(1, 3));
      d.n_kx = std::uint32_t(r.uniform(1, 3));
      d.n_c = 1;
      d.n_cy = std::uint32_t(r.uniform(1, 2));
      d.n_cx = 1;
    }
    d.pool_sy = std::uint32_t(deep ? r.uniform(200, 255) : r.chance(0.85) ? r.uniform(1, 3) : r.uniform(1, 255));
    d.lane_stride = std::uint32_t(far ? r.uniform(150, 255) : r.chance(0.85) ? r.uniform(1, 3) : r.uniform(1, 255));
    pr.long_walk = far || deep;
    if (pr.long_walk) {  // mostly average (the divisor of the far windows is 0), else argmax (padding) or any
      const int kw = r.uniform(0, 99);
      if (kw < 90) d.pool_op = unsigned(kw < 80 ? PoolOp::Average : PoolOp::Argmax);
    }
    if (force_op >= 0) d.pool_op = unsigned(force_op);
    // The masked sum of the backward pass (section 16, "Backward of max pooling"): mostly a ky x 2kx
    // window at lane stride 2 over a pair tile (index columns even).
    const char* layout = "";
    if (pr.masked() && !pr.long_walk && r.chance(0.7)) {
      layout = " pairs";
      d.n_kx = 2 * std::uint32_t(r.chance(0.9) ? r.uniform(1, 5) : r.uniform(6, 128));
      if (d.n_ky * d.n_kx > 4096) d.n_ky = std::uint32_t(r.uniform(1, 3));
      d.lane_stride = 2;
    }
    if (pr.divides() || pr.argmax()) d.pack_w = d.pack_r = 0;
    if (pr.avg() || pr.masked()) d.pool_ky = d.pool_kx = d.pool_sx = 0;  // the data window's
    if (pr.argmax()) {
      // The divisor window's sides are not read (at most 256: the start's checks); its column
      // stride, when not 0, places the windows of the padding.
      d.pool_ky = std::uint32_t(r.uniform(0, 256));
      d.pool_kx = std::uint32_t(r.uniform(0, 256));
      const int k_sx = r.uniform(0, 99);
      d.pool_sx = std::uint32_t(k_sx < 75 ? 0 : k_sx < 85 ? d.lane_stride : k_sx < 97 ? r.uniform(1, 4) : r.uniform(1, 255));
    }
    if (far)  // the last contexts' lanes start past column 65535
      d.n_cx = std::uint32_t(65536 / (rows_ * int(d.lane_stride)) + r.uniform(1, 3));
    if (deep)  // the last contexts' windows start past row 65535
      d.n_cy = std::uint32_t(65536 / int(d.pool_sy) + r.uniform(1, 3));
    // The tile: just covers the windows (give or take), or ends early (lanes past the output width).
    const std::int64_t need_h = std::int64_t(d.n_cy - 1) * d.pool_sy + d.n_ky;
    const std::int64_t need_w = (std::int64_t(d.n_cx) * rows_ - 1) * d.lane_stride + d.n_kx;
    std::int64_t ht = std::max<std::int64_t>(1, need_h + r.uniform(-2, 2));
    std::int64_t wt = std::max<std::int64_t>(1, need_w + r.uniform(-2, 2));
    if (r.chance(0.25)) wt = r.uniform64(1, std::uint64_t(wt));
    if (r.chance(0.1)) ht = r.uniform64(1, std::uint64_t(ht));
    // The data rectangle: the whole tile, or inside it (the LOAD's padding at the tile's edges).
    pr.dy0 = 0, pr.dy1 = ht, pr.dx0 = 0, pr.dx1 = wt;
    if (r.chance(0.4)) {
      pr.dy0 = r.uniform64(0, std::uint64_t(std::min<std::int64_t>(ht - 1, 4)));
      pr.dy1 = ht - std::int64_t(r.uniform64(0, std::uint64_t(std::min<std::int64_t>(ht - 1 - pr.dy0, 4))));
      pr.dx0 = r.uniform64(0, std::uint64_t(std::min<std::int64_t>(wt - 1, 4)));
      pr.dx1 = wt - std::int64_t(r.uniform64(0, std::uint64_t(std::min<std::int64_t>(wt - 1 - pr.dx0, 4))));
    }
    // The LOAD's pad value: the max's lowest value (argmax: now and then anything, as the counted
    // range decides, not the value), the average's 0, the masked sum's 0 or 0xFFFF (the pair
    // tile's fill: no pair number).
    pr.pad_value = pad_of(arith_, pr.divides());
    if (pr.argmax() && r.chance(0.3)) pr.pad_value = elem_t(r.bits(16) & elem_mask(arith_));
    if (pr.masked() && r.chance(0.5)) pr.pad_value = elem_t(0xFFFF & elem_mask(arith_));
    const char* range = "-";
    const char* divisor_window = "data window";
    if (pr.divides()) {
      range = divisor_range(pr, ht, wt);
      // The far windows' starts would fall inside the range if they wrapped at 2^16.
      if (far && r.chance(0.8)) d.pool_x1 = 65535;
      if (deep && r.chance(0.8)) d.pool_y1 = 65535;
      // The backward pass's divisor windows (section 16, "Backward"): shares (1 x 1 windows divided
      // by a larger window's count) and sums (windows of up to 1024 elements divided by 1); the
      // masked sum's gather: mostly a 1 x 1 divisor window.
      const int w = pr.masked() ? (r.chance(0.6) ? 20 : r.chance(0.5) ? 35 : r.uniform(0, 99)) : r.uniform(0, 99);
      if (pr.masked() && !pr.long_walk && w >= 30 && w < 40) {
        // A small divisor window (divisors 0 .. 6): below the selected values now and then.
        divisor_window = "small";
        d.pool_ky = std::uint32_t(r.uniform(1, 2));
        d.pool_kx = std::uint32_t(r.uniform(1, 3));
        d.pool_sx = std::uint32_t(r.chance(0.5) ? 0 : r.uniform(1, 4));
      } else if (!pr.long_walk && w < 15) {
        divisor_window = "shares";
        d.n_ky = d.n_kx = 1;
        if (pr.masked()) d.n_kx = 2;  // one pair
        d.pool_ky = std::uint32_t(r.chance(0.9) ? r.uniform(1, 7) : r.uniform(1, 256));
        d.pool_kx = std::uint32_t(r.chance(0.9) ? r.uniform(1, 7) : r.uniform(1, 256));
        d.pool_sx = std::uint32_t(r.chance(0.85) ? r.uniform(1, 4) : r.uniform(1, 255));
      } else if (!pr.long_walk && w < 30 && d.n_ky * d.n_kx <= (pr.masked() ? 4096u : 1024u)) {
        divisor_window = "sums";
        d.pool_ky = d.pool_kx = 1;
        d.pool_sx = std::uint32_t(r.chance(0.5) ? 0 : pr.masked() && r.chance(0.8) ? r.uniform(1, 2) : r.uniform(1, 255));
      }
    } else if (pr.argmax()) {
      range = argmax_range(pr, ht, wt);
      if (far && r.chance(0.8)) d.pool_x1 = 65535;
      if (deep && r.chance(0.8)) d.pool_y1 = 65535;
    } else {
      d.pool_y0 = r.bits(8), d.pool_x0 = r.bits(8);  // a max RUN ignores them
      d.pool_y1 = r.bits(16), d.pool_x1 = r.bits(16);
    }
    draw_values(pr);
    pr.what = fmt::format("{}{} {} (n_c {} n_cy {} n_cx {} n_ky {} n_kx {} sy {} ls {}; tile {}x{}, "
                          "data [{},{})x[{},{}) pad {:#x}, range [{},{})x[{},{}) {}, {} ({} x {}, sx {}); {}{})",
                          op_label(pr), layout, shape, d.n_c, d.n_cy, d.n_cx, d.n_ky, d.n_kx, d.pool_sy,
                          d.lane_stride, ht, wt, pr.dy0, pr.dy1, pr.dx0, pr.dx1, pr.pad_value, d.pool_y0, d.pool_y1,
                          d.pool_x0, d.pool_x1, range, divisor_window, d.pool_ky, d.pool_kx, d.pool_sx,
                          flavor_name(pr.flavor), pr.masked() ? fmt::format(", hits {} per mille", pr.hit_pm) : "");
    return pr;
  }

  static const char* op_label(const PoolRun& pr) {
    return pr.avg() ? "avg" : pr.argmax() ? "argmax" : pr.masked() ? "masked" : "max";
  }

  // The directed RUNs: average windows of 256 x 256 elements (the divisor 65536, the widest exact
  // sum) of the largest magnitudes of each sign, and one clipped to a single row by the divisor.
  std::vector<PoolRun> directed() {
    std::vector<PoolRun> v;
    const int n = long_ ? 3 : 1;
    for (int i = 0; i < n; ++i) {
      PoolRun pr;
      RunDesc& d = pr.run;
      junk_fields(d);
      d.pool_op = unsigned(PoolOp::Average);
      d.preload = false;
      d.n_kg = 1;
      d.pack_w = d.pack_r = 0;
      d.pool_ky = d.pool_kx = d.pool_sx = 0;
      d.n_c = d.n_cy = d.n_cx = 1;
      d.n_ky = d.n_kx = 256;
      d.pool_sy = 1;
      d.lane_stride = std::uint32_t(r.uniform(1, 2));
      pr.dy0 = pr.dx0 = 0;
      pr.dy1 = 256;
      pr.dx1 = std::int64_t(rows_ - 1) * d.lane_stride + 256;
      d.pool_y0 = d.pool_x0 = 0;
      if (i == 2) pr.dy1 = 1;  // the third (--long): data and divisor in row 0 only, 256 per lane
      d.pool_y1 = std::uint32_t(pr.dy1);
      d.pool_x1 = std::uint32_t(pr.dx1);
      pr.flavor = Flavor::big;
      pr.negative = i == 1;
      pr.seed = r.bits(64);
      pr.directed = true;
      pr.what = fmt::format("directed avg 256 x 256 ({}, divisor rows [0,{}))", pr.negative ? "negative" : "positive",
                            d.pool_y1);
      v.push_back(pr);
    }
    // Argmax windows of 255 x 256 elements (65280, the longest with sides of at most 256): the
    // counted range cuts the first 3 columns (lane 0's first elements are padding), or (--long)
    // keeps only the windows' last row (results below 256). Masked sum (--long): 256 x 256 elements,
    // 32768 pairs (window positions to 65535), at lane stride 2 with a 1 x 1 divisor window.
    for (int i = 0; i < 3; ++i) {
      if (!long_ && (i > 0 || seed_bit_ % 2 == 0)) continue;  // the default run: the first, for half the seeds
      PoolRun pr;
      RunDesc& d = pr.run;
      junk_fields(d);
      d.preload = false;
      d.n_kg = 1;
      d.pack_w = d.pack_r = 0;
      d.pool_ky = d.pool_kx = 1;
      d.pool_sx = 0;
      d.n_c = d.n_cy = d.n_cx = 1;
      d.pool_sy = 1;
      d.lane_stride = std::uint32_t(i == 2 ? 2 : r.uniform(1, 2));
      d.pool_op = unsigned(i == 2 ? PoolOp::MaskedSum : PoolOp::Argmax);
      d.n_ky = i == 2 ? 256 : 255;
      d.n_kx = 256;
      pr.dy0 = pr.dx0 = 0;
      pr.dy1 = d.n_ky;
      pr.dx1 = std::int64_t(rows_ - 1) * d.lane_stride + 256;
      d.pool_y0 = i == 1 ? 254 : 0;
      d.pool_x0 = i == 0 ? 3 : 0;
      d.pool_y1 = i == 1 ? 65535 : std::uint32_t(pr.dy1);
      d.pool_x1 = std::uint32_t(pr.dx1);
      pr.flavor = i == 2 ? Flavor::finite : Flavor::tiny;
      pr.pad_value = pad_of(arith_, i == 2);
      pr.hit_pm = 950;
      pr.seed = r.bits(64);
      pr.directed = true;
      pr.what = fmt::format("directed {} {} x 256, range [{},{})x[{},{})", op_label(pr), d.n_ky, d.pool_y0, d.pool_y1,
                            d.pool_x0, d.pool_x1);
      v.push_back(pr);
    }
    // Short walks past 16 bits (random RUNs reach them too, but not in every run of 300): an
    // argmax whose last lanes start past column 65535 and an average whose last contexts start past
    // row 65535, in ranges to 65535.
    for (const bool far : {true, false}) {
      PoolRun pr = random_run(int(far ? PoolOp::Argmax : PoolOp::Average), far ? 93 : 98);
      (far ? pr.run.pool_x1 : pr.run.pool_y1) = 65535;
      ++(far ? pr.run.n_cx : pr.run.n_cy);  // one more context: its windows start past 65535 (the tile's padding)
      if (far) pr.run.pool_sx = 0;          // the padding's windows where the data's are
      pr.what = "directed: " + pr.what + (far ? ", to column 65535" : ", to row 65535");
      v.push_back(pr);
    }
    return v;
  }

  // RUN fields a pooling unit does not read: any value of their widths.
  void junk_fields(RunDesc& d) {
    d.ifmap_buf = std::uint8_t(r.bits(1));
    d.weight_buf = std::uint8_t(r.bits(1));
    d.psum_buf = std::uint8_t(r.bits(1));
    d.step_cx = std::uint32_t(r.bits(24));
    d.step_cy = std::uint32_t(r.bits(24));
    d.step_c = std::uint32_t(r.bits(24));
    d.step_ky = std::uint32_t(r.bits(24));
    d.region = std::uint32_t(r.bits(16));
    d.pattern = r.bits(64);
    d.n_kxc = std::uint32_t(r.bits(16));
    d.step_kxc = std::uint32_t(r.bits(24));
    d.region_kxc = std::uint32_t(r.bits(16));
    d.pattern_kxc = r.bits(64);
    d.pack_w = std::uint32_t(r.bits(16));
    d.pack_r = std::uint32_t(r.bits(16));
    d.pack_jump = std::uint32_t(r.bits(24));
    d.pool_sy = std::uint32_t(r.bits(8));
    d.pool_y0 = std::uint32_t(r.bits(8));
    d.pool_x0 = std::uint32_t(r.bits(8));
    d.pool_y1 = std::uint32_t(r.bits(16));
    d.pool_x1 = std::uint32_t(r.bits(16));
    d.pool_ky = std::uint32_t(r.bits(9));
    d.pool_kx = std::uint32_t(r.bits(9));
    d.pool_sx = std::uint32_t(r.bits(8));
  }

  // The RUN fields on run_i in a cycle without start: anything.
  RunDesc junk_run() {
    RunDesc d;
    junk_fields(d);
    d.pool_op = std::uint32_t(r.bits(3));
    d.preload = r.chance(0.5);
    for (std::uint32_t RunDesc::*f :
         {&RunDesc::n_kg, &RunDesc::n_cy, &RunDesc::n_cx, &RunDesc::n_c, &RunDesc::n_ky, &RunDesc::n_kx})
      d.*f = std::uint32_t(r.bits(16));
    d.lane_stride = std::uint32_t(r.bits(8));
    return d;
  }

private:
  // The average's divisor range and, inside it, the data: the tile's data (count_include_pad off),
  // a range around the data reaching into the padding or past the tile (count_include_pad), or a
  // random range (empty, far past the tile, clipping windows to nothing) with the data cut to it.
  const char* divisor_range(PoolRun& pr, std::int64_t ht, std::int64_t wt) {
    RunDesc& d = pr.run;
    const int k = r.uniform(0, 99);
    const char* what;
    auto clamp_start = [](std::int64_t v) { return std::uint32_t(std::clamp<std::int64_t>(v, 0, 255)); };
    auto clamp_end = [](std::int64_t v) { return std::uint32_t(std::clamp<std::int64_t>(v, 0, 65535)); };
    if (k < 45) {  // the data
      what = "data";
      d.pool_y0 = clamp_start(pr.dy0), d.pool_x0 = clamp_start(pr.dx0);
      d.pool_y1 = clamp_end(pr.dy1), d.pool_x1 = clamp_end(pr.dx1);
    } else if (k < 70) {  // the data and some padding, perhaps past the tile
      what = "around";
      d.pool_y0 = clamp_start(pr.dy0 - r.uniform(0, 3)), d.pool_x0 = clamp_start(pr.dx0 - r.uniform(0, 3));
      d.pool_y1 = clamp_end(pr.dy1 + (r.chance(0.8) ? r.uniform(0, 3) : r.uniform(0, 65535)));
      d.pool_x1 = clamp_end(pr.dx1 + (r.chance(0.8) ? r.uniform(0, 3) : r.uniform(0, 65535)));
    } else {  // anything
      what = "random";
      auto start = [&](std::int64_t extent) {
        const int s = r.uniform(0, 9);
        if (s < 4) return std::uint32_t(0);
        if (s < 8) return std::uint32_t(r.uniform64(0, std::uint64_t(std::min<std::int64_t>(extent, 255))));
        return std::uint32_t(r.uniform(0, 255));
      };
      auto end = [&](std::int64_t extent) {
        const int s = r.uniform(0, 9);
        if (s < 2) return std::uint32_t(r.uniform(0, 3));
        if (s < 7) return std::uint32_t(r.uniform64(0, std::uint64_t(std::min<std::int64_t>(extent + 3, 65535))));
        return std::uint32_t(s < 9 ? 65535 : r.uniform(0, 65535));
      };
      d.pool_y0 = start(ht), d.pool_x0 = start(wt);
      d.pool_y1 = end(ht), d.pool_x1 = end(wt);
    }
    // The data lies inside the range.
    pr.dy0 = std::max<std::int64_t>(pr.dy0, d.pool_y0);
    pr.dy1 = std::min<std::int64_t>(pr.dy1, d.pool_y1);
    pr.dx0 = std::max<std::int64_t>(pr.dx0, d.pool_x0);
    pr.dx1 = std::min<std::int64_t>(pr.dx1, d.pool_x1);
    return what;
  }

  // The argmax's counted range, independent of the data: the data rectangle, the data give or take
  // a few rows and columns (data outside it is padding, pad values inside it count), or anything.
  const char* argmax_range(PoolRun& pr, std::int64_t ht, std::int64_t wt) {
    RunDesc& d = pr.run;
    auto clamp_start = [](std::int64_t v) { return std::uint32_t(std::clamp<std::int64_t>(v, 0, 255)); };
    auto clamp_end = [](std::int64_t v) { return std::uint32_t(std::clamp<std::int64_t>(v, 0, 65535)); };
    const int k = r.uniform(0, 99);
    if (k < 40) {
      d.pool_y0 = clamp_start(pr.dy0), d.pool_x0 = clamp_start(pr.dx0);
      d.pool_y1 = clamp_end(pr.dy1), d.pool_x1 = clamp_end(pr.dx1);
      return "data";
    }
    if (k < 70) {
      d.pool_y0 = clamp_start(pr.dy0 + r.uniform(-3, 3)), d.pool_x0 = clamp_start(pr.dx0 + r.uniform(-3, 3));
      d.pool_y1 = clamp_end(pr.dy1 + r.uniform(-3, 3)), d.pool_x1 = clamp_end(pr.dx1 + r.uniform(-3, 3));
      return "near the data";
    }
    d.pool_y0 = std::uint32_t(r.chance(0.5) ? 0 : r.uniform64(0, std::uint64_t(std::min<std::int64_t>(ht, 255))));
    d.pool_x0 = std::uint32_t(r.chance(0.5) ? 0 : r.uniform64(0, std::uint64_t(std::min<std::int64_t>(wt, 255))));
    const auto end = [&](std::uint32_t start, std::int64_t extent) {
      if (r.chance(0.2)) return std::uint32_t(65535);
      if (r.chance(0.1)) return std::uint32_t(r.uniform(0, int(start)));  // empty
      return std::uint32_t(r.uniform64(start, std::uint64_t(std::clamp<std::int64_t>(extent + 3, start, 65535))));
    };
    d.pool_y1 = end(d.pool_y0, ht);
    d.pool_x1 = end(d.pool_x0, wt);
    return "random";
  }

  void draw_values(PoolRun& pr) {
    pr.flavor = r.pick({Flavor::corners, Flavor::corners, Flavor::finite, Flavor::finite, Flavor::tiny, Flavor::big,
                        Flavor::zeros, Flavor::mirror});
    if (pr.argmax() && r.chance(0.35)) pr.flavor = Flavor::ties;
    pr.special_pm = r.pick({0, 2, 10, 60});
    pr.negative = r.chance(0.5);
    pr.hit_pm = r.pick({0, 300, 700, 950, 1000});
  }

  elem_t value(const PoolRun& pr, HashDraw h) const {
    return arith_ == Arithmetic::fp16 ? half(pr, h) : integer(pr, h);
  }

  elem_t half(const PoolRun& pr, HashDraw h) const {
    const elem_t sign = elem_t(h.bits(1) << 15);
    switch (pr.flavor) {
      case Flavor::corners: return half_corner(h, sign, pr.special_pm);
      case Flavor::finite:
      case Flavor::mirror: return half_corner(h, sign, 0);
      case Flavor::big: {  // 32768 .. 65504 of the RUN's sign (the directed RUNs: all 65504)
        const elem_t s = pr.negative ? 0x8000 : 0;
        return pr.directed ? elem_t(s | 0x7BFF) : elem_t(s | h.uniform(0x7800, 0x7BFF));
      }
      case Flavor::tiny: {  // subnormals and zeros, now and then the smallest normals
        if (h.uniform(0, 9) == 0) return elem_t(sign | h.uniform(0x0400, 0x07FF));
        return elem_t(sign | h.bits(10));
      }
      case Flavor::zeros: {  // zeros of both signs among negatives
        const int k = h.uniform(0, 9);
        if (k < 6) return sign;
        if (k < 8) return elem_t(0x8000 | h.uniform(1, 0x7BFF));
        if (k < 9) return 0xFC00;
        return elem_t(0x8000 | h.uniform(1, 0x3FF));
      }
      case Flavor::ties: {  // a few values, so that equal ones (and +0 / -0) meet; NaNs per special_pm
        if (h.uniform(0, 999) < pr.special_pm) return h.uniform(0, 1) ? elem_t(0x7E00) : elem_t(0xFC00 | h.uniform(1, 0x3FF));
        const elem_t v[] = {0x0000, 0x8000, 0x0000, 0x8000, 0x3C00, 0xBC00, 0x7C00, 0xFC00, 0x0001, 0x8001};
        return v[h.uniform(0, 9)];
      }
    }
    return 0;
  }
  static elem_t half_corner(HashDraw& h, elem_t sign, int special_pm) {
    if (h.uniform(0, 999) < special_pm) {
      const int k = h.uniform(0, 3);
      if (k < 2) return elem_t(sign | 0x7C00);                         // infinity
      if (k < 3) return 0x7E00;                                        // canonical NaN
      return elem_t(sign | 0x7C00 | h.uniform(1, 0x3FF));              // NaN, any payload
    }
    const int k = h.uniform(0, 99);
    if (k < 10) return sign;                                           // +-0
    if (k < 20) return elem_t(sign | h.uniform(1, 0x3FF));             // subnormal
    if (k < 24) return elem_t(sign | 0x7BFF);                          // max normal
    if (k < 27) return elem_t(sign | 0x0400);                          // min normal
    if (k < 50) return elem_t(sign | (h.uniform(1, 30) << 10) | h.bits(10));  // any normal
    return elem_t(sign | (h.uniform(13, 17) << 10) | h.bits(10));      // around 1
  }

  elem_t integer(const PoolRun& pr, HashDraw h) const {
    const int ew = arith_ == Arithmetic::int8 ? 8 : 16;
    const std::uint32_t mask = (1u << ew) - 1, min = 1u << (ew - 1), max = min - 1;
    std::uint32_t v = 0;
    switch (pr.flavor) {
      case Flavor::corners:
      case Flavor::finite:
      case Flavor::mirror: {
        const int k = h.uniform(0, 99);
        if (k < 15) v = 0;
        else if (k < 25) v = min;
        else if (k < 35) v = max;
        else if (k < 45) v = std::uint32_t(h.uniform(-3, 3)) & mask;
        else v = h.bits(ew);
        break;
      }
      case Flavor::big:
        v = pr.negative ? min + (pr.directed ? 0 : std::uint32_t(h.uniform(0, 3)))
                        : max - (pr.directed ? 0 : std::uint32_t(h.uniform(0, 3)));
        break;
      case Flavor::tiny: v = std::uint32_t(h.uniform(-3, 3)) & mask; break;
      case Flavor::zeros: v = h.uniform(0, 9) < 3 ? min : (std::uint32_t(-h.uniform(0, 1000)) & mask); break;
      case Flavor::ties: {
        const std::uint32_t t[] = {0, 0, 1, 1, mask, min, max};
        v = t[h.uniform(0, 6)];
        break;
      }
    }
    return elem_t(v);
  }

  Arithmetic arith_;
  int rows_;
  bool long_;
  std::uint64_t seed_bit_;
};

// ---------------------------------------------------------------------------------------------
// The run, the same for every view. A view offers:
//   drive(in)     the inputs of this cycle (reset included);   settle()  applies them without an edge;
//   out()         pool_ready_o, res_valid_o, res_word_o;        edge()    one rising clock edge;
//   fault()       an assertion fired (RTL);                     kAsyncReset  reset acts before the edge;
//   windows(n)    the core's window count since reset, if the view has it;
//   expect_refusals_begin/end(), offer_once(in)  directed protocol errors: whether refused.

struct UnitIn {
  bool rst_n = true, start = false, pop = false;
  RunDesc run;
  elem_t lanes[kMaxRows] = {};
};

struct UnitOut {
  bool ready = false, valid = false;
  acc_t words[kMaxRows] = {};
};

struct Figures {
  std::uint64_t cycles = 0, runs = 0, max_runs = 0, avg_runs = 0, conv_runs = 0, directed = 0, windows = 0,
                lane_windows = 0, elements = 0, stalls = 0, bubbles = 0, avoided = 0, junk_pops = 0,
                back_to_back = 0, resets = 0, cut = 0, count0 = 0, count_full = 0, count_short = 0, far = 0, deep = 0,
                longest = 0, nan = 0, inf = 0, zero = 0, refusals = 0, share_windows = 0, sum_windows = 0,
                shift_windows = 0, divide_windows = 0;
  // Argmax: RUNs; lane windows, with some padding, without a valid element (0xFFFF), won by a NaN,
  // won after padding, in a lane past column 65535 (a range to 65535). Masked sum: RUNs; lane
  // windows, pairs, selected values, a divisor of 0, sums (divisor 1, several values), divisors in
  // (1, selected values) (exact_average), other divisors above 1.
  std::uint64_t argmax_runs = 0, arg_windows = 0, arg_padded = 0, arg_none = 0, arg_nan = 0, arg_after_pad = 0,
                arg_far = 0, masked_runs = 0, masked_windows = 0, masked_pairs = 0, masked_selected = 0,
                masked_count0 = 0, masked_sum = 0, masked_below = 0, masked_divided = 0;
};

template <class View>
class Bench {
public:
  Bench(View& v, const HwParams& p, std::uint64_t seed, bool long_run, tb::MismatchLog& log, Figures& fig)
      : v_(v), arith_(p.arithmetic), rows_(p.rows), d_(divider_cycles(p.arithmetic)), gen_(p, seed, long_run),
        log_(log), fig_(fig) {}

  void run(std::uint64_t n_runs) {
    std::vector<PoolRun> directed = gen_.directed();
    std::uint64_t started = 0;
    reset_cycles(3);
    enum class Phase { gap, pooling, conv } phase = Phase::gap;
    int gap = gen_.r.uniform(0, 3), conv_left = 0;
    double bubble_rate = 0.0;
    PoolRun pr;
    std::uint64_t end_cycle = 0;  // the cycle after the unit took the last RUN's last element
    while (log_.errors() < std::uint64_t(tb::MismatchLog::kMaxReported)) {
      log_.at(c_);
      if (c_ > 0) check_out();
      if (v_.fault()) log_.fail("an RTL assertion fired (message above)");
      // A reset now and then, anywhere (inside a RUN it is cut), but not inside a directed RUN (one
      // of 65536-element windows would rarely survive) or a long walk to the far contexts.
      if (c_ > 3 && !(phase == Phase::pooling && (pr.directed || pr.long_walk)) && gen_.r.uniform(0, 29999) == 0) {
        if (phase == Phase::pooling) ++fig_.cut;
        reset_cycles(gen_.r.uniform(1, 2));
        phase = Phase::gap;
        gap = gen_.r.uniform(0, 5);
        continue;
      }
      UnitIn in = junk_inputs();
      // The next RUN, once the previous one has left the unit (or the convolution has ended).
      if (phase == Phase::gap && gap > 0) {
        --gap;
      } else if (phase == Phase::gap) {
        const bool more = started < n_runs || !directed.empty();
        if (!more) break;
        const bool take_directed = !directed.empty() && (started >= n_runs || gen_.r.chance(0.005));
        if (take_directed) {
          pr = directed.back();
          directed.pop_back();
          ++fig_.directed;
        } else {
          pr = gen_.random_run();
          ++started;
        }
        in.start = true;
        in.run = pr.run;
        ++fig_.runs;
        if (!pr.run.pooling()) {
          ++fig_.conv_runs;
          phase = Phase::conv;
          conv_left = pr.conv_cycles;
        } else {
          ++(pr.avg() ? fig_.avg_runs : pr.argmax() ? fig_.argmax_runs : pr.masked() ? fig_.masked_runs : fig_.max_runs);
          phase = Phase::pooling;
          if (end_cycle == c_) ++fig_.back_to_back;
          bubble_rate = gen_.r.pick({0.0, 0.0, 0.1, 0.5, 0.9});
        }
        log_.note("start: {}", pr.what);
      } else if (phase == Phase::conv) {
        if (--conv_left == 0) {
          phase = Phase::gap;
          gap = gen_.r.uniform(0, 3);
        }
      }
      // The issue stage: pops while the unit is active, with bubbles, only while it is ready.
      const bool ready = model_ready();
      if (m_.active) {
        bool pop = !gen_.r.chance(bubble_rate);
        if (!pop) ++fig_.bubbles;
        if (pop && !ready) {
          pop = false;
          ++fig_.stalls;
        }
        // One result port per lane: a max or argmax window must not end in the cycle the divider
        // takes its last step (only such a RUN started right after an average or masked-sum one
        // could); the bench waits.
        if (pop && !m_.avg && m_.j + 1 == m_.len && std::int64_t(c_) == m_.div_end) {
          pop = false;
          ++fig_.avoided;
        }
        if (pop) {
          in.pop = true;
          for (int l = 0; l < rows_; ++l) in.lanes[l] = gen_.elem(pr, m_.c, m_.cy, m_.cx, l, m_.j);
        }
      } else if (gen_.r.chance(phase == Phase::conv ? 0.5 : 0.05)) {
        in.pop = true;  // a convolution's pops (or junk): the inactive unit ignores them
        ++fig_.junk_pops;
      }
      v_.drive(in);
      v_.settle();
      log_.expect("pool_ready_o", v_.out().ready, ready);
      if (in.pop && m_.active) {
        take(pr, end_cycle);
        if (!m_.active) {  // the RUN's last element: the next RUN may start in the next cycle
          phase = Phase::gap;
          gap = gen_.r.pick({0, 0, 1, 2, 5, 20, 45});
        }
      }
      if (in.start) load(in.run);
      v_.edge();
      ++c_;
    }
    // Drain: the results still owed, with the inputs idle.
    for (int i = 0; i < d_ + 2 && log_.ok(); ++i) {
      UnitIn in = junk_inputs();
      v_.drive(in);
      v_.settle();
      log_.expect("pool_ready_o", v_.out().ready, model_ready());
      v_.edge();
      ++c_;
      log_.at(c_);
      check_out();
      if (v_.fault()) log_.fail("an RTL assertion fired (message above)");
    }
    log_.expect_true(owed_.empty(), fmt::format("{} results never came", owed_.size()));
    std::uint64_t got = 0;
    if (v_.windows(got)) log_.expect("windows() since the last reset", got, windows_);
    if (log_.ok()) refusals();
    fig_.cycles += c_;
  }

private:
  // The unit's registers as the spec has them (section 16): the walk, and the cycle of the
  // divider's last step (div_left_q > 1 exactly in the cycles before it).
  struct Model {
    bool active = false, avg = false;
    std::uint32_t len = 1, j = 0, c = 0, cx = 0, cy = 0, n_c = 1, n_cx = 1, n_cy = 1;
    std::int64_t div_end = -1;
  };
  bool model_ready() const { return !(m_.avg && m_.j + 1 == m_.len && std::int64_t(c_) < m_.div_end); }

  // The RUN's registers load at the edge of a start.
  void load(const RunDesc& d) {
    m_.active = d.pooling();
    m_.avg = d.pool_op == unsigned(PoolOp::Average) || d.pool_op == unsigned(PoolOp::MaskedSum);  // the divider
    m_.len = d.n_ky * d.n_kx;
    m_.n_c = d.n_c, m_.n_cx = d.n_cx, m_.n_cy = d.n_cy;
    m_.j = m_.c = m_.cx = m_.cy = 0;
  }

  // The unit takes one element per lane this cycle.
  void take(const PoolRun& pr, std::uint64_t& end_cycle) {
    fig_.elements += std::uint64_t(rows_);
    if (m_.j + 1 < m_.len) {
      ++m_.j;
      return;
    }
    // The window's last element: its results are owed 1 (max, argmax) or D + 1 (average, masked sum)
    // cycles on, D one when every lane's divisor is 0 or a power of two (the lanes shift).
    int d = d_;
    if (m_.avg) {
      bool shift = true;
      for (int l = 0; l < rows_; ++l) {
        const std::uint32_t n = divisor(pr.run, l);
        shift = shift && (n & (n - 1)) == 0;
      }
      if (shift) d = 1;
      ++(shift ? fig_.shift_windows : fig_.divide_windows);
    }
    owe(pr, c_ + (m_.avg ? std::uint64_t(d) + 1 : 1));
    if (m_.avg) m_.div_end = std::int64_t(c_) + d;
    m_.j = 0;
    if (++m_.c < m_.n_c) return;
    m_.c = 0;
    if (++m_.cx < m_.n_cx) return;
    m_.cx = 0;
    if (++m_.cy < m_.n_cy) return;
    m_.cy = 0;
    m_.active = false;
    end_cycle = c_ + 1;
  }

  // The divisor of lane `lane` (section 16, "The divisor"), in 64-bit arithmetic: the positions of
  // the divisor window (pool_ky x pool_kx, lanes pool_sx apart; the data window's sides and
  // lane_stride where those are 0) inside the counted range.
  std::uint32_t divisor(const RunDesc& d, int lane) const {
    auto overlap = [](std::int64_t s, std::int64_t n, std::int64_t lo, std::int64_t hi) {
      return std::max<std::int64_t>(0, std::min(s + n, hi) - std::max(s, lo));
    };
    const std::int64_t wy = d.pool_ky == 0 ? d.n_ky : d.pool_ky;
    const std::int64_t wx = d.pool_kx == 0 ? d.n_kx : d.pool_kx;
    const std::int64_t sx = d.pool_sx == 0 ? d.lane_stride : d.pool_sx;
    const std::int64_t ys = std::int64_t(m_.cy) * d.pool_sy;
    const std::int64_t xs = (std::int64_t(m_.cx) * rows_ + lane) * sx;
    return std::uint32_t(overlap(ys, wy, d.pool_y0, d.pool_y1) * overlap(xs, wx, d.pool_x0, d.pool_x1));
  }

  // Argmax (section 16, "Backward of max pooling"): the element at window position (a, b) (j = a *
  // n_kx + b) is padding unless tile row cy * pool_sy + a and column (cx * ROWS + lane) * sx + b
  // lie in [pool_y0, pool_y1) x [pool_x0, pool_x1), sx being pool_sx or, when 0, lane_stride (the
  // divisor's window origins); the result is argmax_result over the others.
  acc_t expected_argmax(const PoolRun& pr, int lane, const std::vector<ElemBits>& e) {
    const RunDesc& d = pr.run;
    const std::int64_t sx = d.pool_sx == 0 ? d.lane_stride : d.pool_sx;
    const std::int64_t ys = std::int64_t(m_.cy) * d.pool_sy, xs = (std::int64_t(m_.cx) * rows_ + lane) * sx;
    std::vector<bool> pad(e.size());
    int pads = 0;
    for (std::size_t j = 0; j < e.size(); ++j) {
      const std::int64_t y = ys + std::int64_t(j / d.n_kx), x = xs + std::int64_t(j % d.n_kx);
      pad[j] = !(y >= d.pool_y0 && y < d.pool_y1 && x >= d.pool_x0 && x < d.pool_x1);
      pads += pad[j];
    }
    std::int64_t pick = -1;
    const acc_t res = argmax_result(arith_, e, pad, &pick);
    ++fig_.arg_windows;
    fig_.arg_padded += pads > 0 && pick >= 0;
    fig_.arg_none += pick < 0;
    fig_.arg_after_pad += pick > 0 && pad[0];
    if (pick >= 0 && arith_ == Arithmetic::fp16) {
      const elem_t b = e[std::size_t(pick)];
      fig_.arg_nan += (b & 0x7C00) == 0x7C00 && (b & 0x3FF) != 0;
    }
    if (xs > 65535 && d.pool_x1 == 65535) ++fig_.arg_far;
    return res;
  }

  // Masked sum: element 2m an index, 2m + 1 a value that counts when the index's element bits equal
  // m; the average of those values over the lane's divisor (masked_average).
  acc_t expected_masked(const PoolRun& pr, int lane, const std::vector<ElemBits>& e) {
    const std::uint32_t mask = elem_mask(arith_);
    std::vector<elem_t> sel;
    for (std::size_t m = 0; 2 * m + 1 < e.size(); ++m)
      if ((e[2 * m] & mask) == m) sel.push_back(elem_t(e[2 * m + 1] & mask));
    const std::uint32_t n = divisor(pr.run, lane);
    bool golden_used = true;
    const acc_t res = masked_average(arith_, sel, n, &golden_used);
    ++fig_.masked_windows;
    fig_.masked_pairs += e.size() / 2;
    fig_.masked_selected += sel.size();
    fig_.masked_count0 += n == 0;
    fig_.masked_sum += n == 1 && sel.size() > 1;
    fig_.masked_below += !golden_used;
    fig_.masked_divided += n > 1;
    return res;
  }

  // The result of lane `lane`'s window (channel m_.c of context (m_.cy, m_.cx)): golden::pool of a
  // one-window layer over the elements the lane was fed (argmax, masked sum: above).
  acc_t expected(const PoolRun& pr, int lane) {
    const RunDesc& d = pr.run;
    const std::uint32_t len = d.n_ky * d.n_kx;
    std::vector<ElemBits> e(len);
    for (std::uint32_t j = 0; j < len; ++j) e[j] = gen_.elem(pr, m_.c, m_.cy, m_.cx, lane, j);
    if (pr.argmax()) return expected_argmax(pr, lane, e);
    if (pr.masked()) return expected_masked(pr, lane, e);
    golden::PoolLayer l;
    if (!pr.avg()) {
      // Max: the window of n_ky x n_kx elements, padding fed as the smallest value (it never wins,
      // and a window of padding only gives exactly it, as a window without valid elements does).
      l.op = golden::PoolOp::max;
      l.h = l.ky = int(d.n_ky);
      l.w = l.kx = int(d.n_kx);
      return golden::pool(l, arith_, e).at(0);
    }
    // Average: the exact sum of what was fed over the divisor n. The zeros (the padding among them)
    // add nothing, so the window is the other elements, m <= n of them, followed by n - m positions
    // of declared padding that count_include_pad counts: n window positions, one output.
    const std::uint32_t n = divisor(d, lane);
    // Windows starting past 2^16 in a range ending at 65535 (a start that wrapped would count).
    if ((std::int64_t(m_.cx) * rows_ + lane) * d.lane_stride > 65535 && d.pool_x1 == 65535 && d.pool_y1 > 0) ++fig_.far;
    if (std::int64_t(m_.cy) * d.pool_sy > 65535 && d.pool_y1 == 65535 && d.pool_x1 > 0) ++fig_.deep;
    if (n == 0) ++fig_.count0;
    else if (n == 65536) ++fig_.count_full;
    else if (n < len) ++fig_.count_short;
    l.op = golden::PoolOp::avg;
    if (n == 0) {  // a window position of padding only, not counted: the count of 0
      l.w = 1;
      l.pl = 1;
      l.kx = 1;
      return golden::pool(l, arith_, {0}).at(0);
    }
    std::vector<ElemBits> data;
    for (ElemBits x : e) {
      const ElemBits v = ElemBits(x & elem_mask(arith_));
      if (arith_ == Arithmetic::fp16 ? (v & 0x7FFF) != 0 : v != 0) data.push_back(v);
    }
    if (n == 1 && data.size() > 1) {  // a 1 x 1 divisor window: the backward pass's gather
      ++fig_.sum_windows;
      return golden_exact_sum(arith_, data);
    }
    if (len == 1 && n > 1 && (d.pool_ky > 1 || d.pool_kx > 1)) ++fig_.share_windows;  // its share pass
    if (data.size() > n) {
      log_.fail("bench: {} data elements in a window whose divisor is {}", data.size(), n);
      return 0;
    }
    if (data.empty()) data.push_back(0);
    l.w = int(data.size());
    l.kx = int(n);
    l.pr = int(n) - l.w;
    l.count_include_pad = true;
    return golden::pool(l, arith_, data).at(0);
  }

  void owe(const PoolRun& pr, std::uint64_t at) {
    std::vector<acc_t> words(static_cast<std::size_t>(rows_));
    for (int l = 0; l < rows_; ++l) words[std::size_t(l)] = acc_t(expected(pr, l) & acc_mask(arith_));
    fig_.lane_windows += std::uint64_t(rows_);
    if (!owed_.emplace(at, words).second) log_.fail("bench: two results owed in cycle {}", at);
    ++windows_;
    ++fig_.windows;
    fig_.longest = std::max<std::uint64_t>(fig_.longest, m_.len);
    if (arith_ == Arithmetic::fp16 && !pr.argmax())
      for (acc_t w : words) {
        const acc_t e = w & 0x7FFF;
        fig_.nan += e > 0x7C00;
        fig_.inf += e == 0x7C00;
        fig_.zero += e == 0;
      }
    log_.note("window c {} of context ({}, {}) taken: lane 0 {:#x} owed in cycle {}", m_.c, m_.cy, m_.cx, words[0],
              at);
  }

  // Checks the outputs of cycle c_ against the results owed.
  void check_out() {
    const UnitOut o = v_.out();
    const auto it = owed_.find(c_);
    const bool want = it != owed_.end();
    log_.expect("res_valid_o", o.valid, want);
    if (want && o.valid)
      for (int l = 0; l < rows_; ++l) {
        if (!log_.expect("res_word_o", acc_t(o.words[l] & acc_mask(arith_)), it->second[std::size_t(l)]))
          log_.note("lane {} of {} mismatched", l, rows_);
      }
    if (want) owed_.erase(it);
  }

  UnitIn junk_inputs() {
    UnitIn in;
    in.run = gen_.junk_run();
    for (int l = 0; l < rows_; ++l) in.lanes[l] = elem_t(gen_.r.bits(16) & elem_mask(arith_));
    return in;
  }

  // Reset cycles: the reference forgets the RUN, the windows in flight and the results owed.
  void reset_cycles(int n) {
    for (int i = 0; i < n; ++i) {
      log_.at(c_);
      UnitIn in = junk_inputs();
      in.rst_n = false;
      in.start = gen_.r.chance(0.5);
      in.pop = gen_.r.chance(0.5);
      v_.drive(in);
      log_.note("reset");
      owed_.clear();
      m_ = Model{};
      windows_ = 0;
      ++fig_.resets;
      if (View::kAsyncReset) {  // the registers clear while reset is held, before the edge
        v_.settle();
        log_.expect("res_valid_o in reset", v_.out().valid, false);
        log_.expect("pool_ready_o in reset", v_.out().ready, true);
      }
      v_.edge();
      ++c_;
    }
    log_.at(c_);
    log_.expect("pool_ready_o after reset", v_.out().ready, true);
    log_.expect("res_valid_o after reset", v_.out().valid, false);
  }

  // One legal cycle of the directed cases.
  void step(const UnitIn& in) {
    log_.at(c_);
    v_.drive(in);
    v_.settle();
    v_.edge();
    if (v_.fault()) log_.fail("an RTL assertion fired on a legal input (message above)");
    ++c_;
  }

  // The protocol errors, each refused (core: ProtocolError; module: SC_ERROR; RTL: an assertion).
  void refusals() {
    v_.expect_refusals_begin();
    auto refused = [&](const char* what, const UnitIn& bad) {
      log_.at(c_);
      log_.expect_true(v_.offer_once(bad), fmt::format("directed '{}' was not refused", what));
      ++c_;
      ++fig_.refusals;
    };
    RunDesc avg1;  // an average RUN of two one-element windows, divided by 3 (not a shift)
    avg1.pool_op = unsigned(PoolOp::Average);
    avg1.n_c = 2;
    avg1.pool_y1 = avg1.pool_x1 = 100;
    avg1.pool_kx = 3;
    RunDesc max2 = avg1;  // a max RUN of two windows of four elements
    max2.pool_op = unsigned(PoolOp::Max);
    max2.pool_kx = 0;
    max2.n_ky = max2.n_kx = 2;
    UnitIn start, pop;
    start.start = true;
    pop.pop = true;

    reset_cycles(2);
    start.run = avg1;
    step(start);
    step(pop);  // the first window ends: the divider holds it, the second's only element waits
    v_.settle();
    log_.expect("pool_ready_o with the divider busy", v_.out().ready, false);
    refused("pop while pool_ready_o is low", pop);

    reset_cycles(2);
    start.run = max2;
    step(start);
    step(pop);
    start.run = avg1;
    refused("start while a pooling RUN takes elements", start);

    reset_cycles(2);
    start.run = max2;
    step(start);
    start.run = RunDesc{};  // a convolution RUN
    refused("start of a convolution RUN while a pooling RUN takes elements", start);

    RunDesc masked1 = avg1;  // avg1 as a masked sum (windows of one index element)
    masked1.pool_op = unsigned(PoolOp::MaskedSum);
    RunDesc arg2 = max2;  // max2 as an argmax
    arg2.pool_op = unsigned(PoolOp::Argmax);
    reset_cycles(2);
    start.run = masked1;
    step(start);
    step(pop);
    v_.settle();
    log_.expect("pool_ready_o with the divider busy (masked sum)", v_.out().ready, false);
    refused("pop while pool_ready_o is low (masked sum)", pop);

    reset_cycles(2);
    start.run = arg2;
    step(start);
    step(pop);
    start.run = masked1;
    refused("start while an argmax RUN takes elements", start);

    reset_cycles(2);
    start.run = max2;
    step(start);
    for (int i = 0; i < 7; ++i) step(pop);  // the last element is taken next
    start.run = avg1;
    start.pop = true;
    refused("start in the cycle the RUN's last element is taken", start);
    v_.expect_refusals_end();
    reset_cycles(2);
  }

  View& v_;
  Arithmetic arith_;
  int rows_, d_;
  Stimulus gen_;
  tb::MismatchLog& log_;
  Figures& fig_;
  std::uint64_t c_ = 0;
  Model m_;
  std::map<std::uint64_t, std::vector<acc_t>> owed_;  // cycle -> the ROWS result words
  std::uint64_t windows_ = 0;                         // since the last reset, as the core counts them
};

// ---------------------------------------------------------------------------------------------
// Views

#ifdef FLYCOL_VTOP

// pool_unit.sv, Verilated for one configuration: lane_data_i is ROWS x EW bits, res_word_o ROWS x
// AW, run_i the packed command_t.
class RtlView {
public:
  static constexpr bool kAsyncReset = true;
  RtlView(const HwParams& p, std::uint64_t seed) : p_(p), dut_(seed) {}
  void drive(const UnitIn& in) {
    dut_->rst_ni = in.rst_n;
    dut_->start_i = in.start;
    Command c;
    c.op = Opcode::Run;
    c.run = in.run;
    const std::vector<std::uint32_t> w = rtl::pack_command(c);
    for (std::size_t i = 0; i < w.size(); ++i) dut_->run_i[i] = w[i];
    dut_->pop_i = in.pop;
    for (int l = 0; l < p_.rows; ++l) tb::put_elem(dut_->lane_data_i, l, p_.elem_bits, in.lanes[l]);
  }
  void settle() { dut_->eval(); }
  UnitOut out() {
    UnitOut o;
    o.ready = dut_->pool_ready_o;
    o.valid = dut_->res_valid_o;
    for (int l = 0; l < p_.rows; ++l) o.words[l] = acc_t(tb::get_elem(dut_->res_word_o, l, p_.acc_bits));
    return o;
  }
  void edge() { dut_.edge(); }
  bool fault() { return dut_.fault(); }
  bool windows(std::uint64_t&) const { return false; }
  void expect_refusals_begin() { tb::expect_rtl_assertions("pool_unit_rtl_tb", "directed protocol errors"); }
  void expect_refusals_end() {}
  bool offer_once(const UnitIn& in) {
    drive(in);
    return dut_.refuses_on_edge();
  }

private:
  HwParams p_;
  tb::Dut<FLYCOL_VTOP> dut_;
};

#else

// PoolUnitCore alone: its registered outputs, reset or start + eval + tick at the edge.
class CoreView {
public:
  static constexpr bool kAsyncReset = false;
  explicit CoreView(const HwParams& p) : rows_(p.rows), core_(p) {}
  void drive(const UnitIn& in) { in_ = in; }
  void settle() {}
  UnitOut out() const {
    UnitOut o;
    o.ready = core_.ready();
    o.valid = core_.res_valid();
    for (int l = 0; l < rows_; ++l) o.words[l] = core_.res_word()[l];
    return o;
  }
  void edge() {
    if (!in_.rst_n) {
      core_.reset();
      return;
    }
    if (in_.start) core_.start(in_.run);
    core_.eval(in_.pop, in_.lanes);
    core_.tick();
  }
  bool fault() { return false; }
  bool windows(std::uint64_t& n) const {
    n = core_.windows();
    return true;
  }
  void expect_refusals_begin() {}
  void expect_refusals_end() {}
  bool offer_once(const UnitIn& in) {
    drive(in);
    return tb::throws<ProtocolError>([&] { edge(); });
  }

private:
  int rows_;
  PoolUnitCore core_;
  UnitIn in_;
};

// The PoolUnit SC_MODULE on its own signals and clock. Its reset is synchronous.
class ScView {
public:
  static constexpr bool kAsyncReset = false;
  ScView(const std::string& name, const HwParams& p)
      : rows_(p.rows), dut_(name.c_str(), p), lanes_((name + "_lanes").c_str(), std::size_t(p.rows)),
        words_((name + "_words").c_str(), std::size_t(p.rows)) {
    dut_.clk_i(clk_.clk());
    dut_.rst_ni(rst_n_);
    dut_.start_i(start_);
    dut_.run_i(run_);
    dut_.pop_i(pop_);
    for (int l = 0; l < rows_; ++l) {
      dut_.lane_data_i[std::size_t(l)](lanes_[std::size_t(l)]);
      dut_.res_word_o[std::size_t(l)](words_[std::size_t(l)]);
    }
    dut_.pool_ready_o(ready_);
    dut_.res_valid_o(valid_);
  }
  void drive(const UnitIn& in) {
    rst_n_.write(in.rst_n);
    start_.write(in.start);
    run_.write(FeederRun{in.run});
    pop_.write(in.pop);
    for (int l = 0; l < rows_; ++l) lanes_[std::size_t(l)].write(in.lanes[l]);
  }
  void settle() { tb::ScClock::settle(); }
  UnitOut out() const {
    UnitOut o;
    o.ready = ready_.read();
    o.valid = valid_.read();
    for (int l = 0; l < rows_; ++l) o.words[l] = words_[std::size_t(l)].read();
    return o;
  }
  void edge() { clk_.step(); }
  bool fault() { return false; }
  bool windows(std::uint64_t& n) const {
    n = dut_.core().windows();
    return true;
  }
  void expect_refusals_begin() { tb::expect_sc_errors(dut_.name(), "pool_unit_tb", "directed protocol errors"); }
  void expect_refusals_end() { tb::end_sc_errors(dut_.name()); }
  bool offer_once(const UnitIn& in) {
    return tb::sc_errors_during(dut_.name(), [&] {
             drive(in);
             clk_.step();
           }) == 1;
  }

private:
  int rows_;
  tb::ScClock clk_;
  PoolUnit dut_;
  sc_core::sc_signal<bool> rst_n_, start_, pop_, ready_, valid_;
  sc_core::sc_signal<FeederRun> run_;
  sc_core::sc_vector<sc_core::sc_signal<elem_t>> lanes_;
  sc_core::sc_vector<sc_core::sc_signal<acc_t>> words_;
};

HwParams params_of(const Setup& s) {
  HwParams p;
  p.rows = s.rows;
  p.arithmetic = s.arith;
  p.elem_bits = s.arith == Arithmetic::int8 ? 8 : 16;
  p.acc_bits = s.arith == Arithmetic::fp16 ? 16 : 32;
  return p;
}

#endif

// Coverage goals of a whole run: what the stimulus is there to reach.
template <class Harness>
void coverage(Harness& h, const Figures& f, bool fp16) {
  if (h.errors() != 0) return;
  if (f.stalls == 0) h.fail("coverage: the divider never stalled the issue stage");
  if (f.count0 == 0) h.fail("coverage: no average window clipped to a divisor of 0");
  if (f.count_short == 0) h.fail("coverage: no average window partly outside its divisor range");
  if (f.count_full == 0) h.fail("coverage: no divisor of 65536");
  if (f.far == 0) h.fail("coverage: no average window starting past column 65535 (pool_x1 = 65535)");
  if (f.deep == 0) h.fail("coverage: no average window starting past row 65535 (pool_y1 = 65535)");
  if (f.back_to_back == 0) h.fail("coverage: no pooling RUN started the cycle after the previous left the unit");
  if (f.conv_runs == 0 || f.junk_pops == 0) h.fail("coverage: no pops while the unit is inactive");
  if (f.bubbles == 0) h.fail("coverage: no bubble in a pooling RUN");
  if (fp16 && (f.nan == 0 || f.inf == 0 || f.zero == 0)) h.fail("coverage: no NaN, infinite or zero fp16 result");
  if (f.share_windows == 0) h.fail("coverage: no 1 x 1 window divided by a larger divisor window's count");
  if (f.sum_windows == 0) h.fail("coverage: no window of several elements divided by a 1 x 1 divisor window");
  if (f.shift_windows == 0 || f.divide_windows == 0)
    h.fail("coverage: average windows not both shifted (divisors 0 or 2^k) and divided");
  if (f.arg_padded == 0) h.fail("coverage: no argmax lane window with padding and a valid element");
  if (f.arg_none == 0) h.fail("coverage: no argmax lane window without a valid element");
  if (f.arg_after_pad == 0) h.fail("coverage: no argmax lane window won after padding");
  if (f.arg_far == 0) h.fail("coverage: no argmax lane window past column 65535 (pool_x1 = 65535)");
  if (fp16 && f.arg_nan == 0) h.fail("coverage: no argmax lane window won by a NaN");
  if (f.masked_count0 == 0) h.fail("coverage: no masked-sum lane window with a divisor of 0");
  if (f.masked_sum == 0) h.fail("coverage: no masked-sum lane window of several values divided by 1");
  if (f.masked_divided == 0) h.fail("coverage: no masked-sum lane window with a divisor above 1");
  if (f.masked_selected == 0 || f.masked_selected == f.masked_pairs)
    h.fail("coverage: masked-sum pairs not both selected and not");
}

std::string figures(const Figures& f) {
  const std::string fp16 = f.nan + f.inf + f.zero == 0
                               ? ""
                               : fmt::format(", fp16 lane results {} NaN {} Inf {} +-0", f.nan, f.inf, f.zero);
  return fmt::format("{} cycles, {} RUNs ({} max, {} avg, {} argmax, {} masked, {} convolution, {} directed; {} started "
                     "the cycle after the last), {} windows (longest {}), {} lane elements, average lane divisors: {} "
                     "of 0, {} below the window length, {} of 65536, {} past column 65535 and {} past row 65535 in a "
                     "range to 65535; {} shares (a 1 x 1 window, a larger divisor window) and {} sums (a 1 x 1 divisor "
                     "window); argmax lane windows: {} ({} with padding, {} without a valid element, {} won by a NaN, "
                     "{} won after padding, {} past column 65535); masked-sum lane windows: {} ({} of {} pairs "
                     "selected, {} divisors of 0, {} sums (divisor 1), {} divisors in (1, selected), {} other "
                     "divisors above 1); {} average / masked-sum windows shifted, {} divided; {} divider stall "
                     "cycles, {} bubbles, {} pops ignored while inactive, {} max / argmax ends moved off a divider "
                     "finish{}, {} reset cycles ({} RUNs cut), {} protocol errors refused",
                     f.cycles, f.runs, f.max_runs, f.avg_runs, f.argmax_runs, f.masked_runs, f.conv_runs, f.directed,
                     f.back_to_back, f.windows, f.longest, f.elements, f.count0, f.count_short, f.count_full, f.far,
                     f.deep, f.share_windows, f.sum_windows, f.arg_windows, f.arg_padded, f.arg_none, f.arg_nan,
                     f.arg_after_pad, f.arg_far, f.masked_windows, f.masked_selected, f.masked_pairs, f.masked_count0,
                     f.masked_sum, f.masked_below, f.masked_divided - f.masked_below, f.shift_windows,
                     f.divide_windows, f.stalls, f.bubbles, f.junk_pops, f.avoided, fp16, f.resets, f.cut, f.refusals);
}

}  // namespace

#ifdef FLYCOL_VTOP

int main(int argc, char** argv) {
  tb::BenchMain harness("pool_unit", {"runs", 300, 5000, "random RUNs"});
  if (!harness.parse(argc, argv)) return 2;
  const HwParams& p = harness.params();
  harness.announce("{}, {} rows, {} random RUNs", arith_name(p.arithmetic), p.rows, harness.count());
  Figures fig;
  RtlView view(p, harness.seed());
  harness.run(harness.rtl_view(), [&](tb::MismatchLog& log) {
    Bench<RtlView>(view, p, harness.seed(stream_of(FLYCOL_RTL_CONFIG)), harness.long_run(), log, fig)
        .run(harness.count());
  });
  coverage(harness, fig, p.arithmetic == Arithmetic::fp16);
  return harness.finish(figures(fig));
}

#else

int sc_main(int argc, char* argv[]) {
  tb::BenchMain harness("pool_unit", {"runs", 300, 5000, "random RUNs per parameter set"});
  if (!harness.parse(argc, argv)) return 2;
  harness.announce("{} random RUNs per parameter set", harness.count());
  // Every SC_MODULE exists before the first sc_start; the parameter sets then run one after another.
  std::vector<std::unique_ptr<ScView>> sc_views;
  for (int i = 0; i < kCoreSetups; ++i)
    sc_views.push_back(std::make_unique<ScView>(fmt::format("pool_unit_{}", kSetups[i].tag), params_of(kSetups[i])));
  Figures fig;
  for (int i = 0; i < kCoreSetups; ++i) {
    const Setup& s = kSetups[i];
    const HwParams p = params_of(s);
    const std::string label = fmt::format("{} ({}, {} rows)", s.tag, arith_name(s.arith), s.rows);
    const std::uint64_t seed = harness.seed(stream_of(s.tag));  // the same stimulus on every view
    if (harness.core())
      harness.run("core " + label, [&](tb::MismatchLog& log) {
        CoreView core(p);
        Bench<CoreView>(core, p, seed, harness.long_run(), log, fig).run(harness.count());
      });
    if (harness.sc())
      harness.run("sc " + label, [&](tb::MismatchLog& log) {
        Bench<ScView>(*sc_views[std::size_t(i)], p, seed, harness.long_run(), log, fig).run(harness.count());
      });
  }
  coverage(harness, fig, true);
  return harness.finish(figures(fig));
}

#endif
