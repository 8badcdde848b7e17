// SystemC module of one pool lane (docs/microarchitecture.md, section 16, "Pool lane interface"),
// with the port names of the RTL twin pool_lane.sv. It wraps PoolLaneCore; tb/pool/pool_lane_tb.cpp
// drives one directly.
#pragma once

#include <cstdint>

#include <systemc>

#include "hw/common/hw_params.h"
#include "hw/pool/pool_lane_core.h"

namespace flycol::hw {

SC_MODULE(PoolLane) {
  sc_core::sc_in<bool> clk_i{"clk_i"};
  sc_core::sc_in<bool> rst_ni{"rst_ni"};             // synchronous in this model, active low
  sc_core::sc_in<bool> in_valid_i{"in_valid_i"};     // an element; taken in a cycle with in_ready_o
  sc_core::sc_out<bool> in_ready_o{"in_ready_o"};    // low only for a last divider-path element while the divider is busy
  sc_core::sc_in<bool> in_first_i{"in_first_i"};     // the element is the first of its window
  sc_core::sc_in<bool> in_last_i{"in_last_i"};       // ... the last (both for a window of one)
  sc_core::sc_in<elem_t> in_elem_i{"in_elem_i"};     // element bits (EW wide)
  sc_core::sc_in<std::uint8_t> op_i{"op_i"};         // 0 max, 1 average, 2 argmax, 3 masked sum
  sc_core::sc_in<bool> pad_i{"pad_i"};               // the element is padding (argmax ignores it)
  sc_core::sc_in<std::uint32_t> count_i{"count_i"};  // divisor, with the last element of an average window
  sc_core::sc_in<bool> pow2_i{"pow2_i"};             // ... and whether it is 0 or 2^k: a one-cycle divider
  sc_core::sc_out<bool> out_valid_o{"out_valid_o"};  // a window's result, for one cycle
  sc_core::sc_out<acc_t> out_value_o{"out_value_o"}; // binary16, or int32 sign-extended

  SC_HAS_PROCESS(PoolLane);
  PoolLane(sc_core::sc_module_name name, const HwParams& p);

  const PoolLaneCore& core() const { return core_; }

private:
  void seq();
  void comb();  // every output: in_ready_o from the inputs and the divider, the rest registers
  PoolLaneIn inputs() const;
  sc_core::sc_event state_changed_;

  PoolLaneCore core_;
};

}  // namespace flycol::hw
