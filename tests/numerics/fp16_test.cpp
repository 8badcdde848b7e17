// Unit tests of base/numerics/fp16.h: fma, mul, mac, the half-in-float variants and the
// conversions, checked bit for bit against the integer-only reference in fp16_reference.h on
// special values, ties, random triples and (hidden, [.slow]) all 2^32 multiplier operand pairs.
#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <limits>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "base/numerics/fp16.h"
#include "tests/numerics/fp16_reference.h"

namespace {

namespace fp = flycol::fp16;
using fp16ref::Half;

std::uint32_t fbits(float f) { std::uint32_t u; std::memcpy(&u, &f, 4); return u; }
float fval(std::uint32_t u) { float f; std::memcpy(&f, &u, 4); return f; }
std::uint64_t dbits(double d) { std::uint64_t u; std::memcpy(&u, &d, 8); return u; }
double dval(std::uint64_t u) { double d; std::memcpy(&d, &u, 8); return d; }

std::string hex(std::uint64_t v, int digits = 4) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%0*llX", digits, static_cast<unsigned long long>(v));
  return buf;
}

// Collects mismatches instead of asserting per case: millions of Catch assertions would dominate
// the run time, and the first few operand sets are what one needs to debug a failure.
class Mismatches {
 public:
  void add(const std::string& what) {
    ++count_;
    if (first_.size() < 12) first_.push_back(what);
  }
  void report(const char* label, std::uint64_t checked) const {
    std::cout << label << ": " << checked << " cases checked, " << count_ << " mismatches\n";
    for (const std::string& m : first_) FAIL_CHECK(m);
    CHECK(count_ == 0);
  }
  std::uint64_t count() const { return count_; }

 private:
  std::uint64_t count_ = 0;
  std::vector<std::string> first_;
};

std::string pair_msg(const char* op, Half a, Half b, Half got, Half want) {
  return std::string(op) + "(" + hex(a) + ", " + hex(b) + ") = " + hex(got) + ", reference " + hex(want);
}
std::string triple_msg(const char* op, Half a, Half b, Half c, Half got, Half want) {
  return std::string(op) + "(" + hex(a) + ", " + hex(b) + ", " + hex(c) + ") = " + hex(got) +
         ", reference " + hex(want);
}

// Values where binary16 arithmetic has edges: signed zeros, subnormals and the subnormal/normal
// boundary, 2^-11 (half an ulp of 1) and its neighbours, 1 and its neighbours, significands that
// make tie products (1.25, 1.5, 1.75), operands of the 65520 overflow threshold, the largest
// normals, infinities, and quiet and signalling NaNs with payloads and both signs.
const std::vector<Half> kSpecials = {
    0x0000, 0x8000,                                                          // +-0
    0x0001, 0x8001, 0x0002, 0x0003, 0x0007, 0x0008, 0x0009, 0x0155, 0x0200,  // subnormals
    0x03FF, 0x83FF,                                                          // largest subnormal
    0x0400, 0x8400, 0x0401, 0x07FF, 0x0800,                                  // smallest normals
    0x0FFF, 0x1000, 0x9000, 0x1001,                                          // around 2^-11
    0x2000, 0x2001,                                                          // 2^-7: squares to 2^-14
    0x37FF, 0x3800, 0xB800, 0x3801,                                          // around 0.5
    0x3BFF, 0x3C00, 0xBC00, 0x3C01, 0xBC01, 0x3C02, 0x3C03,                  // around 1
    0x3555, 0x3D00, 0x3E00, 0xBE00, 0x3F00, 0x4000, 0xC000, 0x41FF, 0x4200,  // 1/3, 1.25..3
    0x4201,
    0x4BFF, 0x4C00, 0xCC00,                                                  // 16: 65504+16=65520
    0x5BFF, 0x5C00, 0x6400, 0x6800, 0xE800,                                  // 256, 1024, 2048
    0x7554, 0x7555, 0x7556,  // 21840*3 = 65520; 21824*3.002 = 65514.6; 21856*2.998 = 65525.3
    0x7800, 0x7BFE, 0x7BFF, 0xFBFF,                                          // largest normals
    0x7C00, 0xFC00,                                                          // +-inf
    0x7E00, 0xFE00, 0x7E01, 0x7FFF, 0x7C01, 0xFC01, 0x7D55,                  // qNaN, sNaN
};

