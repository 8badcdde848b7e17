// Unit tests of sim/scsim: layers run on the SystemC model of the accelerator (the small 4x4
// configuration, so a layer takes milliseconds) come out equal to the golden convolution, move the
// bytes their program's DMA descriptors plan, take at least the cycles the array needs for the
// MACs, and a program run again in the same process (the kernel pauses between programs) repeats.
#include <catch2/catch.hpp>

#include <cstdint>
#include <vector>

#include "hw/common/hw_params.h"
#include "sim/compiler/compiler.h"
#include "sim/config/config.h"
#include "sim/config/config_keys.h"
#include "sim/config/layer.h"
#include "sim/golden/conv.h"
#include "sim/scsim/layer_sim.h"
#include "sim/scsim/sc_simulation.h"
#include "sim/workload/workload.h"

using namespace flycol;

namespace {

const Config& small_config() {
  static const Config c = load_config_by_name_or_path("small");
  return c;
}

// SystemC elaborates once per process: every test case shares this model.
ScSimulation& sc_model() {
  static ScSimulation sim(hardware_params(small_config()));
  return sim;
}

struct Run {
  Program prog;
  ConvOperands ops;
  LayerSimResult r;
};

Run run(const char* spec, std::uint64_t seed, double zeros = 0.0, std::uint64_t dram_seed = 0) {
  const Config& cfg = small_config();
  Run x;
  x.prog = compile_layer(parse_layer_argument(spec), cfg);
  x.ops = make_random_operands(x.prog.layer, cfg.arithmetic, seed, {zeros});
  DramTiming t = DramTiming::from(cfg);
  if (dram_seed != 0) {  // random back-pressure and latency: results must not change
    t.random_seed = dram_seed;
    t.not_ready_prob = 0.2;
    t.extra_latency_max = 20;
  }
  x.r = simulate_layer(sc_model(), x.prog, x.ops, t, 200'000);
  return x;
}

}  // namespace

TEST_CASE("layers on the SystemC model equal the golden convolution", "[scsim]") {
  struct Case {
    const char* spec;
    double zeros;
    std::uint64_t dram_seed;
  };
  for (const Case& c : {Case{"C=3,H=9,W=11,K=5,k=3,p=1", 0.0, 0},           // padded 3x3
                        Case{"C=6,H=12,W=10,K=7,k=3,s=2,d=2,p=2", 0.3, 5},  // strided, dilated, zeros
                        Case{"N=2,C=9,H=5,W=6,K=4,ky=1,kx=3,pt=0,pb=0,pl=1,pr=0", 0.0, 9},  // batch, 1x3, asymmetric
                        Case{"C=8,H=6,W=6,K=6,k=1", 0.1, 0}}) {              // 1x1
    INFO(c.spec);
    const Run x = run(c.spec, 3, c.zeros, c.dram_seed);
    REQUIRE(x.r.sim.finished);
    CHECK(x.r.sim.error.empty());
    golden::ConvOptions g;
    g.zero_gating = small_config().zero_gating;
    const std::vector<AccBits> want = golden::conv(x.ops, g);
    REQUIRE(x.r.outputs.size() == want.size());
    CHECK(x.r.outputs == want);
  }
}

TEST_CASE("the SystemC model's DRAM traffic is what the program's descriptors move", "[scsim]") {
  const Run x = run("C=12,H=14,W=13,K=9,k=3,p=1", 4);
  REQUIRE(x.r.sim.finished);
  const DramTraffic plan = program_traffic(x.prog);
  CHECK(x.r.dram.ifmap == plan.ifmap);
  CHECK(x.r.dram.weights == plan.weights);
  CHECK(x.r.dram.psums_in == plan.psums_in);
  CHECK(x.r.dram.ofmap == plan.ofmap);
  CHECK(x.r.dram.total == plan.total());
  // Every input and weight element is read at least once, every output written at least once,
  // 2 bytes each in fp16.
  CHECK(x.r.dram.ifmap >= 12u * 14 * 13 * 2);
  CHECK(x.r.dram.weights >= 9u * 12 * 3 * 3 * 2);
  CHECK(x.r.dram.ofmap >= 9u * 14 * 13 * 2);
}

TEST_CASE("a run takes at least the cycles the array needs and repeats exactly", "[scsim]") {
  const char* spec = "C=16,H=10,W=10,K=8,k=3,p=1";
  const Run a = run(spec, 6);
  REQUIRE(a.r.sim.finished);
  const Layer l = parse_layer_argument(spec);
  const int pes = small_config().array.rows * small_config().array.cols;
  CHECK(a.r.sim.cycles >= std::uint64_t((l.macs() + pes - 1) / pes));
  // The same program again after other runs: the model is reset between programs.
  run("C=5,H=7,W=7,K=3,k=3", 1);
  const Run b = run(spec, 6);
  REQUIRE(b.r.sim.finished);
  CHECK(b.r.outputs == a.r.outputs);
  CHECK(b.r.sim.cycles == a.r.sim.cycles);
  CHECK(b.r.dram.total == a.r.dram.total);
}
