// Pooling unit core: window framing, the divisor of each lane and the ROWS pool lanes.
#include "hw/pool/pool_unit_core.h"

#include <algorithm>
#include <string>

#include "hw/common/protocol_error.h"

namespace flycol::hw {

namespace {
constexpr const char* kBlock = "pool_unit";

// Positions of [start, start + len) inside [lo, hi): the divisor's factor of one dimension.
std::int64_t overlap(std::int64_t start, std::int64_t len, std::int64_t lo, std::int64_t hi) {
  return std::max<std::int64_t>(0, std::min(start + len, hi) - std::max(start, lo));
}
}  // namespace

PoolUnitCore::PoolUnitCore(const HwParams& p)
    : rows_(p.rows),
      div_cycles_(p.arithmetic == Arithmetic::fp16 ? PoolLaneCore::kDividerCyclesFp16
                                                   : PoolLaneCore::kDividerCyclesInt) {
  if (rows_ < 1 || rows_ > kMaxRows) protocol_error(kBlock, "ROWS out of range");
  lanes_.reserve(std::size_t(rows_));
  for (int r = 0; r < rows_; ++r) lanes_.emplace_back(p);
  reset();
}

void PoolUnitCore::reset() {
  for (auto& l : lanes_) l.reset();
  std::fill(std::begin(res_), std::end(res_), acc_t(0));
  active_q_ = avg_q_ = active_d_ = false;
  lane_op_q_ = PoolLaneOp::Max;
  len_q_ = n_c_q_ = n_cx_q_ = n_cy_q_ = n_ky_q_ = n_kx_q_ = sy_q_ = sx_q_ = data_kx_q_ = 1;
  y0_q_ = y1_q_ = x0_q_ = x1_q_ = 0;
  j_q_ = a_q_ = b_q_ = c_q_ = cx_q_ = cy_q_ = j_d_ = a_d_ = b_d_ = c_d_ = cx_d_ = cy_d_ = 0;
  div_left_q_ = div_left_d_ = 0;
  start_req_ = false;
}

void PoolUnitCore::start(const RunDesc& run) {
  if (active_q_) protocol_error(kBlock, "RUN started while a pooling RUN still takes elements");
  if (run.pooling() && (run.window_len() == 0 || run.n_c == 0 || run.n_cx == 0 || run.n_cy == 0))
    protocol_error(kBlock, "pooling RUN with an empty window or no contexts");
  // Every op but max walks the geometry (the divisor, the argmax's padding): no packing, sides of
  // at most 256 (section 16; pool_unit.sv's 9 x 9-bit products; the exact sum holds 65536
  // elements), pool_sy at least 1; an argmax window is at most 65535 elements (0xFFFF is "none").
  const bool geometric = run.pooling() && run.pool_op != unsigned(PoolOp::Max);
  if (run.pool_op > unsigned(kMaxPoolOp)) protocol_error(kBlock, "pool_op " + std::to_string(run.pool_op) + " above 4");
  if (geometric && run.pack_w != 0) protocol_error(kBlock, "average, argmax or masked-sum RUN with packing");
  if (geometric && (run.n_ky > 256 || run.n_kx > 256 || run.pool_ky > 256 || run.pool_kx > 256))
    protocol_error(kBlock, "average, argmax or masked-sum RUN with a window side above 256");
  if (geometric && run.pool_sy == 0) protocol_error(kBlock, "average, argmax or masked-sum RUN with pool_sy = 0");
  if (run.pool_op == unsigned(PoolOp::Argmax) && run.window_len() > 65535)
    protocol_error(kBlock, "argmax RUN with a window above 65535 elements");
  start_req_ = true;
  start_run_ = run;
}

std::uint32_t PoolUnitCore::count(int lane, std::uint32_t cy, std::uint32_t cx) const {
  const std::int64_t ys = std::int64_t(cy) * sy_q_;
  const std::int64_t xs = (std::int64_t(cx) * rows_ + lane) * sx_q_;
  return std::uint32_t(overlap(ys, n_ky_q_, y0_q_, y1_q_) * overlap(xs, n_kx_q_, x0_q_, x1_q_));
}

bool PoolUnitCore::padding(int lane, std::uint32_t cy, std::uint32_t cx, std::uint32_t a, std::uint32_t b) const {
  const std::int64_t y = std::int64_t(cy) * sy_q_ + a;
  const std::int64_t x = (std::int64_t(cx) * rows_ + lane) * sx_q_ + b;
  return !(y >= y0_q_ && y < y1_q_ && x >= x0_q_ && x < x1_q_);
}

void PoolUnitCore::eval(bool pop, const elem_t* lane_elems) {
  active_d_ = active_q_;
  j_d_ = j_q_;
  a_d_ = a_q_;
  b_d_ = b_q_;
  c_d_ = c_q_;
  cx_d_ = cx_q_;
  cy_d_ = cy_q_;
  div_left_d_ = div_left_q_ > 0 ? div_left_q_ - 1 : 0;

  const bool take = pop && active_q_;
  if (take && !ready()) protocol_error(kBlock, "elements popped while the pooling unit is not ready");
  const bool last = j_q_ + 1 == len_q_;
  // With the last element of an average window: every lane's divisor, and whether all of them are 0
  // or a power of two (the lanes then divide by a shift, in one cycle, and so still finish together).
  std::uint32_t counts[kMaxRows]{};
  bool pow2 = true;
  if (take && avg_q_ && last)
    for (int r = 0; r < rows_; ++r) {
      counts[r] = count(r, cy_q_, cx_q_);
      pow2 = pow2 && (counts[r] & (counts[r] - 1)) == 0;
    }
  for (int r = 0; r < rows_; ++r) {
    PoolLaneIn in;
    in.valid = take;
    if (take) {
      in.first = j_q_ == 0;
      in.last = last;
      in.elem = lane_elems[r];
      in.op = lane_op_q_;
      in.pad = lane_op_q_ == PoolLaneOp::Argmax && padding(r, cy_q_, cx_q_, a_q_, b_q_);
      in.count = counts[r];
      in.pow2 = avg_q_ && last && pow2;
    }
    lanes_[std::size_t(r)].eval(in);
  }
  if (!take) return;
  if (avg_q_ && last) div_left_d_ = pow2 ? PoolLaneCore::kDividerCyclesPow2 : div_cycles_;
  if (!last) {
    j_d_ = j_q_ + 1;
    const bool row_end = b_q_ + 1 == data_kx_q_;
    b_d_ = row_end ? 0 : b_q_ + 1;
    a_d_ = row_end ? a_q_ + 1 : a_q_;
    return;
  }
  j_d_ = a_d_ = b_d_ = 0;
  if (c_q_ + 1 < n_c_q_) {
    c_d_ = c_q_ + 1;
    return;
  }
  c_d_ = 0;
  if (cx_q_ + 1 < n_cx_q_) {
    cx_d_ = cx_q_ + 1;
    return;
  }
  cx_d_ = 0;
  if (cy_q_ + 1 < n_cy_q_) {
    cy_d_ = cy_q_ + 1;
    return;
  }
  cy_d_ = 0;
  active_d_ = false;  // the RUN's last element
}

void PoolUnitCore::tick() {
  for (int r = 0; r < rows_; ++r) {
    lanes_[std::size_t(r)].tick();
    res_[r] = lanes_[std::size_t(r)].out_value();
  }
  active_q_ = active_d_;
  j_q_ = j_d_;
  a_q_ = a_d_;
  b_q_ = b_d_;
  c_q_ = c_d_;
  cx_q_ = cx_d_;
  cy_q_ = cy_d_;
  div_left_q_ = div_left_d_;
  if (start_req_) {
    const RunDesc& r = start_run_;
    active_q_ = r.pooling();
    avg_q_ = r.pool_divides();
    lane_op_q_ = r.pooling() ? PoolLaneOp((r.pool_op - 1) & 3u) : PoolLaneOp::Max;
    len_q_ = r.window_len();
    data_kx_q_ = r.n_kx;
    n_c_q_ = r.n_c;
    n_cx_q_ = r.n_cx;
    n_cy_q_ = r.n_cy;
    // The divisor window: pool_ky, pool_kx, pool_sx, or the data window's when 0.
    n_ky_q_ = r.divisor_ky();
    n_kx_q_ = r.divisor_kx();
    sy_q_ = r.pool_sy;
    sx_q_ = r.divisor_sx();
    y0_q_ = r.pool_y0;
    y1_q_ = r.pool_y1;
    x0_q_ = r.pool_x0;
    x1_q_ = r.pool_x1;
    j_q_ = a_q_ = b_q_ = c_q_ = cx_q_ = cy_q_ = 0;
    start_req_ = false;
  }
}

}  // namespace flycol::hw
