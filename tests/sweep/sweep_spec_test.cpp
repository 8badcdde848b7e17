// Sweep files: parsing, point expansion and naming, shorthand overrides, per-value checks with
// messages naming the file and key, point configurations (derived SRAM words, bad values naming
// the point), rejected points, the explicit-lowering traffic, and sharding.
#include <catch2/catch.hpp>

#include <set>

#include "sim/compiler/compiler.h"
#include "sim/config/layer.h"
#include "sim/sweep/lowering.h"
#include "sim/sweep/point_setup.h"
#include "sim/sweep/runner.h"
#include "sim/sweep/shard.h"
#include "sim/sweep/sweep_spec.h"
#include "sweep_test_util.h"

using namespace flycol;
using namespace flycol::sweep;
using flycol::sweep::test::input_error_of;

namespace {

const char* kBasic = R"(
name: basic
config: small
fixed: {C: 4, H: 12, W: 12, K: 4, k: 3, p: same}
product:
  s: [1, 2]
  d: [1..3]
points:
  - {name: wide, kx: 5, ky: 1, d: 1}
)";

std::string names(const SweepSpec& s) {
  std::string out;
  for (const auto& p : s.points) out += (out.empty() ? "" : " ") + p.name;
  return out;
}

}  // namespace

TEST_CASE("a product expands first key outermost, explicit points follow, names come from the values", "[sweep]") {
  const SweepSpec s = parse_sweep_text(kBasic, "basic.yaml");
  CHECK(s.name == "basic");
  CHECK(names(s) == "s1_d1 s1_d2 s1_d3 s2_d1 s2_d2 s2_d3 wide");
  for (std::size_t i = 0; i < s.points.size(); ++i) CHECK(s.points[i].index == int(i) + 1);
  CHECK(s.swept_keys == std::vector<std::string>{"s", "d", "kx", "ky"});
  // Shorthand keys expand to their fields; a point's own value replaces the fixed one per field.
  const Params& m = s.points.back().merged;
  CHECK(*find_param(m, "ky") == "1");
  CHECK(*find_param(m, "kx") == "5");
  CHECK(*find_param(m, "pt") == "same");
  CHECK(*find_param(s.points[4].merged, "sy") == "2");
  CHECK(*find_param(s.points[4].merged, "dx") == "2");
  // Without `plots`, cycles and utilization against every numeric swept key with two values.
  REQUIRE(s.plots.size() == 2);
  CHECK(s.plots[0].x == "s");
  CHECK(s.plots[1].x == "d");
  CHECK(s.text_hash == text_hash(kBasic));
}

TEST_CASE("a list of products is their union", "[sweep]") {
  const SweepSpec s = parse_sweep_text(R"(
fixed: {C: 4, H: 12, W: 12, K: 4, k: 3}
product:
  - {feeder.intermediate_regs: [1, 2], feeder.fifo_depth: [2, 4]}
  - {array.rows: [4, 8]}
)", "configs/sweeps/u.yaml");
  CHECK(s.name == "u");  // from the file name
  CHECK(names(s) == "M1_FD2 M1_FD4 M2_FD2 M2_FD4 rows4 rows8");
}

TEST_CASE("bad sweep files name the file, the key and what is allowed", "[sweep]") {
  struct Case {
    const char* text;
    const char* key;
    const char* words;
  };
  const Case cases[] = {
      {"fixed: {C: 4}\nproduct: {dilation: [1, 2]}", "product.dilation", "unknown parameter"},
      {"fixed: {C: 4}\nproduct: {d: [0, 1]}", "product.d[0]", "must be an integer in [1, 255]"},
      {"fixed: {C: 4}\nproduct: {d: [3..1]}", "product.d[0]", "a range is A..B"},
      {"fixed: {C: 4}\nproduct: {d: [1, 1]}", "product.d", "twice"},
      {"fixed: {C: 4}\nproduct: {k: [3], kx: [5]}", "product.kx", "conflicts with k"},
      {"fixed: {C: 4}\nproduct: {p: [x]}", "product.p[0]", "or same"},
      {"fixed: {C: 4}\nproduct: {order: [sideways]}", "product.order[0]", "output_stationary"},
      {"fixed: {C: 4}\nproduct: {tiling: [best]}", "product.tiling[0]", "search or heuristic"},
      {"fixed: {C: 4, name: x}\nproduct: {k: [1]}", "fixed.name", "not a parameter"},
      {"fixed: {C: 4}", "product", "is missing"},
      {"fixed: {C: 4}\nproduct: {k: [1]}\nplots: [{x: s}]", "plots[0].x", "swept parameters"},
      {"fixed: {C: 4}\nproduct: {k: [1]}\nplots: [{x: k, y: speed}]", "plots[0].y", "must be one of cycles"},
      {"fixed: {C: 4}\nproduct: {k: [1]}\nlabels: [slow stuff]", "labels[0]", "must be a name"},
      {"fixed: {C: 4}\nproduct: {k: [1]}\npoints: [{k: 1}]", "points[0]", "again"},
      {"fixed: {C: 4}\nproduct: {k: [1]}\ntolerance_percent: -1", "tolerance_percent", "must be a number"},
      {"fixed: {C: 4}\nproduct: {k: [1]}\nmodle: sc", "modle", "unknown key"},
  };
  for (const auto& c : cases) {
    INFO(c.text);
    const InputError e = input_error_of([&] { parse_sweep_text(c.text, "bad.yaml"); });
    CHECK(e.source() == "bad.yaml");
    CHECK(e.key() == c.key);
    CHECK_THAT(e.problem(), Catch::Contains(c.words));
  }
}

