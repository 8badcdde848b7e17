// The operands of one convolution as the accelerator sees them: raw element bits in the
// brief's tensor layouts (ifmap [N][C][H][W], weights [K][C][ky][kx]), built from a seed so that
// every model and every run of the same seed sees the same numbers.
#pragma once

#include <cstdint>
#include <string>
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

// The operand classes (`flycol run --operands`; docs/configuration.md). Per arithmetic:
//   uniform  fp16: uniform in [-1, 1] rounded to binary16; int8: uniform over [-128, 127]; int16:
//            uniform over [-2048, 2047] (deep reductions rarely saturate). +0 is the only zero.
//   normal   Gaussian rounded to the element type: fp16 sigma 1; int8 sigma 32 and int16 sigma
//            1024, clamped to the type's range.
//   wide     fp16 activations: every finite binary16 encoding (random bits, the exponent field
//            31 redrawn), so subnormals, +-0 and values up to +-65504; weights: random sign,
//            exponent field 0..15 and mantissa (|w| < 2, subnormals and +-0 included), so that
//            most products stay finite and sums still exercise rounding near 65504 instead of
//            being Inf everywhere. One draw in 8 instead picks an edge value (+-0, +-smallest and
//            largest subnormal, +-smallest normal, +-1, and for activations +-65504).
//            int8/int16: uniform over the full range, one draw in 8 an edge value (min, max, -1, 1).
//   specials fp16: wide, plus 2 % +Inf, -Inf and NaN (quiet and signalling, several payloads,
//            both signs: kSpecialNaNs). int8/int16: exactly wide (integers have no specials).
//   saturate fp16: 90 % positive, magnitudes log-uniform in [1, 256) with 5 % in [256, 65504], so
//            sums overflow to +Inf (some to -Inf). No NaN comes of it: the FMA rounds a*b + acc
//            once, so a product never becomes an infinity by itself, and an infinite accumulator
//            stays so; Inf - Inf needs an infinite operand (specials).
//            int8/int16: 90 % positive, 80 % of the draws the extreme of their sign (-128/127,
//            -32768/32767), the rest uniform on that side, so int32 accumulations
//            clamp at the limits (int16 from 2 terms on; int8 only past 131072 terms) and come
//            back down only in the fixed reduction order.
// The zero fraction applies on top of every class; its zeros are +0 for uniform and +0 or -0
// (equally likely) for every other class, so the gating of -0 is exercised.
enum class OperandClass { uniform, normal, wide, specials, saturate };

const std::vector<std::string>& operand_class_names();  // {"uniform", "normal", ...}, enum order
const char* operand_class_name(OperandClass c);
// source names the option or file ("--operands"); throws InputError(source, "operands", ...).
OperandClass parse_operand_class(const std::string& name, const std::string& source);

// The NaN encodings the specials class draws (binary16): quiet and signalling, +-, payloads.
extern const std::vector<ElemBits> kSpecialNaNs;

struct OperandDistribution {
  double zero_fraction = 0.0;  // share of elements forced to zero (weights and activations)
  OperandClass operand_class = OperandClass::uniform;
};

// Operands of one layer from the seed, per dist (the class table above).
ConvOperands make_random_operands(const Layer& layer, Arithmetic arithmetic, std::uint64_t seed,
                                  const OperandDistribution& dist = {});

// Decoding raw bits to numbers, for reports and error statistics.
double elem_value(ElemBits e, Arithmetic a);
double acc_value(AccBits v, Arithmetic a);

// The accumulator words holding the elements' values (binary16 unchanged, int8 / int16
// sign-extended to int32): an element tensor given where the accumulator type is expected (an
// output gradient).
std::vector<AccBits> elements_as_accumulators(const std::vector<ElemBits>& e, Arithmetic a);

// FNV-1a 64 over the accumulator bits (2 bytes per element for fp16, 4 for int32), little endian.
std::uint64_t checksum(const std::vector<AccBits>& out, Arithmetic a);

}  // namespace flycol
