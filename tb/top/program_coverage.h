// Program coverage of the whole-accelerator regressions: which features of the compiler's programs
// (loop orders, tile layouts, channel slices, spills, edge tiles, padding sides, ...) and of the
// operands a layer exercised, counted over a run, and a gate that fails the run when a feature was
// hit fewer than a minimum number of times. aim_case() bends a random case towards one feature, so
// that a regression can close the gaps its random draws left (the gate still counts only what the
// compiled programs actually did).
#pragma once

#include <array>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "sim/compiler/compiler.h"
#include "sim/config/config.h"
#include "tb/top/layer_cases.h"

namespace flycol::tb {

enum class Feature {
  order_output_stationary,  // each loop order
  order_k_outer,
  order_spill,
  aligned_rows,            // TilePlan::aligned
  flat_contexts,           // TilePlan::flat
  packed_contexts,         // TilePlan::flat with a kernel wider than 1x1: pixels packed across rows
  packed_images,           // TilePlan::tn > 1: contexts packed across images (1x1, N > 1)
  skip_rows,               // TilePlan::skip_rows
  gathered_cols,           // TilePlan::gather (kx = 1, sx > 1: the LOAD_IFMAP gathers every sx-th column)
  channel_slices,          // tiles_c > 1 with the partial sums kept on chip and preloaded (not spill)
  spill,                   // tiles_c > 1 in the spill order: partial sums out to DRAM and back
  k_tiles,                 // tiles_k > 1
  edge_tile_x,             // the last x tile is narrower than the others
  edge_tile_y,             // the last y tile is shorter than the others
  pad_top,
  pad_bottom,
  pad_left,
  pad_right,
  stride_and_dilation,     // a stride > 1 and a dilation > 1 in the same layer
  batch,                   // N > 1
  kernel_one_direction,    // kernel > 1 in only one direction (1 x k or k x 1)
  searched_plan,           // the plan of the tiling search (flycol net's choice)
  zero_operands,           // a share of zero activations and weights (zero gating)
  operands_normal,         // each operand class but the default uniform one
  operands_wide,
  operands_specials,
  operands_saturate,
  fp16_overflow,           // an FP16 output is +-Inf or NaN although every operand was finite
  int_saturated,           // an integer output sits at an int32 limit (the accumulator clamped)
  count_
};
constexpr int kFeatureCount = int(Feature::count_);

const char* feature_name(Feature f);

// The features the compiled program `p` of case `c` exercises.
std::vector<Feature> features_of(const Case& c, const Program& p);

// The features the results show: fp16_overflow or int_saturated, from the operands and the golden
// outputs of the case's layer.
std::vector<Feature> outcome_features(const ConvOperands& ops, const std::vector<AccBits>& want);

// Every feature of case `c` on `cfg`: its compiled program's and its golden results'. False when
// the compiler rejects the case.
bool case_features(const Case& c, const Config& cfg, std::vector<Feature>& fs);

// Whether a feature can be asked of every run of a configuration: fp16_overflow only of FP16,
// int_saturated only of int16 (an int8 product is at most 2^14, so the int32 accumulator needs
// more than 131072 terms to clamp: the recorded int8 lines hold such layers, random ones are far
// smaller).
bool feature_applies(Feature f, Arithmetic a);

// Hit counts per feature over a run.
class Coverage {
public:
  void add(const std::vector<Feature>& fs);
  int hits(Feature f) const { return hits_[std::size_t(f)]; }
  // The features that apply to arithmetic `a` hit fewer than `min` times.
  std::vector<Feature> below(int min, Arithmetic a) const;
  // One line: every feature and its count.
  std::string table() const;

private:
  std::array<int, kFeatureCount> hits_{};
};

// Bends the random case `c` towards feature `f` (its layer, loop order, tiles, layout, tiling or
// operands), keeping it within max_macs where it can. The result may still miss `f` (the compiler
// decides the plan): callers compile it and check features_of().
void aim_case(Feature f, Case& c, const Config& cfg, std::mt19937_64& rng, std::int64_t max_macs);

// A copy of `c` with a smaller layer (at most max_macs) whose program exercises every feature the
// original's does, for regressions that cap the size of a layer. Returns false when none was found.
bool scaled_copy(const Case& c, const Config& cfg, std::int64_t max_macs, Case& out);

}  // namespace flycol::tb
