// Parameter checks shared by the feeder's cores: the hardware parameters the index counters, the
// feed lanes and the feeder use must fit the fixed capacities of hw/common/hw_params.h.
#pragma once

#include <cstdint>

#include <fmt/format.h>

#include "hw/common/hw_params.h"
#include "hw/common/protocol_error.h"

namespace flycol::hw {

inline void check_feeder_params(const HwParams& p, const char* block) {
  auto range = [block](const char* what, long long v, long long lo, long long hi) {
    if (v < lo || v > hi) protocol_error(block, fmt::format("parameter {} = {} outside {}..{}", what, v, lo, hi));
  };
  range("rows", p.rows, 1, kMaxRows);
  range("bus_elems", p.bus_elems, 1, kMaxWordElems);
  range("log2_bus", p.log2_bus, 0, 6);
  if ((1 << p.log2_bus) != p.bus_elems)
    protocol_error(block, fmt::format("parameter bus_elems = {} is not 2^log2_bus = 2^{}", p.bus_elems, p.log2_bus));
  range("pattern_bits", p.pattern_bits, 1, 64);
  range("m", p.m, 1, kMaxM);
  range("lane_fifo_depth", p.lane_fifo_depth, 1, kMaxLaneFifo);
  range("ifmap_depth", p.ifmap_depth, 1, 1 << 30);
}

// Elements 0..B-1 of a word as a bit mask.
inline std::uint64_t bus_mask(int bus_elems) {
  return bus_elems >= 64 ? ~std::uint64_t(0) : (std::uint64_t(1) << bus_elems) - 1;
}

}  // namespace flycol::hw
