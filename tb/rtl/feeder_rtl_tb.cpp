// Co-simulation of the data feeder RTL (hw/feeder/feeder.sv, Verilated per configuration) in
// lockstep with its C++ twin hw::FeederCore: random RUNs of real layers on random SRAM images, random
// pop stalls, every output compared every cycle; the popped streams are also checked against im2col.
// Usage: feeder_rtl_tb_<tag> [--seed N] [--slow] [--config NAME|FILE] [--no-assertions]
// (--no-assertions: the model is a synthesized netlist without the assertions, e.g. Yosys output).
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>
#include <deque>
#include <exception>
#include <memory>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include FLYCOL_VTOP_HEADER
#include "verilated.h"

#include "hw/common/command.h"
#include "hw/common/hw_params.h"
#include "hw/common/protocol_error.h"
#include "hw/common/sram_bank.h"
#include "hw/feeder/feeder_core.h"
#include "sim/config/config.h"
#include "sim/config/config_keys.h"
#include "sim/rtlgen/rtl_types.h"

using namespace flycol::hw;
using Top = FLYCOL_VTOP;

namespace {

// ---------------------------------------------------------------------------------------------
// Failure reporting: the first difference is printed with its cycle and signal; the test fails.

int g_errors = 0;
template <class... Args>
void fail(fmt::format_string<Args...> f, Args&&... args) {
  if (++g_errors <= 10) fmt::print(stderr, "MISMATCH: {}\n", fmt::format(f, std::forward<Args>(args)...));
}

using Rng = std::mt19937_64;
int uni(Rng& r, int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(r); }
bool chance(Rng& r, double p) { return std::uniform_real_distribution<double>(0.0, 1.0)(r) < p; }

// ---------------------------------------------------------------------------------------------
// Bit access to Verilated ports of any width (CData .. QData, or VlWide for more than 64 bits).

template <class T, std::enable_if_t<std::is_integral_v<T>, int> = 0>
void put_bits(T& sig, int lsb, int width, std::uint64_t v) {
  const std::uint64_t m = (width >= 64 ? ~std::uint64_t(0) : (std::uint64_t(1) << width) - 1) << lsb;
  sig = T((std::uint64_t(sig) & ~m) | ((v << lsb) & m));
}
template <std::size_t N>
void put_bits(VlWide<N>& sig, int lsb, int width, std::uint64_t v) {
  for (int done = 0; done < width;) {  // one 32-bit word of the port at a time
    const int p = lsb + done, o = p % 32, take = std::min(32 - o, width - done);
    const EData m = EData((take == 32 ? ~std::uint64_t(0) : (std::uint64_t(1) << take) - 1) << o);
    EData& w = sig[std::size_t(p / 32)];
    w = EData((w & ~m) | ((EData(v >> done) << o) & m));
    done += take;
  }
}
template <class T, std::enable_if_t<std::is_integral_v<T>, int> = 0>
std::uint64_t get_bits(const T& sig, int lsb, int width) {
  const std::uint64_t m = width >= 64 ? ~std::uint64_t(0) : (std::uint64_t(1) << width) - 1;
  return (std::uint64_t(sig) >> lsb) & m;
}
template <std::size_t N>
std::uint64_t get_bits(const VlWide<N>& sig, int lsb, int width) {
  std::uint64_t v = 0;
  for (int done = 0; done < width;) {
    const int p = lsb + done, o = p % 32, take = std::min(32 - o, width - done);
    const std::uint64_t m = take == 32 ? 0xFFFFFFFFu : (std::uint64_t(1) << take) - 1;
    v |= ((std::uint64_t(sig[std::size_t(p / 32)]) >> o) & m) << done;
    done += take;
  }
  return v;
}

// ---------------------------------------------------------------------------------------------
// RUNs of real layers and their im2col reference: the same distribution as tb/feeder_tb.cpp.

struct TestRun {
  RunDesc run;
  int rows = 1, bus = 1;
  int kx = 1, ky = 1, sx = 1, sy = 1, dx = 1, dy = 1;
  int wt = 1, ht = 1;  // tile width and height
  std::uint64_t elems_per_lane = 0;
  std::uint64_t reads = 0;     // reference SRAM reads
  std::int64_t last_word = 0;  // highest word read
};

std::uint64_t pattern_of(int kx, int dx) {
  std::uint64_t p = 0;
  for (int i = 0; i < kx; ++i) p |= std::uint64_t(1) << (i * dx);
  return p;
}

// Tile element that lane `lane` delivers as its i-th element: the loops g, cy, cx, c, ky, kx of
// section 8 with the layer's strides and dilations (not the RUN's steps).
std::int64_t ref_index(const TestRun& t, int lane, std::uint64_t i) {
  const RunDesc& r = t.run;
  const std::int64_t kx = std::int64_t(i % r.n_kx);
  i /= r.n_kx;
  const std::int64_t ky = std::int64_t(i % r.n_ky);
  i /= r.n_ky;
  const std::int64_t c = std::int64_t(i % r.n_c);
  i /= r.n_c;
  const std::int64_t cx = std::int64_t(i % r.n_cx);
  i /= r.n_cx;
  const std::int64_t cy = std::int64_t(i % r.n_cy);  // the rest is g: every group repeats the walk
  const std::int64_t ox = cx * t.rows + lane, oy = cy;
  return c * t.ht * t.wt + (oy * t.sy + ky * t.dy) * t.wt + ox * t.sx + kx * t.dx;
}

// Calls f(first_word, last_word) for every region row, in read order.
template <class F>
void for_each_region_row(const TestRun& t, F&& f) {
  const std::int64_t ri = std::int64_t(t.run.region);
  for (std::uint32_t g = 0; g < t.run.n_kg; ++g)
    for (std::int64_t cy = 0; cy < t.run.n_cy; ++cy)
      for (std::int64_t cx = 0; cx < t.run.n_cx; ++cx)
        for (std::int64_t c = 0; c < t.run.n_c; ++c)
          for (std::int64_t ky = 0; ky < t.run.n_ky; ++ky) {
            const std::int64_t start = c * t.ht * t.wt + (cy * t.sy + ky * t.dy) * t.wt + cx * t.rows * t.sx;
            f(start / t.bus, (start + ri - 1) / t.bus);
          }
}

void finish_run(TestRun& t) {
  t.elems_per_lane = std::uint64_t(t.run.n_kg) * t.run.n_cy * t.run.n_cx * t.run.n_c * t.run.n_ky * t.run.n_kx;
  t.reads = 0;
  t.last_word = 0;
  for_each_region_row(t, [&](std::int64_t w0, std::int64_t w1) {
    t.reads += std::uint64_t(w1 - w0 + 1);
    t.last_word = std::max(t.last_word, w1);
  });
}

TestRun layer_run(const HwParams& hw, int kx, int ky, int sx, int sy, int dx, int dy, int n_c, int n_cx, int n_cy,
                  int n_kg, int tw, int extra_w, int extra_h) {
  TestRun t;
  t.rows = hw.rows, t.bus = hw.bus_elems;
  t.kx = kx, t.ky = ky, t.sx = sx, t.sy = sy, t.dx = dx, t.dy = dy;
  t.wt = (tw - 1) * sx + (kx - 1) * dx + 1 + extra_w;
  t.ht = (n_cy - 1) * sy + (ky - 1) * dy + 1 + extra_h;
  RunDesc& r = t.run;
  r.n_kg = std::uint32_t(n_kg), r.n_cy = std::uint32_t(n_cy), r.n_cx = std::uint32_t(n_cx);
  r.n_c = std::uint32_t(n_c), r.n_ky = std::uint32_t(ky), r.n_kx = std::uint32_t(kx);
  r.step_cx = std::uint32_t(hw.rows * sx);
  r.step_cy = std::uint32_t(sy * t.wt);
  r.step_c = std::uint32_t(t.ht * t.wt);
  r.step_ky = std::uint32_t(dy * t.wt);
  r.region = std::uint32_t((hw.rows - 1) * sx + (kx - 1) * dx + 1);
  r.lane_stride = std::uint32_t(sx);
  r.pattern = pattern_of(kx, dx);
  finish_run(t);
  return t;
}

// A random RUN consistent with a real layer (tb/feeder_tb.cpp's distribution). Kernels wider than
// FD*M are left out when there is more than one lane (the compiler rejects them:
// docs/microarchitecture.md, section 9.2).
TestRun random_run(const HwParams& hw, Rng& rng, std::uint64_t budget, std::int64_t words) {
  for (;;) {
    int kx_max = std::min(7, hw.pattern_bits);
    if (hw.rows > 1) kx_max = std::min(kx_max, hw.lane_fifo_depth * hw.m);
    const int kx = uni(rng, 1, kx_max);
    const int dx = kx > 1 ? uni(rng, 1, std::min(8, (hw.pattern_bits - 1) / (kx - 1))) : uni(rng, 1, 8);
    const int ky = uni(rng, 1, 7), dy = uni(rng, 1, 8);
    const int sx = chance(rng, 0.1) ? uni(rng, 5, 8) : uni(rng, 1, 4);
    const int sy = chance(rng, 0.1) ? uni(rng, 5, 8) : uni(rng, 1, 4);
    const int n_c = uni(rng, 1, 6), n_cx = uni(rng, 1, 3), n_cy = uni(rng, 1, 3), n_kg = uni(rng, 1, 3);
    const int tw = (n_cx - 1) * hw.rows + uni(rng, 1, hw.rows);
    TestRun t = layer_run(hw, kx, ky, sx, sy, dx, dy, n_c, n_cx, n_cy, n_kg, tw, uni(rng, 0, 3), uni(rng, 0, 2));
    // Now and then a region wider than the lanes need (legal, never emitted by the compiler): its
    // last words hold no element for any lane, the one case in which a lane's blocked flush group
    // stalls the feeder (hw/feeder/README.md, spec issue 7).
    if (chance(rng, 0.125)) {
      t.run.region += std::uint32_t(uni(rng, 1, 2 * hw.bus_elems));
      finish_run(t);
    }
    if (t.reads + t.elems_per_lane > budget || t.last_word >= words) continue;
    return t;
  }
}

std::string run_name(const TestRun& t) {
  return fmt::format("{}x{} s{}x{} d{}x{} c={} cx={} cy={} kg={} Wt={} Ht={}", t.kx, t.ky, t.sx, t.sy, t.dx, t.dy,
                     t.run.n_c, t.run.n_cx, t.run.n_cy, t.run.n_kg, t.wt, t.ht);
}

// ---------------------------------------------------------------------------------------------
// The RTL and the core side by side, each with its own ifmap SRAM holding the same image.

class Cosim {
public:
  Cosim(const HwParams& hw, std::uint64_t seed)
      : hw_(hw), ctx_(std::make_unique<VerilatedContext>()), core_(hw), bank_("ifmap", hw.ifmap_depth, hw.bus_elems),
        mem_(std::size_t(hw.ifmap_depth) * std::size_t(hw.bus_elems), 0), rdata_(std::size_t(hw.bus_elems), 0),
        elem_mask_(hw.elem_bits >= 64 ? ~std::uint64_t(0) : (std::uint64_t(1) << hw.elem_bits) - 1) {
    // Assertion failures are counted and reported with the cycle, not an abort.
    ctx_->errorLimit(1 << 30);
    // Registers without reset (the FIFO storage) start random, so an unreset value cannot pass
    // for a right one.
    ctx_->randReset(2);
    ctx_->randSeed(int(seed & 0x7fffffff));
    top_ = std::make_unique<Top>(ctx_.get(), "feeder");
    reset();
  }
  ~Cosim() { top_->final(); }