// Random operand triples from four distributions, chosen by the caller's index.
class TripleGen {
 public:
  explicit TripleGen(std::uint64_t seed) : rng_(seed) {}

  void next(std::uint64_t i, Half& a, Half& b, Half& c) {
    switch (i % 4) {
      case 0: uniform(a, b, c); break;
      case 1: cancellation(a, b, c); break;
      case 2: subnormal_range(a, b, c); break;
      default: near_tie(a, b, c); break;
    }
  }

 private:
  std::uint32_t below(std::uint32_t n) { return std::uint32_t(rng_() % n); }
  Half sign() { return Half((rng_() & 1) << 15); }
  Half frac() { return Half(rng_() & 0x3FF); }
  Half make(Half s, int field, Half f) { return Half(s | (std::clamp(field, 0, 30) << 10) | f); }
  static int field_of(Half h) { return std::max((h >> 10) & 0x1F, 1); }

  void uniform(Half& a, Half& b, Half& c) {
    const std::uint64_t r = rng_();
    a = Half(r), b = Half(r >> 16), c = Half(r >> 32);
  }

  // |c| close to |a*b| with opposite sign, so that most leading bits cancel.
  void cancellation(Half& a, Half& b, Half& c) {
    a = make(sign(), int(below(31)), frac());
    b = make(sign(), int(below(31)), frac());
    if (rng_() & 1) {
      const Half p = fp16ref::ref_mul(a, b);
      const int mag = std::clamp(int(p & 0x7FFF) + int(below(9)) - 4, 0, 0x7BFF);
      c = Half((~p & 0x8000) | mag);
    } else {
      const Half psign = Half((a ^ b) & 0x8000);
      const Half s = below(4) != 0 ? Half(psign ^ 0x8000) : psign;
      c = make(s, field_of(a) + field_of(b) - 15 + int(below(5)) - 2, frac());
    }
  }

  // Products and addends around 2^-14 down to below 2^-24.
  void subnormal_range(Half& a, Half& b, Half& c) {
    c = make(sign(), int(below(3)), frac());
    const int fa = int(below(21));
    a = make(sign(), fa, frac());
    const int target = int(below(16)) - 13;  // field of the product, 2 = twice the min normal
    b = make(sign(), target + 15 - field_of(a), frac());
    if (rng_() & 1) std::swap(a, b);
  }

  // b has a significand of few bits (1.125 .. 1.875), which makes a*b an exact tie for many a;
  // c is far below the product's ulp, so the sum lies a tiny bit off the tie (or on it, c = 0).
  void near_tie(Half& a, Half& b, Half& c) {
    a = make(sign(), 1 + int(below(30)), frac());
    const int product_field = int(below(41)) - 10;
    b = make(sign(), product_field + 15 - field_of(a), Half((1 + below(7)) << 7));
    if (below(8) == 0) {
      c = sign();
    } else {
      c = make(sign(), product_field - 11 - int(below(15)), frac());
    }
    if (rng_() & 1) std::swap(a, b);
  }

  std::mt19937_64 rng_;
};

// Calls check(a, b, c) on every triple of special values, then on n random triples of `seed`.
template <class Check>
void for_special_and_random_triples(std::uint64_t seed, std::uint64_t n, Check&& check) {
  for (Half a : kSpecials)
    for (Half b : kSpecials)
      for (Half c : kSpecials) check(a, b, c);
  TripleGen gen(seed);
  for (std::uint64_t i = 0; i < n; ++i) {
    Half a, b, c;
    gen.next(i, a, b, c);
    check(a, b, c);
  }
}

// ulp of a finite non-negative half (the gap to the next half up), itself as a half.
Half ulp_of(Half h) {
  const int field = std::max((h >> 10) & 0x1F, 1);
  return field >= 11 ? Half((field - 10) << 10) : Half(1u << (field - 1));
}
Half even_of(Half lo) { return (lo & 1) ? Half(lo + 1) : lo; }

