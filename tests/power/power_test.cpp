// Unit tests of the power proxy (sim/power): the VCD toggle counter (toggles, changes, ones, any
// split of the stream) and the proxy's placement of signals and its arithmetic on a hand-made
// synthesis report, with every expected figure worked out in the comments.
#include <string>

#include <catch2/catch.hpp>

#include "sim/power/power.h"
#include "sim/power/toggle_counter.h"
#include "sim/synth/block_map.h"

using namespace flycol;

namespace {

// TOP and the top module; a feed register of the array (4 bits, code #) that a PE reads as a_i;
// the PE's accumulator (#$) and reserve register (%); an SRAM bank's request (&) and its
// internal read register ('); a parameter (") and the clock (!).
const char* kVcd = R"($version test $end
$timescale 1ps $end
 $scope module flycol_top $end
  $var wire  1 ! clk_i $end
  $scope module flycol_top $end
   $var wire  1 ! clk_i $end
   $var wire 32 " Rows [31:0] $end
   $scope module gen_buffers[0] $end
    $scope module u_ifmap $end
     $var wire  1 & req_i $end
     $var wire  1 ' rdata_q $end
    $upscope $end
   $upscope $end
   $scope module u_array $end
    $scope module gen_row_feed[1] $end
     $var wire  4 # a_q [3:0] $end
    $upscope $end
    $scope module gen_pe_row[0] $end
     $scope module gen_pe_col[0] $end
      $scope module u_pe $end
       $var wire  4 # a_i [3:0] $end
       $var wire  4 $ acc_q [3:0] $end
       $var wire  2 % res_q [1:0] $end
      $upscope $end
     $upscope $end
    $upscope $end
   $upscope $end
  $upscope $end
 $upscope $end
$enddefinitions $end
#0
0!
b00000000000000000000000000010000 "
0&
0'
b0000 #
b0000 $
b00 %
#1
b1111 #
b0001 $
1&
#2
b0011 $
b01 %
#3
0&
)";

synth::SynthReport report() {
  const synth::BlockMap& m = synth::BlockMap::standard();
  synth::SynthReport r;
  for (const auto& bi : m.blocks()) {
    synth::BlockReport b;
    b.id = bi.id;
    b.title = bi.title;
    for (const auto& pi : m.parts()) {
      if (synth::BlockMap::block_of(pi.id) != bi.id) continue;
      synth::PartReport p{pi.id, pi.title, pi.note, {}, {}};
      if (pi.id == "pe_array/pe_registers") p.figures = {0, 100, 10, 0, 10};
      if (pi.id == "pe_array/reserve_registers") p.figures = {0, 20, 2, 0, 2};
      if (pi.id == "feeder/feed_registers") p.figures = {0, 50, 5, 0, 5};
      b.figures += p.figures;
      b.parts.push_back(p);
    }
    r.blocks.push_back(b);
  }
  r.instances = {{"", "flycol_top", "control/top_glue"},
                 {"u_array", "array", "pe_array/array_edge"},
                 {"u_array.gen_pe_row[0].gen_pe_col[0].u_pe", "pe", "pe_array/pe_registers"},
                 {"gen_buffers[0].u_ifmap", "sram_bank", ""}};
  return r;
}

const power::TracedSignal& by_name(const power::VcdToggleCounter& c, const std::string& suffix) {
  for (const auto& s : c.signals())
    for (const auto& n : s.names)
      if (n.size() >= suffix.size() && n.compare(n.size() - suffix.size(), suffix.size(), suffix) == 0) return s;
  FAIL("no signal " << suffix);
  throw std::logic_error("unreachable");
}

}  // namespace

