// Field access to the ports of a Verilated model for the lockstep RTL testbenches: a packed-array
// port (`logic [N*W-1:0]`, element i in bits [i*W +: W]) is a CData/SData/IData/QData integer or
// a VlWide word array depending on its width; these helpers read and write one field of either.
#pragma once

#include <cstdint>
#include <type_traits>

#include <verilated.h>

namespace flycol::rtltb {

// Bits [lsb, lsb+n) of `port`, n <= 64.
template <class P>
std::uint64_t get_bits(const P& port, int lsb, int n) {
  if constexpr (std::is_integral_v<P>) {
    const std::uint64_t v = std::uint64_t(port) >> lsb;
    return n >= 64 ? v : v & ((std::uint64_t(1) << n) - 1);
  } else {
    std::uint64_t v = 0;
    for (int b = 0; b < n; ++b) {
      const int i = lsb + b;
      v |= std::uint64_t((port.at(std::size_t(i / 32)) >> (i % 32)) & 1u) << b;
    }
    return v;
  }
}

// Sets bits [lsb, lsb+n) of `port` to the low n bits of v, n <= 64.
template <class P>
void put_bits(P& port, int lsb, int n, std::uint64_t v) {
  if constexpr (std::is_integral_v<P>) {
    const std::uint64_t mask = (n >= 64 ? ~std::uint64_t(0) : (std::uint64_t(1) << n) - 1) << lsb;
    port = P((std::uint64_t(port) & ~mask) | ((v << lsb) & mask));
  } else {
    for (int b = 0; b < n; ++b) {
      const int i = lsb + b;
      EData& w = port.at(std::size_t(i / 32));
      const EData bit = EData(1) << (i % 32);
      w = ((v >> b) & 1u) ? (w | bit) : (w & ~bit);
    }
  }
}

// Element i of a packed array of w-bit elements.
template <class P>
std::uint64_t get_elem(const P& port, int i, int w) { return get_bits(port, i * w, w); }
template <class P>
void put_elem(P& port, int i, int w, std::uint64_t v) { put_bits(port, i * w, w, v); }

}  // namespace flycol::rtltb