void check_random_fma(std::uint64_t seed, std::uint64_t n, const char* label) {
  TripleGen gen(seed);
  Mismatches bad;
  const auto t0 = std::chrono::steady_clock::now();
  for (std::uint64_t i = 0; i < n; ++i) {
    Half a, b, c;
    gen.next(i, a, b, c);
    const Half want = fp16ref::ref_fma(a, b, c);
    const Half got = fp::fma(a, b, c);
    if (got != want) bad.add(triple_msg("fma", a, b, c, got, want));
  }
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::cout << label << ": " << s << " s\n";
  bad.report(label, n);
}

}  // namespace

TEST_CASE("reference agrees with hand-computed binary16 results", "[fp16]") {
  struct Case { Half a, b, c, want; };
  const Case cases[] = {
      {0x3C00, 0x3C00, 0x3C00, 0x4000},  // 1*1+1 = 2
      {0x3C00, 0x3C00, 0xBC00, 0x0000},  // exact cancellation: +0
      {0xBC00, 0x3C00, 0x3C00, 0x0000},
      {0x8000, 0x3C00, 0x8000, 0x8000},  // -0 + -0 = -0
      {0x0000, 0xBC00, 0x8000, 0x8000},
      {0x0000, 0x3C00, 0x8000, 0x0000},  // +0 + -0 = +0
      {0x8000, 0x8000, 0x8000, 0x0000},  // (-0)(-0) = +0
      {0x7C00, 0x0000, 0x3C00, 0x7E00},  // inf*0
      {0x8000, 0xFC00, 0x3C00, 0x7E00},
      {0x7C00, 0x3C00, 0xFC00, 0x7E00},  // inf - inf
      {0xFC00, 0xBC00, 0x7C00, 0x7C00},
      {0xFC00, 0x3C00, 0x7BFF, 0xFC00},
      {0x3C00, 0x3C00, 0xFC00, 0xFC00},
      {0x7C01, 0x3C00, 0x3C00, 0x7E00},  // signalling NaN
      {0x3C00, 0x3C00, 0xFE01, 0x7E00},
      {0x7BFF, 0x3C00, 0x4C00, 0x7C00},  // 65504 + 16 = 65520 rounds to inf
      {0x7BFF, 0x3C00, 0x4BFF, 0x7BFF},  // 65519.99.. stays finite
      {0x7555, 0x4200, 0x0000, 0x7C00},  // 21840 * 3 = 65520
      {0x7554, 0x4200, 0x0000, 0x7BFE},  // 21824 * 3 = 65472, exact
      {0x7554, 0x4201, 0x0000, 0x7BFF},  // 65514.625: below the threshold
      {0x7556, 0x41FF, 0x0000, 0x7C00},  // 65525.3125: above it
      {0xFBFF, 0x3C01, 0x0000, 0xFC00},
      {0x1000, 0x3C00, 0x3C00, 0x3C00},  // 1 + 2^-11: tie, even is 1
      {0x1000, 0x3C00, 0x3C01, 0x3C02},  // (1+2^-10) + 2^-11: tie, even is up
      {0x1001, 0x3C00, 0x3C00, 0x3C01},  // just above the tie
      {0x0FFF, 0x3C00, 0x3C01, 0x3C01},  // just below the tie
      {0x3C01, 0x3BFF, 0x0009, 0x3C01},  // 1 + 2^-11 + 2^-24: float would round to the tie
      {0x3C01, 0x3BFF, 0x0008, 0x3C00},  // exactly 1 + 2^-11
      {0x0001, 0x3800, 0x03FF, 0x0400},  // 1023.5 * 2^-24 rounds up into the normals
      {0x0001, 0x3800, 0x03FE, 0x03FE},  // 1022.5: tie, even
      {0x0400, 0x3BFF, 0x0000, 0x0400},  // 2^-14 - 2^-25 rounds up across the boundary
      {0x0001, 0x0001, 0x0000, 0x0000},  // 2^-48 underflows to +0
      {0x8001, 0x0001, 0x0000, 0x8000},  // and keeps the sign of the exact result
      {0x0001, 0x3801, 0x0000, 0x0001},  // 2^-25 (1 + 2^-10) is above half the min subnormal
      {0x0001, 0x3800, 0x0000, 0x0000},  // 2^-25 is a tie between 0 and 2^-24
      {0x0003, 0x3800, 0x0000, 0x0002},  // 1.5 * 2^-24 rounds to even 2
  };
  for (const Case& k : cases) {
    INFO(triple_msg("ref_fma", k.a, k.b, k.c, fp16ref::ref_fma(k.a, k.b, k.c), k.want));
    CHECK(fp16ref::ref_fma(k.a, k.b, k.c) == k.want);
    CHECK(fp::fma(k.a, k.b, k.c) == k.want);
  }
}

