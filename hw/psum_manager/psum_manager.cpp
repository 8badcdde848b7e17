// SystemC wrapper of PsumManagerCore: Moore outputs and the Mealy preload word from the core's
// getters, one eval()+tick() per rising edge; protocol violations become SC_REPORT_ERROR.
#include "hw/psum_manager/psum_manager.h"

#include "hw/common/protocol_error.h"

namespace flycol::hw {

PsumManager::PsumManager(sc_core::sc_module_name name, const HwParams& p, SramBank& psum_bank)
    : sc_core::sc_module(name), rows_(p.rows), port_mode_(false), bank_(psum_bank), core_(p) {
  psum_req_o(unused_req_);
  psum_we_o(unused_we_);
  psum_addr_o(unused_addr_);
  psum_wmask_o(unused_wmask_);
  init();
}

PsumManager::PsumManager(sc_core::sc_module_name name, const HwParams& p)
    : sc_core::sc_module(name), rows_(p.rows), port_mode_(true),
      port_(std::make_unique<SramBank>("psum_port", p.psum_depth, p.rows)), bank_(*port_), core_(p) {
  psum_wdata_o.init(std::size_t(rows_));
  psum_rdata_i.init(std::size_t(rows_));
  init();
}

void PsumManager::init() {
  pre_word_o.init(std::size_t(rows_));
  res_word_i.init(std::size_t(rows_));
  SC_METHOD(comb);
  sensitive << pre_pop_i << state_changed_;
  SC_METHOD(seq);
  sensitive << clk_i.pos();
  dont_initialize();
}

void PsumManager::load_rdata() {
  for (int i = 0; i < rows_; ++i) rdata_[i] = psum_rdata_i[std::size_t(i)].read();
  port_->load_rdata(rdata_);
}

void PsumManager::comb() {
  unclaimed_o.write(core_.unclaimed());
  busy_o.write(core_.busy());
  run_done_o.write(core_.run_done());
  const acc_t* w = core_.pre_word(pre_pop_i.read());
  for (int i = 0; i < rows_; ++i) pre_word_o[std::size_t(i)].write(w[i]);
  if (port_mode_) {
    // The SRAM request depends on registered state only (a pending result write wins, else a
    // preload read), so it is evaluated without this cycle's array inputs; eval() computes next
    // state and only tick() commits it.
    try {
      core_.eval(false, false, 0, res_buf_, *port_);
    } catch (const ProtocolError&) {
      // Reported by seq() at the edge with the settled inputs.
    }
    const bool req = port_->pending_read() || port_->pending_write();
    psum_req_o.write(req);
    psum_we_o.write(port_->pending_write());
    psum_addr_o.write(req ? std::uint32_t(port_->pending_addr()) : 0u);
    const word_elem_t* wd = port_->pending_wdata();
    for (int i = 0; i < rows_; ++i) psum_wdata_o[std::size_t(i)].write(port_->pending_write() ? wd[i] : 0u);
    psum_wmask_o.write(port_->pending_write() ? port_->pending_mask() : 0u);
    port_->drop_request();
  }
}

void PsumManager::seq() {
  try {
    if (!rst_ni.read()) {
      core_.reset();
    } else {
      if (start_i.read()) {
        RunDesc run;
        run.preload = run_preload_i.read();
        run.n_kg = run_n_kg_i.read();
        run.n_cy = run_n_cy_i.read();
        run.n_cx = run_n_cx_i.read();
        core_.start(run);
      }
      core_.set_claim(claim_i.read());
      const bool res_valid = res_valid_i.read();
      if (res_valid)
        for (int i = 0; i < rows_; ++i) res_buf_[i] = res_word_i[std::size_t(i)].read();
      if (port_mode_) load_rdata();
      core_.eval(pre_pop_i.read(), res_valid, res_col_i.read(), res_buf_, bank_);
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
