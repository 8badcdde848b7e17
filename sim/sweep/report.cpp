// CSV, Markdown and SVG renderings of sweep results, and the all-or-nothing report directory
// (report.h).
#include "sim/sweep/report.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>
#include <stdexcept>

#include <unistd.h>

#include <fmt/format.h>

#include "sim/common/files.h"
#include "sim/common/input_error.h"
#include "sim/config/scalars.h"
#include "sim/report/svg_chart.h"

namespace flycol::sweep {

namespace {

namespace fs = std::filesystem;

std::string value_of(const PointResult& p, const std::string& key) {
  const std::string* v = find_param(p.values, key);
  return v ? *v : "";
}

std::string csv_cell(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) {
    if (c == '"') q += '"';
    q += c == '\n' ? ' ' : c;
  }
  return q + "\"";
}

std::string md_cell(const std::string& s) {
  std::string o;
  for (char c : s) {
    if (c == '|') o += "\\|";
    else if (c == '\n') o += ' ';
    else o += c;
  }
  return o;
}

std::string kb(std::uint64_t bytes) { return fmt::format("{:.1f}", double(bytes) / 1024.0); }

std::string baseline_cell(const PointResult& p) {
  switch (p.baseline.kind) {
    case BaselineVerdict::none: return "";
    case BaselineVerdict::missing: return "new";
    case BaselineVerdict::status_changed: return "**status changed**";
    case BaselineVerdict::ok:
      return p.ran && p.baseline.cycles > 0 ? fmt::format("{:+.2f} %", p.baseline.change_percent) : "ok";
    case BaselineVerdict::changed: return fmt::format("**{:+.2f} %** (was {})", p.baseline.change_percent, p.baseline.cycles);
  }
  return "";
}

std::string x_label(const std::string& key) {
  static const std::map<std::string, std::string> names = {
      {"N", "batch N"},          {"C", "input channels C"},   {"H", "input height H"},   {"W", "input width W"},
      {"K", "output channels K"}, {"k", "kernel size k"},      {"ky", "kernel height ky"}, {"kx", "kernel width kx"},
      {"s", "stride s"},         {"sy", "stride sy"},         {"sx", "stride sx"},       {"d", "dilation d"},
      {"dy", "dilation dy"},     {"dx", "dilation dx"},       {"p", "padding p"},        {"order", "loop order"},
      {"tiling", "tiling"},
  };
  if (auto it = names.find(key); it != names.end()) return it->second;
  const std::string l = param_label(key);
  return l == key ? key : fmt::format("{} ({})", l, key);
}

bool matches(const PointResult& p, const Params& where) {
  for (const auto& [k, v] : where)
    if (value_of(p, k) != v) return false;
  return true;
}

std::string file_part(const std::string& s) {
  std::string o;
  for (char c : s) o += std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.' ? c : '_';
  return o;
}

}  // namespace

std::string csv_table(const SweepResults& r) {
  std::string out = "index,name";
  for (const auto& k : r.swept_keys) out += "," + csv_cell(k);
  out += ",status,layer,cycles,baseline_cycles,cycle_change_percent,baseline_verdict,macs,utilization,mac_cycles,"
         "stall_feeder,stall_weights,stall_context_switch,stall_pipeline,stall_dram,stall_tail,sram_reads_ifmap,"
         "sram_reads_weights,sram_reads_psums,sram_reads_per_mac,ifmap_reads_per_mac,dram_ifmap,dram_weights,"
         "dram_psums_in,dram_ofmap,dram_total,lowered_ifmap,lowered_weights,lowered_psums_in,lowered_ofmap,"
         "lowered_total,lowering_ratio,bit_exact,mismatches,wall_seconds,message\n";
  for (const auto& p : r.points) {
    out += fmt::format("{},{}", p.index, csv_cell(p.name));
    for (const auto& k : r.swept_keys) out += "," + csv_cell(value_of(p, k));
    out += fmt::format(",{},{}", status_name(p.status), csv_cell(p.layer));
    const bool has_base = p.baseline.kind == BaselineVerdict::ok || p.baseline.kind == BaselineVerdict::changed;
    if (p.ran) {
      out += fmt::format(",{},{},{},{},{},{},{}", p.stats.cycles, has_base ? std::to_string(p.baseline.cycles) : "",
                         has_base && p.baseline.cycles > 0 ? fmt::format("{:.4f}", p.baseline.change_percent) : "",
                         verdict_name(p.baseline.kind), p.macs, p.utilization, p.stats.mac_cycles);
      const RunStats& s = p.stats;
      out += fmt::format(",{},{},{},{},{},{}", s.feeder_stall, s.weight_stall, s.context_stall, s.pipeline, s.dram_stall,
                         s.tail);
      out += fmt::format(",{},{},{},{},{}", s.sram_reads[0], s.sram_reads[1], s.sram_reads[2],
                         p.sram_reads_per_mac(), p.ifmap_reads_per_mac());
      out += fmt::format(",{},{},{},{},{}", s.dram.ifmap, s.dram.weights, s.dram.psums_in, s.dram.ofmap, s.dram.total());
    } else {
      out += fmt::format(",,,,{},,,", verdict_name(p.baseline.kind));
      out += ",,,,,,,,,,,,,,,,";
    }
    if (p.has_lowered)
      out += fmt::format(",{},{},{},{},{}", p.lowered.ifmap, p.lowered.weights, p.lowered.psums_in, p.lowered.ofmap,
                         p.lowered.total());
    else
      out += ",,,,,";
    const auto ratio = find_metric("lowering_ratio")->get(p);
    out += "," + (ratio ? fmt::format("{:.4f}", *ratio) : std::string());
    out += p.ran && p.has_check ? fmt::format(",{},{}", p.bit_exact, p.mismatches) : std::string(",,");
    out += fmt::format(",{:.3f},{}\n", p.wall_seconds, csv_cell(p.message));
  }
  return out;
}

