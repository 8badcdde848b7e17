// Network report formats. Every figure is derived here from the run's counters in one way, so the
// text, CSV, JSON and Markdown outputs agree.
#include "sim/network/network_report.h"

#include <algorithm>
#include <filesystem>

#include <fmt/format.h>

#include "sim/common/files.h"
#include "sim/common/input_error.h"
#include "sim/config/yaml_guard.h"
#include "sim/network/traffic.h"
#include "sim/runner/pool_layer.h"
#include "sim/report/svg_chart.h"

namespace flycol::net {
namespace {

constexpr double kMB = 1e-6;

// The figures of one layer (or a total) as reports show them.
struct Figures {
  double mmac = 0, util = 0;
  double mb[5] = {0, 0, 0, 0, 0};  // ifmap, weights, psums in, ofmap, total
  double compulsory_mb = 0, bound_mb = 0, time_us = 0, gflops = 0, avg_gbps = 0, peak_gbps = 0, stall = 0;
  double demand_avg_gbps = 0, demand_peak_gbps = 0;
  double energy_uj = 0, dram_uj = 0;
  // With an unlimited DRAM (the same programs, free_cycles): MACs over PE cycles, and for a total
  // the layers' such utilizations weighted by their MACs (a layer's share of the work, not of the
  // time: a slow small layer weighs little).
  double free_util = 0, mac_weighted_free_util = 0;
};

Figures figures(const NetworkRun& r, std::uint64_t macs, const RunStats& s, std::uint64_t compulsory,
                std::uint64_t bound, double peak, std::uint64_t free_cycles, double demand_peak,
                const energy::Estimate& e) {
  Figures f;
  f.mmac = double(macs) * 1e-6;
  f.util = s.cycles ? 100.0 * double(macs) / (double(s.cycles) * r.config.pes()) : 0.0;
  f.free_util = free_cycles ? 100.0 * double(macs) / (double(free_cycles) * r.config.pes()) : 0.0;
  f.mac_weighted_free_util = f.free_util;
  const std::uint64_t b[5] = {s.dram.ifmap, s.dram.weights, s.dram.psums_in, s.dram.ofmap, s.dram.total()};
  for (int i = 0; i < 5; ++i) f.mb[i] = double(b[i]) * kMB;
  f.compulsory_mb = double(compulsory) * kMB;
  f.bound_mb = double(bound) * kMB;
  f.time_us = seconds(r, s.cycles) * 1e6;
  f.gflops = gflops(r, macs, s.cycles);
  f.avg_gbps = avg_gbps(r, s.dram.total(), s.cycles);
  // The paper's kind of bandwidth: what the accelerator asks of the DRAM, i.e. its bytes over the
  // time it takes when the DRAM never makes it wait (the same programs with an unlimited DRAM).
  f.demand_avg_gbps = avg_gbps(r, s.dram.total(), free_cycles);
  f.peak_gbps = peak;
  f.demand_peak_gbps = demand_peak;
  f.stall = stall_pct(s.dram_stall, s.tail, s.cycles);
  f.energy_uj = e.total_j() * 1e6;
  f.dram_uj = e.dram_j * 1e6;
  return f;
}

Figures layer_figures(const NetworkRun& r, const LayerRun& l) {
  return figures(r, std::uint64_t(l.layer.macs()) * std::uint64_t(l.groups), l.stats, l.compulsory_bytes,
                 l.bound_bytes, l.peak_gbps, l.free_cycles, l.demand_gbps, l.energy);
}
Figures total_figures(const NetworkRun& r, const LoweringRun& lr) {
  Figures f = figures(r, lr.total.macs, lr.total.stats, lr.total.compulsory_bytes, lr.total.bound_bytes,
                      lr.total.peak_gbps, lr.total.free_cycles, lr.total.demand_peak_gbps, lr.total.energy);
  double weighted = 0, macs = 0;
  for (const LayerRun& l : lr.layers) {
    const double m = double(l.layer.macs()) * double(l.groups);
    weighted += m * layer_figures(r, l).free_util;
    macs += m;
  }
  f.mac_weighted_free_util = macs > 0 ? weighted / macs : 0.0;
  return f;
}

std::string plan_text(const LayerRun& l) {
  const TilePlan& p = l.plan;
  std::string s = fmt::format("Tc={}:{} n_kg={}:{} Th={}:{} Tw={}:{} {}", p.tc, p.tiles_c, p.n_kg, p.tiles_k, p.th,
                              p.tiles_h, p.tw, p.tiles_w, p.order);
  if (p.aligned) s += " aligned";
  if (p.skip_rows) s += " skip-rows";
  if (p.flat) s += " flat";
  if (p.tn > 1) s += fmt::format(" Tn={}:{}", p.tn, p.tiles_n);
  if (!(l.view == l.layer)) s += fmt::format(" on C={} x {}x{}", l.view.c, l.view.h, l.view.w);
  if (l.host_subsampled) s += " (input subsampled by the host)";
  return s;
}

double cycle_error_pct(std::uint64_t model, std::uint64_t reference) {
  return reference ? 100.0 * (double(model) - double(reference)) / double(reference) : 0.0;
}

// The GFLOP the paper's Table III implies: time x GFLOP/s, for both of its columns.
std::string implied_gflop(const Network& n) {
  const PaperFigures& p = n.paper;
  if (!p.time_ms.given || !p.gflops.given) return "not given";
  const double e = p.time_ms.expl * 1e-3 * p.gflops.expl, f = p.time_ms.feeder * 1e-3 * p.gflops.feeder;
  return fmt::format("{:.2f} (explicit) and {:.2f} (feeder)", e, f);
}

std::string table(const NetworkRun& r, const LoweringRun& lr, const char* title) {
  std::string s = fmt::format("\n{}\n", title);
  s += fmt::format("{:<20} {:>8} {:>10} {:>6} {:>7} {:>7} {:>6} {:>7} {:>8} {:>8} {:>6} {:>6} {:>6} {:>9} {:>7} {:>9} "
                   "{:>9}  {}\n",
                   "layer", "MMAC", "cycles", "util%", "ifmapMB", "wghtMB", "psumMB", "ofmapMB", "totalMB", "boundMB",
                   "avgGB/s", "peak", "stall%", "time_us", "GFLOP/s", "energy_uJ", "DRAM_uJ", "tiling (size:count)");
  const auto row = [&](const std::string& name, const Figures& f, std::uint64_t cycles, const std::string& tail) {
    s += fmt::format("{:<20} {:>8.1f} {:>10} {:>6.1f} {:>7.2f} {:>7.2f} {:>6.2f} {:>7.2f} {:>8.2f} {:>8.2f} {:>6.2f} "
                     "{:>6.2f} {:>6.1f} {:>9.1f} {:>7.1f} {:>9.1f} {:>9.1f}  {}\n",
                     name.size() > 20 ? name.substr(0, 20) : name, f.mmac, cycles, f.util, f.mb[0], f.mb[1], f.mb[2],
                     f.mb[3], f.mb[4], f.bound_mb, f.avg_gbps, f.peak_gbps, f.stall, f.time_us, f.gflops,
                     f.energy_uj, f.dram_uj, tail);
  };
  for (const LayerRun& l : lr.layers) {
    std::string tail = plan_text(l);
    if (r.model != "analytic")
      tail += fmt::format("  [analytic {:+.2f} %]", cycle_error_pct(l.analytic.cycles, l.stats.cycles));
    if (l.rtl_run) tail += l.rtl_mismatch.empty() ? "  [RTL in lockstep]" : "  [RTL: " + l.rtl_mismatch + "]";
    if (l.checked) tail += l.exact ? "  [bit-exact]" : "  [OUTPUTS DIFFER]";
    row(l.name, layer_figures(r, l), l.stats.cycles, tail);
  }
  row("total", total_figures(r, lr), lr.total.stats.cycles, "");
  return s;
}

Json figures_json(const Figures& f) {
  Json j = Json::object();
  j["mmac"] = f.mmac;
  j["utilization_pct"] = f.util;
  j["utilization_free_dram_pct"] = f.free_util;
  j["mac_weighted_utilization_free_dram_pct"] = f.mac_weighted_free_util;
  j["ifmap_mb"] = f.mb[0];
  j["weights_mb"] = f.mb[1];
  j["psums_mb"] = f.mb[2];
  j["ofmap_mb"] = f.mb[3];
  j["dram_mb"] = f.mb[4];
  j["compulsory_mb"] = f.compulsory_mb;
  j["lower_bound_mb"] = f.bound_mb;
  j["avg_gbps"] = f.avg_gbps;
  j["max_gbps"] = f.peak_gbps;
  j["avg_demand_gbps"] = f.demand_avg_gbps;
  j["max_demand_gbps"] = f.demand_peak_gbps;
  j["stall_pct"] = f.stall;
  j["time_us"] = f.time_us;
  j["gflops"] = f.gflops;
  j["energy_uj"] = f.energy_uj;
  j["dram_energy_uj"] = f.dram_uj;
  return j;
}

Json stats_json(const RunStats& s) {
  Json j = Json::object();
  write_stats_json(j, s, StatsKeys::flat);
  return j;
}

Json plan_json(const LayerRun& l) {
  Json j = Json::object();
  const TilePlan& p = l.plan;
  j["order"] = p.order;
  j["tile_c"] = p.tc, j["tiles_c"] = p.tiles_c;
  j["tile_kg"] = p.n_kg, j["tiles_k"] = p.tiles_k;
  j["tile_h"] = p.th, j["tiles_h"] = p.tiles_h;
  j["tile_w"] = p.tw, j["tiles_w"] = p.tiles_w;
  j["aligned_rows"] = p.aligned;
  j["skip_rows"] = p.skip_rows;
  j["flat_contexts"] = p.flat;
  j["tile_n"] = p.tn, j["tiles_n"] = p.tiles_n;  // images per tile (> 1: contexts packed across images)
  j["runs_as"] = l.view.spec();
  j["input_subsampled_by_host"] = l.host_subsampled;
  j["commands"] = std::uint64_t(l.commands);
  return j;
}

std::string md_num(double v, int decimals) { return fmt::format("{:.{}f}", v, decimals); }

// --- The pooling layers (docs/networks.md, "Pooling on chip") ---

std::string pool_input(const PoolRun& p) {
  return fmt::format("{}x{}x{}{}", p.shape.c, p.shape.h, p.shape.w, p.shape.n > 1 ? fmt::format(" N={}", p.shape.n) : "");
}
std::string pool_plan_text(const PoolRun& p) {
  return fmt::format("Tc={}:{} Th={}:{} Tw={}:{}", p.plan.tc, p.plan.tiles_c, p.plan.th, p.plan.tiles_h, p.plan.tw,
                     p.plan.tiles_w);
}
double ratio(double a, double b) { return b > 0 ? a / b : 0.0; }
double us(const NetworkRun& r, std::uint64_t cycles) { return seconds(r, cycles) * 1e6; }

std::string pool_table(const NetworkRun& r) {
  if (r.pools.empty()) return "";
  std::string s = "\npooling layers on chip (the pooling unit through the data feeder), against a strided-access pooling "
                  "unit without it (the seed's baseline) and against the host (its DRAM round trip at the DRAM "
                  "bandwidth: a lower bound)\n";
  s += fmt::format("{:<16} {:<14} {:<16} {:>9} {:>8} {:>7} {:>9} {:>9} {:>8} {:>7} {:>7} {:>9} {:>8} {:>8}  {}\n",
                   "layer", "op", "input CxHxW", "cycles", "time_us", "DRAM_MB", "energy_uJ", "strd_cyc", "strd_us",
                   "speedup", "free_x", "strd_uJ", "host>=us", "host_uJ", "plan");
  for (const PoolRun& p : r.pools) {
    const std::string name = p.name.size() > 16 ? p.name.substr(0, 16) : p.name;
    const std::string op = fmt::format("{} {}", p.op, p.detail);
    if (!p.on_chip) {
      s += fmt::format("{:<16} {:<14} on the host: {}\n", name, op.size() > 14 ? op.substr(0, 14) : op, p.refused);
      continue;
    }
    std::string tail = pool_plan_text(p);
    if (r.model != "analytic")
      tail += fmt::format("  [analytic {:+.2f} %]", cycle_error_pct(p.analytic.cycles, p.stats.cycles));
    if (p.rtl_run) tail += p.rtl_mismatch.empty() ? "  [RTL in lockstep]" : "  [RTL: " + p.rtl_mismatch + "]";
    if (p.checked) tail += p.exact ? "  [bit-exact]" : "  [OUTPUTS DIFFER]";
    s += fmt::format("{:<16} {:<14} {:<16} {:>9} {:>8.1f} {:>7.3f} {:>9.1f} {:>9} {:>8.1f} {:>7.2f} {:>7.2f} {:>9.1f} "
                     "{:>8.1f} {:>8.1f}  {}\n",
                     name, op.size() > 14 ? op.substr(0, 14) : op, pool_input(p), p.stats.cycles, us(r, p.stats.cycles),
                     double(p.stats.dram.total()) * kMB, p.energy.total_j() * 1e6, p.strided.cycles,
                     us(r, p.strided.cycles), ratio(double(p.strided.cycles), double(p.stats.cycles)),
                     ratio(double(p.strided_free_cycles), double(p.free_cycles)), p.strided_energy.total_j() * 1e6,
                     us(r, p.host_cycles), p.host_dram_j * 1e6, tail);
  }
  const PoolTotals& t = r.pool_total;
  s += fmt::format("{:<16} {:<14} {:<16} {:>9} {:>8.1f} {:>7.3f} {:>9.1f} {:>9} {:>8.1f} {:>7.2f} {:>7.2f} {:>9.1f} "
                   "{:>8.1f} {:>8.1f}  {} of {} layers on chip\n",
                   "total", "", "", t.stats.cycles, us(r, t.stats.cycles), double(t.stats.dram.total()) * kMB,
                   t.energy.total_j() * 1e6, t.strided.cycles, us(r, t.strided.cycles),
                   ratio(double(t.strided.cycles), double(t.stats.cycles)),
                   ratio(double(t.strided_free_cycles), double(t.free_cycles)), t.strided_energy.total_j() * 1e6,
                   us(r, t.host_cycles), t.host_dram_j * 1e6, t.on_chip, t.layers);
  s += "speedup: strided-unit cycles over on-chip cycles at the configured DRAM; free_x: the same with an unlimited "
       "DRAM (the units alone, the seed's kind of figure)\n";
  const std::uint64_t array = r.feeder.total.stats.cycles;
  s += fmt::format("network with pooling on chip: {:.3f} ms ({:.3f} ms array layers + {:.3f} ms pooling, {:.1f} % of "
                   "it); pooling on the strided unit {:.3f} ms, on the host at least {:.3f} ms\n",
                   us(r, array + t.stats.cycles) * 1e-3, us(r, array) * 1e-3, us(r, t.stats.cycles) * 1e-3,
                   100.0 * ratio(double(t.stats.cycles), double(array + t.stats.cycles)), us(r, t.strided.cycles) * 1e-3,
                   us(r, t.host_cycles) * 1e-3);
  if (std::any_of(r.pools.begin(), r.pools.end(), [](const PoolRun& p) { return p.checked; }))
    s += fmt::format("pooling layers differing from golden: {}\n", t.mismatched_layers);
  return s;
}

Json pool_json(const NetworkRun& r) {
  Json j = Json::object();
  Json layers = Json::array();
  for (const PoolRun& p : r.pools) {
    Json l = Json::object();
    l["name"] = p.name;
    l["op"] = p.op;
    l["window"] = p.detail;
    l["on_chip"] = p.on_chip;
    if (!p.on_chip) {
      l["refused"] = p.refused;
      layers.push(std::move(l));
      continue;
    }
    write_pool_layer_json(l["layer"], golden_pool_layer(p.shape));
    Json& pl = l["plan"];
    pl["tile_c"] = p.plan.tc, pl["tiles_c"] = p.plan.tiles_c;
    pl["tile_h"] = p.plan.th, pl["tiles_h"] = p.plan.tiles_h;
    pl["tile_w"] = p.plan.tw, pl["tiles_w"] = p.plan.tiles_w;
    pl["commands"] = std::uint64_t(p.commands);
    l["start_cycle"] = p.start_cycle;
    l["cycles"] = p.stats.cycles;
    l["time_us"] = us(r, p.stats.cycles);
    l["dram_mb"] = double(p.stats.dram.total()) * kMB;
    l["energy_uj"] = p.energy.total_j() * 1e6;
    l["dram_energy_uj"] = p.energy.dram_j * 1e6;
    l["stats"] = stats_json(p.stats);
    if (r.model != "analytic") {
      l["analytic"] = stats_json(p.analytic);
      l["analytic_error_pct"] = cycle_error_pct(p.analytic.cycles, p.stats.cycles);
    }
    Json& st = l["strided"];
    st["cycles"] = p.strided.cycles;
    st["time_us"] = us(r, p.strided.cycles);
    st["ifmap_sram_reads"] = p.strided.sram_reads[0];
    st["energy_uj"] = p.strided_energy.total_j() * 1e6;
    st["speedup"] = ratio(double(p.strided.cycles), double(p.stats.cycles));
    st["free_dram_cycles"] = p.strided_free_cycles;
    st["speedup_free_dram"] = ratio(double(p.strided_free_cycles), double(p.free_cycles));
    l["free_dram_cycles"] = p.free_cycles;
    Json& h = l["host"];
    h["dram_mb"] = double(p.host_bytes) * kMB;
    h["time_us_lower_bound"] = us(r, p.host_cycles);
    h["dram_energy_uj"] = p.host_dram_j * 1e6;
    if (p.checked) l["bit_exact"] = p.exact;
    if (p.rtl_run) l["rtl_lockstep"] = p.rtl_mismatch.empty() ? Json("in lockstep") : Json(p.rtl_mismatch);
    layers.push(std::move(l));
  }
  j["layers"] = std::move(layers);
  const PoolTotals& t = r.pool_total;
  Json& tj = j["total"];
  tj["layers"] = t.layers;
  tj["on_chip"] = t.on_chip;
  tj["cycles"] = t.stats.cycles;
  tj["time_us"] = us(r, t.stats.cycles);
  tj["dram_mb"] = double(t.stats.dram.total()) * kMB;
  tj["energy_uj"] = t.energy.total_j() * 1e6;
  tj["strided_cycles"] = t.strided.cycles;
  tj["strided_time_us"] = us(r, t.strided.cycles);
  tj["strided_energy_uj"] = t.strided_energy.total_j() * 1e6;
  tj["strided_speedup"] = ratio(double(t.strided.cycles), double(t.stats.cycles));
  tj["free_dram_cycles"] = t.free_cycles;
  tj["strided_free_dram_cycles"] = t.strided_free_cycles;
  tj["strided_speedup_free_dram"] = ratio(double(t.strided_free_cycles), double(t.free_cycles));
  tj["host_dram_mb"] = double(t.host_bytes) * kMB;
  tj["host_time_us_lower_bound"] = us(r, t.host_cycles);
  tj["host_dram_energy_uj"] = t.host_dram_j * 1e6;
  tj["network_time_ms_with_pooling"] = us(r, r.feeder.total.stats.cycles + t.stats.cycles) * 1e-3;
  if (r.model != "analytic") tj["analytic_error_pct"] = cycle_error_pct(t.analytic.cycles, t.stats.cycles);
  if (std::any_of(r.pools.begin(), r.pools.end(), [](const PoolRun& p) { return p.checked; }))
    tj["mismatched_layers"] = t.mismatched_layers;
  return j;
}

// --- Fused convolution + pooling (docs/networks.md, "Fused convolution + pooling") ---

std::string fused_plan_text(const FusedRun& f) {
  // Tp (pooled columns per tile) only for column tiles: whole-width plans read as before.
  const std::string cols = f.plan.tiles_w > 1 ? fmt::format(" Tp={}:{}", f.tp, f.plan.tiles_w) : std::string();
  return fmt::format("Tc={}:{} n_kg={}:{} Tq={}:{}{} (conv rows {}{})", f.plan.tc, f.plan.tiles_c, f.plan.n_kg,
                     f.plan.tiles_k, f.tq, f.plan.tiles_h, cols, f.plan.th,
                     f.plan.tiles_w > 1 ? fmt::format(", columns {}", f.plan.tw) : std::string());
}
// DRAM bytes the fused program saves against the two separate runs (negative: it moves more).
double saved_mb(const RunStats& unfused, const RunStats& fused) {
  return (double(unfused.dram.total()) - double(fused.dram.total())) * kMB;
}

std::string fused_table(const NetworkRun& r) {
  if (r.fusions.empty()) return "";
  std::string s = "\nfused convolution + pooling (the convolution's tiles pooled on chip, only the pooled tensor "
                  "stored), against the two layers run one after the other (the convolution's planned program, then "
                  "the pooling layer on chip)\n";
  s += fmt::format("{:<28} {:>9} {:>8} {:>9} {:>8} {:>7} {:>8} {:>8} {:>9} {:>9}  {}\n", "convolution + pooling",
                   "cycles", "time_us", "unf_cyc", "unf_us", "speedup", "DRAM_MB", "unf_MB", "saved_MB", "energy_uJ",
                   "plan");
  for (const FusedRun& f : r.fusions) {
    std::string name = f.conv.empty() ? f.pool : f.conv + "+" + f.pool;
    if (name.size() > 28) name = name.substr(0, 28);
    if (!f.fused) {
      s += fmt::format("{:<28} not fused: {}\n", name, f.refused);
      continue;
    }
    std::string tail = fused_plan_text(f);
    if (r.model != "analytic")
      tail += fmt::format("  [analytic {:+.2f} %]", cycle_error_pct(f.analytic.cycles, f.stats.cycles));
    if (f.rtl_run) tail += f.rtl_mismatch.empty() ? "  [RTL in lockstep]" : "  [RTL: " + f.rtl_mismatch + "]";
    if (f.checked) tail += f.exact ? "  [bit-exact]" : "  [OUTPUTS DIFFER]";
    s += fmt::format("{:<28} {:>9} {:>8.1f} {:>9} {:>8.1f} {:>7.2f} {:>8.3f} {:>8.3f} {:>9.3f} {:>9.1f}  {}\n", name,
                     f.stats.cycles, us(r, f.stats.cycles), f.unfused.cycles, us(r, f.unfused.cycles),
                     ratio(double(f.unfused.cycles), double(f.stats.cycles)), double(f.stats.dram.total()) * kMB,
                     double(f.unfused.dram.total()) * kMB, saved_mb(f.unfused, f.stats), f.energy.total_j() * 1e6, tail);
  }
  const FusedTotals& t = r.fused_total;
  s += fmt::format("{:<28} {:>9} {:>8.1f} {:>9} {:>8.1f} {:>7.2f} {:>8.3f} {:>8.3f} {:>9.3f} {:>9.1f}  {} of {} pairs "
                   "fused\n",
                   "total", t.stats.cycles, us(r, t.stats.cycles), t.unfused.cycles, us(r, t.unfused.cycles),
                   ratio(double(t.unfused.cycles), double(t.stats.cycles)), double(t.stats.dram.total()) * kMB,
                   double(t.unfused.dram.total()) * kMB, saved_mb(t.unfused, t.stats), t.energy.total_j() * 1e6,
                   t.fused, t.pairs);
  s += "speedup: the separate runs' cycles over the fused program's; saved_MB: their DRAM bytes less the fused "
       "program's\n";
  if (std::any_of(r.fusions.begin(), r.fusions.end(), [](const FusedRun& f) { return f.checked; }))
    s += fmt::format("fused pairs differing from golden: {}\n", t.mismatched_layers);
  return s;
}

Json fused_json(const NetworkRun& r) {
  Json j = Json::object();
  Json pairs = Json::array();
  for (const FusedRun& f : r.fusions) {
    Json l = Json::object();
    l["conv"] = f.conv;
    l["pool"] = f.pool;
    l["fused"] = f.fused;
    if (!f.fused) {
      l["refused"] = f.refused;
      pairs.push(std::move(l));
      continue;
    }
    Json& pl = l["plan"];
    pl["tile_c"] = f.plan.tc, pl["tiles_c"] = f.plan.tiles_c;
    pl["tile_kg"] = f.plan.n_kg, pl["tiles_k"] = f.plan.tiles_k;
    pl["tile_q"] = f.tq, pl["tiles_q"] = f.plan.tiles_h;
    pl["tile_p"] = f.tp, pl["tiles_p"] = f.plan.tiles_w;
    pl["conv_cols"] = f.plan.tw;
    pl["conv_rows"] = f.plan.th;
    pl["commands"] = std::uint64_t(f.commands);
    l["cycles"] = f.stats.cycles;
    l["time_us"] = us(r, f.stats.cycles);
    l["dram_mb"] = double(f.stats.dram.total()) * kMB;
    l["energy_uj"] = f.energy.total_j() * 1e6;
    l["stats"] = stats_json(f.stats);
    if (r.model != "analytic") {
      l["analytic"] = stats_json(f.analytic);
      l["analytic_error_pct"] = cycle_error_pct(f.analytic.cycles, f.stats.cycles);
    }
    l["free_dram_cycles"] = f.free_cycles;
    Json& u = l["unfused"];
    u["cycles"] = f.unfused.cycles;
    u["time_us"] = us(r, f.unfused.cycles);
    u["dram_mb"] = double(f.unfused.dram.total()) * kMB;
    u["energy_uj"] = f.unfused_energy.total_j() * 1e6;
    u["free_dram_cycles"] = f.unfused_free_cycles;
    l["speedup"] = ratio(double(f.unfused.cycles), double(f.stats.cycles));
    l["saved_dram_mb"] = saved_mb(f.unfused, f.stats);
    l["saved_energy_uj"] = (f.unfused_energy.total_j() - f.energy.total_j()) * 1e6;
    if (f.checked) l["bit_exact"] = f.exact;
    if (f.rtl_run) l["rtl_lockstep"] = f.rtl_mismatch.empty() ? Json("in lockstep") : Json(f.rtl_mismatch);
    pairs.push(std::move(l));
  }
  j["pairs"] = std::move(pairs);
  const FusedTotals& t = r.fused_total;
  Json& tj = j["total"];
  tj["pairs"] = t.pairs;
  tj["fused"] = t.fused;
  tj["cycles"] = t.stats.cycles;
  tj["time_us"] = us(r, t.stats.cycles);
  tj["dram_mb"] = double(t.stats.dram.total()) * kMB;
  tj["energy_uj"] = t.energy.total_j() * 1e6;
  tj["unfused_cycles"] = t.unfused.cycles;
  tj["unfused_time_us"] = us(r, t.unfused.cycles);
  tj["unfused_dram_mb"] = double(t.unfused.dram.total()) * kMB;
  tj["unfused_energy_uj"] = t.unfused_energy.total_j() * 1e6;
  tj["speedup"] = ratio(double(t.unfused.cycles), double(t.stats.cycles));
  tj["saved_dram_mb"] = saved_mb(t.unfused, t.stats);
  tj["saved_energy_uj"] = (t.unfused_energy.total_j() - t.energy.total_j()) * 1e6;
  if (r.model != "analytic") tj["analytic_error_pct"] = cycle_error_pct(t.analytic.cycles, t.stats.cycles);
  if (std::any_of(r.fusions.begin(), r.fusions.end(), [](const FusedRun& f) { return f.checked; }))
    tj["mismatched_layers"] = t.mismatched_layers;
  return j;
}

}  // namespace

std::string text_report(const NetworkRun& r) {
  std::string s = fmt::format("flycol net: {} ({}), config {} ({}), {} model, DRAM {:.2f} GB/s, tiling {}\n",
                              r.net.name, r.net.title, r.config.name, r.config.source, r.model, r.bandwidth_gbps,
                              r.tiling);
  s += fmt::format("{} array layers ({} more run on the host), {:.3f} G MAC = {:.2f} GFLOP; the paper's Table III "
                   "implies {} GFLOP\n",
                   r.net.array_layers(), r.net.layers.size() - std::size_t(r.net.array_layers()),
                   double(r.net.macs()) * 1e-9, 2e-9 * double(r.net.macs()), implied_gflop(r.net));
  s += fmt::format("peak bandwidth: the busiest {:g} us window; stall: cycles without a RUN while waiting for DRAM; "
                   "energy: sim/energy/energy.h\n",
                   r.window_us);
  s += table(r, r.feeder, "data feeder (on-the-fly im2col)");
  s += table(r, r.expl, "explicit im2col (the host writes the lowered matrix [C*ky*kx] x [Ho*Wo] to DRAM)");

  const Figures f = total_figures(r, r.feeder), e = total_figures(r, r.expl);
  s += fmt::format("\n{:<36} {:>12} {:>12}\n", "total", "feeder", "explicit");
  const auto line = [&](const std::string& what, const std::string& a, const std::string& b) {
    s += fmt::format("{:<36} {:>12} {:>12}\n", what, a, b);
  };
  const auto d = [](double v, int dec) { return fmt::format("{:.{}f}", v, dec); };
  line("MACs (G)", d(double(r.feeder.total.macs) * 1e-9, 3), d(double(r.expl.total.macs) * 1e-9, 3));
  line("cycles", std::to_string(r.feeder.total.stats.cycles), std::to_string(r.expl.total.stats.cycles));
  line("utilization %", d(f.util, 1), d(e.util, 1));
  line("utilization % (unlimited DRAM)", d(f.free_util, 1), d(e.free_util, 1));
  line("  MAC-weighted over layers", d(f.mac_weighted_free_util, 1), d(e.mac_weighted_free_util, 1));
  line("DRAM MB: ifmap", d(f.mb[0], 1), d(e.mb[0], 1));
  line("DRAM MB: weights", d(f.mb[1], 1), d(e.mb[1], 1));
  line("DRAM MB: psums in", d(f.mb[2], 1), d(e.mb[2], 1));
  line("DRAM MB: ofmap", d(f.mb[3], 1), d(e.mb[3], 1));
  line("DRAM MB: total", d(f.mb[4], 1), d(e.mb[4], 1));
  line("compulsory MB (each tensor once)", d(f.compulsory_mb, 1), d(e.compulsory_mb, 1));
  line("DRAM / compulsory", d(f.mb[4] / f.compulsory_mb, 2), d(e.mb[4] / e.compulsory_mb, 2));
  line("lower bound MB (any program)", d(f.bound_mb, 1), d(e.bound_mb, 1));
  line("DRAM / lower bound", d(f.mb[4] / f.bound_mb, 2), d(e.mb[4] / e.bound_mb, 2));
  line("average GB/s", d(f.avg_gbps, 2), d(e.avg_gbps, 2));
  line(fmt::format("peak GB/s ({:g} us window)", r.window_us), d(f.peak_gbps, 2), d(e.peak_gbps, 2));
  line("demand GB/s: average (unlimited DRAM)", d(f.demand_avg_gbps, 2), d(e.demand_avg_gbps, 2));
  line("demand GB/s: highest layer", d(f.demand_peak_gbps, 2), d(e.demand_peak_gbps, 2));
  line("DRAM stall % of time", d(f.stall, 1), d(e.stall, 1));
  line(fmt::format("time ms at {:g} MHz", r.clock_mhz), d(f.time_us * 1e-3, 2), d(e.time_us * 1e-3, 2));
  line("average GFLOP/s", d(f.gflops, 1), d(e.gflops, 1));
  line("energy mJ (core + SRAM + DRAM)", d(f.energy_uj * 1e-3, 2), d(e.energy_uj * 1e-3, 2));
  line("  of which DRAM mJ", d(f.dram_uj * 1e-3, 2), d(e.dram_uj * 1e-3, 2));
  if (r.model != "analytic") {
    const auto err = [&](const LoweringRun& lr) {
      double worst = 0;
      for (const LayerRun& l : lr.layers) worst = std::max(worst, std::fabs(cycle_error_pct(l.analytic.cycles, l.stats.cycles)));
      return fmt::format("{:+.2f}%/{:.2f}%", cycle_error_pct(lr.total.analytic_cycles, lr.total.stats.cycles), worst);
    };
    line("analytic vs SystemC: total/worst layer", err(r.feeder), err(r.expl));
    line("SystemC wall time s", d(r.feeder.total.sc_wall_seconds, 1), d(r.expl.total.sc_wall_seconds, 1));
    if (r.model == "both")
      line("RTL (lockstep) wall time s", d(r.feeder.total.rtl_wall_seconds, 1), d(r.expl.total.rtl_wall_seconds, 1));
    if (!r.feeder.layers.empty() && r.feeder.layers.front().checked)
      line("layers differing from golden", std::to_string(r.feeder.total.mismatched_layers),
           std::to_string(r.expl.total.mismatched_layers));
  }
  s += pool_table(r);
  s += fused_table(r);
  s += fmt::format("host time: {:.3f} s for the analytic model to run the chosen programs of both lowerings, {:.3f} s "
                   "to choose them (tiling {}); {:.3f} s for the pooling layers\n",
                   r.analytic_wall_seconds, r.plan_wall_seconds, r.tiling, r.pool_wall_seconds);
  return s;
}

std::string csv_report(const NetworkRun& r) {
  std::string s =
      "lowering,layer,spec,runs_as,macs,cycles,utilization_pct,ifmap_mb,weights_mb,psums_mb,ofmap_mb,dram_mb,"
      "compulsory_mb,avg_gbps,max_gbps,stall_pct,time_us,gflops,energy_uj,dram_energy_uj,mac_cycles,feeder_stall,"
      "context_stall,pipeline,dram_stall,tail,order,tile_c,tiles_c,tile_kg,tiles_k,tile_h,tiles_h,tile_w,tiles_w,"
      "commands,analytic_cycles,lower_bound_mb,input_subsampled_by_host\n";
  for (const LoweringRun* lr : {&r.feeder, &r.expl})
    for (const LayerRun& l : lr->layers) {
      const Figures f = layer_figures(r, l);
      const TilePlan& p = l.plan;
      s += fmt::format("{},{},\"{}\",\"{}\",{},{},{:.3f},{:.6f},{:.6f},{:.6f},{:.6f},{:.6f},{:.6f},{:.4f},{:.4f},{:.3f},"
                       "{:.3f},{:.2f},{:.3f},{:.3f},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{:.6f},{}\n",
                       lr->lowering, l.name, l.layer.spec(), l.view.spec(), l.layer.macs() * l.groups, l.stats.cycles, f.util,
                       f.mb[0], f.mb[1], f.mb[2], f.mb[3], f.mb[4], f.compulsory_mb, f.avg_gbps, f.peak_gbps, f.stall,
                       f.time_us, f.gflops, f.energy_uj, f.dram_uj, l.stats.mac_cycles, l.stats.feeder_stall,
                       l.stats.context_stall, l.stats.pipeline, l.stats.dram_stall, l.stats.tail, p.order, p.tc,
                       p.tiles_c, p.n_kg, p.tiles_k, p.th, p.tiles_h, p.tw, p.tiles_w, l.commands, l.analytic.cycles,
                       f.bound_mb, l.host_subsampled ? 1 : 0);
    }
  return s;
}

Json json_report(const NetworkRun& r) {
  Json j = Json::object();
  j["network"] = r.net.name;
  j["title"] = r.net.title;
  j["source"] = r.net.source;
  j["config"] = r.config.name;
  j["config_source"] = r.config.source;
  j["model"] = r.model;
  j["tiling"] = r.tiling;
  j["bandwidth_gbps"] = r.bandwidth_gbps;
  j["clock_mhz"] = r.clock_mhz;
  j["window_us"] = r.window_us;
  j["array_layers"] = r.net.array_layers();
  j["macs"] = r.net.macs();
  j["gflop"] = 2e-9 * double(r.net.macs());
  const Figures f = total_figures(r, r.feeder), e = total_figures(r, r.expl);
  Json& t = j["total"];
  t["dram_mb"] = f.mb[4];
  t["dram_mb_explicit"] = e.mb[4];
  t["time_ms"] = f.time_us * 1e-3;
  t["time_ms_explicit"] = e.time_us * 1e-3;
  t["gflops"] = f.gflops;
  t["gflops_explicit"] = e.gflops;
  t["stall_pct"] = f.stall;
  t["stall_pct_explicit"] = e.stall;
  t["avg_gbps"] = f.avg_gbps;
  t["avg_gbps_explicit"] = e.avg_gbps;
  t["max_gbps"] = f.peak_gbps;
  t["max_gbps_explicit"] = e.peak_gbps;
  t["compulsory_mb"] = f.compulsory_mb;
  t["lower_bound_mb"] = f.bound_mb;
  t["energy_mj"] = f.energy_uj * 1e-3;
  t["energy_mj_explicit"] = e.energy_uj * 1e-3;
  t["dram_energy_mj"] = f.dram_uj * 1e-3;
  t["dram_energy_mj_explicit"] = e.dram_uj * 1e-3;
  j["feeder"] = figures_json(f);
  j["explicit"] = figures_json(e);
  if (r.model != "analytic") {
    Json& sc = j["sc"];
    sc["wall_seconds"] = r.sc_wall_seconds;
    sc["cycles"] = r.feeder.total.stats.cycles;
    sc["analytic_cycles"] = r.feeder.total.analytic_cycles;
    sc["analytic_error_pct"] = cycle_error_pct(r.feeder.total.analytic_cycles, r.feeder.total.stats.cycles);
    sc["cycles_explicit"] = r.expl.total.stats.cycles;
    sc["analytic_cycles_explicit"] = r.expl.total.analytic_cycles;
    sc["analytic_error_pct_explicit"] = cycle_error_pct(r.expl.total.analytic_cycles, r.expl.total.stats.cycles);
  }
  if (r.model == "both") {
    Json& rtl = j["rtl"];
    rtl["wall_seconds"] = r.rtl_wall_seconds;
    int lockstep = 0, layers = 0;
    for (const LoweringRun* lr : {&r.feeder, &r.expl})
      for (const LayerRun& l : lr->layers) {
        ++layers;
        lockstep += l.rtl_run && l.rtl_mismatch.empty();
      }
    rtl["layers"] = layers;
    rtl["layers_in_lockstep"] = lockstep;
  }
  j["analytic_wall_seconds"] = r.analytic_wall_seconds;
  j["plan_wall_seconds"] = r.plan_wall_seconds;
  j["pooling"] = pool_json(r);
  j["pooling_wall_seconds"] = r.pool_wall_seconds;
  j["fusion"] = fused_json(r);
  j["fusion_wall_seconds"] = r.fused_wall_seconds;
  Json& p = j["paper"];
  const PaperFigures& pf = r.net.paper;
  const auto pair = [&](const char* key, const PaperPair& v) {
    if (!v.given) return;
    p[key]["explicit"] = v.expl;
    p[key]["feeder"] = v.feeder;
  };
  pair("total_mb", pf.total_mb);
  pair("avg_gbps", pf.avg_gbps);
  pair("max_gbps", pf.max_gbps);
  pair("time_ms", pf.time_ms);
  pair("gflops", pf.gflops);
  pair("dram_stall_pct", pf.dram_stall_pct);
  Json layers = Json::array();
  for (std::size_t i = 0; i < r.feeder.layers.size(); ++i) {
    const LayerRun& a = r.feeder.layers[i];
    const LayerRun& b = r.expl.layers[i];
    Json l = Json::object();
    l["name"] = a.name;
    l["spec"] = a.layer.spec();
    l["macs"] = a.layer.macs() * a.groups;  // all groups; spec is one group's layer
    if (a.groups > 1) l["groups"] = a.groups;
    for (const auto* x : {&a, &b}) {
      Json& m = l[x == &a ? "feeder" : "explicit"];
      m = figures_json(layer_figures(r, *x));
      m["plan"] = plan_json(*x);
      m["stats"] = stats_json(x->stats);
      if (r.model != "analytic") {
        m["analytic"] = stats_json(x->analytic);
        m["analytic_error_pct"] = cycle_error_pct(x->analytic.cycles, x->stats.cycles);
        m["sc_wall_seconds"] = x->sc_wall_seconds;
      }
      if (x->rtl_run) {
        m["rtl_lockstep"] = x->rtl_mismatch.empty();
        if (!x->rtl_mismatch.empty()) m["rtl_mismatch"] = x->rtl_mismatch;
        m["rtl_wall_seconds"] = x->rtl_wall_seconds;
      }
      if (x->checked) m["bit_exact"] = x->exact;
    }
    layers.push(std::move(l));
  }
  j["layers"] = std::move(layers);
  return j;
}

std::string bytes_per_op_svg(const NetworkRun& r) {
  svg::ChartOptions o;
  o.title = fmt::format("{}: DRAM bytes per operation (cf. Fornt et al., Fig. 6)", r.net.title);
  o.x_label = "layer";
  // Log axis: a fully connected layer reads each weight for one MAC (about 1 byte per FLOP), a
  // convolution 10 to 1000 times less; on a linear axis every convolution would sit at zero.
  o.y_label = "DRAM bytes per FLOP (log scale)";
  o.y_log10 = true;
  o.width = std::max(900, 40 + 14 * int(r.feeder.layers.size()));
  svg::Series e{"explicit im2col", {}, {}}, f{"data feeder", {}, {}};
  for (std::size_t i = 0; i < r.feeder.layers.size(); ++i) {
    const double flop = 2.0 * double(r.feeder.layers[i].layer.macs() * r.feeder.layers[i].groups);
    o.categories.push_back(r.feeder.layers[i].name);
    e.y.push_back(double(r.expl.layers[i].stats.dram.total()) / flop);
    f.y.push_back(double(r.feeder.layers[i].stats.dram.total()) / flop);
  }
  return svg::bar_chart({e, f}, o);
}

std::string bandwidth_svg(const NetworkRun& r) {
  svg::ChartOptions o;
  o.title = fmt::format("{}: DRAM bandwidth over time at {:.2f} GB/s", r.net.title, r.bandwidth_gbps);
  o.x_label = "time (ms)";
  o.y_label = "GB/s";
  o.step = true;
  const double end = double(std::max(r.feeder.total.stats.cycles, r.expl.total.stats.cycles));
  const double bucket = std::max(1.0, end / 400.0);
  const double cycle_s = 1.0 / (r.clock_mhz * 1e6);
  std::vector<svg::Series> series;
  for (const LoweringRun* lr : {&r.expl, &r.feeder}) {
    svg::Series s{lr == &r.feeder ? "data feeder" : "explicit im2col", {}, {}};
    const std::vector<double> b = bucket_bytes(lr->timeline, bucket, double(lr->total.stats.cycles));
    for (std::size_t i = 0; i < b.size(); ++i) {
      s.x.push_back(double(i) * bucket * cycle_s * 1e3);
      s.y.push_back(b[i] / (bucket * cycle_s) / 1e9);
    }
    series.push_back(std::move(s));
  }
  return svg::line_chart(series, o);
}

std::vector<std::string> write_reports(const NetworkRun& r, const std::string& dir) {
  const std::string base = (std::filesystem::path(dir) / r.net.name).string();
  const std::vector<std::pair<std::string, std::string>> files = {
      {base + ".txt", text_report(r)},
      {base + ".csv", csv_report(r)},
      {base + ".json", json_report(r).dump()},
      {base + "_bytes_per_op.svg", bytes_per_op_svg(r)},
      {base + "_bandwidth.svg", bandwidth_svg(r)},
  };
  std::vector<std::string> out;
  for (const auto& [path, text] : files) {
    write_file_atomic(path, text);
    out.push_back(path);
  }
  return out;
}

namespace {

// A Markdown table of one row per network: `header` (its lines), then row(run, figures of the
// feeder's programs, figures of explicit im2col) for each run.
template <class Row>
void append_network_table(std::string& s, const std::vector<NetworkRun>& runs, const char* header, Row&& row) {
  s += header;
  for (const NetworkRun& r : runs) s += row(r, total_figures(r, r.feeder), total_figures(r, r.expl));
}

}  // namespace

std::string markdown_tables(const std::vector<NetworkRun>& runs) {
  std::string s;
  if (runs.empty()) return s;
  const NetworkRun& r0 = runs.front();
  s += fmt::format("Generated by `scripts/networks_doc` (`flycol net --network all --update-doc docs/networks.md`): "
                   "configuration {}, {} model, DRAM {:.2f} GB/s, {} MHz, tiling {}, peak window {:g} us.\n\n",
                   r0.config.name, r0.model, r0.bandwidth_gbps, r0.clock_mhz, r0.tiling, r0.window_us);

  s += "### Table II: DRAM traffic and bandwidth\n\n";
  append_network_table(
      s, runs,
      "| network | total MB expl. (paper / flycol) | total MB feed. (paper / flycol) | compulsory MB | flycol feed. / "
      "compulsory | flycol expl. / compulsory | avg GB/s expl. (paper / flycol) | avg GB/s feed. (paper / flycol) | "
      "max GB/s expl. (paper / flycol) | max GB/s feed. (paper / flycol) |\n"
      "|---|---|---|---|---|---|---|---|---|---|\n",
      [](const NetworkRun& r, const Figures& f, const Figures& e) {
        const PaperFigures& p = r.net.paper;
        return fmt::format("| {} | {} / {} | {} / {} | {} | {} | {} | {} / {} | {} / {} | {} / {} | {} / {} |\n",
                           r.net.name, md_num(p.total_mb.expl, 0), md_num(e.mb[4], 0), md_num(p.total_mb.feeder, 0),
                           md_num(f.mb[4], 0), md_num(f.compulsory_mb, 0), md_num(f.mb[4] / f.compulsory_mb, 2),
                           md_num(e.mb[4] / e.compulsory_mb, 2), md_num(p.avg_gbps.expl, 2),
                           md_num(e.demand_avg_gbps, 2), md_num(p.avg_gbps.feeder, 2), md_num(f.demand_avg_gbps, 2),
                           md_num(p.max_gbps.expl, 1), md_num(e.demand_peak_gbps, 1), md_num(p.max_gbps.feeder, 1),
                           md_num(f.demand_peak_gbps, 1));
      });
  s += "\nflycol's average and maximum here are the paper's kind of figure: what the accelerator asks of the DRAM, "
       "from the same programs run with an unlimited DRAM (the memory port still takes one request of at most 32 "
       "bytes per cycle). Average: all bytes over that time; maximum: the highest such average of one layer.\n\n";

  s += "### DRAM traffic against the lower bound\n\n";
  append_network_table(
      s, runs,
      "| network | feeder MB (Table II / flycol) | flycol feed. / Table II | explicit MB (Table II / flycol) | flycol "
      "expl. / Table II | compulsory MB | lower bound MB | flycol feed. / bound | flycol expl. / bound | layers whose "
      "bound is above compulsory |\n"
      "|---|---|---|---|---|---|---|---|---|---|\n",
      [](const NetworkRun& r, const Figures& f, const Figures& e) {
        const PaperFigures& p = r.net.paper;
        const auto ratio = [](double a, double b, bool given) { return given && b > 0 ? md_num(a / b, 2) : "-"; };
        int above = 0;
        for (const LayerRun& l : r.feeder.layers) above += l.bound_bytes > l.compulsory_bytes;
        return fmt::format("| {} | {} / {} | {} | {} / {} | {} | {} | {} | {} | {} | {} of {} |\n", r.net.name,
                           md_num(p.total_mb.feeder, 0), md_num(f.mb[4], 0),
                           ratio(f.mb[4], p.total_mb.feeder, p.total_mb.given), md_num(p.total_mb.expl, 0),
                           md_num(e.mb[4], 0), ratio(e.mb[4], p.total_mb.expl, p.total_mb.given),
                           md_num(f.compulsory_mb, 0), md_num(f.bound_mb, 0), md_num(f.mb[4] / f.bound_mb, 2),
                           md_num(e.mb[4] / e.bound_mb, 2), above, r.feeder.layers.size());
      });
  s += "\nLower bound: per layer, the DRAM bytes no program of the layer can go below on the configured SRAMs (any "
       "tiling, loop order or reuse, either lowering), the larger of the compulsory traffic of the inputs the layer "
       "reads and two red-blue-pebble segment bounds; derived below the generated tables. Compulsory: every tensor once "
       "(the whole ifmap, or the subsampled one the host writes for a strided 1x1 layer).\n\n";

  s += "### Table III: time at the configured DRAM bandwidth\n\n";
  append_network_table(
      s, runs,
      "| network | time ms expl. (paper / flycol) | time ms feed. (paper / flycol) | GFLOP/s expl. (paper / flycol) | "
      "GFLOP/s feed. (paper / flycol) | DRAM stalls % expl. (paper / flycol) | DRAM stalls % feed. (paper / flycol) | "
      "flycol avg GB/s feed. / expl. | flycol peak GB/s feed. / expl. | flycol energy mJ feed. / expl. (DRAM) |\n"
      "|---|---|---|---|---|---|---|---|---|---|\n",
      [](const NetworkRun& r, const Figures& f, const Figures& e) {
        const PaperFigures& p = r.net.paper;
        return fmt::format(
            "| {} | {} / {} | {} / {} | {} / {} | {} / {} | {} / {} | {} / {} | {} / {} | {} / {} | {} / {} "
            "({} / {}) |\n",
            r.net.name, md_num(p.time_ms.expl, 0), md_num(e.time_us * 1e-3, 1), md_num(p.time_ms.feeder, 0),
            md_num(f.time_us * 1e-3, 1), md_num(p.gflops.expl, 0), md_num(e.gflops, 0), md_num(p.gflops.feeder, 0),
            md_num(f.gflops, 0), md_num(p.dram_stall_pct.expl, 1), md_num(e.stall, 1),
            md_num(p.dram_stall_pct.feeder, 1), md_num(f.stall, 1), md_num(f.avg_gbps, 2), md_num(e.avg_gbps, 2),
            md_num(f.peak_gbps, 2), md_num(e.peak_gbps, 2), md_num(f.energy_uj * 1e-3, 1),
            md_num(e.energy_uj * 1e-3, 1), md_num(f.dram_uj * 1e-3, 1), md_num(e.dram_uj * 1e-3, 1));
      });

  s += "\n### Work per network\n\n";
  append_network_table(
      s, runs,
      "| network | array layers | G MAC | GFLOP (flycol) | GFLOP implied by Table III (time x GFLOP/s) | flycol "
      "utilization feed. / expl. % | compute time without DRAM stalls ms feed. / expl. | utilization with "
      "unlimited DRAM, MAC-weighted over layers, feed. / expl. % |\n"
      "|---|---|---|---|---|---|---|---|\n",
      [](const NetworkRun& r, const Figures& f, const Figures& e) {
        const auto busy = [&](const Totals& t) {
          return seconds(r, t.stats.cycles - t.stats.dram_stall - t.stats.tail) * 1e3;
        };
        return fmt::format("| {} | {} | {:.3f} | {:.2f} | {} | {:.1f} / {:.1f} | {:.1f} / {:.1f} | {:.1f} / {:.1f} |\n",
                           r.net.name, r.net.array_layers(), double(r.net.macs()) * 1e-9, 2e-9 * double(r.net.macs()),
                           implied_gflop(r.net), f.util, e.util, busy(r.feeder.total), busy(r.expl.total),
                           f.mac_weighted_free_util, e.mac_weighted_free_util);
      });

  s += "\n### Pooling on chip\n\n";
  s += "Every pooling layer on the pooling unit through the data feeder (on chip), on a strided-access pooling unit "
       "without the feeder (the seed's baseline, modelled: the same lanes, SRAM and tiles, one cycle per ifmap word a "
       "window step touches), and on the host (its DRAM round trip at the DRAM bandwidth: a lower bound on its time, "
       "the DRAM energy of those bytes only). Speedup: strided cycles over on-chip cycles, at the configured DRAM and "
       "with an unlimited DRAM (the units alone). Energy: core (pooling cycles), SRAM and DRAM.\n\n";
  s += "| network | layer | op | input C x H x W | on chip us | strided us | speedup | speedup, unlimited DRAM | host >= us "
       "| DRAM MB | energy uJ on chip / strided / host DRAM | plan |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n";
  for (const NetworkRun& r : runs) {
    for (const PoolRun& p : r.pools) {
      if (!p.on_chip) {
        s += fmt::format("| {} | {} | {} {} | - | on the host: {} | | | | | | | |\n", r.net.name, p.name, p.op, p.detail,
                         p.refused);
        continue;
      }
      s += fmt::format("| {} | {} | {} {} | {} | {:.1f} | {:.1f} | {:.2f} | {:.2f} | {:.1f} | {:.3f} | {:.1f} / {:.1f} / "
                       "{:.1f} | {} |\n",
                       r.net.name, p.name, p.op, p.detail, pool_input(p), us(r, p.stats.cycles), us(r, p.strided.cycles),
                       ratio(double(p.strided.cycles), double(p.stats.cycles)),
                       ratio(double(p.strided_free_cycles), double(p.free_cycles)), us(r, p.host_cycles),
                       double(p.stats.dram.total()) * kMB, p.energy.total_j() * 1e6, p.strided_energy.total_j() * 1e6,
                       p.host_dram_j * 1e6, pool_plan_text(p));
    }
    if (r.pools.empty()) continue;
    const PoolTotals& t = r.pool_total;
    const std::uint64_t array = r.feeder.total.stats.cycles;
    s += fmt::format("| {} | **total** ({} of {} on chip) | | | {:.1f} ({:.1f} % of the network's {:.2f} ms) | {:.1f} | "
                     "{:.2f} | {:.2f} | {:.1f} | {:.3f} | {:.1f} / {:.1f} / {:.1f} | |\n",
                     r.net.name, t.on_chip, t.layers, us(r, t.stats.cycles),
                     100.0 * ratio(double(t.stats.cycles), double(array + t.stats.cycles)),
                     us(r, array + t.stats.cycles) * 1e-3, us(r, t.strided.cycles),
                     ratio(double(t.strided.cycles), double(t.stats.cycles)),
                     ratio(double(t.strided_free_cycles), double(t.free_cycles)), us(r, t.host_cycles),
                     double(t.stats.dram.total()) * kMB, t.energy.total_j() * 1e6, t.strided_energy.total_j() * 1e6,
                     t.host_dram_j * 1e6);
  }

  s += "\n### Fused convolution + pooling\n\n";
  s += "Every pooling layer on chip whose input is a convolution's output that nothing else reads, compiled with that "
       "convolution into one fused program (the convolution's tiles pooled on chip, only the pooled tensor stored), "
       "against the two layers run one after the other (the convolution's planned program, then the pooling layer on "
       "chip). Speedup: the separate runs' time over the fused program's; saved MB: their DRAM bytes less the fused "
       "program's (negative: fusion moves more). Plan: Tc input channels, n_kg groups of output channels, Tq pooled "
       "rows per tile, as size:count, and the convolution rows of a full tile.\n\n";
  s += "| network | convolution + pooling | fused us | separate us | speedup | fused MB | separate MB | saved MB | energy uJ "
       "fused / separate | plan |\n|---|---|---|---|---|---|---|---|---|---|\n";
  for (const NetworkRun& r : runs) {
    for (const FusedRun& f : r.fusions) {
      const std::string name = f.conv.empty() ? f.pool : f.conv + " + " + f.pool;
      if (!f.fused) {
        s += fmt::format("| {} | {} | not fused: {} | | | | | | | |\n", r.net.name, name, f.refused);
        continue;
      }
      s += fmt::format("| {} | {} | {:.1f} | {:.1f} | {:.2f} | {:.3f} | {:.3f} | {:.3f} | {:.1f} / {:.1f} | {} |\n",
                       r.net.name, name, us(r, f.stats.cycles), us(r, f.unfused.cycles),
                       ratio(double(f.unfused.cycles), double(f.stats.cycles)), double(f.stats.dram.total()) * kMB,
                       double(f.unfused.dram.total()) * kMB, saved_mb(f.unfused, f.stats), f.energy.total_j() * 1e6,
                       f.unfused_energy.total_j() * 1e6, fused_plan_text(f));
    }
    if (r.fusions.empty()) continue;
    const FusedTotals& t = r.fused_total;
    s += fmt::format("| {} | **total** ({} of {} pairs fused) | {:.1f} | {:.1f} | {:.2f} | {:.3f} | {:.3f} | {:.3f} | "
                     "{:.1f} / {:.1f} | |\n",
                     r.net.name, t.fused, t.pairs, us(r, t.stats.cycles), us(r, t.unfused.cycles),
                     ratio(double(t.unfused.cycles), double(t.stats.cycles)), double(t.stats.dram.total()) * kMB,
                     double(t.unfused.dram.total()) * kMB, saved_mb(t.unfused, t.stats), t.energy.total_j() * 1e6,
                     t.unfused_energy.total_j() * 1e6);
  }

  for (const NetworkRun& r : runs) {
    s += fmt::format("\n### {}: the plan of every layer\n\n", r.net.title);
    s += "Tile sizes as size:count (Tc input channels, n_kg groups of 16 output channels, Th output rows, Tw output "
         "columns); `on C=.. x HxW` when the program runs a reshaped (feeder, 1x1) or lowered (explicit) layer; \"(input "
         "subsampled by the host)\": a strided 1x1 layer whose input the host writes subsampled (section \"Strided "
         "1x1 inputs\").\n\n";
    s += "| layer | MMAC | compulsory MB | lower bound MB | feeder: plan | util % | MB | explicit: plan | util % | MB "
         "|\n|---|---|---|---|---|---|---|---|---|---|\n";
    for (std::size_t i = 0; i < r.feeder.layers.size(); ++i) {
      const LayerRun& a = r.feeder.layers[i];
      const LayerRun& b = r.expl.layers[i];
      const Figures fa = layer_figures(r, a), fb = layer_figures(r, b);
      s += fmt::format("| {} | {:.1f} | {:.2f} | {:.2f} | {} | {:.1f} | {:.2f} | {} | {:.1f} | {:.2f} |\n", a.name,
                       fa.mmac, fa.compulsory_mb, fa.bound_mb, plan_text(a), fa.util, fa.mb[4], plan_text(b), fb.util,
                       fb.mb[4]);
    }
    // The totals line: modelled traffic against the paper's Table II and against the bound.
    const Figures ft = total_figures(r, r.feeder), et = total_figures(r, r.expl);
    const PaperFigures& pf = r.net.paper;
    const auto versus = [&](const Figures& t, double paper) {
      std::string v = pf.total_mb.given ? fmt::format("{:.2f} x Table II ({:.0f} MB), ", t.mb[4] / paper, paper) : "";
      return v + fmt::format("{:.2f} x the lower bound", t.mb[4] / t.bound_mb);
    };
    s += fmt::format("| **total** | {:.1f} | {:.2f} | {:.2f} | {} | {:.1f} | {:.2f} | {} | {:.1f} | {:.2f} |\n",
                     ft.mmac, ft.compulsory_mb, ft.bound_mb, versus(ft, pf.total_mb.feeder), ft.util, ft.mb[4],
                     versus(et, pf.total_mb.expl), et.util, et.mb[4]);
  }
  return s;
}

}  // namespace flycol::net
