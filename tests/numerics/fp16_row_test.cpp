// The vectorized array-row kernel must be bit-exact with the scalar PE MAC for every input,
// including the infinities and NaNs that send it down its fallback path, and must count gated
// MACs the same way.
#include <catch2/catch.hpp>

#include <random>

#include "base/numerics/fp16.h"
#include "base/numerics/fp16_row.h"

using namespace flycol;

namespace {

// Bits of a half-in-float value, with every NaN folded to the canonical one.
fp16::Bits bits(float f) { return fp16::from_float(f); }

void check_row(fp16::Bits a, const fp16::Bits* w, const fp16::Bits* acc, int n, bool gating) {
  float wf[fp16::kMaxRowLanes], accf[fp16::kMaxRowLanes];
  for (int i = 0; i < n; ++i) {
    wf[i] = fp16::to_float(w[i]);
    accf[i] = fp16::to_float(acc[i]);
  }
  const int gated = fp16::mac_row(fp16::to_float(a), wf, accf, n, gating);
  int expect_gated = 0;
  for (int i = 0; i < n; ++i) {
    const bool g = gating && (fp16::is_zero(a) || fp16::is_zero(w[i]));
    expect_gated += g;
    const fp16::Bits want = fp16::mac(a, w[i], acc[i], gating);
    INFO("a=" << a << " w=" << w[i] << " acc=" << acc[i] << " gating=" << gating);
    REQUIRE(bits(accf[i]) == (fp16::is_nan(want) ? fp16::kCanonicalNaN : want));
  }
  REQUIRE(gated == expect_gated);
}

}  // namespace

TEST_CASE("mac_row equals the scalar MAC on random rows", "[fp16][row]") {
  std::mt19937_64 rng(2024);
  std::uniform_int_distribution<int> any(0, 0xFFFF), len(1, fp16::kMaxRowLanes);
  std::uniform_real_distribution<float> unit(-1.0f, 1.0f);
  fp16::Bits w[fp16::kMaxRowLanes], acc[fp16::kMaxRowLanes];
  for (int t = 0; t < 200000; ++t) {
    const int n = t % 3 == 0 ? 16 : len(rng);
    const bool raw = t % 2 == 0;  // raw bit patterns hit every class; unit values the common case
    auto draw = [&]() { return raw ? fp16::Bits(any(rng)) : fp16::from_float(unit(rng)); };
    const fp16::Bits a = draw();
    for (int i = 0; i < n; ++i) {
      w[i] = t % 7 == 0 && i % 3 == 0 ? fp16::Bits(0x8000 * (i & 1)) : draw();
      acc[i] = draw();
    }
    check_row(a, w, acc, n, t % 5 != 0);
  }
}

TEST_CASE("mac_row handles a zero activation, infinities and NaN", "[fp16][row]") {
  const fp16::Bits specials[] = {0x0000, 0x8000, 0x0001, 0x03FF, 0x0400, 0x3C00, 0xBC00, 0x7BFF,
                                 0xFBFF, 0x7C00, 0xFC00, 0x7E00, 0x7C01, 0xFE00};
  fp16::Bits w[14], acc[14];
  for (fp16::Bits a : specials)
    for (int rot = 0; rot < 14; ++rot) {
      for (int i = 0; i < 14; ++i) {
        w[i] = specials[(i + rot) % 14];
        acc[i] = specials[(3 * i + rot) % 14];
      }
      check_row(a, w, acc, 14, true);
      check_row(a, w, acc, 14, false);
    }
}
