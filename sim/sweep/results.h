// What a sweep produces: one result per point (status, the model's figures, the explicit-lowering
// comparison, the baseline verdict) and the sweep-level record that reports render and that
// `flycol sweep --merge` reads back from the sweep.json of each shard.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "sim/report/json.h"
#include "sim/stats/run_stats.h"
#include "sim/sweep/sweep_spec.h"

namespace flycol::sweep {

// pass: the model ran and every check agreed; fail: it ran and a check failed, or it crashed or
// hung; rejected: the configuration cannot run this point (never a failure, always listed).
enum class Status { pass, fail, rejected };
const char* status_name(Status s);

// The regression guard's judgement of one point against the committed baseline.
struct BaselineVerdict {
  enum Kind { none, ok, changed, missing, status_changed } kind = none;
  std::int64_t cycles = 0;  // baseline cycles (when it ran there)
  double change_percent = 0;
  std::string message;
  bool failing() const { return kind == changed || kind == missing || kind == status_changed; }
};
const char* verdict_name(BaselineVerdict::Kind k);

struct PointResult {
  int index = 0;
  std::string name;
  Params values;            // every swept key -> the value this point ran with (display text)
  std::vector<std::string> own;  // the keys the point sets itself (its product or points entry)
  std::string layer;        // canonical layer spec, when the layer was valid
  Status status = Status::fail;
  std::string message;      // reason for rejected / what failed
  double wall_seconds = 0;  // of the child run

  bool ran = false;  // the figures below come from a model report
  RunStats stats;    // the report's statistics; what the model does not count reads as zero
  std::int64_t macs = 0;
  double utilization = 0;
  bool has_check = false;  // the model compared outputs with the golden model (analytic has none)
  bool bit_exact = false;
  std::int64_t mismatches = 0;

  bool has_lowered = false;  // explicit-im2col traffic of the same layer (lowering.h)
  DramTraffic lowered;  // bytes per tensor moved between DRAM and the chip by that lowering
  std::string lowered_note;

  BaselineVerdict baseline;

  double sram_reads_per_mac() const;
  double ifmap_reads_per_mac() const;
};

// Figures that tables and plots can show, by name (cycles, utilization, feeder_stall, ...).
struct Metric {
  const char* name;
  const char* label;  // axis label
  std::optional<double> (*get)(const PointResult&);
};
const std::vector<Metric>& metrics();
const Metric* find_metric(const std::string& name);
bool is_metric(const std::string& name);  // also "dram" (feeder and lowered bytes in one chart)
std::vector<std::string> metric_names();

struct Summary {
  int passed = 0, failed = 0, rejected = 0, baseline_failures = 0;
};

struct SweepResults {
  std::string sweep, description, file, file_hash, model, base_config;
  double tolerance_percent = 1.0;
  int points_total = 0;
  std::string shard = "all";  // "2/4", "all", or "merged from 4 shards"
  std::vector<std::string> swept_keys;
  std::vector<PlotSpec> plots;
  std::string baseline_file;     // compared against (empty: none found)
  bool baseline_checked = false;  // baseline failures fail the sweep
  std::vector<PointResult> points;  // in point order

  Summary summary() const;
  // A point fails the sweep: its checks failed, or (when checked) it left the baseline.
  bool point_fails(const PointResult& p) const;
  bool all_passed() const;
};

Json to_json(const PointResult& p);
Json to_json(const SweepResults& r);
// Reads sweep.json back (for --merge). Throws InputError naming the file and key.
SweepResults results_from_yaml(const YAML::Node& root, const std::string& source);
SweepResults load_results(const std::string& path);

// Figures of a point from a `flycol run --report` JSON (parsed as YAML): cycles, utilization,
// stalls, SRAM reads, DRAM bytes, check. Missing keys read as zero, so models that report less
// still fit. Sets ran = true.
void read_model_report(const YAML::Node& report, PointResult& p);

}  // namespace flycol::sweep
