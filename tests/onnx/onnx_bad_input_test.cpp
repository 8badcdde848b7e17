// Every bad input of `flycol import` (and `flycol tensor`), one test case each: exit 2, the one
// message naming the file, the node or input, the operator and what to do, and nothing written
// (neither the network file nor the weights directory). The bad models are built here with the
// ONNX protobuf API; each test also imports a good variant, so a failure is the bad part's.
#include <catch2/catch.hpp>

#include <filesystem>

#include "tests/common/test_util.h"
#include "tests/onnx/onnx_test_util.h"

using namespace flycol;
using namespace flycol::test;
namespace fs = std::filesystem;

namespace {

// Runs `flycol import` on `model` into dir/net.yaml and dir/w, expecting exit 2 with `mentions`
// in the message and no output at all.
void check_refused(const ScratchDir& dir, const std::string& model, const std::string& extra,
                   std::initializer_list<std::string> mentions) {
  const std::string args = "import --onnx " + model + " --out " + (dir / "net.yaml") + " --weights-dir " + (dir / "w") +
                           " " + extra;
  const FlycolRun r = run_flycol_in(dir.path, args);
  INFO("flycol " << args << "\n" << r.err);
  CHECK(r.code == 2);
  for (const std::string& m : mentions) CHECK(r.err.find(m) != std::string::npos);
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);  // one message
  CHECK_FALSE(fs::exists(dir / "net.yaml"));
  CHECK_FALSE(fs::exists(dir / "w"));
}

void check_accepted(const ScratchDir& dir, const std::string& model, const std::string& extra = "") {
  const std::string args = "import --onnx " + model + " --out " + (dir / "ok.yaml") + " " + extra;
  const FlycolRun r = run_flycol_in(dir.path, args);
  INFO("flycol " << args << "\n" << r.err);
  CHECK(r.code == 0);
  CHECK(fs::exists(dir / "ok.yaml"));
}

}  // namespace

TEST_CASE("onnx bad input: unsupported operator", "[unit]") {
  ScratchDir dir("onnx_bad_op");
  onnx::ModelProto m = conv_relu_model();
  save_model(m, dir / "good.onnx");
  check_accepted(dir, dir / "good.onnx");
  m.mutable_graph()->mutable_node(1)->set_op_type("Sigmoid");
  m.mutable_graph()->mutable_node(1)->set_name("act");
  save_model(m, dir / "m.onnx");
  check_refused(dir, dir / "m.onnx", "",
                {dir / "m.onnx", "node 'act' (Sigmoid)", "operator Sigmoid is not supported", "flycol supports: Conv",
                 "replace or remove the node"});
}

TEST_CASE("onnx bad input: dynamic dimension without --input-shape", "[unit]") {
  ScratchDir dir("onnx_bad_dyn");
  save_model(conv_relu_model({"batch", "3", "8", "8"}), dir / "m.onnx");
  check_refused(dir, dir / "m.onnx", "",
                {"input 'x'", "dimension 0 ('batch') is dynamic", "use --input-shape x=1x3x8x8"});
  check_accepted(dir, dir / "m.onnx", "--input-shape x=1x3x8x8");
}

TEST_CASE("onnx bad input: malformed file", "[unit]") {
  ScratchDir dir("onnx_bad_malformed");
  {
    std::ofstream out(dir / "m.onnx", std::ios::binary);
    out << "this is not a protobuf \xff\xff\xff\xff\xff";
  }
  check_refused(dir, dir / "m.onnx", "", {dir / "m.onnx", "is not an ONNX model", "malformed or truncated"});
}

TEST_CASE("onnx bad input: truncated file", "[unit]") {
  ScratchDir dir("onnx_bad_truncated");
  save_model(conv_relu_model(), dir / "good.onnx");
  check_accepted(dir, dir / "good.onnx");
  const std::string bytes = slurp(dir / "good.onnx");
  // Cut inside the graph (past the header, before the end): every such cut must be refused.
  for (std::size_t cut : {bytes.size() / 2, bytes.size() - 7, std::size_t(40)}) {
    INFO("cut at " << cut << " of " << bytes.size());
    {
      std::ofstream out(dir / "m.onnx", std::ios::binary);
      out << bytes.substr(0, cut);
    }
    check_refused(dir, dir / "m.onnx", "", {dir / "m.onnx", "ONNX"});
  }
}

