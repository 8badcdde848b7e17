// Text form of commands, for traces and error messages.
#include "hw/common/command.h"

#include <fmt/format.h>

namespace flycol::hw {

const char* opcode_name(Opcode op) {
  switch (op) {
    case Opcode::LoadIfmap: return "LOAD_IFMAP";
    case Opcode::LoadWeights: return "LOAD_WEIGHTS";
    case Opcode::LoadPsums: return "LOAD_PSUMS";
    case Opcode::StorePsums: return "STORE_PSUMS";
    case Opcode::Run: return "RUN";
  }
  return "?";
}

std::string Command::to_string() const {
  std::string s = fmt::format("{:<12} wait(ld={},ex={},ps={})", opcode_name(op), wait_ld, wait_ex, wait_ps);
  if (op == Opcode::Run) {
    const RunDesc& r = run;
    s += fmt::format(" bufs(i{},w{},p{}) preload={} kg={} cy={} cx={} c={} ky={} kx={} steps(cx={},cy={},c={},ky={})"
                     " region={} lane_stride={} pattern={:#x}",
                     r.ifmap_buf, r.weight_buf, r.psum_buf, int(r.preload), r.n_kg, r.n_cy, r.n_cx, r.n_c,
                     r.n_ky, r.n_kx, r.step_cx, r.step_cy, r.step_c, r.step_ky, r.region, r.lane_stride, r.pattern);
    if (r.n_kxc != 1)
      s += fmt::format(" chunks(n={},step={},region={},pattern={:#x})", r.n_kxc, r.step_kxc, r.region_kxc,
                       r.pattern_kxc);
    if (r.pack_w != 0) s += fmt::format(" pack(w={},r={},jump={})", r.pack_w, r.pack_r, r.pack_jump);
    if (r.pool_op == unsigned(PoolOp::Max)) s += " pool=max";
    if (r.pool_op == unsigned(PoolOp::Average) || r.pool_op == unsigned(PoolOp::Argmax) ||
        r.pool_op == unsigned(PoolOp::MaskedSum))
      s += fmt::format(" pool={}(sy={},rows={}..{},cols={}..{})",
                       r.pool_op == unsigned(PoolOp::Average)  ? "avg"
                       : r.pool_op == unsigned(PoolOp::Argmax) ? "argmax"
                                                               : "masked",
                       r.pool_sy, r.pool_y0, r.pool_y1, r.pool_x0, r.pool_x1);
    if (r.pool_ky != 0 || r.pool_kx != 0 || r.pool_sx != 0)
      s += fmt::format(" divisor_window(ky={},kx={},sx={})", r.pool_ky, r.pool_kx, r.pool_sx);
    if (r.pool_op > unsigned(kMaxPoolOp)) s += fmt::format(" pool_op={}", r.pool_op);
  } else {
    const DmaDesc& d = dma;
    s += fmt::format(" buf={} dram={:#x} planes={}x{:#x} rows={}x{:#x} len={} pad(l={},r={},t={},b={}) tail={}",
                     d.buf, d.dram_addr, d.n_planes, d.plane_stride, d.n_rows, d.row_stride, d.row_len,
                     d.pad_left, d.pad_right, d.pad_top, d.pad_bottom, d.tail);
    if (d.elem_step != 1) s += fmt::format(" step={}", d.elem_step);
    if (d.pad_value != 0) s += fmt::format(" padval={:#06x}", d.pad_value);
    if (d.dst_ifmap || d.dst_buf != 0) s += fmt::format(" to_ifmap={} dst_buf={}", int(d.dst_ifmap), d.dst_buf);
  }
  return s;
}

}  // namespace flycol::hw
