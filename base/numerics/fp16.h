// IEEE 754 binary16 arithmetic exactly as the flycol PEs implement it: a fused multiply-add with
// a single rounding (round to nearest, ties to even), subnormals kept, infinities and NaN per IEEE
// with one canonical NaN, plus the PE's zero-gating rule. Every hardware model runs these
// functions; the golden convolution and the PE and array testbenches deliberately do not (they use
// sim/golden/fp16_exact.h, an independent exact FMA), so "bit-exact" is checked, not assumed.
#pragma once

#include <cstdint>
#include <cstring>

namespace flycol::fp16 {

using Bits = std::uint16_t;

inline constexpr Bits kCanonicalNaN = 0x7E00;  // quiet, positive, zero payload (as FPnew/RISC-V)
inline constexpr Bits kPosInf = 0x7C00;
inline constexpr Bits kNegInf = 0xFC00;
inline constexpr Bits kMaxNormal = 0x7BFF;  // 65504
inline constexpr Bits kMinNormal = 0x0400;  // 2^-14
inline constexpr Bits kMinSubnormal = 0x0001;  // 2^-24

inline bool is_zero(Bits h) { return (h & 0x7FFF) == 0; }
inline bool is_nan(Bits h) { return (h & 0x7C00) == 0x7C00 && (h & 0x03FF) != 0; }
inline bool is_inf(Bits h) { return (h & 0x7FFF) == 0x7C00; }
inline bool is_finite(Bits h) { return (h & 0x7C00) != 0x7C00; }

namespace detail {
inline std::uint32_t bits_of(float f) { std::uint32_t u; std::memcpy(&u, &f, 4); return u; }
inline float float_of(std::uint32_t u) { float f; std::memcpy(&f, &u, 4); return f; }
}  // namespace detail

// Exact widening conversions (every binary16 value is a float and a double).
inline float to_float(Bits h) {
  const std::uint32_t sign = std::uint32_t(h & 0x8000) << 16;
  const std::uint32_t em = h & 0x7FFF;
  if (em >= 0x7C00) return detail::float_of(sign | 0x7F800000u | ((em & 0x3FF) << 13));
  if (em >= 0x0400) return detail::float_of(sign | ((em << 13) + (112u << 23)));
  // Subnormal or zero: em units of 2^-24, exact in float.
  return detail::float_of(sign | detail::bits_of(float(em) * 0x1p-24f));
}
double to_double(Bits h);

// Narrowing conversions with one rounding to nearest even; overflow gives +-inf, NaN gives the
// canonical NaN. The subnormal branch relies on the default floating-point environment (round
// to nearest, no flush-to-zero), which flycol never changes.
inline Bits from_float(float f) {
  std::uint32_t x = detail::bits_of(f);
  const Bits sign = Bits((x >> 16) & 0x8000);
  x &= 0x7FFFFFFFu;
  if (x > 0x7F800000u) return kCanonicalNaN;
  if (x >= 0x477FF000u) return Bits(sign | 0x7C00);  // >= 65520 rounds to infinity
  if (x >= 0x38800000u) {                              // normal binary16 range, >= 2^-14
    const std::uint32_t r = x + 0x0FFFu + ((x >> 13) & 1u);
    return Bits(sign | ((r - (112u << 23)) >> 13));
  }
  // |f| < 2^-14: adding 0.5 (whose ulp is 2^-24) rounds |f| to a multiple of 2^-24 in one step.
  const float t = detail::float_of(x) + 0.5f;
  return Bits(sign | (detail::bits_of(t) - 0x3F000000u));
}
Bits from_double(double d);

// a*b rounded once. The float product of two binary16 values is exact (22 significant bits,
// exponents in [-48, 32)), so one conversion gives the single rounding.
inline Bits mul(Bits a, Bits b) { return from_float(to_float(a) * to_float(b)); }

namespace detail {
// Round-to-odd correction of s = RN(p + c) for finite p, c: TwoSum gives the exact error e; if
// e != 0 and s has an even significand, move s one ulp towards p + c. A round-to-odd result with
// at least two more bits than binary16 (float has 24 > 11 + 2) rounds to binary16 exactly as
// p + c itself would (Boldo and Melquiond), which makes float a valid exact FMA datapath.
inline float add_round_to_odd(float p, float c) {
  const float s = p + c;
  const float bp = s - p;
  const float err = (p - (s - bp)) + (c - bp);
  std::uint32_t sb = bits_of(s);
  if (err != 0.0f && (sb & 1u) == 0) sb += ((sb ^ bits_of(err)) >> 31) ? 0xFFFFFFFFu : 1u;
  return float_of(sb);
}
}  // namespace detail

// a*b + c with one rounding (IEEE fusedMultiplyAdd, roundTiesToEven). NaN results are canonical.
inline Bits fma(Bits a, Bits b, Bits c) {
  const float p = to_float(a) * to_float(b);
  const float fc = to_float(c);
  if (!is_finite(a) || !is_finite(b) || !is_finite(c)) return from_float(p + fc);
  return from_float(detail::add_round_to_odd(p, fc));
}

// The PE's multiply-accumulate: with gating on, a zero operand (either sign) leaves the
// accumulator unchanged - no multiply happens, so 0*inf does not make a NaN and -0 accumulators
// keep their sign. Without gating it is plain fma(a, b, acc).
inline Bits mac(Bits a, Bits b, Bits acc, bool gating) {
  if (gating && (is_zero(a) || is_zero(b))) return acc;
  return fma(a, b, acc);
}

// The same operations on binary16 values carried in float registers ("half-in-float"): each
// argument must hold a value exactly representable in binary16 (NaN allowed) and the result is
// again such a value (NaN results are the float quiet NaN). Models that keep accumulators in
// float use these to avoid converting on every MAC; they are bit-exact with the Bits versions.
inline float round_to_half(float x) {  // x rounded once to binary16 precision and range
  std::uint32_t u = detail::bits_of(x);
  const std::uint32_t sign = u & 0x80000000u;
  u &= 0x7FFFFFFFu;
  if (u > 0x7F800000u) return x;                                      // NaN stays NaN
  if (u >= 0x477FF000u) return detail::float_of(sign | 0x7F800000u);  // overflow to infinity
  if (u >= 0x38800000u) return detail::float_of(sign | ((u + 0x0FFFu + ((u >> 13) & 1u)) & ~0x1FFFu));
  return detail::float_of(sign | detail::bits_of((detail::float_of(u) + 0.5f) - 0.5f));
}

inline float fma_hf(float a, float b, float c) {
  const float p = a * b;
  const std::uint32_t nonfinite = 0x7F800000u;
  if ((detail::bits_of(p) & nonfinite) == nonfinite || (detail::bits_of(c) & nonfinite) == nonfinite)
    return round_to_half(p + c);
  return round_to_half(detail::add_round_to_odd(p, c));
}

}  // namespace flycol::fp16
