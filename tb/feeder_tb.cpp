// Testbench of the data feeder (docs/microarchitecture.md, sections 9.1, 9.2, 11): section 11's worked
// examples read by read, then random RUNs on random parameters against a direct im2col reference, on
// FeederCore + SramBank (the top's API) and on the Feeder SC_MODULE (modelled SRAM, random pop stalls).
// Usage: feeder_tb [--seed N] [--slow]
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <systemc>

#include "hw/common/protocol_error.h"
#include "hw/common/sram_bank.h"
#include "hw/feeder/feeder.h"
#include "hw/feeder/feeder_core.h"

using namespace flycol::hw;

namespace {

int g_errors = 0;
template <class... Args>
void fail(fmt::format_string<Args...> f, Args&&... args) {
  if (++g_errors <= 25) fmt::print(stderr, "MISMATCH: {}\n", fmt::format(f, std::forward<Args>(args)...));
}

using Rng = std::mt19937_64;
int uni(Rng& r, int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(r); }
bool chance(Rng& r, double p) { return std::uniform_real_distribution<double>(0.0, 1.0)(r) < p; }

// Distinct 16-bit values for any 65536 consecutive element indices (odd multiplier), so a
// misplaced element shows.
word_elem_t image_value(std::int64_t idx) { return word_elem_t((std::uint64_t(idx) * 40503u + 12345u) & 0xFFFFu); }

// ---------------------------------------------------------------------------------------------
// The layer behind a RUN and the reference computed from the layer, not from the RUN's fields.

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

// Element (tile index) that lane `lane` must deliver as its i-th element: the loops
// g, cy, cx, c, ky, kx of the spec, written out with the layer's strides and dilations.
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
  const std::int64_t ri = std::int64_t(t.rows - 1) * t.sx + std::int64_t(t.kx - 1) * t.dx + 1;
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

// A random RUN consistent with a real layer. Kernels wider than FD*M elements are left out when
// there is more than one lane: the spec's lockstep pop can deadlock them (hw/feeder/README.md).
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
    // The last context of a row may have fewer than ROWS real pixels: its lanes over-read into the
    // next row or the tail, as the compiler allows (section 12).
    const int tw = (n_cx - 1) * hw.rows + uni(rng, 1, hw.rows);
    TestRun t = layer_run(hw, kx, ky, sx, sy, dx, dy, n_c, n_cx, n_cy, n_kg, tw, uni(rng, 0, 3), uni(rng, 0, 2));
    if (t.reads + t.elems_per_lane > budget || t.last_word >= words) continue;
    return t;
  }
}

HwParams make_hw(int rows, int bus, int m, int fd, int pb, int depth) {
  HwParams p;
  p.rows = rows;
  p.bus_elems = bus;
  p.log2_bus = 0;
  while ((1 << p.log2_bus) < bus) ++p.log2_bus;
  p.m = m;
  p.lane_fifo_depth = fd;
  p.pattern_bits = pb;
  p.ifmap_depth = depth;
  return p;
}

HwParams random_hw(Rng& rng, int depth_elems) {
  static const int kBus[] = {4, 8, 16, 32, 64}, kRows[] = {1, 3, 4, 16}, kFd[] = {1, 2, 4}, kPb[] = {16, 32, 64};
  const int bus = kBus[uni(rng, 0, 4)];
  return make_hw(kRows[uni(rng, 0, 3)], bus, uni(rng, 1, 4), kFd[uni(rng, 0, 2)], kPb[uni(rng, 0, 2)],
                 depth_elems / bus);
}

std::string hw_name(const HwParams& p) {
  return fmt::format("B={} ROWS={} M={} FD={} PB={}", p.bus_elems, p.rows, p.m, p.lane_fifo_depth, p.pattern_bits);
}

std::string run_name(const TestRun& t) {
  return fmt::format("{}x{} s{}x{} d{}x{} c={} cx={} cy={} kg={} Wt={} Ht={}", t.kx, t.ky, t.sx, t.sy, t.dx, t.dy,
                     t.run.n_c, t.run.n_cx, t.run.n_cy, t.run.n_kg, t.wt, t.ht);
}

