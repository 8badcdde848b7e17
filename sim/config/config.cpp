// Loading, checking and writing accelerator configurations (config.h). The built-in default is
// configs/fornt16.yaml embedded at build time and parsed by the same code as any other file, so
// the file is the single source of truth for the reference chip.
#include "sim/config/config.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <system_error>

#include <fmt/format.h>

#include "sim/common/input_error.h"
#include "sim/common/text.h"
#include "sim/config/config_keys.h"
#include "sim/config/default_config_text.h"
#include "sim/config/scalars.h"
#include "sim/config/yaml_guard.h"

#ifndef FLYCOL_SOURCE_DIR
#error "FLYCOL_SOURCE_DIR must name the repository root (set by sim/config/CMakeLists.txt)"
#endif

namespace flycol {

namespace {

constexpr int kBusElemsMin = 4, kBusElemsMax = 64;

bool is_pow2(std::int64_t v) { return v > 0 && (v & (v - 1)) == 0; }


// Rules that tie keys together. Each message names the key to change and the value it needs.
void check_consistency(const Config& c, const std::string& source) {
  const ArithmeticInfo& ar = arithmetic_info(c.arithmetic);

  // Array dimensions must give SRAM word widths that exist: one weight row and one psum row per word.
  const auto check_dim = [&](const char* key, int dim, int bits, const char* what) {
    if (is_sram_word_bits(std::int64_t(dim) * bits)) return;
    const int lo = (kSramWordBitsMin + bits - 1) / bits;
    throw InputError(source, key,
                     fmt::format("= {}: {} of {} x {}-bit {} values is {} bits, not an SRAM word width ({}), so {} "
                                 "must be at least {} with {}",
                                 dim, what, dim, bits, ar.name, dim * bits, sram_word_bits_text(), key, lo, ar.name));
  };
  check_dim("array.cols", c.array.cols, ar.elem_bits, "a weight row");
  check_dim("array.rows", c.array.rows, ar.acc_bits, "a column of partial sums");

  const int b = c.ifmap.word_bits / ar.elem_bits;
  if (c.ifmap.word_bits % ar.elem_bits != 0 || !is_pow2(b) || b < kBusElemsMin || b > kBusElemsMax) {
    std::vector<std::string> ok;
    for (int e = kBusElemsMin; e <= kBusElemsMax; e *= 2)
      if (is_sram_word_bits(std::int64_t(e) * ar.elem_bits)) ok.push_back(std::to_string(e * ar.elem_bits));
    throw InputError(source, "sram.ifmap.word_bits",
                     fmt::format("= {}: gives a feeder bus of {} {}-bit {} elements; the bus width B = word_bits / {} "
                                 "must be a power of two in [{}, {}], so word_bits must be one of {}",
                                 c.ifmap.word_bits, b, ar.elem_bits, ar.name, ar.elem_bits, kBusElemsMin,
                                 kBusElemsMax, join(ok)));
  }
  if (c.weights.word_bits != c.array.cols * ar.elem_bits)
    throw InputError(source, "sram.weights.word_bits",
                     fmt::format("= {}: must be {} = array.cols ({}) x {}-bit {} elements, so that one word holds "
                                 "the row of weights the array takes per cycle",
                                 c.weights.word_bits, c.array.cols * ar.elem_bits, c.array.cols, ar.elem_bits,
                                 ar.name));
  if (c.psums.word_bits != c.array.rows * ar.acc_bits)
    throw InputError(source, "sram.psums.word_bits",
                     fmt::format("= {}: must be {} = array.rows ({}) x {}-bit {} accumulators, so that one word "
                                 "holds the partial sums of one array column",
                                 c.psums.word_bits, c.array.rows * ar.acc_bits, c.array.rows, ar.acc_bits, ar.name));
  const std::pair<const char*, const SramConfig*> srams[] = {
      {"sram.ifmap", &c.ifmap}, {"sram.weights", &c.weights}, {"sram.psums", &c.psums}};
  for (const auto& [path, s] : srams)
    if ((std::int64_t(s->kbytes) * 8192) % s->word_bits != 0)
      throw InputError(source, std::string(path) + ".kbytes",
                       fmt::format("= {}: {} kB is not a whole number of {}-bit words", s->kbytes, s->kbytes,
                                   s->word_bits));
}

// Reads one key's scalar as its table entry says; the messages name the key and the allowed values.
KeyValue read_key(const ConfigKey& k, const YAML::Node& v, const std::string& source) {
  const std::string key = k.path;
  switch (k.type) {
    case KeyType::integer:
      if (k.int_rule != nullptr) return yaml_int_if(v, source, key, k.int_rule, k.int_rule_text);
      return yaml_int(v, source, key, k.int_min, k.int_max);
    case KeyType::number:
      if (k.word != nullptr) {
        if (v.IsScalar() && v.Scalar() == k.word) return k.word_value;
        try {
          return yaml_number(v, source, key, k.num_min, k.num_min_open, k.num_max);
        } catch (const InputError&) {
          throw InputError(source, key, fmt::format("{}: must be {}{}", describe_node(v), allowed_text(k),
                                                    *k.unit ? fmt::format(" ({})", k.unit) : std::string()));
        }
      }
      return yaml_number(v, source, key, k.num_min, k.num_min_open, k.num_max);
    case KeyType::boolean: return std::int64_t(yaml_bool(v, source, key));
    case KeyType::choice: {
      const auto words = k.choices();
      const std::string w = yaml_string(v, source, key, allowed_text(k));
      if (std::find(words.begin(), words.end(), w) == words.end())
        throw InputError(source, key, fmt::format("{}: must be {}", describe_node(v), allowed_text(k)));
      return w;
    }
    case KeyType::name: {
      const std::string n = yaml_string(v, source, key, allowed_text(k));
      if (!valid_name(n, 64)) throw InputError(source, key, describe_node(v) + ": must be " + allowed_text(k));
      return n;
    }
  }
  throw std::logic_error("read_key: unknown key type");
}

// The names directly below `section` ("" = the root) in table order, each once.
std::vector<std::string> children_of(const std::string& section) {
  std::vector<std::string> out;
  const std::string prefix = section.empty() ? "" : section + ".";
  for (const auto& k : config_keys()) {
    const std::string p = k.path;
    if (p.compare(0, prefix.size(), prefix) != 0) continue;
    const std::string rest = p.substr(prefix.size());
    const std::string child = rest.substr(0, rest.find('.'));
    if (std::find(out.begin(), out.end(), child) == out.end()) out.push_back(child);
  }
  return out;
}

// Walks one mapping of the file: keys are read, sections descended into; anything else is an
// unknown key, reported with the allowed ones.
void parse_mapping(const YAML::Node& node, const std::string& section, Config& c, const std::string& source) {
  for (const auto& e : mapping_entries(node, source, section, children_of(section))) {
    const std::string path = join_key(section, e.key);
    if (const ConfigKey* k = find_config_key(path)) k->set(c, read_key(*k, e.value, source));
    else parse_mapping(e.value, path, c, source);
  }
}

Config parse_over(Config c, const std::string& text, const std::string& source) {
  const YAML::Node root = load_yaml(text, source);
  c.source = source;
  // An empty file (or only comments) changes nothing.
  if (!root.IsNull()) parse_mapping(root, "", c, source);
  check_consistency(c, source);
  return c;
}

// Names that YAML would not read back as the same plain string get double quotes (valid names
// hold no character that needs escaping).
std::string yaml_name(const std::string& name) {
  const bool plain = !name.empty() && name[0] != '-' && name[0] != '.' && name != "null" && name != "Null" &&
                     name != "NULL";
  return plain ? name : "\"" + name + "\"";
}

}  // namespace

int Config::dram_latency_cycles() const {
  // The epsilon keeps an exact product such as 30.000000000000004 from costing a whole cycle.
  return static_cast<int>(std::ceil(dram.latency_ns * clock_mhz / 1000.0 - 1e-9));
}

bool operator==(const Config& a, const Config& b) {
  for (const auto& k : config_keys())
    if (k.get(a) != k.get(b)) return false;
  return true;
}

const std::string& default_config_yaml() {
  static const std::string text(detail::kDefaultConfigYaml);
  return text;
}

const Config& default_config() {
  // Parsed over the struct's initial values, which every key of the embedded file overrides.
  static const Config c = parse_over(Config{}, default_config_yaml(), "built-in");
  return c;
}

Config parse_config(const std::string& yaml_text, const std::string& source) {
  return parse_over(default_config(), yaml_text, source);
}

Config load_config(const std::string& path) { return parse_config(read_text_file(path), path); }

std::string configs_dir() {
  const char* env = std::getenv("FLYCOL_CONFIG_DIR");
  if (env != nullptr && *env != '\0') return env;
  return std::string(FLYCOL_SOURCE_DIR) + "/configs";
}

std::vector<std::string> list_config_files() {
  namespace fs = std::filesystem;
  std::vector<std::string> out;
  std::error_code ec;
  for (fs::directory_iterator it(configs_dir(), ec), end; !ec && it != end; it.increment(ec))
    if (it->path().extension() == ".yaml" && it->is_regular_file(ec)) out.push_back(it->path().string());
  std::sort(out.begin(), out.end());
  return out;
}

Config load_config_by_name_or_path(const std::string& what) {
  namespace fs = std::filesystem;
  const auto ends_with = [&](const std::string& suffix) {
    return what.size() >= suffix.size() && what.compare(what.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  std::error_code ec;
  if (ends_with(".yaml") || ends_with(".yml") || fs::is_regular_file(what, ec)) return load_config(what);
  if (valid_name(what, 64)) {
    const fs::path candidate = fs::path(configs_dir()) / (what + ".yaml");
    if (fs::is_regular_file(candidate, ec)) return load_config(candidate.string());
    // The reference chip stays reachable by name when the configs directory is not around.
    if (what == default_config().name) return default_config();
  }
  std::vector<std::string> names;
  for (const auto& f : list_config_files()) names.push_back(fs::path(f).stem().string());
  throw InputError(what, "",
                   fmt::format("is neither a file nor a configuration name in {} (known: {})", configs_dir(),
                               names.empty() ? std::string("none") : join(names)));
}

std::string to_yaml(const Config& c) {
  // Sections in table order, a blank line between them; a section one level down (sram.ifmap) as
  // one flow mapping line.
  std::string out;
  std::string open_section, open_sub;
  for (const auto& k : config_keys()) {
    const std::string path = k.path;
    std::string text = value_text(k, k.get(c));
    if (k.type == KeyType::name) text = yaml_name(text);
    const std::size_t dot = path.find('.');
    const std::string section = dot == std::string::npos ? "" : path.substr(0, dot);
    const std::string rest = dot == std::string::npos ? path : path.substr(dot + 1);
    const std::size_t dot2 = rest.find('.');
    const std::string sub = dot2 == std::string::npos ? "" : rest.substr(0, dot2);
    const std::string leaf = dot2 == std::string::npos ? rest : rest.substr(dot2 + 1);
    if (!open_sub.empty() && (sub != open_sub || section != open_section)) out += " }\n";
    if (section.empty() || section != open_section) {
      if (!out.empty()) out += "\n";
      if (!section.empty()) out += section + ":\n";
      open_sub.clear();
    }
    open_section = section;
    if (section.empty()) {
      out += leaf + ": " + text + "\n";
    } else if (sub.empty()) {
      out += "  " + leaf + ": " + text + "\n";
    } else {
      if (sub != open_sub) out += fmt::format("  {:<8} {{ {}: {}", sub + ":", leaf, text);
      else out += fmt::format(", {}: {}", leaf, text);
      open_sub = sub;
    }
  }
  if (!open_sub.empty()) out += " }\n";
  return out;
}

}  // namespace flycol
