// End-to-end checks of the layer compiler: hundreds of random layers compiled (with chosen and
// with forced small tiles, in every loop order, some with aligned rows), hazard-checked and
// interpreted, their traffic checked against the search's closed form, and the outputs
// compared bit for bit with golden::conv in FP16 (with and without zero gating), int8 and int16.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>

#include "sim/common/int_math.h"
#include "sim/compiler/command_limits.h"
#include "sim/compiler/search.h"
#include "sim/compiler/tiling.h"
#include "sim/config/config_keys.h"
#include "tests/compiler/compiler_support.h"

using namespace flycol;
using namespace flycol::test;

namespace {

// How many layers of a batch exercised each interesting path.
struct Coverage {
  int layers = 0, preload = 0, column_edge = 0, partial_context = 0, partial_group = 0, spill = 0, column_tiles = 0;
  int k_outer = 0, aligned = 0;
  void add(const Program& p) {
    ++layers;
    k_outer += p.plan.order == "k_outer";
    const TileWindow w = tile_window(p.layer, p.hw, p.plan.tc, p.plan.th, p.plan.tw, {true, false, false});
    aligned += p.plan.aligned && w.wt != w.span;  // the pitch really grew
    const TilePlan& t = p.plan;
    preload += t.tiles_c > 1;
    column_tiles += t.tiles_w > 1;
    column_edge += t.tiles_w > 1 && p.layer.wo() % t.tw != 0;
    partial_context += p.layer.wo() % p.hw.rows != 0;
    partial_group += p.layer.k % p.hw.cols != 0;
    spill += t.order == "spill" && t.tiles_c > 1;
  }
  std::string text() const {
    return fmt::format("{} layers: {} with channel slices (preload), {} spilled, {} k_outer, {} with aligned rows, {} "
                       "with column tiles ({} with an edge tile), {} with a partial context, {} with a partial "
                       "output-channel group",
                       layers, preload, spill, k_outer, aligned, column_tiles, column_edge, partial_context,
                       partial_group);
  }
};

void check_traffic(const Program& p) {
  const DramTraffic t = program_traffic(p);
  const std::uint64_t tiles_c = std::uint64_t(p.plan.tiles_c);
  if (p.plan.order == "spill") {
    CHECK(t.ofmap == tiles_c * p.dram.ofmap_bytes);
    CHECK(t.psums_in == (tiles_c - 1) * p.dram.ofmap_bytes);
  } else {
    CHECK(t.ofmap == p.dram.ofmap_bytes);
    CHECK(t.psums_in == 0);
    if (p.plan.tiles_c * p.plan.tiles_k <= p.hw.weight_buffers) CHECK(t.weights == p.dram.weights_bytes);
    // k_outer keeps a k tile's weight slices resident while every output tile uses them.
    if (p.plan.order == "k_outer" && p.plan.tiles_c <= p.hw.weight_buffers) CHECK(t.weights == p.dram.weights_bytes);
  }
  CHECK(t.ifmap > 0);
  // The search scores tilings with this closed form instead of emitting them.
  const DramTraffic closed = plan_traffic(p.layer, p.hw, p.plan);
  CHECK(closed.ifmap == t.ifmap);
  CHECK(closed.weights == t.weights);
  CHECK(closed.psums_in == t.psums_in);
  CHECK(closed.ofmap == t.ofmap);
}

// One batch: `count` random layers on `cfg`, each compiled as `mode` says and checked end to end.
enum class Mode { chosen, forced, mixed };
Coverage run_batch(const Config& cfg, int count, std::uint64_t seed, Mode mode, double zero_fraction,
                   std::int64_t budget) {
  const hw::HwParams hw = hardware_params(cfg);
  std::mt19937_64 rng(seed);
  Coverage cov;
  for (int i = 0; i < count; ++i) {
    const Layer l = random_layer(rng, hw, budget, i);
    const std::string order = loop_order_names()[std::size_t(i) % loop_order_names().size()];
    const bool forced = mode == Mode::forced || (mode == Mode::mixed && i % 4 >= 2);
    CompileOptions chosen;
    chosen.order = order;
    chosen.align_rows = i % 5 == 1;
    const Program p = forced ? compile_forced(l, cfg, order, rng) : compile_layer(l, cfg, chosen);
    INFO(cfg.name << " layer " << l.spec() << " plan: " << p.plan.describe());
    const EndToEnd r = run_end_to_end(p, seed * 1000 + std::uint64_t(i), i % 3 == 0 ? zero_fraction : 0.0);
    INFO((r.error.empty() ? std::string() : "listing:\n" + p.listing()));
    REQUIRE(r.error == "");
    check_traffic(p);
    cov.add(p);
  }
  fmt::print("{}: {}\n", cfg.name, cov.text());
  return cov;
}

}  // namespace

