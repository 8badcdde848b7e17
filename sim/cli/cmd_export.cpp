// flycol export: writes the RTL of a configuration as a package for ASIC and FPGA flows
// (sim/export; docs/export.md).
#include <cstdint>
#include <memory>

#include <fmt/format.h>

#include "sim/cli/commands.h"
#include "sim/export/export.h"

namespace flycol::cli {
namespace {

struct ExportArgs {
  std::string config;
  std::string out;
  bool force = false;
  bool flatten = false;
  std::string yosys = "yosys";
};

int export_command(const ExportArgs& a) {
  rtlexport::ExportOptions opt;
  opt.config = resolve_config(a.config);
  opt.out_dir = a.out;
  opt.force = a.force;
  opt.flatten = a.flatten;
  opt.yosys = a.yosys;
  opt.version = FLYCOL_VERSION;
  const rtlexport::ExportResult r = rtlexport::export_package(opt);
  std::uint64_t bytes = 0;
  for (const auto& f : r.files) bytes += f.bytes;
  fmt::print("flycol export: configuration '{}' -> {}\n", opt.config.name, r.dir);
  fmt::print("  files        {} ({} kB) and manifest.json\n", r.files.size(), (bytes + 1023) / 1024);
  fmt::print("  netlist      netlist/flycol_top.v, {} modules{}, {} in {:.1f} s\n", r.netlist_modules.size(),
             a.flatten ? " (flattened)" : "", r.yosys_version, r.yosys_seconds);
  fmt::print("  see          {}/README.md\n", r.dir);
  return kExitOk;
}

}  // namespace

Subcommand add_export(CLI::App& app) {
  auto a = std::make_shared<ExportArgs>();
  CLI::App* sub = app.add_subcommand(
      "export", "write the RTL of a configuration as a package for ASIC/FPGA flows (sources, filelist, FuseSoC core, "
                "Verilog-2005 netlist, SDC template, README, manifest)");
  add_config_option(sub, a->config);
  sub->add_option("--out", a->out, "directory to write the package to (created; must not exist or be empty)")
      ->required();
  sub->add_flag("--force", a->force, "replace the directory if it holds an earlier export");
  sub->add_flag("--flatten", a->flatten,
                "write the Verilog-2005 netlist flattened into the one module flycol_top (default: hierarchy kept)");
  sub->add_option("--yosys", a->yosys, "Yosys executable (name on PATH or path)")->capture_default_str();
  return {sub, [a] { return export_command(*a); }};
}

}  // namespace flycol::cli
