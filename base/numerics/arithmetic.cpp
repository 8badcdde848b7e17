// The registry of arithmetic choices (arithmetic.h): the one place an arithmetic is named.
#include "base/numerics/arithmetic.h"

namespace flycol {

namespace {

// Indexed by Arithmetic.
constexpr ArithmeticInfo kArithmetics[] = {
    {"fp16", 16, 16, "IEEE binary16 FMA, FP16 accumulation (the paper's chip)"},
    {"int8", 8, 32, "int8 x int8 -> int32"},
    {"int16", 16, 32, "int16 x int16 -> int32"},
};

}  // namespace

const ArithmeticInfo& arithmetic_info(Arithmetic a) { return kArithmetics[static_cast<int>(a)]; }

std::vector<std::string> arithmetic_names() {
  std::vector<std::string> out;
  for (const auto& a : kArithmetics) out.push_back(a.name);
  return out;
}

}  // namespace flycol