TEST_CASE("random layers, small fp16 array, compiler-chosen tiles, every order", "[compiler][golden]") {
  const Coverage c = run_batch(small_config(), 80, 11, Mode::chosen, 0.3, 400000);
  CHECK(c.preload > 0);
  CHECK(c.spill > 0);
  CHECK(c.k_outer > 0);
  CHECK(c.aligned > 0);
  CHECK(c.partial_context > 0);
  CHECK(c.partial_group > 0);
}

TEST_CASE("random layers, small fp16 array, forced small tiles, every order", "[compiler][golden]") {
  const Coverage c = run_batch(small_config(), 100, 12, Mode::forced, 0.3, 400000);
  CHECK(c.preload * 10 >= c.layers * 8);  // every layer with C >= 2 slices its channels
  CHECK(c.spill > 0);
  CHECK(c.column_edge > 0);
  CHECK(c.partial_group > 0);
}

TEST_CASE("random layers, small fp16 array without zero gating", "[compiler][golden]") {
  Config cfg = small_config();
  cfg.zero_gating = false;
  cfg.name = "small-no-gating";
  const Coverage c = run_batch(cfg, 60, 13, Mode::mixed, 0.4, 300000);
  CHECK(c.preload > 0);
}

TEST_CASE("random layers, small int8 array", "[compiler][golden]") {
  const Coverage c = run_batch(small_variant(Arithmetic::int8), 60, 14, Mode::mixed, 0.2, 400000);
  CHECK(c.preload > 0);
  CHECK(c.partial_group > 0);
}

TEST_CASE("random layers, small int16 array", "[compiler][golden]") {
  const Coverage c = run_batch(small_variant(Arithmetic::int16), 60, 15, Mode::mixed, 0.2, 400000);
  CHECK(c.preload > 0);
}

TEST_CASE("random layers, single- and mixed-buffered SRAMs", "[compiler][golden]") {
  run_batch(small_variant(Arithmetic::fp16, 1, 1, 1), 40, 16, Mode::mixed, 0.2, 300000);
  run_batch(small_variant(Arithmetic::fp16, 1, 2, 1), 30, 17, Mode::mixed, 0.2, 300000);
  run_batch(small_variant(Arithmetic::int16, 2, 1, 2), 30, 18, Mode::mixed, 0.2, 300000);
}

TEST_CASE("random layers, default 16x16 array in fp16, int8 and int16", "[compiler][golden]") {
  const Coverage f = run_batch(default_config(), 30, 21, Mode::mixed, 0.3, 2000000);
  CHECK(f.partial_context > 0);
  run_batch(with_arithmetic("int8"), 25, 22, Mode::mixed, 0.2, 2000000);
  run_batch(with_arithmetic("int16"), 25, 23, Mode::mixed, 0.2, 2000000);
}

TEST_CASE("tiles that lie wholly in the padding load zeros only", "[compiler][golden]") {
  // p = 1 with a 1x1 kernel: output row 0 and column 0 see only padding. One-row tiles make the
  // first row tile a window without image data.
  const Config cfg = small_config();
  CompileOptions o;
  o.tile_h = 1;
  const Program p = compile_layer(parse_layer_spec("C=3,H=5,W=6,K=5,k=1,p=1"), cfg, o);
  const hw::Command& first = p.commands.front();
  REQUIRE(first.op == hw::Opcode::LoadIfmap);
  CHECK(first.dma.n_rows == 0);
  CHECK(first.dma.row_len == 0);
  CHECK(first.dma.pad_top == 1);
  CHECK(first.dma.pad_left == 8);
  REQUIRE(run_end_to_end(p, 1).error == "");

  // Random layers with padding up to the full extent, with forced one-row and narrow tiles.
  const hw::HwParams hw = hardware_params(cfg);
  std::mt19937_64 rng(31);
  int empty_windows = 0;
  for (int i = 0; i < 40; ++i) {
    const Layer l = random_layer(rng, hw, 200000, i, true);
    const Program q = compile_forced(l, cfg, i % 2 ? "spill" : "output_stationary", rng);
    INFO(l.spec() << " plan: " << q.plan.describe());
    REQUIRE(run_end_to_end(q, std::uint64_t(100 + i)).error == "");
    for (const auto& c : q.commands) empty_windows += c.op == hw::Opcode::LoadIfmap && c.dma.n_rows == 0;
  }
  CHECK(empty_windows > 0);
}

