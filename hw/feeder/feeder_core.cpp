// Data feeder core (docs/microarchitecture.md, sections 9.1 and 9.2): the IC stage issues one
// read per cycle unless the selection stage stalls; the selection stage hands the word to every
// lane and holds it while any lane still needs it.
#include "hw/feeder/feeder_core.h"

#include "hw/common/protocol_error.h"
#include "hw/feeder/feeder_params.h"

namespace flycol::hw {

namespace {
constexpr const char* kBlock = "feeder";
}

FeederCore::FeederCore(const HwParams& p) : p_(p), ic_(p) {
  check_feeder_params(p, kBlock);
  lanes_.reserve(std::size_t(p.rows));
  for (int l = 0; l < p.rows; ++l) lanes_.emplace_back(p);
  reset();
}

void FeederCore::reset() {
  ic_.reset();
  sel_valid_q_ = sel_valid_d_ = false;
  sel_b_q_ = sel_b_d_ = 0;
  sel_flush_q_ = sel_flush_d_ = false;
  sel_lastc_q_ = sel_lastc_d_ = true;
  sel_ox_q_ = sel_ox_d_ = 0;
  for (auto& l : lanes_) l.reset();
  issue_ = stall_now_ = false;
  sel_stall_cycles_ = sram_reads_ = 0;
}

void FeederCore::start(const RunDesc& r) {
  if (busy()) protocol_error(kBlock, "start while busy");
  ic_.start(r);
}

bool FeederCore::all_lanes_have_elem() const {
  for (const auto& l : lanes_)
    if (!l.has_elem()) return false;
  return true;
}

elem_t FeederCore::lane_elem(int lane) const {
  if (lane < 0 || lane >= p_.rows) protocol_error(kBlock, "lane index out of range");
  return lanes_[std::size_t(lane)].elem();
}

void FeederCore::set_pop(bool en) {
  if (en && !all_lanes_have_elem()) protocol_error(kBlock, "pop while a lane is empty");
  for (auto& l : lanes_) l.set_pop(en);
}

LaneInput FeederCore::lane_input(int l, const word_elem_t* rdata) const {
  LaneInput in;
  in.valid = sel_valid_q_;
  const RunDesc& r = ic_.run();
  in.shift = int(sel_b_q_ + lane_local_offset(l, r.lane_stride, r.pack_w, r.pack_jump, sel_ox_q_));
  in.flush = sel_flush_q_;
  in.pattern = sel_lastc_q_ ? ic_.run().pattern : ic_.run().pattern_kxc;  // the word's chunk
  in.word = rdata;
  return in;
}

bool FeederCore::stall(const word_elem_t* rdata) const {
  if (!sel_valid_q_) return false;
  for (int l = 0; l < p_.rows; ++l)
    if (lanes_[std::size_t(l)].compute_stall(lane_input(l, rdata))) return true;
  return false;
}

SramRead FeederCore::read_request(const word_elem_t* rdata) const {
  SramRead r;
  r.req = ic_.has_read() && !stall(rdata);
  if (r.req) r.addr = ic_.read().addr;
  return r;
}

SramRead FeederCore::eval(const word_elem_t* rdata) {
  stall_now_ = stall(rdata);
  issue_ = ic_.has_read() && !stall_now_;
  SramRead req;
  if (issue_) {
    const IcRead rd = ic_.read();
    req.req = true;
    req.addr = rd.addr;
    sel_valid_d_ = true;
    sel_b_d_ = rd.b;
    sel_flush_d_ = rd.flush;
    sel_lastc_d_ = rd.lastc;
    sel_ox_d_ = rd.ox;
  } else if (stall_now_) {
    // The SRAM holds rdata (no read), so the held word stays with its registered fields.
    sel_valid_d_ = sel_valid_q_;
    sel_b_d_ = sel_b_q_;
    sel_flush_d_ = sel_flush_q_;
    sel_lastc_d_ = sel_lastc_q_;
    sel_ox_d_ = sel_ox_q_;
  } else {
    sel_valid_d_ = false;
    sel_b_d_ = 0;
    sel_flush_d_ = false;
    sel_lastc_d_ = true;
    sel_ox_d_ = 0;
  }
  ic_.eval(issue_);
  for (int l = 0; l < p_.rows; ++l) lanes_[std::size_t(l)].eval(lane_input(l, rdata), stall_now_);
  return req;
}

void FeederCore::eval(SramBank& ifmap_bank) {
  if (ifmap_bank.elems_per_word() != p_.bus_elems) protocol_error(kBlock, "ifmap bank word is not B elements");
  const SramRead r = eval(ifmap_bank.rdata());
  if (r.req) ifmap_bank.read(SramBank::kCompute, r.addr);
}

void FeederCore::tick() {
  sel_valid_q_ = sel_valid_d_;
  sel_b_q_ = sel_b_d_;
  sel_flush_q_ = sel_flush_d_;
  sel_lastc_q_ = sel_lastc_d_;
  sel_ox_q_ = sel_ox_d_;
  ic_.tick();
  for (auto& l : lanes_) l.tick();
  sel_stall_cycles_ += stall_now_ ? 1 : 0;
  sram_reads_ += issue_ ? 1 : 0;
  issue_ = stall_now_ = false;
}

}  // namespace flycol::hw
