// Validation of the analytic model against the cycle-accurate SystemC model: random layers (the
// whole-accelerator regression's distribution, in every loop order, with chosen, searched and
// forced tilings) and every distinct layer shape of ResNet-50 as `flycol net` plans it. Each
// program runs on both models: total cycles must agree within 2 %, DRAM bytes per tensor and
// SRAM accesses exactly. Prints the error statistics.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <random>
#include <set>

#include <fmt/format.h>

#include "sim/analytic/analytic_model.h"
#include "sim/common/input_error.h"
#include "sim/analytic/plan_choice.h"
#include "sim/compiler/explicit_lowering.h"
#include "sim/compiler/search.h"
#include "sim/compiler/tiling.h"
#include "sim/config/config.h"
#include "sim/config/config_keys.h"
#include "sim/network/network.h"
#include "sim/scsim/layer_sim.h"
#include "sim/workload/random_layer.h"
#include "sim/workload/workload.h"

using namespace flycol;

namespace {

constexpr double kMaxCycleError = 0.02;
// The 500 larger random layers (label slow) reach further into DMA-bound plans. Their worst was
// 2.30 % (held to 2.5 %) while the analytic model shared the DRAM channel's bandwidth between
// concurrent DMA commands; with the channel as a FIFO (sim/analytic/README.md) it is 1.19 %, so
// they are held to the same 2 % as the default set.
constexpr double kMaxCycleErrorLarge = 0.02;

// SystemC elaborates once per process: one simulation of the reference configuration for all.
ScSimulation& sc_model() {
  static ScSimulation sim(hardware_params(default_config()));
  return sim;
}

struct ErrorStats {
  int programs = 0;
  double max_abs = 0, sum_abs = 0;
  std::string worst;
  void add(double err, const std::string& what) {
    ++programs;
    sum_abs += std::fabs(err);
    if (std::fabs(err) >= max_abs) {
      max_abs = std::fabs(err);
      worst = what;
    }
  }
  std::string text() const {
    return fmt::format("{} programs: cycle error max {:.3f} %, mean {:.3f} % (worst: {})", programs, 100 * max_abs,
                       programs ? 100 * sum_abs / programs : 0.0, worst);
  }
};

// Runs `prog` on both models and checks the agreement; `ops` are the operands the program's layer
// takes (the lowered ones for a lowered program).
void compare(const Program& prog, const ConvOperands& ops, analytic::Model& model, ErrorStats& es,
             double max_error = kMaxCycleError) {
  static std::uint64_t prev_reads[3] = {0, 0, 0}, prev_writes[3] = {0, 0, 0};
  const LayerSimResult s = simulate_layer(sc_model(), prog, ops, DramTiming::from(prog.config), 50'000'000);
  const analytic::Result a = model.run(prog);
  INFO(prog.layer.spec() << "\n  plan: " << prog.plan.describe());
  REQUIRE(s.sim.finished);
  const double err = (double(a.stats.cycles) - double(s.sim.cycles)) / double(s.sim.cycles);
  INFO("cycles: SystemC " << s.sim.cycles << ", analytic " << a.stats.cycles);
  INFO("feeder/weight/context/pipeline/dram/tail cycles: SystemC "
       << s.sim.stats.feeder_stall << "/" << s.sim.stats.weight_stall << "/" << s.sim.stats.context_stall << "/"
       << s.sim.stats.pipeline << "/" << s.sim.stats.dram_stall << "/" << s.sim.stats.tail << ", analytic "
       << a.stats.feeder_stall << "/" << a.stats.weight_stall << "/" << a.stats.context_stall << "/"
       << a.stats.pipeline << "/" << a.stats.dram_stall << "/" << a.stats.tail);
  CHECK(std::fabs(err) <= max_error);
  CHECK(a.stats.dram.ifmap == s.dram.ifmap);
  CHECK(a.stats.dram.weights == s.dram.weights);
  CHECK(a.stats.dram.psums_in == s.dram.psums_in);
  CHECK(a.stats.dram.ofmap == s.dram.ofmap);
  CHECK(a.stats.dram.total() == s.dram.total);
  CHECK(a.stats.mac_cycles == s.sim.stats.mac_cycles);
  // The banks count over every run of the elaboration: compare this run's increments.
  for (int i = 0; i < 3; ++i) {
    CHECK(a.stats.sram_reads[i] == s.sim.stats.sram_reads[i] - prev_reads[i]);
    CHECK(a.stats.sram_writes[i] == s.sim.stats.sram_writes[i] - prev_writes[i]);
    prev_reads[i] = s.sim.stats.sram_reads[i];
    prev_writes[i] = s.sim.stats.sram_writes[i];
  }
  es.add(err, fmt::format("{} [{}]", prog.layer.spec(), prog.plan.describe()));
}

// Random layers with a mix of tilings: the compiler's heuristic in each loop order, the search's
// best candidate, small forced tiles (channel slices, aligned rows), one layer in four made
// pointwise (1x1) with skipped rows, flat contexts and gathered columns, and one in eight with
// pixels packed across output rows (flat contexts of a wider kernel, any stride; half of them
// 1 x ky kernels with gathered columns).
void random_batch(int count, std::uint64_t seed, std::int64_t max_macs, double max_error = kMaxCycleError) {
  const Config& cfg = default_config();
  const hw::HwParams hw = hardware_params(cfg);
  analytic::Model model(hw, DramTiming::from(cfg));
  std::mt19937_64 rng(seed);
  RandomLayerLimits lim;
  lim.max_macs = max_macs;
  ErrorStats es;
  std::set<std::string> orders;
  int aligned = 0, sliced = 0, packed = 0, strided_packed = 0, gathered = 0;
  int layouts = 0;
  while (es.programs < count) {
    Layer l = random_layer(rng, lim);
    const int i = es.programs;
    CompileOptions o;
    o.order = loop_order_names()[std::size_t(i) % loop_order_names().size()];
    if (i % 4 == 3) {
      // A pointwise layer with the 1x1 layouts: every sy-th row only, contexts across rows.
      l.ky = l.kx = 1;
      l.dy = l.dx = 1;
      l.pt = std::min(l.pt, 1), l.pb = std::min(l.pb, 1), l.pl = std::min(l.pl, 1), l.pr = std::min(l.pr, 1);
      o.skip_rows = l.sy > 1 && i % 8 == 3;
      o.flat_contexts = l.sy == 1 || o.skip_rows;
      o.gather_cols = l.sx >= 2 && l.sx <= hw::kMaxElemStep && i % 16 >= 8;  // and every sx-th column
    } else if (i % 8 == 4) {
      // Pixels packed across whole output rows (any kernel, any stride); every other time a
      // kernel of one column (1 x ky), whose columns the DMA gathers when sx = 2..4. A layout the
      // layer cannot take (rows too narrow to pack) falls back to the compiler's default.
      if (i % 16 == 12) {
        l.kx = 1;
        l.dx = 1;
        l.pl = std::min(l.pl, 1), l.pr = std::min(l.pr, 1);
      }
      const TileLayout lay{false, false, true, l.kx == 1 && l.sx >= 2 && l.sx <= hw::kMaxElemStep};
      o.flat_contexts = layout_problem(l, lay).empty() && pack_problem(l, hw, lay).empty();
      o.gather_cols = o.flat_contexts && lay.gather;
    }
    Program p;
    try {
      if (i % 4 == 1) {
        const std::vector<PlanCandidate> c = search_plans(l, cfg);
        if (c.empty()) continue;
        o = c.front().options;
      } else if (i % 4 == 2) {
        o.tile_c = std::max(1, l.c / 2);
        o.tile_h = std::max(1, l.ho() / 3);
        o.align_rows = true;
      }
      p = compile_layer(l, cfg, o);
    } catch (const InputError&) {
      continue;  // this configuration cannot run the layer (or these forced tiles)
    }
    orders.insert(p.plan.order);
    aligned += p.plan.aligned;
    sliced += p.plan.tiles_c > 1;
    layouts += p.plan.skip_rows || p.plan.flat;
    packed += p.plan.flat && !(p.layer.kx == 1 && p.layer.ky == 1);
    strided_packed += p.plan.flat && !(p.layer.kx == 1 && p.layer.ky == 1) && p.layer.sy > 1;
    gathered += p.plan.gather;
    compare(p, make_random_operands(l, cfg.arithmetic, seed * 1000 + std::uint64_t(i)), model, es, max_error);
  }
  fmt::print("random layers (seed {}): {}; orders {}, {} with aligned rows, {} with skipped rows or flat contexts ({} "
             "packed, {} of them with sy > 1), {} with gathered columns, {} with channel slices\n",
             seed, es.text(), orders.size(), aligned, layouts, packed, strided_packed, gathered, sliced);
  CHECK(orders.size() == loop_order_names().size());
  CHECK(aligned > 0);
  CHECK(layouts > 0);
  CHECK(packed > 0);
  CHECK(strided_packed > 0);
  CHECK(gathered > 0);
  CHECK(sliced > 0);
}

// Every distinct layer shape of ResNet-50 (configs/networks/resnet50.yaml) whose name starts with
// one of `prefixes`, as `flycol net` plans it (tiling search, data feeder).
void resnet_shapes(const std::vector<std::string>& prefixes, bool explicit_too) {
  const Config& cfg = default_config();
  const hw::HwParams hw = hardware_params(cfg);
  const Network net = load_network("resnet50");
  analytic::Planner planner(cfg, DramTiming::from(cfg), analytic::Tiling::search);
  analytic::Model model(hw, DramTiming::from(cfg));
  ErrorStats es;
  std::set<std::string> seen;
  for (const NetworkLayer& nl : net.layers) {
    if (!nl.on_array) continue;
    if (std::none_of(prefixes.begin(), prefixes.end(),
                     [&](const std::string& p) { return nl.name.compare(0, p.size(), p) == 0; }))
      continue;
    Layer shape = nl.layer;
    shape.name = "layer";
    if (!seen.insert(shape.spec()).second) continue;
    const ConvOperands ops = make_random_operands(nl.layer, cfg.arithmetic, seen.size());
    for (const analytic::Lowering lw : {analytic::Lowering::feeder, analytic::Lowering::explicit_im2col}) {
      if (lw == analytic::Lowering::explicit_im2col && !explicit_too) continue;
      const analytic::Choice c = planner.choose(nl.layer, lw);
      const bool lowered = !(c.program.layer == nl.layer);
      compare(c.program, lowered ? lower_operands(ops, c.program.layer) : ops, model, es);
    }
  }
  fmt::print("ResNet-50 shapes ({}): {} distinct; {}\n", prefixes.front(), seen.size(), es.text());
  CHECK(!seen.empty());
}

}  // namespace

