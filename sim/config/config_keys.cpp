// The configuration key table (config_keys.h) and what is derived from it without parsing: value
// text, allowed-range text, sweep labels, the hardware parameters and the docs table.
#include "sim/config/config_keys.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <utility>

#include <fmt/format.h>

#include "sim/common/find_by.h"
#include "sim/common/text.h"

namespace flycol {

namespace {

bool is_five(std::int64_t n) { return n == 5; }
bool is_dram_bus_bits(std::int64_t n) { return n >= 8 && n <= 4096 && n % 8 == 0; }

std::vector<std::string> dram_types() { return {"lpddr3", "lpddr4", "ddr4", "hbm2", "custom"}; }

// Getter and setter of a member expression of Config (`c.member`), moved as int64 / double / text.
#define FLYCOL_INT_MEMBER(member)                                                        \
  [](const Config& c) -> KeyValue { return std::int64_t(c.member); },                   \
      [](Config& c, const KeyValue& v) { c.member = decltype(c.member)(std::get<std::int64_t>(v)); }
#define FLYCOL_NUMBER_MEMBER(member)                                  \
  [](const Config& c) -> KeyValue { return double(c.member); },       \
      [](Config& c, const KeyValue& v) { c.member = std::get<double>(v); }
#define FLYCOL_TEXT_MEMBER(member)                                    \
  [](const Config& c) -> KeyValue { return c.member; },               \
      [](Config& c, const KeyValue& v) { c.member = std::get<std::string>(v); }

// What every key has; the getter and setter (the FLYCOL_*_MEMBER macros give both) may be set
// later by a key that needs its own.
ConfigKey make_key(const char* path, KeyType type, const char* doc, const char* unit, const char* label = "",
                   KeyValue (*get)(const Config&) = nullptr, void (*set)(Config&, const KeyValue&) = nullptr) {
  ConfigKey k;
  k.path = path;
  k.type = type;
  k.doc = doc;
  k.unit = unit;
  k.sweep_label = label;
  k.get = get;
  k.set = set;
  return k;
}

ConfigKey int_key(const char* path, const char* doc, const char* unit, std::int64_t lo, std::int64_t hi,
                  const char* hw, const char* label, KeyValue (*get)(const Config&),
                  void (*set)(Config&, const KeyValue&)) {
  ConfigKey k = make_key(path, KeyType::integer, doc, unit, label, get, set);
  k.int_min = lo;
  k.int_max = hi;
  k.hw = hw;
  return k;
}

ConfigKey rule_key(const char* path, const char* doc, const char* unit, bool (*rule)(std::int64_t),
                   std::string rule_text, const char* hw, const char* label, KeyValue (*get)(const Config&),
                   void (*set)(Config&, const KeyValue&)) {
  ConfigKey k = int_key(path, doc, unit, 0, 0, hw, label, get, set);
  k.int_rule = rule;
  k.int_rule_text = std::move(rule_text);
  return k;
}

ConfigKey number_key(const char* path, const char* doc, const char* unit, double lo, bool lo_open, double hi,
                     const char* label, KeyValue (*get)(const Config&), void (*set)(Config&, const KeyValue&)) {
  ConfigKey k = make_key(path, KeyType::number, doc, unit, label, get, set);
  k.num_min = lo;
  k.num_min_open = lo_open;
  k.num_max = hi;
  return k;
}

// The three keys of one SRAM section (`w` is both the YAML name and the Config member).
#define FLYCOL_SRAM_KEYS(w, hw_buffers)                                                                  \
  keys.push_back(int_key("sram." #w ".kbytes", "capacity of one " #w " buffer, in kB (1024 bytes)", "kB", 1, \
                         4096, "", #w "_kB", FLYCOL_INT_MEMBER(w.kbytes)));                                 \
  keys.push_back(int_key("sram." #w ".buffers", "1 = single buffer, 2 = double buffered", "", 1, 2,        \
                         hw_buffers, #w "_buffers", FLYCOL_INT_MEMBER(w.buffers)));                          \
  keys.push_back(rule_key("sram." #w ".word_bits", "width of the " #w " SRAM's single read/write port",     \
                          "bits", is_sram_word_bits, sram_word_bits_text(), "", #w "_bits",  \
                          FLYCOL_INT_MEMBER(w.word_bits)))

std::vector<ConfigKey> build_table() {
  std::vector<ConfigKey> keys;
  keys.push_back(make_key("name", KeyType::name, "name used in reports", "", "", FLYCOL_TEXT_MEMBER(name)));

  keys.push_back(int_key("array.rows", "PE rows: consecutive output pixels along x", "", 1, 64, "rows", "rows",
                         FLYCOL_INT_MEMBER(array.rows)));
  keys.push_back(int_key("array.cols", "PE columns: output channels", "", 1, 64, "cols", "cols",
                         FLYCOL_INT_MEMBER(array.cols)));

  ConfigKey arith = make_key("arithmetic", KeyType::choice, "operand and accumulator format", "");
  arith.choices = arithmetic_names;
  arith.hw = "arithmetic";
  arith.get = [](const Config& c) -> KeyValue { return std::string(arithmetic_info(c.arithmetic).name); };
  arith.set = [](Config& c, const KeyValue& v) {
    const auto names = arithmetic_names();
    c.arithmetic = static_cast<Arithmetic>(std::find(names.begin(), names.end(), std::get<std::string>(v)) -
                                           names.begin());
  };
  keys.push_back(arith);

  ConfigKey gating = make_key("pe.zero_gating", KeyType::boolean, "a zero operand skips the MAC (accumulator unchanged)",
                              "", "gating", FLYCOL_INT_MEMBER(zero_gating));
  gating.hw = "zero_gating";
  keys.push_back(gating);
  ConfigKey isolation = make_key("pe.operand_isolation", KeyType::boolean,
                                 "the multiplier's operands hold still on a step that computes nothing (idle, or "
                                 "gated by pe.zero_gating)",
                                 "", "isolation", FLYCOL_INT_MEMBER(operand_isolation));
  isolation.hw = "operand_isolation";
  keys.push_back(isolation);

  FLYCOL_SRAM_KEYS(ifmap, "ifmap_buffers");
  FLYCOL_SRAM_KEYS(weights, "weight_buffers");
  FLYCOL_SRAM_KEYS(psums, "psum_buffers");

  keys.push_back(rule_key("feeder.index_counters",
                          "index counters of the data feeder; the key exists so the file states it", "", is_five,
                          "5: the data feeder has exactly five index counters (three walk the interest region in x, "
                          "y and c, two move it to the next context in x and y)",
                          "", "", FLYCOL_INT_MEMBER(feeder.index_counters)));
  keys.push_back(int_key("feeder.pattern_bits", "width of the kernel pattern: limits the dilated kernel width",
                         "bits", 8, 64, "pattern_bits", "PB", FLYCOL_INT_MEMBER(feeder.pattern_bits)));
  keys.push_back(int_key("feeder.intermediate_regs", "M: elements a feed lane can take from one SRAM word per cycle",
                         "", 1, 8, "m", "M", FLYCOL_INT_MEMBER(feeder.intermediate_regs)));
  keys.push_back(int_key("feeder.fifo_depth", "per-lane FIFO depth, in groups of M elements", "", 1, 64,
                         "lane_fifo_depth", "FD", FLYCOL_INT_MEMBER(feeder.fifo_depth)));

  keys.push_back(number_key("clock.mhz", "accelerator clock", "MHz", 0, true, 5000, "MHz",
                            FLYCOL_NUMBER_MEMBER(clock_mhz)));

  ConfigKey type = make_key("dram.type", KeyType::choice, "DRAM kind, for reports and the energy model", "", "",
                            FLYCOL_TEXT_MEMBER(dram.type));
  type.choices = dram_types;
  keys.push_back(type);
  keys.push_back(rule_key("dram.bus_bits", "DRAM data bus width", "bits", is_dram_bus_bits,
                          "a multiple of 8 in [8, 4096]", "", "dram_bits", FLYCOL_INT_MEMBER(dram.bus_bits)));
  keys.push_back(number_key("dram.mhz", "DRAM interface clock", "MHz", 0, true, 10000, "",
                            FLYCOL_NUMBER_MEMBER(dram.mhz)));
  keys.push_back(int_key("dram.transfers_per_clock", "1 = SDR, 2 = DDR", "", 1, 2, "", "",
                         FLYCOL_INT_MEMBER(dram.transfers_per_clock)));
  keys.push_back(number_key("dram.latency_ns", "request to first data", "ns", 0, false, 10000, "",
                            FLYCOL_NUMBER_MEMBER(dram.latency_ns)));
  keys.push_back(number_key("dram.energy_pj_per_byte", "DRAM access energy", "pJ/byte", 0, false, 10000, "",
                            FLYCOL_NUMBER_MEMBER(dram.energy_pj_per_byte)));

  ConfigKey mac = number_key("energy.mac_pj", "energy of one PE's MAC step; `calibrated` fits it to the paper "
                                              "(sim/energy/energy.h)",
                             "pJ", 0, false, 1000, "", FLYCOL_NUMBER_MEMBER(energy.mac_pj));
  mac.word = "calibrated";
  mac.word_value = -1.0;
  keys.push_back(mac);
  keys.push_back(number_key("energy.sram_pj_per_bit", "energy of one SRAM bit read or written", "pJ", 0, false, 100,
                            "", FLYCOL_NUMBER_MEMBER(energy.sram_pj_per_bit)));

  return keys;
}

#undef FLYCOL_INT_MEMBER
#undef FLYCOL_NUMBER_MEMBER
#undef FLYCOL_TEXT_MEMBER
#undef FLYCOL_SRAM_KEYS

std::string number_text(double v) { return fmt::format("{}", v); }

}  // namespace

bool is_sram_word_bits(std::int64_t bits) {
  return bits >= kSramWordBitsMin && bits <= kSramWordBitsMax && bits % kSramWordBitsStep == 0;
}

std::string sram_word_bits_text() {
  return fmt::format("a multiple of {} from {} to {}", kSramWordBitsStep, kSramWordBitsMin, kSramWordBitsMax);
}

const std::vector<ConfigKey>& config_keys() {
  static const std::vector<ConfigKey> keys = [] {
    std::vector<ConfigKey> t = build_table();
    for (const auto& k : t)
      if (k.get == nullptr || k.set == nullptr) throw std::logic_error(std::string("config key table: ") + k.path + " has no getter or setter");
    return t;
  }();
  return keys;
}

const ConfigKey* find_config_key(const std::string& path) { return find_by(config_keys(), &ConfigKey::path, path); }

bool is_config_section(const std::string& path) {
  for (const auto& k : config_keys()) {
    const std::string p = k.path;
    if (p.size() > path.size() && p.compare(0, path.size(), path) == 0 && p[path.size()] == '.') return true;
  }
  return false;
}

std::string allowed_text(const ConfigKey& k) {
  switch (k.type) {
    case KeyType::integer:
      return k.int_rule != nullptr ? k.int_rule_text : fmt::format("[{}, {}]", k.int_min, k.int_max);
    case KeyType::number: {
      const std::string range = fmt::format("a number in {}{}, {}]", k.num_min_open ? "(" : "[",
                                            number_text(k.num_min), number_text(k.num_max));
      return k.word != nullptr ? fmt::format("`{}` or {}", k.word, range) : range;
    }
    case KeyType::boolean: return "true or false";
    case KeyType::choice: return "one of " + join(k.choices());
    case KeyType::name: return "a name of 1 to 64 characters from A-Z a-z 0-9 _ . -";
  }
  return "";
}

std::string value_text(const ConfigKey& k, const KeyValue& v) {
  switch (k.type) {
    case KeyType::integer: return std::to_string(std::get<std::int64_t>(v));
    case KeyType::boolean: return std::get<std::int64_t>(v) != 0 ? "true" : "false";
    case KeyType::number: {
      const double d = std::get<double>(v);
      if (k.word != nullptr && d == k.word_value) return k.word;
      return number_text(d);  // fmt's shortest round-trip form: parses back to the same double
    }
    case KeyType::choice:
    case KeyType::name: return std::get<std::string>(v);
  }
  return "";
}

std::string sweep_label(const ConfigKey& k) {
  if (*k.sweep_label != '\0') return k.sweep_label;
  const std::string p = k.path;
  const std::size_t dot = p.rfind('.');
  return dot == std::string::npos ? p : p.substr(dot + 1);
}

hw::HwParams hardware_params(const Config& c) {
  hw::HwParams p;
  // The keys that name a hardware parameter set it directly...
  for (const auto& k : config_keys()) {
    if (*k.hw == '\0') continue;
    const hw::HwParamField* f = hw::find_hw_param_field(k.hw);
    if (f == nullptr) throw std::logic_error(fmt::format("config key {}: no hardware parameter {}", k.path, k.hw));
    const KeyValue v = k.get(c);
    std::int64_t n = 0;
    if (k.type == KeyType::choice) {
      const auto words = k.choices();
      n = std::find(words.begin(), words.end(), std::get<std::string>(v)) - words.begin();
    } else {
      n = std::get<std::int64_t>(v);
    }
    f->set(p, n);
  }
  // ...the rest are derived from them (hw_params.h says from what).
  p.elem_bits = c.elem_bits();
  p.acc_bits = c.acc_bits();
  p.bus_elems = c.bus_elems();
  p.log2_bus = 0;
  while ((1 << p.log2_bus) < p.bus_elems) ++p.log2_bus;
  p.ifmap_depth = int(c.ifmap.words());
  p.weight_depth = int(c.weights.words());
  p.psum_depth = int(c.psums.words());
  return p;
}

std::string config_keys_markdown() {
  std::string s;
  s += "| key | meaning | unit | default (fornt16) | allowed | hardware parameter | sweep label |\n";
  s += "|---|---|---|---|---|---|---|\n";
  const Config& d = default_config();
  for (const auto& k : config_keys()) {
    std::string allowed = allowed_text(k);
    if (k.type == KeyType::choice && std::string(k.path) == "arithmetic") {
      std::vector<std::string> parts;
      for (const auto& n : arithmetic_names()) {
        const ArithmeticInfo& a = arithmetic_info(static_cast<Arithmetic>(parts.size()));
        parts.push_back(fmt::format("`{}` ({}-bit elements, {}-bit accumulation: {})", n, a.elem_bits, a.acc_bits,
                                    a.description));
      }
      allowed = join(parts);
    }
    s += fmt::format("| `{}` | {} | {} | `{}` | {} | {} | `{}` |\n", k.path, k.doc, *k.unit ? k.unit : "-",
                     value_text(k, k.get(d)), allowed, *k.hw ? fmt::format("`{}`", k.hw) : "-", sweep_label(k));
  }
  return s;
}

}  // namespace flycol
