// Network files' connectivity and grouped convolutions (issue 15): the keys `inputs` and `groups`,
// the shape check between a layer and what its inputs produce, the host ops the ONNX import emits,
// and a grouped layer run as `groups` times one group's program.
#include <catch2/catch.hpp>

#include <string>

#include "sim/common/input_error.h"
#include "sim/config/config.h"
#include "sim/network/network.h"
#include "sim/network/network_run.h"
#include "tests/common/test_util.h"

using namespace flycol;
using flycol::test::input_error_of;

namespace {

// A small graph with a branch, an add, a concat and a grouped convolution.
const char* kGraph = R"(name: g
input: {C: 3, H: 8, W: 8}
layers:
  - {name: a, C: 3, H: 8, W: 8, K: 4, k: 3, p: 1}
  - {name: b, C: 4, H: 8, W: 8, K: 6, k: 1}
  - {name: c, C: 3, H: 8, W: 8, K: 4, k: 1, inputs: [input]}
  - {name: sum, op: add, C: 4, H: 8, W: 8, inputs: [a, c]}
  - {name: cat, op: concat, C: 10, H: 8, W: 8, inputs: [b, sum]}
  - {name: grouped, C: 10, H: 8, W: 8, K: 20, k: 3, p: 1, groups: 5}
  - {name: pool, op: maxpool, C: 20, H: 8, W: 8, k: 2, s: 2, p: 0}
  - {name: up, op: upsample, C: 20, H: 4, W: 4, s: 2}
  - {name: dw, C: 20, H: 8, W: 8, K: 20, k: 3, p: 1, groups: 20}
  - {name: gap, op: globalavgpool, C: 20, H: 8, W: 8}
  - {name: fc, op: fc, C: 20, K: 7}
)";

// kGraph with the first occurrence of `from` replaced by `to`.
std::string edit(const std::string& from, const std::string& to) {
  std::string s = kGraph;
  const auto at = s.find(from);
  REQUIRE(at != std::string::npos);
  return s.replace(at, from.size(), to);
}

}  // namespace

TEST_CASE("inputs and groups parse, a group is one layer, MACs count all groups", "[netonnx][unit]") {
  const Network n = parse_network(kGraph, "g.yaml");
  REQUIRE(n.layers.size() == 11);
  CHECK(n.layers[0].inputs.empty());
  CHECK(n.layers[2].inputs == std::vector<std::string>{"input"});
  CHECK(n.layers[4].inputs == std::vector<std::string>{"b", "sum"});
  const NetworkLayer& g = n.layers[5];
  CHECK(g.groups == 5);
  CHECK(g.c == 10);        // the file's total
  CHECK(g.layer.c == 2);   // one group
  CHECK(g.layer.k == 4);
  const NetworkLayer& dw = n.layers[8];
  CHECK(dw.groups == 20);
  CHECK(dw.layer.c == 1);
  CHECK(dw.layer.k == 1);
  // 8x8 outputs: a 4*27, b 6*4, c 4*3, grouped 5 * (4*2*9), dw 20 * (1*1*9); fc 7*20.
  const std::int64_t want = 64 * (4 * 27 + 6 * 4 + 4 * 3 + 5 * 4 * 2 * 9 + 20 * 9) + 7 * 20;
  CHECK(n.macs() == want);
  // The host ops the ONNX import emits are accepted.
  for (const char* op : {"relu", "leakyrelu", "clip", "mul", "flatten", "reshape", "resize", "identity", "dropout",
                         "globalavgpool", "batchnorm"}) {
    INFO(op);
    const std::string text = std::string("name: h\ninput: {C: 2, H: 4, W: 4}\nlayers:\n") +
                             "  - {name: a, C: 2, H: 4, W: 4, K: 2, k: 1}\n  - {name: x, op: " + op +
                             ", C: 2, H: 4, W: 4}\n";
    CHECK(parse_network(text, "h.yaml").layers[1].op == op);
  }
}

