// The golden pooling (sim/golden/pool.h) against references it shares no code with: the binary16
// average against an exact rational reference written here (bracketing and exact comparison, not
// the golden's direct rounding), random layers with every option against the host's float32
// pooling (sim/graph/host_ops.cpp), the edge rules of docs/microarchitecture.md section 15 by
// hand, and the backward pass against float64 and hand cases. Random cases print their seed;
// FLYCOL_SEED=<seed> reruns one.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <string>

#include <fmt/format.h>

#include "base/numerics/fp16.h"
#include "sim/golden/pool.h"
#include "sim/graph/host_ops.h"

using namespace flycol;
using golden::PoolLayer;
using golden::PoolOp;

namespace {

std::uint64_t seed_or(std::uint64_t fallback) {
  const char* s = std::getenv("FLYCOL_SEED");
  return s ? std::strtoull(s, nullptr, 10) : fallback;
}

// A binary16 value as a double, decoded here from the bit fields.
double h2d(std::uint16_t h) {
  const int e = (h >> 10) & 31, m = h & 1023;
  double v;
  if (e == 31) v = m ? NAN : INFINITY;
  else if (e == 0) v = std::ldexp(double(m), -24);
  else v = std::ldexp(double(m | 1024), e - 25);
  return (h & 0x8000) ? -v : v;
}

// Finite binary16: mostly N(0, sigma), one in 4 any finite encoding (subnormals, +-0, up to 65504).
std::uint16_t random_half(std::mt19937_64& rng, double sigma = 1.0) {
  if (rng() % 4 == 0) {
    std::uint16_t h;
    do h = std::uint16_t(rng()); while (((h >> 10) & 31) == 31);
    return h;
  }
  std::normal_distribution<double> nd(0.0, sigma);
  return fp16::from_double(nd(rng));
}

// The correctly rounded binary16 of S * 2^-24 / n (S != 0, n >= 1), found without the golden's
// method: a double estimate, then of it and its two neighbours the one nearest to the exact value
// (compared as integers: |S - v*2^24*n|), ties to the even encoding.
std::uint16_t exact_mean(__int128 s, std::int64_t n) {
  const std::uint16_t guess = fp16::from_double(std::ldexp(double(s), -24) / double(n));
  std::uint16_t best = guess;
  __int128 best_err = -1;
  for (int step = -1; step <= 1; ++step) {
    const int mag = int(guess & 0x7FFF) + (guess & 0x8000 ? -step : step);
    std::uint16_t c;
    if (mag < 0) c = std::uint16_t((guess ^ 0x8000) & 0x8000) | std::uint16_t(-mag);  // crossed zero
    else c = std::uint16_t((guess & 0x8000) | mag);
    if (((c >> 10) & 31) == 31) continue;  // Inf / NaN: no mean of finite values rounds there
    const __int128 v = __int128(std::llround(std::ldexp(h2d(c), 24)));  // exact: |v| < 2^40
    __int128 err = s - v * n;
    if (err < 0) err = -err;
    if (best_err < 0 || err < best_err || (err == best_err && (c & 1) == 0 && (best & 1) == 1)) {
      best = c;
      best_err = err;
    }
  }
  return (best & 0x7FFF) == 0 ? 0 : best;  // a zero mean is +0 (the sum was not zero, so never here)
}

graph::Node pool_node(const PoolLayer& l) {
  graph::Node n;
  n.name = "p";
  n.op = l.op == PoolOp::max ? "MaxPool" : "AveragePool";
  n.attrs["kernel_shape"] = {double(l.ky), double(l.kx)};
  n.attrs["strides"] = {double(l.sy), double(l.sx)};
  n.attrs["dilations"] = {double(l.dy), double(l.dx)};
  n.attrs["pads"] = {double(l.pt), double(l.pl), double(l.pb), double(l.pr)};
  n.attrs["ceil_mode"] = {l.ceil_mode ? 1.0 : 0.0};
  n.attrs["count_include_pad"] = {l.count_include_pad ? 1.0 : 0.0};
  return n;
}

PoolLayer random_layer(std::mt19937_64& rng) {
  const auto pick = [&](int lo, int hi) { return lo + int(rng() % std::uint64_t(hi - lo + 1)); };
  PoolLayer l;
  l.op = rng() % 2 ? PoolOp::max : PoolOp::avg;
  l.n = pick(1, 2), l.c = pick(1, 3);
  l.ky = pick(1, 5), l.kx = pick(1, 5);
  l.sy = pick(1, 4), l.sx = pick(1, 4);
  l.dy = l.op == PoolOp::max || rng() % 3 == 0 ? pick(1, 3) : 1;
  l.dx = l.op == PoolOp::max || rng() % 3 == 0 ? pick(1, 3) : 1;
  l.pt = pick(0, l.extent_y() - 1), l.pb = pick(0, l.extent_y() - 1);
  l.pl = pick(0, l.extent_x() - 1), l.pr = pick(0, l.extent_x() - 1);
  l.h = pick(std::max(1, l.extent_y() - l.pt - l.pb), 13);
  l.w = pick(std::max(1, l.extent_x() - l.pl - l.pr), 13);
  l.ceil_mode = rng() % 2;
  l.count_include_pad = rng() % 2;
  return l;
}

std::string spec(const PoolLayer& l) {
  return fmt::format("{} N={} C={} H={} W={} k={}x{} s={}x{} d={}x{} pads t{} b{} l{} r{} ceil={} include_pad={}",
                     l.op == PoolOp::max ? "max" : "avg", l.n, l.c, l.h, l.w, l.ky, l.kx, l.sy, l.sx, l.dy, l.dx,
                     l.pt, l.pb, l.pl, l.pr, l.ceil_mode, l.count_include_pad);
}

}  // namespace

