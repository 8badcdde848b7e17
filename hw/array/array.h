// The signal-level PE array (docs/microarchitecture.md 9.4-9.6): ROWS x COLS Pe modules wired by
// signals, with the issue register, feed triangles, row window counters, preload skew line and
// result de-skew of ArrayEdgeCore around them. Slow, and the structure the RTL array.sv mirrors;
// tb/array/array_tb.cpp checks it and the fast ArrayCore (array_core.h) against one reference
// every cycle.
#pragma once

#include <cstdint>

#include <systemc>

#include "hw/array/array_edge.h"
#include "hw/common/hw_params.h"
#include "hw/common/token.h"
#include "hw/pe/pe.h"

namespace flycol::hw {

SC_MODULE(Array) {
  sc_core::sc_in<bool> clk_i{"clk_i"};
  sc_core::sc_in<bool> rst_ni{"rst_ni"};                  // synchronous in this model, active low
  sc_core::sc_in<bool> tok_valid_i{"tok_valid_i"};        // issue decision of this cycle: MAC step
  sc_core::sc_in<bool> tok_swap_i{"tok_swap_i"};          //   swap at the end of a context
  sc_core::sc_in<bool> tok_window_i{"tok_window_i"};      //   opens a reserve-chain window
  sc_core::sc_vector<sc_core::sc_in<elem_t>> tok_a_i;     // [ROWS] ifmap element per row
  sc_core::sc_vector<sc_core::sc_in<elem_t>> tok_w_i;     // [COLS] weight per column
  sc_core::sc_vector<sc_core::sc_in<acc_t>> pre_word_i;   // [ROWS] preload word, read while pre_pop_o
  sc_core::sc_out<bool> pre_pop_o{"pre_pop_o"};           // row 0 shifts: one preload word taken now
  sc_core::sc_out<bool> res_valid_o{"res_valid_o"};       // a result word leaves the de-skew now
  sc_core::sc_out<int> res_col_o{"res_col_o"};            // its column (0 when !res_valid_o)
  sc_core::sc_vector<sc_core::sc_out<acc_t>> res_word_o;  // [ROWS] the result word

  SC_HAS_PROCESS(Array);
  Array(sc_core::sc_module_name name, const HwParams& p);

  int rows() const { return rows_; }
  int cols() const { return cols_; }
  // For tests: the accumulator of PE(r,c), and statistics (MAC steps issued, gated MACs of all PEs).
  acc_t acc_bits(int r, int c) const { return pe_[std::size_t(r * cols_ + c)].core().acc_q(); }
  std::uint64_t mac_tokens() const { return edge_.mac_tokens(); }
  std::uint64_t gated_macs() const;

private:
  void comb();
  void seq();
  void read_east();
  int idx(int r, int c) const { return r * cols_ + c; }

  int rows_, cols_;
  ArrayEdgeCore edge_;
  Token tok_;
  acc_t pre_word_[kMaxRows]{};
  bool east_window_[kMaxRows]{};
  acc_t east_res_[kMaxRows]{};
  sc_core::sc_event state_changed_;

  sc_core::sc_vector<Pe> pe_;
  // Outputs of PE(r,c), index r*COLS+c.
  sc_core::sc_vector<sc_core::sc_signal<elem_t>> a_, w_;
  sc_core::sc_vector<sc_core::sc_signal<bool>> valid_, swap_, window_;
  sc_core::sc_vector<sc_core::sc_signal<acc_t>> res_, acc_;
  // West edge per row, north edge per column.
  sc_core::sc_vector<sc_core::sc_signal<elem_t>> feed_a_, feed_w_;
  sc_core::sc_vector<sc_core::sc_signal<bool>> feed_valid_, feed_swap_, feed_window_, shift_, shift_bank_;
  sc_core::sc_vector<sc_core::sc_signal<acc_t>> res_in_;
};

}  // namespace flycol::hw
