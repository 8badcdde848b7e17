// Element types and shapes of flycol::Tensor (sim/tensor/tensor.h).
#include "sim/tensor/tensor.h"

#include <fmt/format.h>

#include "sim/common/input_error.h"

namespace flycol {

const std::vector<std::string>& dtype_names() {
  static const std::vector<std::string> names = {"float16", "float32", "float64", "int8", "int16", "int32"};
  return names;
}

const char* dtype_name(DType d) { return dtype_names()[std::size_t(d)].c_str(); }

DType parse_dtype(const std::string& name, const std::string& source) {
  const auto& names = dtype_names();
  for (std::size_t i = 0; i < names.size(); ++i)
    if (names[i] == name) return DType(i);
  throw InputError(source, "", fmt::format("= {}: unknown element type; one of {}", name, fmt::join(names, ", ")));
}

bool is_float(DType d) { return d == DType::float16 || d == DType::float32 || d == DType::float64; }

int dtype_bytes(DType d) {
  switch (d) {
    case DType::float16: return 2;
    case DType::float32: return 4;
    case DType::float64: return 8;
    case DType::int8: return 1;
    case DType::int16: return 2;
    case DType::int32: return 4;
  }
  return 0;
}

std::int64_t Tensor::elems() const {
  // A zero axis makes the tensor empty whatever the other axes are (their product may not even
  // fit; parse_npy rejects that, a tensor built in code may still carry such a shape).
  for (std::int64_t d : shape)
    if (d == 0) return 0;
  std::int64_t n = 1;
  for (std::int64_t d : shape) n *= d;
  return n;
}

std::string Tensor::shape_text() const { return fmt::format("[{}]", fmt::join(shape, ", ")); }

}  // namespace flycol
