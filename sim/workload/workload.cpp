// Seeded operand generation and the small decoding helpers shared by reports and tests.
#include "sim/workload/workload.h"

#include <random>

#include "base/numerics/fp16.h"

namespace flycol {
namespace {

ElemBits random_elem(std::mt19937_64& rng, Arithmetic a, const OperandDistribution& dist) {
  if (dist.zero_fraction > 0 && std::uniform_real_distribution<double>(0, 1)(rng) < dist.zero_fraction)
    return 0;
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

ConvOperands make_random_operands(const Layer& layer, Arithmetic arithmetic, std::uint64_t seed,
                                  const OperandDistribution& dist) {
  ConvOperands ops;
  ops.layer = layer;
  ops.arithmetic = arithmetic;
  // Separate streams for ifmap and weights, so a layer's weights do not change when only its
  // input size changes (handy when comparing runs).
  std::mt19937_64 rng_i(seed * 2 + 1), rng_w(seed * 2 + 2);
  ops.ifmap.resize(std::size_t(layer.ifmap_elems()));
  for (auto& e : ops.ifmap) e = random_elem(rng_i, arithmetic, dist);
  ops.weights.resize(std::size_t(layer.weight_elems()));
  for (auto& e : ops.weights) e = random_elem(rng_w, arithmetic, dist);
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
