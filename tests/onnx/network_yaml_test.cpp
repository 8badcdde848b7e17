// network_yaml: every built-in network written and parsed back gives the same network, field by
// field; an imported model's file parses and keeps its layers.
#include <catch2/catch.hpp>

#include "sim/network/network_yaml.h"
#include "sim/onnx/onnx_network.h"
#include "tests/common/test_util.h"
#include "tests/onnx/onnx_test_util.h"

using namespace flycol;
using namespace flycol::test;

namespace {

void check_same(const Network& a, const Network& b) {
  CHECK(a.name == b.name);
  CHECK(a.title == b.title);
  CHECK(a.in_c == b.in_c);
  CHECK(a.in_h == b.in_h);
  CHECK(a.in_w == b.in_w);
  CHECK(a.paper.total_mb.given == b.paper.total_mb.given);
  CHECK(a.paper.time_ms.feeder == b.paper.time_ms.feeder);
  CHECK(a.paper.dram_stall_pct.expl == b.paper.dram_stall_pct.expl);
  REQUIRE(a.layers.size() == b.layers.size());
  for (std::size_t i = 0; i < a.layers.size(); ++i) {
    const NetworkLayer &x = a.layers[i], &y = b.layers[i];
    INFO("layer " << i << " " << x.name);
    CHECK(x.name == y.name);
    CHECK(x.op == y.op);
    CHECK(x.on_array == y.on_array);
    CHECK(x.groups == y.groups);
    CHECK(x.c == y.c);
    CHECK(x.h == y.h);
    CHECK(x.w == y.w);
    CHECK(x.inputs == y.inputs);
    if (x.on_array) CHECK(x.layer == y.layer);
    else CHECK(x.detail == y.detail);
  }
  CHECK(a.macs() == b.macs());
}

}  // namespace

TEST_CASE("network yaml: the built-in networks round-trip", "[unit]") {
  for (const auto& name : network_names()) {
    INFO(name);
    const Network n = load_network(name);
    const std::string text = network_yaml(n, "written by the test");
    const Network back = parse_network(text, name + " (rewritten)");
    check_same(n, back);
  }
}

TEST_CASE("network yaml: an imported conformance model's file parses", "[unit]") {
  const std::string d = onnx_data("pytorch-converted/test_Conv2d_dilated");
  const Network n = load_onnx_network(d + "/model.onnx");
  const Network back = parse_network(network_yaml(n), "imported");
  check_same(n, back);
  CHECK(back.layers.at(0).layer.dy == 2);
}
