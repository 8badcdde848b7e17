// The export itself: check the target, build the package in a staging directory next to it (same
// file system, so the final rename is atomic), run Yosys there, write the generated files and the
// manifest, then move the package into place. Any failure removes the staging directory and
// leaves the target untouched.
#include "sim/export/export.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <stdexcept>
#include <utility>

#include <unistd.h>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "sim/common/files.h"
#include "sim/common/input_error.h"
#include "sim/config/yaml_guard.h"
#include "sim/export/embedded_files.h"
#include "sim/export/netlist.h"
#include "sim/export/package_text.h"
#include "sim/report/json.h"
#include "sim/rtlgen/rtl_types.h"

#ifndef FLYCOL_VERSION
#error "FLYCOL_VERSION must be defined (sim/export/CMakeLists.txt)"
#endif

namespace flycol::rtlexport {
namespace fs = std::filesystem;
namespace {

void write_text(const fs::path& path, std::string_view text) {
  fs::create_directories(path.parent_path());
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f.write(text.data(), std::streamsize(text.size()));
  f.close();
  if (!f) throw std::runtime_error(fmt::format("cannot write '{}'", path.string()));
}

std::string read_text(const fs::path& path) {
  std::optional<std::string> text = read_whole_file(path.string());
  if (!text) throw std::runtime_error(fmt::format("cannot read '{}'", path.string()));
  return std::move(*text);
}

// An earlier export: a manifest.json that says it is one.
bool is_flycol_package(const fs::path& dir) {
  const fs::path m = dir / kManifest;
  std::error_code ec;
  if (!fs::is_regular_file(m, ec)) return false;
  try {
    // Through the YAML guard like every other file flycol reads: the directory is the user's, and
    // a deeply nested manifest.json would otherwise recurse in yaml-cpp without a limit.
    const YAML::Node n = load_yaml_file(m.string());
    return n.IsMap() && n["flycol_export"] && n["files"];
  } catch (const std::exception&) {
    return false;
  }
}

// Removes a directory tree, ignoring errors (used on failure paths and for the staging area).
void remove_quietly(const fs::path& p) {
  std::error_code ec;
  fs::remove_all(p, ec);
}

// The staging area and the parents the export had to create, removed on failure.
class Staging {
public:
  explicit Staging(const fs::path& target) {
    const fs::path parent = target.parent_path();
    fs::path first_missing;
    for (fs::path p = parent; !p.empty() && !fs::exists(p); p = p.parent_path()) {
      first_missing = p;
      if (p == p.parent_path()) break;
    }
    std::error_code ec;
    fs::create_directories(parent, ec);
    if (ec) throw std::runtime_error(fmt::format("cannot create '{}': {}", parent.string(), ec.message()));
    created_parent_ = first_missing;
    std::string templ = (parent / ("." + target.filename().string() + ".flycol-export-XXXXXX")).string();
    if (!::mkdtemp(templ.data())) {
      const std::string why = std::strerror(errno);
      cleanup_parents();
      throw std::runtime_error(fmt::format("cannot create a staging directory in '{}': {}", parent.string(), why));
    }
    dir_ = templ;
  }
  ~Staging() {
    remove_quietly(dir_);
    if (!committed_) cleanup_parents();
  }
  Staging(const Staging&) = delete;
  Staging& operator=(const Staging&) = delete;

