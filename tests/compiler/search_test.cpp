// The tiling search and the explicit-im2col lowering: every candidate the search returns is a
// legal plan that compile_layer reproduces, runs correctly and moves the traffic the search
// predicted; the lowered layer (and the flat view of a 1x1 layer) gives bit-identical outputs.
#include <catch2/catch.hpp>

#include <set>

#include "sim/compiler/explicit_lowering.h"
#include "sim/compiler/search.h"
#include "sim/compiler/tiling.h"
#include "sim/config/config_keys.h"
#include "tests/compiler/compiler_support.h"

using namespace flycol;
using namespace flycol::test;

TEST_CASE("search candidates are legal, reproducible, correct and predict their traffic", "[compiler][search]") {
  for (const Config& cfg : {small_config(), default_config()}) {
    const hw::HwParams hw = hardware_params(cfg);
    std::mt19937_64 rng(31);
    int checked = 0;
    std::set<std::string> orders;
    for (int i = 0; i < 25; ++i) {
      const Layer l = random_layer(rng, hw, cfg.name == "small" ? 300000 : 2000000, i);
      std::vector<PlanCandidate> cands;
      try {
        cands = search_plans(l, cfg, {0, {}, 4});
      } catch (const InputError&) {
        continue;  // the configuration cannot run this layer at all
      }
      REQUIRE(!cands.empty());
      for (std::size_t j = 0; j < cands.size(); ++j) {
        const PlanCandidate& c = cands[j];
        INFO(cfg.name << " " << l.spec() << " candidate " << j << ": " << c.plan.describe());
        CHECK(!plan_shortfall(l, cfg, hw, c.plan.tc, c.plan.n_kg, c.plan.th, c.plan.tw, c.plan.layout()));
        const Program p = compile_layer(l, cfg, c.options);
        CHECK(p.plan.tc == c.plan.tc);
        CHECK(p.plan.n_kg == c.plan.n_kg);
        CHECK(p.plan.th == c.plan.th);
        CHECK(p.plan.tw == c.plan.tw);
        CHECK(p.plan.order == c.plan.order);
        CHECK(p.plan.aligned == c.plan.aligned);
        const DramTraffic t = program_traffic(p);
        CHECK(t.ifmap == c.traffic.ifmap);
        CHECK(t.weights == c.traffic.weights);
        CHECK(t.psums_in == c.traffic.psums_in);
        CHECK(t.ofmap == c.traffic.ofmap);
        if (j == 0) {  // the best one end to end (interpretation is the slow part)
          const EndToEnd r = run_end_to_end(p, std::uint64_t(100 + i));
          CHECK(r.error == "");
        }
        orders.insert(c.plan.order);
        ++checked;
      }
      // Sorted by the estimate, best first.
      for (std::size_t j = 1; j < cands.size(); ++j) CHECK(cands[j - 1].est_cycles <= cands[j].est_cycles);
    }
    CHECK(checked > 20);
    CHECK(orders.size() >= 2);
  }
}

TEST_CASE("the search can be limited to given loop orders", "[compiler][search]") {
  const Layer l = parse_layer_spec("C=64,H=32,W=32,K=128,k=3,p=1");
  SearchOptions o;
  o.orders = {"k_outer"};
  o.keep = 20;
  const std::vector<PlanCandidate> c = search_plans(l, default_config(), o);
  REQUIRE(!c.empty());
  for (const PlanCandidate& x : c) CHECK(x.plan.order == "k_outer");
  // Bad layers are rejected as by compile_layer.
  CHECK_THROWS_AS(search_plans(parse_layer_spec("C=4,H=40,W=40,K=4,ky=1,kx=7,dy=1,dx=6"), small_config()), InputError);
}

TEST_CASE("aligned rows add only zero columns and keep every feeder row on word offset 0", "[compiler]") {
  const Config cfg = default_config();
  const Layer l = parse_layer_spec("C=24,H=30,W=37,K=20,k=1,s=2");  // odd tile pitch 2*Tw - 1
  CompileOptions o;
  o.tile_c = 8;
  o.tile_h = 4;
  const Program b = compile_layer(l, cfg, o);
  o.align_rows = true;
  const Program a = compile_layer(l, cfg, o);
  REQUIRE(a.plan.aligned);
  CHECK(program_traffic(a).total() == program_traffic(b).total());  // same DRAM bytes
  for (const hw::Command& c : a.commands)
    if (c.op == hw::Opcode::Run) {
      CHECK(c.run.step_cy % std::uint32_t(a.hw.bus_elems) == 0);
      CHECK(c.run.step_c % std::uint32_t(a.hw.bus_elems) == 0);
    }
  CHECK(run_end_to_end(a, 5).error == "");
}

