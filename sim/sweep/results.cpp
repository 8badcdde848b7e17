// Point and sweep results, their metrics and their JSON form (results.h). The JSON written here
// is also the input of --merge, so every field written is read back.
#include "sim/sweep/results.h"

#include <fmt/format.h>

#include "sim/common/input_error.h"
#include "sim/config/scalars.h"
#include "sim/config/yaml_guard.h"

namespace flycol::sweep {

const char* status_name(Status s) {
  switch (s) {
    case Status::pass: return "pass";
    case Status::fail: return "fail";
    case Status::rejected: return "rejected";
  }
  return "?";
}

const char* verdict_name(BaselineVerdict::Kind k) {
  switch (k) {
    case BaselineVerdict::none: return "none";
    case BaselineVerdict::ok: return "ok";
    case BaselineVerdict::changed: return "changed";
    case BaselineVerdict::missing: return "missing";
    case BaselineVerdict::status_changed: return "status_changed";
  }
  return "?";
}

double PointResult::sram_reads_per_mac() const {
  return macs > 0 ? double(stats.sram_reads[0] + stats.sram_reads[1] + stats.sram_reads[2]) / double(macs) : 0.0;
}
double PointResult::ifmap_reads_per_mac() const { return macs > 0 ? double(stats.sram_reads[0]) / double(macs) : 0.0; }

namespace {
using Opt = std::optional<double>;
Opt if_ran(const PointResult& p, double v) { return p.ran ? Opt(v) : std::nullopt; }
}  // namespace

const std::vector<Metric>& metrics() {
  static const std::vector<Metric> m = {
      {"cycles", "cycles", [](const PointResult& p) { return if_ran(p, double(p.stats.cycles)); }},
      {"utilization", "utilization (%)", [](const PointResult& p) { return if_ran(p, 100.0 * p.utilization); }},
      {"mac_cycles", "MAC cycles", [](const PointResult& p) { return if_ran(p, double(p.stats.mac_cycles)); }},
      {"feeder_stall", "feeder stall cycles",
       [](const PointResult& p) { return if_ran(p, double(p.stats.feeder_stall)); }},
      {"weight_stall", "weight stall cycles",
       [](const PointResult& p) { return if_ran(p, double(p.stats.weight_stall)); }},
      {"context_stall", "context-switch stall cycles",
       [](const PointResult& p) { return if_ran(p, double(p.stats.context_stall)); }},
      {"pipeline", "pipeline fill/drain cycles",
       [](const PointResult& p) { return if_ran(p, double(p.stats.pipeline)); }},
      {"dram_stall", "DRAM stall cycles", [](const PointResult& p) { return if_ran(p, double(p.stats.dram_stall)); }},
      {"sram_reads_per_mac", "SRAM reads per MAC (all three SRAMs)",
       [](const PointResult& p) { return if_ran(p, p.sram_reads_per_mac()); }},
      {"ifmap_reads_per_mac", "ifmap SRAM reads per MAC",
       [](const PointResult& p) { return if_ran(p, p.ifmap_reads_per_mac()); }},
      {"dram_bytes", "DRAM bytes (on-the-fly im2col)",
       [](const PointResult& p) { return if_ran(p, double(p.stats.dram.total())); }},
      {"dram_bytes_lowered", "DRAM bytes (explicit im2col)",
       [](const PointResult& p) { return p.has_lowered ? Opt(double(p.lowered.total())) : std::nullopt; }},
      {"lowering_ratio", "DRAM bytes explicit / on-the-fly",
       [](const PointResult& p) {
         const double bytes = double(p.stats.dram.total());
         return p.ran && p.has_lowered && bytes > 0 ? Opt(double(p.lowered.total()) / bytes) : std::nullopt;
       }},
  };
  return m;
}

const Metric* find_metric(const std::string& name) {
  for (const auto& m : metrics())
    if (name == m.name) return &m;
  return nullptr;
}
bool is_metric(const std::string& name) { return name == "dram" || find_metric(name) != nullptr; }
std::vector<std::string> metric_names() {
  std::vector<std::string> out;
  for (const auto& m : metrics()) out.push_back(m.name);
  out.push_back("dram");
  return out;
}

Summary SweepResults::summary() const {
  Summary s;
  for (const auto& p : points) {
    if (p.status == Status::pass) ++s.passed;
    else if (p.status == Status::fail) ++s.failed;
    else ++s.rejected;
    if (p.baseline.failing()) ++s.baseline_failures;
  }
  return s;
}

bool SweepResults::point_fails(const PointResult& p) const {
  return p.status == Status::fail || (baseline_checked && p.baseline.failing());
}

bool SweepResults::all_passed() const {
  for (const auto& p : points)
    if (point_fails(p)) return false;
  return true;
}

namespace {

// yaml-cpp throws on IsMap() of a missing key; these are false instead.
bool is_map(const YAML::Node& n) { return n.IsDefined() && n.IsMap(); }
bool is_seq(const YAML::Node& n) { return n.IsDefined() && n.IsSequence(); }

Json value_json(const std::string& v) {
  if (const auto i = parse_int_text(v)) return Json(*i);
  return Json(v);
}

// Readers for JSON read back through yaml-cpp: a missing key is zero (older or smaller reports),
// a present key of the wrong form is an error naming it.
class Reader {
public:
  explicit Reader(std::string source) : source_(std::move(source)) {}

