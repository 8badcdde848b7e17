// Unit tests of sim/accuracy: error statistics worked by hand, the float64 convolution against a
// hand-computed case, and the accumulation bound: it holds for the golden FP16 convolution
// against a float32 reference summed in another order (random layers, seed printed), it is not
// vacuous (ONNX's basic conv case: below 1 % of the outputs, and real errors reach a sizeable part
// of it), a result moved past it is rejected, and overflow/saturation marks elements invalid.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "sim/accuracy/accuracy.h"
#include "sim/config/layer.h"
#include "sim/golden/conv.h"
#include "sim/tensor/convert.h"

using namespace flycol;

namespace {

std::uint64_t test_seed(const char* test_case) {
  std::uint64_t seed = 1515;
  if (const char* s = std::getenv("FLYCOL_TEST_SEED")) seed = std::strtoull(s, nullptr, 0);
  std::printf("%s: seed %llu (reproduce: FLYCOL_TEST_SEED=%llu accuracy_test \"%s\")\n", test_case,
              static_cast<unsigned long long>(seed), static_cast<unsigned long long>(seed), test_case);
  return seed;
}

// The operands rounded to the arithmetic as `flycol run` does it.
ConvOperands rounded(const Layer& L, Arithmetic a, const std::vector<double>& x, const std::vector<double>& w) {
  ConvOperands ops;
  ops.layer = L;
  ops.arithmetic = a;
  ops.ifmap = to_elements(Tensor{DType::float64, {std::int64_t(x.size())}, x}, a, "x");
  ops.weights = to_elements(Tensor{DType::float64, {std::int64_t(w.size())}, w}, a, "w");
  return ops;
}

// A float32 framework's convolution: products and sums rounded to float32, taps summed in the
// reverse of the accelerator's order, bias added last in float32.
std::vector<double> conv_f32_reversed(const std::vector<double>& x, const std::vector<double>& w, const Layer& L,
                                      const std::vector<double>* bias) {
  std::vector<double> out;
  for (int n = 0; n < L.n; ++n)
    for (int k = 0; k < L.k; ++k)
      for (int oy = 0; oy < L.ho(); ++oy)
        for (int ox = 0; ox < L.wo(); ++ox) {
          float acc = 0;
          for (int c = L.c - 1; c >= 0; --c)
            for (int ky = L.ky - 1; ky >= 0; --ky)
              for (int kx = L.kx - 1; kx >= 0; --kx) {
                const int iy = oy * L.sy - L.pt + ky * L.dy, ix = ox * L.sx - L.pl + kx * L.dx;
                if (iy < 0 || iy >= L.h || ix < 0 || ix >= L.w) continue;
                const float p = float(x[std::size_t(((n * L.c + c) * L.h + iy) * L.w + ix)]) *
                                float(w[std::size_t(((k * L.c + c) * L.ky + ky) * L.kx + kx)]);
                acc = acc + p;
              }
          if (bias) acc = acc + float((*bias)[std::size_t(k)]);
          out.push_back(double(acc));
        }
  return out;
}

}  // namespace

TEST_CASE("accuracy: error statistics worked by hand", "[unit]") {
  const std::vector<double> y{1, 2.5, NAN, INFINITY, -3, 1e-9};
  const std::vector<double> r{1, 2, NAN, 5, -4, 0};
  const ErrorStats s = error_stats(y, r);
  CHECK(s.count == 4);
  CHECK(s.nonfinite == 2);
  CHECK(s.nonfinite_mismatch == 1);
  CHECK(s.max_abs == 1);
  CHECK(s.worst_index == 4);
  CHECK(s.max_rel == Approx(0.25));  // 0.5/2 and 1/4; the element with r = 0 is below 1e-3 * 4
  CHECK(s.rms == Approx(std::sqrt((0.25 + 1 + 1e-18) / 4)));
  CHECK(s.normwise_rel == Approx(std::sqrt(1.25 / 21)));
  CHECK(s.cosine == Approx((1 + 5 + 12) / std::sqrt((1 + 6.25 + 9 + 1e-18) * 21)));
  CHECK(error_stats({0, 0}, {0, 0}).cosine == 1);
}

TEST_CASE("accuracy: float64 convolution of a hand-computed case, with bias", "[unit]") {
  const Layer L = parse_layer_spec("C=1,H=3,W=3,K=2,k=2");
  const std::vector<double> x{1, 2, 3, 4, 5, 6, 7, 8, 9};
  const std::vector<double> w{1, 1, 1, 1, 1, 0, 0, -1};
  const std::vector<double> b{0.5, -1};
  CHECK(conv_f64(x, w, L, &b) == std::vector<double>{12.5, 16.5, 24.5, 28.5, -5, -5, -5, -5});
}