TEST_CASE("a point's configuration is the base with its values, SRAM word widths derived", "[sweep]") {
  const SweepSpec s = parse_sweep_text(R"(
config: fornt16
fixed: {C: 16, H: 16, W: 32, K: 16, k: 3}
product:
  - {array.rows: [8, 32], array.cols: [4]}
  - {arithmetic: [int8], feeder.fifo_depth: [8]}
)", "a.yaml");
  const PointBuilder b(s);
  const Config c0 = b.point_config(s.points[0]);
  CHECK(c0.array.rows == 8);
  CHECK(c0.array.cols == 4);
  CHECK(c0.weights.word_bits == 64);   // 4 cols x 16-bit fp16
  CHECK(c0.psums.word_bits == 128);    // 8 rows x 16-bit accumulators
  const Config c1 = b.point_config(s.points[1]);
  CHECK(c1.psums.word_bits == 512);
  const Config c2 = b.point_config(s.points[2]);
  CHECK(c2.arithmetic == Arithmetic::int8);
  CHECK(c2.weights.word_bits == 128);
  CHECK(c2.psums.word_bits == 512);
  CHECK(c2.feeder.fifo_depth == 8);
  CHECK(c2.ifmap.word_bits == 256);  // the bus stays as wide; B becomes 32 int8 elements
}

TEST_CASE("a bad accelerator value is an InputError naming the sweep file, the point and the key", "[sweep]") {
  const SweepSpec s = parse_sweep_text(R"(
fixed: {C: 16, H: 16, W: 32, K: 16, k: 3}
product: {feeder.intermediate_regs: [2, 9]}
)", "bad_m.yaml");
  const PointBuilder b(s);
  CHECK_NOTHROW(b.prepare(s.points[0]));
  const InputError e = input_error_of([&] { b.prepare(s.points[1]); });
  CHECK(e.source() == "bad_m.yaml: point M9");
  CHECK(e.key() == "feeder.intermediate_regs");
  CHECK_THAT(e.problem(), Catch::Contains("[1, 8]"));

  const SweepSpec t = parse_sweep_text("fixed: {C: 16, H: 16, W: 32, K: 16, k: 3}\nproduct: {feeder.fifo: [2]}",
                                       "bad_key.yaml");
  const InputError e2 = input_error_of([&] { PointBuilder(t).prepare(t.points[0]); });
  CHECK(e2.key() == "feeder.fifo");
  CHECK_THAT(e2.problem(), Catch::Contains("unknown key"));

  const SweepSpec u = parse_sweep_text("fixed: {C: 16, H: 16, W: 32, K: 16}\nproduct: {s: [1]}", "no_kernel.yaml");
  const InputError e3 = input_error_of([&] { PointBuilder(u).prepare(u.points[0]); });
  CHECK(e3.key() == "ky");
  CHECK_THAT(e3.problem(), Catch::Contains("every point needs"));
}

