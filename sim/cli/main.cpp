// The flycol command line: parses options with CLI11 and hands each subcommand to the library
// that does the work. Exit codes: 0 success, 1 a check failed, 2 bad input or an unbuilt feature.
#include <cstdio>
#include <filesystem>
#include <iostream>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "sim/common/input_error.h"
#include "sim/config/config.h"
#include "sim/config/layer.h"
#include "sim/report/json.h"
#include "sim/runner/models.h"
#include "sim/runner/run_layer.h"

namespace {

constexpr int kExitCheckFailed = 1;
constexpr int kExitBadInput = 2;

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
};

flycol::Config resolve_config(const std::string& arg) {
  return arg.empty() ? flycol::default_config() : flycol::load_config_by_name_or_path(arg);
}

int cmd_run(const RunArgs& a) {
  flycol::RunRequest req;
  req.model = a.model;
  req.config = resolve_config(a.config);
  req.layer = a.layer.empty() ? flycol::default_layer() : flycol::parse_layer_argument(a.layer);
  req.seed = a.seed;
  req.zero_fraction = a.zeros;
  req.trace_path = a.trace;
  req.dram_seed = a.dram_seed;
  req.order = a.order;
  const flycol::RunOutcome out = flycol::run_layer(req);
  std::fputs(out.text.c_str(), stdout);
  if (!a.report.empty()) {
    flycol::write_file_atomic(a.report, out.report.dump());
    fmt::print("  report       {}\n", a.report);
  }
  return (a.check && !out.passed) ? kExitCheckFailed : 0;
}

int cmd_list() {
  fmt::print("configurations ({}):\n", flycol::configs_dir());
  const flycol::Config& def = flycol::default_config();
  auto describe = [](const flycol::Config& c) {
    return fmt::format("{}x{} {}, SRAM 3 x {} x {} kB, M={}, {} MHz, DRAM {:.1f} GB/s",
                       c.array.rows, c.array.cols, flycol::arithmetic_info(c.arithmetic).name,
                       c.ifmap.buffers, c.ifmap.kbytes, c.feeder.intermediate_regs, c.clock_mhz,
                       c.dram.bandwidth_gbps());
  };
  fmt::print("  {:<12} {}  [built-in default]\n", def.name, describe(def));
  for (const auto& path : flycol::list_config_files()) {
    try {
      const flycol::Config c = flycol::load_config(path);
      fmt::print("  {:<12} {}  [{}]\n", std::filesystem::path(path).stem().string(), describe(c), path);
    } catch (const flycol::InputError& e) {
      fmt::print("  {:<12} INVALID: {}\n", std::filesystem::path(path).stem().string(), e.what());
    }
  }
  fmt::print("networks:\n  none installed\n");
  fmt::print("models:\n");
  for (const auto& m : flycol::models())
    fmt::print("  {:<10} {:<10} {}\n", m.name, m.available ? "built" : "not built", m.description);
  fmt::print("arithmetic:\n");
  for (const auto& n : flycol::arithmetic_names()) fmt::print("  {}\n", n);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"flycol: reference model of a GeMM convolution accelerator with on-the-fly im2col", "flycol"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string(FLYCOL_VERSION));

  RunArgs run_args;
  std::string model_names;
  for (const auto& m : flycol::models()) model_names += (model_names.empty() ? "" : "|") + m.name;
  CLI::App* run = app.add_subcommand("run", "simulate one convolution layer and check it against the golden model");
  run->add_option("--model", run_args.model, "model to run: " + model_names)->capture_default_str();
  run->add_option("--layer", run_args.layer,
                  "layer: compact spec such as C=64,H=56,W=56,K=64,k=3,s=1,d=2,p=2, or a YAML file "
                  "(default C=64,H=56,W=56,K=64,k=3,s=1,p=1)");
  run->add_option("--config", run_args.config, "configuration file or name in configs/ (default: built-in fornt16)");
  run->add_option("--seed", run_args.seed, "seed of the random operands")->capture_default_str();
  run->add_option("--zeros", run_args.zeros, "share of zero weights and activations, 0..1")
      ->check(CLI::Range(0.0, 1.0))->capture_default_str();
  run->add_option("--report", run_args.report, "write a JSON report to this file");
  run->add_flag("--check", run_args.check, "exit non-zero when a check fails");
  run->add_option("--trace", run_args.trace, "write a VCD waveform of the top-level signals (sc)");
  run->add_option("--dram-seed", run_args.dram_seed,
                  "randomize DRAM latency and back-pressure with this seed (0: the configuration's fixed timing)");
  run->add_option("--order", run_args.order, "loop order of the layer compiler: output_stationary or spill");

  CLI::App* list = app.add_subcommand("list", "list known configurations, networks and models");

  // Subcommands whose implementation is not part of this version: they exist so that scripts
  // and --help see the whole interface, and they say so plainly.
  struct Planned { const char* name; const char* help; };
  const Planned planned[] = {
      {"net", "run a whole network (not built yet)"},
      {"sweep", "run a configuration sweep as a regression (not built yet)"},
      {"export", "export the RTL of a configuration (not built yet)"},
      {"synth", "synthesize the RTL and report area/timing proxies (not built yet)"},
  };
  for (const auto& p : planned) app.add_subcommand(p.name, p.help)->allow_extras()->prefix_command();

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : kExitBadInput;
  }

  try {
    if (run->parsed()) return cmd_run(run_args);
    if (list->parsed()) return cmd_list();
    for (const auto& p : planned)
      if (app.get_subcommand(p.name)->parsed()) {
        fmt::print(stderr, "flycol {}: not built yet in flycol {}\n", p.name, FLYCOL_VERSION);
        return kExitBadInput;
      }
  } catch (const flycol::InputError& e) {
    fmt::print(stderr, "flycol: error: {}\n", e.what());
    return kExitBadInput;
  } catch (const std::exception& e) {
    fmt::print(stderr, "flycol: error: {}\n", e.what());
    return kExitBadInput;
  }
  return 0;
}

// libsystemc.so refers to sc_main from its own main(); flycol has its own main and runs the
// SystemC kernel as a library (sim/scsim), so this entry point is never called.
extern "C" int sc_main(int, char*[]) { return 2; }
