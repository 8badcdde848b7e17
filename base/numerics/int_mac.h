// Integer multiply-accumulate of the integer PE variants (int8 x int8 and int16 x int16 into an
// int32 accumulator). The accumulator saturates at the int32 limits instead of wrapping: an
// overflow becomes visible as a clamped value, and because the reduction order is fixed (input
// channel, kernel row, kernel column, also across channel tiles) the result is still
// deterministic and identical in every view.
#pragma once

#include <cstdint>
#include <limits>

namespace flycol::intmac {

inline std::int32_t saturate(std::int64_t v) {
  constexpr std::int64_t lo = std::numeric_limits<std::int32_t>::min();
  constexpr std::int64_t hi = std::numeric_limits<std::int32_t>::max();
  return std::int32_t(v < lo ? lo : (v > hi ? hi : v));
}

// acc + a*b with int32 saturation; a and b are int8 or int16 values (the product always fits).
// Gating a zero operand changes no integer result, so there is no gating argument.
inline std::int32_t mac(std::int32_t a, std::int32_t b, std::int32_t acc) {
  return saturate(std::int64_t(acc) + std::int64_t(a) * std::int64_t(b));
}

}  // namespace flycol::intmac
