// The real-data graph runner (sim/graph/graph_run.h) on a small hand-built network with every kind
// of node (tests/graph/tiny_net.h): conv -> relu -> maxpool -> grouped conv -> residual add ->
// global average pool -> flatten -> gemm -> softmax. The accelerator run is checked bit-exact
// against the golden model on the SystemC model, and both runs against a float64 evaluation of the
// same network written in the test.
#include <cmath>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "sim/graph/graph_run.h"
#include "tests/common/test_util.h"
#include "tests/graph/tiny_net.h"

using namespace flycol;
using namespace flycol::graph;

namespace {

Tensor input_of(const test::TinyNet& t) {
  Tensor x;
  x.shape = {1, 4, 8, 8};
  x.values = t.x;
  return x;
}

}  // namespace

TEST_CASE("a hand-built network runs on SystemC bit-exact with golden and close to float64", "[sc]") {
  const std::uint64_t seed = 15;
  INFO("seed " << seed << " (fixed: graph_run_test reproduces it)");
  const test::TinyNet t = test::make_tiny_net(seed);
  const Graph g = test::tiny_graph(t);
  const Tensor x = input_of(t);
  const test::TinyEval want = test::eval_tiny_f64(t);

  GraphRunOptions opt;
  opt.model = "sc";
  opt.check = true;
  const GraphRun r = run_graph(g, x, default_config(), opt);
  REQUIRE(r.nodes.size() == g.nodes.size());
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
  // The float32 run agrees with float64 to float32 precision (probabilities <= 1).
  for (std::size_t i = 0; i < want.prob.size(); ++i) CHECK(std::fabs(double(r.reference.v[i]) - want.prob[i]) < 1e-6);
  // The FP16 run: operands rounded to 11 significant bits, FP16 accumulation over at most 36 terms
  // of magnitude <= ~1 (|w| <= 2 in the gemm): logits within a few 1e-2, probabilities within less.
  double worst = 0;
  for (std::size_t i = 0; i < want.prob.size(); ++i) worst = std::max(worst, std::fabs(double(r.output.v[i]) - want.prob[i]));
  INFO("max |fp16 - float64| = " << worst);
  CHECK(worst < 0.03);
  CHECK(worst > 0);  // FP16 did round something: the comparison is not of a run with itself
  CHECK(r.output_drift.cosine > 0.999);
  CHECK(r.output_drift.max_abs < 0.03);

  // The network cut after the grouped convolution: its output against float64 everywhere. FP16
  // moves values by about 2^-11 of their range per rounding (a few 1e-3 here); a wrong channel or
  // weight slice of a group moves them by the range itself, far beyond 5e-2 of it. (One SystemC
  // elaboration per process: this runs the analytic model, whose outputs are the golden model's,
  // which the SystemC run above matched bit for bit.)
  Graph cut = g;
  cut.nodes.resize(4);
  cut.outputs = {"c2"};
  const GraphRun rc = run_graph(cut, x, default_config(), GraphRunOptions());
  REQUIRE(rc.output.v.size() == want.conv2.size());
  double range = 0, worst_c2 = 0;
  for (std::size_t i = 0; i < want.conv2.size(); ++i) {
    range = std::max(range, std::fabs(want.conv2[i]));
    worst_c2 = std::max(worst_c2, std::fabs(double(rc.output.v[i]) - want.conv2[i]));
  }
  INFO("conv2: max |fp16 - float64| = " << worst_c2 << " of range " << range);
  CHECK(worst_c2 < 0.05 * range);

  // The analytic model's outputs are the golden model's: the same bits as the SystemC run.
  const GraphRun a = run_graph(g, x, default_config(), GraphRunOptions());
  CHECK(a.output.v == r.output.v);
  CHECK(a.checked_nodes == 0);
  CHECK(a.cycles > 0);
}

TEST_CASE("graph run input errors name the option and the shapes", "[unit]") {
  const test::TinyNet t = test::make_tiny_net(1);
  const Graph g = test::tiny_graph(t);
  Tensor wrong = input_of(t);
  wrong.shape = {1, 4, 4, 16};
  const InputError e = test::input_error_of([&] { run_graph(g, wrong, default_config(), GraphRunOptions()); });
  CHECK_THAT(e.what(), Catch::Contains("--input") && Catch::Contains("[1, 4, 4, 16]") && Catch::Contains("[1, 4, 8, 8]"));
  GraphRunOptions chk;
  chk.check = true;  // analytic
  CHECK_THAT(test::input_error_of([&] { run_graph(g, input_of(t), default_config(), chk); }).what(),
             Catch::Contains("--check"));
  // An operator the host does not run names the node.
  Graph bad = g;
  bad.nodes[1].op = "Elu";
  CHECK_THAT(test::input_error_of([&] { run_graph(bad, input_of(t), default_config(), GraphRunOptions()); }).what(),
             Catch::Contains("relu1") && Catch::Contains("Elu"));
  // int8 arithmetic takes integer tensors only: a float input is refused, naming the node.
  Config int8 = default_config();
  int8.arithmetic = Arithmetic::int8;
  CHECK_THAT(test::input_error_of([&] { run_graph(g, input_of(t), int8, GraphRunOptions()); }).what(),
             Catch::Contains("conv1") && Catch::Contains("-128"));
}

TEST_CASE("the float32 reference of a graph is float64-accumulated and rounded once", "[unit]") {
  const test::TinyNet t = test::make_tiny_net(7);
  const std::map<std::string, F32> v = run_graph_f32(test::tiny_graph(t), input_of(t));
  const test::TinyEval want = test::eval_tiny_f64(t);
  const F32& p = v.at("prob");
  REQUIRE(p.v.size() == want.prob.size());
  for (std::size_t i = 0; i < want.prob.size(); ++i) CHECK(std::fabs(double(p.v[i]) - want.prob[i]) < 1e-6);
  const F32& c2 = v.at("c2");
  for (std::size_t i = 0; i < want.conv2.size(); ++i) CHECK(std::fabs(double(c2.v[i]) - want.conv2[i]) < 1e-5);
  const Drift d = drift({1, 2, 3}, {1, 2, 4});
  CHECK(d.max_abs == 1);
  CHECK(d.max_rel == Approx(0.25));
  CHECK(d.cosine == Approx(17.0 / std::sqrt(14.0 * 21.0)));
}
