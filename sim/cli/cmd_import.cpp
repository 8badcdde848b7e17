// flycol import: an ONNX model to a network file (configs/networks format) and, with
// --weights-dir, each array layer's weights and bias as float32 .npy (docs/onnx.md). Everything
// is checked and built in memory first, so a bad model leaves no file behind.
#include <chrono>
#include <filesystem>
#include <map>
#include <memory>

#include <fmt/format.h>

#include "sim/cli/commands.h"
#include "sim/common/files.h"
#include "sim/common/input_error.h"
#include "sim/network/network_yaml.h"
#include "sim/onnx/onnx_import.h"
#include "sim/onnx/onnx_network.h"
#include "sim/tensor/npy.h"

namespace flycol::cli {
namespace {

struct ImportArgs {
  std::string onnx, out, weights_dir;
  std::vector<std::string> input_shapes, constants;
};

// A file name from a layer name ('/' and ':' are legal in layer names, not in file names).
std::string file_stem(const std::string& layer) {
  std::string s = layer;
  for (char& ch : s)
    if (ch == '/' || ch == ':') ch = '_';
  while (!s.empty() && (s[0] == '_' || s[0] == '.')) s.erase(0, 1);
  return s.empty() ? std::string("layer") : s;
}

Tensor as_float32(const Tensor& t) {
  Tensor out = t;
  out.dtype = DType::float32;
  for (double& v : out.values) v = double(float(v));  // round to nearest even, the one rounding of the file
  return out;
}

int import_command(const ImportArgs& a) {
  const auto t0 = std::chrono::steady_clock::now();
  ImportOptions opt;
  for (const auto& s : a.input_shapes) parse_input_shape(s, opt);
  for (const auto& c : a.constants) parse_constant_input(c, opt);
  const graph::Graph g = import_onnx(a.onnx, opt);
  const Network net = to_network(g);
  const double import_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  // Everything to write, built before anything is written.
  std::vector<std::pair<std::string, std::string>> files;  // path, bytes
  if (!a.weights_dir.empty()) {
    std::map<std::string, int> seen;
    for (std::size_t i = 0; i < g.nodes.size(); ++i) {
      const graph::Node& n = g.nodes[i];
      if (!n.on_array) continue;
      std::string stem = file_stem(net.layers[i].name);
      if (seen[stem]++) stem += fmt::format("_{}", seen[stem]);
      const std::string base = (std::filesystem::path(a.weights_dir) / stem).string();
      files.emplace_back(base + ".weights.npy", npy_bytes(as_float32(n.weights)));
      if (!n.bias.values.empty()) files.emplace_back(base + ".bias.npy", npy_bytes(as_float32(n.bias)));
    }
  }
  std::vector<std::string> header = {
      fmt::format("Imported by `flycol import` from {} (opset {}).", g.source, g.opset),
      "Array layers (conv, fc) run on the accelerator; the other layers run on the host in float32.",
  };
  if (!a.weights_dir.empty()) header.push_back(fmt::format("Weights and biases (float32 .npy): {}", a.weights_dir));
  const std::string yaml = network_yaml(net, fmt::format("{}", fmt::join(header, "\n")));
  if (g.array_nodes() == 0)
    throw InputError(a.onnx, "", "has no Conv, Gemm or MatMul node: a network file needs at least one layer the array "
                                 "runs");
  // The file must read back through the network parser (its shape and connectivity checks), or
  // `flycol net` could not use it: refuse rather than write a file flycol itself rejects.
  try {
    parse_network(yaml, a.out);
  } catch (const InputError& e) {
    throw InputError(a.onnx, "", fmt::format("the network file for this model does not read back ({}): an importer "
                                             "limitation, please report it with the model",
                                             e.what()));
  }
  for (const auto& f : files) write_file_atomic(f.first, f.second);
  write_file_atomic(a.out, yaml);

  std::map<std::string, int> host;
  int folded = 0;
  for (const auto& n : g.nodes) {
    if (!n.on_array) ++host[n.op];
    folded += int(n.folded.size());
  }
  std::vector<std::string> host_list;
  for (const auto& h : host) host_list.push_back(fmt::format("{} {}", h.second, h.first));
  fmt::print("flycol import: {} -> {} ({:.2f} s)\n", a.onnx, a.out, import_s);
  fmt::print("  graph        '{}', opset {}, {} node(s), input{} {}\n", g.name, g.opset, g.nodes.size(),
             g.inputs.size() == 1 ? "" : "s", [&g] {
               std::vector<std::string> s;
               for (const auto& in : g.inputs) s.push_back(fmt::format("{} [{}]", in.name, fmt::join(in.shape, "x")));
               return fmt::format("{}", fmt::join(s, ", "));
             }());
  fmt::print("  array        {} layer(s), {} MACs\n", g.array_nodes(), g.array_macs());
  fmt::print("  host         {} op(s) in float32{}{}\n", g.nodes.size() - std::size_t(g.array_nodes()),
             host_list.empty() ? "" : ": ", fmt::format("{}", fmt::join(host_list, ", ")));
  fmt::print("  folded       {} BatchNormalization(s) into the layer before\n", folded);
  if (!a.weights_dir.empty()) fmt::print("  weights      {} .npy file(s) in {}\n", files.size(), a.weights_dir);
  return kExitOk;
}

}  // namespace

Subcommand add_import(CLI::App& app) {
  auto a = std::make_shared<ImportArgs>();
  CLI::App* sub = app.add_subcommand("import", "import an ONNX model as a network file (docs/onnx.md)");
  sub->add_option("--onnx", a->onnx, "the .onnx model")->required();
  sub->add_option("--out", a->out, "the network file to write (YAML, configs/networks format)")->required();
  sub->add_option("--weights-dir", a->weights_dir,
                  "also write each array layer's weights (and bias) as float32 .npy named after the layer here");
  sub->add_option("--input-shape", a->input_shapes,
                  "fix an input's shape: NAME=1x3x224x224, or a bare 1x3x224x224 for a single-input model (repeatable)");
  sub->add_option("--constant", a->constants,
                  "give graph input NAME a fixed value, NAME=FILE (.npy or ONNX TensorProto .pb): it is then an "
                  "initializer (ONNX's node tests pass weights as inputs; repeatable)");
  return {sub, [a] { return import_command(*a); }};
}

}  // namespace flycol::cli