TEST_CASE("fma and mul match the reference on all triples of special values", "[fp16]") {
  Mismatches bad;
  std::uint64_t checked = 0, naive_wrong = 0;
  for (Half a : kSpecials) {
    for (Half b : kSpecials) {
      const Half want_mul = fp16ref::ref_mul(a, b);
      const Half got_mul = fp::mul(a, b);
      if (got_mul != want_mul) bad.add(pair_msg("mul", a, b, got_mul, want_mul));
      // Two independent reference paths: a*b + (-0) is a*b rounded, zero signs included.
      if (fp16ref::ref_fma(a, b, 0x8000) != want_mul)
        bad.add(triple_msg("ref_fma vs ref_mul", a, b, 0x8000, fp16ref::ref_fma(a, b, 0x8000), want_mul));
      for (Half c : kSpecials) {
        const Half want = fp16ref::ref_fma(a, b, c);
        const Half got = fp::fma(a, b, c);
        if (got != want) bad.add(triple_msg("fma", a, b, c, got, want));
        if (fp16ref::is_nan(want) && want != 0x7E00) bad.add("non-canonical reference NaN");
        ++checked;
        // A float sum rounded a second time: counts how many triples catch double rounding.
        if (fp::from_float(fp::to_float(a) * fp::to_float(b) + fp::to_float(c)) != want) ++naive_wrong;
      }
    }
  }
  bad.report("special triples", checked);
  INFO("special triples where a double-rounded float sum is wrong: " << naive_wrong);
  CHECK(naive_wrong > 0);
}

TEST_CASE("fma rounds ties to even and near-ties correctly for every half", "[fp16]") {
  // c = h plus a product of ulp(h) and 0.5, slightly less, or slightly more: the sum is exactly
  // the midpoint to the next half up, or just below or above it, for every finite h and sign.
  Mismatches bad;
  std::uint64_t checked = 0;
  for (Half h = 0; h <= 0x7BFF; ++h) {
    const Half ulp = ulp_of(h);
    for (Half s : {Half(0), Half(0x8000)}) {
      const Half c = Half(h | s), u = Half(ulp | s);
      const Half tie = Half(even_of(h) | s), up = Half((h + 1) | s);
      const struct { Half b, want; } cases[] = {{0x3800, tie}, {0x37FF, c}, {0x3801, up}};
      for (const auto& k : cases) {
        const Half want_ref = fp16ref::ref_fma(u, k.b, c);
        const Half got = fp::fma(u, k.b, c);
        if (want_ref != k.want) bad.add(triple_msg("ref_fma", u, k.b, c, want_ref, k.want));
        if (got != k.want) bad.add(triple_msg("fma", u, k.b, c, got, k.want));
        ++checked;
      }
    }
  }
  bad.report("tie sweep", checked);
}

TEST_CASE("fma matches the reference on random triples (part 1 of 4)", "[fp16]") {
  check_random_fma(0x5EED0001u, 2'500'000, "random fma part 1");
}
TEST_CASE("fma matches the reference on random triples (part 2 of 4)", "[fp16]") {
  check_random_fma(0x5EED0002u, 2'500'000, "random fma part 2");
}
TEST_CASE("fma matches the reference on random triples (part 3 of 4)", "[fp16]") {
  check_random_fma(0x5EED0003u, 2'500'000, "random fma part 3");
}
TEST_CASE("fma matches the reference on random triples (part 4 of 4)", "[fp16]") {
  check_random_fma(0x5EED0004u, 2'500'000, "random fma part 4");
}

TEST_CASE("mul matches the reference on random pairs", "[fp16]") {
  std::mt19937_64 rng(0x5EED0010u);
  Mismatches bad;
  const std::uint64_t n = 2'000'000;
  for (std::uint64_t i = 0; i < n; ++i) {
    const std::uint64_t r = rng();
    const Half a = Half(r), b = Half(r >> 16);
    const Half want = fp16ref::ref_mul(a, b);
    if (fp::mul(a, b) != want) bad.add(pair_msg("mul", a, b, fp::mul(a, b), want));
    if (fp16ref::ref_fma(a, b, 0x8000) != want) bad.add(triple_msg("ref_fma(-0)", a, b, 0x8000, fp16ref::ref_fma(a, b, 0x8000), want));
  }
  bad.report("random mul", n);
}

