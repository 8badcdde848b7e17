// The golden model's own binary16 FMA (sim/golden/fp16_exact.h) against two implementations it
// shares no code with: the integer reference of tests/numerics (128-bit exact sums) and the float
// datapath the hardware models run (base/numerics fp16::fma / fp16::mac). Special triples, every
// half as first operand with random partners, near-cancellations, ties and wide exponent gaps;
// and the golden fp16 convolution against a direct one built on the hardware's MAC. Hidden
// ([.slow], CTest golden_test:slow): every (a, b) pair against the integer reference.
#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "base/numerics/fp16.h"
#include "sim/golden/conv.h"
#include "sim/golden/fp16_exact.h"
#include "tests/numerics/fp16_reference.h"

namespace {

namespace gh = flycol::golden::half;
namespace fp = flycol::fp16;
using Half = std::uint16_t;

// Seed of the random cases: FLYCOL_TEST_SEED if set, else the fixed default; printed with the
// command that reproduces the run.
std::uint64_t test_seed(const char* test_case) {
  std::uint64_t seed = 14007;
  if (const char* s = std::getenv("FLYCOL_TEST_SEED")) seed = std::strtoull(s, nullptr, 0);
  std::printf("%s: seed %llu (reproduce: FLYCOL_TEST_SEED=%llu golden_test \"%s\")\n", test_case,
              static_cast<unsigned long long>(seed), static_cast<unsigned long long>(seed), test_case);
  return seed;
}

std::string hex(unsigned v) {
  char b[8];
  std::snprintf(b, sizeof b, "0x%04X", v);
  return b;
}

// Counts mismatches of golden fma against both other implementations; reports the first few.
struct Checker {
  std::uint64_t checked = 0, bad = 0;
  std::vector<std::string> first;
  void fma(Half a, Half b, Half c) {
    ++checked;
    const Half got = gh::fma(a, b, c);
    const Half ref = fp16ref::ref_fma(a, b, c);
    const Half hw = fp::fma(a, b, c);
    if (got == ref && got == hw) return;
    ++bad;
    if (first.size() < 10)
      first.push_back("fma(" + hex(a) + ", " + hex(b) + ", " + hex(c) + ") golden " + hex(got) +
                      ", integer reference " + hex(ref) + ", fp16::fma " + hex(hw));
  }
  void report(const char* label) const {
    std::printf("%s: %llu triples, %llu mismatches\n", label, static_cast<unsigned long long>(checked),
                static_cast<unsigned long long>(bad));
    for (const auto& m : first) FAIL_CHECK(m);
    CHECK(bad == 0);
  }
};

const Half kSpecials[] = {
    0x0000, 0x8000, 0x0001, 0x8001, 0x0002, 0x0003, 0x0155, 0x0200, 0x03FF, 0x83FF, 0x0400, 0x8400,
    0x0401, 0x07FF, 0x0800, 0x0FFF, 0x1000, 0x1001, 0x2000, 0x2001, 0x37FF, 0x3800, 0xB800, 0x3BFF,
    0x3C00, 0xBC00, 0x3C01, 0xBC01, 0x3D00, 0x3E00, 0x3F00, 0x4000, 0x5BFF, 0x5C00, 0x6800, 0x77FF,
    0x7800, 0x7BFE, 0x7BFF, 0xFBFF, 0x7C00, 0xFC00, 0x7E00, 0xFE00, 0x7C01, 0x7D55, 0xFFFF};

}  // namespace

TEST_CASE("golden fma equals both other FMAs on all triples of special values", "[golden][fp16]") {
  Checker ck;
  for (Half a : kSpecials)
    for (Half b : kSpecials)
      for (Half c : kSpecials) ck.fma(a, b, c);
  ck.report("special triples");
}

TEST_CASE("golden fma equals both other FMAs for every half with random partners", "[golden][fp16]") {
  std::mt19937_64 rng(test_seed("golden fma equals both other FMAs for every half with random partners"));
  Checker ck;
  for (std::uint32_t a = 0; a < 0x10000; ++a)
    for (int t = 0; t < 128; ++t) {
      const std::uint64_t r = rng();
      const Half b = Half(r), c0 = Half(r >> 16);
      ck.fma(Half(a), b, c0);
      // c close to -a*b: cancellation, the exact branch with results far below the operands.
      const Half p = fp16ref::ref_mul(Half(a), b);
      const int delta = int((r >> 32) % 9) - 4;
      ck.fma(Half(a), b, Half((p ^ 0x8000) + delta));
      // c close to +a*b, and a c from a narrow exponent window: ties and near-ties of the sum.
      ck.fma(Half(a), b, Half(p + delta));
      ck.fma(Half(a), b, Half(((r >> 40) & 0x83FF) | (((r >> 56) % 6 + 12) << 10)));
    }
  ck.report("every half, random partners");
}

