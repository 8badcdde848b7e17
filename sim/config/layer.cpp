// Convolution layers from the compact command-line form or from YAML (layer.h). Both forms feed
// one collector that remembers which key set each dimension, so conflicts ("k" and "kx") and
// range errors name the key the user actually wrote.
#include "sim/config/layer.h"

#include <array>
#include <cctype>
#include <filesystem>
#include <optional>
#include <system_error>
#include <vector>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "sim/common/find_by.h"
#include "sim/common/input_error.h"
#include "sim/common/text.h"
#include "sim/config/scalars.h"
#include "sim/config/yaml_guard.h"

namespace flycol {

namespace {

enum Field { fN, fC, fH, fW, fK, fKy, fKx, fSy, fSx, fDy, fDx, fPt, fPb, fPl, fPr, kFields };

struct FieldInfo {
  const char* key;
  std::int64_t lo, hi;  // padding's upper bound depends on the kernel; see range_of
};
constexpr FieldInfo kFieldInfo[kFields] = {
    {"N", 1, 64},    {"C", 1, 65536}, {"H", 1, 8192}, {"W", 1, 8192}, {"K", 1, 65536},
    {"ky", 1, 255},  {"kx", 1, 255},  {"sy", 1, 64},  {"sx", 1, 64},  {"dy", 1, 255},
    {"dx", 1, 255},  {"pt", 0, 0},    {"pb", 0, 0},   {"pl", 0, 0},   {"pr", 0, 0},
};
constexpr std::int64_t kMaxTensorElems = std::int64_t(1) << 31;
constexpr std::size_t kMaxNameLen = 128;
const char* const kNameExtraChars = "/:";  // framework layer names: "layer1.0/conv1", "Mixed_5b:0"
const char* const kNameExpected = "a name of 1 to 128 characters from A-Z a-z 0-9 _ . - / :";

// Shorthand keys and the fields they set, with the hint given when two of them collide.
struct Group {
  const char* key;
  std::vector<Field> fields;
  const char* hint;
};
const std::vector<Group>& groups() {
  static const std::vector<Group> g = {
      {"N", {fN}, ""}, {"C", {fC}, ""}, {"H", {fH}, ""}, {"W", {fW}, ""}, {"K", {fK}, ""},
      {"k", {fKy, fKx}, "give either k (both kernel sizes) or ky and kx"},
      {"ky", {fKy}, "give either k (both kernel sizes) or ky and kx"},
      {"kx", {fKx}, "give either k (both kernel sizes) or ky and kx"},
      {"kernel", {fKy, fKx}, "give either kernel: [ky, kx], or k, or ky and kx"},
      {"s", {fSy, fSx}, "give either s (both strides) or sy and sx"},
      {"sy", {fSy}, "give either s (both strides) or sy and sx"},
      {"sx", {fSx}, "give either s (both strides) or sy and sx"},
      {"stride", {fSy, fSx}, "give either stride: [sy, sx], or s, or sy and sx"},
      {"d", {fDy, fDx}, "give either d (both dilations) or dy and dx"},
      {"dy", {fDy}, "give either d (both dilations) or dy and dx"},
      {"dx", {fDx}, "give either d (both dilations) or dy and dx"},
      {"dilation", {fDy, fDx}, "give either dilation: [dy, dx], or d, or dy and dx"},
      {"p", {fPt, fPb, fPl, fPr}, "give either p (all four sides) or pt, pb, pl and pr"},
      {"pt", {fPt}, "give either p (all four sides) or pt, pb, pl and pr"},
      {"pb", {fPb}, "give either p (all four sides) or pt, pb, pl and pr"},
      {"pl", {fPl}, "give either p (all four sides) or pt, pb, pl and pr"},
      {"pr", {fPr}, "give either p (all four sides) or pt, pb, pl and pr"},
      {"padding", {fPt, fPb, fPl, fPr}, "give either padding: [pt, pb, pl, pr], or p, or pt, pb, pl and pr"},
  };
  return g;
}
const Group* find_group(const std::string& key) { return find_by(groups(), &Group::key, key); }
bool is_list_key(const std::string& key) {
  return key == "kernel" || key == "stride" || key == "dilation" || key == "padding";
}

std::string compact_keys() { return "name, N, C, H, W, K, k, ky, kx, s, sy, sx, d, dy, dx, p, pt, pb, pl, pr"; }
std::vector<std::string> yaml_keys() {
  std::vector<std::string> keys = {"name"};
  for (const auto& g : groups()) keys.push_back(g.key);
  return keys;
}

constexpr int Layer::*kMembers[kFields] = {&Layer::n,  &Layer::c,  &Layer::h,  &Layer::w,  &Layer::k,
                                            &Layer::ky, &Layer::kx, &Layer::sy, &Layer::sx, &Layer::dy,
                                            &Layer::dx, &Layer::pt, &Layer::pb, &Layer::pl, &Layer::pr};

struct Range {
  std::int64_t lo, hi;
  std::string why;  // appended for the ranges that depend on other keys
};
Range range_of(const Layer& l, Field f) {
  if (f == fPt || f == fPb)
    return {0, l.extent_y(), fmt::format(" (up to the dilated kernel height (ky - 1) * dy + 1 = {})", l.extent_y())};
  if (f == fPl || f == fPr)
    return {0, l.extent_x(), fmt::format(" (up to the dilated kernel width (kx - 1) * dx + 1 = {})", l.extent_x())};
  return {kFieldInfo[f].lo, kFieldInfo[f].hi, ""};
}

std::string prefixed(const std::string& where, const std::string& key) { return join_key(where, key); }

// How each field was written, for messages: the key and, for list forms, the element ("kernel[1]").
using KeyNames = std::array<std::string, kFields>;
KeyNames canonical_keys() {
  KeyNames k;
  for (int f = 0; f < kFields; ++f) k[f] = kFieldInfo[f].key;
  return k;
}

void check_layer(const Layer& l, const std::string& source, const std::string& where, const KeyNames& keys) {
  if (!valid_name(l.name, kMaxNameLen, kNameExtraChars))
    throw InputError(source, prefixed(where, "name"), fmt::format("= {}: must be {}", l.name, kNameExpected));
  // Kernel and dilation first: the padding ranges are derived from them.
  for (int f = 0; f < kFields; ++f) {
    const Range r = range_of(l, Field(f));
    const int v = l.*kMembers[f];
    if (v < r.lo || v > r.hi)
      throw InputError(source, prefixed(where, keys[f]),
                       fmt::format("= {}: must be an integer in {}{}", v, int_range_text(r.lo, r.hi), r.why));
  }
  if (l.h + l.pt + l.pb < l.extent_y())
    throw InputError(source, prefixed(where, "H"),
                     fmt::format("H + pt + pb = {} is smaller than the dilated kernel height (ky - 1) * dy + 1 = {}: "
                                 "make H or the padding larger, or ky or dy smaller",
                                 l.h + l.pt + l.pb, l.extent_y()));
  if (l.w + l.pl + l.pr < l.extent_x())
    throw InputError(source, prefixed(where, "W"),
                     fmt::format("W + pl + pr = {} is smaller than the dilated kernel width (kx - 1) * dx + 1 = {}: "
                                 "make W or the padding larger, or kx or dx smaller",
                                 l.w + l.pl + l.pr, l.extent_x()));
  const auto check_size = [&](const char* key, const char* tensor, const char* formula, std::int64_t elems) {
    if (elems > kMaxTensorElems)
      throw InputError(source, prefixed(where, key),
                       fmt::format("the {} has {} = {} elements: at most 2^31 = {} are supported", tensor, formula,
                                   elems, kMaxTensorElems));
  };
  check_size("C", "ifmap", "N x C x H x W", l.ifmap_elems());
  check_size("K", "weight tensor", "K x C x ky x kx", l.weight_elems());
  check_size("K", "ofmap", "N x K x Ho x Wo", l.ofmap_elems());
}

// A value as written, before it is known to be a number.
struct Raw {
  std::string text;
  bool plain = true;      // a plain scalar (or compact-form text) that may be a number
  std::string described;  // "= 3.5", "is a mapping", ... for messages
};
Raw raw_from_text(const std::string& text) { return {text, true, text.empty() ? "is empty" : "= " + text}; }
Raw raw_from_node(const YAML::Node& n) {
  const bool plain = n.IsScalar() && n.Tag() == "?";
  return {plain ? n.Scalar() : std::string(), plain, describe_node(n)};
}

// Collects key = value assignments from either form and builds the checked layer.
class LayerBuilder {
public:
  LayerBuilder(std::string source, std::string where) : source_(std::move(source)), where_(std::move(where)) {}

