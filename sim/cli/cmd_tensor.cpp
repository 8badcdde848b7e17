// flycol tensor: look at and convert boundary tensors. `info` prints a .npy or ONNX TensorProto
// (.pb) file's dtype, shape and value range; `convert` writes one as .npy (the ONNX conformance
// tests turn test_data_set_0/input_0.pb into .npy with it), optionally in another dtype.
#include <algorithm>
#include <cmath>
#include <memory>

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

struct TensorArgs {
  std::string file, in, out, dtype;
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
  return {sub, [a, info] { return info->parsed() ? info_command(a->file) : convert_command(a->in, a->out, a->dtype); }};
}

}  // namespace flycol::cli