TEST_CASE("explicit im2col: the lowered layer gives bit-identical outputs", "[compiler][explicit]") {
  for (const Config& cfg : {small_config(), with_arithmetic("int8"), default_config()}) {
    const hw::HwParams hw = hardware_params(cfg);
    std::mt19937_64 rng(41);
    for (int i = 0; i < 12; ++i) {
      const Layer l = random_layer(rng, hw, 200000, i);
      const Layer m = explicit_lowered_layer(l, hw);
      INFO(cfg.name << " " << l.spec() << " lowered to " << m.spec());
      REQUIRE(m.c == l.c * l.ky * l.kx);
      REQUIRE(std::int64_t(m.h) * m.w == std::int64_t(l.ho()) * l.wo());
      REQUIRE(m.ho() == m.h);
      REQUIRE(m.wo() == m.w);
      Program p;
      try {
        p = compile_layer(m, cfg, {0, 0, 0, 0, loop_order_names()[std::size_t(i) % 3]});
      } catch (const InputError&) {
        continue;  // a lowered matrix this small configuration cannot hold
      }
      check_hazards(p);
      const ConvOperands ops = make_random_operands(l, cfg.arithmetic, std::uint64_t(200 + i), {0.2});
      const ConvOperands low = lower_operands(ops, m);
      std::vector<std::uint8_t> dram = build_dram_image(p, low);
      interpret(p, dram);
      golden::ConvOptions go;
      go.zero_gating = cfg.zero_gating;
      CHECK(first_mismatch(extract_outputs(p, dram.data()), golden::conv(ops, go), l) == "");
      // The lowered ifmap is the im2col matrix: C*ky*kx rows of Ho*Wo, padding zeros included.
      CHECK(low.ifmap.size() == std::size_t(l.n) * std::size_t(m.c) * std::size_t(l.ho()) * std::size_t(l.wo()));
    }
  }
  CHECK_THROWS_AS(lower_operands(make_random_operands(parse_layer_spec("C=2,H=4,W=4,K=2,k=3"), Arithmetic::fp16, 1),
                                 parse_layer_spec("C=2,H=4,W=4,K=2,k=1")),
                  std::invalid_argument);
}

TEST_CASE("a 1x1 stride-1 layer runs unchanged on its flat view", "[compiler][explicit]") {
  const Config cfg = default_config();
  const hw::HwParams hw = hardware_params(cfg);
  const Layer l = parse_layer_spec("C=40,H=8,W=8,K=33,k=1");
  const Layer m = explicit_lowered_layer(l, hw);
  CHECK(m.c == 40);
  CHECK(m.h == 1);
  CHECK(m.w == 64);  // a multiple of array.rows: full contexts
  const Program p = compile_layer(m, cfg);
  const ConvOperands ops = make_random_operands(l, cfg.arithmetic, 3);
  const ConvOperands low = lower_operands(ops, m);
  CHECK(low.ifmap == ops.ifmap);  // the same DRAM bytes
  std::vector<std::uint8_t> dram = build_dram_image(p, low);
  interpret(p, dram);
  CHECK(first_mismatch(extract_outputs(p, dram.data()), golden::conv(ops, {}), l) == "");
}

TEST_CASE("1x1 layers with skipped rows and flat contexts run correctly in every order", "[compiler][layout]") {
  for (const Config& cfg : {small_config(), default_config()}) {
    const hw::HwParams hw = hardware_params(cfg);
    std::mt19937_64 rng(57);
    int skipped = 0, flat = 0;
    for (int i = 0; i < 60; ++i) {
      Layer l;
      l.name = fmt::format("pointwise{}", i);
      random_sizes(rng, l);
      l.sy = uniform(rng, 1, 4);
      l.sx = uniform(rng, 0, 1) ? l.sy : uniform(rng, 1, 4);
      l.pt = uniform(rng, 0, 1), l.pb = uniform(rng, 0, 1), l.pl = uniform(rng, 0, 1), l.pr = uniform(rng, 0, 1);
      if (interpreter_cost(l, hw) > 400000) continue;
      CompileOptions o;
      o.order = loop_order_names()[std::size_t(i) % 3];
      o.skip_rows = l.sy > 1 && uniform(rng, 0, 3) > 0;
      o.flat_contexts = (l.sy == 1 || o.skip_rows) && uniform(rng, 0, 1) == 1;
      o.align_rows = !o.flat_contexts && uniform(rng, 0, 2) == 0;
      if (uniform(rng, 0, 1)) {  // small forced tiles: slices and row tiles
        o.tile_c = uniform(rng, 1, l.c);
        o.tile_h = uniform(rng, 1, l.ho());
      }
      Program p;
      try {
        p = compile_layer(l, cfg, o);
      } catch (const InputError&) {
        continue;
      }
      INFO(cfg.name << " " << l.spec() << ": " << p.plan.describe());
      skipped += p.plan.skip_rows;
      flat += p.plan.flat;
      const EndToEnd r = run_end_to_end(p, std::uint64_t(300 + i), 0.2);
      CHECK(r.error == "");
      const DramTraffic t = program_traffic(p), closed = plan_traffic(p.layer, p.hw, p.plan);
      CHECK(closed.ifmap == t.ifmap);
      CHECK(closed.weights == t.weights);
      CHECK(closed.ofmap == t.ofmap);
      // Skipping rows never loads more than the plain layout.
      if (p.plan.skip_rows) {
        CompileOptions plain = o;
        plain.skip_rows = plain.flat_contexts = false;
        plain.tile_c = p.plan.tc, plain.tile_kg = p.plan.n_kg, plain.tile_h = p.plan.th, plain.tile_w = p.plan.tw;
        Program q;
        bool fits = true;
        try {
          q = compile_layer(l, cfg, plain);
        } catch (const InputError&) {
          fits = false;  // the plain layout needs a bigger buffer for the same tile
        }
        if (fits) CHECK(program_traffic(q).ifmap >= t.ifmap);
      }
    }
    CHECK(skipped > 5);
    CHECK(flat > 5);
  }
}

