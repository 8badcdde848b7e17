// RTL of any configuration on demand: when no built-in Verilated model matches, make_rtl_top()
// Verilates flycol_top for the configuration into a cache directory (once; later runs reuse it)
// and loads it as a shared object. The cache layout and why the model carries its own Verilator
// runtime: rtl_on_demand.cpp; for users: README, "RTL and co-simulation".
#pragma once

#include <memory>
#include <string>

#include "sim/config/config.h"
#include "sim/rtlsim/rtl_top.h"

namespace flycol {

// The cache directory: $FLYCOL_RTL_CACHE, else $XDG_CACHE_HOME/flycol/rtl, else ~/.cache/flycol/rtl.
std::string rtl_cache_dir();

// Builds (first use) or reuses the model of `config` and makes one instance. The entry is
// <cache>/<name>-<16 hex digits of a SHA-256 of the configuration package text, the RTL sources,
// the C++ wrapper headers, Verilator's version and the compiler command>. Throws
// std::runtime_error naming the missing tool or the build log when it cannot.
std::unique_ptr<RtlTop> make_rtl_top_on_demand(const Config& config, const RtlTopOptions& opt);

}  // namespace flycol
