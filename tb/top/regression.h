// The loop every whole-accelerator regression (accelerator_tb on SystemC, cosim_tb on the RTL in
// lockstep) runs around its own simulation of one case: the recorded cases, the random ones, the
// layers aimed at program features the random draws left below the minimum, the tally of layers
// drawn, run and rejected, the coverage gate, and the line that reproduces a failing case.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "sim/compiler/compiler.h"
#include "sim/config/config.h"
#include "sim/workload/workload.h"
#include "tb/common/args.h"
#include "tb/top/layer_cases.h"

namespace flycol::tb {

struct RegressionOptions {
  LayerRunOptions layers;          // --config, --layers, --max-macs
  std::string regressions;         // --regressions FILE: recorded cases, run first
  std::uint64_t coverage_min = 0;  // --coverage-min N: every program feature hit N times (0: no gate)
  std::uint64_t size_cap = 0;      // recorded cases above this many MACs run as scaled copies (0: none)
  std::string one_case;            // --case LINE: this one case alone (a describe() line)
  bool verbose = false;            // --verbose: a line per case
  bool beyond_limits = false;      // --beyond-limits: random kernels past the feeder's limits too
  void declare(Args& args);
};

// Simulates one compiled case; `ops` are the operands of the program's layer (a GeMM view of a
// 1x1 layer gets them rearranged) and `want` the golden convolution of the case's own layer.
// Returns an empty string when the simulation finished and matched, else what went wrong.
using RunCase = std::function<std::string(const Case& c, const Program& prog, const ConvOperands& ops,
                                          const std::vector<AccBits>& want)>;

// Runs the recorded cases (one above size_cap runs as a scaled copy with the same program
// features, or whole when none is found), then --layers random cases, then cases aimed at every
// program feature still below coverage_min (up to a bounded number of draws each). Prints the
// tally: layers run, rejected by the compiler, aimed, the coverage table. Returns the exit code: 1
// when a case failed, a feature stayed below the minimum, or fewer than 90 % of the random layers
// drawn could run (the compiler rejected the rest); else 0.
int run_regression(const std::string& bench, const Args& args, const RegressionOptions& o, const Config& cfg,
                   const std::vector<Case>& recorded, const RunCase& run);

}  // namespace flycol::tb
