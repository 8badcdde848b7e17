// Pool lane core (docs/microarchitecture.md, section 16 "Pool lane datapath" and "Pool lane
// interface"; arithmetic of section 15): one lane of the pooling unit, which reduces the windows
// the data feeder delivers, one element per cycle: a max comparator with its result register, an
// exact fixed-point (binary16) or integer sum with the special-value flags, and the iterative
// radix-4 divider of the average (D = 21 cycles binary16, 16 integer; 1 for a window the unit marks pow2_i,
// whose divisor is 0 or a power of two and is divided by a shift); for max pooling's backward pass
// the argmax (the position of a window's max among its non-padding elements, counted from the
// window's end) and the masked sum (an average of (index, value) pairs that counts a value only
// where its index is the pair's number). Register-transfer model of the RTL twin pool_lane.sv, with
// eval()/tick() and _q/_d registers like the other block cores.
#pragma once

#include <cstdint>

#include "hw/common/hw_params.h"

namespace flycol::hw {

// op_i (2 bits): bit 0 set means the window goes through the divider (average, masked sum).
enum class PoolLaneOp : std::uint8_t { Max = 0, Average = 1, Argmax = 2, MaskedSum = 3 };
inline bool divides(PoolLaneOp op) { return (unsigned(op) & 1u) != 0; }

// The inputs of one cycle (in_valid_i, in_first_i, in_last_i, in_elem_i, op_i, pad_i, count_i, pow2_i).
struct PoolLaneIn {
  bool valid = false, first = false, last = false;
  elem_t elem = 0;          // element bits (EW wide; bits above an int8 element are ignored)
  PoolLaneOp op = PoolLaneOp::Max;  // op_i; constant within a window
  bool pad = false;         // pad_i: the element is padding (an argmax window ignores it)
  std::uint32_t count = 0;  // with the last element of an average window: its divisor, 0 .. 65536
  bool pow2 = false;        // pow2_i, with the last element of an average window: count is 0 or a power
                            // of two, and the divider takes one cycle (a shift) instead of D
};

class PoolLaneCore {
public:
  // Two quotient bits per cycle (radix 4).
  static constexpr int kDividerCyclesFp16 = 21;  // Q = floor(2|S| / n): 41 bits, formed in 42
  static constexpr int kDividerCyclesInt = 16;   // q = floor((2|s| + n) / (2n)), 32 bits
  static constexpr int kDividerCyclesPow2 = 1;  // a divisor of 0 or 2^k: the quotient is a shift
  static constexpr std::uint32_t kMaxCount = 65536;
  // An argmax window without a valid element (no window position counted from the end is this).
  static constexpr acc_t kNoArgmax = 0xFFFF;

  explicit PoolLaneCore(const HwParams& p);

  void reset();
  // Next state from the registers and `in`; repeatable within a cycle. Throws ProtocolError for
  // in_first_i without in_valid_i, and for an element taken with in_first_i while a window is open,
  // without it while none is, with an op_i other than its window's, with count_i > 65536 as the
  // last of an average or masked-sum window, with pow2_i and a count_i that is neither 0 nor a power
  // of two, as the last of a max or argmax window in the cycle the divider finishes (both results
  // would need the output port at the same edge), or as an element at position 65536 or later of
  // an argmax or masked-sum window (the position counter's range).
  void eval(const PoolLaneIn& in);
  // in_ready_o of the inputs of the last eval().
  bool in_ready() const { return ready_; }
  // in_ready_o for these inputs without eval() (no protocol checks; for the SystemC module's
  // combinational process): low only for the last element of a window through the divider
  // (average, masked sum) while the divider holds a window whose last step is not this cycle.
  bool ready_for(bool valid, bool last, PoolLaneOp op) const {
    return !(valid && last && divides(op) && div_cnt_q_ > 1);
  }
  void tick();

  // Registered outputs: a window's result for one cycle. out_value() is binary16 bits, or int32
  // bits (the int8 / int16 result sign-extended); it holds its last value while out_valid() is
  // low, which means nothing.
  bool out_valid() const { return out_valid_q_; }
  acc_t out_value() const { return out_value_q_; }
  // The divider's remaining steps: D (1 with pow2_i) after the edge that loads it, 1 in its last
  // step, 0 idle.
  int divider_left() const { return div_cnt_q_; }
  int divider_cycles() const { return div_cycles_; }

  // Statistics (reset with the registers): windows whose last element was taken, and cycles in
  // which an element waited for the divider (in_valid_i high, in_ready_o low).
  std::uint64_t windows() const { return windows_q_; }
  std::uint64_t divider_stall_cycles() const { return stall_q_; }

private:
  acc_t max_result(elem_t m, bool nan) const;
  acc_t average(std::int64_t sum, bool nan, bool pos_inf, bool neg_inf, std::uint32_t count) const;

  Arithmetic arith_;
  int elem_bits_;
  int div_cycles_;

  bool ready_ = true;
  // The open window: whether one is open (first taken, last not yet), its op, and the position of
  // its next element (argmax and masked sum; 0 .. 65536).
  bool open_q_ = false, open_d_ = false;
  PoolLaneOp op_q_ = PoolLaneOp::Max, op_d_ = PoolLaneOp::Max;
  std::uint32_t pos_q_ = 0, pos_d_ = 0;
  // Max and argmax: the running maximum (element bits); NaN seen (max: sticky; argmax: a valid
  // NaN, which ends the search; average: a NaN element).
  elem_t max_q_ = 0, max_d_ = 0;
  bool nan_q_ = false, nan_d_ = false;
  // Argmax: a valid element seen, and the position of the best one. Masked sum: the last index
  // element matched its pair's number.
  bool any_q_ = false, any_d_ = false;
  std::uint32_t best_pos_q_ = 0, best_pos_d_ = 0;
  bool hit_q_ = false, hit_d_ = false;
  // Average: the exact sum (binary16: units of 2^-24, 56 bits; integers: 40 bits) and the infinities.
  std::int64_t sum_q_ = 0, sum_d_ = 0;
  bool pinf_q_ = false, pinf_d_ = false, ninf_q_ = false, ninf_d_ = false;
  // Divider: steps left and the window's result (computed when it is loaded, shown after D steps).
  int div_cnt_q_ = 0, div_cnt_d_ = 0;
  acc_t div_result_q_ = 0, div_result_d_ = 0;
  // Output register.
  bool out_valid_q_ = false, out_valid_d_ = false;
  acc_t out_value_q_ = 0, out_value_d_ = 0;
  std::uint64_t windows_q_ = 0, windows_d_ = 0, stall_q_ = 0, stall_d_ = 0;
};

}  // namespace flycol::hw
