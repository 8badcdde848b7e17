// A small energy estimate for `flycol net` (a fuller energy model is planned separately): PE
// energy per MAC step calibrated on the paper's chip, SRAM energy per bit accessed, DRAM energy
// per byte from the configuration. Every constant is here with where it comes from.
#pragma once

#include <cstdint>

#include "sim/config/config.h"

namespace flycol::energy {

// The paper's chip (Table I): 258 mW while computing at the peak of 284 GFLOP/s at 555 MHz.
inline constexpr double kRefPowerW = 0.258;
inline constexpr double kRefClockHz = 555e6;
inline constexpr int kRefPes = 256;
// ASSUMPTION (not from the paper): 0.05 pJ per bit read or written in a 32 kB, 256-bit single-port
// SRAM in 22 nm, i.e. about 13 pJ per word access.
inline constexpr double kSramPjPerBit = 0.05;
// SRAM bits a MAC cycle of the reference workload (3x3, stride 1, whole-row tiles) accesses: one
// weight word every cycle, two ifmap words per kernel row of three cycles; psum traffic (two words
// per context of hundreds of cycles) is negligible.
inline constexpr double kRefSramBitsPerCycle = 256.0 + 2.0 / 3.0 * 256.0;

// pJ per PE per MAC step: the reference power per cycle without its SRAM share, per PE. Covers
// the PEs, the feeder, the fetchers and the control logic (the paper's 75 % + 7 % + the rest).
double pe_pj_per_step();

struct Activity {
  std::uint64_t mac_steps = 0;                  // MAC steps issued (all ROWS x COLS PEs clocked)
  std::uint64_t sram_words[3] = {0, 0, 0};      // reads + writes: ifmap, weights, psums
  std::uint64_t dram_bytes = 0;
};

struct Estimate {
  double core_j = 0, sram_j = 0, dram_j = 0;
  double total_j() const { return core_j + sram_j + dram_j; }
};

// Not counted: clock and leakage power while the array waits (stalls), the host's work.
Estimate estimate(const Config& cfg, const Activity& a);

}  // namespace flycol::energy