TEST_CASE("bad inputs, groups and shapes are InputErrors naming the key", "[netonnx][unit]") {
  struct Bad {
    std::string text, key, says;
  };
  for (const Bad& b : {
           Bad{edit("inputs: [a, c]", "inputs: [a, nope]"), "layers[3].inputs[1]", "no layer has this name"},
           Bad{edit("inputs: [a, c]", "inputs: [a, cat]"), "layers[3].inputs[1]", "a later layer"},
           Bad{edit("inputs: [a, c]", "inputs: [a, sum]"), "layers[3].inputs[1]", "the layer itself"},
           Bad{edit("inputs: [a, c]", "inputs: [a, a]"), "layers[3].inputs[1]", "already listed"},
           Bad{edit("inputs: [a, c]", "inputs: []"), "layers[3].inputs", "non-empty list"},
           Bad{edit("inputs: [a, c]", "inputs: a"), "layers[3].inputs", "non-empty list"},
           Bad{edit("inputs: [input]", "inputs: [input, a]"), "layers[2].inputs", "reads one tensor"},
           Bad{edit("groups: 5", "groups: 3"), "layers[5].groups", "must divide both C = 10 and K = 20"},
           Bad{edit("groups: 5", "groups: 0"), "layers[5].groups", "[1, 65536]"},
           Bad{edit("K: 6, k: 1}", "K: 6, k: 1, groups: 4}"), "layers[1].groups", "must divide"},
           Bad{edit("K: 7}", "K: 7, groups: 1}"), "layers[10].groups", ""},  // fc takes no groups
           Bad{edit(", inputs: [input]", ""), "layers[2].C", "the previous layer 'b' produces 6 x 8 x 8"},
           Bad{edit("C: 10, H: 8, W: 8, inputs", "C: 11, H: 8, W: 8, inputs"), "layers[4].C", "give 10"},
           Bad{edit("C: 4, H: 8, W: 8, inputs: [a, c]", "C: 4, H: 8, W: 8, inputs: [a, b]"), "layers[3].C",
               "'b' produces 6 x 8 x 8"},
           Bad{edit("name: up, op: upsample, C: 20, H: 4", "name: up, op: upsample, C: 20, H: 5"), "layers[7].H",
               "produces 20 x 4 x 4"},
           Bad{edit("name: dw, C: 20, H: 8", "name: dw, C: 20, H: 9"), "layers[8].H", "produces 20 x 8 x 8"},
           Bad{edit("op: fc, C: 20", "op: fc, C: 21"), "layers[10].C", "20 x 1 x 1 = 20 values"},
       }) {
    INFO(b.text);
    const InputError e = input_error_of([&] { parse_network(b.text, "g.yaml"); });
    CHECK(e.source() == "g.yaml");
    CHECK(e.key() == b.key);
    CHECK_THAT(e.problem(), Catch::Contains(b.says));
  }
}

TEST_CASE("shapes are not checked where they cannot be computed", "[netonnx][unit]") {
  // After a reshape (or a network without `input`) nothing is known, so any listed shape passes.
  const char* text = R"(name: r
layers:
  - {name: a, C: 3, H: 8, W: 8, K: 4, k: 1}
  - {name: r, op: reshape, C: 4, H: 8, W: 8}
  - {name: b, C: 16, H: 4, W: 4, K: 2, k: 1}
)";
  CHECK(parse_network(text, "r.yaml").layers.size() == 3);
}

TEST_CASE("a grouped layer runs one group's program groups times", "[netonnx][unit]") {
  // The same convolution as one grouped layer and as one group alone: cycles, DRAM bytes, MACs and
  // energy of the grouped layer are `groups` times those of the group.
  const char* grouped = R"(name: g
input: {C: 32, H: 16, W: 16}
layers:
  - {name: g, C: 32, H: 16, W: 16, K: 64, k: 3, p: 1, groups: 4}
)";
  const char* one = R"(name: o
