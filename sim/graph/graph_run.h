// A whole imported network (sim/onnx/graph.h) run on real data: every array node on the
// accelerator (analytic, SystemC, or SystemC with the RTL in lockstep) with the model's real
// weights and the activations the previous nodes produced, the host nodes in float32 on the host;
// beside it the same graph in float32, and per node the drift of the accelerator run against it.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "sim/analytic/plan_choice.h"
#include "sim/config/config.h"
#include "sim/graph/host_ops.h"
#include "sim/onnx/graph.h"
#include "sim/report/json.h"
#include "sim/stats/run_stats.h"
#include "sim/tensor/convert.h"
#include "sim/tensor/tensor.h"

namespace flycol::graph {

struct GraphRunOptions {
  std::string model = "analytic";  // analytic | sc | both (sc and the RTL in lockstep)
  analytic::Tiling tiling = analytic::kDefaultTiling;
  double bandwidth_gbps = 0;  // 0: the configuration's DRAM
  bool check = false;         // sc, both: every group's outputs against the golden model
  // Called before each node: index, count, node name; first with index -1 before the float32
  // reference run.
  std::function<void(int, int, const std::string&)> progress;
};

// The accelerator run's values against the float32 run's, over one tensor: sim/accuracy's
// error_stats (max_rel over the elements with |r| >= 1e-3 max |r|, so that zero crossings do not
// dominate; cosine 1 when both are all zero).
struct Drift {
  std::int64_t values = 0;
  std::int64_t nonfinite = 0;  // Inf/NaN in one run and not the same in the other (max_abs is then inf)
  double max_abs = 0;          // max |y - r|
  double max_rel = 0;          // max |y - r| / |r| over |r| >= 1e-3 max |r|
  double normwise_rel = 0;     // ||y - r|| / ||r||
  double rms = 0;
  double ref_max_abs = 0;      // max |r|
  double cosine = 1;           // <y, r> / (||y|| ||r||)
};
Drift drift(const std::vector<float>& y, const std::vector<float>& ref);

struct NodeRun {
  std::string name, op;
  bool on_array = false;
  int groups = 1;
  Layer layer;  // array nodes: one group
  Shape out_shape;
  std::uint64_t macs = 0;  // all groups
  RunStats stats;          // array nodes: all groups summed (cycles back to back)
  bool checked = false, exact = false;
  std::string mismatch;  // what differed (golden or RTL lockstep), empty when exact
  RoundingStats act_rounding, weight_rounding;  // all groups (sim/tensor/convert.h)
  Drift drift;  // of this node's (first) output
  double wall_seconds = 0;  // this node in the accelerator run: simulation and host work
  double sc_wall_seconds = 0, rtl_wall_seconds = 0;
};

struct GraphRun {
  std::string name, source, model, arithmetic, tiling;
  std::int64_t opset = 0;
  double clock_mhz = 0, bandwidth_gbps = 0;
  std::string input_name;
  Shape input_shape;
  std::string output_name;
  std::vector<NodeRun> nodes;
  F32 output;     // the accelerator run's final output (the graph's first output)
  F32 reference;  // the float32 run's
  Drift output_drift;
  // Totals.
  std::uint64_t macs = 0, cycles = 0;
  RunStats stats;
  int checked_nodes = 0, mismatched_nodes = 0;
  double wall_seconds = 0, sc_wall_seconds = 0, rtl_wall_seconds = 0, host_wall_seconds = 0,
         reference_wall_seconds = 0;
};

// Runs `g` on `input` (its shape must equal the graph input's). Throws InputError for a bad input
// tensor, option or node; std::runtime_error when a simulation does not finish.
GraphRun run_graph(const Graph& g, const Tensor& input, const Config& cfg, const GraphRunOptions& opt);

// The float32 run alone: array nodes as float64-accumulated convolutions of the unrounded weights
// and the float32 activations, rounded to float32 (bias added in float32); host nodes as above.
// Returns every value by name.
std::map<std::string, F32> run_graph_f32(const Graph& g, const Tensor& input);

// The per-node table and totals, and the JSON report (keys in docs/graph.md; callers may add
// keys, e.g. `flycol net`'s "expect", before dumping it).
std::string text_report(const GraphRun& r);
Json json_report(const GraphRun& r);

}  // namespace flycol::graph