TEST_CASE("fma_hf is bit-identical to fma", "[fp16]") {
  Mismatches bad;
  std::uint64_t checked = 0;
  auto check = [&](Half a, Half b, Half c) {
    const Half want = fp::fma(a, b, c);
    const float r = fp::fma_hf(fp::to_float(a), fp::to_float(b), fp::to_float(c));
    const bool ok = fp::is_nan(want) ? std::isnan(r)
                                     : fbits(r) == fp16ref::ref_to_float_bits(want) && fp::from_float(r) == want;
    if (!ok || want != fp16ref::ref_fma(a, b, c))
      bad.add(triple_msg("fma_hf", a, b, c, fp::from_float(r), want) + " (float " + hex(fbits(r), 8) + ")");
    ++checked;
  };
  for_special_and_random_triples(0x5EED0020u, 2'000'000, check);
  bad.report("fma_hf", checked);
}

TEST_CASE("round_to_half equals from_float", "[fp16]") {
  Mismatches bad;
  std::uint64_t checked = 0;
  auto check = [&](std::uint32_t x) {
    const float r = fp::round_to_half(fval(x));
    const Half want = fp16ref::ref_from_float_bits(x);
    const bool ok = fp16ref::is_nan(want) ? std::isnan(r) : fbits(r) == fp16ref::ref_to_float_bits(want);
    if (!ok || fp::from_float(r) != fp::from_float(fval(x)))
      bad.add("round_to_half(" + hex(x, 8) + ") = " + hex(fbits(r), 8) + ", reference " + hex(want));
    ++checked;
  };
  std::mt19937_64 rng(0x5EED0030u);
  for (int i = 0; i < 2'000'000; ++i) {
    const std::uint64_t r = rng();
    check(std::uint32_t(r));
    // Exponents from below the subnormals to above the overflow threshold.
    check(std::uint32_t((r >> 32) & 0x807FFFFFu) | std::uint32_t(95 + (r >> 8) % 50) << 23);
  }
  for (Half h = 0; h <= 0x7BFF; ++h) {
    const float mid = float((double(fval(fp16ref::ref_to_float_bits(h))) +
                             (h == 0x7BFF ? 65536.0 : double(fval(fp16ref::ref_to_float_bits(Half(h + 1)))))) / 2);
    for (std::uint32_t x : {fbits(mid) - 1, fbits(mid), fbits(mid) + 1}) {
      check(x);
      check(x | 0x80000000u);
    }
  }
  bad.report("round_to_half", checked);
}

TEST_CASE("to_float and to_double are exact for all halves", "[fp16]") {
  Mismatches bad;
  for (std::uint32_t i = 0; i < 0x10000; ++i) {
    const Half h = Half(i);
    const float f = fp::to_float(h);
    const double d = fp::to_double(h);
    if (fp16ref::is_nan(h)) {
      const bool neg = (h & 0x8000) != 0;
      if (!std::isnan(f) || std::signbit(f) != neg || !std::isnan(d) || std::signbit(d) != neg)
        bad.add("NaN " + hex(h) + " widened to " + hex(fbits(f), 8) + " / " + hex(dbits(d), 16));
      if (fp::from_float(f) != 0x7E00 || fp::from_double(d) != 0x7E00) bad.add("NaN round trip " + hex(h));
      continue;
    }
    if (fbits(f) != fp16ref::ref_to_float_bits(h))
      bad.add("to_float(" + hex(h) + ") = " + hex(fbits(f), 8) + ", reference " + hex(fp16ref::ref_to_float_bits(h), 8));
    if (dbits(d) != fp16ref::ref_to_double_bits(h))
      bad.add("to_double(" + hex(h) + ") = " + hex(dbits(d), 16) + ", reference " + hex(fp16ref::ref_to_double_bits(h), 16));
    if (fp::from_float(f) != h || fp::from_double(d) != h) bad.add("round trip " + hex(h));
  }
  bad.report("to_float/to_double", 0x10000);
}

