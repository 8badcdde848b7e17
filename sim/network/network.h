// Whole networks as layer lists (configs/networks/*.yaml): the convolutions and fully connected
// layers the array runs, the pooling layers the pooling unit runs (their windows), the other layers
// (additions, concatenations, ...) listed but run on the host,
// and the paper's Table II/III figures for the network. Files are read through the YAML guard
// (sim/config/yaml_guard.h) and every problem is an InputError naming the file and the key.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/config/layer.h"

namespace flycol {

// A pooling layer's window (ops maxpool, avgpool, globalavgpool), which `flycol net` runs on the
// accelerator's pooling unit (docs/networks.md, "Pooling on chip"). Network files give k, s, p
// (square, symmetric, floor, padding not counted); ONNX imports every attribute of MaxPool and
// AveragePool. Global pooling is the H x W window.
struct PoolWindow {
  bool known = false;  // the layer lists its C x H x W and window (else it stays on the host)
  int ky = 1, kx = 1, sy = 1, sx = 1, dy = 1, dx = 1;
  int pt = 0, pb = 0, pl = 0, pr = 0;
  bool ceil_mode = false, count_include_pad = false;
};

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
  PoolWindow pool;  // maxpool, avgpool, globalavgpool
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
  int batch = 1;  // images (with_batch); the array layers' N, and the pooling layers'
  std::vector<NetworkLayer> layers;
  PaperFigures paper;

  std::int64_t macs() const;         // of the array layers (all groups)
  int array_layers() const;
};

// The layer whose output input j of layer i is: its index, or -1 for the network's input (no
// `inputs`: the previous layer, or the input for layer 0). An unknown name is std::invalid_argument
// (parse_network has rejected those in files).
int input_producer(const Network& n, std::size_t i, std::size_t j);

// Strided 1x1 inputs written subsampled by the host (docs/networks.md, "Strided 1x1 inputs"):
// true when layer i runs on the array as a 1x1 convolution with a stride above 1 and no padding,
// and reads a tensor the host writes (the network's input or a host op's output) that every one of
// its readers reads the same way (array 1x1 convolutions, same strides, no padding). The host then
// writes only the pixels those readers use, and the layer runs as subsampled_layer(): one DRAM read
// per element used, with either lowering. A tensor another kind of layer reads, or one the array
// produces (subsampling it would need a strided store), is written whole.
bool host_subsamples_input(const Network& n, std::size_t i);
// The dense layer a strided 1x1 layer is on its subsampled input: H x W = Ho x Wo, stride 1.
Layer subsampled_layer(const Layer& l);

// The network run on `batch` images (flycol net --batch): every array layer's N is `batch` (a
// file's own N is replaced), the name and title say so, and the paper's figures, which are for one
// image, are dropped so that no report compares a batch with them. InputError("--batch", ...) for
// a batch outside the layer key N's range 1..64 or a layer too large with it.
Network with_batch(const Network& n, int batch);

// The pooling ops (maxpool, avgpool, globalavgpool), which run on the pooling unit when their
// window is known (NetworkLayer::pool).
bool is_pooling_op(const std::string& op);

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
