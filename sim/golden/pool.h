// The golden pooling: ONNX's MaxPool, AveragePool, GlobalMaxPool and GlobalAveragePool over an
// [N][C][H][W] tensor, forward, and backward as the col2im scatter of the output gradient, in the
// arithmetic that docs/microarchitecture.md section 15 fixes for the pooling unit (issue 18):
// max in window order with the first of equal values winning, the average's sum exact and its one
// rounding at the division, the backward pass summed exactly per input element and rounded once. Like
// the golden convolution it uses only the golden model's own arithmetic (fp16_exact.h); the
// float64 versions measure the error beside it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/workload/workload.h"

namespace flycol::golden {

enum class PoolOp { max, avg };

// One pooling layer with ONNX's attributes: kernel_shape (ky, kx), strides, dilations, pads
// (pt, pl, pb, pr in ONNX's begin/end order; here by side), ceil_mode and count_include_pad
// (average only). Global pooling is the window H x W with stride 1 and no padding (global()).
struct PoolLayer {
  std::string name = "pool";  // for reports only
  PoolOp op = PoolOp::max;
  int n = 1, c = 1, h = 1, w = 1;
  int ky = 1, kx = 1, sy = 1, sx = 1, dy = 1, dx = 1;
  int pt = 0, pb = 0, pl = 0, pr = 0;
  bool ceil_mode = false;
  bool count_include_pad = false;

  static PoolLayer global(PoolOp op, int n, int c, int h, int w);

  int extent_y() const { return (ky - 1) * dy + 1; }  // dilated window height
  int extent_x() const { return (kx - 1) * dx + 1; }
  // Output size, ONNX's rule: floor (or with ceil_mode, ceil) of (padded size - extent) / stride,
  // plus one; with ceil_mode a last window that would start in the end padding is dropped.
  int ho() const;
  int wo() const;
  std::int64_t ifmap_elems() const { return std::int64_t(n) * c * h * w; }
  std::int64_t ofmap_elems() const { return std::int64_t(n) * c * ho() * wo(); }
  // Empty when the layer is well formed, else what is wrong ("sy = 0: must be >= 1", ...).
  std::string problem() const;
};

// Forward pooling of `ifmap` ([N][C][H][W] element bits of `arith`) into [N][C][Ho][Wo]
// accumulator bits (binary16 for fp16, int32 for int8 / int16, as golden::conv gives).
//   max: the largest valid element in window order (ky, then kx); padding never takes part; a later
//        element replaces the running maximum only if it is strictly greater (+0 and -0 are equal,
//        so the first of them stays); a NaN anywhere gives the canonical NaN; a window without a
//        valid element gives -Inf (fp16) or the element type's minimum (int).
//   avg: the exact sum of the valid elements (fp16: every finite binary16 is a multiple of 2^-24,
//        so a wide fixed-point sum is exact and its order does not matter) divided by the count
//        (valid elements, or with count_include_pad the window positions inside the declared
//        padding) with one rounding: fp16 to nearest, ties to even; int to nearest, ties away from
//        zero. A zero sum gives +0; NaN, or +Inf with -Inf, gives NaN, else an infinite element
//        gives that infinity; a count of 0 gives NaN (fp16) or 0 (int).
// Throws std::invalid_argument for a malformed layer or a tensor of the wrong size.
std::vector<AccBits> pool(const PoolLayer& l, Arithmetic arith, const std::vector<ElemBits>& ifmap);

// The same pooling of the same values in float64 (max: the same choice; avg: sum / count).
std::vector<double> pool_f64(const PoolLayer& l, Arithmetic arith, const std::vector<ElemBits>& ifmap);

// The window element max pooling picks for every output (the index into the ifmap), or -1 for a
// window without a valid element: what the backward pass routes each gradient to.
std::vector<std::int64_t> pool_argmax(const PoolLayer& l, Arithmetic arith, const std::vector<ElemBits>& ifmap);

// Backward pooling (col2im): the input gradient [N][C][H][W] (accumulator bits) from the output
// gradient `grad` ([N][C][Ho][Wo] accumulator bits). Each input element receives, from every
// output whose window holds it, max: the output's gradient if it is the window's argmax; avg: the
// output's gradient divided by its count (one rounding, as in the forward pass), at every valid
// element. What an element receives is summed exactly and rounded once (fp16: to nearest, ties to
// even; a NaN, or +Inf with -Inf, gives NaN, an infinity that infinity, a zero sum +0; int: the
// exact sum saturated to int32), so the order of the windows does not matter. `ifmap` is needed
// for max only (may be empty for avg).
std::vector<AccBits> pool_backward(const PoolLayer& l, Arithmetic arith, const std::vector<ElemBits>& ifmap,
                                   const std::vector<AccBits>& grad);

// The same backward pass in float64 (no rounding).
std::vector<double> pool_backward_f64(const PoolLayer& l, Arithmetic arith, const std::vector<ElemBits>& ifmap,
                                      const std::vector<AccBits>& grad);

}  // namespace flycol::golden