TEST_CASE("the binary16 average is the correctly rounded mean of its inputs", "[golden][pool]") {
  const std::uint64_t seed = seed_or(20261126);
  INFO("seed " << seed << " (FLYCOL_SEED=" << seed << " build/tests/golden/golden_test \"the binary16 average*\")");
  std::mt19937_64 rng(seed);
  int checked = 0;
  for (int t = 0; t < 4000; ++t) {
    // A 1 x W global average: its window is the whole row, its count W.
    const int w = 1 + int(rng() % (t % 10 == 0 ? 700 : 40));
    const double sigma = std::ldexp(1.0, int(rng() % 30) - 20);  // from tiny (subnormal means) to 2^9
    std::vector<ElemBits> in(static_cast<std::size_t>(w));
    __int128 s = 0;
    for (auto& e : in) {
      e = random_half(rng, sigma);
      s += __int128(std::llround(std::ldexp(h2d(e), 24)));
    }
    const PoolLayer l = PoolLayer::global(PoolOp::avg, 1, 1, 1, w);
    const std::uint16_t got = std::uint16_t(golden::pool(l, Arithmetic::fp16, in).at(0));
    const std::uint16_t want = s == 0 ? 0 : exact_mean(s, w);
    INFO("case " << t << ": W = " << w << ", got 0x" << std::hex << got << ", want 0x" << want);
    REQUIRE(got == want);
    ++checked;
  }
  CHECK(checked == 4000);
}

TEST_CASE("the integer average rounds to nearest with ties away from zero", "[golden][pool]") {
  const auto avg = [](std::vector<int> v, Arithmetic a) {
    std::vector<ElemBits> in;
    for (int x : v) in.push_back(ElemBits(std::uint16_t(a == Arithmetic::int8 ? std::uint8_t(std::int8_t(x)) : std::uint16_t(std::int16_t(x)))));
    return std::int32_t(golden::pool(PoolLayer::global(PoolOp::avg, 1, 1, 1, int(v.size())), a, in).at(0));
  };
  CHECK(avg({1, 2}, Arithmetic::int8) == 2);      // 1.5
  CHECK(avg({-1, -2}, Arithmetic::int8) == -2);   // -1.5
  CHECK(avg({1, 1, 2}, Arithmetic::int8) == 1);   // 1.33
  CHECK(avg({2, 2, 1}, Arithmetic::int8) == 2);   // 1.67
  CHECK(avg({-128, -128, 127}, Arithmetic::int8) == -43);  // -43
  CHECK(avg({-5, 2}, Arithmetic::int8) == -2);    // -1.5
  CHECK(avg({32767, 32767, 32766}, Arithmetic::int16) == 32767);
  std::mt19937_64 rng(seed_or(7));
  for (int t = 0; t < 2000; ++t) {
    std::vector<int> v(1 + rng() % 50);
    std::int64_t s = 0;
    for (int& x : v) s += (x = int(rng() % 65536) - 32768);
    // std::lround rounds halves away from zero; s / n is exact enough in double for |s| < 2^22.
    CHECK(avg(v, Arithmetic::int16) == std::lround(double(s) / double(v.size())));
  }
}

