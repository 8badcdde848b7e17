// Sweep file parsing and point expansion (sweep_spec.h). Values are checked as far as they can be
// on their own here (integers in their layer ranges, known keys, ranges that make sense); whether
// a combination runs is decided per point later (point_setup.h).
#include "sim/sweep/sweep_spec.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>
#include <set>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "sim/analytic/tiling_mode.h"
#include "sim/common/input_error.h"
#include "sim/common/text.h"
#include "sim/compiler/compiler.h"
#include "sim/config/config_keys.h"
#include "sim/config/scalars.h"
#include "sim/config/yaml_guard.h"
#include "sim/sweep/results.h"

namespace flycol::sweep {

const std::string* find_param(const Params& p, const std::string& key) {
  for (const auto& kv : p)
    if (kv.first == key) return &kv.second;
  return nullptr;
}

void set_param(Params& p, const std::string& key, const std::string& value) {
  for (auto& kv : p)
    if (kv.first == key) {
      kv.second = value;
      return;
    }
  p.emplace_back(key, value);
}

namespace {

// Layer keys with the per-value ranges of docs/configuration.md; padding is checked against the
// kernel per point (a padding too wide for some kernel of the sweep rejects that point only).
struct LayerKey {
  const char* key;
  std::vector<const char*> fields;  // the long keys it sets
  std::int64_t lo, hi;
};
const std::vector<LayerKey>& layer_keys() {
  static const std::vector<LayerKey> k = {
      {"N", {"N"}, 1, 64},          {"C", {"C"}, 1, 65536},      {"H", {"H"}, 1, 8192},
      {"W", {"W"}, 1, 8192},        {"K", {"K"}, 1, 65536},      {"k", {"ky", "kx"}, 1, 255},
      {"ky", {"ky"}, 1, 255},       {"kx", {"kx"}, 1, 255},      {"s", {"sy", "sx"}, 1, 64},
      {"sy", {"sy"}, 1, 64},        {"sx", {"sx"}, 1, 64},       {"d", {"dy", "dx"}, 1, 255},
      {"dy", {"dy"}, 1, 255},       {"dx", {"dx"}, 1, 255},      {"p", {"pt", "pb", "pl", "pr"}, 0, 65536},
      {"pt", {"pt"}, 0, 65536},     {"pb", {"pb"}, 0, 65536},    {"pl", {"pl"}, 0, 65536},
      {"pr", {"pr"}, 0, 65536},
  };
  return k;
}
const LayerKey* find_layer_key(const std::string& key) {
  for (const auto& k : layer_keys())
    if (key == k.key) return &k;
  return nullptr;
}
bool is_padding(const std::string& key) { return !key.empty() && key[0] == 'p'; }

std::string all_keys_text() {
  return "layer keys N, C, H, W, K, k, ky, kx, s, sy, sx, d, dy, dx, p, pt, pb, pl, pr; order; tiling; "
         "arithmetic; or a configuration key as a dotted path (array.rows, feeder.fifo_depth, "
         "sram.ifmap.word_bits, ...)";
}

bool valid_word(const std::string& s) {
  return !s.empty() && s.size() <= 64 && std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '-';
  });
}

class Parser {
public:
  Parser(std::string file) : file_(std::move(file)) {}

  [[noreturn]] void fail(const std::string& key, const std::string& problem) const {
    throw InputError(file_, key, problem);
  }

