// Baseline files, comparison and blessing (baseline.h). The file keeps one point per line so that
// a re-bless shows up in review as a readable diff of exactly the points that moved.
#include "sim/sweep/baseline.h"

#include <cmath>
#include <filesystem>

#include <fmt/format.h>

#include "sim/common/input_error.h"
#include "sim/config/scalars.h"
#include "sim/config/yaml_guard.h"

namespace flycol::sweep {

std::string baseline_path(const std::string& sweep_file, const std::string& sweep_name, const std::string& model) {
  namespace fs = std::filesystem;
  const bool cycle_exact = model == "sc" || model == "both";
  const std::string file = cycle_exact ? sweep_name + ".json" : sweep_name + "." + model + ".json";
  return (fs::path(sweep_file).parent_path() / "baselines" / file).string();
}

Baseline parse_baseline(const std::string& text, const std::string& source) {
  const YAML::Node root = load_yaml(text, source);
  Baseline b;
  b.file = source;
  const auto entries = mapping_entries(root, source, "", {"sweep", "model", "note", "points"});
  for (const auto& e : entries) {
    if (e.key == "sweep") b.sweep = yaml_string(e.value, source, e.key, "the sweep name");
    else if (e.key == "model") b.model = yaml_string(e.value, source, e.key, "a model name");
    else if (e.key == "points") {
      if (!e.value.IsMap()) throw InputError(source, "points", describe_node(e.value) + ": must be a mapping of point names");
      std::vector<std::string> names;
      for (const auto& kv : e.value)
        if (kv.first.IsScalar()) names.push_back(kv.first.Scalar());
      for (const auto& pe : mapping_entries(e.value, source, "points", names)) {
        const std::string key = "points." + pe.key;
        BaselinePoint bp;
        for (const auto& f : mapping_entries(pe.value, source, key, {"cycles", "rejected"})) {
          if (f.key == "cycles") bp.cycles = yaml_int(f.value, source, key + ".cycles", 0, std::int64_t(1) << 62);
          else bp.rejected = yaml_bool(f.value, source, key + ".rejected");
        }
        b.points[pe.key] = bp;
      }
    }
  }
  if (b.sweep.empty()) throw InputError(source, "sweep", "is missing: a baseline names its sweep");
  return b;
}

std::optional<Baseline> load_baseline(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return std::nullopt;
  return parse_baseline(read_text_file(path), path);
}

void compare_to_baseline(SweepResults& r, const Baseline* b) {
  const double tol = r.tolerance_percent;
  for (PointResult& p : r.points) {
    BaselineVerdict& v = p.baseline;
    v = BaselineVerdict{};
    const BaselinePoint* found = nullptr;
    if (b)
      if (const auto it = b->points.find(p.name); it != b->points.end()) found = &it->second;
    if (!found) {
      v.kind = BaselineVerdict::missing;
      v.message = b ? fmt::format("not in the baseline {}: bless the sweep to add it", b->file)
                    : fmt::format("no baseline file{}: bless the sweep to create it",
                                  r.baseline_file.empty() ? "" : " " + r.baseline_file);
      continue;
    }
    const BaselinePoint& bp = *found;
    const bool rejected = p.status == Status::rejected;
    v.cycles = bp.cycles;
    if (bp.rejected || rejected) {
      if (bp.rejected && rejected) {
        v.kind = BaselineVerdict::ok;
      } else if (bp.rejected) {
        v.kind = BaselineVerdict::status_changed;
        v.message = fmt::format("was rejected in the baseline, now runs{}",
                                p.ran ? fmt::format(" ({} cycles)", p.stats.cycles) : std::string());
      } else {
        v.kind = BaselineVerdict::status_changed;
        v.message = fmt::format("ran in the baseline ({} cycles), now rejected: {}", bp.cycles, p.message);
      }
      continue;
    }
    if (!p.ran) {  // failed before producing cycles: the correctness failure speaks for itself
      v.kind = BaselineVerdict::ok;
      continue;
    }
    const std::int64_t cycles = std::int64_t(p.stats.cycles);
    v.change_percent = bp.cycles > 0 ? 100.0 * double(cycles - bp.cycles) / double(bp.cycles)
                                     : (cycles == 0 ? 0.0 : 100.0);
    if (std::fabs(v.change_percent) > tol) {
      v.kind = BaselineVerdict::changed;
      v.message = fmt::format("cycles {} -> {} ({:+.2f} %, {}), more than the {:g} % tolerance", bp.cycles, cycles,
                              v.change_percent, cycles > bp.cycles ? "slower" : "faster", tol);
    } else {
      v.kind = BaselineVerdict::ok;
    }
  }
}

std::string baseline_text(const SweepResults& r) {
  if (int(r.points.size()) != r.points_total)
    throw InputError("--bless", "",
                     fmt::format("these results hold {} of the {} points of sweep '{}': bless from a full run or from "
                                 "a --merge of every shard",
                                 r.points.size(), r.points_total, r.sweep));
  for (const auto& p : r.points)
    if (p.status == Status::fail)
      throw InputError("--bless", "",
                       fmt::format("point {} failed ({}): a baseline records only runs that pass their checks", p.name,
                                   p.message));
  std::string out = "{\n";
  out += fmt::format("  \"sweep\": \"{}\",\n  \"model\": \"{}\",\n", r.sweep, r.model);
  out += "  \"note\": \"Cycle counts of each point, checked by flycol sweep --check-baseline; rewrite with "
         "flycol sweep --sweep FILE --bless after an intended change (docs/sweeps.md).\",\n";
  out += "  \"points\": {";
  for (std::size_t i = 0; i < r.points.size(); ++i) {
    const PointResult& p = r.points[i];
    out += i ? ",\n    " : "\n    ";
    out += p.status == Status::rejected ? fmt::format("\"{}\": {{\"rejected\": true}}", p.name)
                                        : fmt::format("\"{}\": {{\"cycles\": {}}}", p.name, p.stats.cycles);
  }
  out += "\n  }\n}\n";
  return out;
}

}  // namespace flycol::sweep
