// Golden pooling loops (pool.h): straightforward loops over every output and its window, the
// binary16 rounding from fp16_exact.h, and an exact fixed-point sum for the average.
#include "sim/golden/pool.h"

#include <cmath>
#include <limits>
#include <stdexcept>

#include <fmt/format.h>

#include "sim/golden/fp16_exact.h"

namespace flycol::golden {
namespace {

using u128 = unsigned __int128;
using i128 = __int128;

int out_size(int in, int pad_begin, int pad_end, int extent, int stride, bool ceil_mode) {
  const int span = in + pad_begin + pad_end - extent;
  if (span < 0 || stride < 1) return 0;
  int out = (ceil_mode ? (span + stride - 1) / stride : span / stride) + 1;
  if (ceil_mode && (out - 1) * stride >= in + pad_begin) --out;
  return out;
}

bool is_int(Arithmetic a) { return a != Arithmetic::fp16; }

std::int32_t int_value(ElemBits e, Arithmetic a) {
  return a == Arithmetic::int8 ? std::int32_t(std::int8_t(std::uint8_t(e))) : std::int32_t(std::int16_t(e));
}

double fp16_value(half::Bits h) {
  if (half::nan(h)) return std::numeric_limits<double>::quiet_NaN();
  if (half::inf(h)) return (h & half::kSignBit) ? -HUGE_VAL : HUGE_VAL;
  const double v = std::ldexp(double(half::detail::sig_of(h)), half::detail::lsb_of(h));
  return (h & half::kSignBit) ? -v : v;
}

double elem_as_double(ElemBits e, Arithmetic a) { return is_int(a) ? double(int_value(e, a)) : fp16_value(e); }
double acc_as_double(AccBits v, Arithmetic a) {
  return is_int(a) ? double(std::int32_t(v)) : fp16_value(half::Bits(v & 0xFFFFu));
}

// The order of binary16 values for max: -0 and +0 equal (NaN handled before).
int fp16_key(half::Bits h) { return (h & half::kSignBit) ? -int(h & 0x7FFF) : int(h & 0x7FFF); }

// A finite binary16 as a signed multiple of 2^-24 (|value| < 2^40).
std::int64_t fp16_fixed(half::Bits h) {
  const std::int64_t m = std::int64_t(half::detail::sig_of(h)) << (half::detail::lsb_of(h) + 24);
  return (h & half::kSignBit) ? -m : m;
}

int bit_length(u128 v) {
  int n = 0;
  while (v) {
    v >>= 1;
    ++n;
  }
  return n;
}

// a / (d * 2^24) rounded once to binary16 (ties to even), a != 0, d >= 1: the quotient is taken to
// 14 or 15 significant bits with the remainder folded into a sticky bit below them, which the
// rounding of round_to_half (at most 11 kept bits, and at least 2 dropped) then treats exactly.
half::Bits fixed_div_to_half(i128 a, std::uint64_t d) {
  const bool neg = a < 0;
  const u128 mag = u128(neg ? -a : a);
  const int t = 14 - (bit_length(mag) - bit_length(d));
  u128 num = mag, den = d;
  if (t >= 0) num <<= t;
  else den <<= -t;
  const u128 q = num / den, r = num % den;
  const std::uint64_t m = std::uint64_t(q << 1) | (r != 0 ? 1u : 0u);
  return half::detail::round_to_half(neg, m, -24 - t - 1);
}

// Integer average: s / d to nearest, ties away from zero.
std::int32_t int_div_round(std::int64_t s, std::int64_t d) {
  const std::int64_t a = s < 0 ? -s : s;
  const std::int64_t q = (2 * a + d) / (2 * d);
  const std::int64_t v = s < 0 ? -q : q;
  return v > INT32_MAX ? INT32_MAX : v < INT32_MIN ? INT32_MIN : std::int32_t(v);
}

// The window of one output: the valid element indices in window order and the count the average
// divides by.
struct Window {
  std::vector<std::int64_t> at;  // ifmap indices of the valid elements, (ky, kx) order
  std::int64_t count = 0;        // divisor of the average
};

void window(const PoolLayer& l, int n, int c, int oy, int ox, Window& win) {
  win.at.clear();
  std::int64_t padded = 0;
  for (int a = 0; a < l.ky; ++a) {
    const int y = oy * l.sy - l.pt + a * l.dy;
    for (int b = 0; b < l.kx; ++b) {
      const int x = ox * l.sx - l.pl + b * l.dx;
      // count_include_pad counts the declared padding, not the part of a ceil_mode window past it.
      if (y < l.h + l.pb && x < l.w + l.pr) ++padded;
      if (y < 0 || y >= l.h || x < 0 || x >= l.w) continue;
      win.at.push_back(((std::int64_t(n) * l.c + c) * l.h + y) * l.w + x);
    }
  }
  win.count = l.count_include_pad ? padded : std::int64_t(win.at.size());
}

void require(const PoolLayer& l, std::size_t got, std::int64_t want, const char* what) {
  const std::string p = l.problem();
  if (!p.empty()) throw std::invalid_argument("golden::pool: " + p);
  if (std::int64_t(got) != want)
    throw std::invalid_argument(fmt::format("golden::pool: {} has {} elements, the layer needs {}", what, got, want));
}

// Calls f(output index, n, c, window) for every output in [N][C][Ho][Wo] order.
template <class F>
void for_each_window(const PoolLayer& l, F f) {
  const int ho = l.ho(), wo = l.wo();
  Window win;
  std::int64_t o = 0;
  for (int n = 0; n < l.n; ++n)
    for (int c = 0; c < l.c; ++c)
      for (int oy = 0; oy < ho; ++oy)
        for (int ox = 0; ox < wo; ++ox) {
          window(l, n, c, oy, ox, win);
          f(o++, win);
        }
}

// The max-pool choice of one window: the index of the first maximal element (the first NaN if
// there is one), -1 for an empty window.
std::int64_t choose_max(const Window& win, Arithmetic arith, const std::vector<ElemBits>& in) {
  std::int64_t best = -1;
  for (const std::int64_t i : win.at) {
    const ElemBits e = in[std::size_t(i)];
    if (is_int(arith)) {
      if (best < 0 || int_value(e, arith) > int_value(in[std::size_t(best)], arith)) best = i;
    } else {
      if (half::nan(e)) return i;
      if (best < 0 || fp16_key(e) > fp16_key(in[std::size_t(best)])) best = i;
    }
  }
  return best;
}

// The fp16 average of one window (pool.h): exact sum, one rounding at the division.
half::Bits fp16_average(const Window& win, const std::vector<ElemBits>& in) {
  bool nan = false, pos_inf = false, neg_inf = false;
  i128 sum = 0;
  for (const std::int64_t i : win.at) {
    const half::Bits h = in[std::size_t(i)];
    if (half::nan(h)) nan = true;
    else if (half::inf(h)) ((h & half::kSignBit) ? neg_inf : pos_inf) = true;
    else sum += fp16_fixed(h);
  }
  if (nan || (pos_inf && neg_inf) || win.count == 0) return half::kNaN;
  if (pos_inf) return half::kInf;
  if (neg_inf) return half::Bits(half::kSignBit | half::kInf);
  if (sum == 0) return 0;
  return fixed_div_to_half(sum, std::uint64_t(win.count));
}

// An fp16 gradient divided by a count with one rounding (specials as IEEE division).
half::Bits fp16_div_count(half::Bits g, std::int64_t count) {
  if (half::nan(g) || count == 0) return half::kNaN;
  if (half::inf(g) || half::zero(g)) return g;
  return fixed_div_to_half(fp16_fixed(g), std::uint64_t(count));
}

}  // namespace

PoolLayer PoolLayer::global(PoolOp op, int n, int c, int h, int w) {
  PoolLayer l;
  l.op = op;
  l.n = n, l.c = c, l.h = h, l.w = w;
  l.ky = h, l.kx = w;
  return l;
}

int PoolLayer::ho() const { return out_size(h, pt, pb, extent_y(), sy, ceil_mode); }
int PoolLayer::wo() const { return out_size(w, pl, pr, extent_x(), sx, ceil_mode); }

std::string PoolLayer::problem() const {
  const struct { const char* key; int v, lo; } fields[] = {
      {"N", n, 1}, {"C", c, 1}, {"H", h, 1}, {"W", w, 1}, {"ky", ky, 1}, {"kx", kx, 1}, {"sy", sy, 1},
      {"sx", sx, 1}, {"dy", dy, 1}, {"dx", dx, 1}, {"pt", pt, 0}, {"pb", pb, 0}, {"pl", pl, 0}, {"pr", pr, 0}};
  for (const auto& f : fields)
    if (f.v < f.lo) return fmt::format("{} = {}: must be >= {}", f.key, f.v, f.lo);
  if (h + pt + pb < extent_y())
    return fmt::format("ky = {}, dy = {}: the window ({} rows) is taller than the padded input ({} rows)", ky, dy,
                       extent_y(), h + pt + pb);
  if (w + pl + pr < extent_x())
    return fmt::format("kx = {}, dx = {}: the window ({} columns) is wider than the padded input ({} columns)", kx, dx,
                       extent_x(), w + pl + pr);
  return "";
}

std::vector<AccBits> pool(const PoolLayer& l, Arithmetic arith, const std::vector<ElemBits>& ifmap) {
  require(l, ifmap.size(), l.ifmap_elems(), "the ifmap");
  std::vector<AccBits> out(std::size_t(l.ofmap_elems()));
  for_each_window(l, [&](std::int64_t o, const Window& win) {
    AccBits& r = out[std::size_t(o)];
    if (l.op == PoolOp::max) {
      const std::int64_t i = choose_max(win, arith, ifmap);
      if (is_int(arith))
        r = AccBits(i >= 0 ? int_value(ifmap[std::size_t(i)], arith)
                           : (arith == Arithmetic::int8 ? INT8_MIN : INT16_MIN));
      else
        r = i < 0 ? AccBits(half::kSignBit | half::kInf)
                  : half::nan(ifmap[std::size_t(i)]) ? AccBits(half::kNaN) : AccBits(ifmap[std::size_t(i)]);
    } else if (is_int(arith)) {
      std::int64_t sum = 0;
      for (const std::int64_t i : win.at) sum += int_value(ifmap[std::size_t(i)], arith);
      r = AccBits(win.count ? int_div_round(sum, win.count) : 0);
    } else {
      r = fp16_average(win, ifmap);
    }
  });
  return out;
}

std::vector<double> pool_f64(const PoolLayer& l, Arithmetic arith, const std::vector<ElemBits>& ifmap) {
  require(l, ifmap.size(), l.ifmap_elems(), "the ifmap");
  std::vector<double> out(std::size_t(l.ofmap_elems()));
  for_each_window(l, [&](std::int64_t o, const Window& win) {
    double& r = out[std::size_t(o)];
    if (l.op == PoolOp::max) {
      r = -HUGE_VAL;
      for (const std::int64_t i : win.at) {
        const double v = elem_as_double(ifmap[std::size_t(i)], arith);
        if (std::isnan(v) || v > r) r = v;
        if (std::isnan(r)) break;
      }
    } else {
      double sum = 0;
      for (const std::int64_t i : win.at) sum += elem_as_double(ifmap[std::size_t(i)], arith);
      r = sum / double(win.count);
    }
  });
  return out;
}

std::vector<std::int64_t> pool_argmax(const PoolLayer& l, Arithmetic arith, const std::vector<ElemBits>& ifmap) {
  require(l, ifmap.size(), l.ifmap_elems(), "the ifmap");
  std::vector<std::int64_t> out(std::size_t(l.ofmap_elems()));
  for_each_window(l, [&](std::int64_t o, const Window& win) { out[std::size_t(o)] = choose_max(win, arith, ifmap); });
  return out;
}

std::vector<AccBits> pool_backward(const PoolLayer& l, Arithmetic arith, const std::vector<ElemBits>& ifmap,
                                   const std::vector<AccBits>& grad) {
  require(l, grad.size(), l.ofmap_elems(), "the output gradient");
  if (l.op == PoolOp::max) require(l, ifmap.size(), l.ifmap_elems(), "the ifmap");
  // Per input element: the exact sum of what it receives (fp16: in units of 2^-24) and, for fp16,
  // whether a NaN or an infinity of either sign arrived.
  struct Sum {
    i128 v = 0;
    bool nan = false, pos_inf = false, neg_inf = false;
  };
  std::vector<Sum> acc(std::size_t(l.ifmap_elems()));
  const auto add = [&](std::int64_t i, AccBits v) {
    Sum& a = acc[std::size_t(i)];
    if (is_int(arith)) {
      a.v += std::int32_t(v);
      return;
    }
    const half::Bits h = half::Bits(v);
    if (half::nan(h)) a.nan = true;
    else if (half::inf(h)) ((h & half::kSignBit) ? a.neg_inf : a.pos_inf) = true;
    else a.v += fp16_fixed(h);
  };
  for_each_window(l, [&](std::int64_t o, const Window& win) {
    const AccBits g = grad[std::size_t(o)];
    if (l.op == PoolOp::max) {
      const std::int64_t i = choose_max(win, arith, ifmap);
      if (i >= 0) add(i, g);
      return;
    }
    const AccBits share = is_int(arith) ? AccBits(win.count ? int_div_round(std::int32_t(g), win.count) : 0)
                                        : AccBits(fp16_div_count(half::Bits(g), win.count));
    for (const std::int64_t i : win.at) add(i, share);
  });
  std::vector<AccBits> gin(acc.size());
  for (std::size_t i = 0; i < acc.size(); ++i) {
    const Sum& a = acc[i];
    if (is_int(arith)) {
      gin[i] = AccBits(std::int32_t(a.v > INT32_MAX ? INT32_MAX : a.v < INT32_MIN ? INT32_MIN : std::int64_t(a.v)));
    } else if (a.nan || (a.pos_inf && a.neg_inf)) {
      gin[i] = half::kNaN;
    } else if (a.pos_inf || a.neg_inf) {
      gin[i] = a.pos_inf ? half::kInf : AccBits(half::kSignBit | half::kInf);
    } else {
      gin[i] = a.v == 0 ? 0 : fixed_div_to_half(a.v, 1);
    }
  }
  return gin;
}

std::vector<double> pool_backward_f64(const PoolLayer& l, Arithmetic arith, const std::vector<ElemBits>& ifmap,
                                      const std::vector<AccBits>& grad) {
  require(l, grad.size(), l.ofmap_elems(), "the output gradient");
  if (l.op == PoolOp::max) require(l, ifmap.size(), l.ifmap_elems(), "the ifmap");
  std::vector<double> gin(std::size_t(l.ifmap_elems()), 0.0);
  for_each_window(l, [&](std::int64_t o, const Window& win) {
    const double g = acc_as_double(grad[std::size_t(o)], arith);
    if (l.op == PoolOp::max) {
      const std::int64_t i = choose_max(win, arith, ifmap);
      if (i >= 0) gin[std::size_t(i)] += g;
      return;
    }
    for (const std::int64_t i : win.at) gin[std::size_t(i)] += g / double(win.count);
  });
  return gin;
}

}  // namespace flycol::golden
