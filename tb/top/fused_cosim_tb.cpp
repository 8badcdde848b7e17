// Fused convolution + pooling in RTL lockstep (issue 18): random fused layers (tb/top/fused_cases.h:
// any convolution, a pooling of its output with every option the pooling unit takes, forced small
// fused tiles, every operand class) compiled by the fused lowering and run on the Verilated RTL in
// lockstep with the SystemC model under random DRAM timing. Every output pin of flycol_top must
// agree every cycle, total cycles must be equal, and both sides' pooled outputs must match the
// golden convolution followed by the golden pooling bit for bit.
//
//   fused_cosim_tb --config fornt16 --layers 15 --seed 1
//   fused_cosim_tb --config small --seed S --skip K --layers 1   (reruns layer K of seed S, as a FAIL line prints)
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "sim/compiler/fused_compiler.h"
#include "sim/config/config.h"
#include "sim/config/config_keys.h"
#include "sim/rtlsim/cosim.h"
#include "tb/common/args.h"
#include "tb/top/fused_cases.h"
#include "tb/top/layer_cases.h"

using namespace flycol;

int main(int argc, char** argv) {
  tb::Args args("fused_cosim_tb");
  std::string config = "fornt16";
  std::uint64_t layers = 15, skip = 0;
  args.text("config", &config, "configuration name or YAML path (FP16)")
      .count("layers", &layers, "random fused layers")
      .count("skip", &skip, "draw and skip this many layers first (reruns one layer of a seed)");
  if (!args.parse(argc, argv)) return 2;
  const Config cfg = load_config_by_name_or_path(config);
  const hw::HwParams hw = hardware_params(cfg);
  fmt::print("fused_cosim_tb: config {} ({}x{} {}), seed {}, {} random fused convolution + pooling layers\n", cfg.name,
             hw.rows, hw.cols, arithmetic_info(cfg.arithmetic).name, args.seed, layers);
  if (hw.acc_bits != hw.elem_bits) {
    fmt::print(stderr, "fused_cosim_tb: {} has {}-bit accumulators and {}-bit elements: nothing fuses there\n",
               cfg.name, hw.acc_bits, hw.elem_bits);
    return 2;
  }
  std::mt19937_64 rng(args.seed);
  for (std::uint64_t i = 0; i < skip; ++i) tb::random_fused_case(rng, cfg);
  int failed = 0;
  std::uint64_t total_cycles = 0;
  for (std::uint64_t i = skip; i < skip + layers; ++i) {
    const tb::FusedCase c = tb::random_fused_case(rng, cfg);
    std::string why;
    std::uint64_t cycles = 0;
    try {
      const Program prog = compile_fused(c.conv, c.pool, cfg, c.options);
      const ConvOperands ops = tb::fused_operands(c, cfg);
      const std::vector<AccBits> want = tb::fused_reference(c, cfg, ops);
      CosimOptions opt;
      opt.watchdog_cycles = 200'000;
      const CosimResult r = cosim_layer(prog, ops, tb::timing_for(cfg, c.dram_seed), opt);
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
    fmt::print("  FAIL {:3} {}: {}\n       reproduce: {} --config {} --seed {} --skip {} --layers 1\n", i, c.describe(),
               why, argv[0], config, args.seed, i);
  }
  fmt::print("fused_cosim_tb: {} of {} fused layers in lockstep and equal to the golden convolution + pooling ({} "
             "cycles in all)\n",
             layers - std::uint64_t(failed), layers, total_cycles);
  return failed == 0 ? 0 : 1;
}
