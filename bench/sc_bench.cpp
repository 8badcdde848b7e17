// Benchmarks of the golden model and the SystemC model on the reference configuration: speed on
// the 3x3 64->64 56x56 layer, and the behaviour figures the paper implies (feeder throughput on
// 3x3 stride 1, the 1x1 stride 2 slowdown, cycles against dilation). Prints a table and writes
// the figures as JSON. Figures, not pass/fail: machines differ. Layers compile as `flycol run`
// compiles them: with the tiling search unless --tiling heuristic (analytic::kDefaultTiling).
//
//   sc_bench [--config NAME] [--out FILE.json] [--quick] [--tiling search|heuristic]
#include <chrono>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <systemc>

#include "sim/analytic/plan_choice.h"
#include "sim/common/files.h"
#include "sim/compiler/compiler.h"
#include "sim/compiler/explicit_lowering.h"
#include "sim/config/config.h"
#include "sim/config/config_keys.h"
#include "sim/golden/conv.h"
#include "sim/report/json.h"
#include "sim/scsim/layer_sim.h"
#include "sim/workload/workload.h"

using namespace flycol;

namespace {

struct Row {
  std::string what, layer;
  std::uint64_t cycles = 0, macs = 0;
  double util = 0, wall = 0;
  hw::AcceleratorStats st;
  bool exact = false;
};

// The program `flycol run --tiling <tiling>` runs (sim/runner/run_layer.cpp, compile_request).
Program compile_as_run(const Layer& l, const Config& cfg, analytic::Tiling tiling) {
  if (tiling == analytic::Tiling::heuristic) return compile_layer(l, cfg);
  analytic::Planner planner(cfg, DramTiming::from(cfg), tiling);
  return planner.choose(l, analytic::Lowering::feeder).program;
}

Row run_sc(ScSimulation& sim, const Config& cfg, analytic::Tiling tiling, const std::string& what, const std::string& spec) {
  Row r;
  r.what = what;
  const Layer l = parse_layer_spec(spec, "bench");
  r.layer = l.spec();
  const Program p = compile_as_run(l, cfg, tiling);
  const ConvOperands ops = make_random_operands(l, cfg.arithmetic, 1);
  // The search may run a 1x1 layer flattened; its outputs come back in the layer's order.
  Layer run_layer = p.layer;
  run_layer.name = l.name;
  const LayerSimResult s =
      simulate_layer(sim, p, run_layer == l ? ops : lower_operands(ops, p.layer), DramTiming::from(cfg));
  golden::ConvOptions g;
  g.zero_gating = cfg.zero_gating;
  r.exact = s.sim.finished && s.outputs == golden::conv(ops, g);
  r.cycles = s.sim.cycles;
  r.macs = std::uint64_t(l.macs());
  r.util = double(r.macs) / (double(r.cycles) * cfg.pes());
  r.wall = s.sim.wall_seconds;
  r.st = s.sim.stats;
  return r;
}

Json row_json(const Row& r) {
  Json j = Json::object();
  j["what"] = r.what;
  j["layer"] = r.layer;
  j["cycles"] = r.cycles;
  j["macs"] = r.macs;
  j["utilization"] = r.util;
  j["mac_cycles"] = r.st.mac_cycles;
  j["feeder_stall"] = r.st.feeder_stall;
  j["context_stall"] = r.st.context_stall;
  j["pipeline"] = r.st.pipeline;
  j["dram_stall"] = r.st.dram_stall;
  j["bit_exact"] = r.exact;
  j["wall_seconds"] = r.wall;
  return j;
}

}  // namespace

