// RunStats: the statistics of one run of a compiled program, whichever model produced them (the
// SystemC model, the Verilated RTL, the analytic model), and the one JSON writer that `flycol run`,
// `flycol net` and `flycol sweep` reports use for them (spec section 13 defines the counters).
#pragma once

#include <cstdint>

#include "sim/compiler/compiler.h"
#include "sim/energy/energy.h"
#include "sim/report/json.h"

namespace flycol {

namespace hw {
struct AcceleratorStats;
}
struct DramBytes;

struct RunStats {
  std::uint64_t cycles = 0;  // spec section 5: the first cycle with every command done and all idle
  // Cycle classes: while a RUN is active every cycle is one of mac/pool/feeder/weight/context/pipeline;
  // outside RUNs it is a DRAM stall (a RUN is still to come) or the tail (every RUN done).
  std::uint64_t run_cycles = 0, dram_stall = 0, tail = 0;
  std::uint64_t mac_cycles = 0, feeder_stall = 0, weight_stall = 0, context_stall = 0, pipeline = 0;
  std::uint64_t pool_cycles = 0;  // pooling RUNs' element steps (microarchitecture 16): a RUN cycle class
  std::uint64_t gated_macs = 0;  // PE-level MACs skipped by zero gating
  std::uint64_t sram_reads[3] = {0, 0, 0}, sram_writes[3] = {0, 0, 0};  // ifmap, weights, psums
  DramTraffic dram;                 // bytes per tensor
  std::uint64_t dram_requests = 0;  // not reported; the network timeline uses it

  // What the model counted. The writer leaves out what was not counted (the RTL has no cycle
  // classes or SRAM counters of its own), and writes gated_macs as null when the model cannot
  // know it (it depends on operand values the analytic model never sees).
  bool has_cycle_classes = true;  // mac_cycles and the stall classes
  bool has_sram = true;
  bool has_gated_macs = true;
};

// The SystemC model's (or the SystemC twin's) counters as RunStats: `cycles` of the run and the
// DRAM bytes its DRAM model counted. The only conversion from hw::AcceleratorStats.
RunStats run_stats(const hw::AcceleratorStats& st, std::uint64_t cycles, const DramBytes& dram);
// The bytes per tensor a DRAM model counted. Its total is the sum of the four, which the DRAM
// model's own count of all bytes equals (tests/analytic checks it on every layer).
DramTraffic dram_traffic(const DramBytes& d);

// Adds the counters of `s` to `into` (a network's totals); a counter is kept only if both counted it.
void accumulate(RunStats& into, const RunStats& s);

// What the energy model charges for: MAC steps, SRAM words (reads + writes), DRAM bytes.
energy::Activity energy_activity(const RunStats& s);

// Key names. `report` is the layout of `flycol run` and sweep reports:
//   cycles, stalls {feeder, weights, context_switch, pipeline, dram, tail}, mac_cycles,
//   gated_macs, sram {ifmap|weights|psums: {reads, writes}}, dram_bytes {ifmap, weights,
//   psums_in, ofmap, total}
// `flat` is the per-layer "stats" object of `flycol net` reports: the same values with the cycle
// classes as top-level keys (feeder_stall, weight_stall, context_stall, pipeline, dram_stall, tail).
enum class StatsKeys { report, flat };

// Writes the counters into the object `j` (existing keys keep their place).
void write_stats_json(Json& j, const RunStats& s, StatsKeys keys = StatsKeys::report);
// The object "dram_bytes" of the writer: {ifmap, weights, psums_in, ofmap, total}.
Json dram_json(const DramTraffic& d);

}  // namespace flycol
