// flycol run: one layer through a model (golden, sc, ...), printed and optionally reported as JSON.
#include <cstdio>
#include <memory>

#include <fmt/format.h>

#include "sim/cli/commands.h"
#include "sim/common/files.h"
#include "sim/common/input_error.h"
#include "sim/common/text.h"
#include "sim/config/layer.h"
#include "sim/report/json.h"
#include "sim/rtlblocks/rtl_blocks.h"
#include "sim/runner/models.h"
#include "sim/runner/run_layer.h"

namespace flycol::cli {
namespace {

struct RunArgs {
  std::string model = "sc";
  std::string layer;
  std::string config;
  std::uint64_t seed = 1;
  double zeros = 0.0;
  std::string report;
  bool check = false;
  std::string trace;
  std::uint64_t dram_seed = 0;
  std::string order;
  std::string tiling = "heuristic";
  bool power = false;
  bool structural = false;
  std::string rtl_blocks;
};

int run_layer_command(const RunArgs& a) {
  RunRequest req;
  req.model = a.model;
  req.config = resolve_config(a.config);
  req.layer = a.layer.empty() ? default_layer() : parse_layer_argument(a.layer);
  req.seed = a.seed;
  req.zero_fraction = a.zeros;
  req.trace_path = a.trace;
  req.dram_seed = a.dram_seed;
  req.order = a.order;
  req.tiling = a.tiling;
  req.power = a.power;
  req.structural = a.structural;
  req.rtl_blocks = a.rtl_blocks;
  if ((a.structural || !a.rtl_blocks.empty()) && a.model != "sc")
    throw InputError(a.structural ? "--structural" : "--rtl-blocks", "",
                     fmt::format("needs --model sc (the structural SystemC top), not {}", a.model));
  if (a.power && a.model != "rtl" && a.model != "both")
    throw InputError("--power", "", fmt::format("needs --model rtl or both (the proxy counts the RTL's toggles), not {}",
                                                a.model));
  const RunOutcome out = run_layer(req);
  std::fputs(out.text.c_str(), stdout);
  if (!a.report.empty()) {
    write_file_atomic(a.report, out.report.dump());
    fmt::print("  report       {}\n", a.report);
  }
  return (a.check && !out.passed) ? kExitCheckFailed : 0;
}

}  // namespace

Subcommand add_run(CLI::App& app) {
  auto a = std::make_shared<RunArgs>();
  CLI::App* run = app.add_subcommand("run", "simulate one convolution layer and check it against the golden model");
  run->add_option("--model", a->model, "model to run: " + model_names("|"))->capture_default_str();
  run->add_option("--layer", a->layer,
                  "layer: compact spec such as C=64,H=56,W=56,K=64,k=3,s=1,d=2,p=2, or a YAML file "
                  "(default C=64,H=56,W=56,K=64,k=3,s=1,p=1)");
  add_config_option(run, a->config);
  run->add_option("--seed", a->seed, "seed of the random operands")->capture_default_str();
  run->add_option("--zeros", a->zeros, "share of zero weights and activations, 0..1")
      ->check(CLI::Range(0.0, 1.0))->capture_default_str();
  run->add_option("--report", a->report, "write a JSON report to this file");
  run->add_flag("--check", a->check, "exit non-zero when a check fails");
  run->add_option("--trace", a->trace, "write a VCD waveform of the top-level signals (sc)");
  run->add_option("--dram-seed", a->dram_seed,
                  "randomize DRAM latency and back-pressure with this seed (0: the configuration's fixed timing)");
  run->add_option("--order", a->order, "loop order of the layer compiler: output_stationary or spill");
  run->add_option("--tiling", a->tiling,
                  "heuristic (the compiler's plan) or search (the tiling and loop-order search flycol net uses, "
                  "candidates timed by the analytic model)")
      ->check(CLI::IsMember({"heuristic", "search"}))
      ->capture_default_str();
  run->add_flag("--structural", a->structural,
                "with --model sc: run the structural top (the block SystemC modules wired by signals, as the RTL top "
                "wires the RTL) beside the fast model; cycles, outputs and statistics must be equal");
  run->add_option("--rtl-blocks", a->rtl_blocks,
                  "with --model sc: blocks whose Verilated RTL replaces their SystemC module in the structural top "
                  "(implies --structural): a comma list of " + join(rtl_block_names(), ", ") + ", or all");
  run->add_flag("--power", a->power,
                "with --model rtl or both: dynamic power proxy per block from the RTL's toggles and the synthesized "
                "capacitance (synthesizes the configuration once, then cached; see docs/synth.md)");
  return {run, [a] { return run_layer_command(*a); }};
}

}  // namespace flycol::cli
