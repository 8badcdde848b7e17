// The configuration key table checked end to end, key by key: the built-in file sets it, a
// changed value survives YAML -> Config (parse and to_yaml) and equality sees it, reaches its
// hardware parameter and the generated RTL package, is a sweep parameter with its label, has its
// row in the docs table, and a value outside its range is rejected with a message naming the key.
// A key added to the table without its plumbing fails here.
#include <catch2/catch.hpp>

#include <cmath>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "hw/common/hw_params.h"
#include "sim/common/files.h"
#include "sim/common/input_error.h"
#include "sim/config/config.h"
#include "sim/config/config_keys.h"
#include "sim/rtlgen/rtl_types.h"
#include "sim/sweep/sweep_spec.h"

namespace {

using namespace flycol;

// The values of a generated configuration package, in order (its 32'd<n> literals).
std::vector<std::uint64_t> sized_values(const std::string& pkg) {
  std::vector<std::uint64_t> out;
  for (std::size_t at = pkg.find("32'd"); at != std::string::npos; at = pkg.find("32'd", at + 4))
    out.push_back(std::stoull(pkg.substr(at + 4)));
  return out;
}

// The rules between keys (docs/configuration.md, "Rules between keys") restored after one key
// changed: the weight and psum word widths follow the array, or the array follows them when it
// is one of them that changed.
void restore_rules(Config& c, const std::string& changed) {
  if (changed == "sram.weights.word_bits") c.array.cols = c.weights.word_bits / c.elem_bits();
  else c.weights.word_bits = c.array.cols * c.elem_bits();
  if (changed == "sram.psums.word_bits") c.array.rows = c.psums.word_bits / c.acc_bits();
  else c.psums.word_bits = c.array.rows * c.acc_bits();
}

std::vector<KeyValue> candidates(const ConfigKey& k, const KeyValue& dflt) {
  std::vector<KeyValue> out;
  switch (k.type) {
    case KeyType::integer: {
      const std::int64_t d = std::get<std::int64_t>(dflt);
      std::vector<std::int64_t> v;
      if (k.int_rule != nullptr) {
        for (std::int64_t n : {128, 512, 64, 1024, 2048, 8, 16, 24, 40, 4, 6, 7})
          if (k.int_rule(n)) v.push_back(n);
      } else {
        v = {k.int_max, d / 2, d * 2, d + 1, d - 1, k.int_min};
      }
      for (std::int64_t n : v)
        if (n != d) out.emplace_back(n);
      break;
    }
    case KeyType::number: {
      const double d = std::get<double>(dflt);
      for (double n : {(k.num_min + k.num_max) / 2, d * 2, d / 2, k.num_max})
        if (n != d && n > 0) out.emplace_back(n);
      break;
    }
    case KeyType::boolean: out.emplace_back(std::int64_t(std::get<std::int64_t>(dflt) == 0 ? 1 : 0)); break;
    case KeyType::choice:
      for (const auto& w : k.choices())
        if (w != std::get<std::string>(dflt)) out.emplace_back(w);
      break;
    case KeyType::name: out.emplace_back(std::string("alt-name_1.x")); break;
  }
  return out;
}

// A value of the key's type that lies outside what it allows, as YAML text.
std::string bad_value(const ConfigKey& k) {
  switch (k.type) {
    case KeyType::integer:
      if (k.int_rule != nullptr) {
        for (std::int64_t n : {7, 3, 4097, 100000, -8})
          if (!k.int_rule(n)) return std::to_string(n);
      }
      return std::to_string(k.int_max + 1);
    case KeyType::number: return fmt::format("{}", k.num_max * 2 + 1);
    case KeyType::boolean: return "maybe";
    case KeyType::choice: return "no_such_choice";
    case KeyType::name: return "\"bad name!\"";
  }
  return "";
}

// `path: value` as nested YAML.
std::string nested_yaml(const std::string& path, const std::string& value) {
  std::string out, indent;
  std::size_t start = 0;
  for (;;) {
    const std::size_t dot = path.find('.', start);
    if (dot == std::string::npos) break;
    out += indent + path.substr(start, dot - start) + ":\n";
    indent += "  ";
    start = dot + 1;
  }
  return out + indent + path.substr(start) + ": " + value + "\n";
}

std::int64_t hw_number(const ConfigKey& k, const KeyValue& v) {
  if (k.type != KeyType::choice) return std::get<std::int64_t>(v);
  const auto words = k.choices();
  return std::find(words.begin(), words.end(), std::get<std::string>(v)) - words.begin();
}

}  // namespace

