// flycol sweep: runs a sweep file (configs/sweeps/*.yaml) as a regression: every point through
// the chosen model and its golden check, a CSV/Markdown/JSON table and SVG plots, the baseline
// guard, sharding across machines and merging of shard reports. The work is in sim/sweep/.
#include <climits>
#include <cmath>
#include <cstdio>
#include <memory>
#include <thread>

#include <unistd.h>

#include <fmt/format.h>

#include "sim/cli/commands.h"
#include "sim/common/input_error.h"
#include "sim/runner/models.h"
#include "sim/sweep/runner.h"

namespace flycol::cli {
namespace {

struct SweepArgs {
  std::string sweep;
  std::string model;
  int jobs = 0;
  std::string shard;
  std::vector<std::string> points;
  std::string report;
  bool check_baseline = false;
  bool bless = false;
  std::string baseline;
  double timeout = 0;
  bool list = false;
  std::vector<std::string> merge;
};

// The running binary: each point runs as `<this binary> run ...`, so a sweep never picks up
// another build's flycol.
std::string self_exe() {
  char buf[PATH_MAX];
  const ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) throw std::runtime_error("cannot find the flycol binary (/proc/self/exe)");
  return std::string(buf, std::size_t(n));
}

// Sweeps need a model that reports cycles (the registry says which); others are refused up front
// with exit 2, and a cycle model added to the registry is usable here by itself.
std::string cycle_model_names() {
  std::string usable;
  for (const auto& mi : models())
    if (mi.reports_cycles) usable += (usable.empty() ? "" : ", ") + mi.name;
  return usable;
}

void check_model(const std::string& name) {
  const ModelInfo* m = find_model(name);
  const std::string usable = cycle_model_names();
  if (!m)
    throw InputError("--model", "", fmt::format("unknown model '{}' (sweeps can use: {})", name, usable));
  if (!m->reports_cycles)
    throw InputError("--model", "", fmt::format("{} computes outputs, not cycles; sweeps can use: {}", name, usable));
}

void print_line(const std::string& s) {
  std::fputs((s + "\n").c_str(), stdout);
  std::fflush(stdout);
}

int list_points(const sweep::SweepSpec& spec, const std::string& model) {
  // Preparing every point validates the whole file, so a bad value fails the build step that
  // generates the CTest list instead of one test at run time.
  const sweep::PointBuilder builder(spec);
  std::vector<sweep::PreparedPoint> prepared;
  for (const auto& p : spec.points) prepared.push_back(builder.prepare(p));
  std::string labels = "sweep," + spec.name;
  for (const auto& l : spec.labels) labels += "," + l;
  fmt::print("# sweep: {}\n# file: {}\n# model: {}\n# labels: {}\n# timeout_s: {:.0f}\n# points: {}\n", spec.name,
             spec.file, model, labels, std::ceil(spec.timeout_s), spec.points.size());
  for (const auto& pp : prepared) {
    std::string values;
    for (const auto& [k, v] : pp.values) values += fmt::format("{}{}={}", values.empty() ? "" : " ", sweep::param_label(k), v);
    fmt::print("{}\t{}\t{}\t{}\n", pp.point.index, pp.point.name, values,
               pp.state == sweep::PreparedPoint::ready      ? "ready"
               : pp.state == sweep::PreparedPoint::rejected ? "rejected: " + pp.message
                                                            : "fails: " + pp.message);
  }
  return kExitOk;
}

int sweep_command(const SweepArgs& a) {
  if (!a.merge.empty()) {
    if (!a.sweep.empty() || a.list || !a.shard.empty() || !a.points.empty() || !a.model.empty())
      throw InputError("--merge", "", "joins finished shard reports: it takes only --report, --check-baseline, "
                                      "--bless and --baseline");
    sweep::MergeOptions mo;
    mo.report_dir = a.report;
    mo.check_baseline = a.check_baseline;
    mo.bless = a.bless;
    mo.baseline_file = a.baseline;
    mo.print = print_line;
    const sweep::InterruptGuard guard;
    sweep::SweepResults r;
    try {
      r = sweep::merge_sweep_reports(a.merge, mo);
    } catch (const sweep::Interrupted&) {
      fmt::print(stderr, "flycol sweep: interrupted: no report written\n");
      return 128 + sweep::InterruptGuard::signal_number();
    }
    for (const auto& l : sweep::summary_lines(r)) print_line(l);
    if (!a.report.empty()) print_line(fmt::format("report: {}/sweep.md", a.report));
    return r.all_passed() ? kExitOk : kExitCheckFailed;
  }
  if (a.sweep.empty()) throw InputError("--sweep", "", "is missing: give a sweep file (configs/sweeps/*.yaml), or --merge");
  const sweep::SweepSpec spec = sweep::load_sweep_file(a.sweep);
  const std::string model = a.model.empty() ? spec.model : a.model;
  check_model(model);
  if (a.list) return list_points(spec, model);

  sweep::RunOptions o;
  o.model = model;
  o.jobs = a.jobs > 0 ? a.jobs : int(std::max(1u, std::thread::hardware_concurrency()));
  if (!a.shard.empty()) o.shard = sweep::parse_shard(a.shard);
  o.only = a.points;
  o.report_dir = a.report;
  o.check_baseline = a.check_baseline;
  o.bless = a.bless;
  o.baseline_file = a.baseline;
  o.flycol_exe = self_exe();
  o.timeout_s = a.timeout;
  o.print = print_line;
  print_line(fmt::format("flycol sweep: {} ({}), model {}, {} of {} points, {} at a time", spec.name, spec.file, model,
                         sweep::select_points(spec, o.shard, o.only).size(), spec.points.size(), o.jobs));
  const sweep::InterruptGuard guard;
  sweep::SweepResults r;
  try {
    r = sweep::run_sweep(spec, o);
  } catch (const sweep::Interrupted&) {
    fmt::print(stderr, "flycol sweep: interrupted by signal {}: points stopped, no report written\n",
               sweep::InterruptGuard::signal_number());
    return 128 + sweep::InterruptGuard::signal_number();
  }
  for (const auto& l : sweep::summary_lines(r)) print_line(l);
  if (!a.report.empty()) print_line(fmt::format("report: {}/sweep.md", a.report));
  return r.all_passed() ? kExitOk : kExitCheckFailed;
}

}  // namespace

