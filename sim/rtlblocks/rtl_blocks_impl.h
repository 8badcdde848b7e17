// The per-configuration factories of RTL block adapters (generated rtl_blocks_<tag>.cpp), as
// rtl_blocks.cpp's registry sees them.
#pragma once

#include <memory>
#include <string>

#include <systemc>

#include "hw/common/hw_params.h"
#include "hw/top/structural_top.h"

namespace flycol {

// The adapter of `block` in this configuration's RTL, bound into `top`; nullptr for a name
// without RTL.
using RtlBlockMaker = std::unique_ptr<sc_core::sc_module> (*)(const std::string& block, hw::StructuralTop& top,
                                                              const hw::HwParams& p);

}  // namespace flycol
