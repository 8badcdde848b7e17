// ONNX import (sim/onnx/onnx_import.h). Order of the checks, so that each bad model gets the one
// message that says what is wrong with it: readable protobuf, opset in range, ONNX's checker,
// every operator supported, input shapes given and static, shape inference, then node by node.
#include "sim/onnx/onnx_import.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>

#include <fmt/format.h>
#include <onnx/checker.h>
#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>

#include "sim/common/input_error.h"
#include "sim/common/text.h"
#include "sim/onnx/tensor_proto.h"
#include "sim/tensor/npy.h"

namespace flycol {
namespace {

using graph::Shape;

const std::vector<std::string>& array_ops() {
  static const std::vector<std::string> ops = {"Conv", "Gemm", "MatMul"};
  return ops;
}
const std::vector<std::string>& host_onnx_ops() {
  static const std::vector<std::string> ops = {
      "BatchNormalization", "Relu",    "LeakyRelu", "Clip",    "Add",      "Mul",     "Concat",
      "MaxPool",            "AveragePool", "GlobalAveragePool", "Flatten", "Reshape", "Resize",
      "Upsample",           "Softmax", "Identity",  "Dropout"};
  return ops;
}

bool contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

std::string shape_str(const Shape& s) { return fmt::format("{}", fmt::join(s, "x")); }

// A layer name the network file accepts (sim/config/layer.cpp: A-Z a-z 0-9 _ . - / :, 1..128).
std::string layer_name(const std::string& s) {
  std::string out;
  for (char ch : s) {
    const bool ok = std::isalnum(static_cast<unsigned char>(ch)) || ch == '_' || ch == '.' || ch == '-' || ch == '/' ||
                    ch == ':';
    out += ok ? ch : '_';
  }
  if (out.size() > 128) out = out.substr(out.size() - 128);
  return out.empty() ? std::string("layer") : out;
}

const onnx::AttributeProto* find_attr(const onnx::NodeProto& n, const std::string& name) {
  for (const auto& a : n.attribute())
    if (a.name() == name) return &a;
  return nullptr;
}

struct Importer {
  std::string path, dir;
  const ImportOptions& opt;
  onnx::ModelProto model;
  graph::Graph g;
  std::map<std::string, onnx::TensorProto*> initializers;
  std::map<std::string, Tensor> constant_values;  // decoded constants (initializers on demand, Constant nodes)
  std::map<std::string, int> consumers;           // value -> number of reading nodes (+1 if a graph output)
  std::map<std::string, std::size_t> producer;    // value -> index in g.nodes
  std::set<std::string> used_names;

  Importer(std::string p, const ImportOptions& o) : path(std::move(p)), opt(o) {
    dir = std::filesystem::path(path).parent_path().string();
  }

  [[noreturn]] void fail_node(const onnx::NodeProto& n, const std::string& name, const std::string& problem) const {
    throw InputError(path, "", fmt::format("node '{}' ({}): {}", name, n.op_type(), problem));
  }

  bool is_constant(const std::string& v) const { return initializers.count(v) || constant_values.count(v); }

  const Tensor& constant(const std::string& v, Int64Use use = Int64Use::data) {
    auto it = constant_values.find(v);
    if (it != constant_values.end()) return it->second;
    return constant_values[v] = tensor_from_proto(*initializers.at(v), dir, path, use);
  }

  // A constant decoded for one use without keeping a copy (weights: the big ones).
  Tensor take_constant(const std::string& v) {
    auto it = constant_values.find(v);
    if (it != constant_values.end()) return it->second;
    onnx::TensorProto* t = initializers.at(v);
    Tensor out = tensor_from_proto(*t, dir, path, Int64Use::data);
    // Read by this node alone: its bytes are not needed again (halves the peak for big models).
    if (consumers[v] == 1) {
      std::string().swap(*t->mutable_raw_data());  // swap, not clear: clear keeps the capacity
      t->clear_float_data();
    }
    return out;
  }

  Shape shape_of(const std::string& v) const {
    auto it = g.shapes.find(v);
    return it == g.shapes.end() ? Shape() : it->second;
  }

  // --- steps -------------------------------------------------------------------------------

  void parse() {
    // Parsed from the stream: a whole-file copy would double the peak memory of big models.
    std::ifstream in(path, std::ios::binary);
    std::error_code ec;
    if (!in || std::filesystem::is_directory(path, ec))
      throw InputError(path, "", "cannot be read: give the path of an .onnx model file");
    if (in.peek() == std::char_traits<char>::eof() || !model.ParseFromIstream(&in))
      throw InputError(path, "", "is not an ONNX model: the protobuf is malformed or truncated; re-export the model "
                                 "(torch.onnx.export, tf2onnx, ...) or copy it again");
    if (!model.has_graph() || model.graph().node_size() == 0)
      throw InputError(path, "", "is not an ONNX model: it holds no graph nodes (a truncated or empty file?)");
  }

  void check_opset() {
    g.opset = -1;
    for (const auto& o : model.opset_import())
      if (o.domain().empty() || o.domain() == "ai.onnx") g.opset = o.version();
    if (g.opset < 0)
      throw InputError(path, "opset_import", "names no default-domain (ai.onnx) opset: re-export the model with an opset "
                                             "in [" + std::to_string(kOnnxOpsetMin) + ", " + std::to_string(kOnnxOpsetMax) + "]");
    if (g.opset < kOnnxOpsetMin || g.opset > kOnnxOpsetMax)
      throw InputError(path, "opset_import",
                       fmt::format("= {}: flycol imports default-domain opsets {} to {}; re-export the model with an "
                                   "opset in that range (e.g. torch.onnx.export(..., opset_version=13)) or convert it "
                                   "with onnx.version_converter",
                                   g.opset, kOnnxOpsetMin, kOnnxOpsetMax));
  }

