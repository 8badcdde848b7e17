// The golden model's own binary16 arithmetic: an exact integer fused multiply-add (one rounding,
// ties to even, subnormals kept, canonical NaN) and the PE's gated MAC, written apart from
// base/numerics, whose float datapath (fp16::fma, mac_row) the hardware models run.
#pragma once

#include <cstdint>

// Deliberately no include of base/numerics: the golden convolution and the PE/array testbenches
// use these functions as the reference for the hardware's FMA, so they must share none of its
// code (tests/golden/check_independence.cmake guards this). tests/golden/fp16_exact_test.cpp
// checks them against a third implementation, the integer reference of tests/numerics.
namespace flycol::golden::half {

using Bits = std::uint16_t;

inline constexpr Bits kNaN = 0x7E00;  // the accelerator's only NaN result
inline constexpr Bits kSignBit = 0x8000;
inline constexpr Bits kInf = 0x7C00;

inline bool zero(Bits h) { return (h & 0x7FFF) == 0; }
inline bool nan(Bits h) { return (h & 0x7C00) == 0x7C00 && (h & 0x03FF) != 0; }
inline bool inf(Bits h) { return (h & 0x7FFF) == 0x7C00; }

namespace detail {

// The significand (hidden bit included) and the exponent of its last bit: value = sig * 2^lsb.
// A subnormal's last bit weighs 2^-24, as does that of the smallest normal binade.
inline std::uint32_t sig_of(Bits h) {
  const std::uint32_t e = (h >> 10) & 0x1Fu;
  return e == 0 ? (h & 0x3FFu) : ((h & 0x3FFu) | 0x400u);
}
inline int lsb_of(Bits h) {
  const int e = (h >> 10) & 0x1F;
  return (e == 0 ? 1 : e) - 25;
}

// mag * 2^scale (mag > 0) rounded once to binary16 with the given sign: find the weight of the
// result's last bit (10 bits below the leading one, at least 2^-24), drop the bits below it by
// adding just under half of it plus the kept last bit (ties go to the even neighbour), then pack.
inline Bits round_to_half(bool neg, std::uint64_t mag, int scale) {
  const Bits sign = neg ? kSignBit : Bits(0);
  const int lead = 63 - __builtin_clzll(mag) + scale;  // mag * 2^scale in [2^lead, 2^(lead+1))
  if (lead >= 16) return Bits(sign | kInf);             // at least 2^16: far beyond 65504
  int lsb = lead - 10;
  if (lsb < -24) lsb = -24;
  const int drop = lsb - scale;
  std::uint64_t q;
  if (drop <= 0) {
    q = mag << -drop;  // exactly on the result grid
  } else {
    const std::uint64_t below_half = (std::uint64_t(1) << (drop - 1)) - 1;
    q = (mag + below_half + ((mag >> drop) & 1u)) >> drop;
  }
  if (q == 0x800) {  // rounding carried into the next binade
    q = 0x400;
    ++lsb;
  }
  if (q < 0x400) return Bits(sign | q);  // subnormal (lsb == -24) or zero
  const int field = lsb + 25;
  if (field >= 31) return Bits(sign | kInf);  // 65520 and above round to infinity
  return Bits(sign | (std::uint32_t(field) << 10) | (q & 0x3FFu));
}

// IEEE results when an operand is an infinity or a NaN.
inline Bits fma_special(Bits a, Bits b, Bits c) {
  if (nan(a) || nan(b) || nan(c)) return kNaN;
  const Bits psign = Bits((a ^ b) & kSignBit);
  if (inf(a) || inf(b)) {
    if (zero(a) || zero(b)) return kNaN;                     // inf * 0
    if (inf(c) && (c & kSignBit) != psign) return kNaN;      // inf - inf
    return Bits(psign | kInf);
  }
  return c;  // finite product plus an infinite c
}

}  // namespace detail

// a*b + c with one rounding (IEEE fusedMultiplyAdd, roundTiesToEven), canonical NaN.
// The product a*b = sp * 2^xp is exact in 22 bits, c = sc * 2^xc in 11. When the two last-bit
// exponents are at most 40 apart, both terms go onto the grid of the lower one and the sum is
// exact in 63 bits. Further apart (only a tiny product beside a large c), the larger-exponent
// term is shifted left by 40 and the other right, its lost bits folded into its last bit
// ("sticky"): the sum's leading bit is then at 2^39 or above, so its rounding grid is 2^29 or
// coarser, and an odd sum less than 1 away from the exact one rounds the same way (no grid point
// or tie lies between them).
inline Bits fma(Bits a, Bits b, Bits c) {
  if ((a & 0x7C00) == 0x7C00 || (b & 0x7C00) == 0x7C00 || (c & 0x7C00) == 0x7C00)
    return detail::fma_special(a, b, c);
  const bool pneg = ((a ^ b) & kSignBit) != 0, cneg = (c & kSignBit) != 0;
  const std::uint64_t sp = std::uint64_t(detail::sig_of(a)) * detail::sig_of(b);
  const std::uint64_t sc = detail::sig_of(c);
  if (sp == 0) {
    if (sc != 0) return c;  // 0 + c = c exactly
    return (pneg && cneg) ? kSignBit : Bits(0);  // only -0 + -0 is -0 in round to nearest
  }
  const int xp = detail::lsb_of(a) + detail::lsb_of(b);
  if (sc == 0) return detail::round_to_half(pneg, sp, xp);  // p + (+-0) = p
  const int xc = detail::lsb_of(c);
  const int low = xp < xc ? xp : xc;
  std::int64_t sum;
  int scale;
  if (xp - low <= 40 && xc - low <= 40) {
    // Both terms on the grid of the lower one: exact, below 2^62 (sp < 2^22, sc < 2^11).
    const std::int64_t p = std::int64_t(sp << (xp - low)), q = std::int64_t(sc << (xc - low));
    // Conditional negation without branches: (v ^ m) - m is -v for m = -1, v for m = 0.
    const std::int64_t mp = -std::int64_t(pneg), mc = -std::int64_t(cneg);
    sum = ((p ^ mp) - mp) + ((q ^ mc) - mc);
    scale = low;
  } else {
    // More than 40 binades apart: keep the larger-exponent term shifted left by 40, the other
    // shifted right with its lost bits folded into its last bit.
    const bool p_hi = xp > xc;
    const std::uint64_t hi = p_hi ? sp : sc, lo = p_hi ? sc : sp;
    const bool hi_neg = p_hi ? pneg : cneg, lo_neg = p_hi ? cneg : pneg;
    const int cut = (p_hi ? xp - xc : xc - xp) - 40;  // 1 .. 13
    const std::int64_t h = std::int64_t(hi << 40);
    const std::int64_t l = std::int64_t((lo >> cut) | ((lo & ((std::uint64_t(1) << cut) - 1)) != 0 ? 1u : 0u));
    sum = (hi_neg ? -h : h) + (lo_neg ? -l : l);
    scale = (p_hi ? xp : xc) - 40;
  }
  if (sum == 0) return 0;  // exact cancellation of nonzero terms: +0 in round to nearest
  const bool neg = sum < 0;
  return detail::round_to_half(neg, std::uint64_t(neg ? -sum : sum), scale);
}

// The PE's multiply-accumulate: with gating on, a zero operand (either sign) leaves the
// accumulator unchanged; otherwise fma(a, b, acc).
inline Bits mac(Bits a, Bits b, Bits acc, bool gating) {
  if (gating && (zero(a) || zero(b))) return acc;
  return fma(a, b, acc);
}

}  // namespace flycol::golden::half
