// Golden convolution checks: small hand-computed cases, and properties that tie the strided,
// dilated and padded forms to simpler convolutions. In FP16 the properties hold bit for bit,
// because each output sees the same nonzero MACs in the same order (zeros are gated).
#include <catch2/catch.hpp>

#include <random>

#include "base/numerics/fp16.h"
#include "sim/golden/conv.h"

using namespace flycol;

namespace {

Layer make_layer(int c, int h, int w, int k, int ky, int kx) {
  Layer l;
  l.c = c; l.h = h; l.w = w; l.k = k; l.ky = ky; l.kx = kx;
  return l;
}

ElemBits h(float f) { return fp16::from_float(f); }
ElemBits i8(int v) { return ElemBits(std::uint8_t(std::int8_t(v))); }

std::size_t idx4(int a, int b, int c, int d, int B, int C, int D) {
  return ((std::size_t(a) * B + b) * C + c) * D + d;
}

}  // namespace

TEST_CASE("golden int8 matches a hand-computed 3x3 convolution", "[golden]") {
  // 1 channel 4x4 input 1..16, kernel [[1,0,-1],[2,0,-2],[1,0,-1]] (Sobel x), no padding, stride 1.
  Layer l = make_layer(1, 4, 4, 1, 3, 3);
  ConvOperands ops{l, Arithmetic::int8, {}, {}};
  for (int v = 1; v <= 16; ++v) ops.ifmap.push_back(i8(v));
  for (int v : {1, 0, -1, 2, 0, -2, 1, 0, -1}) ops.weights.push_back(i8(v));
  const auto out = golden::conv(ops);
  REQUIRE(out.size() == 4);
  // Each output: (x - (x+2)) * (1 + 2 + 1) = -8 for a ramp that rises by 1 along x.
  for (auto v : out) CHECK(std::int32_t(v) == -8);
}

TEST_CASE("golden handles stride, dilation and asymmetric padding by hand", "[golden]") {
  // 1x1x1x5 input [1 2 3 4 5], 1x2 kernel [1 10] with dilation 2, stride 2, padding left 1 right 2.
  Layer l = make_layer(1, 1, 5, 1, 1, 2);
  l.dx = 2; l.sx = 2; l.pl = 1; l.pr = 2;
  // Padded row: 0 1 2 3 4 5 0 0 (width 8); extent 3; outputs at x = 0, 2, 4 -> Wo = 3.
  REQUIRE(l.wo() == 3);
  ConvOperands ops{l, Arithmetic::int8, {i8(1), i8(2), i8(3), i8(4), i8(5)}, {i8(1), i8(10)}};
  const auto out = golden::conv(ops);
  // out[0] = 0*1 + 2*10 = 20; out[1] = 2*1 + 4*10 = 42; out[2] = 4*1 + 0*10 = 4
  REQUIRE(out.size() == 3);
  CHECK(std::int32_t(out[0]) == 20);
  CHECK(std::int32_t(out[1]) == 42);
  CHECK(std::int32_t(out[2]) == 4);
}

TEST_CASE("float64 reference handles stride, dilation and asymmetric padding by hand", "[golden]") {
  // The same hand case as above through conv_f64 (the accuracy reference of `flycol run`), whose
  // inner loop is its own: a stride it ignored would go unnoticed by the stride-1 comparison with
  // the FP16 golden model.
  Layer l = make_layer(1, 1, 5, 1, 1, 2);
  l.dx = 2; l.sx = 2; l.pl = 1; l.pr = 2;
  ConvOperands ops{l, Arithmetic::int8, {i8(1), i8(2), i8(3), i8(4), i8(5)}, {i8(1), i8(10)}};
  CHECK(golden::conv_f64(ops) == std::vector<double>{20.0, 42.0, 4.0});
}

