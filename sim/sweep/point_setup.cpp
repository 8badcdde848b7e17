// Configuration, layer and compile check of one sweep point (point_setup.h).
#include "sim/sweep/point_setup.h"

#include <algorithm>

#include <fmt/format.h>

#include "sim/common/input_error.h"
#include "sim/config/config_keys.h"
#include "sim/config/scalars.h"
#include "sim/config/yaml_guard.h"

namespace flycol::sweep {

namespace {

std::vector<std::string> split_key(const std::string& key) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  for (;;) {
    const std::size_t dot = key.find('.', start);
    parts.push_back(key.substr(start, dot == std::string::npos ? std::string::npos : dot - start));
    if (dot == std::string::npos) return parts;
    start = dot + 1;
  }
}

// The scalar at a dotted path of a configuration tree, or "" when there is none. (Node::reset
// rebinds a handle; plain assignment between yaml-cpp nodes would rewrite the tree.)
std::string lookup(const YAML::Node& root, const std::string& key) {
  YAML::Node n;
  n.reset(root);
  for (const auto& part : split_key(key)) {
    if (!n.IsMap()) return "";
    const YAML::Node& cn = n;
    const YAML::Node child = cn[part];
    if (!child.IsDefined()) return "";
    n.reset(child);
  }
  return n.IsScalar() ? n.Scalar() : "";
}

std::optional<int> int_at(const YAML::Node& root, const std::string& key) {
  const auto v = parse_int_text(lookup(root, key));
  return v ? std::optional<int>(int(*v)) : std::nullopt;
}

const ArithmeticInfo* arithmetic_named(const std::string& name) {
  const auto names = arithmetic_names();
  const auto it = std::find(names.begin(), names.end(), name);
  return it == names.end() ? nullptr : &arithmetic_info(static_cast<Arithmetic>(it - names.begin()));
}

std::string source_of(const SweepSpec& spec, const Point& p) { return fmt::format("{}: point {}", spec.file, p.name); }

// "3", or "3x5" when the two directions differ; "1,1,2,2" for padding.
std::string pair_text(int a, int b) { return a == b ? std::to_string(a) : fmt::format("{}x{}", a, b); }

std::string layer_value(const Layer& l, const std::string& key) {
  if (key == "N") return std::to_string(l.n);
  if (key == "C") return std::to_string(l.c);
  if (key == "H") return std::to_string(l.h);
  if (key == "W") return std::to_string(l.w);
  if (key == "K") return std::to_string(l.k);
  if (key == "k") return pair_text(l.ky, l.kx);
  if (key == "ky") return std::to_string(l.ky);
  if (key == "kx") return std::to_string(l.kx);
  if (key == "s") return pair_text(l.sy, l.sx);
  if (key == "sy") return std::to_string(l.sy);
  if (key == "sx") return std::to_string(l.sx);
  if (key == "d") return pair_text(l.dy, l.dx);
  if (key == "dy") return std::to_string(l.dy);
  if (key == "dx") return std::to_string(l.dx);
  if (key == "pt") return std::to_string(l.pt);
  if (key == "pb") return std::to_string(l.pb);
  if (key == "pl") return std::to_string(l.pl);
  if (key == "pr") return std::to_string(l.pr);
  if (l.pt == l.pb && l.pt == l.pl && l.pt == l.pr) return std::to_string(l.pt);  // p
  return fmt::format("{},{},{},{}", l.pt, l.pb, l.pl, l.pr);
}

// "p: same" pads so that Ho = ceil(H / sy): extent - 1 in total, the odd one at the bottom/right.
int same_before(int extent) { return (extent - 1) / 2; }
int same_after(int extent) { return extent - 1 - (extent - 1) / 2; }

}  // namespace

PointBuilder::PointBuilder(const SweepSpec& spec)
    : spec_(spec), base_(load_config_by_name_or_path(spec.config)) {
  base_node_ = load_yaml(to_yaml(base_), base_.source);
}