// The expected element streams of RUNs started one after the other; pops are lockstep over lanes.
class Scoreboard {
public:
  void expect(const TestRun* t) { q_.push_back({t, 0}); }
  bool empty() const { return q_.empty(); }
  // Checks one popped element per lane, given by lane_elem(l).
  template <class F>
  void check_pop(int rows, F&& lane_elem, const std::string& where) {
    if (q_.empty()) {
      fail("{}: element popped beyond the expected streams", where);
      return;
    }
    Entry& e = q_.front();
    for (int l = 0; l < rows; ++l) {
      const std::int64_t idx = ref_index(*e.t, l, e.popped);
      const elem_t want = elem_t(image_value(idx)), got = lane_elem(l);
      if (got != want)
        fail("{}: run {} lane {} element {}: got {:#06x}, want {:#06x} (tile index {})", where, run_name(*e.t), l,
             e.popped, got, want, idx);
    }
    ++popped_;
    if (++e.popped == e.t->elems_per_lane) q_.pop_front();
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
  std::uint64_t runs = 0, elems = 0, reads = 0, cycles = 0, stall_cycles = 0;
};

// ---------------------------------------------------------------------------------------------
// (a) The worked examples of section 11.

struct LaneEx {
  bool any;
  int s;
  std::vector<int> pos;
};
struct ReadEx {
  std::int64_t ptr;
  int addr, go, j, b;
  LaneEx lane[4];
};
struct Example {
  const char* name;
  int wt, sx, dx, n_ky;
  std::vector<ReadEx> reads;
};

const LaneEx kNone{false, 0, {}};

int worked_examples() {
  const std::vector<Example> examples = {
      {"stride 1, dilation 1, tile width 10",
       10, 1, 1, 3,
       {{0, 0, 0, 0, +0, {{true, 0, {0, 1, 2}}, {true, 1, {1, 2, 3}}, {true, 2, {2, 3, 4}}, {true, 3, {3, 4, 5}}}},
        {10, 1, 2, 0, +2, {{true, 2, {2, 3, 4}}, {true, 3, {3, 4, 5}}, {true, 4, {4, 5, 6}}, {true, 5, {5, 6, 7}}}},
        {20, 2, 4, 0, +4, {{true, 4, {4, 5, 6}}, {true, 5, {5, 6, 7}}, {true, 6, {6, 7}}, {true, 7, {7}}}},
        {28, 3, 4, 1, -4, {kNone, kNone, {true, -2, {0}}, {true, -1, {0, 1}}}}}},
      {"stride 2, tile width 12",
       12, 2, 1, 2,
       {{0, 0, 0, 0, +0, {{true, 0, {0, 1, 2}}, {true, 2, {2, 3, 4}}, {true, 4, {4, 5, 6}}, {true, 6, {6, 7}}}},
        {8, 1, 0, 1, -8, {kNone, kNone, kNone, {true, -2, {0}}}},
        {12, 1, 4, 0, +4, {{true, 4, {4, 5, 6}}, {true, 6, {6, 7}}, kNone, kNone}},
        {20, 2, 4, 1, -4, {kNone, {true, -2, {0}}, {true, 0, {0, 1, 2}}, {true, 2, {2, 3, 4}}}}}},
      {"dilation 2, tile width 12",
       12, 1, 2, 2,
       {{0, 0, 0, 0, +0, {{true, 0, {0, 2, 4}}, {true, 1, {1, 3, 5}}, {true, 2, {2, 4, 6}}, {true, 3, {3, 5, 7}}}},
        {24, 3, 0, 0, +0, {{true, 0, {0, 2, 4}}, {true, 1, {1, 3, 5}}, {true, 2, {2, 4, 6}}, {true, 3, {3, 5, 7}}}}}},
  };
  const HwParams hw = make_hw(4, 8, 3, 4, 64, 64);
  int checked = 0;
  for (const Example& ex : examples) {
    const std::string where = fmt::format("worked example \"{}\"", ex.name);
    // dy = 2 for the dilated example: step_ky = 2 * 12 (the spec's note under the table).
    const int dy = ex.dx;
    TestRun t = layer_run(hw, 3, ex.n_ky, ex.sx, 1, ex.dx, dy, 1, 1, 1, 1, 4, 0, 0);
    t.wt = ex.wt;  // the tables fix the tile width; steps follow from it
    t.ht = (ex.n_ky - 1) * dy + 1;
    t.run.step_cy = std::uint32_t(ex.wt);
    t.run.step_c = std::uint32_t(t.ht * ex.wt);
    t.run.step_ky = std::uint32_t(dy * ex.wt);
    finish_run(t);
    if (t.run.region != std::uint32_t(3 * ex.sx + 2 * ex.dx + 1)) fail("{}: region {}", where, t.run.region);

    SramBank bank("ifmap", hw.ifmap_depth, hw.bus_elems);
    for (int a = 0; a < hw.ifmap_depth; ++a)
      for (int e = 0; e < hw.bus_elems; ++e) bank.poke(a, e, image_value(a * hw.bus_elems + e));
    FeederCore f(hw);
    Scoreboard sb;
    f.start(t.run);
    sb.expect(&t);
    std::size_t issued = 0, sel_idx = 0;
    std::vector<std::uint64_t> took(ex.reads.size() * 4, 0);
    for (int cycle = 0; cycle < 200 && (f.busy() || !sb.empty() || cycle == 0); ++cycle) {
      const bool pop = f.all_lanes_have_elem();
      // Start in cycle 0, read in 1, word in SEL in 2, groups in the FIFOs from 3.
      if (pop && sb.popped() == 0 && &ex == &examples[0] && cycle != 3)
        fail("{}: first element in cycle {}, want 3", where, cycle);
      if (pop) sb.check_pop(hw.rows, [&](int l) { return f.lane_elem(l); }, where);
      f.set_pop(pop);
      f.eval(bank);
      if (f.issuing()) {
        if (cycle == 0) fail("{}: a read in the start cycle", where);
        if (issued == 0 && cycle != 1) fail("{}: first read in cycle {}, want 1", where, cycle);
        const IcRead rd = f.ic().read();
        if (issued >= ex.reads.size()) {
          fail("{}: more reads than the table's {}", where, ex.reads.size());
        } else {
          const ReadEx& want = ex.reads[issued];
          if (rd.ptr != want.ptr || rd.addr != want.addr || rd.go != want.go || rd.j != want.j || rd.b != want.b)
            fail("{}: read {}: ptr {} addr {} go {} j {} b {}, want ptr {} addr {} go {} j {} b {}", where, issued,
                 rd.ptr, rd.addr, rd.go, rd.j, rd.b, want.ptr, want.addr, want.go, want.j, want.b);
          if (rd.flush != (issued + 1 == ex.reads.size())) fail("{}: read {} flush {}", where, issued, rd.flush);
          ++checked;
        }
        ++issued;
      }
      if (f.sel_valid() && sel_idx < ex.reads.size()) {
        for (int l = 0; l < 4; ++l) {
          took[sel_idx * 4 + std::size_t(l)] |= f.lane(l).took_mask();
          const LaneEx& le = ex.reads[sel_idx].lane[l];
          const int s = f.sel_b() + l * int(t.run.lane_stride);
          if (le.any && s != le.s) fail("{}: read {} lane {}: s = {}, want {}", where, sel_idx, l, s, le.s);
        }
      }
      const bool word_leaves = f.sel_valid() && !f.stalling();
      f.tick();
      bank.tick();
      if (word_leaves) {
        // "lane 2 holds two in its intermediate registers after the first" (of row ky2's reads)
        if (&ex == &examples[0] && sel_idx == 2 && f.lane(2).fill() != 2)
          fail("{}: lane 2 holds {} elements after read 2, want 2", where, f.lane(2).fill());
        ++sel_idx;
      }
    }
    if (issued != ex.reads.size()) fail("{}: {} reads, want {}", where, issued, ex.reads.size());
    if (f.busy() || !sb.empty()) fail("{}: did not finish", where);
    for (std::size_t r = 0; r < ex.reads.size(); ++r)
      for (int l = 0; l < 4; ++l) {
        std::uint64_t want = 0;
        for (int p : ex.reads[r].lane[l].pos) want |= std::uint64_t(1) << p;
        if (took[r * 4 + std::size_t(l)] != want)
          fail("{}: read {} lane {} took positions {:#x}, want {:#x}", where, r, l, took[r * 4 + std::size_t(l)],
               want);
        ++checked;
      }
  }
  return checked;
}

// Misuse must raise hw::ProtocolError, not run on silently.
int protocol_checks() {
  const HwParams hw = make_hw(4, 8, 3, 4, 16, 64);
  const TestRun good = layer_run(hw, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 4, 0, 0);
  int checked = 0;
  auto expect_error = [&](const char* what, auto&& action) {
    ++checked;
    try {
      action();
    } catch (const ProtocolError&) {
      return;
    }
    fail("protocol check \"{}\": no ProtocolError", what);
  };
  auto bad_start = [&](const char* what, auto&& edit) {
    RunDesc r = good.run;
    edit(r);
    expect_error(what, [&] { FeederCore(hw).start(r); });
  };
  bad_start("pattern zero", [](RunDesc& r) { r.pattern = 0; });
  bad_start("pattern wider than PB", [](RunDesc& r) { r.pattern = 0x10003, r.n_kx = 3; });
  bad_start("popcount(pattern) != n_kx", [](RunDesc& r) { r.n_kx = 2; });
  bad_start("region misses the last lane", [](RunDesc& r) { r.region -= 1; });
  bad_start("n_c zero", [](RunDesc& r) { r.n_c = 0; });
  bad_start("last read beyond the buffer", [](RunDesc& r) { r.step_ky = 1000; });
  expect_error("start while busy", [&] {
    FeederCore f(hw);
    SramBank bank("ifmap", hw.ifmap_depth, hw.bus_elems);
    f.start(good.run);
    f.eval(bank);
    f.tick();
    f.start(good.run);
  });
  expect_error("pop while a lane is empty", [&] { FeederCore(hw).set_pop(true); });
  return checked;
}

// ---------------------------------------------------------------------------------------------
// (b1) Random RUNs on FeederCore with an SramBank, back to back on one feeder.

// Runs `runs` on one feeder; returns the cycles from the first start to the last pop.
std::uint64_t core_runs(const HwParams& hw, const std::vector<TestRun>& runs, Rng& rng, double pop_p, bool gaps,
                        Totals& tot) {
  const std::string where = fmt::format("core[{}]", hw_name(hw));
  SramBank bank("ifmap", hw.ifmap_depth, hw.bus_elems);
  for (int a = 0; a < hw.ifmap_depth; ++a)
    for (int e = 0; e < hw.bus_elems; ++e) bank.poke(a, e, image_value(std::int64_t(a) * hw.bus_elems + e));
  FeederCore f(hw);
  Scoreboard sb;
  std::size_t next = 0;
  std::uint64_t reads_at_start = 0, expect_reads = 0, last_pop = 0, last_progress = 0;
  int wait = gaps ? uni(rng, 0, 3) : 0;
  const TestRun* current = nullptr;
  std::uint64_t cycle = 0;
  for (;; ++cycle) {
    if (!f.busy() && next < runs.size() && wait-- <= 0) {
      if (current && f.sram_reads() - reads_at_start != current->reads)
        fail("{}: run {}: {} SRAM reads, want {}", where, run_name(*current), f.sram_reads() - reads_at_start,
             current->reads);
      current = &runs[next++];
      f.start(current->run);
      sb.expect(current);
      reads_at_start = f.sram_reads();
      expect_reads += current->reads;
      wait = gaps ? (chance(rng, 0.5) ? 0 : uni(rng, 1, 5)) : 0;
      last_progress = cycle;
    }
    const bool pop = f.all_lanes_have_elem() && chance(rng, pop_p);
    if (pop) {
      sb.check_pop(hw.rows, [&](int l) { return f.lane_elem(l); }, where);
      last_pop = last_progress = cycle;
    }
    f.set_pop(pop);
    f.eval(bank);
    if (f.issuing()) last_progress = cycle;
    f.tick();
    bank.tick();
    if (next == runs.size() && sb.empty() && !f.busy()) break;
    if (cycle - last_progress > 20000) {
      fail("{}: watchdog: no read or pop for 20000 cycles (run {})", where, current ? run_name(*current) : "-");
      return 0;
    }
  }
  if (current && f.sram_reads() - reads_at_start != current->reads)
    fail("{}: run {}: {} SRAM reads, want {}", where, run_name(*current), f.sram_reads() - reads_at_start,
         current->reads);
  // Nothing may follow the expected streams.
  for (int i = 0; i < 8; ++i) {
    f.set_pop(false);
    f.eval(bank);
    if (f.issuing()) fail("{}: SRAM read after the last RUN", where);
    f.tick();
    bank.tick();
  }
  for (int l = 0; l < hw.rows; ++l)
    if (f.lane(l).has_elem() || f.lane(l).fill() != 0) fail("{}: lane {} holds elements after the end", where, l);
  if (f.busy()) fail("{}: busy after the end", where);
  if (bank.reads() != expect_reads || f.sram_reads() != expect_reads)
    fail("{}: {} bank reads, {} counted, want {}", where, bank.reads(), f.sram_reads(), expect_reads);
  tot.runs += runs.size();
  tot.elems += sb.popped();
  tot.reads += f.sram_reads();
  tot.cycles += cycle;
  tot.stall_cycles += f.sel_stall_cycles();
  return last_pop + 1;
}

// Cycles per element of one lane for a layer on the reference parameters, popping every cycle.
double cycles_per_elem(int k, int s, int d) {
  const HwParams hw = make_hw(16, 16, 3, 4, 64, 4096);
  const TestRun t = layer_run(hw, k, k, s, s, d, d, 8, 4, 4, 1, 64, 0, 0);
  Rng rng(1);
  Totals tot;
  const std::uint64_t cycles = core_runs(hw, {t}, rng, 1.0, false, tot);
  return double(cycles) / double(t.elems_per_lane);
}

// ---------------------------------------------------------------------------------------------
// (b2) Random RUNs on the Feeder SC_MODULE: the harness models the SRAM and pops with random stalls.

int g_active_harnesses = 0;

SC_MODULE(Harness) {
  Feeder dut;
  sc_core::sc_signal<bool> rst_n{"rst_n", false}, start{"start"}, sram_req{"sram_req"}, lane_valid{"lane_valid"};
  sc_core::sc_signal<bool> pop{"pop"}, pop_en{"pop_en"}, busy{"busy"};
  sc_core::sc_signal<FeederRun> run_sig{"run_sig"};
  sc_core::sc_signal<std::uint32_t> sram_addr{"sram_addr"};
  sc_core::sc_vector<sc_core::sc_signal<word_elem_t>> rdata;
  sc_core::sc_vector<sc_core::sc_signal<elem_t>> lane_data;

  SC_HAS_PROCESS(Harness);
  Harness(sc_core::sc_module_name name, const HwParams& hw, sc_core::sc_clock& clk, std::vector<TestRun> runs,
          std::uint64_t seed, double pop_p)
      : sc_core::sc_module(name), dut("dut", hw), rdata("rdata", std::size_t(hw.bus_elems)),
        lane_data("lane_data", std::size_t(hw.rows)), hw_(hw), runs_(std::move(runs)), rng_(seed), pop_p_(pop_p),
        where_(fmt::format("sc[{}]", hw_name(hw))) {
    dut.clk_i(clk);
    dut.rst_ni(rst_n);
    dut.start_i(start);
    dut.run_i(run_sig);
    dut.sram_req_o(sram_req);
    dut.sram_addr_o(sram_addr);
    dut.sram_rdata_i.bind(rdata);
    dut.lane_valid_o(lane_valid);
    dut.lane_data_o.bind(lane_data);
    dut.pop_i(pop);
    dut.busy_o(busy);
    SC_METHOD(on_clock);
    sensitive << clk.posedge_event();
    dont_initialize();
    SC_METHOD(pop_comb);
    sensitive << lane_valid << pop_en;
    ++g_active_harnesses;
  }

  Totals totals;

private:
  void pop_comb() { pop.write(lane_valid.read() && pop_en.read()); }

  void finish() {
    done_ = true;
    if (--g_active_harnesses == 0) sc_core::sc_stop();
  }

  void check_run_reads() {
    if (current_ && run_reads_ != current_->reads)
      fail("{}: run {}: {} SRAM reads, want {}", where_, run_name(*current_), run_reads_, current_->reads);
  }

  void on_clock() {
    if (done_) return;
    ++cycle_;
    if (cycle_ <= 3) {
      if (cycle_ == 3) rst_n.write(true);
      return;
    }
    // The ifmap SRAM: a read in this cycle shows on rdata from the next cycle on, then holds.
    if (sram_req.read()) {
      const std::uint32_t a = sram_addr.read();
      if (!busy.read()) fail("{}: SRAM read while not busy", where_);
      if (exp_addr_.empty()) {
        fail("{}: SRAM read of word {} beyond the expected reads", where_, a);
      } else {
        if (std::int64_t(a) != exp_addr_.front())
          fail("{}: SRAM read {} of run {}: word {}, want {}", where_, run_reads_, current_ ? run_name(*current_) : "-",
               a, exp_addr_.front());
        exp_addr_.pop_front();
      }
      if (int(a) < hw_.ifmap_depth)
        for (int e = 0; e < hw_.bus_elems; ++e)
          rdata[std::size_t(e)].write(image_value(std::int64_t(a) * hw_.bus_elems + e));
      ++run_reads_;
      ++totals.reads;
      last_progress_ = cycle_;
    }
    if (pop.read()) {
      sb_.check_pop(hw_.rows, [&](int l) { return lane_data[std::size_t(l)].read(); }, where_);
      last_progress_ = cycle_;
    }
    if (start.read()) {
      start.write(false);  // the feeder latches the RUN at this edge
    } else if (next_ < runs_.size() && !busy.read() && wait_-- <= 0) {
      check_run_reads();
      current_ = &runs_[next_++];
      FeederRun fr;
      fr.run = current_->run;
      run_sig.write(fr);
      start.write(true);
      sb_.expect(current_);
      run_reads_ = 0;
      for_each_region_row(*current_, [&](std::int64_t w0, std::int64_t w1) {
        for (std::int64_t w = w0; w <= w1; ++w) exp_addr_.push_back(w);
      });
      wait_ = chance(rng_, 0.5) ? 0 : uni(rng_, 1, 6);
      last_progress_ = cycle_;
    }
    pop_en.write(chance(rng_, pop_p_));
    if (next_ == runs_.size() && !start.read() && sb_.empty() && !busy.read()) {
      // Drain check: no element, no read, not busy for a few cycles after the last expected pop.
      if ((lane_valid.read() && !pop.read()) || sram_req.read()) fail("{}: activity after the last RUN", where_);
      if (++drain_ == 8) {
        check_run_reads();
        if (!exp_addr_.empty()) fail("{}: {} expected SRAM reads missing", where_, exp_addr_.size());
        totals.runs = runs_.size();
        totals.elems = sb_.popped();
        totals.cycles = cycle_;
        totals.stall_cycles = dut.core().sel_stall_cycles();
        finish();
      }
      return;
    }
    if (cycle_ - last_progress_ > 20000) {
      fail("{}: watchdog: no read or pop for 20000 cycles (run {})", where_, current_ ? run_name(*current_) : "-");
      finish();
    }
  }

  HwParams hw_;
  std::vector<TestRun> runs_;
  Rng rng_;
  double pop_p_;
  std::string where_;
  Scoreboard sb_;
  std::deque<std::int64_t> exp_addr_;
  const TestRun* current_ = nullptr;
  std::size_t next_ = 0;
  int wait_ = 0, drain_ = 0;
  std::uint64_t cycle_ = 0, last_progress_ = 0, run_reads_ = 0;
  bool done_ = false;
};

struct Options {
  std::uint64_t seed = 0;
  bool seed_given = false;
  bool slow = false;
};

Options parse_args(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--seed") == 0 && i + 1 < argc) {
      o.seed = std::strtoull(argv[++i], nullptr, 0);
      o.seed_given = true;
    } else if (std::strcmp(argv[i], "--slow") == 0) {
      o.slow = true;
    } else {
      fmt::print(stderr, "usage: {} [--seed N] [--slow]\n", argv[0]);
      std::exit(2);
    }
  }
  if (!o.seed_given) o.seed = std::random_device{}();
  return o;
}

