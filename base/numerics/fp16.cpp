// Out-of-line binary16 helpers: the double conversions, which are not on any hot path.
#include "base/numerics/fp16.h"

namespace flycol::fp16 {
namespace {
std::uint64_t bits_of(double d) { std::uint64_t u; std::memcpy(&u, &d, 8); return u; }
double double_of(std::uint64_t u) { double d; std::memcpy(&d, &u, 8); return d; }
}  // namespace

double to_double(Bits h) { return double(to_float(h)); }

Bits from_double(double d) {
  std::uint64_t x = bits_of(d);
  const Bits sign = Bits((x >> 48) & 0x8000);
  x &= 0x7FFFFFFFFFFFFFFFull;
  if (x > 0x7FF0000000000000ull) return kCanonicalNaN;
  if (x >= bits_of(65520.0)) return Bits(sign | 0x7C00);
  if (x >= bits_of(0x1p-14)) {
    const std::uint64_t r = x + ((1ull << 41) - 1) + ((x >> 42) & 1u);
    return Bits(sign | ((r - (std::uint64_t(1023 - 15) << 52)) >> 42));
  }
  // |d| < 2^-14: the ulp of 2^28 is 2^-24, so one addition rounds to the subnormal grid.
  const double t = double_of(x) + 0x1p28;
  return Bits(sign | (bits_of(t) - bits_of(0x1p28)));
}

}  // namespace flycol::fp16
