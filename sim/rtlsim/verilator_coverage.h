// Coverage builds of the Verilated RTL (scripts/coverage --rtl): a model's line, toggle and
// `cover property` counters live in its VerilatedContext and are lost with it unless written out.
// Both places that tear a model down (tb::Dut in tb/common/verilator.h, RtlTopImpl) call this.
#pragma once

#include <verilated.h>

#ifdef FLYCOL_VERILATOR_COVERAGE
#include <atomic>
#include <cstdlib>
#include <string>

#include <unistd.h>
#include <verilated_cov.h>
#endif

namespace flycol {

// Writes ctx's coverage counters to $FLYCOL_VCOV_DIR/<what>_<pid>_<n>.dat (n counts the writes
// of this process, so the several models of one test never overwrite each other) and zeroes them,
// so a second call for the same context adds no double counts. Does nothing unless the build
// Verilated with coverage (FLYCOL_VERILATOR_COVERAGE, set by cmake/FlycolTargets.cmake) and
// FLYCOL_VCOV_DIR is set: a coverage build run by hand leaves no files behind.
inline void write_verilator_coverage(VerilatedContext& ctx, const char* what) {
#ifdef FLYCOL_VERILATOR_COVERAGE
  const char* dir = std::getenv("FLYCOL_VCOV_DIR");
  if (!dir || !*dir) return;
  static std::atomic<int> seq{0};
  const std::string file = std::string(dir) + "/" + what + "_" + std::to_string(::getpid()) + "_" +
                           std::to_string(seq++) + ".dat";
  ctx.coveragep()->write(file.c_str());
  ctx.coveragep()->zero();
#else
  (void)ctx;
  (void)what;
#endif
}

}  // namespace flycol
