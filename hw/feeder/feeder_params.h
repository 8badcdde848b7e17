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

// Pixel packing (docs/microarchitecture.md, section 9.2): a lane compares its pixel column ox + l
// with the multiples m*pack_w, m = 1..kPackWraps, so no lane may wrap more often than that.
inline constexpr int kPackWraps = 4;

// The most rows any lane's pixel lies below its context's first row (0 without packing). The
// context columns ox are the multiples of rows mod pack_w, i.e. of gcd(rows, pack_w), so the
// largest is pack_w - gcd and the answer is (pack_w - gcd + rows - 1) div pack_w.
inline std::uint32_t pack_max_wraps(std::uint32_t pack_w, int rows) {
  if (pack_w == 0) return 0;
  std::uint32_t a = pack_w, b = std::uint32_t(rows);
  while (b != 0) {
    const std::uint32_t t = a % b;
    a = b;
    b = t;
  }
  return (pack_w - a + std::uint32_t(rows) - 1) / pack_w;
}

// Lane l's local offset for a word of the context whose first pixel is in column `ox`.
inline std::int64_t lane_local_offset(int l, std::uint32_t lane_stride, std::uint32_t pack_w, std::uint32_t pack_jump,
                                      std::uint32_t ox) {
  int wraps = 0;
  if (pack_w != 0)
    for (int m = 1; m <= kPackWraps; ++m) wraps += std::uint64_t(ox) + std::uint64_t(l) >= std::uint64_t(m) * pack_w;
  return std::int64_t(l) * lane_stride + std::int64_t(wraps) * pack_jump;
}

// Elements 0..B-1 of a word as a bit mask.
inline std::uint64_t bus_mask(int bus_elems) {
  return bus_elems >= 64 ? ~std::uint64_t(0) : (std::uint64_t(1) << bus_elems) - 1;
}

}  // namespace flycol::hw