TEST_CASE("analytic model against SystemC: 120 random layers", "[analytic][sc]") { random_batch(120, 7, 2'000'000); }

TEST_CASE("analytic model against SystemC: kernel rows split into chunks", "[analytic][sc]") {
  // Kernel rows wider than fifo_depth x M = 12 columns (microarchitecture 9.2): the per-chunk
  // region rows, in the heuristic and a channel-sliced tiling.
  const Config& cfg = default_config();
  analytic::Model model(hardware_params(cfg), DramTiming::from(cfg));
  ErrorStats es;
  const char* specs[] = {"C=3,H=2,W=80,K=20,ky=1,kx=16",      "C=2,H=2,W=96,K=16,ky=1,kx=32",
                         "C=2,H=1,W=100,K=16,ky=1,kx=64,pt=0,pb=0,pl=3,pr=3", "C=2,H=64,W=64,K=16,k=7,d=10",
                         "C=4,H=8,W=90,K=4,ky=2,kx=21,dy=1,dx=3,sy=1,sx=2", "C=2,H=3,W=90,K=8,ky=2,kx=13,sy=2,sx=1,p=1"};
  int i = 0;
  for (const char* spec : specs) {
    const Layer l = parse_layer_spec(spec);
    for (const bool slice : {false, true}) {
      CompileOptions o;
      if (slice) o.tile_c = 1, o.order = "spill";
      const Program p = compile_layer(l, cfg, o);
      compare(p, make_random_operands(l, cfg.arithmetic, std::uint64_t(++i)), model, es);
    }
  }
  fmt::print("chunked kernel rows: {}\n", es.text());
}

