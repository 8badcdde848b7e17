// ONNX import: an .onnx file to the graph flycol executes (sim/onnx/graph.h). The model is parsed,
// checked by ONNX's own checker, its input shapes fixed (--input-shape) and inferred by ONNX's
// shape inference, then normalized: convolutions, Gemm and MatMul become array nodes, BatchNorm
// is folded where it can be, everything else supported becomes a host node. Any problem is ONE
// InputError naming the file, the node, the operator and what to do; nothing is written by import.
#pragma once

#include <map>
#include <string>

#include "sim/onnx/graph.h"

namespace flycol {

// The default-domain opsets the importer accepts: ONNX 1.12's checker knows up to 17; opset 6 is
// the oldest whose operators import needs no rewriting for (PyTorch's converted test models use
// it; its Add/Mul legacy `broadcast`/`axis` is accepted only where it means NumPy broadcasting).
inline constexpr int kOnnxOpsetMin = 6;
inline constexpr int kOnnxOpsetMax = 17;

struct ImportOptions {
  // --input-shape: graph input name -> shape; the key "" is a bare shape for a single-input model.
  std::map<std::string, graph::Shape> input_shapes;
  // --constant: graph inputs given a fixed value, which then count as initializers (ONNX's node
  // conformance models pass the weights, Clip's bounds, Reshape's shape ... as inputs).
  std::map<std::string, Tensor> constants;
};

// Parses one --constant argument, "NAME=FILE" with FILE a .npy or ONNX TensorProto .pb, into `opt`.
void parse_constant_input(const std::string& arg, ImportOptions& opt);

// Parses one --input-shape argument, "NAME=1x3x224x224" or a bare "1x3x224x224", into `opt`.
// Throws InputError("--input-shape", ...).
void parse_input_shape(const std::string& arg, ImportOptions& opt);

// The operators import accepts, by ONNX op_type (array and host).
const std::vector<std::string>& supported_onnx_ops();

graph::Graph import_onnx(const std::string& path, const ImportOptions& opt = ImportOptions());

}  // namespace flycol
