// Parameter checks shared by the feeder's cores: the hardware parameters the index counters, the
// feed lanes and the feeder use must lie in their ranges of hw/common/hw_params.h (kHwParamFields).
#pragma once

#include <cstdint>

#include <fmt/format.h>

#include "hw/common/hw_params.h"
#include "hw/common/protocol_error.h"

namespace flycol::hw {

inline void check_feeder_params(const HwParams& p, const char* block) {
  check_hw_param_ranges(p, block, {"rows", "bus_elems", "log2_bus", "pattern_bits", "m", "lane_fifo_depth",
                                   "ifmap_depth"});
  if ((1 << p.log2_bus) != p.bus_elems)
    protocol_error(block, fmt::format("parameter bus_elems = {} is not 2^log2_bus = 2^{}", p.bus_elems, p.log2_bus));
}

// Elements 0..B-1 of a word as a bit mask.
inline std::uint64_t bus_mask(int bus_elems) {
  return bus_elems >= 64 ? ~std::uint64_t(0) : (std::uint64_t(1) << bus_elems) - 1;
}

}  // namespace flycol::hw
