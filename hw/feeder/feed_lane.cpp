// SystemC module of one feed lane: lane_stall_o and the FIFO head in `comb`, the clock edge in
// `seq`; protocol errors become SC_REPORT_ERROR.
#include "hw/feeder/feed_lane.h"

namespace flycol::hw {

FeedLane::FeedLane(sc_core::sc_module_name name, const HwParams& p)
    : ScCoreModule(name, p), word_i("word_i", std::size_t(p.bus_elems)), p_(p) {
  processes(valid_i, shift_i, flush_i, pattern_i, word_i);
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
  clock([&] {
    core_.set_pop(pop_i.read());
    core_.eval(sample(), global_stall_i.read());
    core_.tick();
  });
}

}  // namespace flycol::hw