TEST_CASE("from_float is correctly rounded", "[fp16]") {
  Mismatches bad;
  std::uint64_t checked = 0;
  auto check = [&](std::uint32_t x, Half expect) {
    const Half got = fp::from_float(fval(x));
    const Half want = fp16ref::ref_from_float_bits(x);
    if (got != want || want != expect)
      bad.add("from_float(" + hex(x, 8) + ") = " + hex(got) + ", reference " + hex(want) + ", expected " + hex(expect));
    ++checked;
  };
  auto check_ref = [&](std::uint32_t x) { check(x, fp16ref::ref_from_float_bits(x)); };
  // Every midpoint between neighbouring halves, and one float ulp either side of it.
  for (Half h = 0; h <= 0x7BFF; ++h) {
    const std::uint32_t lo = fp16ref::ref_to_float_bits(h);
    const std::uint32_t hi = h == 0x7BFF ? 0x47800000u : fp16ref::ref_to_float_bits(Half(h + 1));
    const std::uint32_t mid = fbits(float((double(fval(lo)) + double(fval(hi))) / 2));
    for (Half s : {Half(0), Half(0x8000)}) {
      const std::uint32_t fs = std::uint32_t(s) << 16;
      check(lo | fs, Half(h | s));
      check((mid - 1) | fs, Half(h | s));
      check(mid | fs, Half(even_of(h) | s));
      check((mid + 1) | fs, Half((h + 1) | s));
    }
  }
  for (std::uint32_t x : {0x00000000u, 0x80000000u, 0x00000001u, 0x807FFFFFu, 0x33000000u, 0x33000001u,
                          0x477FEFFFu, 0x477FF000u, 0x7F7FFFFFu, 0xFF7FFFFFu, 0x7F800000u, 0xFF800000u,
                          0x7FC00000u, 0xFFC00001u, 0x7F800001u, 0x7FBFFFFFu})
    check_ref(x);
  std::mt19937_64 rng(0x5EED0040u);
  for (int i = 0; i < 2'000'000; ++i) {
    const std::uint64_t r = rng();
    check_ref(std::uint32_t(r));
    check_ref(std::uint32_t((r >> 32) & 0x807FFFFFu) | std::uint32_t(95 + (r >> 8) % 50) << 23);
  }
  bad.report("from_float", checked);
}

TEST_CASE("from_double is correctly rounded also next to ties", "[fp16]") {
  Mismatches bad;
  std::uint64_t checked = 0, via_float_wrong = 0;
  auto check = [&](double d, Half expect) {
    const Half got = fp::from_double(d);
    const Half want = fp16ref::ref_from_double_bits(dbits(d));
    if (got != want || want != expect)
      bad.add("from_double(" + hex(dbits(d), 16) + ") = " + hex(got) + ", reference " + hex(want) + ", expected " + hex(expect));
    if (fp::from_float(float(d)) != want) ++via_float_wrong;
    ++checked;
  };
  auto check_ref = [&](double d) { check(d, fp16ref::ref_from_double_bits(dbits(d))); };
  // Midpoints, one double ulp off them (a float conversion first would land on the tie), and one
  // float ulp off them.
  for (Half h = 0; h <= 0x7BFF; ++h) {
    const double lo = dval(fp16ref::ref_to_double_bits(h));
    const double hi = h == 0x7BFF ? 65536.0 : dval(fp16ref::ref_to_double_bits(Half(h + 1)));
    const double mid = (lo + hi) / 2;
    const double fulp_below = double(std::nextafter(float(mid), 0.0f)) - mid;
    const double fulp_above = double(std::nextafter(float(mid), 1e9f)) - mid;
    for (double s : {1.0, -1.0}) {
      const Half hs = s < 0 ? Half(0x8000) : Half(0);
      check(s * lo, Half(h | hs));
      check(s * std::nextafter(mid, 0.0), Half(h | hs));
      check(s * mid, Half(even_of(h) | hs));
      check(s * std::nextafter(mid, 1e9), Half((h + 1) | hs));
      check(s * (mid + fulp_below), Half(h | hs));
      check(s * (mid + fulp_above), Half((h + 1) | hs));
    }
  }
  for (double d : {0.0, -0.0, 5e-324, -5e-324, std::numeric_limits<double>::min(), 0x1p-25, 0x1.0000000000001p-25,
                   0x1.fffffffffffffp-26, std::nextafter(65520.0, 0.0), 65520.0, std::numeric_limits<double>::max(),
                   -std::numeric_limits<double>::max(), std::numeric_limits<double>::infinity(),
                   -std::numeric_limits<double>::infinity(), std::numeric_limits<double>::quiet_NaN(),
                   std::numeric_limits<double>::signaling_NaN(), dval(0xFFF0000000000001ull)})
    check_ref(d);
  std::mt19937_64 rng(0x5EED0050u);
  for (int i = 0; i < 2'000'000; ++i) {
    const std::uint64_t r = rng();
    check_ref(dval(r));
    const std::uint64_t field = 1023 - 30 + (r >> 52) % 50;  // 2^-30 .. 2^19
    check_ref(dval((rng() & 0x800FFFFFFFFFFFFFull) | field << 52));
  }
  bad.report("from_double", checked);
  INFO("cases that a conversion through float would get wrong: " << via_float_wrong);
  CHECK(via_float_wrong > 0);
}

