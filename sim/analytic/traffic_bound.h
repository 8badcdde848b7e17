// A lower bound on the DRAM traffic of one convolution layer for the configured on-chip storage,
// valid for every program of this accelerator (any tiling, loop order or reuse): the larger of the
// compulsory traffic and a red-blue-pebble segment bound. docs/networks.md derives it.
#pragma once

#include <algorithm>
#include <cstdint>

#include "hw/common/hw_params.h"
#include "sim/config/layer.h"

namespace flycol::analytic {

// On-chip storage that can hold a value of each operand class, in elements (psums: accumulators).
struct OnChipStorage {
  std::int64_t ifmap = 0, weights = 0, psums = 0;
};

struct BoundParams {
  int elem_bytes = 2;  // ifmap and weight elements, in DRAM and on chip
  int acc_bytes = 2;   // partial sums and the ofmap (section 4: the ofmap is stored accumulator-wide)
  OnChipStorage storage;
};

// Every buffer of each SRAM (double buffering does not halve it: the idle buffer's contents stay
// on chip for later RUNs) plus an over-estimate of the registers that can hold each class.
// Over-estimating storage only lowers the bound, so it stays valid.
OnChipStorage on_chip_storage(const hw::HwParams& hw);
BoundParams bound_params(const hw::HwParams& hw);

// Exact counts of a layer's index structure that the bound uses. A MAC is real when its input
// element is not padding (padding is generated on chip and needs no storage).
struct LayerReach {
  std::int64_t macs = 0;             // real MACs
  std::int64_t inputs = 0;           // input elements some real MAC reads
  std::int64_t weights = 0;          // weights some real MAC reads
  std::int64_t outputs = 0;          // every output element (each is written once)
  std::int64_t reuse = 0;            // R: the most (output pixel, kernel tap) pairs one input serves
  std::int64_t macs_per_output = 0;  // the most real MACs of one output
  std::int64_t macs_per_weight = 0;  // the most real MACs of one weight
  std::int64_t macs_per_input = 0;   // the most MACs of one input element: reuse * K
};
LayerReach layer_reach(const Layer& l);

struct TrafficBound {
  std::uint64_t compulsory = 0;  // bytes: used inputs and weights read once, outputs written once
  std::uint64_t segment = 0;     // bytes: the segment (red-blue pebble) bound
  double segment_bytes = 0;      // the segment size T that gave `segment` (0: none gave more than 0)
  std::uint64_t bytes() const { return std::max(compulsory, segment); }
};

// An upper bound on the real MACs that any stretch of the execution moving at most `t` DRAM bytes
// can execute (Loomis-Whitney over the three operand projections; each class touches at most its
// storage plus what the segment loads, or for outputs stores).
// `store_weight`: what one stored accumulator counts, in acc_bytes (2 for the charged count of
// docs/networks.md, in which a store stands for itself and the reload it implies).
double segment_macs(const LayerReach& r, const BoundParams& p, double t, int store_weight = 1);

// The bound for one layer (one group of a grouped convolution). Valid for the data feeder and for
// the explicit-im2col baseline alike (a lowered matrix entry serves one (pixel, tap) pair), and
// for programs that hold the ifmap in the weight SRAM and the weights in the ifmap SRAM.
TrafficBound traffic_bound(const Layer& l, const BoundParams& p);

}  // namespace flycol::analytic
