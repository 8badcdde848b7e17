// Data feeder core (docs/microarchitecture.md, sections 8, 9.1 and 9.2): the index counters (IC),
// the selection-stage registers and ROWS feed lanes. It reads the ifmap buffer once per interest
// region row word and turns the words into one element stream per array row (on-the-fly im2col).
#pragma once

#include <cstdint>
#include <vector>

#include "hw/common/command.h"
#include "hw/common/hw_params.h"
#include "hw/common/sram_bank.h"
#include "hw/feeder/feed_lane_core.h"
#include "hw/feeder/index_counters.h"

namespace flycol::hw {

// The feeder's SRAM read request of one cycle.
struct SramRead {
  bool req = false;
  int addr = 0;
};

class FeederCore {
public:
  explicit FeederCore(const HwParams& p);
  void reset();

  // Called during the evaluation of cycle t (before or after eval()); latched at tick(); the first
  // SRAM read happens in cycle t+1. Starting while busy() or with a bad RunDesc is a protocol error.
  void start(const RunDesc& r);
  // Reads remain, or the selection stage holds a word.
  bool busy() const { return ic_.has_read() || sel_valid_q_; }

  bool all_lanes_have_elem() const;
  elem_t lane_elem(int lane) const;  // the lane's head element (0 when it has none)
  // The issue stage pops one element from every lane in this cycle (all must have one).
  void set_pop(bool en);

  // Issues this cycle's read on `ifmap_bank` (client SramBank::kCompute); the selection stage
  // reads ifmap_bank.rdata(), the word of the previous read. The owner ticks the bank after tick().
  void eval(SramBank& ifmap_bank);
  // The same with the SRAM outside (the SC_MODULE): `rdata` is the SRAM's held output (B
  // elements); returns this cycle's read request.
  SramRead eval(const word_elem_t* rdata);
  // Combinational view for the SC_MODULE's output process: no state is touched.
  bool stall(const word_elem_t* rdata) const;
  SramRead read_request(const word_elem_t* rdata) const;
  void tick();

  // Statistics: cycles in which the selection stage stalled; SRAM reads issued.
  std::uint64_t sel_stall_cycles() const { return sel_stall_cycles_; }
  std::uint64_t sram_reads() const { return sram_reads_; }

  // Observation for testbenches (never inputs to the behaviour).
  const HwParams& params() const { return p_; }
  const IndexCounters& ic() const { return ic_; }
  const FeedLaneCore& lane(int l) const { return lanes_[l]; }
  bool sel_valid() const { return sel_valid_q_; }
  int sel_b() const { return sel_b_q_; }
  bool sel_flush() const { return sel_flush_q_; }
  std::uint32_t sel_ox() const { return sel_ox_q_; }
  bool issuing() const { return issue_; }       // the last eval() issued a read
  bool stalling() const { return stall_now_; }  // the last eval() stalled the selection stage

private:
  LaneInput lane_input(int l, const word_elem_t* rdata) const;

  HwParams p_;
  IndexCounters ic_;
  // Selection stage (SEL) registers: the word on the SRAM output belongs to them.
  bool sel_valid_q_ = false, sel_valid_d_ = false;
  int sel_b_q_ = 0, sel_b_d_ = 0;
  bool sel_flush_q_ = false, sel_flush_d_ = false;
  bool sel_lastc_q_ = true, sel_lastc_d_ = true;  // the word's chunk: pattern (last) or pattern_kxc
  std::uint32_t sel_ox_q_ = 0, sel_ox_d_ = 0;  // the word's context column (pixel packing)
  std::vector<FeedLaneCore> lanes_;  // sized once at construction
  bool issue_ = false, stall_now_ = false;
  std::uint64_t sel_stall_cycles_ = 0, sram_reads_ = 0;
};

}  // namespace flycol::hw