// Feeder holds on chunked kernel rows (regression): a lane blocked by its full FIFO delays only its
// own later takes from the held word, while the other lanes go on taking from it (section 9.2;
// hw/feeder/feed_lane_core.cpp). The analytic model once delayed every lane by the whole hold and
// counted 92 feeder stalls on the rect8x4 layer (134 on the fornt16 one). The SystemC figures come
// from `build/flycol run --config <config> --layer <spec> --tiling heuristic --model sc`
// (compile_layer's default plan). The feeder stalls are held exactly (the feeder model follows the
// lanes cycle for cycle), the layer's cycles within 0.5 % (equal when written; the DMA model's
// approximations enter them too).
TEST_CASE("analytic model: feeder stalls of chunked kernel rows on rect8x4 and fornt16", "[analytic]") {
  struct Case {
    const char* config;  // "" for the built-in fornt16
    const char* spec;
    std::uint64_t sc_feeder_stall, sc_cycles;  // SystemC
  };
  const Case cases[] = {
      // build/flycol run --config tests/data/configs/rect8x4.yaml --layer C=4,H=14,W=15,K=4,ky=14,kx=15
      //   --tiling heuristic --model sc: cycles 1642, feeder stall 64
      {"tests/data/configs/rect8x4.yaml", "C=4,H=14,W=15,K=4,ky=14,kx=15", 64, 1642},
      // build/flycol run --layer C=4,H=8,W=90,K=4,ky=2,kx=21,dy=1,dx=3,sy=1,sx=2 --tiling heuristic
      //   --model sc: cycles 2442, feeder stall 93
      {"", "C=4,H=8,W=90,K=4,ky=2,kx=21,dy=1,dx=3,sy=1,sx=2", 93, 2442},
  };
  for (const Case& k : cases) {
    const Config cfg = *k.config ? load_config(std::string(FLYCOL_TEST_SOURCE_DIR) + "/" + k.config) : default_config();
    const Layer l = parse_layer_spec(k.spec);
    REQUIRE(kernel_chunks(l, hardware_params(cfg)).n > 1);
    const Program p = compile_layer(l, cfg);
    analytic::Model model(hardware_params(cfg), DramTiming::from(cfg));
    const analytic::Result a = model.run(p);
    INFO(k.spec << " on " << cfg.name << ": analytic " << a.stats.cycles << " cycles, " << a.stats.feeder_stall
                << " feeder stalls; SystemC " << k.sc_cycles << ", " << k.sc_feeder_stall);
    CHECK(a.stats.feeder_stall == k.sc_feeder_stall);
    CHECK(std::fabs(double(a.stats.cycles) - double(k.sc_cycles)) <= 0.005 * double(k.sc_cycles));
  }
}

