// SystemC module of the partial-sums manager (docs/microarchitecture.md, section 9.6, without the
// skew/de-skew registers) with the RTL's port names, wrapping PsumManagerCore for the block
// testbench. The psum SRAM bank is a shared common cell passed by reference; this module is its
// only client here and ticks it at the edge.
#pragma once

#include <cstdint>

#include <systemc>

#include "hw/common/hw_params.h"
#include "hw/common/sc_core_module.h"
#include "hw/common/sc_run_ports.h"
#include "hw/common/sc_sram_client.h"
#include "hw/common/sram_bank.h"
#include "hw/psum_manager/psum_manager_core.h"

namespace flycol::hw {

// RunIn: the RUN start (start_i) and the RUN fields used by the manager: run_preload_i,
// run_n_kg_i, run_n_cy_i, run_n_cx_i, run_n_c_i (with run_n_ky_i, run_n_kx_i of the same group,
// unused) and run_pool_op_i.
// ScCoreModule: the clock and reset ports clk_i and rst_ni, core() and the comb()/seq() frame.
struct PsumManager : ScCoreModule<PsumManagerCore>, RunIn<kRunPreload | kRunOuter | kRunInner | kRunPool> {
  sc_core::sc_out<int> unclaimed_o{"unclaimed_o"};          // pq_count - claimed (Moore)
  sc_core::sc_in<bool> claim_i{"claim_i"};                  // a window token claims COLS words

  sc_core::sc_in<bool> pre_pop_i{"pre_pop_i"};              // the array takes a preload word
  sc_core::sc_vector<sc_core::sc_out<acc_t>> pre_word_o{"pre_word_o"};  // ROWS accumulators (Mealy)

  sc_core::sc_in<bool> res_valid_i{"res_valid_i"};          // the array delivers a result word
  sc_core::sc_in<int> res_col_i{"res_col_i"};               // its column
  sc_core::sc_vector<sc_core::sc_in<acc_t>> res_word_i{"res_word_i"};   // ROWS accumulators

  sc_core::sc_in<bool> pool_valid_i{"pool_valid_i"};        // the pooling unit delivers a result word
  sc_core::sc_vector<sc_core::sc_in<acc_t>> pool_word_i{"pool_word_i"};  // ROWS results

  sc_core::sc_out<bool> busy_o{"busy_o"};                   // RUN active, results left (Moore)
  sc_core::sc_out<bool> run_done_o{"run_done_o"};           // last result written now (Moore)

  // Psum SRAM port (port mode only, as psum_manager.sv).
  sc_core::sc_out<bool> psum_req_o{"psum_req_o"};           // access the RUN's buffer this cycle (Moore)
  sc_core::sc_out<bool> psum_we_o{"psum_we_o"};             // 1 write (result), 0 read (preload)
  sc_core::sc_out<std::uint32_t> psum_addr_o{"psum_addr_o"};  // word address
  sc_core::sc_vector<sc_core::sc_out<word_elem_t>> psum_wdata_o{"psum_wdata_o"};  // ROWS: write word
  sc_core::sc_out<std::uint64_t> psum_wmask_o{"psum_wmask_o"};  // element write mask
  sc_core::sc_vector<sc_core::sc_in<word_elem_t>> psum_rdata_i{"psum_rdata_i"};   // ROWS: held last read

  // Bank mode (the block testbench): the module uses `psum_bank` and ticks it at the edge; the
  // SRAM port signals are bound inside the module and unused.
  PsumManager(sc_core::sc_module_name name, const HwParams& p, SramBank& psum_bank);
  // Port mode (the structural top): the SRAM is outside, reached through the SRAM port signals.
  PsumManager(sc_core::sc_module_name name, const HwParams& p);

private:
  void init();
  void comb() override;
  void seq() override;

  int rows_;
  ScSramClient sram_;
  acc_t res_buf_[kMaxRows]{};
  acc_t pool_buf_[kMaxRows]{};
};

}  // namespace flycol::hw
