// StructuralTop: instantiates the blocks (or the views chosen for them), the SRAM banks and the
// glue of flycol_top.sv (command split, SRAM multiplexers, the RUN register), and bridges the
// signal-level memory and command ports to the environment interfaces once per cycle.
#include "hw/top/structural_top.h"

#include <fmt/format.h>

#include "hw/common/protocol_error.h"

namespace flycol::hw {

template <class T> T* StructuralTop::own_module(const char* block, StructuralBlockViews* views) {
  if (views && views->make(block, *this)) return nullptr;
  auto m = std::make_unique<T>(fmt::format("u_{}", block).c_str(), p_);
  T* raw = m.get();
  blocks_.push_back(std::move(m));
  return raw;
}

StructuralTop::StructuralTop(sc_core::sc_module_name name, const HwParams& p, StructuralBlockViews* views)
    : sc_core::sc_module(name), p_(p), lane_data_("lane_data", std::size_t(p.rows)),
      weight_word_("weight_word", std::size_t(p.cols)), pre_word_("pre_word", std::size_t(p.rows)),
      res_word_("res_word", std::size_t(p.rows)), pool_word_("pool_word", std::size_t(p.rows)),
      fd_rdata_("fd_rdata", std::size_t(p.bus_elems)), wf_rdata_("wf_rdata", std::size_t(p.cols)),
      pm_rdata_("pm_rdata", std::size_t(p.rows)), pm_wdata_("pm_wdata", std::size_t(p.rows)) {
  const int width[3] = {p.bus_elems, p.cols, p.rows};
  const int depth[3] = {p.ifmap_depth, p.weight_depth, p.psum_depth};
  const char* kind[3] = {"ifmap", "weight", "psum"};
  for (int k = 0; k < 3; ++k) {
    dma_wdata_[k].init(std::size_t(width[k]));
    for (int b = 0; b < 2; ++b) {
      bank_wdata_[k][b] = std::make_unique<SigVec<word_elem_t>>(fmt::format("{}{}_wdata", kind[k], b).c_str(),
                                                                std::size_t(width[k]));
      bank_rdata_[k][b] = std::make_unique<SigVec<word_elem_t>>(fmt::format("{}{}_rdata", kind[k], b).c_str(),
                                                                std::size_t(width[k]));
      // The banks' names are the fast model's (statistics and error messages name them).
      banks_[k][b] = std::make_unique<SramBankModule>(fmt::format("u_{}{}", kind[k], b).c_str(),
                                                      fmt::format("{}_sram{}", kind[k], b), depth[k], width[k]);
      SramBankModule& m = *banks_[k][b];
      m.clk_i(clk_i);
      m.req_i(bank_req_[k][b]);
      m.we_i(bank_we_[k][b]);
      m.addr_i(bank_addr_[k][b]);
      bind_vec(m.wdata_i, *bank_wdata_[k][b]);
      m.wmask_i(bank_wmask_[k][b]);
      bind_vec(m.rdata_o, *bank_rdata_[k][b]);
    }
  }

  // Each block: the chosen view, or its SystemC module (port mode for the SRAM clients).
  if (auto* m = own_module<Controller>("controller", views)) bind_controller(*m);
  if (auto* m = own_module<Dma>("dma", views)) bind_dma(*m);
  if (auto* m = own_module<Sequencer>("sequencer", views)) bind_sequencer(*m);
  if (auto* m = own_module<Feeder>("feeder", views)) bind_feeder(*m, [m] { return m->core().sel_stall_cycles(); });
  if (auto* m = own_module<WeightFetcher>("weight_fetcher", views)) bind_weight_fetcher(*m);
  if (auto* m = own_module<PoolUnit>("pool_unit", views)) bind_pool_unit(*m);
  if (auto* m = own_module<Array>("array", views)) bind_array(*m, [m] { return m->gated_macs(); });
  if (auto* m = own_module<PsumManager>("psum_manager", views)) bind_psum_manager(*m);

  SC_METHOD(edge);
  sensitive << clk_i.pos();
  dont_initialize();
  SC_METHOD(mid);
  sensitive << clk_i.neg();
  dont_initialize();
  SC_METHOD(split_cmds);
  for (auto& s : start_cmd_) sensitive << s;
  SC_METHOD(sram_mux);
  sensitive << fd_req_ << fd_addr_ << wf_req_ << wf_addr_ << pm_req_ << pm_we_ << pm_addr_ << pm_wmask_
            << run_changed_;
  for (int k = 0; k < 3; ++k) {
    sensitive << dma_req_[k] << dma_we_[k] << dma_addr_[k] << dma_wmask_[k];
    for (auto& s : dma_wdata_[k]) sensitive << s;
  }
  for (auto& s : pm_wdata_) sensitive << s;
  SC_METHOD(rdata_mux);
  sensitive << run_changed_;
  for (int k = 0; k < 3; ++k)
    for (int b = 0; b < 2; ++b)
      for (auto& s : *bank_rdata_[k][b]) sensitive << s;
}

// ---- Glue (flycol_top.sv's assigns) ----------------------------------------------------------

void StructuralTop::split_cmds() {
  const Command& ld = start_cmd_[0].read();
  const Command& ex = start_cmd_[1].read();
  const Command& ps = start_cmd_[2].read();
  ld_cmd_.write(DmaCmd{ld.op, ld.dma});
  ps_cmd_.write(DmaCmd{ps.op, ps.dma});
  run_.write(ex.run);
  feeder_run_.write(FeederRun{ex.run});
}

void StructuralTop::sram_mux() {
  const int run_buf[3] = {run_q_.ifmap_buf & 1, run_q_.weight_buf & 1, run_q_.psum_buf & 1};
  const bool run_req[3] = {fd_req_.read(), wf_req_.read(), pm_req_.read()};
  const std::uint32_t run_addr[3] = {fd_addr_.read(), wf_addr_.read(), pm_addr_.read()};
  const bool run_we[3] = {false, false, pm_we_.read()};
  for (int k = 0; k < 3; ++k) {
    const unsigned dma = dma_req_[k].read();
    for (int b = 0; b < 2; ++b) {
      const bool by_dma = (dma >> b) & 1u;
      const bool by_run = run_req[k] && run_buf[k] == b;
      bank_req_[k][b].write(by_dma || by_run);
      bank_we_[k][b].write(by_dma ? dma_we_[k].read() : run_we[k]);
      bank_addr_[k][b].write(by_dma ? dma_addr_[k].read() : run_addr[k]);
      SigVec<word_elem_t>& wd = *bank_wdata_[k][b];
      for (std::size_t i = 0; i < wd.size(); ++i)
        wd[i].write(by_dma ? dma_wdata_[k][i].read() : (k == 2 ? pm_wdata_[i].read() : 0u));
      bank_wmask_[k][b].write(by_dma ? dma_wmask_[k].read() : (k == 2 ? pm_wmask_.read() : 0u));
    }
  }
}

void StructuralTop::rdata_mux() {
  SigVec<word_elem_t>* to[3] = {&fd_rdata_, &wf_rdata_, &pm_rdata_};
  const int run_buf[3] = {run_q_.ifmap_buf & 1, run_q_.weight_buf & 1, run_q_.psum_buf & 1};
  for (int k = 0; k < 3; ++k) {
    const SigVec<word_elem_t>& from = *bank_rdata_[k][run_buf[k]];
    for (std::size_t i = 0; i < to[k]->size(); ++i) (*to[k])[i].write(from[i].read());
  }
}

// ---- The clock edge: the end of a cycle -------------------------------------------------------

void StructuralTop::edge() {
  if (!rst_ni.read()) {
    cycle_ = 0;
    stats_ = AcceleratorStats{};
    mac_tokens_ = 0;
    for (auto& d : done_count_) d = 0;
    run_q_ = RunDesc{};
    ld_cmd_q_ = ps_cmd_q_ = Command{};
    in_cycle_ = false;
    run_changed_.notify(sc_core::SC_ZERO_TIME);
    return;
  }
  if (!in_cycle_) return;
  in_cycle_ = false;
  try {
    // The environment's side of the cycle that ends here, from the settled signals.
    if (cmd_valid_.read() && cmd_ready_.read()) (*cmd_port[0]).cmd_accepted();
    const bool fired = mem_req_valid_.read() && mem_req_ready_.read();
    MemReq req;
    if (fired) {
      req.write = mem_req_write_.read();
      req.addr = mem_req_addr_.read();
      req.bytes = mem_req_bytes_.read();
      beat_to_bytes(mem_req_wdata_.read(), req.wdata);
    }
    (*mem_port[0]).end_cycle(fired ? &req : nullptr);

    // Statistics, classified as AcceleratorCore::tick does (AcceleratorStats::count_cycle).
    stats_.count_cycle(eng_busy_[1].read(), SequencerCore::CycleKind(cycle_kind_.read()),
                       done_count_[int(Engine::EX)] < runs_expected_);
    if (tok_valid_.read()) ++mac_tokens_;
    check_buffer_ownership();

    // Top registers and the completion counters the harness watches.
    for (int e = 0; e < 3; ++e)
      if (eng_done_[std::size_t(e)].read()) ++done_count_[e];
    if (eng_start_[0].read()) ld_cmd_q_ = start_cmd_[0].read();
    if (eng_start_[2].read()) ps_cmd_q_ = start_cmd_[2].read();
    if (eng_start_[1].read()) {
      run_q_ = start_cmd_[1].read().run;
      run_changed_.notify(sc_core::SC_ZERO_TIME);
    }
  } catch (const ProtocolError& e) {
    SC_REPORT_ERROR(name(), e.what());
  }
  ++cycle_;
}

// The DMA engines must stay off the buffers the active RUN uses, and a STORE_PSUMS into ifmap
// buffer dst_buf (section 7.6) shares it with no RUN and no LOAD_IFMAP (AcceleratorCore checks the same).
void StructuralTop::check_buffer_ownership() const {
  if (eng_busy_[2].read() && ps_cmd_q_.dma.dst_ifmap) {
    const int dst = ps_cmd_q_.dma.dst_buf & 1;
    if (eng_busy_[1].read() && (run_q_.ifmap_buf & 1) == dst)
      protocol_error("accelerator", fmt::format("STORE_PSUMS writes ifmap buffer {} while a RUN reads it", dst));
    if (eng_busy_[0].read() && ld_cmd_q_.op == Opcode::LoadIfmap && (ld_cmd_q_.dma.buf & 1) == dst)
      protocol_error("accelerator", fmt::format("LOAD_IFMAP and STORE_PSUMS write ifmap buffer {} together", dst));
  }
  if (!eng_busy_[1].read()) return;
  if (eng_busy_[0].read()) {
    const bool ifmap = ld_cmd_q_.op == Opcode::LoadIfmap;
    const int used = ifmap ? run_q_.ifmap_buf : run_q_.weight_buf;
    if ((ld_cmd_q_.dma.buf & 1) == (used & 1))
      protocol_error("accelerator", fmt::format("{} writes {} buffer {} while a RUN reads it",
                                                opcode_name(ld_cmd_q_.op), ifmap ? "ifmap" : "weight", used));
  }
  if (eng_busy_[2].read() && (ps_cmd_q_.dma.buf & 1) == (run_q_.psum_buf & 1))
    protocol_error("accelerator", fmt::format("{} uses psum buffer {} while a RUN uses it",
                                              opcode_name(ps_cmd_q_.op), run_q_.psum_buf));
}

// ---- Half a period later: the start of the next cycle ------------------------------------------

// Every block has settled on the state the edge committed, so idle_o is glitch free, and the
// environment's Moore outputs for the new cycle are driven here. A cycle that would start idle
// with no command left is not begun: that is where the fast model stops too.
void StructuralTop::mid() {
  if (!rst_ni.read()) {
    idle_o.write(true);
    cmd_valid_.write(false);
    mem_req_ready_.write(false);
    mem_rsp_valid_.write(false);
    return;
  }
  CommandSourceIf& src = *cmd_port[0];
  const bool idle = ctrl_idle_.read();
  idle_o.write(idle);
  if (idle && !src.cmd_valid()) {
    cmd_valid_.write(false);
    mem_req_ready_.write(false);
    mem_rsp_valid_.write(false);
    return;
  }
  MemoryIf& mem = *mem_port[0];
  mem.begin_cycle(cycle_);
  mem_req_ready_.write(mem.req_ready());
  const bool rsp_valid = mem.rsp_valid();
  mem_rsp_valid_.write(rsp_valid);
  if (rsp_valid) {
    MemBeatBits bv;
    bytes_to_beat(mem.rsp().rdata, bv);
    mem_rsp_rdata_.write(bv);
  }
  const bool cmd_valid = src.cmd_valid();
  cmd_valid_.write(cmd_valid);
  if (cmd_valid) cmd_.write(src.cmd());
  in_cycle_ = true;
}

void StructuralTop::trace(sc_core::sc_trace_file* tf) const {
  using sc_core::sc_trace;
  sc_trace(tf, clk_i, "clk_i");
  sc_trace(tf, rst_ni, "rst_ni");
  sc_trace(tf, cmd_valid_, "cmd_valid");
  sc_trace(tf, cmd_ready_, "cmd_ready");
  sc_trace(tf, cmd_, "cmd");
  sc_trace(tf, ctrl_idle_, "idle");
  sc_trace(tf, mem_req_valid_, "mem_req_valid");
  sc_trace(tf, mem_req_ready_, "mem_req_ready");
  sc_trace(tf, mem_req_write_, "mem_req_write");
  sc_trace(tf, mem_req_addr_, "mem_req_addr");
  sc_trace(tf, mem_req_bytes_, "mem_req_bytes");
  sc_trace(tf, mem_rsp_valid_, "mem_rsp_valid");
  const char* eng[3] = {"ld", "ex", "ps"};
  for (int e = 0; e < 3; ++e) {
    sc_trace(tf, eng_start_[std::size_t(e)], fmt::format("{}_start", eng[e]));
    sc_trace(tf, eng_busy_[std::size_t(e)], fmt::format("{}_busy", eng[e]));
    sc_trace(tf, eng_done_[std::size_t(e)], fmt::format("{}_done", eng[e]));
  }
  sc_trace(tf, tok_valid_, "token_valid");
  sc_trace(tf, tok_swap_, "token_swap");
  sc_trace(tf, tok_window_, "token_window");
  sc_trace(tf, claim_, "claim");
  sc_trace(tf, pop_, "pop");
  sc_trace(tf, weight_pop_, "weight_pop");
  sc_trace(tf, pool_ready_, "pool_ready");
  sc_trace(tf, pool_valid_, "pool_valid");
  sc_trace(tf, cycle_kind_, "cycle_kind");
  sc_trace(tf, lanes_valid_, "lanes_valid");
  sc_trace(tf, has_word_, "weight_valid");
  sc_trace(tf, unclaimed_, "unclaimed");
  sc_trace(tf, pre_pop_, "pre_pop");
  sc_trace(tf, res_valid_, "res_valid");
  sc_trace(tf, res_col_, "res_col");
  const char* kind[3] = {"ifmap", "weight", "psum"};
  for (int k = 0; k < 3; ++k) {
    sc_trace(tf, dma_req_[k], fmt::format("dma_{}_req", kind[k]));
    for (int b = 0; b < 2; ++b) {
      sc_trace(tf, bank_req_[k][b], fmt::format("{}{}_req", kind[k], b));
      sc_trace(tf, bank_we_[k][b], fmt::format("{}{}_we", kind[k], b));
      sc_trace(tf, bank_addr_[k][b], fmt::format("{}{}_addr", kind[k], b));
    }
  }
}

AcceleratorStats StructuralTop::stats() const {
  AcceleratorStats s = stats_;
  s.mac_tokens = mac_tokens_;
  s.gated_macs = gated_macs_ ? gated_macs_() : 0;
  s.feeder_select_stalls = sel_stalls_ ? sel_stalls_() : 0;
  for (int k = 0; k < 3; ++k)
    for (int b = 0; b < 2; ++b) {
      s.sram_reads[k] += banks_[k][b]->bank().reads();
      s.sram_writes[k] += banks_[k][b]->bank().writes();
    }
  return s;
}

}  // namespace flycol::hw
