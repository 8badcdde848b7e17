// Partial-sums manager core: window bookkeeping on the preload and result sides (the array only
// signals pops and results; the manager counts COLS of each per window), the claim check, and the
// psum SRAM port where result writes win over preload reads. Register-transfer style like the RTL.
#include "hw/psum_manager/psum_manager_core.h"

#include <string>

#include "hw/common/protocol_error.h"

namespace flycol::hw {

namespace {
constexpr const char* kBlock = "psum_manager";
}

PsumManagerCore::PsumManagerCore(const HwParams& p)
    : rows_(p.rows), cols_(p.cols), pqd_(p.preload_queue_depth()), depth_(p.psum_depth),
      mask_(p.rows >= 64 ? ~std::uint64_t(0) : (std::uint64_t(1) << p.rows) - 1) {
  if (rows_ < 1 || rows_ > kMaxRows) protocol_error(kBlock, "ROWS out of range");
  if (cols_ < 1 || cols_ > kMaxCols) protocol_error(kBlock, "COLS out of range");
  pq_.configure(pqd_);
  reset();
}

// The RUN's progress registers as a new RUN (or reset) finds them; rd_col_q_ is set by the caller.
void PsumManagerCore::clear_progress() {
  rd_g_q_ = rd_cy_q_ = rd_cx_q_ = 0;
  claimed_q_ = 0;
  claims_q_ = 0;
  pre_win_q_ = 0;
  pre_j_q_ = 0;
  res_win_q_ = res_g_q_ = res_cy_q_ = res_cx_q_ = 0;
  res_j_q_ = 0;
  written_q_ = 0;
}

void PsumManagerCore::reset() {
  pq_.reset();
  rq_.reset();
  active_q_ = preload_q_ = pool_q_ = false;
  n_c_q_ = n_kg_q_ = n_cy_q_ = n_cx_q_ = n_ctx_q_ = total_q_ = 0;
  rd_left_q_ = inflight_q_ = false;
  clear_progress();
  rd_col_q_ = 0;
  active_d_ = rd_left_d_ = inflight_d_ = false;
  rd_g_d_ = rd_cy_d_ = rd_cx_d_ = 0;
  rd_col_d_ = claimed_d_ = 0;
  pre_win_d_ = 0;
  pre_j_d_ = 0;
  res_win_d_ = res_g_d_ = res_cy_d_ = res_cx_d_ = 0;
  res_j_d_ = 0;
  written_d_ = 0;
  read_d_ = write_d_ = false;
  claim_req_ = start_req_ = false;
  sram_reads_ = sram_writes_ = 0;
}

int PsumManagerCore::address(std::uint32_t g, int col, std::uint32_t cy, std::uint32_t cx) const {
  return int(((g * std::uint32_t(cols_) + std::uint32_t(col)) * n_cy_q_ + cy) * n_cx_q_ + cx);
}

bool PsumManagerCore::next_context(std::uint32_t& g, std::uint32_t& cy, std::uint32_t& cx) const {
  if (cx + 1 < n_cx_q_) {
    ++cx;
    return false;
  }
  cx = 0;
  if (cy + 1 < n_cy_q_) {
    ++cy;
    return false;
  }
  cy = 0;
  if (g + 1 < n_kg_q_) {
    ++g;
    return false;
  }
  g = 0;
  return true;
}

void PsumManagerCore::start(const RunDesc& run) {
  if (active_q_) protocol_error(kBlock, "RUN started while the previous one is still active");
  if (!pq_.empty() || inflight_q_ || !rq_.empty()) protocol_error(kBlock, "RUN started with words left in a queue");
  if (run.contexts() == 0) protocol_error(kBlock, "RUN without contexts");
  const std::uint64_t words = run.pooling() ? std::uint64_t(run.n_c) * run.n_cy * run.n_cx
                                            : std::uint64_t(run.contexts()) * std::uint64_t(cols_);
  if (words > std::uint64_t(depth_)) protocol_error(kBlock, "RUN does not fit the psum buffer");
  if (run.pooling() && (run.preload || run.n_kg != 1))
    protocol_error(kBlock, "pooling RUN with preload or more than one output-channel group");
  start_req_ = true;
  start_run_ = run;
}

const acc_t* PsumManagerCore::pre_word(bool array_pre_pop) const {
  const bool take = active_q_ && preload_q_ && pre_win_q_ < n_ctx_q_;
  return array_pre_pop && take && !pq_.empty() ? pq_.front().e : zero_word_;
}

void PsumManagerCore::eval(bool array_pre_pop, bool res_valid, int res_col, const acc_t* res_word,
                           bool pool_valid, const acc_t* pool_word, SramBank& psum_bank) {
  active_d_ = active_q_;
  rd_left_d_ = rd_left_q_;
  rd_g_d_ = rd_g_q_;
  rd_cy_d_ = rd_cy_q_;
  rd_cx_d_ = rd_cx_q_;
  rd_col_d_ = rd_col_q_;
  claimed_d_ = claimed_q_;
  pre_win_d_ = pre_win_q_;
  pre_j_d_ = pre_j_q_;
  res_win_d_ = res_win_q_;
  res_g_d_ = res_g_q_;
  res_cy_d_ = res_cy_q_;
  res_cx_d_ = res_cx_q_;
  res_j_d_ = res_j_q_;
  written_d_ = written_q_;
  const std::uint32_t n_windows = n_ctx_q_ + std::uint32_t(kFirstResultWindow);

  // Preload side: the array pops COLS words per window; windows 0 .. n_ctx-1 take P_k when preload.
  bool pop = false;
  if (array_pre_pop) {
    if (!active_q_ || pre_win_q_ >= n_windows) protocol_error(kBlock, "preload pop outside the RUN's windows");
    if (preload_q_ && pre_win_q_ < n_ctx_q_) {
      if (pq_.empty()) protocol_error(kBlock, "preload pop from an empty preload queue");
      if (claimed_q_ == 0) protocol_error(kBlock, "preload pop of an unclaimed word");
      pop = true;
      claimed_d_ = claimed_q_ - 1;
    }
    if (pre_j_q_ + 1 < cols_) {
      pre_j_d_ = pre_j_q_ + 1;
    } else {
      pre_j_d_ = 0;
      pre_win_d_ = pre_win_q_ + 1;
    }
  }
  pq_.set_pop(pop);

  // Result side: window k delivers columns COLS-1 .. 0 of context k-3; windows 0, 1 and 2 (the two
  // FILLs and SWAP0) are dropped.
  bool push_result = false;
  if (res_valid && !pool_q_) {
    if (!active_q_ || res_win_q_ >= n_windows) protocol_error(kBlock, "result word outside the RUN's windows");
    if (res_col != cols_ - 1 - res_j_q_)
      protocol_error(kBlock, "result column " + std::to_string(res_col) + " where " +
                                 std::to_string(cols_ - 1 - res_j_q_) + " was due");
    if (res_win_q_ >= std::uint32_t(kFirstResultWindow)) {
      Result r;
      r.addr = address(res_g_q_, res_col, res_cy_q_, res_cx_q_);
      for (int i = 0; i < rows_; ++i) r.e[i] = res_word[i];
      rq_.set_push(true, r);
      push_result = true;
    }
    if (res_j_q_ + 1 < cols_) {
      res_j_d_ = res_j_q_ + 1;
    } else {
      res_j_d_ = 0;
      res_win_d_ = res_win_q_ + 1;
      if (res_win_q_ >= std::uint32_t(kFirstResultWindow)) next_context(res_g_d_, res_cy_d_, res_cx_d_);
    }
  }
  // Pooling results: window c of context (cy, cx), c innermost (section 16, "Results").
  if (pool_valid) {
    if (!active_q_ || !pool_q_ || res_cy_q_ >= n_cy_q_ || res_valid)
      protocol_error(kBlock, "pooling result outside a pooling RUN's windows");
    Result r;
    r.addr = address(0, int(res_g_q_), res_cy_q_, res_cx_q_);
    for (int i = 0; i < rows_; ++i) r.e[i] = pool_word[i];
    rq_.set_push(true, r);
    push_result = true;
    if (res_g_q_ + 1 < n_c_q_) {
      res_g_d_ = res_g_q_ + 1;
    } else {
      res_g_d_ = 0;
      if (res_cx_q_ + 1 < n_cx_q_) {
        res_cx_d_ = res_cx_q_ + 1;
      } else {
        res_cx_d_ = 0;
        res_cy_d_ = res_cy_q_ + 1;
      }
    }
  } else if (res_valid && pool_q_) {
    protocol_error(kBlock, "array result word in a pooling RUN");
  }
  if (!push_result) rq_.set_push(false);
  // The Fifo checks "push while full" only at the edge; name the rule of this block here.
  if (push_result && rq_.full()) protocol_error(kBlock, "result queue overflow");

  // SRAM port: results arrive at a fixed rate and cannot wait, so a pending write wins.
  write_d_ = !rq_.empty();
  read_d_ = !write_d_ && rd_left_q_ && pq_.count() + (inflight_q_ ? 1 : 0) < pqd_;
  rq_.set_pop(write_d_);
  inflight_d_ = read_d_;
  if (write_d_) {
    const Result& head = rq_.front();
    psum_bank.write(SramBank::kCompute, head.addr, head.e, mask_);
    written_d_ = written_q_ + 1;
    if (written_d_ == total_q_) active_d_ = false;
  } else if (read_d_) {
    psum_bank.read(SramBank::kCompute, address(rd_g_q_, rd_col_q_, rd_cy_q_, rd_cx_q_));
    if (rd_col_q_ > 0) {
      rd_col_d_ = rd_col_q_ - 1;
    } else {
      rd_col_d_ = cols_ - 1;
      if (next_context(rd_g_d_, rd_cy_d_, rd_cx_d_)) rd_left_d_ = false;
    }
  }

  // Last cycle's read data is on the bank's output now; it enters the preload queue at this edge.
  if (inflight_q_) {
    PWord w;
    const word_elem_t* rd = psum_bank.rdata();
    for (int i = 0; i < rows_; ++i) w.e[i] = rd[i];
    pq_.set_push(true, w);
  } else {
    pq_.set_push(false);
  }
}

void PsumManagerCore::tick() {
  // The claim is judged on the registered counts, like the issue stage's condition.
  if (claim_req_) {
    if (!active_q_ || !preload_q_ || claims_q_ >= n_ctx_q_)
      protocol_error(kBlock, "claim for a window that takes no SRAM preload");
    if (unclaimed() < cols_) protocol_error(kBlock, "claim beyond the preload queue");
  }
  pq_.tick();
  rq_.tick();
  if (read_d_) ++sram_reads_;
  if (write_d_) ++sram_writes_;
  active_q_ = active_d_;
  rd_left_q_ = rd_left_d_;
  inflight_q_ = inflight_d_;
  rd_g_q_ = rd_g_d_;
  rd_cy_q_ = rd_cy_d_;
  rd_cx_q_ = rd_cx_d_;
  rd_col_q_ = rd_col_d_;
  claimed_q_ = claimed_d_ + (claim_req_ ? cols_ : 0);
  if (claim_req_) ++claims_q_;
  pre_win_q_ = pre_win_d_;
  pre_j_q_ = pre_j_d_;
  res_win_q_ = res_win_d_;
  res_g_q_ = res_g_d_;
  res_cy_q_ = res_cy_d_;
  res_cx_q_ = res_cx_d_;
  res_j_q_ = res_j_d_;
  written_q_ = written_d_;
  read_d_ = write_d_ = inflight_d_ = false;
  claim_req_ = false;
  if (start_req_) {
    // Only reachable while idle (start() checks): the queues are empty, nothing in flight.
    preload_q_ = start_run_.preload;
    pool_q_ = start_run_.pooling();
    n_c_q_ = start_run_.n_c;
    n_kg_q_ = start_run_.n_kg;
    n_cy_q_ = start_run_.n_cy;
    n_cx_q_ = start_run_.n_cx;
    n_ctx_q_ = start_run_.contexts();
    total_q_ = pool_q_ ? n_c_q_ * n_cy_q_ * n_cx_q_ : n_ctx_q_ * std::uint32_t(cols_);
    active_q_ = true;
    rd_left_q_ = preload_q_;
    clear_progress();
    rd_col_q_ = cols_ - 1;
    start_req_ = false;
  }
}

}  // namespace flycol::hw
