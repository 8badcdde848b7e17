// SystemC module of one feed lane (RTL twin: feed_lane.sv), wrapping FeedLaneCore with the RTL's
// ports. The lane's stall leaves as lane_stall_o; the feeder's OR over all lanes comes back as
// global_stall_i, the two-step evaluation the RTL does with one combinational OR.
#pragma once

#include <cstdint>

#include <systemc>

#include "hw/common/hw_params.h"
#include "hw/common/sc_core_module.h"
#include "hw/feeder/feed_lane_core.h"

namespace flycol::hw {

// ScCoreModule: the clock and reset ports clk_i and rst_ni, core() and the comb()/seq() frame.
struct FeedLane : ScCoreModule<FeedLaneCore> {
  sc_core::sc_in<bool> valid_i{"valid_i"};                // the selection stage holds a word
  sc_core::sc_in<int> shift_i{"shift_i"};                 // s = b + lane*lane_stride
  sc_core::sc_in<bool> flush_i{"flush_i"};                // the word is the RUN's last read
  sc_core::sc_in<std::uint64_t> pattern_i{"pattern_i"};   // kernel pattern, PB bits
  sc_core::sc_vector<sc_core::sc_in<word_elem_t>> word_i;  // B elements of the word
  sc_core::sc_out<bool> lane_stall_o{"lane_stall_o"};     // this lane needs the word another cycle
  sc_core::sc_in<bool> global_stall_i{"global_stall_i"};  // valid and the OR of all lanes' stalls
  sc_core::sc_out<bool> elem_valid_o{"elem_valid_o"};     // the lane FIFO is not empty
  sc_core::sc_out<elem_t> elem_o{"elem_o"};               // head element (0 when empty)
  sc_core::sc_in<bool> pop_i{"pop_i"};                    // pop the head element

  FeedLane(sc_core::sc_module_name name, const HwParams& p);

private:
  LaneInput sample();
  void comb() override;
  void seq() override;

  HwParams p_;
  word_elem_t word_[kMaxWordElems]{};
};

}  // namespace flycol::hw
