// RTL co-simulation regression: random layers (and the permanent cases) run on the Verilated RTL
// in lockstep with the SystemC model under random DRAM timing. Every cycle's ports must agree,
// total cycles must be equal, and both outputs must match the golden convolution bit for bit.
// With --x-seeds, every layer also runs with random initial values of the RTL's unreset state
// under several seeds: reset must make them irrelevant (same outputs, same cycles).
//
//   cosim_tb --config fornt16 --layers 20 --seed 1 --max-macs 200000 [--x-seeds 3]
#include <chrono>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "sim/common/input_error.h"
#include "sim/golden/conv.h"
#include "sim/rtlsim/cosim.h"
#include "tb/top/layer_cases.h"

using namespace flycol;

namespace {

struct Totals {
  int run = 0, rejected = 0, failed = 0, x_runs = 0;
  std::uint64_t cycles = 0;
  double rtl_wall = 0;
};

bool run_case(const Config& cfg, const tb::Case& c, int x_seeds, Totals& t) {
  Program prog;
  try {
    prog = tb::compile_case(c, cfg);
  } catch (const InputError&) {
    ++t.rejected;
    return true;
  }
  const ConvOperands ops = make_random_operands(c.layer, cfg.arithmetic, c.data_seed, {c.zeros});
  golden::ConvOptions g;
  g.zero_gating = cfg.zero_gating;
  const std::vector<AccBits> want = golden::conv(ops, g);
  CosimOptions opt;
  opt.watchdog_cycles = 200'000;
  const CosimResult r = cosim_layer(prog, ops, tb::timing_for(cfg, c.dram_seed), opt);
  ++t.run;
  t.cycles += r.rtl.cycles;
  t.rtl_wall += r.rtl.wall_seconds;
  std::string why;
  if (!r.sc.finished) why += "SystemC did not finish (" + r.sc.error + "); ";
  if (!r.rtl.finished) why += "RTL did not finish (" + r.rtl.error + "); ";
  if (r.first.found)
    why += fmt::format("ports diverge at cycle {} on {}: SystemC {} / RTL {}; ", r.first.cycle, r.first.signal,
                       r.first.sc_value, r.first.rtl_value);
  if (!r.cycles_equal) why += fmt::format("cycles SystemC {} RTL {}; ", r.sc.cycles, r.rtl.cycles);
  if (r.sc.outputs != want) why += "SystemC outputs differ from golden; ";
  if (r.rtl.outputs != want) why += "RTL outputs differ from golden; ";
  for (int s = 1; why.empty() && s <= x_seeds; ++s) {
    // Random initial values of every unreset RTL register and memory must change nothing.
    CosimOptions xo;
    xo.run_sc = false;
    xo.randomize_x = true;
    xo.x_seed = std::uint32_t(s * 7919 + 1);
    const CosimResult x = cosim_layer(prog, ops, tb::timing_for(cfg, c.dram_seed), xo);
    ++t.x_runs;
    if (!x.rtl.finished || x.rtl.cycles != r.rtl.cycles || x.rtl.outputs != want)
      why += fmt::format("with --x-initial seed {}: {} cycles (not {}), outputs {}; ", xo.x_seed, x.rtl.cycles,
                         r.rtl.cycles, x.rtl.outputs == want ? "equal" : "DIFFER");
  }
  if (!why.empty()) {
    ++t.failed;
    fmt::print("FAIL config={} {}\n  {}\n  plan: {}\n", cfg.name, c.describe(), why, prog.plan.describe());
    return false;
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  tb::Args args("cosim_tb");
  tb::LayerRunOptions o{"fornt16", 20, 200'000};
  std::uint64_t x_seeds = 0;
  std::string regressions;
  o.declare(args);
  args.count("x-seeds", &x_seeds, "reruns of each layer with random --x-initial state")
      .text("regressions", &regressions, "file of recorded cases to run first (the biggest are skipped)");
  if (!args.parse(argc, argv)) return 2;
  Config cfg;
  std::vector<tb::Case> recorded;
  if (!tb::load_layer_run("cosim_tb", o, regressions, cfg, recorded)) return 2;
  fmt::print("cosim_tb: config {}, seed {}, {} random layers (max {} MACs), {} --x-initial seeds\n", cfg.name,
             args.seed, o.layers, o.max_macs, x_seeds);
  Totals t;
  const auto t0 = std::chrono::steady_clock::now();
  for (const tb::Case& c : recorded)
    if (c.layer.macs() <= std::int64_t(o.max_macs) * 20) run_case(cfg, c, 0, t);  // the RTL is slow: skip the biggest
  std::mt19937_64 rng(args.seed);
  for (std::uint64_t i = 0; i < o.layers; ++i)
    run_case(cfg, tb::random_case(rng, cfg, std::int64_t(o.max_macs)), int(x_seeds), t);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  fmt::print("cosim_tb: {} {}: {} layers in lockstep ({} rejected by the compiler, {} --x-initial reruns), {} failed; "
             "{} RTL cycles, {:.1f} s wall ({:.0f} RTL cycles/s)\n",
             cfg.name, t.failed ? "FAILED" : "passed", t.run, t.rejected, t.x_runs, t.failed, t.cycles, wall,
             t.rtl_wall > 0 ? double(t.cycles) / t.rtl_wall : 0.0);
  return t.failed ? 1 : 0;
}
