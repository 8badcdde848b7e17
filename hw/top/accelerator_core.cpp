// Accelerator core: the per-cycle evaluation order of the blocks and the glue between them.
#include "hw/top/accelerator_core.h"

#include <fmt/format.h>

#include "hw/common/protocol_error.h"

namespace flycol::hw {

AcceleratorCore::AcceleratorCore(const HwParams& p)
    : p_(p), ctrl_(p), arb_(), ld_(p), ps_(p), seq_(p), feeder_(p), wf_(p), array_(p), pm_(p), pool_(p) {
  for (int b = 0; b < 2; ++b) {
    ifmap_[b] = std::make_unique<SramBank>(fmt::format("ifmap_sram{}", b), p.ifmap_depth, p.bus_elems);
    weights_[b] = std::make_unique<SramBank>(fmt::format("weight_sram{}", b), p.weight_depth, p.cols);
    psums_[b] = std::make_unique<SramBank>(fmt::format("psum_sram{}", b), p.psum_depth, p.rows);
    ifmap_ptrs_[b] = ifmap_[b].get();
    weight_ptrs_[b] = weights_[b].get();
    psum_ptrs_[b] = psums_[b].get();
  }
  reset();
}

AcceleratorCore::~AcceleratorCore() = default;

void AcceleratorCore::reset() {
  ctrl_.reset();
  arb_.reset();
  ld_.reset();
  ps_.reset();
  seq_.reset();
  feeder_.reset();
  wf_.reset();
  array_.reset();
  pm_.reset();
  pool_.reset();
  run_q_ = run_d_ = RunDesc{};
  ld_cmd_q_ = ld_cmd_d_ = ps_cmd_q_ = ps_cmd_d_ = Command{};
  stats_ = AcceleratorStats{};
  kind_ = SequencerCore::CycleKind::none;
}

bool AcceleratorCore::engine_busy(int e) const {
  switch (e) {
    case 0: return ld_.busy();
    case 1: return seq_.busy();
    default: return ps_.busy();
  }
}

bool AcceleratorCore::idle() const {
  const bool busy[3] = {engine_busy(0), engine_busy(1), engine_busy(2)};
  return ctrl_.idle(busy);
}

SramBank& AcceleratorCore::bank(int which, int buffer) {
  std::unique_ptr<SramBank>* set = which == 0 ? ifmap_ : (which == 1 ? weights_ : psums_);
  return *set[buffer & 1];
}

const AcceleratorCore::Out& AcceleratorCore::eval(const In& in) {
  // 1. Controller: command port and engine starts (against registered engine state).
  ControllerCore::In ci;
  ci.cmd_valid = in.cmd_valid;
  ci.cmd = in.cmd;
  for (int e = 0; e < 3; ++e) ci.engine_busy[e] = engine_busy(e);
  const ControllerCore::Out& co = ctrl_.eval(ci);
  run_d_ = run_q_;
  ld_cmd_d_ = ld_cmd_q_;
  ps_cmd_d_ = ps_cmd_q_;
  if (co.start[int(Engine::LD)]) {
    ld_.start(co.start_cmd[int(Engine::LD)]);
    ld_cmd_d_ = co.start_cmd[int(Engine::LD)];
  }
  if (co.start[int(Engine::PS)]) {
    ps_.start(co.start_cmd[int(Engine::PS)]);
    ps_cmd_d_ = co.start_cmd[int(Engine::PS)];
  }
  if (co.start[int(Engine::EX)]) {
    const RunDesc& r = co.start_cmd[int(Engine::EX)].run;
    seq_.start(r);
    feeder_.start(r);
    wf_.start(r);
    pm_.start(r);
    pool_.start(r);
    run_d_ = r;
  }

  // 2. Memory arbiter and the DMA engines; the PS engine after the LD engine, whose ifmap write
  // has the ifmap port before a store into the ifmap buffer (section 7.6).
  arb_.eval(ld_.req_valid(), ld_.req(), ps_.req_valid(), ps_.req(), in.mem_req_ready, in.mem_rsp_valid);
  ld_.eval(arb_.fired(0), arb_.rsp_to() == 0 ? &in.mem_rsp : nullptr, ifmap_ptrs_, weight_ptrs_);
  ps_.eval(arb_.fired(1), arb_.rsp_to() == 1 ? &in.mem_rsp : nullptr, psum_ptrs_, ifmap_ptrs_, ld_.writes_ifmap());

  // 3. Issue stage: the token of this cycle, from the lanes, the weight FIFO and the preload queue.
  SequencerCore::In si;
  si.lanes_ready = feeder_.all_lanes_have_elem();
  si.weight_ready = wf_.has_word();
  si.unclaimed = pm_.unclaimed();
  si.pool_ready = pool_.ready();
  const SequencerCore::Out& so = seq_.eval(si);
  kind_ = so.kind;
  token_.valid = so.token_valid;
  token_.swap = so.token_swap;
  token_.window = so.token_window;
  elem_t heads[kMaxRows];
  for (int r = 0; r < p_.rows; ++r) heads[r] = feeder_.lane_elem(r);
  if (so.token_valid) {
    for (int r = 0; r < p_.rows; ++r) token_.a[r] = heads[r];
    const elem_t* w = wf_.word();
    for (int c = 0; c < p_.cols; ++c) token_.w[c] = w[c];
  }
  feeder_.set_pop(so.pop);
  wf_.set_pop(so.weight_pop);
  pm_.set_claim(so.claim);
  // The pooling unit takes the popped elements in a pooling RUN (section 16).
  pool_.eval(so.pop, heads);

  // 4. The RUN's readers of the ifmap and weight SRAMs.
  feeder_.eval(*ifmap_ptrs_[run_q_.ifmap_buf & 1]);
  wf_.eval(*weight_ptrs_[run_q_.weight_buf & 1]);

  // 5. PE array and partial-sums manager (whole preload/result words at the array's edge).
  const bool pre_pop = array_.pre_pop();
  array_.eval(&token_, pm_.pre_word(pre_pop));
  pm_.eval(pre_pop, array_.res_valid(), array_.res_col(), array_.res_word(), pool_.res_valid(), pool_.res_word(),
           *psum_ptrs_[run_q_.psum_buf & 1]);

  // 6. Completions of this cycle.
  if (pm_.run_done()) {
    seq_.finish();
    ctrl_.note_done(Engine::EX);
  }
  if (ld_.done()) ctrl_.note_done(Engine::LD);
  if (ps_.done()) ctrl_.note_done(Engine::PS);

  check_buffer_ownership(ld_.busy() ? &ld_cmd_q_ : nullptr, ps_.busy() ? &ps_cmd_q_ : nullptr);

  out_.cmd_ready = co.cmd_ready;
  out_.mem_req_valid = arb_.mem_req_valid();
  out_.mem_req = arb_.mem_req();
  out_.idle = co.idle;
  for (int e = 0; e < 3; ++e) out_.done_count[e] = ctrl_.done_count(Engine(e));
  out_.run_active = seq_.busy();
  out_.cycle_kind = kind_;
  out_.gated = array_.gated_pin();
  return out_;
}

void AcceleratorCore::check_buffer_ownership(const Command* ld_cmd, const Command* ps_cmd) const {
  // The wait thresholds must keep a DMA engine off the buffers the active RUN uses; a compiler
  // bug here would otherwise silently corrupt data. A STORE_PSUMS into ifmap buffer dst_buf
  // (section 7.6) writes it: no RUN may read it and no LOAD_IFMAP write it meanwhile.
  if (ps_cmd && ps_cmd->dma.dst_ifmap) {
    const int dst = ps_cmd->dma.dst_buf & 1;
    if (seq_.busy() && (run_q_.ifmap_buf & 1) == dst)
      protocol_error("accelerator", fmt::format("STORE_PSUMS writes ifmap buffer {} while a RUN reads it", dst));
    if (ld_cmd && ld_cmd->op == Opcode::LoadIfmap && (ld_cmd->dma.buf & 1) == dst)
      protocol_error("accelerator", fmt::format("LOAD_IFMAP and STORE_PSUMS write ifmap buffer {} together", dst));
  }
  if (!seq_.busy()) return;
  if (ld_cmd) {
    const bool ifmap = ld_cmd->op == Opcode::LoadIfmap;
    const int used = ifmap ? run_q_.ifmap_buf : run_q_.weight_buf;
    if ((ld_cmd->dma.buf & 1) == (used & 1))
      protocol_error("accelerator", fmt::format("{} writes {} buffer {} while a RUN reads it",
                                                opcode_name(ld_cmd->op), ifmap ? "ifmap" : "weight", used));
  }
  if (ps_cmd && (ps_cmd->dma.buf & 1) == (run_q_.psum_buf & 1))
    protocol_error("accelerator", fmt::format("{} uses psum buffer {} while a RUN uses it",
                                              opcode_name(ps_cmd->op), run_q_.psum_buf));
}

void AcceleratorStats::count_cycle(bool run_active, SequencerCore::CycleKind kind, bool runs_to_come) {
  if (!run_active) {
    ++(runs_to_come ? dram_stall : tail);
    return;
  }
  ++run_cycles;
  switch (kind) {
    case SequencerCore::CycleKind::mac: ++mac_cycles; break;
    case SequencerCore::CycleKind::feeder_stall: ++feeder_stall; break;
    case SequencerCore::CycleKind::weight_stall: ++weight_stall; break;
    case SequencerCore::CycleKind::context_stall: ++context_stall; break;
    case SequencerCore::CycleKind::pipeline: ++pipeline; break;
    case SequencerCore::CycleKind::pool: ++pool_cycles; break;
    case SequencerCore::CycleKind::none: break;
  }
}

void AcceleratorCore::tick() {
  stats_.count_cycle(seq_.busy(), kind_, ctrl_.done_count(Engine::EX) < runs_expected_);
  ctrl_.tick();
  arb_.tick();
  ld_.tick();
  ps_.tick();
  seq_.tick();
  feeder_.tick();
  wf_.tick();
  array_.tick();
  pm_.tick();
  pool_.tick();
  for (int b = 0; b < 2; ++b) {
    ifmap_[b]->tick();
    weights_[b]->tick();
    psums_[b]->tick();
  }
  run_q_ = run_d_;
  ld_cmd_q_ = ld_cmd_d_;
  ps_cmd_q_ = ps_cmd_d_;
}

AcceleratorStats AcceleratorCore::stats() const {
  AcceleratorStats s = stats_;
  s.mac_tokens = array_.mac_tokens();
  s.gated_macs = array_.gated_macs();
  s.feeder_select_stalls = feeder_.sel_stall_cycles();
  for (int b = 0; b < 2; ++b) {
    s.sram_reads[0] += ifmap_[b]->reads();
    s.sram_writes[0] += ifmap_[b]->writes();
    s.sram_reads[1] += weights_[b]->reads();
    s.sram_writes[1] += weights_[b]->writes();
    s.sram_reads[2] += psums_[b]->reads();
    s.sram_writes[2] += psums_[b]->writes();
  }
  return s;
}

}  // namespace flycol::hw
