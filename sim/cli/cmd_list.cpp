// flycol list: the configurations, networks, sweeps, models and arithmetic choices flycol knows,
// each found where the commands that use it look (configs/, configs/networks/, configs/sweeps/).
#include <algorithm>
#include <filesystem>

#include <fmt/format.h>

#include "sim/cli/commands.h"
#include "sim/common/input_error.h"
#include "sim/network/network.h"
#include "sim/runner/models.h"
#include "sim/sweep/sweep_spec.h"

namespace flycol::cli {
namespace {

std::string stem(const std::string& path) { return std::filesystem::path(path).stem().string(); }

// The *.yaml files directly in `dir`, sorted; none if the directory is missing.
std::vector<std::string> yaml_files(const std::string& dir) {
  namespace fs = std::filesystem;
  std::vector<std::string> out;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    if (it->path().extension() == ".yaml" && it->is_regular_file(ec)) out.push_back(it->path().string());
  std::sort(out.begin(), out.end());
  return out;
}

void list_configurations() {
  fmt::print("configurations ({}):\n", configs_dir());
  const Config& def = default_config();
  auto describe = [](const Config& c) {
    return fmt::format("{}x{} {}, SRAM 3 x {} x {} kB, M={}, {} MHz, DRAM {:.1f} GB/s",
                       c.array.rows, c.array.cols, arithmetic_info(c.arithmetic).name,
                       c.ifmap.buffers, c.ifmap.kbytes, c.feeder.intermediate_regs, c.clock_mhz,
                       c.dram.bandwidth_gbps());
  };
  // The built-in default is compiled from configs/<name>.yaml: that file's line carries the
  // mark, and the built-in gets a line of its own only when the file is not there.
  const std::vector<std::string> files = list_config_files();
  const bool default_has_file =
      std::any_of(files.begin(), files.end(), [&](const std::string& f) { return stem(f) == def.name; });
  if (!default_has_file) fmt::print("  {:<12} {}  [built-in default]\n", def.name, describe(def));
  for (const auto& path : files) {
    try {
      const Config c = load_config(path);
      const bool is_default = stem(path) == def.name;
      fmt::print("  {:<12} {}  [{}{}]\n", stem(path), describe(c), path,
                 is_default ? (c == def ? ", built-in default" : ", differs from the built-in default: rebuild")
                            : "");
    } catch (const InputError& e) {
      fmt::print("  {:<12} INVALID: {}\n", stem(path), e.what());
    }
  }
}

void list_networks() {
  fmt::print("networks ({}):\n", networks_dir());
  const std::vector<std::string> names = network_names();
  if (names.empty()) fmt::print("  none\n");
  for (const auto& name : names) {
    try {
      const Network n = load_network(name);
      fmt::print("  {:<12} {} array layers, {:.2f} GMAC: {}\n", name, n.array_layers(), double(n.macs()) / 1e9,
                 n.title);
    } catch (const InputError& e) {
      fmt::print("  {:<12} INVALID: {}\n", name, e.what());
    }
  }
}

void list_sweeps() {
  const std::string dir = configs_dir() + "/sweeps";
  fmt::print("sweeps ({}):\n", dir);
  const std::vector<std::string> files = yaml_files(dir);
  if (files.empty()) fmt::print("  none\n");
  for (const auto& path : files) {
    try {
      const sweep::SweepSpec s = sweep::load_sweep_file(path);
      fmt::print("  {:<16} {} points on {}, model {}{}\n", stem(path), s.points.size(), s.config, s.model,
                 s.labels.empty() ? std::string() : fmt::format(" (labels: {})", fmt::join(s.labels, ", ")));
    } catch (const InputError& e) {
      fmt::print("  {:<16} INVALID: {}\n", stem(path), e.what());
    }
  }
}

int list_command() {
  list_configurations();
  list_networks();
  list_sweeps();
  fmt::print("models:\n");
  for (const auto& m : models()) fmt::print("  {:<10} {}\n", m.name, m.description);
  fmt::print("arithmetic:\n");
  for (const auto& n : arithmetic_names()) fmt::print("  {}\n", n);
  return 0;
}

}  // namespace

Subcommand add_list(CLI::App& app) {
  CLI::App* list = app.add_subcommand("list", "list known configurations, networks, sweeps and models");
  return {list, [] { return list_command(); }};
}

}  // namespace flycol::cli
