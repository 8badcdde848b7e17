// Controller core: command dispatch, dependency thresholds and completion counters.
#include "hw/controller/controller_core.h"

#include <fmt/format.h>

namespace flycol::hw {

ControllerCore::ControllerCore(const HwParams&)
    : queue_{Fifo<Command, kCmdQueueDepth>("controller.ld_queue"),
             Fifo<Command, kCmdQueueDepth>("controller.ex_queue"),
             Fifo<Command, kCmdQueueDepth>("controller.ps_queue")} {
  reset();
}

void ControllerCore::reset() {
  for (int e = 0; e < kEngines; ++e) {
    queue_[e].reset();
    done_q_[e] = dispatched_q_[e] = 0;
    done_pulse_[e] = false;
  }
  accept_ = false;
  out_ = Out{};
}

bool ControllerCore::idle(const bool engine_busy[kEngines]) const {
  for (int e = 0; e < kEngines; ++e)
    if (!queue_[e].empty() || engine_busy[e]) return false;
  return true;
}

const ControllerCore::Out& ControllerCore::eval(const In& in) {
  out_ = Out{};
  // Command port: ready when the named engine's queue has room (registered count).
  const Engine target = engine_of(in.cmd.op);
  out_.cmd_ready = !queue_[int(target)].full();
  accept_ = in.cmd_valid && out_.cmd_ready;
  accept_engine_ = target;
  // Every queue's request is set on every evaluation, so that a repeated eval() in one cycle with
  // another offered engine leaves no stale push behind.
  for (int e = 0; e < kEngines; ++e) queue_[e].set_push(accept_ && e == int(target), in.cmd);
  if (accept_) {
    // A wait on a command of an engine that has not even been dispatched yet can never be met:
    // engines run in order, so the stream would deadlock (spec section 5).
    const std::uint32_t waits[kEngines] = {in.cmd.wait_ld, in.cmd.wait_ex, in.cmd.wait_ps};
    for (int e = 0; e < kEngines; ++e)
      if (waits[e] > dispatched_q_[e])
        protocol_error("controller", fmt::format("{} waits for command {} of engine {} but only {} were dispatched",
                                                 opcode_name(in.cmd.op), waits[e], e, dispatched_q_[e]));
  }

  // Start rule: idle engine, non-empty queue, thresholds met against registered counters.
  for (int e = 0; e < kEngines; ++e) {
    bool go = false;
    if (!in.engine_busy[e] && !queue_[e].empty()) {
      const Command& h = queue_[e].front();
      go = done_q_[0] >= h.wait_ld && done_q_[1] >= h.wait_ex && done_q_[2] >= h.wait_ps;
      if (go) out_.start_cmd[e] = h;
    }
    out_.start[e] = go;
    queue_[e].set_pop(go);
  }
  out_.idle = idle(in.engine_busy);
  return out_;
}

void ControllerCore::tick() {
  for (int e = 0; e < kEngines; ++e) {
    if (done_pulse_[e]) ++done_q_[e];
    done_pulse_[e] = false;
    queue_[e].tick();
  }
  if (accept_) ++dispatched_q_[int(accept_engine_)];
  accept_ = false;
}

}  // namespace flycol::hw
