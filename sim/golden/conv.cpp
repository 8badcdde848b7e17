// Golden convolution loops. For speed the output row is the innermost loop (one accumulator per
// output x, updated in c, ky, kx order), which keeps each output's own reduction order intact
// while giving the CPU independent accumulations to overlap.
#include "sim/golden/conv.h"

#include <algorithm>

#include <cstdint>

#include "sim/golden/fp16_exact.h"
#include "sim/golden/int_exact.h"

namespace flycol::golden {
namespace {

// Range of output x whose input column ox*sx + ix0 lies inside [0, w).
struct Span { int lo, hi; };
Span valid_ox(int ix0, int sx, int w, int wo) {
  int lo = ix0 >= 0 ? 0 : (-ix0 + sx - 1) / sx;
  int hi = ix0 >= w ? 0 : (w - 1 - ix0) / sx + 1;
  return {std::min(lo, wo), std::min(hi, wo)};
}

// Whether an operand is zero for the gating rule: both signed zeros of binary16, zero otherwise.
bool operand_is_zero(std::uint16_t h) { return half::zero(h); }
template <class T>
bool operand_is_zero(T v) { return v == T(0); }

// Shared loop nest. Acc is the accumulator type, Mac(acc, a, w) the scalar MAC and
// SpanMac(w, a, stride, acc, n) the same MAC over n outputs of one row (acc[i] with a[i*stride]).
template <class Acc, class Val, class Mac, class SpanMac>
void conv_loops(const Layer& L, const std::vector<Val>& in, const std::vector<Val>& wt, bool gating,
                Val zero, std::vector<Acc>& out, Mac mac, SpanMac span_mac) {
  const int ho = L.ho(), wo = L.wo();
  std::vector<Acc> acc(std::size_t(wo), Acc{});
  for (int n = 0; n < L.n; ++n)
    for (int k = 0; k < L.k; ++k)
      for (int oy = 0; oy < ho; ++oy) {
        Acc* o = &out[((std::size_t(n) * L.k + k) * ho + oy) * wo];
        std::copy(o, o + wo, acc.begin());  // +0 or the preload
        for (int c = 0; c < L.c; ++c)
          for (int ky = 0; ky < L.ky; ++ky) {
            const int iy = oy * L.sy - L.pt + ky * L.dy;
            const bool row_inside = iy >= 0 && iy < L.h;
            const Val* row = row_inside ? &in[((std::size_t(n) * L.c + c) * L.h + iy) * L.w] : nullptr;
            for (int kx = 0; kx < L.kx; ++kx) {
              const Val w = wt[((std::size_t(k) * L.c + c) * L.ky + ky) * L.kx + kx];
              const int ix0 = kx * L.dx - L.pl;
              const Span s = row_inside ? valid_ox(ix0, L.sx, L.w, wo) : Span{0, 0};
              if (!gating) {
                // Without gating the PE multiplies the padding zeros too (they can turn a -0
                // accumulator into +0, or 0*inf into NaN), so the golden model must as well.
                for (int ox = 0; ox < s.lo; ++ox) acc[ox] = mac(acc[ox], zero, w);
                for (int ox = std::max(s.hi, s.lo); ox < wo; ++ox) acc[ox] = mac(acc[ox], zero, w);
              } else if (operand_is_zero(w)) {
                continue;  // gated for every output of this row
              }
              if (s.hi > s.lo) span_mac(w, row + s.lo * L.sx + ix0, L.sx, &acc[s.lo], s.hi - s.lo);
            }
          }
        std::copy(acc.begin(), acc.end(), o);
      }
}

}  // namespace

std::vector<AccBits> conv(const ConvOperands& ops, const ConvOptions& opt) {
  const Layer& L = ops.layer;
  const std::size_t n_out = std::size_t(L.ofmap_elems());
  std::vector<AccBits> result(n_out, 0);
  if (opt.preload) result = *opt.preload;

  if (ops.arithmetic == Arithmetic::fp16) {
    // Operands and accumulators as binary16 bits, each MAC the golden model's own exact integer
    // FMA (fp16_exact.h), not the hardware's float datapath. Every NaN leaves as the canonical one.
    std::vector<half::Bits> out(result.begin(), result.end());
    const bool gating = opt.zero_gating;
    conv_loops(L, ops.ifmap, ops.weights, gating, half::Bits(0), out,
               [](half::Bits acc, half::Bits a, half::Bits w) { return half::fma(a, w, acc); },
               [gating](half::Bits w, const half::Bits* a, int stride, half::Bits* acc, int n) {
                 for (int i = 0; i < n; ++i) acc[i] = half::mac(a[i * stride], w, acc[i], gating);
               });
    std::transform(out.begin(), out.end(), result.begin(),
                   [](half::Bits h) { return AccBits(half::nan(h) ? half::kNaN : h); });
    return result;
  }

  // Integer arithmetic: operands sign-extended to int32, saturating int32 accumulation.
  const bool is8 = ops.arithmetic == Arithmetic::int8;
  auto to_i = [is8](const std::vector<ElemBits>& v) {
    std::vector<std::int32_t> r(v.size());
    std::transform(v.begin(), v.end(), r.begin(), [is8](ElemBits e) {
      return is8 ? std::int32_t(std::int8_t(std::uint8_t(e))) : std::int32_t(std::int16_t(e));
    });
    return r;
  };
  const std::vector<std::int32_t> in = to_i(ops.ifmap), wt = to_i(ops.weights);
  std::vector<std::int32_t> out(result.begin(), result.end());
  conv_loops(L, in, wt, opt.zero_gating, 0, out,
             [](std::int32_t acc, std::int32_t a, std::int32_t w) { return int_mac(a, w, acc); },
             [](std::int32_t w, const std::int32_t* a, int stride, std::int32_t* acc, int n) {
               // A zero operand changes no integer sum, so integer gating needs no test here.
               for (int i = 0; i < n; ++i) acc[i] = int_mac(a[i * stride], w, acc[i]);
             });
  std::transform(out.begin(), out.end(), result.begin(), [](std::int32_t v) { return AccBits(v); });
  return result;
}

std::vector<double> conv_f64(const ConvOperands& ops) {
  const Layer& L = ops.layer;
  auto to_d = [&](const std::vector<ElemBits>& v) {
    std::vector<double> d(v.size());
    std::transform(v.begin(), v.end(), d.begin(), [&](ElemBits e) { return elem_value(e, ops.arithmetic); });
    return d;
  };
  const std::vector<double> in = to_d(ops.ifmap), wt = to_d(ops.weights);
  std::vector<double> out(std::size_t(L.ofmap_elems()), 0.0);
  conv_loops(L, in, wt, /*gating=*/true, 0.0, out, [](double acc, double a, double w) { return acc + a * w; },
             [](double w, const double* a, int stride, double* acc, int n) {
               for (int i = 0; i < n; ++i) acc[i] += a[i * stride] * w;
             });
  return out;
}

}  // namespace flycol::golden
