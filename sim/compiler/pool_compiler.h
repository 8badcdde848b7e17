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
#include "sim/compiler/pool_shape.h"
#include "sim/config/config.h"
#include "sim/workload/workload.h"

namespace flycol {

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

// The pieces of a pooling tile that a fused convolution + pooling program (compiler.cpp) shares:
// the geometry the tiles follow (a Layer with K = C, the bottom and right padding grown by what
// ceil_mode adds; throws InputError as compile_pool does for a layer the unit cannot run), the
// padding value of a max tile (the type's smallest) and the RUN of the tile of output rows
// oy0..oy0+th-1, columns ox0..ox0+tw-1 and tc channels (buffers left 0).
Layer pool_geometry(const PoolShape& s, const Config& config);
std::uint32_t pool_pad_value(hw::PoolOp op, Arithmetic a);
// The STORE_PSUMS descriptor (buffer 0) of that tile's results into the ofmap [N][C][Ho][Wo] at
// `ofmap_base` (a convolution's layout with K = C).
hw::DmaDesc pool_tile_store(const Layer& geometry, const hw::HwParams& hw, std::uint64_t ofmap_base, int n, int oy0,
                            int th, int ox0, int tw, int c0, int tc);
hw::RunDesc pool_tile_run(const PoolShape& s, const Layer& geometry, const hw::HwParams& hw, int oy0, int th, int ox0,
                          int tw, int tc);
// The average's divisor fields of a RUN whose output tile starts at row oy0, column ox0 of `s`:
// pool_sy and the counted range [pool_y0, pool_y1) x [pool_x0, pool_x1) in tile coordinates (the
// first window's top left is (0, 0)); the divisor window fields are left alone.
void set_pool_divisor(hw::RunDesc& r, const PoolShape& s, int oy0, int ox0);

// The DRAM image before the run: the ifmap [N][C][H][W] (element bits) at its base, the rest zero.
std::vector<std::uint8_t> build_pool_dram_image(const Program& p, const std::vector<ElemBits>& ifmap);

}  // namespace flycol
