// Memory arbiter core (docs/microarchitecture.md 7.2). The grant is combinational; "granted last"
// only moves when a request fires, so a requester that is refused by the memory keeps its turn.
#include "hw/dma/mem_arbiter.h"

namespace flycol::hw {

MemArbiter::MemArbiter() : order_q_("mem arbiter order fifo") { reset(); }

void MemArbiter::reset() {
  last_q_ = last_d_ = true;
  order_q_.reset();
  fired_[0] = fired_[1] = false;
  mem_req_valid_ = false;
  mem_req_ = MemReq{};
  rsp_to_ = -1;
  both_ = false;
}

void MemArbiter::eval(bool req_valid0, const MemReq& req0, bool req_valid1, const MemReq& req1, bool mem_ready,
                      bool mem_rsp_valid) {
  const int grant = (req_valid0 && req_valid1) ? (last_q_ ? 0 : 1) : (req_valid1 ? 1 : 0);
  mem_req_valid_ = req_valid0 || req_valid1;
  mem_req_ = grant == 0 ? req0 : req1;
  both_ = req_valid0 && req_valid1;
  const bool fire = mem_req_valid_ && mem_ready;
  fired_[0] = fire && grant == 0;
  fired_[1] = fire && grant == 1;
  last_d_ = fire ? grant == 1 : last_q_;

  order_q_.set_push(fire && !mem_req_.write, std::uint8_t(grant));
  if (mem_rsp_valid && order_q_.empty()) protocol_error("mem arbiter", "read response with no read outstanding");
  order_q_.set_pop(mem_rsp_valid);
  rsp_to_ = mem_rsp_valid ? int(order_q_.front()) : -1;
}

void MemArbiter::tick() {
  order_q_.tick();
  last_q_ = last_d_;
  if (fired_[0]) ++requests_[0];
  if (fired_[1]) ++requests_[1];
  if (both_) ++conflicts_;
  fired_[0] = fired_[1] = both_ = false;
}

}  // namespace flycol::hw
