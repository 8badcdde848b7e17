// The pooling lowering (docs/microarchitecture.md, section 16, "The pooling RUN"): one pooling
// layer (ONNX's MaxPool / AveragePool / global pooling on [N][C][H][W]) and an accelerator
// configuration into the command stream that pools it on chip: per tile of channels and output
// rows, a LOAD_IFMAP padded with the operation's padding value, a pooling RUN and a STORE_PSUMS.
// The ofmap [N][C][Ho][Wo] lies in DRAM as a convolution's with K = C (section 4).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "hw/common/command.h"
#include "sim/compiler/compiler.h"
#include "sim/config/config.h"
#include "sim/workload/workload.h"

namespace flycol {

// A pooling layer as the compiler takes it: ONNX's attributes (window, strides, dilations, pads by
// side, ceil_mode, count_include_pad). Global pooling is the H x W window, stride 1, no padding.
// The compiler computes Ho and Wo itself (ONNX's rule), apart from the golden model's.
struct PoolShape {
  hw::PoolOp op = hw::PoolOp::Max;
  int n = 1, c = 1, h = 1, w = 1;
  int ky = 1, kx = 1, sy = 1, sx = 1, dy = 1, dx = 1;
  int pt = 0, pb = 0, pl = 0, pr = 0;
  bool ceil_mode = false;
  bool count_include_pad = false;
  std::string source = "pooling layer";  // how error messages name the layer ("--layer", a file)

  int ho() const;
  int wo() const;
};

// Tile sizes forced by the user (0: the compiler chooses): channels, output rows, output columns
// (a multiple of array.rows, or Wo).
struct PoolCompileOptions {
  int tile_c = 0, tile_h = 0, tile_w = 0;
};

// The program pooling `s` on chip. Program::layer is the convolution geometry the tiles follow
// (K = C, the bottom and right padding grown by what ceil_mode adds), Program::pool the operation.
// Throws InputError for a layer the pooling unit cannot run (average pooling with dilation or a
// window side above 256, a dilated window wider than feeder.pattern_bits, padding above 255, a
// smallest tile that does not fit the SRAMs) or bad options.
Program compile_pool(const PoolShape& s, const Config& config, const PoolCompileOptions& options = {});

// The DRAM image before the run: the ifmap [N][C][H][W] (element bits) at its base, the rest zero.
std::vector<std::uint8_t> build_pool_dram_image(const Program& p, const std::vector<ElemBits>& ifmap);

}  // namespace flycol
