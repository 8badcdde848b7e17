// The one table of configuration keys. Each key of the YAML schema is declared once here: its
// dotted path, C++ member (through a getter and a setter), type, allowed range, unit, the hardware
// parameter it sets, its sweep label and its one-line documentation. Parsing, validation, equality,
// to_yaml, the hardware parameters (and through them the generated RTL package), the sweep keys and
// the key table of docs/configuration.md are all derived from it. The default of every key is the
// value the built-in configuration (configs/fornt16.yaml) gives it, so defaults are typed once too.
#pragma once

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "hw/common/hw_params.h"
#include "sim/config/config.h"

namespace flycol {

enum class KeyType {
  integer,  // a decimal integer in [int_min, int_max], or accepted by int_rule
  number,   // a decimal number in [num_min, num_max] ((num_min, num_max] if num_min_open), or `word`
  boolean,  // true or false
  choice,   // one of choices()
  name,     // 1 to 64 characters of A-Z a-z 0-9 _ . -
};

// The SRAM port widths a configuration may use (sram.*.word_bits): whole bytes from 64 to 2048
// bits. Not only powers of two: the weight and psum words are one array row or column (cols x
// element bits, rows x accumulator bits), so an array of any size has its words; only the ifmap
// word must hold a power of two of elements (the feeder bus B, config.cpp).
inline constexpr int kSramWordBitsMin = 64, kSramWordBitsMax = 2048, kSramWordBitsStep = 8;
bool is_sram_word_bits(std::int64_t bits);
// "a multiple of 8 from 64 to 2048"
std::string sram_word_bits_text();

// A key's value as the table moves it: integers and booleans (0/1) as int64, numbers as double,
// choices and names as text.
using KeyValue = std::variant<std::int64_t, double, std::string>;

struct ConfigKey {
  const char* path = "";    // YAML path: "feeder.fifo_depth"
  KeyType type = KeyType::integer;
  const char* doc = "";     // one line: what the key means
  const char* unit = "";    // "" when the value has none
  // integer keys: the range, or a rule with its text (then the range is only for documentation)
  std::int64_t int_min = 0, int_max = 0;
  bool (*int_rule)(std::int64_t) = nullptr;
  std::string int_rule_text;
  // number keys
  double num_min = 0, num_max = 0;
  bool num_min_open = false;
  const char* word = nullptr;   // a word accepted instead of a number (stored as word_value)
  double word_value = 0;
  // choice keys: the allowed words, in the order of the enum they map to
  std::vector<std::string> (*choices)() = nullptr;
  const char* hw = "";          // the HwParams field (hw/common/hw_params.h) it sets, "" if none
  const char* sweep_label = ""; // column label in sweep tables ("" = the last path component)
  KeyValue (*get)(const Config&) = nullptr;
  void (*set)(Config&, const KeyValue&) = nullptr;
};

// Every key, in schema order (the order of configs/fornt16.yaml, to_yaml and the docs table).
const std::vector<ConfigKey>& config_keys();
// The key with this dotted path, or nullptr.
const ConfigKey* find_config_key(const std::string& path);
// True when `path` names a key or a section (a proper prefix of keys): "sram", "sram.ifmap".
bool is_config_section(const std::string& path);

// The allowed values of a key as documentation and error text: "[1, 64]", "one of fp16, int8",
// "`calibrated` or [0, 1000]".
std::string allowed_text(const ConfigKey& k);
// A value as YAML text: "16", "true", "fp16", "calibrated", "0.05".
std::string value_text(const ConfigKey& k, const KeyValue& v);
// The sweep column label of a key ("M" for feeder.intermediate_regs, "ifmap_bits", ...).
std::string sweep_label(const ConfigKey& k);

// The hardware parameters of a configuration: the keys with an `hw` field set theirs, the derived
// ones (element and accumulator widths, bus width, SRAM depths) are computed from the keys.
hw::HwParams hardware_params(const Config& c);

// The Markdown key table of docs/configuration.md (between its GENERATED markers), defaults taken
// from the built-in configuration.
std::string config_keys_markdown();

}  // namespace flycol