TEST_CASE("layout options a layer cannot use are rejected naming the option", "[compiler][reject]") {
  const Config cfg = default_config();
  const auto key_of = [&](const std::string& spec, CompileOptions o) {
    try {
      compile_layer(parse_layer_spec(spec), cfg, o);
    } catch (const InputError& e) {
      CHECK(e.source() == "compile options");
      return e.key();
    }
    return std::string("accepted");
  };
  CompileOptions skip;
  skip.skip_rows = true;
  CHECK(key_of("C=4,H=9,W=9,K=4,k=3,s=2", skip) == "skip_rows");  // ky = 3
  CHECK(key_of("C=4,H=9,W=9,K=4,k=1,s=1", skip) == "skip_rows");  // sy = 1
  CHECK(key_of("C=4,H=9,W=9,K=4,k=1,s=2", skip) == "accepted");
  CompileOptions flat;
  flat.flat_contexts = true;
  CHECK(key_of("C=4,H=9,W=9,K=4,k=3,p=1", flat) == "accepted");     // packed: Wo = 9, 16 rows
  CHECK(key_of("C=4,H=9,W=3,K=4,k=3,p=1", flat) == "flat_contexts");  // Wo = 3: a lane would pass 5 row ends
  CHECK(key_of("C=4,H=9,W=60,K=4,k=2,sy=1,sx=3", flat) == "flat_contexts");  // sy x Wt = 59 < Wo x sx = 60
  CHECK(key_of("C=4,H=9,W=9,K=4,k=1,s=2", flat) == "flat_contexts");  // rows not consecutive without skip_rows
  CHECK(key_of("C=4,H=9,W=9,K=4,k=1", flat) == "accepted");
  flat.tile_w = 8;
  CHECK(key_of("C=4,H=9,W=40,K=4,k=1", flat) == "tile_w");
}

