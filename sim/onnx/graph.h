// A network as a graph of tensors, the form an ONNX model is imported into (sim/onnx/onnx_import.h)
// and the form the real-data runner executes (sim/graph/graph_run.h). Everything ONNX leaves to
// be resolved at run time is resolved at import: shapes are inferred and static, constant inputs
// (Clip's min/max, Reshape's shape, Resize's scales, ...) become attributes, BatchNormalization is
// folded into the convolution before it where it can be, auto_pad becomes explicit pads, and Gemm
// and MatMul become 1 x 1 convolutions. What is left is either an array node (a convolution the
// accelerator runs, per group) or a host node (an ONNX operator run in float32 on the host).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "sim/config/layer.h"
#include "sim/tensor/tensor.h"

namespace flycol::graph {

using Shape = std::vector<std::int64_t>;

struct Node {
  std::string name;  // the ONNX node's name, or "<op_type>_<index>" when the model leaves it empty
  std::string op;    // the ONNX op_type as written ("Conv", "Gemm", "MatMul", "Relu", "MaxPool", ...)
  // Data inputs and outputs: names of values (graph inputs, other nodes' outputs, or constants of
  // Graph::constants for host nodes). Array nodes list only their data input.
  std::vector<std::string> inputs, outputs;

  // --- Array nodes (Conv, and Gemm/MatMul as 1 x 1 convolutions) ---
  bool on_array = false;
  Layer layer;  // ONE group: c = input channels per group, k = output channels per group; n, h, w
                // and kernel, stride, dilation, pads as the accelerator runs it
  int groups = 1;  // the array runs `groups` convolutions; group g reads input channels
                   // [g*c, (g+1)*c) and writes output channels [g*k, (g+1)*k)
  Tensor weights;  // [groups*k][c][ky][kx], float64 values of the model's float weights (BN folded,
                   // Gemm's alpha and transB applied): NOT yet rounded to the configured arithmetic
  Tensor bias;     // [groups*k] or empty (no bias); added on the host in float32 after the array
  Shape in_view;   // the data input reinterpreted (C order, no data movement) as [n][groups*c][h][w]
  Shape out_shape; // the output as the graph sees it: [n][groups*k][ho][wo], or [M][N] for Gemm/MatMul
  std::vector<std::string> folded;  // names of nodes folded into this one (BatchNormalization)

  // --- Host nodes ---
  // ONNX attributes by their ONNX names, numbers as doubles (ints, floats, lists of either), with
  // the constant inputs of newer opsets moved here under their input's name ("min", "max",
  // "shape", "scales", "sizes", "roi" is dropped) and auto_pad resolved to "pads" for pooling.
  std::map<std::string, std::vector<double>> attrs;
  std::map<std::string, std::string> str_attrs;  // "mode", "coordinate_transformation_mode", ...
};

struct Graph {
  std::string name;    // the ONNX graph's name (or the file's stem)
  std::string source;  // the file it came from
  std::int64_t opset = 0;
  struct Input {
    std::string name;
    Shape shape;  // static (a dynamic dimension needs --input-shape)
  };
  std::vector<Input> inputs;          // graph inputs that are not initializers
  std::vector<std::string> outputs;   // graph outputs
  std::vector<Node> nodes;            // in topological order
  std::map<std::string, Tensor> constants;  // initializers and Constant outputs host nodes read
  std::map<std::string, Shape> shapes;      // the inferred shape of every value

  int array_nodes() const;
  std::int64_t array_macs() const;  // all groups of all array nodes
};

}  // namespace flycol::graph
