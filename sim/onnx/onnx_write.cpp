// A network file as an ONNX model (onnx_write.h). The mapping, layer by layer:
//   conv     -> Conv (kernel_shape, strides, dilations, pads [top, left, bottom, right], group),
//               weights [K][C/groups][ky][kx] and bias [K] as float32 initializers <name>.weight/.bias
//   fc       -> Gemm (transB = 1, weights [K][C]), after a Flatten (<name>_flatten) where it reads a map
//   maxpool, avgpool -> MaxPool, AveragePool (k, s, p of the file); globalavgpool -> GlobalAveragePool
//   add, mul -> Add, Mul (chained pairwise for more than two inputs); concat -> Concat (axis 1)
//   upsample, resize -> Resize (nearest, scales [1, 1, s, s]); softmax -> Softmax (axis 1, channels)
//   relu -> Relu; leakyrelu -> LeakyRelu (alpha 0.1); flatten -> Flatten; identity, dropout -> Identity
//   batchnorm -> BatchNormalization with identity statistics (the file has none)
//   yolo     -> Identity: darknet's yolo layer only decodes the head's 255 channels into boxes (no
//               ONNX operator, nothing the accelerator runs), so the head's output is passed through
//               under the layer's name and is a graph output
//   proposal -> Concat (axis 1) of its inputs: Faster R-CNN's proposal layer (anchors, NMS) has no
//               ONNX operator; its inputs (class probabilities and box deltas) leave the graph as one
//               tensor of the channel count the network file lists
//   clip, reshape -> not written (the file does not hold their bounds or target shape): InputError
// Node names are the layer names, so the import gives back the file's layer names. Layers nobody
// reads are the graph outputs.
#include "sim/onnx/onnx_write.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <initializer_list>
#include <map>
#include <stdexcept>

#include <fmt/format.h>
#include <onnx/checker.h>
#include <onnx/shape_inference/implementation.h>

#include "sim/common/files.h"
#include "sim/common/input_error.h"
#include "sim/config/yaml_guard.h"

namespace flycol::onnx_write {
namespace {

// Reproducible normal numbers on every platform (std::normal_distribution is not specified bit
// for bit): splitmix64 and Box-Muller.
class Normal {
public:
  explicit Normal(std::uint64_t seed) : s_(seed) {}
  double operator()() {
    if (have_) {
      have_ = false;
      return spare_;
    }
    const double u1 = uniform(), u2 = uniform();
    const double r = std::sqrt(-2.0 * std::log(u1));
    spare_ = r * std::sin(6.283185307179586 * u2);
    have_ = true;
    return r * std::cos(6.283185307179586 * u2);
  }

private:
  std::uint64_t next() {
    std::uint64_t z = (s_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  double uniform() { return (double(next() >> 11) + 0.5) * (1.0 / 9007199254740992.0); }  // (0, 1)
  std::uint64_t s_;
  bool have_ = false;
  double spare_ = 0;
};

// A value of the graph: its name and rank (4: N x C x H x W, 2: N x features after Flatten/Gemm).
struct Value {
  std::string name;
  int rank = 4;
};

void attr_ints(onnx::NodeProto* n, const std::string& name, const std::vector<std::int64_t>& v) {
  onnx::AttributeProto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INTS);
  for (std::int64_t x : v) a->add_ints(x);
}
void attr_int(onnx::NodeProto* n, const std::string& name, std::int64_t v) {
  onnx::AttributeProto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(v);
}
void attr_float(onnx::NodeProto* n, const std::string& name, float v) {
  onnx::AttributeProto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::FLOAT);
  a->set_f(v);
}
void attr_string(onnx::NodeProto* n, const std::string& name, const std::string& v) {
  onnx::AttributeProto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::STRING);
  a->set_s(v);
}

onnx::NodeProto* add_node(onnx::GraphProto* g, const std::string& op, const std::string& name,
                          const std::vector<std::string>& inputs, const std::string& output) {
  onnx::NodeProto* n = g->add_node();
  n->set_op_type(op);
  n->set_name(name);
  for (const std::string& i : inputs) n->add_input(i);
  n->add_output(output);
  return n;
}

// A float32 initializer; `fill(i)` gives element i.
template <typename F>
void add_initializer(onnx::GraphProto* g, const std::string& name, const std::vector<std::int64_t>& dims, F fill) {
  onnx::TensorProto* t = g->add_initializer();
  t->set_name(name);
  t->set_data_type(onnx::TensorProto::FLOAT);
  std::int64_t count = 1;
  for (std::int64_t d : dims) {
    t->add_dims(d);
    count *= d;
  }
  std::string raw(std::size_t(count) * sizeof(float), '\0');  // raw_data: little-endian float32
  char* p = &raw[0];
  for (std::int64_t i = 0; i < count; ++i) {
    const float v = fill(i);
    std::memcpy(p + i * std::int64_t(sizeof(float)), &v, sizeof(float));
  }
  t->set_raw_data(std::move(raw));
}

void set_tensor_type(onnx::ValueInfoProto* v, const std::vector<std::int64_t>& dims) {
  onnx::TypeProto_Tensor* t = v->mutable_type()->mutable_tensor_type();
  t->set_elem_type(onnx::TensorProto::FLOAT);
  for (std::int64_t d : dims) t->mutable_shape()->add_dim()->set_dim_value(d);
}

bool is(const std::string& op, std::initializer_list<const char*> ops) {
  for (const char* o : ops)
    if (op == o) return true;
  return false;
}

}  // namespace

