// SystemC module of the weight fetcher (docs/microarchitecture.md, section 9.3) with the RTL's
// port names, wrapping WeightFetcherCore for the block testbench. The weight SRAM bank is a shared
// common cell passed by reference; this module is its only client here and ticks it at the edge.
#pragma once

#include <cstdint>

#include <systemc>

#include "hw/common/hw_params.h"
#include "hw/common/sram_bank.h"
#include "hw/weight_fetcher/weight_fetcher_core.h"

namespace flycol::hw {

SC_MODULE(WeightFetcher) {
  sc_core::sc_in<bool> clk_i{"clk_i"};
  sc_core::sc_in<bool> rst_ni{"rst_ni"};                  // synchronous model of the async reset

  sc_core::sc_in<bool> start_i{"start_i"};                // the EX engine starts a RUN this cycle
  sc_core::sc_in<std::uint32_t> run_n_kg_i{"run_n_kg_i"}; // RUN fields used by the fetcher
  sc_core::sc_in<std::uint32_t> run_n_cy_i{"run_n_cy_i"};
  sc_core::sc_in<std::uint32_t> run_n_cx_i{"run_n_cx_i"};
  sc_core::sc_in<std::uint32_t> run_n_c_i{"run_n_c_i"};
  sc_core::sc_in<std::uint32_t> run_n_ky_i{"run_n_ky_i"};
  sc_core::sc_in<std::uint32_t> run_n_kx_i{"run_n_kx_i"};

  sc_core::sc_in<bool> pop_i{"pop_i"};                    // issue stage takes the head word
  sc_core::sc_out<bool> valid_o{"valid_o"};               // weight FIFO not empty (Moore)
  sc_core::sc_vector<sc_core::sc_out<elem_t>> word_o{"word_o"};  // head word, COLS weights (Moore)
  sc_core::sc_out<bool> busy_o{"busy_o"};                 // reads left or a read in flight (Moore)

  WeightFetcher(sc_core::sc_module_name name, const HwParams& p, SramBank& weight_bank);
  SC_HAS_PROCESS(WeightFetcher);

  const WeightFetcherCore& core() const { return core_; }

private:
  void comb();
  void seq();

  int cols_;
  SramBank& bank_;
  WeightFetcherCore core_;
  sc_core::sc_event state_changed_;
};

}  // namespace flycol::hw