TEST_CASE("the DRAM image holds the blocked weights and extract_outputs reads the ofmap", "[compiler]") {
  Layer l;
  l.c = 3; l.h = 5; l.w = 6; l.k = 6; l.ky = 2; l.kx = 3;
  const Config cfg = small_config();  // COLS = 4: two groups, the second half empty
  const Program p = compile_layer(l, cfg);
  const ConvOperands ops = make_random_operands(l, Arithmetic::fp16, 5);
  const std::vector<std::uint8_t> dram = build_dram_image(p, ops);
  REQUIRE(dram.size() == p.dram.total_bytes);
  CHECK(p.dram.ifmap_base == 0);
  CHECK(p.dram.weights_base % 64 == 0);
  CHECK(p.dram.ofmap_base % 64 == 0);
  CHECK(p.dram.weights_bytes == 2u * 3 * 2 * 3 * 4 * 2);
  const auto elem = [&](std::uint64_t addr) { return std::uint16_t(dram[addr] | (dram[addr + 1] << 8)); };
  for (int k = 0; k < 8; ++k)
    for (int c = 0; c < 3; ++c)
      for (int j = 0; j < 6; ++j) {
        const std::uint64_t at = p.dram.weights_base + 2 * ((std::uint64_t(k / 4) * 3 + c) * 6 * 4 + j * 4 + k % 4);
        const std::uint16_t want = k < 6 ? ops.weights[std::size_t((k * 3 + c) * 6 + j)] : 0;
        CHECK(elem(at) == want);
      }
  for (std::size_t i = 0; i < ops.ifmap.size(); ++i) CHECK(elem(2 * i) == ops.ifmap[i]);

  std::vector<std::uint8_t> out(dram);
  out[p.dram.ofmap_base] = 0x34;
  out[p.dram.ofmap_base + 1] = 0x12;
  CHECK(extract_outputs(p, out.data())[0] == 0x1234);

  ConvOperands other = ops;
  other.layer.k = 5;
  CHECK_THROWS_AS(build_dram_image(p, other), std::invalid_argument);
}

TEST_CASE("a listing has one line per command with engine ordinals", "[compiler]") {
  Layer l;
  l.c = 9; l.h = 7; l.w = 10; l.k = 5; l.ky = 3; l.kx = 3; l.pt = l.pb = l.pl = l.pr = 1;
  CompileOptions o;
  o.tile_c = 4;
  o.order = "spill";
  const Program p = compile_layer(l, small_config(), o);
  const std::string text = p.listing();
  CHECK(std::count(text.begin(), text.end(), '\n') == std::ptrdiff_t(p.commands.size()));
  CHECK(text.find("LD1 ") != std::string::npos);
  CHECK(text.find("EX1 ") != std::string::npos);
  CHECK(text.find("PS1 ") != std::string::npos);
  CHECK(text.find("LOAD_PSUMS") != std::string::npos);
  CHECK(p.runs == p.plan.tiles_c * p.plan.tiles_k * p.plan.tiles_h * p.plan.tiles_w * l.n);
  REQUIRE(run_end_to_end(p, 3).error == "");
}

TEST_CASE("consecutive output tiles alternate between the two psum buffers", "[compiler]") {
  // Double buffering: the next output tile's RUN accumulates in the other psum buffer while the
  // previous tile is stored. One buffer for every tile would still compute the right numbers (the
  // waits serialize the store and the next RUN), so only the buffer sequence shows the overlap.
  Layer l;
  l.c = 3; l.h = 6; l.w = 6; l.k = 4; l.ky = 3; l.kx = 3; l.pt = l.pb = l.pl = l.pr = 1;
  CompileOptions o;
  o.tile_h = 1;  // at least six output tiles, one input-channel slice each
  o.order = "output_stationary";
  const Program p = compile_layer(l, small_config(), o);
  REQUIRE(p.hw.psum_buffers == 2);
  REQUIRE(p.plan.tiles_c == 1);
  std::vector<int> bufs;
  for (const auto& c : p.commands)
    if (c.op == hw::Opcode::Run) bufs.push_back(c.run.psum_buf);
  REQUIRE(bufs.size() >= 6);
  for (std::size_t i = 0; i < bufs.size(); ++i) CHECK(bufs[i] == int(i % 2));
  REQUIRE(run_end_to_end(p, 4).error == "");
}

