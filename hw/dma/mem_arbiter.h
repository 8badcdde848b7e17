// The memory arbiter (docs/microarchitecture.md 7.2): round robin between the LD engine
// (requester 0) and the PS engine (requester 1) on the one memory port, and an order FIFO that
// sends each in-order read response back to the requester that asked for it.
#pragma once

#include <cstdint>

#include "hw/common/fifo.h"
#include "hw/common/mem_port.h"

namespace flycol::hw {

inline constexpr int kOrderFifoDepth = 2 * kChunkQueueDepth;

class MemArbiter {
public:
  MemArbiter();

  void reset();
  // One cycle. Requests are the engines' (Moore) requests; mem_ready and mem_rsp_valid are the
  // memory's Moore outputs. A response with no read outstanding is a protocol error.
  void eval(bool req_valid0, const MemReq& req0, bool req_valid1, const MemReq& req1, bool mem_ready,
            bool mem_rsp_valid);
  void tick();

  bool fired(int i) const { return fired_[i & 1]; }
  bool mem_req_valid() const { return mem_req_valid_; }
  const MemReq& mem_req() const { return mem_req_; }
  int rsp_to() const { return rsp_to_; }  // -1: no response; else the requester it belongs to

  std::uint64_t requests(int i) const { return requests_[i & 1]; }
  std::uint64_t conflicts() const { return conflicts_; }  // cycles in which both requested
  int reads_outstanding() const { return order_q_.count(); }

private:
  bool last_q_ = true, last_d_ = true;  // requester granted last; reset so that LD wins first
  Fifo<std::uint8_t, kOrderFifoDepth> order_q_;
  bool fired_[2] = {false, false};
  bool mem_req_valid_ = false;
  MemReq mem_req_{};
  int rsp_to_ = -1;
  bool both_ = false;
  std::uint64_t requests_[2] = {0, 0};
  std::uint64_t conflicts_ = 0;
};

}  // namespace flycol::hw
