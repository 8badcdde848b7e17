// Random and recorded test cases of the whole accelerator, shared by the SystemC regression
// (tb/top/accelerator_tb.cpp) and the RTL co-simulation regression (tb/top/cosim_tb.cpp): a case is a
// layer, compiler options, operand and DRAM seeds, and it prints as one line that can be pasted
// into tb/top/accelerator_regressions.txt to make it permanent.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "sim/analytic/analytic_model.h"
#include "sim/compiler/compiler.h"
#include "sim/config/config.h"
#include "sim/dram/dram_model.h"
#include "sim/workload/workload.h"
#include "tb/common/args.h"

namespace flycol::tb {

struct Case {
  Layer layer;
  CompileOptions opt;        // loop order, forced tiles, tile layout (with tiling=heuristic)
  bool search = false;       // tiling=search: the plan flycol net would choose (opt is ignored)
  std::uint64_t data_seed = 1;
  std::uint64_t dram_seed = 0;  // 0: the configuration's fixed DRAM timing
  double zeros = 0.0;
  std::string operands = "uniform";  // operand class (make_case_operands)

  std::string describe() const;
};

// The configuration's DRAM, or a random but reproducible memory: bandwidth 1..40 bytes/cycle,
// latency 1..200 cycles, request back-pressure and latency jitter.
DramTiming timing_for(const Config& cfg, std::uint64_t dram_seed);

// A program's schedule, command by command (the benches' --commands): the cycle each completed in a
// simulation (SimResult::done_cycles, ScSimulation::record_commands) beside the analytic model's
// start and done (analytic::Options::commands) and the difference, analytic - simulation; `*` marks
// where the difference changes, which is where the analytic schedule drifts.
void print_command_schedule(const Program& prog, const std::vector<std::uint64_t>& done_cycles,
                            const analytic::Result& an);

// A random case: random_layer() with at most max_macs (sometimes bent to a 1x1 kernel or a
// one-row kernel with a vertical stride), a random loop order,
// sometimes forced small tiles, a tile layout the layer allows, the tiling search, random DRAM, a
// share of zero operands and an operand class the configuration's arithmetic draws from. Kernels
// beyond the feeder's documented limit (dilated width over feeder.pattern_bits) are drawn again
// unless beyond_limits (then the compiler rejects them).
Case random_case(std::mt19937_64& rng, const Config& cfg, std::int64_t max_macs, bool beyond_limits = false);

// The operands of a case (its layer, the configuration's arithmetic, data seed, zeros, class).
ConvOperands make_case_operands(const Case& c, const Config& cfg);

// Parses a line as describe() prints it ("config=..." may lead; it is ignored here).
bool parse_case(const std::string& line, Case& c);

// The recorded cases of configuration `config_name` in a regressions file (tb/top/
// accelerator_regressions.txt: one describe() line a case after "config=<name> "; '#' starts a
// comment). Throws std::runtime_error naming the file and the line it cannot read.
std::vector<Case> read_regressions(const std::string& path, const std::string& config_name);

// The options of every whole-accelerator regression, declared on `args` (which holds --seed):
// --config NAME|FILE, --layers N random layers, --max-macs N per random layer.
struct LayerRunOptions {
  std::string config = "fornt16";
  std::uint64_t layers = 0, max_macs = 0;
  void declare(Args& args) {
    args.text("config", &config, "configuration name or file (default fornt16)")
        .count("layers", &layers, fmt::format("random layers (default {})", layers))
        .count("max-macs", &max_macs, fmt::format("MACs of a random layer at most (default {})", max_macs));
  }
};

// The configuration of --config and the recorded cases for it in `regressions` (none when empty).
// On an error prints it, prefixed with `bench`, and returns false (the bench exits with 2).
bool load_layer_run(const std::string& bench, const LayerRunOptions& o, const std::string& regressions, Config& cfg,
                    std::vector<Case>& recorded);

// Compiles the case: the searched plan, or the forced options; forced tiles or a layout that do
// not fit the layer fall back to the compiler's choice (first keeping the layout, then without).
// Throws InputError when the configuration cannot run the layer at all.
Program compile_case(const Case& c, const Config& cfg);

}  // namespace flycol::tb
