// `synth` tests: Yosys on the small and the reference configuration, each block's area held to a
// budget stated here (an area regression, or a flow that loses logic, fails), the analysis held to
// Yosys's own area total. (The power proxy on the small configuration's RTL: tests/paper.)
// When the RTL changes on purpose, rerun `flycol synth` and move the budgets with the reason.
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include <unistd.h>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "sim/config/config.h"
#include "sim/synth/synth.h"

namespace fs = std::filesystem;
using namespace flycol;

namespace {

struct Budget {
  double lo, hi;  // NAND2 equivalents
};

// Budgets: about 5 % above the areas of the flow's first runs (Yosys 0.23, hw/synth/flycol_cells.lib)
// and 20 % below them. ABC's result for a module moves by a few percent when unrelated parts of the
// design change, which the 5 % absorbs; a real regression does not fit. The PE arrays moved with
// operand isolation (issue 17, pe.operand_isolation on in both configurations): fornt16 869,015
// NAND2 eq. (was 787k), small 52,661 (at the top of its old budget). The feeder moved with kernel
// chunks and pixel packing (issue 17: the chunk counter, and per lane the packing comparators and
// the wraps x pack_jump offset): fornt16 100,644 NAND2 eq. (was about 77k), small 16,329. The PE
// arrays moved again with the second reserve bank (issue 17, short contexts: per PE one more AW-bit
// register, a bank flop and the muxes): fornt16 932,791 NAND2 eq. (was 869,015), small 57,924
// (was 52,661). Controller, sequencer and DMA moved with LOAD_IFMAP's pad_value (issue 18: 16 more
// bits in every command register and queue entry, the loaders' pad registers and their
// multiplexers): fornt16 253,127 NAND2 eq. (was 250,090), small 233,844 (just over its old 233,500).
// The pooling unit joined the top (issue 18): its own block, fornt16 87,539 NAND2 eq. (16 lanes
// 64,214 and the framing with the divisors), small 25,857; the partial-sums manager moved with the
// pooling RUN's result port, its channel-major addressing and the pooling total n_c*n_cy*n_cx at
// the start: fornt16 106,857 (was about 101k), small 22,133 (was about 16.6k: the total's
// multipliers weigh more in the small manager). The pool lanes moved with the power-of-two shift
// (issue 18: per lane a 5-level shifter of the dividend, the remainder mask, the log2 encoder and
// the final quotient / remainder multiplexers) and then the radix-4 divider (two more
// subtractors per lane): pooling unit fornt16 111,007 NAND2 eq. (87,539 before both), small
// 32,094 (was 25,857); then the argmax and masked-sum modes of max pooling's backward pass (per
// lane a window position counter, the best position and its subtractor, the pair index compare;
// in the framing the window row and column counters and the padding compares): fornt16 125,254,
// small 36,274.

const std::map<std::string, std::map<std::string, Budget>> kBudgets = {
    {"fornt16",
     {{"pe_array", {746000, 979000}},
      {"feeder", {80500, 106000}},
      {"weight_fetcher", {21500, 28500}},
      {"psum_manager", {85500, 112200}},
      {"pool_unit", {100200, 131500}},
      {"control", {202500, 266000}}}},
    {"small",
     {{"pe_array", {46300, 60800}},
      {"feeder", {13000, 17200}},
      {"weight_fetcher", {8200, 10800}},
      {"psum_manager", {17700, 23250}},
      {"pool_unit", {29000, 38100}},
      {"control", {187000, 245500}}}},
};

// One binary16 pool lane (hw/pool/pool_lane.sv, issue 18; small and fornt16 are both fp16):
// 3,997 NAND2 eq. and 182 flip-flops on fornt16 synthesized alone in its first run, 3,955 inside the
// top (the pooling unit's part pool_unit/lanes over ROWS); 4,918 inside the top with the
// power-of-two shift (183 flip-flops), and 5,417 with the radix-4 divider too (184), 5,458 on small;
// 6,094 with argmax and masked sum (219 flip-flops), 6,115 on small.
constexpr Budget kPoolLane = {4880, 6420};

// Depth budget of the longest path (cells). It was the FP16 FMA's accumulate loop and the index
// counters (84 cells); since the pooling unit joined the top it is the unit's divisor path: the
// window position's last-element compare, the 9 x 9-bit product and the lane's divider load (100
// cells on fornt16, 105 on small); with the power-of-two shift, from the sequencer's step counter
// through the pop, the divisor factors' power-of-two test and the shifter into the lane's
// quotient register (106 cells on fornt16, 100 on small; 100 and 101 with the radix-4 divider;
// 102 and 100 with argmax and masked sum). A registered last flag and a divisor computed a cycle ahead would
// take it back under 90 (issue 18's open work); until then the budget holds it where it is.
constexpr int kMaxDepth = 110;

double yosys_total(const std::string& stat_path) {
  std::ifstream in(stat_path);
  std::string line;
  const std::string key = "Chip area for top module";
  while (std::getline(in, line)) {
    const auto k = line.find(key);
    if (k != std::string::npos) return std::stod(line.substr(line.rfind(':') + 1));
  }
  FAIL("no top-level area in " << stat_path);
  return 0;
}

void check_config(const std::string& name) {
  const Config cfg = load_config_by_name_or_path(name);
  const fs::path work = fs::temp_directory_path() / fmt::format("flycol-synth-test-{}-{}", name, ::getpid());
  synth::SynthOptions opt;
  opt.work_dir = work.string();
  const synth::SynthReport r = synth::synthesize(cfg, opt);
  INFO(r.text());
  for (const auto& [block, b] : kBudgets.at(name)) {
    const synth::BlockReport* br = r.block(block);
    REQUIRE(br);
    INFO(block << ": " << br->figures.area << " NAND2 eq, budget " << b.lo << " .. " << b.hi);
    CHECK(br->figures.area >= b.lo);
    CHECK(br->figures.area <= b.hi);
    CHECK(br->figures.flops > 0);
  }
  // The analysis accounts for every cell Yosys counted.
  CHECK(r.logic_nand2_eq() == Approx(yosys_total((work / "design.stat").string())).epsilon(1e-6));
  // The PE variants ran: the reserve registers and the zero gating cost something, less than the PE.
  const synth::PartReport* res = r.part("pe_array/reserve_registers");
  const synth::PartReport* zg = r.part("pe_array/zero_gating");
  REQUIRE(res);
  REQUIRE(zg);
  CHECK(res->figures.area > 0);
  CHECK(res->figures.flops >= std::uint64_t(cfg.pes()) * std::uint64_t(cfg.acc_bits()));
  CHECK(zg->figures.area > 0);
  CHECK(res->figures.area + zg->figures.area < r.block("pe_array")->figures.area / 4);
  // Timing proxy and macros.
  CHECK(r.critical.depth > 10);
  CHECK(r.critical.depth <= kMaxDepth);
  CHECK(r.loop_cells == 0);
  const std::uint64_t bits = 2 * (std::uint64_t(cfg.ifmap.words()) * cfg.ifmap.word_bits +
                                  std::uint64_t(cfg.weights.words()) * cfg.weights.word_bits +
                                  std::uint64_t(cfg.psums.words()) * cfg.psums.word_bits);
  CHECK(r.sram_bits() == bits);
  // The pooling unit is in the top (no planned block left): ROWS pool lanes, each inside the
  // budget of one lane, and its framing logic.
  CHECK(r.planned.empty());
  const synth::PartReport* lanes = r.part("pool_unit/lanes");
  const synth::PartReport* framing = r.part("pool_unit/framing");
  REQUIRE(lanes);
  REQUIRE(framing);
  const double per_lane = lanes->figures.area / cfg.array.rows;
  INFO("pool lane: " << per_lane << " NAND2 eq on average, budget " << kPoolLane.lo << " .. " << kPoolLane.hi);
  CHECK(per_lane >= kPoolLane.lo);
  CHECK(per_lane <= kPoolLane.hi);
  CHECK(framing->figures.area > 0);
  CHECK(framing->figures.area < lanes->figures.area);
  // The report reads back as the cache does.
  const synth::SynthReport back = synth::SynthReport::from_json_text(r.to_json(true).dump(), "round trip");
  CHECK(back.logic_nand2_eq() == Approx(r.logic_nand2_eq()));
  CHECK(back.instances.size() == r.instances.size());
  CHECK(back.planned.empty());
  std::error_code ec;
  fs::remove_all(work, ec);
}

}  // namespace

// Hidden ([.slow]): the reference configuration's budgets below run by default, this one with the
// `slow` label (synth_flow_test:slow).
TEST_CASE("synthesis of the small configuration stays inside its area budgets", "[synth][.slow]") {
  check_config("small");
}

TEST_CASE("synthesis of the reference configuration stays inside its area budgets", "[synth]") {
  check_config("fornt16");
}
