// Feed lane core (docs/microarchitecture.md, section 9.2, stage SEL): one array row's lane picks
// its elements from the selection stage's word with the shifted kernel pattern, gathers them in M
// intermediate registers, pushes groups into its FIFO and serves them one element at a time.
#pragma once

#include <cstdint>

#include "hw/common/fifo.h"
#include "hw/common/hw_params.h"

namespace flycol::hw {

// One FIFO entry: up to M elements in kernel-column order.
struct LaneGroup {
  elem_t elems[kMaxM]{};
  int count = 0;
};

// What the selection stage presents to a lane in one cycle.
struct LaneInput {
  bool valid = false;                  // the selection stage holds a word
  int shift = 0;                       // s = b + lane * lane_stride (negative: left of the word)
  bool flush = false;                  // the word is the RUN's last read
  std::uint64_t pattern = 0;           // kernel pattern, PB bits
  const word_elem_t* word = nullptr;   // B elements (read only when valid)
};

// The lane's combinational selection in one cycle (section 9.2's pseudo-code).
struct LaneSelect {
  std::uint64_t avail = 0;  // pattern shifted by s, minus the elements already taken
  int n = 0;                // popcount(avail)
  int k = 0;                // elements taken this cycle (0 when the push is blocked)
  bool push = false;        // a group enters the FIFO at this edge
  bool blocked = false;     // a push was due but the FIFO is full
  bool stall = false;       // the lane needs the word for another cycle
};

class FeedLaneCore {
public:
  explicit FeedLaneCore(const HwParams& p);

  void reset();

  // Step 1 of the cycle: this lane's stall (lane_stall), from its registers and `in` only.
  bool compute_stall(const LaneInput& in) const { return select(in).stall; }
  LaneSelect select(const LaneInput& in) const;
  // Step 2, once the feeder's stall (sel_valid and the OR of every lane's stall) is known.
  void eval(const LaneInput& in, bool global_stall);
  void tick();

  // FIFO read side, valid at any time (registers only).
  bool has_elem() const { return !fifo_.empty(); }
  elem_t elem() const { return fifo_.empty() ? elem_t(0) : fifo_.front().elems[rd_idx_q_]; }
  // The issue stage takes the head element at this edge. Popping an empty lane is an error.
  void set_pop(bool en);

  // Observation for testbenches and statistics (never inputs to the behaviour).
  int fill() const { return fill_q_; }
  std::uint64_t taken() const { return taken_q_; }
  int fifo_count() const { return fifo_.count(); }
  int rd_idx() const { return rd_idx_q_; }
  std::uint64_t took_mask() const { return took_; }  // positions taken by the last eval()
  bool pushing() const { return fifo_.pushing(); }

private:
  HwParams p_;
  std::uint64_t bus_mask_;
  int fill_q_ = 0, fill_d_ = 0;
  elem_t regs_q_[kMaxM]{}, regs_d_[kMaxM]{};  // regs[0..M-2] used
  std::uint64_t taken_q_ = 0, taken_d_ = 0;
  int rd_idx_q_ = 0, rd_idx_d_ = 0;
  bool pop_en_ = false;
  std::uint64_t took_ = 0;
  Fifo<LaneGroup, kMaxLaneFifo> fifo_;
};

}  // namespace flycol::hw
