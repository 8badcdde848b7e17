// Random fused convolution + pooling layers for the whole-accelerator fusion benches
// (tb/top/fused_tb.cpp on the SystemC model, tb/top/fused_cosim_tb.cpp in RTL lockstep): a
// convolution (any kernel, stride, padding, dilation, N > 1, odd sizes) followed by a pooling of
// its output with every option the pooling unit takes, forced small fused tiles now and then, and
// every operand class; and the independent reference: the golden convolution, then the golden
// pooling of its output (sim/golden, which shares no code with the compiler or the hardware).
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "sim/compiler/fused_compiler.h"
#include "sim/config/config.h"
#include "sim/workload/workload.h"

namespace flycol::tb {

struct FusedCase {
  Layer conv;
  PoolShape pool;
  FusedCompileOptions options;
  OperandClass operands = OperandClass::uniform;
  std::uint64_t data_seed = 0, dram_seed = 0;

  std::string describe() const;
};

// A random pair that fuses on `cfg` (fusion_problem empty); sizes stay small (tens of thousands of
// cycles at most).
FusedCase random_fused_case(std::mt19937_64& rng, const Config& cfg);

// The convolution's operands of a case.
ConvOperands fused_operands(const FusedCase& c, const Config& cfg);

// The pooled output [N][K][Hp][Wp]: golden convolution (the PE's gating rule of `cfg`), then the
// golden pooling of its elements.
std::vector<AccBits> fused_reference(const FusedCase& c, const Config& cfg, const ConvOperands& ops);

}  // namespace flycol::tb
