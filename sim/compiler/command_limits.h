// Field widths of the command format (hw/common/command.h, flycol_pkg.sv) as checkable limits,
// shared by the compiler (which must never emit an overflowing field) and the hazard checker
// (which must not trust the compiler).
#pragma once

#include <cstdint>
#include <string>

#include "hw/common/command.h"
#include "hw/common/hw_params.h"

namespace flycol {

inline constexpr std::uint64_t max_of_bits(int bits) { return bits >= 64 ? ~0ull : (1ull << bits) - 1; }
inline constexpr std::uint64_t kCountMax = max_of_bits(hw::field_bits::kCount);
inline constexpr std::uint64_t kStepMax = max_of_bits(hw::field_bits::kStep);
inline constexpr std::uint64_t kLaneStrideMax = max_of_bits(hw::field_bits::kLaneStride);
inline constexpr std::uint64_t kByteStrideMax = max_of_bits(hw::field_bits::kByteStride);
inline constexpr std::uint64_t kDramAddrMax = max_of_bits(hw::field_bits::kDramAddr);
inline constexpr std::uint64_t kPoolStrideMax = max_of_bits(hw::field_bits::kPoolStride);
inline constexpr std::uint64_t kPoolStartMax = max_of_bits(hw::field_bits::kPoolStart);
inline constexpr std::uint64_t kPoolSideMax = max_of_bits(hw::field_bits::kPoolSide);
// Average pooling on chip: window rows and columns (the divisor's factors, section 16).
inline constexpr std::uint32_t kMaxAvgPoolSide = 256;
// An argmax RUN's window (section 16, "Backward of max pooling"): its result 0xFFFF is "no valid
// element", so a window position counted from the end stays below it.
inline constexpr std::uint32_t kMaxArgmaxWindow = 65535;

// The first field of `c` that does not fit its width (or names a buffer or pattern bit the
// configuration does not have, or is a DMA address or stride that is not a whole number of
// elements), as "name = value (limit)"; empty if every field fits.
std::string command_field_violation(const hw::Command& c, const hw::HwParams& hw);

}  // namespace flycol
