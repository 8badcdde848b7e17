// A tensor at flycol's boundary with the outside world (NumPy .npy files, ONNX initializers and
// test data): a shape, the element type it came in or goes out as, and its values in C order.
// Every supported element type (float16/32/64, int8/16/32) is exact in a double, so the values are
// kept as doubles and no conversion happens until a caller asks for one (sim/tensor/convert.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace flycol {

enum class DType { float16, float32, float64, int8, int16, int32 };

// "float16", "float32", "float64", "int8", "int16", "int32" (NumPy's names), in enum order.
const std::vector<std::string>& dtype_names();
const char* dtype_name(DType d);
// source names the option or file in the message ("--ofmap-dtype"); throws InputError.
DType parse_dtype(const std::string& name, const std::string& source);
bool is_float(DType d);
int dtype_bytes(DType d);

struct Tensor {
  DType dtype = DType::float32;
  std::vector<std::int64_t> shape;  // empty: a scalar (one value)
  std::vector<double> values;       // C order, product(shape) values

  std::int64_t elems() const;           // product of the shape (1 for a scalar)
  std::string shape_text() const;       // "[1, 3, 224, 224]"
  bool empty() const { return values.empty() && !shape.empty() && elems() == 0; }
};

}  // namespace flycol