onnx::ModelProto to_onnx(const Network& net, const Options& opt) {
  const std::string src = net.source.empty() ? net.name : net.source;
  if (opt.weights != "random" && opt.weights != "zeros")
    throw InputError("--weights", "", fmt::format("= {}: must be random or zeros", opt.weights));
  if (opt.activations != "auto" && opt.activations != "none")
    throw InputError("--activations", "", fmt::format("= {}: must be auto or none", opt.activations));
  const std::size_t n = net.layers.size();

  // Who reads whom: reads[i] lists layer indices (-1: the network's input).
  std::vector<std::vector<int>> reads(n);
  std::vector<std::vector<int>> readers(n);
  std::map<std::string, int> index;
  for (std::size_t i = 0; i < n; ++i) {
    const NetworkLayer& l = net.layers[i];
    if (l.inputs.empty()) {
      reads[i].push_back(int(i) - 1);
    } else {
      for (const std::string& name : l.inputs) {
        const auto it = index.find(name);
        if (name == "input") reads[i].push_back(-1);
        else if (it != index.end()) reads[i].push_back(it->second);
        else throw InputError(src, fmt::format("layers[{}].inputs", i), fmt::format("= {}: not an earlier layer", name));
      }
    }
    for (int r : reads[i])
      if (r >= 0) readers[std::size_t(r)].push_back(int(i));
    index[l.name] = int(i);
  }
  bool has_yolo = false, lists_activations = false;
  for (const NetworkLayer& l : net.layers) {
    has_yolo = has_yolo || l.op == "yolo";
    lists_activations = lists_activations || is(l.op, {"relu", "leakyrelu", "clip"});
  }
  const bool auto_act = opt.activations == "auto" && !lists_activations;
  // An array layer is followed by the network's activation unless it is a head (read by nobody,
  // or by softmax/yolo/proposal) or, in a ResNet-style network, it feeds a residual add (the
  // activation then follows the add). Darknet (yolo) activates every convolution before its
  // shortcut and leaves the shortcut linear.
  auto activated = [&](std::size_t i) {
    if (!auto_act || !net.layers[i].on_array || readers[i].empty()) return false;
    for (int r : readers[i]) {
      const std::string& op = net.layers[std::size_t(r)].op;
      if (is(op, {"softmax", "yolo", "proposal"})) return false;
      if (!has_yolo && op == "add") return false;
    }
    return true;
  };
  auto add_activated = [&](std::size_t i) {
    if (!auto_act || has_yolo || net.layers[i].op != "add") return false;
    for (int r : reads[i])
      if (r >= 0 && net.layers[std::size_t(r)].on_array) return true;
    return false;
  };
  // He's std keeps the second moment of the activations through conv + ReLU. A residual sum adds
  // the branch to the shortcut, so the branch's last convolution is drawn at 0.2 x He (the sum
  // grows by about 8 % per block, not 2x); an add of array layers only (a projection shortcut and
  // a branch) scales each by 1/sqrt(inputs).
  auto gain = [&](std::size_t i) {
    double g = 1.0;
    for (int r : readers[i]) {
      const NetworkLayer& a = net.layers[std::size_t(r)];
      if (a.op != "add") continue;
      bool all_array = true;
      for (int x : reads[std::size_t(r)]) all_array = all_array && x >= 0 && net.layers[std::size_t(x)].on_array;
      g = std::min(g, all_array ? 1.0 / std::sqrt(double(reads[std::size_t(r)].size())) : 0.2);
    }
    return g;
  };

  onnx::ModelProto m;
  m.set_ir_version(onnx::IR_VERSION);
  m.set_producer_name("flycol");
  m.set_producer_version("onnx-export");
  m.set_doc_string(fmt::format("{} ({}), written by flycol onnx-export with {} weights, seed {}", net.title, src,
                               opt.weights, opt.seed));
  onnx::OperatorSetIdProto* ops = m.add_opset_import();
  ops->set_domain("");
  ops->set_version(13);
  onnx::GraphProto* g = m.mutable_graph();
  g->set_name(net.name);

  int in_c = net.in_c, in_h = net.in_h, in_w = net.in_w;
  if (in_c == 0) in_c = net.layers[0].c, in_h = net.layers[0].h, in_w = net.layers[0].w;
  if (opt.input_h > 0) in_h = opt.input_h;
  if (opt.input_w > 0) in_w = opt.input_w;
  if (in_c <= 0 || in_h <= 0 || in_w <= 0)
    throw InputError(src, "input", "is missing and the first layer lists no C, H, W: the model needs an input shape");
  set_tensor_type(g->add_input(), {1, in_c, in_h, in_w});
  g->mutable_input(0)->set_name("input");

  Normal rnd(opt.seed);
  const bool random = opt.weights == "random";
  std::vector<Value> out(n);
  for (std::size_t i = 0; i < n; ++i) {
    const NetworkLayer& l = net.layers[i];
    const std::string where = fmt::format("layers[{}]", i);
    std::vector<Value> in;
    for (int r : reads[i]) in.push_back(r < 0 ? Value{"input", 4} : out[std::size_t(r)]);
    std::vector<std::string> names;
    for (const Value& v : in) names.push_back(v.name);
    Value o{l.name, in[0].rank};
    if (l.op == "conv") {
      if (in[0].rank != 4)
        throw InputError(src, where, fmt::format("conv '{}' reads a flattened value (an fc output): not written", l.name));
      const Layer& c = l.layer;
      const std::int64_t k = std::int64_t(c.k) * l.groups, fan_in = std::int64_t(c.c) * c.ky * c.kx;
      const double sd = random ? gain(i) * std::sqrt(2.0 / double(fan_in)) : 0.0;
      add_initializer(g, l.name + ".weight", {k, c.c, c.ky, c.kx}, [&](std::int64_t) { return float(sd * rnd()); });
      add_initializer(g, l.name + ".bias", {k}, [&](std::int64_t) { return random ? float(0.01 * rnd()) : 0.0f; });
      onnx::NodeProto* node = add_node(g, "Conv", l.name, {in[0].name, l.name + ".weight", l.name + ".bias"}, l.name);
      attr_ints(node, "kernel_shape", {c.ky, c.kx});
      attr_ints(node, "strides", {c.sy, c.sx});
      attr_ints(node, "dilations", {c.dy, c.dx});
      attr_ints(node, "pads", {c.pt, c.pl, c.pb, c.pr});
      attr_int(node, "group", l.groups);
      o.rank = 4;
    } else if (l.op == "fc") {
      std::string x = in[0].name;
      if (in[0].rank == 4) {
        x = l.name + "_flatten";
        attr_int(add_node(g, "Flatten", x, {in[0].name}, x), "axis", 1);
      }
      const Layer& c = l.layer;
      const double sd = random ? gain(i) * std::sqrt(2.0 / double(c.c)) : 0.0;
      add_initializer(g, l.name + ".weight", {c.k, c.c}, [&](std::int64_t) { return float(sd * rnd()); });
      add_initializer(g, l.name + ".bias", {c.k}, [&](std::int64_t) { return random ? float(0.01 * rnd()) : 0.0f; });
      attr_int(add_node(g, "Gemm", l.name, {x, l.name + ".weight", l.name + ".bias"}, l.name), "transB", 1);
      o.rank = 2;
    } else if (is(l.op, {"maxpool", "avgpool"})) {
      if (l.k <= 0) throw InputError(src, join_key(where, "k"), fmt::format("is missing: {} '{}' needs its window to be written as ONNX", l.op, l.name));
      const std::int64_t s = l.s > 0 ? l.s : 1, p = l.p > 0 ? l.p : 0;
      onnx::NodeProto* node = add_node(g, l.op == "maxpool" ? "MaxPool" : "AveragePool", l.name, {in[0].name}, l.name);
      attr_ints(node, "kernel_shape", {l.k, l.k});
      attr_ints(node, "strides", {s, s});
      attr_ints(node, "pads", {p, p, p, p});
    } else if (is(l.op, {"add", "mul"})) {
      const std::string op = l.op == "add" ? "Add" : "Mul";
      if (in.size() == 1) {
        add_node(g, "Identity", l.name, {in[0].name}, l.name);  // one input: nothing to add
      } else {
        std::string acc = in[0].name;
        for (std::size_t j = 1; j < in.size(); ++j) {
          const std::string name = j + 1 == in.size() ? l.name : fmt::format("{}_{}", l.name, j);
          add_node(g, op, name, {acc, in[j].name}, name);
          acc = name;
        }
      }
    } else if (is(l.op, {"concat", "proposal"})) {
      attr_int(add_node(g, "Concat", l.name, names, l.name), "axis", 1);
    } else if (is(l.op, {"upsample", "resize"})) {
      if (l.s <= 0) throw InputError(src, join_key(where, "s"), fmt::format("is missing: {} '{}' needs its factor s to be written as ONNX", l.op, l.name));
      const float s = float(l.s);
      add_initializer(g, l.name + ".scales", {4}, [&](std::int64_t j) { return j < 2 ? 1.0f : s; });
      onnx::NodeProto* node = add_node(g, "Resize", l.name, {in[0].name, "", l.name + ".scales"}, l.name);
      attr_string(node, "mode", "nearest");
      attr_string(node, "coordinate_transformation_mode", "asymmetric");
      attr_string(node, "nearest_mode", "floor");
    } else if (l.op == "softmax") {
      attr_int(add_node(g, "Softmax", l.name, {in[0].name}, l.name), "axis", 1);
    } else if (is(l.op, {"yolo", "identity", "dropout"})) {
      add_node(g, "Identity", l.name, {in[0].name}, l.name);
    } else if (l.op == "relu") {
      add_node(g, "Relu", l.name, {in[0].name}, l.name);
    } else if (l.op == "leakyrelu") {
      attr_float(add_node(g, "LeakyRelu", l.name, {in[0].name}, l.name), "alpha", 0.1f);
    } else if (l.op == "globalavgpool") {
      add_node(g, "GlobalAveragePool", l.name, {in[0].name}, l.name);
    } else if (l.op == "flatten") {
      attr_int(add_node(g, "Flatten", l.name, {in[0].name}, l.name), "axis", 1);
      o.rank = 2;
    } else if (l.op == "batchnorm") {
      const std::int64_t c = l.c;
      if (c <= 0) throw InputError(src, join_key(where, "C"), fmt::format("is missing: batchnorm '{}' needs its channel count", l.name));
      for (const char* p : {"scale", "bias", "mean", "var"})
        add_initializer(g, l.name + "." + p, {c}, [&](std::int64_t) { return *p == 's' || *p == 'v' ? 1.0f : 0.0f; });
      add_node(g, "BatchNormalization", l.name,
               {in[0].name, l.name + ".scale", l.name + ".bias", l.name + ".mean", l.name + ".var"}, l.name);
    } else {
      throw InputError(src, join_key(where, "op"),
                       fmt::format("= {}: layer '{}' cannot be written as ONNX (the network file does not hold its "
                                   "parameters: {})",
                                   l.op, l.name, l.op == "clip" ? "min and max" : "the target shape"));
    }
    if (activated(i) || add_activated(i)) {
      const std::string a = l.name + (has_yolo ? "_leaky" : "_relu");
      onnx::NodeProto* node = add_node(g, has_yolo ? "LeakyRelu" : "Relu", a, {o.name}, a);
      if (has_yolo) attr_float(node, "alpha", 0.1f);
      o.name = a;
    }
    out[i] = o;
  }
  for (std::size_t i = 0; i < n; ++i)
    if (readers[i].empty()) g->add_output()->set_name(out[i].name);

  // Shapes: ONNX's own inference fills the outputs' shapes and checks the graph (a kernel that does
  // not fit, a Gemm whose C does not match what --input-size makes of the flattened map, ...).
  try {
    onnx::shape_inference::InferShapes(m, onnx::OpSchemaRegistry::Instance(),
                                       onnx::ShapeInferenceOptions(true, 1, false));
  } catch (const std::exception& e) {
    throw InputError(src, opt.input_h || opt.input_w ? "--input-size" : "",
                     fmt::format("ONNX shape inference rejects the written graph: {}", e.what()));
  }
  std::map<std::string, const onnx::ValueInfoProto*> info;
  for (const onnx::ValueInfoProto& v : g->value_info()) info[v.name()] = &v;
  for (onnx::ValueInfoProto& v : *g->mutable_output()) {
    const auto it = info.find(v.name());
    if (it == info.end()) throw std::logic_error(fmt::format("onnx export: no inferred shape for output {}", v.name()));
    *v.mutable_type() = it->second->type();
  }
  // The array layers see exactly the file's input shapes: ONNX's inference does not compare a
  // Gemm's inner dimension, and --input-size changes H and W (then only C and fc's size must hold).
  const bool resized = opt.input_h || opt.input_w;
  for (std::size_t i = 0; i < n; ++i) {
    const NetworkLayer& l = net.layers[i];
    if (!l.on_array) continue;
    const std::string x = reads[i][0] < 0 ? std::string("input") : out[std::size_t(reads[i][0])].name;
    const auto it = info.find(x);
    if (it == info.end()) continue;  // the graph input: its shape is the network's
    const auto& shape = it->second->type().tensor_type().shape();
    std::vector<std::int64_t> d;
    for (const auto& e : shape.dim()) d.push_back(e.dim_value());
    std::string got = d.empty() ? "?" : std::to_string(d[0]);
    for (std::size_t j = 1; j < d.size(); ++j) got += " x " + std::to_string(d[j]);
    const std::int64_t features = d.size() == 4 ? d[1] * d[2] * d[3] : d.size() == 2 ? d[1] : -1;
    const bool ok = l.op == "fc" ? features == l.layer.c
                                 : d.size() == 4 && d[1] == l.c && (resized || (d[2] == l.h && d[3] == l.w));
    if (!ok)
      throw InputError(src, resized ? "--input-size" : fmt::format("layers[{}]", i),
                       fmt::format("{} '{}' lists {} but in the ONNX graph its input is {}{}", l.op, l.name,
                                   l.op == "fc" ? fmt::format("C = {}", l.layer.c)
                                                : fmt::format("C x H x W = {} x {} x {}", l.c, l.h, l.w),
                                   got, resized ? " (an fc layer's size fixes the input size)" : ""));
  }
  g->clear_value_info();  // the importer infers them again; the file keeps only what defines the model
  try {
    onnx::checker::check_model(m);
  } catch (const std::exception& e) {
    throw std::logic_error(fmt::format("onnx export of {}: onnx::checker rejects the model: {}", src, e.what()));
  }
  return m;
}

std::uint64_t write_onnx(const Network& net, const Options& opt, const std::string& path) {
  const onnx::ModelProto m = to_onnx(net, opt);
  const std::size_t size = m.ByteSizeLong();
  if (size > 2000000000u)
    throw InputError(path, "", fmt::format("the model would be {} bytes: protobuf files are limited to 2 GB", size));
  std::string bytes;
  if (!m.SerializeToString(&bytes)) throw std::runtime_error(fmt::format("{}: cannot serialize the ONNX model", path));
  write_file_atomic(path, bytes);
  return bytes.size();
}

}  // namespace flycol::onnx_write
