// The `run` job for each model. Today: the golden model in the configured arithmetic, checked
// against float64.
#include "sim/runner/run_layer.h"

#include <chrono>
#include <cmath>

#include <fmt/format.h>

#include "sim/analytic/plan_choice.h"
#include "sim/common/input_error.h"
#include "sim/compiler/compiler.h"
#include "sim/dram/dram_model.h"
#include "sim/energy/energy.h"
#include "sim/golden/conv.h"
#include "sim/runner/models.h"
#include "sim/runner/run_analytic.h"
#include "sim/runner/run_common.h"
#include "sim/runner/run_cosim.h"
#include "sim/scsim/layer_sim.h"
#include "sim/workload/workload.h"

namespace flycol {

Json layer_json(const Layer& l) {
  Json j = Json::object();
  j["spec"] = l.spec();
  j["name"] = l.name;
  j["N"] = l.n; j["C"] = l.c; j["H"] = l.h; j["W"] = l.w; j["K"] = l.k;
  j["ky"] = l.ky; j["kx"] = l.kx; j["sy"] = l.sy; j["sx"] = l.sx; j["dy"] = l.dy; j["dx"] = l.dx;
  j["pt"] = l.pt; j["pb"] = l.pb; j["pl"] = l.pl; j["pr"] = l.pr;
  j["Ho"] = l.ho(); j["Wo"] = l.wo();
  return j;
}

Json config_json(const Config& c) {
  Json j = Json::object();
  j["name"] = c.name;
  j["source"] = c.source;
  j["rows"] = c.array.rows;
  j["cols"] = c.array.cols;
  j["arithmetic"] = arithmetic_info(c.arithmetic).name;
  j["clock_mhz"] = c.clock_mhz;
  j["peak_gflops"] = c.peak_gflops();
  j["dram_gbps"] = c.dram.bandwidth_gbps();
  return j;
}

// Output comparison of a model against the golden convolution.
Mismatches compare_outputs(const std::vector<AccBits>& got, const std::vector<AccBits>& want) {
  Mismatches m;
  for (std::size_t i = 0; i < want.size(); ++i)
    if (got[i] != want[i]) {
      if (m.first < 0) m.first = std::int64_t(i);
      ++m.count;
    }
  return m;
}

std::string index_name(const Layer& L, std::int64_t i) {
  const int wo = L.wo(), ho = L.ho();
  const std::int64_t x = i % wo, y = (i / wo) % ho, k = (i / (std::int64_t(wo) * ho)) % L.k,
                     n = i / (std::int64_t(wo) * ho * L.k);
  return fmt::format("n={},k={},y={},x={}", n, k, y, x);
}

DramTiming timing_for(const RunRequest& req) {
  DramTiming t = DramTiming::from(req.config);
  if (req.dram_seed) {
    // A reproducible random profile: latency jitter and back-pressure on the request channel.
    t.random_seed = req.dram_seed;
    t.not_ready_prob = 0.2;
    t.extra_latency_max = 64;
  }
  return t;
}

Program compile_request(const RunRequest& req) {
  if (req.tiling == "heuristic") {
    CompileOptions copt;
    if (!req.order.empty()) copt.order = req.order;
    return compile_layer(req.layer, req.config, copt);
  }
  if (req.tiling != "search")
    throw InputError("--tiling", "", fmt::format("= {}: must be heuristic or search", req.tiling));
  if (!req.order.empty())
    throw InputError("--order", "", "cannot be combined with --tiling search, which chooses the loop order itself");
  analytic::Planner planner(req.config, DramTiming::from(req.config), analytic::Tiling::search);
  Program prog = planner.choose(req.layer, analytic::Lowering::feeder).program;
  prog.layer.name = req.layer.name;
  return prog;
}

namespace {

struct ErrorStats {
  double max_abs_err = 0, mean_abs_err = 0, max_abs_ref = 0;
  std::int64_t non_finite = 0;  // outputs that overflowed or became NaN in the PE arithmetic
};

ErrorStats compare_to_f64(const std::vector<AccBits>& out, const std::vector<double>& ref, Arithmetic a) {
  ErrorStats s;
  double sum = 0;
  std::int64_t counted = 0;
  for (std::size_t i = 0; i < out.size(); ++i) {
    const double v = acc_value(out[i], a);
    s.max_abs_ref = std::max(s.max_abs_ref, std::fabs(ref[i]));
    if (!std::isfinite(v)) { ++s.non_finite; continue; }
    const double e = std::fabs(v - ref[i]);
    s.max_abs_err = std::max(s.max_abs_err, e);
    sum += e;
    ++counted;
  }
  s.mean_abs_err = counted ? sum / double(counted) : 0.0;
  return s;
}

RunOutcome run_golden(const RunRequest& req) {
  const Layer& L = req.layer;
  const Arithmetic arith = req.config.arithmetic;
  const ConvOperands ops = make_random_operands(L, arith, req.seed, {req.zero_fraction});

  const auto t0 = std::chrono::steady_clock::now();
  golden::ConvOptions opt;
  opt.zero_gating = req.config.zero_gating;
  const std::vector<AccBits> out = golden::conv(ops, opt);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const std::vector<double> ref = golden::conv_f64(ops);
  const ErrorStats err = compare_to_f64(out, ref, arith);
  const std::uint64_t sum = checksum(out, arith);
  const char* aname = arithmetic_info(arith).name;

  RunOutcome r;
  Json& j = r.report;
  j = Json::object();
  j["model"] = "golden";
  j["layer"] = layer_json(L);
  j["config"] = config_json(req.config);
  j["seed"] = req.seed;
  j["macs"] = L.macs();
  Json& o = j["output"];
  o["shape"] = Json::Array{L.n, L.k, L.ho(), L.wo()};
  o["checksum"] = fmt::format("0x{:016x}", sum);
  Json& c = j["check"];
  c["reference"] = "float64";
  c["max_abs_err"] = err.max_abs_err;
  c["mean_abs_err"] = err.mean_abs_err;
  c["max_abs_ref"] = err.max_abs_ref;
  c["non_finite"] = err.non_finite;
  j["golden_seconds"] = seconds;
  j["golden_macs_per_s"] = seconds > 0 ? double(L.macs()) / seconds : 0.0;

  r.text = fmt::format(
      "flycol run: model golden ({} arithmetic), config {} ({}), seed {}\n"
      "  layer        {}\n"
      "  output       {}x{}x{}x{}\n"
      "  MACs         {}\n"
      "  checksum     0x{:016x}\n"
      "  {} vs f64  max |err| {:.3g}, mean |err| {:.3g} (max |ref| {:.3g}){}\n"
      "  golden time  {:.3f} s ({:.1f} M MAC/s)\n",
      aname, req.config.name, req.config.source, req.seed, L.spec(), L.n, L.k, L.ho(), L.wo(),
      L.macs(), sum, aname, err.max_abs_err, err.mean_abs_err, err.max_abs_ref,
      err.non_finite ? fmt::format(", {} non-finite outputs", err.non_finite) : std::string(),
      seconds, seconds > 0 ? double(L.macs()) / seconds / 1e6 : 0.0);
  return r;
}

RunOutcome run_sc(const RunRequest& req) {
  const Layer& L = req.layer;
  const Config& cfg = req.config;
  const Program prog = compile_request(req);
  const ConvOperands ops = make_random_operands(L, cfg.arithmetic, req.seed, {req.zero_fraction});
  ScSimulation sim(prog.hw);
  if (!req.trace_path.empty()) sim.trace_to(req.trace_path);
  const LayerSimResult ls = simulate_layer(sim, prog, ops, timing_for(req));
  const SimResult& res = ls.sim;
  const std::vector<AccBits>& got = ls.outputs;
  golden::ConvOptions gopt;
  gopt.zero_gating = cfg.zero_gating;
  const std::vector<AccBits> want = golden::conv(ops, gopt);
  const Mismatches mm = compare_outputs(got, want);
  const bool exact = res.finished && mm.count == 0;

  const hw::AcceleratorStats& st = res.stats;
  const double pes = double(cfg.pes());
  const double util = res.cycles ? double(L.macs()) / (double(res.cycles) * pes) : 0.0;
  const std::uint64_t b_ifmap = ls.dram.ifmap, b_w = ls.dram.weights, b_pin = ls.dram.psums_in,
                      b_out = ls.dram.ofmap, b_total = ls.dram.total;
  const double seconds_at_clock = double(res.cycles) / (cfg.clock_mhz * 1e6);

  RunOutcome r;
  r.passed = exact;
  Json& j = r.report;
  j = Json::object();
  j["model"] = "sc";
  j["layer"] = layer_json(L);
  j["config"] = config_json(cfg);
  j["seed"] = req.seed;
  j["plan"] = prog.plan.describe();
  j["tiling"] = req.tiling;
  j["commands"] = std::uint64_t(prog.commands.size());
  j["cycles"] = res.cycles;
  j["macs"] = L.macs();
  j["output"]["shape"] = Json::Array{L.n, L.k, L.ho(), L.wo()};
  j["output"]["checksum"] = fmt::format("0x{:016x}", checksum(got, cfg.arithmetic));
  j["utilization"] = util;
  j["time_us"] = seconds_at_clock * 1e6;
  j["gflops"] = seconds_at_clock > 0 ? 2.0 * double(L.macs()) / seconds_at_clock / 1e9 : 0.0;
  Json& stl = j["stalls"];
  stl["feeder"] = st.feeder_stall;
  stl["weights"] = st.weight_stall;
  stl["context_switch"] = st.context_stall;
  stl["pipeline"] = st.pipeline;
  stl["dram"] = st.dram_stall;
  stl["tail"] = st.tail;
  j["mac_cycles"] = st.mac_cycles;
  j["gated_macs"] = st.gated_macs;  // PE-level MACs skipped by zero gating
  Json& sram = j["sram"];
  const char* names[3] = {"ifmap", "weights", "psums"};
  for (int i = 0; i < 3; ++i) {
    sram[names[i]]["reads"] = st.sram_reads[i];
    sram[names[i]]["writes"] = st.sram_writes[i];
  }
  Json& db = j["dram_bytes"];
  db["ifmap"] = b_ifmap;
  db["weights"] = b_w;
  db["psums_in"] = b_pin;
  db["ofmap"] = b_out;
  db["total"] = b_total;
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
  energy::Activity act;
  act.mac_steps = st.mac_cycles;
  for (int i = 0; i < 3; ++i) act.sram_words[i] = st.sram_reads[i] + st.sram_writes[i];
  act.dram_bytes = b_total;
  j["energy"] = energy::run_json(cfg, act, seconds_at_clock);
  j["sim_wall_seconds"] = res.wall_seconds;
  j["sim_cycles_per_s"] = res.wall_seconds > 0 ? double(res.cycles) / res.wall_seconds : 0.0;

  const double mb = 1e-6;
  r.text = fmt::format(
      "flycol run: model sc ({} arithmetic), config {} ({}), seed {}\n"
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
      arithmetic_info(cfg.arithmetic).name, cfg.name, cfg.source, req.seed, L.spec(), prog.plan.describe(),
      req.tiling,
      prog.commands.size(), res.cycles, seconds_at_clock * 1e6, cfg.clock_mhz,
      seconds_at_clock > 0 ? 2.0 * double(L.macs()) / seconds_at_clock / 1e9 : 0.0, L.macs(),
      checksum(got, cfg.arithmetic), util * 100,
      st.mac_cycles, st.feeder_stall, st.weight_stall, st.context_stall, st.pipeline, st.dram_stall, st.tail,
      st.sram_reads[0], st.sram_writes[0], st.sram_reads[1], st.sram_writes[1], st.sram_reads[2],
      st.sram_writes[2], double(b_ifmap) * mb, double(b_w) * mb, double(b_pin) * mb, double(b_out) * mb,
      double(b_total) * mb,
      !res.error.empty() ? "FAILED: " + res.error
      : exact            ? fmt::format("bit-exact with the golden model ({} outputs)", want.size())
                         : fmt::format("{} mismatches of {}; first at {}: got 0x{:x}, want 0x{:x}", mm.count,
                                       want.size(), index_name(L, mm.first), got[std::size_t(mm.first)],
                                       want[std::size_t(mm.first)]),
      res.wall_seconds, res.wall_seconds > 0 ? double(res.cycles) / res.wall_seconds : 0.0,
      res.wall_seconds > 0 ? double(L.macs()) / res.wall_seconds / 1e6 : 0.0);
  r.text += energy::run_text(cfg, act, seconds_at_clock);
  return r;
}

}  // namespace

RunOutcome run_layer(const RunRequest& req) {
  const ModelInfo* m = find_model(req.model);
  if (!m) {
    std::string names;
    for (const auto& mi : models()) names += (names.empty() ? "" : ", ") + mi.name;
    throw InputError("--model", "", fmt::format("unknown model '{}' (known: {})", req.model, names));
  }
  if (!m->available)
    throw InputError("--model", "", fmt::format("model '{}' ({}) is not built yet in this version", m->name, m->description));
  if (m->name == "sc") return run_sc(req);
  if (m->name == "analytic") return run_analytic(req);
  if (m->name == "rtl" || m->name == "both") return run_cosim(req);
  return run_golden(req);
}

}  // namespace flycol
