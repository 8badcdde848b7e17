// The analytic (transaction-level) model of the accelerator: runs a compiled command stream with
// the controller's dispatch and wait rules, RUN durations from RunTimer, and the two DMA engines
// as flows that share the DRAM channel and the memory port (sim/analytic/README.md). It reports
// the same counters as the SystemC model (RunStats: cycles by kind, SRAM and DRAM traffic) in
// microseconds of host time per layer instead of seconds.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <vector>

#include "hw/common/hw_params.h"
#include "sim/analytic/dma_timing.h"
#include "sim/analytic/run_timing.h"
#include "sim/compiler/compiler.h"
#include "sim/dram/dram_model.h"
#include "sim/stats/run_stats.h"

namespace flycol::analytic {

// DRAM traffic over time: `bytes` moved uniformly between cycles t0 and t1 (fractional cycles).
struct TrafficSpan {
  double t0 = 0, t1 = 0, bytes = 0;
};

// When each command ran (cycles of the program): start (the controller starts it) and done.
struct CommandSpan {
  std::int64_t accept = 0, start = 0, done = 0;
};

struct Result {
  RunStats stats;  // every counter but gated_macs (it depends on operand values)
  std::vector<TrafficSpan> traffic;  // when Options::traffic
  std::vector<CommandSpan> commands; // when Options::commands
};

struct Options {
  bool traffic = false;
  bool commands = false;
};

class Model {
public:
  // `timing`: bandwidth and latency of the DRAM channel (its random profile is ignored).
  // `pool_feed`: how pooling RUNs are timed (run_timing.h; strided: the seed's baseline unit).
  Model(const hw::HwParams& p, const DramTiming& timing, PoolFeed pool_feed = PoolFeed::feeder);

  Result run(const Program& prog, const Options& opt = {});

  const hw::HwParams& params() const { return p_; }
  const DramTiming& timing() const { return timing_; }
  std::size_t distinct_runs() const { return runs_.distinct_runs(); }

private:
  // The command's DMA work with its alone duration, computed once per distinct shape.
  const DmaWork& dma(const hw::Command& c);

  hw::HwParams p_;
  DramTiming timing_;
  RunTimer runs_;
  // DMA durations by what determines them: the descriptor with addresses and strides reduced
  // modulo the DRAM beat (chunking only sees the beat offsets).
  std::map<std::array<std::uint64_t, 13>, DmaWork> dma_;
};

}  // namespace flycol::analytic