Config PointBuilder::point_config(const Point& p) const {
  const std::string source = source_of(spec_, p);
  YAML::Node root = YAML::Clone(base_node_);
  bool set_weights = false, set_psums = false;
  for (const auto& [key, value] : p.merged) {
    if (param_kind(key) != ParamKind::config) continue;
    set_weights = set_weights || key == "sram.weights.word_bits";
    set_psums = set_psums || key == "sram.psums.word_bits";
    const auto parts = split_key(key);
    YAML::Node n;
    n.reset(root);
    std::string path;
    for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
      path = join_key(path, parts[i]);
      // A missing section is created and then reported by parse_config with the allowed keys.
      if (!n[parts[i]].IsDefined()) n[parts[i]] = YAML::Node(YAML::NodeType::Map);
      const YAML::Node child = n[parts[i]];
      if (!child.IsMap()) throw InputError(source, key, fmt::format("is not a configuration key: {} is a single value", path));
      n.reset(child);
    }
    if (n[parts.back()].IsMap())
      throw InputError(source, key, "is a section, not a value: sweep one of its keys (e.g. sram.ifmap.word_bits)");
    n[parts.back()] = value;
  }
  // Array size and arithmetic fix the weight and psum word widths; derive them so that sweeps over
  // array.rows/cols or arithmetic need not repeat the rule. A width that is not an SRAM word is
  // left alone, and parse_config then names array.rows or array.cols.
  if (const ArithmeticInfo* a = arithmetic_named(lookup(root, "arithmetic"))) {
    const auto rows = int_at(root, "array.rows"), cols = int_at(root, "array.cols");
    if (!set_weights && cols && is_sram_word_bits(std::int64_t(*cols) * a->elem_bits))
      root["sram"]["weights"]["word_bits"] = std::to_string(*cols * a->elem_bits);
    if (!set_psums && rows && is_sram_word_bits(std::int64_t(*rows) * a->acc_bits))
      root["sram"]["psums"]["word_bits"] = std::to_string(*rows * a->acc_bits);
  }
  YAML::Emitter e;
  e << root;
  return parse_config(e.c_str(), source);
}

PreparedPoint PointBuilder::prepare(const Point& p) const {
  const std::string source = source_of(spec_, p);
  PreparedPoint out;
  out.point = p;
  out.config = point_config(p);
  out.config_yaml = to_yaml(out.config);
  const YAML::Node cfg_node = load_yaml(out.config_yaml, source);

  if (const std::string* o = find_param(p.merged, "order")) out.options.order = *o;
  if (const std::string* t = find_param(p.merged, "tiling")) out.tiling = *t;

  // The layer: every point needs C, H, W, K and the kernel, from `fixed` or its own values.
  const auto get = [&](const char* key) -> std::string {
    const std::string* v = find_param(p.merged, key);
    if (!v)
      throw InputError(source, key, "is missing: every point needs C, H, W, K and the kernel (k, or ky and kx); "
                                    "give them under `fixed` or in the point");
    return *v;
  };
  const auto num = [&](const char* key, int dflt) {
    const std::string* v = find_param(p.merged, key);
    return v ? int(*parse_int_text(*v)) : dflt;
  };
  Layer l;
  l.name = spec_.name + "/" + p.name;
  l.n = num("N", 1);
  l.c = int(*parse_int_text(get("C")));
  l.h = int(*parse_int_text(get("H")));
  l.w = int(*parse_int_text(get("W")));
  l.k = int(*parse_int_text(get("K")));
  l.ky = int(*parse_int_text(get("ky")));
  l.kx = int(*parse_int_text(get("kx")));
  l.sy = num("sy", 1);
  l.sx = num("sx", 1);
  l.dy = num("dy", 1);
  l.dx = num("dx", 1);
  const auto pad = [&](const char* key, int same) {
    const std::string* v = find_param(p.merged, key);
    if (!v) return 0;
    return *v == "same" ? same : int(*parse_int_text(*v));
  };
  l.pt = pad("pt", same_before(l.extent_y()));
  l.pb = pad("pb", same_after(l.extent_y()));
  l.pl = pad("pl", same_before(l.extent_x()));
  l.pr = pad("pr", same_after(l.extent_x()));

  for (const auto& key : spec_.swept_keys) {
    const auto kind = param_kind(key);
    std::string v;
    if (kind == ParamKind::layer) v = layer_value(l, key);
    else if (kind == ParamKind::compiler) v = key == "tiling" ? out.tiling : out.options.order;
    else v = lookup(cfg_node, key);
    out.values.emplace_back(key, v);
  }

  // From here on, problems belong to the combination, not to a value: the point is rejected.
  if (out.tiling == analytic::tiling_name(analytic::Tiling::search) && find_param(p.merged, "order")) {
    out.state = PreparedPoint::rejected;
    out.message = "order: picks the loop order of the compiler's heuristic plan and needs tiling: heuristic (the "
                  "tiling search, the default, chooses the loop order itself)";
    return out;
  }
  try {
    validate_layer(l, source);
    out.layer = l;
    out.has_layer = true;
  } catch (const InputError& e) {
    out.state = PreparedPoint::rejected;
    out.message = fmt::format("invalid layer: {}{}", e.key().empty() ? "" : e.key() + ": ", e.problem());
    return out;
  }
  try {
    (void)compile_layer(l, out.config, out.options);
  } catch (const InputError& e) {
    out.state = PreparedPoint::rejected;
    out.message = fmt::format("{}{}", e.key().empty() ? "" : e.key() + ": ", e.problem());
    return out;
  } catch (const std::exception& e) {
    out.state = PreparedPoint::failed;
    out.message = fmt::format("the layer compiler failed: {}", e.what());
    return out;
  }
  out.lowered = explicit_lowering_traffic(l, out.config, out.options, *analytic::tiling_named(out.tiling));
  return out;
}

}  // namespace flycol::sweep