  // Both SRAMs get the same image. A real buffer holds whatever earlier tiles left, so the image is
  // random everywhere; elements are EW bits wide on the RTL's bus.
  void load_image(Rng& rng) {
    for (int a = 0; a < hw_.ifmap_depth; ++a)
      for (int e = 0; e < hw_.bus_elems; ++e) {
        const word_elem_t v = word_elem_t(rng() & elem_mask_);
        bank_.poke(a, e, v);
        mem_[std::size_t(a) * std::size_t(hw_.bus_elems) + std::size_t(e)] = v;
      }
  }
  word_elem_t image(std::int64_t idx) const { return mem_[std::size_t(idx)]; }

  // Reset held for two cycles (asynchronous in the RTL, sampled at the edge by the core). The SRAM
  // output registers are not reset, in either model.
  void reset() {
    // The core's statistics restart at reset; keep their sums for the end-of-test comparison.
    core_reads_ += core_.sram_reads();
    core_stalls_ += core_.sel_stall_cycles();
    core_.reset();
    top_->rst_ni = 0;
    top_->start_i = 0;
    top_->pop_i = 0;
    drive_rdata();
    for (int i = 0; i < 2; ++i) {
      top_->clk_i = 0;
      top_->eval();
      top_->clk_i = 1;
      top_->eval();
    }
    top_->clk_i = 0;
    top_->eval();
    top_->rst_ni = 1;
    top_->eval();
  }

