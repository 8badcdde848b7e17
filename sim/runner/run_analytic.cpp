// The analytic model's run job: the layer compiled as for the SystemC model (same compiler, same
// options), timed by sim/analytic, reported with the sc report's keys; the values the analytic
// model does not compute (outputs, gated MACs) are null.
#include "sim/runner/run_analytic.h"

#include <chrono>

#include <fmt/format.h>

#include "sim/analytic/analytic_model.h"
#include "sim/compiler/compiler.h"
#include "sim/dram/dram_model.h"
#include "sim/energy/energy.h"
#include "sim/runner/run_common.h"
#include "sim/stats/run_stats.h"

namespace flycol {

RunOutcome run_analytic(const RunRequest& req) {
  const Layer& L = req.layer;
  const Config& cfg = req.config;
  const Program prog = compile_request(req);
  const auto t0 = std::chrono::steady_clock::now();
  analytic::Model model(prog.hw, DramTiming::from(cfg));  // a random DRAM profile (--dram-seed) is not modelled
  const analytic::Result res = model.run(prog);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const RunStats& st = res.stats;
  const double util = st.cycles ? double(L.macs()) / (double(st.cycles) * cfg.pes()) : 0.0;
  const double seconds_at_clock = double(st.cycles) / (cfg.clock_mhz * 1e6);
  const double gflops = seconds_at_clock > 0 ? 2.0 * double(L.macs()) / seconds_at_clock / 1e9 : 0.0;

  RunOutcome r;
  Json& j = r.report;
  j = Json::object();
  j["model"] = "analytic";
  write_run_header(j, req, prog);
  write_stats_json(j, st);
  j["macs"] = L.macs();
  j["output"]["shape"] = Json::Array{L.n, L.k, L.ho(), L.wo()};
  j["output"]["checksum"] = nullptr;  // the analytic model computes no values
  j["utilization"] = util;
  j["time_us"] = seconds_at_clock * 1e6;
  j["gflops"] = gflops;
  Json& c = j["check"];
  c["reference"] = "none";
  c["bit_exact"] = nullptr;
  c["mismatches"] = nullptr;
  const energy::Activity act = energy_activity(st);
  j["energy"] = energy::run_json(cfg, act, seconds_at_clock);
  j["sim_wall_seconds"] = wall;
  j["sim_cycles_per_s"] = wall > 0 ? double(st.cycles) / wall : 0.0;

  const double mb = 1e-6;
  r.text = fmt::format(
      "flycol run: model analytic ({} arithmetic), config {} ({})\n"
      "  layer        {}\n"
      "  tiling       {} ({}), {} commands\n"
      "  cycles       {} ({:.1f} us at {} MHz, {:.1f} GFLOP/s)\n"
      "  MACs         {}\n"
      "  utilization  {:.1f} %\n"
      "  cycles by kind  mac {}, feeder stall {}, weight stall {}, context switch {}, pipeline {}, dram stall {}, tail {}\n"
      "  SRAM r/w     ifmap {}/{}, weights {}/{}, psums {}/{}\n"
      "  DRAM bytes   ifmap {:.3f} MB, weights {:.3f} MB, psums in {:.3f} MB, ofmap {:.3f} MB, total {:.3f} MB\n"
      "  model time   {:.4f} s wall ({} distinct RUN timings)\n",
      arithmetic_info(cfg.arithmetic).name, cfg.name, cfg.source, L.spec(), prog.plan.describe(), req.tiling,
      prog.commands.size(),
      st.cycles, seconds_at_clock * 1e6, cfg.clock_mhz, gflops, L.macs(), util * 100, st.mac_cycles, st.feeder_stall,
      st.weight_stall, st.context_stall, st.pipeline, st.dram_stall, st.tail, st.sram_reads[0], st.sram_writes[0],
      st.sram_reads[1], st.sram_writes[1], st.sram_reads[2], st.sram_writes[2], double(st.dram.ifmap) * mb,
      double(st.dram.weights) * mb, double(st.dram.psums_in) * mb, double(st.dram.ofmap) * mb,
      double(st.dram.total()) * mb, wall, model.distinct_runs());
  r.text += energy::run_text(cfg, act, seconds_at_clock);
  return r;
}

}  // namespace flycol
