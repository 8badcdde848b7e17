// SystemC side of the block testbenches: a clock that the bench toggles one edge at a time from
// its own loop (so the same loop drives the C++ core, the SystemC module and the Verilated RTL),
// and SC_ERROR reports as exceptions that expect_throw can catch.
#pragma once

#include <string>

#include <fmt/format.h>
#include <systemc>

#include "hw/common/sc_run_ports.h"

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

// What the views of the issue-stage modules (sequencer, weight fetcher, psum manager) share: the
// clock, the reset and the RUN start with its fields (hw::RunIn's ports), bound and driven together.
struct ScRunInputs {
  explicit ScRunInputs(const std::string& view) : run(view + "_run") {}
  template <class M>
  void bind(M& m) {
    m.clk_i(clk.clk());
    m.rst_ni(rst_n);
    m.bind_run(start, run);
  }
  // The reset, start and RUN fields of the bench's inputs of one cycle.
  template <class Drive>
  void write(const Drive& d) {
    rst_n.write(d.rst_n);
    start.write(d.start);
    run.write(d.run);
  }

  ScClock clk;
  sc_core::sc_signal<bool> rst_n, start;
  hw::RunFieldSignals run;
};

// The SC_ERROR reports of message type `type` (a module reports under its name) while a bench
// offers inputs the module must refuse: after expect_sc_errors() they are displayed, not thrown
// (`bench` prints a line saying that they are expected), end_sc_errors() throws them again, and
// sc_errors_during() counts those `offer()` made.
inline void expect_sc_errors(const char* type, const std::string& bench, const char* what) {
  sc_core::sc_report_handler::set_actions(type, sc_core::SC_ERROR, sc_core::SC_DISPLAY);
  fmt::print("{}: {}; the SC_ERROR reports of {} below are expected\n", bench, what, type);
}
inline void end_sc_errors(const char* type) {
  sc_core::sc_report_handler::set_actions(type, sc_core::SC_ERROR, sc_core::SC_UNSPECIFIED);
}
template <class F>
int sc_errors_during(const char* type, F&& offer) {
  const int before = sc_core::sc_report_handler::get_count(type, sc_core::SC_ERROR);
  offer();
  return sc_core::sc_report_handler::get_count(type, sc_core::SC_ERROR) - before;
}

}  // namespace flycol::tb