TEST_CASE("golden fp16 accumulates in channel, row, column order with one rounding per MAC", "[golden]") {
  // Two channels, 1x1 input, 1x2 kernel over a 1x2 input: the order of the four MACs decides the
  // rounding. 2048 + 1 + 1 + ... : in FP16 2048 + 1 = 2048 (ties to even), so order matters.
  Layer l = make_layer(2, 1, 2, 1, 1, 2);
  ConvOperands ops{l, Arithmetic::fp16, {h(2048), h(1), h(1), h(1)}, {h(1), h(1), h(1), h(1)}};
  const auto out = golden::conv(ops);
  REQUIRE(out.size() == 1);
  // c=0: 0 + 2048 = 2048, + 1 -> 2048 (tie, even); c=1: + 1 -> 2048, + 1 -> 2048.
  CHECK(out[0] == h(2048));
  // Reversed channel order gives 1 + 1 + 1 = 3, + 2048 = 2051 -> 2052 (ties to even).
  ConvOperands rev{l, Arithmetic::fp16, {h(1), h(1), h(2048), h(1)}, {h(1), h(1), h(1), h(1)}};
  // c=0: 1, 2; c=1: 2050 (exact, the spacing at 2048 is 2), 2051 -> tie, rounds to even 2052.
  CHECK(golden::conv(rev)[0] == h(2052));
}

TEST_CASE("golden gating keeps a negative-zero accumulator and ignores 0*inf", "[golden]") {
  Layer l = make_layer(1, 1, 2, 1, 1, 2);
  const ElemBits inf = fp16::kPosInf;
  ConvOperands ops{l, Arithmetic::fp16, {0x8000 /* -0 */, h(0)}, {h(-0.0f), inf}};
  // Gated: both MACs have a zero operand, the accumulator stays +0.
  CHECK(golden::conv(ops)[0] == 0x0000);
  golden::ConvOptions ungated;
  ungated.zero_gating = false;
  // Ungated: 0 * inf = NaN.
  CHECK(golden::conv(ops, ungated)[0] == fp16::kCanonicalNaN);
  // A -0 preload survives gated zero MACs (an ungated +0 product would have made it +0).
  std::vector<AccBits> pre{0x8000};
  golden::ConvOptions gated_pre;
  gated_pre.preload = &pre;
  CHECK(golden::conv(ops, gated_pre)[0] == 0x8000);
}

namespace {

// Random small layers with every feature, for the property tests.
Layer random_layer(std::mt19937_64& rng) {
  auto u = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  Layer l = make_layer(u(1, 5), u(3, 14), u(3, 14), u(1, 4), u(1, 4), u(1, 4));
  l.sy = u(1, 3); l.sx = u(1, 3); l.dy = u(1, 3); l.dx = u(1, 3);
  while (l.extent_y() > l.h) l.dy = 1, l.ky = std::max(1, l.ky - 1);
  while (l.extent_x() > l.w) l.dx = 1, l.kx = std::max(1, l.kx - 1);
  l.pt = u(0, l.extent_y() - 1); l.pb = u(0, l.extent_y() - 1);
  l.pl = u(0, l.extent_x() - 1); l.pr = u(0, l.extent_x() - 1);
  l.n = u(1, 2);
  return l;
}

}  // namespace

TEST_CASE("identity kernel reproduces the input", "[golden]") {
  for (Arithmetic a : {Arithmetic::fp16, Arithmetic::int8, Arithmetic::int16}) {
    Layer l = make_layer(3, 7, 9, 3, 3, 3);
    l.pt = l.pb = l.pl = l.pr = 1;
    ConvOperands ops = make_random_operands(l, a, 11);
    const ElemBits one = a == Arithmetic::fp16 ? h(1) : ElemBits(1);
    std::fill(ops.weights.begin(), ops.weights.end(), ElemBits(0));
    for (int k = 0; k < 3; ++k) ops.weights[idx4(k, k, 1, 1, 3, 3, 3)] = one;
    const auto out = golden::conv(ops);
    for (std::size_t i = 0; i < out.size(); ++i) {
      const double expect = elem_value(ops.ifmap[i], a);
      REQUIRE(acc_value(out[i], a) == expect);
    }
  }
}

