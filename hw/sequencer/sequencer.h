// SystemC module of the sequencer, the EX engine's issue stage (docs/microarchitecture.md,
// sections 9.4 and 10), with the RTL's port names, wrapping SequencerCore for the block testbench.
// It issues the token flags; the token's operands come from the lanes and the weight FIFO.
#pragma once

#include <cstdint>

#include <systemc>

#include "hw/common/hw_params.h"
#include "hw/common/sc_core_module.h"
#include "hw/common/sc_run_ports.h"
#include "hw/sequencer/sequencer_core.h"

namespace flycol::hw {

// RunIn: the RUN start (start_i) and the RUN fields used by the sequencer: run_preload_i, the
// loop bounds run_n_kg_i ... run_n_kx_i and run_pool_op_i.
// ScCoreModule: the clock and reset ports clk_i and rst_ni, core() and the comb()/seq() frame.
struct Sequencer : ScCoreModule<SequencerCore>, RunIn<kRunPreload | kRunOuter | kRunInner | kRunPool> {
  sc_core::sc_in<bool> lanes_ready_i{"lanes_ready_i"};        // every feed lane has an element
  sc_core::sc_in<bool> weight_ready_i{"weight_ready_i"};      // the weight FIFO has a word
  sc_core::sc_in<int> unclaimed_i{"unclaimed_i"};             // preload words queued, not yet claimed
  sc_core::sc_in<bool> finish_i{"finish_i"};                  // last result of the RUN written this cycle
  sc_core::sc_in<bool> pool_ready_i{"pool_ready_i"};          // the pooling unit takes elements (Moore)

  sc_core::sc_out<bool> token_valid_o{"token_valid_o"};       // a MAC step (Mealy)
  sc_core::sc_out<bool> token_swap_o{"token_swap_o"};         // swap accumulators / reserve (Mealy)
  sc_core::sc_out<bool> token_window_o{"token_window_o"};     // opens a reserve-chain window (Mealy)
  sc_core::sc_out<bool> pop_o{"pop_o"};                       // pop the feed lanes (Mealy)
  sc_core::sc_out<bool> weight_pop_o{"weight_pop_o"};         // pop the weight FIFO: MAC steps (Mealy)
  sc_core::sc_out<bool> claim_o{"claim_o"};                   // claim COLS preload words (Mealy)
  sc_core::sc_out<bool> busy_o{"busy_o"};                     // a RUN is active (Moore)
  sc_core::sc_out<int> cycle_kind_o{"cycle_kind_o"};          // statistics: SequencerCore::CycleKind (Mealy)

  Sequencer(sc_core::sc_module_name name, const HwParams& p);

private:
  void comb() override;
  void seq() override;
  SequencerCore::In inputs() const;
};

}  // namespace flycol::hw
