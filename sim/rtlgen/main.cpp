// flycol_rtlgen: writes what is generated from flycol's tables: the SystemVerilog packages (at build
// time) and the configuration key table of docs/configuration.md.
//   flycol_rtlgen --flycol-pkg OUT.sv
//   flycol_rtlgen --config NAME|FILE --cfg-pkg OUT.sv
//   flycol_rtlgen --config-doc docs/configuration.md   the key table between its GENERATED markers
//   flycol_rtlgen ... --check      compare with the existing files instead of writing them
#include <cstdio>
#include <optional>
#include <string>

#include <fmt/format.h>

#include "sim/common/files.h"
#include "sim/common/input_error.h"
#include "sim/config/config_keys.h"
#include "sim/report/doc_section.h"
#include "sim/rtlgen/rtl_types.h"

namespace {

// Writes `text` to `path`, or with `check` compares it with the file and reports a stale file.
bool emit(const std::string& path, const std::string& text, bool check) {
  if (!check) {
    flycol::write_file_atomic(path, text);
    return true;
  }
  const std::optional<std::string> current = flycol::read_whole_file(path);
  if (current && *current == text) return true;
  fmt::print(stderr, "flycol_rtlgen: {} is not what the generator writes now; run scripts/regen-rtl-pkgs\n", path);
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  std::string config, cfg_out, pkg_out, config_doc;
  bool check = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--check") {
      check = true;
      continue;
    }
    if (i + 1 >= argc) {
      fmt::print(stderr, "flycol_rtlgen: option '{}' needs a value\n", a);
      return 2;
    }
    if (a == "--config") config = argv[++i];
    else if (a == "--cfg-pkg") cfg_out = argv[++i];
    else if (a == "--flycol-pkg") pkg_out = argv[++i];
    else if (a == "--config-doc") config_doc = argv[++i];
    else {
      fmt::print(stderr, "flycol_rtlgen: unknown option '{}'\n", a);
      return 2;
    }
  }
  bool ok = true;
  try {
    if (!pkg_out.empty()) ok &= emit(pkg_out, flycol::rtl::generate_flycol_pkg(), check);
    if (!cfg_out.empty()) {
      const flycol::Config c = config.empty() ? flycol::default_config() : flycol::load_config_by_name_or_path(config);
      ok &= emit(cfg_out, flycol::rtl::generate_cfg_pkg(c), check);
    }
    if (!config_doc.empty()) {
      const std::string table = flycol::config_keys_markdown();
      if (!check) {
        flycol::update_doc_section(config_doc, table);
      } else if (!flycol::doc_section_is(config_doc, table)) {
        fmt::print(stderr,
                   "flycol_rtlgen: the key table of {} is not what the configuration key table gives now; run "
                   "build/sim/rtlgen/flycol_rtlgen --config-doc {}\n",
                   config_doc, config_doc);
        ok = false;
      }
    }
  } catch (const std::exception& e) {
    fmt::print(stderr, "flycol_rtlgen: {}\n", e.what());
    return 2;
  }
  return ok ? 0 : 1;
}
