// Lockstep co-simulation of the SystemC model and the Verilated RTL: both run the same command
// stream, each against its own instance of the shared DRAM model (same timing, same seed), and
// every output pin of flycol_top is compared every cycle (first_difference() in cosim.cpp says
// which and when). Either side can also run alone (`--model rtl`).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "hw/top/accelerator_core.h"
#include "sim/compiler/compiler.h"
#include "sim/dram/dram_model.h"
#include "sim/rtlsim/rtl_top.h"
#include "sim/scsim/layer_sim.h"
#include "sim/workload/workload.h"

namespace flycol {

struct CosimOptions {
  bool run_sc = true;
  bool run_rtl = true;
  std::string wave_path;        // VCD of the RTL run: always written when set; on a mismatch with
                                // wave_on_mismatch, the run is repeated with tracing to write it
  bool wave_on_mismatch = true;
  bool randomize_x = false;     // random initial values of the RTL's unreset state
  std::uint32_t x_seed = 1;
  std::uint64_t watchdog_cycles = 2'000'000;  // no command completes for this long: failure
  // The RTL model to use instead of the one make_rtl_top() picks (benchmarks of other builds).
  std::unique_ptr<RtlTop> (*rtl_factory)(const RtlTopOptions&) = nullptr;
  // Power proxy: the RTL's VCD, one sample per cycle, streamed here (RtlTopOptions::vcd_sink).
  std::function<void(const char*, std::size_t)> rtl_vcd_sink;
};

struct Divergence {
  bool found = false;
  std::uint64_t cycle = 0;
  std::string signal, sc_value, rtl_value;
};

struct SideResult {
  bool finished = false;
  std::uint64_t cycles = 0;
  std::vector<AccBits> outputs;
  DramBytes dram;
  double wall_seconds = 0;
  std::string error;
};

struct CosimResult {
  SideResult sc, rtl;
  hw::AcceleratorStats sc_stats;
  std::uint64_t rtl_gated = 0;  // gated PE MACs counted by the RTL
  std::uint64_t rtl_mac_cycles = 0;  // cycles the RTL's issue stage classed as MAC steps
  Divergence first;             // first cycle where the two sides' ports differ
  bool cycles_equal = false;
  bool outputs_equal = false;
  std::string wave_written;     // path of the VCD, if one was written
};

CosimResult cosim_layer(const Program& prog, const ConvOperands& ops, const DramTiming& timing,
                        const CosimOptions& opt);
// The same for any program whose DRAM image is given (a pooling program: pool_compiler.h); the
// outputs are read back with extract_outputs().
CosimResult cosim_program(const Program& prog, const std::vector<std::uint8_t>& image, const DramTiming& timing,
                          const CosimOptions& opt);

}  // namespace flycol
