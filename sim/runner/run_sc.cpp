// `flycol run --model sc`: the layer compiled and run on the cycle-accurate SystemC model, its
// outputs checked bit for bit against the golden convolution. With --structural (or --rtl-blocks)
// it runs on the structural top, whose blocks may be Verilated RTL, and the fast model runs beside
// it: cycles, outputs and statistics must be equal, which is how a disagreeing block is found.
#include "sim/runner/run_sc.h"

#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "sim/common/text.h"
#include "sim/energy/energy.h"
#include "sim/golden/conv.h"
#include "sim/rtlblocks/rtl_blocks.h"
#include "sim/runner/run_common.h"
#include "sim/scsim/layer_sim.h"
#include "sim/stats/run_stats.h"
#include "sim/workload/workload.h"

namespace flycol {

RunOutcome run_sc(const RunRequest& req) {
  const Layer& L = req.layer;
  const Config& cfg = req.config;
  const Program prog = compile_request(req);
  const ConvOperands ops = request_operands(req);
  const ConvOperands run_ops = program_operands(ops, prog);  // what the chip's DRAM image holds
  const bool structural = req.structural || !req.rtl_blocks.empty();
  const std::vector<std::string> rtl_blocks = parse_rtl_blocks(req.rtl_blocks);
  LayerSimResult ls;
  std::optional<LayerSimResult> fast;  // the fast model beside the structural top
  if (structural) {
    // SystemC elaborates once per process: both tops are built before either runs.
    StructuralSimulation s = make_structural_simulation(cfg, req.rtl_blocks);
    ScSimulation fast_sim(prog.hw);
    if (!req.trace_path.empty()) s.sim->trace_to(req.trace_path);
    ls = simulate_layer(*s.sim, prog, run_ops, timing_for(req));
    fast = simulate_layer(fast_sim, prog, run_ops, timing_for(req));
  } else {
    ScSimulation sim(prog.hw);
    if (!req.trace_path.empty()) sim.trace_to(req.trace_path);
    ls = simulate_layer(sim, prog, run_ops, timing_for(req));
  }
  const SimResult& res = ls.sim;
  const std::vector<AccBits>& got = ls.outputs;
  golden::ConvOptions gopt;
  gopt.zero_gating = cfg.zero_gating;
  const std::vector<AccBits> want = golden::conv(ops, gopt);
  const Mismatches mm = compare_outputs(got, want);
  const RunStats st = run_stats(res.stats, res.cycles, ls.dram);
  // Structural runs: the same cycles, outputs and statistics as the fast model.
  std::string fast_diff;
  if (fast) {
    const RunStats fs = run_stats(fast->sim.stats, fast->sim.cycles, fast->dram);
    Json a = Json::object(), b = Json::object();
    write_stats_json(a, st);
    write_stats_json(b, fs);
    const Mismatches fm = compare_outputs(got, fast->outputs);
    if (fast->sim.cycles != res.cycles)
      fast_diff = fmt::format("{} cycles, the fast model {}", res.cycles, fast->sim.cycles);
    else if (fm.count != 0)
      fast_diff = fmt::format("{} outputs differ from the fast model's; first at {}", fm.count, index_name(L, fm.first));
    else if (a.dump() != b.dump())
      fast_diff = "the statistics differ from the fast model's";
  }
  const bool exact = res.finished && mm.count == 0 && fast_diff.empty();
  const double pes = double(cfg.pes());
  const double util = res.cycles ? double(L.macs()) / (double(res.cycles) * pes) : 0.0;
  const double seconds_at_clock = double(res.cycles) / (cfg.clock_mhz * 1e6);

  RunOutcome r;
  r.output = got;
  r.passed = exact;
  Json& j = r.report;
  j = Json::object();
  j["model"] = "sc";
  if (structural) {  // only then: the fast model's reports keep the keys the analytic model shares
    j["view"] = "structural";
    Json::Array names;
    for (const auto& b : rtl_blocks) names.push_back(b);
    j["rtl_blocks"] = names;
  }
  write_run_header(j, req, prog);
  write_stats_json(j, st);
  j["macs"] = L.macs();
  j["output"]["shape"] = Json::Array{L.n, L.k, L.ho(), L.wo()};
  j["output"]["checksum"] = fmt::format("0x{:016x}", checksum(got, cfg.arithmetic));
  j["utilization"] = util;
  j["time_us"] = seconds_at_clock * 1e6;
  j["gflops"] = seconds_at_clock > 0 ? 2.0 * double(L.macs()) / seconds_at_clock / 1e9 : 0.0;
  Json& c = j["check"];
  c["reference"] = "golden";
  c["bit_exact"] = exact;
  c["mismatches"] = mm.count;
  if (mm.first >= 0) {
    c["first_mismatch"] = index_name(L, mm.first);
    c["got"] = fmt::format("0x{:x}", got[std::size_t(mm.first)]);
    c["want"] = fmt::format("0x{:x}", want[std::size_t(mm.first)]);
  }
  if (!res.error.empty()) c["error"] = res.error;
  if (fast) {
    c["fast_model_cycles"] = fast->sim.cycles;
    c["same_as_fast_model"] = fast_diff.empty();
    if (!fast_diff.empty()) c["fast_model_difference"] = fast_diff;
  }
  const energy::Activity act = energy_activity(st);
  j["energy"] = energy::run_json(cfg, act, seconds_at_clock);
  j["sim_wall_seconds"] = res.wall_seconds;
  j["sim_cycles_per_s"] = res.wall_seconds > 0 ? double(res.cycles) / res.wall_seconds : 0.0;

  const double mb = 1e-6;
  r.text = fmt::format(
      "flycol run: model sc{} ({} arithmetic), config {} ({}), seed {}\n"
      "  layer        {}\n"
      "  tiling       {} ({}), {} commands\n"
      "  cycles       {} ({:.1f} us at {} MHz, {:.1f} GFLOP/s)\n"
      "  MACs         {}\n"
      "  checksum     0x{:016x}\n"
      "  utilization  {:.1f} %\n"
      "  cycles by kind  mac {}, feeder stall {}, weight stall {}, context switch {}, pipeline {}, dram stall {}, tail {}\n"
      "  SRAM r/w     ifmap {}/{}, weights {}/{}, psums {}/{}\n"
      "  DRAM bytes   ifmap {:.3f} MB, weights {:.3f} MB, psums in {:.3f} MB, ofmap {:.3f} MB, total {:.3f} MB\n"
      "  check        {}\n"
      "  sim speed    {:.2f} s wall, {:.0f} cycles/s, {:.1f} M MAC/s\n",
      structural ? fmt::format(", structural top{}", rtl_blocks.empty() ? std::string()
                                                       : ", RTL blocks " + join(rtl_blocks, ","))
                 : std::string(),
      arithmetic_info(cfg.arithmetic).name, cfg.name, cfg.source, seed_text(req), L.spec(), prog.plan.describe(),
      req.tiling,
      prog.commands.size(), res.cycles, seconds_at_clock * 1e6, cfg.clock_mhz,
      seconds_at_clock > 0 ? 2.0 * double(L.macs()) / seconds_at_clock / 1e9 : 0.0, L.macs(),
      checksum(got, cfg.arithmetic), util * 100,
      st.mac_cycles, st.feeder_stall, st.weight_stall, st.context_stall, st.pipeline, st.dram_stall, st.tail,
      st.sram_reads[0], st.sram_writes[0], st.sram_reads[1], st.sram_writes[1], st.sram_reads[2],
      st.sram_writes[2], double(st.dram.ifmap) * mb, double(st.dram.weights) * mb, double(st.dram.psums_in) * mb,
      double(st.dram.ofmap) * mb, double(st.dram.total()) * mb,
      !res.error.empty() ? "FAILED: " + res.error
      : !fast_diff.empty() ? "FAILED: not the fast model's run: " + fast_diff
      : exact ? (fast ? fmt::format("bit-exact with the golden model ({} outputs); cycles, outputs and statistics "
                                    "equal to the fast model's",
                                    want.size())
                      : fmt::format("bit-exact with the golden model ({} outputs)", want.size()))
                         : fmt::format("{} mismatches of {}; first at {}: got 0x{:x}, want 0x{:x}", mm.count,
                                       want.size(), index_name(L, mm.first), got[std::size_t(mm.first)],
                                       want[std::size_t(mm.first)]),
      res.wall_seconds, res.wall_seconds > 0 ? double(res.cycles) / res.wall_seconds : 0.0,
      res.wall_seconds > 0 ? double(L.macs()) / res.wall_seconds / 1e6 : 0.0);
  r.text += energy::run_text(cfg, act, seconds_at_clock);
  return r;
}

}  // namespace flycol