  void set_name(const std::string& name, const std::string& described) {
    if (name_given_)
      throw InputError(source_, key("name"), "is given twice");
    name_given_ = true;
    if (!valid_name(name, kMaxNameLen, kNameExtraChars))
      throw InputError(source_, key("name"), fmt::format("{}: must be {}", described, kNameExpected));
    layer_.name = name;
  }

  // `group_key` is the key as written ("k", "kernel"); `value_key` the name for value errors.
  void set(const Group& g, Field f, const Raw& raw, const std::string& value_key) {
    if (!given_by_[f].empty()) {
      if (given_by_[f] == g.key)
        throw InputError(source_, key(g.key), fmt::format("is given twice ({}={} and {}={})", g.key, raw_[f].text,
                                                          g.key, raw.text));
      throw InputError(source_, key(g.key), fmt::format("conflicts with {}: {}", given_by_[f], g.hint));
    }
    given_by_[f] = g.key;
    keys_[f] = value_key;
    raw_[f] = raw;
  }

  Layer build() {
    const char* required = "a layer needs C, H, W, K and the kernel size (k, or ky and kx)";
    for (Field f : {fC, fH, fW, fK})
      if (given_by_[f].empty()) throw InputError(source_, key(kFieldInfo[f].key), fmt::format("is missing: {}", required));
    if (given_by_[fKy].empty() && given_by_[fKx].empty())
      throw InputError(source_, key("k"), fmt::format("is missing: {}", required));
    require_all({fKy, fKx}, "k for both");
    require_all({fSy, fSx}, "s for both");
    require_all({fDy, fDx}, "d for both");
    require_all({fPt, fPb, fPl, fPr}, "p for all four");
    // Padding last: its range depends on the kernel and dilation parsed before it.
    for (int f = 0; f < kFields; ++f) {
      if (given_by_[f].empty()) continue;
      const Range r = range_of(layer_, Field(f));
      const Raw& raw = raw_[f];
      std::optional<std::int64_t> v;
      if (raw.plain) v = parse_int_text(raw.text);
      if (!v || *v < r.lo || *v > r.hi)
        throw InputError(source_, key(keys_[f]),
                         fmt::format("{}: must be an integer in {}{}", raw.described, int_range_text(r.lo, r.hi), r.why));
      layer_.*kMembers[f] = int(*v);
    }
    check_layer(layer_, source_, where_, keys_);
    return layer_;
  }

