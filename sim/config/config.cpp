// Loading, checking and writing accelerator configurations (config.h). The built-in default is
// configs/fornt16.yaml embedded at build time and parsed by the same code as any other file, so
// the file is the single source of truth for the reference chip.
#include "sim/config/config.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <system_error>

#include <fmt/format.h>

#include "sim/common/input_error.h"
#include "sim/config/default_config_text.h"
#include "sim/config/scalars.h"
#include "sim/config/yaml_guard.h"

#ifndef FLYCOL_SOURCE_DIR
#error "FLYCOL_SOURCE_DIR must name the repository root (set by sim/config/CMakeLists.txt)"
#endif

namespace flycol {

namespace {

// Indexed by Arithmetic; the one place an arithmetic choice is registered by name.
constexpr ArithmeticInfo kArithmetics[] = {
    {"fp16", 16, 16},   // IEEE binary16 FMA, FP16 accumulation (the paper's chip)
    {"int8", 8, 32},    // int8 x int8 -> int32
    {"int16", 16, 32},  // int16 x int16 -> int32
};

constexpr const char* kDramTypes[] = {"lpddr3", "lpddr4", "ddr4", "hbm2", "custom"};
constexpr int kWordBits[] = {64, 128, 256, 512, 1024, 2048};
constexpr int kBusElemsMin = 4, kBusElemsMax = 64;

std::string join(const std::vector<std::string>& items, const char* sep = ", ") {
  std::string out;
  for (const auto& s : items) out += (out.empty() ? "" : sep) + s;
  return out;
}

bool is_word_bits(std::int64_t v) { return std::find(std::begin(kWordBits), std::end(kWordBits), v) != std::end(kWordBits); }
bool is_pow2(std::int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

std::string word_bits_list() {
  std::vector<std::string> out;
  for (int w : kWordBits) out.push_back(std::to_string(w));
  return join(out);
}

void parse_sram(const YAML::Node& node, SramConfig& s, const std::string& source, const std::string& path) {
  for (const auto& e : mapping_entries(node, source, path, {"kbytes", "buffers", "word_bits"})) {
    const std::string key = join_key(path, e.key);
    if (e.key == "kbytes") s.kbytes = int(yaml_int(e.value, source, key, 1, 4096));
    else if (e.key == "buffers") s.buffers = int(yaml_int(e.value, source, key, 1, 2));
    else s.word_bits = int(yaml_int_if(e.value, source, key, is_word_bits, "one of " + word_bits_list()));
  }
}

// Rules that tie keys together. Each message names the key to change and the value it needs.
void check_consistency(const Config& c, const std::string& source) {
  const ArithmeticInfo& ar = arithmetic_info(c.arithmetic);

  // Array dimensions must give SRAM word widths that exist: one weight row and one psum row per word.
  const auto check_dim = [&](const char* key, int dim, int bits, const char* what) {
    if (is_word_bits(std::int64_t(dim) * bits)) return;
    std::vector<std::string> ok;
    for (int w : kWordBits)
      if (w % bits == 0 && w / bits <= 64) ok.push_back(std::to_string(w / bits));
    throw InputError(source, key,
                     fmt::format("= {}: {} of {} x {}-bit {} values is {} bits, not an SRAM word width ({}), so {} "
                                 "must be one of {} with {}",
                                 dim, what, dim, bits, ar.name, dim * bits, word_bits_list(), key, join(ok), ar.name));
  };
  check_dim("array.cols", c.array.cols, ar.elem_bits, "a weight row");
  check_dim("array.rows", c.array.rows, ar.acc_bits, "a column of partial sums");

  const int b = c.ifmap.word_bits / ar.elem_bits;
  if (c.ifmap.word_bits % ar.elem_bits != 0 || !is_pow2(b) || b < kBusElemsMin || b > kBusElemsMax) {
    std::vector<std::string> ok;
    for (int w : kWordBits)
      if (w / ar.elem_bits >= kBusElemsMin && w / ar.elem_bits <= kBusElemsMax) ok.push_back(std::to_string(w));
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

Config parse_over(Config c, const std::string& text, const std::string& source) {
  const YAML::Node root = load_yaml(text, source);
  c.source = source;
  if (root.IsNull()) {  // an empty file (or only comments) changes nothing
    check_consistency(c, source);
    return c;
  }
  for (const auto& top : mapping_entries(root, source, "",
                                         {"name", "array", "arithmetic", "pe", "sram", "feeder", "clock", "dram",
                                          "energy"})) {
    const YAML::Node& v = top.value;
    const std::string& k = top.key;
    if (k == "name") {
      const std::string expected = "a name of 1 to 64 characters from A-Z a-z 0-9 _ . -";
      c.name = yaml_string(v, source, k, expected);
      if (!valid_name(c.name, 64)) throw InputError(source, k, describe_node(v) + ": must be " + expected);
    } else if (k == "array") {
      for (const auto& e : mapping_entries(v, source, k, {"rows", "cols"})) {
        const int n = int(yaml_int(e.value, source, join_key(k, e.key), 1, 64));
        (e.key == "rows" ? c.array.rows : c.array.cols) = n;
      }
    } else if (k == "arithmetic") {
      const auto names = arithmetic_names();
      const std::string a = yaml_string(v, source, k, "one of " + join(names));
      const auto it = std::find(names.begin(), names.end(), a);
      if (it == names.end())
        throw InputError(source, k, fmt::format("{}: must be one of {}", describe_node(v), join(names)));
      c.arithmetic = static_cast<Arithmetic>(it - names.begin());
    } else if (k == "pe") {
      for (const auto& e : mapping_entries(v, source, k, {"zero_gating"}))
        c.zero_gating = yaml_bool(e.value, source, join_key(k, e.key));
    } else if (k == "sram") {
      for (const auto& e : mapping_entries(v, source, k, {"ifmap", "weights", "psums"})) {
        SramConfig& s = e.key == "ifmap" ? c.ifmap : e.key == "weights" ? c.weights : c.psums;
        parse_sram(e.value, s, source, join_key(k, e.key));
      }
    } else if (k == "feeder") {
      for (const auto& e : mapping_entries(v, source, k,
                                           {"index_counters", "pattern_bits", "intermediate_regs", "fifo_depth"})) {
        const std::string key = join_key(k, e.key);
        if (e.key == "index_counters")
          c.feeder.index_counters = int(yaml_int_if(
              e.value, source, key, [](std::int64_t n) { return n == 5; },
              "5: the data feeder has exactly five index counters (three walk the interest region in x, y and c, "
              "two move it to the next context in x and y)"));
        else if (e.key == "pattern_bits") c.feeder.pattern_bits = int(yaml_int(e.value, source, key, 8, 64));
        else if (e.key == "intermediate_regs") c.feeder.intermediate_regs = int(yaml_int(e.value, source, key, 1, 8));
        else c.feeder.fifo_depth = int(yaml_int(e.value, source, key, 1, 64));
      }
    } else if (k == "clock") {
      for (const auto& e : mapping_entries(v, source, k, {"mhz"}))
        c.clock_mhz = yaml_number(e.value, source, join_key(k, e.key), 0, true, 5000);
    } else if (k == "energy") {
      for (const auto& e : mapping_entries(v, source, k, {"mac_pj", "sram_pj_per_bit"})) {
        const std::string key = join_key(k, e.key);
        if (e.key == "mac_pj") {
          // `calibrated` (the default) or pJ per PE per MAC step.
          if (e.value.IsScalar() && e.value.Scalar() == "calibrated") {
            c.energy.mac_pj = -1.0;
          } else {
            try {
              c.energy.mac_pj = yaml_number(e.value, source, key, 0, false, 1000);
            } catch (const InputError&) {
              throw InputError(source, key,
                               describe_node(e.value) + ": must be `calibrated` or a number in [0, 1000] (pJ)");
            }
          }
        } else {
          c.energy.sram_pj_per_bit = yaml_number(e.value, source, key, 0, false, 100);
        }
      }
    } else {  // dram
      for (const auto& e : mapping_entries(v, source, k,
                                           {"type", "bus_bits", "mhz", "transfers_per_clock", "latency_ns",
                                            "energy_pj_per_byte"})) {
        const std::string key = join_key(k, e.key);
        if (e.key == "type") {
          std::vector<std::string> types(std::begin(kDramTypes), std::end(kDramTypes));
          const std::string t = yaml_string(e.value, source, key, "one of " + join(types));
          if (std::find(types.begin(), types.end(), t) == types.end())
            throw InputError(source, key, fmt::format("{}: must be one of {}", describe_node(e.value), join(types)));
          c.dram.type = t;
        } else if (e.key == "bus_bits") {
          c.dram.bus_bits = int(yaml_int_if(
              e.value, source, key, [](std::int64_t n) { return n >= 8 && n <= 4096 && n % 8 == 0; },
              "a multiple of 8 in [8, 4096]"));
        } else if (e.key == "mhz") {
          c.dram.mhz = yaml_number(e.value, source, key, 0, true, 10000);
        } else if (e.key == "transfers_per_clock") {
          c.dram.transfers_per_clock = int(yaml_int(e.value, source, key, 1, 2));
        } else if (e.key == "latency_ns") {
          c.dram.latency_ns = yaml_number(e.value, source, key, 0, false, 10000);
        } else {
          c.dram.energy_pj_per_byte = yaml_number(e.value, source, key, 0, false, 10000);
        }
      }
    }
  }
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

const ArithmeticInfo& arithmetic_info(Arithmetic a) { return kArithmetics[static_cast<int>(a)]; }

std::vector<std::string> arithmetic_names() {
  std::vector<std::string> out;
  for (const auto& a : kArithmetics) out.push_back(a.name);
  return out;
}

int Config::dram_latency_cycles() const {
  // The epsilon keeps an exact product such as 30.000000000000004 from costing a whole cycle.
  return static_cast<int>(std::ceil(dram.latency_ns * clock_mhz / 1000.0 - 1e-9));
}

bool operator==(const Config& a, const Config& b) {
  const auto same_sram = [](const SramConfig& x, const SramConfig& y) {
    return x.kbytes == y.kbytes && x.buffers == y.buffers && x.word_bits == y.word_bits;
  };
  return a.name == b.name && a.array.rows == b.array.rows && a.array.cols == b.array.cols &&
         a.arithmetic == b.arithmetic && a.zero_gating == b.zero_gating && same_sram(a.ifmap, b.ifmap) &&
         same_sram(a.weights, b.weights) && same_sram(a.psums, b.psums) &&
         a.feeder.index_counters == b.feeder.index_counters && a.feeder.pattern_bits == b.feeder.pattern_bits &&
         a.feeder.intermediate_regs == b.feeder.intermediate_regs && a.feeder.fifo_depth == b.feeder.fifo_depth &&
         a.clock_mhz == b.clock_mhz && a.dram.type == b.dram.type && a.dram.bus_bits == b.dram.bus_bits &&
         a.dram.mhz == b.dram.mhz && a.dram.transfers_per_clock == b.dram.transfers_per_clock &&
         a.dram.latency_ns == b.dram.latency_ns && a.dram.energy_pj_per_byte == b.dram.energy_pj_per_byte &&
         a.energy.mac_pj == b.energy.mac_pj && a.energy.sram_pj_per_bit == b.energy.sram_pj_per_bit;
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
  const auto sram = [](const char* label, const SramConfig& s) {
    return fmt::format("  {:<8} {{ kbytes: {}, buffers: {}, word_bits: {} }}\n", std::string(label) + ":", s.kbytes,
                       s.buffers, s.word_bits);
  };
  std::string out;
  out += fmt::format("name: {}\n\n", yaml_name(c.name));
  out += fmt::format("array:\n  rows: {}\n  cols: {}\n\n", c.array.rows, c.array.cols);
  out += fmt::format("arithmetic: {}\n\n", arithmetic_info(c.arithmetic).name);
  out += fmt::format("pe:\n  zero_gating: {}\n\n", c.zero_gating);
  out += "sram:\n" + sram("ifmap", c.ifmap) + sram("weights", c.weights) + sram("psums", c.psums) + "\n";
  out += fmt::format("feeder:\n  index_counters: {}\n  pattern_bits: {}\n  intermediate_regs: {}\n  fifo_depth: {}\n\n",
                     c.feeder.index_counters, c.feeder.pattern_bits, c.feeder.intermediate_regs,
                     c.feeder.fifo_depth);
  // fmt's shortest round-trip form: the text parses back to the same double.
  out += fmt::format("clock:\n  mhz: {}\n\n", c.clock_mhz);
  out += fmt::format(
      "dram:\n  type: {}\n  bus_bits: {}\n  mhz: {}\n  transfers_per_clock: {}\n  latency_ns: {}\n"
      "  energy_pj_per_byte: {}\n",
      c.dram.type, c.dram.bus_bits, c.dram.mhz, c.dram.transfers_per_clock, c.dram.latency_ns,
      c.dram.energy_pj_per_byte);
  out += fmt::format("\nenergy:\n  mac_pj: {}\n  sram_pj_per_bit: {}\n",
                     c.energy.mac_calibrated() ? std::string("calibrated") : fmt::format("{}", c.energy.mac_pj),
                     c.energy.sram_pj_per_bit);
  return out;
}

}  // namespace flycol
