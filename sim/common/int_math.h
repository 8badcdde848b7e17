// Integer helpers of the host libraries (tiling, timing, traffic): one definition each.
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

}  // namespace flycol
