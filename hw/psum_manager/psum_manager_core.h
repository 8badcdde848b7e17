// Partial-sums manager core (docs/microarchitecture.md, section 9.6, without the skew line and the
// de-skew registers, which belong to the array block): the preload queue filled from the psum SRAM
// and its claims, the result queue and the single SRAM port shared by result writes and preload reads.
#pragma once

#include <cstdint>

#include "hw/common/command.h"
#include "hw/common/fifo.h"
#include "hw/common/hw_params.h"
#include "hw/common/sram_bank.h"

namespace flycol::hw {

class PsumManagerCore {
public:
  explicit PsumManagerCore(const HwParams& p);
  void reset();

  // Input of cycle t (before or after eval()); latched at the edge, preload reads may begin in t+1.
  // Starting while busy() is a protocol error.
  void start(const RunDesc& run);

  // Moore: preload words in the queue not yet promised to a window (the issue stage's condition).
  int unclaimed() const { return pq_.count() - claimed_q_; }
  // Input of this cycle (before or after eval()): the issue stage issues a window token that takes
  // SRAM preload; COLS more words are claimed at the edge. Needs unclaimed() >= COLS.
  void set_claim(bool en) { claim_req_ = en; }

  // The word the array takes this cycle: the preload-queue head if it pops (array_pre_pop) in a
  // window that takes SRAM preload, else zeros. ROWS elements.
  const acc_t* pre_word(bool array_pre_pop) const;

  // One cycle: preload pop, result capture, the SRAM port operation (write the result-queue head,
  // else read the next preload word if there is room), push of last cycle's read data.
  // res_word holds ROWS elements and is read only when res_valid. In a pooling RUN (section 16) the
  // results come from the pooling unit instead: pool_word (ROWS elements) when pool_valid, one
  // word per window in the unit's order; the array's result port must then stay quiet.
  void eval(bool array_pre_pop, bool res_valid, int res_col, const acc_t* res_word, bool pool_valid,
            const acc_t* pool_word, SramBank& psum_bank);
  void tick();

  // Moore: a RUN is active and not all of its result words are written yet.
  bool busy() const { return active_q_; }
  // Moore: this cycle writes the RUN's last result word (the RUN completes in this cycle).
  bool run_done() const { return active_q_ && !rq_.empty() && written_q_ + 1 == total_q_; }

  // Statistics: SRAM reads and writes since reset; result words written by the current (or last) RUN.
  std::uint64_t sram_reads() const { return sram_reads_; }
  std::uint64_t sram_writes() const { return sram_writes_; }
  std::uint64_t results_written() const { return written_q_; }

private:
  void clear_progress();

  struct PWord {
    acc_t e[kMaxRows];
  };
  struct Result {
    int addr;
    acc_t e[kMaxRows];
  };

  // Psum buffer address of context (g, cy, cx), column col (section 4).
  int address(std::uint32_t g, int col, std::uint32_t cy, std::uint32_t cx) const;
  // Next context in (g, cy, cx) order; returns true when (g, cy, cx) was the last one.
  bool next_context(std::uint32_t& g, std::uint32_t& cy, std::uint32_t& cx) const;

  int rows_, cols_, pqd_, depth_;
  std::uint64_t mask_;
  Fifo<PWord, 2 * kMaxCols> pq_{"psum_manager.preload_queue"};
  Fifo<Result, kResultQueueDepth> rq_{"psum_manager.result_queue", kResultQueueDepth};
  acc_t zero_word_[kMaxRows]{};

  // RUN, loaded at start.
  bool active_q_ = false, preload_q_ = false, pool_q_ = false;
  std::uint32_t n_c_q_ = 0, n_kg_q_ = 0, n_cy_q_ = 0, n_cx_q_ = 0, n_ctx_q_ = 0, total_q_ = 0;
  // Preload reads: context (rd_g, rd_cy, rd_cx), column rd_col counting down.
  bool rd_left_q_ = false, inflight_q_ = false;
  std::uint32_t rd_g_q_ = 0, rd_cy_q_ = 0, rd_cx_q_ = 0;
  int rd_col_q_ = 0;
  // Claims: words promised to issued windows and not yet popped; windows claimed so far.
  int claimed_q_ = 0;
  std::uint32_t claims_q_ = 0;
  // Preload side: window index and pop within it.
  std::uint32_t pre_win_q_ = 0;
  int pre_j_q_ = 0;
  // Result side: window index, word within it, and the context of window res_win - 3. A pooling
  // RUN counts its result words in res_g (the channel c), res_cx and res_cy instead.
  std::uint32_t res_win_q_ = 0, res_g_q_ = 0, res_cy_q_ = 0, res_cx_q_ = 0;
  int res_j_q_ = 0;
  std::uint32_t written_q_ = 0;

  bool active_d_ = false, rd_left_d_ = false, inflight_d_ = false;
  std::uint32_t rd_g_d_ = 0, rd_cy_d_ = 0, rd_cx_d_ = 0;
  int rd_col_d_ = 0, claimed_d_ = 0;
  std::uint32_t pre_win_d_ = 0;
  int pre_j_d_ = 0;
  std::uint32_t res_win_d_ = 0, res_g_d_ = 0, res_cy_d_ = 0, res_cx_d_ = 0;
  int res_j_d_ = 0;
  std::uint32_t written_d_ = 0;
  bool read_d_ = false, write_d_ = false;  // this cycle's port operation, for the statistics

  bool claim_req_ = false;
  bool start_req_ = false;
  RunDesc start_run_;

  std::uint64_t sram_reads_ = 0, sram_writes_ = 0;
};

}  // namespace flycol::hw
