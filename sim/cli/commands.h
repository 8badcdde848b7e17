// The subcommands of the flycol command line. Each file cmd_<name>.cpp adds its subcommand with
// its options to the CLI11 app and returns the action main() runs when it was chosen, so the
// command line stays a thin layer over the libraries and each subcommand has one owner.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "sim/config/config.h"

namespace flycol::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitCheckFailed = 1;
inline constexpr int kExitBadInput = 2;

struct Subcommand {
  CLI::App* app;
  std::function<int()> action;
};

Subcommand add_run(CLI::App& app);
Subcommand add_list(CLI::App& app);
Subcommand add_net(CLI::App& app);
Subcommand add_sweep(CLI::App& app);
Subcommand add_export(CLI::App& app);
Subcommand add_synth(CLI::App& app);
Subcommand add_import(CLI::App& app);  // ONNX import (cmd_import.cpp)
Subcommand add_tensor(CLI::App& app);  // tensor files (cmd_tensor.cpp)
Subcommand add_onnx_export(CLI::App& app);  // cmd_onnx_export.cpp (issue 15)

// --config: a file, or the name of a file in configs/; empty means the built-in default.
Config resolve_config(const std::string& arg);

// The --config option of every subcommand that takes one (read with resolve_config).
inline CLI::Option* add_config_option(CLI::App* cmd, std::string& config) {
  return cmd->add_option("--config", config, "configuration file or name in configs/ (default: built-in fornt16)");
}

}  // namespace flycol::cli