TEST_CASE("integer convolution is linear in the input and in the weights", "[golden]") {
  std::mt19937_64 rng(5);
  for (int t = 0; t < 40; ++t) {
    const Layer l = random_layer(rng);
    ConvOperands x1 = make_random_operands(l, Arithmetic::int16, 100 + t);
    ConvOperands x2 = make_random_operands(l, Arithmetic::int16, 200 + t);
    ConvOperands sum = x1;
    for (std::size_t i = 0; i < sum.ifmap.size(); ++i)
      sum.ifmap[i] = ElemBits(std::int16_t(std::int16_t(x1.ifmap[i]) + std::int16_t(x2.ifmap[i])));
    x2.weights = x1.weights;
    const auto o1 = golden::conv(x1), o2 = golden::conv(x2), os = golden::conv(sum);
    for (std::size_t i = 0; i < os.size(); ++i)
      REQUIRE(std::int32_t(os[i]) == std::int32_t(o1[i]) + std::int32_t(o2[i]));
    // Scaling the weights by 3 scales the output by 3.
    ConvOperands w3 = x1;
    for (auto& e : w3.weights) e = ElemBits(std::int16_t(3 * std::int16_t(e)));
    const auto o3 = golden::conv(w3);
    for (std::size_t i = 0; i < o3.size(); ++i) REQUIRE(std::int32_t(o3[i]) == 3 * std::int32_t(o1[i]));
  }
}

TEST_CASE("dilation equals the zero-inserted kernel, bit for bit", "[golden]") {
  std::mt19937_64 rng(7);
  for (int t = 0; t < 60; ++t) {
    const Layer l = random_layer(rng);
    for (Arithmetic a : {Arithmetic::fp16, Arithmetic::int8}) {
      const ConvOperands ops = make_random_operands(l, a, 300 + t);
      Layer z = l;
      z.ky = l.extent_y(); z.kx = l.extent_x(); z.dy = z.dx = 1;
      ConvOperands zops{z, a, ops.ifmap, std::vector<ElemBits>(std::size_t(z.weight_elems()), 0)};
      for (int k = 0; k < l.k; ++k)
        for (int c = 0; c < l.c; ++c)
          for (int y = 0; y < l.ky; ++y)
            for (int x = 0; x < l.kx; ++x)
              zops.weights[idx4(k, c, y * l.dy, x * l.dx, l.c, z.ky, z.kx)] = ops.weights[idx4(k, c, y, x, l.c, l.ky, l.kx)];
      REQUIRE(golden::conv(ops) == golden::conv(zops));
    }
  }
}

TEST_CASE("stride equals the subsampled stride-1 result, bit for bit", "[golden]") {
  std::mt19937_64 rng(9);
  for (int t = 0; t < 60; ++t) {
    const Layer l = random_layer(rng);
    const ConvOperands ops = make_random_operands(l, Arithmetic::fp16, 400 + t);
    Layer s1 = l;
    s1.sy = s1.sx = 1;
    const ConvOperands ops1{s1, ops.arithmetic, ops.ifmap, ops.weights};
    const auto out = golden::conv(ops), out1 = golden::conv(ops1);
    for (int n = 0; n < l.n; ++n)
      for (int k = 0; k < l.k; ++k)
        for (int y = 0; y < l.ho(); ++y)
          for (int x = 0; x < l.wo(); ++x)
            REQUIRE(out[idx4(n, k, y, x, l.k, l.ho(), l.wo())] ==
                    out1[idx4(n, k, y * l.sy, x * l.sx, l.k, s1.ho(), s1.wo())]);
  }
}

