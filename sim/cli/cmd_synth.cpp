// flycol synth: synthesizes the RTL of a configuration with Yosys onto flycol's generic cell
// library and prints (and optionally writes as JSON) area, flip-flops and logic depth per block of
// the paper's breakdown (sim/synth). The result also goes to the synthesis cache that
// `flycol run --model rtl --power` reads.
#include <cstdio>
#include <memory>

#include <fmt/format.h>

#include "sim/cli/commands.h"
#include "sim/common/files.h"
#include "sim/config/layer.h"
#include "sim/report/json.h"
#include "sim/paper/paper_table.h"
#include "sim/report/doc_section.h"
#include "sim/synth/synth.h"

namespace flycol::cli {
namespace {

struct SynthArgs {
  std::string config;
  std::string report;
  std::string work_dir;
  std::string cache_dir;
  bool no_cache = false;
  bool no_variants = false;
  double sram_per_bit = synth::kSramNand2PerBit;
  int timeout = 3600;
  std::string update_doc;
  std::string power_layer = "C=32,H=16,W=32,K=32,k=3,p=1";
  std::uint64_t seed = 1;
};

int synth_command(const SynthArgs& a) {
  const Config cfg = resolve_config(a.config);
  synth::SynthOptions opt;
  opt.work_dir = a.work_dir;
  opt.variants = !a.no_variants;
  opt.sram_nand2_per_bit = a.sram_per_bit;
  opt.timeout_s = a.timeout;
  fmt::print("flycol synth: synthesizing configuration {} with Yosys (the reference chip takes a few minutes)\n",
             cfg.name);
  std::fflush(stdout);
  const synth::SynthReport r = synth::synthesize(cfg, opt);
  std::fputs(r.text().c_str(), stdout);
  if (!a.report.empty()) {
    write_file_atomic(a.report, r.to_json().dump());
    fmt::print("  report        {}\n", a.report);
  }
  if (!a.no_cache && opt.variants) {
    const std::string dir = a.cache_dir.empty() ? synth::default_cache_dir() : a.cache_dir;
    write_file_atomic(dir + "/" + cfg.name + "-" + r.cache_key + ".json", r.to_json(true).dump());
  }
  if (!a.update_doc.empty()) {
    // The side-by-side with the paper: the same layer on the RTL at 0, 10 and 50 % zeros.
    // And the same with operand isolation the other way: its own synthesis and its RTL, Verilated on
    // first use when the build does not have it (sim/rtlsim/rtl_on_demand.h). The twin gets the
    // same PE variants: the proxy weighs each part's activity with that part's capacitance, so both
    // sides must split the PE into the same parts for their totals to compare.
    synth::PaperInputs in{r, cfg, parse_layer_argument(a.power_layer), a.seed, {}, {}, {}};
    const Config twin = synth::isolation_twin(cfg);
    fmt::print("  synthesizing {} (pe.operand_isolation: {})\n", twin.name, twin.operand_isolation);
    std::fflush(stdout);
    synth::SynthOptions twin_opt = opt;
    twin_opt.work_dir.clear();
    in.other_synth = synth::synthesize(twin, twin_opt);
    for (double z : {0.0, 0.1, 0.5}) {
      fmt::print("  power run    {} with {:.0f} % zeros on the RTL...\n", in.layer.spec(), 100 * z);
      std::fflush(stdout);
      in.runs.push_back(synth::run_zero_point(cfg, in.layer, a.seed, z, r));
      fmt::print("  power run    {} with {:.0f} % zeros on the RTL of {}...\n", in.layer.spec(), 100 * z, twin.name);
      std::fflush(stdout);
      in.other_runs.push_back(synth::run_zero_point(twin, in.layer, a.seed, z, in.other_synth));
    }
    update_doc_section(a.update_doc, synth::paper_markdown(in));
    fmt::print("  updated      {}\n", a.update_doc);
  }
  return kExitOk;
}

}  // namespace

Subcommand add_synth(CLI::App& app) {
  auto a = std::make_shared<SynthArgs>();
  CLI::App* s = app.add_subcommand(
      "synth", "synthesize the RTL with Yosys and report area, flip-flops and logic depth per block");
  add_config_option(s, a->config);
  s->add_option("--report", a->report, "write a JSON report to this file");
  s->add_option("--work-dir", a->work_dir, "keep Yosys's scripts, logs and netlists in this directory");
  s->add_option("--cache-dir", a->cache_dir,
                "synthesis cache for `run --power` (default $FLYCOL_SYNTH_CACHE or <build>/synth-cache)");
  s->add_flag("--no-cache", a->no_cache, "do not store the result in the synthesis cache");
  s->add_flag("--no-variants", a->no_variants,
              "skip the PE variants that measure the reserve registers and zero gating, and the planned blocks "
              "(the pooling unit's lanes) (faster)");
  s->add_option("--sram-nand2-per-bit", a->sram_per_bit,
                "area of one SRAM bit in NAND2 equivalents for the macro estimate")
      ->check(CLI::Range(0.0, 100.0))
      ->capture_default_str();
  s->add_option("--update-doc", a->update_doc,
                "also run --power-layer on the RTL at 0, 10 and 50 % zeros, with operand isolation as configured "
                "and the other way, and rewrite the generated table of this Markdown file (docs/synth.md)");
  s->add_option("--power-layer", a->power_layer, "layer of the --update-doc power runs")->capture_default_str();
  s->add_option("--seed", a->seed, "seed of the --update-doc power runs' operands")->capture_default_str();
  s->add_option("--timeout", a->timeout, "time limit of each Yosys run, seconds")
      ->check(CLI::Range(1, 86400))
      ->capture_default_str();
  return {s, [a] { return synth_command(*a); }};
}

}  // namespace flycol::cli