  // External data is read here, relative to the model's directory, and put into raw_data: the
  // messages name the tensor and the file (ONNX's in-memory checker would look in the current
  // directory instead), and every later step sees one encoding.
  void load_external_data() {
    for (auto& t : *model.mutable_graph()->mutable_initializer()) {
      if (t.data_location() != onnx::TensorProto::EXTERNAL) continue;
      const Tensor v = tensor_from_proto(t, dir, path, Int64Use::index);
      onnx::TensorProto inlined;
      tensor_to_proto(v, t.name(), &inlined, t.data_type());
      t.clear_external_data();
      t.set_data_location(onnx::TensorProto::DEFAULT);
      t.set_raw_data(inlined.raw_data());
    }
  }

  void check_model() {
    try {
      onnx::checker::check_model(model);
    } catch (const std::exception& e) {
      std::string what = e.what();
      while (!what.empty() && (what.back() == '\n' || what.back() == ' ')) what.pop_back();
      throw InputError(path, "", fmt::format("ONNX's checker rejects the model: {}", what));
    }
  }

  void check_ops() {
    const auto& gp = model.graph();
    for (int i = 0; i < gp.node_size(); ++i) {
      const auto& n = gp.node(i);
      const bool known = (n.domain().empty() || n.domain() == "ai.onnx") &&
                         (n.op_type() == "Constant" || contains(array_ops(), n.op_type()) ||
                          contains(host_onnx_ops(), n.op_type()));
      if (!known) {
        int others = 0;
        for (int j = i + 1; j < gp.node_size(); ++j) {
          const auto& m = gp.node(j);
          if (!(m.domain().empty() || m.domain() == "ai.onnx") ||
              !(m.op_type() == "Constant" || contains(array_ops(), m.op_type()) || contains(host_onnx_ops(), m.op_type())))
            ++others;
        }
        const std::string name = n.name().empty() ? fmt::format("{}_{}", n.op_type(), i) : n.name();
        fail_node(n, name,
                  fmt::format("operator {}{} is not supported{}; flycol supports: {}; replace or remove the node "
                              "(e.g. export the model without it, or split the model before it)",
                              n.domain().empty() ? "" : n.domain() + ".", n.op_type(),
                              others ? fmt::format(" ({} more unsupported node(s) follow)", others) : "",
                              join(supported_onnx_ops())));
      }
    }
  }

  // --constant: the named graph inputs become initializers of the given value, in the input's
  // declared element type (so shape inference's type check still holds).
  void bind_constants() {
    auto* gp = model.mutable_graph();
    std::set<std::string> inits;
    for (const auto& t : gp->initializer()) inits.insert(t.name());
    for (const auto& kv : opt.constants) {
      const onnx::ValueInfoProto* in = nullptr;
      std::vector<std::string> names;
      for (const auto& i : gp->input())
        if (!inits.count(i.name())) {
          names.push_back(i.name());
          if (i.name() == kv.first) in = &i;
        }
      if (!in)
        throw InputError("--constant", kv.first, fmt::format("is not an input of {}; its inputs are: {}", path, join(names)));
      const auto& tt = in->type().tensor_type();
      if (tt.has_shape()) {
        bool same = tt.shape().dim_size() == int(kv.second.shape.size());
        for (int d = 0; same && d < tt.shape().dim_size(); ++d)
          same = !tt.shape().dim(d).has_dim_value() || tt.shape().dim(d).dim_value() == kv.second.shape[std::size_t(d)];
        if (!same)
          throw InputError("--constant", kv.first,
                           fmt::format("has shape {}, but the model declares input '{}' with another shape",
                                       kv.second.shape_text(), kv.first));
      }
      tensor_to_proto(kv.second, kv.first, gp->add_initializer(), tt.elem_type());
    }
  }

  void collect_initializers() {
    for (auto& t : *model.mutable_graph()->mutable_initializer()) initializers[t.name()] = &t;
  }

