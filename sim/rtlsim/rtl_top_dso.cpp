// The wrapper compiled into each on-demand RTL model (sim/rtlsim/rtl_on_demand.cpp): not part of
// the build, compiled at run time beside the Verilated C++ of one configuration into a shared
// object whose only exported symbol is this factory (everything else has hidden visibility).
#include FLYCOL_VTOP_HEADER
#include "sim/rtlsim/rtl_top_impl.h"

// The caller owns the model (a plain pointer: extern "C" has no unique_ptr).
extern "C" __attribute__((visibility("default"))) flycol::RtlTop* flycol_rtl_top_make(
    const char* tag, const flycol::RtlTopOptions* opt) {
  return new flycol::RtlTopImpl<FLYCOL_VTOP>(tag, *opt);
}
