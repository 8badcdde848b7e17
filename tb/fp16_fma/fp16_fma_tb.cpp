// fp16_fma_rtl_tb: the RTL binary16 FMA (hw/pe/fp16_fma.sv, Verilated 64 lanes at a time through
// tb/fp16_fma/fp16_fma_lanes.sv) against fp16::fma, bit for bit. Default run: every triple of ~60
// special values and 10M random triples in five distributions. --exhaustive-mul: all 2^32
// operand pairs with c = -0 (a*b rounded once) against fp16::mul, on every hardware thread.
#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "Vfp16_fma_lanes.h"
#include "verilated.h"

#include "base/numerics/fp16.h"
#include "sim/rtlsim/verilator_coverage.h"
#include "tb/common/args.h"

namespace {

namespace fp16 = flycol::fp16;
using fp16::Bits;

constexpr int kLanes = 64;          // must match fp16_fma_lanes' Lanes default
constexpr int kMaxReported = 10;    // mismatches printed before the rest are only counted

// splitmix64: tiny, fast and fully deterministic across platforms (std distributions are not).
class Rng {
 public:
  explicit Rng(std::uint64_t seed) : s_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (s_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  std::uint32_t below(std::uint32_t n) { return std::uint32_t(next() % n); }
  Bits bits() { return Bits(next()); }
  bool coin() { return (next() & 1u) != 0; }

 private:
  std::uint64_t s_;
};

Bits make_half(bool neg, std::uint32_t field, std::uint32_t frac) {
  return Bits((neg ? 0x8000u : 0u) | (field << 10) | (frac & 0x3FFu));
}

struct Triple {
  Bits a, b, c;
};

// One Verilated wrapper: packs up to kLanes triples into its 1024-bit ports and evaluates them.
class FmaLanes {
 public:
  explicit FmaLanes(VerilatedContext* ctx) : top_(ctx, "fma") {}
  ~FmaLanes() {
    top_.final();
    flycol::write_verilator_coverage(*top_.contextp(), "fp16_fma");  // coverage builds only
  }
  FmaLanes(const FmaLanes&) = delete;
  FmaLanes& operator=(const FmaLanes&) = delete;

  void eval(const Triple* t, int n, Bits* y) {
    for (int w = 0; w < kLanes / 2; ++w) {
      const Triple lo = 2 * w < n ? t[2 * w] : Triple{0, 0, 0};
      const Triple hi = 2 * w + 1 < n ? t[2 * w + 1] : Triple{0, 0, 0};
      top_.a_i[w] = std::uint32_t(lo.a) | (std::uint32_t(hi.a) << 16);
      top_.b_i[w] = std::uint32_t(lo.b) | (std::uint32_t(hi.b) << 16);
      top_.c_i[w] = std::uint32_t(lo.c) | (std::uint32_t(hi.c) << 16);
    }
    top_.eval();
    for (int i = 0; i < n; ++i) y[i] = Bits(top_.y_o[i / 2] >> (16 * (i % 2)));
  }

 private:
  Vfp16_fma_lanes top_;
};

// Mismatch bookkeeping shared by all threads: prints the first few, counts all.
class Tally {
 public:
  void mismatch(const char* what, const Triple& t, Bits rtl, Bits expected, const char* ref) {
    const std::uint64_t n = count_.fetch_add(1);
    if (n < kMaxReported) {
      const std::lock_guard<std::mutex> lock(print_);
      std::printf("MISMATCH [%s] a=0x%04X b=0x%04X c=0x%04X: rtl=0x%04X %s=0x%04X\n", what, t.a, t.b,
                  t.c, rtl, ref, expected);
    }
  }
  std::uint64_t count() const { return count_.load(); }

 private:
  std::atomic<std::uint64_t> count_{0};
  std::mutex print_;
};

// Collects triples and checks them against fp16::fma a batch of kLanes at a time.
class FmaChecker {
 public:
  FmaChecker(FmaLanes& lanes, Tally& tally) : lanes_(lanes), tally_(tally) {}

  void add(const char* what, Bits a, Bits b, Bits c) {
    what_ = what;
    batch_[n_++] = Triple{a, b, c};
    if (n_ == kLanes) flush();
  }
  void flush() {
    if (n_ == 0) return;
    std::array<Bits, kLanes> y{};
    lanes_.eval(batch_.data(), n_, y.data());
    for (int i = 0; i < n_; ++i) {
      const Triple& t = batch_[std::size_t(i)];
      const Bits expected = fp16::fma(t.a, t.b, t.c);
      if (y[std::size_t(i)] != expected) tally_.mismatch(what_, t, y[std::size_t(i)], expected, "fp16::fma");
    }
    checked_ += std::uint64_t(n_);
    n_ = 0;
  }
  std::uint64_t checked() const { return checked_; }

