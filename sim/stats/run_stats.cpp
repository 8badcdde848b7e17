// RunStats from the hardware counters, and its JSON writer (run_stats.h). Every report's
// statistics keys are spelled here and nowhere else.
#include "sim/stats/run_stats.h"

#include "hw/top/accelerator_core.h"
#include "sim/scsim/layer_sim.h"

namespace flycol {

namespace {

// The counters RunStats takes from the hardware counters under the same name, each once: what
// run_stats copies and accumulate sums.
struct HwCounter {
  std::uint64_t RunStats::*run;
  std::uint64_t hw::AcceleratorStats::*hw;
};
constexpr HwCounter kHwCounters[] = {
    {&RunStats::run_cycles, &hw::AcceleratorStats::run_cycles},
    {&RunStats::dram_stall, &hw::AcceleratorStats::dram_stall},
    {&RunStats::tail, &hw::AcceleratorStats::tail},
    {&RunStats::mac_cycles, &hw::AcceleratorStats::mac_cycles},
    {&RunStats::pool_cycles, &hw::AcceleratorStats::pool_cycles},
    {&RunStats::feeder_stall, &hw::AcceleratorStats::feeder_stall},
    {&RunStats::weight_stall, &hw::AcceleratorStats::weight_stall},
    {&RunStats::context_stall, &hw::AcceleratorStats::context_stall},
    {&RunStats::pipeline, &hw::AcceleratorStats::pipeline},
    {&RunStats::gated_macs, &hw::AcceleratorStats::gated_macs},
};

// The DRAM bytes per tensor, in report order, as DramTraffic and as the DRAM model counts them.
struct DramTensor {
  const char* key;  // under "dram_bytes" in reports
  std::uint64_t DramTraffic::*traffic;
  std::uint64_t DramBytes::*bytes;
};
constexpr DramTensor kDramTensors[] = {
    {"ifmap", &DramTraffic::ifmap, &DramBytes::ifmap},
    {"weights", &DramTraffic::weights, &DramBytes::weights},
    {"psums_in", &DramTraffic::psums_in, &DramBytes::psums_in},
    {"ofmap", &DramTraffic::ofmap, &DramBytes::ofmap},
};

}  // namespace

RunStats run_stats(const hw::AcceleratorStats& st, std::uint64_t cycles, const DramBytes& dram) {
  RunStats s;
  s.cycles = cycles;
  for (const HwCounter& c : kHwCounters) s.*c.run = st.*c.hw;
  for (int i = 0; i < 3; ++i) {
    s.sram_reads[i] = st.sram_reads[i];
    s.sram_writes[i] = st.sram_writes[i];
  }
  s.dram = dram_traffic(dram);
  return s;
}

DramTraffic dram_traffic(const DramBytes& d) {
  DramTraffic t;
  for (const DramTensor& x : kDramTensors) t.*x.traffic = d.*x.bytes;
  return t;
}

void accumulate(RunStats& into, const RunStats& s) {
  into.cycles += s.cycles;
  for (const HwCounter& c : kHwCounters) into.*c.run += s.*c.run;
  for (int i = 0; i < 3; ++i) {
    into.sram_reads[i] += s.sram_reads[i];
    into.sram_writes[i] += s.sram_writes[i];
  }
  for (const DramTensor& x : kDramTensors) into.dram.*x.traffic += s.dram.*x.traffic;
  into.dram_requests += s.dram_requests;
  into.has_cycle_classes = into.has_cycle_classes && s.has_cycle_classes;
  into.has_sram = into.has_sram && s.has_sram;
  into.has_gated_macs = into.has_gated_macs && s.has_gated_macs;
}

energy::Activity energy_activity(const RunStats& s) {
  energy::Activity act;
  act.mac_steps = s.mac_cycles;
  act.pool_steps = s.pool_cycles;
  for (int i = 0; i < 3; ++i) act.sram_words[i] = s.sram_reads[i] + s.sram_writes[i];
  act.dram_bytes = s.dram.total();
  return act;
}

namespace {

// Each cycle class once: its key under "stalls" in the report layout and its top-level key in
// the flat layout of network reports.
struct CycleClass {
  const char* report_key;
  const char* flat_key;
  std::uint64_t RunStats::*member;
};
constexpr CycleClass kStallClasses[] = {
    {"feeder", "feeder_stall", &RunStats::feeder_stall},
    {"weights", "weight_stall", &RunStats::weight_stall},
    {"context_switch", "context_stall", &RunStats::context_stall},
    {"pipeline", "pipeline", &RunStats::pipeline},
    {"dram", "dram_stall", &RunStats::dram_stall},
    {"tail", "tail", &RunStats::tail},
};
constexpr const char* kSramNames[3] = {"ifmap", "weights", "psums"};

void write_dram(Json& db, const DramTraffic& d) {
  for (const DramTensor& x : kDramTensors) db[x.key] = d.*x.traffic;
  db["total"] = d.total();
}

void write_sram(Json& sram, const RunStats& s) {
  for (int i = 0; i < 3; ++i) {
    sram[kSramNames[i]]["reads"] = s.sram_reads[i];
    sram[kSramNames[i]]["writes"] = s.sram_writes[i];
  }
}

Json gated_json(const RunStats& s) { return s.has_gated_macs ? Json(s.gated_macs) : Json(); }

}  // namespace

Json dram_json(const DramTraffic& d) {
  Json j = Json::object();
  write_dram(j, d);
  return j;
}

void write_stats_json(Json& j, const RunStats& s, StatsKeys keys) {
  j["cycles"] = s.cycles;
  if (keys == StatsKeys::report) {
    if (s.has_cycle_classes) {
      Json& stl = j["stalls"];
      for (const CycleClass& c : kStallClasses) stl[c.report_key] = s.*c.member;
      j["mac_cycles"] = s.mac_cycles;
      j["pool_cycles"] = s.pool_cycles;
    }
    j["gated_macs"] = gated_json(s);
    if (s.has_sram) write_sram(j["sram"], s);
    write_dram(j["dram_bytes"], s.dram);
    return;
  }
  if (s.has_cycle_classes) {
    j["mac_cycles"] = s.mac_cycles;
    j["pool_cycles"] = s.pool_cycles;
    for (const CycleClass& c : kStallClasses) j[c.flat_key] = s.*c.member;
  }
  write_dram(j["dram_bytes"], s.dram);
  if (s.has_sram) write_sram(j["sram"], s);
  j["gated_macs"] = gated_json(s);
}

}  // namespace flycol
