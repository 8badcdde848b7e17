// Pooling in RTL lockstep (issue 18): random pooling layers (tb/top/pool_cases.h: every option the
// pooling unit takes, every operand class) compiled by the pooling lowering and run on the
// Verilated RTL in lockstep with the SystemC model under random DRAM timing. Every output pin of
// flycol_top must agree every cycle, total cycles must be equal, and both sides' outputs must match
// the golden pooling bit for bit.
//
//   pool_cosim_tb --config fornt16 --layers 20 --seed 1
//   pool_cosim_tb --config int8 --seed S --skip K --layers 1   (reruns layer K of seed S, as a FAIL line prints)
//   pool_cosim_tb --backward ...   (the backward pass of average and max pooling, FP16, against golden::pool_backward)
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "sim/compiler/pool_compiler.h"
#include "sim/config/config.h"
#include "sim/config/config_keys.h"
#include "sim/golden/pool.h"
#include "sim/rtlsim/cosim.h"
#include "tb/common/args.h"
#include "tb/top/layer_cases.h"
#include "tb/top/pool_cases.h"

using namespace flycol;

int main(int argc, char** argv) {
  tb::Args args("pool_cosim_tb");
  std::string config = "fornt16";
  std::uint64_t layers = 20, skip = 0;
  bool backward = false;
  args.text("config", &config, "configuration name or YAML path")
      .count("layers", &layers, "random pooling layers")
      .count("skip", &skip, "draw and skip this many layers first (reruns one layer of a seed)")
      .flag("backward", &backward,
            "the backward pass of random average and undilated max poolings (FP16 configurations), against "
            "golden::pool_backward");
  if (!args.parse(argc, argv)) return 2;
  const Config cfg = load_config_by_name_or_path(config);
  const hw::HwParams hw = hardware_params(cfg);
  fmt::print("pool_cosim_tb: config {} ({}x{} {}), seed {}, {} random pooling layers{}\n", cfg.name, hw.rows, hw.cols,
             arithmetic_info(cfg.arithmetic).name, args.seed, layers, backward ? ", backward pass" : "");
  const auto draw = [&](std::mt19937_64& g) {
    return backward ? tb::random_pool_backward_case(g, cfg) : tb::random_pool_case(g, hw);
  };
  std::mt19937_64 rng(args.seed);
  for (std::uint64_t i = 0; i < skip; ++i) draw(rng);
  int failed = 0;
  std::uint64_t total_cycles = 0;
  for (std::uint64_t i = skip; i < skip + layers; ++i) {
    const tb::PoolCase c = draw(rng);
    std::string why;
    std::uint64_t cycles = 0;
    try {
      const tb::PoolCaseRun cr = tb::pool_case_run(c, cfg, backward);
      const std::vector<AccBits>& want = cr.want;
      CosimOptions opt;
      opt.watchdog_cycles = 200'000;
      const CosimResult r = cosim_program(cr.prog, cr.image, tb::timing_for(cfg, c.dram_seed), opt);
      cycles = r.sc.cycles;
      if (r.first.found) {
        why = fmt::format("pins diverge at cycle {} on {}: SystemC {} / RTL {}", r.first.cycle, r.first.signal,
                          r.first.sc_value, r.first.rtl_value);
      } else {
        if (!r.sc.finished) why += "SystemC did not finish (" + r.sc.error + "); ";
        if (!r.rtl.finished) why += "RTL did not finish (" + r.rtl.error + "); ";
        if (!r.cycles_equal) why += fmt::format("cycles SystemC {} RTL {}; ", r.sc.cycles, r.rtl.cycles);
        if (r.sc.outputs != want) why += "SystemC outputs differ from golden; ";
        if (r.rtl.outputs != want) why += "RTL outputs differ from golden; ";
      }
    } catch (const std::exception& e) {
      why = fmt::format("threw: {}", e.what());
    }
    total_cycles += cycles;
    if (why.empty()) {
      fmt::print("  ok   {:3} {} ({} cycles)\n", i, c.describe(), cycles);
      continue;
    }
    ++failed;
    fmt::print("  FAIL {:3} {}: {}\n       reproduce: {} --config {} --seed {} --skip {} --layers 1{}\n", i,
               c.describe(), why, argv[0], config, args.seed, i, backward ? " --backward" : "");
  }
  fmt::print("pool_cosim_tb: {} of {} layers in lockstep and equal to the golden pooling ({} cycles in all)\n",
             layers - std::uint64_t(failed), layers, total_cycles);
  return failed == 0 ? 0 : 1;
}
