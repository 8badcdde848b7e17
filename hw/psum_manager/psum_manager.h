// SystemC module of the partial-sums manager (docs/microarchitecture.md, section 9.6, without the
// skew/de-skew registers) with the RTL's port names, wrapping PsumManagerCore for the block
// testbench. The psum SRAM bank is a shared common cell passed by reference; this module is its
// only client here and ticks it at the edge.
#pragma once

#include <cstdint>

#include <systemc>

#include "hw/common/hw_params.h"
#include "hw/common/sram_bank.h"
#include "hw/psum_manager/psum_manager_core.h"

namespace flycol::hw {

SC_MODULE(PsumManager) {
  sc_core::sc_in<bool> clk_i{"clk_i"};
  sc_core::sc_in<bool> rst_ni{"rst_ni"};                    // synchronous model of the async reset

  sc_core::sc_in<bool> start_i{"start_i"};                  // the EX engine starts a RUN this cycle
  sc_core::sc_in<bool> run_preload_i{"run_preload_i"};      // RUN fields used by the manager
  sc_core::sc_in<std::uint32_t> run_n_kg_i{"run_n_kg_i"};
  sc_core::sc_in<std::uint32_t> run_n_cy_i{"run_n_cy_i"};
  sc_core::sc_in<std::uint32_t> run_n_cx_i{"run_n_cx_i"};

  sc_core::sc_out<int> unclaimed_o{"unclaimed_o"};          // pq_count - claimed (Moore)
  sc_core::sc_in<bool> claim_i{"claim_i"};                  // a window token claims COLS words

  sc_core::sc_in<bool> pre_pop_i{"pre_pop_i"};              // the array takes a preload word
  sc_core::sc_vector<sc_core::sc_out<acc_t>> pre_word_o{"pre_word_o"};  // ROWS accumulators (Mealy)

  sc_core::sc_in<bool> res_valid_i{"res_valid_i"};          // the array delivers a result word
  sc_core::sc_in<int> res_col_i{"res_col_i"};               // its column
  sc_core::sc_vector<sc_core::sc_in<acc_t>> res_word_i{"res_word_i"};   // ROWS accumulators

  sc_core::sc_out<bool> busy_o{"busy_o"};                   // RUN active, results left (Moore)
  sc_core::sc_out<bool> run_done_o{"run_done_o"};           // last result written now (Moore)

  PsumManager(sc_core::sc_module_name name, const HwParams& p, SramBank& psum_bank);
  SC_HAS_PROCESS(PsumManager);

  const PsumManagerCore& core() const { return core_; }

private:
  void comb();
  void seq();

  int rows_;
  SramBank& bank_;
  PsumManagerCore core_;
  acc_t res_buf_[kMaxRows]{};
  sc_core::sc_event state_changed_;
};

}  // namespace flycol::hw
