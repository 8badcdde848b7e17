// ONNX TensorProto <-> flycol::Tensor: the initializers and Constant values of an ONNX model and
// the input_N.pb / output_N.pb files of ONNX's conformance data, with external data resolved
// against the model's directory. Every problem is an InputError naming the tensor and the file.
#pragma once

#include <string>

#include "sim/tensor/tensor.h"

namespace onnx {
class TensorProto;
}

namespace flycol {

// How an INT64 tensor is read: as data it must fit int32 (the widest integer flycol computes
// with; out of range is an error, never a silent clamp); as an index (shapes, axes, sizes) any
// value exact in a double is kept.
enum class Int64Use { data, index };

// `base_dir` resolves external data (data_location EXTERNAL: key `location` relative to it,
// `offset` and `length` in bytes); `source` names the model or file in messages.
// Element types: FLOAT, FLOAT16 (int32_data or raw_data), DOUBLE, INT8, INT16, INT32, INT64
// (to int32), UINT8 (to int16), BOOL (to int8); anything else is an InputError naming the type.
Tensor tensor_from_proto(const onnx::TensorProto& t, const std::string& base_dir, const std::string& source,
                         Int64Use int64_use = Int64Use::data);

// A serialized TensorProto file (ONNX test data: test_data_set_0/input_0.pb ...); external data
// is resolved against the file's directory.
Tensor read_tensor_proto_file(const std::string& path);

// The tensor as a TensorProto, values in raw_data (little-endian): in its own dtype, or with
// `onnx_type` != 0 in that TensorProto element type (FLOAT, FLOAT16, DOUBLE, INT8, INT16, INT32,
// INT64, UINT8, BOOL), the values rounded once (floats) or range-checked (integers; InputError
// naming `name` when a value does not fit).
void tensor_to_proto(const Tensor& t, const std::string& name, onnx::TensorProto* out, int onnx_type = 0);

}  // namespace flycol
