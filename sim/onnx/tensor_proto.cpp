// TensorProto decoding and encoding (sim/onnx/tensor_proto.h). ONNX stores values either in the
// typed repeated fields or as little-endian bytes in raw_data (or in an external file with the
// same byte layout); both paths are checked against the element count the dims give.
#include "sim/onnx/tensor_proto.h"

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>

#include <fmt/format.h>
#include <onnx/onnx_pb.h>

#include "base/numerics/fp16.h"
#include "sim/common/files.h"
#include "sim/common/input_error.h"

namespace flycol {
namespace {

const char* proto_type_name(int t) {
  switch (t) {
    case onnx::TensorProto::FLOAT: return "FLOAT";
    case onnx::TensorProto::UINT8: return "UINT8";
    case onnx::TensorProto::INT8: return "INT8";
    case onnx::TensorProto::UINT16: return "UINT16";
    case onnx::TensorProto::INT16: return "INT16";
    case onnx::TensorProto::INT32: return "INT32";
    case onnx::TensorProto::INT64: return "INT64";
    case onnx::TensorProto::STRING: return "STRING";
    case onnx::TensorProto::BOOL: return "BOOL";
    case onnx::TensorProto::FLOAT16: return "FLOAT16";
    case onnx::TensorProto::DOUBLE: return "DOUBLE";
    case onnx::TensorProto::UINT32: return "UINT32";
    case onnx::TensorProto::UINT64: return "UINT64";
    case onnx::TensorProto::BFLOAT16: return "BFLOAT16";
    default: return "UNDEFINED";
  }
}

std::string tensor_label(const onnx::TensorProto& t) {
  return t.name().empty() ? std::string("tensor (unnamed)") : fmt::format("tensor '{}'", t.name());
}

// The bytes of an external-data tensor: location/offset/length relative to base_dir.
std::string external_bytes(const onnx::TensorProto& t, const std::string& base_dir, const std::string& source) {
  std::string location;
  std::int64_t offset = 0, length = -1;
  for (const auto& kv : t.external_data()) {
    if (kv.key() == "location") location = kv.value();
    else if (kv.key() == "offset" || kv.key() == "length") {
      std::int64_t v = -1;
      try {
        std::size_t used = 0;
        v = std::stoll(kv.value(), &used);
        if (used != kv.value().size()) v = -1;
      } catch (const std::exception&) {
      }
      if (v < 0)
        throw InputError(source, "", tensor_label(t) + fmt::format(": external data {} = '{}': must be a non-negative integer",
                                                              kv.key(), kv.value()));
      (kv.key() == "offset" ? offset : length) = v;
    }
  }
  if (location.empty())
    throw InputError(source, "", tensor_label(t) + ": " + "has external data without a `location`: the model file is incomplete");
  namespace fs = std::filesystem;
  if (fs::path(location).is_absolute() || location.find("..") != std::string::npos)
    throw InputError(source, "", tensor_label(t) + ": " +
                     fmt::format("external data location '{}' must be a relative path inside the model's directory", location));
  const std::string path = (fs::path(base_dir.empty() ? "." : base_dir) / location).string();
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw InputError(source, "", tensor_label(t) + ": " +
                     fmt::format("its external data file '{}' cannot be opened: keep the model's data files beside "
                                 "the .onnx file (as they were exported)",
                                 path));
  in.seekg(0, std::ios::end);
  const std::int64_t size = std::int64_t(in.tellg());
  if (length < 0) length = size - offset;
  if (offset > size || length < 0 || offset + length > size)
    throw InputError(source, "", tensor_label(t) + ": " +
                     fmt::format("its external data file '{}' is {} bytes, too short for offset {} + length {}: the "
                                 "file is truncated or belongs to another model; re-export the model",
                                 path, size, offset, length));
  std::string bytes(std::size_t(length), '\0');
  in.seekg(offset);
  in.read(bytes.data(), length);
  if (!in) throw InputError(source, "", tensor_label(t) + fmt::format(": reading its external data file '{}' failed", path));
  return bytes;
}

template <typename T>
T load_le(const char* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));  // x86 and every host flycol builds on are little-endian, as ONNX's raw_data
  return v;
}

}  // namespace