TEST_CASE("command field limits reject the first buffer index past the last buffer", "[compiler]") {
  // The boundary of each buffer index: the last buffer is legal, one more is not (an off-by-one
  // there would let a RUN name a psum buffer the chip does not have).
  Layer l;
  l.c = 3; l.h = 5; l.w = 6; l.k = 4; l.ky = 3; l.kx = 3;
  const Program p = compile_layer(l, small_config());
  const auto run = std::find_if(p.commands.begin(), p.commands.end(),
                                [](const hw::Command& c) { return c.op == hw::Opcode::Run; });
  REQUIRE(run != p.commands.end());
  const auto ld = std::find_if(p.commands.begin(), p.commands.end(),
                               [](const hw::Command& c) { return c.op == hw::Opcode::LoadIfmap; });
  REQUIRE(ld != p.commands.end());
  CHECK(command_field_violation(*run, p.hw) == "");
  const auto with = [&](std::uint8_t hw::RunDesc::*field, int value) {
    hw::Command c = *run;
    c.run.*field = std::uint8_t(value);
    return command_field_violation(c, p.hw);
  };
  CHECK(with(&hw::RunDesc::ifmap_buf, p.hw.ifmap_buffers - 1) == "");
  CHECK(with(&hw::RunDesc::ifmap_buf, p.hw.ifmap_buffers).rfind("ifmap_buf = ", 0) == 0);
  CHECK(with(&hw::RunDesc::weight_buf, p.hw.weight_buffers - 1) == "");
  CHECK(with(&hw::RunDesc::weight_buf, p.hw.weight_buffers).rfind("weight_buf = ", 0) == 0);
  CHECK(with(&hw::RunDesc::psum_buf, p.hw.psum_buffers - 1) == "");
  CHECK(with(&hw::RunDesc::psum_buf, p.hw.psum_buffers).rfind("psum_buf = ", 0) == 0);
  hw::Command c = *ld;
  c.dma.buf = std::uint8_t(p.hw.ifmap_buffers - 1);
  CHECK(command_field_violation(c, p.hw) == "");
  c.dma.buf = std::uint8_t(p.hw.ifmap_buffers);
  CHECK(command_field_violation(c, p.hw).rfind("buf = ", 0) == 0);
}

