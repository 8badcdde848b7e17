// SystemC side of the block testbenches: a clock that the bench toggles one edge at a time from
// its own loop (so the same loop drives the C++ core, the SystemC module and the Verilated RTL),
// and SC_ERROR reports as exceptions that expect_throw can catch.
#pragma once

#include <systemc>

namespace flycol::tb {

// A clock signal of one view. Time does not advance: step() raises it, runs every delta cycle the
// edge causes, lowers it and settles again. Only the processes of the module bound to it run, so
// many views can be elaborated up front (SystemC allows no new module after the first sc_start)
// and run one after another at the cost of one.
class ScClock {
public:
  // SC_ERROR reports throw (expect_throw catches them); the library's deprecation notes are not the
  // bench's business.
  ScClock() {
    sc_core::sc_report_handler::set_actions(sc_core::SC_ERROR, sc_core::SC_THROW);
    sc_core::sc_report_handler::set_actions("/IEEE_Std_1666/deprecated", sc_core::SC_DO_NOTHING);
  }
  sc_core::sc_signal<bool>& clk() { return clk_; }
  // Runs the delta cycles pending now: the writes of the bench reach the module's combinational
  // outputs.
  static void settle() {
    // The first call ends elaboration and runs the initialization phase.
    if (sc_core::sc_get_status() == sc_core::SC_ELABORATION) sc_core::sc_start(sc_core::SC_ZERO_TIME);
    while (sc_core::sc_pending_activity_at_current_time()) sc_core::sc_start(sc_core::SC_ZERO_TIME);
  }
  // One rising edge (the module samples what the bench wrote), then everything it causes.
  void step() {
    settle();
    clk_.write(true);
    settle();
    clk_.write(false);
    settle();
  }

private:
  sc_core::sc_signal<bool> clk_;
};

}  // namespace flycol::tb