TEST_CASE("golden fma equals both other FMAs across wide exponent gaps", "[golden][fp16]") {
  // Products of subnormals with large c and large products with subnormal c: the sticky branch
  // (more than 40 binades between the terms) and its neighbours.
  std::mt19937_64 rng(test_seed("golden fma equals both other FMAs across wide exponent gaps"));
  Checker ck;
  auto pick = [&](int elo, int ehi) {
    const std::uint64_t r = rng();
    const int e = elo + int(r % std::uint64_t(ehi - elo + 1));
    return Half(((r >> 8) & 0x8000) | (unsigned(e) << 10) | ((r >> 20) & 0x3FF));
  };
  for (int t = 0; t < 2000000; ++t) {
    ck.fma(pick(0, 3), pick(0, 3), pick(20, 30));
    ck.fma(pick(24, 30), pick(16, 30), pick(0, 2));
    ck.fma(pick(0, 30), pick(0, 30), pick(0, 30));
  }
  ck.report("wide gaps");
}

TEST_CASE("golden mac gates zero operands of either sign and is fma otherwise", "[golden][fp16]") {
  for (Half a : kSpecials)
    for (Half b : kSpecials)
      for (Half c : kSpecials) {
        INFO("a=" << hex(a) << " b=" << hex(b) << " c=" << hex(c));
        REQUIRE(gh::mac(a, b, c, true) == fp::mac(a, b, c, true));
        REQUIRE(gh::mac(a, b, c, false) == fp::mac(a, b, c, false));
      }
}

namespace {

// An operand of one of the classes the chip may see: any bit pattern, values around 1, a mix of
// zeros of both signs, subnormals, infinities and NaNs, or a narrow range whose sums cancel.
Half draw_operand(std::mt19937_64& r, int cls) {
  const std::uint64_t x = r();
  const Half sign = Half(x & 0x8000);
  switch (cls) {
    case 0: return Half(x >> 8);
    case 1: return Half(sign | (((x >> 16) % 8 + 11) << 10) | ((x >> 24) & 0x3FF));
    case 2: {
      const int k = int((x >> 40) % 100);
      if (k < 20) return sign;
      if (k < 30) return Half(sign | ((x >> 20) & 0x3FF));
      if (k < 33) return Half(sign | 0x7C00);
      if (k < 34) return Half(0x7C00 | 0x0201);
      return Half(sign | (((x >> 16) % 30 + 1) << 10) | ((x >> 24) & 0x3FF));
    }
    default: return Half(sign | (((x >> 16) % 4 + 13) << 10) | ((x >> 24) & 0x3FF));
  }
}

// The convolution by its definition, one output at a time, every MAC (padding included) through
// the hardware's own fp16::mac: no shared loops with the golden model either.
std::vector<flycol::AccBits> direct_conv(const flycol::ConvOperands& ops, const flycol::golden::ConvOptions& opt) {
  const flycol::Layer& L = ops.layer;
  std::vector<flycol::AccBits> out(std::size_t(L.ofmap_elems()), 0);
  std::size_t o = 0;
  for (int n = 0; n < L.n; ++n)
    for (int k = 0; k < L.k; ++k)
      for (int oy = 0; oy < L.ho(); ++oy)
        for (int ox = 0; ox < L.wo(); ++ox, ++o) {
          Half acc = opt.preload ? Half((*opt.preload)[o]) : Half(0);
          for (int c = 0; c < L.c; ++c)
            for (int ky = 0; ky < L.ky; ++ky)
              for (int kx = 0; kx < L.kx; ++kx) {
                const int iy = oy * L.sy - L.pt + ky * L.dy, ix = ox * L.sx - L.pl + kx * L.dx;
                const bool inside = iy >= 0 && iy < L.h && ix >= 0 && ix < L.w;
                const Half a = inside ? ops.ifmap[((std::size_t(n) * L.c + c) * L.h + iy) * L.w + ix] : Half(0);
                const Half w = ops.weights[((std::size_t(k) * L.c + c) * L.ky + ky) * L.kx + kx];
                acc = fp::mac(a, w, acc, opt.zero_gating);
              }
          out[o] = fp::is_nan(acc) ? fp::kCanonicalNaN : acc;
        }
  return out;
}

}  // namespace

