// Unit tests of sim/workload: the seeded operands every model is fed (sizes, ranges per arithmetic,
// reproducibility, the share of zeros), the decoding of raw bits, the output checksum against
// FNV-1a worked by hand, and the random layers of the regressions (valid, within their limits).
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "sim/config/layer.h"
#include "sim/workload/random_layer.h"
#include "sim/workload/workload.h"

using namespace flycol;

namespace {

Layer layer_of(const char* spec) { return parse_layer_argument(spec); }

// binary16 decoded from its fields, for the range check: independent of base/numerics.
double half_value(ElemBits b) {
  const int sign = b >> 15, exp = (b >> 10) & 0x1F, frac = b & 0x3FF;
  REQUIRE(exp != 0x1F);  // no Inf or NaN
  const double mag = exp == 0 ? std::ldexp(frac, -24) : std::ldexp(1024 + frac, exp - 25);
  return sign ? -mag : mag;
}

}  // namespace

TEST_CASE("operands have the layer's tensor sizes and the same seed gives the same numbers", "[workload]") {
  const Layer l = layer_of("N=2,C=3,H=5,W=7,K=4,ky=3,kx=2");
  const ConvOperands a = make_random_operands(l, Arithmetic::fp16, 7);
  CHECK(a.ifmap.size() == 2u * 3 * 5 * 7);
  CHECK(a.weights.size() == 4u * 3 * 3 * 2);
  CHECK(a.arithmetic == Arithmetic::fp16);
  CHECK(a.layer.c == 3);
  const ConvOperands b = make_random_operands(l, Arithmetic::fp16, 7);
  CHECK(a.ifmap == b.ifmap);
  CHECK(a.weights == b.weights);
  const ConvOperands c = make_random_operands(l, Arithmetic::fp16, 8);
  CHECK(a.ifmap != c.ifmap);
  CHECK(a.weights != c.weights);
  // The weights come from their own stream: a taller image leaves them as they were.
  const ConvOperands taller = make_random_operands(layer_of("N=2,C=3,H=9,W=7,K=4,ky=3,kx=2"), Arithmetic::fp16, 7);
  CHECK(taller.weights == a.weights);
}

