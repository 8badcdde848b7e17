// What `flycol synth` measures on the mapped netlist: per part of the block map, the area in
// NAND2 equivalents, the cells, the flip-flops and the switched capacitance (data and clock pins,
// from the cell library); per part the logic depth of the longest path that ends in one of its
// registers (the timing proxy); the SRAM macros; and the instance tree the power proxy uses to
// place RTL signals. The hierarchy is kept by synthesis and expanded here: a module synthesized
// once counts once per instance.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/synth/block_map.h"
#include "sim/synth/liberty.h"
#include "sim/synth/netlist.h"

namespace flycol::synth {

struct Figures {
  double area = 0;       // NAND2 equivalents
  double data_cap = 0;   // input pin capacitance, clock pins excluded (units of one INV input)
  double clock_cap = 0;  // clock pin capacitance of the flip-flops
  std::uint64_t cells = 0, flops = 0;
  Figures& operator+=(const Figures& o);
  Figures& operator-=(const Figures& o);
  Figures scaled(double k) const;
};

struct PathInfo {
  int depth = -1;     // cells on the path; -1: no register of the part is reached by logic
  std::string start;  // register, macro pin or input the path starts from (hierarchical)
  std::string end;    // register or pin it ends at
};

struct InstanceRecord {
  std::string path;    // "u_array.gen_pe_row[0].gen_pe_col[0].u_pe" ("" for the top)
  std::string module;  // base module name
  std::string part;    // part of its own cells
};

struct MacroRecord {
  std::string path;    // instance path
  std::string module;  // base name (sram_bank)
};

struct Analysis {
  std::vector<Figures> parts;       // indexed like BlockMap::parts()
  std::vector<PathInfo> part_paths;  // longest path ending in each part's registers
  PathInfo critical;                 // longest register-to-register (or pin) path of the design
  std::vector<MacroRecord> macros;
  std::vector<InstanceRecord> instances;
  std::uint64_t loop_cells = 0;  // combinational cells on loops (should be 0)
  Figures total() const;
  std::uint64_t instances_of(const std::string& module) const;
};

// The analysis of the whole design below the netlist's top. Cell types that are neither in the
// library nor modules of the netlist, and blackbox modules, are macros. Throws InputError for a
// library cell whose output pin cannot be told (one output per cell is required).
Analysis analyze(const Netlist& nl, const CellLibrary& lib, const BlockMap& map);

// Area and capacitance of one module's own library cells (no submodules, no macros).
Figures own_figures(const NetlistModule& m, const CellLibrary& lib);

}  // namespace flycol::synth
