// Whole networks as layer lists (configs/networks/*.yaml): the convolutions and fully connected
// layers the array runs, the other layers (pooling, additions, ...) listed but run on the host,
// and the paper's Table II/III figures for the network. Files are read through the YAML guard
// (sim/config/yaml_guard.h) and every problem is an InputError naming the file and the key.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/config/layer.h"

namespace flycol {

struct NetworkLayer {
  std::string name;
  std::string op = "conv";  // conv, fc (a 1x1 convolution over a 1 x 1 map), or a host op
  bool on_array = true;     // false: listed, but not executed on the array (host_ops())
  Layer layer;              // what the array runs (on_array only); ONE group of a grouped convolution
  int groups = 1;           // key `groups` (conv): the file's C and K are the totals, as in ONNX and
                            // PyTorch, and must divide by it; `layer` holds one group (C/groups ->
                            // K/groups) and the array runs it `groups` times (depthwise: groups = C)
  int c = 0, h = 0, w = 0;  // the input tensor (C x H x W) the layer sees (all groups)
  std::string detail;       // host ops: their window, e.g. "3x3 s2 p1"
  int k = 0, s = 0, p = -1; // host ops: keys k, s, p as given (0 / -1: not given); pooling's
                            // window and upsample's factor s, for the shape check of parse_network
  // Key `inputs` (any layer): the names of the earlier layers whose outputs this one reads, or
  // "input" for the network's input. Absent (empty here): the previous layer's output, or the
  // network's input for the first layer. Only the connectivity: shapes stay those listed above.
  // parse_network checks the listed shapes against what the inputs produce where that is
  // computable (docs/networks.md: conv and fc read one tensor whose C x H x W they list, fc its
  // flattened size; concat and proposal list the channel total of their inputs; add and mul, the
  // shape every input has; the other host ops, their one input's shape).
  std::vector<std::string> inputs;
};

// One figure of the paper for explicit lowering and for the data feeder.
struct PaperPair {
  bool given = false;
  double expl = 0, feeder = 0;
};

// Fornt et al., Table II (DRAM traffic and bandwidth) and Table III (time at 6.4 GB/s).
struct PaperFigures {
  PaperPair total_mb, avg_gbps, max_gbps, time_ms, gflops, dram_stall_pct;
};

struct Network {
  std::string name, title, source;
  int in_c = 0, in_h = 0, in_w = 0;
  std::vector<NetworkLayer> layers;
  PaperFigures paper;

  std::int64_t macs() const;         // of the array layers (all groups)
  int array_layers() const;
};

// Operations a network file may list that the array does not run.
const std::vector<std::string>& host_ops();

// configs_dir()/networks.
std::string networks_dir();
// Names of the network files there (without .yaml), sorted.
std::vector<std::string> network_names();

// Parses a network file's text; `source` names it in messages.
Network parse_network(const std::string& yaml_text, const std::string& source);
// `what` is a path (an existing file, or ending in .yaml) or the name of a file in networks_dir().
// An unknown name is InputError("--network", ...) listing the known names.
Network load_network(const std::string& what);

}  // namespace flycol
