// SystemC wrapper of SequencerCore: Mealy token outputs from eval() whenever an input or the state
// changes; at the rising edge one eval() with the cycle's settled inputs, then the RUN start and
// the finish pulse (the core wants finish after the cycle's last eval), then tick().
#include "hw/sequencer/sequencer.h"

namespace flycol::hw {

Sequencer::Sequencer(sc_core::sc_module_name name, const HwParams& p) : ScCoreModule(name, p) {
  processes(lanes_ready_i, weight_ready_i, unclaimed_i, pool_ready_i);
}

SequencerCore::In Sequencer::inputs() const {
  SequencerCore::In in;
  in.lanes_ready = lanes_ready_i.read();
  in.weight_ready = weight_ready_i.read();
  in.unclaimed = unclaimed_i.read();
  in.pool_ready = pool_ready_i.read();
  return in;
}

void Sequencer::comb() {
  const SequencerCore::Out& out = core_.eval(inputs());
  token_valid_o.write(out.token_valid);
  token_swap_o.write(out.token_swap);
  token_window_o.write(out.token_window);
  pop_o.write(out.pop);
  weight_pop_o.write(out.weight_pop);
  claim_o.write(out.claim);
  busy_o.write(core_.busy());
  cycle_kind_o.write(int(out.kind));
}

void Sequencer::seq() {
  clock([&] {
    core_.eval(inputs());
    if (start_i.read()) core_.start(read_run());
    if (finish_i.read()) core_.finish();
    core_.tick();
  });
}

}  // namespace flycol::hw
