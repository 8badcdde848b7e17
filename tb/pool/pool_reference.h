// References of the pool lane's argmax and masked-sum windows (docs/microarchitecture.md section
// 16, "Backward of max pooling") for the lane's and the unit's testbenches (pool_lane_tb.cpp,
// pool_unit_tb.cpp): built on the golden pooling (sim/golden/pool.h) and an exact average of their
// own, never on hw/pool's cores.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>

#include "hw/common/hw_params.h"
#include "sim/golden/pool.h"

namespace flycol::tb::pool_ref {

using hw::acc_t;
using hw::elem_t;

inline acc_t acc_mask(Arithmetic a) { return a == Arithmetic::fp16 ? 0xFFFFu : 0xFFFFFFFFu; }
inline elem_t elem_mask(Arithmetic a) { return a == Arithmetic::int8 ? 0xFF : 0xFFFF; }

// The result of an argmax window with no valid element (section 16: no position counted from the end).
inline constexpr acc_t kNoArgmax = 0xFFFF;

// The argmax of a window (section 16, "Backward of max pooling"): section 15's argmax over the
// elements not marked padding (golden::pool_argmax of a one-row layer of just those elements, in
// window order: the first NaN, else the first strictly greater, -0 = +0, integers signed), as its
// position counted from the window's end, (L - 1) - j*; kNoArgmax without a valid element. `pick`
// receives j* (-1 without one).
inline acc_t argmax_result(Arithmetic a, const std::vector<elem_t>& e, const std::vector<bool>& pad, std::int64_t* pick) {
  std::vector<ElemBits> valid;
  std::vector<std::size_t> where;
  for (std::size_t i = 0; i < e.size(); ++i)
    if (!pad[i]) {
      valid.push_back(ElemBits(e[i] & elem_mask(a)));
      where.push_back(i);
    }
  if (pick) *pick = -1;
  if (valid.empty()) return kNoArgmax;
  golden::PoolLayer l;
  l.op = golden::PoolOp::max;
  l.w = l.kx = int(valid.size());
  const std::int64_t i = golden::pool_argmax(l, a, valid).at(0);
  if (i < 0 || std::size_t(i) >= where.size()) throw std::logic_error("bench: golden::pool_argmax gave no element");
  if (pick) *pick = std::int64_t(where[std::size_t(i)]);
  return acc_t(e.size() - 1 - where[std::size_t(i)]);
}

// The average of `values` (element bits) over `count`, section 15's rule written again here as an
// exact rational reference (for the counts golden::PoolLayer cannot express: 1 < count < values):
// binary16 values summed exactly in units of 2^-24, the quotient rounded once to nearest, ties to
// even, past 65504 to infinity, a zero quotient keeping the sum's sign; a NaN, or +Inf with -Inf,
// or a count of 0 gives the canonical NaN, else an infinity that infinity, a zero sum +0. Integers:
// to nearest, ties away from zero; a count of 0 gives 0.
inline acc_t exact_average(Arithmetic a, const std::vector<elem_t>& values, std::uint32_t count) {
  if (a != Arithmetic::fp16) {
    std::int64_t s = 0;
    for (elem_t v : values) s += a == Arithmetic::int8 ? std::int8_t(std::uint8_t(v)) : std::int16_t(v);
    if (count == 0) return 0;
    const std::int64_t m = s < 0 ? -s : s;
    const std::int64_t q = (2 * m + count) / (2 * std::int64_t(count));
    return acc_t(std::uint32_t(std::int32_t(s < 0 ? -q : q)));
  }
  bool nan = false, pinf = false, ninf = false;
  std::int64_t s = 0;
  for (elem_t v : values) {
    const int ex = (v >> 10) & 0x1F;
    const std::int64_t man = v & 0x3FF;
    const bool neg = (v & 0x8000) != 0;
    if (ex == 31) {
      if (man != 0) nan = true;
      else (neg ? ninf : pinf) = true;
      continue;
    }
    const std::int64_t units = ex == 0 ? man : (man | 0x400) << (ex - 1);  // in 2^-24
    s += neg ? -units : units;
  }
  if (nan || (pinf && ninf) || count == 0) return 0x7E00;
  if (pinf) return 0x7C00;
  if (ninf) return 0xFC00;
  if (s == 0) return 0;
  const bool neg = s < 0;
  const std::uint64_t m = std::uint64_t(neg ? -s : s);
  // The quotient's lsb 2^k (in 2^-24): k = max(0, floor(log2(m / count)) - 10).
  const std::uint64_t fl = m / count;
  int k = 0;
  while ((fl >> (k + 11)) != 0) ++k;
  const unsigned __int128 den = static_cast<unsigned __int128>(count) << k;
  std::uint64_t q = std::uint64_t(m / den);
  const unsigned __int128 rem = m % den;
  if (2 * rem > den || (2 * rem == den && (q & 1))) ++q;
  const unsigned __int128 v = static_cast<unsigned __int128>(q) << k;  // the result in 2^-24
  acc_t bits = 0;
  if (v < 1024) {
    bits = acc_t(v);
  } else {
    int p = 0;
    while ((v >> (p + 1)) != 0) ++p;
    const int field = p - 9;
    bits = field >= 31 ? 0x7C00u : acc_t((field << 10) | int((v >> (p - 10)) & 0x3FF));
  }
  return bits | (neg ? 0x8000u : 0u);
}

// The exact sum of `values` rounded once (a divisor of 1), from golden::pool_backward: an average
// layer of one element whose m windows (1 x m, stride 1, m - 1 padding columns on each side, no
// count_include_pad) all hold it with a count of 1, so it receives every gradient whole and sums
// them exactly, rounding once.
inline acc_t golden_exact_sum(Arithmetic a, const std::vector<elem_t>& values) {
  const int m = int(values.size());
  golden::PoolLayer l;
  l.op = golden::PoolOp::avg;
  l.kx = m;
  l.pl = l.pr = m - 1;
  std::vector<AccBits> grad;
  for (elem_t v : values) {
    if (a == Arithmetic::fp16) grad.push_back(AccBits(v));
    else if (a == Arithmetic::int8) grad.push_back(AccBits(std::int32_t(std::int8_t(std::uint8_t(v)))));
    else grad.push_back(AccBits(std::int32_t(std::int16_t(v))));
  }
  return acc_t(golden::pool_backward(l, a, {}, grad).at(0));
}

// A masked-sum window's result: the average of the selected values over `count`. From the golden
// pooling where a layer expresses it (a count of 0; a count of at least the values: a one-window
// layer of them and count - n counted padding positions; a count of 1: golden_exact_sum), else
// from exact_average; where both exist they must agree (a check of the bench itself). `golden_used`
// tells which.
inline acc_t masked_average(Arithmetic a, const std::vector<elem_t>& sel, std::uint32_t count, bool* golden_used) {
  const acc_t mine = exact_average(a, sel, count) & acc_mask(a);
  const std::size_t n = sel.size();
  acc_t g = 0;
  bool have = true;
  golden::PoolLayer l;
  l.op = golden::PoolOp::avg;
  if (count == 0) {  // a window position of padding only, not counted: the count of 0
    l.w = l.pl = l.kx = 1;
    g = golden::pool(l, a, {0}).at(0);
  } else if (count >= n) {
    std::vector<ElemBits> data(sel.begin(), sel.end());
    if (data.empty()) data.push_back(0);
    l.w = int(data.size());
    l.kx = int(count);
    l.pr = int(count) - l.w;
    l.count_include_pad = true;
    g = golden::pool(l, a, data).at(0);
  } else if (count == 1) {
    g = golden_exact_sum(a, sel);
  } else {
    have = false;
  }
  g &= acc_mask(a);
  if (have && g != mine)
    throw std::logic_error(fmt::format("bench: the exact average {:#x} and the golden pooling's {:#x} disagree "
                                       "({} values, count {})", mine, g, n, count));
  if (golden_used) *golden_used = have;
  return have ? g : mine;
}

}  // namespace flycol::tb::pool_ref