  // One clock cycle: drive the inputs, evaluate both, compare every output, clock both.
  // Returns false on the first difference (reported).
  bool cycle(bool start, const RunDesc* run, bool pop) {
    top_->start_i = start;
    if (start) {
      Command c;
      c.op = Opcode::Run;
      c.run = *run;
      const std::vector<std::uint32_t> w = flycol::rtl::pack_command(c);
      for (std::size_t i = 0; i < w.size(); ++i) top_->run_i[i] = w[i];
    }
    top_->pop_i = pop;
    top_->clk_i = 0;
    top_->eval();

    if (start) core_.start(*run);
    core_.set_pop(pop);
    core_.eval(bank_);
    const bool ok = compare();
    // The RTL's SRAM: a read of this cycle shows its word from the next cycle on, then holds.
    const bool req = top_->ifmap_req_o;
    const std::size_t a = std::size_t(top_->ifmap_addr_o);
    last_req_ = req;
    last_addr_ = int(a);

    top_->clk_i = 1;
    top_->eval();
    if (req) {
      if (a < std::size_t(hw_.ifmap_depth))
        for (int e = 0; e < hw_.bus_elems; ++e)
          rdata_[std::size_t(e)] = mem_[a * std::size_t(hw_.bus_elems) + std::size_t(e)];
      drive_rdata();
    }
    core_.tick();
    bank_.tick();
    const int asserts = ctx_->errorCount();
    if (asserts != asserts_seen_) {
      asserts_seen_ = asserts;
      fail("cycle {}: RTL assertion failed (message above)", cycle_);
      ++cycle_;
      return false;
    }
    ++cycle_;
    return ok;
  }

