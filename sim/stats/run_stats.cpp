// RunStats from the hardware counters, and its JSON writer (run_stats.h). Every report's
// statistics keys are spelled here and nowhere else.
#include "sim/stats/run_stats.h"

#include "hw/top/accelerator_core.h"
#include "sim/scsim/layer_sim.h"

namespace flycol {

RunStats run_stats(const hw::AcceleratorStats& st, std::uint64_t cycles, const DramBytes& dram) {
  RunStats s;
  s.cycles = cycles;
  s.run_cycles = st.run_cycles;
  s.dram_stall = st.dram_stall;
  s.tail = st.tail;
  s.mac_cycles = st.mac_cycles;
  s.feeder_stall = st.feeder_stall;
  s.weight_stall = st.weight_stall;
  s.context_stall = st.context_stall;
  s.pipeline = st.pipeline;
  s.gated_macs = st.gated_macs;
  for (int i = 0; i < 3; ++i) {
    s.sram_reads[i] = st.sram_reads[i];
    s.sram_writes[i] = st.sram_writes[i];
  }
  s.dram = dram_traffic(dram);
  return s;
}

DramTraffic dram_traffic(const DramBytes& d) {
  DramTraffic t;
  t.ifmap = d.ifmap;
  t.weights = d.weights;
  t.psums_in = d.psums_in;
  t.ofmap = d.ofmap;
  return t;
}

void accumulate(RunStats& into, const RunStats& s) {
  into.cycles += s.cycles;
  into.run_cycles += s.run_cycles;
  into.dram_stall += s.dram_stall;
  into.tail += s.tail;
  into.mac_cycles += s.mac_cycles;
  into.feeder_stall += s.feeder_stall;
  into.weight_stall += s.weight_stall;
  into.context_stall += s.context_stall;
  into.pipeline += s.pipeline;
  into.gated_macs += s.gated_macs;
  for (int i = 0; i < 3; ++i) {
    into.sram_reads[i] += s.sram_reads[i];
    into.sram_writes[i] += s.sram_writes[i];
  }
  into.dram.ifmap += s.dram.ifmap;
  into.dram.weights += s.dram.weights;
  into.dram.psums_in += s.dram.psums_in;
  into.dram.ofmap += s.dram.ofmap;
  into.dram_requests += s.dram_requests;
  into.has_cycle_classes = into.has_cycle_classes && s.has_cycle_classes;
  into.has_sram = into.has_sram && s.has_sram;
  into.has_gated_macs = into.has_gated_macs && s.has_gated_macs;
}

energy::Activity energy_activity(const RunStats& s) {
  energy::Activity act;
  act.mac_steps = s.mac_cycles;
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
  db["ifmap"] = d.ifmap;
  db["weights"] = d.weights;
  db["psums_in"] = d.psums_in;
  db["ofmap"] = d.ofmap;
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

void write_stats_json(Json& j, const RunStats& s, StatsKeys keys) {
  j["cycles"] = s.cycles;
  if (keys == StatsKeys::report) {
    if (s.has_cycle_classes) {
      Json& stl = j["stalls"];
      for (const CycleClass& c : kStallClasses) stl[c.report_key] = s.*c.member;
      j["mac_cycles"] = s.mac_cycles;
    }
    j["gated_macs"] = gated_json(s);
    if (s.has_sram) write_sram(j["sram"], s);
    write_dram(j["dram_bytes"], s.dram);
    return;
  }
  if (s.has_cycle_classes) {
    j["mac_cycles"] = s.mac_cycles;
    for (const CycleClass& c : kStallClasses) j[c.flat_key] = s.*c.member;
  }
  write_dram(j["dram_bytes"], s.dram);
  if (s.has_sram) write_sram(j["sram"], s);
  j["gated_macs"] = gated_json(s);
}

}  // namespace flycol