TEST_CASE("mac gates zero operands and is fma otherwise", "[fp16]") {
  Mismatches bad;
  std::uint64_t checked = 0;
  auto check = [&](Half a, Half b, Half acc) {
    const Half gated = fp::mac(a, b, acc, true);
    const Half plain = fp::mac(a, b, acc, false);
    const Half want_plain = fp16ref::ref_fma(a, b, acc);
    const Half want_gated = (fp16ref::is_zero(a) || fp16ref::is_zero(b)) ? acc : want_plain;
    if (gated != want_gated) bad.add(triple_msg("mac gated", a, b, acc, gated, want_gated));
    if (plain != want_plain) bad.add(triple_msg("mac ungated", a, b, acc, plain, want_plain));
    ++checked;
  };
  for_special_and_random_triples(0x5EED0060u, 1'000'000, check);
  bad.report("mac", checked);

  CHECK(fp::mac(0x0000, 0x7C00, 0x3C00, true) == 0x3C00);  // 0*inf: no NaN when gated
  CHECK(fp::mac(0xFC00, 0x8000, 0xBC00, true) == 0xBC00);
  CHECK(fp::mac(0x8000, 0x7C01, 0x3C00, true) == 0x3C00);  // 0*NaN
  CHECK(fp::mac(0x3C00, 0x0000, 0x8000, true) == 0x8000);  // -0 accumulator keeps its sign
  CHECK(fp::mac(0x3C00, 0x0000, 0x7D55, true) == 0x7D55);  // acc returned as is, even a NaN
  CHECK(fp::mac(0x0000, 0x7C00, 0x3C00, false) == 0x7E00);
  CHECK(fp::mac(0x3C00, 0x0000, 0x8000, false) == 0x0000);
}

TEST_CASE("fp16 multiplier is exact on all 2^32 operand pairs", "[.slow][fp16]") {
  const unsigned workers = std::max(1u, std::thread::hardware_concurrency());
  std::atomic<std::uint32_t> next_a{0};
  std::atomic<std::uint64_t> mismatches{0};
  std::mutex first_mutex;
  std::vector<std::string> first;
  const auto t0 = std::chrono::steady_clock::now();
  auto work = [&] {
    for (std::uint32_t a; (a = next_a.fetch_add(1)) < 0x10000;) {
      std::uint64_t local = 0;
      for (std::uint32_t b = 0; b < 0x10000; ++b) {
        const Half got = fp::mul(Half(a), Half(b));
        const Half want = fp16ref::ref_mul(Half(a), Half(b));
        if (got != want) {
          if (local++ == 0) {
            const std::lock_guard<std::mutex> lock(first_mutex);
            if (first.size() < 12) first.push_back(pair_msg("mul", Half(a), Half(b), got, want));
          }
        }
      }
      mismatches += local;
    }
  };
  std::vector<std::thread> threads;
  for (unsigned i = 0; i < workers; ++i) threads.emplace_back(work);
  for (std::thread& t : threads) t.join();
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::cout << "exhaustive mul: 4294967296 pairs, " << mismatches << " mismatches, " << workers
            << " threads, " << s << " s\n";
  for (const std::string& m : first) FAIL_CHECK(m);
  CHECK(mismatches == 0);
}
