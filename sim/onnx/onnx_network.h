// An imported ONNX graph as a network layer list (configs/networks format, sim/network/network.h):
// what `flycol import` writes and what the analytic and cycle models of `flycol net` run.
#pragma once

#include <string>

#include "sim/network/network.h"
#include "sim/onnx/graph.h"
#include "sim/onnx/onnx_import.h"

namespace flycol {

// The network file's op name of a graph node: conv/fc for array nodes (fc: Gemm, MatMul), the
// host op names of host_ops() for the rest (Relu -> relu, AveragePool -> avgpool, ...).
std::string network_op_of(const graph::Node& node);

// Array nodes become conv/fc layers (one group in `layer`, `groups` set), host nodes layers with
// their op, the C/H/W of their first data input (concat: its output, the channel total) and a
// detail ("3x3 s2 p1", "alpha=0.1", ...);
// `inputs` lists the producing layers where a node does not read the previous layer's output.
Network to_network(const graph::Graph& g);

// to_network(import_onnx(path, opt)).
Network load_onnx_network(const std::string& path, const ImportOptions& opt = ImportOptions());

}  // namespace flycol