  void apply_input_shapes() {
    auto* gp = model.mutable_graph();
    std::vector<onnx::ValueInfoProto*> inputs;
    for (auto& in : *gp->mutable_input())
      if (!initializers.count(in.name())) inputs.push_back(&in);
    std::vector<std::string> names;
    for (auto* in : inputs) names.push_back(in->name());
    for (const auto& kv : opt.input_shapes) {
      onnx::ValueInfoProto* target = nullptr;
      if (kv.first.empty()) {
        if (inputs.size() != 1)
          throw InputError("--input-shape", "",
                           fmt::format("a bare shape fits a model with one input; {} has {}: give NAME=SHAPE for one of "
                                       "{}",
                                       path, inputs.size(), join(names)));
        target = inputs[0];
      } else {
        for (auto* in : inputs)
          if (in->name() == kv.first) target = in;
        if (!target)
          throw InputError("--input-shape", kv.first,
                           fmt::format("is not an input of {}; its inputs are: {}", path, join(names)));
      }
      auto* tt = target->mutable_type()->mutable_tensor_type();
      if (tt->has_shape() && tt->shape().dim_size() != int(kv.second.size()))
        throw InputError("--input-shape", target->name(),
                         fmt::format("= {}: the model's input '{}' has rank {}, the shape given has rank {}",
                                     shape_str(kv.second), target->name(), tt->shape().dim_size(), kv.second.size()));
      for (std::size_t d = 0; tt->has_shape() && d < kv.second.size(); ++d) {
        const auto& dim = tt->shape().dim(int(d));
        if (dim.has_dim_value() && dim.dim_value() != kv.second[d])
          throw InputError("--input-shape", target->name(),
                           fmt::format("= {}: dimension {} of input '{}' is fixed at {} in the model",
                                       shape_str(kv.second), d, target->name(), dim.dim_value()));
      }
      auto* shape = tt->mutable_shape();
      shape->clear_dim();
      for (std::int64_t v : kv.second) shape->add_dim()->set_dim_value(v);
    }
    for (auto* in : inputs) {
      const auto& tt = in->type().tensor_type();
      Shape s, example;
      bool dynamic = !tt.has_shape();
      std::string which;
      for (int d = 0; tt.has_shape() && d < tt.shape().dim_size(); ++d) {
        const auto& dim = tt.shape().dim(d);
        if (dim.has_dim_value() && dim.dim_value() > 0) {
          s.push_back(dim.dim_value());
          example.push_back(dim.dim_value());
        } else {
          if (!dynamic)
            which = fmt::format("dimension {}{}", d, dim.has_dim_param() ? " ('" + dim.dim_param() + "')" : "");
          dynamic = true;
          example.push_back(d == 0 ? 1 : 224);
        }
      }
      if (dynamic)
        throw InputError(path, "",
                         fmt::format("input '{}': {} is dynamic: give every input a static shape, use "
                                     "--input-shape {}={}",
                                     in->name(), which.empty() ? "its shape is not given" : which, in->name(),
                                     example.empty() ? "1x3x224x224" : shape_str(example)));
      g.inputs.push_back({in->name(), s});
      g.shapes[in->name()] = s;
    }
  }

  // Window attributes ONNX's shape inference divides by, or sizes by, without checking them
  // first (libonnx 1.12's convPoolShapeInference divides by each stride: a zero stride is a SIGFPE
  // in the library, not an exception; found by tests/fuzz onnx). Checked here, before inference.
  void check_window_attributes() {
    const auto& gp = model.graph();
    for (int i = 0; i < gp.node_size(); ++i) {
      const auto& n = gp.node(i);
      const std::string name = n.name().empty() ? fmt::format("{}_{}", n.op_type(), i) : n.name();
      for (const char* key : {"strides", "dilations", "kernel_shape"})
        for (std::int64_t v : ints_attr(n, key, {}))
          if (v < 1)
            fail_node(n, name, fmt::format("attribute {} has the entry {}: every entry must be an integer >= 1", key, v));
    }
  }

  void infer_shapes() {
    check_window_attributes();
    try {
      onnx::ShapeInferenceOptions so(true, 1, true);
      onnx::shape_inference::InferShapes(model, onnx::OpSchemaRegistry::Instance(), so);
    } catch (const std::exception& e) {
      std::string what = e.what();
      while (!what.empty() && (what.back() == '\n' || what.back() == ' ')) what.pop_back();
      throw InputError(path, "", fmt::format("ONNX's shape inference fails: {}", what));
    }
    auto take = [this](const onnx::ValueInfoProto& v) {
      const auto& tt = v.type().tensor_type();
      if (!tt.has_shape()) return;
      Shape s;
      for (const auto& d : tt.shape().dim()) s.push_back(d.has_dim_value() ? d.dim_value() : -1);
      g.shapes[v.name()] = s;
    };
    for (const auto& v : model.graph().value_info()) take(v);
    for (const auto& v : model.graph().output()) take(v);
    for (const auto& t : model.graph().initializer()) g.shapes[t.name()] = Shape(t.dims().begin(), t.dims().end());
  }

  // The static shape of a value a node reads or writes, or the message saying why there is none.
  Shape static_shape(const onnx::NodeProto& n, const std::string& name, const std::string& v) const {
    auto it = g.shapes.find(v);
    bool ok = it != g.shapes.end();
    for (std::size_t i = 0; ok && i < it->second.size(); ++i) ok = it->second[i] > 0;
    if (!ok)
      fail_node(n, name,
                fmt::format("the shape of '{}' is {} after ONNX's shape inference; flycol needs static shapes: give "
                            "the inputs' shapes with --input-shape NAME=1x3x224x224, or export the model with fixed "
                            "shapes (e.g. onnxsim)",
                            v,
                            it == g.shapes.end() ? std::string("unknown")
                                                 : fmt::format("[{}] (-1: dynamic)", fmt::join(it->second, ", "))));
    return it->second;
  }

  // Numbers of an attribute (ints or floats, single or list) as doubles; empty if absent.
  static std::vector<double> attr_numbers(const onnx::AttributeProto& a) {
    std::vector<double> v;
    switch (a.type()) {
      case onnx::AttributeProto::FLOAT: v.push_back(a.f()); break;
      case onnx::AttributeProto::INT: v.push_back(double(a.i())); break;
      case onnx::AttributeProto::FLOATS: v.assign(a.floats().begin(), a.floats().end()); break;
      case onnx::AttributeProto::INTS:
        for (auto x : a.ints()) v.push_back(double(x));
        break;
      default: break;
    }
    return v;
  }

