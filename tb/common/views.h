// The includes of a block testbench's views: in the RTL build (FLYCOL_VTOP defined) the Verilated
// model, the configuration loader and the Verilator helpers; in the core/SystemC build SystemC and
// tb::ScClock. A bench includes this, then its block's headers under #ifndef FLYCOL_VTOP.
#pragma once

#ifdef FLYCOL_VTOP
#include FLYCOL_VTOP_HEADER
#include "sim/config/config.h"
#include "sim/config/config_keys.h"
#include "tb/common/verilator.h"
#else
#include <systemc>

#include "tb/common/systemc.h"
#endif
