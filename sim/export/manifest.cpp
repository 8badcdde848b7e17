// manifest.json: what produced the package and the digest of each file in it. It holds no time
// stamp, so exporting the same configuration with the same flycol and Yosys gives the same file.
#include "sim/export/manifest.h"

#include <algorithm>
#include <filesystem>

#include <yaml-cpp/yaml.h>

#include "sim/config/scalars.h"
#include "sim/export/sha256.h"
#include "sim/rtlgen/rtl_types.h"

namespace flycol::rtlexport {
namespace {

Json node_to_json(const YAML::Node& n) {
  if (n.IsMap()) {
    Json j = Json::object();
    for (const auto& kv : n) j[kv.first.as<std::string>()] = node_to_json(kv.second);
    return j;
  }
  if (n.IsSequence()) {
    Json j = Json::array();
    for (const auto& e : n) j.push(node_to_json(e));
    return j;
  }
  if (!n.IsScalar()) return Json();
  const std::string s = n.Scalar();
  if (n.Tag() != "!") {  // a plain (unquoted) scalar: it may be a bool or a number
    if (s == "true") return Json(true);
    if (s == "false") return Json(false);
    if (auto i = parse_int_text(s)) return Json(static_cast<long long>(*i));
    if (auto d = parse_number_text(s)) return Json(*d);
  }
  return Json(s);
}

}  // namespace

std::vector<ManifestEntry> hash_tree(const std::string& root, const std::string& exclude) {
  namespace fs = std::filesystem;
  std::vector<ManifestEntry> files;
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    if (!e.is_regular_file()) continue;
    const std::string rel = fs::relative(e.path(), root).generic_string();
    if (rel == exclude) continue;
    files.push_back({rel, std::uint64_t(e.file_size()), sha256_file(e.path().string())});
  }
  std::sort(files.begin(), files.end(), [](const auto& a, const auto& b) { return a.path < b.path; });
  return files;
}

Json yaml_text_to_json(const std::string& yaml) { return node_to_json(YAML::Load(yaml)); }

Json manifest_json(const PackageInfo& p, const std::vector<ManifestEntry>& files) {
  Json j = Json::object();
  j["flycol_export"] = 1;  // format version of this file
  j["flycol_version"] = p.version;
  j["top"] = "flycol_top";
  Json cfg = Json::object();
  cfg["name"] = p.config.name;
  cfg["source"] = p.config.source;
  cfg["values"] = yaml_text_to_json(to_yaml(p.config));
  Json rtl = Json::object();
  const auto& fields = rtl::config_fields();
  const auto values = rtl::config_values(p.config);
  for (std::size_t i = 0; i < fields.size(); ++i) rtl[fields[i].name] = static_cast<unsigned long long>(values[i]);
  cfg["rtl_cfg"] = rtl;
  j["config"] = cfg;
  Json tools = Json::object();
  tools["yosys"] = p.yosys_version;
  j["tools"] = tools;
  Json netlist = Json::object();
  netlist["path"] = kNetlist;
  netlist["flattened"] = p.flattened;
  netlist["modules"] = static_cast<unsigned long long>(p.netlist_modules.size());
  j["netlist"] = netlist;
  Json list = Json::array();
  for (const auto& f : files) {
    Json e = Json::object();
    e["path"] = f.path;
    e["bytes"] = static_cast<unsigned long long>(f.bytes);
    e["sha256"] = f.sha256;
    list.push(e);
  }
  j["files"] = list;
  return j;
}

}  // namespace flycol::rtlexport