  // One scalar value of parameter `param`, checked on its own.
  std::string value(const YAML::Node& n, const std::string& param, const std::string& key) const {
    if (!n.IsScalar() || (n.Tag() != "!" && n.Scalar().empty()))
      fail(key, fmt::format("{}: must be one value (an integer or a word such as same, int8)", describe_node(n)));
    const std::string text = n.Scalar();
    if (const LayerKey* lk = find_layer_key(param)) {
      if (is_padding(param) && text == "same") return text;
      const auto v = parse_int_text(text);
      if (!v || *v < lk->lo || *v > lk->hi)
        fail(key, fmt::format("= {}: must be an integer in {}{}", text, int_range_text(lk->lo, lk->hi),
                              is_padding(param) ? " or same (padding that keeps Ho = ceil(H / sy))" : ""));
      return std::to_string(*v);
    }
    if (param == "order") {
      const auto names = loop_order_names();
      if (std::find(names.begin(), names.end(), text) == names.end())
        fail(key, fmt::format("= {}: must be one of {}", text, join(names)));
      return text;
    }
    if (param == "tiling") {
      if (!analytic::tiling_named(text)) fail(key, fmt::format("= {}: must be {}", text, analytic::tiling_choices()));
      return text;
    }
    if (!valid_word(text))
      fail(key, fmt::format("= {}: must be a number or a word of A-Z a-z 0-9 _ . - (the configuration checks "
                            "the value itself)",
                            text));
    if (const auto v = parse_int_text(text)) return std::to_string(*v);
    return text;
  }

  // The entries of a parameter mapping: keys must be names, none twice, each a known parameter
  // (or `name` where a point may be named).
  std::vector<YamlEntry> param_entries(const YAML::Node& node, const std::string& where, bool allow_name) const {
    if (!node.IsMap()) fail(where, describe_node(node) + ": must be a mapping of parameters to values");
    std::vector<std::string> keys;
    for (const auto& kv : node)
      if (kv.first.IsScalar()) keys.push_back(kv.first.Scalar());
    std::vector<YamlEntry> entries = mapping_entries(node, file_, where, keys);
    for (const auto& e : entries)
      if (!(allow_name && e.key == "name")) check_key(e.key, join_key(where, e.key));
    return entries;
  }

  void check_key(const std::string& param, const std::string& key) const {
    if (param == "name")
      fail(key, "is not a parameter: the configuration name is the base configuration's (name a point with "
                "`name:` in a points entry)");
    if (!param_kind(param)) fail(key, fmt::format("unknown parameter (allowed: {})", all_keys_text()));
  }

  // Values of a product key: a scalar, a range "A..B", or a sequence of those.
  std::vector<std::string> values(const YAML::Node& n, const std::string& param, const std::string& key) const {
    std::vector<std::string> out;
    const auto one = [&](const YAML::Node& v, const std::string& k) {
      if (v.IsScalar()) {
        const std::string t = v.Scalar();
        const std::size_t dots = t.find("..");
        if (dots != std::string::npos && v.Tag() == "?") {
          const auto a = parse_int_text(t.substr(0, dots)), b = parse_int_text(t.substr(dots + 2));
          if (!a || !b || *a > *b || *b - *a >= 10000)
            fail(k, fmt::format("= {}: a range is A..B with integers A <= B and at most 10000 values", t));
          for (std::int64_t i = *a; i <= *b; ++i) {
            YAML::Node e(std::to_string(i));
            out.push_back(value(e, param, k));
          }
          return;
        }
      }
      out.push_back(value(v, param, k));
    };
    if (n.IsSequence()) {
      if (n.size() == 0) fail(key, "is an empty sequence: give at least one value");
      for (std::size_t i = 0; i < n.size(); ++i) one(n[i], fmt::format("{}[{}]", key, i));
    } else {
      one(n, key);
    }
    std::set<std::string> seen;
    for (const auto& v : out)
      if (!seen.insert(v).second) fail(key, fmt::format("lists the value {} twice", v));
    return out;
  }

  // The long keys (fields) a parameter sets, for override and conflict rules.
  static std::vector<std::string> fields_of(const std::string& param) {
    if (const LayerKey* lk = find_layer_key(param)) return {lk->fields.begin(), lk->fields.end()};
    return {param};
  }

  // Within one mapping, two keys may not set the same field (k and kx).
  void check_disjoint(const std::vector<std::string>& params, const std::string& where) const {
    std::map<std::string, std::string> owner;
    for (const auto& p : params)
      for (const auto& f : fields_of(p)) {
        auto [it, fresh] = owner.emplace(f, p);
        if (!fresh)
          fail(join_key(where, p), fmt::format("conflicts with {}: both set {}; give either the short key for both "
                                               "directions or the long keys",
                                               it->second, f));
      }
  }

