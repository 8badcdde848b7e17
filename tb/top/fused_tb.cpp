// Fused convolution + pooling on the whole accelerator (issue 18, docs/microarchitecture.md
// sections 7.6 and 16): random convolutions followed by a pooling of their output, compiled by
// sim/compiler/fused_compiler into one program and run on the SystemC model under random DRAM
// timing. Per layer: the hazard checker proves the program's waits, the pooled output matches the
// golden convolution followed by the golden pooling bit for bit, the only DRAM writes are the
// pooled tensor's bytes (the unpooled one never leaves the chip), and the analytic model's cycles
// are within 2 % of SystemC's on the configuration's DRAM (its RUN cycles too).
//
//   fused_tb --config fornt16 --layers 30 --seed 1
//   fused_tb --config small --seed S --skip K --layers 1   (reruns layer K of seed S, as a FAIL line prints)
//   ... --commands                                        (and prints its schedule, SystemC beside analytic)
//   fused_tb --structural ...                               (the structural top, against the fast model)
//
// Exit code 0 only if every layer finished and matched.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <systemc>

#include "sim/analytic/analytic_model.h"
#include "sim/compiler/fused_compiler.h"
#include "sim/compiler/hazards.h"
#include "sim/compiler/interpreter.h"
#include "sim/config/config.h"
#include "sim/config/config_keys.h"
#include "sim/dram/dram_model.h"
#include "sim/scsim/layer_sim.h"
#include "sim/scsim/sc_simulation.h"
#include "tb/common/args.h"
#include "tb/top/fused_cases.h"
#include "tb/top/layer_cases.h"

using namespace flycol;

namespace {

// The analytic model's total cycles against SystemC's, per layer (the configuration's DRAM): the
// issue's 2 %. The worst over 150 random layers per configuration on six configurations (seeds 5
// and 11, a quarter of them with forced column tiles) is 0.70 % (fornt16); it was 4.2 % while the move counted a lost cycle per LD write instead of replaying
// its chunks around them, 11.8 % before those writes were modelled at all (sim/analytic/README.md,
// "The move of a fused tile").
constexpr double kMaxCycleError = 0.02;
// The RUNs' cycles alone (no DMA flow model): 0.00 % on those layers.
constexpr double kMaxRunError = 0.02;

struct AnalyticCheck {
  double last = 0, worst = 0, last_run = 0, worst_run = 0;
  std::string worst_case;
};

// Runs one case; "" when it matched, else why not.
std::string run_case(ScSimulation& sim, const Config& cfg, const tb::FusedCase& c, std::uint64_t* cycles,
                     AnalyticCheck& ac, ScSimulation* fast, bool print_commands) {
  const Program prog = compile_fused(c.conv, c.pool, cfg, c.options);
  check_hazards(prog);
  const ConvOperands ops = tb::fused_operands(c, cfg);
  const std::vector<AccBits> want = tb::fused_reference(c, cfg, ops);
  // The functional interpreter (sim/compiler/interpreter.h), a model of its own from the spec.
  {
    std::vector<std::uint8_t> image = build_dram_image(prog, ops);
    try {
      interpret(prog, image);
    } catch (const std::logic_error& e) {
      return fmt::format("interpreter: {}", e.what());
    }
    if (extract_outputs(prog, image.data()) != want) return "the interpreter's outputs differ from the golden model's";
  }

  const LayerSimResult r = simulate_layer(sim, prog, ops, tb::timing_for(cfg, c.dram_seed), 2'000'000);
  *cycles = r.sim.cycles;
  if (!r.sim.finished) return fmt::format("did not finish: {}", r.sim.error);
  if (r.sim.stats.pool_cycles == 0) return "no pooling cycle was counted";
  const std::uint64_t pooled = std::uint64_t(prog.ofmap_elems()) * std::uint64_t(prog.hw.acc_bytes());
  if (r.dram.ofmap != pooled)
    return fmt::format("{} ofmap bytes written to DRAM; the pooled tensor has {}", r.dram.ofmap, pooled);
  if (r.dram.psums_in != 0) return fmt::format("{} partial-sum bytes read back from DRAM", r.dram.psums_in);
  if (fast) {
    const LayerSimResult f = simulate_layer(*fast, prog, ops, tb::timing_for(cfg, c.dram_seed), 2'000'000);
    const hw::AcceleratorStats& a = r.sim.stats;
    const hw::AcceleratorStats& b = f.sim.stats;
    if (!f.sim.finished || f.sim.cycles != r.sim.cycles || a.pool_cycles != b.pool_cycles ||
        a.mac_cycles != b.mac_cycles || a.feeder_stall != b.feeder_stall || a.run_cycles != b.run_cycles ||
        !std::equal(a.sram_reads, a.sram_reads + 3, b.sram_reads) ||
        !std::equal(a.sram_writes, a.sram_writes + 3, b.sram_writes))
      return fmt::format("structural top: {} cycles ({} pool, {} MAC); fast model {} ({} pool, {} MAC)", r.sim.cycles,
                         a.pool_cycles, a.mac_cycles, f.sim.cycles, b.pool_cycles, b.mac_cycles);
    if (f.outputs != r.outputs) return "structural top and fast model outputs differ";
  }
  const std::vector<AccBits>& got = r.outputs;
  if (got.size() != want.size()) return fmt::format("{} outputs, golden has {}", got.size(), want.size());
  std::size_t diffs = 0, first = 0;
  for (std::size_t i = 0; i < want.size(); ++i)
    if (got[i] != want[i] && diffs++ == 0) first = i;
  if (diffs)
    return fmt::format("{} of {} outputs differ; first at index {}: got {:#x} want {:#x} ({} RUNs, {})", diffs,
                       want.size(), first, got[first], want[first], prog.runs, prog.plan.describe());
  // The same program on the configuration's DRAM, SystemC against the analytic model.
  const LayerSimResult plain = simulate_layer(sim, prog, ops, DramTiming::from(cfg), 2'000'000);
  if (!plain.sim.finished) return fmt::format("did not finish on the configuration's DRAM: {}", plain.sim.error);
  if (fast && simulate_layer(*fast, prog, ops, DramTiming::from(cfg), 2'000'000).sim.cycles != plain.sim.cycles)
    return "structural top and fast model differ in cycles on the configuration's DRAM";
  analytic::Model model(hardware_params(cfg), DramTiming::from(cfg));
  analytic::Options opt;
  opt.commands = print_commands;
  const analytic::Result an = model.run(prog, opt);
  if (print_commands) tb::print_command_schedule(prog, plain.sim.done_cycles, an);
  const double err = std::abs(double(an.stats.cycles) - double(plain.sim.cycles)) / double(plain.sim.cycles);
  const double err_run = std::abs(double(an.stats.run_cycles) - double(plain.sim.stats.run_cycles)) /
                         double(plain.sim.stats.run_cycles);
  if (err > kMaxCycleError || err_run > kMaxRunError)
    return fmt::format("analytic model: {} cycles ({} in RUNs) against SystemC's {} ({}): {:.1f} % off ({:.1f} % in "
                       "RUNs), at most {:.0f} % ({:.0f} %)",
                       an.stats.cycles, an.stats.run_cycles, plain.sim.cycles, plain.sim.stats.run_cycles, 100 * err,
                       100 * err_run, 100 * kMaxCycleError, 100 * kMaxRunError);
  ac.last = err;
  ac.last_run = err_run;
  ac.worst_run = std::max(ac.worst_run, err_run);
  if (err > ac.worst) {
    ac.worst = err;
    ac.worst_case = fmt::format("{} (SystemC {} cycles, analytic {})", c.describe(), plain.sim.cycles, an.stats.cycles);
  }
  return "";
}

}  // namespace

