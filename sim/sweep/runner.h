// Runs a sweep: prepares the selected points, runs each one that the configuration accepts as a
// child `flycol run --report` process (SystemC elaborates once per process, and a crash or hang
// stays one failed point), aggregates their JSON reports, compares with the baseline, blesses,
// and writes the report directory. Also merges the results of shards.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "sim/sweep/point_setup.h"
#include "sim/sweep/process_pool.h"
#include "sim/sweep/results.h"
#include "sim/sweep/shard.h"
#include "sim/sweep/sweep_spec.h"

namespace flycol::sweep {

struct RunOptions {
  std::string model;                // "" = the sweep file's model
  int jobs = 1;                     // child processes at a time
  Shard shard;                      // all points by default
  std::vector<std::string> only;    // --point: just these points (by name)
  std::string report_dir;           // "" = no report directory
  bool check_baseline = false;      // baseline changes fail the sweep
  bool bless = false;               // rewrite the baseline from these results
  std::string baseline_file;        // "" = baseline_path(sweep file, name, model)
  std::string flycol_exe;           // the program run as `<exe> run ...` for each point
  double timeout_s = 0;             // per point; 0 = the sweep file's timeout_s
  std::function<void(const std::string&)> print;  // progress and summary lines (may be empty)
};

// The points a run selects (shard and --point), in order. Throws InputError for an unknown --point.
std::vector<Point> select_points(const SweepSpec& spec, const Shard& shard, const std::vector<std::string>& only);

// The child command line for one prepared point.
std::vector<std::string> child_argv(const std::string& exe, const std::string& model, const PreparedPoint& p,
                                    std::uint64_t seed, const std::string& config_path, const std::string& report_path);

// Judges one point from its child process: its exit, its report (if it wrote one) and its log.
PointResult result_from_child(const PreparedPoint& p, const ProcessResult& pr, const std::string& report_path,
                              const std::string& log_path);
// The result of a point that never ran (rejected, or failed before starting).
PointResult result_without_run(const PreparedPoint& p);

SweepResults run_sweep(const SweepSpec& spec, const RunOptions& opt);

// Joins shard results into one: same sweep file (hash), model and point count, every point exactly
// once. Throws InputError naming the offending input. `sources` name the inputs in messages.
SweepResults merge_results(const std::vector<SweepResults>& parts, const std::vector<std::string>& sources);

struct MergeOptions {
  std::string report_dir;
  bool check_baseline = false, bless = false;
  std::string baseline_file;  // "" = baseline_path(the sweep file recorded in the reports, ...)
  std::function<void(const std::string&)> print;
};
// --merge: reads each input (a report directory or its sweep.json), merges, applies the baseline
// and writes the merged report directory (with every shard's child reports and logs).
SweepResults merge_sweep_reports(const std::vector<std::string>& inputs, const MergeOptions& opt);

// Compares `r` with its baseline (RunOptions semantics: a missing file counts only when checked)
// and blesses when asked; returns lines to print.
std::vector<std::string> apply_baseline(SweepResults& r, const std::string& baseline_file, bool check, bool bless);

// The closing lines of a run: failures with their messages, baseline changes with both numbers,
// the counts, and the verdict line (`verdict: PASS|FAIL|SKIPPED`).
std::vector<std::string> summary_lines(const SweepResults& r);

}  // namespace flycol::sweep
