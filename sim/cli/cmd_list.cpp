// flycol list: the configurations, networks, models and arithmetic choices flycol knows.
#include <filesystem>

#include <fmt/format.h>

#include "sim/cli/commands.h"
#include "sim/common/input_error.h"
#include "sim/runner/models.h"

namespace flycol::cli {
namespace {

int list_command() {
  fmt::print("configurations ({}):\n", configs_dir());
  const Config& def = default_config();
  auto describe = [](const Config& c) {
    return fmt::format("{}x{} {}, SRAM 3 x {} x {} kB, M={}, {} MHz, DRAM {:.1f} GB/s",
                       c.array.rows, c.array.cols, arithmetic_info(c.arithmetic).name,
                       c.ifmap.buffers, c.ifmap.kbytes, c.feeder.intermediate_regs, c.clock_mhz,
                       c.dram.bandwidth_gbps());
  };
  fmt::print("  {:<12} {}  [built-in default]\n", def.name, describe(def));
  for (const auto& path : list_config_files()) {
    try {
      const Config c = load_config(path);
      fmt::print("  {:<12} {}  [{}]\n", std::filesystem::path(path).stem().string(), describe(c), path);
    } catch (const InputError& e) {
      fmt::print("  {:<12} INVALID: {}\n", std::filesystem::path(path).stem().string(), e.what());
    }
  }
  fmt::print("networks:\n  none installed\n");
  fmt::print("models:\n");
  for (const auto& m : models()) fmt::print("  {:<10} {}\n", m.name, m.description);
  fmt::print("arithmetic:\n");
  for (const auto& n : arithmetic_names()) fmt::print("  {}\n", n);
  return 0;
}

}  // namespace

Subcommand add_list(CLI::App& app) {
  CLI::App* list = app.add_subcommand("list", "list known configurations, networks and models");
  return {list, [] { return list_command(); }};
}

}  // namespace flycol::cli