int sc_main(int argc, char* argv[]) {
  tb::Args args("fused_tb");
  std::string config = "fornt16";
  std::uint64_t layers = 20, skip = 0;
  bool structural = false, print_commands = false;
  args.text("config", &config, "configuration name or YAML path (FP16: fusion needs accumulators as wide as elements)")
      .count("layers", &layers, "random fused layers")
      .count("skip", &skip, "draw and skip this many layers first (reruns one layer of a seed)")
      .flag("structural", &structural, "run the structural top (block SC_MODULEs) and compare it with the fast model")
      .flag("commands", &print_commands,
            "print each command's completion cycle in SystemC beside the analytic model's (on the configuration's "
            "DRAM)");
  if (!args.parse(argc, argv)) return 2;
  const Config cfg = load_config_by_name_or_path(config);
  const hw::HwParams hw = hardware_params(cfg);
  fmt::print("fused_tb: config {} ({}x{} {}), seed {}, {} random fused convolution + pooling layers{}\n", cfg.name,
             hw.rows, hw.cols, arithmetic_info(cfg.arithmetic).name, args.seed, layers,
             structural ? ", structural top" : "");
  if (hw.acc_bits != hw.elem_bits) {
    fmt::print(stderr, "fused_tb: {} has {}-bit accumulators and {}-bit elements: nothing fuses there (section 7.6)\n",
               cfg.name, hw.acc_bits, hw.elem_bits);
    return 2;
  }
  ScSimOptions so;
  so.structural = structural;
  ScSimulation sim(hw, so);
  sim.record_commands(print_commands);
  std::unique_ptr<ScSimulation> fast;
  if (structural) {
    ScSimOptions fo;
    fo.name = "fast";
    fast = std::make_unique<ScSimulation>(hw, fo);
  }
  std::mt19937_64 rng(args.seed);
  for (std::uint64_t i = 0; i < skip; ++i) tb::random_fused_case(rng, cfg);
  int failed = 0;
  AnalyticCheck ac;
  for (std::uint64_t i = skip; i < skip + layers; ++i) {
    const tb::FusedCase c = tb::random_fused_case(rng, cfg);
    std::uint64_t cycles = 0;
    std::string why;
    try {
      why = run_case(sim, cfg, c, &cycles, ac, fast.get(), print_commands);
    } catch (const std::exception& e) {
      why = fmt::format("threw: {}", e.what());
    }
    if (why.empty()) {
      fmt::print("  ok   {:3} {} ({} cycles; analytic off by {:.2f} %, RUNs {:.2f} %)\n", i, c.describe(), cycles,
                 100 * ac.last, 100 * ac.last_run);
      continue;
    }
    ++failed;
    fmt::print("  FAIL {:3} {}: {}\n       reproduce: {} --config {} --seed {} --skip {} --layers 1{}\n", i,
               c.describe(), why, argv[0], config, args.seed, i, structural ? " --structural" : "");
    if (why.rfind("did not finish", 0) == 0) {
      fmt::print("fused_tb: stopped after layer {}: the simulation ended on an error\n", i);
      return 1;
    }
  }
  fmt::print("fused_tb: {} of {} fused layers matched the golden convolution + pooling\n",
             layers - std::uint64_t(failed), layers);
  fmt::print("fused_tb: analytic model against SystemC: worst layer cycles {:.2f} %, worst RUN cycles {:.2f} %{}\n",
             100 * ac.worst, 100 * ac.worst_run, ac.worst_case.empty() ? "" : " at " + ac.worst_case);
  return failed == 0 ? 0 : 1;
}
