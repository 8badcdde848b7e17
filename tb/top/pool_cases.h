// Random pooling layers for the whole-accelerator pooling benches (tb/top/pool_tb.cpp on the
// SystemC model, tb/top/pool_cosim_tb.cpp in RTL lockstep): every ONNX option the pooling unit takes
// (window, stride, dilation for max, asymmetric padding, ceil_mode, count_include_pad, global
// pooling), N > 1, odd sizes, edge tiles, forced small tiles and every operand class; and the
// layer as the golden pooling (sim/golden/pool.h) takes it, the independent reference.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "hw/common/hw_params.h"
#include "sim/compiler/pool_compiler.h"
#include "sim/golden/pool.h"
#include "sim/runner/pool_layer.h"  // golden_pool_layer(): a case's layer as the golden pooling takes it
#include "sim/workload/workload.h"

namespace flycol::tb {

struct PoolCase {
  PoolShape shape;
  PoolCompileOptions options;
  OperandClass operands = OperandClass::uniform;
  std::uint64_t data_seed = 0, dram_seed = 0;

  std::string describe() const;
};

// A random layer the pooling unit takes. Sizes stay small (a few thousand cycles per layer) but
// reach edge tiles, odd sizes, every option and, now and then, forced one-channel / few-row tiles.
PoolCase random_pool_case(std::mt19937_64& rng, const hw::HwParams& hw);

// The case's ifmap [N][C][H][W]: the seeded operands of a 1x1 convolution on the same map (the
// same operand classes as the convolution benches).
std::vector<ElemBits> pool_ifmap(const PoolCase& c, Arithmetic arith);

}  // namespace flycol::tb