int sc_main(int argc, char* argv[]) {
  std::string config = "fornt16", out = "out/bench/sc_bench.json";
  bool quick = false;
  analytic::Tiling tiling = analytic::kDefaultTiling;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--config" && i + 1 < argc) config = argv[++i];
    else if (a == "--out" && i + 1 < argc) out = argv[++i];
    else if (a == "--quick") quick = true;
    else if (a == "--tiling" && i + 1 < argc && analytic::tiling_named(argv[i + 1])) tiling = *analytic::tiling_named(argv[++i]);
    else {
      fmt::print(stderr, "sc_bench: unknown option '{}'\n", a);
      return 2;
    }
  }
  const Config cfg = load_config_by_name_or_path(config);
  Json report = Json::object();
  report["config"] = cfg.name;
  report["tiling"] = analytic::tiling_name(tiling);

  // 1. Golden FP16 convolution throughput, one core.
  const std::string ref = "C=64,H=56,W=56,K=64,k=3,s=1,p=1";
  const Layer ref_layer = parse_layer_spec(ref, "bench");
  const ConvOperands ops = make_random_operands(ref_layer, cfg.arithmetic, 1);
  double best = 1e30;
  for (int rep = 0; rep < (quick ? 1 : 3); ++rep) {
    const auto t0 = std::chrono::steady_clock::now();
    const auto o = golden::conv(ops);
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    (void)o;
  }
  const double golden_macs_s = double(ref_layer.macs()) / best;
  fmt::print("golden {} convolution, {}: {:.1f} M MAC/s (best of {}, one core)\n",
             arithmetic_info(cfg.arithmetic).name, ref, golden_macs_s / 1e6, quick ? 1 : 3);
  report["golden"]["layer"] = ref;
  report["golden"]["macs_per_s"] = golden_macs_s;

  // 2. SystemC model speed on the same layer.
  ScSimulation sim(hardware_params(cfg));
  const Row sp = run_sc(sim, cfg, tiling, "speed", ref);
  const double cps = double(sp.cycles) / sp.wall, mps = double(sp.macs) / sp.wall;
  fmt::print("SystemC model, {}: {} cycles in {:.2f} s = {:.0f} cycles/s, {:.1f} M MAC/s simulated "
             "({:.2f} x the golden model), utilization {:.1f} %, {}\n",
             ref, sp.cycles, sp.wall, cps, mps / 1e6, mps / golden_macs_s, sp.util * 100,
             sp.exact ? "bit-exact" : "MISMATCH");
  report["sc_speed"] = row_json(sp);
  report["sc_speed"]["cycles_per_s"] = cps;
  report["sc_speed"]["macs_per_s"] = mps;
  report["sc_speed"]["ratio_to_golden"] = mps / golden_macs_s;

  // 3. Behaviour: feeder throughput and the dilation claim.
  std::vector<Row> rows;
  for (int c : {16, 64})
    rows.push_back(run_sc(sim, cfg, tiling, fmt::format("3x3 s1 C={}", c), fmt::format("C={},H=32,W=64,K=32,k=3,s=1,p=1", c)));
  rows.push_back(run_sc(sim, cfg, tiling, "1x1 s1", "C=64,H=32,W=128,K=32,k=1,s=1,p=0"));
  rows.push_back(run_sc(sim, cfg, tiling, "1x1 s2", "C=64,H=64,W=256,K=32,k=1,s=2,p=0"));
  for (int d : {1, 2, 4, 8, 16, 31})
    rows.push_back(run_sc(sim, cfg, tiling, fmt::format("3x3 d={}", d), fmt::format("C=32,H=64,W=64,K=32,k=3,s=1,d={},p={}", d, d)));
  fmt::print("\ntiling: {} (as flycol run --tiling {})\n", analytic::tiling_name(tiling), analytic::tiling_name(tiling));
  fmt::print("\n| case | layer | cycles | utilization | MAC cycles | feeder stall | context stall | pipeline | DRAM stall | exact |\n"
             "|---|---|---:|---:|---:|---:|---:|---:|---:|---|\n");
  Json& b = report["behaviour"];
  b = Json::array();
  for (const Row& r : rows) {
    fmt::print("| {} | {} | {} | {:.1f} % | {} | {} | {} | {} | {} | {} |\n", r.what, r.layer, r.cycles, r.util * 100,
               r.st.mac_cycles, r.st.feeder_stall, r.st.context_stall, r.st.pipeline, r.st.dram_stall,
               r.exact ? "yes" : "NO");
    b.push(row_json(r));
  }
  write_file_atomic(out, report.dump());
  fmt::print("\nwrote {}\n", out);
  bool ok = sp.exact;
  for (const Row& r : rows) ok = ok && r.exact;
  return ok ? 0 : 1;
}
