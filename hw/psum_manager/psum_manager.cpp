// SystemC wrapper of PsumManagerCore: Moore outputs and the Mealy preload word from the core's
// getters, one eval()+tick() per rising edge; protocol violations become SC_REPORT_ERROR.
#include "hw/psum_manager/psum_manager.h"

#include "hw/common/protocol_error.h"

namespace flycol::hw {

PsumManager::PsumManager(sc_core::sc_module_name name, const HwParams& p, SramBank& psum_bank)
    : sc_core::sc_module(name), rows_(p.rows), bank_(psum_bank), core_(p) {
  pre_word_o.init(std::size_t(rows_));
  res_word_i.init(std::size_t(rows_));
  SC_METHOD(comb);
  sensitive << pre_pop_i << state_changed_;
  SC_METHOD(seq);
  sensitive << clk_i.pos();
  dont_initialize();
}

void PsumManager::comb() {
  unclaimed_o.write(core_.unclaimed());
  busy_o.write(core_.busy());
  run_done_o.write(core_.run_done());
  const acc_t* w = core_.pre_word(pre_pop_i.read());
  for (int i = 0; i < rows_; ++i) pre_word_o[std::size_t(i)].write(w[i]);
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
      core_.eval(pre_pop_i.read(), res_valid, res_col_i.read(), res_buf_, bank_);
      core_.tick();
      bank_.tick();
    }
  } catch (const ProtocolError& e) {
    SC_REPORT_ERROR(name(), e.what());
  }
  state_changed_.notify(sc_core::SC_ZERO_TIME);
}

}  // namespace flycol::hw
