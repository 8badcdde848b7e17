// command_t packing for the RTL block adapters: the field table of sim/rtlgen (one definition of
// the format) and the inverse of rtl::command_values, checked against it once.
#include "sim/rtlblocks/rtl_bits.h"

#include <stdexcept>

#include "sim/rtlgen/rtl_types.h"

namespace flycol::rtlblocks {

int command_bits() { return rtl::command_bits(); }

const std::vector<int>& command_field_bits() {
  static const std::vector<int> bits = [] {
    std::vector<int> b;
    for (const auto& f : rtl::command_fields()) b.push_back(f.bits);
    return b;
  }();
  return bits;
}

std::vector<std::uint64_t> command_to_fields(const hw::Command& c) { return rtl::command_values(c); }

namespace {

// The inverse of rtl::command_values, in its field order.
hw::Command unpack_fields(const std::vector<std::uint64_t>& f) {
  if (f.size() != 53) throw std::logic_error("rtlblocks: the command format changed; update command_from_fields");
  hw::Command c;
  hw::DmaDesc& d = c.dma;
  hw::RunDesc& r = c.run;
  std::size_t i = 0;
  auto next = [&](auto& field) { field = static_cast<std::remove_reference_t<decltype(field)>>(f[i++]); };
  c.op = hw::Opcode(f[i++]);
  next(c.wait_ld), next(c.wait_ex), next(c.wait_ps);
  next(d.buf), next(d.dram_addr), next(d.n_planes), next(d.plane_stride), next(d.n_rows), next(d.row_stride);
  next(d.row_len), next(d.pad_left), next(d.pad_right), next(d.pad_top), next(d.pad_bottom), next(d.tail);
  next(d.elem_step), next(d.pad_value);
  d.dst_ifmap = f[i++] != 0;
  next(d.dst_buf);
  next(r.ifmap_buf), next(r.weight_buf), next(r.psum_buf);
  r.preload = f[i++] != 0;
  next(r.n_kg), next(r.n_cy), next(r.n_cx), next(r.n_c), next(r.n_ky), next(r.n_kx);
  next(r.step_cx), next(r.step_cy), next(r.step_c), next(r.step_ky), next(r.region), next(r.lane_stride);
  next(r.pattern);
  next(r.n_kxc), next(r.step_kxc), next(r.region_kxc), next(r.pattern_kxc);
  next(r.pack_w), next(r.pack_r), next(r.pack_jump);
  next(r.pool_op), next(r.pool_sy), next(r.pool_y0), next(r.pool_x0), next(r.pool_y1), next(r.pool_x1);
  next(r.pool_ky), next(r.pool_kx), next(r.pool_sx);
  return c;
}

// The field order above must be command_values' order: a command whose fields all differ must
// come back unchanged.
bool order_checked = [] {
  std::vector<std::uint64_t> f;
  const auto& bits = command_field_bits();
  for (std::size_t i = 0; i < bits.size(); ++i) f.push_back(bits[i] == 1 ? 1 : (i + 1) % (1ull << std::min(bits[i], 20)));
  f[0] = 2;  // a valid opcode
  if (rtl::command_values(unpack_fields(f)) != f)
    throw std::logic_error("rtlblocks: command_from_fields does not invert rtl::command_values");
  return true;
}();

}  // namespace

hw::Command command_from_fields(const std::vector<std::uint64_t>& f) { return unpack_fields(f); }

}  // namespace flycol::rtlblocks
