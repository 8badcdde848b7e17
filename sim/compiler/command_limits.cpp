// Field range checks of one command against the widths of the command format.
#include "sim/compiler/command_limits.h"

#include <fmt/format.h>

namespace flycol {

std::string command_field_violation(const hw::Command& c, const hw::HwParams& hw) {
  std::string out;
  // Records only the first violation, so the message points at one field.
  const auto check = [&out](const char* name, std::uint64_t v, std::uint64_t hi) {
    if (out.empty() && v > hi) out = fmt::format("{} = {} (at most {})", name, v, hi);
  };
  if (c.op == hw::Opcode::Run) {
    const hw::RunDesc& r = c.run;
    check("ifmap_buf", r.ifmap_buf, std::uint64_t(hw.ifmap_buffers - 1));
    check("weight_buf", r.weight_buf, std::uint64_t(hw.weight_buffers - 1));
    check("psum_buf", r.psum_buf, std::uint64_t(hw.psum_buffers - 1));
    check("n_kg", r.n_kg, kCountMax);
    check("n_cy", r.n_cy, kCountMax);
    check("n_cx", r.n_cx, kCountMax);
    check("n_c", r.n_c, kCountMax);
    check("n_ky", r.n_ky, kCountMax);
    check("n_kx", r.n_kx, kCountMax);
    check("step_cx", r.step_cx, kStepMax);
    check("step_cy", r.step_cy, kStepMax);
    check("step_c", r.step_c, kStepMax);
    check("step_ky", r.step_ky, kStepMax);
    check("region", r.region, kCountMax);
    check("lane_stride", r.lane_stride, kLaneStrideMax);
    check("n_kxc", r.n_kxc, kCountMax);
    check("step_kxc", r.step_kxc, kStepMax);
    check("region_kxc", r.region_kxc, kCountMax);
    check("pack_w", r.pack_w, kCountMax);
    check("pack_r", r.pack_r, kCountMax);
    check("pack_jump", r.pack_jump, kStepMax);
    check("pool_op", r.pool_op, std::uint64_t(hw::kMaxPoolOp));
    check("pool_sy", r.pool_sy, kPoolStrideMax);
    check("pool_y0", r.pool_y0, kPoolStartMax);
    check("pool_x0", r.pool_x0, kPoolStartMax);
    check("pool_y1", r.pool_y1, kCountMax);
    check("pool_x1", r.pool_x1, kCountMax);
    check("pool_ky", r.pool_ky, kPoolSideMax);
    check("pool_kx", r.pool_kx, kPoolSideMax);
    check("pool_sx", r.pool_sx, kPoolStrideMax);
    // A pooling RUN (section 16): no preload, one group; average, argmax and masked sum (every op
    // but max): no packing, sides up to 256, pool_sy at least 1; argmax: at most 65535 elements a
    // window (its result 0xFFFF means "no valid element").
    const bool geometric = r.pooling() && r.pool_op != unsigned(hw::PoolOp::Max);
    if (out.empty() && r.pooling() && (r.preload || r.n_kg != 1))
      out = fmt::format("a pooling RUN has preload = {}, n_kg = {} (must be 0 and 1)", int(r.preload), r.n_kg);
    if (out.empty() && geometric && r.pack_w != 0)
      out = fmt::format("a pool_op {} RUN has pack_w = {} (must be 0: no packing)", r.pool_op, r.pack_w);
    if (out.empty() && geometric &&
        (r.n_ky > kMaxAvgPoolSide || r.n_kx > kMaxAvgPoolSide || r.pool_ky > kMaxAvgPoolSide ||
         r.pool_kx > kMaxAvgPoolSide))
      out = fmt::format("a pool_op {} RUN has n_ky = {}, n_kx = {}, pool_ky = {}, pool_kx = {} (at most {} each)",
                        r.pool_op, r.n_ky, r.n_kx, r.pool_ky, r.pool_kx, kMaxAvgPoolSide);
    if (out.empty() && geometric && r.pool_sy == 0)
      out = fmt::format("a pool_op {} RUN has pool_sy = 0 (at least 1)", r.pool_op);
    if (out.empty() && r.pool_op == unsigned(hw::PoolOp::Argmax) && r.window_len() > kMaxArgmaxWindow)
      out = fmt::format("an argmax RUN has a window of {} elements (at most {})", r.window_len(), kMaxArgmaxWindow);
    if (out.empty() && hw.pattern_bits < 64 && (r.pattern >> hw.pattern_bits) != 0)
      out = fmt::format("pattern = {:#x} (only {} bits)", r.pattern, hw.pattern_bits);
    if (out.empty() && hw.pattern_bits < 64 && (r.pattern_kxc >> hw.pattern_bits) != 0)
      out = fmt::format("pattern_kxc = {:#x} (only {} bits)", r.pattern_kxc, hw.pattern_bits);
    if (out.empty() &&
        (r.n_kg == 0 || r.n_cy == 0 || r.n_cx == 0 || r.n_c == 0 || r.n_ky == 0 || r.n_kx == 0 || r.n_kxc == 0))
      out = "a RUN count is 0 (every count must be at least 1)";
    return out;
  }
  const hw::DmaDesc& d = c.dma;
  int buffers = hw.ifmap_buffers;
  if (c.op == hw::Opcode::LoadWeights) buffers = hw.weight_buffers;
  if (c.op == hw::Opcode::LoadPsums || c.op == hw::Opcode::StorePsums) buffers = hw.psum_buffers;
  check("buf", d.buf, std::uint64_t(buffers - 1));
  check("dram_addr", d.dram_addr, kDramAddrMax);
  check("n_planes", d.n_planes, kCountMax);
  check("plane_stride", d.plane_stride, kByteStrideMax);
  check("n_rows", d.n_rows, kCountMax);
  check("row_stride", d.row_stride, kByteStrideMax);
  check("row_len", d.row_len, kCountMax);
  check("pad_left", d.pad_left, kCountMax);
  check("pad_right", d.pad_right, kCountMax);
  check("pad_top", d.pad_top, kCountMax);
  check("pad_bottom", d.pad_bottom, kCountMax);
  check("tail", d.tail, kCountMax);
  // The padding value is a LOAD_IFMAP's, one element wide (section 7.3).
  const std::uint64_t max_pad = c.op == hw::Opcode::LoadIfmap ? (std::uint64_t(1) << (8 * hw.elem_bytes())) - 1 : 0;
  if (out.empty() && d.pad_value > max_pad)
    out = fmt::format("pad_value = {:#x} (at most {:#x} for {})", d.pad_value, max_pad, hw::opcode_name(c.op));
  // A STORE_PSUMS may write into ifmap buffer dst_buf instead of DRAM (section 7.6): only there,
  // only where a partial sum is an element, inside the buffer; dst_buf only with dst_ifmap.
  if (out.empty() && !d.dst_ifmap && d.dst_buf != 0)
    out = fmt::format("dst_buf = {} (only with dst_ifmap)", d.dst_buf);
  if (out.empty() && d.dst_ifmap && c.op != hw::Opcode::StorePsums)
    out = fmt::format("dst_ifmap on {} (STORE_PSUMS only)", hw::opcode_name(c.op));
  if (out.empty() && d.dst_ifmap && hw.acc_bits != hw.elem_bits)
    out = fmt::format("dst_ifmap with {}-bit partial sums and {}-bit elements (they must be as wide)", hw.acc_bits,
                      hw.elem_bits);
  check("dst_buf", d.dst_buf, std::uint64_t(hw.ifmap_buffers - 1));
  if (out.empty() && d.dst_ifmap && d.n_planes > 0 && d.n_rows > 0 && d.row_len > 0) {
    const std::uint64_t size = std::uint64_t(hw.ifmap_depth) * std::uint64_t(hw.bus_elems) * std::uint64_t(hw.elem_bytes());
    const std::uint64_t end = d.dram_addr + std::uint64_t(d.n_planes - 1) * d.plane_stride +
                              std::uint64_t(d.n_rows - 1) * d.row_stride +
                              std::uint64_t(d.row_len) * std::uint64_t(hw.acc_bytes());
    if (end > size) out = fmt::format("dst_ifmap rows reach byte {} of the {}-byte ifmap buffer", end, size);
  }
  // Only the LD engine gathers, and only into the ifmap buffer (section 7.3).
  const std::uint64_t max_step = c.op == hw::Opcode::LoadIfmap ? std::uint64_t(hw::kMaxElemStep) : 1;
  if (out.empty() && (d.elem_step < 1 || d.elem_step > max_step))
    out = fmt::format("elem_step = {} (allowed 1..{} for {})", d.elem_step, max_step, hw::opcode_name(c.op));
  // The DMA engines move whole elements (hw/dma/stream_loader.cpp rejects anything else with a
  // ProtocolError): a stream the checker accepted must not stop the chip (found by tests/fuzz commands).
  const bool psums = c.op == hw::Opcode::LoadPsums || c.op == hw::Opcode::StorePsums;
  const std::uint64_t eb = std::uint64_t(psums ? hw.acc_bytes() : hw.elem_bytes());
  if (out.empty() && (d.dram_addr % eb || d.row_stride % eb || d.plane_stride % eb))
    out = fmt::format("dram_addr = {:#x}, row_stride = {}, plane_stride = {} (each must be a multiple of the "
                      "{}-byte element)", d.dram_addr, d.row_stride, d.plane_stride, eb);
  return out;
}

}  // namespace flycol
