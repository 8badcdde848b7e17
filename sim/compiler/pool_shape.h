// A pooling layer as the compiler takes it (docs/microarchitecture.md section 16): ONNX's
// attributes on an [N][C][H][W] tensor. Its own header so that a Program (compiler.h) can carry
// the pooling of a fused convolution + pooling layer.
#pragma once

#include <string>

#include "hw/common/command.h"

namespace flycol {

// ONNX's attributes (window, strides, dilations, pads by side, ceil_mode, count_include_pad).
// Global pooling is the H x W window, stride 1, no padding. The compiler computes Ho and Wo itself
// (ONNX's rule), apart from the golden model's.
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

}  // namespace flycol
