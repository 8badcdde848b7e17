// Import of ONNX's own conformance models (Debian's libonnx-testdata): each array node's Layer is
// checked against the fields derived by hand from the ONNX operator docs and the test's
// definition, and its output, computed from those fields by a float64 reference convolution,
// against ONNX's expected output_0.pb, an outside reference.
#include <catch2/catch.hpp>

#include "sim/onnx/onnx_network.h"
#include "tests/common/test_util.h"
#include "tests/onnx/onnx_test_util.h"

using namespace flycol;
using namespace flycol::test;

namespace {

struct Want {
  int n, c, h, w, k, ky, kx, sy, sx, dy, dx, pt, pb, pl, pr, groups;
};

// Imports the case, checks its single array node against `want` and its output against ONNX's.
const graph::Node& check_array_case(const OnnxCase& c, const Want& want) {
  REQUIRE(c.g.nodes.size() == 1);
  const graph::Node& n = c.g.nodes[0];
  REQUIRE(n.on_array);
  const Layer& l = n.layer;
  INFO(l.spec() << " groups " << n.groups);
  CHECK(l.n == want.n);
  CHECK(l.c == want.c);
  CHECK(l.h == want.h);
  CHECK(l.w == want.w);
  CHECK(l.k == want.k);
  CHECK(l.ky == want.ky);
  CHECK(l.kx == want.kx);
  CHECK(l.sy == want.sy);
  CHECK(l.sx == want.sx);
  CHECK(l.dy == want.dy);
  CHECK(l.dx == want.dx);
  CHECK(l.pt == want.pt);
  CHECK(l.pb == want.pb);
  CHECK(l.pl == want.pl);
  CHECK(l.pr == want.pr);
  CHECK(n.groups == want.groups);
  CHECK(n.out_shape == c.y.shape);
  // float32 data, float64 sums over at most a few hundred terms: 1e-5 relative is generous and
  // a wrong pad, stride or group would be off by O(1).
  CHECK(max_rel_error(reference_array_node(n, c.x), c.y.values) < 1e-5);
  return n;
}

}  // namespace

// ONNX Conv docs (Operators.md, Conv examples): x = 0..24 as [1,1,5,5] (or 0..34 as [1,1,7,5]),
// W = ones [1,1,3,3].
TEST_CASE("onnx import: test_basic_conv_with_padding (pads 1)", "[unit]") {
  const auto c = load_case("node/test_basic_conv_with_padding");
  const auto& n = check_array_case(c, {1, 1, 5, 5, 1, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1});
  CHECK(n.weights.shape == std::vector<std::int64_t>{1, 1, 3, 3});
  for (double w : n.weights.values) CHECK(w == 1.0);
  CHECK(n.bias.values.empty());
  CHECK(c.g.opset >= 11);
}

TEST_CASE("onnx import: test_basic_conv_without_padding", "[unit]") {
  check_array_case(load_case("node/test_basic_conv_without_padding"), {1, 1, 5, 5, 1, 3, 3, 1, 1, 1, 1, 0, 0, 0, 0, 1});
}

TEST_CASE("onnx import: test_conv_with_strides_padding", "[unit]") {
  check_array_case(load_case("node/test_conv_with_strides_padding"), {1, 1, 7, 5, 1, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1});
}

TEST_CASE("onnx import: test_conv_with_strides_no_padding", "[unit]") {
  check_array_case(load_case("node/test_conv_with_strides_no_padding"), {1, 1, 7, 5, 1, 3, 3, 2, 2, 1, 1, 0, 0, 0, 0, 1});
}

// pads = [1, 0, 1, 0] is [y_begin, x_begin, y_end, x_end]: top 1, left 0, bottom 1, right 0.
TEST_CASE("onnx import: test_conv_with_strides_and_asymmetric_padding", "[unit]") {
  check_array_case(load_case("node/test_conv_with_strides_and_asymmetric_padding"),
                   {1, 1, 7, 5, 1, 3, 3, 2, 2, 1, 1, 1, 1, 0, 0, 1});
}

// auto_pad SAME_LOWER, stride 2 on 5 x 5: out = ceil(5/2) = 3, total pad (3-1)*2 + 3 - 5 = 2,
// split 1 / 1 (SAME_LOWER puts the odd one at the beginning; here there is none).
TEST_CASE("onnx import: test_conv_with_autopad_same (SAME_LOWER)", "[unit]") {
  check_array_case(load_case("node/test_conv_with_autopad_same"), {1, 1, 5, 5, 1, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1});
}

