// SystemC module of one feed lane: lane_stall_o and the FIFO head in `comb`, the clock edge in
// `seq`; protocol errors become SC_REPORT_ERROR.
#include "hw/feeder/feed_lane.h"

#include "hw/common/protocol_error.h"

namespace flycol::hw {

FeedLane::FeedLane(sc_core::sc_module_name name, const HwParams& p)
    : sc_core::sc_module(name), word_i("word_i", std::size_t(p.bus_elems)), p_(p), core_(p) {
  SC_METHOD(comb);
  sensitive << valid_i << shift_i << flush_i << pattern_i << state_changed_;
  for (auto& in : word_i) sensitive << in;
  SC_METHOD(seq);
  sensitive << clk_i.pos();
  dont_initialize();
}

LaneInput FeedLane::sample() {
  for (int i = 0; i < p_.bus_elems; ++i) word_[i] = word_i[std::size_t(i)].read();
  LaneInput in;
  in.valid = valid_i.read();
  in.shift = shift_i.read();
  in.flush = flush_i.read();
  in.pattern = pattern_i.read();
  in.word = word_;
  return in;
}

void FeedLane::comb() {
  lane_stall_o.write(core_.compute_stall(sample()));
  elem_valid_o.write(core_.has_elem());
  elem_o.write(core_.elem());
}

void FeedLane::seq() {
  try {
    if (!rst_ni.read()) {
      core_.reset();
    } else {
      core_.set_pop(pop_i.read());
      core_.eval(sample(), global_stall_i.read());
      core_.tick();
    }
  } catch (const ProtocolError& e) {
    SC_REPORT_ERROR(name(), e.what());
  }
  state_changed_.notify(sc_core::SC_ZERO_TIME);
}

}  // namespace flycol::hw
