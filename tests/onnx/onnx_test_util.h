// Helpers of the ONNX import tests: ONNX's conformance cases (model + test_data_set_0) loaded with
// their non-first inputs bound as constants, a float64 reference convolution written from the
// ONNX Conv definition (independent of flycol's golden model), and small models built with the
// ONNX protobuf API at test time for the bad-input cases.
#pragma once

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <onnx/onnx_pb.h>

#include "sim/onnx/graph.h"
#include "sim/onnx/onnx_import.h"
#include "sim/onnx/tensor_proto.h"

namespace flycol::test {

inline std::string onnx_data(const std::string& rel) { return std::string(FLYCOL_ONNX_TEST_DATA) + "/" + rel; }

// The graph inputs of a model file that are not initializers, in order.
inline std::vector<std::string> model_inputs(const std::string& model) {
  onnx::ModelProto m;
  std::ifstream in(model, std::ios::binary);
  REQUIRE(m.ParseFromIstream(&in));
  std::vector<std::string> inits, out;
  for (const auto& t : m.graph().initializer()) inits.push_back(t.name());
  for (const auto& i : m.graph().input())
    if (std::find(inits.begin(), inits.end(), i.name()) == inits.end()) out.push_back(i.name());
  return out;
}

// A conformance case: input_0 stays the data input; input_1.. become constants (weights, ...).
struct OnnxCase {
  graph::Graph g;
  Tensor x, y;  // input_0.pb, output_0.pb
};
inline OnnxCase load_case(const std::string& rel) {
  const std::string dir = onnx_data(rel);
  const auto names = model_inputs(dir + "/model.onnx");
  ImportOptions opt;
  for (std::size_t i = 1; i < names.size(); ++i)
    opt.constants[names[i]] = read_tensor_proto_file(dir + "/test_data_set_0/input_" + std::to_string(i) + ".pb");
  OnnxCase c;
  c.g = import_onnx(dir + "/model.onnx", opt);
  c.x = read_tensor_proto_file(dir + "/test_data_set_0/input_0.pb");
  c.y = read_tensor_proto_file(dir + "/test_data_set_0/output_0.pb");
  return c;
}

// The array node's output for input x, in float64, straight from ONNX's Conv definition applied to
// the node's fields (in_view, layer, groups, weights, bias): what the accelerator is asked to do.
inline std::vector<double> reference_array_node(const graph::Node& n, const Tensor& x) {
  const Layer& l = n.layer;
  REQUIRE(n.in_view.size() == 4);
  REQUIRE(x.elems() == n.in_view[0] * n.in_view[1] * n.in_view[2] * n.in_view[3]);
  const int G = n.groups, K = l.k * G, C = l.c * G, ho = l.ho(), wo = l.wo();
  std::vector<double> y(std::size_t(l.n) * K * ho * wo);
  for (int b = 0; b < l.n; ++b)
    for (int k = 0; k < K; ++k) {
      const int g = k / l.k;
      for (int oy = 0; oy < ho; ++oy)
        for (int ox = 0; ox < wo; ++ox) {
          double s = n.bias.values.empty() ? 0.0 : n.bias.values[std::size_t(k)];
          for (int c = 0; c < l.c; ++c)
            for (int ky = 0; ky < l.ky; ++ky)
              for (int kx = 0; kx < l.kx; ++kx) {
                const int iy = oy * l.sy - l.pt + ky * l.dy, ix = ox * l.sx - l.pl + kx * l.dx;
                if (iy < 0 || iy >= l.h || ix < 0 || ix >= l.w) continue;
                const double w = n.weights.values[((std::size_t(k) * l.c + c) * l.ky + ky) * l.kx + kx];
                const double v = x.values[((std::size_t(b) * C + g * l.c + c) * l.h + iy) * l.w + ix];
                s += w * v;
              }
          y[((std::size_t(b) * K + k) * ho + oy) * wo + ox] = s;
        }
    }
  return y;
}

// Largest |a - b| / (1 + |b|).
inline double max_rel_error(const std::vector<double>& a, const std::vector<double>& b) {
  REQUIRE(a.size() == b.size());
  double e = 0;
  for (std::size_t i = 0; i < a.size(); ++i) e = std::max(e, std::abs(a[i] - b[i]) / (1 + std::abs(b[i])));
  return e;
}

// --- models built at test time ---------------------------------------------------------------

inline onnx::ValueInfoProto* add_value(google::protobuf::RepeatedPtrField<onnx::ValueInfoProto>* where, const std::string& name,
                                       const std::vector<std::string>& dims) {
  auto* v = where->Add();
  v->set_name(name);
  auto* tt = v->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(onnx::TensorProto::FLOAT);
  auto* shape = tt->mutable_shape();
  for (const auto& d : dims) {
    auto* dim = shape->add_dim();
    if (!d.empty() && std::isdigit(static_cast<unsigned char>(d[0]))) dim->set_dim_value(std::stoll(d));
    else dim->set_dim_param(d);
  }
  return v;
}

inline Tensor filled(std::vector<std::int64_t> shape, double start, double step) {
  Tensor t;
  t.shape = std::move(shape);
  t.values.resize(std::size_t(t.elems()));
  for (std::size_t i = 0; i < t.values.size(); ++i) t.values[i] = start + step * double(i % 17);
  return t;
}

inline onnx::NodeProto* add_node(onnx::GraphProto* g, const std::string& op, const std::string& name,
                                 std::vector<std::string> in, std::vector<std::string> out) {
  auto* n = g->add_node();
  n->set_op_type(op);
  n->set_name(name);
  for (auto& i : in) n->add_input(i);
  for (auto& o : out) n->add_output(o);
  return n;
}

inline void add_ints(onnx::NodeProto* n, const std::string& name, std::vector<std::int64_t> v) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INTS);
  for (auto x : v) a->add_ints(x);
}

// x [1][3][8][8] (dims as given) -> Conv 3->4 k3 p1 (W initializer) -> Relu -> y.
inline onnx::ModelProto conv_relu_model(const std::vector<std::string>& xdims = {"1", "3", "8", "8"}, int opset = 13) {
  onnx::ModelProto m;
  m.set_ir_version(7);
  auto* op = m.add_opset_import();
  op->set_domain("");
  op->set_version(opset);
  auto* g = m.mutable_graph();
  g->set_name("conv_relu");
  add_value(g->mutable_input(), "x", xdims);
  std::vector<std::string> ydims = xdims;
  ydims[1] = "4";
  add_value(g->mutable_output(), "y", ydims);
  tensor_to_proto(filled({4, 3, 3, 3}, -0.5, 0.0625), "W", g->add_initializer());
  auto* c = add_node(g, "Conv", "conv", {"x", "W"}, {"c"});
  add_ints(c, "pads", {1, 1, 1, 1});
  add_ints(c, "kernel_shape", {3, 3});
  add_node(g, "Relu", "relu", {"c"}, {"y"});
  return m;
}

inline void save_model(const onnx::ModelProto& m, const std::string& path) {
  std::ofstream out(path, std::ios::binary);
  REQUIRE(m.SerializeToOstream(&out));
}

}  // namespace flycol::test