 private:
  FmaLanes& lanes_;
  Tally& tally_;
  std::array<Triple, kLanes> batch_{};
  int n_ = 0;
  const char* what_ = "";
  std::uint64_t checked_ = 0;
};

// Values where FMAs go wrong: signed zeros, subnormal extremes, the subnormal/normal boundary,
// max normal and its overflow partners, infinities, quiet and signalling NaNs, and operands whose
// products land exactly on or next to rounding ties.
const std::vector<Bits>& special_values() {
  static const std::vector<Bits> v = {
      0x0000, 0x8000,                  // zeros
      0x0001, 0x8001, 0x0002, 0x0003,  // smallest subnormals
      0x0200, 0x8200, 0x02AA, 0x03FF,  // mid and largest subnormals
      0x83FF, 0x0400, 0x8400, 0x0401,  // min normal and neighbours
      0x0402, 0x07FF, 0x0800, 0x8800,  // low binades
      0x0C00, 0x1000, 0x9000, 0x1001,  // 2^-12, 2^-11 (half ulp of 1), its neighbour
      0x13FF, 0x1400, 0x1C00, 0x2400,  // 2^-10, 2^-8, 2^-6
      0x3555, 0x3800, 0xB800, 0x3A00,  // 1/3, 0.5, 0.75
      0x3BFF, 0xBBFF, 0x3C00, 0xBC00,  // just below 1, +-1
      0x3C01, 0xBC01, 0x3C02, 0x3E00,  // just above 1, 1.5
      0x3FFF, 0x4000, 0xC000, 0x4001,  // 2, its neighbours
      0x4BFF, 0x4C00, 0xCC00, 0x5A00,  // 16 (65504 + 16 = 65520 ties to inf), 192
      0x5BFF, 0x6400, 0x6800, 0x7800,  // 255.9, 1024, 2048, 32768
      0x7BFE, 0x7BFF, 0xFBFF,          // max normal
      0x7C00, 0xFC00,                  // infinities
      0x7E00, 0xFE00, 0x7FFF,          // quiet NaNs
      0x7C01, 0xFC01, 0x7D00};         // signalling NaNs
  return v;
}

// Random finite operand: uniform sign, field and fraction (no inf/NaN).
Bits random_finite(Rng& r) { return make_half(r.coin(), r.below(31), std::uint32_t(r.next())); }

// Distribution generators: each writes one triple.
Triple gen_uniform_bits(Rng& r) { return {r.bits(), r.bits(), r.bits()}; }

Triple gen_finite(Rng& r) { return {random_finite(r), random_finite(r), random_finite(r)}; }

// c close to -(a*b): the sum cancels down to a few bits, exercising the leading-zero shift.
Triple gen_cancellation(Rng& r) {
  const Bits a = random_finite(r);
  const Bits b = random_finite(r);
  const Bits p = fp16::mul(a, b);
  if (!fp16::is_finite(p)) return {a, b, Bits(p ^ 0x8000)};
  int delta;
  switch (r.below(4)) {
    case 0: delta = int(r.below(7)) - 3; break;                          // a few ulps
    case 1: delta = int(r.below(129)) - 64; break;                       // same binade
    case 2: delta = (r.coin() ? 1024 : -1024) + int(r.below(33)) - 16; break;  // next binade
    default: delta = 0; break;                                           // -round(a*b)
  }
  const int mag = std::clamp(int(p & 0x7FFF) + delta, 0, 0x7BFF);
  return {a, b, Bits((~p & 0x8000) | mag)};
}

// Products and addends around the subnormal range (2^-30 .. 2^-10): gradual underflow, the
// subnormal/normal boundary, and products that round to zero.
Triple gen_subnormal(Rng& r) {
  const std::uint32_t sum = r.below(21);
  const std::uint32_t fa = r.below(sum + 1);
  const Bits a = make_half(r.coin(), fa, std::uint32_t(r.next()));
  const Bits b = make_half(r.coin(), sum - fa, std::uint32_t(r.next()));
  const Bits c = r.below(8) == 0 ? Bits(r.coin() ? 0x8000 : 0x0000)
                                 : make_half(r.coin(), r.below(7), std::uint32_t(r.next()));
  return {a, b, c};
}

// Products with few significant bits placed so that their top bit lands on or next to the
// half-ulp of the addend: exact ties (both ways to even) and their nearest neighbours.
Triple gen_near_tie(Rng& r) {
  for (;;) {
    const auto operand = [&r](std::uint32_t& sig) {
      const std::uint32_t field = 1 + r.below(30);
      std::uint32_t frac = std::uint32_t(r.next()) & 0x3FF;
      switch (r.below(4)) {
        case 0: frac = 0; break;                                   // power of two
        case 1: frac = r.coin() ? 1u : 0x3FFu; break;              // 2^k (1 + ulp) or 2^(k+1) - ulp
        case 2: frac &= ~((1u << r.below(11)) - 1u) & 0x3FF; break;  // few significant bits
        default: break;
      }
      sig = 0x400 | frac;
      return std::pair<std::uint32_t, Bits>(field, make_half(r.coin(), field, frac));
    };
    std::uint32_t sa = 0, sb = 0;
    const auto [fa, a] = operand(sa);
    const auto [fb, b] = operand(sb);
    if (r.below(8) == 0) return {a, b, Bits(r.coin() ? 0x8000 : 0x0000)};
    const std::uint32_t p = sa * sb;
    const int msb = 31 - __builtin_clz(p);
    const int top = msb + int(fa + fb) - 50;               // exponent of the product's top bit
    const int lsb_c = top + 1 + int(r.below(3)) - 1;       // tie: c's ulp is 2^(top+1); +-1
    const int field_c = lsb_c + 25;
    if (field_c < 1 || field_c > 30) continue;
    return {a, b, make_half(r.coin(), std::uint32_t(field_c), std::uint32_t(r.next()))};
  }
}

struct Distribution {
  const char* name;
  Triple (*gen)(Rng&);
};

int run_random(std::uint64_t count, std::uint64_t seed) {
  VerilatedContext ctx;
  FmaLanes lanes(&ctx);
  Tally tally;
  FmaChecker check(lanes, tally);
  const auto t0 = std::chrono::steady_clock::now();

  const std::vector<Bits>& sv = special_values();
  for (Bits a : sv)
    for (Bits b : sv)
      for (Bits c : sv) check.add("special", a, b, c);
  check.flush();
  const std::uint64_t n_special = check.checked();
  std::printf("special: %zu values, %llu triples, %llu mismatches\n", sv.size(),
              (unsigned long long)n_special, (unsigned long long)tally.count());

  const Distribution dists[] = {{"uniform-bits", gen_uniform_bits}, {"finite", gen_finite},
                                {"cancellation", gen_cancellation}, {"subnormal", gen_subnormal},
                                {"near-tie", gen_near_tie}};
  const std::uint64_t per = count / std::size(dists);
  Rng rng(seed);
  for (const Distribution& d : dists) {
    const std::uint64_t before = check.checked();
    const std::uint64_t bad_before = tally.count();
    for (std::uint64_t i = 0; i < per; ++i) {
      const Triple t = d.gen(rng);
      check.add(d.name, t.a, t.b, t.c);
    }
    check.flush();
    std::printf("%s: %llu random triples, %llu mismatches\n", d.name,
                (unsigned long long)(check.checked() - before), (unsigned long long)(tally.count() - bad_before));
  }

  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("fp16_fma_rtl_tb: %llu triples (%llu special + %llu random, seed %llu), %llu mismatches, "
              "%.2f s\n",
              (unsigned long long)check.checked(), (unsigned long long)n_special,
              (unsigned long long)(check.checked() - n_special), (unsigned long long)seed,
              (unsigned long long)tally.count(), secs);
  return tally.count() == 0 ? 0 : 1;
}

// All 2^32 (a, b) with c = -0: a*b + (-0) is a*b rounded once (an exact -0 product stays -0),
// which is fp16::mul. Threads take interleaved values of a.
int run_exhaustive_mul() {
  const unsigned n_threads = std::max(1u, std::thread::hardware_concurrency());
  Tally tally;
  std::atomic<std::uint32_t> next_a{0};
  const auto t0 = std::chrono::steady_clock::now();

  const auto worker = [&]() {
    VerilatedContext ctx;
    FmaLanes lanes(&ctx);
    std::array<Triple, kLanes> batch{};
    std::array<Bits, kLanes> y{};
    for (std::uint32_t a = next_a++; a < 0x10000; a = next_a++) {
      for (std::uint32_t b0 = 0; b0 < 0x10000; b0 += kLanes) {
        for (int i = 0; i < kLanes; ++i) batch[std::size_t(i)] = Triple{Bits(a), Bits(b0 + std::uint32_t(i)), 0x8000};
        lanes.eval(batch.data(), kLanes, y.data());
        for (int i = 0; i < kLanes; ++i) {
          const Bits expected = fp16::mul(Bits(a), Bits(b0 + std::uint32_t(i)));
          if (y[std::size_t(i)] != expected)
            tally.mismatch("exhaustive-mul", batch[std::size_t(i)], y[std::size_t(i)], expected, "fp16::mul");
        }
      }
      if ((a & 0x0FFF) == 0x0FFF) {
        std::printf("  a = 0x%04X done\n", a);
        std::fflush(stdout);
      }
    }
  };
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < n_threads; ++t) pool.emplace_back(worker);
  for (std::thread& t : pool) t.join();

  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("fp16_fma_rtl_tb --exhaustive-mul: 4294967296 pairs, %llu mismatches, %.1f s on %u threads\n",
              (unsigned long long)tally.count(), secs, n_threads);
  return tally.count() == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  flycol::tb::Args args("fp16_fma_rtl_tb");
  bool exhaustive_mul = false;
  std::uint64_t count = 10'000'000;
  args.seed = 0x666C79636F6C;  // "flycol"
  args.flag("exhaustive-mul", &exhaustive_mul, "all 2^32 operand pairs with c = -0 against fp16::mul")
      .count("count", &count, "random triples (default 10 M)");
  if (!args.parse(argc, argv)) return 2;
  const int rc = exhaustive_mul ? run_exhaustive_mul() : run_random(count, args.seed);
  if (rc != 0) std::printf("reproduce: %s\n", args.reproduce().c_str());
  return rc;
}
