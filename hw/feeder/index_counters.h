// Index counters of the data feeder (docs/microarchitecture.md, section 9.1, stage IC): the six
// counters (j, kxc, ky, c, cx, cy) and the group repeat g that walk a RUN's interest regions over
// the ifmap buffer and produce one SRAM read {addr, b, flush, lastc} per issued cycle.
#pragma once

#include <cstdint>

#include "hw/common/command.h"
#include "hw/common/hw_params.h"

namespace flycol::hw {

// The read the counters point at (meaningful while has_read()).
struct IcRead {
  int addr = 0;            // SRAM word address: (row_start >> log2 B) + j
  std::int64_t ptr = 0;    // the paper's index pointer: row_start + j*B (element index)
  int go = 0;              // global word offset: row_start mod B
  int j = 0;               // word within the current region row
  int b = 0;               // signed base shift go - j*B carried to the selection stage
  bool flush = false;      // last read of the RUN
  bool lastc = true;       // the read belongs to the last kernel-column chunk (pattern, not pattern_kxc)
  std::uint32_t ox = 0;    // column of the context's first pixel in its packed row (0 without packing)
};

class IndexCounters {
public:
  explicit IndexCounters(const HwParams& p);

  // Throws hw::ProtocolError unless `r` fits the field widths of command.h and this feeder's
  // parameters, and its last read stays inside the ifmap buffer (HwParams::ifmap_depth).
  static void check_run(const HwParams& p, const RunDesc& r);

  void reset();
  // Checks `r`; the counters load it at tick() (a start and an issue in one cycle is an error).
  void start(const RunDesc& r);

  bool has_read() const { return active_q_; }
  IcRead read() const;
  const RunDesc& run() const { return run_q_; }

  // Next state: the counters advance iff the current read is issued in this cycle.
  void eval(bool issued);
  void tick();

private:
  HwParams p_;
  RunDesc run_q_{};
  bool active_q_ = false, active_d_ = false;
  // Counter indices (for the limits) and the paper's counter outputs, i.e. running sums of their
  // steps, whose sum is the row start pointer; j's output steps by B.
  std::uint32_t kxc_q_ = 0, ky_q_ = 0, c_q_ = 0, cx_q_ = 0, cy_q_ = 0, g_q_ = 0;
  std::uint32_t kxc_d_ = 0, ky_d_ = 0, c_d_ = 0, cx_d_ = 0, cy_d_ = 0, g_d_ = 0;
  std::int64_t joff_q_ = 0, kxcoff_q_ = 0, kyoff_q_ = 0, coff_q_ = 0, cxoff_q_ = 0, cyoff_q_ = 0;
  std::int64_t joff_d_ = 0, kxcoff_d_ = 0, kyoff_d_ = 0, coff_d_ = 0, cxoff_d_ = 0, cyoff_d_ = 0;
  // Pixel packing: the current context's first pixel column (section 9.1, packed contexts).
  std::uint32_t ox_q_ = 0, ox_d_ = 0;
  bool start_req_ = false;
  RunDesc start_run_{};

  std::int64_t row_start() const { return kxcoff_q_ + kyoff_q_ + coff_q_ + cxoff_q_ + cyoff_q_; }
  bool last_chunk() const { return kxc_q_ + 1 >= run_q_.n_kxc; }
  bool last_j() const;
};

}  // namespace flycol::hw
