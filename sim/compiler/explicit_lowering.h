// The explicit-im2col baseline (sim/compiler/README.md, "Explicit lowering"): the host lowers the
// ifmap into the im2col matrix [C*ky*kx] x [Ho*Wo] in DRAM and the same accelerator runs it as a
// plain GeMM, i.e. the equivalent 1x1, stride-1, unpadded layer. Its reduction order (c, ky, kx)
// is that of the original layer, so both give bit-identical outputs.
#pragma once

#include "hw/common/hw_params.h"
#include "sim/config/layer.h"
#include "sim/workload/workload.h"

namespace flycol {

// The lowered layer: C' = C*ky*kx channels of an H' x W' map with H'*W' = Ho*Wo, the matrix's
// columns (output pixels) in their row-major order, so the DRAM image is the matrix itself. W' is
// the widest multiple of Wo (a whole number of output rows) within the layer limit, preferring a
// multiple of array.rows (full feeder words and contexts). Same N, K and weights.
Layer explicit_lowered_layer(const Layer& l, const hw::HwParams& hw);

// What the host does: the lowered ifmap (padding zeros included: they are real DRAM data now) and
// the weights of `ops` for `lowered` (the same numbers in the same order).
ConvOperands lower_operands(const ConvOperands& ops, const Layer& lowered);

}  // namespace flycol