Tensor tensor_from_proto(const onnx::TensorProto& t, const std::string& base_dir, const std::string& source,
                         Int64Use int64_use) {
  Tensor out;
  const int type = t.data_type();
  int bytes = 0;
  switch (type) {
    case onnx::TensorProto::FLOAT: out.dtype = DType::float32, bytes = 4; break;
    case onnx::TensorProto::FLOAT16: out.dtype = DType::float16, bytes = 2; break;
    case onnx::TensorProto::DOUBLE: out.dtype = DType::float64, bytes = 8; break;
    case onnx::TensorProto::INT8: out.dtype = DType::int8, bytes = 1; break;
    case onnx::TensorProto::BOOL: out.dtype = DType::int8, bytes = 1; break;
    case onnx::TensorProto::UINT8: out.dtype = DType::int16, bytes = 1; break;
    case onnx::TensorProto::INT16: out.dtype = DType::int16, bytes = 2; break;
    case onnx::TensorProto::INT32: out.dtype = DType::int32, bytes = 4; break;
    case onnx::TensorProto::INT64: out.dtype = DType::int32, bytes = 8; break;
    default:
      throw InputError(source, "", tensor_label(t) + ": " +
                       fmt::format("has element type {}: flycol reads FLOAT, FLOAT16, DOUBLE, INT8, INT16, INT32, "
                                   "INT64, UINT8 and BOOL tensors",
                                   proto_type_name(type)));
  }
  if (t.has_segment()) throw InputError(source, "", tensor_label(t) + ": " + "is segmented: segmented tensors are not supported");
  std::int64_t n = 1;
  for (std::int64_t d : t.dims()) {
    if (d < 0 || d > (std::int64_t(1) << 40) || (d && n > (std::int64_t(1) << 40) / d))
      throw InputError(source, "", tensor_label(t) + fmt::format(": has dimension {}: must be in [0, 2^40] and the tensor "
                                                            "smaller than 2^40 elements", d));
    n *= d;
    out.shape.push_back(d);
  }
  // The values are allocated only once the data present is known to match the shape: a few bytes
  // of model claiming 2^30 elements must be refused, not allocated (found by the onnx fuzz harness).

  const bool external = t.data_location() == onnx::TensorProto::EXTERNAL;
  if (external || t.has_raw_data()) {
    const std::string ext = external ? external_bytes(t, base_dir, source) : std::string();
    const std::string& raw = external ? ext : t.raw_data();
    if (std::int64_t(raw.size()) != n * bytes)
      throw InputError(source, "", tensor_label(t) + ": " +
                       fmt::format("holds {} bytes of {} data, but its shape [{}] needs {} x {} = {} bytes",
                                   raw.size(), proto_type_name(type), fmt::join(out.shape, ", "), n, bytes, n * bytes));
    out.values.resize(std::size_t(n));
    const char* p = raw.data();
    for (std::int64_t i = 0; i < n; ++i, p += bytes) {
      double v = 0;
      switch (type) {
        case onnx::TensorProto::FLOAT: v = load_le<float>(p); break;
        case onnx::TensorProto::FLOAT16: v = fp16::to_double(load_le<std::uint16_t>(p)); break;
        case onnx::TensorProto::DOUBLE: v = load_le<double>(p); break;
        case onnx::TensorProto::INT8: v = load_le<std::int8_t>(p); break;
        case onnx::TensorProto::BOOL: v = load_le<std::uint8_t>(p) ? 1 : 0; break;
        case onnx::TensorProto::UINT8: v = load_le<std::uint8_t>(p); break;
        case onnx::TensorProto::INT16: v = load_le<std::int16_t>(p); break;
        case onnx::TensorProto::INT32: v = load_le<std::int32_t>(p); break;
        default: v = double(load_le<std::int64_t>(p)); break;  // INT64
      }
      out.values[std::size_t(i)] = v;
    }
  } else {
    // Typed fields: FLOAT in float_data; DOUBLE in double_data; INT64 in int64_data; the narrower
    // types (and FLOAT16 as its bit pattern) in int32_data.
    std::int64_t have = 0;
    switch (type) {
      case onnx::TensorProto::FLOAT: have = t.float_data_size(); break;
      case onnx::TensorProto::DOUBLE: have = t.double_data_size(); break;
      case onnx::TensorProto::INT64: have = t.int64_data_size(); break;
      default: have = t.int32_data_size(); break;
    }
    if (have != n)
      throw InputError(source, "", tensor_label(t) + ": " +
                       fmt::format("holds {} values, but its shape [{}] needs {}", have, fmt::join(out.shape, ", "), n));
    out.values.resize(std::size_t(n));
    for (std::int64_t i = 0; i < n; ++i) {
      const int j = int(i);
      double v = 0;
      switch (type) {
        case onnx::TensorProto::FLOAT: v = t.float_data(j); break;
        case onnx::TensorProto::DOUBLE: v = t.double_data(j); break;
        case onnx::TensorProto::INT64: v = double(t.int64_data(j)); break;
        case onnx::TensorProto::FLOAT16: v = fp16::to_double(std::uint16_t(t.int32_data(j) & 0xFFFF)); break;
        case onnx::TensorProto::BOOL: v = t.int32_data(j) ? 1 : 0; break;
        default: v = t.int32_data(j); break;
      }
      out.values[std::size_t(i)] = v;
    }
  }
  // Range checks: the narrow types must hold what the type says; INT64 used as data must fit int32.
  if (type == onnx::TensorProto::INT8 || type == onnx::TensorProto::UINT8 || type == onnx::TensorProto::INT16 ||
      type == onnx::TensorProto::INT64) {
    double lo = -128, hi = 127;
    if (type == onnx::TensorProto::UINT8) lo = 0, hi = 255;
    if (type == onnx::TensorProto::INT16) lo = -32768, hi = 32767;
    if (type == onnx::TensorProto::INT64) {
      lo = int64_use == Int64Use::data ? -2147483648.0 : -9007199254740992.0;
      hi = int64_use == Int64Use::data ? 2147483647.0 : 9007199254740992.0;
    }
    for (std::size_t i = 0; i < out.values.size(); ++i)
      if (out.values[i] < lo || out.values[i] > hi)
        throw InputError(source, "", tensor_label(t) + ": " +
                         fmt::format("value [{}] = {} is outside [{}, {}]{}", i, out.values[i], lo, hi,
                                     type == onnx::TensorProto::INT64 && int64_use == Int64Use::data
                                         ? ": INT64 data must fit int32, the widest integer flycol computes with"
                                         : ""));
  }
  return out;
}

