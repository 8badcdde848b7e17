// A small network with every structure the importer must carry into a network file (BN folded
// into a conv, grouped conv, two branches joined by Add, Concat with a skip, GAP, Flatten, Gemm,
// Softmax), built with the ONNX API: the layer list worked out by hand, the network file written
// and parsed back by the network parser (h15-netonnx's `inputs`/`groups` checks included), and
// `flycol import --weights-dir` writing the float32 weights.
#include <catch2/catch.hpp>

#include <filesystem>

#include "sim/network/network_yaml.h"
#include "sim/onnx/onnx_network.h"
#include "sim/tensor/npy.h"
#include "tests/common/test_util.h"
#include "tests/onnx/onnx_test_util.h"

using namespace flycol;
using namespace flycol::test;

namespace {

void add_int(onnx::NodeProto* n, const std::string& name, std::int64_t v) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(v);
}

Tensor ones(std::vector<std::int64_t> shape, double v) {
  Tensor t;
  t.shape = std::move(shape);
  t.values.assign(std::size_t(t.elems()), v);
  return t;
}

onnx::ModelProto branchy_model() {
  onnx::ModelProto m;
  m.set_ir_version(7);
  m.add_opset_import()->set_version(13);
  auto* g = m.mutable_graph();
  g->set_name("branchy");
  add_value(g->mutable_input(), "x", {"1", "3", "16", "16"});
  add_value(g->mutable_output(), "prob", {"1", "10"});
  auto init = [g](const Tensor& t, const std::string& name) { tensor_to_proto(t, name, g->add_initializer()); };
  init(filled({8, 3, 3, 3}, -0.25, 0.03125), "w1");
  init(ones({8}, 1.0), "bn_s");
  init(ones({8}, 0.5), "bn_b");
  init(ones({8}, 0.0), "bn_m");
  init(ones({8}, 3.0), "bn_v");
  init(filled({8, 2, 3, 3}, -0.5, 0.0625), "wg");
  init(filled({8, 8, 1, 1}, -0.5, 0.0625), "wp");
  init(filled({10, 16}, -0.5, 0.0625), "fc_w");
  init(ones({10}, 0.125), "fc_b");
  auto* c1 = add_node(g, "Conv", "conv1", {"x", "w1"}, {"c1"});
  add_ints(c1, "pads", {1, 1, 1, 1});
  add_node(g, "BatchNormalization", "bn1", {"c1", "bn_s", "bn_b", "bn_m", "bn_v"}, {"b1"});
  add_node(g, "Relu", "relu1", {"b1"}, {"r1"});
  auto* mp = add_node(g, "MaxPool", "pool1", {"r1"}, {"p1"});
  add_ints(mp, "kernel_shape", {2, 2});
  add_ints(mp, "strides", {2, 2});
  auto* cg = add_node(g, "Conv", "conv_g", {"p1", "wg"}, {"a"});
  add_ints(cg, "pads", {1, 1, 1, 1});
  add_int(cg, "group", 4);
  add_node(g, "Conv", "conv_p", {"p1", "wp"}, {"b"});
  add_node(g, "Add", "add", {"a", "b"}, {"s"});
  add_int(add_node(g, "Concat", "cat", {"s", "p1"}, {"cat"}), "axis", 1);
  add_node(g, "GlobalAveragePool", "gap", {"cat"}, {"gap"});
  add_node(g, "Flatten", "flat", {"gap"}, {"flat"});
  add_int(add_node(g, "Gemm", "fc", {"flat", "fc_w", "fc_b"}, {"logits"}), "transB", 1);
  add_node(g, "Softmax", "softmax", {"logits"}, {"prob"});
  return m;
}

}  // namespace

