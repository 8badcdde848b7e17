// ONNX's node conformance cases of the host operators through the whole float32 path a real model
// takes: flycol's importer (attributes, constant inputs moved to attributes, auto_pad resolved)
// and the float32 graph run, against ONNX's expected output. The first graph input is the data;
// the others are bound as constants (--constant), as ONNX's node tests pass Clip's bounds,
// Reshape's shape and Resize's scales as inputs.
#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <onnx/onnx_pb.h>

#include "sim/common/input_error.h"
#include "sim/graph/graph_run.h"
#include "sim/onnx/onnx_import.h"
#include "sim/onnx/tensor_proto.h"
#include "tests/graph/onnx_cases.h"

using namespace flycol;

TEST_CASE("host-op conformance models import and run in float32 to ONNX's expected outputs", "[unit]") {
  int ran = 0;
  std::vector<std::string> refused;
  for (const std::string& name : test::onnx_host_op_cases()) {
    const std::filesystem::path dir = std::filesystem::path(test::kNodeData) / name;
    if (!std::filesystem::exists(dir / "model.onnx")) continue;
    std::vector<std::filesystem::path> inputs;
    for (int i = 0; std::filesystem::exists(dir / fmt::format("test_data_set_0/input_{}.pb", i)); ++i)
      inputs.push_back(dir / fmt::format("test_data_set_0/input_{}.pb", i));
    REQUIRE(!inputs.empty());
    // The graph's input names in order: the importer binds constants by name.
    onnx::ModelProto m;
    {
      std::ifstream in(dir / "model.onnx", std::ios::binary);
      REQUIRE(m.ParseFromIstream(&in));
    }
    ImportOptions opt;
    for (std::size_t i = 1; i < inputs.size(); ++i)
      opt.constants[m.graph().input(int(i)).name()] = read_tensor_proto_file(inputs[i].string());
    graph::Graph g;
    try {
      g = import_onnx((dir / "model.onnx").string(), opt);
    } catch (const InputError& e) {
      refused.push_back(name + ": " + e.what());
      continue;
    }
    const Tensor x = read_tensor_proto_file(inputs[0].string());
    const Tensor want = read_tensor_proto_file((dir / "test_data_set_0/output_0.pb").string());
    INFO(name);
    const std::map<std::string, graph::F32> v = graph::run_graph_f32(g, x);
    const graph::F32& got = v.at(g.outputs.at(0));
    CHECK(got.shape == want.shape);
    REQUIRE(got.v.size() == want.values.size());
    ++ran;
    if (want.values.empty()) continue;
    std::string op, mode;
    for (const graph::Node& n : g.nodes) {
      op = n.op;
      auto it = n.str_attrs.find("mode");
      if (it != n.str_attrs.end()) mode = it->second;
    }
    double mx = 0, worst = 0;
    for (double w : want.values) mx = std::max(mx, std::fabs(w));
    for (std::size_t i = 0; i < got.v.size(); ++i) worst = std::max(worst, std::fabs(double(got.v[i]) - want.values[i]));
    const double tol = test::tolerance_ulps(op, mode) * (mx > 0 ? std::ldexp(1.0, std::ilogb(mx) - 23) : 0);
    INFO("largest difference " << worst << ", tolerance " << tol);
    CHECK(worst <= tol);
  }
  for (const std::string& r : refused) WARN("import refused " << r);
  fmt::print("host-op conformance models imported and run in float32: {} of {} ({} refused by import)\n", ran,
             test::onnx_host_op_cases().size(), refused.size());
  CHECK(ran >= int(test::onnx_host_op_cases().size()) - 5);
}