TEST_CASE("the toggle counter: bits changed, samples changed, samples at one", "[power]") {
  power::VcdToggleCounter c;
  c.feed(kVcd, std::char_traits<char>::length(kVcd));
  c.finish();
  CHECK(c.samples() == 4);
  CHECK(c.signals().size() == 7);
  const auto& feed = by_name(c, "gen_row_feed[1].a_q");
  CHECK(feed.names.size() == 2);  // a_q and the PE's a_i share the code
  CHECK(feed.toggles == 4);
  CHECK(feed.changes == 1);
  const auto& acc = by_name(c, "acc_q");
  CHECK(acc.toggles == 2);  // 0000 -> 0001 -> 0011
  CHECK(acc.changes == 2);
  const auto& req = by_name(c, "u_ifmap.req_i");
  CHECK(req.toggles == 2);
  CHECK(req.ones == 2);  // samples #1 and #2
  CHECK(by_name(c, "Rows").toggles == 0);
}

TEST_CASE("the toggle counter does not care how the stream is split", "[power]") {
  const std::string text = kVcd;
  for (std::size_t chunk : {1u, 3u, 7u, 64u}) {
    power::VcdToggleCounter c;
    for (std::size_t i = 0; i < text.size(); i += chunk) c.feed(text.data() + i, std::min(chunk, text.size() - i));
    c.finish();
    INFO(chunk);
    CHECK(c.samples() == 4);
    CHECK(by_name(c, "acc_q").toggles == 2);
    CHECK(by_name(c, "gen_row_feed[1].a_q").toggles == 4);
  }
}

TEST_CASE("the power proxy: placement, activity, clock duty, shares", "[power]") {
  power::VcdToggleCounter c;
  c.feed(kVcd, std::char_traits<char>::length(kVcd));
  c.finish();
  const power::PowerReport p = power::power_proxy(c, report());
  CHECK(p.cycles == 3);
  // The feed register's name wins over the PE's input name: feeder/feed_registers, 4 bits, 4
  // toggles in 3 cycles, changed in 1 of them: activity 1/3, duty 1/3. Switching 1/2 x 1/3 x 50;
  // clock (5 pins + 5 flops x 3 internal) x 1/3.
  const power::PartPower* feed = p.part("feeder/feed_registers");
  REQUIRE(feed);
  CHECK(feed->signal_bits == 4);
  CHECK(feed->activity == Approx(1.0 / 3));
  CHECK(feed->clock_duty == Approx(1.0 / 3));
  CHECK(feed->switching == Approx(50.0 / 6));
  CHECK(feed->clock == Approx(20.0 / 3));
  CHECK(feed->clock_ungated == Approx(20.0));
  // acc_q: 2 toggles of 4 bits in 3 cycles, changed in 2: switching 1/2 x 1/6 x 100, clock 40 x 2/3.
  const power::PartPower* pe = p.part("pe_array/pe_registers");
  CHECK(pe->activity == Approx(1.0 / 6));
  CHECK(pe->total() == Approx(100.0 / 12 + 80.0 / 3));
  // res_q: 1 toggle of 2 bits: switching 1/2 x 1/6 x 20, clock 8 x 1/3.
  const power::PartPower* res = p.part("pe_array/reserve_registers");
  CHECK(res->total() == Approx(20.0 / 12 + 8.0 / 3));
  CHECK(p.block("pe_array")->total() == Approx(100.0 / 12 + 80.0 / 3 + 20.0 / 12 + 8.0 / 3));
  CHECK(p.logic_total() == Approx(50.0 / 6 + 20.0 / 3 + 100.0 / 12 + 80.0 / 3 + 20.0 / 12 + 8.0 / 3));
  // The SRAM request counts accesses (2 cycles at one); it is a net of the top's glue.
  CHECK(p.sram_counted);
  CHECK(p.sram_reads[0] == 2);
  CHECK(p.part("control/top_glue")->signal_bits == 1);
  // Not placed: the parameter, the macro's insides, the clock.
  CHECK(p.unplaced_bits == 32 + 1 + 1);
  const Json j = power::power_json(p, 0.1);
  CHECK(j.dump().find("\"share_of_chip\"") != std::string::npos);
}