TEST_CASE("edge rules: padding never wins, first of equals, NaN, Inf, empty windows", "[golden][pool]") {
  const auto one = [](PoolLayer l, std::vector<std::uint16_t> v) {
    return std::uint16_t(golden::pool(l, Arithmetic::fp16, std::vector<ElemBits>(v.begin(), v.end())).at(0));
  };
  PoolLayer row = PoolLayer::global(PoolOp::max, 1, 1, 1, 2);
  CHECK(one(row, {0x0000, 0x8000}) == 0x0000);  // +0 first
  CHECK(one(row, {0x8000, 0x0000}) == 0x8000);  // -0 first stays
  CHECK(one(row, {0xBC00, 0x7E01}) == 0x7E00);  // NaN: canonical
  CHECK(one(row, {0xFC00, 0xFC00}) == 0xFC00);  // -Inf is a value
  // Padding never wins: all-negative input with pads on every side.
  PoolLayer padded;
  padded.h = padded.w = 1;
  padded.ky = padded.kx = 3;
  padded.pt = padded.pb = padded.pl = padded.pr = 1;
  CHECK(one(padded, {0xC000}) == 0xC000);  // -2, not the padding's 0
  padded.op = PoolOp::avg;
  CHECK(one(padded, {0xC000}) == 0xC000);  // average of the one valid element
  padded.count_include_pad = true;
  CHECK(h2d(one(padded, {0xC000})) == Approx(-2.0 / 9).epsilon(1e-3));
  // An empty window: H = 1, pad 1 on top, taps 3 rows apart (rows -1 and 2), pad 2 below.
  PoolLayer empty;
  empty.h = 1, empty.w = 1, empty.ky = 2, empty.dy = 3, empty.pt = 1, empty.pb = 2;
  REQUIRE(empty.problem().empty());
  REQUIRE(empty.ho() == 1);
  CHECK(one(empty, {0x3C00}) == 0xFC00);
  empty.op = PoolOp::avg;
  CHECK(one(empty, {0x3C00}) == 0x7E00);
  // Average specials.
  PoolLayer avg2 = PoolLayer::global(PoolOp::avg, 1, 1, 1, 2);
  CHECK(one(avg2, {0x7C00, 0x3C00}) == 0x7C00);
  CHECK(one(avg2, {0x7C00, 0xFC00}) == 0x7E00);
  CHECK(one(avg2, {0x3C00, 0xBC00}) == 0x0000);
  CHECK(one(avg2, {0x7BFF, 0x7BFF}) == 0x7BFF);  // 65504: the exact sum does not overflow
  // ceil_mode: W = 5, k = 2, s = 2 gives 3 outputs (the last window half in the end padding),
  // W = 4 with a window that would start in the end padding gives 2.
  PoolLayer c;
  c.h = 1, c.w = 5, c.kx = 2, c.sx = 2, c.ceil_mode = true;
  CHECK(c.wo() == 3);
  c.w = 4;
  CHECK(c.wo() == 2);
  c.ceil_mode = false, c.w = 5;
  CHECK(c.wo() == 2);
  // Malformed layers.
  PoolLayer bad;
  bad.sx = 0;
  CHECK(bad.problem() == "sx = 0: must be >= 1");
  bad.sx = 1, bad.kx = 4;
  CHECK(bad.problem().find("wider than the padded input") != std::string::npos);
  CHECK_THROWS_AS(golden::pool(bad, Arithmetic::fp16, {0}), std::invalid_argument);
}

TEST_CASE("random pooling layers agree with the host's float32 pooling", "[golden][pool]") {
  const std::uint64_t seed = seed_or(1126);
  std::mt19937_64 rng(seed);
  for (int t = 0; t < 600; ++t) {
    const PoolLayer l = random_layer(rng);
    INFO("seed " << seed << ", case " << t << ": " << spec(l) << " (FLYCOL_SEED=" << seed
                 << " build/tests/golden/golden_test \"random pooling*\")");
    REQUIRE(l.problem().empty());
    std::vector<ElemBits> in(std::size_t(l.ifmap_elems()));
    graph::F32 x;
    x.shape = {l.n, l.c, l.h, l.w};
    for (auto& e : in) {
      e = random_half(rng, 4.0);
      x.v.push_back(float(h2d(e)));
    }
    const std::vector<AccBits> got = golden::pool(l, Arithmetic::fp16, in);
    const std::vector<double> f64 = golden::pool_f64(l, Arithmetic::fp16, in);
    const std::vector<graph::F32> ref = graph::run_host_node(pool_node(l), {x}, 13);
    REQUIRE(ref.at(0).v.size() == got.size());
    REQUIRE(ref[0].shape == graph::Shape({l.n, l.c, l.ho(), l.wo()}));
    for (std::size_t i = 0; i < got.size(); ++i) {
      const double g = h2d(std::uint16_t(got[i])), r = double(ref[0].v[i]);
      INFO("output " << i << ": golden " << g << ", host " << r << ", float64 " << f64[i]);
      if (l.op == PoolOp::max) {
        CHECK(g == r);  // a choice, never rounded
        CHECK(g == f64[i]);
      } else if (std::isnan(r) || std::isnan(g)) {
        CHECK((std::isnan(r) || std::isnan(g)));  // empty windows: the host divides by max(count, 1)
      } else {
        // One rounding of the exact mean: at most half an ulp (2^-11 relative, 2^-25 absolute).
        CHECK(std::fabs(g - f64[i]) <= std::ldexp(std::fabs(f64[i]), -11) + std::ldexp(1.0, -25));
        CHECK(std::fabs(g - r) <= std::ldexp(std::fabs(r), -11) + std::ldexp(1.0, -24));
      }
    }
  }
}