  const FeederCore& core() const { return core_; }
  // The RTL's SRAM request of the last cycle() (equal to the core's, or cycle() failed).
  bool last_req() const { return last_req_; }
  int last_addr() const { return last_addr_; }
  std::uint64_t cycles() const { return cycle_; }
  std::uint64_t rtl_stall_cycles() const { return rtl_stalls_; }
  std::uint64_t rtl_reads() const { return rtl_reads_; }
  std::uint64_t core_stall_cycles() const { return core_stalls_ + core_.sel_stall_cycles(); }
  std::uint64_t core_reads() const { return core_reads_ + core_.sram_reads(); }
  elem_t rtl_lane(int l) const { return elem_t(get_bits(top_->lane_data_o, l * hw_.elem_bits, hw_.elem_bits)); }

private:
  void drive_rdata() {
    for (int e = 0; e < hw_.bus_elems; ++e)
      put_bits(top_->ifmap_rdata_i, e * hw_.elem_bits, hw_.elem_bits, rdata_[std::size_t(e)] & elem_mask_);
  }

  template <class A, class B>
  bool check(const char* signal, A rtl, B core) {
    if (std::uint64_t(rtl) == std::uint64_t(core)) return true;
    fail("cycle {}: {}: RTL {:#x}, core {:#x}", cycle_, signal, std::uint64_t(rtl), std::uint64_t(core));
    return false;
  }