TEST_CASE("accuracy: ONNX's basic conv case: the bound holds, is below 1 % of the outputs, and a result past it fails", "[unit]") {
  // test_basic_conv_with_padding: x = arange(25) as 1x1x5x5, w = ones 1x1x3x3, pads 1.
  const Layer L = parse_layer_spec("C=1,H=5,W=5,K=1,k=3,p=1");
  std::vector<double> x(25), w(9, 1.0);
  for (int i = 0; i < 25; ++i) x[std::size_t(i)] = i;
  const ConvOperands ops = rounded(L, Arithmetic::fp16, x, w);
  const std::vector<AccBits> acc = golden::conv(ops);
  const std::vector<double> y = from_accumulators(acc, Arithmetic::fp16, {1, 1, 5, 5}, DType::float64).values;
  const std::vector<double> expected{12, 21, 27, 33, 24, 33, 54, 63, 72, 51, 63, 99, 108, 117, 81,
                                     93, 144, 153, 162, 111, 72, 111, 117, 123, 84};  // ONNX's output_0.pb
  const AccuracyBound b = accumulation_bound(ops, x, w);
  for (std::size_t i = 0; i < y.size(); ++i) {
    CHECK(b.invalid[i] == 0);
    CHECK(b.bound[i] < 1e-2 * expected[i]);
    CHECK(b.bound[i] > 0);
  }
  BoundCheck c = check_against_bound(y, expected, b);
  CHECK(c.passed());
  // Moving one output just past its bound is caught and named.
  std::vector<double> moved = y;
  moved[12] += b.bound[12] * 1.001;
  c = check_against_bound(moved, expected, b);
  CHECK_FALSE(c.passed());
  CHECK(c.outside == 1);
  CHECK(c.worst_index == 12);
  CHECK(c.worst_ratio > 1);
  moved[12] = y[12] + b.bound[12] * 0.999;
  CHECK(check_against_bound(moved, expected, b).passed());
}

TEST_CASE("accuracy: the bound holds on random fp16 layers against a float32 reference, and is within 100x of the errors", "[unit]") {
  std::mt19937_64 rng(test_seed("accuracy: the bound holds on random fp16 layers"));
  const char* specs[] = {"C=16,H=9,W=9,K=4,k=3,p=1", "C=64,H=6,W=7,K=3,k=3,s=2,p=1", "C=3,H=12,W=12,K=5,k=5,d=2,p=2",
                         "C=256,H=3,W=3,K=2,k=1", "N=2,C=8,H=5,W=5,K=3,ky=3,kx=1"};
  double worst = 0;
  for (const char* spec : specs)
    for (int scale_case = 0; scale_case < 3; ++scale_case) {
      const Layer L = parse_layer_spec(spec);
      INFO(spec << " scale case " << scale_case);
      // Uniform, uniform with tiny weights (the subnormal range), and mixed magnitudes.
      std::uniform_real_distribution<float> uni(-1.f, 1.f);
      std::vector<double> x(std::size_t(L.ifmap_elems())), w(std::size_t(L.weight_elems())), bias(std::size_t(L.k));
      for (auto& v : x) v = double(uni(rng)) * (scale_case == 2 ? std::ldexp(1.0, int(rng() % 8)) : 1.0);
      for (auto& v : w) v = double(uni(rng)) * (scale_case == 1 ? 0x1p-12 : 1.0);
      for (auto& v : bias) v = double(uni(rng));
      const ConvOperands ops = rounded(L, Arithmetic::fp16, x, w);
      const std::vector<AccBits> acc = golden::conv(ops);
      const std::vector<std::int64_t> shape{L.n, L.k, L.ho(), L.wo()};
      const std::vector<double> y = from_accumulators(acc, Arithmetic::fp16, shape, DType::float64, &bias).values;
      BoundOptions opt;
      opt.bias = &bias;
      const AccuracyBound b = accumulation_bound(ops, x, w, opt);
      const BoundCheck c = check_against_bound(y, conv_f32_reversed(x, w, L, &bias), b);
      CHECK(c.invalid == 0);
      CHECK(c.passed());
      // Against the exact (float64) convolution the reference terms drop out.
      opt.reference_unit = 0;
      const AccuracyBound b64 = accumulation_bound(ops, x, w, opt);
      const std::vector<double> exact = conv_f64(x, w, L, &bias);
      const BoundCheck c64 = check_against_bound(y, exact, b64);
      CHECK(c64.passed());
      worst = std::max(worst, c64.worst_ratio);
    }
  std::printf("largest error / bound against float64: %.3g\n", worst);
  CHECK(worst > 0.01);  // the bound is not vacuous: some error comes within 100x of it
}

