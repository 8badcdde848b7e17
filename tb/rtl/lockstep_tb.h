// What the lockstep RTL testbenches of the control blocks (sequencer, weight fetcher, partial-sums
// manager, controller) share: the mismatch log, the Verilator context they start from, an SRAM
// port model, the "--seed N --<count> N" command line and the guarded run. Each testbench is one
// translation unit, so the log is a plain inline global.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include <verilated.h>

namespace flycol::rtltb {

inline constexpr int kMaxReported = 20;  // mismatches printed; the rest are only counted
inline int g_errors = 0;

// Counts a mismatch and prints the first kMaxReported of them.
inline void fail(const std::string& msg) {
  std::fflush(stdout);  // keep the order with Verilator's assertion messages
  if (g_errors < kMaxReported) fmt::print(stderr, "MISMATCH: {}\n", msg);
  ++g_errors;
}

// A Verilator context whose registers and storage start random (reset must cover every one that
// matters), seeded from the testbench seed, with assertion failures counted rather than fatal.
inline std::unique_ptr<VerilatedContext> make_context(std::uint64_t seed) {
  auto ctx = std::make_unique<VerilatedContext>();
  ctx->randReset(2);
  ctx->randSeed(int(seed % 1000003));
  ctx->fatalOnError(false);
  return ctx;
}

// An SRAM as seen by the RTL's port (docs/microarchitecture.md, section 6): one access per cycle,
// read data from the next cycle on, held until the next read; writes take effect at the edge.
template <class Elem>
struct PortMemory {
  int depth, elems;
  std::vector<Elem> mem, rdata;
  std::uint64_t reads = 0, writes = 0;
  PortMemory(int d, int e) : depth(d), elems(e), mem(std::size_t(d) * std::size_t(e)), rdata(std::size_t(e)) {}
  Elem& at(int addr, int e) { return mem[std::size_t(addr) * std::size_t(elems) + std::size_t(e)]; }
};

struct SeedAndCount {
  std::uint64_t seed = 1;
  int count = 0;
};

// Reads "--seed N" and "--<count_flag> N" (count_flag without the dashes, e.g. "runs"). Prints the
// usage and returns nothing on anything else.
inline std::optional<SeedAndCount> parse_seed_and_count(int argc, char** argv, const std::string& count_flag,
                                                        int default_count) {
  SeedAndCount r;
  r.count = default_count;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--seed" && i + 1 < argc) {
      r.seed = std::strtoull(argv[++i], nullptr, 0);
    } else if (a == "--" + count_flag && i + 1 < argc) {
      r.count = std::atoi(argv[++i]);
    } else {
      fmt::print(stderr, "usage: {} [--seed N] [--{} N]\n", argv[0], count_flag);
      return std::nullopt;
    }
  }
  return r;
}

// Runs `body`; an exception (a protocol error of a core, a lost handshake) counts as a mismatch and
// is reported with the cycle it happened in.
template <class Body>
void run_guarded(const std::uint64_t& cycle, Body&& body) {
  try {
    body();
  } catch (const std::exception& e) {
    fmt::print(stderr, "ERROR at cycle {}: {}\n", cycle, e.what());
    ++g_errors;
  }
}

}  // namespace flycol::rtltb
