// SC_MODULE of the whole accelerator: the RTL top's clock, reset and status ports, with the
// command port and the memory port reached through sc_ports (env_if.h). One clocked method per
// cycle evaluates the accelerator core; --trace records the top-level signals.
#pragma once

#include <cstdint>

#include <systemc>

#include "hw/top/accelerator_core.h"
#include "hw/top/env_if.h"

namespace flycol::hw {

SC_MODULE(Accelerator) {
  sc_core::sc_in<bool> clk_i;
  sc_core::sc_in<bool> rst_ni;
  sc_core::sc_out<bool> idle_o;
  sc_core::sc_port<CommandSourceIf> cmd_port;
  sc_core::sc_port<MemoryIf> mem_port;

  Accelerator(sc_core::sc_module_name name, const HwParams& p);

  AcceleratorCore& core() { return core_; }
  std::uint64_t cycle() const { return cycle_; }
  // Record the top-level signals into a VCD trace file (call before sc_start). sc_object's const
  // trace() stays visible (clang's -Woverloaded-virtual: this one hides it otherwise).
  using sc_core::sc_module::trace;
  void trace(sc_core::sc_trace_file* tf);

private:
  void step();

  AcceleratorCore core_;
  std::uint64_t cycle_ = 0;
  bool tracing_ = false;
  // Top-level signals, written only when tracing.
  sc_core::sc_signal<bool> cmd_valid_s_, cmd_ready_s_, mem_req_valid_s_, mem_req_ready_s_, mem_req_write_s_,
      mem_rsp_valid_s_, run_active_s_, tok_valid_s_, tok_swap_s_, tok_window_s_;
  sc_core::sc_signal<std::uint64_t> mem_req_addr_s_, cycle_s_;
  sc_core::sc_signal<int> cmd_op_s_, mem_req_bytes_s_, cycle_kind_s_;
};

}  // namespace flycol::hw
