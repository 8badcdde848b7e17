// SystemC wrapper of SequencerCore: Mealy token outputs from eval() whenever an input or the state
// changes; at the rising edge one eval() with the cycle's settled inputs, then the RUN start and
// the finish pulse (the core wants finish after the cycle's last eval), then tick().
#include "hw/sequencer/sequencer.h"

#include "hw/common/protocol_error.h"

namespace flycol::hw {

Sequencer::Sequencer(sc_core::sc_module_name name, const HwParams& p) : sc_core::sc_module(name), core_(p) {
  SC_METHOD(comb);
  sensitive << lanes_ready_i << weight_ready_i << unclaimed_i << state_changed_;
  SC_METHOD(seq);
  sensitive << clk_i.pos();
  dont_initialize();
}

SequencerCore::In Sequencer::inputs() const {
  SequencerCore::In in;
  in.lanes_ready = lanes_ready_i.read();
  in.weight_ready = weight_ready_i.read();
  in.unclaimed = unclaimed_i.read();
  return in;
}

void Sequencer::comb() {
  const SequencerCore::Out& out = core_.eval(inputs());
  token_valid_o.write(out.token_valid);
  token_swap_o.write(out.token_swap);
  token_window_o.write(out.token_window);
  pop_o.write(out.pop);
  claim_o.write(out.claim);
  busy_o.write(core_.busy());
  cycle_kind_o.write(int(out.kind));
}

void Sequencer::seq() {
  try {
    if (!rst_ni.read()) {
      core_.reset();
    } else {
      core_.eval(inputs());
      if (start_i.read()) {
        RunDesc run;
        run.preload = run_preload_i.read();
        run.n_kg = run_n_kg_i.read();
        run.n_cy = run_n_cy_i.read();
        run.n_cx = run_n_cx_i.read();
        run.n_c = run_n_c_i.read();
        run.n_ky = run_n_ky_i.read();
        run.n_kx = run_n_kx_i.read();
        core_.start(run);
      }
      if (finish_i.read()) core_.finish();
      core_.tick();
    }
  } catch (const ProtocolError& e) {
    SC_REPORT_ERROR(name(), e.what());
  }
  state_changed_.notify(sc_core::SC_ZERO_TIME);
}

}  // namespace flycol::hw
