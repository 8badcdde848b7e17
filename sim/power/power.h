// The dynamic power proxy of `flycol run --model rtl --power`: the RTL's toggles per part of the
// block map (toggle_counter.h, placed with the synthesized instance tree) weighted by the part's
// synthesized capacitance (synth.h). Per part and cycle, in units of (inverter input capacitance)
// x Vdd^2:
//   switching = 1/2 x activity x data capacitance
//   clock     = flip-flops x (clock pin + internal clock load) x clock duty
// where activity is the part's toggles per signal bit per cycle over every RTL signal of the part
// (registers and the combinational signals the RTL names), and the clock duty is the share of
// cycles in which the part's registers (the RTL's x_q signals) change: ideal clock gating, which a
// low-power flow approximates by gating registers with an enable. The ungated clock (duty 1) is
// reported beside it. Relative figures only: shares of the logic's dynamic power, and of the chip
// with the SRAM macros' share from the energy model (energy.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/power/toggle_counter.h"
#include "sim/report/json.h"
#include "sim/synth/synth.h"

namespace flycol::power {

// ASSUMPTION (hw/synth/README.md): a flip-flop's clock switches its internal clock inverters and
// transmission gates every cycle, about three inverter inputs beyond its clock pin.
inline constexpr double kFlopInternalClockCap = 3.0;

struct PartPower {
  std::string id, title;
  std::uint64_t signal_bits = 0;  // RTL signal bits placed in the part
  std::uint64_t toggles = 0;
  double activity = 0;            // toggles per bit per cycle
  std::uint64_t register_bits = 0;  // of those, register (x_q) bits
  double clock_duty = 1;          // share of cycles the registers change (ideal clock gating)
  double switching = 0, clock = 0;  // per cycle, units of C_inv x Vdd^2
  double clock_ungated = 0;       // the clock without gating
  double total() const { return switching + clock; }
};

struct BlockPower {
  std::string id, title;
  double switching = 0, clock = 0, clock_ungated = 0;
  double total() const { return switching + clock; }
  double total_ungated() const { return switching + clock_ungated; }
  std::vector<PartPower> parts;
};

struct PowerReport {
  std::uint64_t cycles = 0;  // samples the activity was measured over
  std::vector<BlockPower> blocks;
  std::uint64_t unplaced_bits = 0;  // signal bits no part took (macros' internals, packages, loops)
  // SRAM accesses seen in the run (bank requests per cycle), by SRAM: ifmap, weights, psums.
  std::uint64_t sram_reads[3] = {0, 0, 0}, sram_writes[3] = {0, 0, 0};
  bool sram_counted = false;
  double logic_total() const;
  double logic_total_ungated() const;
  const BlockPower* block(const std::string& id) const;
  const PartPower* part(const std::string& id) const;
};

// Places the counted signals in the parts of `synth` and computes the proxy.
PowerReport power_proxy(const VcdToggleCounter& toggles, const synth::SynthReport& synth);

// `sram_share`: the SRAM macros' share of the chip's dynamic power (from the energy model), used
// for the "of the chip" shares; pass 0 to leave it out.
Json power_json(const PowerReport& p, double sram_share);
std::string power_text(const PowerReport& p, double sram_share);

}  // namespace flycol::power