Subcommand add_sweep(CLI::App& app) {
  auto a = std::make_shared<SweepArgs>();
  CLI::App* s = app.add_subcommand("sweep", "run a sweep of layer and accelerator configurations as a regression");
  s->add_option("--sweep", a->sweep, "sweep file (configs/sweeps/*.yaml)");
  s->add_option("--model", a->model,
                "model for every point: " + cycle_model_names() + " (default: the sweep file's, else sc)");
  s->add_option("--jobs,-j", a->jobs, "points run at a time (default: the number of CPUs)")->check(CLI::Range(1, 1024));
  s->add_option("--shard", a->shard, "run shard I of N (points dealt round-robin), e.g. 2/4");
  s->add_option("--point", a->points, "run only this point (repeatable; names as --list shows them)");
  s->add_option("--report", a->report, "write the report directory (sweep.md/.csv/.json, plots/, points/, logs/)");
  s->add_flag("--check-baseline", a->check_baseline,
              "fail points whose cycles left the committed baseline by more than the sweep's tolerance");
  s->add_flag("--bless", a->bless, "rewrite the baseline from this run (a whole sweep, or a --merge of all shards)");
  s->add_option("--baseline", a->baseline, "baseline file (default: baselines/<name>.json beside the sweep file)");
  s->add_option("--timeout", a->timeout, "seconds per point (default: the sweep file's timeout_s)")
      ->check(CLI::Range(0.001, 1e6));
  s->add_flag("--list", a->list, "list the points (and which the configuration rejects) without running them");
  s->add_option("--merge", a->merge, "join shard report directories (or their sweep.json) into one report")
      ->expected(1, -1);
  return {s, [a] { return sweep_command(*a); }};
}

}  // namespace flycol::cli