double pick_pop_p(Rng& rng) {
  static const double kP[] = {1.0, 0.8, 0.5, 0.25};
  return kP[uni(rng, 0, 3)];
}

}  // namespace

int sc_main(int argc, char** argv) {
  const Options opt = parse_args(argc, argv);
  fmt::print("feeder_tb: seed {}{}\n", opt.seed, opt.slow ? " (slow)" : "");
  Rng rng(opt.seed);
  const int depth_elems = 1 << 18;  // ifmap image per hardware configuration, in elements
  int examples = 0, protocol = 0;
  Totals core_tot, sc_tot;
  int core_configs = 0;
  double cpe[3] = {0, 0, 0};
  std::vector<std::unique_ptr<Harness>> harnesses;
  try {
    examples = worked_examples();
    protocol = protocol_checks();

    const int n_core_cfg = opt.slow ? 1500 : 150, n_core_runs = opt.slow ? 30 : 16;
    for (int i = 0; i < n_core_cfg; ++i) {
      const HwParams hw = i == 0 ? make_hw(16, 16, 3, 4, 64, depth_elems / 16) : random_hw(rng, depth_elems);
      std::vector<TestRun> runs;
      for (int r = 0; r < n_core_runs; ++r) runs.push_back(random_run(hw, rng, 8000, hw.ifmap_depth));
      core_runs(hw, runs, rng, pick_pop_p(rng), true, core_tot);
      ++core_configs;
    }
    cpe[0] = cycles_per_elem(3, 1, 1);
    cpe[1] = cycles_per_elem(1, 2, 1);
    cpe[2] = cycles_per_elem(3, 1, 2);

    sc_core::sc_clock clk("clk", 10, sc_core::SC_NS);
    const int n_sc_cfg = opt.slow ? 100 : 16, n_sc_runs = opt.slow ? 30 : 10;
    for (int i = 0; i < n_sc_cfg; ++i) {
      HwParams hw = i == 0 ? make_hw(16, 16, 3, 4, 64, depth_elems / 16) : random_hw(rng, depth_elems);
      std::vector<TestRun> runs;
      for (int r = 0; r < n_sc_runs; ++r) runs.push_back(random_run(hw, rng, 5000, hw.ifmap_depth));
      harnesses.push_back(std::make_unique<Harness>(fmt::format("h{}", i).c_str(), hw, clk, std::move(runs), rng(),
                                                    pick_pop_p(rng)));
    }
    sc_core::sc_start(sc_core::sc_time(50, sc_core::SC_MS));
    if (g_active_harnesses != 0) fail("sc: {} harnesses did not finish", g_active_harnesses);
    for (const auto& h : harnesses) {
      sc_tot.runs += h->totals.runs;
      sc_tot.elems += h->totals.elems;
      sc_tot.reads += h->totals.reads;
      sc_tot.cycles = std::max(sc_tot.cycles, h->totals.cycles);
      sc_tot.stall_cycles += h->totals.stall_cycles;
    }
  } catch (const std::exception& e) {
    fmt::print(stderr, "ERROR: {}\n", e.what());
    ++g_errors;
  }
  fmt::print("feeder_tb: {} seed {}: worked examples {} checks; protocol {} checks; core {} configs {} runs {} "
             "pops {} reads {} sel-stall cycles; sc {} configs {} runs {} pops {} reads; cycles/element (B=16 ROWS=16 M=3) "
             "3x3s1 {:.2f} 1x1s2 {:.2f} 3x3d2 {:.2f}; {} mismatches\n",
             g_errors == 0 ? "PASS" : "FAIL", opt.seed, examples, protocol, core_configs, core_tot.runs, core_tot.elems,
             core_tot.reads, core_tot.stall_cycles, harnesses.size(), sc_tot.runs, sc_tot.elems, sc_tot.reads, cpe[0],
             cpe[1], cpe[2], g_errors);
  return g_errors == 0 ? 0 : 1;
}
