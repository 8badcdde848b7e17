// The golden convolution: a direct 2-D convolution in straightforward loops, independent of the
// hardware model. Each output accumulates in the brief's reduction order (input channel, then
// kernel row, then kernel column) with the PE's MAC rule, so the FP16 result is bit-exact with
// the accelerator; the float64 version measures the error of FP16 accumulation beside it. The MAC
// itself is the golden model's own (fp16_exact.h, int_exact.h): no
// arithmetic code is shared with base/numerics, which the hardware models run.
#pragma once

#include <vector>

#include "sim/workload/workload.h"

namespace flycol::golden {

struct ConvOptions {
  bool zero_gating = true;  // the PE rule: a zero operand leaves the accumulator unchanged
  // Optional initial accumulator per output ([N][K][Ho][Wo] raw bits), as a partial-sum preload
  // would provide; empty means +0.
  const std::vector<AccBits>* preload = nullptr;
};

// Output [N][K][Ho][Wo] as raw accumulator bits: binary16 for fp16, int32 (saturating
// accumulation, see base/numerics/int_mac.h) for int8 and int16.
std::vector<AccBits> conv(const ConvOperands& ops, const ConvOptions& opt = {});

// The same convolution of the same operand values in float64 (no gating, no rounding per step).
std::vector<double> conv_f64(const ConvOperands& ops);

}  // namespace flycol::golden
