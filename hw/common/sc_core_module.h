// The frame of a core's SystemC module: the clock and reset ports, the core, and the two
// processes every wrapper has, comb() (outputs from the state and the inputs it names) and seq()
// (the rising edge: reset or the block's step, a ProtocolError as SC_REPORT_ERROR, then comb()).
#pragma once

#include <systemc>

#include "hw/common/sc_clocked.h"
#include "hw/common/sc_sensitivity.h"

namespace flycol::hw {

template <class Core>
class ScCoreModule : public sc_core::sc_module {
public:
  sc_core::sc_in<bool> clk_i{"clk_i"};
  sc_core::sc_in<bool> rst_ni{"rst_ni"};  // synchronous model of the async reset, active low

  // Registered state, for statistics and testbenches.
  const Core& core() const { return core_; }

protected:
  template <class... CoreArgs>
  explicit ScCoreModule(sc_core::sc_module_name name, const CoreArgs&... core_args)
      : sc_module(name), core_(core_args...) {}

  // Registers comb(), sensitive to the new state and to `inputs` (input ports or vectors of
  // them), and seq() at the rising edge.
  template <class... In>
  void processes(In&... inputs) {
    SC_METHOD(comb);
    sensitive << state_changed_;
    (hw::sense(sensitive, inputs), ...);
    SC_METHOD(seq);
    sensitive << clk_i.pos();
    dont_initialize();
  }
  virtual void comb() = 0;
  virtual void seq() = 0;

  // seq()'s frame: the core reset, or `step`; then comb() follows the new state.
  template <class Step>
  void clock(Step&& step) {
    clock_core(*this, rst_ni.read(), core_, step);
    state_changed_.notify(sc_core::SC_ZERO_TIME);
  }

  Core core_;

private:
  SC_HAS_PROCESS(ScCoreModule);
  sc_core::sc_event state_changed_;
};

}  // namespace flycol::hw
