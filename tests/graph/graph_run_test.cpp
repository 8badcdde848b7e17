// The real-data graph runner (sim/graph/graph_run.h) on a small hand-built network with every kind
// of node: conv -> relu -> maxpool -> grouped conv -> residual add -> global average pool ->
// flatten -> gemm -> softmax. The accelerator run is checked bit-exact against the golden model on
// the SystemC model, and both runs against a float64 evaluation of the same network written here.
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "sim/graph/graph_run.h"
#include "tests/common/test_util.h"

using namespace flycol;
using namespace flycol::graph;

namespace {

Tensor tensor(Shape shape, std::mt19937_64& rng, double scale) {
  Tensor t;
  t.shape = std::move(shape);
  std::uniform_real_distribution<double> u(-scale, scale);
  for (std::int64_t i = 0; i < t.elems(); ++i) t.values.push_back(double(float(u(rng))));  // float32 values
  return t;
}

Node conv_node(const std::string& name, const std::string& in, const std::string& out, int C, int H, int W, int K,
               int k, int pad, int groups, std::mt19937_64& rng, const std::string& op = "Conv") {
  Node n;
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
  n.weights = tensor({K, C / groups, k, k}, rng, 0.5);
  n.bias = tensor({K}, rng, 0.25);
  n.in_view = {1, C, H, W};
  n.out_shape = {1, K, n.layer.ho(), n.layer.wo()};
  return n;
}

Node host(const std::string& name, const std::string& op, std::vector<std::string> in, const std::string& out,
          std::map<std::string, std::vector<double>> attrs = {}) {
  Node n;
  n.name = name;
  n.op = op;
  n.inputs = std::move(in);
  n.outputs = {out};
  n.attrs = std::move(attrs);
  return n;
}

struct Net {
  Graph g;
  Tensor input;
};

Net make_net(std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  Net net;
  Graph& g = net.g;
  g.name = "tiny";
  g.source = "hand-built";
  g.opset = 13;
  g.inputs = {{"x", {1, 4, 8, 8}}};
  g.outputs = {"prob"};
  g.nodes.push_back(conv_node("conv1", "x", "c1", 4, 8, 8, 8, 3, 1, 1, rng));
  g.nodes.push_back(host("relu1", "Relu", {"c1"}, "r1"));
  g.nodes.push_back(host("pool1", "MaxPool", {"r1"}, "p1", {{"kernel_shape", {2, 2}}, {"strides", {2, 2}}}));
  g.nodes.push_back(conv_node("conv2", "p1", "c2", 8, 4, 4, 8, 3, 1, 2, rng));
  g.nodes.push_back(host("add", "Add", {"c2", "p1"}, "a1"));
  g.nodes.push_back(host("gap", "GlobalAveragePool", {"a1"}, "g1"));
  g.nodes.push_back(host("flat", "Flatten", {"g1"}, "f1"));
  Node fc = conv_node("fc", "f1", "logits", 8, 1, 1, 10, 1, 0, 1, rng, "Gemm");
  fc.in_view = {1, 8, 1, 1};
  fc.out_shape = {1, 10};
  fc.weights = tensor({10, 8, 1, 1}, rng, 2.0);
  g.nodes.push_back(fc);
  g.nodes.push_back(host("softmax", "Softmax", {"logits"}, "prob", {{"axis", {1}}}));
  net.input = tensor({1, 4, 8, 8}, rng, 1.0);
  return net;
}

// The same network in float64, written out directly from its definition (not through graph_run or
// host_ops).
std::vector<double> conv64(const std::vector<double>& x, const Node& n) {
  const Layer& l = n.layer;
  const int G = n.groups, ho = l.ho(), wo = l.wo();
  std::vector<double> y;
  for (int kk = 0; kk < G * l.k; ++kk) {
    const int g = kk / l.k;
    for (int oy = 0; oy < ho; ++oy)
      for (int ox = 0; ox < wo; ++ox) {
        double s = n.bias.values[std::size_t(kk)];
        for (int c = 0; c < l.c; ++c)
          for (int a = 0; a < l.ky; ++a)
            for (int b = 0; b < l.kx; ++b) {
              const int iy = oy - l.pt + a, ix = ox - l.pl + b;
              if (iy < 0 || iy >= l.h || ix < 0 || ix >= l.w) continue;
              s += n.weights.values[std::size_t(((kk * l.c + c) * l.ky + a) * l.kx + b)] *
                   x[std::size_t(((g * l.c + c) * l.h + iy) * l.w + ix)];
            }
        y.push_back(s);
      }
  }
  return y;
}

std::vector<double> eval64(const Net& net, std::vector<double>* conv2_out = nullptr) {
  const Graph& g = net.g;
  std::vector<double> c1 = conv64(net.input.values, g.nodes[0]);
  for (double& v : c1) v = std::max(v, 0.0);
  std::vector<double> p1(8 * 4 * 4);
  for (int c = 0; c < 8; ++c)
    for (int y = 0; y < 4; ++y)
      for (int x = 0; x < 4; ++x) {
        double m = -1e300;
        for (int a = 0; a < 2; ++a)
          for (int b = 0; b < 2; ++b) m = std::max(m, c1[std::size_t((c * 8 + 2 * y + a) * 8 + 2 * x + b)]);
        p1[std::size_t((c * 4 + y) * 4 + x)] = m;
      }
  std::vector<double> c2 = conv64(p1, g.nodes[3]);
  if (conv2_out) *conv2_out = c2;
  std::vector<double> gap(8, 0.0);
  for (int c = 0; c < 8; ++c) {
    for (int i = 0; i < 16; ++i) gap[std::size_t(c)] += c2[std::size_t(c * 16 + i)] + p1[std::size_t(c * 16 + i)];
    gap[std::size_t(c)] /= 16;
  }
  const std::vector<double> logits = conv64(gap, g.nodes[7]);
  double mx = -1e300, sum = 0;
  for (double v : logits) mx = std::max(mx, v);
  std::vector<double> p;
  for (double v : logits) sum += std::exp(v - mx);
  for (double v : logits) p.push_back(std::exp(v - mx) / sum);
  return p;
}

}  // namespace

