// flycol sweep: run a configuration sweep as a regression. Not built in this version yet.
#include "sim/cli/commands.h"

namespace flycol::cli {

Subcommand add_sweep(CLI::App& app) { return not_built(app, "sweep", "run a configuration sweep as a regression (not built yet)"); }

}  // namespace flycol::cli
