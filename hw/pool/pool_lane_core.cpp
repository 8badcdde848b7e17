// Pool lane core: the max, average, argmax and masked-sum datapaths and the divider timing of
// docs/microarchitecture.md section 16 on raw element bits, with the divider's arithmetic (quotient, leading one, rounding,
// specials) as that section states it. The quotient is computed when the divider is loaded (one
// 128-bit division, also for a power-of-two divisor, which the RTL shifts); the D cycles are only
// counted, the RTL forms the quotient two bits per cycle (radix 4).
#include "hw/pool/pool_lane_core.h"

#include <string>

#include "base/numerics/fp16.h"
#include "hw/common/protocol_error.h"

namespace flycol::hw {

namespace {

using u128 = unsigned __int128;

constexpr const char* kBlock = "pool_lane";

std::int32_t sext(elem_t v, int bits) {
  return bits == 8 ? std::int32_t(std::int8_t(std::uint8_t(v))) : std::int32_t(std::int16_t(v));
}

// binary16 order for max: -0 and +0 equal (NaN never compared).
int fp16_order(elem_t h) { return (h & 0x8000) ? -int(h & 0x7FFF) : int(h & 0x7FFF); }

// A finite binary16 on the fixed-point grid of 2^-24: the 11-bit significand shifted by 0 .. 29.
std::int64_t fp16_fixed(elem_t h) {
  const int field = (h >> 10) & 0x1F;
  const std::int64_t sig = field == 0 ? (h & 0x3FF) : ((h & 0x3FF) | 0x400);
  const std::int64_t v = sig << (field == 0 ? 0 : field - 1);
  return (h & 0x8000) ? -v : v;
}

int bit_length(u128 v) {
  int n = 0;
  for (; v != 0; v >>= 1) ++n;
  return n;
}

}  // namespace

PoolLaneCore::PoolLaneCore(const HwParams& p)
    : arith_(p.arithmetic), elem_bits_(p.arithmetic == Arithmetic::int8 ? 8 : 16),
      div_cycles_(p.arithmetic == Arithmetic::fp16 ? kDividerCyclesFp16 : kDividerCyclesInt) {
  reset();
}

void PoolLaneCore::reset() {
  ready_ = true;
  open_q_ = open_d_ = false;
  op_q_ = op_d_ = PoolLaneOp::Max;
  pos_q_ = pos_d_ = 0;
  max_q_ = max_d_ = 0;
  nan_q_ = nan_d_ = false;
  any_q_ = any_d_ = false;
  best_pos_q_ = best_pos_d_ = 0;
  hit_q_ = hit_d_ = false;
  sum_q_ = sum_d_ = 0;
  pinf_q_ = pinf_d_ = ninf_q_ = ninf_d_ = false;
  div_cnt_q_ = div_cnt_d_ = 0;
  div_result_q_ = div_result_d_ = 0;
  out_valid_q_ = out_valid_d_ = false;
  out_value_q_ = out_value_d_ = 0;
  windows_q_ = windows_d_ = stall_q_ = stall_d_ = 0;
}

acc_t PoolLaneCore::max_result(elem_t m, bool nan) const {
  if (arith_ == Arithmetic::fp16) return nan ? acc_t(fp16::kCanonicalNaN) : acc_t(m);
  return acc_t(sext(m, elem_bits_));
}

acc_t PoolLaneCore::average(std::int64_t sum, bool nan, bool pos_inf, bool neg_inf, std::uint32_t count) const {
  const bool neg = sum < 0;
  const std::uint64_t mag = neg ? std::uint64_t(0) - std::uint64_t(sum) : std::uint64_t(sum);
  if (arith_ != Arithmetic::fp16) {
    if (count == 0) return 0;
    // q = floor((2|s| + n) / (2n)): to nearest, ties away from zero; then the sign of s.
    const std::uint64_t q = (2 * mag + count) / (2 * std::uint64_t(count));
    return acc_t(neg ? std::uint32_t(0) - std::uint32_t(q) : std::uint32_t(q));
  }
  // Specials replace the quotient (section 15): NaN, +Inf with -Inf, or a count of 0 give NaN;
  // an infinity gives itself; a zero sum +0.
  if (nan || (pos_inf && neg_inf) || count == 0) return fp16::kCanonicalNaN;
  if (pos_inf) return fp16::kPosInf;
  if (neg_inf) return fp16::kNegInf;
  if (mag == 0) return 0;
  // Q = floor(2|S| / n) in units of 2^-25, sticky_r = (2|S| mod n != 0).
  const u128 a = u128(mag) << 1;
  const u128 q = a / count;
  const bool sticky_r = a % count != 0;
  std::uint64_t sig = 0;
  bool round = false, sticky = sticky_r;
  int e = 0;
  if (q != 0) {
    const int m = bit_length(q) - 1;  // the leading one
    if (m <= 11) {                    // the finest grid: subnormals and the first normal binade
      sig = std::uint64_t(q >> 1);
      round = (q & 1) != 0;
      e = m == 11 ? 1 : 0;
    } else {
      sig = std::uint64_t(q >> (m - 10));  // 11 bits
      round = ((q >> (m - 11)) & 1) != 0;
      sticky = sticky || (q & ((u128(1) << (m - 11)) - 1)) != 0;
      e = m - 10;
    }
  }  // a zero Q (with sticky_r): a subnormal rounding, sig = 0, round bit 0
  if (round && (sticky || (sig & 1))) ++sig;
  // The exponent and the significand add up: a rounded-up significand carries into the exponent.
  std::uint64_t bits = (std::uint64_t(e) << 10) + sig - (e > 0 ? 1024 : 0);
  if (bits > fp16::kPosInf) bits = fp16::kPosInf;  // a quotient beyond 41 bits (count below the elements)
  return acc_t((neg ? 0x8000u : 0u) | std::uint32_t(bits));
}

void PoolLaneCore::eval(const PoolLaneIn& in) {
  if (!in.valid && in.first) protocol_error(kBlock, "in_first_i without in_valid_i");
  ready_ = ready_for(in.valid, in.last, in.op);
  const bool take = in.valid && ready_;
  const bool avg = divides(in.op);
  const bool positional = in.op == PoolLaneOp::Argmax || in.op == PoolLaneOp::MaskedSum;
  const std::uint32_t pos = in.first ? 0 : pos_q_;  // the element's window position
  if (take) {  // the window rules, on the elements taken
    if (in.first && open_q_) protocol_error(kBlock, "in_first_i while a window is open");
    if (!in.first && !open_q_) protocol_error(kBlock, "an element without in_first_i outside a window");
    if (!in.first && in.op != op_q_) protocol_error(kBlock, "op_i changed within a window");
    if (in.last && avg && in.count > kMaxCount)
      protocol_error(kBlock, "count_i " + std::to_string(in.count) + " > 65536 with the last element of an average window");
    if (in.last && avg && in.pow2 && (in.count & (in.count - 1)) != 0)
      protocol_error(kBlock, "pow2_i with count_i " + std::to_string(in.count) + ", neither 0 nor a power of two");
    if (positional && pos >= kMaxCount)
      protocol_error(kBlock, "an argmax or masked-sum window longer than 65536 elements");
  }
  const bool finishing = div_cnt_q_ == 1;  // the divider's last step is this cycle
  const elem_t e = elem_bits_ == 8 ? elem_t(in.elem & 0xFF) : in.elem;

  open_d_ = open_q_;
  op_d_ = op_q_;
  pos_d_ = pos_q_;
  max_d_ = max_q_;
  nan_d_ = nan_q_;
  any_d_ = any_q_;
  best_pos_d_ = best_pos_q_;
  hit_d_ = hit_q_;
  sum_d_ = sum_q_;
  pinf_d_ = pinf_q_;
  ninf_d_ = ninf_q_;
  div_cnt_d_ = div_cnt_q_ > 0 ? div_cnt_q_ - 1 : 0;
  div_result_d_ = div_result_q_;
  out_valid_d_ = finishing;
  out_value_d_ = finishing ? div_result_q_ : out_value_q_;
  windows_d_ = windows_q_ + (take && in.last ? 1u : 0u);
  stall_d_ = stall_q_ + (in.valid && !ready_ ? 1u : 0u);
  if (!take) return;

  open_d_ = !in.last;
  op_d_ = in.op;
  pos_d_ = in.last ? 0 : pos + 1;
  const bool fp = arith_ == Arithmetic::fp16;
  const bool is_nan = fp && fp16::is_nan(e);
  const auto greater = [&](elem_t a, elem_t b) {
    return fp ? fp16_order(a) > fp16_order(b) : sext(a, elem_bits_) > sext(b, elem_bits_);
  };
  if (in.op == PoolLaneOp::Argmax) {
    // Among the valid elements: the first NaN ends the search; else the first strictly greater
    // one (or the first valid one) becomes the best. The result counts its position from the end.
    bool any = in.first ? false : any_q_, nan = in.first ? false : nan_q_;
    if (!in.pad && !nan && (is_nan || !any || greater(e, max_q_))) {
      max_d_ = e;
      best_pos_d_ = pos;
      nan = is_nan;
      any = true;
    }
    any_d_ = any;
    nan_d_ = nan;
    if (in.last) {
      if (finishing)
        protocol_error(kBlock, "an argmax window ends in the cycle the divider finishes an average (one result port)");
      out_valid_d_ = true;
      out_value_d_ = any ? acc_t(pos - best_pos_d_) : kNoArgmax;
    }
    return;
  }
  if (!avg) {
    // The element at window position 0 loads the register, a later one replaces it only if it is
    // strictly greater; a NaN sets the sticky flag.
    if (in.first || (!is_nan && greater(e, max_q_))) max_d_ = e;
    nan_d_ = (in.first ? false : nan_q_) || is_nan;
    if (in.last) {
      if (finishing)
        protocol_error(kBlock, "a max window ends in the cycle the divider finishes an average (one result port)");
      out_valid_d_ = true;
      out_value_d_ = max_result(max_d_, nan_d_);
    }
    return;
  }
  // Average: the element joins the exact sum (a first element starts it), specials set flags.
  // Masked sum: an element at an even position is an index (it sets the hit flag when it equals its
  // pair's number, pos / 2), one at an odd position a value that joins the sum only after a hit.
  std::int64_t s = in.first ? 0 : sum_q_;
  bool nan = in.first ? false : nan_q_, pinf = in.first ? false : pinf_q_, ninf = in.first ? false : ninf_q_;
  const bool masked = in.op == PoolLaneOp::MaskedSum;
  if (masked && pos % 2 == 0) hit_d_ = std::uint32_t(e) == pos / 2;
  if (masked && (pos % 2 == 0 || !hit_q_)) {
    // nothing joins the sum
  } else if (!fp) s += sext(e, elem_bits_);
  else if (is_nan) nan = true;
  else if (fp16::is_inf(e)) ((e & 0x8000) ? ninf : pinf) = true;
  else s += fp16_fixed(e);
  if (in.last) {
    // Load the divider with the window (its result, D steps; one for a shift) and clear the
    // accumulator. The quotient is the same either way: a power of two divides exactly by a shift.
    div_cnt_d_ = in.pow2 ? kDividerCyclesPow2 : div_cycles_;
    div_result_d_ = average(s, nan, pinf, ninf, in.count);
    s = 0;
    nan = pinf = ninf = false;
  }
  sum_d_ = s;
  nan_d_ = nan;
  pinf_d_ = pinf;
  ninf_d_ = ninf;
}

void PoolLaneCore::tick() {
  open_q_ = open_d_;
  op_q_ = op_d_;
  pos_q_ = pos_d_;
  max_q_ = max_d_;
  nan_q_ = nan_d_;
  any_q_ = any_d_;
  best_pos_q_ = best_pos_d_;
  hit_q_ = hit_d_;
  sum_q_ = sum_d_;
  pinf_q_ = pinf_d_;
  ninf_q_ = ninf_d_;
  div_cnt_q_ = div_cnt_d_;
  div_result_q_ = div_result_d_;
  out_valid_q_ = out_valid_d_;
  out_value_q_ = out_value_d_;
  windows_q_ = windows_d_;
  stall_q_ = stall_d_;
}

}  // namespace flycol::hw
