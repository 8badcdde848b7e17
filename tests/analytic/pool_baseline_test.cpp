// The strided-access pooling baseline of the analytic model (analytic::PoolFeed::strided,
// sim/analytic/run_timing.h; docs/networks.md, "Pooling on chip") on layers small enough to count
// by hand: every window step costs one cycle per ifmap word its ROWS lanes' elements touch, and
// reads those words again for the next step, where the data feeder reads each word once per
// region row and shares it among the lanes.
#include <catch2/catch.hpp>

#include "sim/analytic/analytic_model.h"
#include "sim/compiler/pool_compiler.h"
#include "sim/config/config_keys.h"

using namespace flycol;

namespace {

struct Both {
  RunStats feeder, strided;
};

// The one-tile max pooling of a C x H x W map (fornt16: 16 lanes, 16-element SRAM words) on both
// pooling units, with an unlimited DRAM so that only the RUN differs.
Both run_both(int c, int h, int w, int k, int s) {
  const Config& cfg = default_config();
  PoolShape shape;
  shape.op = hw::PoolOp::Max;
  shape.c = c, shape.h = h, shape.w = w;
  shape.ky = shape.kx = k;
  shape.sy = shape.sx = s;
  const Program prog = compile_pool(shape, cfg);
  REQUIRE(prog.plan.tiles_c * prog.plan.tiles_h * prog.plan.tiles_w == 1);
  DramTiming timing = DramTiming::from(cfg);
  timing.bytes_per_cycle = 1e6;
  const hw::HwParams hw = hardware_params(cfg);
  analytic::Model feeder(hw, timing), strided(hw, timing, analytic::PoolFeed::strided);
  return {feeder.run(prog).stats, strided.run(prog).stats};
}

}  // namespace

TEST_CASE("strided pooling baseline: a step costs the words its lanes touch", "[analytic][pool]") {
  const hw::HwParams hw = hardware_params(default_config());
  REQUIRE(hw.rows == 16);
  REQUIRE(hw.bus_elems == 16);

  SECTION("1x1 window, stride 1: the 16 lanes' elements are one word") {
    const Both b = run_both(1, 1, 16, 1, 1);
    CHECK(b.strided.pool_cycles == 1);
    CHECK(b.strided.sram_reads[0] == 1);
    CHECK(b.strided.feeder_stall == 0);
  }
  SECTION("1x1 window, stride 2: lanes 0..7 in word 0, 8..15 in word 1") {
    const Both b = run_both(1, 1, 32, 1, 2);
    CHECK(b.strided.pool_cycles == 1);
    CHECK(b.strided.sram_reads[0] == 2);
    CHECK(b.strided.feeder_stall == 1);
  }
  SECTION("2x2 window, stride 2 (VGG-16's pooling): two words per step, the feeder two per row") {
    const Both b = run_both(1, 2, 32, 2, 2);
    // 4 steps (ky, kx), each touching columns {2r + kx} = two words of its row.
    CHECK(b.strided.pool_cycles == 4);
    CHECK(b.strided.sram_reads[0] == 8);
    CHECK(b.strided.feeder_stall == 4);
    // The data feeder reads each of the two words of a row once for both kx.
    CHECK(b.feeder.pool_cycles == 4);
    CHECK(b.feeder.sram_reads[0] == 4);
  }
  SECTION("3 channels of 3x3 windows, stride 1, on a 3 x 18 map: packed rows, so the words a step touches vary") {
    const Both b = run_both(3, 3, 18, 3, 1);
    // Rows of 18 elements are packed (18 is not a multiple of the word): row j = 3c + ky starts at
    // element 18 j, and step (c, ky, kx) covers elements 18 j + kx .. 18 j + kx + 15. Words touched
    // per row for kx = 0, 1, 2: row 0: 1 2 2; rows 1..6: 2 2 2; row 7 (126..): 2 2 1; row 8 (144..): 1 2 2.
    CHECK(b.strided.pool_cycles == 27);
    CHECK(b.strided.sram_reads[0] == 5 + 6 * 6 + 5 + 5);
    CHECK(b.strided.feeder_stall == 51 - 27);
  }
}
