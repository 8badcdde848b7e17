// The rising-edge step every core's SystemC module takes: reset while rst_ni is low, else the
// block's own step; a ProtocolError thrown by the core becomes SC_REPORT_ERROR of the module (the
// protocol rules in hw/common/protocol_error.h), so each module states only its own step.
#pragma once

#include <systemc>

#include "hw/common/protocol_error.h"

namespace flycol::hw {

// Returns false when a protocol error was reported (the step did not complete).
template <class Core, class Step>
bool clock_core(const sc_core::sc_module& m, bool rst_n, Core& core, Step&& step) {
  try {
    if (!rst_n)
      core.reset();
    else
      step();
  } catch (const ProtocolError& e) {
    SC_REPORT_ERROR(m.name(), e.what());
    return false;
  }
  return true;
}

}  // namespace flycol::hw
