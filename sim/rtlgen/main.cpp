// flycol_rtlgen: writes the generated SystemVerilog packages at build time.
//   flycol_rtlgen --flycol-pkg OUT.sv
//   flycol_rtlgen --config NAME|FILE --cfg-pkg OUT.sv
#include <cstdio>
#include <string>

#include <fmt/format.h>

#include "sim/common/input_error.h"
#include "sim/report/json.h"
#include "sim/rtlgen/rtl_types.h"

int main(int argc, char** argv) {
  std::string config, cfg_out, pkg_out;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--config") config = argv[i + 1];
    else if (a == "--cfg-pkg") cfg_out = argv[i + 1];
    else if (a == "--flycol-pkg") pkg_out = argv[i + 1];
    else {
      fmt::print(stderr, "flycol_rtlgen: unknown option '{}'\n", a);
      return 2;
    }
  }
  try {
    if (!pkg_out.empty()) flycol::write_file_atomic(pkg_out, flycol::rtl::generate_flycol_pkg());
    if (!cfg_out.empty()) {
      const flycol::Config c = config.empty() ? flycol::default_config() : flycol::load_config_by_name_or_path(config);
      flycol::write_file_atomic(cfg_out, flycol::rtl::generate_cfg_pkg(c));
    }
  } catch (const std::exception& e) {
    fmt::print(stderr, "flycol_rtlgen: {}\n", e.what());
    return 2;
  }
  return 0;
}
