// int_mac_rtl_tb: the RTL integer MAC (hw/pe/int_mac.sv, int8 and int16 instances Verilated 64
// lanes each through tb/int_mac/int_mac_lanes.sv) against intmac::mac, bit for bit: every int8 x int8
// pair with accumulators at and around the int32 limits, and random int16 products.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "Vint_mac_lanes.h"
#include "verilated.h"

#include "base/numerics/int_mac.h"
#include "sim/rtlsim/verilator_coverage.h"
#include "tb/common/args.h"
#include "tb/common/random.h"

namespace {

namespace intmac = flycol::intmac;

constexpr int kLanes = 64;  // must match int_mac_lanes' Lanes default
constexpr int kMaxReported = 10;
constexpr std::int64_t kMin = std::numeric_limits<std::int32_t>::min();
constexpr std::int64_t kMax = std::numeric_limits<std::int32_t>::max();

struct Vec {
  std::int32_t a, b, acc;
};

// Accumulators that matter for a product p: both limits and their neighbours, the values where
// acc + p just reaches or just leaves the int32 range, small values, and two random ones.
void accumulators_for(std::int64_t p, flycol::tb::Rand& rng, std::vector<std::int32_t>& out) {
  out.clear();
  const std::int64_t cand[] = {kMin, kMin + 1, kMax, kMax - 1, 0, -1, 1,
                               kMax - p, kMax - p + 1, kMin - p, kMin - p - 1};
  for (std::int64_t v : cand)
    if (v >= kMin && v <= kMax) out.push_back(std::int32_t(v));
  out.push_back(std::int32_t(std::uint32_t(rng.bits(64))));
  out.push_back(std::int32_t(std::uint32_t(rng.bits(64))));
}

class MacChecker {
 public:
  explicit MacChecker(VerilatedContext* ctx) : top_(ctx, "mac") {}
  ~MacChecker() {
    top_.final();
    flycol::write_verilator_coverage(*top_.contextp(), "int_mac");  // coverage builds only
  }
  MacChecker(const MacChecker&) = delete;
  MacChecker& operator=(const MacChecker&) = delete;

  void add8(const Vec& v) {
    b8_[n8_++] = v;
    if (n8_ == kLanes) flush();
  }
  void add16(const Vec& v) {
    b16_[n16_++] = v;
    if (n16_ == kLanes) flush();
  }

  // Evaluates whatever is queued in both widths (idle lanes compute 0 * 0 + 0, unchecked).
  void flush() {
    if (n8_ == 0 && n16_ == 0) return;
    for (int i = 0; i < kLanes; ++i) {
      const Vec v8 = i < n8_ ? b8_[i] : Vec{0, 0, 0};
      const Vec v16 = i < n16_ ? b16_[i] : Vec{0, 0, 0};
      const int w8 = i / 4, s8 = 8 * (i % 4), w16 = i / 2, s16 = 16 * (i % 2);
      const std::uint32_t keep8 = ~(0xFFu << s8), keep16 = ~(0xFFFFu << s16);
      top_.a8_i[w8] = (top_.a8_i[w8] & keep8) | ((std::uint32_t(v8.a) & 0xFFu) << s8);
      top_.b8_i[w8] = (top_.b8_i[w8] & keep8) | ((std::uint32_t(v8.b) & 0xFFu) << s8);
      top_.acc8_i[i] = std::uint32_t(v8.acc);
      top_.a16_i[w16] = (top_.a16_i[w16] & keep16) | ((std::uint32_t(v16.a) & 0xFFFFu) << s16);
      top_.b16_i[w16] = (top_.b16_i[w16] & keep16) | ((std::uint32_t(v16.b) & 0xFFFFu) << s16);
      top_.acc16_i[i] = std::uint32_t(v16.acc);
    }
    top_.eval();
    for (int i = 0; i < n8_; ++i) compare("int8", b8_[i], std::int32_t(top_.acc8_o[i]));
    for (int i = 0; i < n16_; ++i) compare("int16", b16_[i], std::int32_t(top_.acc16_o[i]));
    checked8_ += std::uint64_t(n8_);
    checked16_ += std::uint64_t(n16_);
    n8_ = n16_ = 0;
  }

  std::uint64_t checked8() const { return checked8_; }
  std::uint64_t checked16() const { return checked16_; }
  std::uint64_t mismatches() const { return mismatches_; }

 private:
  void compare(const char* what, const Vec& v, std::int32_t rtl) {
    const std::int32_t expected = intmac::mac(v.a, v.b, v.acc);
    if (rtl == expected) return;
    if (mismatches_++ < kMaxReported)
      std::printf("MISMATCH [%s] a=%d b=%d acc=%d: rtl=%d intmac::mac=%d\n", what, v.a, v.b, v.acc, rtl,
                  expected);
  }

  Vint_mac_lanes top_;
  Vec b8_[kLanes] = {};
  Vec b16_[kLanes] = {};
  int n8_ = 0, n16_ = 0;
  std::uint64_t checked8_ = 0, checked16_ = 0, mismatches_ = 0;
};

}  // namespace

int main(int argc, char** argv) {
  flycol::tb::Args args("int_mac_rtl_tb");
  std::uint64_t pairs16 = 1'000'000;
  args.seed = 0x666C79636F6C;  // "flycol"
  args.count("pairs16", &pairs16, "random int16 operand pairs (default 1 M)");
  if (!args.parse(argc, argv)) return 2;
  const std::uint64_t seed = args.seed;

  VerilatedContext ctx;
  MacChecker check(&ctx);
  flycol::tb::Rand rng(seed);
  std::vector<std::int32_t> accs;
  const auto t0 = std::chrono::steady_clock::now();

  // int8: every pair.
  for (int a = -128; a < 128; ++a) {
    for (int b = -128; b < 128; ++b) {
      accumulators_for(std::int64_t(a) * b, rng, accs);
      for (std::int32_t acc : accs) check.add8({a, b, acc});
    }
  }

  // int16: the extreme operands against each other, then random pairs.
  const std::int32_t extremes[] = {-32768, -32767, -1, 0, 1, 32766, 32767};
  std::vector<std::pair<std::int32_t, std::int32_t>> pairs;
  for (std::int32_t a : extremes)
    for (std::int32_t b : extremes) pairs.emplace_back(a, b);
  for (std::uint64_t i = 0; i < pairs16; ++i) {
    const std::uint64_t r = rng.bits(64);
    pairs.emplace_back(std::int16_t(r), std::int16_t(r >> 16));
  }
  for (const auto& [a, b] : pairs) {
    accumulators_for(std::int64_t(a) * b, rng, accs);
    for (std::int32_t acc : accs) check.add16({a, b, acc});
  }
  check.flush();

  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("int_mac_rtl_tb: %llu int8 vectors (all 65536 pairs), %llu int16 vectors (%zu pairs), "
              "%llu mismatches, %.2f s\n",
              (unsigned long long)check.checked8(), (unsigned long long)check.checked16(), pairs.size(),
              (unsigned long long)check.mismatches(), secs);
  if (check.mismatches() == 0) return 0;
  std::printf("reproduce: %s\n", args.reproduce().c_str());
  return 1;
}
