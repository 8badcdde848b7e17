// Seeded operand generation and the small decoding helpers shared by reports and tests.
#include "sim/workload/workload.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <random>

#include <fmt/format.h>

#include "base/numerics/fp16.h"
#include "sim/common/input_error.h"

namespace flycol {
namespace {

const char* const kClassNames[] = {"uniform", "normal", "wide", "specials", "saturate"};

ElemBits int_bits(long v, Arithmetic a) {
  return a == Arithmetic::int8 ? ElemBits(std::uint8_t(std::int8_t(v))) : ElemBits(std::int16_t(v));
}

// Edge values of the wide class: the encodings where rounding, gating and range logic turn.
// Weights draw only the first 10 (not +-65504).
const ElemBits kHalfEdges[] = {0x0000, 0x8000, 0x0001, 0x8001, 0x03FF, 0x83FF,
                               0x0400, 0x8400, 0x3C00, 0xBC00, 0x7BFF, 0xFBFF};

// Which tensor an element belongs to: the fp16 wide class draws them differently.
enum class Tensor { ifmap, weights };

ElemBits wide_elem(std::mt19937_64& rng, Arithmetic a, Tensor t) {
  const bool edge = std::uniform_int_distribution<int>(0, 7)(rng) == 0;
  if (a == Arithmetic::fp16) {
    if (edge) return kHalfEdges[std::uniform_int_distribution<int>(0, t == Tensor::ifmap ? 11 : 9)(rng)];
    // Activations: any finite encoding (the exponent field 31 is redrawn). Weights: exponent
    // field 0..15, |w| < 2: with both over the whole range one product in eight overflows and
    // almost every output of a deep reduction is Inf or NaN, which would hide the finite paths.
    if (t == Tensor::weights) {
      const int sign = std::uniform_int_distribution<int>(0, 1)(rng);
      const int exp = std::uniform_int_distribution<int>(0, 15)(rng);
      const int man = std::uniform_int_distribution<int>(0, 0x3FF)(rng);
      return ElemBits((sign << 15) | (exp << 10) | man);
    }
    for (;;) {
      const ElemBits b = ElemBits(std::uniform_int_distribution<int>(0, 0xFFFF)(rng));
      if (fp16::is_finite(b)) return b;
    }
  }
  const long lo = a == Arithmetic::int8 ? -128 : -32768, hi = -lo - 1;
  if (edge) {
    const long edges[] = {lo, hi, -1, 1};
    return int_bits(edges[std::uniform_int_distribution<int>(0, 3)(rng)], a);
  }
  return int_bits(std::uniform_int_distribution<long>(lo, hi)(rng), a);
}

ElemBits class_elem(std::mt19937_64& rng, Arithmetic a, OperandClass c, Tensor t) {
  const long lo = a == Arithmetic::int8 ? -128 : -32768, hi = -lo - 1;
  switch (c) {
    case OperandClass::uniform: break;  // handled by the caller, which keeps today's draws
    case OperandClass::normal: {
      if (a == Arithmetic::fp16) return fp16::from_float(std::normal_distribution<float>(0.0f, 1.0f)(rng));
      const double sigma = a == Arithmetic::int8 ? 32.0 : 1024.0;
      const long v = std::lround(std::normal_distribution<double>(0.0, sigma)(rng));
      return int_bits(std::min(hi, std::max(lo, v)), a);
    }
    case OperandClass::wide: return wide_elem(rng, a, t);
    case OperandClass::specials:
      if (a == Arithmetic::fp16 && std::uniform_real_distribution<double>(0, 1)(rng) < 0.02) {
        const int pick = std::uniform_int_distribution<int>(0, 3)(rng);
        if (pick == 0) return fp16::kPosInf;
        if (pick == 1) return fp16::kNegInf;
        return kSpecialNaNs[std::uniform_int_distribution<std::size_t>(0, kSpecialNaNs.size() - 1)(rng)];
      }
      return wide_elem(rng, a, t);
    case OperandClass::saturate: {
      const bool negative = std::uniform_real_distribution<double>(0, 1)(rng) < 0.1;
      if (a == Arithmetic::fp16) {
        const bool big = std::uniform_real_distribution<double>(0, 1)(rng) < 0.05;
        const float log2mag = big ? std::uniform_real_distribution<float>(8.0f, std::log2(65504.0f))(rng)
                                  : std::uniform_real_distribution<float>(0.0f, 8.0f)(rng);
        const ElemBits m = fp16::from_float(std::exp2(log2mag));
        return ElemBits(negative ? (m | 0x8000) : m);
      }
      if (std::uniform_real_distribution<double>(0, 1)(rng) < 0.8) return int_bits(negative ? lo : hi, a);
      return int_bits(negative ? std::uniform_int_distribution<long>(lo, -1)(rng)
                               : std::uniform_int_distribution<long>(0, hi)(rng), a);
    }
  }
  return 0;
}

ElemBits random_elem(std::mt19937_64& rng, Arithmetic a, const OperandDistribution& dist, Tensor t) {
  const bool uniform = dist.operand_class == OperandClass::uniform;
  if (dist.zero_fraction > 0 && std::uniform_real_distribution<double>(0, 1)(rng) < dist.zero_fraction) {
    // Only the non-uniform classes draw the zero's sign: uniform stays bit-identical to the
    // operands every recorded regression line was made with.
    if (uniform || a != Arithmetic::fp16) return 0;
    return std::uniform_int_distribution<int>(0, 1)(rng) ? 0x8000 : 0x0000;
  }
  if (!uniform) return class_elem(rng, a, dist.operand_class, t);
  switch (a) {
    case Arithmetic::fp16:
      return fp16::from_float(std::uniform_real_distribution<float>(-1.0f, 1.0f)(rng));
    case Arithmetic::int8:
      return ElemBits(std::uint8_t(std::int8_t(std::uniform_int_distribution<int>(-128, 127)(rng))));
    case Arithmetic::int16:
      return ElemBits(std::int16_t(std::uniform_int_distribution<int>(-2048, 2047)(rng)));
  }
  return 0;
}

}  // namespace

const std::vector<ElemBits> kSpecialNaNs = {
    0x7E00,  // canonical quiet NaN
    0xFE00,  // negative quiet NaN
    0x7FFF,  // quiet, all payload bits
    0x7E55,  // quiet, payload
    0x7C01,  // signalling, smallest payload
    0xFD55,  // negative signalling, payload
    0x7DFF,  // signalling, largest payload
};

const std::vector<std::string>& operand_class_names() {
  static const std::vector<std::string> names(std::begin(kClassNames), std::end(kClassNames));
  return names;
}

const char* operand_class_name(OperandClass c) { return kClassNames[int(c)]; }

OperandClass parse_operand_class(const std::string& name, const std::string& source) {
  for (int i = 0; i < int(std::size(kClassNames)); ++i)
    if (name == kClassNames[i]) return OperandClass(i);
  throw InputError(source, "operands",
                   fmt::format("= {}: must be one of uniform, normal, wide, specials, saturate", name));
}

ConvOperands make_random_operands(const Layer& layer, Arithmetic arithmetic, std::uint64_t seed,
                                  const OperandDistribution& dist) {
  ConvOperands ops;
  ops.layer = layer;
  ops.arithmetic = arithmetic;
  // Separate streams for ifmap and weights, so a layer's weights do not change when only its
  // input size changes (handy when comparing runs).
  std::mt19937_64 rng_i(seed * 2 + 1), rng_w(seed * 2 + 2);
  ops.ifmap.resize(std::size_t(layer.ifmap_elems()));
  for (auto& e : ops.ifmap) e = random_elem(rng_i, arithmetic, dist, Tensor::ifmap);
  ops.weights.resize(std::size_t(layer.weight_elems()));
  for (auto& e : ops.weights) e = random_elem(rng_w, arithmetic, dist, Tensor::weights);
  return ops;
}

double elem_value(ElemBits e, Arithmetic a) {
  switch (a) {
    case Arithmetic::fp16: return fp16::to_double(e);
    case Arithmetic::int8: return double(std::int8_t(std::uint8_t(e)));
    case Arithmetic::int16: return double(std::int16_t(e));
  }
  return 0;
}

double acc_value(AccBits v, Arithmetic a) {
  if (a == Arithmetic::fp16) return fp16::to_double(fp16::Bits(v));
  return double(std::int32_t(v));
}

std::vector<AccBits> elements_as_accumulators(const std::vector<ElemBits>& e, Arithmetic a) {
  std::vector<AccBits> out(e.size());
  for (std::size_t i = 0; i < e.size(); ++i)
    out[i] = a == Arithmetic::fp16   ? AccBits(e[i])
             : a == Arithmetic::int8 ? AccBits(std::int32_t(std::int8_t(std::uint8_t(e[i]))))
                                     : AccBits(std::int32_t(std::int16_t(e[i])));
  return out;
}

std::uint64_t checksum(const std::vector<AccBits>& out, Arithmetic a) {
  const int bytes = a == Arithmetic::fp16 ? 2 : 4;
  std::uint64_t h = 0xCBF29CE484222325ull;
  for (AccBits v : out)
    for (int b = 0; b < bytes; ++b) {
      h ^= (v >> (8 * b)) & 0xFF;
      h *= 0x100000001B3ull;
    }
  return h;
}

}  // namespace flycol