TEST_CASE("backward pooling scatters the gradient to the argmax or over the window", "[golden][pool]") {
  // Hand case: 1 x 4 input [1, 3, 2, 5], max 2-wide stride 1 -> argmax 1, 1, 3; the middle input 3
  // gets two gradients.
  PoolLayer l;
  l.h = 1, l.w = 4, l.kx = 2;
  const std::vector<ElemBits> in = {0x3C00, 0x4200, 0x4000, 0x4500};  // 1, 3, 2, 5
  CHECK(golden::pool_argmax(l, Arithmetic::fp16, in) == std::vector<std::int64_t>({1, 1, 3}));
  const std::vector<AccBits> g = {0x3C00, 0x4000, 0x4200};  // 1, 2, 3
  std::vector<AccBits> gin = golden::pool_backward(l, Arithmetic::fp16, in, g);
  CHECK(gin == std::vector<AccBits>({0x0000, 0x4200, 0x0000, 0x4200}));  // 1 + 2 at the 3, 3 at the 5
  // Overlapping windows: [5, 1, 1] with k = 2, s = 1 sends both gradients to the 5.
  const std::vector<ElemBits> peak = {0x4500, 0x3C00, 0x3C00};
  l.w = 3;
  gin = golden::pool_backward(l, Arithmetic::fp16, peak, {0x3C00, 0x4000});
  CHECK(gin == std::vector<AccBits>({0x3C00, 0x4000, 0x0000}));  // 1 to the 5, 2 to the first 1 (first of equals)
  // Average, int8: gradient 7 over a 2-wide window is 3.5 -> 4 each (ties away from zero).
  PoolLayer a = PoolLayer::global(PoolOp::avg, 1, 1, 1, 2);
  CHECK(golden::pool_backward(a, Arithmetic::int8, {}, {AccBits(7)}) == std::vector<AccBits>({4, 4}));
  CHECK(golden::pool_backward(a, Arithmetic::int8, {}, {AccBits(std::uint32_t(-7))}) ==
        std::vector<AccBits>({AccBits(std::uint32_t(-4)), AccBits(std::uint32_t(-4))}));

  // Random layers against float64: fp16 within its roundings, int max exactly, int average within
  // half a unit per share.
  const std::uint64_t seed = seed_or(2611);
  std::mt19937_64 rng(seed);
  for (int t = 0; t < 300; ++t) {
    const PoolLayer r = random_layer(rng);
    INFO("seed " << seed << ", case " << t << ": " << spec(r) << " (FLYCOL_SEED=" << seed
                 << " build/tests/golden/golden_test \"backward pooling*\")");
    for (const Arithmetic arith : {Arithmetic::fp16, Arithmetic::int16}) {
      std::vector<ElemBits> x(std::size_t(r.ifmap_elems()));
      std::vector<AccBits> gy(std::size_t(r.ofmap_elems()));
      for (auto& e : x) e = arith == Arithmetic::fp16 ? random_half(rng) : ElemBits(rng() % 65536);
      for (auto& e : gy)
        e = arith == Arithmetic::fp16 ? AccBits(fp16::from_double(std::normal_distribution<double>(0, 1)(rng)))
                                      : AccBits(std::uint32_t(int(rng() % 2001) - 1000));
      const std::vector<AccBits> got = golden::pool_backward(r, arith, x, gy);
      const std::vector<double> f64 = golden::pool_backward_f64(r, arith, x, gy);
      const std::int64_t window = std::int64_t(r.ky) * r.kx;
      for (std::size_t i = 0; i < got.size(); ++i) {
        if (arith == Arithmetic::fp16) {
          const double v = h2d(std::uint16_t(got[i]));
          // Max: the exact sum of fp16 gradients, rounded once. Average: each share is rounded
          // once (2^-11 relative, |g| < 6, at most `window` shares), then the exact sum once.
          const double once = std::ldexp(std::fabs(f64[i]), -11) + std::ldexp(1.0, -25);
          if (r.op == PoolOp::max) CHECK(std::fabs(v - f64[i]) <= once);
          else CHECK(std::fabs(v - f64[i]) <= once + double(window) * (std::ldexp(6.0, -11) + std::ldexp(1.0, -25)));
        } else if (r.op == PoolOp::max) {
          CHECK(double(std::int32_t(got[i])) == f64[i]);
        } else {
          CHECK(std::fabs(double(std::int32_t(got[i])) - f64[i]) <= 0.5 * double(window) + 1e-9);
        }
      }
    }
  }
}