TEST_CASE("onnx bad input: missing or short external-data file", "[unit]") {
  ScratchDir dir("onnx_bad_external");
  onnx::ModelProto m = conv_relu_model();
  // Move W's data into weights.bin, as exporters do for large models.
  onnx::TensorProto* w = m.mutable_graph()->mutable_initializer(0);
  const std::string raw = w->raw_data();
  w->clear_raw_data();
  w->set_data_location(onnx::TensorProto::EXTERNAL);
  auto add = [w](const std::string& k, const std::string& v) {
    auto* e = w->add_external_data();
    e->set_key(k);
    e->set_value(v);
  };
  add("location", "weights.bin");
  add("offset", "16");
  add("length", std::to_string(raw.size()));
  save_model(m, dir / "m.onnx");
  check_refused(dir, dir / "m.onnx", "",
                {dir / "m.onnx", "tensor 'W'", "weights.bin", "cannot be opened", "keep the model's data files beside"});
  {
    std::ofstream out(dir / "weights.bin", std::ios::binary);
    out << std::string(16, 'x') << raw.substr(0, raw.size() - 4);
  }
  check_refused(dir, dir / "m.onnx", "", {"tensor 'W'", "weights.bin", "too short", "offset 16"});
  {
    std::ofstream out(dir / "weights.bin", std::ios::binary);
    out << std::string(16, 'x') << raw;
  }
  check_accepted(dir, dir / "m.onnx");
  const graph::Graph g = import_onnx(dir / "m.onnx");
  CHECK(g.nodes.at(0).weights.values == filled({4, 3, 3, 3}, -0.5, 0.0625).values);
}

TEST_CASE("onnx bad input: opset outside the supported range", "[unit]") {
  ScratchDir dir("onnx_bad_opset");
  save_model(conv_relu_model({"1", "3", "8", "8"}, 18), dir / "m18.onnx");
  check_refused(dir, dir / "m18.onnx", "", {"opset_import", "= 18", "opsets 6 to 17", "re-export"});
  save_model(conv_relu_model({"1", "3", "8", "8"}, 5), dir / "m5.onnx");
  check_refused(dir, dir / "m5.onnx", "", {"opset_import", "= 5", "opsets 6 to 17"});
  save_model(conv_relu_model({"1", "3", "8", "8"}, 17), dir / "m17.onnx");
  check_accepted(dir, dir / "m17.onnx");
}

TEST_CASE("onnx bad input: Conv weights computed by another node", "[unit]") {
  ScratchDir dir("onnx_bad_weights");
  onnx::ModelProto m = conv_relu_model();
  auto* g = m.mutable_graph();
  add_node(g, "Identity", "wid", {"W"}, {"W2"});
  // Keep topological order: the Identity first.
  g->mutable_node()->SwapElements(0, 2);
  g->mutable_node()->SwapElements(1, 2);
  g->mutable_node(1)->set_input(1, "W2");
  save_model(m, dir / "m.onnx");
  check_refused(dir, dir / "m.onnx", "", {"node 'conv' (Conv)", "reads its weights 'W2' from another node", "initializers"});
}

TEST_CASE("onnx bad input: Gemm with transA", "[unit]") {
  ScratchDir dir("onnx_bad_transa");
  const std::string d = onnx_data("node/test_gemm_all_attributes");
  check_refused(dir, d + "/model.onnx",
                "--constant b=" + d + "/test_data_set_0/input_1.pb --constant c=" + d + "/test_data_set_0/input_2.pb",
                {"(Gemm)", "transA = 1, which is not supported"});
}

