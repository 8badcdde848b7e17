// Imported graph -> network layer list (sim/onnx/onnx_network.h). Layer names must be valid and
// unique in a network file, so ONNX names are sanitized and made unique here.
#include "sim/onnx/onnx_network.h"

#include <cctype>
#include <filesystem>
#include <map>
#include <set>

#include <fmt/format.h>

#include "sim/common/input_error.h"

namespace flycol {
namespace {

std::string sanitize(const std::string& s, std::size_t max_len, bool allow_slash_colon) {
  std::string out;
  for (char ch : s) {
    const bool ok = std::isalnum(static_cast<unsigned char>(ch)) || ch == '_' || ch == '.' || ch == '-' ||
                    (allow_slash_colon && (ch == '/' || ch == ':'));
    out += ok ? ch : '_';
  }
  if (out.size() > max_len) out = out.substr(out.size() - max_len);
  return out.empty() ? std::string("net") : out;
}

// C, H, W of a tensor shape as a network file lists it: NCHW -> C H W, [N][F] -> F 1 1,
// [N][C][W] -> C 1 W, higher ranks fold the trailing dimensions into W.
void chw(const graph::Shape& s, int& c, int& h, int& w) {
  c = h = w = 1;
  if (s.size() == 1) c = int(s[0]);
  if (s.size() >= 2) c = int(s[1]);
  if (s.size() == 3) w = int(s[2]);
  if (s.size() >= 4) {
    h = int(s[2]);
    std::int64_t rest = 1;
    for (std::size_t i = 3; i < s.size(); ++i) rest *= s[i];
    w = int(rest);
  }
}

std::string num(double v) { return fmt::format("{}", v); }

std::string list(const std::vector<double>& v) {
  std::vector<std::string> s;
  for (double x : v) s.push_back(num(x));
  return fmt::format("[{}]", fmt::join(s, ","));
}

bool all_equal(const std::vector<double>& v) {
  for (double x : v)
    if (x != v[0]) return false;
  return true;
}

std::string detail_of(const graph::Node& n) {
  auto get = [&n](const char* k) -> const std::vector<double>* {
    auto it = n.attrs.find(k);
    return it == n.attrs.end() || it->second.empty() ? nullptr : &it->second;
  };
  std::vector<std::string> parts;
  if (n.op == "MaxPool" || n.op == "AveragePool") {
    const auto* k = get("kernel_shape");
    const auto* s = get("strides");
    const auto* p = get("pads");
    const auto* d = get("dilations");
    // The network file's form "3x3 s2 p1" where it fits (square, one stride, one padding).
    const bool uniform = k && k->size() == 2 && all_equal(*k) && (!s || all_equal(*s)) && (!p || all_equal(*p)) &&
                         (!d || all_equal(*d)) && (!d || (*d)[0] == 1);
    if (uniform) {
      parts.push_back(fmt::format("{}x{}", num((*k)[0]), num((*k)[0])));
      parts.push_back("s" + num(s ? (*s)[0] : 1));
      parts.push_back("p" + num(p ? (*p)[0] : 0));
    } else {
      if (k) parts.push_back(fmt::format("kernel_shape={}", list(*k)));
      if (s) parts.push_back(fmt::format("strides={}", list(*s)));
      if (p) parts.push_back(fmt::format("pads={}", list(*p)));
      if (d && !all_equal(*d)) parts.push_back(fmt::format("dilations={}", list(*d)));
      if (d && all_equal(*d) && (*d)[0] != 1) parts.push_back(fmt::format("dilations={}", list(*d)));
    }
    for (const char* extra : {"ceil_mode", "count_include_pad"})
      if (const auto* v = get(extra))
        if ((*v)[0] != 0) parts.push_back(fmt::format("{}={}", extra, num((*v)[0])));
    return fmt::format("{}", fmt::join(parts, " "));
  }
  for (const auto& kv : n.attrs) {
    if (kv.first == "scale" || kv.first == "B" || kv.first == "input_mean" || kv.first == "input_var") continue;
    parts.push_back(kv.second.size() == 1 ? fmt::format("{}={}", kv.first, num(kv.second[0]))
                                          : fmt::format("{}={}", kv.first, list(kv.second)));
  }
  for (const auto& kv : n.str_attrs) parts.push_back(fmt::format("{}={}", kv.first, kv.second));
  return fmt::format("{}", fmt::join(parts, " "));
}

// MaxPool, AveragePool (pads and strides resolved by the importer) and GlobalAveragePool as the
// pooling unit takes them; unknown (left on the host) for other nodes or an input of unknown shape.
PoolWindow pool_window(const graph::Node& n, const NetworkLayer& nl) {
  PoolWindow w;
  if (nl.c <= 0 || nl.h <= 0 || nl.w <= 0) return w;
  const auto ints = [&n](const char* k, std::size_t size) -> std::vector<int> {
    auto it = n.attrs.find(k);
    if (it == n.attrs.end() || it->second.size() != size) return {};
    return std::vector<int>(it->second.begin(), it->second.end());
  };
  const auto flag = [&n](const char* k) {
    auto it = n.attrs.find(k);
    return it != n.attrs.end() && !it->second.empty() && it->second[0] != 0;
  };
  if (n.op == "GlobalAveragePool") {
    w.known = true;
    w.ky = nl.h, w.kx = nl.w;
    return w;
  }
  if (n.op != "MaxPool" && n.op != "AveragePool") return w;
  const std::vector<int> k = ints("kernel_shape", 2), s = ints("strides", 2), d = ints("dilations", 2),
                         p = ints("pads", 4);
  if (k.empty() || s.empty() || d.empty() || p.empty()) return w;
  w.known = true;
  w.ky = k[0], w.kx = k[1], w.sy = s[0], w.sx = s[1], w.dy = d[0], w.dx = d[1];
  w.pt = p[0], w.pl = p[1], w.pb = p[2], w.pr = p[3];
  w.ceil_mode = flag("ceil_mode");
  w.count_include_pad = flag("count_include_pad");
  return w;
}

}  // namespace

std::string network_op_of(const graph::Node& node) {
  if (node.on_array) return node.op == "Conv" ? "conv" : "fc";
  static const std::map<std::string, std::string> ops = {
      {"Relu", "relu"},       {"LeakyRelu", "leakyrelu"}, {"Clip", "clip"},         {"Add", "add"},
      {"Mul", "mul"},         {"Concat", "concat"},       {"MaxPool", "maxpool"},   {"AveragePool", "avgpool"},
      {"GlobalAveragePool", "globalavgpool"},             {"Flatten", "flatten"},   {"Reshape", "reshape"},
      {"Resize", "resize"},   {"Upsample", "upsample"},   {"Softmax", "softmax"},   {"Identity", "identity"},
      {"Dropout", "dropout"}, {"BatchNormalization", "batchnorm"}};
  auto it = ops.find(node.op);
  if (it == ops.end()) throw InputError(node.name, "", fmt::format("operator {} has no network-file op", node.op));
  return it->second;
}

Network to_network(const graph::Graph& g) {
  Network net;
  net.name = sanitize(g.name, 64, false);
  net.title = fmt::format("{} (imported from {})", g.name, std::filesystem::path(g.source).filename().string());
  net.source = g.source;
  if (!g.inputs.empty()) chw(g.inputs[0].shape, net.in_c, net.in_h, net.in_w);
  if (!g.inputs.empty() && g.inputs[0].shape.size() == 4 && g.inputs[0].shape[0] >= 1)
    net.batch = int(g.inputs[0].shape[0]);
  std::map<std::string, std::string> layer_of;  // value -> the layer that produces it ("input": graph inputs)
  for (const auto& in : g.inputs) layer_of[in.name] = "input";
  std::set<std::string> names;
  std::string previous = "input";
  for (const auto& node : g.nodes) {
    NetworkLayer nl;
    nl.op = network_op_of(node);
    nl.on_array = node.on_array;
    std::string name = sanitize(node.name, 128, true);
    if (name == "input") name = "input_";
    for (int k = 2; names.count(name); ++k) name = fmt::format("{}_{}", sanitize(node.name, 120, true), k);
    names.insert(name);
    nl.name = name;
    if (node.on_array) {
      nl.layer = node.layer;
      nl.layer.name = name;
      nl.groups = node.groups;
      nl.c = node.layer.c * node.groups, nl.h = node.layer.h, nl.w = node.layer.w;
    } else {
      // C/H/W of the first input that is not a constant.
      const std::string* first = nullptr;
      for (const auto& v : node.inputs)
        if (!g.constants.count(v)) {
          first = &v;
          break;
        }
      if (!first) first = &node.inputs.at(0);
      // Concat lists the channel total of its inputs (as the network files do): its output's shape.
      auto it = g.shapes.find(node.op == "Concat" ? node.outputs.at(0) : *first);
      if (it != g.shapes.end()) chw(it->second, nl.c, nl.h, nl.w);
      nl.detail = detail_of(node);
      nl.pool = pool_window(node, nl);
    }
    std::vector<std::string> inputs;
    for (const auto& v : node.inputs) {
      if (g.constants.count(v)) continue;
      auto it = layer_of.find(v);
      if (it != layer_of.end()) inputs.push_back(it->second);
    }
    if (!(inputs.size() == 1 && inputs[0] == previous)) nl.inputs = inputs;
    for (const auto& o : node.outputs) layer_of[o] = name;
    previous = name;
    net.layers.push_back(std::move(nl));
  }
  return net;
}

Network load_onnx_network(const std::string& path, const ImportOptions& opt) {
  return to_network(import_onnx(path, opt));
}

}  // namespace flycol
