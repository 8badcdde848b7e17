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
#include "sim/compiler/pool_backward_compiler.h"
#include "sim/compiler/pool_compiler.h"
#include "sim/config/config.h"
#include "sim/golden/pool.h"
#include "sim/runner/pool_layer.h"  // golden_pool_layer(): a case's layer as the golden pooling takes it
#include "sim/workload/workload.h"

namespace flycol::tb {

struct PoolCase {
  PoolShape shape;
  PoolCompileOptions options;
  OperandClass operands = OperandClass::uniform;
  // The ifmap folded onto a few values (binary16: -Inf, -0, +0, 1, a NaN; integers: the minimum,
  // 0, 1), so that windows tie, hold nothing but -Inf (or the minimum) beside padding, or a NaN:
  // the argmax rules of max pooling's backward pass.
  bool ties = false;
  std::uint64_t data_seed = 0, dram_seed = 0;

  std::string describe() const;
};

// A random layer the pooling unit takes. Sizes stay small (a few thousand cycles per layer) but
// reach edge tiles, odd sizes, every option and, now and then, forced one-channel / few-row tiles.
PoolCase random_pool_case(std::mt19937_64& rng, const hw::HwParams& hw);

// The case's ifmap [N][C][H][W]: the seeded operands of a 1x1 convolution on the same map (the
// same operand classes as the convolution benches).
std::vector<ElemBits> pool_ifmap(const PoolCase& c, Arithmetic arith);

// A random pooling for the backward pass on chip (sim/compiler/pool_backward_compiler.h):
// random_pool_case's average and undilated max layers (global ones included), with dx tiles of
// forced channels, rows or columns (a multiple of the array's rows) now and then, and for max a
// folded ifmap (PoolCase::ties) a third of the time. A layer whose smallest tile does not fit the
// configuration's buffers (a max pooling's pair tile is twice as wide: large global windows on
// 2 kB buffers) is drawn again; forced tiles that do not fit give way to the compiler's own.
PoolCase random_pool_backward_case(std::mt19937_64& rng, const Config& cfg);

// The case's output gradient dy [N][C][Ho][Wo] as accumulator bits (FP16: element bits), drawn
// like pool_ifmap's operands on the Ho x Wo map.
std::vector<AccBits> pool_grad(const PoolCase& c, Arithmetic arith);

// A case ready to run: its program (compile_pool, or with `backward` compile_pool_backward), the
// DRAM image (the ifmap, or dy and for max the ifmap) and the golden model's outputs (golden::pool, or
// golden::pool_backward's dx).
struct PoolCaseRun {
  Program prog;
  std::vector<std::uint8_t> image;
  std::vector<AccBits> want;
};
PoolCaseRun pool_case_run(const PoolCase& c, const Config& cfg, bool backward);

}  // namespace flycol::tb