  const std::string& file() const { return file_; }

private:
  std::string file_;
};

// Applies `own` over `base` by field: k=5 replaces ky and kx, kx=5 only kx.
Params merge(const Params& base, const Params& own) {
  Params out = base;
  for (const auto& [k, v] : own)
    for (const auto& f : Parser::fields_of(k)) set_param(out, f, v);
  return out;
}

std::string point_name(const Params& own, int index) {
  std::string name;
  for (const auto& [k, v] : own) {
    const ParamKind kind = *param_kind(k);
    std::string part = (k == "arithmetic" || kind == ParamKind::compiler) ? v : param_label(k) + v;
    name += (name.empty() ? "" : "_") + part;
  }
  if (name.empty() || name.size() > 64) name = fmt::format("p{}", index);
  return name;
}

bool is_int_text(const std::string& s) { return parse_int_text(s).has_value(); }

}  // namespace

std::optional<ParamKind> param_kind(const std::string& key) {
  if (find_layer_key(key)) return ParamKind::layer;
  if (key == "order" || key == "tiling") return ParamKind::compiler;
  if (find_config_key(key) != nullptr || is_config_section(key.substr(0, key.find('.')))) return ParamKind::config;
  return std::nullopt;
}

std::string param_label(const std::string& key) {
  if (const ConfigKey* k = find_config_key(key)) return sweep_label(*k);
  const std::size_t dot = key.rfind('.');
  return dot == std::string::npos ? key : key.substr(dot + 1);
}

std::string text_hash(const std::string& text) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : text) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  return fmt::format("{:016x}", h);
}

