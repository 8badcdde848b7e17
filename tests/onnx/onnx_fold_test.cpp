// BatchNormalization folding and the graph structure of models built at test time: the folded
// weights and bias are checked against the BN formula worked by hand, and the folded node's
// output against the unfolded Conv-then-BN computed in float64.
#include <catch2/catch.hpp>

#include "sim/onnx/onnx_network.h"
#include "tests/common/test_util.h"
#include "tests/onnx/onnx_test_util.h"

using namespace flycol;
using namespace flycol::test;

namespace {

void add_float_attr(onnx::NodeProto* n, const std::string& name, float v) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::FLOAT);
  a->set_f(v);
}

Tensor vec(std::vector<double> v) {
  Tensor t;
  t.shape = {std::int64_t(v.size())};
  t.values = std::move(v);
  return t;
}

// x [1][2][4][4] -> Conv 2->2 k1 (W, b) -> BN (scale, B, mean, var, eps) -> y; with `also_relu`
// the Conv's output also feeds a Relu (so the BN cannot be folded).
onnx::ModelProto conv_bn_model(bool also_relu) {
  onnx::ModelProto m;
  m.set_ir_version(7);
  m.add_opset_import()->set_version(13);
  auto* g = m.mutable_graph();
  g->set_name("conv_bn");
  add_value(g->mutable_input(), "x", {"1", "2", "4", "4"});
  add_value(g->mutable_output(), "y", {"1", "2", "4", "4"});
  Tensor w;
  w.shape = {2, 2, 1, 1};
  w.values = {1, 2, 3, 4};
  tensor_to_proto(w, "W", g->add_initializer());
  tensor_to_proto(vec({0.5, -1}), "b", g->add_initializer());
  tensor_to_proto(vec({2, 3}), "scale", g->add_initializer());
  tensor_to_proto(vec({0.25, 0.5}), "B", g->add_initializer());
  tensor_to_proto(vec({1, -2}), "mean", g->add_initializer());
  tensor_to_proto(vec({3, 15}), "var", g->add_initializer());
  add_node(g, "Conv", "conv", {"x", "W", "b"}, {"c"});
  auto* bn = add_node(g, "BatchNormalization", "bn", {"c", "scale", "B", "mean", "var"}, {"y"});
  add_float_attr(bn, "epsilon", 1.0f);
  if (also_relu) {
    add_node(g, "Relu", "relu", {"c"}, {"r"});
    add_value(g->mutable_output(), "r", {"1", "2", "4", "4"});
  }
  return m;
}

}  // namespace

// s_k = scale_k / sqrt(var_k + eps): s_0 = 2 / sqrt(4) = 1, s_1 = 3 / sqrt(16) = 0.75.
// W'[k] = s_k W[k]; b'_k = (b_k - mean_k) s_k + B_k: b'_0 = (0.5 - 1) * 1 + 0.25 = -0.25,
// b'_1 = (-1 + 2) * 0.75 + 0.5 = 1.25.
TEST_CASE("onnx import: BatchNormalization folded into the Conv before it", "[unit]") {
  ScratchDir dir("onnx_fold");
  save_model(conv_bn_model(false), dir / "m.onnx");
  const graph::Graph g = import_onnx(dir / "m.onnx");
  REQUIRE(g.nodes.size() == 1);
  const graph::Node& n = g.nodes[0];
  CHECK(n.on_array);
  CHECK(n.folded == std::vector<std::string>{"bn"});
  CHECK(n.outputs == std::vector<std::string>{"y"});
  CHECK(n.weights.values == std::vector<double>{1, 2, 2.25, 3});
  CHECK(n.bias.values == std::vector<double>{-0.25, 1.25});
  // The folded node against Conv then BN, in float64, on an input.
  const Tensor x = filled({1, 2, 4, 4}, -1, 0.125);
  const auto y = reference_array_node(n, x);
  for (int k = 0; k < 2; ++k)
    for (int p = 0; p < 16; ++p) {
      const double conv = (k == 0 ? 1 * x.values[std::size_t(p)] + 2 * x.values[std::size_t(16 + p)] + 0.5
                                  : 3 * x.values[std::size_t(p)] + 4 * x.values[std::size_t(16 + p)] - 1);
      const double bn = k == 0 ? (conv - 1) * 2 / 2 + 0.25 : (conv + 2) * 3 / 4 + 0.5;
      CHECK(y[std::size_t(k * 16 + p)] == Approx(bn).epsilon(1e-12));
    }
  const Network net = to_network(g);
  CHECK(net.layers.size() == 1);
}

TEST_CASE("onnx import: a BatchNormalization whose input is also read elsewhere stays on the host", "[unit]") {
  ScratchDir dir("onnx_nofold");
  save_model(conv_bn_model(true), dir / "m.onnx");
  const graph::Graph g = import_onnx(dir / "m.onnx");
  REQUIRE(g.nodes.size() == 3);
  CHECK(g.nodes[0].folded.empty());
  CHECK(g.nodes[0].weights.values == std::vector<double>{1, 2, 3, 4});
  CHECK(g.nodes[1].op == "BatchNormalization");
  CHECK(g.nodes[1].attrs.at("epsilon") == std::vector<double>{1});
  CHECK(g.nodes[1].attrs.at("input_mean") == std::vector<double>{1, -2});
  const Network net = to_network(g);
  REQUIRE(net.layers.size() == 3);
  CHECK(net.layers[1].op == "batchnorm");
  CHECK(net.layers[1].inputs.empty());                             // reads the conv, the previous layer
  CHECK(net.layers[2].inputs == std::vector<std::string>{"conv"});  // the relu reads the conv, not the BN
}

TEST_CASE("onnx import: --input-shape fixes a dynamic batch", "[unit]") {
  ScratchDir dir("onnx_dyn");
  save_model(conv_relu_model({"N", "3", "8", "8"}), dir / "m.onnx");
  ImportOptions opt;
  parse_input_shape("x=2x3x8x8", opt);
  const graph::Graph g = import_onnx(dir / "m.onnx", opt);
  CHECK(g.inputs.at(0).shape == std::vector<std::int64_t>{2, 3, 8, 8});
  CHECK(g.nodes.at(0).layer.n == 2);
  CHECK(g.shapes.at("y") == std::vector<std::int64_t>{2, 4, 8, 8});
  ImportOptions bare;
  parse_input_shape("2x3x8x8", bare);
  CHECK(import_onnx(dir / "m.onnx", bare).nodes.at(0).layer.n == 2);
  ImportOptions twice;
  parse_input_shape("x=1x3x8x8", twice);
  CHECK(input_error_of([&] { parse_input_shape("x=1x3x8x8", twice); }).source() == "--input-shape");
  CHECK(input_error_of([&] { parse_input_shape("x=1x0x8", twice); }).problem().find("[1, 65536]") != std::string::npos);
}
