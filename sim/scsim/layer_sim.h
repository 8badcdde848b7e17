// One compiled layer through the SystemC model: builds the DRAM image of the operands, runs the
// command stream against the shared DRAM model, and reads the outputs and per-tensor traffic
// back. Used by `flycol run --model sc` and by the whole-accelerator regression.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/compiler/compiler.h"
#include "sim/dram/dram_model.h"
#include "sim/scsim/sc_simulation.h"
#include "sim/workload/workload.h"

namespace flycol {

struct DramBytes {
  std::uint64_t ifmap = 0, weights = 0, psums_in = 0, ofmap = 0, total = 0;
};

struct LayerSimResult {
  SimResult sim;
  std::vector<AccBits> outputs;  // [N][K][Ho][Wo]
  DramBytes dram;
  DramStats dram_stats;
};

LayerSimResult simulate_layer(ScSimulation& sim, const Program& prog, const ConvOperands& ops,
                              const DramTiming& timing, std::uint64_t watchdog_cycles = 2'000'000);

}  // namespace flycol
