// The arithmetic choices of the PE array (operand and accumulator formats), registered by name in
// one place. Below both the hardware models (hw/) and the host libraries (sim/): the hardware
// parameters carry an Arithmetic, the configuration parser reads one by name.
#pragma once

#include <string>
#include <vector>

namespace flycol {

enum class Arithmetic { fp16, int8, int16 };

// Element and accumulator widths of an arithmetic choice.
struct ArithmeticInfo {
  const char* name;
  int elem_bits;  // operand width in SRAM and on the feeder buses
  int acc_bits;   // accumulator / partial-sum width
  const char* description;  // one line, for docs and --help
};
const ArithmeticInfo& arithmetic_info(Arithmetic a);
// Registered arithmetic names in enum order, for parsing, --help and `flycol list`.
std::vector<std::string> arithmetic_names();

}  // namespace flycol