TEST_CASE("points the configuration cannot run are rejected with the reason, not dropped", "[sweep]") {
  const SweepSpec s = parse_sweep_text(R"(
fixed: {C: 8, H: 16, W: 40, K: 16, p: same}
points:
  - {k: 7, feeder.intermediate_regs: 1, feeder.fifo_depth: 4}
  - {k: 7, feeder.intermediate_regs: 2, feeder.fifo_depth: 4}
  - {k: 3, d: 40}
  - {k: 3, H: 2, p: 0}
)", "rej.yaml");
  const PointBuilder b(s);
  const PreparedPoint p0 = b.prepare(s.points[0]);
  CHECK(p0.state == PreparedPoint::ready);  // kx = 7 > fifo_depth x M = 4: read in kernel-column chunks
  const PreparedPoint p1 = b.prepare(s.points[1]);
  CHECK(p1.state == PreparedPoint::ready);
  CHECK(p1.lowered.ok);
  const PreparedPoint p2 = b.prepare(s.points[2]);
  CHECK(p2.state == PreparedPoint::rejected);
  CHECK_THAT(p2.message, Catch::Contains("pattern_bits"));
  const PreparedPoint p3 = b.prepare(s.points[3]);
  CHECK(p3.state == PreparedPoint::rejected);
  CHECK_THAT(p3.message, Catch::StartsWith("invalid layer: H:"));
}

TEST_CASE("p: same keeps Ho = ceil(H / s); the values shown are the ones that ran", "[sweep]") {
  const SweepSpec s = parse_sweep_text(R"(
fixed: {C: 4, H: 17, W: 33, K: 4, p: same}
product: {k: [2, 3], s: [2], d: [3]}
)", "same.yaml");
  const PointBuilder b(s);
  for (const auto& pt : s.points) {
    const PreparedPoint p = b.prepare(pt);
    REQUIRE(p.has_layer);
    CHECK(p.layer.ho() == 9);
    CHECK(p.layer.wo() == 17);
    CHECK(p.layer.pt + p.layer.pb == p.layer.extent_y() - 1);
    CHECK(p.layer.pb >= p.layer.pt);
  }
  const PreparedPoint p = b.prepare(s.points[1]);
  CHECK(p.values == Params{{"k", "3"}, {"s", "2"}, {"d", "3"}});
  CHECK(p.layer.name == "same/k3_s2_d3");
}

TEST_CASE("tiling: search by default, heuristic when asked, explicit in the child run, and order needs heuristic", "[sweep]") {
  const SweepSpec s = parse_sweep_text(R"(
fixed: {C: 8, H: 16, W: 16, K: 8, k: 3, p: same}
product: {tiling: [heuristic, search]}
points:
  - {tiling: search, order: spill}
  - {k: 5}
  - {k: 1, order: spill}
  - {k: 7, tiling: heuristic, order: spill}
)", "tiling.yaml");
  REQUIRE(s.points.size() == 6);
  const PointBuilder b(s);
  // The value that follows --tiling in the child's arguments ("" if none).
  const auto child_tiling = [](const PreparedPoint& p) {
    const std::vector<std::string> argv = child_argv("flycol", "sc", p, 1, "c.yaml", "r.json");
    for (std::size_t i = 0; i + 1 < argv.size(); ++i)
      if (argv[i] == "--tiling") return argv[i + 1];
    return std::string();
  };
  const PreparedPoint heur = b.prepare(s.points[0]), search = b.prepare(s.points[1]);
  REQUIRE(heur.state == PreparedPoint::ready);
  REQUIRE(search.state == PreparedPoint::ready);
  REQUIRE(find_param(search.values, "tiling"));
  CHECK(*find_param(search.values, "tiling") == "search");
  CHECK(child_tiling(heur) == "heuristic");
  CHECK(child_tiling(search) == "search");
  const PreparedPoint both = b.prepare(s.points[2]);
  CHECK(both.state == PreparedPoint::rejected);
  CHECK_THAT(both.message, Catch::StartsWith("order:") && Catch::Contains("tiling: heuristic"));
  // No tiling key: the search (issue 17), passed to the child explicitly.
  const PreparedPoint dflt = b.prepare(s.points[3]);
  REQUIRE(dflt.state == PreparedPoint::ready);
  CHECK(dflt.tiling == "search");
  CHECK(child_tiling(dflt) == "search");
  // An order without a tiling is the default search with an order: rejected, naming the fix.
  const PreparedPoint order_only = b.prepare(s.points[4]);
  CHECK(order_only.state == PreparedPoint::rejected);
  CHECK_THAT(order_only.message, Catch::Contains("tiling: heuristic"));
  const PreparedPoint order_heur = b.prepare(s.points[5]);
  REQUIRE(order_heur.state == PreparedPoint::ready);
  CHECK(child_tiling(order_heur) == "heuristic");
}

