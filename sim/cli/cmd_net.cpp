// flycol net: run a whole network. Not built in this version yet.
#include "sim/cli/commands.h"

namespace flycol::cli {

Subcommand add_net(CLI::App& app) { return not_built(app, "net", "run a whole network (not built yet)"); }

}  // namespace flycol::cli
