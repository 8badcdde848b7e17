// The backward pass of pooling on chip (docs/microarchitecture.md, section 16, "Backward" and
// "Backward of max pooling"): the output gradient dy [N][C][Ho][Wo] (max: and the forward input x)
// and an FP16 configuration into the command
// stream that computes the input gradient dx [N][C][H][W] with the pooling unit, the way the golden
// model defines it (golden::pool_backward: each output's share dy / n rounded once, the shares an
// input element receives summed exactly and rounded once). Per tile of channels and input rows
// and columns:
//   1. LOAD_IFMAP of the dy rows and columns whose windows reach the tile;
//   2. a pooling RUN of 1 x 1 windows over them whose divisor window is the forward window: the
//      shares, in psum buffer 0;
//   3. a LOAD_IFMAP of +0 only into the other ifmap buffer (no memory request);
//   4. a STORE_PSUMS into that ifmap buffer (section 7.6) that places share (oy, ox) at row
//      oy*sy + ky - 1 - pt and column ox*sx + kx - 1 - pl of the gather tile: the shares
//      interleaved with sy - 1 and sx - 1 zeros;
//   5. an average RUN with the forward window at stride 1 over that tile and a 1 x 1 divisor
//      window (a divisor of 1): the exact sum of the shares, rounded once, into psum buffer 1;
//   6. the STORE_PSUMS of dx.
// Only the gradient tensors move through DRAM: dy once (plus the rows two tiles share), dx once.
// Max pooling replaces 1.-2. by the x rows of those windows and an argmax RUN (the window position of
// each window's max, counted from its end) into psum buffer 0 and a LOAD_PSUMS of dy into psum
// buffer 1; 3.-5. fill with 0xFFFF, move both into (index, value) pairs and gather with a masked
// sum that takes a value only where its index names the input element.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/compiler/compiler.h"
#include "sim/compiler/pool_compiler.h"
#include "sim/compiler/pool_shape.h"
#include "sim/config/config.h"

namespace flycol {

// The program of pooling `s`'s backward pass. Program::layer is the gather geometry (K = C,
// H + ky - 1 by W + kx - 1 input, the forward window at stride 1: its output is dx's H x W; max:
// the columns doubled, a ky x 2kx window at stride 2), Program::pool is s.op and
// Program::pool_backward is set; the DRAM ifmap region holds dy ([N][C][Ho][Wo] accumulator bits,
// which in FP16 are element bits), for max the weights region the forward input x ([N][C][H][W]),
// and the ofmap region dx ([N][C][H][W] accumulator bits). options.tile_c / tile_h / tile_w force
// dx tiles (tile_w: W or a multiple of array.rows). Throws InputError for dilated max pooling or a
// max window above 65535 elements or 256 a side (the argmax RUN's), an integer configuration (an
// int32 share is no int8 / int16 element: section 7.6), a layer the forward pooling could not run
// (pool_geometry), or a smallest tile that does not fit the SRAMs.
Program compile_pool_backward(const PoolShape& s, const Config& config, const PoolCompileOptions& options = {});

// The DRAM image before the run: dy ([N][C][Ho][Wo] accumulator bits) at the ifmap base, for max
// pooling x ([N][C][H][W] element bits; required then, ignored otherwise) at the weights base, the
// rest zero.
std::vector<std::uint8_t> build_pool_backward_dram_image(const Program& p, const std::vector<AccBits>& grad,
                                                         const std::vector<ElemBits>& x = {});

}  // namespace flycol
