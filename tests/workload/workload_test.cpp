// Unit tests of sim/workload: the seeded operands every model is fed (sizes, ranges per arithmetic,
// reproducibility, the share of zeros, the operand classes), the decoding of raw bits, the output checksum against
// FNV-1a worked by hand, and the random layers of the regressions (valid, within their limits).
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "sim/common/input_error.h"
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

// ---- operand classes (--operands) ----

namespace {

// binary16 fields, decoded here rather than through base/numerics.
bool half_nan(ElemBits b) { return (b & 0x7C00) == 0x7C00 && (b & 0x3FF) != 0; }
bool half_inf(ElemBits b) { return (b & 0x7FFF) == 0x7C00; }
bool half_subnormal(ElemBits b) { return (b & 0x7C00) == 0 && (b & 0x3FF) != 0; }
double half_any(ElemBits b) {  // like half_value, also for Inf (NaN callers skip)
  if (half_inf(b)) return (b & 0x8000) ? -INFINITY : INFINITY;
  return half_value(b);
}
int int_of(ElemBits e, Arithmetic a) {
  return a == Arithmetic::int8 ? int(std::int8_t(std::uint8_t(e))) : int(std::int16_t(e));
}
OperandDistribution dist_of(OperandClass c, double zeros = 0.0) {
  OperandDistribution d;
  d.operand_class = c;
  d.zero_fraction = zeros;
  return d;
}
// FNV-1a 64 over the raw element bits (2 bytes each), pinned below for the uniform class.
std::uint64_t fnv(const std::vector<ElemBits>& v) {
  std::uint64_t h = 0xCBF29CE484222325ull;
  for (ElemBits e : v)
    for (int b = 0; b < 2; ++b) {
      h ^= (e >> (8 * b)) & 0xFF;
      h *= 0x100000001B3ull;
    }
  return h;
}

}  // namespace

TEST_CASE("operand class names round-trip and a bad name is an input error naming the choices", "[workload]") {
  const std::vector<std::string> want = {"uniform", "normal", "wide", "specials", "saturate"};
  CHECK(operand_class_names() == want);
  for (std::size_t i = 0; i < want.size(); ++i) {
    CHECK(operand_class_name(OperandClass(i)) == want[i]);
    CHECK(parse_operand_class(want[i], "--operands") == OperandClass(i));
  }
  try {
    parse_operand_class("Wide", "--operands");
    FAIL("no error for an unknown class");
  } catch (const InputError& e) {
    CHECK(e.source() == "--operands");
    CHECK(e.key() == "operands");
    CHECK(std::string(e.what()).find("one of uniform, normal, wide, specials, saturate") != std::string::npos);
  }
}

TEST_CASE("the uniform class draws the same bits as before operand classes existed", "[workload]") {
  // Pinned from the generator the recorded regression lines were made with (checked equal by the
  // golden checksums of `flycol run` before and after the classes were added).
  const Layer l = layer_of("C=5,H=9,W=11,K=7,k=3,p=1");
  struct Pin { Arithmetic a; std::uint64_t ifmap, weights; };
  const Pin pins[] = {{Arithmetic::fp16, 0xd4a516acc6c6d829ull, 0x65d5533167e336b2ull},
                      {Arithmetic::int8, 0x9419fb1166152aebull, 0xc9d09740bc59e3eeull},
                      {Arithmetic::int16, 0xd6ae5b58fa15bd0full, 0xbe896fac8d47db27ull}};
  for (const Pin& p : pins) {
    const ConvOperands ops = make_random_operands(l, p.a, 7, dist_of(OperandClass::uniform, 0.2));
    INFO(arithmetic_info(p.a).name);
    CHECK(fnv(ops.ifmap) == p.ifmap);
    CHECK(fnv(ops.weights) == p.weights);
    const ConvOperands dflt = make_random_operands(l, p.a, 7, {0.2});
    CHECK(dflt.ifmap == ops.ifmap);
  }
}