Tensor read_tensor_proto_file(const std::string& path) {
  const auto bytes = read_whole_file(path);
  if (!bytes) throw InputError(path, "", "cannot be read: give an ONNX TensorProto file (e.g. test_data_set_0/input_0.pb)");
  onnx::TensorProto t;
  if (!t.ParseFromString(*bytes))
    throw InputError(path, "", "is not a serialized ONNX TensorProto (malformed or truncated)");
  if (t.data_type() == onnx::TensorProto::UNDEFINED)
    throw InputError(path, "", "is not a serialized ONNX TensorProto (no element type)");
  return tensor_from_proto(t, std::filesystem::path(path).parent_path().string(), path, Int64Use::data);
}

void tensor_to_proto(const Tensor& t, const std::string& name, onnx::TensorProto* out, int onnx_type) {
  out->Clear();
  out->set_name(name);
  for (std::int64_t d : t.shape) out->add_dims(d);
  if (onnx_type == 0) {
    switch (t.dtype) {
      case DType::float16: onnx_type = onnx::TensorProto::FLOAT16; break;
      case DType::float32: onnx_type = onnx::TensorProto::FLOAT; break;
      case DType::float64: onnx_type = onnx::TensorProto::DOUBLE; break;
      case DType::int8: onnx_type = onnx::TensorProto::INT8; break;
      case DType::int16: onnx_type = onnx::TensorProto::INT16; break;
      case DType::int32: onnx_type = onnx::TensorProto::INT32; break;
    }
  }
  out->set_data_type(onnx_type);
  std::string raw;
  raw.reserve(t.values.size() * 8);
  auto put = [&raw](const auto v) { raw.append(reinterpret_cast<const char*>(&v), sizeof(v)); };
  auto integer = [&](double v, double lo, double hi, std::size_t i) {
    if (!(v == std::floor(v)) || v < lo || v > hi)
      throw InputError(name, "", fmt::format("value [{}] = {} does not fit {} (integers in [{}, {}]; never clamped)", i,
                                             v, proto_type_name(onnx_type), lo, hi));
    return v;
  };
  for (std::size_t i = 0; i < t.values.size(); ++i) {
    const double v = t.values[i];
    switch (onnx_type) {
      case onnx::TensorProto::FLOAT16: put(fp16::from_double(v)); break;
      case onnx::TensorProto::FLOAT: put(float(v)); break;
      case onnx::TensorProto::DOUBLE: put(v); break;
      case onnx::TensorProto::INT8: put(std::int8_t(integer(v, -128, 127, i))); break;
      case onnx::TensorProto::UINT8: put(std::uint8_t(integer(v, 0, 255, i))); break;
      case onnx::TensorProto::BOOL: put(std::uint8_t(integer(v, 0, 1, i))); break;
      case onnx::TensorProto::INT16: put(std::int16_t(integer(v, -32768, 32767, i))); break;
      case onnx::TensorProto::INT32: put(std::int32_t(integer(v, -2147483648.0, 2147483647.0, i))); break;
      case onnx::TensorProto::INT64: put(std::int64_t(integer(v, -9007199254740992.0, 9007199254740992.0, i))); break;
      default:
        throw InputError(name, "", fmt::format("cannot be written as {}", proto_type_name(onnx_type)));
    }
  }
  out->set_raw_data(raw);
}

}  // namespace flycol
