// RTL co-simulation regression: random layers (and the permanent cases, and layers aimed at the
// program features the random ones missed) run on the Verilated RTL in lockstep with the SystemC
// model under random DRAM timing. Every output pin must agree every cycle, total cycles must be
// equal, and both outputs must match the golden convolution bit for bit. With --x-seeds, every
// layer also runs with random initial values of the RTL's unreset state under several seeds: reset
// must make them irrelevant (same outputs, same cycles). The loop, the tally and the coverage gate
// are tb/top/regression.h's.
//
//   cosim_tb --config fornt16 --layers 20 --seed 1 --max-macs 200000 --coverage-min 2 [--x-seeds 3]
//   cosim_tb --config fornt16 --case 'layer=... order=... ...'   (as a FAIL line prints it)
#include <string>
#include <vector>

#include <fmt/format.h>

#include "sim/rtlsim/cosim.h"
#include "tb/top/regression.h"

using namespace flycol;

int main(int argc, char** argv) {
  tb::Args args("cosim_tb");
  tb::RegressionOptions o;
  o.layers = {"fornt16", 20, 200'000};
  std::uint64_t x_seeds = 0, size_cap = 0;
  o.declare(args);
  args.count("x-seeds", &x_seeds, "reruns of each layer with random --x-initial state")
      .count("size-cap", &size_cap, "recorded cases above this many MACs run as scaled copies (default 20 x --max-macs)");
  if (!args.parse(argc, argv)) return 2;
  o.size_cap = size_cap ? size_cap : 20 * o.layers.max_macs;
  Config cfg;
  std::vector<tb::Case> recorded;
  if (!tb::load_layer_run("cosim_tb", o.layers, o.regressions, cfg, recorded)) return 2;
  fmt::print("cosim_tb: config {}, seed {}, {} random layers (max {} MACs), {} --x-initial seeds, coverage min {}\n",
             cfg.name, args.seed, o.layers.layers, o.layers.max_macs, x_seeds, o.coverage_min);
  return tb::run_regression(
      "cosim_tb", args, o, cfg, recorded,
      [&](const tb::Case& c, const Program& prog, const ConvOperands& ops, const std::vector<AccBits>& want) {
        CosimOptions opt;
        opt.watchdog_cycles = 200'000;
        const CosimResult r = cosim_layer(prog, ops, tb::timing_for(cfg, c.dram_seed), opt);
        if (r.first.found)  // later differences follow from this one: report it alone
          return fmt::format("pins diverge at cycle {} on {}: SystemC {} / RTL {}", r.first.cycle, r.first.signal,
                             r.first.sc_value, r.first.rtl_value);
        std::string why;
        if (!r.sc.finished) why += "SystemC did not finish (" + r.sc.error + "); ";
        if (!r.rtl.finished) why += "RTL did not finish (" + r.rtl.error + "); ";
        if (!r.cycles_equal) why += fmt::format("cycles SystemC {} RTL {}; ", r.sc.cycles, r.rtl.cycles);
        if (r.sc.outputs != want) why += "SystemC outputs differ from golden; ";
        if (r.rtl.outputs != want) why += "RTL outputs differ from golden; ";
        for (std::uint64_t s = 1; why.empty() && s <= x_seeds; ++s) {
          // Random initial values of every unreset RTL register and memory must change nothing.
          CosimOptions xo;
          xo.run_sc = false;
          xo.randomize_x = true;
          xo.x_seed = std::uint32_t(s * 7919 + 1);
          const CosimResult x = cosim_layer(prog, ops, tb::timing_for(cfg, c.dram_seed), xo);
          if (!x.rtl.finished || x.rtl.cycles != r.rtl.cycles || x.rtl.outputs != want)
            why += fmt::format("with --x-initial seed {}: {} cycles (not {}), outputs {}; ", xo.x_seed, x.rtl.cycles,
                               r.rtl.cycles, x.rtl.outputs == want ? "equal" : "DIFFER");
        }
        return why;
      });
}
