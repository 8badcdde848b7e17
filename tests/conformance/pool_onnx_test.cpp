// ONNX's own pooling conformance cases (Debian's libonnx-testdata, node/) against the golden
// pooling (sim/golden/pool.h): every 2-D MaxPool, AveragePool, GlobalMaxPool and
// GlobalAveragePool case. The layer comes from the model (flycol's ONNX import resolves auto_pad
// to pads; the global ones from the input's shape), the input is rounded once to binary16, and
// the output must match ONNX's expected output: max exactly (the maximum of the rounded values
// is the rounded maximum), average within the derived bound (below), and for the two cases with
// MaxPool's Indices output, every argmax index exactly. Not run: the 1-D and 3-D cases (flycol
// pools [N][C][H][W]) and maxpool_2d_uint8 (flycol's integers are signed int8 / int16).
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include <onnx/onnx_pb.h>

#include "base/numerics/fp16.h"
#include "sim/golden/pool.h"
#include "sim/onnx/onnx_import.h"
#include "sim/onnx/tensor_proto.h"

using namespace flycol;
using golden::PoolLayer;
using golden::PoolOp;
namespace fs = std::filesystem;

namespace {

const fs::path kNode = fs::path(FLYCOL_ONNX_TESTDATA) / "node";

double h2d(std::uint16_t h) { return double(fp16::to_float(h)); }

int attr(const graph::Node& n, const char* key, std::size_t i, int fallback) {
  const auto it = n.attrs.find(key);
  return it == n.attrs.end() || it->second.size() <= i ? fallback : int(it->second[i]);
}

// The node's attributes read straight from the model (the import refuses a used Indices output):
// the argmax cases give explicit pads, so no auto_pad needs resolving.
graph::Node raw_node(const std::string& name, int& storage_order) {
  onnx::ModelProto m;
  std::ifstream in(kNode / name / "model.onnx", std::ios::binary);
  REQUIRE(m.ParseFromIstream(&in));
  REQUIRE(m.graph().node_size() == 1);
  const onnx::NodeProto& p = m.graph().node(0);
  graph::Node n;
  n.op = p.op_type();
  storage_order = 0;
  for (const onnx::AttributeProto& a : p.attribute()) {
    REQUIRE(a.name() != "auto_pad");
    if (a.name() == "storage_order") storage_order = int(a.i());
    if (a.ints_size() > 0)
      for (const auto v : a.ints()) n.attrs[a.name()].push_back(double(v));
    else
      n.attrs[a.name()] = {double(a.i())};
  }
  return n;
}

// The case's layer: MaxPool / AveragePool from the imported node (the argmax cases from the model
// itself), global pooling from the shape.
PoolLayer layer_of(const std::string& name, const Tensor& x, int& storage_order) {
  storage_order = 0;
  REQUIRE(x.shape.size() == 4);
  const int n = int(x.shape[0]), c = int(x.shape[1]), h = int(x.shape[2]), w = int(x.shape[3]);
  if (name.rfind("test_global", 0) == 0)
    return PoolLayer::global(name.find("max") != std::string::npos ? PoolOp::max : PoolOp::avg, n, c, h, w);
  graph::Node node;
  if (name.find("argmax") != std::string::npos) {
    node = raw_node(name, storage_order);
  } else {
    const graph::Graph g = import_onnx((kNode / name / "model.onnx").string());
    REQUIRE(g.nodes.size() == 1);
    node = g.nodes[0];
  }
  PoolLayer l;
  l.op = node.op == "MaxPool" ? PoolOp::max : PoolOp::avg;
  l.n = n, l.c = c, l.h = h, l.w = w;
  l.ky = attr(node, "kernel_shape", 0, 1), l.kx = attr(node, "kernel_shape", 1, 1);
  l.sy = attr(node, "strides", 0, 1), l.sx = attr(node, "strides", 1, 1);
  l.dy = attr(node, "dilations", 0, 1), l.dx = attr(node, "dilations", 1, 1);
  l.pt = attr(node, "pads", 0, 0), l.pl = attr(node, "pads", 1, 0);
  l.pb = attr(node, "pads", 2, 0), l.pr = attr(node, "pads", 3, 0);
  l.ceil_mode = attr(node, "ceil_mode", 0, 0) != 0;
  l.count_include_pad = attr(node, "count_include_pad", 0, 0) != 0;
  return l;
}

}  // namespace

