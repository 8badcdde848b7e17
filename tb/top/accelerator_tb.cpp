// Whole-accelerator regression: random layers (and the permanent regression cases) compiled to
// command streams and run on the SystemC model under random DRAM timing, each checked bit for bit
// against the golden convolution. One process elaborates one configuration.
//
//   accelerator_tb --config fornt16 --layers 100 --seed 1 --max-macs 2000000
//   accelerator_tb --config small --regressions tb/top/accelerator_regressions.txt
//
// Exit code 0 only if every layer finished and matched.
#include <chrono>
#include <cstdio>
#include <cstring>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <systemc>

#include "sim/common/input_error.h"
#include "sim/compiler/compiler.h"
#include "sim/config/config.h"
#include "sim/config/config_keys.h"
#include "sim/golden/conv.h"
#include "sim/scsim/layer_sim.h"
#include "sim/workload/random_layer.h"
#include "sim/workload/workload.h"
#include "tb/top/layer_cases.h"

using namespace flycol;
using flycol::tb::Case;
using flycol::tb::compile_case;
using flycol::tb::random_case;
using flycol::tb::timing_for;

namespace {

struct Totals {
  int run = 0, rejected = 0, failed = 0, profile_pairs = 0;
  std::uint64_t cycles = 0, macs = 0;
  double wall = 0;
};

// Runs one case; returns false on a mismatch or an unfinished run.
bool run_case(ScSimulation& sim, const Config& cfg, const Case& c, Totals& t, bool verbose, bool second_profile) {
  Program prog;
  try {
    prog = compile_case(c, cfg);
  } catch (const InputError& e) {
    ++t.rejected;  // the configuration cannot run this layer (e.g. SRAMs too small): not a failure
    if (verbose) fmt::print("  rejected: {} ({})\n", c.describe(), e.what());
    return true;
  }
  const ConvOperands ops = make_random_operands(c.layer, cfg.arithmetic, c.data_seed, {c.zeros});
  golden::ConvOptions gopt;
  gopt.zero_gating = cfg.zero_gating;
  const std::vector<AccBits> want = golden::conv(ops, gopt);

  const LayerSimResult r = simulate_layer(sim, prog, ops, timing_for(cfg, c.dram_seed), 500'000);
  ++t.run;
  t.cycles += r.sim.cycles;
  t.macs += std::uint64_t(c.layer.macs());
  t.wall += r.sim.wall_seconds;
  std::int64_t mismatches = 0, first = -1;
  for (std::size_t i = 0; i < want.size(); ++i)
    if (r.outputs[i] != want[i]) {
      if (first < 0) first = std::int64_t(i);
      ++mismatches;
    }
  if (!r.sim.finished || mismatches) {
    ++t.failed;
    fmt::print("FAIL config={} {}\n", cfg.name, c.describe());
    if (!r.sim.finished) fmt::print("  did not finish: {}\n", r.sim.error);
    if (mismatches)
      fmt::print("  {} of {} outputs differ; first at index {}: got 0x{:x} want 0x{:x}\n", mismatches, want.size(),
                 first, r.outputs[std::size_t(first)], want[std::size_t(first)]);
    fmt::print("  plan: {}\n", prog.plan.describe());
    return false;
  }
  if (verbose)
    fmt::print("  ok {:>9} cycles  {}\n", r.sim.cycles, c.describe());

  if (second_profile) {
    // The same layer under another DRAM profile: cycles may change, results may not.
    Case c2 = c;
    c2.dram_seed = c.dram_seed * 6364136223846793005ull + 1442695040888963407ull;
    const LayerSimResult r2 = simulate_layer(sim, prog, ops, timing_for(cfg, c2.dram_seed), 500'000);
    ++t.profile_pairs;
    if (!r2.sim.finished || r2.outputs != r.outputs) {
      ++t.failed;
      fmt::print("FAIL config={} {}: a second DRAM profile (dram={}) changed the results\n", cfg.name, c.describe(),
                 c2.dram_seed);
      return false;
    }
  }
  return true;
}

}  // namespace

int sc_main(int argc, char* argv[]) {
  tb::Args args("accelerator_tb");
  tb::LayerRunOptions o{"fornt16", 50, 2'000'000};
  std::string regressions;  // file of permanent cases
  bool verbose = false;
  o.declare(args);
  args.text("regressions", &regressions, "file of recorded cases to run first").flag("verbose", &verbose, "a line a layer");
  if (!args.parse(argc, argv)) return 2;
  Config cfg;
  std::vector<Case> recorded;
  if (!tb::load_layer_run("accelerator_tb", o, regressions, cfg, recorded)) return 2;
  fmt::print("accelerator_tb: config {} ({}x{} {}), seed {}, {} random layers, max {} MACs\n", cfg.name,
             cfg.array.rows, cfg.array.cols, arithmetic_info(cfg.arithmetic).name, args.seed, o.layers, o.max_macs);
  ScSimulation sim(hardware_params(cfg));
  Totals t;
  const auto t0 = std::chrono::steady_clock::now();

  // Permanent cases first: every seed that ever failed, for any configuration; lines name theirs.
  for (const Case& c : recorded) run_case(sim, cfg, c, t, verbose, false);
  if (!regressions.empty()) fmt::print("  {} regression cases for {}\n", recorded.size(), cfg.name);

  std::mt19937_64 rng(args.seed);
  for (std::uint64_t i = 0; i < o.layers; ++i) {
    const Case c = random_case(rng, cfg, std::int64_t(o.max_macs));
    run_case(sim, cfg, c, t, verbose, i % 10 == 3 && c.dram_seed != 0);
  }

  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  fmt::print("accelerator_tb: {} {}: {} layers run ({} rejected by the compiler, {} DRAM-profile pairs), {} failed; "
             "{} MACs in {} cycles; {:.1f} s wall ({:.0f} simulated cycles/s)\n",
             cfg.name, t.failed ? "FAILED" : "passed", t.run, t.rejected, t.profile_pairs, t.failed, t.macs, t.cycles,
             wall, t.wall > 0 ? double(t.cycles) / t.wall : 0.0);
  return t.failed ? 1 : 0;
}
