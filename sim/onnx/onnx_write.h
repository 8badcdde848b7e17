// Writes a network file's network (sim/network/network.h) as an ONNX model with seeded weights, so
// that the built-in networks (and any network file) can go through the ONNX import and the real-data
// runner like a user's model (`flycol onnx-export`, docs/networks.md "The networks as ONNX").
// The array layers come out as Conv/Gemm with exactly the file's shapes; host layers as their ONNX
// operators; the domain layers without an ONNX operator (yolo, proposal) as documented below.
#pragma once

#include <cstdint>
#include <string>

#include <onnx/onnx_pb.h>

#include "sim/network/network.h"

namespace flycol::onnx_write {

struct Options {
  std::uint64_t seed = 1;  // the weights and biases (the same seed gives the same bytes)
  // "random": He-scaled normal weights (std sqrt(2 / fan_in), smaller on the last convolution of a
  // residual branch, see onnx_write.cpp) and small normal biases; "zeros": all zero (the same
  // graph and file size, for structure-only tests that do not look at values).
  std::string weights = "random";
  // "auto": add Relu (LeakyRelu 0.1 in a network with yolo layers, as darknet) after the array
  // layers as the real network has them, unless the file lists activations itself; "none": none.
  std::string activations = "auto";
  int input_h = 0, input_w = 0;  // 0: the network's input size (a fully convolutional network may
                                 // take another; an fc layer then fails the shape check)
};

// The model (opset 13, IR version of libonnx), checked with onnx::checker and with its graph
// outputs' shapes filled by ONNX shape inference. Throws InputError for a network it cannot write
// (an op without an ONNX form, bad options) naming the layer and the op.
onnx::ModelProto to_onnx(const Network& net, const Options& opt);

// to_onnx, serialized and written atomically (nothing appears on error). Returns the byte count.
std::uint64_t write_onnx(const Network& net, const Options& opt, const std::string& path);

}  // namespace flycol::onnx_write