  std::int64_t i64(const YAML::Node& n, const std::string& key) const {
    if (!n.IsDefined() || n.IsNull()) return 0;
    if (n.IsScalar()) {
      if (const auto v = parse_int_text(n.Scalar())) return *v;
      // Models may count in doubles ("1.2e6" never appears today, but stay tolerant of "123.0").
      if (const auto d = parse_number_text(n.Scalar())) return std::int64_t(*d);
    }
    throw InputError(source_, key, describe_node(n) + ": must be an integer");
  }
  double num(const YAML::Node& n, const std::string& key) const {
    if (!n.IsDefined() || n.IsNull()) return 0;
    if (n.IsScalar())
      if (const auto d = parse_number_text(n.Scalar())) return *d;
    throw InputError(source_, key, describe_node(n) + ": must be a number");
  }
  std::string str(const YAML::Node& n, const std::string& key) const {
    if (!n.IsDefined() || n.IsNull()) return "";
    if (!n.IsScalar()) throw InputError(source_, key, describe_node(n) + ": must be a string");
    return n.Scalar();
  }
  bool boolean(const YAML::Node& n, const std::string& key) const {
    if (!n.IsDefined() || n.IsNull()) return false;
    if (n.IsScalar() && (n.Scalar() == "true" || n.Scalar() == "false")) return n.Scalar() == "true";
    throw InputError(source_, key, describe_node(n) + ": must be true or false");
  }
  DramTraffic dram(const YAML::Node& n, const std::string& key) const {
    DramTraffic t;
    if (!n.IsDefined() || n.IsNull()) return t;
    t.ifmap = std::uint64_t(i64(n["ifmap"], key + ".ifmap"));
    t.weights = std::uint64_t(i64(n["weights"], key + ".weights"));
    t.psums_in = std::uint64_t(i64(n["psums_in"], key + ".psums_in"));
    t.ofmap = std::uint64_t(i64(n["ofmap"], key + ".ofmap"));
    return t;
  }
  // The statistics in the keys write_stats_json writes (a `flycol run` report, or a point of
  // sweep.json under `prefix`). A counter the report lacks reads as zero; gated_macs as unknown.
  // sweep.json files written before the "sram" key have only the reads, under "sram_reads".
  RunStats stats(const YAML::Node& n, const std::string& prefix) const {
    const auto u64 = [&](const YAML::Node& v, const std::string& key) { return std::uint64_t(i64(v, prefix + key)); };
    RunStats s;
    s.cycles = u64(n["cycles"], "cycles");
    s.mac_cycles = u64(n["mac_cycles"], "mac_cycles");
    const YAML::Node st = n["stalls"];
    if (is_map(st)) {
      s.feeder_stall = u64(st["feeder"], "stalls.feeder");
      s.weight_stall = u64(st["weights"], "stalls.weights");
      s.context_stall = u64(st["context_switch"], "stalls.context_switch");
      s.pipeline = u64(st["pipeline"], "stalls.pipeline");
      s.dram_stall = u64(st["dram"], "stalls.dram");
      s.tail = u64(st["tail"], "stalls.tail");
    }
    const YAML::Node gated = n["gated_macs"];
    s.has_gated_macs = gated.IsDefined() && !gated.IsNull();
    s.gated_macs = u64(gated, "gated_macs");
    const char* names[3] = {"ifmap", "weights", "psums"};
    const YAML::Node sr = n["sram"], old_reads = n["sram_reads"];
    for (int i = 0; i < 3; ++i) {
      const std::string name = names[i];
      if (is_map(sr) && is_map(sr[name])) {
        s.sram_reads[i] = u64(sr[name]["reads"], "sram." + name + ".reads");
        s.sram_writes[i] = u64(sr[name]["writes"], "sram." + name + ".writes");
      } else if (!is_map(sr) && is_map(old_reads)) {
        s.sram_reads[i] = u64(old_reads[name], "sram_reads." + name);
      }
    }
    s.dram = dram(n["dram_bytes"], prefix + "dram_bytes");
    return s;
  }
  const std::string& source() const { return source_; }

private:
  std::string source_;
};

Status status_from(const std::string& s, const std::string& source, const std::string& key) {
  if (s == "pass") return Status::pass;
  if (s == "fail") return Status::fail;
  if (s == "rejected") return Status::rejected;
  throw InputError(source, key, fmt::format("= {}: must be pass, fail or rejected", s));
}

BaselineVerdict::Kind verdict_from(const std::string& s, const std::string& source, const std::string& key) {
  for (auto k : {BaselineVerdict::none, BaselineVerdict::ok, BaselineVerdict::changed, BaselineVerdict::missing,
                 BaselineVerdict::status_changed})
    if (s == verdict_name(k)) return k;
  throw InputError(source, key, fmt::format("= {}: must be none, ok, changed, missing or status_changed", s));
}

Json plot_json(const PlotSpec& p) {
  Json j = Json::object();
  j["x"] = p.x;
  Json y = Json::array();
  for (const auto& m : p.y) y.push(m);
  j["y"] = y;
  j["log2_x"] = p.log2_x;
  Json w = Json::object();
  for (const auto& [k, v] : p.where) w[k] = value_json(v);
  j["where"] = w;
  return j;
}

}  // namespace

void read_model_report(const YAML::Node& r, PointResult& p) {
  const Reader R("report");
  p.ran = true;
  p.stats = R.stats(r, "");
  p.macs = R.i64(r["macs"], "macs");
  p.utilization = R.num(r["utilization"], "utilization");
  const YAML::Node c = r["check"];
  if (is_map(c) && c["bit_exact"].IsDefined()) {
    p.has_check = true;
    p.bit_exact = R.boolean(c["bit_exact"], "check.bit_exact");
    p.mismatches = R.i64(c["mismatches"], "check.mismatches");
  }
}

Json to_json(const PointResult& p) {
  Json j = Json::object();
  j["index"] = p.index;
  j["name"] = p.name;
  Json v = Json::object();
  for (const auto& [k, val] : p.values) v[k] = value_json(val);
  j["values"] = v;
  Json own = Json::array();
  for (const auto& k : p.own) own.push(k);
  j["own"] = own;
  j["layer"] = p.layer;
  j["status"] = status_name(p.status);
  j["message"] = p.message;
  j["wall_seconds"] = p.wall_seconds;
  if (p.ran) {
    // Every counter is written (zero when the model does not count it), so the table's columns
    // are the same for every model.
    RunStats st = p.stats;
    st.has_cycle_classes = st.has_sram = true;
    write_stats_json(j, st);
    j["macs"] = p.macs;
    j["utilization"] = p.utilization;
    Json& r = j["sram_reads"];
    r["ifmap"] = p.stats.sram_reads[0];
    r["weights"] = p.stats.sram_reads[1];
    r["psums"] = p.stats.sram_reads[2];
    j["sram_reads_per_mac"] = p.sram_reads_per_mac();
    j["ifmap_reads_per_mac"] = p.ifmap_reads_per_mac();
    if (p.has_check) {
      j["bit_exact"] = p.bit_exact;
      j["mismatches"] = p.mismatches;
    }
  }
  j["dram_bytes_lowered"] = p.has_lowered ? dram_json(p.lowered) : Json();
  if (!p.lowered_note.empty()) j["lowered_note"] = p.lowered_note;
  if (p.baseline.kind != BaselineVerdict::none) {
    Json& b = j["baseline"];
    b["verdict"] = verdict_name(p.baseline.kind);
    b["cycles"] = p.baseline.cycles;
    b["change_percent"] = p.baseline.change_percent;
    b["message"] = p.baseline.message;
  }
  return j;
}

Json to_json(const SweepResults& r) {
  Json j = Json::object();
  j["flycol_sweep"] = 1;  // format version of this file
  j["sweep"] = r.sweep;
  j["description"] = r.description;
  j["file"] = r.file;
  j["file_hash"] = r.file_hash;
  j["model"] = r.model;
  j["base_config"] = r.base_config;
  j["tolerance_percent"] = r.tolerance_percent;
  j["points_total"] = r.points_total;
  j["shard"] = r.shard;
  Json keys = Json::array();
  for (const auto& k : r.swept_keys) keys.push(k);
  j["swept_keys"] = keys;
  Json plots = Json::array();
  for (const auto& p : r.plots) plots.push(plot_json(p));
  j["plots"] = plots;
  j["baseline_file"] = r.baseline_file;
  j["baseline_checked"] = r.baseline_checked;
  const Summary s = r.summary();
  Json& sj = j["summary"];
  sj["points"] = int(r.points.size());
  sj["passed"] = s.passed;
  sj["failed"] = s.failed;
  sj["rejected"] = s.rejected;
  sj["baseline_failures"] = s.baseline_failures;
  sj["ok"] = r.all_passed();
  Json pts = Json::array();
  for (const auto& p : r.points) pts.push(to_json(p));
  j["points"] = pts;
  return j;
}

SweepResults results_from_yaml(const YAML::Node& root, const std::string& source) {
  const Reader R(source);
  if (!is_map(root) || !root["flycol_sweep"].IsDefined())
    throw InputError(source, "", "is not a flycol sweep result (no 'flycol_sweep' key): give the sweep.json of a "
                                 "`flycol sweep --report DIR` run, or its directory");
  if (R.i64(root["flycol_sweep"], "flycol_sweep") != 1)
    throw InputError(source, "flycol_sweep", "unknown format version: must be 1");
  SweepResults r;
  r.sweep = R.str(root["sweep"], "sweep");
  r.description = R.str(root["description"], "description");
  r.file = R.str(root["file"], "file");
  r.file_hash = R.str(root["file_hash"], "file_hash");
  r.model = R.str(root["model"], "model");
  r.base_config = R.str(root["base_config"], "base_config");
  r.tolerance_percent = R.num(root["tolerance_percent"], "tolerance_percent");
  r.points_total = int(R.i64(root["points_total"], "points_total"));
  r.shard = R.str(root["shard"], "shard");
  r.baseline_file = R.str(root["baseline_file"], "baseline_file");
  r.baseline_checked = R.boolean(root["baseline_checked"], "baseline_checked");
  const YAML::Node keys = root["swept_keys"];
  if (is_seq(keys))
    for (std::size_t i = 0; i < keys.size(); ++i) r.swept_keys.push_back(R.str(keys[i], "swept_keys"));
  const YAML::Node plots = root["plots"];
  if (is_seq(plots))
    for (std::size_t i = 0; i < plots.size(); ++i) {
      const YAML::Node pn = plots[i];
      const std::string k = fmt::format("plots[{}]", i);
      PlotSpec ps;
      ps.x = R.str(pn["x"], k + ".x");
      if (is_seq(pn["y"]))
        for (std::size_t m = 0; m < pn["y"].size(); ++m) ps.y.push_back(R.str(pn["y"][m], k + ".y"));
      ps.log2_x = R.boolean(pn["log2_x"], k + ".log2_x");
      if (is_map(pn["where"]))
        for (const auto& kv : pn["where"]) ps.where.emplace_back(kv.first.Scalar(), R.str(kv.second, k + ".where"));
      r.plots.push_back(std::move(ps));
    }
  const YAML::Node pts = root["points"];
  if (!is_seq(pts)) throw InputError(source, "points", "is missing: must be the list of point results");
  for (std::size_t i = 0; i < pts.size(); ++i) {
    const YAML::Node n = pts[i];
    const std::string k = fmt::format("points[{}]", i);
    PointResult p;
    p.index = int(R.i64(n["index"], k + ".index"));
    p.name = R.str(n["name"], k + ".name");
    if (is_map(n["values"]))
      for (const auto& kv : n["values"]) p.values.emplace_back(kv.first.Scalar(), R.str(kv.second, k + ".values"));
    if (is_seq(n["own"]))
      for (std::size_t o = 0; o < n["own"].size(); ++o) p.own.push_back(R.str(n["own"][o], k + ".own"));
    p.layer = R.str(n["layer"], k + ".layer");
    p.status = status_from(R.str(n["status"], k + ".status"), source, k + ".status");
    p.message = R.str(n["message"], k + ".message");
    p.wall_seconds = R.num(n["wall_seconds"], k + ".wall_seconds");
    if (n["cycles"].IsDefined()) {
      p.ran = true;
      p.stats = R.stats(n, k + ".");
      p.macs = R.i64(n["macs"], k + ".macs");
      p.utilization = R.num(n["utilization"], k + ".utilization");
      p.has_check = n["bit_exact"].IsDefined();
      p.bit_exact = R.boolean(n["bit_exact"], k + ".bit_exact");
      p.mismatches = R.i64(n["mismatches"], k + ".mismatches");
    }
    const YAML::Node low = n["dram_bytes_lowered"];
    p.has_lowered = is_map(low);
    if (p.has_lowered) p.lowered = R.dram(low, k + ".dram_bytes_lowered");
    p.lowered_note = R.str(n["lowered_note"], k + ".lowered_note");
    const YAML::Node b = n["baseline"];
    if (is_map(b)) {
      p.baseline.kind = verdict_from(R.str(b["verdict"], k + ".baseline.verdict"), source, k + ".baseline.verdict");
      p.baseline.cycles = R.i64(b["cycles"], k + ".baseline.cycles");
      p.baseline.change_percent = R.num(b["change_percent"], k + ".baseline.change_percent");
      p.baseline.message = R.str(b["message"], k + ".baseline.message");
    }
    r.points.push_back(std::move(p));
  }
  return r;
}

SweepResults load_results(const std::string& path) { return results_from_yaml(load_yaml_file(path), path); }

}  // namespace flycol::sweep
