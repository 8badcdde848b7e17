// Independent exact reference for IEEE binary16, used only by the numerics tests to check
// base/numerics/fp16.h. Integer arithmetic only: operands are decoded to integer significands,
// a*b+c is formed exactly, and the result is rounded once by integer shifts and compares.
#pragma once

#include <cstdint>

// Deliberately no include of base/numerics: the reference must not share code with what it checks.
namespace fp16ref {

using Half = std::uint16_t;
using U128 = unsigned __int128;
using I128 = __int128;

inline constexpr Half kNaN = 0x7E00;  // the only NaN result the accelerator produces
inline constexpr Half kInfBits = 0x7C00;

inline bool is_nan(Half h) { return (h & 0x7FFF) > 0x7C00; }
inline bool is_inf(Half h) { return (h & 0x7FFF) == 0x7C00; }
inline bool is_zero(Half h) { return (h & 0x7FFF) == 0; }

// A finite half is (-1)^neg * sig * 2^exp with sig < 2^11 and exp >= -24. Subnormals share the
// exponent of the smallest normal binade, so the encoding needs no special case here.
struct Decoded {
  bool neg;
  std::uint32_t sig;
  int exp;
};

inline Decoded decode(Half h) {
  const std::uint32_t field = (h >> 10) & 0x1F;
  const std::uint32_t frac = h & 0x3FF;
  if (field == 0) return {(h & 0x8000) != 0, frac, -24};
  return {(h & 0x8000) != 0, frac | 0x400u, int(field) - 25};
}

inline int msb(std::uint64_t v) { return 63 - __builtin_clzll(v); }
inline int msb(U128 v) {
  const std::uint64_t hi = std::uint64_t(v >> 64);
  return hi != 0 ? 64 + msb(hi) : msb(std::uint64_t(v));
}

// Rounds mag * 2^exp (mag > 0, below 2^120) once to binary16, ties to even, with subnormals and
// overflow to infinity. The target grid spacing is 2^u, u = max(msb + exp - 10, -24); the biased
// exponent is then u + 25 and the encoding (u + 24) * 1024 + q also handles a carry into the next
// binade (q = 2048) and the subnormal/normal boundary (q = 1024 at u = -24) without extra cases.
template <class U>
Half round_pack(bool neg, U mag, int exp) {
  const Half sign = neg ? Half(0x8000) : Half(0);
  const int k = msb(mag);
  if (k + exp >= 16) return Half(sign | kInfBits);  // >= 65536
  const int u = (k + exp - 10 > -24) ? k + exp - 10 : -24;
  const int shift = u - exp;
  std::uint32_t q;
  if (shift <= 0) {
    q = std::uint32_t(mag << -shift);  // already on the grid
  } else if (shift >= k + 2) {
    return sign;  // below a quarter of the grid spacing: rounds to zero
  } else {
    const U one = 1;
    const U rem = mag & ((one << shift) - 1);
    const U half = one << (shift - 1);
    q = std::uint32_t(mag >> shift);
    if (rem > half || (rem == half && (q & 1u))) ++q;
  }
  const std::uint32_t bits = std::uint32_t((u + 24) << 10) + q;
  if (bits >= kInfBits) return Half(sign | kInfBits);
  return Half(sign | bits);
}

// a*b + c rounded once (IEEE fusedMultiplyAdd, roundTiesToEven), canonical NaN.
inline Half ref_fma(Half a, Half b, Half c) {
  if (is_nan(a) || is_nan(b) || is_nan(c)) return kNaN;
  const bool prod_neg = ((a ^ b) & 0x8000) != 0;
  if (is_inf(a) || is_inf(b)) {
    if (is_zero(a) || is_zero(b)) return kNaN;                       // inf * 0
    if (is_inf(c) && ((c & 0x8000) != 0) != prod_neg) return kNaN;  // inf - inf
    return Half((prod_neg ? 0x8000 : 0) | kInfBits);
  }
  if (is_inf(c)) return c;
  const Decoded da = decode(a), db = decode(b), dc = decode(c);
  // Units of 2^-48: the product has exponent da.exp + db.exp >= -48, c has dc.exp >= -24.
  I128 prod = I128(std::uint64_t(da.sig) * db.sig) << (da.exp + db.exp + 48);
  I128 addend = I128(dc.sig) << (dc.exp + 48);
  if (prod_neg) prod = -prod;
  if (dc.neg) addend = -addend;
  const I128 sum = prod + addend;
  if (sum == 0) {
    // Only -0 + -0 keeps the minus sign; an exact cancellation of nonzero terms gives +0.
    const bool prod_is_neg_zero = prod == 0 && prod_neg;
    const bool c_is_neg_zero = addend == 0 && dc.neg;
    return (prod_is_neg_zero && c_is_neg_zero) ? Half(0x8000) : Half(0);
  }
  return sum < 0 ? round_pack(true, U128(-sum), -48) : round_pack(false, U128(sum), -48);
}

// a*b rounded once. The product significand fits 22 bits, so this path stays in 64-bit integers
// (it is the one the exhaustive 2^32 multiplier test runs).
inline Half ref_mul(Half a, Half b) {
  if (is_nan(a) || is_nan(b)) return kNaN;
  const Half sign = Half((a ^ b) & 0x8000);
  if (is_inf(a) || is_inf(b)) {
    if (is_zero(a) || is_zero(b)) return kNaN;
    return Half(sign | kInfBits);
  }
  const Decoded da = decode(a), db = decode(b);
  const std::uint64_t m = std::uint64_t(da.sig) * db.sig;
  if (m == 0) return sign;
  return round_pack(sign != 0, m, da.exp + db.exp);
}

// IEEE bits of the exact value of a half in a wider binary format (float: 23 fraction bits,
// bias 127; double: 52, 1023). Every half is a normal number there. NaNs map to the quiet NaN
// of the format with the half's sign; callers compare NaN-ness only.
inline std::uint64_t widen_bits(Half h, int frac_bits, int bias) {
  const std::uint64_t sign = std::uint64_t(h >> 15) << (frac_bits + (frac_bits == 23 ? 8 : 11));
  const std::uint64_t exp_all_ones = frac_bits == 23 ? 0xFFull : 0x7FFull;
  if (is_nan(h)) return sign | (exp_all_ones << frac_bits) | (1ull << (frac_bits - 1));
  if (is_inf(h)) return sign | (exp_all_ones << frac_bits);
  const Decoded d = decode(h);
  if (d.sig == 0) return sign;
  const int k = msb(std::uint64_t(d.sig));
  const std::uint64_t frac = (std::uint64_t(d.sig) << (frac_bits - k)) & ((1ull << frac_bits) - 1);
  return sign | (std::uint64_t(k + d.exp + bias) << frac_bits) | frac;
}
inline std::uint32_t ref_to_float_bits(Half h) { return std::uint32_t(widen_bits(h, 23, 127)); }
inline std::uint64_t ref_to_double_bits(Half h) { return widen_bits(h, 52, 1023); }

// Narrowing from the bit patterns of a float or a double, rounded once.
inline Half narrow_bits(std::uint64_t x, int frac_bits, int exp_bits) {
  const int bias = (1 << (exp_bits - 1)) - 1;
  const bool neg = ((x >> (frac_bits + exp_bits)) & 1u) != 0;
  const std::uint64_t field = (x >> frac_bits) & ((1ull << exp_bits) - 1);
  const std::uint64_t frac = x & ((1ull << frac_bits) - 1);
  if (field == (1ull << exp_bits) - 1) return frac != 0 ? kNaN : Half((neg ? 0x8000 : 0) | kInfBits);
  const std::uint64_t sig = field == 0 ? frac : frac | (1ull << frac_bits);
  const int exp = (field == 0 ? 1 : int(field)) - bias - frac_bits;
  if (sig == 0) return neg ? Half(0x8000) : Half(0);
  return round_pack(neg, sig, exp);
}
inline Half ref_from_float_bits(std::uint32_t x) { return narrow_bits(x, 23, 8); }
inline Half ref_from_double_bits(std::uint64_t x) { return narrow_bits(x, 52, 11); }

}  // namespace fp16ref
