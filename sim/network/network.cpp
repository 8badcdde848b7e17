// Network files: the layer list and the paper's figures, checked key by key. Convolution entries
// are handed to the layer parser (sim/config/layer.h) so they obey exactly the rules of --layer.
#include "sim/network/network.h"

#include <algorithm>
#include <filesystem>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "sim/common/input_error.h"
#include "sim/common/text.h"
#include "sim/config/config.h"
#include "sim/config/scalars.h"
#include "sim/config/yaml_guard.h"

namespace flycol {
namespace {

constexpr std::int64_t kMaxDim = 65536;

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

PaperPair paper_pair(const YAML::Node& node, const std::string& source, const std::string& key) {
  PaperPair p;
  p.given = true;
  bool e = false, f = false;
  for (const auto& x : mapping_entries(node, source, key, {"explicit", "feeder"})) {
    const double v = yaml_number(x.value, source, join_key(key, x.key), 0, false, 1e9);
    if (x.key == "explicit") {
      p.expl = v;
      e = true;
    } else {
      p.feeder = v;
      f = true;
    }
  }
  if (!e || !f) throw InputError(source, key, "needs both explicit and feeder");
  return p;
}

PaperFigures paper_figures(const YAML::Node& node, const std::string& source) {
  PaperFigures p;
  const std::vector<std::string> keys = {"total_mb", "avg_gbps", "max_gbps", "time_ms", "gflops", "dram_stall_pct"};
  for (const auto& x : mapping_entries(node, source, "paper", keys)) {
    const PaperPair v = paper_pair(x.value, source, join_key("paper", x.key));
    if (x.key == "total_mb") p.total_mb = v;
    else if (x.key == "avg_gbps") p.avg_gbps = v;
    else if (x.key == "max_gbps") p.max_gbps = v;
    else if (x.key == "time_ms") p.time_ms = v;
    else if (x.key == "gflops") p.gflops = v;
    else p.dram_stall_pct = v;
  }
  return p;
}

// The keys a convolution entry may use: the layer keys plus `op`.
std::vector<std::string> conv_keys() {
  return {"name", "op", "N", "C", "H", "W", "K", "k", "ky", "kx", "kernel", "s", "sy", "sx", "stride",
          "d", "dy", "dx", "dilation", "p", "pt", "pb", "pl", "pr", "padding"};
}

NetworkLayer parse_entry(const YAML::Node& node, const std::string& source, const std::string& where) {
  if (!node.IsMap())
    throw InputError(source, where, fmt::format("{}: must be a mapping (a layer)", describe_node(node)));
  std::string op = "conv";
  if (const YAML::Node o = node["op"]) op = yaml_string(o, source, join_key(where, "op"), "an operation name");
  if (!node["name"]) throw InputError(source, join_key(where, "name"), "is missing: every layer needs a name");
  NetworkLayer nl;
  nl.op = op;
  const auto& host = host_ops();
  if (op == "conv") {
    // Everything but `op` is a layer mapping for the layer parser.
    YAML::Node conv(YAML::NodeType::Map);
    for (const auto& e : mapping_entries(node, source, where, conv_keys()))
      if (e.key != "op") conv[e.key] = e.value;
    nl.layer = parse_layer_node(conv, source, where);
    nl.name = nl.layer.name;
    nl.c = nl.layer.c, nl.h = nl.layer.h, nl.w = nl.layer.w;
    return nl;
  }
  if (op == "fc") {
    // A fully connected layer is a 1x1 convolution over a 1 x 1 map.
    Layer& l = nl.layer;
    l.h = l.w = l.ky = l.kx = 1;
    bool c = false, k = false;
    for (const auto& e : mapping_entries(node, source, where, {"name", "op", "N", "C", "K"})) {
      const std::string key = join_key(where, e.key);
      if (e.key == "name") {
        l.name = yaml_string(e.value, source, key, "a layer name");
      } else if (e.key == "N") {
        l.n = int(yaml_int(e.value, source, key, 1, 64));
      } else if (e.key == "C") {
        l.c = int(yaml_int(e.value, source, key, 1, kMaxDim));
        c = true;
      } else if (e.key == "K") {
        l.k = int(yaml_int(e.value, source, key, 1, kMaxDim));
        k = true;
      }
    }
    if (!c || !k) throw InputError(source, join_key(where, c ? "K" : "C"), "is missing: a fully connected layer needs C and K");
    validate_layer(l, source, where);
    nl.name = l.name;
    nl.c = l.c, nl.h = 1, nl.w = 1;
    return nl;
  }
  if (std::find(host.begin(), host.end(), op) == host.end())
    throw InputError(source, join_key(where, "op"),
                     fmt::format("= {}: must be conv, fc (run on the array) or one of {} (listed, run on the host)",
                                 op, join(host)));
  nl.on_array = false;
  int k = 0, s = 0, p = -1;
  for (const auto& e : mapping_entries(node, source, where, {"name", "op", "C", "H", "W", "k", "s", "p"})) {
    const std::string key = join_key(where, e.key);
    if (e.key == "name") {
      nl.name = yaml_string(e.value, source, key, "a layer name");
      if (!valid_name(nl.name, 128, "/:"))
        throw InputError(source, key, fmt::format("= {}: must be 1 to 128 characters from A-Z a-z 0-9 _ . - / :", nl.name));
    } else if (e.key == "C") {
      nl.c = int(yaml_int(e.value, source, key, 1, kMaxDim));
    } else if (e.key == "H") {
      nl.h = int(yaml_int(e.value, source, key, 1, kMaxDim));
    } else if (e.key == "W") {
      nl.w = int(yaml_int(e.value, source, key, 1, kMaxDim));
    } else if (e.key == "k") {
      k = int(yaml_int(e.value, source, key, 1, kMaxDim));
    } else if (e.key == "s") {
      s = int(yaml_int(e.value, source, key, 1, kMaxDim));
    } else if (e.key == "p") {
      p = int(yaml_int(e.value, source, key, 0, kMaxDim));
    }
  }
  if (nl.name.empty()) throw InputError(source, join_key(where, "name"), "is missing: every layer needs a name");
  if (k) nl.detail += fmt::format("{}x{}", k, k);
  if (s) nl.detail += fmt::format("{}s{}", nl.detail.empty() ? "" : " ", s);
  if (p >= 0) nl.detail += fmt::format("{}p{}", nl.detail.empty() ? "" : " ", p);
  return nl;
}

}  // namespace

std::int64_t Network::macs() const {
  std::int64_t m = 0;
  for (const auto& l : layers)
    if (l.on_array) m += l.layer.macs();
  return m;
}

int Network::array_layers() const {
  return int(std::count_if(layers.begin(), layers.end(), [](const NetworkLayer& l) { return l.on_array; }));
}

const std::vector<std::string>& host_ops() {
  static const std::vector<std::string> ops = {"maxpool", "avgpool", "add",  "concat",
                                               "upsample", "softmax", "yolo", "proposal"};
  return ops;
}

std::string networks_dir() { return configs_dir() + "/networks"; }

std::vector<std::string> network_names() {
  namespace fs = std::filesystem;
  std::vector<std::string> out;
  std::error_code ec;
  for (fs::directory_iterator it(networks_dir(), ec), end; !ec && it != end; it.increment(ec))
    if (it->path().extension() == ".yaml" && it->is_regular_file(ec)) out.push_back(it->path().stem().string());
  std::sort(out.begin(), out.end());
  return out;
}

Network parse_network(const std::string& yaml_text, const std::string& source) {
  const YAML::Node root = load_yaml(yaml_text, source);
  if (!root.IsMap())
    throw InputError(source, "", fmt::format("{}: a network file is a mapping with name, title, input, paper and layers",
                                             describe_node(root)));
  Network n;
  n.source = source;
  bool have_layers = false;
  for (const auto& e : mapping_entries(root, source, "", {"name", "title", "input", "paper", "layers"})) {
    if (e.key == "name") {
      n.name = yaml_string(e.value, source, "name", "a network name");
      if (!valid_name(n.name, 64))
        throw InputError(source, "name", fmt::format("= {}: must be 1 to 64 characters from A-Z a-z 0-9 _ . -", n.name));
    } else if (e.key == "title") {
      n.title = yaml_string(e.value, source, "title", "a title");
    } else if (e.key == "input") {
      for (const auto& x : mapping_entries(e.value, source, "input", {"C", "H", "W"})) {
        const int v = int(yaml_int(x.value, source, join_key("input", x.key), 1, kMaxDim));
        (x.key == "C" ? n.in_c : x.key == "H" ? n.in_h : n.in_w) = v;
      }
    } else if (e.key == "paper") {
      n.paper = paper_figures(e.value, source);
    } else {
      if (!e.value.IsSequence() || e.value.size() == 0)
        throw InputError(source, "layers", fmt::format("{}: must be a non-empty list of layers", describe_node(e.value)));
      have_layers = true;
      for (std::size_t i = 0; i < e.value.size(); ++i)
        n.layers.push_back(parse_entry(e.value[i], source, fmt::format("layers[{}]", i)));
    }
  }
  if (n.name.empty()) throw InputError(source, "name", "is missing");
  if (!have_layers) throw InputError(source, "layers", "is missing: a network needs a list of layers");
  for (std::size_t i = 0; i < n.layers.size(); ++i)
    for (std::size_t j = 0; j < i; ++j)
      if (n.layers[i].name == n.layers[j].name)
        throw InputError(source, fmt::format("layers[{}].name", i),
                         fmt::format("= {}: the name is already used by layers[{}]", n.layers[i].name, j));
  if (n.array_layers() == 0) throw InputError(source, "layers", "has no layer the array runs (conv or fc)");
  if (n.title.empty()) n.title = n.name;
  return n;
}

Network load_network(const std::string& what) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (ends_with(what, ".yaml") || ends_with(what, ".yml") || fs::is_regular_file(what, ec))
    return parse_network(read_text_file(what), what);
  const std::vector<std::string> names = network_names();
  if (std::find(names.begin(), names.end(), what) != names.end()) {
    const std::string path = networks_dir() + "/" + what + ".yaml";
    return parse_network(read_text_file(path), path);
  }
  throw InputError("--network", "",
                   fmt::format("unknown network '{}': give a file or one of {} (the files in {})", what,
                               names.empty() ? std::string("none") : join(names), networks_dir()));
}

}  // namespace flycol
