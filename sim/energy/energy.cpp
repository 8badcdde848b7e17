// The energy model's arithmetic (energy.h has the constants and their sources).
#include "sim/energy/energy.h"

#include <fmt/format.h>

namespace flycol::energy {

double calibrated_mac_pj(double sram_pj_per_bit) {
  const double pj_per_cycle = kRefPowerW / kRefClockHz * 1e12;  // 464.9 pJ
  return (pj_per_cycle - kRefSramBitsPerCycle * sram_pj_per_bit) / kRefPes;
}

double pe_pj_per_step() { return calibrated_mac_pj(kSramPjPerBit); }

double mac_pj(const Config& cfg) {
  return cfg.energy.mac_calibrated() ? calibrated_mac_pj(cfg.energy.sram_pj_per_bit) : cfg.energy.mac_pj;
}

Estimate estimate(const Config& cfg, const Activity& a) {
  Estimate e;
  e.core_j = (double(a.mac_steps) + double(a.pool_steps) * kPoolCycleShare) * cfg.pes() * mac_pj(cfg) * 1e-12;
  const int bits[3] = {cfg.ifmap.word_bits, cfg.weights.word_bits, cfg.psums.word_bits};
  for (int i = 0; i < 3; ++i) e.sram_j += double(a.sram_words[i]) * bits[i] * cfg.energy.sram_pj_per_bit * 1e-12;
  e.dram_j = double(a.dram_bytes) * cfg.dram.energy_pj_per_byte * 1e-12;
  return e;
}

Json run_json(const Config& cfg, const Activity& a, double seconds, bool sram_counted) {
  Activity act = a;
  if (!sram_counted) act.sram_words[0] = act.sram_words[1] = act.sram_words[2] = 0;
  const Estimate e = estimate(cfg, act);
  Json j = Json::object();
  Json& m = j["model"];
  m["mac_pj"] = mac_pj(cfg);
  m["mac_pj_source"] = cfg.energy.mac_calibrated()
                           ? "calibrated: 258 mW at 284 GFLOP/s (the paper's Table I) less the SRAM share"
                           : "energy.mac_pj";
  m["sram_pj_per_bit"] = cfg.energy.sram_pj_per_bit;
  m["dram_pj_per_byte"] = cfg.dram.energy_pj_per_byte;
  Json& ac = j["activity"];
  ac["mac_steps"] = a.mac_steps;
  ac["pe_macs"] = a.mac_steps * std::uint64_t(cfg.pes());
  ac["pool_steps"] = a.pool_steps;
  if (sram_counted) {
    ac["sram_words"]["ifmap"] = a.sram_words[0];
    ac["sram_words"]["weights"] = a.sram_words[1];
    ac["sram_words"]["psums"] = a.sram_words[2];
  } else {
    ac["sram_words"] = nullptr;
  }
  ac["dram_bytes"] = a.dram_bytes;
  j["core_uj"] = e.core_j * 1e6;
  j["sram_uj"] = sram_counted ? Json(e.sram_j * 1e6) : Json(nullptr);
  j["dram_uj"] = e.dram_j * 1e6;
  j["total_uj"] = e.total_j() * 1e6;
  j["average_mw"] = seconds > 0 ? e.total_j() / seconds * 1e3 : 0.0;
  j["chip_average_mw"] = seconds > 0 ? (e.core_j + e.sram_j) / seconds * 1e3 : 0.0;
  if (!sram_counted) j["note"] = "SRAM accesses were not counted by this model: run with --model both or --power";
  return j;
}

std::string run_text(const Config& cfg, const Activity& a, double seconds, bool sram_counted) {
  Activity act = a;
  if (!sram_counted) act.sram_words[0] = act.sram_words[1] = act.sram_words[2] = 0;
  const Estimate e = estimate(cfg, act);
  return fmt::format("  energy       {:.2f} uJ: core {:.2f}, SRAM {}, DRAM {:.2f}; chip {:.0f} mW on average\n",
                     e.total_j() * 1e6, e.core_j * 1e6,
                     sram_counted ? fmt::format("{:.2f}", e.sram_j * 1e6) : std::string("not counted"),
                     e.dram_j * 1e6, seconds > 0 ? (e.core_j + e.sram_j) / seconds * 1e3 : 0.0);
}

}  // namespace flycol::energy
