// The DRAM model's timing and accounting (sim/dram/README.md states the rules). Integer-only on
// purpose: the SystemC and the Verilator simulations call it with the same sequence and must get
// the same cycles, so no floating point enters the cycle arithmetic after construction.
#include "sim/dram/dram_model.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>

#include <fmt/format.h>

#include "hw/common/protocol_error.h"
#include "sim/common/int_math.h"

namespace flycol {

namespace {

constexpr std::uint64_t kQ16 = 65536;


const hw::MemRsp& zero_rsp() {
  static const hw::MemRsp z{};
  return z;
}

}  // namespace

DramTiming DramTiming::from(const Config& c) {
  DramTiming t;
  t.bytes_per_cycle = c.dram_bytes_per_cycle();
  t.latency_cycles = c.dram_latency_cycles();
  return t;
}

DramModel::DramModel(const DramTiming& timing, std::uint64_t size_bytes)
    : timing_(timing), mem_(size_bytes, 0), rng_(timing.random_seed) {
  const auto bad = [](const std::string& what) { throw std::invalid_argument("DramTiming: " + what); };
  if (!(timing.bytes_per_cycle > 0) || !std::isfinite(timing.bytes_per_cycle) || timing.bytes_per_cycle > 1e6)
    bad(fmt::format("bytes_per_cycle = {}: must be in (0, 1e6]", timing.bytes_per_cycle));
  bw_q16_ = std::uint64_t(std::llround(timing.bytes_per_cycle * double(kQ16)));
  if (bw_q16_ == 0) bad(fmt::format("bytes_per_cycle = {}: below the Q16 resolution", timing.bytes_per_cycle));
  if (timing.latency_cycles < 0 || timing.latency_cycles > 1000000)
    bad(fmt::format("latency_cycles = {}: must be in [0, 1000000]", timing.latency_cycles));
  if (timing.backlog_bytes < 1) bad(fmt::format("backlog_bytes = {}: must be >= 1", timing.backlog_bytes));
  if (timing.max_outstanding_reads < 1 || timing.max_outstanding_reads > 65536)
    bad(fmt::format("max_outstanding_reads = {}: must be in [1, 65536]", timing.max_outstanding_reads));
  if (!(timing.not_ready_prob >= 0 && timing.not_ready_prob < 1))
    bad(fmt::format("not_ready_prob = {}: must be in [0, 1)", timing.not_ready_prob));
  if (timing.extra_latency_max < 0 || timing.extra_latency_max > 1000000)
    bad(fmt::format("extra_latency_max = {}: must be in [0, 1000000]", timing.extra_latency_max));
  backlog_q16_ = std::uint64_t(timing.backlog_bytes) * kQ16;
  randomized_ = timing.random_seed != 0;
  not_ready_threshold_ = std::uint32_t(timing.not_ready_prob * 4294967296.0);
  pending_.resize(std::size_t(timing.max_outstanding_reads));
}

void DramModel::write_bytes(std::uint64_t addr, const void* src, std::uint64_t n) {
  if (addr > mem_.size() || n > mem_.size() - addr)
    throw std::out_of_range(fmt::format("dram: backdoor write [{:#x}, +{}) outside {} bytes", addr, n, mem_.size()));
  if (n) std::memcpy(mem_.data() + addr, src, n);
}

void DramModel::read_bytes(std::uint64_t addr, void* dst, std::uint64_t n) const {
  if (addr > mem_.size() || n > mem_.size() - addr)
    throw std::out_of_range(fmt::format("dram: backdoor read [{:#x}, +{}) outside {} bytes", addr, n, mem_.size()));
  if (n) std::memcpy(dst, mem_.data() + addr, n);
}

void DramModel::add_region(const std::string& name, std::uint64_t base, std::uint64_t size) {
  if (size == 0 || base > mem_.size() || size > mem_.size() - base)
    throw std::invalid_argument(
        fmt::format("dram region '{}' [{:#x}, +{}) is empty or outside {} bytes", name, base, size, mem_.size()));
  for (const DramRegionStats& r : regions_) {
    if (r.name == name) throw std::invalid_argument(fmt::format("dram region '{}' defined twice", name));
    if (base < r.base + r.size && r.base < base + size)
      throw std::invalid_argument(fmt::format("dram region '{}' overlaps region '{}'", name, r.name));
  }
  DramRegionStats r;
  r.name = name;
  r.base = base;
  r.size = size;
  regions_.push_back(r);
}

bool DramModel::has_region(const std::string& name) const {
  for (const DramRegionStats& r : regions_)
    if (r.name == name) return true;
  return false;
}

const DramRegionStats& DramModel::region(const std::string& name) const {
  for (const DramRegionStats& r : regions_)
    if (r.name == name) return r;
  throw std::out_of_range("dram: no region named '" + name + "'");
}

void DramModel::begin_cycle(std::uint64_t cycle) {
  if (begun_ && cycle == now_) {
    if (ended_) throw std::logic_error(fmt::format("dram: begin_cycle({}) after that cycle ended", cycle));
    return;  // repeated evaluation of the same cycle: outputs unchanged
  }
  if (begun_ && !ended_) throw std::logic_error(fmt::format("dram: cycle {} not ended before cycle {}", now_, cycle));
  if (begun_ && cycle < now_) throw std::logic_error(fmt::format("dram: cycle {} after cycle {}", cycle, now_));
  now_ = cycle;
  begun_ = true;
  ended_ = false;
  ++stats_.cycles;

  // The one per-cycle draw, whether or not it matters this cycle, keeps the random sequence a
  // function of the call sequence only.
  bool blocked = false;
  if (randomized_) blocked = std::uint32_t(rng_() >> 32) < not_ready_threshold_;

  const std::uint64_t now_pos = now_ * bw_q16_;
  const std::uint64_t backlog = busy_until_ > now_pos ? busy_until_ - now_pos : 0;
  ready_ = backlog < backlog_q16_ && pending_count_ < timing_.max_outstanding_reads && !blocked;
  if (!ready_) ++stats_.not_ready_cycles;
  rsp_valid_ = pending_count_ > 0 && pending_[std::size_t(pending_head_)].ready_cycle <= now_;
}

const hw::MemRsp& DramModel::rsp() const {
  return rsp_valid_ ? pending_[std::size_t(pending_head_)].rsp : zero_rsp();
}

void DramModel::check_request(const hw::MemReq& r) const {
  if (r.bytes < 1 || r.bytes > hw::kBeatBytes)
    hw::protocol_error("dram", fmt::format("request of {} bytes (allowed 1..{})", r.bytes, hw::kBeatBytes));
  if (r.addr % hw::kBeatBytes + std::uint64_t(r.bytes) > std::uint64_t(hw::kBeatBytes))
    hw::protocol_error("dram", fmt::format("request [{:#x}, +{}) crosses a {}-byte beat", r.addr, r.bytes, hw::kBeatBytes));
  if (r.addr > mem_.size() || std::uint64_t(r.bytes) > mem_.size() - r.addr)
    hw::protocol_error("dram", fmt::format("request [{:#x}, +{}) outside {} bytes of memory", r.addr, r.bytes, mem_.size()));
}

void DramModel::account(const hw::MemReq& r) {
  const std::uint64_t n = std::uint64_t(r.bytes);
  if (r.write) {
    ++stats_.writes;
    stats_.bytes_written += n;
  } else {
    ++stats_.reads;
    stats_.bytes_read += n;
  }
  for (DramRegionStats& g : regions_) {
    const std::uint64_t lo = std::max(r.addr, g.base), hi = std::min(r.addr + n, g.base + g.size);
    if (lo >= hi) continue;
    if (r.write) {
      ++g.writes;
      g.bytes_written += hi - lo;
    } else {
      ++g.reads;
      g.bytes_read += hi - lo;
    }
  }
}

void DramModel::end_cycle(const hw::MemReq* fired) {
  if (!begun_ || ended_) throw std::logic_error(fmt::format("dram: end_cycle without begin_cycle (cycle {})", now_));
  ended_ = true;

  if (rsp_valid_) {
    pending_head_ = (pending_head_ + 1) % timing_.max_outstanding_reads;
    --pending_count_;
  }
  if (!fired) return;
  if (!ready_) hw::protocol_error("dram", fmt::format("request accepted in cycle {} while req_ready is low", now_));
  check_request(*fired);
  account(*fired);

  const std::uint64_t n = std::uint64_t(fired->bytes);
  const std::uint64_t start = std::max(now_ * bw_q16_, busy_until_);
  const std::uint64_t end = start + n * kQ16;
  busy_until_ = end;
  const std::uint64_t first_cycle = std::max(start / bw_q16_, busy_counted_until_);
  const std::uint64_t end_cycle = ceil_div(end, bw_q16_);  // the transfer ends before this cycle
  if (end_cycle > first_cycle) stats_.busy_cycles += end_cycle - first_cycle;
  busy_counted_until_ = std::max(busy_counted_until_, end_cycle);

  // The one per-request draw (used by reads only).
  std::uint64_t extra = 0;
  if (randomized_) extra = ((rng_() >> 32) * std::uint64_t(timing_.extra_latency_max + 1)) >> 32;

  const std::size_t lane = std::size_t(fired->addr % hw::kBeatBytes);
  if (fired->write) {
    std::memcpy(mem_.data() + fired->addr, fired->wdata + lane, n);
    return;
  }
  std::uint64_t ready = end_cycle + std::uint64_t(timing_.latency_cycles) + extra;
  if (any_response_) ready = std::max(ready, last_ready_cycle_ + 1);
  last_ready_cycle_ = ready;
  any_response_ = true;
  Pending& p = pending_[std::size_t((pending_head_ + pending_count_) % timing_.max_outstanding_reads)];
  ++pending_count_;
  p.ready_cycle = ready;
  p.rsp = hw::MemRsp{};
  std::memcpy(p.rsp.rdata + lane, mem_.data() + fired->addr, n);
}

}  // namespace flycol
