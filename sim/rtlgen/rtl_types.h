// The types shared by the C++ models and the RTL, defined once as field tables: the generated
// SystemVerilog packages (flycol_pkg.sv: command format and the configuration type cfg_t;
// flycol_cfg_pkg.sv: one configuration's values) and the bit packing of commands for the
// Verilated model both come from these tables, so no field or width is typed twice.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "hw/common/command.h"
#include "sim/config/config.h"

namespace flycol::rtl {

// Packed-struct layout: fields in declaration order, the first one in the most significant bits.
struct FieldLayout {
  std::string name;
  int bits;
  std::string comment;
};

const std::vector<FieldLayout>& config_fields();
const std::vector<FieldLayout>& command_fields();
int command_bits();
int config_bits();

// The values of the fields above, in the same order.
std::vector<std::uint64_t> config_values(const Config& c);
std::vector<std::uint64_t> command_values(const hw::Command& c);

// Packs field values into 32-bit words, least significant word first (Verilator's VlWide order):
// bit 0 is the last field's bit 0.
std::vector<std::uint32_t> pack(const std::vector<FieldLayout>& layout, const std::vector<std::uint64_t>& values);
inline std::vector<std::uint32_t> pack_command(const hw::Command& c) { return pack(command_fields(), command_values(c)); }

// hw/common/flycol_pkg.sv: opcodes, command_t and the constants of the command format. The file
// in the repository is this output (a unit test keeps them equal).
std::string generate_flycol_pkg();
// flycol_cfg_pkg.sv: the configuration `Cfg` (of type flycol_pkg::cfg_t) every module takes as its parameter.
std::string generate_cfg_pkg(const Config& c);

}  // namespace flycol::rtl