TEST_CASE("accuracy: possible overflow or saturation marks elements invalid", "[unit]") {
  const Layer L = parse_layer_spec("C=4,H=1,W=1,K=1,k=1");
  const std::vector<double> big{30000, 30000, 6000, 1}, ones{1, 1, 1, 1};
  const AccuracyBound b = accumulation_bound(rounded(L, Arithmetic::fp16, big, ones), big, ones);
  CHECK(b.invalid[0] == 1);
  const std::vector<double> ok{30000, 30000, 5000, 1};
  CHECK(accumulation_bound(rounded(L, Arithmetic::fp16, ok, ones), ok, ones).invalid[0] == 0);
  const std::vector<double> inf{INFINITY, 0, 0, 0};
  CHECK(accumulation_bound(rounded(L, Arithmetic::fp16, inf, ones), inf, ones).invalid[0] == 1);
  // int16: 4 x 32767 x 32767 > 2^31 - 1 may saturate; int8 cannot here, and only the reference's
  // float32 error remains (these values are exact in float32, but the bound does not know that).
  const std::vector<double> m16{32767, 32767, 32767, 32767};
  CHECK(accumulation_bound(rounded(L, Arithmetic::int16, m16, m16), m16, m16).invalid[0] == 1);
  const std::vector<double> m8{127, 127, 127, 127};
  const AccuracyBound b8 = accumulation_bound(rounded(L, Arithmetic::int8, m8, m8), m8, m8);
  CHECK(b8.invalid[0] == 0);
  CHECK(b8.bound[0] == Approx(std::expm1(4 * std::log1p(0x1p-24)) * 4 * 127 * 127).epsilon(1e-6));
}

TEST_CASE("accuracy: each term of the bound is needed: operand rounding, subnormal sums, bias in float32", "[unit]") {
  BoundOptions exact;
  exact.reference_unit = 0;  // against the float64 convolution
  SECTION("operand rounding: x = w = 1 + 0.99 * 2^-11 both round to 1: error 1.98 u, accumulation term u") {
    const Layer L = parse_layer_spec("C=1,H=1,W=1,K=1,k=1");
    const std::vector<double> x{1 + 0.99 * 0x1p-11}, w{1 + 0.99 * 0x1p-11};
    const ConvOperands ops = rounded(L, Arithmetic::fp16, x, w);
    const std::vector<double> y = from_accumulators(golden::conv(ops), Arithmetic::fp16, {1}, DType::float64).values;
    CHECK(y[0] == 1);
    const AccuracyBound b = accumulation_bound(ops, x, w, exact);
    const double err = std::fabs(y[0] - x[0] * w[0]);
    CHECK(err <= b.bound[0]);
    CHECK(err > 1.9 * 0x1p-11);
  }
  SECTION("subnormal sums: 8 products of 2^-26 each round away to 0: error 2^-23, covered by n 2^-25 only") {
    const Layer L = parse_layer_spec("C=8,H=1,W=1,K=1,k=1");
    const std::vector<double> x(8, 0x1p-13), w(8, 0x1p-13);
    const ConvOperands ops = rounded(L, Arithmetic::fp16, x, w);
    const std::vector<double> y = from_accumulators(golden::conv(ops), Arithmetic::fp16, {1}, DType::float64).values;
    CHECK(y[0] == 0);
    const AccuracyBound b = accumulation_bound(ops, x, w, exact);
    CHECK(0x1p-23 <= b.bound[0]);
    CHECK(b.bound[0] < 0x1p-21);
  }
  SECTION("int16 with a bias: the int32 accumulator 32767 * 1025 > 2^24 is rounded to float32 before the add") {
    const Layer L = parse_layer_spec("C=1,H=1,W=1,K=1,k=1");
    const std::vector<double> x{32767}, w{1025}, bias{0.5};
    const ConvOperands ops = rounded(L, Arithmetic::int16, x, w);
    const std::vector<double> y = from_accumulators(golden::conv(ops), Arithmetic::int16, {1, 1, 1, 1}, DType::float64, &bias).values;
    BoundOptions opt = exact;
    opt.bias = &bias;
    const AccuracyBound b = accumulation_bound(ops, x, w, opt);
    CHECK(y[0] == 33586176.0);  // float32 has steps of 4 there: the exact 33586175.5 is not representable
    CHECK(std::fabs(y[0] - 33586175.5) <= b.bound[0]);
  }
  SECTION("bias: a float64 bias 0.1 is added as float32 0.1f") {
    const Layer L = parse_layer_spec("C=1,H=1,W=1,K=1,k=1");
    const std::vector<double> x{0}, w{1}, bias{0.1};
    const ConvOperands ops = rounded(L, Arithmetic::fp16, x, w);
    const std::vector<double> y = from_accumulators(golden::conv(ops), Arithmetic::fp16, {1, 1, 1, 1}, DType::float64, &bias).values;
    BoundOptions opt = exact;
    opt.bias = &bias;
    const AccuracyBound b = accumulation_bound(ops, x, w, opt);
    const double err = std::fabs(y[0] - 0.1);
    CHECK(err > 0);
    CHECK(err <= b.bound[0]);
  }
}