  const fs::path& dir() const { return dir_; }
  void commit() { committed_ = true; }

private:
  void cleanup_parents() {
    if (!created_parent_.empty()) remove_quietly(created_parent_);
  }
  fs::path dir_, created_parent_;
  bool committed_ = false;
};

void check_target(const fs::path& out, bool force) {
  std::error_code ec;
  if (!fs::exists(out, ec)) return;
  if (!fs::is_directory(out, ec))
    throw InputError("--out", "", fmt::format("'{}' exists and is not a directory", out.string()));
  if (fs::is_empty(out, ec)) return;
  if (!force)
    throw InputError("--out", "",
                     fmt::format("directory '{}' exists and is not empty: pass --force to replace an earlier export",
                                 out.string()));
  if (!is_flycol_package(out))
    throw InputError("--out", "",
                     fmt::format("directory '{}' is not empty and holds no flycol export ({} missing or not flycol's): "
                                 "--force only replaces an earlier export; choose another directory",
                                 out.string(), kManifest));
}

// Moves the finished package to `out`, replacing an empty directory or an earlier export.
void move_into_place(const fs::path& pkg, const fs::path& out, const fs::path& staging) {
  std::error_code ec;
  const bool existed = fs::exists(out, ec);
  const fs::path old = staging / "previous";
  if (existed) {
    fs::rename(out, old, ec);
    if (ec) throw std::runtime_error(fmt::format("cannot move the existing '{}' aside: {}", out.string(), ec.message()));
  }
  fs::rename(pkg, out, ec);
  if (ec) {
    std::error_code ec2;
    if (existed) fs::rename(old, out, ec2);  // put the previous content back
    throw std::runtime_error(fmt::format("cannot move the package to '{}': {}", out.string(), ec.message()));
  }
}

}  // namespace

const char* flycol_version() { return FLYCOL_VERSION; }

std::string package_path_of(const std::string& repo_path) {
  if (repo_path.rfind("hw/", 0) == 0) return "rtl/" + repo_path.substr(3);
  return "rtl/" + repo_path;
}

ExportResult export_package(const ExportOptions& opt) {
  if (opt.out_dir.empty()) throw InputError("--out", "", "must name the directory to write the package to");
  fs::path out = fs::absolute(opt.out_dir).lexically_normal();
  if (out.filename().empty()) out = out.parent_path();  // "dir/" names dir
  if (out.filename().empty() || out == out.root_path())
    throw InputError("--out", "", fmt::format("'{}' cannot be the package directory", opt.out_dir));
  check_target(out, opt.force);

  const Config& cfg = opt.config;
  PackageInfo info;
  info.config = cfg;
  info.version = opt.version.empty() ? flycol_version() : opt.version;
  info.flycol_pkg_sv = rtl::generate_flycol_pkg();
  const std::string cfg_pkg_sv = rtl::generate_cfg_pkg(cfg);  // before anything is written: it may reject

  Staging staging(out);
  const fs::path pkg = staging.dir() / "package";

  // SystemVerilog: the two generated packages, then the sources in dependency order.
  const std::string flycol_pkg_path = "rtl/common/flycol_pkg.sv";
  const std::string cfg_pkg_path = fmt::format("rtl/common/cfg/{}_cfg_pkg.sv", cfg.name);
  write_text(pkg / flycol_pkg_path, info.flycol_pkg_sv);
  write_text(pkg / cfg_pkg_path, cfg_pkg_sv);
  info.sv_files = {flycol_pkg_path, cfg_pkg_path};
  std::string_view top_sv;
  for (const auto& f : embedded_rtl_sources()) {
    const std::string rel = package_path_of(f.path);
    write_text(pkg / rel, f.text);
    info.sv_files.push_back(rel);
    if (fs::path(f.path).filename() == "flycol_top.sv") top_sv = f.text;
  }
  // The assertion macros every module includes: copied beside the sources, found through +incdir.
  for (const auto& f : embedded_rtl_headers()) {
    const std::string rel = package_path_of(f.path);
    write_text(pkg / rel, f.text);
    info.headers.push_back(rel);
    const std::string dir = fs::path(rel).parent_path().generic_string();
    if (std::find(info.include_dirs.begin(), info.include_dirs.end(), dir) == info.include_dirs.end())
      info.include_dirs.push_back(dir);
  }
  if (top_sv.empty()) throw std::logic_error("flycol export: flycol_top.sv is not among the embedded RTL sources");
  write_text(pkg / kConfigYaml,
             fmt::format("# Configuration '{}' as flycol {} read it (from {}).\n{}", cfg.name, info.version, cfg.source,
                         to_yaml(cfg)));

  // The Verilog-2005 netlist.
  info.flattened = opt.flatten;
  write_text(pkg / kYosysScript, yosys_script(info.sv_files, info.include_dirs, kNetlist, opt.flatten));
  const auto t0 = std::chrono::steady_clock::now();
  run_yosys(opt.yosys, pkg.string(), kYosysScript, (staging.dir() / "yosys.log").string());
  const double yosys_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const std::string raw = read_text(pkg / kNetlist);
  info.yosys_version = yosys_version(raw);
  const std::string netlist =
      fmt::format("// flycol_top, configuration '{}': the Verilog-2005 netlist of the SystemVerilog in rtl/,\n"
                  "// written by flycol export (flycol {}) with {}\n"
                  "// running {}. Word level, not technology mapped; {}.\n",
                  cfg.name, info.version, info.yosys_version.empty() ? "Yosys" : info.yosys_version, kYosysScript,
                  opt.flatten ? "flattened into the one module flycol_top (see README.md)"
                              : "parameterized modules\n// renamed flycol_<module>[_<n>] (see README.md)") +
      rename_modules(raw, "flycol_top", "flycol_");
  write_text(pkg / kNetlist, netlist);
  info.netlist_modules = netlist_modules(netlist);
  info.ports = top_ports(top_sv, netlist_ports(netlist, "flycol_top"));

  write_text(pkg / kFilelist, filelist_text(info));
  write_text(pkg / kCoreFile, fusesoc_core_text(info));
  write_text(pkg / kSdc, sdc_text(info));
  write_text(pkg / kSmokeTb, smoke_tb_text(info));
  write_text(pkg / kReadme, readme_text(info));

  ExportResult res;
  res.files = hash_tree(pkg.string(), kManifest);
  write_text(pkg / kManifest, manifest_json(info, res.files).dump());

  move_into_place(pkg, out, staging.dir());
  staging.commit();
  res.dir = out.string();
  res.netlist_modules = info.netlist_modules;
  res.yosys_version = info.yosys_version;
  res.yosys_seconds = yosys_seconds;
  return res;
}

}  // namespace flycol::rtlexport
