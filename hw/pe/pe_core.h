// Processing element core (docs/microarchitecture.md, section 9.5): one output-stationary PE with
// its accumulator, two reserve registers (banks; links of the row's preload/result shift chains)
// with the bank pointer, and the pass-through registers of the systolic links. Register-transfer model of the RTL twin pe.sv.
#pragma once

#include <cstdint>

#include "hw/common/hw_params.h"

namespace flycol::hw {

// Inputs of one cycle: from the west (a, the flags, the reserve chain) and the north (w), plus the
// row's shift enable and the bank it shifts.
struct PeIn {
  elem_t a = 0, w = 0;
  bool valid = false, swap = false, window = false;
  acc_t res_in = 0;
  bool shift = false;
  int shift_bank = 0;  // 0 or 1: the bank the row shifts, and the one res_out() shows
};

class PeCore {
public:
  explicit PeCore(const HwParams& p);

  void reset();
  // Next state from the registers and `in`; repeatable within a cycle. Throws ProtocolError when
  // swap and a shift of the swapped bank are both high.
  void eval(const PeIn& in);
  void tick();

  // Registered outputs. a/w are the element bits (EW wide), acc/res the accumulator bits (AW wide).
  elem_t a_q() const { return a_q_; }
  elem_t w_q() const { return w_q_; }
  bool valid_q() const { return valid_q_; }
  bool swap_q() const { return swap_q_; }
  bool window_q() const { return window_q_; }
  acc_t acc_q() const { return acc_q_; }
  // The reserve chain output to the east: bank `shift_bank` (the one the row shifts, or shifted last).
  acc_t res_out(int shift_bank) const { return res_q_[shift_bank]; }

  // Statistics: MAC steps seen (valid), and those of them that were gated (a zero operand while
  // zero gating is on; for integer arithmetic too, where gating only saves the multiplier).
  std::uint64_t macs() const { return macs_q_; }
  std::uint64_t gated() const { return gated_q_; }

private:
  acc_t mac(elem_t a, elem_t w, acc_t acc, bool& gated) const;

  Arithmetic arith_;
  bool gating_;
  elem_t elem_mask_;
  acc_t acc_mask_;

  elem_t a_q_ = 0, w_q_ = 0, a_d_ = 0, w_d_ = 0;
  bool valid_q_ = false, swap_q_ = false, window_q_ = false;
  bool valid_d_ = false, swap_d_ = false, window_d_ = false;
  acc_t acc_q_ = 0, acc_d_ = 0;
  acc_t res_q_[2]{}, res_d_[2]{};
  int bank_q_ = 0, bank_d_ = 0;
  std::uint64_t macs_q_ = 0, gated_q_ = 0, macs_d_ = 0, gated_d_ = 0;
};

}  // namespace flycol::hw