  std::vector<std::int64_t> ints_attr(const onnx::NodeProto& n, const std::string& key, std::vector<std::int64_t> dflt) {
    const auto* a = find_attr(n, key);
    if (!a) return dflt;
    if (a->type() == onnx::AttributeProto::INT) return {a->i()};
    return std::vector<std::int64_t>(a->ints().begin(), a->ints().end());
  }
  std::int64_t int_attr(const onnx::NodeProto& n, const std::string& key, std::int64_t dflt) {
    const auto* a = find_attr(n, key);
    return a ? a->i() : dflt;
  }
  double float_attr(const onnx::NodeProto& n, const std::string& key, double dflt) {
    const auto* a = find_attr(n, key);
    return a ? a->f() : dflt;
  }
  std::string str_attr(const onnx::NodeProto& n, const std::string& key, const std::string& dflt) {
    const auto* a = find_attr(n, key);
    return a ? a->s() : dflt;
  }

  // Explicit begin/end pads of one spatial axis from auto_pad (ONNX's Conv/Pool definition).
  static void auto_pads(const std::string& mode, std::int64_t in, std::int64_t k, std::int64_t s, std::int64_t d,
                        std::int64_t& begin, std::int64_t& end) {
    if (mode == "VALID") {
      begin = end = 0;
      return;
    }
    const std::int64_t out = (in + s - 1) / s;
    const std::int64_t total = std::max<std::int64_t>(0, (out - 1) * s + (k - 1) * d + 1 - in);
    const std::int64_t small = total / 2, big = total - small;
    begin = mode == "SAME_LOWER" ? big : small;
    end = mode == "SAME_LOWER" ? small : big;
  }

  std::string unique_name(const onnx::NodeProto& n, int index) {
    std::string name = n.name().empty() ? fmt::format("{}_{}", n.op_type(), index) : n.name();
    std::string u = name;
    for (int k = 2; used_names.count(u); ++k) u = fmt::format("{}_{}", name, k);
    used_names.insert(u);
    return u;
  }

  void add_node(graph::Node node) {
    for (const auto& o : node.outputs) producer[o] = g.nodes.size();
    g.nodes.push_back(std::move(node));
  }

  // --- array nodes -------------------------------------------------------------------------

  void conv(const onnx::NodeProto& n, graph::Node& node) {
    const std::string& nm = node.name;
    if (n.input_size() < 2 || n.input(1).empty()) fail_node(n, nm, "has no weight input");
    const std::string& wname = n.input(1);
    if (!is_constant(wname))
      fail_node(n, nm, fmt::format("reads its weights '{}' from another node: flycol needs convolution weights as "
                                   "initializers (constant-fold the model first, e.g. with onnxsim)", wname));
    Shape x = static_shape(n, nm, n.input(0));
    const Shape y = static_shape(n, nm, n.output(0));
    const bool one_d = x.size() == 3;
    if (x.size() != 4 && !one_d)
      fail_node(n, nm, fmt::format("is a {}-D convolution (input shape [{}]): flycol runs 1-D and 2-D convolutions "
                                   "(NCW / NCHW inputs)", int(x.size()) - 2, fmt::join(x, ", ")));
    Tensor w = take_constant(wname);
    if (!is_float(w.dtype))
      fail_node(n, nm, fmt::format("has {} weights: import takes float weights (quantized models: use the float model)",
                                   dtype_name(w.dtype)));
    // Shape inference does not always hold the weights to the input's rank (found by tests/fuzz onnx).
    if (w.shape.size() != x.size())
      fail_node(n, nm, fmt::format("has weights of shape [{}] for an input of shape [{}]: the weights need rank {} "
                                   "(output channels, input channels / group, kernel size)",
                                   fmt::join(w.shape, ", "), fmt::join(x, ", "), x.size()));
    if (one_d) {  // [n][c][w] -> [n][c][1][w], kernel [k][c][kw] -> [k][c][1][kw]
      x.insert(x.begin() + 2, 1);
      w.shape.insert(w.shape.begin() + 2, 1);
    }
    const std::int64_t group = int_attr(n, "group", 1);
    const std::int64_t K = w.shape[0], cg = w.shape[1], C = x[1];
    if (group < 1 || C % group || K % group || cg * group != C)
      fail_node(n, nm, fmt::format("group = {} does not fit input channels {}, weight shape [{}]", group, C,
                                   fmt::join(w.shape, ", ")));
    auto ks = ints_attr(n, "kernel_shape", {});
    auto st = ints_attr(n, "strides", {});
    auto dl = ints_attr(n, "dilations", {});
    auto pd = ints_attr(n, "pads", {});
    const std::size_t dims = one_d ? 1 : 2;
    if ((!ks.empty() && ks.size() != dims) || (!st.empty() && st.size() != dims) || (!dl.empty() && dl.size() != dims) ||
        (!pd.empty() && pd.size() != 2 * dims))
      fail_node(n, nm, fmt::format("has kernel_shape [{}], strides [{}], dilations [{}], pads [{}]: a {}-D convolution "
                                   "needs {} entries in each given one ({} in pads)",
                                   fmt::join(ks, ", "), fmt::join(st, ", "), fmt::join(dl, ", "), fmt::join(pd, ", "),
                                   dims, dims, 2 * dims));
    if (one_d) {
      if (!ks.empty()) ks.insert(ks.begin(), 1);
      if (!st.empty()) st.insert(st.begin(), 1);
      if (!dl.empty()) dl.insert(dl.begin(), 1);
      if (!pd.empty()) pd = {0, pd[0], 0, pd[1]};
    }
    if (ks.empty()) ks = {w.shape[2], w.shape[3]};
    if (st.empty()) st = {1, 1};
    if (dl.empty()) dl = {1, 1};
    if (pd.empty()) pd = {0, 0, 0, 0};
    const std::string ap = str_attr(n, "auto_pad", "NOTSET");
    std::int64_t pt = pd[0], pl = pd[1], pb = pd[2], pr = pd[3];
    if (ap == "SAME_UPPER" || ap == "SAME_LOWER" || ap == "VALID") {
      auto_pads(ap, x[2], ks[0], st[0], dl[0], pt, pb);
      auto_pads(ap, x[3], ks[1], st[1], dl[1], pl, pr);
    } else if (ap != "NOTSET") {
      fail_node(n, nm, fmt::format("auto_pad = {}: must be NOTSET, SAME_UPPER, SAME_LOWER or VALID", ap));
    }
    Layer& l = node.layer;
    l.name = layer_name(nm);
    l.n = int(x[0]);
    l.c = int(cg), l.h = int(x[2]), l.w = int(x[3]);
    l.k = int(K / group);
    l.ky = int(ks[0]), l.kx = int(ks[1]);
    l.sy = int(st[0]), l.sx = int(st[1]);
    l.dy = int(dl[0]), l.dx = int(dl[1]);
    l.pt = int(pt), l.pb = int(pb), l.pl = int(pl), l.pr = int(pr);
    node.groups = int(group);
    try {
      validate_layer(l, path, fmt::format("node '{}' (Conv)", nm));
    } catch (const InputError& e) {
      fail_node(n, nm, fmt::format("is outside what flycol's layers describe: {}", e.problem()));
    }
    w.shape = {K, cg, ks[0], ks[1]};
    node.weights = std::move(w);
    if (n.input_size() > 2 && !n.input(2).empty()) {
      if (!is_constant(n.input(2)))
        fail_node(n, nm, fmt::format("reads its bias '{}' from another node: it must be an initializer", n.input(2)));
      node.bias = constant(n.input(2));
    }
    node.in_view = x;
    node.out_shape = y;
    const Shape expect = {l.n, K, l.ho(), l.wo()};
    const Shape got = one_d ? Shape{y[0], y[1], 1, y[2]} : y;
    if (got != expect)
      fail_node(n, nm, fmt::format("ONNX infers output [{}], the convolution gives [{}]", fmt::join(y, ", "),
                                   fmt::join(expect, ", ")));
  }

