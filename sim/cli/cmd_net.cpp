// flycol net: a whole network on the analytic (or SystemC) model, with the data feeder and with the
// explicit-im2col baseline; per-layer and total figures, reports and the docs/networks.md tables.
#include <memory>
#include <string>
#include <vector>

#include <unistd.h>

#include <fmt/format.h>

#include "sim/cli/commands.h"
#include "sim/common/input_error.h"
#include "sim/network/network.h"
#include "sim/network/network_report.h"
#include "sim/network/network_run.h"
#include "sim/report/doc_section.h"

namespace flycol::cli {
namespace {

struct NetArgs {
  CLI::Option* bandwidth_option = nullptr;
  std::string network;
  std::string config;
  std::string model = "analytic";
  double bandwidth = 0;
  std::string report;
  std::string tiling = "search";
  double window_us = 10;
  bool check = false;
  std::uint64_t seed = 1;
  std::string update_doc;
};

int net_command(const NetArgs& a) {
  const Config cfg = resolve_config(a.config);
  if (a.bandwidth_option->count() > 0 && !(a.bandwidth > 0 && a.bandwidth <= 1000))
    throw InputError("--bandwidth", "",
                     fmt::format("= {}: must be a DRAM bandwidth in GB/s in (0, 1000] (default: the configuration's "
                                 "{} GB/s)",
                                 a.bandwidth, cfg.dram.bandwidth_gbps()));
  if (a.tiling != "search" && a.tiling != "heuristic")
    throw InputError("--tiling", "", fmt::format("= {}: must be search or heuristic", a.tiling));
  if (a.model != "analytic" && a.model != "sc" && a.model != "both")
    throw InputError("--model", "", fmt::format("= {}: must be analytic, sc or both", a.model));
  if (a.check && a.model == "analytic")
    throw InputError("--check", "",
                     "compares the SystemC model's (and with both the RTL's) outputs with the golden model: needs "
                     "--model sc or both");
  std::vector<std::string> names;
  if (a.network == "all") {
    names = network_names();
    if (names.empty()) throw InputError("--network", "", fmt::format("= all: there is no network in {}", networks_dir()));
  } else {
    names.push_back(a.network);
  }
  if (!a.update_doc.empty() && a.network != "all")
    throw InputError("--update-doc", "", "rewrites the tables of every network: needs --network all");

  net::RunOptions opt;
  opt.model = a.model;
  opt.tiling = a.tiling == "search" ? analytic::Tiling::search : analytic::Tiling::heuristic;
  opt.bandwidth_gbps = a.bandwidth;
  opt.window_us = a.window_us;
  opt.check = a.check;
  opt.seed = a.seed;
  const bool tty = isatty(STDERR_FILENO) != 0;
  std::vector<net::NetworkRun> runs;
  int exit_code = kExitOk;
  for (const std::string& name : names) {
    const Network network = load_network(name);
    if (tty)
      opt.progress = [&](const char* lowering, int i, int n, const std::string& layer) {
        fmt::print(stderr, "\r\033[K{} {:<8} layer {:>3}/{} {}", network.name, lowering, i + 1, n, layer);
        std::fflush(stderr);
      };
    net::NetworkRun r = net::run_network(network, cfg, opt);
    if (tty) fmt::print(stderr, "\r\033[K");
    fmt::print("{}\n", net::text_report(r));
    if (!a.report.empty())
      for (const std::string& path : net::write_reports(r, a.report)) fmt::print("  report       {}\n", path);
    if (a.check && (r.feeder.total.mismatched_layers || r.expl.total.mismatched_layers)) exit_code = kExitCheckFailed;
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
      "net", "run a whole network with the data feeder and with explicit im2col, and compare with the paper");
  net->add_option("--network", a->network,
                  "network: a name in configs/networks (resnet50, vgg16, yolov3, arnp), a file, or all")
      ->required();
  add_config_option(net, a->config);
  net->add_option("--model", a->model, "analytic (fast), sc (cycle-accurate SystemC, also times the analytic "
                                       "model against it) or both (sc, and the Verilated RTL in lockstep with it)")
      ->capture_default_str();
  a->bandwidth_option =
      net->add_option("--bandwidth", a->bandwidth, "DRAM bandwidth in GB/s, (0, 1000] (default: the configuration's)");
  net->add_option("--report", a->report, "directory for <network>.txt/.csv/.json and the SVG plots");
  net->add_option("--tiling", a->tiling, "search (tiling and loop-order search per layer) or heuristic")
      ->capture_default_str();
  net->add_option("--window-us", a->window_us, "window of the peak bandwidth, microseconds")->capture_default_str();
  net->add_flag("--check", a->check,
                "sc, both: compare every layer's outputs with the golden model, and with both the RTL's lockstep "
                "(exit 1 if any differs)");
  net->add_option("--seed", a->seed, "seed of the operands of the SystemC runs")->capture_default_str();
  net->add_option("--update-doc", a->update_doc,
                  "with --network all: rewrite the generated tables of this Markdown file (docs/networks.md)");
  return {net, [a] { return net_command(*a); }};
}

}  // namespace flycol::cli