TEST_CASE("the explicit-lowering baseline is a 1x1 layer over the im2col matrix", "[sweep]") {
  const Layer l = parse_layer_spec("C=8,H=20,W=24,K=16,k=3,s=2,p=1");
  const Layer m = explicit_lowered_layer(l);
  CHECK(m.c == 72);
  CHECK(m.h == l.ho());
  CHECK(m.w == l.wo());
  CHECK(m.k == 16);
  CHECK(m.ky == 1);
  CHECK(m.kx == 1);
  CHECK(m.macs() == l.macs());
  const LoweredTraffic t = explicit_lowering_traffic(l, default_config());
  REQUIRE(t.ok);
  // One output-channel group and a matrix that fits the SRAM: every element is read once.
  CHECK(t.traffic.ifmap == std::uint64_t(72) * l.ho() * l.wo() * 2);
  const DramTraffic direct = program_traffic(compile_layer(l, default_config()));
  CHECK(t.traffic.ifmap > direct.ifmap);  // what on-the-fly im2col saves
  CHECK(t.traffic.ofmap == direct.ofmap);

  // Planned as the point is: the search's plan for the lowered layer reads the matrix once here
  // too, and its weights once (one group of output channels at a time, each read once).
  const LoweredTraffic searched = explicit_lowering_traffic(l, default_config(), {}, analytic::Tiling::search);
  REQUIRE(searched.ok);
  CHECK(searched.traffic.ifmap == t.traffic.ifmap);
  CHECK(searched.traffic.weights == std::uint64_t(72) * 16 * 2);
  // A 5x5 layer whose lowered weights (C' = 800 channels) do not stay in the SRAM under the
  // heuristic's tiling: it re-reads them per tile (3.3 MB), the search's plan far less (0.4 MB).
  const Layer big = parse_layer_spec("C=32,H=32,W=32,K=64,k=5,p=2");
  const LoweredTraffic bh = explicit_lowering_traffic(big, default_config());
  const LoweredTraffic bs = explicit_lowering_traffic(big, default_config(), {}, analytic::Tiling::search);
  REQUIRE(bh.ok);
  REQUIRE(bs.ok);
  const std::uint64_t matrix = std::uint64_t(800) * 32 * 32 * 2, weights = std::uint64_t(800) * 64 * 2;
  CHECK(bs.traffic.ifmap >= matrix);  // compulsory: the matrix and the weights once
  CHECK(bs.traffic.weights >= weights);
  CHECK(bh.traffic.weights > 4 * weights);
  CHECK(bs.traffic.total() < bh.traffic.total() / 2);

  const LoweredTraffic too_wide = explicit_lowering_traffic(parse_layer_spec("C=8000,H=8,W=8,K=4,k=3,p=1"), default_config());
  CHECK_FALSE(too_wide.ok);
  CHECK_THAT(too_wide.note, Catch::Contains("C:"));
}

TEST_CASE("shards deal points round-robin and together hold each point once", "[sweep]") {
  for (int n : {1, 2, 3, 7}) {
    std::multiset<int> seen;
    for (int i = 1; i <= n; ++i) {
      const Shard s = parse_shard(fmt::format("{}/{}", i, n));
      for (int p = 1; p <= 20; ++p)
        if (s.holds(p)) seen.insert(p);
    }
    CHECK(seen.size() == 20);
    for (int p = 1; p <= 20; ++p) CHECK(seen.count(p) == 1);
  }
  CHECK(parse_shard("2/4").holds(2));
  CHECK(parse_shard("2/4").holds(6));
  CHECK_FALSE(parse_shard("2/4").holds(3));
  CHECK(parse_shard("1/1").text() == "all");
  CHECK(parse_shard("3/5").text() == "3/5");
  for (const char* bad : {"0/4", "5/4", "4", "a/b", "1/0", "-1/2", "1/20000"}) {
    INFO(bad);
    const InputError e = input_error_of([&] { parse_shard(bad); });
    CHECK(e.source() == "--shard");
  }
}

TEST_CASE("the shipped sweeps parse, and every point is valid or rejected with a reason", "[sweep]") {
  for (const char* f : {"dilation", "stride_kernel", "arch_params"}) {
    INFO(f);
    const SweepSpec s = load_sweep_file(flycol::sweep::test::repo_path(std::string("configs/sweeps/") + f + ".yaml"));
    CHECK(s.name == f);
    const PointBuilder b(s);
    int ready = 0;
    for (const auto& p : s.points) {
      const PreparedPoint pp = b.prepare(p);
      CHECK(pp.state != PreparedPoint::failed);
      if (pp.state == PreparedPoint::rejected) CHECK_FALSE(pp.message.empty());
      ready += pp.state == PreparedPoint::ready;
    }
    CHECK(ready > 0);
  }
}
