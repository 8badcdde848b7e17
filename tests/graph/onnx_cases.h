// ONNX's node conformance cases of the host operators (libonnx-testdata), and the tolerance each
// operator is compared with: shared by the host-op test (the node run directly) and the import
// test (the model through flycol's importer and the float32 graph run).
#pragma once

#include <string>
#include <vector>

namespace flycol::test {

inline const char* kNodeData = "/usr/include/onnx/backend/test/data/node";

// Tolerance per operator, in float32 ulps of the largest expected magnitude. Exact where the
// float32 result is one rounding (or none) of the same operation: data movement, max, compare,
// one add/mul. Averages, Softmax, BatchNormalization and linear Resize are a few float32 roundings
// in ONNX's NumPy reference against one rounding of a double here: each of their at most ~8
// roundings contributes up to half an ulp of the running magnitude (bounded by max |y| for averages
// and interpolation, and by 1 for Softmax), so 8 ulps of max |y| bounds the difference.
inline double tolerance_ulps(const std::string& op, const std::string& mode) {
  if (op == "AveragePool" || op == "GlobalAveragePool" || op == "Softmax" || op == "BatchNormalization") return 8;
  if (op == "Resize" && mode == "linear") return 8;
  return 0;
}

inline const std::vector<std::string>& onnx_host_op_cases() {
  static const std::vector<std::string> cases = {
      "test_relu", "test_leakyrelu", "test_leakyrelu_default", "test_leakyrelu_example", "test_clip",
      "test_clip_default_inbounds", "test_clip_default_max", "test_clip_default_min", "test_clip_example",
      "test_clip_inbounds", "test_clip_outbounds", "test_clip_splitbounds", "test_add", "test_add_bcast", "test_mul",
      "test_mul_bcast", "test_mul_example", "test_concat_1d_axis_0", "test_concat_1d_axis_negative_1",
      "test_concat_2d_axis_0", "test_concat_2d_axis_1", "test_concat_2d_axis_negative_1",
      "test_concat_2d_axis_negative_2", "test_concat_3d_axis_0", "test_concat_3d_axis_1", "test_concat_3d_axis_2",
      "test_concat_3d_axis_negative_1", "test_concat_3d_axis_negative_2", "test_concat_3d_axis_negative_3",
      "test_maxpool_2d_ceil", "test_maxpool_2d_default", "test_maxpool_2d_dilations", "test_maxpool_2d_pads",
      "test_maxpool_2d_precomputed_pads", "test_maxpool_2d_precomputed_same_upper",
      "test_maxpool_2d_precomputed_strides", "test_maxpool_2d_same_lower", "test_maxpool_2d_same_upper",
      "test_maxpool_2d_strides", "test_averagepool_2d_ceil", "test_averagepool_2d_default",
      "test_averagepool_2d_pads", "test_averagepool_2d_pads_count_include_pad",
      "test_averagepool_2d_precomputed_pads", "test_averagepool_2d_precomputed_pads_count_include_pad",
      "test_averagepool_2d_precomputed_same_upper", "test_averagepool_2d_precomputed_strides",
      "test_averagepool_2d_same_lower", "test_averagepool_2d_same_upper", "test_averagepool_2d_strides",
      "test_globalaveragepool", "test_globalaveragepool_precomputed", "test_flatten_axis0", "test_flatten_axis1",
      "test_flatten_axis2", "test_flatten_axis3", "test_flatten_default_axis", "test_flatten_negative_axis1",
      "test_flatten_negative_axis2", "test_flatten_negative_axis3", "test_flatten_negative_axis4",
      "test_reshape_extended_dims", "test_reshape_negative_dim", "test_reshape_negative_extended_dims",
      "test_reshape_one_dim", "test_reshape_reduced_dims", "test_reshape_reordered_all_dims",
      "test_reshape_reordered_last_dims", "test_reshape_zero_and_negative_dim", "test_reshape_zero_dim",
      "test_reshape_allowzero_reordered", "test_softmax_axis_0", "test_softmax_axis_1", "test_softmax_axis_2",
      "test_softmax_default_axis", "test_softmax_example", "test_softmax_large_number", "test_softmax_negative_axis",
      "test_identity", "test_dropout_default", "test_dropout_default_ratio", "test_dropout_default_old",
      "test_batchnorm_epsilon", "test_batchnorm_example", "test_upsample_nearest",
      "test_resize_upsample_scales_nearest", "test_resize_downsample_scales_nearest",
      "test_resize_upsample_sizes_nearest", "test_resize_downsample_sizes_nearest",
      "test_resize_upsample_sizes_nearest_ceil_half_pixel", "test_resize_upsample_sizes_nearest_floor_align_corners",
      "test_resize_upsample_sizes_nearest_round_prefer_ceil_asymmetric",
      "test_resize_downsample_sizes_nearest_tf_half_pixel_for_nn", "test_resize_upsample_scales_linear",
      "test_resize_upsample_scales_linear_align_corners", "test_resize_downsample_scales_linear",
      "test_resize_downsample_scales_linear_align_corners", "test_resize_downsample_sizes_linear_pytorch_half_pixel"};
  return cases;
}

}  // namespace flycol::test