std::string markdown_table(const SweepResults& r) {
  const bool base = std::any_of(r.points.begin(), r.points.end(),
                                [](const PointResult& p) { return p.baseline.kind != BaselineVerdict::none; });
  std::string head = "| point |", rule = "|---|";
  for (const auto& k : r.swept_keys) {
    head += " " + md_cell(param_label(k)) + " |";
    rule += "---:|";
  }
  head += " status | cycles |";
  rule += "---|---:|";
  if (base) {
    head += " vs baseline |";
    rule += "---:|";
  }
  head += " util % | feeder stall | DRAM stall | SRAM rd/MAC | DRAM kB | explicit im2col kB | ratio |\n";
  rule += "---:|---:|---:|---:|---:|---:|---:|\n";
  std::string out = head + rule;
  for (const auto& p : r.points) {
    std::string row = "| " + md_cell(p.name) + " |";
    for (const auto& k : r.swept_keys) row += " " + md_cell(value_of(p, k)) + " |";
    const char* st = p.status == Status::pass ? "pass" : p.status == Status::fail ? "**FAIL**" : "rejected";
    row += fmt::format(" {} | {} |", st, p.ran ? std::to_string(p.stats.cycles) : "-");
    if (base) row += " " + baseline_cell(p) + " |";
    const auto ratio = find_metric("lowering_ratio")->get(p);
    if (p.ran)
      row += fmt::format(" {:.1f} | {} | {} | {:.4f} | {} | {} | {} |", 100.0 * p.utilization, p.stats.feeder_stall,
                         p.stats.dram_stall, p.sram_reads_per_mac(), kb(p.stats.dram.total()),
                         p.has_lowered ? kb(p.lowered.total()) : "-", ratio ? fmt::format("{:.2f}x", *ratio) : "-");
    else
      row += " - | - | - | - | - | - | - |";
    out += row + "\n";
  }
  return out;
}

