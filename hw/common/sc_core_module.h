// The frame of a block's SystemC view: the clock and reset ports and the two processes every
// view has, comb() (outputs from the state and the inputs it names) and seq() (the rising edge,
// then comb() on the new state). ScCoreModule adds a core: its reset or the block's step at the
// edge, a ProtocolError as SC_REPORT_ERROR. The RTL adapters (sim/rtlblocks) use the frame too.
#pragma once

#include <systemc>

#include "hw/common/sc_clocked.h"
#include "hw/common/sc_sensitivity.h"

namespace flycol::hw {

class ScClockedModule : public sc_core::sc_module {
public:
  sc_core::sc_in<bool> clk_i{"clk_i"};
  sc_core::sc_in<bool> rst_ni{"rst_ni"};  // synchronous model of the async reset, active low

protected:
  explicit ScClockedModule(sc_core::sc_module_name name) : sc_module(name) {}

  // Registers comb(), sensitive to the new state and to `inputs` (input ports, vectors of them,
  // RUN input bundles), and seq() at the rising edge.
  template <class... In>
  void processes(In&... inputs) {
    SC_METHOD(comb);
    sensitive << state_changed_;
    (sense(sensitive, inputs), ...);  // unqualified: RunIn's overload is found where it is used
    SC_METHOD(seq);
    sensitive << clk_i.pos();
    dont_initialize();
  }
  virtual void comb() = 0;
  virtual void seq() = 0;
  // seq() calls it last: comb() follows the new state.
  void state_changed() { state_changed_.notify(sc_core::SC_ZERO_TIME); }

private:
  SC_HAS_PROCESS(ScClockedModule);
  sc_core::sc_event state_changed_;
};

template <class Core>
class ScCoreModule : public ScClockedModule {
public:
  // Registered state, for statistics and testbenches.
  const Core& core() const { return core_; }

protected:
  template <class... CoreArgs>
  explicit ScCoreModule(sc_core::sc_module_name name, const CoreArgs&... core_args)
      : ScClockedModule(name), core_(core_args...) {}

  // seq()'s frame: the core reset, or `step`; then comb() follows the new state.
  template <class Step>
  void clock(Step&& step) {
    clock_core(*this, rst_ni.read(), core_, step);
    state_changed();
  }

  Core core_;
};

}  // namespace flycol::hw
