// `flycol export`: writes the RTL of one configuration as a self-contained package for ASIC and
// FPGA flows (SystemVerilog sources with the generated configuration package, filelist, FuseSoC
// core, Verilog-2005 netlist by Yosys, SDC template, smoke testbench, README, manifest). The
// package appears whole or not at all: it is built in a temporary directory beside the target
// and renamed into place. See docs/export.md.
#pragma once

#include <string>
#include <vector>

#include "sim/config/config.h"
#include "sim/export/manifest.h"

namespace flycol::rtlexport {

struct ExportOptions {
  Config config;
  std::string out_dir;
  // Replace an existing non-empty out_dir. Only an earlier export (a directory holding a flycol
  // manifest.json) is ever replaced; any other non-empty directory is refused even with force.
  bool force = false;
  // Write the netlist flattened (one module) instead of with the hierarchy of the sources.
  bool flatten = false;
  std::string yosys = "yosys";  // name on PATH or path of the Yosys executable
  std::string version;          // flycol's version for the manifest; empty: this library's
};

struct ExportResult {
  std::string dir;
  std::vector<ManifestEntry> files;  // as listed in the manifest
  std::vector<std::string> netlist_modules;
  std::string yosys_version;
  double yosys_seconds = 0;
};

// Throws InputError for a bad --out (exists and is not a directory, not empty without force, not
// an earlier export with force) and std::runtime_error when writing or Yosys fails. In every
// failure case out_dir is left as it was (absent, or with its previous content).
ExportResult export_package(const ExportOptions& opt);

// The version compiled into this library (the CMake project version).
const char* flycol_version();

// Where each exported SystemVerilog file goes, package-relative: "hw/pe/pe.sv" -> "rtl/pe/pe.sv".
std::string package_path_of(const std::string& repo_path);

}  // namespace flycol::rtlexport
