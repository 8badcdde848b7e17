// Network files: the layer list and the paper's figures, checked key by key. Convolution entries
// are handed to the layer parser (sim/config/layer.h) so they obey exactly the rules of --layer.
#include "sim/network/network.h"

#include <algorithm>
#include <filesystem>
#include <initializer_list>
#include <stdexcept>

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

// The keys a convolution entry may use: the layer keys plus `op`, `groups` and `inputs`.
std::vector<std::string> conv_keys() {
  return {"name", "op", "N", "C", "H", "W", "K", "k", "ky", "kx", "kernel", "s", "sy", "sx", "stride",
          "d", "dy", "dx", "dilation", "p", "pt", "pb", "pl", "pr", "padding", "groups", "inputs"};
}

// Key `inputs`: a non-empty list of distinct names; whether they name earlier layers is checked
// once every name is known (check_connections).
std::vector<std::string> parse_inputs(const YAML::Node& node, const std::string& source, const std::string& key) {
  if (!node.IsSequence() || node.size() == 0)
    throw InputError(source, key,
                     fmt::format("{}: must be a non-empty list of earlier layer names or \"input\" (the network's "
                                 "input), e.g. [conv1, pool1]",
                                 describe_node(node)));
  std::vector<std::string> out;
  for (std::size_t i = 0; i < node.size(); ++i) {
    const std::string k = fmt::format("{}[{}]", key, i);
    std::string name = yaml_string(node[i], source, k, "a layer name or \"input\"");
    if (std::find(out.begin(), out.end(), name) != out.end())
      throw InputError(source, k, fmt::format("= {}: already listed: every input is named once", name));
    out.push_back(std::move(name));
  }
  return out;
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
    // Everything but `op`, `groups` and `inputs` is a layer mapping for the layer parser.
    YAML::Node conv(YAML::NodeType::Map);
    for (const auto& e : mapping_entries(node, source, where, conv_keys())) {
      if (e.key == "groups")
        nl.groups = int(yaml_int(e.value, source, join_key(where, "groups"), 1, kMaxDim));
      else if (e.key == "inputs")
        nl.inputs = parse_inputs(e.value, source, join_key(where, "inputs"));
      else if (e.key != "op")
        conv[e.key] = e.value;
    }
    nl.layer = parse_layer_node(conv, source, where);
    nl.name = nl.layer.name;
    nl.c = nl.layer.c, nl.h = nl.layer.h, nl.w = nl.layer.w;
    if (nl.groups > 1) {
      // C and K are the totals (ONNX, PyTorch); the array runs one group's layer `groups` times.
      if (nl.layer.c % nl.groups != 0 || nl.layer.k % nl.groups != 0)
        throw InputError(source, join_key(where, "groups"),
                         fmt::format("= {}: must divide both C = {} and K = {} (the totals over all groups; "
                                     "depthwise: groups = C = K)",
                                     nl.groups, nl.layer.c, nl.layer.k));
      nl.layer.c /= nl.groups;
      nl.layer.k /= nl.groups;
      validate_layer(nl.layer, source, where);
    }
    return nl;
  }
  if (op == "fc") {
    // A fully connected layer is a 1x1 convolution over a 1 x 1 map.
    Layer& l = nl.layer;
    l.h = l.w = l.ky = l.kx = 1;
    bool c = false, k = false;
    for (const auto& e : mapping_entries(node, source, where, {"name", "op", "N", "C", "K", "inputs"})) {
      const std::string key = join_key(where, e.key);
      if (e.key == "inputs") {
        nl.inputs = parse_inputs(e.value, source, key);
      } else if (e.key == "name") {
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
  for (const auto& e : mapping_entries(node, source, where, {"name", "op", "C", "H", "W", "k", "s", "p", "inputs"})) {
    const std::string key = join_key(where, e.key);
    if (e.key == "inputs") {
      nl.inputs = parse_inputs(e.value, source, key);
    } else if (e.key == "name") {
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
  nl.k = k, nl.s = s, nl.p = p;
  if (nl.c > 0 && nl.h > 0 && nl.w > 0 && (op == "globalavgpool" || (is_pooling_op(op) && k > 0))) {
    PoolWindow& w = nl.pool;
    w.known = true;
    w.ky = op == "globalavgpool" ? nl.h : k;
    w.kx = op == "globalavgpool" ? nl.w : k;
    w.sy = w.sx = s > 0 ? s : 1;
    w.pt = w.pb = w.pl = w.pr = p > 0 ? p : 0;
  }
  if (k) nl.detail += fmt::format("{}x{}", k, k);
  if (s) nl.detail += fmt::format("{}s{}", nl.detail.empty() ? "" : " ", s);
  if (p >= 0) nl.detail += fmt::format("{}p{}", nl.detail.empty() ? "" : " ", p);
  return nl;
}

// A tensor's C x H x W where the parser can compute it (known = false: it cannot, e.g. after a
// reshape, or a host op listed without its shape).
struct Dims {
  bool known = false;
  std::int64_t c = 0, h = 0, w = 0;
};
Dims dims(std::int64_t c, std::int64_t h, std::int64_t w) {
  Dims d;
  d.known = true;
  d.c = c, d.h = h, d.w = w;
  return d;
}
std::string text(const Dims& d) { return fmt::format("{} x {} x {}", d.c, d.h, d.w); }

bool one_of(const std::string& op, std::initializer_list<const char*> ops) {
  for (const char* o : ops)
    if (op == o) return true;
  return false;
}

// "input, a, b, ..., y, z (layers[0] to layers[i-1])": the names an `inputs` entry may use.
std::string allowed_names(const Network& n, std::size_t i) {
  std::vector<std::string> names = {"\"input\""};
  if (i <= 12) {
    for (std::size_t j = 0; j < i; ++j) names.push_back(n.layers[j].name);
  } else {
    for (std::size_t j = 0; j < 4; ++j) names.push_back(n.layers[j].name);
    names.push_back("...");
    for (std::size_t j = i - 4; j < i; ++j) names.push_back(n.layers[j].name);
  }
  return join(names) + (i ? fmt::format(" (layers[0] to layers[{}])", i - 1) : std::string(" (the first layer reads only the input)"));
}

// Resolves every layer's inputs to earlier layers and checks the listed shapes against what the
// inputs produce where that is computable. What is checked (docs/networks.md):
//   conv: its one input is C x H x W (C the total over the groups); fc: one input of C values
//   (a C x 1 x 1 vector, or a map that flattens to C); add, mul: every input is C x H x W;
//   concat, proposal: H and W equal, channels summing to C; other host ops: their one input is
//   C x H x W (or, listed without a shape, they pass it through when they keep the shape).
// Outputs: conv K x Ho x Wo, fc K x 1 x 1, pooling from k, s, p (floor, ONNX's default), upsample
// and resize x s, globalavgpool C x 1 x 1, flatten C*H*W x 1 x 1; shape-keeping ops their listed
// shape; reshape, proposal and a resize without s: unknown, so their readers are not checked.
void check_connections(const Network& n, const std::string& source) {
  std::vector<Dims> out(n.layers.size());
  const Dims input = n.in_c > 0 && n.in_h > 0 && n.in_w > 0 ? dims(n.in_c, n.in_h, n.in_w) : Dims{};
  for (std::size_t i = 0; i < n.layers.size(); ++i) {
    const NetworkLayer& l = n.layers[i];
    const std::string where = fmt::format("layers[{}]", i);
    // The tensors it reads.
    std::vector<Dims> in;
    std::vector<std::string> from;
    if (l.inputs.empty()) {
      in.push_back(i == 0 ? input : out[i - 1]);
      from.push_back(i == 0 ? std::string("the network's input") : fmt::format("the previous layer '{}'", n.layers[i - 1].name));
    }
    for (std::size_t j = 0; j < l.inputs.size(); ++j) {
      const std::string& name = l.inputs[j];
      const std::string key = fmt::format("{}.inputs[{}]", where, j);
      if (name == "input") {
        in.push_back(input);
        from.push_back("the network's input");
        continue;
      }
      std::size_t at = n.layers.size();
      for (std::size_t k = 0; k < n.layers.size(); ++k)
        if (n.layers[k].name == name) at = k;
      if (at == n.layers.size())
        throw InputError(source, key, fmt::format("= {}: no layer has this name; allowed: {}", name, allowed_names(n, i)));
      if (at >= i)
        throw InputError(source, key,
                         fmt::format("= {}: names {} (layers[{}]), which is not earlier: a layer reads only earlier "
                                     "layers; allowed: {}",
                                     name, at == i ? "the layer itself" : "a later layer", at, allowed_names(n, i)));
      in.push_back(out[at]);
      from.push_back(fmt::format("'{}'", name));
    }
    const std::string hint =
        l.inputs.empty() ? " (if the layer reads another layer, name it with `inputs: [...]`)" : "";
    const Dims listed = dims(l.c, l.h, l.w);
    const bool has_shape = l.c > 0 && l.h > 0 && l.w > 0;
    auto mismatch = [&](const std::string& key, const std::string& what, std::size_t j) {
      return InputError(source, join_key(where, key),
                        fmt::format("{} ({}) lists {} but {} produces {}{}", what, l.name,
                                    key == "C" || key == "H" || key == "W" ? text(listed) : std::string("its input"),
                                    from[j], text(in[j]), hint));
    };
    // The first dimension of a and b that differs: "C", "H", "W" or "".
    auto differs = [](const Dims& a, const Dims& b) -> std::string {
      return a.c != b.c ? "C" : a.h != b.h ? "H" : a.w != b.w ? "W" : "";
    };
    const bool many = in.size() > 1;
    const bool multi_ok = one_of(l.op, {"add", "mul", "concat", "proposal"});
    if (many && !multi_ok)
      throw InputError(source, join_key(where, "inputs"),
                       fmt::format("lists {} inputs, but a {} layer reads one tensor (only add, mul, concat and "
                                   "proposal read several)",
                                   in.size(), l.op));

    if (l.op == "conv") {
      if (in[0].known) {
        const std::string d = differs(in[0], listed);
        if (!d.empty()) throw mismatch(d, "the convolution's input", 0);
      }
      out[i] = dims(std::int64_t(l.layer.k) * l.groups, l.layer.ho(), l.layer.wo());
    } else if (l.op == "fc") {
      if (in[0].known && in[0].c * in[0].h * in[0].w != l.layer.c)
        throw InputError(source, join_key(where, "C"),
                         fmt::format("= {}: the fully connected layer ({}) reads {}, which produces {} = {} values{}",
                                     l.layer.c, l.name, from[0], text(in[0]), in[0].c * in[0].h * in[0].w, hint));
      out[i] = dims(l.layer.k, 1, 1);
    } else if (one_of(l.op, {"concat", "proposal"})) {
      bool all = true;
      std::int64_t sum = 0;
      for (std::size_t j = 0; j < in.size(); ++j) {
        if (!in[j].known) {
          all = false;
          continue;
        }
        sum += in[j].c;
        if (has_shape && (in[j].h != l.h || in[j].w != l.w))
          throw InputError(source, join_key(where, in[j].h != l.h ? "H" : "W"),
                           fmt::format("{} ({}) lists {} but {} produces {}: the inputs of a {} share H and W{}", l.op,
                                       l.name, text(listed), from[j], text(in[j]), l.op, hint));
      }
      if (all && has_shape && sum != l.c)
        throw InputError(source, join_key(where, "C"),
                         fmt::format("= {}: a {} lists the channel total of its inputs, and its {} inputs give {}{}",
                                     l.c, l.op, in.size(), sum, hint));
      out[i] = l.op == "concat" && has_shape ? listed : Dims{};
    } else {
      // One input of the listed shape (add, mul: every input).
      if (has_shape)
        for (std::size_t j = 0; j < in.size(); ++j)
          if (in[j].known) {
            const std::string d = differs(in[j], listed);
            if (!d.empty()) throw mismatch(d, l.op, j);
          }
      const Dims x = has_shape ? listed : in[0];
      if (!x.known) {
        out[i] = Dims{};
      } else if (one_of(l.op, {"maxpool", "avgpool"})) {
        const int s = l.s > 0 ? l.s : 1, p = l.p > 0 ? l.p : 0;
        if (l.k > 0 && x.h + 2 * p >= l.k && x.w + 2 * p >= l.k)
          out[i] = dims(x.c, (x.h + 2 * p - l.k) / s + 1, (x.w + 2 * p - l.k) / s + 1);
        else
          out[i] = Dims{};
      } else if (one_of(l.op, {"upsample", "resize"})) {
        out[i] = l.s > 0 ? dims(x.c, x.h * l.s, x.w * l.s) : Dims{};
      } else if (l.op == "globalavgpool") {
        out[i] = dims(x.c, 1, 1);
      } else if (l.op == "flatten") {
        out[i] = dims(x.c * x.h * x.w, 1, 1);
      } else if (l.op == "reshape") {
        out[i] = Dims{};
      } else {
        out[i] = x;  // add, mul, softmax, yolo, relu, leakyrelu, clip, identity, dropout, batchnorm
      }
    }
  }
}

}  // namespace

std::int64_t Network::macs() const {
  std::int64_t m = 0;
  for (const auto& l : layers)
    if (l.on_array) m += l.layer.macs() * l.groups;
  return m;
}

int input_producer(const Network& n, std::size_t i, std::size_t j) {
  const NetworkLayer& l = n.layers.at(i);
  if (l.inputs.empty()) {
    if (j != 0) throw std::invalid_argument(fmt::format("input_producer: layer '{}' reads one tensor", l.name));
    return int(i) - 1;
  }
  const std::string& name = l.inputs.at(j);
  if (name == "input") return -1;
  for (std::size_t k = 0; k < i; ++k)
    if (n.layers[k].name == name) return int(k);
  throw std::invalid_argument(fmt::format("input_producer: layer '{}' reads '{}', no earlier layer", l.name, name));
}

namespace {

// A 1x1 array convolution with a stride above 1 and no padding.
bool strided_pointwise(const NetworkLayer& l) {
  const Layer& c = l.layer;
  return l.on_array && l.op == "conv" && c.kx == 1 && c.ky == 1 && (c.sx > 1 || c.sy > 1) && c.pt == 0 &&
         c.pb == 0 && c.pl == 0 && c.pr == 0;
}

}  // namespace

bool host_subsamples_input(const Network& n, std::size_t i) {
  const NetworkLayer& l = n.layers.at(i);
  if (!strided_pointwise(l) || (!l.inputs.empty() && l.inputs.size() != 1)) return false;
  const int producer = input_producer(n, i, 0);
  if (producer >= 0 && n.layers[std::size_t(producer)].on_array) return false;
  for (std::size_t m = 0; m < n.layers.size(); ++m) {
    const NetworkLayer& r = n.layers[m];
    const std::size_t count = r.inputs.empty() ? 1 : r.inputs.size();
    for (std::size_t j = 0; j < count; ++j) {
      if (int(m) <= producer || input_producer(n, m, j) != producer) continue;
      if (!strided_pointwise(r) || r.layer.sx != l.layer.sx || r.layer.sy != l.layer.sy) return false;
    }
  }
  return true;
}

Layer subsampled_layer(const Layer& l) {
  Layer d = l;
  d.h = l.ho(), d.w = l.wo();
  d.sy = d.sx = 1;
  d.dy = d.dx = 1;
  return d;
}

Network with_batch(const Network& n, int batch) {
  if (batch < 1 || batch > 64)
    throw InputError("--batch", "", fmt::format("= {}: must be 1..64 images (the layer key N's range)", batch));
  Network b = n;
  if (batch == 1) return b;
  b.name = fmt::format("{}-batch{}", n.name, batch);
  b.title = fmt::format("{} (batch {})", n.title, batch);
  b.paper = PaperFigures{};
  b.batch = batch;
  for (NetworkLayer& l : b.layers) {
    if (!l.on_array) continue;
    l.layer.n = batch;
    validate_layer(l.layer, "--batch", l.name);
  }
  return b;
}

int Network::array_layers() const {
  return int(std::count_if(layers.begin(), layers.end(), [](const NetworkLayer& l) { return l.on_array; }));
}

bool is_pooling_op(const std::string& op) { return op == "maxpool" || op == "avgpool" || op == "globalavgpool"; }

const std::vector<std::string>& host_ops() {
  // The first eight are the built-in networks' own; the rest are what the ONNX import emits.
  static const std::vector<std::string> ops = {
      "maxpool", "avgpool",   "add",  "concat", "upsample", "softmax", "yolo",     "proposal", "relu",
      "leakyrelu", "clip",    "mul",  "flatten", "reshape", "resize",  "identity", "dropout",  "globalavgpool",
      "batchnorm"};
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
  check_connections(n, source);
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
