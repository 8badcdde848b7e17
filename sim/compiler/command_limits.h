// Field widths of the command format (hw/common/command.h, flycol_pkg.sv) as checkable limits,
// shared by the compiler (which must never emit an overflowing field) and the hazard checker
// (which must not trust the compiler).
#pragma once

#include <cstdint>
#include <string>

#include "hw/common/command.h"
#include "hw/common/hw_params.h"

namespace flycol {

inline constexpr std::uint64_t kCountMax = 0xFFFF;             // 16-bit counts, lengths, paddings
inline constexpr std::uint64_t kStepMax = 0xFFFFFF;            // 24-bit element steps of a RUN
inline constexpr std::uint64_t kLaneStrideMax = 0xFF;          // 8-bit lane stride
inline constexpr std::uint64_t kByteStrideMax = 0xFFFFFFFF;    // 32-bit DMA byte strides
inline constexpr std::uint64_t kDramAddrMax = (1ull << 40) - 1;  // 40-bit DRAM byte address

// The first field of `c` that does not fit its width (or names a buffer or pattern bit the
// configuration does not have), as "name = value (limit)"; empty if every field fits.
std::string command_field_violation(const hw::Command& c, const hw::HwParams& hw);

}  // namespace flycol
