// Weight fetcher core: the read walk (g, cy, cx, step) over the weight buffer and the weight FIFO,
// in the register-transfer style of the RTL twin (eval computes _d from _q, tick copies).
#include "hw/weight_fetcher/weight_fetcher_core.h"

#include "hw/common/protocol_error.h"
#include "hw/common/wrap_counter.h"

namespace flycol::hw {

namespace {
constexpr const char* kBlock = "weight_fetcher";
}

WeightFetcherCore::WeightFetcherCore(const HwParams& p) : cols_(p.cols), depth_(p.weight_depth) {
  if (cols_ < 1 || cols_ > kMaxCols) protocol_error(kBlock, "COLS out of range");
  reset();
}

void WeightFetcherCore::reset() {
  wfifo_.reset();
  len_q_ = n_cx_q_ = n_cy_q_ = n_kg_q_ = 0;
  step_q_ = cx_q_ = cy_q_ = g_q_ = base_q_ = 0;
  reads_left_q_ = inflight_q_ = false;
  step_d_ = cx_d_ = cy_d_ = g_d_ = base_d_ = 0;
  reads_left_d_ = inflight_d_ = false;
  read_d_ = false;
  start_req_ = false;
  sram_reads_ = 0;
}

void WeightFetcherCore::start(const RunDesc& run) {
  if (busy() || has_word()) protocol_error(kBlock, "RUN started while the previous one is still fetching");
  if (run.steps_per_context() == 0 || run.contexts() == 0) protocol_error(kBlock, "RUN without steps");
  if (!run.pooling() && std::uint64_t(run.n_kg) * run.steps_per_context() > std::uint64_t(depth_))
    protocol_error(kBlock, "RUN does not fit the weight buffer");
  start_req_ = true;
  start_run_ = run;
}

void WeightFetcherCore::eval(SramBank& weight_bank) {
  // Last cycle's read data is on the bank's output now; it enters the FIFO at this edge.
  if (inflight_q_) {
    Word w;
    const word_elem_t* rd = weight_bank.rdata();
    for (int i = 0; i < cols_; ++i) w.e[i] = elem_t(rd[i]);
    wfifo_.set_push(true, w);
  } else {
    wfifo_.set_push(false);
  }

  step_d_ = step_q_;
  cx_d_ = cx_q_;
  cy_d_ = cy_q_;
  g_d_ = g_q_;
  base_d_ = base_q_;
  reads_left_d_ = reads_left_q_;

  // Registered counts only: a pop in this cycle frees its slot for next cycle's decision, which is
  // what lets WFD = 4 sustain one word per cycle with one read in flight.
  read_d_ = reads_left_q_ && wfifo_.count() + (inflight_q_ ? 1 : 0) < kWeightFifoDepth;
  inflight_d_ = read_d_;
  if (read_d_) {
    weight_bank.read(SramBank::kCompute, int(base_q_ + step_q_));
    if (wrap_next(step_q_, len_q_, step_d_) && wrap_next(cx_q_, n_cx_q_, cx_d_) && wrap_next(cy_q_, n_cy_q_, cy_d_)) {
      if (wrap_next(g_q_, n_kg_q_, g_d_)) {
        base_d_ = 0;
        reads_left_d_ = false;
      } else {
        base_d_ = base_q_ + len_q_;
      }
    }
  }
}

void WeightFetcherCore::tick() {
  wfifo_.tick();
  if (read_d_) ++sram_reads_;
  step_q_ = step_d_;
  cx_q_ = cx_d_;
  cy_q_ = cy_d_;
  g_q_ = g_d_;
  base_q_ = base_d_;
  reads_left_q_ = reads_left_d_;
  inflight_q_ = inflight_d_;
  read_d_ = false;
  inflight_d_ = false;
  if (start_req_) {
    // Only reachable while idle (start() checks), so nothing computed by eval() is lost.
    len_q_ = start_run_.steps_per_context();
    n_cx_q_ = start_run_.n_cx;
    n_cy_q_ = start_run_.n_cy;
    n_kg_q_ = start_run_.n_kg;
    step_q_ = cx_q_ = cy_q_ = g_q_ = base_q_ = 0;
    reads_left_q_ = !start_run_.pooling();  // a pooling RUN reads no weights (section 16)
    start_req_ = false;
  }
}

}  // namespace flycol::hw
