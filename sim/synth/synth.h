// `flycol synth`: synthesizes the RTL of a configuration with Yosys onto flycol's generic cell
// library and reports, per block of the paper's breakdown and per part, the area in NAND2
// equivalents, its share of the logic, the flip-flops, the logic depth of the longest path (timing
// proxy) and the switched capacitance the power proxy uses; the SRAM macros separately (bits and an
// area estimate per bit). The figures are proxies from open tools, not a place-and-route result;
// docs/synth.md sets them beside the paper's Table I and Fig. 5.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "sim/config/config.h"
#include "sim/report/json.h"
#include "sim/synth/analysis.h"

namespace flycol::synth {

// ASSUMPTION (hw/synth/README.md): area of one SRAM bit with its share of the macro's periphery,
// in NAND2 equivalents, for a 32 kB single-port macro.
inline constexpr double kSramNand2PerBit = 1.2;

struct SynthOptions {
  std::string yosys;           // binary; empty: the one found at build time
  std::string liberty;         // empty: hw/synth/flycol_cells.lib
  std::string work_dir;        // where scripts, logs and netlists go; empty: a temporary directory
  bool keep_work = false;      // keep a temporary work directory
  int timeout_s = 3600;        // per Yosys run
  bool variants = true;        // also the PE variants that measure reserve registers and zero gating,
                               // and the planned blocks (SynthReport::planned)
  double sram_nand2_per_bit = kSramNand2PerBit;
};

struct SramReport {
  std::string name;  // ifmap, weights, psums
  std::uint64_t macros = 0, words = 0, word_bits = 0;
  std::uint64_t bits() const { return macros * words * word_bits; }
};

struct PartReport {
  std::string id, title, note;
  Figures figures;
  PathInfo path;
};

struct BlockReport {
  std::string id, title;
  Figures figures;
  PathInfo path;  // the longest of its parts'
  std::vector<PartReport> parts;
};

// A block built and tested on its own but not yet instantiated in the top (the pooling unit of
// issue 18): one copy synthesized alone, and what the top would gain with `copies` of them.
struct PlannedBlock {
  std::string id, title, note;
  int copies = 0;
  Figures one, all;  // one copy; copies x one
};

struct SynthReport {
  std::string config_name, config_source;
  std::string yosys_version, library;
  std::vector<BlockReport> blocks;
  PathInfo critical;
  std::vector<SramReport> srams;
  double sram_nand2_per_bit = kSramNand2PerBit;
  std::uint64_t pe_instances = 0;
  std::uint64_t loop_cells = 0;
  std::vector<PlannedBlock> planned;         // not in the logic total above (with options.variants)
  double seconds = 0, yosys_seconds = 0;
  std::string cache_key;                     // what the inputs hash to (sources, library, flow)
  std::vector<InstanceRecord> instances;     // for the power proxy (cached, not in user reports)

  double logic_nand2_eq() const;
  std::uint64_t flops() const;
  std::uint64_t sram_bits() const;
  double sram_nand2_eq() const { return double(sram_bits()) * sram_nand2_per_bit; }
  const BlockReport* block(const std::string& id) const;
  const PartReport* part(const std::string& id) const;

  // Keys: config, tool, blocks (id -> nand2_eq, share, flops, depth, parts...), logic_nand2_eq,
  // flops, sram_bits, sram_nand2_eq, total_nand2_eq, critical_path, seconds, planned_blocks (id ->
  // title, note, copies, one, all: figures, share of the logic above); with_instances adds
  // the instance tree (for the cache).
  Json to_json(bool with_instances = false) const;
  // Reads what to_json(true) wrote. Throws InputError (source) when it cannot.
  static SynthReport from_json_text(const std::string& text, const std::string& source);
  std::string text() const;
};

// Runs Yosys (the main run and, with options.variants, the PE variants) and analyzes the
// netlists. Throws InputError for a bad configuration and std::runtime_error (with the end of the
// Yosys log) when Yosys fails.
SynthReport synthesize(const Config& cfg, const SynthOptions& options = {});

// A key for what synthesize() would read: RTL sources, the configuration package, the cell
// library, the script template and the Yosys version.
std::string synth_cache_key(const Config& cfg, const SynthOptions& options = {});
// The report for `cfg` from the cache directory if there is one for the current key, else runs
// synthesize() and stores it there. `ran` tells which happened.
// `note` hears what is happening when synthesis has to run (it takes minutes).
SynthReport synthesize_cached(const Config& cfg, const std::string& cache_dir, bool* ran = nullptr,
                              const SynthOptions& options = {},
                              const std::function<void(const std::string&)>& note = {});
// The default cache directory: $FLYCOL_SYNTH_CACHE, else <build directory>/synth-cache.
std::string default_cache_dir();

// The RTL the build registered (flycol_rtl_sources() in CMake), in dependency order, and the
// command-format package; generated at configure time.
const std::vector<std::string>& rtl_sources();
const std::string& rtl_package();

}  // namespace flycol::synth