TEST_CASE("padding equals an explicitly padded input, bit for bit", "[golden]") {
  std::mt19937_64 rng(13);
  for (int t = 0; t < 60; ++t) {
    const Layer l = random_layer(rng);
    for (bool gating : {true, false}) {
      const ConvOperands ops = make_random_operands(l, Arithmetic::fp16, 500 + t);
      Layer p = l;
      p.h = l.h + l.pt + l.pb; p.w = l.w + l.pl + l.pr;
      p.pt = p.pb = p.pl = p.pr = 0;
      ConvOperands pops{p, ops.arithmetic, std::vector<ElemBits>(std::size_t(p.ifmap_elems()), 0), ops.weights};
      for (int n = 0; n < l.n; ++n)
        for (int c = 0; c < l.c; ++c)
          for (int y = 0; y < l.h; ++y)
            for (int x = 0; x < l.w; ++x)
              pops.ifmap[idx4(n, c, y + l.pt, x + l.pl, l.c, p.h, p.w)] = ops.ifmap[idx4(n, c, y, x, l.c, l.h, l.w)];
      golden::ConvOptions opt;
      opt.zero_gating = gating;
      REQUIRE(golden::conv(ops, opt) == golden::conv(pops, opt));
    }
  }
}

TEST_CASE("splitting input channels with a preload gives the same bits (channel tiling)", "[golden]") {
  std::mt19937_64 rng(17);
  for (int t = 0; t < 40; ++t) {
    Layer l = random_layer(rng);
    l.c = std::uniform_int_distribution<int>(2, 6)(rng);
    const ConvOperands ops = make_random_operands(l, Arithmetic::fp16, 600 + t);
    const int c1 = std::uniform_int_distribution<int>(1, l.c - 1)(rng);
    auto part = [&](int c0, int cn) {
      Layer pl = l;
      pl.c = cn;
      ConvOperands p{pl, ops.arithmetic, {}, {}};
      for (int n = 0; n < l.n; ++n)
        for (int c = c0; c < c0 + cn; ++c)
          for (int i = 0; i < l.h * l.w; ++i)
            p.ifmap.push_back(ops.ifmap[(std::size_t(n) * l.c + c) * l.h * l.w + i]);
      for (int k = 0; k < l.k; ++k)
        for (int c = c0; c < c0 + cn; ++c)
          for (int i = 0; i < l.ky * l.kx; ++i)
            p.weights.push_back(ops.weights[(std::size_t(k) * l.c + c) * l.ky * l.kx + i]);
      return p;
    };
    const auto first = golden::conv(part(0, c1));
    golden::ConvOptions opt;
    opt.preload = &first;
    REQUIRE(golden::conv(part(c1, l.c - c1), opt) == golden::conv(ops));
  }
}

TEST_CASE("fp16 golden stays close to float64", "[golden]") {
  Layer l = make_layer(16, 12, 12, 8, 3, 3);
  l.pt = l.pb = l.pl = l.pr = 1;
  const ConvOperands ops = make_random_operands(l, Arithmetic::fp16, 21);
  const auto out = golden::conv(ops);
  const auto ref = golden::conv_f64(ops);
  for (std::size_t i = 0; i < out.size(); ++i) {
    // 144 terms of magnitude <= 1: FP16 accumulation error stays well below 0.1 here.
    REQUIRE(std::abs(acc_value(out[i], Arithmetic::fp16) - ref[i]) < 0.1);
  }
}

TEST_CASE("golden int16 accumulation saturates at the int32 limits in reduction order", "[golden]") {
  // 1x1 convolution over 4 channels: three products of 32767^2 = 1073676289 pass INT32_MAX (the
  // third clamps), the fourth subtracts one from the clamped value; an unclamped sum would end
  // at 2 * 1073676289. Then the same towards INT32_MIN.
  Layer l = make_layer(4, 1, 1, 2, 1, 1);
  const ElemBits big = ElemBits(32767), neg = ElemBits(std::uint16_t(std::int16_t(-32767)));
  ConvOperands ops{l, Arithmetic::int16, {big, big, big, neg}, {big, big, big, big, neg, neg, neg, neg}};
  const auto out = golden::conv(ops);
  REQUIRE(out.size() == 2);
  CHECK(std::int32_t(out[0]) == 2147483647 - 1073676289);
  CHECK(std::int32_t(out[1]) == -2147483647 - 1 + 1073676289);
}