  bool compare() {
    bool ok = check("busy_o", top_->busy_o, core_.busy());
    ok = ok && check("lanes_valid_o", top_->lanes_valid_o, core_.all_lanes_have_elem());
    for (int l = 0; ok && l < hw_.rows; ++l) {
      const std::string sig = fmt::format("lane_data_o[{}]", l);
      ok = check(sig.c_str(), rtl_lane(l), core_.lane_elem(l) & elem_mask_);
    }
    ok = ok && check("sel_stall_o", top_->sel_stall_o, core_.stalling());
    // The RTL's SRAM port against the core's request on its bank.
    ok = ok && check("ifmap_req_o", top_->ifmap_req_o, core_.issuing());
    ok = ok && check("ifmap_addr_o", top_->ifmap_addr_o, core_.issuing() ? core_.ic().read().addr : 0);
    if (top_->ifmap_req_o && top_->ifmap_addr_o >= std::uint64_t(hw_.ifmap_depth)) {
      fail("cycle {}: ifmap_addr_o = {} beyond the {} words of the buffer", cycle_, top_->ifmap_addr_o,
           hw_.ifmap_depth);
      ok = false;
    }
    rtl_stalls_ += top_->sel_stall_o ? 1 : 0;
    rtl_reads_ += top_->ifmap_req_o ? 1 : 0;
    return ok;
  }