input: {C: 8, H: 16, W: 16}
layers:
  - {name: g, C: 8, H: 16, W: 16, K: 16, k: 3, p: 1}
)";
  const Config cfg = default_config();
  net::RunOptions opt;
  const net::NetworkRun rg = net::run_network(parse_network(grouped, "g"), cfg, opt);
  const net::NetworkRun ro = net::run_network(parse_network(one, "o"), cfg, opt);
  for (const auto* lr : {&rg.feeder, &rg.expl}) {
    const net::LoweringRun& o = lr == &rg.feeder ? ro.feeder : ro.expl;
    INFO(lr->lowering);
    CHECK(lr->layers[0].groups == 4);
    CHECK(lr->total.stats.cycles == 4 * o.total.stats.cycles);
    CHECK(lr->total.stats.dram.total() == 4 * o.total.stats.dram.total());
    CHECK(lr->total.macs == 4 * o.total.macs);
    CHECK(lr->total.compulsory_bytes == 4 * o.total.compulsory_bytes);
    CHECK(lr->total.energy.total_j() == Approx(4 * o.total.energy.total_j()));
    CHECK(lr->layers[0].free_cycles == 4 * o.layers[0].free_cycles);
  }
  CHECK(rg.net.macs() == std::int64_t(rg.feeder.total.macs));

}

TEST_CASE("with --model sc a grouped layer runs one group on SystemC, counted groups times", "[netonnx][sc]") {
  // One network (SystemC elaborates once per process): `o` is one group's convolution on its own,
  // `g` the same convolution as 4 groups. The first group's operands run once and are checked
  // against the golden convolution; the counters are scaled by 4.
  const char* text = R"(name: s
input: {C: 8, H: 16, W: 16}
layers:
  - {name: o, C: 8, H: 16, W: 16, K: 16, k: 3, p: 1}
  - {name: x, C: 16, H: 16, W: 16, K: 32, k: 1}
  - {name: g, C: 32, H: 16, W: 16, K: 64, k: 3, p: 1, groups: 4}
)";
  net::RunOptions opt;
  opt.model = "sc";
  opt.check = true;
  const net::NetworkRun r = net::run_network(parse_network(text, "s"), default_config(), opt);
  for (const auto* lr : {&r.feeder, &r.expl}) {
    INFO(lr->lowering);
    const net::LayerRun& o = lr->layers[0];
    const net::LayerRun& g = lr->layers[2];
    CHECK(g.checked);
    CHECK(g.exact);
    CHECK(g.stats.cycles == 4 * o.stats.cycles);
    CHECK(g.stats.dram.total() == 4 * o.stats.dram.total());
    CHECK(g.analytic.cycles == 4 * o.analytic.cycles);
    CHECK(g.sc_wall_seconds > 0);
  }
}

TEST_CASE("strided 1x1 layers on a subsampled host input are bit-exact on SystemC, both lowerings", "[netonnx][sc]") {
  // host_subsamples_input(): `c` and `d` read the host's sum subsampled (the dense 1x1 layer on
  // 4 x 4), `e` reads an array output with the gather; every layer is checked against the golden
  // convolution of the layer as listed.
  const char* text = R"(name: s
input: {C: 8, H: 16, W: 16}
layers:
  - {name: a, C: 8, H: 16, W: 16, K: 16, k: 3, s: 2, p: 1}
  - {name: b, C: 16, H: 8, W: 8, K: 16, k: 3, p: 1}
  - {name: sum, op: add, C: 16, H: 8, W: 8, inputs: [a, b]}
  - {name: c, C: 16, H: 8, W: 8, K: 24, k: 1, s: 2, inputs: [sum]}
  - {name: d, C: 16, H: 8, W: 8, K: 8, k: 1, s: 2, inputs: [sum]}
  - {name: e, C: 16, H: 8, W: 8, K: 16, k: 1, s: 2, inputs: [a]}
)";
  net::RunOptions opt;
  opt.model = "sc";
  opt.check = true;
  const net::NetworkRun r = net::run_network(parse_network(text, "s"), default_config(), opt);
  for (const auto* lr : {&r.feeder, &r.expl}) {
    INFO(lr->lowering);
    REQUIRE(lr->layers.size() == 5);
    for (const net::LayerRun& l : lr->layers) {
      INFO(l.name);
      CHECK(l.checked);
      CHECK(l.exact);
      CHECK(l.host_subsampled == (l.name == "c" || l.name == "d"));
    }
  }
}

// libsystemc's own main() refers to sc_main; Catch2 provides main() and SystemC runs as a library.
extern "C" int sc_main(int, char*[]) { return 2; }
