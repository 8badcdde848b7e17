// The files `flycol export` copies into a package, compiled into the binary at build time
// (sim/export/embed_files.cmake) so that the export needs no source tree at run time.
#pragma once

#include <string_view>
#include <vector>

namespace flycol::rtlexport {

struct EmbeddedFile {
  const char* path;       // relative to the repository root, e.g. "hw/pe/pe.sv"
  std::string_view text;
};

// The RTL sources in dependency order, as hw/ registers them with flycol_rtl_sources(): the
// common cells first, flycol_top last. The two generated packages are not among them.
const std::vector<EmbeddedFile>& embedded_rtl_sources();

// The files the RTL sources `include (hw/common/flycol_assert.svh), found through +incdir.
const std::vector<EmbeddedFile>& embedded_rtl_headers();

}  // namespace flycol::rtlexport
