// Sequencer core: the EX engine's issue stage (docs/microarchitecture.md, section 9.4). Each cycle
// of a RUN it decides which token enters the PE array (FILL twice, SWAP0, a MAC step, or the last step
// of a context), enforces the window rules (COLS cycles between window tokens, preload words
// claimed before a window that needs them), and classifies every cycle it cannot issue.
#pragma once

#include <cstdint>

#include "hw/common/command.h"
#include "hw/common/hw_params.h"

namespace flycol::hw {

class SequencerCore {
public:
  enum class Phase : std::uint8_t { idle, fill, swap0, steps, drain };
  // Why a cycle of a RUN issued no MAC step (spec section 10); pool: a pooling RUN's element step
  // (section 16), whose waits for the pooling unit's divider are context stalls.
  enum class CycleKind : std::uint8_t { none, mac, feeder_stall, weight_stall, context_stall, pipeline, pool };

  struct In {
    bool lanes_ready = false;   // every feed lane has an element
    bool weight_ready = false;  // the weight FIFO has a word
    int unclaimed = 0;          // preload words in the queue not yet promised to a window
    bool pool_ready = false;    // the pooling unit takes the next elements (pooling RUN only)
  };
  struct Out {
    bool token_valid = false, token_swap = false, token_window = false;
    bool pop = false;         // pop one element from every lane (and in a pooling RUN feed the pooling unit)
    bool weight_pop = false;  // pop one weight word: pop in a convolution RUN, never in a pooling RUN
    bool claim = false;  // this window token takes COLS preload words from the SRAM queue
    CycleKind kind = CycleKind::none;
  };

  explicit SequencerCore(const HwParams& p);
  void reset();
  void start(const RunDesc& run);  // during eval of cycle t; the first token may issue in t+1
  bool busy() const { return phase_q_ != Phase::idle; }  // registered
  Phase phase() const { return phase_q_; }

  const Out& eval(const In& in);
  // The partial-sums manager wrote the RUN's last result in this cycle (before tick, which applies
  // and clears it).
  void finish() { finish_ = true; }
  void tick();

private:
  bool needs_sram_preload(std::uint32_t window) const { return preload_ && window < n_ctx_; }

  int cols_;
  // RUN registers
  bool preload_ = false, pool_ = false;
  std::uint32_t steps_per_ctx_ = 1, n_ctx_ = 1;
  // state
  Phase phase_q_ = Phase::idle, phase_d_ = Phase::idle;
  std::uint32_t step_q_ = 0, step_d_ = 0;
  std::uint32_t ctx_q_ = 0, ctx_d_ = 0;
  std::uint32_t win_q_ = 0, win_d_ = 0;   // window tokens issued in this RUN
  int gap_q_ = 0, gap_d_ = 0;             // cycles since the last window token, saturating at COLS
  bool start_pending_ = false;
  RunDesc start_run_;
  bool finish_ = false;
  Out out_;
};

}  // namespace flycol::hw
