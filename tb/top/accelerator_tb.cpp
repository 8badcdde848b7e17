// Whole-accelerator regression: random layers (and the permanent regression cases, and layers
// aimed at the program features the random ones missed) compiled to command streams and run on the
// SystemC model under random DRAM timing, each checked bit for bit against the golden convolution.
// One process elaborates one configuration. The loop, the tally and the coverage gate are
// tb/top/regression.h's.
//
//   accelerator_tb --config fornt16 --layers 100 --seed 1 --max-macs 2000000 --coverage-min 5
//   accelerator_tb --config small --regressions tb/top/accelerator_regressions.txt
//   accelerator_tb --config fornt16 --case 'layer=... order=... ...'   (as a FAIL line prints it)
//
// Exit code 0 only if every layer finished and matched and the gates held.
#include <string>
#include <vector>

#include <fmt/format.h>
#include <systemc>

#include "sim/config/config_keys.h"
#include "sim/scsim/layer_sim.h"
#include "tb/top/regression.h"

using namespace flycol;

namespace {

// The first output that differs from the golden convolution, or "".
std::string compare(const std::vector<AccBits>& got, const std::vector<AccBits>& want) {
  std::size_t diffs = 0, first = 0;
  for (std::size_t i = 0; i < want.size(); ++i)
    if (i >= got.size() || got[i] != want[i]) {
      if (diffs++ == 0) first = i;
    }
  if (diffs == 0) return "";
  return fmt::format("{} of {} outputs differ; first at index {}: got 0x{:x} want 0x{:x}", diffs, want.size(), first,
                     first < got.size() ? got[first] : 0u, want[first]);
}

}  // namespace

int sc_main(int argc, char* argv[]) {
  tb::Args args("accelerator_tb");
  tb::RegressionOptions o;
  o.layers = {"fornt16", 50, 2'000'000};
  o.declare(args);
  if (!args.parse(argc, argv)) return 2;
  Config cfg;
  std::vector<tb::Case> recorded;
  if (!tb::load_layer_run("accelerator_tb", o.layers, o.regressions, cfg, recorded)) return 2;
  fmt::print("accelerator_tb: config {} ({}x{} {}), seed {}, {} random layers, max {} MACs, coverage min {}\n",
             cfg.name, cfg.array.rows, cfg.array.cols, arithmetic_info(cfg.arithmetic).name, args.seed, o.layers.layers,
             o.layers.max_macs, o.coverage_min);
  ScSimulation sim(hardware_params(cfg));
  int cases = 0;
  return tb::run_regression(
      "accelerator_tb", args, o, cfg, recorded,
      [&](const tb::Case& c, const Program& prog, const ConvOperands& ops, const std::vector<AccBits>& want) {
        const LayerSimResult r = simulate_layer(sim, prog, ops, tb::timing_for(cfg, c.dram_seed), 500'000);
        if (!r.sim.finished) return fmt::format("did not finish: {}", r.sim.error);
        std::string why = compare(r.outputs, want);
        if (!why.empty()) return why;
        if (++cases % 10 == 4 && c.dram_seed != 0) {
          // The same layer under another DRAM profile: cycles may change, results may not.
          const std::uint64_t seed2 = c.dram_seed * 6364136223846793005ull + 1442695040888963407ull;
          const LayerSimResult r2 = simulate_layer(sim, prog, ops, tb::timing_for(cfg, seed2), 500'000);
          if (!r2.sim.finished || r2.outputs != r.outputs)
            return fmt::format("a second DRAM profile (dram={}) changed the results", seed2);
        }
        return std::string();
      });
}
