// RunStats, the one statistics record of a run: its JSON writer (both key layouts), what a model
// does not count, and the conversions from the hardware counters and for the energy model, each
// against values written out here by hand.
#include <catch2/catch.hpp>

#include <cstdint>
#include <string>

#include "hw/top/accelerator_core.h"
#include "sim/scsim/layer_sim.h"
#include "sim/stats/run_stats.h"

using namespace flycol;

namespace {

RunStats hand_filled() {
  RunStats s;
  s.cycles = 1000;
  s.run_cycles = 900;
  s.mac_cycles = 700;
  s.feeder_stall = 60;
  s.weight_stall = 50;
  s.context_stall = 40;
  s.pipeline = 50;
  s.dram_stall = 70;
  s.tail = 30;
  s.gated_macs = 12345;
  s.sram_reads[0] = 11;
  s.sram_reads[1] = 22;
  s.sram_reads[2] = 33;
  s.sram_writes[0] = 1;
  s.sram_writes[1] = 2;
  s.sram_writes[2] = 3;
  s.dram.ifmap = 4096;
  s.dram.weights = 512;
  s.dram.psums_in = 64;
  s.dram.ofmap = 2048;
  s.dram_requests = 99;
  return s;
}

}  // namespace

TEST_CASE("RunStats JSON writer: the report layout, by hand", "[stats]") {
  Json j = Json::object();
  j["model"] = "sc";
  write_stats_json(j, hand_filled());
  CHECK(j.dump(0) ==
        "{\"model\": \"sc\", \"cycles\": 1000, "
        "\"stalls\": {\"feeder\": 60, \"weights\": 50, \"context_switch\": 40, \"pipeline\": 50, \"dram\": 70, "
        "\"tail\": 30}, "
        "\"mac_cycles\": 700, \"pool_cycles\": 0, \"gated_macs\": 12345, "
        "\"sram\": {\"ifmap\": {\"reads\": 11, \"writes\": 1}, \"weights\": {\"reads\": 22, \"writes\": 2}, "
        "\"psums\": {\"reads\": 33, \"writes\": 3}}, "
        "\"dram_bytes\": {\"ifmap\": 4096, \"weights\": 512, \"psums_in\": 64, \"ofmap\": 2048, \"total\": 6720}}");
}

TEST_CASE("RunStats JSON writer: the flat layout of network reports, by hand", "[stats]") {
  Json j = Json::object();
  write_stats_json(j, hand_filled(), StatsKeys::flat);
  CHECK(j.dump(0) ==
        "{\"cycles\": 1000, \"mac_cycles\": 700, \"pool_cycles\": 0, \"feeder_stall\": 60, \"weight_stall\": 50, \"context_stall\": 40, "
        "\"pipeline\": 50, \"dram_stall\": 70, \"tail\": 30, "
        "\"dram_bytes\": {\"ifmap\": 4096, \"weights\": 512, \"psums_in\": 64, \"ofmap\": 2048, \"total\": 6720}, "
        "\"sram\": {\"ifmap\": {\"reads\": 11, \"writes\": 1}, \"weights\": {\"reads\": 22, \"writes\": 2}, "
        "\"psums\": {\"reads\": 33, \"writes\": 3}}, \"gated_macs\": 12345}");
}

TEST_CASE("RunStats JSON writer: what a model does not count is left out or null", "[stats]") {
  RunStats s = hand_filled();
  s.has_cycle_classes = false;
  s.has_sram = false;
  s.has_gated_macs = false;
  Json j = Json::object();
  j["cycles"] = 1;  // a key already there keeps its place and takes the new value
  j["macs"] = 7;
  write_stats_json(j, s);
  CHECK(j.dump(0) ==
        "{\"cycles\": 1000, \"macs\": 7, \"gated_macs\": null, "
        "\"dram_bytes\": {\"ifmap\": 4096, \"weights\": 512, \"psums_in\": 64, \"ofmap\": 2048, \"total\": 6720}}");
}

TEST_CASE("RunStats from the hardware counters and for the energy model, by hand", "[stats]") {
  hw::AcceleratorStats h;
  h.run_cycles = 80;
  h.dram_stall = 7;
  h.tail = 3;
  h.mac_cycles = 50;
  h.feeder_stall = 10;
  h.weight_stall = 9;
  h.context_stall = 8;
  h.pipeline = 3;
  h.mac_tokens = 400;
  h.gated_macs = 21;
  h.feeder_select_stalls = 5;
  for (int i = 0; i < 3; ++i) {
    h.sram_reads[i] = std::uint64_t(100 * (i + 1));
    h.sram_writes[i] = std::uint64_t(10 * (i + 1));
  }
  DramBytes d;
  d.ifmap = 1000;
  d.weights = 200;
  d.psums_in = 30;
  d.ofmap = 4;
  d.total = 1234;
  const RunStats s = run_stats(h, 90, d);
  CHECK(s.cycles == 90);
  CHECK(s.run_cycles == 80);
  CHECK(s.dram_stall == 7);
  CHECK(s.tail == 3);
  CHECK(s.mac_cycles == 50);
  CHECK(s.feeder_stall == 10);
  CHECK(s.weight_stall == 9);
  CHECK(s.context_stall == 8);
  CHECK(s.pipeline == 3);
  CHECK(s.gated_macs == 21);
  CHECK(s.sram_reads[1] == 200);
  CHECK(s.sram_writes[2] == 30);
  CHECK(s.dram.ifmap == 1000);
  CHECK(s.dram.weights == 200);
  CHECK(s.dram.psums_in == 30);
  CHECK(s.dram.ofmap == 4);
  CHECK(s.dram.total() == 1234);
  CHECK(s.has_cycle_classes);
  CHECK(s.has_sram);
  CHECK(s.has_gated_macs);

  const energy::Activity a = energy_activity(s);
  CHECK(a.mac_steps == 50);
  CHECK(a.sram_words[0] == 110);
  CHECK(a.sram_words[1] == 220);
  CHECK(a.sram_words[2] == 330);
  CHECK(a.dram_bytes == 1234);
}
