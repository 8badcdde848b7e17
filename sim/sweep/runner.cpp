// Sweep execution, shard merging and the baseline step (runner.h).
#include "sim/sweep/runner.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

#include <fmt/format.h>

#include "sim/common/files.h"
#include "sim/common/input_error.h"
#include "sim/config/yaml_guard.h"
#include "sim/report/json.h"
#include "sim/sweep/baseline.h"
#include "sim/sweep/report.h"

namespace flycol::sweep {

namespace {

namespace fs = std::filesystem;

std::string one_line(const std::string& multi) {
  std::string o;
  for (char c : multi) o += c == '\n' ? std::string(" / ") : std::string(1, c);
  return o.size() > 600 ? o.substr(0, 597) + "..." : o;
}

void say(const std::function<void(const std::string&)>& print, const std::string& line) {
  if (print) print(line);
}
void say(const RunOptions& o, const std::string& line) { say(o.print, line); }

std::string point_line(const PointResult& p, std::size_t done, std::size_t total) {
  std::string what;
  if (p.status == Status::rejected) what = "rejected: " + p.message;
  else if (p.status == Status::fail) what = "FAIL: " + p.message;
  else
    what = fmt::format("pass  cycles {}  util {:.1f} %  feeder stall {}  ({:.1f} s)", p.stats.cycles,
                       100 * p.utilization, p.stats.feeder_stall, p.wall_seconds);
  return fmt::format("[{}/{}] {}  {}", done, total, p.name, what);
}

}  // namespace

std::vector<Point> select_points(const SweepSpec& spec, const Shard& shard, const std::vector<std::string>& only) {
  for (const auto& name : only) {
    const bool known =
        std::any_of(spec.points.begin(), spec.points.end(), [&](const Point& p) { return p.name == name; });
    if (!known)
      throw InputError("--point", "",
                       fmt::format("= {}: sweep '{}' ({}) has no such point (list them with --list; a CTest list "
                                   "older than the sweep file needs a rebuild)",
                                   name, spec.name, spec.file));
  }
  std::vector<Point> out;
  for (const auto& p : spec.points)
    if (shard.holds(p.index) && (only.empty() || std::find(only.begin(), only.end(), p.name) != only.end()))
      out.push_back(p);
  return out;
}

std::vector<std::string> child_argv(const std::string& exe, const std::string& model, const PreparedPoint& p,
                                    std::uint64_t seed, const std::string& config_path, const std::string& report_path) {
  std::vector<std::string> a = {exe,           "run",  "--model", model,   "--config", config_path, "--layer",
                                p.layer.spec(), "--seed", std::to_string(seed), "--report", report_path, "--check"};
  if (p.options.order != CompileOptions{}.order) {
    a.push_back("--order");
    a.push_back(p.options.order);
  }
  // Always explicit, so a point's figures do not depend on the child's default.
  a.push_back("--tiling");
  a.push_back(p.tiling);
  return a;
}

PointResult result_without_run(const PreparedPoint& pp) {
  PointResult r;
  r.index = pp.point.index;
  r.name = pp.point.name;
  r.values = pp.values;
  for (const auto& kv : pp.point.own) r.own.push_back(kv.first);
  if (pp.has_layer) r.layer = pp.layer.spec();
  r.status = pp.state == PreparedPoint::rejected ? Status::rejected : Status::fail;
  r.message = pp.message;
  r.has_lowered = pp.lowered.ok;
  r.lowered = pp.lowered.traffic;
  r.lowered_note = pp.lowered.note;
  return r;
}

PointResult result_from_child(const PreparedPoint& pp, const ProcessResult& pr, const std::string& report_path,
                              const std::string& log_path) {
  PointResult r = result_without_run(pp);
  r.status = Status::fail;
  r.wall_seconds = pr.seconds;
  const auto last = [&](int n) {
    const std::string t = one_line(tail_lines(log_path, n));
    return t.empty() ? std::string("(no output)") : t;
  };
  if (!pr.started) {
    r.message = "could not start flycol run: " + pr.error;
    return r;
  }
  if (pr.timed_out) {
    r.message = fmt::format("timed out after {:.0f} s (the point's limit, timeout_s) and was killed; last output: {}",
                            pr.seconds, last(3));
    return r;
  }
  if (pr.signal) {
    r.message = fmt::format("flycol run crashed: {}; last output: {}", pr.describe(), last(3));
    return r;
  }
  std::error_code ec;
  if ((pr.exit_code == 0 || pr.exit_code == 1) && fs::is_regular_file(report_path, ec)) {
    YAML::Node rep;
    try {
      rep = load_yaml_file(report_path);
      read_model_report(rep, r);
    } catch (const std::exception& e) {
      r.ran = false;
      r.message = fmt::format("unreadable report {}: {}", report_path, e.what());
      return r;
    }
    if (pr.exit_code == 0) {
      r.status = Status::pass;
      return r;
    }
    const YAML::Node c = rep["check"];
    const bool has_check = c.IsDefined() && c.IsMap();
    if (has_check && c["error"].IsDefined()) r.message = "simulation stopped: " + c["error"].Scalar();
    else if (has_check && r.mismatches > 0)
      r.message = fmt::format("not bit-exact with the golden model: {} mismatches, first at {}: got {}, want {}",
                              r.mismatches, c["first_mismatch"].IsDefined() ? c["first_mismatch"].Scalar() : "?",
                              c["got"].IsDefined() ? c["got"].Scalar() : "?",
                              c["want"].IsDefined() ? c["want"].Scalar() : "?");
    else r.message = "a check failed: " + last(3);
    return r;
  }
  r.message = pr.exit_code == 0 || pr.exit_code == 1
                  ? fmt::format("flycol run wrote no report ({}); last output: {}", pr.describe(), last(3))
                  : fmt::format("flycol run failed ({}): {}", pr.describe(), last(3));
  return r;
}

std::vector<std::string> apply_baseline(SweepResults& r, const std::string& baseline_file, bool check, bool bless) {
  std::vector<std::string> lines;
  const std::optional<Baseline> b = load_baseline(baseline_file);
  if (b && b->sweep != r.sweep)
    throw InputError(baseline_file, "sweep",
                     fmt::format("= {}: this baseline belongs to another sweep than '{}'", b->sweep, r.sweep));
  r.baseline_checked = check && !bless;
  if (b || check) {
    r.baseline_file = baseline_file;
    compare_to_baseline(r, b ? &*b : nullptr);
  }
  if (bless) {
    const std::string text = baseline_text(r);
    write_file_atomic(baseline_file, text);
    int changed = 0;
    for (const auto& p : r.points) changed += p.baseline.failing();
    lines.push_back(fmt::format("blessed {} ({} points{})", baseline_file, r.points.size(),
                                b ? fmt::format(", {} changed from the previous baseline", changed) : ", new file"));
  }
  return lines;
}

std::vector<std::string> summary_lines(const SweepResults& r) {
  std::vector<std::string> lines;
  for (const auto& p : r.points) {
    if (p.status == Status::fail) lines.push_back(fmt::format("FAILED {}: {}", p.name, p.message));
    if (p.baseline.failing() && (r.baseline_checked || p.baseline.kind != BaselineVerdict::missing))
      lines.push_back(fmt::format("{} {}: {}", r.baseline_checked ? "BASELINE" : "baseline (not checked)", p.name,
                                  p.baseline.message));
  }
  const Summary s = r.summary();
  lines.push_back(fmt::format("sweep {}: {} point{} ({}): {} passed, {} failed, {} rejected{}", r.sweep,
                              r.points.size(), r.points.size() == 1 ? "" : "s",
                              r.shard == "all" ? "all" : r.shard.find('/') != std::string::npos ? "shard " + r.shard
                                                                                                 : r.shard,
                              s.passed, s.failed,
                              s.rejected,
                              r.baseline_file.empty() ? std::string()
                                                      : fmt::format(", {} off the baseline (±{:g} %)",
                                                                    s.baseline_failures, r.tolerance_percent)));
  const bool skipped = r.all_passed() && !r.points.empty() && s.rejected == int(r.points.size());
  lines.push_back(skipped ? "verdict: SKIPPED (every selected point was rejected by the configuration)"
                  : r.all_passed() ? "verdict: PASS"
                                   : "verdict: FAIL");
  return lines;
}

SweepResults run_sweep(const SweepSpec& spec, const RunOptions& opt) {
  const std::string model = opt.model.empty() ? spec.model : opt.model;
  const double timeout = opt.timeout_s > 0 ? opt.timeout_s : spec.timeout_s;
  const std::vector<Point> selected = select_points(spec, opt.shard, opt.only);
  if (opt.bless && (!opt.shard.all() || !opt.only.empty()))
    throw InputError("--bless", "", "blesses a whole sweep: drop --shard and --point (or bless a --merge of every shard)");

  // Every selected point is prepared before anything runs: a bad value stops the sweep at once.
  const PointBuilder builder(spec);
  std::vector<PreparedPoint> prepared;
  for (const auto& p : selected) prepared.push_back(builder.prepare(p));

  StagingDir work(opt.report_dir);
  for (const char* sub : {"configs", "points", "logs"}) fs::create_directories(fs::path(work.path()) / sub);

  SweepResults res;
  res.sweep = spec.name;
  res.description = spec.description;
  res.file = spec.file;
  res.file_hash = spec.text_hash;
  res.model = model;
  res.base_config = builder.base().name + " (" + builder.base().source + ")";
  res.tolerance_percent = spec.tolerance_percent;
  res.points_total = int(spec.points.size());
  // A --point run is not a shard: say which points it holds (merging checks coverage anyway).
  res.shard = opt.only.empty() ? opt.shard.text() : "selected points";
  res.swept_keys = spec.swept_keys;
  res.plots = spec.plots;
  std::vector<PointResult> results(prepared.size());

  std::vector<ProcessSpec> specs;
  std::vector<std::size_t> which;  // prepared index of each process
  std::vector<std::string> reports;
  std::size_t done = 0;
  for (std::size_t i = 0; i < prepared.size(); ++i) {
    const PreparedPoint& pp = prepared[i];
    if (pp.state != PreparedPoint::ready) {
      results[i] = result_without_run(pp);
      say(opt, point_line(results[i], ++done, prepared.size()));
      continue;
    }
    const std::string cfg = (fs::path(work.path()) / "configs" / (pp.point.name + ".yaml")).string();
    write_file_atomic(cfg, fmt::format("# {} point {}: the base configuration with the point's values\n{}", spec.file,
                                       pp.point.name, pp.config_yaml));
    const std::string rep = (fs::path(work.path()) / "points" / (pp.point.name + ".json")).string();
    const std::string log = (fs::path(work.path()) / "logs" / (pp.point.name + ".log")).string();
    specs.push_back({child_argv(opt.flycol_exe, model, pp, spec.seed, cfg, rep), log, timeout});
    which.push_back(i);
    reports.push_back(rep);
  }
  run_processes(specs, opt.jobs, [&](std::size_t k, const ProcessResult& pr) {
    const std::size_t i = which[k];
    results[i] = result_from_child(prepared[i], pr, reports[k], specs[k].log_path);
    say(opt, point_line(results[i], ++done, prepared.size()));
  });
  res.points = std::move(results);

  const std::string bfile =
      opt.baseline_file.empty() ? baseline_path(spec.file, spec.name, model) : opt.baseline_file;
  for (const auto& l : apply_baseline(res, bfile, opt.check_baseline, opt.bless)) say(opt, l);

  if (!opt.report_dir.empty()) {
    write_report_files(res, work.path());
    work.commit();
  }
  return res;
}

SweepResults merge_results(const std::vector<SweepResults>& parts, const std::vector<std::string>& sources) {
  if (parts.empty()) throw InputError("--merge", "", "needs at least one shard report");
  SweepResults m = parts[0];
  m.points.clear();
  std::map<int, std::string> owner;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const SweepResults& p = parts[i];
    const auto differs = [&](const char* what, const std::string& a, const std::string& b) {
      if (a != b)
        throw InputError(sources[i], what,
                         fmt::format("= {}: differs from {} ({}): shards merge only if they ran the same sweep file "
                                     "with the same model",
                                     b, sources[0], a));
    };
    differs("sweep", m.sweep, p.sweep);
    differs("file_hash", m.file_hash, p.file_hash);
    differs("model", m.model, p.model);
    differs("points_total", std::to_string(m.points_total), std::to_string(p.points_total));
    for (const auto& pt : p.points) {
      auto [it, fresh] = owner.emplace(pt.index, sources[i]);
      if (!fresh)
        throw InputError(sources[i], "",
                         fmt::format("point {} (#{}) is also in {}: merge each shard once", pt.name, pt.index, it->second));
      m.points.push_back(pt);
    }
  }
  std::sort(m.points.begin(), m.points.end(), [](const PointResult& a, const PointResult& b) { return a.index < b.index; });
  if (int(m.points.size()) != m.points_total) {
    std::string missing;
    int n = 0;
    for (int i = 1; i <= m.points_total; ++i)
      if (!owner.count(i) && n++ < 12) missing += (missing.empty() ? "" : ", ") + std::to_string(i);
    throw InputError("--merge", "",
                     fmt::format("the reports hold {} of the {} points of sweep '{}'; missing points #{}{}: merge the "
                                 "report of every shard",
                                 m.points.size(), m.points_total, m.sweep, missing, n > 12 ? ", ..." : ""));
  }
  m.shard = fmt::format("merged from {} report{}", parts.size(), parts.size() == 1 ? "" : "s");
  m.baseline_checked = false;
  m.baseline_file.clear();
  for (auto& p : m.points) p.baseline = BaselineVerdict{};
  return m;
}