  // Gemm: Y = alpha * A * B' + beta * C with A [M][Kin] -> a 1 x 1 convolution over N = M pixels.
  void gemm(const onnx::NodeProto& n, graph::Node& node, bool matmul) {
    const std::string& nm = node.name;
    const std::string& bname = n.input(1);
    if (!is_constant(bname))
      fail_node(n, nm, fmt::format("reads B '{}' from another node: flycol runs {} whose B is an initializer (weights); "
                                   "a product of two activations is not supported",
                                   bname, matmul ? "MatMul" : "Gemm"));
    const Shape a = static_shape(n, nm, n.input(0));
    const Shape y = static_shape(n, nm, n.output(0));
    Tensor b = take_constant(bname);
    if (!is_float(b.dtype)) fail_node(n, nm, fmt::format("has {} weights: import takes float weights", dtype_name(b.dtype)));
    if (b.shape.size() != 2)
      fail_node(n, nm, fmt::format("B has shape [{}]: flycol needs a 2-D B (weights)", fmt::join(b.shape, ", ")));
    const bool trans_a = !matmul && int_attr(n, "transA", 0) != 0;
    if (trans_a) fail_node(n, nm, "has transA = 1, which is not supported: transpose A before the Gemm, or export the "
                                  "layer as MatMul/Linear");
    const bool trans_b = !matmul && int_attr(n, "transB", 0) != 0;
    const double alpha = matmul ? 1.0 : float_attr(n, "alpha", 1.0);
    const double beta = matmul ? 1.0 : float_attr(n, "beta", 1.0);
    if (a.size() < 2 || (!matmul && a.size() != 2))
      fail_node(n, nm, fmt::format("A has shape [{}]: {} needs A of rank {}", fmt::join(a, ", "),
                                   matmul ? "MatMul" : "Gemm", matmul ? ">= 2" : "2"));
    std::int64_t rows = 1;
    for (std::size_t i = 0; i + 1 < a.size(); ++i) rows *= a[i];
    const std::int64_t kin = a.back();
    const std::int64_t kout = trans_b ? b.shape[0] : b.shape[1];
    if ((trans_b ? b.shape[1] : b.shape[0]) != kin)
      fail_node(n, nm, fmt::format("A [{}] and B [{}] do not multiply", fmt::join(a, ", "), fmt::join(b.shape, ", ")));
    Tensor w;
    if (trans_b) {  // B is [Kout][Kin] already: no copy (fully connected layers are the big ones)
      w = std::move(b);
      for (double& v : w.values) v *= alpha;
    } else {
      w.dtype = b.dtype;
      w.values.resize(std::size_t(kout * kin));
      for (std::int64_t o = 0; o < kout; ++o)
        for (std::int64_t i = 0; i < kin; ++i) w.values[std::size_t(o * kin + i)] = alpha * b.values[std::size_t(i * kout + o)];
    }
    w.shape = {kout, kin, 1, 1};
    node.weights = std::move(w);
    if (!matmul && n.input_size() > 2 && !n.input(2).empty()) {
      if (!is_constant(n.input(2)))
        fail_node(n, nm, fmt::format("reads C '{}' from another node: it must be an initializer (a per-output bias)",
                                     n.input(2)));
      const Tensor c = constant(n.input(2));
      Tensor bias;
      bias.dtype = c.dtype;
      bias.shape = {kout};
      const std::int64_t ce = c.elems();
      const bool per_output = ce == 1 || (ce == kout && (c.shape.size() == 1 || (c.shape.size() == 2 && c.shape[0] == 1))) ||
                              (ce == kout && rows == 1);
      if (!per_output)
        fail_node(n, nm, fmt::format("C has shape [{}]: flycol adds a per-output bias ([{}], [1, {}] or a scalar)",
                                     fmt::join(c.shape, ", "), kout, kout));
      for (std::int64_t o = 0; o < kout; ++o) bias.values.push_back(beta * c.values[std::size_t(ce == 1 ? 0 : o)]);
      node.bias = std::move(bias);
    }
    Layer& l = node.layer;
    l.name = layer_name(nm);
    l.n = int(rows), l.c = int(kin), l.h = l.w = 1, l.k = int(kout);
    try {
      validate_layer(l, path, fmt::format("node '{}' ({})", nm, n.op_type()));
    } catch (const InputError& e) {
      fail_node(n, nm, fmt::format("as a 1 x 1 convolution over N = {} rows is outside what flycol's layers describe: {}",
                                   rows, e.problem()));
    }
    node.in_view = {rows, kin, 1, 1};
    node.out_shape = y;
  }

