// SystemC module of the pooling unit (docs/microarchitecture.md, section 16, "The pooling RUN"):
// the ROWS pool lanes behind the issue stage and their window framing, with the port names of the
// RTL twin pool_unit.sv. It wraps PoolUnitCore; the structural top (hw/top/structural_top.h) and
// tb/pool/pool_unit_tb.cpp bind it.
#pragma once

#include <systemc>

#include "hw/common/hw_params.h"
#include "hw/common/sc_core_module.h"
#include "hw/feeder/feeder.h"  // FeederRun: the RUN fields on one port, as the feeder takes them
#include "hw/pool/pool_unit_core.h"

namespace flycol::hw {

// ScCoreModule: the clock and reset ports clk_i and rst_ni, core() and the comb()/seq() frame.
// Every output is a register (Moore).
struct PoolUnit : ScCoreModule<PoolUnitCore> {
  sc_core::sc_in<bool> start_i{"start_i"};                    // the EX engine starts a RUN with run_i
  sc_core::sc_in<FeederRun> run_i{"run_i"};                   // RUN fields, read when start_i
  sc_core::sc_in<bool> pop_i{"pop_i"};                        // the issue stage pops every feed lane
  sc_core::sc_vector<sc_core::sc_in<elem_t>> lane_data_i;     // ROWS feed-lane heads
  sc_core::sc_out<bool> pool_ready_o{"pool_ready_o"};         // the lanes take the next elements (Moore)
  sc_core::sc_out<bool> res_valid_o{"res_valid_o"};           // a window's ROWS results, for one cycle
  sc_core::sc_vector<sc_core::sc_out<acc_t>> res_word_o;      // ROWS accumulator words

  PoolUnit(sc_core::sc_module_name name, const HwParams& p);

private:
  void comb() override;
  void seq() override;

  int rows_;
  elem_t heads_[kMaxRows]{};
};

}  // namespace flycol::hw
