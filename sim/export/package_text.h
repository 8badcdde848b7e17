// The generated text files of an exported package: the filelist, the FuseSoC core, the SDC
// template, the smoke testbench and the README. Pure functions of the package description, so
// the tests can check them without running Yosys.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "sim/config/config.h"
#include "sim/export/netlist.h"

namespace flycol::rtlexport {

// One port of flycol_top: as declared in flycol_top.sv (group, comment) with the width Yosys
// elaborated for the configuration.
struct TopPort {
  std::string name;
  bool input = true;
  int width = 1;
  std::string group;    // the comment line that opens its group in flycol_top.sv, e.g. "Command port (section 5)"
  std::string meaning;  // its trailing comment
  std::string sv_type;  // its declared type, e.g. "flycol_pkg::command_t", "logic [BeatBits-1:0]"
};

// The ports declared in `top_sv` (flycol_top.sv), with the widths of `elaborated` (the netlist).
// Throws std::runtime_error if the two lists do not name the same ports.
std::vector<TopPort> top_ports(std::string_view top_sv, const std::vector<NetlistPort>& elaborated);

// The opcodes of the command format as (name, value), from the text of flycol_pkg.sv.
std::vector<std::pair<std::string, int>> opcodes(std::string_view flycol_pkg_sv);

struct PackageInfo {
  Config config;
  std::string version;                 // flycol's
  std::string yosys_version;           // "Yosys 0.23 (git sha1 ...)"
  std::vector<std::string> sv_files;   // package-relative, dependency order, packages first
  std::vector<std::string> include_dirs;  // package-relative +incdir directories (rtl/common)
  std::vector<std::string> headers;    // package-relative `include files (rtl/common/flycol_assert.svh)
  std::vector<TopPort> ports;
  std::vector<std::string> netlist_modules;  // module names in the netlist (flycol_top last)
  bool flattened = false;              // the netlist is the one module flycol_top
  std::string flycol_pkg_sv;           // the text of the command-format package
};

// Paths of the fixed files, relative to the package root.
inline constexpr const char* kFilelist = "flycol_top.f";
inline constexpr const char* kCoreFile = "flycol_top.core";
inline constexpr const char* kNetlist = "netlist/flycol_top.v";
inline constexpr const char* kYosysScript = "netlist/flycol_top.ys";
inline constexpr const char* kSdc = "constraints/flycol_top.sdc";
inline constexpr const char* kSmokeTb = "tb/flycol_top_smoke_tb.v";
inline constexpr const char* kConfigYaml = "config.yaml";
inline constexpr const char* kReadme = "README.md";
inline constexpr const char* kManifest = "manifest.json";

std::string filelist_text(const PackageInfo& p);
std::string fusesoc_core_text(const PackageInfo& p);
std::string sdc_text(const PackageInfo& p);
std::string smoke_tb_text(const PackageInfo& p);
std::string readme_text(const PackageInfo& p);

// The clock period of the configuration in ns, as written to the SDC (3 decimals).
std::string clock_period_ns(const Config& c);

}  // namespace flycol::rtlexport