TEST_CASE("operand values stay in the documented range of each arithmetic", "[workload]") {
  const Layer l = layer_of("C=16,H=16,W=16,K=16,k=3");
  const ConvOperands f = make_random_operands(l, Arithmetic::fp16, 1);
  double lo = 0, hi = 0;
  for (ElemBits e : f.ifmap) {
    const double v = half_value(e);
    CHECK(std::abs(v) <= 1.0);
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  CHECK(lo < -0.9);  // 4096 uniform draws reach close to both ends
  CHECK(hi > 0.9);

  const ConvOperands i8 = make_random_operands(l, Arithmetic::int8, 1);
  int lo8 = 0, hi8 = 0;
  for (ElemBits e : i8.ifmap) {
    CHECK(e <= 0xFF);  // two's complement in the low 8 bits only
    const int v = e >= 0x80 ? int(e) - 256 : int(e);
    lo8 = std::min(lo8, v);
    hi8 = std::max(hi8, v);
    CHECK(elem_value(e, Arithmetic::int8) == double(v));
  }
  CHECK(lo8 == -128);
  CHECK(hi8 == 127);

  const ConvOperands i16 = make_random_operands(l, Arithmetic::int16, 1);
  for (ElemBits e : i16.weights) {
    const int v = e >= 0x8000 ? int(e) - 65536 : int(e);
    CHECK(v >= -2048);
    CHECK(v <= 2047);
    CHECK(elem_value(e, Arithmetic::int16) == double(v));
  }
}

TEST_CASE("zero_fraction sets the share of zero operands", "[workload]") {
  const Layer l = layer_of("C=32,H=32,W=32,K=32,k=3");  // 32k ifmap and 9k weight elements
  for (double z : {0.0, 0.1, 0.5, 1.0}) {
    const ConvOperands ops = make_random_operands(l, Arithmetic::int8, 3, {z});
    std::size_t zeros = 0;
    for (ElemBits e : ops.ifmap) zeros += e == 0;
    const double share = double(zeros) / double(ops.ifmap.size());
    INFO("zero_fraction " << z);
    // Without forced zeros, int8 draws 0 one time in 256; the binomial spread is under 0.01.
    CHECK(share == Approx(z + (1 - z) / 256.0).margin(0.01));
  }
}

TEST_CASE("raw bits decode to their values", "[workload]") {
  CHECK(elem_value(0x3C00, Arithmetic::fp16) == 1.0);
  CHECK(elem_value(0xC000, Arithmetic::fp16) == -2.0);
  CHECK(elem_value(0x3555, Arithmetic::fp16) == 0x555 / 4096.0);  // (1 + 0x155 / 1024) / 4
  CHECK(elem_value(0x0001, Arithmetic::fp16) == std::ldexp(1.0, -24));      // smallest subnormal
  CHECK(elem_value(0x00FF, Arithmetic::int8) == -1.0);
  CHECK(elem_value(0x0080, Arithmetic::int8) == -128.0);
  CHECK(elem_value(0xF800, Arithmetic::int16) == -2048.0);
  CHECK(acc_value(0x3C00, Arithmetic::fp16) == 1.0);
  CHECK(acc_value(0xFFFFFFFFu, Arithmetic::int8) == -1.0);
  CHECK(acc_value(0x80000000u, Arithmetic::int16) == -2147483648.0);
  CHECK(acc_value(0x7FFFFFFFu, Arithmetic::int8) == 2147483647.0);
}

TEST_CASE("the checksum is FNV-1a 64 over the little-endian output bytes", "[workload]") {
  // Offset basis and prime of FNV-1a 64 (Fowler, Noll, Vo); an empty output is the basis.
  CHECK(checksum({}, Arithmetic::fp16) == 0xCBF29CE484222325ull);
  // One fp16 output 0x0061 is the bytes 61 00; "a" alone hashes to af63dc4c8601ec8c (the FNV
  // test vector), and one more zero byte multiplies by the prime: 0xaf63dc4c8601ec8c * 0x100000001b3.
  const std::uint64_t a = 0xAF63DC4C8601EC8Cull;
  CHECK(checksum({0x0061}, Arithmetic::fp16) == a * 0x100000001B3ull);
  // int32 outputs contribute four bytes each: 61 00 00 00.
  CHECK(checksum({0x61}, Arithmetic::int8) == a * 0x100000001B3ull * 0x100000001B3ull * 0x100000001B3ull);
  // fp16 outputs use only the low 16 bits; order matters.
  CHECK(checksum({0xABCD0061u}, Arithmetic::fp16) == checksum({0x0061}, Arithmetic::fp16));
  CHECK(checksum({1, 2}, Arithmetic::fp16) != checksum({2, 1}, Arithmetic::fp16));
}

TEST_CASE("random layers are valid, within their limits, and repeat with the seed", "[workload]") {
  RandomLayerLimits lim;
  lim.max_c = 40;
  lim.max_hw = 30;
  lim.max_k = 20;
  lim.max_kernel = 5;
  lim.max_stride = 3;
  lim.max_dilation = 4;
  lim.max_macs = 200'000;
  std::mt19937_64 rng(11), again(11);
  bool non_square = false, strided = false, dilated = false, padded = false;
  for (int i = 0; i < 500; ++i) {
    const Layer l = random_layer(rng, lim);
    INFO(l.spec());
    CHECK_NOTHROW(validate_layer(l, "test"));
    CHECK(l.macs() <= lim.max_macs);
    CHECK((l.c >= 1 && l.c <= lim.max_c && l.k >= 1 && l.k <= lim.max_k));
    CHECK((l.h <= lim.max_hw && l.w <= lim.max_hw && l.n <= lim.max_n));
    CHECK((l.ky <= lim.max_kernel && l.kx <= lim.max_kernel));
    CHECK((l.sy <= lim.max_stride && l.sx <= lim.max_stride && l.dy <= lim.max_dilation && l.dx <= lim.max_dilation));
    // Output size from the convolution formula, worked here rather than taken from Layer.
    const int ho = (l.h + l.pt + l.pb - (l.dy * (l.ky - 1) + 1)) / l.sy + 1;
    const int wo = (l.w + l.pl + l.pr - (l.dx * (l.kx - 1) + 1)) / l.sx + 1;
    CHECK(ho >= 1);
    CHECK(wo >= 1);
    CHECK(l.macs() == std::int64_t(l.n) * l.k * ho * wo * l.c * l.ky * l.kx);
    CHECK(random_layer(again, lim).spec() == l.spec());
    non_square |= l.ky != l.kx;
    strided |= l.sy > 1 || l.sx > 1;
    dilated |= l.dy > 1 || l.dx > 1;
    padded |= l.pt + l.pb + l.pl + l.pr > 0;
  }
  CHECK(non_square);
  CHECK(strided);
  CHECK(dilated);
  CHECK(padded);
}
