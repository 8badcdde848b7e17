// The flycol command line: wires the subcommands (cmd_*.cpp) to CLI11 and turns their errors into
// exit codes: 0 success, 1 a check failed, 2 bad input.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "sim/cli/commands.h"

namespace flycol::cli {

Config resolve_config(const std::string& arg) {
  return arg.empty() ? default_config() : load_config_by_name_or_path(arg);
}

}  // namespace flycol::cli

int main(int argc, char** argv) {
  using namespace flycol::cli;
  CLI::App app{"flycol: reference model of a GeMM convolution accelerator with on-the-fly im2col", "flycol"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string(FLYCOL_VERSION));
  const Subcommand subs[] = {add_run(app), add_net(app), add_sweep(app), add_export(app), add_synth(app), add_list(app),
                             add_import(app), add_tensor(app), add_onnx_export(app)};

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? kExitOk : kExitBadInput;
  }
  try {
    for (const auto& s : subs)
      if (s.app->parsed()) return s.action();
  } catch (const std::exception& e) {  // InputError and the rest: the message says what went wrong
    fmt::print(stderr, "flycol: error: {}\n", e.what());
    return kExitBadInput;
  }
  return kExitOk;
}
