// Unit tests of base/numerics/int_mac.h: the int8/int16 multiply-accumulate of the integer PEs
// with an int32 accumulator that saturates (clamps) instead of wrapping, checked against an
// int64 model that clamps explicitly after every step.
#include <catch2/catch.hpp>

#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "base/numerics/int_mac.h"

namespace {

namespace im = flycol::intmac;

constexpr std::int64_t kMin = std::numeric_limits<std::int32_t>::min();
constexpr std::int64_t kMax = std::numeric_limits<std::int32_t>::max();

// Written independently of saturate(): the model the PE documentation describes.
std::int64_t clamp32(std::int64_t v) {
  if (v > kMax) return kMax;
  if (v < kMin) return kMin;
  return v;
}

}  // namespace

TEST_CASE("saturate clamps to the int32 range and passes everything inside", "[intmac]") {
  CHECK(im::saturate(0) == 0);
  CHECK(im::saturate(-1) == -1);
  CHECK(im::saturate(kMax) == kMax);
  CHECK(im::saturate(kMin) == kMin);
  CHECK(im::saturate(kMax + 1) == kMax);
  CHECK(im::saturate(kMin - 1) == kMin);
  CHECK(im::saturate(kMax - 1) == kMax - 1);
  CHECK(im::saturate(kMin + 1) == kMin + 1);
  CHECK(im::saturate(std::numeric_limits<std::int64_t>::max()) == kMax);
  CHECK(im::saturate(std::numeric_limits<std::int64_t>::min()) == kMin);
  CHECK(im::saturate(std::int64_t(1) << 40) == kMax);
  CHECK(im::saturate(-(std::int64_t(1) << 40)) == kMin);
}

TEST_CASE("int8 x int8 products are exact for all 65536 operand pairs", "[intmac]") {
  // Accumulators chosen so that every product either fits or pushes the sum past a limit.
  const std::int32_t accs[] = {0, 1, -1, 12345, -12345, std::int32_t(kMax), std::int32_t(kMin),
                               std::int32_t(kMax - 16384), std::int32_t(kMin + 16384)};
  std::uint64_t mismatches = 0;
  for (int a = -128; a <= 127; ++a) {
    for (int b = -128; b <= 127; ++b) {
      if (im::mac(a, b, 0) != a * b) ++mismatches;
      for (std::int32_t acc : accs)
        if (im::mac(a, b, acc) != clamp32(std::int64_t(acc) + a * b)) ++mismatches;
    }
  }
  CHECK(mismatches == 0);
  CHECK(im::mac(-128, -128, 0) == 16384);
  CHECK(im::mac(-128, 127, 0) == -16256);
}

TEST_CASE("int16 corner products fit and saturate correctly", "[intmac]") {
  const std::int32_t corners[] = {-32768, -32767, -1, 0, 1, 32766, 32767, -256, 255, 181, -181};
  for (std::int32_t a : corners) {
    for (std::int32_t b : corners) {
      const std::int64_t p = std::int64_t(a) * b;
      INFO("a=" << a << " b=" << b);
      CHECK(im::mac(a, b, 0) == p);  // |p| <= 2^30: always fits
      for (std::int64_t acc : {kMin, kMin + 1, std::int64_t(-(1 << 30)), std::int64_t(-1), std::int64_t(0),
                               std::int64_t(1 << 30), kMax - 1, kMax})
        CHECK(im::mac(a, b, std::int32_t(acc)) == clamp32(acc + p));
    }
  }
  CHECK(im::mac(-32768, -32768, 0) == (1 << 30));
  CHECK(im::mac(-32768, -32768, 1 << 30) == kMax);  // 2^31 is one past the top
  CHECK(im::mac(-32768, -32768, (1 << 30) - 1) == kMax);
  CHECK(im::mac(-32768, -32768, (1 << 30) - 2) == kMax - 1);
  CHECK(im::mac(-32768, 32767, std::int32_t(kMin)) == kMin);
  CHECK(im::mac(-32768, 32767, -(1 << 30)) == -(1 << 30) - (std::int64_t(1) << 30) + 32768);
  // Landing exactly on -2^31 is representable: no clamp, no off-by-one.
  CHECK(im::mac(-32768, 32767, std::int32_t(kMin + (1 << 30) - 32768)) == kMin);
  CHECK(im::mac(-32768, -32768, std::int32_t(kMax - (1 << 30))) == kMax);
}

TEST_CASE("saturation at both limits and recovery afterwards", "[intmac]") {
  CHECK(im::mac(1, 1, std::int32_t(kMax)) == kMax);
  CHECK(im::mac(-1, 1, std::int32_t(kMin)) == kMin);
  CHECK(im::mac(1, 1, std::int32_t(kMax - 1)) == kMax);
  CHECK(im::mac(-1, 1, std::int32_t(kMin + 1)) == kMin);
  CHECK(im::mac(127, 127, std::int32_t(kMax - 100)) == kMax);
  CHECK(im::mac(-128, 127, std::int32_t(kMin + 100)) == kMin);
  // Saturation is not sticky: the clamped value is an ordinary accumulator afterwards.
  CHECK(im::mac(-1, 1, std::int32_t(kMax)) == kMax - 1);
  CHECK(im::mac(1, 1, std::int32_t(kMin)) == kMin + 1);
  std::int32_t acc = 0;
  for (int i = 0; i < 200000; ++i) acc = im::mac(32767, 32767, acc);
  CHECK(acc == kMax);
  acc = im::mac(-32768, 32767, acc);
  CHECK(acc == kMax - std::int64_t(32768) * 32767);
}

TEST_CASE("accumulation sequences match an int64 model with explicit clamping", "[intmac]") {
  std::mt19937_64 rng(0x1A7AC0001u);
  std::uint64_t steps = 0, mismatches = 0, clamps = 0;
  for (int seq = 0; seq < 2000; ++seq) {
    // Alternate int8 and int16 operands; bias the signs per sequence so that some sequences run
    // into a limit and others wander, and start some near a limit.
    const bool wide = seq % 2 == 1;
    const int lo = wide ? -32768 : -128, hi = wide ? 32767 : 127;
    std::uniform_int_distribution<int> operand(lo, hi);
    const int bias = int(rng() % 3);  // 0: any sign, 1: mostly positive products, 2: mostly negative
    std::int64_t model = 0;
    switch (seq % 4) {
      case 1: model = kMax - std::int64_t(rng() % 100000); break;
      case 2: model = kMin + std::int64_t(rng() % 100000); break;
      default: break;
    }
    std::int32_t acc = std::int32_t(model);
    const int length = 1 + int(rng() % 4000);
    for (int i = 0; i < length; ++i) {
      int a = operand(rng), b = operand(rng);
      if (bias == 1 && (a < 0) != (b < 0) && a != lo && b != lo) b = -b;
      if (bias == 2 && (a < 0) == (b < 0) && b != lo) b = -b;
      const std::int64_t exact = model + std::int64_t(a) * b;
      model = clamp32(exact);
      if (model != exact) ++clamps;
      acc = im::mac(a, b, acc);
      if (acc != model) ++mismatches;
      ++steps;
    }
  }
  INFO(steps << " steps, " << clamps << " clamped");
  CHECK(mismatches == 0);
  CHECK(clamps > 100);  // the sequences really exercised the limits
}
