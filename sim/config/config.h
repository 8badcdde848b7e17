// The accelerator configuration: every value of the design brief's reference table, loaded from
// YAML (configs/*.yaml) or taken from the built-in default, which is configs/fornt16.yaml compiled
// into the binary. Loading validates every key; a bad file raises flycol::InputError naming the
// file, the key and the allowed range.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/numerics/arithmetic.h"

namespace flycol {

struct SramConfig {
  int kbytes = 32;      // capacity of ONE buffer
  int buffers = 2;      // 1 = single buffer, 2 = double buffered
  int word_bits = 256;  // width of the single read/write port
  std::int64_t words() const { return std::int64_t(kbytes) * 1024 * 8 / word_bits; }
};

struct ArrayConfig {
  int rows = 16;  // output pixels along x, one per PE row
  int cols = 16;  // output channels, one per PE column
};

struct FeederConfig {
  int index_counters = 5;     // 3 walk the interest region (x, y, c), 2 move it (x, y); fixed
  int pattern_bits = 64;      // width of the kernel pattern: limits the dilated kernel width
  int intermediate_regs = 3;  // M: elements a feed lane can take from one SRAM word per cycle
  int fifo_depth = 4;         // per-lane FIFO depth, in groups of M elements
};

struct DramConfig {
  std::string type = "lpddr3";
  int bus_bits = 32;
  double mhz = 800.0;             // interface clock
  int transfers_per_clock = 2;    // 2 = DDR
  double latency_ns = 50.0;       // request to first data
  double energy_pj_per_byte = 120.0;
  double bandwidth_gbps() const { return bus_bits / 8.0 * mhz * 1e6 * transfers_per_clock / 1e9; }
};

// The energy model's figures (sim/energy/energy.h). DRAM energy per byte is dram.energy_pj_per_byte.
struct EnergyConfig {
  double mac_pj = -1.0;          // pJ per PE per MAC step; negative: `calibrated` (energy.h)
  double sram_pj_per_bit = 0.05; // pJ per SRAM bit read or written
  bool mac_calibrated() const { return mac_pj < 0; }
};

struct Config {
  std::string name = "fornt16";
  std::string source = "built-in";  // file it came from, for messages and reports
  ArrayConfig array;
  Arithmetic arithmetic = Arithmetic::fp16;
  bool zero_gating = true;
  bool operand_isolation = true;  // pe.operand_isolation
  SramConfig ifmap, weights, psums;
  FeederConfig feeder;
  double clock_mhz = 555.0;
  DramConfig dram;
  EnergyConfig energy;

  int elem_bits() const { return arithmetic_info(arithmetic).elem_bits; }
  int acc_bits() const { return arithmetic_info(arithmetic).acc_bits; }
  int pes() const { return array.rows * array.cols; }
  // Elements on the ifmap SRAM bus: the feeder's B (power of two).
  int bus_elems() const { return ifmap.word_bits / elem_bits(); }
  // Largest dilation a kx-wide kernel can use: (kx - 1) * d + 1 <= pattern_bits.
  int max_dilation(int kx) const { return kx <= 1 ? pattern_limit() : (feeder.pattern_bits - 1) / (kx - 1); }
  int pattern_limit() const { return feeder.pattern_bits; }
  double peak_gflops() const { return 2.0 * pes() * clock_mhz / 1000.0; }
  // DRAM bandwidth in bytes per accelerator clock cycle.
  double dram_bytes_per_cycle() const { return dram.bandwidth_gbps() * 1000.0 / clock_mhz; }
  int dram_latency_cycles() const;
};

// Every configuration value equal; `source` (where it was loaded from) is not compared.
bool operator==(const Config& a, const Config& b);
inline bool operator!=(const Config& a, const Config& b) { return !(a == b); }

// The built-in default: configs/fornt16.yaml as compiled into the binary.
const Config& default_config();
// The text of the built-in default file.
const std::string& default_config_yaml();

// Parses YAML text; keys that the text leaves out keep the built-in default's values. `source`
// names the text in error messages (a file path, or "built-in").
Config parse_config(const std::string& yaml_text, const std::string& source);
// Reads and parses a configuration file. Throws InputError (unreadable file, pathological or
// malformed YAML, unknown key, wrong type, value out of range, inconsistent values).
Config load_config(const std::string& path);

// The directory of shipped configurations: $FLYCOL_CONFIG_DIR if set, else <repository>/configs.
std::string configs_dir();
// The *.yaml files directly in configs_dir() (full paths, sorted); empty if there is none.
std::vector<std::string> list_config_files();
// `what` is a path if it names an existing file or ends in .yaml/.yml, else the name of a file in
// configs_dir() without its extension ("fornt16"). An unknown name raises InputError listing the
// known names.
Config load_config_by_name_or_path(const std::string& what);

// A YAML rendering of every value (what `flycol list --show` and reports embed).
std::string to_yaml(const Config& c);

}  // namespace flycol