// PyTorch's common_nn module tests, converted (opset 6): the constructor arguments give the fields.
TEST_CASE("onnx import: pytorch test_Conv2d (3->4, kernel 3x2, input 2x3x7x5)", "[unit]") {
  const auto c = load_case("pytorch-converted/test_Conv2d");
  const auto& n = check_array_case(c, {2, 3, 7, 5, 4, 3, 2, 1, 1, 1, 1, 0, 0, 0, 0, 1});
  CHECK(n.bias.shape == std::vector<std::int64_t>{4});
}

TEST_CASE("onnx import: pytorch test_Conv2d_no_bias", "[unit]") {
  const auto c = load_case("pytorch-converted/test_Conv2d_no_bias");
  const auto& n = check_array_case(c, {2, 3, 6, 5, 4, 3, 2, 1, 1, 1, 1, 0, 0, 0, 0, 1});
  CHECK(n.bias.values.empty());
}

TEST_CASE("onnx import: pytorch test_Conv2d_strided / padding / dilated", "[unit]") {
  check_array_case(load_case("pytorch-converted/test_Conv2d_strided"), {2, 3, 6, 6, 4, 3, 3, 2, 2, 1, 1, 0, 0, 0, 0, 1});
  check_array_case(load_case("pytorch-converted/test_Conv2d_padding"), {2, 3, 6, 6, 4, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1});
  check_array_case(load_case("pytorch-converted/test_Conv2d_dilated"), {2, 3, 8, 8, 2, 3, 3, 2, 2, 2, 2, 1, 1, 1, 1, 1});
}

// Groups: layer holds one group (C/groups -> K/groups); depthwise is groups = C.
TEST_CASE("onnx import: pytorch test_Conv2d_groups and depthwise", "[unit]") {
  check_array_case(load_case("pytorch-converted/test_Conv2d_groups"), {2, 2, 6, 5, 3, 3, 2, 1, 1, 1, 1, 0, 0, 0, 0, 2});
  check_array_case(load_case("pytorch-converted/test_Conv2d_groups_thnn"), {2, 2, 6, 5, 3, 3, 2, 1, 1, 1, 1, 0, 0, 0, 0, 2});
  check_array_case(load_case("pytorch-converted/test_Conv2d_depthwise"), {2, 1, 6, 6, 1, 3, 3, 1, 1, 1, 1, 0, 0, 0, 0, 4});
  check_array_case(load_case("pytorch-converted/test_Conv2d_depthwise_padded"), {2, 1, 6, 6, 1, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 4});
  check_array_case(load_case("pytorch-converted/test_Conv2d_depthwise_strided"), {2, 1, 6, 6, 1, 3, 3, 2, 2, 1, 1, 0, 0, 0, 0, 4});
  check_array_case(load_case("pytorch-converted/test_Conv2d_depthwise_with_multiplier"),
                   {2, 1, 6, 6, 2, 3, 3, 1, 1, 1, 1, 0, 0, 0, 0, 4});
}

// Conv1d: [N][C][W] is run as [N][C][1][W] with a 1 x k kernel.
TEST_CASE("onnx import: pytorch test_Conv1d as a 1 x k convolution", "[unit]") {
  const auto c = load_case("pytorch-converted/test_Conv1d_groups");
  REQUIRE(c.g.nodes.size() == 1);
  const auto& n = c.g.nodes[0];
  CHECK(n.layer.h == 1);
  CHECK(n.layer.ky == 1);
  CHECK(n.groups == 2);
  CHECK(max_rel_error(reference_array_node(n, c.x), c.y.values) < 1e-5);
}

// Gemm: Y = alpha * A * B' + beta * C as a 1 x 1 convolution over N = M rows.
TEST_CASE("onnx import: Gemm cases as 1 x 1 convolutions (transB, alpha, beta, vector/scalar bias)", "[unit]") {
  struct G {
    const char* name;
    int m, kin, kout;
  };
  // Shapes from ONNX's Gemm test definitions (onnx/backend/test/case/node/gemm.py).
  for (const G g : {G{"test_gemm_transposeB", 3, 6, 4}, G{"test_gemm_alpha", 3, 5, 4}, G{"test_gemm_beta", 2, 7, 4},
                    G{"test_gemm_default_vector_bias", 2, 7, 4}, G{"test_gemm_default_scalar_bias", 2, 3, 4},
                    G{"test_gemm_default_no_bias", 2, 10, 3}, G{"test_gemm_default_single_elem_vector_bias", 3, 7, 3},
                    G{"test_gemm_default_zero_bias", 3, 5, 4}}) {
    INFO(g.name);
    const auto c = load_case(std::string("node/") + g.name);
    check_array_case(c, {g.m, g.kin, 1, 1, g.kout, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1});
    CHECK(c.g.nodes[0].in_view == std::vector<std::int64_t>{g.m, g.kin, 1, 1});
  }
}

