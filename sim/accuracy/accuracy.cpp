// Error statistics, the float64 reference convolution and the accumulation bound
// (sim/accuracy/accuracy.h, whose header comment derives the bound).
#include "sim/accuracy/accuracy.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

namespace flycol {
namespace {

// Calls f(out_index, tap_x_index, tap_w_index) for every in-bounds tap of every output, grouped
// per output: begin(o) before its taps, end(o) after.
template <class Begin, class Tap, class End>
void for_each_tap(const Layer& L, Begin begin, Tap tap, End end) {
  const int ho = L.ho(), wo = L.wo();
  std::int64_t o = 0;
  for (int n = 0; n < L.n; ++n)
    for (int k = 0; k < L.k; ++k)
      for (int oy = 0; oy < ho; ++oy)
        for (int ox = 0; ox < wo; ++ox, ++o) {
          begin(o, k);
          for (int c = 0; c < L.c; ++c)
            for (int ky = 0; ky < L.ky; ++ky) {
              const int iy = oy * L.sy - L.pt + ky * L.dy;
              if (iy < 0 || iy >= L.h) continue;
              for (int kx = 0; kx < L.kx; ++kx) {
                const int ix = ox * L.sx - L.pl + kx * L.dx;
                if (ix < 0 || ix >= L.w) continue;
                tap(((std::int64_t(n) * L.c + c) * L.h + iy) * L.w + ix, ((std::int64_t(k) * L.c + c) * L.ky + ky) * L.kx + kx);
              }
            }
          end(o);
        }
}

// (1+u)^n - 1 and (1+u)^n without cancellation.
double growth_minus_one(double u, double n) { return std::expm1(n * std::log1p(u)); }

}  // namespace

ErrorStats error_stats(const std::vector<double>& y, const std::vector<double>& r) {
  if (y.size() != r.size()) throw std::logic_error(fmt::format("error_stats: {} results, {} references", y.size(), r.size()));
  ErrorStats s;
  double max_ref = 0;
  for (std::size_t i = 0; i < y.size(); ++i)
    if (std::isfinite(y[i]) && std::isfinite(r[i])) max_ref = std::max(max_ref, std::fabs(r[i]));
  double e2 = 0, r2 = 0, y2 = 0, yr = 0;
  for (std::size_t i = 0; i < y.size(); ++i) {
    if (!std::isfinite(y[i]) || !std::isfinite(r[i])) {
      ++s.nonfinite;
      const bool same = (std::isnan(y[i]) && std::isnan(r[i])) || (std::isinf(y[i]) && y[i] == r[i]);
      if (!same) ++s.nonfinite_mismatch;
      continue;
    }
    ++s.count;
    const double e = std::fabs(y[i] - r[i]);
    if (e > s.max_abs || s.worst_index < 0) {
      s.max_abs = e;
      s.worst_index = std::int64_t(i);
    }
    if (std::fabs(r[i]) >= 1e-3 * max_ref && r[i] != 0) s.max_rel = std::max(s.max_rel, e / std::fabs(r[i]));
    e2 += e * e;
    r2 += r[i] * r[i];
    y2 += y[i] * y[i];
    yr += y[i] * r[i];
  }
  s.rms = s.count ? std::sqrt(e2 / double(s.count)) : 0;
  s.normwise_rel = r2 > 0 ? std::sqrt(e2 / r2) : (e2 > 0 ? INFINITY : 0);
  s.cosine = (y2 == 0 && r2 == 0) ? 1 : (y2 == 0 || r2 == 0) ? 0 : yr / std::sqrt(y2 * r2);
  return s;
}

std::vector<double> conv_f64(const std::vector<double>& x, const std::vector<double>& w, const Layer& L,
                             const std::vector<double>* bias) {
  if (std::int64_t(x.size()) != L.ifmap_elems() || std::int64_t(w.size()) != L.weight_elems() ||
      (bias && std::int64_t(bias->size()) != L.k))
    throw std::logic_error("conv_f64: operand sizes do not match the layer " + L.spec());
  std::vector<double> out(std::size_t(L.ofmap_elems()));
  double acc = 0;
  for_each_tap(
      L, [&](std::int64_t, int k) { acc = bias ? (*bias)[std::size_t(k)] : 0.0; },
      [&](std::int64_t xi, std::int64_t wi) { acc += x[std::size_t(xi)] * w[std::size_t(wi)]; },
      [&](std::int64_t o) { out[std::size_t(o)] = acc; });
  return out;
}

AccuracyBound accumulation_bound(const ConvOperands& ops, const std::vector<double>& x, const std::vector<double>& w,
                                 const BoundOptions& opt) {
  const Layer& L = ops.layer;
  if (std::int64_t(x.size()) != L.ifmap_elems() || std::int64_t(w.size()) != L.weight_elems() ||
      ops.ifmap.size() != x.size() || ops.weights.size() != w.size() ||
      (opt.bias && std::int64_t(opt.bias->size()) != L.k))
    throw std::logic_error("accumulation_bound: operand sizes do not match the layer " + L.spec());
  const bool fp = ops.arithmetic == Arithmetic::fp16;
  std::vector<double> xh(x.size()), wh(w.size());
  for (std::size_t i = 0; i < x.size(); ++i) xh[i] = elem_value(ops.ifmap[i], ops.arithmetic);
  for (std::size_t i = 0; i < w.size(); ++i) wh[i] = elem_value(ops.weights[i], ops.arithmetic);

  const double u = 0x1p-11, v = opt.reference_unit;
  AccuracyBound b;
  b.bound.assign(std::size_t(L.ofmap_elems()), 0.0);
  b.invalid.assign(std::size_t(L.ofmap_elems()), 0);
  double P = 0, X = 0, rounding = 0;  // sum|p_j|, sum|x_j w_j|, sum|p_j - x_j w_j|
  std::int64_t n = 0, n_all = 0;
  bool bad = false;
  int k_now = 0;
  for_each_tap(
      L,
      [&](std::int64_t, int k) {
        P = X = rounding = 0;
        n = n_all = 0;
        bad = false;
        k_now = k;
      },
      [&](std::int64_t xi, std::int64_t wi) {
        const double a = xh[std::size_t(xi)], c = wh[std::size_t(wi)];
        const double xo = x[std::size_t(xi)], wo = w[std::size_t(wi)];
        if (!std::isfinite(a) || !std::isfinite(c) || !std::isfinite(xo) || !std::isfinite(wo)) {
          bad = true;
          return;
        }
        const double p = a * c;  // exact: 11 x 11 significant bits (int16 x int16: 30 bits)
        ++n_all;
        if (p != 0) ++n;
        P += std::fabs(p);
        X += std::fabs(xo * wo);
        rounding += std::fabs(std::fma(-xo, wo, p));
      },
      [&](std::int64_t o) {
        double acc = 0, s_max = P;
        if (fp) {
          const double gm1 = growth_minus_one(u, double(n));
          acc = gm1 * P + double(n) * 0x1p-25 * (gm1 + 1);
          s_max = P * (gm1 + 1) + double(n) * 0x1p-25 * (gm1 + 1);
          if (s_max > 65504) bad = true;
        } else if (P > 2147483647.0) {
          bad = true;  // the int32 accumulator may saturate
        }
        const double vm1 = growth_minus_one(v, double(n_all));
        const double ref_abs = v > 0 ? 2.0 * double(n_all) * 0x1p-150 * (vm1 + 1) : 0.0;
        const double ref = vm1 * X + ref_abs;
        double bias_term = 0;
        if (opt.bias) {
          const double bo = (*opt.bias)[std::size_t(k_now)];
          const double b32 = double(float(bo));
          const double r_max = X * (vm1 + 1) + ref_abs;
          bias_term = std::fabs(b32 - bo) + 0x1p-24 * (s_max + r_max + 2 * std::fabs(bo) + std::fabs(b32 - bo));
          // An int32 accumulator is converted to float32 before the add: exact up to 2^24 only.
          if (!fp) bias_term += 0x1p-24 * s_max;
          if (!std::isfinite(bo)) bad = true;
        }
        b.bound[std::size_t(o)] = (acc + (fp ? rounding : 0.0) + ref + bias_term) * (1 + 0x1p-40);
        b.invalid[std::size_t(o)] = bad ? 1 : 0;
      });
  return b;
}

BoundCheck check_against_bound(const std::vector<double>& y, const std::vector<double>& r, const AccuracyBound& b) {
  if (y.size() != r.size() || y.size() != b.bound.size())
    throw std::logic_error("check_against_bound: sizes differ");
  BoundCheck c;
  for (std::size_t i = 0; i < y.size(); ++i) {
    if (b.invalid[i]) {
      ++c.invalid;
      continue;
    }
    double ratio;
    if (!std::isfinite(y[i]) || !std::isfinite(r[i])) {
      const bool same = (std::isnan(y[i]) && std::isnan(r[i])) || (std::isinf(y[i]) && y[i] == r[i]);
      ratio = same ? 0 : INFINITY;
      if (!same) c.max_abs_err = INFINITY;
    } else {
      const double e = std::fabs(y[i] - r[i]);
      c.max_abs_err = std::max(c.max_abs_err, e);
      ratio = e == 0 ? 0 : b.bound[i] > 0 ? e / b.bound[i] : INFINITY;
    }
    if (ratio > 1) ++c.outside;
    if (c.worst_index < 0 || ratio > c.worst_ratio) {
      c.worst_ratio = ratio;
      c.worst_index = std::int64_t(i);
    }
  }
  return c;
}

}  // namespace flycol
