// Pool lane core: the max and average datapaths and the divider timing of docs/microarchitecture.md
// section 16 on raw element bits, with the divider's arithmetic (quotient, leading one, rounding,
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
  open_q_ = open_d_ = avg_q_ = avg_d_ = false;
  max_q_ = max_d_ = 0;
  nan_q_ = nan_d_ = false;
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
  ready_ = ready_for(in.valid, in.last, in.avg);
  const bool take = in.valid && ready_;
  if (take) {  // the window rules, on the elements taken
    if (in.first && open_q_) protocol_error(kBlock, "in_first_i while a window is open");
    if (!in.first && !open_q_) protocol_error(kBlock, "an element without in_first_i outside a window");
    if (!in.first && in.avg != avg_q_) protocol_error(kBlock, "op_i changed within a window");
    if (in.last && in.avg && in.count > kMaxCount)
      protocol_error(kBlock, "count_i " + std::to_string(in.count) + " > 65536 with the last element of an average window");
    if (in.last && in.avg && in.pow2 && (in.count & (in.count - 1)) != 0)
      protocol_error(kBlock, "pow2_i with count_i " + std::to_string(in.count) + ", neither 0 nor a power of two");
  }
  const bool finishing = div_cnt_q_ == 1;  // the divider's last step is this cycle
  const elem_t e = elem_bits_ == 8 ? elem_t(in.elem & 0xFF) : in.elem;

  open_d_ = open_q_;
  avg_d_ = avg_q_;
  max_d_ = max_q_;
  nan_d_ = nan_q_;
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
  avg_d_ = in.avg;
  const bool fp = arith_ == Arithmetic::fp16;
  const bool is_nan = fp && fp16::is_nan(e);
  if (!in.avg) {
    // The element at window position 0 loads the register, a later one replaces it only if it is
    // strictly greater; a NaN sets the sticky flag.
    const bool greater = fp ? fp16_order(e) > fp16_order(max_q_) : sext(e, elem_bits_) > sext(max_q_, elem_bits_);
    if (in.first || (!is_nan && greater)) max_d_ = e;
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
  std::int64_t s = in.first ? 0 : sum_q_;
  bool nan = in.first ? false : nan_q_, pinf = in.first ? false : pinf_q_, ninf = in.first ? false : ninf_q_;
  if (!fp) s += sext(e, elem_bits_);
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
  avg_q_ = avg_d_;
  max_q_ = max_d_;
  nan_q_ = nan_d_;
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
