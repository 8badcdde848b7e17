// A small network with every kind of node the real-data runner handles, for the graph tests:
// conv(4->8, 3x3 p1) -> relu -> maxpool 2x2 -> conv(8->8, 3x3 p1, group 2) -> add(residual, the
// pool's output) -> global average pool -> flatten -> gemm(8->10, transB) -> softmax. Its seeded
// float32 weights and input; the network as a graph::Graph built by hand, as an ONNX model
// (protobuf, written here, not by flycol's importer), and evaluated in float64 directly.
#pragma once

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include <onnx/onnx_pb.h>

#include "sim/onnx/graph.h"

namespace flycol::test {

struct TinyNet {
  // Values (float32 numbers held in doubles), C order.
  std::vector<double> x;          // [1][4][8][8]
  std::vector<double> w1, b1;     // [8][4][3][3], [8]
  std::vector<double> w2, b2;     // [8][4][3][3] (2 groups of 4 -> 4), [8]
  std::vector<double> wf, bf;     // [10][8] (Gemm B with transB = 1), [10]
};

inline std::vector<double> tiny_values(std::size_t n, std::mt19937_64& rng, double scale) {
  std::uniform_real_distribution<double> u(-scale, scale);
  std::vector<double> v(n);
  for (double& e : v) e = double(float(u(rng)));
  return v;
}

inline TinyNet make_tiny_net(std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  TinyNet t;
  t.w1 = tiny_values(8 * 4 * 9, rng, 0.5);
  t.b1 = tiny_values(8, rng, 0.25);
  t.w2 = tiny_values(8 * 4 * 9, rng, 0.5);
  t.b2 = tiny_values(8, rng, 0.25);
  t.wf = tiny_values(10 * 8, rng, 2.0);
  t.bf = tiny_values(10, rng, 0.25);
  t.x = tiny_values(4 * 8 * 8, rng, 1.0);
  return t;
}

// --- float64 evaluation, straight from the definition ---

// A 3x3, pad 1, stride 1 convolution of [C][H][W] with G groups.
inline std::vector<double> tiny_conv(const std::vector<double>& x, int C, int H, int W, const std::vector<double>& w,
                                     const std::vector<double>& b, int K, int G) {
  const int cg = C / G, kg = K / G;
  std::vector<double> y(std::size_t(K * H * W));
  for (int k = 0; k < K; ++k)
    for (int oy = 0; oy < H; ++oy)
      for (int ox = 0; ox < W; ++ox) {
        double s = b[std::size_t(k)];
        const int g = k / kg;
        for (int c = 0; c < cg; ++c)
          for (int a = 0; a < 3; ++a)
            for (int bb = 0; bb < 3; ++bb) {
              const int iy = oy - 1 + a, ix = ox - 1 + bb;
              if (iy < 0 || iy >= H || ix < 0 || ix >= W) continue;
              s += w[std::size_t(((k * cg + c) * 3 + a) * 3 + bb)] * x[std::size_t(((g * cg + c) * H + iy) * W + ix)];
            }
        y[std::size_t((k * H + oy) * W + ox)] = s;
      }
  return y;
}

struct TinyEval {
  std::vector<double> conv1, pool, conv2, logits, prob;
};

inline TinyEval eval_tiny_f64(const TinyNet& t) {
  TinyEval e;
  e.conv1 = tiny_conv(t.x, 4, 8, 8, t.w1, t.b1, 8, 1);
  std::vector<double> r = e.conv1;
  for (double& v : r) v = std::max(v, 0.0);
  e.pool.assign(8 * 16, 0.0);
  for (int c = 0; c < 8; ++c)
    for (int y = 0; y < 4; ++y)
      for (int x = 0; x < 4; ++x) {
        double m = -1e300;
        for (int a = 0; a < 2; ++a)
          for (int b = 0; b < 2; ++b) m = std::max(m, r[std::size_t((c * 8 + 2 * y + a) * 8 + 2 * x + b)]);
        e.pool[std::size_t((c * 4 + y) * 4 + x)] = m;
      }
  e.conv2 = tiny_conv(e.pool, 8, 4, 4, t.w2, t.b2, 8, 2);
  std::vector<double> gap(8, 0.0);
  for (int c = 0; c < 8; ++c) {
    for (int i = 0; i < 16; ++i) gap[std::size_t(c)] += e.conv2[std::size_t(c * 16 + i)] + e.pool[std::size_t(c * 16 + i)];
    gap[std::size_t(c)] /= 16;
  }
  for (int n = 0; n < 10; ++n) {
    double s = t.bf[std::size_t(n)];
    for (int c = 0; c < 8; ++c) s += t.wf[std::size_t(n * 8 + c)] * gap[std::size_t(c)];
    e.logits.push_back(s);
  }
  const double mx = *std::max_element(e.logits.begin(), e.logits.end());
  double sum = 0;
  for (double v : e.logits) sum += std::exp(v - mx);
  for (double v : e.logits) e.prob.push_back(std::exp(v - mx) / sum);
  return e;
}

// --- the same network as a hand-built graph::Graph (what the importer's contract describes) ---

inline graph::Node tiny_array_node(const std::string& name, const std::string& op, const std::string& in,
                                   const std::string& out, int C, int H, int W, int K, int k, int pad, int groups,
                                   const std::vector<double>& w, const std::vector<double>& b) {
  graph::Node n;
  n.name = name;
  n.op = op;
  n.on_array = true;
  n.inputs = {in};
  n.outputs = {out};
  n.groups = groups;
  n.layer.name = name;
  n.layer.c = C / groups;
  n.layer.h = H;
  n.layer.w = W;
  n.layer.k = K / groups;
  n.layer.ky = n.layer.kx = k;
  n.layer.pt = n.layer.pb = n.layer.pl = n.layer.pr = pad;
  n.weights.shape = {K, C / groups, k, k};
  n.weights.values = w;
  n.bias.shape = {K};
  n.bias.values = b;
  n.in_view = {1, C, H, W};
  n.out_shape = {1, K, n.layer.ho(), n.layer.wo()};
  return n;
}

inline graph::Node tiny_host_node(const std::string& name, const std::string& op, std::vector<std::string> in,
                                  const std::string& out, std::map<std::string, std::vector<double>> attrs = {}) {
  graph::Node n;
  n.name = name;
  n.op = op;
  n.inputs = std::move(in);
  n.outputs = {out};
  n.attrs = std::move(attrs);
  return n;
}

inline graph::Graph tiny_graph(const TinyNet& t) {
  graph::Graph g;
  g.name = "tiny";
  g.source = "hand-built";
  g.opset = 13;
  g.inputs = {{"x", {1, 4, 8, 8}}};
  g.outputs = {"prob"};
  g.nodes.push_back(tiny_array_node("conv1", "Conv", "x", "c1", 4, 8, 8, 8, 3, 1, 1, t.w1, t.b1));
  g.nodes.push_back(tiny_host_node("relu1", "Relu", {"c1"}, "r1"));
  g.nodes.push_back(tiny_host_node("pool1", "MaxPool", {"r1"}, "p1", {{"kernel_shape", {2, 2}}, {"strides", {2, 2}}}));
  g.nodes.push_back(tiny_array_node("conv2", "Conv", "p1", "c2", 8, 4, 4, 8, 3, 1, 2, t.w2, t.b2));
  g.nodes.push_back(tiny_host_node("add", "Add", {"c2", "p1"}, "a1"));
  g.nodes.push_back(tiny_host_node("gap", "GlobalAveragePool", {"a1"}, "g1"));
  g.nodes.push_back(tiny_host_node("flat", "Flatten", {"g1"}, "f1"));
  graph::Node fc = tiny_array_node("fc", "Gemm", "f1", "logits", 8, 1, 1, 10, 1, 0, 1, t.wf, t.bf);
  fc.in_view = {1, 8, 1, 1};
  fc.out_shape = {1, 10};
  g.nodes.push_back(fc);
  g.nodes.push_back(tiny_host_node("softmax", "Softmax", {"logits"}, "prob", {{"axis", {1}}}));
  return g;
}

// --- the same network as an ONNX model ---

inline void tiny_value_info(onnx::ValueInfoProto* v, const std::string& name, const std::vector<std::int64_t>& shape) {
  v->set_name(name);
  auto* tt = v->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(onnx::TensorProto::FLOAT);
  for (std::int64_t d : shape) tt->mutable_shape()->add_dim()->set_dim_value(d);
}

inline void tiny_init(onnx::GraphProto* g, const std::string& name, const std::vector<std::int64_t>& shape,
                      const std::vector<double>& v) {
  auto* t = g->add_initializer();
  t->set_name(name);
  t->set_data_type(onnx::TensorProto::FLOAT);
  for (std::int64_t d : shape) t->add_dims(d);
  for (double e : v) t->add_float_data(float(e));
}

inline onnx::NodeProto* tiny_onnx_node(onnx::GraphProto* g, const std::string& name, const std::string& op,
                                      std::vector<std::string> in, const std::string& out) {
  auto* n = g->add_node();
  n->set_name(name);
  n->set_op_type(op);
  for (const std::string& s : in) n->add_input(s);
  n->add_output(out);
  return n;
}

inline void tiny_ints(onnx::NodeProto* n, const std::string& name, std::vector<std::int64_t> v) {
  auto* a = n->add_attribute();
  a->set_name(name);
  if (v.size() == 1 && (name == "group" || name == "axis" || name == "transB")) {
    a->set_type(onnx::AttributeProto::INT);
    a->set_i(v[0]);
  } else {
    a->set_type(onnx::AttributeProto::INTS);
    for (std::int64_t e : v) a->add_ints(e);
  }
}

// The serialized model (opset 13).
inline std::string tiny_onnx(const TinyNet& t) {
  onnx::ModelProto m;
  m.set_ir_version(7);
  m.set_producer_name("flycol tests/graph/tiny_net.h");
  auto* op = m.add_opset_import();
  op->set_domain("");
  op->set_version(13);
  auto* g = m.mutable_graph();
  g->set_name("tiny");
  tiny_value_info(g->add_input(), "x", {1, 4, 8, 8});
  tiny_value_info(g->add_output(), "prob", {1, 10});
  tiny_init(g, "w1", {8, 4, 3, 3}, t.w1);
  tiny_init(g, "b1", {8}, t.b1);
  tiny_init(g, "w2", {8, 4, 3, 3}, t.w2);
  tiny_init(g, "b2", {8}, t.b2);
  tiny_init(g, "wf", {10, 8}, t.wf);
  tiny_init(g, "bf", {10}, t.bf);
  auto* c1 = tiny_onnx_node(g, "conv1", "Conv", {"x", "w1", "b1"}, "c1");
  tiny_ints(c1, "kernel_shape", {3, 3});
  tiny_ints(c1, "pads", {1, 1, 1, 1});
  tiny_onnx_node(g, "relu1", "Relu", {"c1"}, "r1");
  auto* p = tiny_onnx_node(g, "pool1", "MaxPool", {"r1"}, "p1");
  tiny_ints(p, "kernel_shape", {2, 2});
  tiny_ints(p, "strides", {2, 2});
  auto* c2 = tiny_onnx_node(g, "conv2", "Conv", {"p1", "w2", "b2"}, "c2");
  tiny_ints(c2, "kernel_shape", {3, 3});
  tiny_ints(c2, "pads", {1, 1, 1, 1});
  tiny_ints(c2, "group", {2});
  tiny_onnx_node(g, "add", "Add", {"c2", "p1"}, "a1");
  tiny_onnx_node(g, "gap", "GlobalAveragePool", {"a1"}, "g1");
  tiny_onnx_node(g, "flat", "Flatten", {"g1"}, "f1");
  auto* fc = tiny_onnx_node(g, "fc", "Gemm", {"f1", "wf", "bf"}, "logits");
  tiny_ints(fc, "transB", {1});
  auto* sm = tiny_onnx_node(g, "softmax", "Softmax", {"logits"}, "prob");
  tiny_ints(sm, "axis", {1});
  return m.SerializeAsString();
}

}  // namespace flycol::test