TEST_CASE("ONNX's 2-D pooling conformance cases match the golden pooling", "[conformance][pool]") {
  const char* cases[] = {
      "test_maxpool_2d_ceil", "test_maxpool_2d_default", "test_maxpool_2d_dilations", "test_maxpool_2d_pads",
      "test_maxpool_2d_precomputed_pads", "test_maxpool_2d_precomputed_same_upper",
      "test_maxpool_2d_precomputed_strides", "test_maxpool_2d_same_lower", "test_maxpool_2d_same_upper",
      "test_maxpool_2d_strides", "test_maxpool_with_argmax_2d_precomputed_pads",
      "test_maxpool_with_argmax_2d_precomputed_strides", "test_averagepool_2d_ceil", "test_averagepool_2d_default",
      "test_averagepool_2d_pads", "test_averagepool_2d_pads_count_include_pad", "test_averagepool_2d_precomputed_pads",
      "test_averagepool_2d_precomputed_pads_count_include_pad", "test_averagepool_2d_precomputed_same_upper",
      "test_averagepool_2d_precomputed_strides", "test_averagepool_2d_same_lower", "test_averagepool_2d_same_upper",
      "test_averagepool_2d_strides", "test_globalaveragepool", "test_globalaveragepool_precomputed",
      "test_globalmaxpool", "test_globalmaxpool_precomputed"};
  int checked = 0;
  for (const char* name : cases) {
    INFO(name);
    const fs::path data = kNode / name / "test_data_set_0";
    const Tensor x = read_tensor_proto_file((data / "input_0.pb").string());
    const Tensor want = read_tensor_proto_file((data / "output_0.pb").string());
    int storage_order = 0;
    const PoolLayer l = layer_of(name, x, storage_order);
    REQUIRE(l.problem().empty());
    REQUIRE(want.shape == std::vector<std::int64_t>({l.n, l.c, l.ho(), l.wo()}));
    std::vector<ElemBits> in;
    double max_abs = 0;
    for (const double v : x.values) {
      in.push_back(fp16::from_double(v));
      max_abs = std::max(max_abs, std::fabs(v));
    }
    const std::vector<AccBits> got = golden::pool(l, Arithmetic::fp16, in);
    REQUIRE(got.size() == want.values.size());
    for (std::size_t i = 0; i < got.size(); ++i) {
      const double g = h2d(std::uint16_t(got[i])), e = want.values[i];
      INFO("output " << i << ": golden " << g << ", ONNX " << e);
      if (l.op == PoolOp::max) {
        CHECK(std::uint16_t(got[i]) == fp16::from_double(e));
      } else {
        // The inputs' rounding moves the mean by at most 2^-11 of the largest |x| (2^-25 for
        // subnormals), the one rounding of the quotient by 2^-11 of the result; ONNX's float32
        // output is itself rounded (2^-24 relative).
        CHECK(std::fabs(g - e) <= std::ldexp(max_abs + std::fabs(e), -11) + std::ldexp(std::fabs(e), -23) +
                                      std::ldexp(1.0, -24));
      }
    }
    if (fs::exists(data / "output_1.pb")) {
      // MaxPool's Indices: the flat index of the argmax in the input, with storage_order 1 the
      // index of the column-major (w outer, h inner) plane.
      const Tensor idx = read_tensor_proto_file((data / "output_1.pb").string());
      const std::vector<std::int64_t> arg = golden::pool_argmax(l, Arithmetic::fp16, in);
      REQUIRE(idx.values.size() == arg.size());
      for (std::size_t i = 0; i < arg.size(); ++i) {
        std::int64_t want_index = arg[i];
        if (storage_order == 1) {
          const std::int64_t plane = arg[i] / (std::int64_t(l.h) * l.w), y = arg[i] / l.w % l.h, xx = arg[i] % l.w;
          want_index = plane * l.h * l.w + xx * l.h + y;
        }
        CHECK(double(want_index) == idx.values[i]);
      }
    }
    ++checked;
  }
  CHECK(checked == 27);
}