  // BatchNormalization after an array node whose output only it reads: scale the weights and bias.
  bool fold_bn(const onnx::NodeProto& n, const std::string& nm) {
    for (int i = 1; i < 5; ++i)
      if (i >= n.input_size() || !is_constant(n.input(i))) return false;
    for (int i = 1; i < n.output_size(); ++i)
      if (!n.output(i).empty() && consumers[n.output(i)] > 0) return false;  // statistics used: training
    if (int_attr(n, "training_mode", 0) != 0 || int_attr(n, "spatial", 1) == 0) return false;
    auto p = producer.find(n.input(0));
    if (p == producer.end()) return false;
    graph::Node& conv = g.nodes[p->second];
    if (!conv.on_array || consumers[n.input(0)] != 1 || conv.outputs.size() != 1) return false;
    // The channel axis of BN is axis 1: Conv outputs [N][K][..] and Gemm/MatMul outputs [M][K].
    if (conv.op != "Conv" && conv.out_shape.size() != 2) return false;
    const Tensor& scale = constant(n.input(1));
    const Tensor& b = constant(n.input(2));
    const Tensor& mean = constant(n.input(3));
    const Tensor& var = constant(n.input(4));
    const std::int64_t K = conv.weights.shape[0];
    if (scale.elems() != K || b.elems() != K || mean.elems() != K || var.elems() != K)
      fail_node(n, nm, fmt::format("has {} channels of scale/B/mean/var, the convolution before it has {}",
                                   scale.elems(), K));
    const double eps = float_attr(n, "epsilon", 1e-5);
    const std::int64_t per = conv.weights.elems() / K;
    Tensor bias;
    bias.dtype = conv.weights.dtype;
    bias.shape = {K};
    for (std::int64_t k = 0; k < K; ++k) {
      const double s = scale.values[std::size_t(k)] / std::sqrt(var.values[std::size_t(k)] + eps);
      for (std::int64_t i = 0; i < per; ++i) conv.weights.values[std::size_t(k * per + i)] *= s;
      const double b0 = conv.bias.values.empty() ? 0.0 : conv.bias.values[std::size_t(k)];
      bias.values.push_back((b0 - mean.values[std::size_t(k)]) * s + b.values[std::size_t(k)]);
    }
    conv.bias = std::move(bias);
    const std::size_t conv_index = p->second;  // erasing the entry below invalidates p
    producer.erase(conv.outputs[0]);
    conv.outputs = {n.output(0)};
    producer[n.output(0)] = conv_index;
    conv.folded.push_back(nm);
    return true;
  }

  // --- host nodes --------------------------------------------------------------------------

  // A constant input moved into attrs under `key`; absent input names are skipped.
  void move_constant(const onnx::NodeProto& n, const std::string& nm, int index, const std::string& key,
                     graph::Node& node) {
    if (index >= n.input_size() || n.input(index).empty()) return;
    const std::string& v = n.input(index);
    if (!is_constant(v))
      fail_node(n, nm, fmt::format("reads its {} from '{}', which is computed: flycol needs it constant (an initializer "
                                   "or Constant); constant-fold the model (e.g. onnxsim) or fix the shapes at export",
                                   key, v));
    const Tensor& t = constant(v, Int64Use::index);
    node.attrs[key] = t.values;
  }

