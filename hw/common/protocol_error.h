// Protocol violations inside the hardware models (push into a full FIFO, SRAM port conflict,
// index out of range, swap and shift at one PE). They are design bugs, never user errors: the
// models throw, the SystemC wrappers turn the throw into SC_REPORT_ERROR, and every testbench
// exits non-zero. The RTL checks the same rules with assertions.
#pragma once

#include <stdexcept>
#include <string>

namespace flycol::hw {

class ProtocolError : public std::logic_error {
public:
  ProtocolError(const std::string& block, const std::string& rule)
      : std::logic_error(block + ": protocol error: " + rule) {}
};

[[noreturn]] inline void protocol_error(const std::string& block, const std::string& rule) {
  throw ProtocolError(block, rule);
}

}  // namespace flycol::hw
