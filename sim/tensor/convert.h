// Conversions between boundary tensors (sim/tensor/tensor.h) and the accelerator's raw element and
// accumulator bits (sim/workload/workload.h): operands are rounded ONCE to the configured
// arithmetic, outputs come back with the bias added on the host in float32.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/numerics/arithmetic.h"
#include "sim/report/json.h"
#include "sim/tensor/tensor.h"
#include "sim/workload/workload.h"

namespace flycol {

// What rounding a tensor to the arithmetic did. changed counts values whose number changed (NaN
// stays NaN and is not counted; an overflow to +-Inf is counted both as changed and as
// overflowed); max_rel_change is the largest |rounded - original| / |original| over the changed
// values that did not overflow (0 when none).
struct RoundingStats {
  std::int64_t values = 0, changed = 0, overflowed = 0;
  double max_rel_change = 0;
};

// Adds `more` to `into` (counts summed, the larger max_rel_change kept): the rounding of several
// tensors, e.g. every group's slice of a layer's operands.
void accumulate(RoundingStats& into, const RoundingStats& more);
// {"values", "changed", "max_rel_change", "overflowed"}: the same keys in every report.
Json rounding_json(const RoundingStats& s);

// The tensor's values as raw element bits, in the tensor's own (C) order.
// fp16: each value rounded once to binary16, round to nearest even, straight from the double (no
//   detour through float, which would round twice); beyond +-65520 it becomes +-Inf (counted in
//   stats->overflowed, not an error); NaN stays NaN (the canonical quiet NaN); -0 stays -0.
// int8/int16: every value must be an integer within the type's range, else
//   InputError(source, "", "value X at index [n, c, h, w] is not ... allowed range [lo, hi]");
//   nothing is clamped or rounded.
// stats (if given) is overwritten with this tensor's figures.
std::vector<ElemBits> to_elements(const Tensor& t, Arithmetic a, const std::string& source,
                                  RoundingStats* stats = nullptr);

// The accelerator's outputs (raw accumulator bits, C order over `shape`, normally
// [N][K][Ho][Wo]) as a tensor of element type d. With bias_per_channel (one value per shape[1]),
// the bias is added on the host in float32 as a float32 framework does it: float(acc) +
// float(bias), one float32 rounding of the sum (float(acc) is exact for fp16 accumulators; for
// int32 accumulators beyond 2^24 it rounds too). Then the value is converted to d: float16 and
// float32 round to nearest even, float64 keeps it; an integer d needs an integer within its range,
// else InputError(source, "", ...) naming the index (source: the option that chose d).
Tensor from_accumulators(const std::vector<AccBits>& out, Arithmetic a, std::vector<std::int64_t> shape, DType d,
                         const std::vector<double>* bias_per_channel = nullptr,
                         const std::string& source = "--ofmap-dtype");

// "[n, c, h, w]": the C-order multi-index of flat index i in shape (for messages).
std::string index_text(std::int64_t i, const std::vector<std::int64_t>& shape);

}  // namespace flycol
