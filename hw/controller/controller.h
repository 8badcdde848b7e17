// SystemC module of the controller (docs/microarchitecture.md, section 5) with the RTL's port names,
// wrapping ControllerCore for the block testbench. Also the helpers that let Command travel on an
// sc_signal (comparison, printing, tracing), which the core's plain struct does not need.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>

#include <systemc>

#include "hw/common/command.h"
#include "hw/common/hw_params.h"
#include "hw/common/sc_core_module.h"
#include "hw/controller/controller_core.h"

namespace flycol::hw {

// sc_signal<T> needs ==, << and sc_trace for T. Field-by-field equality (not memcmp) because the
// structs have padding whose bytes are unspecified.
bool operator==(const DmaDesc& a, const DmaDesc& b);
bool operator==(const RunDesc& a, const RunDesc& b);
bool operator==(const Command& a, const Command& b);
inline bool operator!=(const Command& a, const Command& b) { return !(a == b); }
std::ostream& operator<<(std::ostream& os, const Command& c);
// Traces the opcode, the wait thresholds and the main descriptor fields, not the whole command.
void sc_trace(sc_core::sc_trace_file* tf, const Command& c, const std::string& name);

// ScCoreModule: the clock and reset ports clk_i and rst_ni, core() and the comb()/seq() frame.
struct Controller : ScCoreModule<ControllerCore> {
  static constexpr int kEngines = ControllerCore::kEngines;  // index = int(Engine): LD, EX, PS

  sc_core::sc_in<bool> cmd_valid_i{"cmd_valid_i"};            // host offers cmd_i
  sc_core::sc_in<Command> cmd_i{"cmd_i"};                     // the offered command
  sc_core::sc_out<bool> cmd_ready_o{"cmd_ready_o"};           // queue of cmd_i's engine has room (Mealy)

  sc_core::sc_vector<sc_core::sc_in<bool>> busy_i{"busy_i", kEngines};   // engine runs a command (registered)
  sc_core::sc_vector<sc_core::sc_in<bool>> done_i{"done_i", kEngines};   // engine completes it this cycle
  sc_core::sc_vector<sc_core::sc_out<bool>> start_o{"start_o", kEngines};           // engine starts now (Mealy)
  sc_core::sc_vector<sc_core::sc_out<Command>> start_cmd_o{"start_cmd_o", kEngines};  // what it starts
  sc_core::sc_out<bool> idle_o{"idle_o"};                     // queues empty, engines idle

  Controller(sc_core::sc_module_name name, const HwParams& p);

private:
  void comb() override;
  void seq() override;
  ControllerCore::In inputs() const;
};

}  // namespace flycol::hw