TEST_CASE("every configuration key is plumbed from YAML to the RTL package, the sweep and the docs", "[config]") {
  const Config& dflt = default_config();
  const YAML::Node builtin = YAML::Load(default_config_yaml());
  const std::string markdown = config_keys_markdown();
  const std::optional<std::string> doc = read_whole_file(std::string(FLYCOL_TEST_SOURCE_DIR) + "/docs/configuration.md");
  REQUIRE(doc.has_value());
  std::set<std::string> moved;  // hardware parameters some key's change moved

  for (const ConfigKey& k : config_keys()) {
    const std::string path = k.path;
    INFO("key " << path);

    // The built-in file sets every key (it is where the defaults are typed).
    YAML::Node n = YAML::Clone(builtin);
    std::size_t start = 0;
    for (;;) {
      const std::size_t dot = path.find('.', start);
      const std::string part = path.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
      REQUIRE(n.IsMap());
      REQUIRE(n[part]);
      n = n[part];
      if (dot == std::string::npos) break;
      start = dot + 1;
    }
    CHECK(value_text(k, k.get(parse_config(nested_yaml(path, n.Scalar()), "test"))) == value_text(k, k.get(dflt)));

    // A changed value that the rules between keys allow.
    const KeyValue d = k.get(dflt);
    std::optional<Config> changed;
    KeyValue alt;
    for (const KeyValue& v : candidates(k, d)) {
      Config c = dflt;
      k.set(c, v);
      restore_rules(c, path);
      try {
        changed = parse_config(to_yaml(c), "test");  // YAML -> Config of the whole changed file
        alt = v;
        break;
      } catch (const InputError&) {
      }
    }
    if (!changed) {
      // Only a key whose one allowed value is the default may have no alternative.
      REQUIRE(k.int_rule != nullptr);
      for (std::int64_t v = -100; v <= 5000; ++v) CHECK(k.int_rule(v) == (v == std::get<std::int64_t>(d)));
    } else {
      CHECK(value_text(k, k.get(*changed)) == value_text(k, alt));
      CHECK(*changed != dflt);  // equality compares the key
      // The key alone, as nested YAML over the defaults, reads the same value.
      if (path.rfind("array.", 0) != 0 && path.rfind("sram.", 0) != 0 && path != "arithmetic")
        CHECK(value_text(k, k.get(parse_config(nested_yaml(path, value_text(k, alt)), "test"))) ==
              value_text(k, alt));

      for (const auto& f : hw::kHwParamFields)
        if (f.get(hardware_params(*changed)) != f.get(hardware_params(dflt))) moved.insert(f.name);

      // Hardware parameter and RTL package.
      if (*k.hw != '\0') {
        const hw::HwParamField* f = hw::find_hw_param_field(k.hw);
        REQUIRE(f != nullptr);
        CHECK(f->get(hardware_params(*changed)) == hw_number(k, alt));
        CHECK(f->get(hardware_params(dflt)) == hw_number(k, d));
        if (f->rtl != nullptr) {
          // flycol_pkg's cfg_t has the field; the configuration package gives its value at the
          // field's place in the concatenation, and names it in the field list.
          CHECK(rtl::generate_flycol_pkg().find(fmt::format("logic [31:0] {};", f->rtl)) != std::string::npos);
          const std::string pkg = rtl::generate_cfg_pkg(*changed);
          const std::vector<std::uint64_t> values = sized_values(pkg);
          std::size_t place = 0;
          while (place < rtl::config_fields().size() && rtl::config_fields()[place].name != f->rtl) ++place;
          REQUIRE(place < values.size());
          CHECK(values[place] == std::uint64_t(hw_number(k, alt)));
          const bool listed = pkg.find(fmt::format(" {},", f->rtl)) != std::string::npos ||
                              pkg.find(fmt::format(" {}\n", f->rtl)) != std::string::npos;
          CHECK(listed);
        }
      }
    }

    // Out of range: rejected, the message names the key.
    try {
      (void)parse_config(nested_yaml(path, bad_value(k)), "test.yaml");
      FAIL("accepted " << bad_value(k));
    } catch (const InputError& e) {
      CHECK(std::string(e.what()).find(path) != std::string::npos);
      CHECK(std::string(e.what()).find("test.yaml") != std::string::npos);
    }

    // Sweeps and docs.
    if (path != "name") {
      CHECK(sweep::param_kind(path) == sweep::ParamKind::config);
      CHECK(sweep::param_label(path) == sweep_label(k));
    }
    const std::string row = fmt::format("| `{}` |", path);
    CHECK(markdown.find(row) != std::string::npos);
    CHECK(doc->find(row) != std::string::npos);
  }

  // Every hardware parameter follows the configuration: set by its key or derived from keys.
  for (const auto& f : hw::kHwParamFields) {
    INFO("hardware parameter " << f.name << " does not follow any configuration key");
    CHECK(moved.count(f.name) == 1);
  }
}

TEST_CASE("every RTL configuration field has its range bounds in flycol_pkg", "[config]") {
  const std::string pkg = rtl::generate_flycol_pkg();
  for (const auto& f : hw::kHwParamFields) {
    if (f.rtl == nullptr) continue;
    INFO("field " << f.rtl);
    std::string camel;
    bool up = true;
    for (const char* p = f.rtl; *p; ++p) {
      if (*p == '_') {
        up = true;
        continue;
      }
      camel += up ? char(std::toupper(static_cast<unsigned char>(*p))) : *p;
      up = false;
    }
    CHECK(pkg.find(fmt::format("localparam int unsigned Cfg{}Min = {};", camel, f.min)) != std::string::npos);
    CHECK(pkg.find(fmt::format("localparam int unsigned Cfg{}Max = {};", camel, f.max)) != std::string::npos);
  }
}

TEST_CASE("hardware parameter ranges: a core's check names the field and its range", "[config]") {
  hw::HwParams p = hardware_params(default_config());
  p.m = hw::kMaxM + 1;
  try {
    hw::check_hw_param_ranges(p, "blk", {"rows", "m"});
    FAIL("accepted m out of range");
  } catch (const hw::ProtocolError& e) {
    CHECK(std::string(e.what()) == fmt::format("blk: protocol error: parameter m = {} outside 1..{}", hw::kMaxM + 1,
                                               hw::kMaxM));
  }
}
