// Pooling unit core (docs/microarchitecture.md, section 16, "The pooling RUN"): the ROWS pool lanes
// behind the issue stage and the registers that frame their windows. In a pooling RUN each pop of
// the feed lanes hands element r to lane r, marked first / last of its window from the window
// position the unit counts; with the last element of an average window it also hands each lane its
// divisor, computed from the RUN's geometry and the context the unit counts, and pow2_i when every
// lane's divisor is 0 or a power of two (one divider cycle instead of D); in an argmax RUN each
// element is marked padding unless it lies in the counted range (section 16, "Backward of max
// pooling"). Register-transfer model of the RTL twin pool_unit.sv.
#pragma once

#include <cstdint>
#include <vector>

#include "hw/common/command.h"
#include "hw/common/hw_params.h"
#include "hw/pool/pool_lane_core.h"

namespace flycol::hw {

class PoolUnitCore {
public:
  explicit PoolUnitCore(const HwParams& p);
  void reset();

  // Input of cycle t (before or after eval()); the RUN's registers load at the edge. A RUN with
  // pool_op 0 (a convolution) leaves the unit inactive; starting while active is a protocol error.
  void start(const RunDesc& run);

  // Moore: the lanes take the next elements (pool_ready_o): low only before the last element of an
  // average window while the divider holds a window that does not finish in this cycle.
  bool ready() const { return !(avg_q_ && j_q_ + 1 == len_q_ && div_left_q_ > 1); }
  // Whether lane `lane`'s element at window row a, column b of context (cy, cx) of the RUN loaded
  // last lies outside the counted range (the argmax's padding); exposed for the block testbench.
  bool padding(int lane, std::uint32_t cy, std::uint32_t cx, std::uint32_t a, std::uint32_t b) const;
  bool active() const { return active_q_; }

  // One cycle: `pop` is the issue stage's pop of every feed lane, `lane_elems` the ROWS lane heads.
  // Pops while inactive (a convolution RUN) are ignored; a pop while !ready() is a protocol error.
  void eval(bool pop, const elem_t* lane_elems);
  void tick();

  // Registered result port: a window's ROWS results (accumulator words) for one cycle.
  bool res_valid() const { return lanes_[0].out_valid(); }
  const acc_t* res_word() const { return res_; }

  // The divisor lane `lane` gets in context (cy, cx) of the RUN loaded last (section 16, "The
  // divisor"); exposed for the block testbench.
  std::uint32_t count(int lane, std::uint32_t cy, std::uint32_t cx) const;

  // Statistics since reset: windows reduced (summed over the lanes' first lane), cycles a lane's
  // element waited for the divider.
  std::uint64_t windows() const { return lanes_[0].windows(); }

private:
  int rows_;
  int div_cycles_;
  std::vector<PoolLaneCore> lanes_;
  acc_t res_[kMaxRows]{};

  // RUN registers, loaded at start. avg_q_: through the divider (average, masked sum); lane_op_q_
  // the lanes' op_i (pool_op - 1).
  bool active_q_ = false, avg_q_ = false;
  PoolLaneOp lane_op_q_ = PoolLaneOp::Max;
  std::uint32_t len_q_ = 1, n_c_q_ = 1, n_cx_q_ = 1, n_cy_q_ = 1, data_kx_q_ = 1;
  // The divisor window (n_ky_q_ x n_kx_q_, lanes sx_q_ apart) and the counted range.
  std::uint32_t n_ky_q_ = 1, n_kx_q_ = 1, sy_q_ = 1, sx_q_ = 1, y0_q_ = 0, y1_q_ = 0, x0_q_ = 0, x1_q_ = 0;
  // Walk: window position (and its row a, column b), window (channel) of the context, context;
  // divider copy.
  std::uint32_t j_q_ = 0, a_q_ = 0, b_q_ = 0, c_q_ = 0, cx_q_ = 0, cy_q_ = 0;
  int div_left_q_ = 0;

  bool active_d_ = false;
  std::uint32_t j_d_ = 0, a_d_ = 0, b_d_ = 0, c_d_ = 0, cx_d_ = 0, cy_d_ = 0;
  int div_left_d_ = 0;
  bool start_req_ = false;
  RunDesc start_run_;
};

}  // namespace flycol::hw