  void host(const onnx::NodeProto& n, graph::Node& node) {
    const std::string& nm = node.name;
    const std::string& op = n.op_type();
    for (const auto& a : n.attribute()) {
      if (a.type() == onnx::AttributeProto::STRING) node.str_attrs[a.name()] = a.s();
      else node.attrs[a.name()] = attr_numbers(a);
    }
    // Opset 6's Add/Mul broadcast the second input from `axis` on; that is NumPy broadcasting
    // (what the host runs) only when B aligns with A's trailing dimensions.
    if ((op == "Add" || op == "Mul") && g.opset < 7 && int_attr(n, "broadcast", 0) != 0 && find_attr(n, "axis")) {
      const Shape a = shape_of(n.input(0)), b = shape_of(n.input(1));
      std::int64_t axis = int_attr(n, "axis", 0);
      if (axis < 0) axis += std::int64_t(a.size());
      if (axis != std::int64_t(a.size()) - std::int64_t(b.size()))
        fail_node(n, nm, fmt::format("uses opset 6's legacy broadcast with axis = {} (B [{}] against A [{}]), which is "
                                     "not NumPy broadcasting: re-export the model with opset >= 7",
                                     int_attr(n, "axis", 0), fmt::join(b, ", "), fmt::join(a, ", ")));
    }
    // Which inputs are data (kept in inputs) and which are constants moved into attrs.
    int data_inputs = n.input_size();
    if (op == "Clip") {
      data_inputs = 1;
      move_constant(n, nm, 1, "min", node);
      move_constant(n, nm, 2, "max", node);
    } else if (op == "Reshape") {
      data_inputs = 1;
      move_constant(n, nm, 1, "shape", node);
    } else if (op == "Resize") {
      data_inputs = 1;
      if (g.opset < 11) {
        move_constant(n, nm, 1, "scales", node);
      } else {
        move_constant(n, nm, 2, "scales", node);
        move_constant(n, nm, 3, "sizes", node);
      }
    } else if (op == "Upsample") {
      data_inputs = 1;
      move_constant(n, nm, 1, "scales", node);
    } else if (op == "Dropout") {
      data_inputs = 1;
      move_constant(n, nm, 1, "ratio", node);
      move_constant(n, nm, 2, "training_mode", node);
      if (node.attrs.count("training_mode") && !node.attrs["training_mode"].empty() && node.attrs["training_mode"][0] != 0)
        fail_node(n, nm, "is in training mode: import inference models (export with model.eval())");
    } else if (op == "BatchNormalization") {
      data_inputs = 1;
      static const char* keys[] = {"", "scale", "B", "input_mean", "input_var"};
      for (int i = 1; i < 5; ++i) move_constant(n, nm, i, keys[i], node);
      if (int_attr(n, "training_mode", 0) != 0)
        fail_node(n, nm, "is in training mode: import inference models (export with model.eval())");
      if (int_attr(n, "spatial", 1) == 0)
        fail_node(n, nm, "has spatial = 0 (per-activation statistics): flycol supports per-channel BatchNormalization");
    }
    for (int i = 0; i < data_inputs && i < n.input_size(); ++i) {
      const std::string& v = n.input(i);
      if (v.empty()) continue;
      node.inputs.push_back(v);
      if (is_constant(v)) {
        const Tensor& t = constant(v);
        // Constant nodes are decoded as indices (their int64 may be shapes); as data they must fit int32.
        if (!is_float(t.dtype))
          for (double x : t.values)
            if (x < -2147483648.0 || x > 2147483647.0)
              fail_node(n, nm, fmt::format("reads the integer constant '{}' with value {} outside int32 as data", v, x));
        g.constants[v] = t;
      }
      else static_shape(n, nm, v);
    }
    if (node.inputs.empty()) fail_node(n, nm, "has no data input");
    // Extra outputs (MaxPool's Indices, Dropout's mask) are not produced by the host.
    for (int i = 1; i < n.output_size(); ++i)
      if (!n.output(i).empty() && consumers[n.output(i)] > 0)
        fail_node(n, nm, fmt::format("output {} ('{}') is used, but flycol computes only the first output of {}", i,
                                     n.output(i), op));
    node.outputs = {n.output(0)};
    static_shape(n, nm, n.output(0));
    if (op == "MaxPool" || op == "AveragePool") {
      const Shape x = shape_of(n.input(0));
      if (x.size() != 4)
        fail_node(n, nm, fmt::format("pools a rank-{} tensor: flycol pools NCHW (2-D) tensors", x.size()));
      const auto ks = ints_attr(n, "kernel_shape", {});
      auto st = ints_attr(n, "strides", {1, 1});
      auto dl = ints_attr(n, "dilations", {1, 1});
      std::vector<std::int64_t> pd = ints_attr(n, "pads", {0, 0, 0, 0});
      if (ks.size() != 2 || st.size() != 2 || dl.size() != 2 || pd.size() != 4)
        fail_node(n, nm, fmt::format("has kernel_shape [{}], strides [{}], dilations [{}], pads [{}]: a 2-D pool needs 2 "
                                     "entries in each (4 in pads)", fmt::join(ks, ", "), fmt::join(st, ", "),
                                     fmt::join(dl, ", "), fmt::join(pd, ", ")));
      const std::string ap = str_attr(n, "auto_pad", "NOTSET");
      if (ap == "SAME_UPPER" || ap == "SAME_LOWER" || ap == "VALID") {
        std::int64_t pt, pb, pl, pr;
        auto_pads(ap, x[2], ks[0], st[0], dl[0], pt, pb);
        auto_pads(ap, x[3], ks[1], st[1], dl[1], pl, pr);
        pd = {pt, pl, pb, pr};
      }
      node.str_attrs.erase("auto_pad");
      node.attrs["pads"] = std::vector<double>(pd.begin(), pd.end());
      node.attrs["strides"] = std::vector<double>(st.begin(), st.end());
      node.attrs["dilations"] = std::vector<double>(dl.begin(), dl.end());
    }
  }

