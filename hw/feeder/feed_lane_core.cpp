// Feed lane core (docs/microarchitecture.md, section 9.2): the selection rule, the intermediate
// registers, the group FIFO and its element-wise read side, in register-transfer form.
#include "hw/feeder/feed_lane_core.h"

#include "hw/common/protocol_error.h"
#include "hw/feeder/feeder_params.h"

namespace flycol::hw {

namespace {
constexpr const char* kBlock = "feed_lane";
}

FeedLaneCore::FeedLaneCore(const HwParams& p)
    : p_(p), bus_mask_(bus_mask(p.bus_elems)), fifo_("feed_lane.fifo", kMaxLaneFifo) {
  check_feeder_params(p, kBlock);
  fifo_.configure(p.lane_fifo_depth);
  reset();
}

void FeedLaneCore::reset() {
  fill_q_ = fill_d_ = 0;
  for (int i = 0; i < kMaxM; ++i) regs_q_[i] = regs_d_[i] = 0;
  taken_q_ = taken_d_ = 0;
  rd_idx_q_ = rd_idx_d_ = 0;
  pop_en_ = false;
  took_ = 0;
  fifo_.reset();
}

LaneSelect FeedLaneCore::select(const LaneInput& in) const {
  LaneSelect r;
  if (!in.valid) return r;
  const std::uint64_t pat =
      p_.pattern_bits >= 64 ? in.pattern : in.pattern & ((std::uint64_t(1) << p_.pattern_bits) - 1);
  // Bit e of the mask is pattern[e - s]: a left shift by s, or a right shift for negative s.
  std::uint64_t mask = 0;
  if (in.shift >= 0) {
    if (in.shift < 64) mask = pat << in.shift;
  } else if (in.shift > -64) {
    mask = pat >> -in.shift;
  }
  r.avail = mask & bus_mask_ & ~taken_q_;
  r.n = __builtin_popcountll(r.avail);
  r.k = r.n < p_.m - fill_q_ ? r.n : p_.m - fill_q_;
  r.push = fill_q_ + r.k == p_.m || (in.flush && r.k == r.n && fill_q_ + r.k > 0);
  r.blocked = r.push && fifo_.full();
  if (r.blocked) {
    r.k = 0;
    r.push = false;
  }
  // A blocked push stalls even when nothing is left to take: otherwise a lane whose final
  // (flush) group meets a full FIFO would let the last word go and lose its held elements.
  r.stall = r.k < r.n || r.blocked;
  return r;
}

void FeedLaneCore::eval(const LaneInput& in, bool global_stall) {
  const LaneSelect sel = select(in);
  if (sel.stall && !global_stall) protocol_error(kBlock, "lane stalls but the feeder's stall is low");
  // The k lowest-positioned available elements, i.e. the next kernel columns in order.
  std::uint64_t rest = sel.avail;
  took_ = 0;
  for (int i = 0; i < sel.k; ++i) {
    took_ |= rest & (~rest + 1);
    rest &= rest - 1;
  }
  for (int i = 0; i < kMaxM; ++i) regs_d_[i] = regs_q_[i];
  if (sel.push) {
    LaneGroup g;
    for (int i = 0; i < fill_q_; ++i) g.elems[i] = regs_q_[i];
    int n = fill_q_;
    for (std::uint64_t t = took_; t != 0; t &= t - 1) g.elems[n++] = elem_t(in.word[__builtin_ctzll(t)]);
    g.count = n;
    fifo_.set_push(true, g);
    fill_d_ = 0;
  } else {
    fifo_.set_push(false);
    int n = fill_q_;
    for (std::uint64_t t = took_; t != 0; t &= t - 1) regs_d_[n++] = elem_t(in.word[__builtin_ctzll(t)]);
    fill_d_ = n;
  }
  // A held word keeps the record of what this lane already took; a new word starts clean.
  taken_d_ = (global_stall && in.valid) ? (taken_q_ | took_) : 0;
}

void FeedLaneCore::set_pop(bool en) {
  pop_en_ = en;
  if (!en) {
    fifo_.set_pop(false);
    rd_idx_d_ = rd_idx_q_;
    return;
  }
  if (fifo_.empty()) protocol_error(kBlock, "pop while empty");
  const bool last = rd_idx_q_ + 1 >= fifo_.front().count;
  fifo_.set_pop(last);
  rd_idx_d_ = last ? 0 : rd_idx_q_ + 1;
}

void FeedLaneCore::tick() {
  fifo_.tick();
  fill_q_ = fill_d_;
  for (int i = 0; i < kMaxM; ++i) regs_q_[i] = regs_d_[i];
  taken_q_ = taken_d_;
  if (pop_en_) rd_idx_q_ = rd_idx_d_;
  // Without a new eval() / set_pop() the registers hold.
  pop_en_ = false;
  rd_idx_d_ = rd_idx_q_;
  took_ = 0;
}

}  // namespace flycol::hw
