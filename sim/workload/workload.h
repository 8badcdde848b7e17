// The operands of one convolution as the accelerator sees them: raw element bits in the
// brief's tensor layouts (ifmap [N][C][H][W], weights [K][C][ky][kx]), built from a seed so that
// every model and every run of the same seed sees the same numbers.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/config/config.h"
#include "sim/config/layer.h"

namespace flycol {

// Raw element bits: binary16 patterns for fp16, two's complement in the low 8/16 bits for
// int8/int16. Accumulator results are raw bits too (fp16 in the low 16 bits, else int32).
using ElemBits = std::uint16_t;
using AccBits = std::uint32_t;

struct ConvOperands {
  Layer layer;
  Arithmetic arithmetic = Arithmetic::fp16;
  std::vector<ElemBits> ifmap;    // N*C*H*W
  std::vector<ElemBits> weights;  // K*C*ky*kx
};

struct OperandDistribution {
  double zero_fraction = 0.0;  // share of elements forced to zero (weights and activations)
};

// fp16: uniform in [-1, 1] rounded to binary16; int8: uniform over [-128, 127]; int16: uniform
// over [-2048, 2047] (so deep reductions rarely saturate the int32 accumulator).
ConvOperands make_random_operands(const Layer& layer, Arithmetic arithmetic, std::uint64_t seed,
                                  const OperandDistribution& dist = {});

// Decoding raw bits to numbers, for reports and error statistics.
double elem_value(ElemBits e, Arithmetic a);
double acc_value(AccBits v, Arithmetic a);

// FNV-1a 64 over the accumulator bits (2 bytes per element for fp16, 4 for int32), little endian.
std::uint64_t checksum(const std::vector<AccBits>& out, Arithmetic a);

}  // namespace flycol