TEST_CASE("normal operands are Gaussian rounded to the element type", "[workload]") {
  const Layer l = layer_of("C=32,H=32,W=32,K=8,k=3");
  const ConvOperands f = make_random_operands(l, Arithmetic::fp16, 5, dist_of(OperandClass::normal));
  double sum = 0, sq = 0;
  std::size_t beyond1 = 0;
  for (ElemBits e : f.ifmap) {
    const double v = half_value(e);
    sum += v;
    sq += v * v;
    beyond1 += std::abs(v) > 1.0;
  }
  const double n = double(f.ifmap.size());
  CHECK(sum / n == Approx(0.0).margin(0.03));
  CHECK(std::sqrt(sq / n) == Approx(1.0).margin(0.03));
  CHECK(beyond1 / n == Approx(0.317).margin(0.02));  // P(|x| > sigma) of a Gaussian
  for (Arithmetic a : {Arithmetic::int8, Arithmetic::int16}) {
    const ConvOperands i = make_random_operands(l, a, 5, dist_of(OperandClass::normal));
    double s2 = 0;
    for (ElemBits e : i.ifmap) s2 += double(int_of(e, a)) * int_of(e, a);
    const double sigma = a == Arithmetic::int8 ? 32.0 : 1024.0;
    INFO(arithmetic_info(a).name);
    CHECK(std::sqrt(s2 / n) == Approx(sigma).epsilon(0.03));
  }
}

TEST_CASE("wide fp16 operands cover subnormals, both zeros and values up to 65504, and no Inf or NaN", "[workload]") {
  const Layer l = layer_of("C=32,H=32,W=32,K=32,k=3");
  const ConvOperands f = make_random_operands(l, Arithmetic::fp16, 9, dist_of(OperandClass::wide));
  std::size_t sub = 0, neg_zero = 0, pos_zero = 0, huge = 0, max = 0, neg = 0;
  for (ElemBits e : f.ifmap) {
    REQUIRE_FALSE(half_nan(e));
    REQUIRE_FALSE(half_inf(e));
    sub += half_subnormal(e);
    neg_zero += e == 0x8000;
    pos_zero += e == 0x0000;
    huge += std::abs(half_value(e)) >= 16384.0;
    max += (e & 0x7FFF) == 0x7BFF;
    neg += (e & 0x8000) != 0;
  }
  const double n = double(f.ifmap.size());
  CHECK(sub / n > 0.03);       // exponent field 0 is 1/31 of the random encodings, plus edges
  CHECK(neg_zero > 100);       // edges: 1/8 * 1/12 of the draws each
  CHECK(pos_zero > 100);
  CHECK(huge / n > 0.05);      // exponent fields 29 and 30
  CHECK(max > 100);
  CHECK(neg / n == Approx(0.5).margin(0.02));
  // Weights: |w| < 2, with subnormals and -0 too.
  std::size_t wsub = 0, wneg_zero = 0;
  for (ElemBits e : f.weights) {
    REQUIRE(std::abs(half_value(e)) < 2.0);
    wsub += half_subnormal(e);
    wneg_zero += e == 0x8000;
  }
  CHECK(wsub / double(f.weights.size()) > 0.05);
  CHECK(wneg_zero > 10);
  // Integers: the full range, the extremes often.
  for (Arithmetic a : {Arithmetic::int8, Arithmetic::int16}) {
    const ConvOperands i = make_random_operands(l, a, 9, dist_of(OperandClass::wide));
    const int lo = a == Arithmetic::int8 ? -128 : -32768, hi = -lo - 1;
    std::size_t at_lo = 0, at_hi = 0, far = 0;
    for (ElemBits e : i.ifmap) {
      const int v = int_of(e, a);
      at_lo += v == lo;
      at_hi += v == hi;
      far += std::abs(v) > hi / 2;
    }
    INFO(arithmetic_info(a).name);
    CHECK(at_lo / n > 0.02);
    CHECK(at_hi / n > 0.02);
    CHECK(far / n > 0.4);
  }
}

