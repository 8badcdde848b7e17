// Controller core (docs/microarchitecture.md, section 5): accepts commands from the command port,
// dispatches each to the in-order queue of its engine (LD, EX, PS), starts the head command of an
// idle engine once its wait thresholds are met, and counts completed commands per engine.
#pragma once

#include <cstdint>

#include "hw/common/command.h"
#include "hw/common/fifo.h"
#include "hw/common/hw_params.h"

namespace flycol::hw {

class ControllerCore {
public:
  static constexpr int kEngines = 3;

  struct In {
    bool cmd_valid = false;
    Command cmd;
    bool engine_busy[kEngines] = {false, false, false};  // registered state of the engines
  };
  struct Out {
    bool cmd_ready = false;
    bool start[kEngines] = {false, false, false};
    Command start_cmd[kEngines];
    bool idle = false;  // all queues empty and all engines idle (Moore)
  };

  explicit ControllerCore(const HwParams& p);
  void reset();

  // Combinational: the port's ready depends on which engine the offered command names.
  const Out& eval(const In& in);
  // Engine e completes its command in this cycle: call before tick() (tick applies and clears it).
  void note_done(Engine e) { done_pulse_[int(e)] = true; }
  void tick();

  bool idle(const bool engine_busy[kEngines]) const;
  std::uint32_t done_count(Engine e) const { return done_q_[int(e)]; }
  std::uint32_t dispatched_count(Engine e) const { return dispatched_q_[int(e)]; }
  int queue_count(Engine e) const { return queue_[int(e)].count(); }

private:
  Fifo<Command, kCmdQueueDepth> queue_[kEngines];
  std::uint32_t done_q_[kEngines] = {0, 0, 0};
  std::uint32_t dispatched_q_[kEngines] = {0, 0, 0};
  bool done_pulse_[kEngines] = {false, false, false};
  bool accept_ = false;
  Engine accept_engine_ = Engine::LD;
  Out out_;
};

}  // namespace flycol::hw
