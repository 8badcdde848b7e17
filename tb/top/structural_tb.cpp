// Structural-top regression: random layers run on the fast SystemC model (Accelerator) and on the
// structural top (block SC_MODULEs wired by signals), optionally with some blocks replaced by
// their Verilated RTL (--rtl-blocks), under random DRAM timing. Cycle counts, outputs, DRAM
// traffic and every statistic must be equal, and the outputs must match the golden convolution.
//
//   structural_tb --config fornt16 --layers 10 --seed 1 --max-macs 100000 [--rtl-blocks array,feeder|all]
//   structural_tb --config fornt16 --layer C=64,H=56,W=56,K=64,k=3,s=1,p=1 [--no-compare] [--trace t.vcd]
//
// A failure prints the case and the command that reproduces it. Exit code 0 only if all matched.
#include <chrono>
#include <cstdio>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <systemc>

#include "sim/common/input_error.h"
#include "sim/compiler/compiler.h"
#include "sim/compiler/explicit_lowering.h"
#include "sim/config/config.h"
#include "sim/config/config_keys.h"
#include "sim/golden/conv.h"
#include "sim/scsim/layer_sim.h"
#include "sim/workload/workload.h"
#include "tb/top/layer_cases.h"
#ifdef FLYCOL_WITH_RTL_BLOCKS
#include "sim/rtlblocks/rtl_blocks.h"
#endif

using namespace flycol;