TEST_CASE("onnx import: MatMul 2-D as a 1 x 1 convolution", "[unit]") {
  check_array_case(load_case("node/test_matmul_2d"), {3, 4, 1, 1, 3, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1});
}

// Host operators: recorded with their attributes, constant inputs moved into attrs.
TEST_CASE("onnx import: host operators and their attributes", "[unit]") {
  {
    const auto c = load_case("node/test_maxpool_2d_same_lower");  // kernel 2, SAME_LOWER on 32: pads 1 before
    const auto& n = c.g.nodes.at(0);
    CHECK_FALSE(n.on_array);
    CHECK(n.op == "MaxPool");
    CHECK(n.attrs.at("pads") == std::vector<double>{1, 1, 0, 0});
    CHECK(n.attrs.at("kernel_shape") == std::vector<double>{2, 2});
    CHECK(n.str_attrs.count("auto_pad") == 0);
  }
  {
    const auto c = load_case("node/test_maxpool_2d_same_upper");  // the extra pad goes at the end
    CHECK(c.g.nodes.at(0).attrs.at("pads") == std::vector<double>{0, 0, 1, 1});
  }
  {
    const auto c = load_case("node/test_clip");
    const auto& n = c.g.nodes.at(0);
    CHECK(n.attrs.at("min") == std::vector<double>{-1});
    CHECK(n.attrs.at("max") == std::vector<double>{1});
    CHECK(n.inputs.size() == 1);
  }
  {
    const auto c = load_case("node/test_reshape_negative_dim");
    CHECK(c.g.nodes.at(0).attrs.at("shape") == std::vector<double>{2, -1, 2});
  }
  {
    const auto c = load_case("node/test_resize_upsample_scales_nearest");
    const auto& n = c.g.nodes.at(0);
    CHECK(n.attrs.at("scales") == std::vector<double>{1, 1, 2, 3});
    CHECK(n.str_attrs.at("mode") == "nearest");
  }
  {
    const auto c = load_case("node/test_leakyrelu");
    CHECK(c.g.nodes.at(0).attrs.at("alpha") == std::vector<double>{double(0.1f)});
  }
  {
    const auto c = load_case("node/test_averagepool_2d_pads_count_include_pad");
    CHECK(c.g.nodes.at(0).attrs.at("count_include_pad") == std::vector<double>{1});
    CHECK(c.g.nodes.at(0).attrs.at("pads") == std::vector<double>{2, 2, 2, 2});
  }
  {
    const auto c = load_case("node/test_batchnorm_example");  // not after a convolution: a host node
    const auto& n = c.g.nodes.at(0);
    CHECK(n.op == "BatchNormalization");
    CHECK(n.attrs.at("scale").size() == 3);
    CHECK(n.attrs.at("input_var").size() == 3);
  }
  for (const char* rel : {"node/test_relu", "node/test_identity", "node/test_softmax_axis_1", "node/test_flatten_axis2",
                          "node/test_concat_3d_axis_1", "node/test_dropout_default", "node/test_mul",
                          "node/test_add_bcast", "node/test_upsample_nearest"}) {
    INFO(rel);
    const auto c = load_case(rel);
    REQUIRE(c.g.nodes.size() == 1);
    CHECK_FALSE(c.g.nodes[0].on_array);
    CHECK(c.g.shapes.at(c.g.nodes[0].outputs[0]) == c.y.shape);
  }
}

TEST_CASE("onnx import: network layer list of a conformance model", "[unit]") {
  const Network net = to_network(load_case("pytorch-converted/test_Conv2d_groups").g);
  REQUIRE(net.layers.size() == 1);
  CHECK(net.layers[0].op == "conv");
  CHECK(net.layers[0].groups == 2);
  CHECK(net.layers[0].c == 4);  // all groups
  CHECK(net.layers[0].layer.c == 2);
  CHECK(net.in_c == 4);
  CHECK(net.in_h == 6);
  CHECK(net.in_w == 5);
}
