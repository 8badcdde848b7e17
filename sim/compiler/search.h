// Tiling and loop-order search (sim/compiler/README.md, "The search"): enumerates the legal
// tilings of a layer in every loop order, scores each with the exact DRAM traffic of its command
// stream (in closed form, without emitting it) and a rough time estimate, and returns the best
// candidates for a timing model to decide between. Replaces choose_plan's heuristic when asked.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/compiler/compiler.h"

namespace flycol {

struct SearchOptions {
  double dram_bytes_per_cycle = 0;   // 0: the configuration's DRAM
  std::vector<std::string> orders;   // empty: every loop order
  int keep = 8;                      // candidates returned
};

struct PlanCandidate {
  CompileOptions options;  // every tile size and the order forced: compile_layer reproduces the plan
  TilePlan plan;
  DramTraffic traffic;     // exactly program_traffic() of the compiled program
  double est_cycles = 0;   // the search's own rough estimate (see README)
};

// The DRAM bytes the command stream of `plan` moves, per tensor, computed from the loop order's
// buffer residency rules without emitting the commands.
DramTraffic plan_traffic(const Layer& l, const hw::HwParams& hw, const TilePlan& plan);

// The best `keep` legal candidates, best estimate first (ties: fewer DRAM bytes). Throws
// InputError like compile_layer for a layer the configuration cannot run at all.
std::vector<PlanCandidate> search_plans(const Layer& l, const Config& cfg, const SearchOptions& opt = {});

}  // namespace flycol
