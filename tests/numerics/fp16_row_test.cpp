// The vectorized array-row kernel must be bit-exact with the scalar PE MAC for every input,
// including the infinities and NaNs that send it down its fallback path, and must count gated
// MACs the same way; its AVX2 and portable compiled forms must agree with each other directly.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>

#include "base/numerics/fp16.h"
#include "base/numerics/fp16_row.h"
#include "sim/golden/fp16_exact.h"  // header only: the independent reference MAC

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

namespace {

std::uint32_t raw(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

// A half of a class the array may see: +-0, subnormal, normal near 1, any normal, +-max, +-inf,
// NaN of any payload.
fp16::Bits draw_half(std::mt19937_64& rng) {
  const std::uint64_t x = rng();
  const fp16::Bits sign = fp16::Bits((x >> 63) << 15);
  switch (x % 16) {
    case 0: case 1: return sign;
    case 2: case 3: return fp16::Bits(sign | (1 + (x >> 8) % 0x3FF));
    case 4: return fp16::Bits(sign | fp16::kMaxNormal);
    case 5: return fp16::Bits(sign | fp16::kPosInf);
    case 6: return fp16::Bits(sign | 0x7C00 | (1 + (x >> 8) % 0x3FF));
    case 7: case 8: return fp16::Bits(sign | (((x >> 8) % 30 + 1) << 10) | ((x >> 20) & 0x3FF));
    default: return fp16::Bits(sign | (((x >> 8) % 6 + 12) << 10) | ((x >> 20) & 0x3FF));
  }
}

}  // namespace

TEST_CASE("mac_rows: the AVX2 and the portable forms give the same bits on the same rows", "[fp16][row]") {
  // Every length 1..64 (the AVX2 form's 8-lane body and every tail), 1..4 rows, gating on and off,
  // operands from every class; each form against the other (raw float bits) and
  // against the golden model's integer MAC, which shares no code with mac_row.
  std::uint64_t seed = 1414;
  if (const char* s = std::getenv("FLYCOL_TEST_SEED")) seed = std::strtoull(s, nullptr, 0);
  std::printf("mac_rows forms: seed %llu (reproduce: FLYCOL_TEST_SEED=%llu numerics_test \"mac_rows: the AVX2 "
              "and the portable forms give the same bits on the same rows\")\n",
              static_cast<unsigned long long>(seed), static_cast<unsigned long long>(seed));
  const bool avx2 = fp16::mac_rows_avx2_available();
  if (!avx2) std::printf("mac_rows forms: this CPU or build has no AVX2 form; checking the portable form only\n");
  std::mt19937_64 rng(seed);
  constexpr int kRows = 4, N = fp16::kMaxRowLanes;
  std::uint64_t rows_checked = 0;
  for (int rep = 0; rep < 120; ++rep)
    for (int n = 1; n <= N; ++n)
      for (int gating = 0; gating < 2; ++gating) {
        const int rows = 1 + int(rng() % kRows);
        // Some rows all finite (the vector path proper), the others with specials (its fallback).
        const bool finite_only = rng() % 2 == 0;
        fp16::Bits a[kRows], w[N], acc0[kRows * N];
        auto pick = [&]() {
          fp16::Bits h = draw_half(rng);
          while (finite_only && !fp16::is_finite(h)) h = draw_half(rng);
          return h;
        };
        for (int r = 0; r < rows; ++r) a[r] = pick();
        for (int i = 0; i < n; ++i) w[i] = pick();
        for (int i = 0; i < rows * n; ++i) acc0[i] = pick();
        float af[kRows], wf[N], acc_p[kRows * N], acc_v[kRows * N];
        for (int r = 0; r < rows; ++r) af[r] = fp16::to_float(a[r]);
        for (int i = 0; i < n; ++i) wf[i] = fp16::to_float(w[i]);
        for (int i = 0; i < rows * n; ++i) acc_p[i] = acc_v[i] = fp16::to_float(acc0[i]);
        const int gated_p = fp16::mac_rows_portable(af, wf, acc_p, rows, n, gating != 0);
        const int gated_v = avx2 ? fp16::mac_rows_avx2(af, wf, acc_v, rows, n, gating != 0) : gated_p;
        int want_gated = 0;
        for (int r = 0; r < rows; ++r)
          for (int i = 0; i < n; ++i) {
            const int k = r * n + i;
            INFO("n=" << n << " rows=" << rows << " gating=" << gating << " row " << r << " lane " << i << ": a="
                      << a[r] << " w=" << w[i] << " acc=" << acc0[k] << " (rep " << rep << ")");
            // Raw float bits, -0 included; NaNs only as NaN: which operand's payload a float
            // multiply passes on is up to the compiler's operand order (the two forms differ
            // there), and the array turns every NaN a MAC produces into the canonical one.
            if (avx2 && !(std::isnan(acc_v[k]) && std::isnan(acc_p[k]))) REQUIRE(raw(acc_v[k]) == raw(acc_p[k]));
            want_gated += gating && (golden::half::zero(a[r]) || golden::half::zero(w[i]));
            fp16::Bits want = golden::half::mac(a[r], w[i], acc0[k], gating != 0);
            if (golden::half::nan(want)) want = fp16::kCanonicalNaN;
            REQUIRE(bits(acc_p[k]) == want);
          }
        REQUIRE(gated_p == want_gated);
        REQUIRE(gated_v == want_gated);
        rows_checked += std::uint64_t(rows);
      }
  std::printf("mac_rows forms: %llu rows compared%s\n", static_cast<unsigned long long>(rows_checked),
              avx2 ? " (AVX2 against portable, both against the golden MAC)" : " (portable against the golden MAC)");
}
