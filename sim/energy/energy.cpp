// The energy estimate's arithmetic (energy.h has the constants and their sources).
#include "sim/energy/energy.h"

namespace flycol::energy {

double pe_pj_per_step() {
  const double pj_per_cycle = kRefPowerW / kRefClockHz * 1e12;  // 464.9 pJ
  return (pj_per_cycle - kRefSramBitsPerCycle * kSramPjPerBit) / kRefPes;
}

Estimate estimate(const Config& cfg, const Activity& a) {
  Estimate e;
  e.core_j = double(a.mac_steps) * cfg.pes() * pe_pj_per_step() * 1e-12;
  const int bits[3] = {cfg.ifmap.word_bits, cfg.weights.word_bits, cfg.psums.word_bits};
  for (int i = 0; i < 3; ++i) e.sram_j += double(a.sram_words[i]) * bits[i] * kSramPjPerBit * 1e-12;
  e.dram_j = double(a.dram_bytes) * cfg.dram.energy_pj_per_byte * 1e-12;
  return e;
}

}  // namespace flycol::energy