TEST_CASE("onnx bad input: a computed Reshape shape", "[unit]") {
  ScratchDir dir("onnx_bad_reshape");
  const std::string d = onnx_data("node/test_reshape_negative_dim");
  check_refused(dir, d + "/model.onnx", "", {"(Reshape)", "reads its shape from 'shape', which is computed", "constant"});
  ImportOptions opt;
  parse_constant_input("shape=" + d + "/test_data_set_0/input_1.pb", opt);
  CHECK(import_onnx(d + "/model.onnx", opt).nodes.at(0).attrs.at("shape") == std::vector<double>{2, -1, 2});
  // With the shape given, `flycol import` still refuses: a network file needs an array layer.
  check_refused(dir, d + "/model.onnx", "--constant shape=" + d + "/test_data_set_0/input_1.pb",
                {"has no Conv, Gemm or MatMul node"});
}

TEST_CASE("onnx bad input: --input-shape and --constant naming no input", "[unit]") {
  ScratchDir dir("onnx_bad_names");
  save_model(conv_relu_model(), dir / "m.onnx");
  check_refused(dir, dir / "m.onnx", "--input-shape data=1x3x8x8", {"--input-shape", "'data'", "its inputs are: x"});
  check_refused(dir, dir / "m.onnx", "--input-shape 1x3x9", {"--input-shape", "rank 4", "rank 3"});
  check_refused(dir, dir / "m.onnx", "--input-shape 1x3x8x8x", {"--input-shape", "NAME=1x3x224x224"});
  check_refused(dir, dir / "m.onnx", "--constant x", {"--constant", "NAME=FILE"});
}

TEST_CASE("onnx bad input: tensor convert refuses values that do not fit and writes nothing", "[unit]") {
  ScratchDir dir("onnx_bad_convert");
  const std::string in = onnx_data("node/test_leakyrelu/test_data_set_0/input_0.pb");  // random floats
  FlycolRun r = run_flycol_in(dir.path, "tensor convert " + in + " " + (dir / "x.npy") + " --dtype int8");
  INFO(r.err);
  CHECK(r.code == 2);
  CHECK(r.err.find("not an integer in [-128, 127]") != std::string::npos);
  CHECK_FALSE(fs::exists(dir / "x.npy"));
  r = run_flycol_in(dir.path, "tensor info " + (dir / "nothing.pb"));
  CHECK(r.code == 2);
  CHECK(r.err.find("nothing.pb") != std::string::npos);
  {
    std::ofstream out(dir / "bad.pb", std::ios::binary);
    out << "\xff\xff\xff";
  }
  r = run_flycol_in(dir.path, "tensor info " + (dir / "bad.pb"));
  CHECK(r.code == 2);
  CHECK(r.err.find("not a serialized ONNX TensorProto") != std::string::npos);
}

TEST_CASE("onnx bad input: MatMul with a 3-D B, and Gemm/MatMul rows beyond the layer's N", "[unit]") {
  ScratchDir dir("onnx_bad_matmul");
  const std::string d = onnx_data("node/test_matmul_3d");
  check_refused(dir, d + "/model.onnx", "--constant b=" + d + "/test_data_set_0/input_1.pb",
                {"node 'MatMul_0' (MatMul)", "B has shape [2, 4, 3]", "2-D B"});
  // x [100][16] -> Gemm 16 -> 4: 100 rows as N = 100 pixels, beyond N's limit of 64.
  onnx::ModelProto m;
  m.set_ir_version(7);
  m.add_opset_import()->set_version(13);
  auto* g = m.mutable_graph();
  g->set_name("wide_gemm");
  add_value(g->mutable_input(), "x", {"100", "16"});
  add_value(g->mutable_output(), "y", {"100", "4"});
  tensor_to_proto(filled({16, 4}, 0.5, 0.125), "B", g->add_initializer());
  add_node(g, "Gemm", "fc", {"x", "B"}, {"y"});
  save_model(m, dir / "m.onnx");
  check_refused(dir, dir / "m.onnx", "", {"node 'fc' (Gemm)", "N = 100 rows", "[1, 64]"});
}

TEST_CASE("onnx bad input: a 3-D convolution", "[unit]") {
  ScratchDir dir("onnx_bad_conv3d");
  check_refused(dir, onnx_data("pytorch-converted/test_Conv3d/model.onnx"), "",
                {"(Conv)", "is a 3-D convolution", "1-D and 2-D convolutions"});
}