TEST_CASE("onnx network: branches, groups, folding and fc as a network layer list", "[unit]") {
  ScratchDir dir("onnx_branchy");
  save_model(branchy_model(), dir / "m.onnx");
  const graph::Graph g = import_onnx(dir / "m.onnx");
  const Network n = to_network(g);
  struct Want {
    const char* name;
    const char* op;
    int c, h, w;
    std::vector<std::string> inputs;
  };
  const std::vector<Want> want = {
      {"conv1", "conv", 3, 16, 16, {}},     {"relu1", "relu", 8, 16, 16, {}},
      {"pool1", "maxpool", 8, 16, 16, {}},  {"conv_g", "conv", 8, 8, 8, {}},
      {"conv_p", "conv", 8, 8, 8, {"pool1"}}, {"add", "add", 8, 8, 8, {"conv_g", "conv_p"}},
      {"cat", "concat", 16, 8, 8, {"add", "pool1"}}, {"gap", "globalavgpool", 16, 8, 8, {}},
      {"flat", "flatten", 16, 1, 1, {}},    {"fc", "fc", 16, 1, 1, {}},
      {"softmax", "softmax", 10, 1, 1, {}}};
  REQUIRE(n.layers.size() == want.size());
  for (std::size_t i = 0; i < want.size(); ++i) {
    const NetworkLayer& l = n.layers[i];
    INFO(l.name);
    CHECK(l.name == want[i].name);
    CHECK(l.op == want[i].op);
    CHECK(l.c == want[i].c);
    CHECK(l.h == want[i].h);
    CHECK(l.w == want[i].w);
    CHECK(l.inputs == want[i].inputs);
  }
  CHECK(n.layers[0].layer.k == 8);
  CHECK(g.nodes[0].folded == std::vector<std::string>{"bn1"});
  CHECK(n.layers[2].detail == "2x2 s2 p0");
  CHECK(n.layers[3].groups == 4);
  CHECK(n.layers[3].layer.c == 2);
  CHECK(n.layers[3].layer.k == 2);
  CHECK(n.layers[9].layer.k == 10);
  // MACs by hand: conv1 8*16*16*3*9 = 55296; conv_g 4 groups * 2*8*8*2*9 = 9216;
  // conv_p 8*8*8*8 = 4096; fc 10*16 = 160.
  CHECK(g.array_macs() == 55296 + 9216 + 4096 + 160);

  // The network file parses back (inputs, groups and the listed shapes checked by the parser).
  const std::string text = network_yaml(n);
  const Network back = parse_network(text, "branchy.yaml");
  REQUIRE(back.layers.size() == n.layers.size());
  for (std::size_t i = 0; i < n.layers.size(); ++i) {
    INFO(n.layers[i].name);
    CHECK(back.layers[i].inputs == n.layers[i].inputs);
    CHECK(back.layers[i].groups == n.layers[i].groups);
    CHECK(back.layers[i].op == n.layers[i].op);
    if (n.layers[i].on_array) CHECK(back.layers[i].layer == n.layers[i].layer);
  }
  CHECK(back.macs() == g.array_macs());

  // The command line writes the same file and the weights.
  const FlycolRun r = run_flycol_in(dir.path, "import --onnx " + (dir / "m.onnx") + " --out " + (dir / "net.yaml") +
                                                  " --weights-dir " + (dir / "w"));
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK(r.out.find("array        4 layer(s), 68768 MACs") != std::string::npos);
  CHECK(r.out.find("folded       1 BatchNormalization") != std::string::npos);
  CHECK(load_network(dir / "net.yaml").layers.size() == n.layers.size());
  const Tensor w1 = read_npy(dir / "w/conv1.weights.npy");
  CHECK(w1.dtype == DType::float32);
  CHECK(w1.shape == std::vector<std::int64_t>{8, 3, 3, 3});
  CHECK(w1.values[1] == double(float(g.nodes[0].weights.values[1])));
  const Tensor b1 = read_npy(dir / "w/conv1.bias.npy");  // BN: (0 - 0) * 1/sqrt(3 + 1e-5) + 0.5
  CHECK(b1.values[0] == 0.5);
  CHECK(std::filesystem::exists(dir / "w/fc.bias.npy"));
  CHECK_FALSE(std::filesystem::exists(dir / "w/conv_p.bias.npy"));
}