  HwParams hw_;
  std::unique_ptr<VerilatedContext> ctx_;
  std::unique_ptr<Top> top_;
  FeederCore core_;
  SramBank bank_;
  std::vector<word_elem_t> mem_;    // the RTL's ifmap SRAM
  std::vector<word_elem_t> rdata_;  // its held output
  std::uint64_t elem_mask_;
  std::uint64_t cycle_ = 0, rtl_stalls_ = 0, rtl_reads_ = 0, core_stalls_ = 0, core_reads_ = 0;
  int asserts_seen_ = 0;
  bool last_req_ = false;
  int last_addr_ = 0;
};

// The expected element streams of RUNs started one after the other; pops are lockstep over lanes.
class Scoreboard {
public:
  void expect(const TestRun* t) { q_.push_back({t, 0}); }
  bool empty() const { return q_.empty(); }
  void clear() { q_.clear(); }
  template <class F>
  bool check_pop(int rows, F&& lane_elem, const Cosim& sim) {
    if (q_.empty()) {
      fail("cycle {}: element popped beyond the expected streams", sim.cycles());
      return false;
    }
    Entry& e = q_.front();
    for (int l = 0; l < rows; ++l) {
      const std::int64_t idx = ref_index(*e.t, l, e.popped);
      const elem_t want = elem_t(sim.image(idx)), got = lane_elem(l);
      if (got != want) {
        fail("cycle {}: run {} lane {} element {}: got {:#06x}, want {:#06x} (tile index {})", sim.cycles(),
             run_name(*e.t), l, e.popped, got, want, idx);
        return false;
      }
    }
    ++popped_;
    if (++e.popped == e.t->elems_per_lane) q_.pop_front();
    return true;
  }
  std::uint64_t popped() const { return popped_; }

private:
  struct Entry {
    const TestRun* t;
    std::uint64_t popped;
  };
  std::deque<Entry> q_;
  std::uint64_t popped_ = 0;
};

struct Totals {
  std::uint64_t batches = 0, runs = 0, pops = 0, reads = 0, stalls = 0, resets = 0;
};

// One batch: a fresh image, `runs` back to back with random gaps, pops with probability pop_p; with
// `bursty`, the consumer also pauses for tens of cycles at a time, so that every lane FIFO fills
// (the blocked-flush rule of section 9.2 matters only then).
// With `reset_at` > 0 the batch is cut by a reset in that cycle (both models must agree after).
bool run_batch(Cosim& sim, const HwParams& hw, const std::vector<TestRun>& runs, Rng& rng, double pop_p,
               bool bursty, std::uint64_t reset_at, Totals& tot) {
  bool paused = false;
  Scoreboard sb;
  std::size_t next = 0;
  int wait = uni(rng, 0, 3);
  const TestRun* current = nullptr;
  std::uint64_t reads_at_start = 0, last_progress = sim.cycles();
  const std::uint64_t first_cycle = sim.cycles();
  auto check_reads = [&] {
    if (current && sim.core().sram_reads() - reads_at_start != current->reads)
      fail("run {}: {} SRAM reads, want {}", run_name(*current), sim.core().sram_reads() - reads_at_start,
           current->reads);
  };
  for (;;) {
    if (reset_at != 0 && sim.cycles() - first_cycle == reset_at) {
      sim.reset();
      ++tot.resets;
      return true;
    }
    bool start = false;
    if (!sim.core().busy() && next < runs.size() && wait-- <= 0) {
      check_reads();
      current = &runs[next++];
      sb.expect(current);
      reads_at_start = sim.core().sram_reads();
      wait = chance(rng, 0.5) ? 0 : uni(rng, 1, 5);
      start = true;
      last_progress = sim.cycles();
    }
    if (bursty && chance(rng, 1.0 / 24)) paused = !paused;
    const bool pop = sim.core().all_lanes_have_elem() && !paused && chance(rng, pop_p);
    if (pop) {
      if (!sb.check_pop(hw.rows, [&](int l) { return sim.rtl_lane(l); }, sim)) return false;
      last_progress = sim.cycles();
    }
    if (!sim.cycle(start, start ? &current->run : nullptr, pop)) return false;
    if (sim.last_req()) last_progress = sim.cycles();
    if (next == runs.size() && sb.empty() && !sim.core().busy()) break;
    if (sim.cycles() - last_progress > 20000) {
      fail("cycle {}: watchdog: no read or pop for 20000 cycles (run {})", sim.cycles(),
           current ? run_name(*current) : "-");
      return false;
    }
  }
  check_reads();
  // Nothing may follow the expected streams.
  for (int i = 0; i < 4; ++i)
    if (!sim.cycle(false, nullptr, false)) return false;
  if (sim.core().busy() || sim.core().all_lanes_have_elem() || sim.last_req())
    fail("cycle {}: activity after the last RUN", sim.cycles());
  tot.runs += runs.size();
  tot.pops += sb.popped();
  return g_errors == 0;
}

// ---------------------------------------------------------------------------------------------
// Section 11's worked examples (B = 8, 4 lanes, M = 3): read addresses in order, the first element
// three cycles after the start, and the element streams, on the RTL in lockstep with the core.

struct Example {
  const char* name;
  int wt, sx, dx, n_ky;
  std::vector<int> addrs;
};

int worked_examples(Cosim& sim, const HwParams& hw, Rng& rng) {
  const std::vector<Example> examples = {
      {"stride 1, dilation 1, tile width 10", 10, 1, 1, 3, {0, 1, 2, 3}},
      {"stride 2, tile width 12", 12, 2, 1, 2, {0, 1, 1, 2}},
      {"dilation 2, tile width 12", 12, 1, 2, 2, {0, 3}},
  };
  int checked = 0;
  sim.load_image(rng);
  for (const Example& ex : examples) {
    const int dy = ex.dx;  // the dilated example has dy = 2 as well (section 11)
    TestRun t = layer_run(hw, 3, ex.n_ky, ex.sx, 1, ex.dx, dy, 1, 1, 1, 1, 4, 0, 0);
    t.wt = ex.wt;
    t.ht = (ex.n_ky - 1) * dy + 1;
    t.run.step_cy = std::uint32_t(ex.wt);
    t.run.step_c = std::uint32_t(t.ht * ex.wt);
    t.run.step_ky = std::uint32_t(dy * ex.wt);
    finish_run(t);
    Scoreboard sb;
    sb.expect(&t);
    std::vector<int> addrs;
    const std::uint64_t c0 = sim.cycles();
    std::uint64_t first_pop = 0;
    for (int i = 0; i < 200 && (i == 0 || sim.core().busy() || !sb.empty()); ++i) {
      const bool pop = sim.core().all_lanes_have_elem();
      if (pop) {
        if (sb.popped() == 0) first_pop = sim.cycles() - c0;
        if (!sb.check_pop(hw.rows, [&](int l) { return sim.rtl_lane(l); }, sim)) return checked;
        ++checked;
      }
      if (!sim.cycle(i == 0, &t.run, pop)) return checked;
      if (sim.last_req()) addrs.push_back(sim.last_addr());
    }
    if (addrs != ex.addrs) fail("worked example \"{}\": read addresses {}, want {}", ex.name,
                                fmt::join(addrs, " "), fmt::join(ex.addrs, " "));
    if (ex.sx == 1 && ex.dx == 1 && first_pop != 3)
      fail("worked example \"{}\": first element in cycle {} after the start, want 3", ex.name, first_pop);
    if (!sb.empty()) fail("worked example \"{}\": did not finish", ex.name);
    checked += int(addrs.size());
  }
  return checked;
}

// ---------------------------------------------------------------------------------------------
// The RTL's assertions must catch the protocol errors the core throws on: each misuse is applied
// to a fresh model (the core checked beside it) and must raise at least one assertion.

// Verilator prints the expected assertion messages on stdout; keep them out of the test log.
class Silence {
public:
  Silence() {
    std::fflush(stdout);
    saved_ = dup(1);
    const int null = open("/dev/null", O_WRONLY);
    dup2(null, 1);
    close(null);
  }
  ~Silence() {
    std::fflush(stdout);
    dup2(saved_, 1);
    close(saved_);
  }
  Silence(const Silence&) = delete;
  Silence& operator=(const Silence&) = delete;

private:
  int saved_ = -1;
};

int protocol_checks(const HwParams& hw) {
  // A valid 3x3 RUN on one context.
  TestRun good = layer_run(hw, std::min(3, hw.pattern_bits), 3, 1, 1, 1, 1, 1, 1, 1, 1, hw.rows, 0, 0);
  int checked = 0;
  // `misuse(top, core)` drives one cycle on both; the RTL must assert, the core must throw.
  auto expect = [&](const char* what, auto&& misuse) {
    ++checked;
    VerilatedContext ctx;
    ctx.errorLimit(1 << 30);
    ctx.randReset(2);
    Top top(&ctx, "feeder");
    FeederCore core(hw);
    SramBank bank("ifmap", hw.ifmap_depth, hw.bus_elems);
    top.rst_ni = 0;
    top.clk_i = 0;
    top.eval();
    top.clk_i = 1;
    top.eval();
    top.clk_i = 0;
    top.rst_ni = 1;
    top.eval();
    bool threw = false;
    {
      Silence quiet;
      auto cycle = [&](bool start, const RunDesc& r, bool pop) {
        top.start_i = start;
        if (start) {
          Command c;
          c.run = r;
          const std::vector<std::uint32_t> w = flycol::rtl::pack_command(c);
          for (std::size_t i = 0; i < w.size(); ++i) top.run_i[i] = w[i];
        }
        top.pop_i = pop;
        top.clk_i = 0;
        top.eval();
        top.clk_i = 1;
        top.eval();
        top.clk_i = 0;
        top.start_i = 0;
        top.pop_i = 0;
        top.eval();
        try {
          if (start) core.start(r);
          core.set_pop(pop);
          core.eval(bank);
          core.tick();
          bank.tick();
        } catch (const ProtocolError&) {
          threw = true;
        }
      };
      misuse(cycle);
    }
    if (ctx.errorCount() == 0) fail("protocol check \"{}\": no RTL assertion", what);
    if (!threw) fail("protocol check \"{}\": the core did not throw either", what);
    top.final();
  };
  auto bad_start = [&](const char* what, auto&& edit) {
    RunDesc r = good.run;
    edit(r);
    expect(what, [&](auto& cycle) { cycle(true, r, false); });
  };
  bad_start("n_c zero", [](RunDesc& r) { r.n_c = 0; });
  bad_start("n_kg zero", [](RunDesc& r) { r.n_kg = 0; });
  bad_start("region zero", [](RunDesc& r) { r.region = 0; });
  bad_start("pattern zero", [](RunDesc& r) { r.pattern = 0; });
  bad_start("popcount(pattern) != n_kx", [](RunDesc& r) { r.n_kx += 1; });
  bad_start("region misses the last lane", [](RunDesc& r) { r.region -= 1; });
  bad_start("last read beyond the buffer",
            [&](RunDesc& r) { r.step_ky = std::uint32_t(hw.ifmap_depth) * std::uint32_t(hw.bus_elems); });
  if (hw.pattern_bits < 64)
    bad_start("pattern wider than PB", [&](RunDesc& r) {
      r.pattern |= std::uint64_t(1) << hw.pattern_bits;
      ++r.n_kx;
    });
  expect("start while busy", [&](auto& cycle) {
    cycle(true, good.run, false);
    cycle(true, good.run, false);
  });
  expect("pop while a lane is empty", [&](auto& cycle) { cycle(false, good.run, true); });
  return checked;
}

struct Options {
  std::uint64_t seed = 0;
  bool seed_given = false, slow = false, assertions = true;
  std::string config = FLYCOL_RTL_CONFIG;
};

Options parse_args(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--seed") == 0 && i + 1 < argc) {
      o.seed = std::strtoull(argv[++i], nullptr, 0);
      o.seed_given = true;
    } else if (std::strcmp(argv[i], "--slow") == 0) {
      o.slow = true;
    } else if (std::strcmp(argv[i], "--config") == 0 && i + 1 < argc) {
      o.config = argv[++i];
    } else if (std::strcmp(argv[i], "--no-assertions") == 0) {
      o.assertions = false;
    } else {
      fmt::print(stderr, "usage: {} [--seed N] [--slow] [--config NAME|FILE] [--no-assertions]\n", argv[0]);
      std::exit(2);
    }
  }
  if (!o.seed_given) o.seed = std::random_device{}();
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  const Options opt = parse_args(argc, argv);
  Totals tot;
  int examples = 0, protocol = 0;
  std::uint64_t cycles = 0;
  try {
    // The configuration the RTL was Verilated for (its flycol_cfg_pkg came from the same file).
    const HwParams hw = flycol::hardware_params(flycol::load_config_by_name_or_path(opt.config));
    fmt::print("feeder_rtl_tb[{}]: seed {}{}: B={} ROWS={} M={} FD={} PB={} IFD={} EW={}\n", FLYCOL_RTL_CONFIG,
               opt.seed, opt.slow ? " (slow)" : "", hw.bus_elems, hw.rows, hw.m, hw.lane_fifo_depth,
               hw.pattern_bits, hw.ifmap_depth, hw.elem_bits);
    Rng rng(opt.seed);
    if (opt.assertions) protocol = protocol_checks(hw);
    Cosim sim(hw, rng());
    if (hw.bus_elems == 8 && hw.rows == 4 && hw.m == 3) {
      examples = worked_examples(sim, hw, rng);
      sim.reset();
    }
    static const double kPopP[] = {1.0, 0.8, 0.5, 0.25};
    // Batches until the cycle budget is spent (the configurations differ a lot in cycles per batch).
    const std::uint64_t budget = opt.slow ? 40000000 : 1000000;
    for (int b = 0; sim.cycles() < budget && g_errors == 0; ++b) {
      sim.load_image(rng);
      const int n_runs = uni(rng, 1, opt.slow ? 12 : 6);
      std::vector<TestRun> runs;
      for (int r = 0; r < n_runs; ++r) runs.push_back(random_run(hw, rng, 6000, hw.ifmap_depth));
      // One batch in eight is cut short by a reset somewhere in its first few thousand cycles.
      const std::uint64_t reset_at = chance(rng, 0.125) ? std::uint64_t(uni(rng, 1, 3000)) : 0;
      run_batch(sim, hw, runs, rng, kPopP[uni(rng, 0, 3)], chance(rng, 0.3), reset_at, tot);
      ++tot.batches;
      if (reset_at == 0 && g_errors == 0 && b % 7 == 6) {
        sim.reset();
        ++tot.resets;
      }
    }
    cycles = sim.cycles();
    tot.reads = sim.rtl_reads();
    tot.stalls = sim.rtl_stall_cycles();
    if (g_errors == 0 && (sim.core_reads() != tot.reads || sim.core_stall_cycles() != tot.stalls))
      fail("totals: RTL {} reads {} stall cycles, core {} reads {} stall cycles", tot.reads, tot.stalls,
           sim.core_reads(), sim.core_stall_cycles());
  } catch (const ProtocolError& e) {
    fail("core protocol error: {}", e.what());
  } catch (const std::exception& e) {
    fail("error: {}", e.what());
  }
  fmt::print("feeder_rtl_tb[{}]: {} seed {}: protocol checks {}; worked-example checks {}; {} batches {} runs {} "
             "resets; {} cycles, {} pops, {} SRAM reads, {} sel-stall cycles; {} mismatches\n",
             FLYCOL_RTL_CONFIG, g_errors == 0 ? "PASS" : "FAIL", opt.seed, protocol, examples, tot.batches, tot.runs,
             tot.resets, cycles, tot.pops, tot.reads, tot.stalls, g_errors);
  return g_errors == 0 ? 0 : 1;
}