// Gathering loads (elem_step = sx, whole-beat requests) on kx = 1 layers of stride 2..4, in each
// layout they combine with: the DMA counts (bytes in whole beats, SRAM words) must agree exactly.
TEST_CASE("analytic model against SystemC: gathered strided 1 x ky layers", "[analytic][sc]") {
  const Config& cfg = default_config();
  analytic::Model model(hardware_params(cfg), DramTiming::from(cfg));
  ErrorStats es;
  struct Case { const char* spec; bool skip, flat, align; };
  const Case cases[] = {
      {"C=64,H=28,W=28,K=32,k=1,s=2", true, true, false},
      {"C=40,H=21,W=37,K=20,k=1,s=3", true, false, false},
      {"C=24,H=17,W=50,K=18,ky=3,kx=1,sy=1,sx=2,dy=1,dx=1,pt=1,pb=1,pl=1,pr=0", false, false, true},
      {"N=2,C=20,H=13,W=45,K=16,k=1,s=4,p=1", true, false, false},
      {"C=32,H=15,W=30,K=16,ky=1,kx=1,sy=1,sx=2,dy=1,dx=1,p=0", false, true, false},
  };
  int i = 0;
  for (const Case& k : cases) {
    const Layer l = parse_layer_spec(k.spec);
    CompileOptions o;
    o.gather_cols = true;
    o.skip_rows = k.skip;
    o.flat_contexts = k.flat;
    o.align_rows = k.align;
    o.order = loop_order_names()[std::size_t(i) % loop_order_names().size()];
    const Program p = compile_layer(l, cfg, o);
    REQUIRE(p.plan.gather);
    compare(p, make_random_operands(l, cfg.arithmetic, 4242 + std::uint64_t(i++)), model, es);
  }
  fmt::print("gathered layers: {}\n", es.text());
}

