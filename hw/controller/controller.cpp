// SystemC wrapper of ControllerCore: Mealy outputs from eval() whenever an input or the state
// changes; at the rising edge one eval() with the cycle's settled inputs, then the done pulses
// (the core wants them after the cycle's last eval), then tick(). Protocol errors become SC_ERROR.
#include "hw/controller/controller.h"

#include "hw/common/protocol_error.h"

namespace flycol::hw {

bool operator==(const DmaDesc& a, const DmaDesc& b) {
  return a.buf == b.buf && a.dram_addr == b.dram_addr && a.n_planes == b.n_planes &&
         a.plane_stride == b.plane_stride && a.n_rows == b.n_rows && a.row_stride == b.row_stride &&
         a.row_len == b.row_len && a.pad_left == b.pad_left && a.pad_right == b.pad_right &&
         a.pad_top == b.pad_top && a.pad_bottom == b.pad_bottom && a.tail == b.tail &&
         a.elem_step == b.elem_step && a.pad_value == b.pad_value && a.dst_ifmap == b.dst_ifmap &&
         a.dst_buf == b.dst_buf;
}

bool operator==(const RunDesc& a, const RunDesc& b) {
  return a.ifmap_buf == b.ifmap_buf && a.weight_buf == b.weight_buf && a.psum_buf == b.psum_buf &&
         a.preload == b.preload && a.n_kg == b.n_kg && a.n_cy == b.n_cy && a.n_cx == b.n_cx && a.n_c == b.n_c &&
         a.n_ky == b.n_ky && a.n_kx == b.n_kx && a.step_cx == b.step_cx && a.step_cy == b.step_cy &&
         a.step_c == b.step_c && a.step_ky == b.step_ky && a.region == b.region &&
         a.lane_stride == b.lane_stride && a.pattern == b.pattern && a.n_kxc == b.n_kxc &&
         a.step_kxc == b.step_kxc && a.region_kxc == b.region_kxc && a.pattern_kxc == b.pattern_kxc &&
         a.pack_w == b.pack_w && a.pack_r == b.pack_r && a.pack_jump == b.pack_jump &&
         a.pool_op == b.pool_op && a.pool_sy == b.pool_sy && a.pool_y0 == b.pool_y0 && a.pool_x0 == b.pool_x0 &&
         a.pool_y1 == b.pool_y1 && a.pool_x1 == b.pool_x1 && a.pool_ky == b.pool_ky && a.pool_kx == b.pool_kx &&
         a.pool_sx == b.pool_sx;
}

bool operator==(const Command& a, const Command& b) {
  return a.op == b.op && a.wait_ld == b.wait_ld && a.wait_ex == b.wait_ex && a.wait_ps == b.wait_ps &&
         a.dma == b.dma && a.run == b.run;
}

std::ostream& operator<<(std::ostream& os, const Command& c) { return os << c.to_string(); }

void sc_trace(sc_core::sc_trace_file* tf, const Command& c, const std::string& name) {
  // The trace file keeps references to the fields, which live inside the signal's value.
  // Opcode's underlying type is uint8_t, so reading it as unsigned char is a permitted alias.
  sc_core::sc_trace(tf, reinterpret_cast<const unsigned char&>(c.op), name + ".op", 3);
  sc_core::sc_trace(tf, c.wait_ld, name + ".wait_ld");
  sc_core::sc_trace(tf, c.wait_ex, name + ".wait_ex");
  sc_core::sc_trace(tf, c.wait_ps, name + ".wait_ps");
  sc_core::sc_trace(tf, c.dma.buf, name + ".dma.buf");
  sc_core::sc_trace(tf, c.dma.dram_addr, name + ".dma.dram_addr");
  sc_core::sc_trace(tf, c.run.preload, name + ".run.preload");
  sc_core::sc_trace(tf, c.run.n_kg, name + ".run.n_kg");
  sc_core::sc_trace(tf, c.run.n_cy, name + ".run.n_cy");
  sc_core::sc_trace(tf, c.run.n_cx, name + ".run.n_cx");
  sc_core::sc_trace(tf, c.run.n_c, name + ".run.n_c");
  sc_core::sc_trace(tf, c.run.n_ky, name + ".run.n_ky");
  sc_core::sc_trace(tf, c.run.n_kx, name + ".run.n_kx");
}

Controller::Controller(sc_core::sc_module_name name, const HwParams& p) : ScCoreModule(name, p) {
  processes(cmd_valid_i, cmd_i, busy_i);
}

ControllerCore::In Controller::inputs() const {
  ControllerCore::In in;
  in.cmd_valid = cmd_valid_i.read();
  in.cmd = cmd_i.read();
  for (int e = 0; e < kEngines; ++e) in.engine_busy[e] = busy_i[std::size_t(e)].read();
  return in;
}

void Controller::comb() {
  ControllerCore::In in = inputs();
  const ControllerCore::Out* out = nullptr;
  try {
    out = &core_.eval(in);
  } catch (const ProtocolError&) {
    // An illegal command is reported once, by seq() at the edge where it would be accepted (the
    // offer may still be a delta-cycle glitch here); the outputs do not depend on the acceptance.
    in.cmd_valid = false;
    out = &core_.eval(in);
  }
  cmd_ready_o.write(out->cmd_ready);
  for (int e = 0; e < kEngines; ++e) {
    start_o[std::size_t(e)].write(out->start[e]);
    start_cmd_o[std::size_t(e)].write(out->start_cmd[e]);
  }
  idle_o.write(out->idle);
}

void Controller::seq() {
  clock([&] {
    core_.eval(inputs());
    for (int e = 0; e < kEngines; ++e)
      if (done_i[std::size_t(e)].read()) core_.note_done(Engine(e));
    core_.tick();
  });
}

}  // namespace flycol::hw
