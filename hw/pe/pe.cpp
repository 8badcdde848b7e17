// SystemC wrapper of PeCore. Every output but res_o is a register, written by the clocked process
// after the edge; res_o shows the bank the row selects, so it follows shift_bank_i as well.
#include "hw/pe/pe.h"

#include "hw/common/sc_clocked.h"

namespace flycol::hw {

Pe::Pe(sc_core::sc_module_name name, const HwParams& p) : sc_core::sc_module(name), core_(p) {
  SC_METHOD(seq);
  sensitive << clk_i.pos();
  dont_initialize();
  SC_METHOD(comb);
  sensitive << shift_bank_i << state_changed_;
}

void Pe::comb() { res_o.write(core_.res_out(shift_bank_i.read() ? 1 : 0)); }

void Pe::seq() {
  const bool ok = clock_core(*this, rst_ni.read(), core_, [&] {
    PeIn in;
    in.a = a_i.read();
    in.w = w_i.read();
    in.valid = valid_i.read();
    in.swap = swap_i.read();
    in.window = window_i.read();
    in.res_in = res_i.read();
    in.shift = shift_i.read();
    in.shift_bank = shift_bank_i.read() ? 1 : 0;
    core_.eval(in);
    core_.tick();
  });
  if (!ok) return;
  a_o.write(core_.a_q());
  w_o.write(core_.w_q());
  valid_o.write(core_.valid_q());
  swap_o.write(core_.swap_q());
  window_o.write(core_.window_q());
  state_changed_.notify(sc_core::SC_ZERO_TIME);
  acc_o.write(core_.acc_q());
}

}  // namespace flycol::hw
