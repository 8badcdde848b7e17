// The real-data graph runner (sim/graph/graph_run.h). Array nodes are planned with the analytic
// planner, lowered and simulated exactly as a `flycol net` layer is (analytic::Planner::choose,
// lower_operands, simulate_layer, cosim_layer, golden::conv), once per group with that group's
// channels and weights; the operands are the real tensors, rounded once to the arithmetic.
#include "sim/graph/graph_run.h"

#include <chrono>
#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <stdexcept>

#include <fmt/format.h>

#include "sim/common/input_error.h"
#include "sim/compiler/explicit_lowering.h"
#include "sim/config/config_keys.h"
#include "sim/golden/conv.h"
#include "sim/report/json.h"
#include "sim/rtlsim/cosim.h"
#include "sim/scsim/layer_sim.h"
#include "sim/tensor/convert.h"
#include "sim/accuracy/accuracy.h"
#include "sim/workload/workload.h"

namespace flycol::graph {
namespace {

using Clock = std::chrono::steady_clock;
double since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

std::int64_t product(const Shape& s) {
  std::int64_t p = 1;
  for (std::int64_t d : s) p *= d;
  return p;
}

// Group g's slice of an [n][groups*c][h][w] activation as the array's [n][c][h][w] operand, rounded
// once to the arithmetic (sim/tensor/convert.h: integers range-checked, never clamped).
std::vector<ElemBits> slice_ifmap(const std::vector<float>& x, const Layer& l, int groups, int g, Arithmetic a,
                                  RoundingStats& r, const std::string& what) {
  Tensor t;
  t.shape = {l.n, l.c, l.h, l.w};
  t.values.reserve(std::size_t(l.ifmap_elems()));
  const std::int64_t plane = std::int64_t(l.h) * l.w;
  for (int n = 0; n < l.n; ++n)
    for (int c = 0; c < l.c; ++c) {
      const std::int64_t base = ((std::int64_t(n) * groups * l.c) + std::int64_t(g) * l.c + c) * plane;
      t.values.insert(t.values.end(), x.begin() + base, x.begin() + base + plane);
    }
  RoundingStats st;
  std::vector<ElemBits> out = to_elements(t, a, groups > 1 ? fmt::format("{} (group {})", what, g) : what, &st);
  accumulate(r, st);
  return out;
}

std::vector<ElemBits> slice_weights(const Tensor& w, const Layer& l, int groups, int g, Arithmetic a, RoundingStats& r,
                                    const std::string& what) {
  const std::int64_t per = l.weight_elems();
  Tensor t;
  t.shape = {l.k, l.c, l.ky, l.kx};
  t.values.assign(w.values.begin() + g * per, w.values.begin() + (g + 1) * per);
  RoundingStats st;
  std::vector<ElemBits> out = to_elements(t, a, groups > 1 ? fmt::format("{} (group {})", what, g) : what, &st);
  accumulate(r, st);
  return out;
}

// The float32 reference of an array node: float64 accumulation of the unrounded weights and the
// float32 activations, rounded to float32, then the bias added in float32.
F32 conv_f32(const Node& node, const F32& x) {
  const Layer& l = node.layer;
  const int G = node.groups;
  const int ho = l.ho(), wo = l.wo();
  F32 r;
  r.shape = node.out_shape;
  r.v.assign(std::size_t(std::int64_t(l.n) * G * l.k * ho * wo), 0.0f);
  std::size_t o = 0;
  for (int n = 0; n < l.n; ++n)
    for (int g = 0; g < G; ++g)
      for (int k = 0; k < l.k; ++k) {
        const int kk = g * l.k + k;
        const float bias = node.bias.values.empty() ? 0.0f : float(node.bias.values[std::size_t(kk)]);
        for (int oy = 0; oy < ho; ++oy)
          for (int ox = 0; ox < wo; ++ox) {
            double sum = 0;
            for (int c = 0; c < l.c; ++c)
              for (int a = 0; a < l.ky; ++a) {
                const int y = oy * l.sy - l.pt + a * l.dy;
                if (y < 0 || y >= l.h) continue;
                for (int b = 0; b < l.kx; ++b) {
                  const int xx = ox * l.sx - l.pl + b * l.dx;
                  if (xx < 0 || xx >= l.w) continue;
                  const double w = node.weights.values[std::size_t(((std::int64_t(kk) * l.c + c) * l.ky + a) * l.kx + b)];
                  const double v = x.v[std::size_t(((std::int64_t(n) * G * l.c + g * l.c + c) * l.h + y) * l.w + xx)];
                  sum += w * v;
                }
              }
            r.v[o++] = node.bias.values.empty() ? float(sum) : float(sum) + bias;
          }
      }
  return r;
}

void check_array_node(const Node& node, const F32& x) {
  const Layer& l = node.layer;
  const std::int64_t want = std::int64_t(l.n) * node.groups * l.c * l.h * l.w;
  if (x.elems() != want || product(node.in_view) != want)
    throw InputError(fmt::format("node '{}' ({})", node.name, node.op), "",
                     fmt::format("its input {} does not fit the array view [{}][{}][{}][{}]", shape_text(x.shape), l.n,
                                 node.groups * l.c, l.h, l.w));
  if (node.weights.elems() != std::int64_t(node.groups) * l.weight_elems() ||
      std::int64_t(node.weights.values.size()) != node.weights.elems())
    throw InputError(fmt::format("node '{}' ({})", node.name, node.op), "",
                     fmt::format("weights {} do not fit {} groups of [{}][{}][{}][{}]", node.weights.shape_text(),
                                 node.groups, l.k, l.c, l.ky, l.kx));
  if (!node.bias.values.empty() && std::int64_t(node.bias.values.size()) != std::int64_t(node.groups) * l.k)
    throw InputError(fmt::format("node '{}' ({})", node.name, node.op), "",
                     fmt::format("bias has {} values, expected {}", node.bias.values.size(), node.groups * l.k));
  if (product(node.out_shape) != std::int64_t(l.n) * node.groups * l.k * l.ho() * l.wo())
    throw InputError(fmt::format("node '{}' ({})", node.name, node.op), "",
                     fmt::format("output shape {} does not hold the array's [{}][{}][{}][{}]", shape_text(node.out_shape),
                                 l.n, node.groups * l.k, l.ho(), l.wo()));
}

// Values by name: computed ones first, then the graph's constants (as float32).
const F32& lookup(const std::map<std::string, F32>& values, const Graph& g, std::map<std::string, F32>& const_cache,
                  const std::string& name, const Node& node) {
  auto it = values.find(name);
  if (it != values.end()) return it->second;
  auto c = const_cache.find(name);
  if (c != const_cache.end()) return c->second;
  auto k = g.constants.find(name);
  if (k != g.constants.end()) return const_cache[name] = to_f32(k->second);
  throw InputError(fmt::format("node '{}' ({})", node.name, node.op), "",
                   fmt::format("reads '{}', which no earlier node, graph input or constant provides", name));
}

std::vector<F32> host_inputs(const Node& node, const std::map<std::string, F32>& values, const Graph& g,
                             std::map<std::string, F32>& const_cache) {
  std::vector<F32> in;
  for (const std::string& name : node.inputs) {
    if (name.empty()) {
      F32 a;
      a.absent = true;
      in.push_back(a);
    } else {
      in.push_back(lookup(values, g, const_cache, name, node));
    }
  }
  return in;
}

void store_outputs(const Node& node, std::vector<F32> outs, std::map<std::string, F32>& values) {
  for (std::size_t i = 0; i < node.outputs.size() && i < outs.size(); ++i)
    if (!node.outputs[i].empty()) values[node.outputs[i]] = std::move(outs[i]);
}

const Graph::Input& graph_input(const Graph& g) {
  if (g.inputs.size() != 1)
    throw InputError(g.source.empty() ? g.name : g.source, "",
                     fmt::format("has {} data inputs; a real-data run takes a graph with exactly one", g.inputs.size()));
  if (g.outputs.empty()) throw InputError(g.source.empty() ? g.name : g.source, "", "has no output");
  return g.inputs[0];
}

void check_input(const Graph& g, const Tensor& input) {
  const Graph::Input& gi = graph_input(g);
  if (input.shape != gi.shape)
    throw InputError("--input", "",
                     fmt::format("shape {} does not match the graph input '{}' {}: give a tensor of that shape (or fix "
                                 "the input's dynamic dimensions with --input-shape)",
                                 input.shape_text(), gi.name, shape_text(gi.shape)));
}

}  // namespace

Drift drift(const std::vector<float>& y, const std::vector<float>& ref) {
  // The project's error statistics (sim/accuracy/accuracy.h), so that a network's drift means what
  // `flycol run`'s error figures mean.
  const std::size_t n = std::min(y.size(), ref.size());
  const std::vector<double> a(y.begin(), y.begin() + std::ptrdiff_t(n)), b(ref.begin(), ref.begin() + std::ptrdiff_t(n));
  const ErrorStats e = error_stats(a, b);
  Drift d;
  d.values = std::int64_t(n);
  d.nonfinite = e.nonfinite_mismatch;
  d.max_abs = e.nonfinite_mismatch ? std::numeric_limits<double>::infinity() : e.max_abs;
  d.max_rel = e.nonfinite_mismatch ? std::numeric_limits<double>::infinity() : e.max_rel;
  d.normwise_rel = e.normwise_rel;
  d.rms = e.rms;
  d.cosine = e.cosine;
  for (double v : b)
    if (std::isfinite(v)) d.ref_max_abs = std::max(d.ref_max_abs, std::fabs(v));
  return d;
}

std::map<std::string, F32> run_graph_f32(const Graph& g, const Tensor& input) {
  check_input(g, input);
  std::map<std::string, F32> values, const_cache;
  values[g.inputs[0].name] = to_f32(input);
  for (const Node& node : g.nodes) {
    if (node.on_array) {
      const F32& x = lookup(values, g, const_cache, node.inputs.at(0), node);
      check_array_node(node, x);
      values[node.outputs.at(0)] = conv_f32(node, x);
    } else {
      store_outputs(node, run_host_node(node, host_inputs(node, values, g, const_cache), g.opset), values);
    }
  }
  return values;
}

GraphRun run_graph(const Graph& g, const Tensor& input, const Config& cfg, const GraphRunOptions& opt) {
  if (opt.model != "analytic" && opt.model != "sc" && opt.model != "both")
    throw InputError("--model", "", fmt::format("= {}: must be analytic, sc or both", opt.model));
  if (opt.check && opt.model == "analytic")
    throw InputError("--check", "", "compares the SystemC model's outputs with the golden model: needs --model sc or both");
  if (!(opt.bandwidth_gbps == 0 || (opt.bandwidth_gbps > 0 && opt.bandwidth_gbps <= 1000)))
    throw InputError("--bandwidth", "", fmt::format("= {}: must be a DRAM bandwidth in GB/s in (0, 1000]", opt.bandwidth_gbps));
  check_input(g, input);
  const auto t_start = Clock::now();

  GraphRun r;
  r.name = g.name;
  r.source = g.source;
  r.model = opt.model;
  r.arithmetic = arithmetic_info(cfg.arithmetic).name;
  r.tiling = analytic::tiling_name(opt.tiling);
  r.opset = g.opset;
  r.clock_mhz = cfg.clock_mhz;
  r.input_name = g.inputs[0].name;
  r.input_shape = g.inputs[0].shape;
  r.output_name = g.outputs[0];

  DramTiming timing = DramTiming::from(cfg);
  if (opt.bandwidth_gbps > 0) timing.bytes_per_cycle = opt.bandwidth_gbps * 1e3 / cfg.clock_mhz;
  r.bandwidth_gbps = timing.bytes_per_cycle * cfg.clock_mhz / 1e3;
  const hw::HwParams hw = hardware_params(cfg);
  analytic::Planner planner(cfg, timing, opt.tiling);
  std::unique_ptr<ScSimulation> sc;
  if (opt.model != "analytic") sc = std::make_unique<ScSimulation>(hw);
  const bool rtl = opt.model == "both";
  std::uint64_t prev_reads[3] = {0, 0, 0}, prev_writes[3] = {0, 0, 0};
  golden::ConvOptions go;
  go.zero_gating = cfg.zero_gating;

  // The float32 reference first (its own values), so that every node's drift is known as the
  // accelerator run reaches it.
  const auto t_ref = Clock::now();
  if (opt.progress) opt.progress(-1, int(g.nodes.size()), "float32 reference run");
  const std::map<std::string, F32> ref = run_graph_f32(g, input);
  r.reference_wall_seconds = since(t_ref);

  std::map<std::string, F32> values, const_cache;
  values[r.input_name] = to_f32(input);
  const int count = int(g.nodes.size());
  int index = 0;
  for (const Node& node : g.nodes) {
    if (opt.progress) opt.progress(index, count, node.name);
    ++index;
    const auto t0 = Clock::now();
    NodeRun nr;
    nr.name = node.name;
    nr.op = node.op;
    nr.on_array = node.on_array;
    nr.groups = node.groups;
    nr.layer = node.layer;
    if (!node.on_array) {
      store_outputs(node, run_host_node(node, host_inputs(node, values, g, const_cache), g.opset), values);
      nr.wall_seconds = since(t0);
      r.host_wall_seconds += nr.wall_seconds;
    } else {
      const F32& x = lookup(values, g, const_cache, node.inputs.at(0), node);
      check_array_node(node, x);
      const Layer& l = node.layer;
      nr.macs = std::uint64_t(l.macs()) * std::uint64_t(node.groups);
      const analytic::Choice choice = planner.choose(l, analytic::Lowering::feeder);
      const bool lowered = !(choice.program.layer == l);
      const int ho = l.ho(), wo = l.wo();
      F32 y;
      y.shape = node.out_shape;
      y.v.assign(std::size_t(std::int64_t(l.n) * node.groups * l.k * ho * wo), 0.0f);
      const std::string act_what = fmt::format("node '{}' ({}) input '{}'", node.name, node.op, node.inputs.at(0));
      const std::string w_what = fmt::format("node '{}' ({}) weights", node.name, node.op);
      bool exact = true;
      for (int grp = 0; grp < node.groups; ++grp) {
        ConvOperands ops;
        ops.layer = l;
        ops.arithmetic = cfg.arithmetic;
        ops.ifmap = slice_ifmap(x.v, l, node.groups, grp, cfg.arithmetic, nr.act_rounding, act_what);
        ops.weights = slice_weights(node.weights, l, node.groups, grp, cfg.arithmetic, nr.weight_rounding, w_what);
        std::vector<AccBits> outputs;
        RunStats st;
        if (!sc) {
          outputs = golden::conv(ops, go);
          st = choice.result.stats;
        } else {
          const ConvOperands run_ops = lowered ? lower_operands(ops, choice.program.layer) : ops;
          const LayerSimResult s = simulate_layer(*sc, choice.program, run_ops, timing, 50'000'000);
          if (!s.sim.finished)
            throw std::runtime_error(fmt::format("flycol net: the SystemC model did not finish node '{}' group {}: {}",
                                                 node.name, grp, s.sim.error));
          st = run_stats(s.sim.stats, s.sim.cycles, s.dram);
          for (int i = 0; i < 3; ++i) {  // the banks' counters are cumulative over one elaboration
            const std::uint64_t rd = st.sram_reads[i], wr = st.sram_writes[i];
            st.sram_reads[i] -= prev_reads[i];
            st.sram_writes[i] -= prev_writes[i];
            prev_reads[i] = rd;
            prev_writes[i] = wr;
          }
          nr.sc_wall_seconds += s.sim.wall_seconds;
          outputs = s.outputs;
          if (rtl) {
            CosimOptions co;
            co.watchdog_cycles = 2'000'000;
            const CosimResult c = cosim_layer(choice.program, run_ops, timing, co);
            nr.rtl_wall_seconds += c.rtl.wall_seconds;
            std::string m;
            if (c.first.found)
              m = fmt::format("pins diverge at cycle {} on {}: SystemC {} / RTL {}", c.first.cycle, c.first.signal,
                              c.first.sc_value, c.first.rtl_value);
            else if (!c.sc.finished || !c.rtl.finished)
              m = fmt::format("did not finish: {}", !c.rtl.finished ? c.rtl.error : c.sc.error);
            else if (!c.cycles_equal || c.sc.cycles != s.sim.cycles)
              m = fmt::format("cycles SystemC {} RTL {}", s.sim.cycles, c.rtl.cycles);
            else if (!c.outputs_equal || c.rtl.outputs != s.outputs)
              m = "RTL outputs differ from SystemC's";
            if (!m.empty() && nr.mismatch.empty()) nr.mismatch = fmt::format("group {}: {}", grp, m);
          }
          if (opt.check) {
            const std::vector<AccBits> want = golden::conv(ops, go);
            if (want != s.outputs) {
              exact = false;
              std::size_t i = 0;
              while (i < want.size() && i < s.outputs.size() && want[i] == s.outputs[i]) ++i;
              if (nr.mismatch.empty())
                nr.mismatch = fmt::format("group {}: output {} differs from the golden model ({} of {} values)", grp, i,
                                          [&] {
                                            std::size_t d = 0;
                                            for (std::size_t j = 0; j < want.size() && j < s.outputs.size(); ++j)
                                              d += want[j] != s.outputs[j];
                                            return d;
                                          }(),
                                          want.size());
            }
          }
        }
        accumulate(nr.stats, st);
        if (grp == 0) nr.stats = st;  // accumulate() keeps counters only if both counted them
        // Group grp's [n][k][ho][wo] into channels [grp*k, (grp+1)*k) of the [n][G*k][ho][wo] output,
        // each value the accumulator's, in float32, plus the bias in float32.
        const std::int64_t plane = std::int64_t(ho) * wo;
        for (int n = 0; n < l.n; ++n)
          for (int k = 0; k < l.k; ++k) {
            const int kk = grp * l.k + k;
            const float bias = node.bias.values.empty() ? 0.0f : float(node.bias.values[std::size_t(kk)]);
            for (std::int64_t i = 0; i < plane; ++i) {
              const float acc = float(acc_value(outputs[std::size_t((std::int64_t(n) * l.k + k) * plane + i)], cfg.arithmetic));
              y.v[std::size_t((std::int64_t(n) * node.groups * l.k + kk) * plane + i)] = node.bias.values.empty() ? acc : acc + bias;
            }
          }
      }
      if (sc && (opt.check || rtl)) {
        nr.checked = true;
        nr.exact = exact && nr.mismatch.empty();
        ++r.checked_nodes;
        if (!nr.exact) ++r.mismatched_nodes;
      }
      values[node.outputs.at(0)] = std::move(y);
      nr.wall_seconds = since(t0);
      r.sc_wall_seconds += nr.sc_wall_seconds;
      r.rtl_wall_seconds += nr.rtl_wall_seconds;
      r.macs += nr.macs;
      r.cycles += nr.stats.cycles;
      if (r.nodes.empty() || r.stats.cycles == 0)
        r.stats = nr.stats;
      else
        accumulate(r.stats, nr.stats);
    }
    if (!node.outputs.empty()) {
      const F32& mine = values.at(node.outputs[0]);
      auto it = ref.find(node.outputs[0]);
      nr.out_shape = mine.shape;
      if (it != ref.end()) nr.drift = drift(mine.v, it->second.v);
    }
    r.nodes.push_back(std::move(nr));
  }
  auto out = values.find(r.output_name);
  if (out == values.end())
    throw InputError(g.source.empty() ? g.name : g.source, "",
                     fmt::format("the graph output '{}' is produced by no node", r.output_name));
  r.output = out->second;
  r.reference = ref.at(r.output_name);
  r.output_drift = drift(r.output.v, r.reference.v);
  r.wall_seconds = since(t_start);
  return r;
}

namespace {

std::string num(double v) {
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  if (std::isnan(v)) return "nan";
  return fmt::format("{:.3g}", v);
}

Json drift_json(const Drift& d) {
  Json j = Json::object();
  j["values"] = d.values;
  j["nonfinite"] = d.nonfinite;
  j["max_abs"] = d.max_abs;
  j["max_rel"] = d.max_rel;
  j["ref_max_abs"] = d.ref_max_abs;
  j["normwise_rel"] = d.normwise_rel;
  j["rms"] = d.rms;
  j["cosine"] = d.cosine;
  return j;
}

Json shape_json(const Shape& s) {
  Json j = Json::array();
  for (std::int64_t d : s) j.push(Json(static_cast<long long>(d)));
  return j;
}

}  // namespace

std::string text_report(const GraphRun& r) {
  std::string t;
  t += fmt::format("network      {} ({}), opset {}\n", r.name, r.source, r.opset);
  t += fmt::format("model        {}, arithmetic {}, tiling {}, {} MHz, DRAM {:.2f} GB/s\n", r.model, r.arithmetic,
                   r.tiling, r.clock_mhz, r.bandwidth_gbps);
  t += fmt::format("input        {} {}   output {} {}\n", r.input_name, shape_text(r.input_shape), r.output_name,
                   shape_text(r.output.shape));
  t += "host         the host nodes and the bias ran in float32 on the host; the reference run is float32\n"
       "             (convolutions accumulated in float64 from the unrounded weights)\n";
  t += fmt::format("{:<24} {:<26} {:>12} {:>9} {:>6} {:>10} {:>10} {:>9} {:>8}\n", "node", "op", "cycles", "MB DRAM",
                   "exact", "max abs", "max rel", "cosine", "wall s");
  for (const NodeRun& n : r.nodes) {
    const std::string op = n.on_array && n.groups > 1 ? fmt::format("{} g{}", n.op, n.groups) : n.op + (n.on_array ? "" : " (host)");
    t += fmt::format("{:<24} {:<26} {:>12} {:>9} {:>6} {:>10} {:>10} {:>9} {:>8.3f}\n", n.name.substr(0, 24), op,
                     n.on_array ? fmt::format("{}", n.stats.cycles) : "-",
                     n.on_array ? fmt::format("{:.3f}", double(n.stats.dram.total()) / 1e6) : "-",
                     n.checked ? (n.exact ? "yes" : "NO") : "-", num(n.drift.max_abs), num(n.drift.max_rel),
                     fmt::format("{:.6f}", n.drift.cosine), n.wall_seconds);
    if (!n.mismatch.empty()) t += fmt::format("  mismatch: {}\n", n.mismatch);
  }
  const double secs = r.clock_mhz > 0 ? double(r.cycles) / (r.clock_mhz * 1e6) : 0;
  t += fmt::format("total        {} array MACs, {} cycles ({:.3f} ms), {:.3f} MB DRAM\n", r.macs, r.cycles, secs * 1e3,
                   double(r.stats.dram.total()) / 1e6);
  if (r.checked_nodes)
    t += fmt::format("check        {} of {} array nodes bit-exact against the golden model{}\n",
                     r.checked_nodes - r.mismatched_nodes, r.checked_nodes, r.model == "both" ? " and the RTL in lockstep" : "");
  t += fmt::format("drift        final output vs float32: max abs {}, max rel {} (of max |ref| {}), cosine {:.8f}{}\n",
                   num(r.output_drift.max_abs), num(r.output_drift.max_rel), num(r.output_drift.ref_max_abs),
                   r.output_drift.cosine,
                   r.output_drift.nonfinite ? fmt::format(", {} non-finite values", r.output_drift.nonfinite) : "");
  t += fmt::format("wall         {:.3f} s total: SystemC {:.3f} s, RTL {:.3f} s, host ops {:.3f} s, float32 reference {:.3f} s\n",
                   r.wall_seconds, r.sc_wall_seconds, r.rtl_wall_seconds, r.host_wall_seconds, r.reference_wall_seconds);
  return t;
}

Json json_report(const GraphRun& r) {
  Json j = Json::object();
  j["network"] = r.name;
  j["source"] = r.source;
  j["opset"] = static_cast<long long>(r.opset);
  j["model"] = r.model;
  j["arithmetic"] = r.arithmetic;
  j["tiling"] = r.tiling;
  j["clock_mhz"] = r.clock_mhz;
  j["bandwidth_gbps"] = r.bandwidth_gbps;
  j["host_arithmetic"] = "float32";
  j["reference"] = "float32 run of the same graph: convolutions accumulated in float64 from the unrounded weights, "
                   "rounded to float32; host nodes and bias in float32";
  j["input"] = Json::object();
  j["input"]["name"] = r.input_name;
  j["input"]["shape"] = shape_json(r.input_shape);
  j["output"] = Json::object();
  j["output"]["name"] = r.output_name;
  j["output"]["shape"] = shape_json(r.output.shape);
  j["output"]["drift"] = drift_json(r.output_drift);
  Json nodes = Json::array();
  for (const NodeRun& n : r.nodes) {
    Json o = Json::object();
    o["name"] = n.name;
    o["op"] = n.op;
    o["on_array"] = n.on_array;
    o["out_shape"] = shape_json(n.out_shape);
    if (n.on_array) {
      o["groups"] = n.groups;
      o["layer"] = n.layer.spec();
      o["macs"] = n.macs;
      o["cycles"] = n.stats.cycles;
      o["dram_bytes"] = dram_json(n.stats.dram);
      o["checked"] = n.checked;
      o["exact"] = n.checked ? Json(n.exact) : Json();
      if (!n.mismatch.empty()) o["mismatch"] = n.mismatch;
      o["activation_rounding"] = rounding_json(n.act_rounding);
      o["weight_rounding"] = rounding_json(n.weight_rounding);
      o["sc_wall_seconds"] = n.sc_wall_seconds;
      o["rtl_wall_seconds"] = n.rtl_wall_seconds;
    }
    o["drift"] = drift_json(n.drift);
    o["wall_seconds"] = n.wall_seconds;
    nodes.push(std::move(o));
  }
  j["nodes"] = std::move(nodes);
  Json t = Json::object();
  t["macs"] = r.macs;
  t["cycles"] = r.cycles;
  t["dram_bytes"] = dram_json(r.stats.dram);
  t["checked_nodes"] = r.checked_nodes;
  t["mismatched_nodes"] = r.mismatched_nodes;
  t["wall_seconds"] = r.wall_seconds;
  t["sc_wall_seconds"] = r.sc_wall_seconds;
  t["rtl_wall_seconds"] = r.rtl_wall_seconds;
  t["host_wall_seconds"] = r.host_wall_seconds;
  t["reference_wall_seconds"] = r.reference_wall_seconds;
  j["total"] = std::move(t);
  return j;
}

}  // namespace flycol::graph
