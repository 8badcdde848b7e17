// The regression guard: a committed baseline of each sweep's cycle counts
// (configs/sweeps/baselines/<name>.json), the comparison that fails a point whose cycles moved by
// more than the sweep's tolerance, and blessing (rewriting the baseline after an intended change).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "sim/sweep/results.h"

namespace flycol::sweep {

struct BaselinePoint {
  bool rejected = false;  // the configuration could not run the point when it was blessed
  std::int64_t cycles = 0;
};

struct Baseline {
  std::string file, sweep, model;
  std::map<std::string, BaselinePoint> points;
};

// Where a sweep's baseline lives: next to the sweep file, baselines/<name>.json for the
// cycle-accurate models (sc, and both, which must agree with sc cycle for cycle), and
// baselines/<name>.<model>.json for any other model (analytic).
std::string baseline_path(const std::string& sweep_file, const std::string& sweep_name, const std::string& model);

// nullopt when the file does not exist; InputError when it is malformed.
std::optional<Baseline> load_baseline(const std::string& path);
Baseline parse_baseline(const std::string& text, const std::string& source);

// Sets every point's verdict. Without a baseline every point is `missing`. A point changes when
// |cycles - baseline| > tolerance_percent of the baseline (both directions: an unexplained
// speed-up is as suspicious as a slow-down), or when it ran in one and was rejected in the other.
void compare_to_baseline(SweepResults& r, const Baseline* b);

// The baseline file for these results. Throws InputError (source "--bless") unless the results
// cover every point of the sweep and none failed its checks: a baseline only records good runs.
std::string baseline_text(const SweepResults& r);

}  // namespace flycol::sweep