TEST_CASE("a hand-built network runs on SystemC bit-exact with golden and close to float64", "[sc]") {
  const std::uint64_t seed = 15;
  INFO("seed " << seed << " (fixed; graph_run_test reproduces it)");
  const Net net = make_net(seed);
  const std::vector<double> want = eval64(net);

  GraphRunOptions opt;
  opt.model = "sc";
  opt.check = true;
  const GraphRun r = run_graph(net.g, net.input, default_config(), opt);
  REQUIRE(r.nodes.size() == net.g.nodes.size());
  CHECK(r.checked_nodes == 3);
  CHECK(r.mismatched_nodes == 0);
  for (const NodeRun& n : r.nodes)
    if (n.on_array) {
      INFO(n.name << ": " << n.mismatch);
      CHECK(n.checked);
      CHECK(n.exact);
      CHECK(n.stats.cycles > 0);
      CHECK(n.stats.dram.total() > 0);
      CHECK(n.act_rounding.values == n.layer.ifmap_elems() * n.groups);
    }
  REQUIRE(r.output.shape == Shape{1, 10});
  REQUIRE(r.reference.shape == Shape{1, 10});
  // The float32 run agrees with float64 to float32 precision: probabilities within a few ulps of 1.
  for (std::size_t i = 0; i < want.size(); ++i) CHECK(std::fabs(double(r.reference.v[i]) - want[i]) < 1e-6);
  // The FP16 run: weights and activations rounded to 11 significant bits (relative 2^-11 each) and
  // accumulated in FP16 over at most 36 terms of magnitude <= ~1 (|w| <= 2 for the gemm):
  // logits within a few 1e-2 absolute, which moves softmax probabilities by less than that.
  double worst = 0;
  for (std::size_t i = 0; i < want.size(); ++i) worst = std::max(worst, std::fabs(double(r.output.v[i]) - want[i]));
  INFO("max |fp16 - float64| = " << worst);
  CHECK(worst < 0.03);
  CHECK(worst > 0);  // FP16 did round something: the comparison is not of a run with itself
  CHECK(r.output_drift.cosine > 0.999);
  CHECK(r.output_drift.max_abs == Approx(0).margin(0.03));

  // The same network cut after the grouped convolution: its output against float64 everywhere.
  // FP16 moves values by about 2^-11 of their range per rounding (a few 1e-3 here); a wrong channel
  // or weight slice of a group moves them by the range itself, far beyond 5e-2 of it.
  Net cut = net;
  cut.g.nodes.resize(4);
  cut.g.outputs = {"c2"};
  std::vector<double> want_c2;
  eval64(net, &want_c2);
  // (One SystemC elaboration per process: the analytic model's outputs, the golden model's, which
  // the SystemC run above matched bit for bit.)
  const GraphRun rc = run_graph(cut.g, cut.input, default_config(), GraphRunOptions());
  REQUIRE(rc.output.v.size() == want_c2.size());
  double range = 0, worst_c2 = 0;
  for (std::size_t i = 0; i < want_c2.size(); ++i) {
    range = std::max(range, std::fabs(want_c2[i]));
    worst_c2 = std::max(worst_c2, std::fabs(double(rc.output.v[i]) - want_c2[i]));
  }
  INFO("conv2: max |fp16 - float64| = " << worst_c2 << " of range " << range);
  CHECK(worst_c2 < 0.05 * range);

  // The analytic model's outputs are the golden model's: the same bits as the SystemC run.
  GraphRunOptions an;
  const GraphRun a = run_graph(net.g, net.input, default_config(), an);
  CHECK(a.output.v == r.output.v);
  CHECK(a.checked_nodes == 0);
  CHECK(a.cycles > 0);
}

