// Bit access to Verilated ports for the RTL block adapters: a field of a flat port (an integer
// port up to 64 bits, or a VlWide<N> beyond), packed structs (command_t) to and from hw::Command.
#pragma once

#include <cstdint>
#include <type_traits>
#include <vector>

#include "hw/common/command.h"

namespace flycol::rtlblocks {

template <class P>
std::enable_if_t<std::is_integral_v<P>> set_field(P& port, int lsb, int bits, std::uint64_t v) {
  const std::uint64_t mask = (bits >= 64 ? ~0ull : ((1ull << bits) - 1)) << lsb;
  port = P((std::uint64_t(port) & ~mask) | ((v << lsb) & mask));
}

template <class P>
std::enable_if_t<std::is_integral_v<P>, std::uint64_t> get_field(const P& port, int lsb, int bits) {
  const std::uint64_t v = std::uint64_t(port) >> lsb;
  return bits >= 64 ? v : v & ((1ull << bits) - 1);
}

// VlWide<N>: 32-bit words, least significant first; a field may span several words.
template <class P>
std::enable_if_t<!std::is_integral_v<P>> set_field(P& port, int lsb, int bits, std::uint64_t v) {
  for (int done = 0; done < bits;) {
    const int pos = lsb + done, w = pos / 32, off = pos % 32, n = std::min(bits - done, 32 - off);
    const std::uint32_t m = (n == 32 ? ~0u : ((1u << n) - 1)) << off;
    port[std::size_t(w)] = (port[std::size_t(w)] & ~m) | (std::uint32_t(v >> done) << off & m);
    done += n;
  }
}

template <class P>
std::enable_if_t<!std::is_integral_v<P>, std::uint64_t> get_field(const P& port, int lsb, int bits) {
  std::uint64_t v = 0;
  for (int done = 0; done < bits;) {
    const int pos = lsb + done, w = pos / 32, off = pos % 32, n = std::min(bits - done, 32 - off);
    const std::uint32_t m = n == 32 ? ~0u : ((1u << n) - 1);
    v |= std::uint64_t((port[std::size_t(w)] >> off) & m) << done;
    done += n;
  }
  return v;
}

// command_t (sim/rtlgen/rtl_types.h: the first field in the most significant bits) at bit `lsb`.
int command_bits();
std::vector<std::uint64_t> command_to_fields(const hw::Command& c);
hw::Command command_from_fields(const std::vector<std::uint64_t>& f);
const std::vector<int>& command_field_bits();

template <class P> void put_command(P& port, int lsb, const hw::Command& c) {
  const std::vector<std::uint64_t> f = command_to_fields(c);
  const std::vector<int>& bits = command_field_bits();
  int pos = lsb + command_bits();
  for (std::size_t i = 0; i < f.size(); ++i) {
    pos -= bits[i];
    set_field(port, pos, bits[i], f[i]);
  }
}

template <class P> hw::Command get_command(const P& port, int lsb) {
  const std::vector<int>& bits = command_field_bits();
  std::vector<std::uint64_t> f(bits.size());
  int pos = lsb + command_bits();
  for (std::size_t i = 0; i < f.size(); ++i) {
    pos -= bits[i];
    f[i] = get_field(port, pos, bits[i]);
  }
  return command_from_fields(f);
}

}  // namespace flycol::rtlblocks
