// The explicit-im2col baseline of a point: the DRAM traffic of the same accelerator when the host
// lowers the ifmap into the im2col matrix first and the chip runs it as a plain GeMM. Sweeps put
// it beside the traffic of on-the-fly im2col to show what the data feeder saves.
#pragma once

#include <string>

#include "sim/analytic/tiling_mode.h"
#include "sim/compiler/compiler.h"
#include "sim/config/config.h"
#include "sim/config/layer.h"
#include "sim/sweep/results.h"

namespace flycol::sweep {

// The lowered layer: a 1x1, stride-1, unpadded convolution over an Ho x Wo image with
// C' = C * ky * kx input channels and the same N and K. Its ifmap is the im2col matrix
// ([N][C*ky*kx][Ho][Wo], one column per output pixel, padding zeros included because the host
// writes them), its weights and ofmap are those of the original layer.
Layer explicit_lowered_layer(const Layer& l);

// DRAM bytes per tensor of the lowered layer compiled for `config` as the point's own layer is:
// with the tiling search (the plan `flycol run` picks for the lowered layer), or with `tiling`
// heuristic the compiler's plan in `options`' loop order, so both sides of the comparison get the
// same planning. Exact DMA
// bytes from the command stream (program_traffic), without simulating. Not counted: the host's
// own traffic to build the matrix (reading the ifmap once, writing the matrix once), which only
// widens the gap. `note` is set, and ok false, when the lowered layer cannot be compiled (e.g. C'
// beyond the layer limits). A placeholder until the compiler grows an explicit-lowering mode.
struct LoweredTraffic {
  bool ok = false;
  DramTraffic traffic;
  std::string note;
};
LoweredTraffic explicit_lowering_traffic(const Layer& l, const Config& config, const CompileOptions& options = {},
                                         analytic::Tiling tiling = analytic::Tiling::heuristic);

}  // namespace flycol::sweep
