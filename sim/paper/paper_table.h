// The side-by-side of flycol's synthesis and power proxies with the paper's Table I and Fig. 5,
// as the Markdown table between the GENERATED markers of docs/synth.md (written by
// update_doc_section, sim/report/doc_section.h) (`flycol synth
// --update-doc`, scripts/synth_doc). It runs one layer on the Verilated RTL with the power proxy
// at several shares of zero operands to show zero gating, and the same with operand isolation
// the other way.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/config/config.h"
#include "sim/config/layer.h"
#include "sim/energy/energy.h"
#include "sim/power/power.h"
#include "sim/synth/synth.h"

namespace flycol::synth {

struct ZeroRun {
  double zeros = 0;  // share of zero weights and activations
  std::uint64_t cycles = 0;
  double utilization = 0;
  std::uint64_t gated_macs = 0;  // PE MACs the RTL gated
  energy::Activity activity;
  power::PowerReport power;
  bool exact = false;  // outputs bit-exact with the golden model
};

// Runs `layer` on the Verilated RTL of `cfg` with the power proxy. Throws InputError when the
// build has no RTL model for the configuration.
ZeroRun run_zero_point(const Config& cfg, const Layer& layer, std::uint64_t seed, double zeros,
                       const SynthReport& synth);

struct PaperInputs {
  SynthReport synth;
  Config config;
  Layer layer;
  std::uint64_t seed = 1;
  std::vector<ZeroRun> runs;  // the first one with zeros = 0
  // The same configuration with pe.operand_isolation the other way: its synthesis and the same runs
  // (same layer, seed and shares of zeros). No runs: no isolation table.
  SynthReport other_synth;
  std::vector<ZeroRun> other_runs;
};

// `cfg` with pe.operand_isolation the other way (named so that its on-demand RTL is told apart).
Config isolation_twin(const Config& cfg);

// The Markdown that goes between the markers.
std::string paper_markdown(const PaperInputs& in);


}  // namespace flycol::synth