TEST_CASE("specials add +-Inf and quiet and signalling NaNs to wide fp16, and nothing to integers", "[workload]") {
  const Layer l = layer_of("C=32,H=32,W=32,K=32,k=3");
  const ConvOperands f = make_random_operands(l, Arithmetic::fp16, 4, dist_of(OperandClass::specials));
  for (const std::vector<ElemBits>* t : {&f.ifmap, &f.weights}) {
    std::size_t pinf = 0, ninf = 0, qnan = 0, snan = 0, neg_nan = 0, sub = 0;
    for (ElemBits e : *t) {
      pinf += e == 0x7C00;
      ninf += e == 0xFC00;
      if (half_nan(e)) {
        ((e & 0x200) ? qnan : snan) += 1;
        neg_nan += (e & 0x8000) != 0;
      }
      sub += half_subnormal(e);
    }
    const double n = double(t->size());
    CHECK((pinf + ninf + qnan + snan) / n == Approx(0.02).margin(0.005));
    CHECK(pinf > 0);
    CHECK(ninf > 0);
    CHECK(qnan > 0);
    CHECK(snan > 0);
    CHECK(neg_nan > 0);
    CHECK(sub > 0);  // the rest is wide
  }
  for (Arithmetic a : {Arithmetic::int8, Arithmetic::int16}) {
    INFO(arithmetic_info(a).name);
    const ConvOperands s = make_random_operands(l, a, 4, dist_of(OperandClass::specials));
    const ConvOperands w = make_random_operands(l, a, 4, dist_of(OperandClass::wide));
    CHECK(s.ifmap == w.ifmap);
    CHECK(s.weights == w.weights);
  }
}

TEST_CASE("saturate drives fp16 sums to Inf and int16 sums past the int32 range", "[workload]") {
  // One output per channel: the whole tensor is one reduction window (C=64, 3x3: 576 terms).
  const Layer l = layer_of("C=64,H=3,W=3,K=64,k=3");
  const std::size_t terms = 64 * 9;
  {
    const ConvOperands ops = make_random_operands(l, Arithmetic::int16, 2, dist_of(OperandClass::saturate));
    std::size_t past = 0, extreme = 0, positive = 0;
    for (ElemBits e : ops.ifmap) {
      extreme += int_of(e, Arithmetic::int16) == 32767 || int_of(e, Arithmetic::int16) == -32768;
      positive += int_of(e, Arithmetic::int16) > 0;
    }
    CHECK(extreme / double(terms) == Approx(0.8).margin(0.06));
    CHECK(positive / double(terms) == Approx(0.9).margin(0.04));
    for (int k = 0; k < 64; ++k) {
      std::int64_t sum = 0;  // exact: 576 * 2^30 < 2^63
      for (std::size_t i = 0; i < terms; ++i)
        sum += std::int64_t(int_of(ops.ifmap[i], Arithmetic::int16)) * int_of(ops.weights[k * terms + i], Arithmetic::int16);
      past += sum > 2147483647LL || sum < -2147483648LL;
    }
    CHECK(past == 64);  // every output's exact sum leaves the int32 range
  }
  {
    const ConvOperands ops = make_random_operands(l, Arithmetic::fp16, 2, dist_of(OperandClass::saturate));
    std::size_t over = 0, neg = 0, big = 0;
    for (ElemBits e : ops.ifmap) {
      neg += (e & 0x8000) != 0;
      big += std::abs(half_value(e)) >= 256.0;
      CHECK(std::abs(half_value(e)) >= 1.0);
    }
    CHECK(neg / double(terms) == Approx(0.1).margin(0.04));
    CHECK(big / double(terms) == Approx(0.05).margin(0.03));
    for (int k = 0; k < 64; ++k) {
      double sum = 0;
      for (std::size_t i = 0; i < terms; ++i) sum += half_any(ops.ifmap[i]) * half_any(ops.weights[k * terms + i]);
      over += std::abs(sum) > 65504.0;
    }
    CHECK(over == 64);
  }
}

TEST_CASE("forced zeros of the non-uniform fp16 classes are +0 and -0 alike", "[workload]") {
  const Layer l = layer_of("C=32,H=32,W=32,K=8,k=3");
  for (OperandClass c : {OperandClass::normal, OperandClass::wide, OperandClass::specials, OperandClass::saturate}) {
    const ConvOperands ops = make_random_operands(l, Arithmetic::fp16, 6, dist_of(c, 0.5));
    std::size_t pz = 0, nz = 0;
    for (ElemBits e : ops.ifmap) {
      pz += e == 0x0000;
      nz += e == 0x8000;
    }
    const double n = double(ops.ifmap.size());
    INFO(operand_class_name(c));
    CHECK(pz / n == Approx(0.25).margin(0.03));  // plus a few drawn zeros (wide's edges)
    CHECK(nz / n == Approx(0.25).margin(0.03));
  }
  // uniform keeps +0 only
  const ConvOperands u = make_random_operands(l, Arithmetic::fp16, 6, dist_of(OperandClass::uniform, 0.5));
  std::size_t uneg = 0;
  for (ElemBits e : u.ifmap) uneg += e == 0x8000;
  CHECK(uneg == 0);
}
