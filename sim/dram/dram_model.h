// Cycle-level DRAM model behind the memory port (docs/microarchitecture.md 7.1, sim/dram/README.md),
// shared by the SystemC and the RTL simulations: integer-only timing (Q16 bandwidth) and one seeded
// generator, so the same call sequence gives the same cycles in both.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "hw/common/mem_port.h"
#include "sim/config/config.h"

namespace flycol {

struct DramTiming {
  double bytes_per_cycle = 1.0;   // channel bandwidth, held as Q16 (1/65536 byte) per cycle
  int latency_cycles = 0;         // end of a read's transfer to its response
  int backlog_bytes = 128;        // req_ready only while fewer bytes than this wait for the channel
  int max_outstanding_reads = 64; // req_ready only while fewer reads than this await their response
  std::uint64_t random_seed = 0;  // 0 = no randomness
  double not_ready_prob = 0;      // randomized: chance that req_ready is dropped in a cycle
  int extra_latency_max = 0;      // randomized: uniform extra latency in [0, max] per read

  // Bandwidth and latency of the configuration's DRAM in accelerator clock cycles.
  static DramTiming from(const Config& c);
};

struct DramStats {
  std::uint64_t reads = 0, writes = 0;           // accepted requests
  std::uint64_t bytes_read = 0, bytes_written = 0;
  std::uint64_t busy_cycles = 0;                 // cycles in which the channel moves data
  std::uint64_t cycles = 0;                      // cycles simulated (begin_cycle calls)
  std::uint64_t not_ready_cycles = 0;            // cycles with req_ready low
};

struct DramRegionStats {
  std::string name;
  std::uint64_t base = 0, size = 0;
  std::uint64_t reads = 0, writes = 0;  // requests touching the region
  std::uint64_t bytes_read = 0, bytes_written = 0;
};

class DramModel {
public:
  // Throws std::invalid_argument on a timing that cannot work (bandwidth <= 0, no backlog, ...).
  DramModel(const DramTiming& timing, std::uint64_t size_bytes);

  const DramTiming& timing() const { return timing_; }
  std::uint64_t size_bytes() const { return std::uint64_t(mem_.size()); }

  // Backdoor: no cycle, no statistics. Out-of-range accesses throw std::out_of_range.
  void write_bytes(std::uint64_t addr, const void* src, std::uint64_t n);
  void read_bytes(std::uint64_t addr, void* dst, std::uint64_t n) const;
  std::uint8_t* bytes() { return mem_.data(); }
  const std::uint8_t* bytes() const { return mem_.data(); }

  // Names [base, base+size) for traffic accounting. Regions may not overlap; requests outside
  // every region only count in the totals. Throws std::invalid_argument.
  void add_region(const std::string& name, std::uint64_t base, std::uint64_t size);

  // The cycle interface. Per cycle: begin_cycle(t) (computes this cycle's Moore outputs; calling
  // it again for the same t changes nothing), read req_ready()/rsp_valid()/rsp(), then
  // end_cycle(fired) with the request accepted this cycle (only allowed if req_ready()) or
  // nullptr. end_cycle also consumes the response if rsp_valid(): responses cannot be refused.
  // A bad request throws hw::ProtocolError; a wrong call order throws std::logic_error.
  void begin_cycle(std::uint64_t cycle);
  bool req_ready() const { return ready_; }
  bool rsp_valid() const { return rsp_valid_; }
  const hw::MemRsp& rsp() const;
  void end_cycle(const hw::MemReq* fired);

  // Statistics.
  const DramStats& stats() const { return stats_; }
  const std::vector<DramRegionStats>& regions() const { return regions_; }
  const DramRegionStats& region(const std::string& name) const;  // throws std::out_of_range
  bool has_region(const std::string& name) const;
  int reads_outstanding() const { return pending_count_; }
  std::uint64_t cycle() const { return now_; }
  // The bandwidth as the model uses it (Q16 bytes per cycle).
  std::uint64_t bandwidth_q16() const { return bw_q16_; }

private:
  struct Pending {
    std::uint64_t ready_cycle = 0;  // first cycle in which the response is valid
    hw::MemRsp rsp;
  };
  void check_request(const hw::MemReq& r) const;
  void account(const hw::MemReq& r);

  DramTiming timing_;
  std::vector<std::uint8_t> mem_;
  std::vector<DramRegionStats> regions_;
  DramStats stats_;

  std::uint64_t bw_q16_ = 0;            // bytes per cycle, Q16
  std::uint64_t backlog_q16_ = 0;       // backlog_bytes, Q16
  std::uint32_t not_ready_threshold_ = 0;  // coin blocks if (draw >> 32) < threshold
  bool randomized_ = false;
  std::mt19937_64 rng_;

  // Channel time is counted in Q16 bytes: cycle t begins at position t * bw_q16_.
  std::uint64_t busy_until_ = 0;         // position at which the channel becomes free
  std::uint64_t busy_counted_until_ = 0; // cycles [0, this) already in stats_.busy_cycles

  std::vector<Pending> pending_;  // ring of max_outstanding_reads entries
  int pending_head_ = 0, pending_count_ = 0;
  std::uint64_t last_ready_cycle_ = 0;
  bool any_response_ = false;

  std::uint64_t now_ = 0;
  bool begun_ = false, ended_ = false;
  bool ready_ = false, rsp_valid_ = false;
};

}  // namespace flycol
