// SystemC wrapper of PsumManagerCore: Moore outputs and the Mealy preload word from the core's
// getters, one eval()+tick() per rising edge; protocol violations become SC_REPORT_ERROR.
#include "hw/psum_manager/psum_manager.h"

#include "hw/common/protocol_error.h"

namespace flycol::hw {

PsumManager::PsumManager(sc_core::sc_module_name name, const HwParams& p, SramBank& psum_bank)
    : ScCoreModule(name, p), rows_(p.rows), sram_(psum_bank) {
  sram_.bind_unused(psum_req_o, psum_we_o, psum_addr_o, psum_wmask_o);
  init();
}

PsumManager::PsumManager(sc_core::sc_module_name name, const HwParams& p)
    : ScCoreModule(name, p), rows_(p.rows), sram_("psum_port", p.psum_depth, p.rows) {
  psum_wdata_o.init(std::size_t(rows_));
  psum_rdata_i.init(std::size_t(rows_));
  init();
}

void PsumManager::init() {
  pre_word_o.init(std::size_t(rows_));
  res_word_i.init(std::size_t(rows_));
  pool_word_i.init(std::size_t(rows_));
  processes(pre_pop_i);
}

void PsumManager::comb() {
  unclaimed_o.write(core_.unclaimed());
  busy_o.write(core_.busy());
  run_done_o.write(core_.run_done());
  const acc_t* w = core_.pre_word(pre_pop_i.read());
  for (int i = 0; i < rows_; ++i) pre_word_o[std::size_t(i)].write(w[i]);
  if (sram_.port_mode()) {
    // The SRAM request depends on registered state only (a pending result write wins, else a
    // preload read), so it is evaluated without this cycle's array inputs; eval() computes next
    // state and only tick() commits it.
    SramBank& port = sram_.port();
    try {
      core_.eval(false, false, 0, res_buf_, false, pool_buf_, port);
    } catch (const ProtocolError&) {
      // Reported by seq() at the edge with the settled inputs.
    }
    const bool req = port.pending_read() || port.pending_write();
    psum_req_o.write(req);
    psum_we_o.write(port.pending_write());
    psum_addr_o.write(req ? std::uint32_t(port.pending_addr()) : 0u);
    const word_elem_t* wd = port.pending_wdata();
    for (int i = 0; i < rows_; ++i) psum_wdata_o[std::size_t(i)].write(port.pending_write() ? wd[i] : 0u);
    psum_wmask_o.write(port.pending_write() ? port.pending_mask() : 0u);
    port.drop_request();
  }
}

void PsumManager::seq() {
  clock([&] {
    if (start_i.read()) core_.start(read_run());
    core_.set_claim(claim_i.read());
    const bool res_valid = res_valid_i.read();
    if (res_valid)
      for (int i = 0; i < rows_; ++i) res_buf_[i] = res_word_i[std::size_t(i)].read();
    if (sram_.port_mode()) sram_.load_rdata(psum_rdata_i);
    const bool pool_valid = pool_valid_i.read();
    if (pool_valid)
      for (int i = 0; i < rows_; ++i) pool_buf_[i] = pool_word_i[std::size_t(i)].read();
    core_.eval(pre_pop_i.read(), res_valid, res_col_i.read(), res_buf_, pool_valid, pool_buf_, sram_.bank());
    core_.tick();
    sram_.end_edge();
  });
}

}  // namespace flycol::hw