TEST_CASE("golden fp16 conv equals the direct convolution with the hardware's MAC", "[golden][fp16]") {
  const char* name = "golden fp16 conv equals the direct convolution with the hardware's MAC";
  std::mt19937_64 r(test_seed(name));
  int layers = 0;
  for (int t = 0; t < 1500; ++t) {
    flycol::Layer l;
    l.n = 1 + int(r() % 2); l.c = 1 + int(r() % 5); l.h = 1 + int(r() % 9); l.w = 1 + int(r() % 20);
    l.k = 1 + int(r() % 3); l.ky = 1 + int(r() % 3); l.kx = 1 + int(r() % 4);
    l.sy = 1 + int(r() % 2); l.sx = 1 + int(r() % 3); l.dy = 1 + int(r() % 2); l.dx = 1 + int(r() % 2);
    l.pt = int(r() % 3); l.pb = int(r() % 3); l.pl = int(r() % 3); l.pr = int(r() % 3);
    if (l.h + l.pt + l.pb < l.extent_y() || l.w + l.pl + l.pr < l.extent_x()) continue;
    const int cls = int(r() % 4);
    flycol::ConvOperands ops{l, flycol::Arithmetic::fp16, {}, {}};
    for (long i = 0; i < l.ifmap_elems(); ++i) ops.ifmap.push_back(draw_operand(r, cls));
    for (long i = 0; i < l.weight_elems(); ++i) ops.weights.push_back(draw_operand(r, cls));
    std::vector<flycol::AccBits> pre(std::size_t(l.ofmap_elems()));
    for (auto& p : pre) p = draw_operand(r, cls);
    flycol::golden::ConvOptions opt;
    opt.zero_gating = r() % 2 == 0;
    if (r() % 2 == 0) opt.preload = &pre;
    const auto got = flycol::golden::conv(ops, opt), want = direct_conv(ops, opt);
    INFO("layer " << l.spec() << " operand class " << cls << " gating " << opt.zero_gating << " preload "
                  << (opt.preload != nullptr) << " (case " << t << ")");
    REQUIRE(got == want);
    ++layers;
  }
  std::printf("%d random layers bit-exact\n", layers);
}

TEST_CASE("golden fma equals the integer reference on all 2^32 operand pairs", "[.slow][golden][fp16]") {
  // Every (a, b) with two accumulators each: one from a hash of the pair (any class), one a few
  // ulps from -a*b (cancellation). Against the integer reference only (fp16::fma is checked
  // against it exhaustively-ish in tests/numerics). Threads over a.
  const unsigned workers = std::max(1u, std::thread::hardware_concurrency());
  std::atomic<std::uint32_t> next_a{0};
  std::atomic<std::uint64_t> mismatches{0};
  std::mutex first_mutex;
  std::vector<std::string> first;
  auto work = [&] {
    for (std::uint32_t a; (a = next_a.fetch_add(1)) < 0x10000;) {
      std::uint64_t local = 0;
      for (std::uint32_t b = 0; b < 0x10000; ++b) {
        std::uint64_t h = (std::uint64_t(a) << 16 | b) * 0x9E3779B97F4A7C15ull;
        h ^= h >> 29;
        const Half p = fp16ref::ref_mul(Half(a), Half(b));
        const Half cs[2] = {Half(h >> 40), Half((p ^ 0x8000) + int((h >> 8) % 7) - 3)};
        for (Half c : cs) {
          const Half got = gh::fma(Half(a), Half(b), c), want = fp16ref::ref_fma(Half(a), Half(b), c);
          if (got != want && local++ < 4) {
            const std::lock_guard<std::mutex> lock(first_mutex);
            if (first.size() < 12)
              first.push_back("fma(" + hex(a) + ", " + hex(b) + ", " + hex(c) + ") golden " + hex(got) +
                              ", integer reference " + hex(want));
          }
        }
      }
      mismatches += local;
    }
  };
  std::vector<std::thread> threads;
  for (unsigned i = 0; i < workers; ++i) threads.emplace_back(work);
  for (std::thread& t : threads) t.join();
  std::printf("exhaustive golden fma: 8589934592 triples, %llu mismatches\n",
              static_cast<unsigned long long>(mismatches.load()));
  for (const std::string& m : first) FAIL_CHECK(m);
  CHECK(mismatches == 0);
}
