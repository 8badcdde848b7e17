// Totals of an imported graph (sim/onnx/graph.h).
#include "sim/onnx/graph.h"

namespace flycol::graph {

int Graph::array_nodes() const {
  int n = 0;
  for (const Node& node : nodes) n += node.on_array ? 1 : 0;
  return n;
}

std::int64_t Graph::array_macs() const {
  std::int64_t m = 0;
  for (const Node& node : nodes)
    if (node.on_array) m += node.layer.macs() * node.groups;
  return m;
}

}  // namespace flycol::graph
