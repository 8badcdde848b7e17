// The host part of an imported network (sim/onnx/graph.h host nodes): ONNX operators run on the
// host in float32 with ONNX's semantics (Relu, Add with broadcasting, MaxPool, Resize, Softmax,
// ...), both in the accelerator run and in the float32 reference run of sim/graph/graph_run.h.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/onnx/graph.h"
#include "sim/tensor/tensor.h"

namespace flycol::graph {

// A float32 tensor on the host: shape and C-order values.
struct F32 {
  Shape shape;
  std::vector<float> v;
  bool absent = false;  // an optional input the node left out (ONNX's empty input name)

  std::int64_t elems() const;
};

std::string shape_text(const Shape& s);  // "[1, 3, 224, 224]"

// Every value rounded once to float32 (the host's type); the dtype is not kept.
F32 to_f32(const Tensor& t);
// float32 values as a float32 Tensor (exact in its doubles).
Tensor to_tensor(const F32& t);

// The operators run_host_node knows, sorted.
const std::vector<std::string>& host_op_names();
bool is_host_op(const std::string& op);

// Runs one host node on its inputs (in the node's input order; absent ones marked) and returns its
// outputs (Dropout's optional mask is all ones: inference). `opset` is the graph's (Softmax's axis
// semantics and Resize's defaults changed with it). An unsupported operator or attribute value,
// or inputs of the wrong rank or shape, is InputError naming the node and the operator.
std::vector<F32> run_host_node(const Node& node, const std::vector<F32>& inputs, std::int64_t opset);

}  // namespace flycol::graph