  const std::string& source() const { return source_; }
  std::string key(const std::string& k) const { return prefixed(where_, k); }

private:
  // Of a pair (or the four paddings), one given means all are needed.
  void require_all(std::initializer_list<Field> fields, const char* shorthand) {
    std::string given, names;
    for (Field f : fields) {
      names += (names.empty() ? "" : ", ") + std::string(kFieldInfo[f].key);
      if (!given_by_[f].empty() && given.empty()) given = kFieldInfo[f].key;
    }
    if (given.empty()) return;
    for (Field f : fields)
      if (given_by_[f].empty())
        throw InputError(source_, key(kFieldInfo[f].key),
                         fmt::format("is missing: {} is given, so {} are all needed (or {})", given, names, shorthand));
  }

  std::string source_, where_;
  Layer layer_;
  bool name_given_ = false;
  std::array<std::string, kFields> given_by_;
  KeyNames keys_ = canonical_keys();
  std::array<Raw, kFields> raw_;
};

}  // namespace

std::string Layer::spec() const {
  std::string s;
  if (name != "layer") s += "name=" + name + ",";
  s += fmt::format("N={},C={},H={},W={},K={}", n, c, h, w, k);
  s += ky == kx ? fmt::format(",k={}", ky) : fmt::format(",ky={},kx={}", ky, kx);
  s += sy == sx ? fmt::format(",s={}", sy) : fmt::format(",sy={},sx={}", sy, sx);
  s += dy == dx ? fmt::format(",d={}", dy) : fmt::format(",dy={},dx={}", dy, dx);
  s += pt == pb && pt == pl && pt == pr ? fmt::format(",p={}", pt)
                                        : fmt::format(",pt={},pb={},pl={},pr={}", pt, pb, pl, pr);
  return s;
}

bool Layer::operator==(const Layer& o) const {
  return name == o.name && n == o.n && c == o.c && h == o.h && w == o.w && k == o.k && ky == o.ky && kx == o.kx &&
         sy == o.sy && sx == o.sx && dy == o.dy && dx == o.dx && pt == o.pt && pb == o.pb && pl == o.pl &&
         pr == o.pr;
}

Layer default_layer() {
  Layer l;
  l.c = 64, l.h = 56, l.w = 56, l.k = 64;
  l.ky = l.kx = 3;
  l.pt = l.pb = l.pl = l.pr = 1;
  return l;
}

void validate_layer(const Layer& l, const std::string& source, const std::string& where) {
  check_layer(l, source, where, canonical_keys());
}

Layer parse_layer_spec(const std::string& spec, const std::string& source) {
  if (trim(spec).empty())
    throw InputError(source, "", "the layer is empty: give at least C, H, W, K and k, e.g. C=64,H=56,W=56,K=64,k=3");
  LayerBuilder b(source, "");
  std::size_t start = 0;
  for (int item = 1;; ++item) {
    const std::size_t comma = spec.find(',', start);
    const std::string token = trim(spec.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (token.empty())
      throw InputError(source, "", fmt::format("item {} is empty: items are key=value separated by single commas", item));
    const std::size_t eq = token.find('=');
    if (eq == std::string::npos)
      throw InputError(source, "", fmt::format("item '{}' is not key=value (keys: {})", token, compact_keys()));
    const std::string key = trim(token.substr(0, eq));
    const std::string value = trim(token.substr(eq + 1));
    const Group* g = find_group(key);
    if (key == "name") {
      b.set_name(value, value.empty() ? "is empty" : "= " + value);
    } else if (g != nullptr && !is_list_key(key)) {
      for (Field f : g->fields) b.set(*g, f, raw_from_text(value), key);
    } else {
      // Keys are case-sensitive because K (output channels) and k (kernel) both exist.
      std::string hint;
      for (const char* known : {"name", "N", "C", "H", "W", "K"})
        if (key.size() == std::string(known).size() &&
            std::equal(key.begin(), key.end(), known, [](char a, char c) { return std::toupper(a) == std::toupper(c); }) &&
            key != known)
          hint = fmt::format(" (keys are case-sensitive: did you mean {}?)", known);
      throw InputError(source, key,
                       fmt::format("{}unknown key{} (allowed: {})", key.empty() ? "item '" + token + "' has an empty key: " : "",
                                   hint, compact_keys()));
    }
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return b.build();
}

Layer parse_layer_node(const YAML::Node& node, const std::string& source, const std::string& where) {
  LayerBuilder b(source, where);
  for (const auto& e : mapping_entries(node, source, where, yaml_keys())) {
    if (e.key == "name") {
      b.set_name(yaml_string(e.value, source, b.key("name"), kNameExpected), describe_node(e.value));
      continue;
    }
    const Group& g = *find_group(e.key);
    if (!is_list_key(e.key)) {
      for (Field f : g.fields) b.set(g, f, raw_from_node(e.value), e.key);
    } else if (e.value.IsSequence() && e.value.size() == g.fields.size()) {
      for (std::size_t i = 0; i < g.fields.size(); ++i)
        b.set(g, g.fields[i], raw_from_node(e.value[i]), fmt::format("{}[{}]", e.key, i));
    } else if (e.value.IsScalar()) {  // one value for every direction, like the short key
      for (Field f : g.fields) b.set(g, f, raw_from_node(e.value), e.key);
    } else {
      std::string form;
      for (Field f : g.fields) form += (form.empty() ? "" : ", ") + std::string(kFieldInfo[f].key);
      const std::string found = e.value.IsSequence() ? fmt::format("is a sequence of {} entries", e.value.size())
                                                     : describe_node(e.value);
      throw InputError(source, b.key(e.key),
                       fmt::format("{}: must be [{}] or one integer for all of them", found, form));
    }
  }
  return b.build();
}

Layer parse_layer_argument(const std::string& arg) {
  std::error_code ec;
  if (!ends_with(arg, ".yaml") && !ends_with(arg, ".yml") && !std::filesystem::is_regular_file(arg, ec))
    return parse_layer_spec(arg, "--layer");
  const YAML::Node root = load_yaml_file(arg);
  if (root.IsMap()) {
    for (const auto& kv : root)
      if (kv.first.IsScalar() && kv.first.Scalar() == "layer") {
        const auto entries = mapping_entries(root, arg, "", {"layer"});
        return parse_layer_node(entries.front().value, arg, "layer");
      }
  } else if (root.IsNull()) {
    throw InputError(arg, "", "holds no layer: expected a mapping with C, H, W, K and the kernel size");
  }
  return parse_layer_node(root, arg, "");
}

}  // namespace flycol
