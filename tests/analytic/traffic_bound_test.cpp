// The per-layer DRAM traffic lower bound (sim/analytic/traffic_bound.h): never above the traffic
// of any tiling the search enumerates nor of the programs the analytic model runs (the real check:
// a bound that claims too much fails it), equal to the compulsory traffic when the SRAMs hold a
// whole layer, monotone in the SRAM sizes, and hand-computed values for small cases.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <random>

#include <fmt/format.h>

#include "sim/analytic/plan_choice.h"
#include "sim/analytic/traffic_bound.h"
#include "sim/common/input_error.h"
#include "sim/compiler/search.h"
#include "sim/config/config_keys.h"
#include "sim/workload/random_layer.h"
#include "tests/common/small_config_text.h"

using namespace flycol;
using namespace flycol::analytic;

namespace {

std::uint64_t test_seed(std::uint64_t fallback) {
  if (const char* s = std::getenv("FLYCOL_TEST_SEED")) return std::strtoull(s, nullptr, 0);
  return fallback;
}

// Configurations whose SRAMs are small next to the random layers, so the segment bound, not the
// compulsory traffic, decides most of them; plus the reference chip.
std::vector<Config> configs() {
  const auto variant = [](const std::string& name, const std::string& body) {
    return parse_config("name: " + name + "\n" + body, name + " (built in by the test)");
  };
  return {
      parse_config(test::kSmallConfigText, "small (built in by the test)"),
      variant("small-int8", "array: { rows: 4, cols: 8 }\narithmetic: int8\nsram:\n"
                            "  ifmap:   { kbytes: 2, buffers: 2, word_bits: 64 }\n"
                            "  weights: { kbytes: 2, buffers: 2, word_bits: 64 }\n"
                            "  psums:   { kbytes: 2, buffers: 2, word_bits: 128 }\n"
                            "feeder: { pattern_bits: 32, intermediate_regs: 2, fifo_depth: 4 }\n"),
      variant("small-single", "array: { rows: 4, cols: 4 }\nsram:\n"
                              "  ifmap:   { kbytes: 4, buffers: 1, word_bits: 64 }\n"
                              "  weights: { kbytes: 1, buffers: 1, word_bits: 64 }\n"
                              "  psums:   { kbytes: 2, buffers: 1, word_bits: 64 }\n"
                              "feeder: { pattern_bits: 32, intermediate_regs: 2, fifo_depth: 4 }\n"),
      default_config(),
  };
}

// A layer with many MACs per byte for the configuration's SRAMs (channels and maps uniform, not
// log-uniform as in random_layer), so that the segment bound decides it.
Layer large_layer(std::mt19937_64& rng, int max_ch, int max_hw) {
  const auto u = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  for (;;) {
    Layer l;
    l.c = u(max_ch / 8, max_ch);
    l.k = u(max_ch / 8, max_ch);
    l.h = u(max_hw / 4, max_hw);
    l.w = u(max_hw / 4, max_hw);
    l.ky = u(1, 5);
    l.kx = u(0, 1) ? l.ky : u(1, 5);
    l.sy = u(1, 4) == 4 ? 2 : 1;
    l.sx = u(0, 1) ? l.sy : u(1, 2);
    l.dy = u(1, 4) == 4 ? u(2, 3) : 1;
    l.dx = u(0, 1) ? l.dy : 1;
    l.pt = u(0, l.extent_y() - 1), l.pb = u(0, l.extent_y() - 1);
    l.pl = u(0, l.extent_x() - 1), l.pr = u(0, l.extent_x() - 1);
    try {
      validate_layer(l, "test");
    } catch (const InputError&) {
      continue;
    }
    return l;
  }
}

}  // namespace

