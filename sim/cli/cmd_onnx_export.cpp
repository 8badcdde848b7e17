// flycol onnx-export: writes a network file (a built-in network or any file of the configs/networks
// format) as an ONNX model with seeded weights (sim/onnx/onnx_write.h; docs/networks.md), so the
// built-in networks can go through `flycol import` and `flycol net --onnx` like a user's model.
#include <chrono>
#include <cstdint>
#include <memory>

#include <fmt/format.h>

#include "sim/cli/commands.h"
#include "sim/common/input_error.h"
#include "sim/network/network.h"
#include "sim/onnx/onnx_write.h"

namespace flycol::cli {
namespace {

struct OnnxExportArgs {
  std::string network, out, input_size;
  std::uint64_t seed = 1;
  std::string weights = "random", activations = "auto";
};

// --input-size HxW (or one number for both).
void parse_input_size(const std::string& s, onnx_write::Options& opt) {
  const auto x = s.find('x');
  try {
    std::size_t used = 0;
    const int h = std::stoi(s.substr(0, x), &used);
    if (used != (x == std::string::npos ? s.size() : x)) throw std::invalid_argument(s);
    int w = h;
    if (x != std::string::npos) {
      const std::string rest = s.substr(x + 1);
      w = std::stoi(rest, &used);
      if (used != rest.size()) throw std::invalid_argument(s);
    }
    if (h < 1 || w < 1 || h > 65536 || w > 65536) throw std::out_of_range(s);
    opt.input_h = h, opt.input_w = w;
  } catch (const std::logic_error&) {
    throw InputError("--input-size", "", fmt::format("= {}: must be HxW (or one size for both), each in [1, 65536]", s));
  }
}

int onnx_export_command(const OnnxExportArgs& a) {
  const Network net = load_network(a.network);
  onnx_write::Options opt;
  opt.seed = a.seed;
  opt.weights = a.weights;
  opt.activations = a.activations;
  if (!a.input_size.empty()) parse_input_size(a.input_size, opt);
  const auto t0 = std::chrono::steady_clock::now();
  const std::uint64_t bytes = onnx_write::write_onnx(net, opt, a.out);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  fmt::print("flycol onnx-export: {} ({} layers, {} on the array, {:.3f} G MAC) -> {}\n", net.name, net.layers.size(),
             net.array_layers(), double(net.macs()) * 1e-9, a.out);
  fmt::print("  {:.1f} MB, opset 13, {} float32 weights (seed {}), activations {}, written in {:.2f} s\n",
             double(bytes) / 1e6, a.weights, a.seed, a.activations, s);
  return kExitOk;
}

}  // namespace

Subcommand add_onnx_export(CLI::App& app) {
  auto a = std::make_shared<OnnxExportArgs>();
  CLI::App* sub = app.add_subcommand(
      "onnx-export", "write a network (configs/networks name or file) as an ONNX model with seeded weights");
  sub->add_option("--network", a->network, "network name (flycol list) or network file")->required();
  sub->add_option("--out", a->out, "the ONNX file to write (written whole or not at all)")->required();
  sub->add_option("--seed", a->seed, "seed of the weights and biases")->capture_default_str();
  sub->add_option("--weights", a->weights,
                  "random (He-scaled normal) or zeros (same graph and size, values not looked at)")
      ->capture_default_str();
  sub->add_option("--activations", a->activations,
                  "auto (Relu, or LeakyRelu 0.1 for yolo networks, where the real network has them) or none")
      ->capture_default_str();
  sub->add_option("--input-size", a->input_size,
                  "HxW of the input instead of the network's (fully convolutional networks only)");
  return {sub, [a] { return onnx_export_command(*a); }};
}

}  // namespace flycol::cli
