// flycol tensor: look at and convert boundary tensors. `info` prints a .npy or ONNX TensorProto
// (.pb) file's dtype, shape and value range; `convert` writes one as .npy (the ONNX conformance
// tests turn test_data_set_0/input_0.pb into .npy with it), optionally in another dtype; `random`
// writes a seeded input tensor for trying a model without NumPy at hand.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <sstream>

#include <fmt/format.h>

#include "base/numerics/fp16.h"
#include "sim/cli/commands.h"
#include "sim/common/input_error.h"
#include "sim/onnx/tensor_proto.h"
#include "sim/tensor/npy.h"

namespace flycol::cli {
namespace {

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

Tensor read_any(const std::string& path) {
  if (ends_with(path, ".npy")) return read_npy(path);
  if (ends_with(path, ".pb")) return read_tensor_proto_file(path);
  throw InputError(path, "", "is neither .npy (NumPy) nor .pb (ONNX TensorProto): name the file by its format");
}

// Floats are rounded once, to nearest even, to the target float type; integers must be exact and
// in range (never clamped): a value that does not fit is an error naming it.
Tensor convert(const Tensor& in, DType to, const std::string& source) {
  Tensor out = in;
  out.dtype = to;
  for (std::size_t i = 0; i < out.values.size(); ++i) {
    double& v = out.values[i];
    switch (to) {
      case DType::float16: v = fp16::to_double(fp16::from_double(v)); break;
      case DType::float32: v = double(float(v)); break;
      case DType::float64: break;
      default: {
        const double lo = to == DType::int8 ? -128 : to == DType::int16 ? -32768 : -2147483648.0;
        const double hi = to == DType::int8 ? 127 : to == DType::int16 ? 32767 : 2147483647.0;
        if (!(v == std::floor(v)) || v < lo || v > hi)
          throw InputError(source, "--dtype",
                           fmt::format("= {}: value [{}] = {} is not an integer in [{}, {}]; integers are never clamped "
                                       "or rounded, choose a float dtype or a wider integer",
                                       dtype_name(to), i, v, lo, hi));
      }
    }
  }
  return out;
}

int info_command(const std::string& file) {
  const Tensor t = read_any(file);
  fmt::print("{}: {} {}, {} values\n", file, dtype_name(t.dtype), t.shape_text(), t.elems());
  if (t.values.empty()) return kExitOk;
  double lo = t.values[0], hi = t.values[0], sum = 0;
  std::size_t nan = 0;
  for (double v : t.values) {
    if (std::isnan(v)) {
      ++nan;
      continue;
    }
    lo = std::min(lo, v), hi = std::max(hi, v), sum += v;
  }
  const std::size_t n = t.values.size() - nan;
  fmt::print("  min {}  max {}  mean {}{}\n", lo, hi, n ? sum / double(n) : 0.0,
             nan ? fmt::format("  ({} NaN)", nan) : std::string());
  return kExitOk;
}

int convert_command(const std::string& in, const std::string& out, const std::string& dtype) {
  if (!ends_with(out, ".npy")) throw InputError(out, "", "the output of `flycol tensor convert` is a .npy file: name it *.npy");
  const Tensor t = read_any(in);
  const DType to = dtype.empty() ? t.dtype : parse_dtype(dtype, "--dtype");
  const Tensor c = convert(t, to, in);
  write_npy(out, c);
  fmt::print("flycol tensor: {} ({} {}) -> {} ({})\n", in, dtype_name(t.dtype), t.shape_text(), out, dtype_name(to));
  return kExitOk;
}

// "1x3x224x224" -> {1, 3, 224, 224}; every dimension in [1, 2^20] and at most 2^31 values.
std::vector<std::int64_t> parse_shape(const std::string& text) {
  std::vector<std::int64_t> shape;
  std::int64_t total = 1;
  std::stringstream ss(text);
  std::string dim;
  while (std::getline(ss, dim, 'x')) {
    std::size_t used = 0;
    long long v = 0;
    try {
      v = std::stoll(dim, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (dim.empty() || used != dim.size() || v < 1 || v > (1 << 20))
      throw InputError("--shape", "", fmt::format("= {}: must be dimensions in [1, 1048576] joined by x, e.g. 1x3x224x224", text));
    shape.push_back(v);
    total *= v;
    if (total > (std::int64_t(1) << 31))
      throw InputError("--shape", "", fmt::format("= {}: more than 2^31 values", text));
  }
  if (shape.empty() || shape.size() > 8)
    throw InputError("--shape", "", fmt::format("= {}: must have 1 to 8 dimensions, e.g. 1x3x224x224", text));
  return shape;
}

// Seeded values: uniform in [0, 1) (an image scaled to [0, 1)) or standard normal, as float32
// (or the dtype asked for: floats rounded once; integer dtypes are refused, a random integer
// tensor needs a range this command does not ask for).
int random_command(const std::string& out, const std::string& shape_text, std::uint64_t seed, const std::string& dist,
                   const std::string& dtype) {
  if (!ends_with(out, ".npy")) throw InputError(out, "", "the output of `flycol tensor random` is a .npy file: name it *.npy");
  Tensor t;
  t.dtype = dtype.empty() ? DType::float32 : parse_dtype(dtype, "--dtype");
  if (!is_float(t.dtype))
    throw InputError("--dtype", "", fmt::format("= {}: random tensors are float16, float32 or float64", dtype));
  t.shape = parse_shape(shape_text);
  // splitmix64: the same bytes from a seed on every platform (std::*_distribution is not specified).
  std::uint64_t state = seed;
  auto next = [&state] {
    std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  };
  auto unit = [&next] { return double(next() >> 11) * 0x1p-53; };  // [0, 1)
  t.values.resize(std::size_t(t.elems()));
  for (double& v : t.values) {
    if (dist == "uniform") {
      v = unit();
    } else {  // Box-Muller; 1 - u keeps the logarithm finite
      const double r = std::sqrt(-2.0 * std::log(1.0 - unit()));
      v = r * std::cos(2.0 * M_PI * unit());
    }
  }
  write_npy(out, convert(t, t.dtype, out));
  fmt::print("flycol tensor: {} {} {} values ({}, seed {}) -> {}\n", dtype_name(t.dtype), t.shape_text(), t.elems(), dist,
             seed, out);
  return kExitOk;
}

struct TensorArgs {
  std::string file, in, out, dtype;
  std::string random_out, shape, dist = "uniform", random_dtype;
  std::uint64_t seed = 1;
};

}  // namespace

Subcommand add_tensor(CLI::App& app) {
  auto a = std::make_shared<TensorArgs>();
  CLI::App* sub = app.add_subcommand("tensor", "inspect and convert tensor files (.npy, ONNX TensorProto .pb)");
  sub->require_subcommand(1);
  CLI::App* info = sub->add_subcommand("info", "print a tensor file's dtype, shape, min/max/mean");
  info->add_option("FILE", a->file, ".npy or .pb file")->required();
  CLI::App* conv = sub->add_subcommand("convert", "write a tensor file as .npy");
  conv->add_option("IN", a->in, ".npy or .pb file")->required();
  conv->add_option("OUT", a->out, "the .npy file to write")->required();
  conv->add_option("--dtype", a->dtype,
                   "element type to write (float16 float32 float64 int8 int16 int32; default: the input's): floats "
                   "rounded once to nearest even, integers range-checked, never clamped");
  CLI::App* random = sub->add_subcommand("random", "write a seeded random tensor as .npy (an input to try a model with)");
  random->add_option("OUT", a->random_out, "the .npy file to write")->required();
  random->add_option("--shape", a->shape, "dimensions joined by x, e.g. 1x3x224x224 (NCHW)")->required();
  random->add_option("--seed", a->seed, "seed")->capture_default_str();
  random->add_option("--dist", a->dist, "uniform ([0, 1)) or normal (mean 0, sigma 1)")
      ->check(CLI::IsMember({"uniform", "normal"}))
      ->capture_default_str();
  random->add_option("--dtype", a->random_dtype, "float16, float32 (default) or float64");
  return {sub, [a, info, random] {
            if (info->parsed()) return info_command(a->file);
            if (random->parsed()) return random_command(a->random_out, a->shape, a->seed, a->dist, a->random_dtype);
            return convert_command(a->in, a->out, a->dtype);
          }};
}

}  // namespace flycol::cli
