// Weight fetcher core (docs/microarchitecture.md, section 9.3): streams the weight words of a RUN
// from the weight SRAM into the weight FIFO in MAC-step order, one read per cycle while the FIFO
// and the reads in flight leave room, so the issue stage can pop one row of COLS weights a cycle.
#pragma once

#include <cstdint>

#include "hw/common/command.h"
#include "hw/common/fifo.h"
#include "hw/common/hw_params.h"
#include "hw/common/sram_bank.h"

namespace flycol::hw {

class WeightFetcherCore {
public:
  explicit WeightFetcherCore(const HwParams& p);
  void reset();

  // Input of cycle t (may come before or after eval()); the RUN's registers load at the edge, so
  // the first read is in cycle t+1. Starting while busy() or with words left in the FIFO is a
  // protocol error. A pooling RUN (run.pool_op != 0) reads nothing.
  void start(const RunDesc& run);

  // Moore outputs.
  bool busy() const { return reads_left_q_ || inflight_q_; }
  bool has_word() const { return !wfifo_.empty(); }
  const elem_t* word() const { return wfifo_.empty() ? zero_word_ : wfifo_.front().e; }

  // The issue stage takes the FIFO head this cycle (applied at the edge; popping an empty FIFO is a
  // protocol error).
  void set_pop(bool en) { wfifo_.set_pop(en); }

  // This cycle's read of the weight bank (client kCompute) and the push of last cycle's read data.
  void eval(SramBank& weight_bank);
  void tick();

  // Statistics.
  std::uint64_t sram_reads() const { return sram_reads_; }

private:
  struct Word {
    elem_t e[kMaxCols];
  };

  int cols_, depth_;
  Fifo<Word, kWeightFifoDepth> wfifo_{"weight_fetcher.wfifo", kWeightFifoDepth};
  elem_t zero_word_[kMaxCols]{};

  // RUN shape, loaded at start.
  std::uint32_t len_q_ = 0, n_cx_q_ = 0, n_cy_q_ = 0, n_kg_q_ = 0;
  // Read walk: word base_q_ + step_q_, base_q_ = g_q_ * len_q_.
  std::uint32_t step_q_ = 0, cx_q_ = 0, cy_q_ = 0, g_q_ = 0, base_q_ = 0;
  bool reads_left_q_ = false, inflight_q_ = false;

  std::uint32_t step_d_ = 0, cx_d_ = 0, cy_d_ = 0, g_d_ = 0, base_d_ = 0;
  bool reads_left_d_ = false, inflight_d_ = false;

  bool start_req_ = false;
  RunDesc start_run_;

  std::uint64_t sram_reads_ = 0;
  bool read_d_ = false;  // a read is issued this cycle (for the statistics at the edge)
};

}  // namespace flycol::hw
