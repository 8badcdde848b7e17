// Turns a sweep point into what a model run needs: the accelerator configuration (the base with
// the point's overrides, validated by parse_config), the layer, and the compiler's verdict. A point
// the configuration cannot run becomes `rejected` with the reason; a bad value in the sweep file
// is an InputError naming the file, the point and the key.
#pragma once

#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "sim/analytic/tiling_mode.h"
#include "sim/compiler/compiler.h"
#include "sim/config/config.h"
#include "sim/config/layer.h"
#include "sim/sweep/lowering.h"
#include "sim/sweep/results.h"
#include "sim/sweep/sweep_spec.h"

namespace flycol::sweep {

struct PreparedPoint {
  Point point;
  Params values;  // every swept key -> the value this point runs with (base values included)
  enum State { ready, rejected, failed } state = ready;
  std::string message;     // why rejected / failed
  Config config;
  std::string config_yaml;  // the complete configuration, for the child run's --config
  bool has_layer = false;
  Layer layer;
  CompileOptions options;
  std::string tiling = analytic::tiling_name(analytic::kDefaultTiling);  // the child run's --tiling
  LoweredTraffic lowered;
};

class PointBuilder {
public:
  // Loads the sweep's base configuration (InputError if it is bad).
  explicit PointBuilder(const SweepSpec& spec);

  PreparedPoint prepare(const Point& p) const;
  const Config& base() const { return base_; }

  // The configuration of a point without the layer: base + overrides + derived SRAM word widths
  // (weights = array.cols x element bits, psums = array.rows x accumulator bits, unless the point
  // sets them), through parse_config. Exposed for tests.
  Config point_config(const Point& p) const;

private:
  const SweepSpec& spec_;
  Config base_;
  YAML::Node base_node_;
};

}  // namespace flycol::sweep