std::vector<PlotFile> render_plots(const SweepResults& r) {
  std::vector<PlotFile> out;
  std::set<std::string> used;
  for (const PlotSpec& ps : r.plots) {
    // A chart uses the points that set its x themselves (one product of several, say) and match
    // `where`; a series is one combination of the other values that vary among those points.
    std::vector<const PointResult*> pts;
    for (const auto& p : r.points)
      if (matches(p, ps.where) && std::find(p.own.begin(), p.own.end(), ps.x) != p.own.end()) pts.push_back(&p);
    std::vector<std::string> others;
    for (const auto& k : r.swept_keys) {
      if (k == ps.x) continue;
      std::set<std::string> seen;
      for (const auto* p : pts) seen.insert(value_of(*p, k));
      if (seen.size() > 1) others.push_back(k);
    }
    bool numeric = true;
    std::vector<std::string> categories;
    for (const auto* p : pts) {
      const std::string v = value_of(*p, ps.x);
      numeric = numeric && parse_number_text(v).has_value();
      if (std::find(categories.begin(), categories.end(), v) == categories.end()) categories.push_back(v);
    }
    std::string where_text;
    for (const auto& [k, v] : ps.where) where_text += fmt::format("{}{}={}", where_text.empty() ? "" : ", ", param_label(k), v);

    for (const std::string& y : ps.y) {
      // Series: one per combination of the other swept values; "dram" doubles them (on-the-fly, explicit).
      const std::vector<std::pair<std::string, const Metric*>> parts =
          y == "dram" ? std::vector<std::pair<std::string, const Metric*>>{{"on-the-fly", find_metric("dram_bytes")},
                                                                           {"explicit", find_metric("dram_bytes_lowered")}}
                      : std::vector<std::pair<std::string, const Metric*>>{{"", find_metric(y)}};
      std::vector<svg::Series> series;
      std::map<std::string, std::size_t> index;
      for (const auto& [prefix, metric] : parts)
        for (const auto* p : pts) {
          std::string label;
          for (const auto& k : others) label += fmt::format("{}{}={}", label.empty() ? "" : ", ", param_label(k), value_of(*p, k));
          if (!prefix.empty()) label = label.empty() ? prefix : prefix + " " + label;
          if (label.empty()) label = r.sweep;
          auto [it, fresh] = index.emplace(label, series.size());
          if (fresh) {
            series.push_back({label, {}, {}});
            if (!numeric) series.back().y.assign(categories.size(), std::nan(""));
          }
          svg::Series& s = series[it->second];
          const auto v = metric->get(*p);
          const std::string xv = value_of(*p, ps.x);
          if (numeric) {
            s.x.push_back(*parse_number_text(xv));
            s.y.push_back(v ? *v : std::nan(""));
          } else {
            const auto pos = std::find(categories.begin(), categories.end(), xv) - categories.begin();
            s.y[std::size_t(pos)] = v ? *v : std::nan("");
          }
        }
      if (numeric)  // points may come in any order; lines need increasing x
        for (auto& s : series) {
          std::vector<std::size_t> ord(s.x.size());
          for (std::size_t i = 0; i < ord.size(); ++i) ord[i] = i;
          std::stable_sort(ord.begin(), ord.end(), [&](std::size_t a, std::size_t b) { return s.x[a] < s.x[b]; });
          std::vector<double> x, yv;
          for (std::size_t i : ord) x.push_back(s.x[i]), yv.push_back(s.y[i]);
          s.x = x;
          s.y = yv;
        }
      svg::ChartOptions o;
      const std::string ylabel = y == "dram" ? "DRAM bytes" : find_metric(y)->label;
      o.title = fmt::format("{}: {} against {}{}", r.sweep, ylabel, x_label(ps.x),
                            where_text.empty() ? "" : " (" + where_text + ")");
      o.x_label = x_label(ps.x);
      o.y_label = ylabel;
      o.x_log2 = ps.log2_x && numeric;
      o.categories = categories;
      std::string file = fmt::format("plots/{}_vs_{}", file_part(y), file_part(param_label(ps.x)));
      for (const auto& [k, v] : ps.where) file += "_" + file_part(param_label(k)) + file_part(v);
      std::string unique = file;
      for (int n = 2; !used.insert(unique).second; ++n) unique = fmt::format("{}_{}", file, n);
      out.push_back({unique + ".svg", o.title, numeric ? svg::line_chart(series, o) : svg::bar_chart(series, o)});
    }
  }
  return out;
}

