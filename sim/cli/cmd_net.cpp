// flycol net: a whole network on the analytic (or SystemC) model, with the data feeder and with the
// explicit-im2col baseline; per-layer and total figures, reports and the docs/networks.md tables.
// With --onnx the network comes from an ONNX model; with --onnx and --input it runs on real data
// (sim/graph/graph_run.h): real weights and activations, host nodes in float32, drift against a
// float32 run of the same graph, the output written as .npy and compared with --expect.
#include <cctype>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include <unistd.h>

#include <fmt/format.h>

#include "sim/cli/commands.h"
#include "sim/common/files.h"
#include "sim/analytic/tiling_mode.h"
#include "sim/common/input_error.h"
#include "sim/graph/graph_run.h"
#include "sim/network/network.h"
#include "sim/network/network_report.h"
#include "sim/network/network_run.h"
#include "sim/onnx/onnx_import.h"
#include "sim/onnx/onnx_network.h"
#include "sim/report/doc_section.h"
#include "sim/tensor/npy.h"

namespace flycol::cli {
namespace {

struct NetArgs {
  CLI::Option* bandwidth_option = nullptr;
  CLI::Option* tolerance_option = nullptr;
  std::string network;
  std::string onnx;
  std::vector<std::string> input_shapes, constants;
  std::string input, output, expect;
  double tolerance = 0;
  std::string config;
  std::string model = "analytic";
  double bandwidth = 0;
  std::string report;
  std::string tiling = analytic::tiling_name(analytic::kDefaultTiling);
  double window_us = 10;
  bool check = false;
  std::uint64_t seed = 1;
  std::string update_doc;
  int batch = 1;
};

// --expect: the final output against E within a stated tolerance. The default rule: the FP16
// run's distance to a correct float32 result is what it drifted from our float32 run of the same
// graph (D, measured); another float32 implementation differs from ours by summation order only,
// far below D, so |Y - E| <= 2 D + 2^-16 max|E| (the second term, 256 float32 ulps of the largest
// value, covers that order where D is 0, e.g. integer arithmetic or no array node).
struct ExpectResult {
  bool given = false, passed = true;
  std::string rule;
  double tolerance = 0, max_abs = 0, ref_max_abs = 0;  // |Y - E| and |float32 run - E|
  std::int64_t outside = 0, worst_index = -1;
};

ExpectResult compare_expect(const graph::GraphRun& r, const Tensor& e, const NetArgs& a) {
  ExpectResult x;
  x.given = true;
  if (e.shape != r.output.shape)
    throw InputError(a.expect, "",
                     fmt::format("shape {} does not match the network output '{}' {}", e.shape_text(), r.output_name,
                                 graph::shape_text(r.output.shape)));
  double emax = 0;
  for (double v : e.values)
    if (std::isfinite(v)) emax = std::max(emax, std::fabs(v));
  if (a.tolerance_option->count() > 0) {
    x.tolerance = a.tolerance;
    x.rule = fmt::format("|output - expect| <= {:g} (--tolerance)", a.tolerance);
  } else {
    const double d = r.output_drift.max_abs;
    x.tolerance = 2 * d + std::ldexp(emax, -16);
    x.rule = fmt::format("|output - expect| <= 2 x drift max abs ({:.3g}) + 2^-16 x max|expect| ({:.3g}) = {:.3g}", d,
                         emax, x.tolerance);
  }
  for (std::size_t i = 0; i < e.values.size(); ++i) {
    const double want = e.values[i], got = r.output.v[i], ref = r.reference.v[i];
    const bool same_special = (std::isnan(want) && std::isnan(got)) || (std::isinf(want) && got == want);
    const double diff = same_special ? 0.0 : std::fabs(got - want);
    if (!(diff <= x.tolerance)) ++x.outside;
    if (!(diff <= x.max_abs)) {
      x.max_abs = diff;
      x.worst_index = std::int64_t(i);
    }
    if (!(std::isnan(want) && std::isnan(ref))) x.ref_max_abs = std::max(x.ref_max_abs, std::fabs(ref - want));
  }
  x.passed = x.outside == 0;
  return x;
}

int real_data_command(const NetArgs& a, const Config& cfg, const ImportOptions& iopt) {
  if (!a.update_doc.empty()) throw InputError("--update-doc", "", "rewrites the tables of --network all: not with --input");
  const graph::Graph g = import_onnx(a.onnx, iopt);
  const Tensor input = read_npy(a.input);
  Tensor expect;
  if (!a.expect.empty()) expect = read_npy(a.expect);  // read before the run: a bad file fails fast

  graph::GraphRunOptions opt;
  opt.model = a.model;
  opt.tiling = *analytic::tiling_named(a.tiling);  // checked by net_command
  opt.bandwidth_gbps = a.bandwidth;
  opt.check = a.check;
  const bool tty = isatty(STDERR_FILENO) != 0;
  if (tty)
    opt.progress = [&](int i, int n, const std::string& node) {
      if (i < 0)
        fmt::print(stderr, "\r\033[K{} {}", g.name, node);
      else
        fmt::print(stderr, "\r\033[K{} node {:>4}/{} {}", g.name, i + 1, n, node);
      std::fflush(stderr);
    };
  const graph::GraphRun r = graph::run_graph(g, input, cfg, opt);
  if (tty) fmt::print(stderr, "\r\033[K");
  fmt::print("{}", graph::text_report(r));

  ExpectResult ex;
  if (!a.expect.empty()) {
    ex = compare_expect(r, expect, a);
    fmt::print("expect       {}: {} (max |output - expect| {:.3g}{}; float32 run vs expect {:.3g})\n", a.expect,
               ex.passed ? "within tolerance" : fmt::format("FAILED, {} values outside", ex.outside), ex.max_abs,
               ex.worst_index >= 0 ? fmt::format(" at {}", ex.worst_index) : "", ex.ref_max_abs);
    fmt::print("tolerance    {}\n", ex.rule);
  }
  if (!a.output.empty()) {
    write_npy(a.output, graph::to_tensor(r.output));
    fmt::print("  output       {} (float32 {})\n", a.output, graph::shape_text(r.output.shape));
  }
  if (!a.report.empty()) {
    Json j = graph::json_report(r);
    if (ex.given) {
      Json e = Json::object();
      e["file"] = a.expect;
      e["rule"] = ex.rule;
      e["tolerance"] = ex.tolerance;
      e["max_abs"] = ex.max_abs;
      e["worst_index"] = static_cast<long long>(ex.worst_index);
      e["outside"] = static_cast<long long>(ex.outside);
      e["float32_run_max_abs"] = ex.ref_max_abs;
      e["passed"] = ex.passed;
      j["expect"] = std::move(e);
    }
    // The graph's name as a file name: ONNX allows any text there ("torch/jit export").
    std::string stem = r.name.empty() ? std::string("network") : r.name;
    for (char& c : stem)
      if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.')) c = '_';
    if (stem.front() == '.') stem.front() = '_';
    const std::string base = a.report + "/" + stem;
    write_file_atomic(base + ".json", j.dump() + "\n");
    write_file_atomic(base + ".txt", graph::text_report(r));
    fmt::print("  report       {}.json\n  report       {}.txt\n", base, base);
  }
  return (r.mismatched_nodes > 0 || !ex.passed) ? kExitCheckFailed : kExitOk;
}

int net_command(const NetArgs& a) {
  const Config cfg = resolve_config(a.config);
  if (a.bandwidth_option->count() > 0 && !(a.bandwidth > 0 && a.bandwidth <= 1000))
    throw InputError("--bandwidth", "",
                     fmt::format("= {}: must be a DRAM bandwidth in GB/s in (0, 1000] (default: the configuration's "
                                 "{} GB/s)",
                                 a.bandwidth, cfg.dram.bandwidth_gbps()));
  if (!analytic::tiling_named(a.tiling))
    throw InputError("--tiling", "", fmt::format("= {}: must be {}", a.tiling, analytic::tiling_choices()));
  if (a.model != "analytic" && a.model != "sc" && a.model != "both")
    throw InputError("--model", "", fmt::format("= {}: must be analytic, sc or both", a.model));
  if (a.check && a.model == "analytic")
    throw InputError("--check", "",
                     "compares the SystemC model's (and with both the RTL's) outputs with the golden model: needs "
                     "--model sc or both");
  if (a.network.empty() == a.onnx.empty())
    throw InputError(a.network.empty() ? "--network" : "--onnx", "",
                     "give exactly one of --network (a layer list) and --onnx (an ONNX model)");
  if (!a.input_shapes.empty() && a.onnx.empty()) throw InputError("--input-shape", "", "applies to --onnx models only");
  if (!a.input.empty() && a.onnx.empty())
    throw InputError("--input", "", "runs an ONNX model on real data: needs --onnx M.onnx");
  for (const auto& o : {std::make_pair("--output", &a.output), std::make_pair("--expect", &a.expect)})
    if (!o.second->empty() && a.input.empty())
      throw InputError(o.first, "", "belongs to a real-data run: needs --onnx M.onnx --input X.npy");
  if (a.tolerance_option->count() > 0) {
    if (a.expect.empty()) throw InputError("--tolerance", "", "applies to --expect");
    if (!(a.tolerance >= 0 && std::isfinite(a.tolerance)))
      throw InputError("--tolerance", "", fmt::format("= {}: must be a finite absolute tolerance >= 0", a.tolerance));
  }
  ImportOptions iopt;
  if (!a.constants.empty() && a.onnx.empty()) throw InputError("--constant", "", "applies to --onnx models only");
  for (const std::string& s : a.input_shapes) parse_input_shape(s, iopt);
  for (const std::string& c : a.constants) parse_constant_input(c, iopt);
  if (a.batch != 1 && !a.input.empty())
    throw InputError("--batch", "", "a real-data run takes its images from --input (its first dimension)");
  if (a.batch != 1 && !a.update_doc.empty())
    throw InputError("--batch", "", "docs/networks.md's tables are for one image, as the paper's: not with --update-doc");
  if (!a.input.empty()) return real_data_command(a, cfg, iopt);

  std::vector<std::string> names;
  if (a.network == "all") {
    names = network_names();
    if (names.empty()) throw InputError("--network", "", fmt::format("= all: there is no network in {}", networks_dir()));
  } else if (!a.network.empty()) {
    names.push_back(a.network);
  }
  if (!a.update_doc.empty() && a.network != "all")
    throw InputError("--update-doc", "", "rewrites the tables of every network: needs --network all");

  std::vector<Network> networks;
  if (!a.onnx.empty())
    networks.push_back(load_onnx_network(a.onnx, iopt));  // shape-only: the layer list, seeded operands
  net::RunOptions opt;
  opt.model = a.model;
  opt.tiling = *analytic::tiling_named(a.tiling);  // checked by net_command
  opt.bandwidth_gbps = a.bandwidth;
  opt.window_us = a.window_us;
  opt.check = a.check;
  opt.seed = a.seed;
  const bool tty = isatty(STDERR_FILENO) != 0;
  std::vector<net::NetworkRun> runs;
  int exit_code = kExitOk;
  const std::size_t count = a.onnx.empty() ? names.size() : 1;
  for (std::size_t i = 0; i < count; ++i) {
    const Network network = with_batch(a.onnx.empty() ? load_network(names[i]) : networks[0], a.batch);
    if (tty)
      opt.progress = [&](const char* lowering, int li, int n, const std::string& layer) {
        fmt::print(stderr, "\r\033[K{} {:<8} layer {:>3}/{} {}", network.name, lowering, li + 1, n, layer);
        std::fflush(stderr);
      };
    net::NetworkRun r = net::run_network(network, cfg, opt);
    if (tty) fmt::print(stderr, "\r\033[K");
    fmt::print("{}\n", net::text_report(r));
    if (!a.report.empty())
      for (const std::string& path : net::write_reports(r, a.report)) fmt::print("  report       {}\n", path);
    if (a.check && (r.feeder.total.mismatched_layers || r.expl.total.mismatched_layers || r.pool_total.mismatched_layers))
      exit_code = kExitCheckFailed;
    runs.push_back(std::move(r));
  }
  if (!a.update_doc.empty()) {
    update_doc_section(a.update_doc, net::markdown_tables(runs));
    fmt::print("  updated      {}\n", a.update_doc);
  }
  return exit_code;
}

}  // namespace

Subcommand add_net(CLI::App& app) {
  auto a = std::make_shared<NetArgs>();
  CLI::App* net = app.add_subcommand(
      "net", "run a whole network with the data feeder and with explicit im2col, and compare with the paper; or an "
             "ONNX model, on real data with --input");
  net->add_option("--network", a->network,
                  "network: a name in configs/networks (resnet50, vgg16, yolov3, arnp), a file, or all");
  net->add_option("--onnx", a->onnx,
                  "an ONNX model instead of --network: without --input its layer list runs like --network's (shapes "
                  "only, seeded operands); with --input on real data");
  net->add_option("--input-shape", a->input_shapes,
                  "with --onnx: fix a graph input's shape, NAME=1x3x224x224 or (one input) 1x3x224x224; repeatable");
  net->add_option("--constant", a->constants,
                  "with --onnx: give a graph input a fixed value, NAME=FILE (.npy or TensorProto .pb), as "
                  "flycol import does (ONNX's node tests pass weights as inputs); repeatable");
  net->add_option("--input", a->input,
                  "with --onnx: the input tensor (.npy, the graph input's shape, NCHW): run the model on real data, "
                  "its weights rounded once to the arithmetic, host nodes in float32");
  net->add_option("--output", a->output, "with --input: write the final output here (.npy, float32)");
  net->add_option("--expect", a->expect,
                  "with --input: the expected final output (.npy); compared within a stated tolerance (exit 1 if not)");
  a->tolerance_option = net->add_option(
      "--tolerance", a->tolerance,
      "with --expect: absolute tolerance of |output - expect| (default: 2 x the measured FP16 drift + 2^-16 max|expect|)");
  add_config_option(net, a->config);
  net->add_option("--model", a->model, "analytic (fast), sc (cycle-accurate SystemC, also times the analytic "
                                       "model against it) or both (sc, and the Verilated RTL in lockstep with it)")
      ->capture_default_str();
  a->bandwidth_option =
      net->add_option("--bandwidth", a->bandwidth, "DRAM bandwidth in GB/s, (0, 1000] (default: the configuration's)");
  net->add_option("--report", a->report,
                  "directory for <network>.txt/.csv/.json and the SVG plots (with --input: <network>.json and .txt)");
  net->add_option("--tiling", a->tiling, "search (tiling and loop-order search per layer) or heuristic (the compiler's fixed plan)")
      ->capture_default_str();
  net->add_option("--window-us", a->window_us, "window of the peak bandwidth, microseconds")->capture_default_str();
  net->add_flag("--check", a->check,
                "sc, both: compare every layer's outputs with the golden model, and with both the RTL's lockstep "
                "(exit 1 if any differs)");
  net->add_option("--batch", a->batch,
                  "images per run, 1..64: every array layer's N (the paper's figures, for one image, are not "
                  "compared); with N > 1 the compiler may pack contexts across images")
      ->capture_default_str();
  net->add_option("--seed", a->seed, "seed of the operands of the SystemC runs")->capture_default_str();
  net->add_option("--update-doc", a->update_doc,
                  "with --network all: rewrite the generated tables of this Markdown file (docs/networks.md)");
  return {net, [a] { return net_command(*a); }};
}

}  // namespace flycol::cli
