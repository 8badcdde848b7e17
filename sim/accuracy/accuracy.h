// Accuracy of the accelerator's outputs against outside references: error statistics, a float64
// convolution of the original (unrounded) operands, and a rigorous per-element bound on how far
// a correct accelerator result may lie from a float32 reference such as ONNX's expected outputs.
//
// THE BOUND (docs/tensors.md repeats this). One output element; j runs over its n_all in-bounds
// taps (zero padding contributes nothing and is left out). x_j, w_j: the original operands;
// xh_j, wh_j: the operands rounded once to binary16; p_j = xh_j*wh_j (exact: 22 bits); P = sum|p_j|;
// n = the number of nonzero p_j (a zero product is gated, or adds an exact 0: no error).
//  1. FP16 accumulation. Each FMA gives s_k = (s_{k-1} + p_k)(1 + d_k) + e_k, |d_k| <= u = 2^-11
//     and |e_k| <= 2^-25 (a result in the subnormal range has absolute error at most half the
//     subnormal spacing 2^-24; a normal one relative error u; never both). With E_k the error of
//     s_k against the exact partial sum and S_k = |p_1|+...+|p_k| <= P:
//       E_k <= E_{k-1} + u(S_k + E_{k-1}) + 2^-25 = (1+u)E_{k-1} + uP + 2^-25,  E_0 = 0,
//     so E_n <= ((1+u)^n - 1)(P + 2^-25/u) <= ((1+u)^n - 1) P + n 2^-25 (1+u)^n,
//     using ((1+u)^n - 1)/u <= n(1+u)^(n-1). Valid only if no partial sum reaches the overflow
//     threshold: |s_k| <= P(1+u)^n + n 2^-25 (1+u)^n must stay <= 65504, else the element is
//     marked invalid (the bound says nothing there; so are elements with an Inf/NaN operand).
//  2. Operand rounding: |sum p_j - sum x_j w_j| <= sum |p_j - x_j w_j| (computed from both, with
//     an FMA so that each difference is the exact one rounded once).
//  3. The reference's own float32 arithmetic (any summation order, FMA or not): each term sees at
//     most n_all roundings of relative size v = 2^-24 (the product and up to n_all - 1 additions),
//     so |r - sum x_j w_j| <= ((1+v)^n_all - 1) sum|x_j w_j| + 2 n_all 2^-150 (1+v)^n_all
//     (the last term: float32 subnormal results, absolute error <= 2^-150 per operation).
//     A reference computed another way (Winograd, FFT) is not covered.
//  4. The bias b (per output channel), added on both sides in float32: our y = fl32(s + fl32(b)),
//     the reference fl32(r + b): adds |fl32(b) - b| + v(|s + fl32(b)| + |r + b|) <= |fl32(b) - b|
//     + v(2|b| + |b - fl32(b)| + S_max + R_max), with S_max = P(1+u)^n + n 2^-25 (1+u)^n and
//     R_max = sum|x_j w_j| (1+v)^n_all + 2 n_all 2^-150 (1+v)^n_all the largest |s| and |r|.
//  int8/int16: the int32 accumulation is exact unless it saturates (invalid if P > 2^31 - 1);
//  the operands are exact; only terms 3 and 4 remain, and with a bias v * P more: the host
//  converts the int32 accumulator to float32 before adding (exact only up to 2^24).
// The bound is the sum of the terms, times (1 + 2^-40) to cover the double arithmetic computing it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/config/layer.h"
#include "sim/workload/workload.h"

namespace flycol {

// Error of a result against a reference, element by element (same length, C order).
// Pairs where either side is NaN or +-Inf are not in the figures: they are counted in
// `nonfinite`, and in `nonfinite_mismatch` unless both are NaN or both the same infinity.
// max_rel: max |e_i| / |r_i| over the elements with |r_i| >= 1e-3 * max_i |r_i| (so that
// results near zero crossings do not dominate); normwise_rel = ||e||_2 / ||r||_2; rms =
// sqrt(mean e_i^2); cosine = <y, r> / (||y|| ||r||) (1 if both are zero, 0 if one is).
struct ErrorStats {
  std::int64_t count = 0, nonfinite = 0, nonfinite_mismatch = 0;
  double max_abs = 0, max_rel = 0, normwise_rel = 0, rms = 0, cosine = 1;
  std::int64_t worst_index = -1;  // the element with the largest |e| (-1: none)
};
ErrorStats error_stats(const std::vector<double>& result, const std::vector<double>& reference);

// The convolution in float64 of the given values (x [N][C][H][W], w [K][C][ky][kx] as in L), plus
// bias[k] when given: the reference for "error against float64" of the original operands.
std::vector<double> conv_f64(const std::vector<double>& x, const std::vector<double>& w, const Layer& L,
                             const std::vector<double>* bias = nullptr);

struct BoundOptions {
  double reference_unit = 0x1p-24;            // the reference's unit roundoff: float32 (0 for exact)
  const std::vector<double>* bias = nullptr;  // original bias per output channel, if any
};

struct AccuracyBound {
  std::vector<double> bound;  // per output element [N][K][Ho][Wo]
  std::vector<char> invalid;  // 1 where the bound does not hold (overflow/saturation possible, Inf/NaN operands)
};

// The bound of the header comment for every output element. `rounded` holds the operands the
// accelerator ran (raw bits, its layer and arithmetic); x and w the original values they were
// rounded from (same sizes).
AccuracyBound accumulation_bound(const ConvOperands& rounded, const std::vector<double>& x, const std::vector<double>& w,
                                 const BoundOptions& opt = {});

// A result checked against a reference with the bound: outside counts the valid elements with
// |y - r| > bound (or a non-finite mismatch); invalid counts those not checked; worst_ratio is
// the largest |y - r| / bound over the valid elements (at worst_index).
struct BoundCheck {
  std::int64_t outside = 0, invalid = 0, worst_index = -1;
  double worst_ratio = 0, max_abs_err = 0;
  bool passed() const { return outside == 0; }
};
BoundCheck check_against_bound(const std::vector<double>& result, const std::vector<double>& reference,
                               const AccuracyBound& b);

}  // namespace flycol
