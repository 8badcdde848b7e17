// The fused convolution + pooling lowering (docs/microarchitecture.md section 16, "Fused
// convolution + pooling"): a convolution followed by a pooling of its output compiles to one
// program whose convolution tiles are pooled on chip before anything is stored. Per tile of
// pooled output rows and columns (the whole width, or column tiles) and output channels: the
// convolution's channel slices into
// psum buffer 0, a padding fill of the pooling tile when its windows reach beyond the
// convolution's rows, the move of the outputs into an ifmap buffer (STORE_PSUMS into the ifmap
// buffer, section 7.6), a pooling RUN into psum buffer 1 and the store of the pooled rows. The
// convolution rows and columns two tiles' windows share (3 x 3 stride 2: one) are computed twice.
#pragma once

#include <functional>
#include <string>

#include "sim/compiler/compiler.h"
#include "sim/compiler/pool_shape.h"

namespace flycol {

// Tile sizes forced by the user (0: the compiler chooses): input channels per slice, output
// channel groups of array.cols, pooled output rows and columns per tile.
struct FusedCompileOptions {
  int tile_c = 0, tile_kg = 0, tile_q = 0, tile_p = 0;
  // "output_stationary" (pooled row tiles outermost, then k tiles, then channel slices) or
  // "k_outer" (k tiles outermost: a k tile's weights stay resident over the row tiles when they
  // fit); empty: both are scored.
  std::string order;
  // Scores a candidate program, lower is better (the network planner passes the analytic model's
  // cycles). Empty: the larger of the array's MAC steps and the program's DRAM bytes at the
  // configured bandwidth.
  std::function<double(const Program&)> score;
};

// Why the pooling `pool` of the convolution `conv`'s output cannot be fused with it on this
// configuration (empty if it can): the accumulator must be as wide as the element (FP16: the chip
// has no requantizer), both ifmap and psum SRAMs double buffered, `pool` on exactly the
// convolution's output (N, C = K, H = Ho, W = Wo), and a tile of one pooled row over the whole
// width must fit every buffer. Also anything compile_layer / compile_pool refuse on their own.
std::string fusion_problem(const Layer& conv, const PoolShape& pool, const Config& config);

// The fused program. Its ofmap in DRAM is the pooled [N][K][Hp][Wp] (Program::ofmap_elems); the
// DRAM image is build_dram_image's (the convolution's ifmap and weights). Throws InputError with
// fusion_problem's reason, or for bad options.
Program compile_fused(const Layer& conv, const PoolShape& pool, const Config& config,
                      const FusedCompileOptions& options = {});

// The emitter compile_fused shares with compile_layer (compiler.cpp): walks p.plan's fused tiles.
void emit_fused_program(Program& p);

}  // namespace flycol