SweepSpec parse_sweep_text(const std::string& text, const std::string& file) {
  namespace fs = std::filesystem;
  const Parser P(file);
  SweepSpec s;
  s.file = file;
  s.name = fs::path(file).stem().string();
  s.text_hash = text_hash(text);
  const YAML::Node root = load_yaml(text, file);
  if (root.IsNull()) P.fail("", "is empty: a sweep needs at least `fixed` with a layer and a `product` or `points`");

  struct Raw {
    std::vector<Params> own;  // one per point, in expansion order
    std::vector<std::string> where;  // "product" / "points[3]" for messages
    std::vector<std::string> explicit_names;
  } raw;
  bool have_points = false;
  const YAML::Node* plots_node = nullptr;
  YAML::Node plots_holder;

  const auto expand_product = [&](const YAML::Node& node, const std::string& where) {
    std::vector<std::pair<std::string, std::vector<std::string>>> axes;
    std::vector<std::string> keys;
    for (const auto& e : P.param_entries(node, where, false)) {
      axes.emplace_back(e.key, P.values(e.value, e.key, join_key(where, e.key)));
      keys.push_back(e.key);
    }
    if (axes.empty()) P.fail(where, "is an empty mapping: give at least one parameter with its values");
    P.check_disjoint(keys, where);
    std::vector<std::size_t> idx(axes.size(), 0);
    for (;;) {
      Params own;
      for (std::size_t a = 0; a < axes.size(); ++a) own.emplace_back(axes[a].first, axes[a].second[idx[a]]);
      raw.own.push_back(std::move(own));
      raw.where.push_back(where);
      raw.explicit_names.emplace_back();
      if (raw.own.size() > 100000) P.fail(where, "expands to more than 100000 points");
      // Odometer with the first key outermost, so points come out in file order.
      std::size_t a = axes.size();
      while (a > 0) {
        --a;
        if (++idx[a] < axes[a].second.size()) break;
        idx[a] = 0;
        if (a == 0) return;
      }
    }
  };

  for (const auto& top : mapping_entries(root, file, "",
                                         {"name", "description", "config", "model", "seed", "labels", "timeout_s",
                                          "tolerance_percent", "fixed", "product", "points", "plots"})) {
    const std::string& k = top.key;
    const YAML::Node& v = top.value;
    if (k == "name") {
      s.name = yaml_string(v, file, k, "a name of 1 to 64 characters from A-Z a-z 0-9 _ -");
      if (!valid_name(s.name, 64) || s.name.find('.') != std::string::npos)
        P.fail(k, fmt::format("= {}: must be a name of 1 to 64 characters from A-Z a-z 0-9 _ -", s.name));
    } else if (k == "description") {
      s.description = yaml_string(v, file, k, "text");
      while (!s.description.empty() && std::isspace(static_cast<unsigned char>(s.description.back())))
        s.description.pop_back();  // a folded block (>) ends in a newline
    } else if (k == "config") {
      s.config = yaml_string(v, file, k, "a configuration name in configs/ or a path");
      // A relative path is relative to the sweep file, so sweeps can ship their own bases.
      const bool is_path = s.config.find('/') != std::string::npos ||
                           (s.config.size() > 5 && s.config.compare(s.config.size() - 5, 5, ".yaml") == 0);
      if (is_path && fs::path(s.config).is_relative())
        s.config = (fs::path(file).parent_path() / s.config).lexically_normal().string();
    } else if (k == "model") {
      s.model = yaml_string(v, file, k, "a model name (sc, both, analytic)");
    } else if (k == "seed") {
      s.seed = std::uint64_t(yaml_int(v, file, k, 1, std::int64_t(1) << 53));
    } else if (k == "labels") {
      if (!v.IsSequence()) P.fail(k, describe_node(v) + ": must be a sequence of label names, e.g. [slow]");
      for (std::size_t i = 0; i < v.size(); ++i) {
        const std::string key = fmt::format("labels[{}]", i);
        const std::string l = yaml_string(v[i], file, key, "a label name");
        if (!valid_name(l, 32) || l.find('.') != std::string::npos)
          P.fail(key, fmt::format("= {}: must be a name of 1 to 32 characters from A-Z a-z 0-9 _ -", l));
        s.labels.push_back(l);
      }
    } else if (k == "timeout_s") {
      s.timeout_s = yaml_number(v, file, k, 0, true, 86400);
    } else if (k == "tolerance_percent") {
      s.tolerance_percent = yaml_number(v, file, k, 0, false, 1000);
    } else if (k == "fixed") {
      std::vector<std::string> keys;
      for (const auto& e : P.param_entries(v, k, false)) {
        s.fixed.emplace_back(e.key, P.value(e.value, e.key, join_key(k, e.key)));
        keys.push_back(e.key);
      }
      P.check_disjoint(keys, k);
    } else if (k == "product") {
      have_points = true;
      if (v.IsSequence()) {
        if (v.size() == 0) P.fail(k, "is an empty sequence: give one product mapping or a list of them");
        for (std::size_t i = 0; i < v.size(); ++i) {
          const std::string where = fmt::format("product[{}]", i);
          expand_product(v[i], where);
        }
      } else if (v.IsMap()) {
        expand_product(v, k);
      } else {
        P.fail(k, describe_node(v) + ": must be a mapping of parameters to value lists (or a list of such mappings)");
      }
    } else if (k == "points") {
      have_points = true;
      if (!v.IsSequence() || v.size() == 0)
        P.fail(k, describe_node(v) + ": must be a non-empty sequence of mappings, e.g. - {k: 7, feeder.fifo_depth: 8}");
      for (std::size_t i = 0; i < v.size(); ++i) {
        const std::string where = fmt::format("points[{}]", i);
        Params own;
        std::string name;
        std::vector<std::string> keys;
        for (const auto& e : P.param_entries(v[i], where, true)) {
          const std::string key = join_key(where, e.key);
          if (e.key == "name") {
            name = yaml_string(e.value, file, key, "a point name");
            if (!valid_name(name, 64))
              P.fail(key, fmt::format("= {}: must be a name of 1 to 64 characters from A-Z a-z 0-9 _ . -", name));
            continue;
          }
          own.emplace_back(e.key, P.value(e.value, e.key, key));
          keys.push_back(e.key);
        }
        P.check_disjoint(keys, where);
        raw.own.push_back(std::move(own));
        raw.where.push_back(where);
        raw.explicit_names.push_back(name);
      }
    } else {  // plots
      plots_holder = v;
      plots_node = &plots_holder;
    }
  }
  if (!have_points) P.fail("product", "is missing: a sweep needs a `product`, a `points` list, or both");
  if (!valid_name(s.name, 64) || s.name.find('.') != std::string::npos)
    P.fail("name", fmt::format("is missing, and the file name '{}' is no sweep name (1 to 64 characters from A-Z a-z "
                               "0-9 _ -): give `name:`",
                               s.name));

  // Points: merged values, names, and the keys that vary.
  std::map<std::string, std::string> name_where;
  for (std::size_t i = 0; i < raw.own.size(); ++i) {
    Point p;
    p.index = int(i) + 1;
    p.own = raw.own[i];
    p.merged = merge(merge({}, s.fixed), p.own);
    p.name = raw.explicit_names[i].empty() ? point_name(p.own, p.index) : raw.explicit_names[i];
    auto [it, fresh] = name_where.emplace(p.name, raw.where[i]);
    if (!fresh)
      P.fail(raw.where[i], fmt::format("gives a point named '{}' again (first from {}): two points with the same "
                                       "values, or give the explicit point a `name`",
                                       p.name, it->second));
    for (const auto& kv : p.own)
      if (std::find(s.swept_keys.begin(), s.swept_keys.end(), kv.first) == s.swept_keys.end())
        s.swept_keys.push_back(kv.first);
    s.points.push_back(std::move(p));
  }

  // Plots: explicit, or cycles and utilization against every numeric swept key.
  if (plots_node) {
    const YAML::Node& v = *plots_node;
    if (!v.IsSequence()) P.fail("plots", describe_node(v) + ": must be a sequence of {x: KEY, y: [METRIC, ...]}");
    for (std::size_t i = 0; i < v.size(); ++i) {
      const std::string where = fmt::format("plots[{}]", i);
      PlotSpec ps;
      for (const auto& e : mapping_entries(v[i], file, where, {"x", "y", "log2_x", "where"})) {
        const std::string key = join_key(where, e.key);
        if (e.key == "x") {
          ps.x = yaml_string(e.value, file, key, "a swept parameter");
          if (std::find(s.swept_keys.begin(), s.swept_keys.end(), ps.x) == s.swept_keys.end())
            P.fail(key, fmt::format("= {}: must be one of the swept parameters ({})", ps.x, join(s.swept_keys)));
        } else if (e.key == "y") {
          const auto add = [&](const YAML::Node& n, const std::string& k2) {
            const std::string m = yaml_string(n, file, k2, "a metric name");
            if (!is_metric(m)) P.fail(k2, fmt::format("= {}: must be one of {}", m, join(metric_names())));
            ps.y.push_back(m);
          };
          if (e.value.IsSequence())
            for (std::size_t j = 0; j < e.value.size(); ++j) add(e.value[j], fmt::format("{}[{}]", key, j));
          else
            add(e.value, key);
        } else if (e.key == "log2_x") {
          ps.log2_x = yaml_bool(e.value, file, key);
        } else {
          for (const auto& w : mapping_entries(e.value, file, key, s.swept_keys))
            ps.where.emplace_back(w.key, P.value(w.value, w.key, join_key(key, w.key)));
        }
      }
      if (ps.x.empty()) P.fail(join_key(where, "x"), "is missing: name the swept parameter for the x axis");
      if (ps.y.empty()) ps.y = {"cycles", "utilization"};
      s.plots.push_back(std::move(ps));
    }
  } else {
    for (const auto& key : s.swept_keys) {
      std::set<std::string> distinct;
      bool numeric = true;
      for (const auto& p : s.points)
        if (const std::string* v = find_param(p.own, key)) {
          distinct.insert(*v);
          numeric = numeric && is_int_text(*v);
        }
      if (numeric && distinct.size() >= 2) s.plots.push_back(PlotSpec{key, {"cycles", "utilization"}, false, {}});
    }
  }
  return s;
}

SweepSpec load_sweep_file(const std::string& path) { return parse_sweep_text(read_text_file(path), path); }

}  // namespace flycol::sweep
