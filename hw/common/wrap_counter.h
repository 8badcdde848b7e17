// The step of one counter of a nested loop walk in the cores' register-transfer style (q the
// register, d its next value): the walks of the feeder's index counters and the weight fetcher
// advance innermost first, each counter wrapping to zero and carrying into the next.
#pragma once

#include <cstdint>

namespace flycol::hw {

// d = q + 1, or 0 when q is the last of n; true on the wrap (the carry into the next counter).
inline bool wrap_next(std::uint32_t q, std::uint32_t n, std::uint32_t& d) {
  if (q + 1 < n) {
    d = q + 1;
    return false;
  }
  d = 0;
  return true;
}

// The same for a counter with an offset that moves by `step` with it and returns to zero with it.
inline bool wrap_next(std::uint32_t q, std::uint32_t n, std::uint32_t& d, std::int64_t off_q, std::uint32_t step,
                      std::int64_t& off_d) {
  const bool carry = wrap_next(q, n, d);
  off_d = carry ? 0 : off_q + step;
  return carry;
}

}  // namespace flycol::hw
