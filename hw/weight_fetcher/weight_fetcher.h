// SystemC module of the weight fetcher (docs/microarchitecture.md, section 9.3) with the RTL's
// port names, wrapping WeightFetcherCore for the block testbench. The weight SRAM bank is a shared
// common cell passed by reference; this module is its only client here and ticks it at the edge.
#pragma once

#include <cstdint>

#include <systemc>

#include "hw/common/hw_params.h"
#include "hw/common/sc_core_module.h"
#include "hw/common/sc_run_ports.h"
#include "hw/common/sc_sram_client.h"
#include "hw/common/sram_bank.h"
#include "hw/weight_fetcher/weight_fetcher_core.h"

namespace flycol::hw {

// RunIn: the RUN start (start_i) and the RUN fields used by the fetcher: run_n_kg_i, run_n_cy_i,
// run_n_cx_i, run_n_c_i, run_n_ky_i, run_n_kx_i, run_pool_op_i (a pooling RUN reads nothing).
// ScCoreModule: the clock and reset ports clk_i and rst_ni, core() and the comb()/seq() frame.
struct WeightFetcher : ScCoreModule<WeightFetcherCore>, RunIn<kRunOuter | kRunInner | kRunPool> {
  sc_core::sc_in<bool> pop_i{"pop_i"};                    // issue stage takes the head word
  sc_core::sc_out<bool> valid_o{"valid_o"};               // weight FIFO not empty (Moore)
  sc_core::sc_vector<sc_core::sc_out<elem_t>> word_o{"word_o"};  // head word, COLS weights (Moore)
  sc_core::sc_out<bool> busy_o{"busy_o"};                 // reads left or a read in flight (Moore)

  // Weight SRAM port (port mode only, as weight_fetcher.sv; the fetcher only reads).
  sc_core::sc_out<bool> weight_req_o{"weight_req_o"};     // read the RUN's buffer this cycle (Moore)
  sc_core::sc_out<std::uint32_t> weight_addr_o{"weight_addr_o"};  // its word address
  sc_core::sc_vector<sc_core::sc_in<word_elem_t>> weight_rdata_i{"weight_rdata_i"};  // COLS: held last read

  // Bank mode (the block testbench): the module reads `weight_bank` and ticks it at the edge; the
  // SRAM port signals are bound inside the module and unused.
  WeightFetcher(sc_core::sc_module_name name, const HwParams& p, SramBank& weight_bank);
  // Port mode (the structural top): the SRAM is outside, reached through the SRAM port signals.
  WeightFetcher(sc_core::sc_module_name name, const HwParams& p);

private:
  void init();
  void comb() override;
  void seq() override;

  int cols_;
  ScSramClient sram_;
};

}  // namespace flycol::hw