TEST_CASE("graph run input errors name the option and the shapes", "[unit]") {
  const Net net = make_net(1);
  Tensor wrong = net.input;
  wrong.shape = {1, 4, 4, 16};
  const InputError e = test::input_error_of([&] { run_graph(net.g, wrong, default_config(), GraphRunOptions()); });
  CHECK_THAT(e.what(), Catch::Contains("--input") && Catch::Contains("[1, 4, 4, 16]") && Catch::Contains("[1, 4, 8, 8]"));
  GraphRunOptions chk;
  chk.check = true;  // analytic
  CHECK_THAT(test::input_error_of([&] { run_graph(net.g, net.input, default_config(), chk); }).what(),
             Catch::Contains("--check"));
  // An operator the host does not run names the node.
  Net bad = make_net(1);
  bad.g.nodes[1].op = "Elu";
  CHECK_THAT(test::input_error_of([&] { run_graph(bad.g, bad.input, default_config(), GraphRunOptions()); }).what(),
             Catch::Contains("relu1") && Catch::Contains("Elu"));
}

TEST_CASE("the float32 reference of a graph is float64-accumulated and rounded once", "[unit]") {
  const Net net = make_net(7);
  const std::map<std::string, F32> v = run_graph_f32(net.g, net.input);
  const std::vector<double> want = eval64(net);
  const F32& p = v.at("prob");
  REQUIRE(p.v.size() == want.size());
  for (std::size_t i = 0; i < want.size(); ++i) CHECK(std::fabs(double(p.v[i]) - want[i]) < 1e-6);
  const Drift d = drift({1, 2, 3}, {1, 2, 4});
  CHECK(d.max_abs == 1);
  CHECK(d.max_rel == Approx(0.25));
  CHECK(d.cosine == Approx(17.0 / std::sqrt(14.0 * 21.0)));
}