TEST_CASE("the bound never exceeds the traffic of a tiling the search enumerates", "[analytic][bound]") {
  const std::uint64_t seed = test_seed(17);
  INFO("seed " << seed << "; reproduce with FLYCOL_TEST_SEED=" << seed
               << " build/tests/analytic/traffic_bound_test \"the bound never exceeds*\"");
  int layers = 0, candidates = 0, segment_decides = 0;
  double closest = 1e30, closest_segment = 1e30;
  for (const Config& cfg : configs()) {
    const BoundParams bp = bound_params(hardware_params(cfg));
    std::mt19937_64 rng(seed);
    RandomLayerLimits lim;
    lim.max_macs = cfg.name == "fornt16" ? 400'000'000 : 40'000'000;
    lim.max_kernel = 5;
    const bool small = cfg.name != "fornt16";
    for (int i = 0; i < 30; ++i) {
      const Layer l = i % 2 ? random_layer(rng, lim) : large_layer(rng, small ? 256 : 768, small ? 48 : 96);
      SearchOptions o;
      o.keep = 1 << 30;  // every legal candidate, in every loop order
      std::vector<PlanCandidate> cands;
      try {
        cands = search_plans(l, cfg, o);
      } catch (const InputError&) {
        continue;  // this configuration cannot run the layer
      }
      const TrafficBound b = traffic_bound(l, bp);
      segment_decides += b.segment > b.compulsory;
      ++layers;
      for (const PlanCandidate& c : cands) {
        INFO(cfg.name << " " << l.spec() << " " << c.plan.describe() << ": bound " << b.bytes() << " (compulsory "
                      << b.compulsory << ", segment " << b.segment << ")");
        CHECK(c.traffic.total() >= b.bytes());
        closest = std::min(closest, double(c.traffic.total()) / double(b.bytes()));
        if (b.segment > b.compulsory)
          closest_segment = std::min(closest_segment, double(c.traffic.total()) / double(b.bytes()));
        ++candidates;
      }
    }
  }
  fmt::print("traffic bound (seed {}): {} layers, {} candidate tilings, the segment bound above compulsory on {}; "
             "the closest tiling moves {:.3f} x the bound ({:.3f} x where the segment bound decides)\n",
             seed, layers, candidates, segment_decides, closest, closest_segment);
  CHECK(layers >= 80);
  CHECK(segment_decides >= 20);  // the segment bound is what these configurations test
}

TEST_CASE("the bound never exceeds the analytic model's traffic of the chosen programs", "[analytic][bound]") {
  const std::uint64_t seed = test_seed(23);
  INFO("seed " << seed << "; reproduce with FLYCOL_TEST_SEED=" << seed
               << " build/tests/analytic/traffic_bound_test \"the bound never exceeds the analytic*\"");
  int runs = 0;
  for (const Config& cfg : configs()) {
    const BoundParams bp = bound_params(hardware_params(cfg));
    for (const Tiling tiling : {Tiling::search, Tiling::heuristic}) {
      Planner planner(cfg, DramTiming::from(cfg), tiling);
      std::mt19937_64 rng(seed);
      RandomLayerLimits lim;
      lim.max_macs = 4'000'000;
      lim.max_kernel = 5;
      for (int i = 0; i < 8; ++i) {
        const Layer l = random_layer(rng, lim);
        const TrafficBound b = traffic_bound(l, bp);
        for (const Lowering lw : {Lowering::feeder, Lowering::explicit_im2col}) {
          Choice c;
          try {
            c = planner.choose(l, lw);
          } catch (const InputError&) {
            continue;
          }
          INFO(cfg.name << " " << tiling_name(tiling) << " " << lowering_name(lw) << " " << l.spec() << " "
                        << c.program.plan.describe() << ": bound " << b.bytes());
          CHECK(c.result.stats.dram.total() >= b.bytes());
          ++runs;
        }
      }
    }
  }
  CHECK(runs >= 80);
}

