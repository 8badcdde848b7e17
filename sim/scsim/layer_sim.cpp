// simulate_layer: DRAM image in, outputs and traffic out.
#include "sim/scsim/layer_sim.h"

namespace flycol {

void add_tensor_regions(DramModel& dram, const Program& prog) {
  dram.add_region("ifmap", prog.dram.ifmap_base, prog.dram.weights_base - prog.dram.ifmap_base);
  // A pooling program has no weights (and an empty region is not a region).
  if (prog.dram.weights_bytes) dram.add_region("weights", prog.dram.weights_base, prog.dram.weights_bytes);
  dram.add_region("ofmap", prog.dram.ofmap_base, prog.dram.ofmap_bytes);
}

DramBytes tensor_bytes(const DramModel& dram) {
  DramBytes b;
  b.ifmap = dram.region("ifmap").bytes_read;
  b.weights = dram.has_region("weights") ? dram.region("weights").bytes_read : 0;
  b.psums_in = dram.region("ofmap").bytes_read;
  b.ofmap = dram.region("ofmap").bytes_written;
  b.total = dram.stats().bytes_read + dram.stats().bytes_written;
  return b;
}

LayerSimResult simulate_layer(ScSimulation& sim, const Program& prog, const ConvOperands& ops,
                              const DramTiming& timing, std::uint64_t watchdog_cycles) {
  const std::vector<std::uint8_t> image = build_dram_image(prog, ops);
  DramModel dram(timing, image.size());
  dram.write_bytes(0, image.data(), image.size());
  add_tensor_regions(dram, prog);

  LayerSimResult r;
  r.sim = sim.run(prog.commands, dram, watchdog_cycles);
  r.outputs = extract_outputs(prog, dram.bytes());
  r.dram = tensor_bytes(dram);
  r.dram_stats = dram.stats();
  return r;
}

}  // namespace flycol
