// SystemC wrapper of PoolLaneCore: the clocked process steps the core at the rising edge, the
// combinational process writes every output (in_ready_o follows in_valid_i, in_last_i and op_i in
// the same cycle; out_valid_o and out_value_o are the core's registers).
#include "hw/pool/pool_lane.h"

#include "hw/common/sc_clocked.h"

namespace flycol::hw {

PoolLane::PoolLane(sc_core::sc_module_name name, const HwParams& p) : sc_core::sc_module(name), core_(p) {
  SC_METHOD(seq);
  sensitive << clk_i.pos();
  dont_initialize();
  SC_METHOD(comb);
  sensitive << in_valid_i << in_last_i << op_i << state_changed_;
}

PoolLaneIn PoolLane::inputs() const {
  PoolLaneIn in;
  in.valid = in_valid_i.read();
  in.first = in_first_i.read();
  in.last = in_last_i.read();
  in.elem = in_elem_i.read();
  in.op = PoolLaneOp(op_i.read() & 3u);
  in.pad = pad_i.read();
  in.count = count_i.read();
  in.pow2 = pow2_i.read();
  return in;
}

void PoolLane::comb() {
  in_ready_o.write(core_.ready_for(in_valid_i.read(), in_last_i.read(), PoolLaneOp(op_i.read() & 3u)));
  out_valid_o.write(core_.out_valid());
  out_value_o.write(core_.out_value());
}

void PoolLane::seq() {
  clock_core(*this, rst_ni.read(), core_, [&] {
    core_.eval(inputs());
    core_.tick();
  });
  state_changed_.notify(sc_core::SC_ZERO_TIME);
}

}  // namespace flycol::hw