TEST_CASE("the bound is the compulsory traffic when the SRAMs hold the whole layer", "[analytic][bound]") {
  const Config& cfg = default_config();
  const BoundParams bp = bound_params(hardware_params(cfg));
  for (const char* spec : {"C=16,H=16,W=16,K=16,k=3", "C=8,H=32,W=32,K=32,k=1", "N=2,C=4,H=12,W=20,K=16,ky=3,kx=5"}) {
    const Layer l = parse_layer_spec(spec);
    INFO(spec);
    const TrafficBound b = traffic_bound(l, bp);
    const std::uint64_t tensors =
        std::uint64_t(l.ifmap_elems() + l.weight_elems()) * 2 + std::uint64_t(l.ofmap_elems()) * 2;
    CHECK(b.compulsory == tensors);  // no padding, stride 1: every element is used
    CHECK(b.segment == 0);           // one segment executes every MAC
    CHECK(b.bytes() == tensors);
    // ...and the search reaches it: the bound is tight here.
    SearchOptions o;
    o.keep = 1 << 30;
    std::uint64_t best = ~std::uint64_t(0);
    for (const PlanCandidate& c : search_plans(l, cfg, o)) best = std::min<std::uint64_t>(best, c.traffic.total());
    CHECK(best == b.bytes());
  }
}

TEST_CASE("the bound never grows with the SRAMs", "[analytic][bound]") {
  const std::vector<std::string> specs = {"C=64,H=56,W=56,K=64,k=3,p=1", "C=512,H=28,W=28,K=512,k=3,p=1",
                                          "C=1024,H=14,W=14,K=2048,k=1", "C=3,H=224,W=224,K=64,k=7,s=2,p=3",
                                          "C=256,H=32,W=32,K=256,k=3,d=4,p=4"};
  for (const std::string& spec : specs) {
    const Layer l = parse_layer_spec(spec);
    std::uint64_t prev = ~std::uint64_t(0);
    for (int kb = 1; kb <= 1024; kb *= 2) {
      const Config cfg = parse_config(fmt::format("sram:\n  ifmap: {{ kbytes: {0} }}\n  weights: {{ kbytes: {0} }}\n"
                                                  "  psums: {{ kbytes: {0} }}\n",
                                                  kb),
                                      "test");
      const std::uint64_t b = traffic_bound(l, bound_params(hardware_params(cfg))).bytes();
      INFO(spec << " at " << kb << " kB per buffer");
      CHECK(b <= prev);
      prev = b;
    }
    // Each SRAM on its own, too.
    BoundParams p = bound_params(hardware_params(default_config()));
    const std::uint64_t base = traffic_bound(l, p).bytes();
    for (std::int64_t OnChipStorage::*field : {&OnChipStorage::ifmap, &OnChipStorage::weights, &OnChipStorage::psums}) {
      BoundParams q = p;
      q.storage.*field *= 4;
      CHECK(traffic_bound(l, q).bytes() <= base);
    }
  }
}

TEST_CASE("the ifmap and weight stores count either way round", "[analytic][bound]") {
  // A program may hold the ifmap in the weight SRAM and the weights in the ifmap SRAM, so the
  // bound must not depend on which store is the larger.
  // The second and third layers have fewer weights (10000, 18432) than the larger store, which makes the
  // assignments differ.
  for (const char* spec :
       {"C=512,H=28,W=28,K=512,k=3,p=1", "C=100,H=100,W=100,K=100,k=1", "C=64,H=128,W=128,K=32,k=3"}) {
    const Layer l = parse_layer_spec(spec);
    BoundParams a, b;
    a.storage = {20000, 200, 200};
    b.storage = {200, 20000, 200};
    INFO(spec);
    CHECK(traffic_bound(l, a).segment == traffic_bound(l, b).segment);
    CHECK(traffic_bound(l, a).segment > 0);
  }
}

