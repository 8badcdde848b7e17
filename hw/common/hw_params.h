// Hardware parameters of one accelerator configuration, derived once from the YAML Config and
// shared by every block core; plus the fixed-width types the hardware models use. Capacities
// (kMax*) size the cores' fixed arrays, so the models never allocate in the cycle loop.
#pragma once

#include <cstdint>

#include "sim/config/config.h"

namespace flycol::hw {

// Raw element bits on the SRAM buses: fp16 patterns, or int8/int16 two's complement.
using elem_t = std::uint16_t;
// Raw accumulator bits: fp16 in the low 16 bits, or int32.
using acc_t = std::uint32_t;
// Generic SRAM word element (either of the above).
using word_elem_t = std::uint32_t;

inline constexpr int kMaxRows = 64;
inline constexpr int kMaxCols = 64;
inline constexpr int kMaxWordElems = 64;  // elements per SRAM word (ifmap bus B, COLS, ROWS)
inline constexpr int kMaxM = 8;
inline constexpr int kMaxLaneFifo = 64;

// Fixed depths of the spec (docs/microarchitecture.md, section 3).
inline constexpr int kWeightFifoDepth = 4;
inline constexpr int kResultQueueDepth = 2;
inline constexpr int kChunkQueueDepth = 32;  // outstanding reads per DMA engine: covers the DRAM bandwidth-delay product
inline constexpr int kBeatBytes = 32;
inline constexpr int kCmdQueueDepth = 2;

struct HwParams {
  int rows = 16, cols = 16;
  Arithmetic arithmetic = Arithmetic::fp16;
  bool zero_gating = true;
  int elem_bits = 16, acc_bits = 16;
  int bus_elems = 16;      // B: ifmap word in elements (power of two)
  int log2_bus = 4;
  int pattern_bits = 64;   // PB
  int m = 3;               // intermediate registers per lane
  int lane_fifo_depth = 4; // FD, groups of M
  int ifmap_depth = 1024, weight_depth = 1024, psum_depth = 1024;  // words per buffer
  int ifmap_buffers = 2, weight_buffers = 2, psum_buffers = 2;

  int preload_queue_depth() const { return 2 * cols; }
  int elem_bytes() const { return elem_bits / 8; }
  int acc_bytes() const { return acc_bits / 8; }

  static HwParams from(const Config& c);
};

inline HwParams HwParams::from(const Config& c) {
  HwParams p;
  p.rows = c.array.rows;
  p.cols = c.array.cols;
  p.arithmetic = c.arithmetic;
  p.zero_gating = c.zero_gating;
  p.elem_bits = c.elem_bits();
  p.acc_bits = c.acc_bits();
  p.bus_elems = c.bus_elems();
  p.log2_bus = 0;
  while ((1 << p.log2_bus) < p.bus_elems) ++p.log2_bus;
  p.pattern_bits = c.feeder.pattern_bits;
  p.m = c.feeder.intermediate_regs;
  p.lane_fifo_depth = c.feeder.fifo_depth;
  p.ifmap_depth = int(c.ifmap.words());
  p.weight_depth = int(c.weights.words());
  p.psum_depth = int(c.psums.words());
  p.ifmap_buffers = c.ifmap.buffers;
  p.weight_buffers = c.weights.buffers;
  p.psum_buffers = c.psums.buffers;
  return p;
}

}  // namespace flycol::hw
