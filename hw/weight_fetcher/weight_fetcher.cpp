// SystemC wrapper of WeightFetcherCore: outputs from the core's Moore getters, one eval()+tick()
// per rising edge; protocol violations become SC_REPORT_ERROR.
#include "hw/weight_fetcher/weight_fetcher.h"

#include "hw/common/protocol_error.h"

namespace flycol::hw {

WeightFetcher::WeightFetcher(sc_core::sc_module_name name, const HwParams& p, SramBank& weight_bank)
    : sc_core::sc_module(name), cols_(p.cols), port_mode_(false), bank_(weight_bank), core_(p) {
  weight_req_o(unused_req_);
  weight_addr_o(unused_addr_);
  init();
}

WeightFetcher::WeightFetcher(sc_core::sc_module_name name, const HwParams& p)
    : sc_core::sc_module(name), cols_(p.cols), port_mode_(true),
      port_(std::make_unique<SramBank>("weight_port", p.weight_depth, p.cols)), bank_(*port_), core_(p) {
  weight_rdata_i.init(std::size_t(cols_));
  init();
}

void WeightFetcher::init() {
  word_o.init(std::size_t(cols_));
  SC_METHOD(comb);
  sensitive << state_changed_;
  for (auto& in : weight_rdata_i) sensitive << in;
  SC_METHOD(seq);
  sensitive << clk_i.pos();
  dont_initialize();
}

void WeightFetcher::load_rdata() {
  for (int i = 0; i < cols_; ++i) rdata_[i] = weight_rdata_i[std::size_t(i)].read();
  port_->load_rdata(rdata_);
}

void WeightFetcher::comb() {
  valid_o.write(core_.has_word());
  busy_o.write(core_.busy());
  const elem_t* w = core_.word();
  for (int i = 0; i < cols_; ++i) word_o[std::size_t(i)].write(w[i]);
  if (port_mode_) {
    // The read decision depends on registered state only, so evaluating here is side-effect free
    // (eval computes next state; only tick() commits it).
    load_rdata();
    core_.eval(*port_);
    weight_req_o.write(port_->pending_read());
    weight_addr_o.write(port_->pending_read() ? std::uint32_t(port_->pending_addr()) : 0u);
    port_->drop_request();
  }
}

void WeightFetcher::seq() {
  try {
    if (!rst_ni.read()) {
      core_.reset();
    } else {
      if (start_i.read()) {
        RunDesc run;
        run.n_kg = run_n_kg_i.read();
        run.n_cy = run_n_cy_i.read();
        run.n_cx = run_n_cx_i.read();
        run.n_c = run_n_c_i.read();
        run.n_ky = run_n_ky_i.read();
        run.n_kx = run_n_kx_i.read();
        core_.start(run);
      }
      core_.set_pop(pop_i.read());
      if (port_mode_) load_rdata();
      core_.eval(bank_);
      core_.tick();
      if (port_mode_)
        port_->drop_request();  // the SRAM bank outside performs it
      else
        bank_.tick();
    }
  } catch (const ProtocolError& e) {
    SC_REPORT_ERROR(name(), e.what());
  }
  state_changed_.notify(sc_core::SC_ZERO_TIME);
}

}  // namespace flycol::hw
