// The lockstep harness of the RTL benches not yet converted to one testbench per block (sequencer,
// controller and the cells): the global mismatch count, the "--seed N --<count> N" command line and
// the guarded run, on top of tb/common/verilator.h. Converted benches use tb/common/args.h and
// check.h instead. Each testbench is one translation unit, so the log is a plain inline global.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <optional>
#include <string>

#include <fmt/format.h>

#include "tb/common/verilator.h"

namespace flycol::rtltb {

using flycol::tb::get_bits;
using flycol::tb::get_elem;
using flycol::tb::make_context;
using flycol::tb::PortMemory;
using flycol::tb::put_bits;
using flycol::tb::put_elem;

inline constexpr int kMaxReported = 20;  // mismatches printed; the rest are only counted
inline int g_errors = 0;

// Counts a mismatch and prints the first kMaxReported of them.
inline void fail(const std::string& msg) {
  std::fflush(stdout);  // keep the order with Verilator's assertion messages
  if (g_errors < kMaxReported) fmt::print(stderr, "MISMATCH: {}\n", msg);
  ++g_errors;
}

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