// Gathered columns (kx = 1, sx = 2..4): the LOAD_IFMAP keeps every sx-th DRAM element and the RUN
// strides by 1. Interpreted against golden in every order and layout combination; the closed-form
// traffic (search.cpp) must equal the program's, which counts whole beats.
TEST_CASE("strided 1 x ky layers with gathered columns run correctly in every order", "[compiler][layout]") {
  for (const Config& cfg : {small_config(), default_config()}) {
    const hw::HwParams hw = hardware_params(cfg);
    std::mt19937_64 rng(71);
    int gathered = 0, with_ky = 0, flat = 0;
    for (int i = 0; i < 50; ++i) {
      Layer l;
      l.name = fmt::format("gather{}", i);
      random_sizes(rng, l);
      l.ky = uniform(rng, 0, 2) ? 1 : uniform(rng, 2, 3);
      l.dy = uniform(rng, 1, 2);
      l.sx = uniform(rng, 2, hw::kMaxElemStep);
      l.sy = uniform(rng, 1, 3);
      l.pt = uniform(rng, 0, 1), l.pb = uniform(rng, 0, 1), l.pl = uniform(rng, 0, 1), l.pr = uniform(rng, 0, 1);
      if (l.h + l.pt + l.pb < l.extent_y() || interpreter_cost(l, hw) > 400000) continue;
      CompileOptions o;
      o.order = loop_order_names()[std::size_t(i) % 3];
      o.gather_cols = true;
      o.skip_rows = l.ky == 1 && l.sy > 1 && uniform(rng, 0, 1) == 1;
      o.flat_contexts = l.ky == 1 && l.kx == 1 && (l.sy == 1 || o.skip_rows) && uniform(rng, 0, 1) == 1;
      o.align_rows = !o.flat_contexts && uniform(rng, 0, 2) == 0;
      if (uniform(rng, 0, 1)) {  // small forced tiles: slices, row and column tiles
        o.tile_c = uniform(rng, 1, l.c);
        o.tile_h = uniform(rng, 1, l.ho());
        if (!o.flat_contexts && l.wo() > hw.rows) o.tile_w = hw.rows;
      }
      Program p;
      try {
        p = compile_layer(l, cfg, o);
      } catch (const InputError&) {
        continue;
      }
      INFO(cfg.name << " " << l.spec() << ": " << p.plan.describe());
      REQUIRE(p.plan.gather);
      ++gathered;
      with_ky += l.ky > 1;
      flat += p.plan.flat;
      for (const hw::Command& c : p.commands) {
        if (c.op == hw::Opcode::LoadIfmap && c.dma.row_len > 0) CHECK(c.dma.elem_step == std::uint32_t(l.sx));
        if (c.op == hw::Opcode::LoadWeights) CHECK(c.dma.elem_step == 1);
        if (c.op == hw::Opcode::Run) CHECK(c.run.lane_stride == 1);
      }
      const EndToEnd r = run_end_to_end(p, std::uint64_t(700 + i), 0.2);
      CHECK(r.error == "");
      const DramTraffic t = program_traffic(p), closed = plan_traffic(p.layer, p.hw, p.plan);
      CHECK(closed.ifmap == t.ifmap);
      CHECK(closed.weights == t.weights);
      CHECK(t.ifmap % std::uint64_t(hw::kBeatBytes) == 0);  // whole beats
    }
    CHECK(gathered > 25);
    CHECK(with_ky > 3);
    CHECK(flat > 3);
  }
}

// The gathered tile of a 1x1 stride-2 layer: half the columns of the plain one, one element per
// output in the buffer, and DRAM bytes in whole beats covering the same span as the dense rows.
TEST_CASE("a gathered 1x1 stride-2 tile holds only the columns its outputs read", "[compiler][layout]") {
  const Config cfg = default_config();
  const Layer l = parse_layer_spec("C=8,H=56,W=56,K=16,k=1,s=2");
  CompileOptions plain, g;
  plain.tile_h = g.tile_h = 4;
  plain.skip_rows = g.skip_rows = true;
  g.gather_cols = true;
  const Program a = compile_layer(l, cfg, plain), b = compile_layer(l, cfg, g);
  const auto first_load = [](const Program& p) {
    for (const hw::Command& c : p.commands)
      if (c.op == hw::Opcode::LoadIfmap) return c.dma;
    return hw::DmaDesc{};
  };
  const hw::DmaDesc da = first_load(a), db = first_load(b);
  CHECK(da.row_len == 55);  // (Wo - 1) * sx + 1 dense columns
  CHECK(db.row_len == 28);  // Wo gathered columns
  CHECK(db.elem_step == 2);
  CHECK(b.plan.ifmap_words * 2 <= a.plan.ifmap_words + 8);
  // A dense row is 110 bytes; its gather asks for the 4 or 5 beats the span touches, and once more
  // for a beat whose kept elements fall into two SRAM words (the tile's rows are 28 elements, so
  // most rows start inside a word): about 1.4 x the dense bytes, never below them.
  const DramTraffic ta = program_traffic(a), tb = program_traffic(b);
  CHECK(tb.ifmap >= ta.ifmap);
  CHECK(double(tb.ifmap) <= 1.5 * double(ta.ifmap));
}

TEST_CASE("gather_cols on a layer that cannot gather is rejected naming the option", "[compiler][reject]") {
  const Config cfg = default_config();
  const auto key_of = [&](const std::string& spec) {
    CompileOptions o;
    o.gather_cols = true;
    try {
      compile_layer(parse_layer_spec(spec), cfg, o);
    } catch (const InputError& e) {
      CHECK(e.source() == "compile options");
      return e.key();
    }
    return std::string("accepted");
  };
  CHECK(key_of("C=4,H=9,W=9,K=4,k=3,s=2") == "gather_cols");  // kx = 3
  CHECK(key_of("C=4,H=9,W=9,K=4,k=1,s=1") == "gather_cols");  // sx = 1: nothing to gather
  CHECK(key_of("C=4,H=9,W=30,K=4,k=1,s=5") == "gather_cols");  // above the DMA's largest step
  CHECK(key_of("C=4,H=9,W=9,K=4,k=1,s=2") == "accepted");
  CHECK(key_of("C=4,H=9,W=9,K=4,ky=3,kx=1,sy=1,sx=3,dy=1,dx=1,p=1") == "accepted");
}
