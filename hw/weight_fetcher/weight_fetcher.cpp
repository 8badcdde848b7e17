// SystemC wrapper of WeightFetcherCore: outputs from the core's Moore getters, one eval()+tick()
// per rising edge; protocol violations become SC_REPORT_ERROR.
#include "hw/weight_fetcher/weight_fetcher.h"

namespace flycol::hw {

WeightFetcher::WeightFetcher(sc_core::sc_module_name name, const HwParams& p, SramBank& weight_bank)
    : ScCoreModule(name, p), cols_(p.cols), sram_(weight_bank) {
  sram_.bind_unused(weight_req_o, weight_addr_o);
  init();
}

WeightFetcher::WeightFetcher(sc_core::sc_module_name name, const HwParams& p)
    : ScCoreModule(name, p), cols_(p.cols), sram_("weight_port", p.weight_depth, p.cols) {
  weight_rdata_i.init(std::size_t(cols_));
  init();
}

void WeightFetcher::init() {
  word_o.init(std::size_t(cols_));
  processes(weight_rdata_i);
}

void WeightFetcher::comb() {
  valid_o.write(core_.has_word());
  busy_o.write(core_.busy());
  const elem_t* w = core_.word();
  for (int i = 0; i < cols_; ++i) word_o[std::size_t(i)].write(w[i]);
  if (sram_.port_mode()) {
    // The read decision depends on registered state only, so evaluating here is side-effect free
    // (eval computes next state; only tick() commits it).
    SramBank& port = sram_.port();
    sram_.load_rdata(weight_rdata_i);
    core_.eval(port);
    weight_req_o.write(port.pending_read());
    weight_addr_o.write(port.pending_read() ? std::uint32_t(port.pending_addr()) : 0u);
    port.drop_request();
  }
}

void WeightFetcher::seq() {
  clock([&] {
    if (start_i.read()) core_.start(read_run());
    core_.set_pop(pop_i.read());
    if (sram_.port_mode()) sram_.load_rdata(weight_rdata_i);
    core_.eval(sram_.bank());
    core_.tick();
    sram_.end_edge();
  });
}

}  // namespace flycol::hw
