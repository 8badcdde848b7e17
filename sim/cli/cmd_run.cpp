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
#include "sim/workload/workload.h"

namespace flycol::cli {
namespace {

// The options fill the request directly, except the layer and the configuration, which are
// resolved from their text when the command runs.
struct RunArgs {
  RunRequest req;
  std::string layer;
  std::string config;
  std::string report;
  std::string operands = "uniform";
  bool check = false;
  RunArgs() { req.model = "sc"; }
};

int run_layer_command(const RunArgs& a) {
  RunRequest req = a.req;
  req.operands = parse_operand_class(a.operands, "--operands");
  req.config = resolve_config(a.config);
  req.layer = a.layer.empty() ? default_layer() : parse_layer_argument(a.layer);
  if ((req.structural || !req.rtl_blocks.empty()) && req.model != "sc")
    throw InputError(req.structural ? "--structural" : "--rtl-blocks", "",
                     fmt::format("needs --model sc (the structural SystemC top), not {}", req.model));
  if (req.power && req.model != "rtl" && req.model != "both")
    throw InputError("--power", "", fmt::format("needs --model rtl or both (the proxy counts the RTL's toggles), not {}",
                                                req.model));
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
  run->add_option("--model", a->req.model, "model to run: " + model_names("|"))->capture_default_str();
  run->add_option("--layer", a->layer,
                  "layer: compact spec such as C=64,H=56,W=56,K=64,k=3,s=1,d=2,p=2, or a YAML file "
                  "(default C=64,H=56,W=56,K=64,k=3,s=1,p=1)");
  add_config_option(run, a->config);
  run->add_option("--seed", a->req.seed, "seed of the random operands")->capture_default_str();
  run->add_option("--zeros", a->req.zero_fraction, "share of zero weights and activations, 0..1")
      ->check(CLI::Range(0.0, 1.0))->capture_default_str();
  run->add_option("--operands", a->operands,
                  "operand class: " + join(operand_class_names(), "|") +
                      " (uniform: [-1, 1] and the narrow integer draws; wide: every finite value incl. subnormals "
                      "and -0; specials: wide plus +-Inf and NaN; saturate: sums past the accumulator's range; "
                      "see docs/configuration.md)")
      ->capture_default_str();
  run->add_option("--report", a->report, "write a JSON report to this file");
  run->add_flag("--check", a->check, "exit non-zero when a check fails");
  run->add_option("--trace", a->req.trace_path, "write a VCD waveform of the top-level signals (sc)");
  run->add_option("--dram-seed", a->req.dram_seed,
                  "randomize DRAM latency and back-pressure with this seed (0: the configuration's fixed timing)");
  run->add_option("--order", a->req.order, "loop order of the layer compiler: output_stationary or spill");
  run->add_option("--tiling", a->req.tiling,
                  "heuristic (the compiler's plan) or search (the tiling and loop-order search flycol net uses, "
                  "candidates timed by the analytic model)")
      ->check(CLI::IsMember({"heuristic", "search"}))
      ->capture_default_str();
  run->add_flag("--structural", a->req.structural,
                "with --model sc: run the structural top (the block SystemC modules wired by signals, as the RTL top "
                "wires the RTL) beside the fast model; cycles, outputs and statistics must be equal");
  run->add_option("--rtl-blocks", a->req.rtl_blocks,
                  "with --model sc: blocks whose Verilated RTL replaces their SystemC module in the structural top "
                  "(implies --structural): a comma list of " + join(rtl_block_names(), ", ") + ", or all");
  run->add_flag("--power", a->req.power,
                "with --model rtl or both: dynamic power proxy per block from the RTL's toggles and the synthesized "
                "capacitance (synthesizes the configuration once, then cached; see docs/synth.md)");
  return {run, [a] { return run_layer_command(*a); }};
}

}  // namespace flycol::cli
