// Runs command streams on the SystemC model of the accelerator: elaborates the Accelerator module
// (or the structural top, ScSimOptions) once per hardware configuration with its environment (the
// command queue and the shared DRAM model behind the memory port), then runs one program after
// another, pausing the kernel at the end of each (SystemC cannot elaborate twice in one process).
// Several ScSimulations may live in one process if all are constructed before the first run.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "hw/common/command.h"
#include "hw/common/hw_params.h"
#include "hw/top/accelerator_core.h"
#include "sim/dram/dram_model.h"

namespace flycol {

namespace hw {
class StructuralBlockViews;  // hw/top/structural_top.h: kept out of this header, which must not
                             // bring SystemC to the libraries that only read SimResult
}

struct SimResult {
  bool finished = false;       // every command completed before the watchdog
  std::uint64_t cycles = 0;    // spec section 5: first cycle with all commands accepted and idle
  hw::AcceleratorStats stats;  // counters of the cores
  std::uint64_t dram_stall = 0;  // cycles without an active RUN while a RUN is still to come
  std::uint64_t tail = 0;        // cycles after the last RUN completed
  double wall_seconds = 0;
  std::string error;  // set when the run stopped on a protocol error or the watchdog
  // With ScSimulation::record_commands: the cycle each command completed (its engine's
  // done_count rose at that edge), in program order; empty otherwise. Commands of one engine
  // complete in their order, so the k-th completion of an engine is its k-th command.
  std::vector<std::uint64_t> done_cycles;
};

// Which SystemC view of the accelerator runs.
struct ScSimOptions {
  // false: the fast model (Accelerator, one clocked method over AcceleratorCore); true: the
  // structural top (hw/top/structural_top.h), the block SC_MODULEs wired by signals.
  bool structural = false;
  // Structural top only: replaces blocks' SC modules by other views with the same ports (e.g.
  // sim/rtlblocks' Verilated RTL adapters); must outlive the ScSimulation. nullptr: none.
  hw::StructuralBlockViews* block_views = nullptr;
  std::string name = "accelerator";  // instance name (unique per process)
};

class ScSimulation {
public:
  explicit ScSimulation(const hw::HwParams& p, const ScSimOptions& options = {});
  ~ScSimulation();
  ScSimulation(const ScSimulation&) = delete;
  ScSimulation& operator=(const ScSimulation&) = delete;

  // Writes a VCD of the top-level signals of every following run to `path` (before the first run).
  void trace_to(const std::string& path);

  // Records every command's completion cycle into SimResult::done_cycles from the next run on
  // (a clocked process that reads the engines' done counts; off by default, it costs a process
  // activation per cycle). For comparing the analytic model's schedule command by command.
  void record_commands(bool on);

  // Runs `commands` against `dram` (which holds the operands and receives the results). Stops
  // with finished = false when no command completes for `watchdog_cycles` cycles.
  SimResult run(const std::vector<hw::Command>& commands, DramModel& dram,
                std::uint64_t watchdog_cycles = 2'000'000);

  // The fast model's core (std::logic_error for the structural top).
  hw::AcceleratorCore& core();
  bool structural() const;

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace flycol