// Contexts packed across images (microarchitecture 12): 1x1 stride-1 layers with N > 1 whose
// tiles hold several whole images. Every program is hazard-checked, interpreted and compared with
// golden::conv; its traffic matches the search's closed form; its contexts are the packed count.
TEST_CASE("contexts packed across images: random 1x1 layers with several images", "[compiler][golden][images]") {
  const char* env = std::getenv("FLYCOL_SEED");
  const std::uint64_t seed = env ? std::strtoull(env, nullptr, 10) : 41;
  std::mt19937_64 rng(seed);
  int programs = 0, packed = 0, store_packed_rows = 0, edge_tiles = 0;
  for (const Config& cfg : {small_config(), small_variant(Arithmetic::int8), with_arithmetic("fornt16")}) {
    const hw::HwParams hw = hardware_params(cfg);
    for (int i = 0; i < 30; ++i) {
      Layer l;
      l.name = fmt::format("images{}", i);
      l.n = uniform(rng, 2, 9);
      l.c = uniform(rng, 1, 40);
      l.k = uniform(rng, 1, 40);
      l.h = uniform(rng, 1, 9);
      l.w = uniform(rng, 1, 9);
      CompileOptions o;
      o.flat_contexts = true;
      o.order = i % 2 ? "k_outer" : "output_stationary";
      if (i % 3 == 1) o.tile_n = uniform(rng, 2, l.n);  // forced: may leave a smaller last tile
      if (i % 3 == 2) o.tile_c = uniform(rng, 1, std::min(l.c, 8));
      INFO("seed " << seed << " (FLYCOL_SEED=" << seed
                   << " build/tests/compiler/compiler_test \"contexts packed across images*\") config " << cfg.name << " layer " << l.spec() << " tile_n "
                   << o.tile_n);
      // A forced count that does not fit is refused naming tile_n; then the compiler chooses.
      Program p;
      for (int attempt = 0;; ++attempt) {
        try {
          p = compile_layer(l, cfg, o);
          break;
        } catch (const InputError& e) {
          INFO(e.what());
          REQUIRE(attempt < 1);
          CHECK_THAT(e.what(), Catch::Contains("tile_n") && Catch::Contains("the most that fit"));
          o.tile_n = 0;
        }
      }
      INFO("plan: " << p.plan.describe());
      if (o.tile_n) CHECK(p.plan.tn == o.tile_n);
      ++programs;
      // Unforced, the compiler packs whenever two whole images fit beside its Tc and n_kg.
      const bool two_fit = p.plan.th == l.ho() &&
                           !plan_shortfall(l, cfg, hw, p.plan.tc, p.plan.n_kg, l.ho(), l.wo(), p.plan.layout(), 2);
      CHECK((p.plan.tn > 1) == two_fit);
      packed += p.plan.tn > 1;
      edge_tiles += l.n % p.plan.tn != 0;
      // One RUN per image tile, channel slice and k tile, of ceil(images * Ho * Wo / ROWS) contexts.
      std::int64_t contexts = 0, want = 0;
      for (const hw::Command& c : p.commands) {
        if (c.op == hw::Opcode::Run) contexts += c.run.n_cx;
        if (c.op == hw::Opcode::StorePsums && (c.dma.row_len % std::uint32_t(hw.rows)) != 0 && c.dma.n_rows > 1)
          ++store_packed_rows;
      }
      if (p.plan.tn > 1) {
        for (int n0 = 0; n0 < l.n; n0 += p.plan.tn)
          want += ceil_div(std::int64_t(std::min(p.plan.tn, l.n - n0)) * l.ho() * l.wo(), hw.rows);
      } else {  // one image per tile, flat row tiles
        for (int y0 = 0; y0 < l.ho(); y0 += p.plan.th)
          want += l.n * ceil_div(std::int64_t(std::min(p.plan.th, l.ho() - y0)) * l.wo(), hw.rows);
      }
      CHECK(contexts == want * p.plan.tiles_c * p.plan.tiles_k);
      const EndToEnd r = run_end_to_end(p, seed * 1000 + std::uint64_t(i), i % 4 == 0 ? 0.3 : 0.0);
      INFO((r.error.empty() ? std::string() : "listing:\n" + p.listing()));
      REQUIRE(r.error == "");
      check_traffic(p);
    }
  }
  fmt::print("packed images: {} programs, {} packed, {} stores of packed rows, {} with a smaller last image tile\n",
             programs, packed, store_packed_rows, edge_tiles);
  CHECK(packed * 2 >= programs);  // the tiny configurations hold two whole images of most layers
  CHECK(store_packed_rows > 0);
  CHECK(edge_tiles > 0);
}

TEST_CASE("packing across images is refused where it cannot run, naming the option", "[compiler][reject][images]") {
  const Config cfg = small_config();
  const auto message = [&](const Layer& l, CompileOptions o) {
    try {
      (void)compile_layer(l, cfg, o);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  Layer l = parse_layer_spec("N=4,C=8,H=5,W=5,K=8,k=1", "test");
  CompileOptions o;
  o.flat_contexts = true;
  o.tile_n = 2;
  CHECK(message(l, o) == "accepted");
  o.order = "spill";
  CHECK_THAT(message(l, o), Catch::Contains("tile_n") && Catch::Contains("spill"));
  o.order = "output_stationary";
  o.flat_contexts = false;
  CHECK_THAT(message(l, o), Catch::Contains("tile_n") && Catch::Contains("flat_contexts"));
  o.flat_contexts = true;
  o.tile_h = 2;
  CHECK_THAT(message(l, o), Catch::Contains("tile_h") && Catch::Contains("whole images"));
  o.tile_h = 0;
  o.tile_n = 5;
  CHECK_THAT(message(l, o), Catch::Contains("tile_n") && Catch::Contains("[1, 4]"));
  Layer k3 = parse_layer_spec("N=4,C=8,H=5,W=5,K=8,k=3", "test");
  o.tile_n = 2;
  CHECK_THAT(message(k3, o), Catch::Contains("tile_n"));
  Layer one = parse_layer_spec("N=1,C=8,H=5,W=5,K=8,k=1", "test");
  o.tile_n = 0;
  CHECK(compile_layer(one, cfg, o).plan.tn == 1);  // nothing to pack
  // A tile too large for the buffers names what does not fit.
  Layer big = parse_layer_spec("N=64,C=64,H=8,W=8,K=8,k=1", "test");
  o.tile_n = 64;
  CHECK_THAT(message(big, o), Catch::Contains("tile_n") && Catch::Contains("the most that fit"));
}
