// flycol synth: synthesize the RTL and report area/timing proxies. Not built in this version yet.
#include "sim/cli/commands.h"

namespace flycol::cli {

Subcommand add_synth(CLI::App& app) { return not_built(app, "synth", "synthesize the RTL and report area/timing proxies (not built yet)"); }

}  // namespace flycol::cli
