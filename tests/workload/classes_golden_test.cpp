// The operand classes reach what they are for, shown on the golden convolution of exactly the
// layers and seeds tests/cli/operands_test.cpp runs through SystemC and RTL: NaN outputs (all
// canonical 0x7E00, the spec's rule), +-Inf, -0 and subnormal results for fp16, int32 results
// clamped at the limits for int16. Without this the whole-chip test could pass vacuously.
#include <catch2/catch.hpp>

#include <cstdint>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include "sim/config/layer.h"
#include "sim/golden/conv.h"
#include "sim/workload/workload.h"

using namespace flycol;

namespace {

// The same cases and seeding as tests/cli/operands_test.cpp (seed 1, 2, ... over class x case).
const char* const kLayers[] = {"C=3,H=9,W=11,K=5,k=3,p=1", "C=40,H=6,W=21,K=20,ky=3,kx=2,s=2,d=2,p=2",
                               "N=2,C=64,H=3,W=4,K=6,k=3", "C=2,H=7,W=9,K=16,k=1",
                               "C=300,H=8,W=16,K=16,k=3,p=1"};

struct Tally {
  std::size_t outputs = 0, nan = 0, raw_nan = 0, pinf = 0, ninf = 0, neg_zero = 0, subnormal = 0, finite = 0;
  std::size_t at_max = 0, at_min = 0;
};

Tally tally_class(Arithmetic a, OperandClass c) {
  Tally t;
  std::uint64_t seed = 1 + std::uint64_t(c) * std::size(kLayers);
  for (const char* spec : kLayers) {
    OperandDistribution d;
    d.operand_class = c;
    d.zero_fraction = 0.2;
    const ConvOperands ops = make_random_operands(parse_layer_argument(spec), a, seed++, d);
    for (AccBits v : golden::conv(ops)) {
      ++t.outputs;
      if (a == Arithmetic::fp16) {
        const std::uint16_t h = std::uint16_t(v);
        const bool nan = (h & 0x7C00) == 0x7C00 && (h & 0x3FF) != 0;
        t.nan += nan;
        t.raw_nan += nan && h != 0x7E00;
        t.pinf += h == 0x7C00;
        t.ninf += h == 0xFC00;
        t.neg_zero += h == 0x8000;
        t.subnormal += (h & 0x7C00) == 0 && (h & 0x3FF) != 0;
        t.finite += (h & 0x7C00) != 0x7C00;
      } else {
        t.at_max += v == 0x7FFFFFFFu;
        t.at_min += v == 0x80000000u;
      }
    }
  }
  return t;
}

}  // namespace

TEST_CASE("fp16 classes reach NaN, Inf, -0 and subnormal results, and every NaN is canonical", "[workload]") {
  for (OperandClass c : {OperandClass::uniform, OperandClass::normal, OperandClass::wide, OperandClass::specials,
                         OperandClass::saturate}) {
    const Tally t = tally_class(Arithmetic::fp16, c);
    INFO(operand_class_name(c) << ": " << t.outputs << " outputs, " << t.nan << " NaN, " << t.pinf << " +Inf, "
                               << t.ninf << " -Inf, " << t.neg_zero << " -0, " << t.subnormal << " subnormal, "
                               << t.finite << " finite");
    CHECK(t.raw_nan == 0);  // docs/microarchitecture.md 9.5: NaN results are the canonical NaN
    switch (c) {
      case OperandClass::uniform:
      case OperandClass::normal: CHECK(t.finite == t.outputs); break;
      case OperandClass::wide:
        // Finite operands never make a NaN: the FMA rounds a*b + acc once, so a product never
        // becomes an infinity of its own, and an accumulator at +-Inf stays there.
        CHECK(t.nan == 0);
        CHECK(t.pinf > 0);
        CHECK(t.ninf > 0);
        CHECK(t.neg_zero > 0);  // a negative product below half the smallest subnormal, on +0
        CHECK(t.subnormal > 0);
        break;
      case OperandClass::specials:
        CHECK(t.nan > t.outputs / 5);
        CHECK(t.pinf > 0);
        CHECK(t.ninf > 0);
        CHECK(t.neg_zero > 0);
        CHECK(t.subnormal > 0);
        break;
      case OperandClass::saturate:
        CHECK(t.nan == 0);  // as for wide: Inf - Inf needs an infinite operand
        CHECK(t.pinf > t.outputs / 3);
        CHECK(t.ninf > 0);
        break;
    }
  }
}

TEST_CASE("int16 classes clamp the int32 accumulator, int8 cannot reach the limits", "[workload]") {
  for (OperandClass c : {OperandClass::uniform, OperandClass::normal, OperandClass::wide, OperandClass::specials,
                         OperandClass::saturate}) {
    const Tally i8 = tally_class(Arithmetic::int8, c), i16 = tally_class(Arithmetic::int16, c);
    INFO(operand_class_name(c) << ": int16 " << i16.at_max << " at INT32_MAX, " << i16.at_min << " at INT32_MIN of "
                               << i16.outputs);
    // int8 products are at most 2^14: 131072 terms before an int32 limit, these layers have 576.
    CHECK(i8.at_max + i8.at_min == 0);
    if (c == OperandClass::saturate) CHECK(i16.at_max > i16.outputs / 3);  // 90 % positive: mostly the top
    if (c == OperandClass::wide || c == OperandClass::specials) CHECK((i16.at_max > 0 && i16.at_min > 0));
    if (c == OperandClass::uniform || c == OperandClass::normal) CHECK(i16.at_max + i16.at_min == 0);
  }
}
