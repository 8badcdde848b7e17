// Integer helpers of the host libraries (tiling, timing, traffic, tile-size searches): one definition each.
#pragma once

#include <type_traits>

namespace flycol {

// ceil(a / b) for a >= 0, b > 0, in the common type of the two.
template <typename A, typename B>
constexpr std::common_type_t<A, B> ceil_div(A a, B b) {
  static_assert(std::is_integral_v<A> && std::is_integral_v<B>, "ceil_div takes integers");
  using T = std::common_type_t<A, B>;
  const T x = static_cast<T>(a), y = static_cast<T>(b);
  return x / y + (x % y != 0 ? 1 : 0);
}

// The largest v in [lo, hi] with fits(v), for a fits() that holds up to some value and not
// above it (monotone); 0 when fits(lo) does not hold. A binary search: O(log(hi - lo)) calls.
template <typename Fits>
int largest_fitting(int lo, int hi, const Fits& fits) {
  if (!fits(lo)) return 0;
  while (lo < hi) {  // fits(lo) holds
    const int mid = lo + (hi - lo + 1) / 2;
    if (fits(mid)) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

}  // namespace flycol