TEST_CASE("hand-computed bounds", "[analytic][bound]") {
  SECTION("a 3x3 layer padded by 1 that fits: only the compulsory traffic") {
    // C=2, 4x4, K=3, 3x3, p=1. Along each axis the outputs 0..3 have 2, 3, 3, 2 real taps: 10
    // (output, tap) pairs, so 3 * 2 * 10 * 10 = 600 real MACs of 3*2*16*9 = 864. Every input and
    // weight is used: 32 + 54 elements of 2 bytes and 48 outputs of 2 bytes = 268 bytes.
    const LayerReach r = layer_reach(parse_layer_spec("C=2,H=4,W=4,K=3,k=3,p=1"));
    CHECK(r.macs == 600);
    CHECK(r.inputs == 32);
    CHECK(r.weights == 54);
    CHECK(r.outputs == 48);
    CHECK(r.reuse == 9);
    CHECK(r.macs_per_output == 2 * 9);
    CHECK(r.macs_per_weight == 16);
    const TrafficBound b = traffic_bound(parse_layer_spec("C=2,H=4,W=4,K=3,k=3,p=1"),
                                         bound_params(hardware_params(default_config())));
    CHECK(b.compulsory == 268);
    CHECK(b.bytes() == 268);
  }
  SECTION("reuse and used inputs with stride and dilation") {
    // k=3, s=2, d=1 along an axis: input i is tap t of output o when 2o + t = i: at most 2 pairs.
    CHECK(layer_reach(parse_layer_spec("C=1,H=9,W=9,K=1,k=3,s=2")).reuse == 2 * 2);
    // k=3, s=2, d=2: 2o + 2t = i, so o + t = i/2: up to 3 pairs (ceil(k/s) would say 2).
    CHECK(layer_reach(parse_layer_spec("C=1,H=13,W=13,K=1,k=3,s=2,d=2")).reuse == 3 * 3);
    // 1x1 stride 2 on 5 x 5: rows and columns 0, 2, 4 are read, 9 of the 25 inputs.
    const Layer l = parse_layer_spec("C=4,H=5,W=5,K=8,k=1,s=2");
    CHECK(layer_reach(l).inputs == 4 * 9);
    CHECK(traffic_bound(l, bound_params(hardware_params(default_config()))).compulsory ==
          std::uint64_t(4 * 9 + 8 * 4) * 2 + 8 * 9 * 2);
  }
  SECTION("a large 1x1 layer (a GeMM) on a 100-element store per operand") {
    // P = K = C = 1000, one byte per value, 100 elements of storage for each class.
    // Plain count: a segment of T bytes has floors (100, 100, 100) and a budget of 300 + T; at
    // T = 600 the optimum is 300 each, so it executes at most sqrt(300^3) = 5196.15 MACs:
    // (10^9 / 5196.15 - 1) * (600 - 1) = 115,277,004 bytes.
    // Charged count (a store counts 2 bytes): floors (100, 100, 2 * 100), budget 400 + T; at
    // T = 800 each factor is 400 and F = sqrt(400^3 / 2) = 5656.85 MACs, so the traffic is at
    // least (10^9 / 5656.85 - 1) * (800 - 2) - 10^6 (one store per output) = 140,067,004 bytes.
    // The best T of the charged count is near 806 (140,068,319 bytes, by hand on a fine grid).
    const Layer l = parse_layer_spec("C=1000,H=10,W=100,K=1000,k=1");
    BoundParams p;
    p.elem_bytes = p.acc_bytes = 1;
    p.storage = {100, 100, 100};
    CHECK(segment_macs(layer_reach(l), p, 600) == Approx(5196.152422706632).epsilon(1e-9));
    CHECK(segment_macs(layer_reach(l), p, 800, 2) == Approx(5656.854249492380).epsilon(1e-9));
    const TrafficBound b = traffic_bound(l, p);
    CHECK(b.compulsory == 3'000'000);
    CHECK(double(b.segment) >= 140'067'004 * (1 - 1e-5));
    CHECK(double(b.segment) <= 140'068'320);
    CHECK(b.segment_bytes == Approx(806).epsilon(0.01));
  }
}