namespace {

struct Options {
  tb::LayerRunOptions run{"fornt16", 10, 100'000};
  std::uint64_t seed = 1;
  std::string rtl_blocks;  // comma-separated block names, or "all"; empty: none
  std::string layer;       // one given layer (the configuration's DRAM timing) instead of random ones
  std::string trace;       // VCD of the structural top's signals (with --layer, to look at a failure)
  bool no_compare = false;  // run the structural top only (speed measurement)
};
struct Totals {
  int run = 0, rejected = 0, failed = 0;
  std::uint64_t cycles = 0;
  double fast_wall = 0, structural_wall = 0;
};

// Field-by-field differences of two statistics records, as "name a/b" pairs.
std::string stats_diff(const hw::AcceleratorStats& a, const hw::AcceleratorStats& b) {
  std::string d;
  auto cmp = [&](const char* name, std::uint64_t x, std::uint64_t y) {
    if (x != y) d += fmt::format("{} {}/{} ", name, x, y);
  };
  cmp("run_cycles", a.run_cycles, b.run_cycles);
  cmp("dram_stall", a.dram_stall, b.dram_stall);
  cmp("tail", a.tail, b.tail);
  cmp("mac_cycles", a.mac_cycles, b.mac_cycles);
  cmp("pool_cycles", a.pool_cycles, b.pool_cycles);
  cmp("feeder_stall", a.feeder_stall, b.feeder_stall);
  cmp("weight_stall", a.weight_stall, b.weight_stall);
  cmp("context_stall", a.context_stall, b.context_stall);
  cmp("pipeline", a.pipeline, b.pipeline);
  cmp("mac_tokens", a.mac_tokens, b.mac_tokens);
  cmp("gated_macs", a.gated_macs, b.gated_macs);
  cmp("feeder_select_stalls", a.feeder_select_stalls, b.feeder_select_stalls);
  const char* sram[3] = {"ifmap", "weights", "psums"};
  for (int k = 0; k < 3; ++k) {
    cmp(fmt::format("sram_reads.{}", sram[k]).c_str(), a.sram_reads[k], b.sram_reads[k]);
    cmp(fmt::format("sram_writes.{}", sram[k]).c_str(), a.sram_writes[k], b.sram_writes[k]);
  }
  return d;
}

std::string dram_diff(const LayerSimResult& a, const LayerSimResult& b) {
  std::string d;
  auto cmp = [&](const char* name, std::uint64_t x, std::uint64_t y) {
    if (x != y) d += fmt::format("{} {}/{} ", name, x, y);
  };
  cmp("dram.ifmap", a.dram.ifmap, b.dram.ifmap);
  cmp("dram.weights", a.dram.weights, b.dram.weights);
  cmp("dram.psums_in", a.dram.psums_in, b.dram.psums_in);
  cmp("dram.ofmap", a.dram.ofmap, b.dram.ofmap);
  cmp("dram.reads", a.dram_stats.reads, b.dram_stats.reads);
  cmp("dram.writes", a.dram_stats.writes, b.dram_stats.writes);
  cmp("dram.busy_cycles", a.dram_stats.busy_cycles, b.dram_stats.busy_cycles);
  cmp("dram.cycles", a.dram_stats.cycles, b.dram_stats.cycles);
  cmp("dram.not_ready_cycles", a.dram_stats.not_ready_cycles, b.dram_stats.not_ready_cycles);
  return d;
}

// One given layer: the structural top's speed, and (unless --no-compare) the same checks.
int run_layer(ScSimulation& fast, ScSimulation& structural, const Config& cfg, const Options& a) {
  const Layer l = parse_layer_spec(a.layer, "layer");
  const Program prog = compile_layer(l, cfg);
  const ConvOperands ops = make_random_operands(l, cfg.arithmetic, 1);
  const DramTiming timing = DramTiming::from(cfg);
  const LayerSimResult s = simulate_layer(structural, prog, ops, timing, 2'000'000);
  fmt::print("structural top: {} cycles in {:.1f} s: {:.0f} cycles/s{}\n", s.sim.cycles, s.sim.wall_seconds,
             s.sim.wall_seconds > 0 ? double(s.sim.cycles) / s.sim.wall_seconds : 0.0,
             s.sim.finished ? "" : " (did not finish: " + s.sim.error + ")");
  if (a.no_compare) return s.sim.finished ? 0 : 1;
  const LayerSimResult f = simulate_layer(fast, prog, ops, timing, 2'000'000);
  std::string why;
  if (!s.sim.finished || !f.sim.finished) why += "a model did not finish; ";
  if (f.sim.cycles != s.sim.cycles) why += fmt::format("cycles fast {} structural {}; ", f.sim.cycles, s.sim.cycles);
  if (f.outputs != s.outputs) why += "outputs differ; ";
  const std::string sd = stats_diff(f.sim.stats, s.sim.stats);
  if (!sd.empty()) why += "statistics (fast/structural): " + sd;
  fmt::print("structural_tb: layer {} {}{}\n", l.spec(), why.empty() ? "passed" : "FAILED: ", why);
  return why.empty() ? 0 : 1;
}

bool run_case(ScSimulation& fast, ScSimulation& structural, const Config& cfg, const tb::Case& c, const Options& a,
              std::uint64_t index, Totals& t) {
  Program prog;
  try {
    prog = tb::compile_case(c, cfg);
  } catch (const InputError&) {
    ++t.rejected;  // the configuration cannot run this layer: not a failure
    return true;
  }
  const ConvOperands layer_ops = tb::make_case_operands(c, cfg);
  golden::ConvOptions gopt;
  gopt.zero_gating = cfg.zero_gating;
  const std::vector<AccBits> want = golden::conv(layer_ops, gopt);
  // A searched plan may run a 1x1 layer as a GeMM view of its pixels: same bytes, rearranged.
  const ConvOperands ops = prog.layer == c.layer ? layer_ops : lower_operands(layer_ops, prog.layer);
  const DramTiming timing = tb::timing_for(cfg, c.dram_seed);

  const LayerSimResult f = simulate_layer(fast, prog, ops, timing, 500'000);
  const LayerSimResult s = simulate_layer(structural, prog, ops, timing, 500'000);
  ++t.run;
  t.cycles += s.sim.cycles;
  t.fast_wall += f.sim.wall_seconds;
  t.structural_wall += s.sim.wall_seconds;

  std::string why;
  if (!f.sim.finished) why += fmt::format("fast model did not finish ({}); ", f.sim.error);
  if (!s.sim.finished) why += fmt::format("structural top did not finish ({}); ", s.sim.error);
  if (f.sim.cycles != s.sim.cycles) why += fmt::format("cycles fast {} structural {}; ", f.sim.cycles, s.sim.cycles);
  if (f.outputs != want) why += "fast outputs differ from golden; ";
  if (s.outputs != f.outputs) {
    std::size_t n = 0, first = 0;
    for (std::size_t i = 0; i < f.outputs.size() && i < s.outputs.size(); ++i)
      if (f.outputs[i] != s.outputs[i] && n++ == 0) first = i;
    why += fmt::format("{} structural outputs differ, first at index {}; ", n, first);
  }
  const std::string sd = stats_diff(f.sim.stats, s.sim.stats);
  if (!sd.empty()) why += "statistics (fast/structural): " + sd + "; ";
  const std::string dd = dram_diff(f, s);
  if (!dd.empty()) why += "DRAM (fast/structural): " + dd + "; ";
  if (why.empty()) return true;
  ++t.failed;
  fmt::print("FAIL config={} {}\n  rtl blocks: {}\n  {}\n  plan: {}\n", cfg.name, c.describe(),
             a.rtl_blocks.empty() ? "none" : a.rtl_blocks, why, prog.plan.describe());
  fmt::print("  reproduce: structural_tb{} --config {} --seed {} --layers {} --max-macs {}{}\n",
             a.rtl_blocks.empty() ? "" : "_rtl", a.run.config, a.seed, index + 1, a.run.max_macs,
             a.rtl_blocks.empty() ? "" : " --rtl-blocks " + a.rtl_blocks);
  return false;
}

}  // namespace

int sc_main(int argc, char* argv[]) {
  tb::Args args("structural_tb");
  Options a;
  a.run.declare(args);
  args.text("rtl-blocks", &a.rtl_blocks, "blocks as Verilated RTL: names separated by commas, or all")
      .text("layer", &a.layer, "one layer spec instead of random layers")
      .flag("no-compare", &a.no_compare, "run the structural top only (speed)")
      .text("trace", &a.trace, "VCD file of the structural top's signals");
  if (!args.parse(argc, argv)) return 2;
  a.seed = args.seed;
  Config cfg;
  std::vector<tb::Case> none;  // no recorded cases: the random ones compare the two tops
  if (!tb::load_layer_run("structural_tb", a.run, "", cfg, none)) return 2;
  const hw::HwParams hwp = hardware_params(cfg);

  ScSimOptions so;
  so.structural = true;
  so.name = "structural";
#ifdef FLYCOL_WITH_RTL_BLOCKS
  std::unique_ptr<hw::StructuralBlockViews> views;
  if (!a.rtl_blocks.empty()) {
    try {
      views = make_rtl_block_views(cfg, parse_rtl_blocks(a.rtl_blocks));
    } catch (const InputError& e) {
      fmt::print(stderr, "structural_tb: {}\n", e.what());
      return 2;
    }
    so.block_views = views.get();
  }
#else
  if (!a.rtl_blocks.empty()) {
    fmt::print(stderr, "structural_tb: built without RTL blocks (use structural_tb_rtl)\n");
    return 2;
  }
#endif
  fmt::print("structural_tb: config {} ({}x{} {}), seed {}, {} random layers, max {} MACs, RTL blocks: {}\n",
             cfg.name, cfg.array.rows, cfg.array.cols, arithmetic_info(cfg.arithmetic).name, a.seed, a.run.layers,
             a.run.max_macs, a.rtl_blocks.empty() ? "none" : a.rtl_blocks);
  // Both tops are elaborated before the first run (SystemC elaborates once per process).
  ScSimulation fast(hwp);
  ScSimulation structural(hwp, so);

  if (!a.trace.empty()) structural.trace_to(a.trace);
  if (!a.layer.empty()) return run_layer(fast, structural, cfg, a);

  Totals t;
  const auto t0 = std::chrono::steady_clock::now();
  std::mt19937_64 rng(a.seed);
  for (std::uint64_t i = 0; i < a.run.layers; ++i)
    run_case(fast, structural, cfg, tb::random_case(rng, cfg, std::int64_t(a.run.max_macs)), a, i, t);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  fmt::print("structural_tb: {} {}: {} layers compared ({} rejected by the compiler), {} failed; {} cycles; "
             "{:.1f} s wall (fast {:.0f} cycles/s, structural {:.0f} cycles/s while the other top idles)\n",
             cfg.name, t.failed ? "FAILED" : "passed", t.run, t.rejected, t.failed, t.cycles, wall,
             t.fast_wall > 0 ? double(t.cycles) / t.fast_wall : 0.0,
             t.structural_wall > 0 ? double(t.cycles) / t.structural_wall : 0.0);
  return t.failed ? 1 : 0;
}
