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

SC_MODULE(Controller) {
  static constexpr int kEngines = ControllerCore::kEngines;  // index = int(Engine): LD, EX, PS

  sc_core::sc_in<bool> clk_i{"clk_i"};
  sc_core::sc_in<bool> rst_ni{"rst_ni"};                      // synchronous model of the async reset

  sc_core::sc_in<bool> cmd_valid_i{"cmd_valid_i"};            // host offers cmd_i
  sc_core::sc_in<Command> cmd_i{"cmd_i"};                     // the offered command
  sc_core::sc_out<bool> cmd_ready_o{"cmd_ready_o"};           // queue of cmd_i's engine has room (Mealy)

  sc_core::sc_vector<sc_core::sc_in<bool>> busy_i{"busy_i", kEngines};   // engine runs a command (registered)
  sc_core::sc_vector<sc_core::sc_in<bool>> done_i{"done_i", kEngines};   // engine completes it this cycle
  sc_core::sc_vector<sc_core::sc_out<bool>> start_o{"start_o", kEngines};           // engine starts now (Mealy)
  sc_core::sc_vector<sc_core::sc_out<Command>> start_cmd_o{"start_cmd_o", kEngines};  // what it starts
  sc_core::sc_out<bool> idle_o{"idle_o"};                     // queues empty, engines idle

  Controller(sc_core::sc_module_name name, const HwParams& p);
  SC_HAS_PROCESS(Controller);

  // Registered state, for statistics and testbenches (done counters, dispatched counts, queues).
  const ControllerCore& core() const { return core_; }

private:
  void comb();
  void seq();
  ControllerCore::In inputs() const;

  ControllerCore core_;
  sc_core::sc_event state_changed_;
};

}  // namespace flycol::hw
