// Sequencer core: token selection and window rules of the issue stage.
#include "hw/sequencer/sequencer_core.h"

#include "hw/common/protocol_error.h"

namespace flycol::hw {

SequencerCore::SequencerCore(const HwParams& p) : cols_(p.cols) { reset(); }

void SequencerCore::reset() {
  phase_q_ = phase_d_ = Phase::idle;
  step_q_ = step_d_ = ctx_q_ = ctx_d_ = win_q_ = win_d_ = 0;
  preload_ = pool_ = false;
  gap_q_ = gap_d_ = cols_;
  start_pending_ = finish_ = false;
  out_ = Out{};
}

void SequencerCore::start(const RunDesc& run) {
  if (phase_q_ != Phase::idle) protocol_error("sequencer", "RUN started while a RUN is active");
  start_pending_ = true;
  start_run_ = run;
}

const SequencerCore::Out& SequencerCore::eval(const In& in) {
  out_ = Out{};
  phase_d_ = phase_q_;
  step_d_ = step_q_;
  ctx_d_ = ctx_q_;
  win_d_ = win_q_;
  gap_d_ = gap_q_ < cols_ ? gap_q_ + 1 : gap_q_;

  const bool window_ok = gap_q_ >= cols_ && (!needs_sram_preload(win_q_) || in.unclaimed >= cols_);
  auto issue_window = [&]() {
    out_.token_window = true;
    out_.claim = needs_sram_preload(win_q_);
    win_d_ = win_q_ + 1;
    gap_d_ = 1;
  };

  switch (phase_q_) {
    case Phase::idle:
      break;
    case Phase::fill:  // windows 0 and 1 fill reserve banks 0 and 1
      out_.kind = CycleKind::pipeline;
      if (window_ok) {
        if (win_q_ != 0) phase_d_ = Phase::swap0;
        issue_window();
      }
      break;
    case Phase::swap0:
      out_.kind = CycleKind::pipeline;
      if (window_ok) {
        issue_window();
        out_.token_swap = true;
        phase_d_ = Phase::steps;
      }
      break;
    case Phase::steps: {
      if (pool_) {  // section 16: element steps for the pooling unit, no token
        if (!in.lanes_ready) {
          out_.kind = CycleKind::feeder_stall;
        } else if (!in.pool_ready) {
          out_.kind = CycleKind::context_stall;
        } else {
          out_.kind = CycleKind::pool;
          out_.pop = true;
          if (step_q_ + 1 < steps_per_ctx_) {
            step_d_ = step_q_ + 1;
          } else {
            step_d_ = 0;
            ctx_d_ = ctx_q_ + 1;
            if (ctx_d_ == n_ctx_) phase_d_ = Phase::drain;  // the RUN's last element
          }
        }
        break;
      }
      if (!in.lanes_ready) {
        out_.kind = CycleKind::feeder_stall;
        break;
      }
      if (!in.weight_ready) {
        out_.kind = CycleKind::weight_stall;
        break;
      }
      const bool last = step_q_ + 1 == steps_per_ctx_;
      if (last && !window_ok) {
        out_.kind = CycleKind::context_stall;
        break;
      }
      out_.kind = CycleKind::mac;
      out_.token_valid = true;
      out_.pop = true;
      out_.weight_pop = true;
      if (!last) {
        step_d_ = step_q_ + 1;
        break;
      }
      out_.token_swap = true;
      issue_window();
      step_d_ = 0;
      ctx_d_ = ctx_q_ + 1;
      if (ctx_q_ + 1 == n_ctx_) phase_d_ = Phase::drain;
      break;
    }
    case Phase::drain:
      out_.kind = CycleKind::pipeline;
      break;
  }
  return out_;
}

void SequencerCore::tick() {
  phase_q_ = phase_d_;
  step_q_ = step_d_;
  ctx_q_ = ctx_d_;
  win_q_ = win_d_;
  gap_q_ = gap_d_;
  if (finish_) {
    if (phase_q_ != Phase::drain) protocol_error("sequencer", "results finished before the last step was issued");
    phase_q_ = Phase::idle;
  }
  if (start_pending_) {
    preload_ = start_run_.preload;
    pool_ = start_run_.pooling();
    steps_per_ctx_ = start_run_.steps_per_context();
    n_ctx_ = start_run_.contexts();
    if (steps_per_ctx_ == 0 || n_ctx_ == 0) protocol_error("sequencer", "RUN with no steps or no contexts");
    if (pool_ && (preload_ || start_run_.n_kg != 1))
      protocol_error("sequencer", "pooling RUN with preload or more than one output-channel group");
    phase_q_ = pool_ ? Phase::steps : Phase::fill;
    step_q_ = ctx_q_ = win_q_ = 0;
    gap_q_ = cols_;
    start_pending_ = false;
  }
  finish_ = false;
}

}  // namespace flycol::hw
