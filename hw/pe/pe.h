// SystemC module of one processing element (docs/microarchitecture.md, section 9.5), with the port
// names of the RTL twin pe.sv. It wraps PeCore; the signal-level array (hw/array/array.h) is built
// from these, and tb/pe/pe_tb.cpp drives one directly.
#pragma once

#include <systemc>

#include "hw/common/hw_params.h"
#include "hw/pe/pe_core.h"

namespace flycol::hw {

SC_MODULE(Pe) {
  sc_core::sc_in<bool> clk_i{"clk_i"};
  sc_core::sc_in<bool> rst_ni{"rst_ni"};      // synchronous in this model, active low
  sc_core::sc_in<elem_t> a_i{"a_i"};          // ifmap element from the west
  sc_core::sc_in<elem_t> w_i{"w_i"};          // weight from the north
  sc_core::sc_in<bool> valid_i{"valid_i"};    // MAC step
  sc_core::sc_in<bool> swap_i{"swap_i"};      // swap accumulator and the current reserve bank after this step
  sc_core::sc_in<bool> window_i{"window_i"};  // window flag: passed on, and moves the bank pointer
  sc_core::sc_in<acc_t> res_i{"res_i"};       // reserve chain from the west (preload in column 0)
  sc_core::sc_in<bool> shift_i{"shift_i"};    // the row shifts a reserve chain this cycle
  sc_core::sc_in<bool> shift_bank_i{"shift_bank_i"};  // which bank's chain: shifted, and shown on res_o
  sc_core::sc_out<elem_t> a_o{"a_o"};         // registered a, to the east
  sc_core::sc_out<elem_t> w_o{"w_o"};         // registered w, to the south
  sc_core::sc_out<bool> valid_o{"valid_o"};
  sc_core::sc_out<bool> swap_o{"swap_o"};
  sc_core::sc_out<bool> window_o{"window_o"};
  sc_core::sc_out<acc_t> res_o{"res_o"};      // reserve bank shift_bank_i, to the east (result out in column COLS-1)
  sc_core::sc_out<acc_t> acc_o{"acc_o"};      // accumulator, for tests and waveforms

  SC_HAS_PROCESS(Pe);
  Pe(sc_core::sc_module_name name, const HwParams& p);

  const PeCore& core() const { return core_; }

private:
  void seq();
  void comb();  // res_o: the only output that is not a register (a mux of the two banks)
  sc_core::sc_event state_changed_;

  PeCore core_;
};

}  // namespace flycol::hw
