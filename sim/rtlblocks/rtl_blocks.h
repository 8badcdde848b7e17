// Verilated RTL blocks inside the structural SystemC top (hw/top/structural_top.h): the views
// that put a block's RTL, through its adapter (rtl_adapters.h), in place of its SystemC module.
// Used by tb/top/structural_tb.cpp (and meant for `flycol run --structural --rtl-blocks`) to find
// which block of a whole-layer run disagrees with the fast model. Without FLYCOL_BUILD_RTL the
// library holds no RTL and make_rtl_block_views() says so.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "hw/top/structural_top.h"
#include "sim/config/config.h"
#include "sim/scsim/sc_simulation.h"

namespace flycol {

// The blocks with RTL adapters, in flycol_top.sv's order (every block of the structural top).
const std::vector<std::string>& rtl_block_names();

// "feeder,array" -> {"feeder", "array"}; "all" -> every block; "" or "none" -> none. Throws
// InputError naming the known blocks for an unknown name.
std::vector<std::string> parse_rtl_blocks(const std::string& list);

// The views for `blocks` in the configuration's Verilated block models. Throws InputError when
// this build has no block RTL for the configuration (the list of those it has is in the message).
// The result must outlive the ScSimulation that elaborates the structural top with it.
std::unique_ptr<hw::StructuralBlockViews> make_rtl_block_views(const Config& cfg,
                                                               const std::vector<std::string>& blocks);

// Configurations whose block RTL this build holds (FLYCOL_RTL_BLOCK_CONFIGS).
std::vector<std::string> built_rtl_block_configs();

// The structural top of `cfg` with the blocks of `rtl_blocks` (parse_rtl_blocks' syntax; empty:
// none) in RTL, ready for simulate_layer(). `sim` is declared last so that it goes first.
struct StructuralSimulation {
  std::unique_ptr<hw::StructuralBlockViews> views;  // nullptr without RTL blocks
  std::unique_ptr<ScSimulation> sim;
};
StructuralSimulation make_structural_simulation(const Config& cfg, const std::string& rtl_blocks);

}  // namespace flycol