  void convert() {
    const auto& gp = model.graph();
    for (const auto& n : gp.node())
      for (const auto& v : n.input())
        if (!v.empty()) ++consumers[v];
    for (const auto& o : gp.output()) {
      ++consumers[o.name()];
      g.outputs.push_back(o.name());
    }
    for (int i = 0; i < gp.node_size(); ++i) {
      const auto& n = gp.node(i);
      const std::string nm = unique_name(n, i);
      if (n.op_type() == "Constant") {
        const auto* a = n.attribute_size() ? &n.attribute(0) : nullptr;
        Tensor t;
        if (a && a->type() == onnx::AttributeProto::TENSOR) {
          t = tensor_from_proto(a->t(), dir, path, Int64Use::index);
        } else if (a && (a->type() == onnx::AttributeProto::FLOAT || a->type() == onnx::AttributeProto::INT ||
                         a->type() == onnx::AttributeProto::FLOATS || a->type() == onnx::AttributeProto::INTS)) {
          t.values = attr_numbers(*a);
          t.dtype = (a->type() == onnx::AttributeProto::FLOAT || a->type() == onnx::AttributeProto::FLOATS)
                        ? DType::float32 : DType::int32;
          if (a->type() == onnx::AttributeProto::FLOATS || a->type() == onnx::AttributeProto::INTS)
            t.shape = {std::int64_t(t.values.size())};
        } else {
          fail_node(n, nm, "holds no numeric tensor (value, value_float(s) or value_int(s))");
        }
        g.shapes[n.output(0)] = t.shape;
        constant_values[n.output(0)] = std::move(t);
        continue;
      }
      graph::Node node;
      node.name = nm;
      node.op = n.op_type();
      if (n.op_type() == "BatchNormalization" && fold_bn(n, nm)) continue;
      if (contains(array_ops(), n.op_type())) {
        node.on_array = true;
        node.inputs = {n.input(0)};
        node.outputs = {n.output(0)};
        if (n.op_type() == "Conv") conv(n, node);
        else gemm(n, node, n.op_type() == "MatMul");
      } else {
        host(n, node);
      }
      add_node(std::move(node));
    }
    // Constants a host node reads as data were copied into g.constants above; the rest (weights)
    // live in the array nodes.
  }

  graph::Graph run() {
    parse();
    check_opset();
    load_external_data();
    check_model();
    check_ops();
    bind_constants();
    collect_initializers();
    apply_input_shapes();
    infer_shapes();
    g.source = path;
    g.name = model.graph().name().empty() ? std::filesystem::path(path).stem().string() : model.graph().name();
    convert();
    return std::move(g);
  }
};

}  // namespace

const std::vector<std::string>& supported_onnx_ops() {
  static const std::vector<std::string> ops = [] {
    std::vector<std::string> v = array_ops();
    for (const auto& o : host_onnx_ops()) v.push_back(o);
    v.push_back("Constant");
    return v;
  }();
  return ops;
}

void parse_constant_input(const std::string& arg, ImportOptions& opt) {
  const std::size_t eq = arg.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == arg.size())
    throw InputError("--constant", "", fmt::format("= {}: give NAME=FILE (FILE a .npy or ONNX TensorProto .pb)", arg));
  const std::string name = arg.substr(0, eq), file = arg.substr(eq + 1);
  if (opt.constants.count(name))
    throw InputError("--constant", name, fmt::format("= {}: the value of this input is given twice", arg));
  const bool npy = file.size() > 4 && file.compare(file.size() - 4, 4, ".npy") == 0;
  const bool pb = file.size() > 3 && file.compare(file.size() - 3, 3, ".pb") == 0;
  if (!npy && !pb) throw InputError("--constant", name, fmt::format("= {}: FILE must be a .npy or a .pb file", file));
  opt.constants[name] = npy ? read_npy(file) : read_tensor_proto_file(file);
}

void parse_input_shape(const std::string& arg, ImportOptions& opt) {
  const std::size_t eq = arg.rfind('=');
  const std::string name = eq == std::string::npos ? std::string() : arg.substr(0, eq);
  const std::string dims = eq == std::string::npos ? arg : arg.substr(eq + 1);
  graph::Shape s;
  std::size_t start = 0;
  while (true) {
    const std::size_t x = dims.find('x', start);
    const std::string tok = dims.substr(start, x == std::string::npos ? std::string::npos : x - start);
    long long v = 0;
    std::size_t used = 0;
    try {
      v = std::stoll(tok, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (tok.empty() || used != tok.size() || v < 1 || v > 65536)
      throw InputError("--input-shape", name,
                       fmt::format("= {}: give NAME=1x3x224x224 (or a bare 1x3x224x224 for a single-input model), every "
                                   "dimension an integer in [1, 65536]",
                                   arg));
    s.push_back(v);
    if (x == std::string::npos) break;
    start = x + 1;
  }
  if (eq != std::string::npos && name.empty())
    throw InputError("--input-shape", "", fmt::format("= {}: the input name before '=' is empty", arg));
  if (opt.input_shapes.count(name))
    throw InputError("--input-shape", name, fmt::format("= {}: the shape of this input is given twice", arg));
  opt.input_shapes[name] = s;
}

graph::Graph import_onnx(const std::string& path, const ImportOptions& opt) {
  Importer imp(path, opt);
  return imp.run();
}

}  // namespace flycol