SweepResults merge_sweep_reports(const std::vector<std::string>& inputs, const MergeOptions& opt) {
  std::vector<SweepResults> parts;
  std::vector<std::string> dirs, sources;
  for (const auto& in : inputs) {
    std::error_code ec;
    const bool is_dir = fs::is_directory(in, ec);
    const std::string json = is_dir ? (fs::path(in) / "sweep.json").string() : in;
    parts.push_back(load_results(json));
    sources.push_back(json);
    dirs.push_back(fs::path(json).parent_path().string());
  }
  SweepResults m = merge_results(parts, sources);
  const std::string bfile = opt.baseline_file.empty() ? baseline_path(m.file, m.sweep, m.model) : opt.baseline_file;
  for (const auto& l : apply_baseline(m, bfile, opt.check_baseline, opt.bless)) say(opt.print, l);
  if (!opt.report_dir.empty()) {
    StagingDir work(opt.report_dir);
    // The child reports and logs of every shard, so the merged directory is as complete as one run's.
    for (const auto& d : dirs)
      for (const char* sub : {"points", "logs", "configs"}) {
        if (InterruptGuard::requested()) throw Interrupted();  // the staging directory goes with it
        std::error_code ec;
        const fs::path from = fs::path(d.empty() ? "." : d) / sub;
        if (!fs::is_directory(from, ec)) continue;
        fs::create_directories(fs::path(work.path()) / sub);
        fs::copy(from, fs::path(work.path()) / sub, fs::copy_options::overwrite_existing | fs::copy_options::recursive);
      }
    write_report_files(m, work.path());
    work.commit();
  }
  return m;
}

}  // namespace flycol::sweep