std::string markdown_report(const SweepResults& r, const std::vector<PlotFile>& plots) {
  const Summary s = r.summary();
  std::string out = fmt::format("# Sweep `{}`\n\n", r.sweep);
  if (!r.description.empty()) out += r.description + "\n\n";
  out += fmt::format("- sweep file: `{}`; model: `{}`; base configuration: `{}`\n", r.file, r.model, r.base_config);
  out += fmt::format("- points: {} of {} ({}): {} passed, {} failed, {} rejected\n", r.points.size(), r.points_total,
                     r.shard.find('/') != std::string::npos ? "shard " + r.shard : r.shard, s.passed, s.failed,
                     s.rejected);
  if (!r.baseline_file.empty() || r.baseline_checked) {
    out += fmt::format("- baseline: `{}`, tolerance ±{:g} % of cycles{}: {}\n",
                       r.baseline_file.empty() ? "(none)" : r.baseline_file, r.tolerance_percent,
                       r.baseline_checked ? " (checked)" : " (shown, not checked)",
                       s.baseline_failures ? fmt::format("{} point(s) off the baseline", s.baseline_failures)
                                           : std::string("every point within it"));
  }
  out += fmt::format("- verdict: **{}**\n\n", r.all_passed() ? "PASS" : "FAIL");
  out += "Columns: cycles of the whole layer; util = useful MACs / (cycles x PEs); feeder stall = cycles "
         "the array waited for the data feeder; SRAM rd/MAC = reads of all three SRAMs per useful MAC; DRAM kB = "
         "traffic with on-the-fly im2col; explicit im2col kB = traffic of the same accelerator fed the "
         "host-lowered matrix; ratio = explicit / on-the-fly.\n\n";
  for (const auto& p : plots) out += fmt::format("![{}]({})\n\n", p.title, p.file);
  out += markdown_table(r);
  bool any = false;
  for (const auto& p : r.points)
    if (p.status == Status::rejected) {
      if (!any) out += "\n## Rejected points\n\nThe configuration cannot run these; they are not failures.\n\n";
      any = true;
      out += fmt::format("- `{}`: {}\n", p.name, md_cell(p.message));
    }
  any = false;
  for (const auto& p : r.points)
    if (r.point_fails(p) || p.baseline.failing()) {
      if (!any) out += "\n## Failures and baseline changes\n\n";
      any = true;
      std::string why = p.status == Status::fail ? p.message : "";
      if (p.baseline.failing()) why += (why.empty() ? "" : "; ") + ("baseline: " + p.baseline.message);
      out += fmt::format("- `{}`: {}\n", p.name, md_cell(why));
    }
  for (const auto& p : r.points)
    if (!p.lowered_note.empty()) out += fmt::format("\nNote on `{}`: {}\n", p.name, md_cell(p.lowered_note));
  return out;
}

StagingDir::StagingDir(const std::string& destination) : destination_(destination) {
  if (destination_.empty()) {
    std::string tmpl = (fs::temp_directory_path() / "flycol-sweep-XXXXXX").string();
    if (!mkdtemp(tmpl.data())) throw std::runtime_error("cannot create a temporary directory under " + tmpl);
    path_ = tmpl;
    return;
  }
  fs::path dest = fs::absolute(destination_).lexically_normal();
  if (!dest.has_filename()) dest = dest.parent_path();
  destination_ = dest.string();
  check_replaceable();  // before any work: a run must not end in "cannot write the report"
  fs::create_directories(dest.parent_path());
  path_ = (dest.parent_path() / fmt::format(".{}.tmp-{}", dest.filename().string(), getpid())).string();
  std::error_code ec;
  fs::remove_all(path_, ec);
  fs::create_directories(path_);
}

StagingDir::~StagingDir() {
  if (committed_) return;
  std::error_code ec;
  fs::remove_all(path_, ec);
}

void StagingDir::check_replaceable() const {
  std::error_code ec;
  const fs::path dest(destination_);
  if (!fs::exists(dest, ec)) return;
  const bool empty_dir = fs::is_directory(dest, ec) && fs::is_empty(dest, ec);
  const bool old_report = fs::is_regular_file(dest / "sweep.json", ec);
  if (!empty_dir && !old_report)
    throw InputError("--report", "",
                     fmt::format("{}: exists and is not a sweep report (no sweep.json): choose another directory; "
                                 "nothing was written",
                                 destination_));
}

void StagingDir::commit() {
  if (destination_.empty()) throw std::logic_error("StagingDir::commit without a destination");
  check_replaceable();
  std::error_code ec;
  const fs::path dest(destination_);
  if (fs::exists(dest, ec)) {
    const fs::path old = dest.parent_path() / fmt::format(".{}.old-{}", dest.filename().string(), getpid());
    fs::remove_all(old, ec);
    fs::rename(dest, old);
    fs::rename(path_, dest);
    fs::remove_all(old, ec);
  } else {
    fs::rename(path_, dest);
  }
  committed_ = true;
}

void write_report_files(const SweepResults& r, const std::string& dir) {
  const std::vector<PlotFile> plots = render_plots(r);
  write_file_atomic(dir + "/sweep.json", to_json(r).dump());
  write_file_atomic(dir + "/sweep.csv", csv_table(r));
  write_file_atomic(dir + "/sweep.md", markdown_report(r, plots));
  for (const auto& p : plots) write_file_atomic(dir + "/" + p.file, p.svg);
}

}  // namespace flycol::sweep
