// The golden model's own integer MAC (int8 x int8 or int16 x int16 into a saturating int32
// accumulator), written apart from base/numerics/int_mac.h, which the hardware models run, so the
// golden convolution and the PE/array testbenches do not check the PEs against their own code.
#pragma once

#include <cstdint>

namespace flycol::golden {

// acc + a*b, clamped to [INT32_MIN, INT32_MAX] (the products of int16 operands fit in int64 with
// any int32 accumulator, so the clamp sees the exact sum).
inline std::int32_t int_mac(std::int32_t a, std::int32_t b, std::int32_t acc) {
  const std::int64_t v = std::int64_t(acc) + std::int64_t(a) * std::int64_t(b);
  return v > INT32_MAX ? INT32_MAX : v < INT32_MIN ? INT32_MIN : std::int32_t(v);
}

}  // namespace flycol::golden
