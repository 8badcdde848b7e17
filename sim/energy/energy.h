// The energy model of flycol: energy per PE MAC step, per SRAM bit accessed and per DRAM byte,
// each a configuration value (keys energy.mac_pj, energy.sram_pj_per_bit, dram.energy_pj_per_byte;
// docs/configuration.md). Used by `flycol net` (whole networks) and by the `energy` section of
// `flycol run` reports. Every constant is here with where it comes from.
#pragma once

#include <cstdint>
#include <string>

#include "sim/config/config.h"
#include "sim/report/json.h"

namespace flycol::energy {

// The paper's chip (Table I): 258 mW while computing at the peak of 284 GFLOP/s at 555 MHz.
inline constexpr double kRefPowerW = 0.258;
inline constexpr double kRefClockHz = 555e6;
inline constexpr int kRefPes = 256;
// The default of energy.sram_pj_per_bit, an ASSUMPTION (not from the paper): 0.05 pJ per bit read
// or written in a 32 kB, 256-bit single-port SRAM in 22 nm, i.e. about 13 pJ per word access.
inline constexpr double kSramPjPerBit = 0.05;
// SRAM bits a MAC cycle of the reference workload (3x3, stride 1, whole-row tiles) accesses: one
// weight word every cycle, two ifmap words per kernel row of three cycles; psum traffic (two words
// per context of hundreds of cycles) is negligible.
inline constexpr double kRefSramBitsPerCycle = 256.0 + 2.0 / 3.0 * 256.0;

// The calibrated pJ per PE per MAC step: the reference power per cycle without its SRAM share
// (at `sram_pj_per_bit`), per PE. Covers the PEs, the feeder, the fetchers and the control logic
// (the paper's 75 % + 7 % + the rest). 1.73 pJ with the default SRAM figure.
double calibrated_mac_pj(double sram_pj_per_bit = kSramPjPerBit);
// pJ per PE per MAC step with the default figures (what `flycol net` used before the model
// became configurable).
double pe_pj_per_step();
// The configuration's pJ per PE per MAC step (energy.mac_pj, or the calibration).
double mac_pj(const Config& cfg);

// A pooling cycle (class `pool`, microarchitecture section 16) clocks the data feeder, the pooling
// unit and the control, not the PE array (operand isolation holds it still). Its core energy is
// this share of a MAC cycle's, an ESTIMATE from the area shares of `flycol synth` on fornt16
// (the feeder's 101,623 and the pooling unit's 87,539 of 1,510,930 NAND2 equivalents of logic;
// the feeder's power share, 6.5 % of logic, tracks its area share, 6.7 %), not a measurement.
inline constexpr double kPoolCycleShare = 0.125;

struct Activity {
  std::uint64_t mac_steps = 0;                  // MAC steps issued (all ROWS x COLS PEs clocked)
  std::uint64_t pool_steps = 0;                 // pooling element steps (kPoolCycleShare of a MAC cycle)
  std::uint64_t sram_words[3] = {0, 0, 0};      // reads + writes: ifmap, weights, psums
  std::uint64_t dram_bytes = 0;
};

struct Estimate {
  double core_j = 0, sram_j = 0, dram_j = 0;
  double total_j() const { return core_j + sram_j + dram_j; }
};

// Not counted: clock and leakage power while the array waits (stalls), the host's work.
Estimate estimate(const Config& cfg, const Activity& a);

// The `energy` section of a run report: the figures used, the activity, the energy per part and
// in total, and the average power over `seconds` of accelerator time. `sram_counted` false leaves
// the SRAM energy out (the model that ran could not count SRAM accesses) and says so.
Json run_json(const Config& cfg, const Activity& a, double seconds, bool sram_counted = true);
// One line for the text summary of a run.
std::string run_text(const Config& cfg, const Activity& a, double seconds, bool sram_counted = true);

}  // namespace flycol::energy
