// flycol export: export the RTL of a configuration. Not built in this version yet.
#include "sim/cli/commands.h"

namespace flycol::cli {

Subcommand add_export(CLI::App& app) { return not_built(app, "export", "export the RTL of a configuration (not built yet)"); }

}  // namespace flycol::cli
