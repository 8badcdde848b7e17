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

// Names the tensors' DRAM regions of `prog` in `dram` for the per-tensor traffic (section 13:
// counted from the requests the DMA issues). The ifmap's region reaches up to the weights' base:
// a gathered LOAD_IFMAP requests whole beats (section 7.3), and the beat holding the ifmap's last
// elements may extend into the alignment gap behind them; those bytes are ifmap traffic too (no
// other tensor's load touches the gap). Dense loads read only real elements, so only gathers differ.
void add_tensor_regions(DramModel& dram, const Program& prog);
// The per-tensor bytes of a DRAM model set up by add_tensor_regions.
DramBytes tensor_bytes(const DramModel& dram);

LayerSimResult simulate_layer(ScSimulation& sim, const Program& prog, const ConvOperands& ops,
                              const DramTiming& timing, std::uint64_t watchdog_cycles = 2'000'000);

}  // namespace flycol
