// Runs a whole network (sim/network/network.h) layer by layer on the analytic model, the SystemC
// model, or the SystemC model with the Verilated RTL in lockstep (both), with on-the-fly im2col
// (the data feeder) and with the explicit-im2col baseline, and gathers the per-layer and total
// figures `flycol net` prints and reports.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "sim/analytic/analytic_model.h"
#include "sim/analytic/plan_choice.h"
#include "sim/compiler/compiler.h"
#include "sim/compiler/fused_compiler.h"
#include "sim/compiler/pool_compiler.h"
#include "sim/config/config.h"
#include "sim/energy/energy.h"
#include "sim/network/network.h"
#include "sim/stats/run_stats.h"

namespace flycol::net {

struct RunOptions {
  std::string model = "analytic";      // analytic | sc | both (sc, and the RTL in lockstep with it)
  analytic::Tiling tiling = analytic::kDefaultTiling;
  double bandwidth_gbps = 0;           // 0: the configuration's DRAM
  double window_us = 10;               // peak bandwidth: the busiest window of this length
  bool check = false;                  // sc, both: compare every layer's outputs with the golden model
  std::uint64_t seed = 1;              // operands of the sc runs
  // Called before each layer run: lowering ("feeder"/"explicit"), index, count, layer name.
  std::function<void(const char*, int, int, const std::string&)> progress;
};

// Figures of one layer run with one lowering.
struct LayerRun {
  std::string name;
  Layer layer;             // as the network lists it (one group of a grouped convolution)
  int groups = 1;          // the array runs `layer` this many times; every figure below counts all
                           // of them (the analytic model times one group; see run_network)
  Layer view;              // what the program runs (the lowered layer for explicit im2col)
  bool host_subsampled = false;  // the host writes its input subsampled (host_subsamples_input())
  TilePlan plan;
  std::size_t commands = 0;
  RunStats stats;     // of the model reported (sc when --model sc)
  RunStats analytic;  // the analytic model's figures, for the agreement with sc
  double sc_wall_seconds = 0;
  bool checked = false, exact = false;  // exact: every model run matched golden (and, with both, in lockstep)
  // --model both: the Verilated RTL run in lockstep with the SystemC model on the same program.
  bool rtl_run = false;
  std::string rtl_mismatch;  // empty when every pin agreed every cycle, cycles equal, outputs equal
  double rtl_wall_seconds = 0;
  std::uint64_t compulsory_bytes = 0;  // its ifmap, weights and ofmap once each
  // A lower bound on the DRAM bytes of any program of this layer on the configured SRAMs, with
  // either lowering (sim/analytic/traffic_bound.h; docs/networks.md derives it).
  std::uint64_t bound_bytes = 0;
  std::uint64_t start_cycle = 0;       // where the layer starts in the network's run
  double peak_gbps = 0;                // busiest window within the layer
  // The same program with an unlimited DRAM (the memory port's one request per cycle remains):
  // its cycles, and the bandwidth the layer asks for when the DRAM never makes it wait (its bytes
  // over that time).
  std::uint64_t free_cycles = 0;
  double demand_gbps = 0;
  energy::Estimate energy;
};

struct Totals {
  std::uint64_t macs = 0;
  RunStats stats;  // the layers' counters summed (accumulate())
  std::uint64_t compulsory_bytes = 0;
  std::uint64_t bound_bytes = 0;  // the layers' lower bounds summed
  energy::Estimate energy;
  double peak_gbps = 0;
  std::uint64_t free_cycles = 0;  // cycles with an unlimited DRAM
  double demand_peak_gbps = 0;    // the highest layer demand_gbps
  double sc_wall_seconds = 0;
  double rtl_wall_seconds = 0;
  std::uint64_t analytic_cycles = 0;  // sum of the analytic model's cycles (agreement with sc)
  int mismatched_layers = 0;          // --check: layers whose outputs differ from golden (or RTL from SystemC)
};

struct LoweringRun {
  std::string lowering;  // feeder | explicit
  std::vector<LayerRun> layers;
  Totals total;
  std::vector<analytic::TrafficSpan> timeline;  // DRAM bytes over the network's cycles (analytic)
};

// A pooling layer of the network (ops maxpool, avgpool, globalavgpool) on the accelerator's
// pooling unit through the data feeder (docs/microarchitecture.md section 16), beside the two ways
// to run it without that: on the host (the DRAM round trip) and on a direct strided-access pooling
// unit without the feeder (the seed's baseline, analytic::PoolFeed::strided). docs/networks.md,
// "Pooling on chip", defines every figure.
struct PoolRun {
  std::string name, op, detail;
  PoolShape shape;          // N = the network's batch
  bool on_chip = false;     // compiled; else `refused` says why the layer stays on the host
  std::string refused;
  TilePlan plan;
  std::size_t commands = 0;
  std::uint64_t start_cycle = 0;  // after the feeder run's array layers and the pooling layers before it
  RunStats stats;     // on chip, by the model reported (sc with --model sc or both)
  RunStats analytic;  // on chip, the analytic model
  RunStats strided;   // the strided-access baseline, the analytic model (same tiles and DMA)
  // The same two programs with an unlimited DRAM (the analytic model): the pooling units' own
  // speed, what the seed compares (its cycle counts are the AI core's on tiles it loads itself).
  std::uint64_t free_cycles = 0, strided_free_cycles = 0;
  energy::Estimate energy, strided_energy;
  // The host: it reads the input and writes the output over the same DRAM (the bytes the chip
  // moves for the same tensors, host_bytes); host_cycles is that at the DRAM bandwidth, a LOWER
  // bound on its time (its compute is free), and host_dram_j the DRAM energy of those bytes only.
  std::uint64_t host_bytes = 0, host_cycles = 0;
  double host_dram_j = 0;
  double sc_wall_seconds = 0, rtl_wall_seconds = 0;
  bool checked = false, exact = false;  // --check: the outputs equal golden::pool (and the RTL's)
  bool rtl_run = false;
  std::string rtl_mismatch;
};

struct PoolTotals {
  int layers = 0, on_chip = 0;
  RunStats stats, analytic, strided;  // the on-chip layers' counters summed
  std::uint64_t free_cycles = 0, strided_free_cycles = 0;
  energy::Estimate energy, strided_energy;
  std::uint64_t host_bytes = 0, host_cycles = 0;
  double host_dram_j = 0;
  int mismatched_layers = 0;
};

// A convolution and the pooling layer that reads only its output, compiled into one fused program
// (docs/microarchitecture.md section 16, "Fused convolution + pooling"): the convolution's tiles
// are pooled on chip and only the pooled tensor is stored. Set beside the two layers run one after
// the other (the convolution as the feeder run planned it, the pooling layer on chip), whose
// figures stay in LoweringRun and PoolRun; docs/networks.md, "Fused convolution + pooling",
// defines every figure.
struct FusedRun {
  std::string conv, pool;   // the two layers' names
  bool fused = false;       // compiled; else `refused` says why the pair runs as two layers
  std::string refused;
  TilePlan plan;            // the convolution's tiles (plan.th: convolution rows of a full tile)
  int tq = 0;               // pooled output rows per tile
  int tp = 0;               // pooled output columns per tile (the pooled width: whole rows)
  std::size_t commands = 0;
  RunStats stats;           // the fused program, by the model reported (sc with --model sc or both)
  RunStats analytic;        // the fused program, the analytic model
  RunStats unfused;         // the convolution's and the pooling layer's runs added (model reported)
  std::uint64_t free_cycles = 0, unfused_free_cycles = 0;  // with an unlimited DRAM (analytic)
  energy::Estimate energy, unfused_energy;
  double sc_wall_seconds = 0, rtl_wall_seconds = 0;
  bool checked = false, exact = false;  // --check: the outputs equal golden::pool of golden::conv
  bool rtl_run = false;
  std::string rtl_mismatch;
};

struct FusedTotals {
  int pairs = 0, fused = 0;
  RunStats stats, analytic, unfused;  // the fused pairs' counters summed
  std::uint64_t free_cycles = 0, unfused_free_cycles = 0;
  energy::Estimate energy, unfused_energy;
  int mismatched_layers = 0;
};

struct NetworkRun {
  Network net;
  Config config;
  std::string model, tiling;
  double bandwidth_gbps = 0, clock_mhz = 0, window_us = 0;
  LoweringRun feeder, expl;
  std::vector<PoolRun> pools;  // every pooling layer, in the network's order
  PoolTotals pool_total;
  std::vector<FusedRun> fusions;  // every convolution + pooling pair, in the network's order
  FusedTotals fused_total;
  double plan_wall_seconds = 0;      // choosing every layer's program (the search and its timings)
  double analytic_wall_seconds = 0;  // timing the chosen programs with the analytic model
  double sc_wall_seconds = 0;        // the SystemC runs (--model sc or both)
  double rtl_wall_seconds = 0;       // the lockstep RTL runs (--model both)
  double pool_wall_seconds = 0;      // the pooling layers: compile, analytic timings, SystemC/RTL runs
  double fused_wall_seconds = 0;     // the fused pairs: compile, analytic timings, SystemC/RTL runs
};

// A grouped convolution (NetworkLayer::groups > 1) runs one group's program and counts its cycles,
// traffic, SRAM accesses, MACs and energy `groups` times, the groups back to back on the timeline
// (they are identical programs on different operands; analytic and sc alike: the SystemC model runs
// the first group's operands once and its counters are scaled, --check compares that group).
// Pooling layers whose window is known (NetworkLayer::pool) compile with compile_pool and run on
// the same models; one the pooling unit cannot run (average pooling with dilation, ...) stays on
// the host with the reason in PoolRun::refused. The feeder and explicit totals stay the array
// layers' (the paper's Tables II and III); the pooling layers have their own (pool_total).
// Every pooling layer run on chip whose input is a convolution's output that nothing else reads
// (one group, not subsampled by the host) is also compiled fused with it (compile_fused) and timed
// on the same models: FusedRun, beside the two separate runs, which stay what the totals count.
// Throws InputError for a bad option (unknown model, bandwidth out of range).
NetworkRun run_network(const Network& net, const Config& cfg, const RunOptions& opt);

// Helpers for reports.
double seconds(const NetworkRun& r, std::uint64_t cycles);
double gflops(const NetworkRun& r, std::uint64_t macs, std::uint64_t cycles);
double avg_gbps(const NetworkRun& r, std::uint64_t bytes, std::uint64_t cycles);
double stall_pct(std::uint64_t dram_stall, std::uint64_t tail, std::uint64_t cycles);

}  // namespace flycol::net
