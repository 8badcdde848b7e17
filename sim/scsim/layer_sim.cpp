// simulate_layer: DRAM image in, outputs and traffic out.
#include "sim/scsim/layer_sim.h"

namespace flycol {

LayerSimResult simulate_layer(ScSimulation& sim, const Program& prog, const ConvOperands& ops,
                              const DramTiming& timing, std::uint64_t watchdog_cycles) {
  const std::vector<std::uint8_t> image = build_dram_image(prog, ops);
  DramModel dram(timing, image.size());
  dram.write_bytes(0, image.data(), image.size());
  dram.add_region("ifmap", prog.dram.ifmap_base, prog.dram.ifmap_bytes);
  dram.add_region("weights", prog.dram.weights_base, prog.dram.weights_bytes);
  dram.add_region("ofmap", prog.dram.ofmap_base, prog.dram.ofmap_bytes);

  LayerSimResult r;
  r.sim = sim.run(prog.commands, dram, watchdog_cycles);
  r.outputs = extract_outputs(prog, dram.bytes());
  r.dram.ifmap = dram.region("ifmap").bytes_read;
  r.dram.weights = dram.region("weights").bytes_read;
  r.dram.psums_in = dram.region("ofmap").bytes_read;
  r.dram.ofmap = dram.region("ofmap").bytes_written;
  r.dram_stats = dram.stats();
  r.dram.total = r.dram_stats.bytes_read + r.dram_stats.bytes_written;
  return r;
}

}  // namespace flycol
