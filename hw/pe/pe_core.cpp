// Processing element core: the accumulate/swap/shift rule (two reserve banks) of docs/microarchitecture.md 9.5 on raw
// element and accumulator bits, with the same numerics functions as the golden convolution.
#include "hw/pe/pe_core.h"

#include "base/numerics/int_mac.h"
#include "base/numerics/fp16.h"
#include "hw/common/protocol_error.h"

namespace flycol::hw {

namespace {
std::int32_t sext(elem_t v, int bits) {
  return bits == 8 ? std::int32_t(std::int8_t(std::uint8_t(v))) : std::int32_t(std::int16_t(v));
}
}  // namespace

PeCore::PeCore(const HwParams& p)
    : arith_(p.arithmetic), gating_(p.zero_gating),
      elem_mask_(p.arithmetic == Arithmetic::int8 ? elem_t(0xFF) : elem_t(0xFFFF)),
      acc_mask_(p.arithmetic == Arithmetic::fp16 ? acc_t(0xFFFF) : acc_t(0xFFFFFFFFu)) {
  reset();
}

void PeCore::reset() {
  a_q_ = w_q_ = a_d_ = w_d_ = 0;
  valid_q_ = swap_q_ = window_q_ = valid_d_ = swap_d_ = window_d_ = false;
  acc_q_ = acc_d_ = 0;
  res_q_[0] = res_q_[1] = res_d_[0] = res_d_[1] = 0;
  bank_q_ = bank_d_ = 0;
  macs_q_ = gated_q_ = macs_d_ = gated_d_ = 0;
}

acc_t PeCore::mac(elem_t a, elem_t w, acc_t acc, bool& gated) const {
  if (arith_ == Arithmetic::fp16) {
    gated = gating_ && (fp16::is_zero(a) || fp16::is_zero(w));
    return fp16::mac(a, w, fp16::Bits(acc), gating_);
  }
  const int bits = arith_ == Arithmetic::int8 ? 8 : 16;
  const std::int32_t sa = sext(a, bits), sw = sext(w, bits);
  gated = gating_ && (sa == 0 || sw == 0);
  return acc_t(intmac::mac(sa, sw, std::int32_t(acc)));
}

void PeCore::eval(const PeIn& in) {
  const int b = bank_q_;
  if (in.swap && in.shift && in.shift_bank == b) protocol_error("pe", "swap and shift of one bank in the same cycle");
  const elem_t a = elem_t(in.a & elem_mask_), w = elem_t(in.w & elem_mask_);
  bool gated = false;
  const acc_t m = in.valid ? mac(a, w, acc_q_, gated) : acc_q_;
  res_d_[0] = res_q_[0];
  res_d_[1] = res_q_[1];
  if (in.swap) {
    acc_d_ = res_q_[b];
    res_d_[b] = m;
  } else {
    acc_d_ = m;
  }
  if (in.shift) res_d_[in.shift_bank & 1] = acc_t(in.res_in & acc_mask_);
  bank_d_ = in.window ? 1 - b : b;
  a_d_ = a;
  w_d_ = w;
  valid_d_ = in.valid;
  swap_d_ = in.swap;
  window_d_ = in.window;
  macs_d_ = macs_q_ + (in.valid ? 1u : 0u);
  gated_d_ = gated_q_ + (gated ? 1u : 0u);
}

void PeCore::tick() {
  a_q_ = a_d_;
  w_q_ = w_d_;
  valid_q_ = valid_d_;
  swap_q_ = swap_d_;
  window_q_ = window_d_;
  acc_q_ = acc_d_;
  res_q_[0] = res_d_[0];
  res_q_[1] = res_d_[1];
  bank_q_ = bank_d_;
  macs_q_ = macs_d_;
  gated_q_ = gated_d_;
}

}  // namespace flycol::hw