// A gathered, packed layer whose last gathered beat holds the ifmap's last elements and the gap up
// to the weights (the ifmap's 400 bytes end mid-beat): the beat is requested whole and is ifmap
// traffic, 30 beats = 960 bytes (issue 17: SystemC's region counter kept only 944 of them).
TEST_CASE("analytic model against SystemC: a gathered beat past the ifmap's end", "[analytic][sc]") {
  const Config& cfg = default_config();
  analytic::Model model(hardware_params(cfg), DramTiming::from(cfg));
  ErrorStats es;
  const Layer l = parse_layer_spec("N=1,C=10,H=2,W=10,K=2,ky=5,kx=1,sy=3,sx=3,dy=1,dx=1,pt=2,pb=2,pl=0,pr=0");
  CompileOptions o;
  o.gather_cols = true;
  o.flat_contexts = true;
  const Program p = compile_layer(l, cfg, o);
  REQUIRE(p.plan.gather);
  REQUIRE(p.plan.flat);
  CHECK(program_traffic(p).ifmap == 960);
  compare(p, make_random_operands(l, cfg.arithmetic, 1717), model, es);
  fmt::print("gathered beat past the ifmap: {}\n", es.text());
}

// Contexts packed across images (1x1 layers with N > 1): the STORE_PSUMS writes packed rows, the
// LOAD_IFMAP reads images as DMA rows. A batch of fully connected layers, 7 x 7 and 14 x 14
// pointwise layers, and random small ones; the compiler's choice and forced image counts.
TEST_CASE("analytic model against SystemC: contexts packed across images", "[analytic][sc]") {
  const Config& cfg = default_config();
  const hw::HwParams hw = hardware_params(cfg);
  analytic::Model model(hw, DramTiming::from(cfg));
  ErrorStats es;
  std::vector<std::pair<Layer, int>> cases = {
      {parse_layer_spec("N=16,C=512,H=1,W=1,K=100,k=1"), 0},
      {parse_layer_spec("N=5,C=64,H=7,W=7,K=48,k=1"), 0},
      {parse_layer_spec("N=4,C=32,H=14,W=14,K=40,k=1"), 2},
      {parse_layer_spec("N=7,C=24,H=3,W=5,K=17,k=1"), 3},
  };
  std::mt19937_64 rng(77);
  for (int i = 0; i < 8; ++i) {
    Layer l;
    l.n = std::uniform_int_distribution<int>(2, 12)(rng);
    l.c = std::uniform_int_distribution<int>(1, 80)(rng);
    l.k = std::uniform_int_distribution<int>(1, 60)(rng);
    l.h = std::uniform_int_distribution<int>(1, 12)(rng);
    l.w = std::uniform_int_distribution<int>(1, 12)(rng);
    cases.push_back({l, i % 2 ? 2 : 0});
  }
  int packed = 0, i = 0;
  for (const auto& [l, tn] : cases) {
    CompileOptions o;
    o.flat_contexts = true;
    o.tile_n = std::min(tn, l.n);
    o.order = i % 2 ? "k_outer" : "output_stationary";
    const Program p = compile_layer(l, cfg, o);
    packed += p.plan.tn > 1;
    compare(p, make_random_operands(l, cfg.arithmetic, 9090 + std::uint64_t(i++)), model, es);
  }
  fmt::print("images packed: {} of {} programs; {}\n", packed, cases.size(), es.text());
  CHECK(packed * 4 >= int(cases.size()) * 3);
}

TEST_CASE("analytic model against SystemC: ResNet-50 shapes from conv1 to res3", "[analytic][sc]") {
  resnet_shapes({"conv1", "res2", "res3"}, false);
}

TEST_CASE("analytic model against SystemC: ResNet-50 shapes from res4 to fc", "[analytic][sc]") {
  resnet_shapes({"res4", "res5", "fc"}, false);
}

TEST_CASE("analytic model against SystemC: 500 larger random layers", "[analytic][sc][.slow]") {
  random_batch(500, 11, 20'000'000, kMaxCycleErrorLarge);
}

TEST_CASE("analytic model against SystemC: ResNet-50 explicit-im2col programs", "[analytic][sc][.slow]") {
  resnet_shapes({"conv1", "res", "fc"}, true);
}

// libsystemc's own main() refers to sc_main; Catch2 provides main() and SystemC runs as a library.
extern "C" int sc_main(int, char*[]) { return 2; }
