// Testbench of the data feeder (docs/microarchitecture.md, sections 9.1, 9.2 and 11), one for all
// views. Stimulus: RUNs of real layers (kernels, strides, dilations, channels, contexts, groups; the
// last context of a row with fewer than ROWS real pixels; now and then a region wider than the lanes
// need) on random parameters and a random ifmap image, back to back with random gaps, pops with a
// random rate and bursty consumer pauses (so every lane FIFO fills), resets in the middle of a batch.
// The reference, written here from the layer (not from the RUN's fields): the element every lane
// must deliver at every pop (im2col: the loops g, cy, cx, c, ky, kx with the layer's strides and
// dilations), and the SRAM words the feeder must read, in order (every region row). Checked: every
// popped element, every SRAM read address, the reads of each RUN, no read while not busy and no
// activity after the last RUN; section 11's worked examples (read addresses, the first element three
// cycles after the start; on the core also every index-counter read and the positions each lane
// takes); directed protocol errors must be refused.
//   feeder_tb [--view core|sc|all] [--seed N] [--sets N] [--slow]   FeederCore on an SRAM bank (150
//         random parameter sets) and the Feeder SC_MODULE with a modelled SRAM (16); --slow: 1500, 100
//   feeder_rtl_tb_<cfg> [--config FILE] [--seed N] [--cycles N] [--slow] [--no-assertions]   feeder.sv
//         Verilated for one configuration (1 M cycles; --slow 40 M; --no-assertions: a netlist without)
#include <algorithm>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "hw/common/command.h"
#include "hw/common/hw_params.h"
#include "hw/common/protocol_error.h"
#include "hw/feeder/feeder_params.h"
#include "tb/common/bench_main.h"

#include "tb/common/views.h"
#ifdef FLYCOL_VTOP
#include "sim/rtlgen/rtl_types.h"
#else
#include "hw/common/sram_bank.h"
#include "hw/feeder/feeder.h"
#include "hw/feeder/feeder_core.h"
#endif

using namespace flycol;
using namespace flycol::hw;

namespace {

// ---------------------------------------------------------------------------------------------
// The layer behind a RUN and the reference computed from the layer.

struct TestRun {
  RunDesc run;
  int rows = 1, bus = 1;
  int kx = 1, ky = 1, sx = 1, sy = 1, dx = 1, dy = 1;
  int wt = 1, ht = 1;  // tile width and height
  int kc = 1;          // kernel columns per chunk (section 9.2); kc >= kx: the row is not split
  int extra_region = 0;  // elements of the last chunk's region beyond what the lanes need
  // Pixel packing: contexts are ROWS consecutive pixels of `th_seg` output rows of width `tw`
  // (row-major), one such segment per cy; 0 without packing. pack_extra: the lanes' windows
  // reach that much further (the wraps' jumps), in every chunk's region.
  int tw = 0, th_seg = 0, pack_extra = 0;
  std::uint64_t elems_per_lane = 0;
  std::uint64_t reads = 0;     // reference SRAM reads
  std::int64_t last_word = 0;  // highest word read
};

std::uint64_t pattern_of(int kx, int dx) {
  std::uint64_t p = 0;
  for (int i = 0; i < kx; ++i) p |= std::uint64_t(1) << (i * dx);
  return p;
}

// Element (tile index) that lane `lane` must deliver as its i-th element.
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
  std::int64_t ox = cx * t.rows + lane, oy = cy;
  if (t.tw > 0) {  // packed: the lane's pixel in row-major order over the segment's rows
    oy = cy * t.th_seg + ox / t.tw;
    ox %= t.tw;
  }
  return c * t.ht * t.wt + (oy * t.sy + ky * t.dy) * t.wt + ox * t.sx + kx * t.dx;
}

// Calls f(first_word, last_word) for every region row, in read order: one per kernel-column chunk
// of every kernel row, each spanning what the ROWS lanes take from the chunk's columns (from the
// layer and t.kc, not from the RUN's region fields).
template <class F>
void for_each_region_row(const TestRun& t, F&& f) {
  const int chunks = (t.kx + t.kc - 1) / t.kc;
  for (std::uint32_t g = 0; g < t.run.n_kg; ++g)
    for (std::int64_t cy = 0; cy < t.run.n_cy; ++cy)
      for (std::int64_t cx = 0; cx < t.run.n_cx; ++cx)
        for (std::int64_t c = 0; c < t.run.n_c; ++c)
          for (std::int64_t ky = 0; ky < t.run.n_ky; ++ky)
            for (int q = 0; q < chunks; ++q) {
              const int cols = std::min(t.kc, t.kx - q * t.kc);
              std::int64_t oy = cy, ox = cx * t.rows;
              if (t.tw > 0) {
                oy = cy * t.th_seg + ox / t.tw;
                ox %= t.tw;
              }
              const std::int64_t start =
                  c * t.ht * t.wt + (oy * t.sy + ky * t.dy) * t.wt + ox * t.sx + std::int64_t(q) * t.kc * t.dx;
              std::int64_t ri = std::int64_t(t.rows - 1) * t.sx + std::int64_t(cols - 1) * t.dx + 1 + t.pack_extra;
              if (q + 1 == chunks) ri += t.extra_region;
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

// A RUN of a layer; its kernel rows are split into chunks of `kc` columns (0: not split).
TestRun layer_run(const HwParams& hw, int kx, int ky, int sx, int sy, int dx, int dy, int n_c, int n_cx, int n_cy,
                  int n_kg, int tw, int extra_w, int extra_h, int kc = 0) {
  TestRun t;
  t.kc = kc > 0 && kc < kx ? kc : kx;
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
  r.lane_stride = std::uint32_t(sx);
  const int chunks = (kx + t.kc - 1) / t.kc, last = kx - (chunks - 1) * t.kc;
  r.region = std::uint32_t((hw.rows - 1) * sx + (last - 1) * dx + 1);
  r.pattern = pattern_of(last, dx);
  if (chunks > 1) {
    r.n_kxc = std::uint32_t(chunks);
    r.step_kxc = std::uint32_t(t.kc * dx);
    r.region_kxc = std::uint32_t((hw.rows - 1) * sx + (t.kc - 1) * dx + 1);
    r.pattern_kxc = pattern_of(t.kc, dx);
  }
  finish_run(t);
  return t;
}

// A packed RUN (section 9.2, pixel packing): n_cy segments of th_seg output rows of width tw, each
// walked as ceil(th_seg*tw / ROWS) contexts of ROWS consecutive pixels; the RUN fields follow from
// the geometry as the compiler derives them.
TestRun packed_run(const HwParams& hw, int kx, int ky, int sx, int sy, int dx, int dy, int n_c, int tw, int th_seg,
                   int n_cy, int n_kg, int extra_w, int extra_h, int kc) {
  TestRun t = layer_run(hw, kx, ky, sx, sy, dx, dy, n_c, 1, n_cy * th_seg, n_kg, tw, extra_w, extra_h, kc);
  t.tw = tw, t.th_seg = th_seg;
  RunDesc& r = t.run;
  const std::uint32_t jump = std::uint32_t(sy * t.wt - tw * sx);
  r.n_cy = std::uint32_t(n_cy);
  r.n_cx = std::uint32_t((th_seg * tw + hw.rows - 1) / hw.rows);
  r.step_cy = std::uint32_t(th_seg * sy * t.wt);
  r.pack_w = std::uint32_t(tw);
  r.pack_r = std::uint32_t(hw.rows % tw);
  r.pack_jump = jump;
  r.step_cx = std::uint32_t(hw.rows * sx) + std::uint32_t(hw.rows / tw) * jump;
  t.pack_extra = int(pack_max_wraps(std::uint32_t(tw), hw.rows) * jump);
  r.region += std::uint32_t(t.pack_extra);
  if (r.n_kxc > 1) r.region_kxc += std::uint32_t(t.pack_extra);
  finish_run(t);
  return t;
}

// A random RUN consistent with a real layer. With more than one lane, kernel rows wider than FD*M
// columns are split into chunks of a random width up to FD*M (section 9.2); one RUN in four has a
// kernel row up to the whole pattern (kx up to PB), the rest kx <= 7.
TestRun random_run(const HwParams& hw, tb::Rand& r, std::uint64_t budget, std::int64_t words) {
  for (;;) {
    const int lane_elems = hw.rows > 1 ? hw.lane_fifo_depth * hw.m : 64;
    const int kx = r.chance(0.25) ? r.uniform(1, hw.pattern_bits) : r.uniform(1, std::min(7, hw.pattern_bits));
    int kc = 0;
    if (kx > lane_elems || (kx > 1 && r.chance(0.1))) kc = r.uniform(1, std::min(kx, lane_elems));
    const int dx = kx > 1 ? r.uniform(1, std::min(8, (hw.pattern_bits - 1) / (kx - 1))) : r.uniform(1, 8);
    const int ky = r.uniform(1, 7), dy = r.uniform(1, 8);
    const int sx = r.chance(0.1) ? r.uniform(5, 8) : r.uniform(1, 4);
    const int sy = r.chance(0.1) ? r.uniform(5, 8) : r.uniform(1, 4);
    const int n_c = r.uniform(1, 6), n_cx = r.uniform(1, 3), n_cy = r.uniform(1, 3), n_kg = r.uniform(1, 3);
    // The last context of a row may have fewer than ROWS real pixels: its lanes over-read into the
    // next row or the tail, as the compiler allows (section 12).
    const int tw = (n_cx - 1) * hw.rows + r.uniform(1, hw.rows);
    // One RUN in three packs pixels across output rows, down to the narrowest rows the lanes'
    // comparators allow (hw::pack_max_wraps <= kPackWraps).
    if (r.chance(0.33)) {
      int tw_min = 1;
      while (pack_max_wraps(std::uint32_t(tw_min), hw.rows) > std::uint32_t(kPackWraps)) ++tw_min;
      const int ptw = r.chance(0.5) ? r.uniform(tw_min, std::max(tw_min, hw.rows)) : r.uniform(tw_min, 3 * hw.rows + 5);
      const int extra_w = r.uniform(0, 3);
      // The next output row must not start left of where the row would continue (pack_jump >= 0,
      // as in every real layer: sy*Wt >= Tw*sx); a wide stride with sy = 1 cannot pack.
      if (sy * ((ptw - 1) * sx + (kx - 1) * dx + 1 + extra_w) < ptw * sx) continue;
      TestRun t = packed_run(hw, kx, ky, sx, sy, dx, dy, n_c, ptw, r.uniform(1, 4), r.uniform(1, 2), n_kg, extra_w,
                             r.uniform(0, 2), kc);
      if (t.reads + t.elems_per_lane > budget || t.last_word >= words) continue;
      return t;
    }
    TestRun t =
        layer_run(hw, kx, ky, sx, sy, dx, dy, n_c, n_cx, n_cy, n_kg, tw, r.uniform(0, 3), r.uniform(0, 2), kc);
    // Now and then a region wider than the lanes need (legal, never emitted by the compiler): its
    // last words hold no element for any lane, the one case in which a lane's blocked flush group
    // stalls the feeder (hw/feeder/README.md).
    if (r.chance(0.125)) {
      t.extra_region = r.uniform(1, 2 * hw.bus_elems);
      t.run.region += std::uint32_t(t.extra_region);
      finish_run(t);
    }
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

[[maybe_unused]] HwParams random_hw(tb::Rand& r, int depth_elems) {
  static const int kBus[] = {4, 8, 16, 32, 64}, kRows[] = {1, 3, 4, 13, 16}, kFd[] = {1, 2, 4}, kPb[] = {16, 32, 64};
  const int bus = kBus[r.uniform(0, 4)];
  return make_hw(kRows[r.uniform(0, 4)], bus, r.uniform(1, 4), kFd[r.uniform(0, 2)], kPb[r.uniform(0, 2)],
                 depth_elems / bus);
}

std::string hw_name(const HwParams& p) {
  return fmt::format("B={} ROWS={} M={} FD={} PB={}", p.bus_elems, p.rows, p.m, p.lane_fifo_depth, p.pattern_bits);
}

std::string run_name(const TestRun& t) {
  return fmt::format("{}x{} s{}x{} d{}x{} c={} cx={} cy={} kg={} Wt={} Ht={} region={} kc={}", t.kx, t.ky, t.sx, t.sy,
                     t.dx, t.dy, t.run.n_c, t.run.n_cx, t.run.n_cy, t.run.n_kg, t.wt, t.ht, t.run.region, t.kc) +
         (t.tw > 0 ? fmt::format(" packed Tw={} rows/segment={}", t.tw, t.th_seg) : std::string());
}

// The ifmap buffer's image (a real buffer holds whatever earlier tiles left: random everywhere).
struct Image {
  int depth, bus;
  std::vector<word_elem_t> mem;
  Image(int d, int b) : depth(d), bus(b), mem(std::size_t(d) * std::size_t(b)) {}
  word_elem_t at(std::int64_t idx) const { return mem[std::size_t(idx)]; }
};

// The expected element streams and SRAM reads of RUNs started one after the other.
class Scoreboard {
public:
  Scoreboard(const Image& img, tb::MismatchLog& log) : img_(img), log_(log) {}
  void expect(const TestRun* t) {
    q_.push_back({t, 0});
    for_each_region_row(*t, [&](std::int64_t w0, std::int64_t w1) {
      for (std::int64_t w = w0; w <= w1; ++w) reads_.push_back(w);
    });
  }
  void clear() {
    q_.clear();
    reads_.clear();
  }
  bool empty() const { return q_.empty(); }
  bool reads_done() const { return reads_.empty(); }
  // One popped element per lane.
  template <class F>
  void check_pop(int rows, F&& lane_elem) {
    if (q_.empty()) {
      log_.fail("element popped beyond the expected streams");
      return;
    }
    Entry& e = q_.front();
    for (int l = 0; l < rows; ++l) {
      const std::int64_t idx = ref_index(*e.t, l, e.popped);
      if (!log_.expect("lane element", std::uint64_t(lane_elem(l)), std::uint64_t(img_.at(idx)))) {
        log_.fail("  run {} lane {} element {} (tile index {})", run_name(*e.t), l, e.popped, idx);
        break;
      }
    }
    ++popped_;
    if (++e.popped == e.t->elems_per_lane) q_.pop_front();
  }
  // One SRAM read of word `a`.
  void check_read(std::uint32_t a) {
    if (reads_.empty()) {
      log_.fail("SRAM read of word {} beyond the expected reads", a);
      return;
    }
    log_.expect("SRAM read address", std::uint64_t(a), std::uint64_t(reads_.front()));
    reads_.pop_front();
  }
  std::uint64_t popped() const { return popped_; }

private:
  struct Entry {
    const TestRun* t;
    std::uint64_t popped;
  };
  const Image& img_;
  tb::MismatchLog& log_;
  std::deque<Entry> q_;
  std::deque<std::int64_t> reads_;
  std::uint64_t popped_ = 0;
};

struct Figures {
  std::uint64_t configs = 0, batches = 0, runs = 0, pops = 0, reads = 0, stalls = 0, resets = 0, cycles = 0;
  std::uint64_t example_checks = 0, directed = 0;
};

// ---------------------------------------------------------------------------------------------
// The run. A view offers: load(image) (the ifmap buffer); drive(start, run, pop, rst_n); after it
// lanes_valid(), lane(l), busy(), req() and addr() (the SRAM read of this cycle); edge(); fault();
// stalls() (selection-stage stall cycles so far, for the figures); stat_reads(&n) (the core's
// statistic, if the view has it); refuses(setup, bad) for the directed protocol errors.

template <class View>
class Bench {
public:
  Bench(View& v, const HwParams& hw, tb::Rand& r, tb::MismatchLog& log, Figures& fig)
      : v_(v), hw_(hw), r_(r), log_(log), fig_(fig), img_(hw.ifmap_depth, hw.bus_elems), sb_(img_, log) {}

  void load_image() {
    const std::uint64_t mask = hw_.elem_bits >= 32 ? 0xFFFFFFFFu : (std::uint64_t(1) << hw_.elem_bits) - 1;
    for (auto& w : img_.mem) w = word_elem_t(r_.bits(32) & mask);
    v_.load(img_);
  }

  void reset() {
    for (int i = 0; i < 2; ++i) cycle(false, nullptr, false, false);
    sb_.clear();
    ++fig_.resets;
  }

  // One batch: `runs` back to back with random gaps, pops with probability pop_p (with `bursty`,
  // pauses of tens of cycles too); cut by a reset after `reset_at` cycles when > 0.
  void batch(const std::vector<TestRun>& runs, double pop_p, bool bursty, std::uint64_t reset_at) {
    bool paused = false;
    std::size_t next = 0;
    int wait = r_.uniform(0, 3);
    const TestRun* current = nullptr;
    std::uint64_t run_reads = 0, stat0 = 0;
    const std::uint64_t first = t_;
    tb::Watchdog dog(20000);
    auto check_reads = [&] {
      if (current) log_.expect("SRAM reads of the RUN", run_reads, current->reads);
    };
    (void)v_.stat_reads(stat0);
    batch_reads_ = 0;
    for (;;) {
      if (reset_at != 0 && t_ - first == reset_at) {
        reset();
        return;
      }
      bool start = false;
      if (!v_.busy() && next < runs.size() && wait-- <= 0) {
        check_reads();
        current = &runs[next++];
        sb_.expect(current);
        run_reads = 0;
        wait = r_.chance(0.5) ? 0 : r_.uniform(1, 5);
        start = true;
        dog.progress();
        log_.note("start {}", run_name(*current));
      }
      if (bursty && r_.chance(1.0 / 24)) paused = !paused;
      const bool pop_wanted = !paused && r_.chance(pop_p);
      const bool read = cycle(start, start ? &current->run : nullptr, pop_wanted, true);
      run_reads += read;
      if (read || last_pop_) dog.progress();
      if (next == runs.size() && sb_.empty() && !v_.busy()) break;
      if (!dog.tick(log_, "an SRAM read or a pop")) return;
      if (log_.errors() >= std::uint64_t(tb::MismatchLog::kMaxReported)) return;
    }
    check_reads();
    log_.expect_true(sb_.reads_done(), "expected SRAM reads missing at the end of the batch");
    // Nothing may follow the expected streams.
    for (int i = 0; i < 8; ++i) {
      v_.drive(false, nullptr, false, true);
      if (v_.lanes_valid() || v_.req() || v_.busy()) log_.fail("activity after the last RUN");
      v_.edge();
      ++t_;
    }
    std::uint64_t stat1 = 0;
    if (v_.stat_reads(stat1)) log_.expect("sram_reads() statistic of the batch", stat1 - stat0, batch_reads_);
    batch_reads_ = 0;
    fig_.runs += runs.size();
  }

  // One cycle: drive, check the pop and the SRAM read, clock. Returns whether a read was issued.
  bool cycle(bool start, const RunDesc* run, bool pop_wanted, bool rst_n) {
    log_.at(fig_.cycles);
    v_.drive(start, run, false, rst_n);
    const bool pop = rst_n && pop_wanted && v_.lanes_valid();
    if (pop) {
      v_.drive(start, run, true, rst_n);
      sb_.check_pop(hw_.rows, [&](int l) { return v_.lane(l); });
      ++fig_.pops;
    }
    last_pop_ = pop;
    const bool req = rst_n && v_.req();
    if (req) {
      if (!start && !v_.busy()) log_.fail("SRAM read while not busy");
      sb_.check_read(v_.addr());
      if (int(v_.addr()) >= hw_.ifmap_depth) log_.fail("SRAM address {} beyond the buffer", v_.addr());
      ++fig_.reads;
      ++batch_reads_;
    }
    v_.edge();
    if (v_.fault()) log_.fail("an assertion fired");
    ++t_;
    ++fig_.cycles;
    return req;
  }

  // Section 11's worked examples (B = 8, 4 lanes, M = 3): read addresses in order, the first element
  // three cycles after the start, the element streams.
  void worked_examples() {
    struct Example {
      const char* name;
      int wt, sx, dx, n_ky;
      std::vector<std::int64_t> addrs;
    };
    const Example examples[] = {
        {"stride 1, dilation 1, tile width 10", 10, 1, 1, 3, {0, 1, 2, 3}},
        {"stride 2, tile width 12", 12, 2, 1, 2, {0, 1, 1, 2}},
        {"dilation 2, tile width 12", 12, 1, 2, 2, {0, 3}},
    };
    load_image();
    for (const Example& ex : examples) {
      const int dy = ex.dx;  // the dilated example has dy = 2 as well (section 11)
      TestRun t = layer_run(hw_, 3, ex.n_ky, ex.sx, 1, ex.dx, dy, 1, 1, 1, 1, 4, 0, 0);
      t.wt = ex.wt;  // the tables fix the tile width; steps follow from it
      t.ht = (ex.n_ky - 1) * dy + 1;
      t.run.step_cy = std::uint32_t(ex.wt);
      t.run.step_c = std::uint32_t(t.ht * ex.wt);
      t.run.step_ky = std::uint32_t(dy * ex.wt);
      finish_run(t);
      log_.expect("worked example region", t.run.region, std::uint32_t(3 * ex.sx + 2 * ex.dx + 1));
      sb_.clear();
      sb_.expect(&t);
      std::vector<std::int64_t> addrs;
      std::int64_t first_pop = -1;
      for (int i = 0; i < 200 && (i == 0 || v_.busy() || !sb_.empty()); ++i) {
        v_.drive(i == 0, &t.run, false, true);
        const bool pop = v_.lanes_valid();
        if (pop) {
          if (first_pop < 0) first_pop = i;
          v_.drive(i == 0, &t.run, true, true);
          sb_.check_pop(hw_.rows, [&](int l) { return v_.lane(l); });
        }
        if (v_.req()) addrs.push_back(std::int64_t(v_.addr()));
        v_.edge();
        ++fig_.cycles;
      }
      log_.expect_true(addrs == ex.addrs, fmt::format("worked example \"{}\": read addresses {}, want {}", ex.name,
                                                      fmt::join(addrs, " "), fmt::join(ex.addrs, " ")));
      if (ex.sx == 1 && ex.dx == 1)
        log_.expect("worked example: first element's cycle after the start", first_pop, std::int64_t(3));
      log_.expect_true(sb_.empty(), fmt::format("worked example \"{}\" did not finish", ex.name));
      fig_.example_checks += addrs.size() + 2;
    }
    reset();
  }

  // Protocol errors: each misuse must be refused (core: ProtocolError; module: SC_ERROR; RTL: an
  // assertion).
  void protocol_checks() {
    const TestRun good = layer_run(hw_, std::min(3, hw_.pattern_bits), 3, 1, 1, 1, 1, 1, 1, 1, 1, hw_.rows, 0, 0);
    auto directed = [&](const char* what, bool started, const RunDesc* bad_run, bool pop) {
      reset();
      if (started) {
        v_.drive(true, &good.run, false, true);
        v_.edge();
      }
      log_.expect_true(v_.refuses(bad_run != nullptr, bad_run ? bad_run : &good.run, pop),
                       fmt::format("protocol error \"{}\" was not refused", what));
      ++fig_.directed;
    };
    auto bad_start = [&](const char* what, auto&& edit) {
      RunDesc r = good.run;
      edit(r);
      directed(what, false, &r, false);
    };
    v_.expect_refusals_begin();
    bad_start("n_c zero", [](RunDesc& r) { r.n_c = 0; });
    bad_start("n_kg zero", [](RunDesc& r) { r.n_kg = 0; });
    bad_start("region zero", [](RunDesc& r) { r.region = 0; });
    bad_start("pattern zero", [](RunDesc& r) { r.pattern = 0; });
    bad_start("popcount(pattern) != n_kx", [](RunDesc& r) { r.n_kx += 1; });
    bad_start("region misses the last lane", [](RunDesc& r) { r.region -= 1; });
    bad_start("last read beyond the buffer",
              [&](RunDesc& r) { r.step_ky = std::uint32_t(hw_.ifmap_depth) * std::uint32_t(hw_.bus_elems); });
    if (hw_.pattern_bits < 64)
      bad_start("pattern wider than PB", [&](RunDesc& r) {
        r.pattern |= std::uint64_t(1) << hw_.pattern_bits;
        ++r.n_kx;
      });
    // Kernel-column chunks (section 8): the chunk fields are checked like the row's.
    const TestRun chunked = layer_run(hw_, 3, 2, 1, 1, 1, 1, 1, 1, 1, 1, hw_.rows, 0, 0, 2);
    const auto bad_chunk = [&](const char* what, auto&& edit) {
      RunDesc r = chunked.run;
      edit(r);
      directed(what, false, &r, false);
    };
    bad_chunk("chunk columns != n_kx", [](RunDesc& r) { r.n_kx += 1; });
    bad_chunk("region_kxc misses the last lane", [](RunDesc& r) { r.region_kxc -= 1; });
    bad_chunk("pattern_kxc zero", [](RunDesc& r) { r.pattern_kxc = 0; });
    bad_chunk("n_kxc zero", [](RunDesc& r) { r.n_kxc = 0; });
    bad_chunk("an earlier chunk ends beyond the last", [](RunDesc& r) { r.region_kxc = r.step_kxc + r.region + 1; });
    bad_chunk("last chunk beyond the buffer",
              [&](RunDesc& r) { r.step_kxc = std::uint32_t(hw_.ifmap_depth) * std::uint32_t(hw_.bus_elems); });
    const int lane_elems = hw_.lane_fifo_depth * hw_.m;
    if (hw_.rows > 1 && lane_elems < hw_.pattern_bits)
      bad_start("a region row wider than FD*M columns", [&](RunDesc& r) {
        r.n_kx = std::uint32_t(lane_elems + 1);
        r.pattern = pattern_of(lane_elems + 1, 1);
        r.region = std::uint32_t(hw_.rows - 1 + lane_elems + 1);
      });
    directed("start while busy", true, &good.run, false);
    directed("pop while a lane is empty", false, nullptr, true);
    v_.expect_refusals_end();
    reset();
  }

private:
  View& v_;
  HwParams hw_;
  tb::Rand& r_;
  tb::MismatchLog& log_;
  Figures& fig_;
  Image img_;
  Scoreboard sb_;
  std::uint64_t t_ = 0, batch_reads_ = 0;
  bool last_pop_ = false;
};

// Batches on one view until the cycle budget is spent; one batch in eight is cut by a reset.
template <class View>
void random_batches(Bench<View>& b, const HwParams& hw, tb::Rand& r, tb::MismatchLog& log, Figures& fig,
                    std::uint64_t budget_cycles, int max_runs, std::uint64_t run_budget) {
  static const double kPopP[] = {1.0, 0.8, 0.5, 0.25};
  const std::uint64_t c0 = fig.cycles;
  for (int k = 0; fig.cycles - c0 < budget_cycles && log.ok(); ++k) {
    b.load_image();
    std::vector<TestRun> runs;
    for (int i = r.uniform(1, max_runs); i > 0; --i) runs.push_back(random_run(hw, r, run_budget, hw.ifmap_depth));
    const std::uint64_t reset_at = r.chance(0.125) ? std::uint64_t(r.uniform(1, 3000)) : 0;
    b.batch(runs, kPopP[r.uniform(0, 3)], r.chance(0.3), reset_at);
    ++fig.batches;
    if (reset_at == 0 && k % 7 == 6) b.reset();
  }
}

#ifdef FLYCOL_VTOP

// ---------------------------------------------------------------------------------------------
// feeder.sv, Verilated for one configuration; its ifmap SRAM modelled here.

class RtlView {
public:
  RtlView(const HwParams& hw, std::uint64_t seed, bool assertions)
      : hw_(hw), dut_(seed),
        rdata_(std::size_t(hw.bus_elems), 0), assertions_(assertions) {}
  void load(const Image& img) { img_ = &img; }
  void drive(bool start, const RunDesc* run, bool pop, bool rst_n) {
    dut_->rst_ni = rst_n;
    dut_->start_i = start;
    if (start) {
      Command c;
      c.op = Opcode::Run;
      c.run = *run;
      const std::vector<std::uint32_t> w = rtl::pack_command(c);
      for (std::size_t i = 0; i < w.size(); ++i) dut_->run_i[i] = w[i];
    }
    dut_->pop_i = pop;
    for (int e = 0; e < hw_.bus_elems; ++e) tb::put_elem(dut_->ifmap_rdata_i, e, hw_.elem_bits, rdata_[std::size_t(e)]);
    dut_->eval();
  }
  bool lanes_valid() { return dut_->lanes_valid_o; }
  elem_t lane(int l) { return elem_t(tb::get_elem(dut_->lane_data_o, l, hw_.elem_bits)); }
  bool busy() { return dut_->busy_o; }
  bool req() { return dut_->ifmap_req_o; }
  std::uint32_t addr() { return std::uint32_t(dut_->ifmap_addr_o); }
  void edge() {
    dut_->eval();
    stalls_ += dut_->sel_stall_o ? 1 : 0;
    // A read of this cycle shows its word from the next cycle on, then holds.
    if (dut_->ifmap_req_o && dut_->rst_ni && img_ && int(dut_->ifmap_addr_o) < hw_.ifmap_depth)
      for (int e = 0; e < hw_.bus_elems; ++e)
        rdata_[std::size_t(e)] = img_->at(std::int64_t(dut_->ifmap_addr_o) * hw_.bus_elems + e);
    dut_.edge();
  }
  bool fault() { return dut_.fault(); }
  std::uint64_t stalls() const { return stalls_; }
  bool stat_reads(std::uint64_t&) const { return false; }
  void expect_refusals_begin() { tb::expect_rtl_assertions("feeder_rtl_tb", "directed protocol errors"); }
  void expect_refusals_end() {}
  bool refuses(bool start, const RunDesc* run, bool pop) {
    drive(start, run, pop, true);
    edge();
    return !assertions_ || dut_.fault();
  }

private:
  HwParams hw_;
  tb::Dut<FLYCOL_VTOP> dut_;
  std::vector<word_elem_t> rdata_;
  const Image* img_ = nullptr;
  std::uint64_t stalls_ = 0;
  bool assertions_;
};

#else

// ---------------------------------------------------------------------------------------------
// FeederCore on an hw::SramBank (the accelerator top's API).

class CoreView {
public:
  explicit CoreView(const HwParams& hw) : hw_(hw), core_(hw), bank_("ifmap", hw.ifmap_depth, hw.bus_elems) {}
  void load(const Image& img) {
    for (int a = 0; a < hw_.ifmap_depth; ++a)
      for (int e = 0; e < hw_.bus_elems; ++e) bank_.poke(a, e, img.at(std::int64_t(a) * hw_.bus_elems + e));
  }
  void drive(bool start, const RunDesc* run, bool pop, bool rst_n) {
    start_ = start, pop_ = pop, rst_n_ = rst_n;
    if (start) run_ = *run;
    if (!rst_n) return;
    // The read decision depends on registered state only: evaluate now to show this cycle's read.
    if (!evaluated_) {
      core_.set_pop(false);
      core_.eval(bank_);
      req_ = core_.issuing();
      addr_ = req_ ? std::uint32_t(core_.ic().read().addr) : 0;
      bank_.drop_request();
      evaluated_ = true;
    }
  }
  bool lanes_valid() { return core_.all_lanes_have_elem(); }
  elem_t lane(int l) { return core_.lane_elem(l); }
  bool busy() { return core_.busy(); }
  bool req() { return rst_n_ && req_; }
  std::uint32_t addr() { return addr_; }
  void edge() {
    evaluated_ = false;
    if (!rst_n_) {
      stalls_base_ += core_.sel_stall_cycles();
      reads_base_ += core_.sram_reads();
      core_.reset();
      return;
    }
    if (start_) core_.start(run_);
    core_.set_pop(pop_);
    core_.eval(bank_);
    core_.tick();
    bank_.tick();
  }
  bool fault() { return false; }
  std::uint64_t stalls() const { return stalls_base_ + core_.sel_stall_cycles(); }
  bool stat_reads(std::uint64_t& n) const {
    n = reads_base_ + core_.sram_reads();
    return true;
  }
  void expect_refusals_begin() {}
  void expect_refusals_end() {}
  bool refuses(bool start, const RunDesc* run, bool pop) {
    try {
      drive(start, run, pop, true);
      edge();
    } catch (const ProtocolError&) {
      if (bank_.busy_this_cycle()) bank_.drop_request();
      evaluated_ = false;
      return true;
    }
    return false;
  }
  const FeederCore& core() const { return core_; }

private:
  HwParams hw_;
  FeederCore core_;
  SramBank bank_;
  RunDesc run_;
  bool start_ = false, pop_ = false, rst_n_ = false, evaluated_ = false, req_ = false;
  std::uint32_t addr_ = 0;
  std::uint64_t stalls_base_ = 0, reads_base_ = 0;
};

// The Feeder SC_MODULE on its own signals and clock, its ifmap SRAM modelled here.
class ScView {
public:
  ScView(const std::string& name, const HwParams& hw)
      : hw_(hw), dut_(name.c_str(), hw), rdata_((name + "_rdata").c_str(), std::size_t(hw.bus_elems)),
        lane_data_((name + "_lane").c_str(), std::size_t(hw.rows)) {
    dut_.clk_i(clk_.clk());
    dut_.rst_ni(rst_n_);
    dut_.start_i(start_);
    dut_.run_i(run_);
    dut_.sram_req_o(req_);
    dut_.sram_addr_o(addr_);
    dut_.sram_rdata_i.bind(rdata_);
    dut_.lane_valid_o(lane_valid_);
    dut_.lane_data_o.bind(lane_data_);
    dut_.pop_i(pop_);
    dut_.busy_o(busy_);
  }
  void load(const Image& img) { img_ = &img; }
  void drive(bool start, const RunDesc* run, bool pop, bool rst_n) {
    rst_n_.write(rst_n);
    start_.write(start);
    if (start) {
      FeederRun fr;
      fr.run = *run;
      run_.write(fr);
    }
    pop_.write(pop);
    tb::ScClock::settle();
  }
  bool lanes_valid() { return lane_valid_.read(); }
  elem_t lane(int l) { return lane_data_[std::size_t(l)].read(); }
  bool busy() { return busy_.read(); }
  bool req() { return req_.read(); }
  std::uint32_t addr() { return addr_.read(); }
  void edge() {
    tb::ScClock::settle();
    const bool read = req_.read() && rst_n_.read() && img_ && int(addr_.read()) < hw_.ifmap_depth;
    const std::uint32_t a = addr_.read();
    if (!rst_n_.read()) stalls_base_ += dut_.core().sel_stall_cycles(), reads_base_ += dut_.core().sram_reads();
    clk_.step();
    // A read of this cycle shows its word from the next cycle on, then holds.
    if (read)
      for (int e = 0; e < hw_.bus_elems; ++e) rdata_[std::size_t(e)].write(img_->at(std::int64_t(a) * hw_.bus_elems + e));
  }
  bool fault() { return false; }
  std::uint64_t stalls() const { return stalls_base_ + dut_.core().sel_stall_cycles(); }
  bool stat_reads(std::uint64_t& n) const {
    n = reads_base_ + dut_.core().sram_reads();
    return true;
  }
  void expect_refusals_begin() { tb::expect_sc_errors(dut_.name(), "feeder_tb", "directed protocol errors"); }
  void expect_refusals_end() { tb::end_sc_errors(dut_.name()); }
  bool refuses(bool start, const RunDesc* run, bool pop) {
    return tb::sc_errors_during(dut_.name(), [&] {
             drive(start, run, pop, true);
             edge();
           }) >= 1;
  }

private:
  HwParams hw_;
  tb::ScClock clk_;
  Feeder dut_;
  sc_core::sc_signal<bool> rst_n_, start_, req_, lane_valid_, pop_, busy_;
  sc_core::sc_signal<FeederRun> run_;
  sc_core::sc_signal<std::uint32_t> addr_;
  sc_core::sc_vector<sc_core::sc_signal<word_elem_t>> rdata_;
  sc_core::sc_vector<sc_core::sc_signal<elem_t>> lane_data_;
  const Image* img_ = nullptr;
  std::uint64_t stalls_base_ = 0, reads_base_ = 0;
};

// Section 11's worked examples read by read on the bare core: every index-counter read (ptr, addr,
// go, j, b, flush), the first read one cycle after the start, each lane's s = b + l * lane stride
// and the positions it takes from every word, and lane 2's intermediate registers.
void core_worked_examples(tb::MismatchLog& log, Figures& fig) {
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
  for (const Example& ex : examples) {
    const int dy = ex.dx;
    TestRun t = layer_run(hw, 3, ex.n_ky, ex.sx, 1, ex.dx, dy, 1, 1, 1, 1, 4, 0, 0);
    t.wt = ex.wt;
    t.ht = (ex.n_ky - 1) * dy + 1;
    t.run.step_cy = std::uint32_t(ex.wt);
    t.run.step_c = std::uint32_t(t.ht * ex.wt);
    t.run.step_ky = std::uint32_t(dy * ex.wt);
    finish_run(t);
    SramBank bank("ifmap", hw.ifmap_depth, hw.bus_elems);
    FeederCore f(hw);
    f.start(t.run);
    std::size_t issued = 0, sel_idx = 0;
    std::vector<std::uint64_t> took(ex.reads.size() * 4, 0);
    for (int cycle = 0; cycle < 200 && (f.busy() || cycle == 0); ++cycle) {
      f.set_pop(f.all_lanes_have_elem());
      f.eval(bank);
      if (f.issuing()) {
        log.expect_true(cycle != 0, fmt::format("{}: a read in the start cycle", ex.name));
        if (issued == 0) log.expect("first read's cycle", cycle, 1);
        const IcRead rd = f.ic().read();
        if (issued < ex.reads.size()) {
          const ReadEx& w = ex.reads[issued];
          log.expect_true(rd.ptr == w.ptr && rd.addr == w.addr && rd.go == w.go && rd.j == w.j && rd.b == w.b,
                          fmt::format("{}: read {}: ptr {} addr {} go {} j {} b {}, want ptr {} addr {} go {} j {} b {}",
                                      ex.name, issued, rd.ptr, rd.addr, rd.go, rd.j, rd.b, w.ptr, w.addr, w.go, w.j,
                                      w.b));
          log.expect("read flush", rd.flush, issued + 1 == ex.reads.size());
        }
        ++issued;
      }
      if (f.sel_valid() && sel_idx < ex.reads.size())
        for (int l = 0; l < 4; ++l) {
          took[sel_idx * 4 + std::size_t(l)] |= f.lane(l).took_mask();
          const LaneEx& le = ex.reads[sel_idx].lane[l];
          if (le.any) log.expect("lane s", f.sel_b() + l * int(t.run.lane_stride), le.s);  // unpacked examples
        }
      const bool word_leaves = f.sel_valid() && !f.stalling();
      f.tick();
      bank.tick();
      if (word_leaves) {
        // "lane 2 holds two in its intermediate registers after the first" (of row ky2's reads)
        if (&ex == &examples[0] && sel_idx == 2) log.expect("lane 2 fill after read 2", f.lane(2).fill(), 2);
        ++sel_idx;
      }
    }
    log.expect("reads of the example", issued, ex.reads.size());
    for (std::size_t r = 0; r < ex.reads.size(); ++r)
      for (int l = 0; l < 4; ++l) {
        std::uint64_t want = 0;
        for (int p : ex.reads[r].lane[l].pos) want |= std::uint64_t(1) << p;
        log.expect("positions a lane took", took[r * 4 + std::size_t(l)], want);
        ++fig.example_checks;
      }
  }
}

// Cycles per element of one lane for a layer on the reference parameters, popping every cycle.
double cycles_per_elem(int k, int s, int d) {
  const HwParams hw = make_hw(16, 16, 3, 4, 64, 4096);
  const TestRun t = layer_run(hw, k, k, s, s, d, d, 8, 4, 4, 1, 64, 0, 0);
  SramBank bank("ifmap", hw.ifmap_depth, hw.bus_elems);
  FeederCore f(hw);
  f.start(t.run);
  std::uint64_t popped = 0, cycle = 0, last = 0;
  for (; popped < t.elems_per_lane && cycle < 10000000; ++cycle) {
    const bool pop = f.all_lanes_have_elem();
    if (pop) ++popped, last = cycle;
    f.set_pop(pop);
    f.eval(bank);
    f.tick();
    bank.tick();
  }
  return double(last + 1) / double(t.elems_per_lane);
}

#endif

}  // namespace

#ifdef FLYCOL_VTOP

int main(int argc, char** argv) {
  tb::BenchMain harness("feeder", {"cycles", 1000000, 40000000, "cycles of random batches", "slow"});
  bool no_assertions = false;
  harness.args().flag("no-assertions", &no_assertions, "the model is a netlist without assertions");
  if (!harness.parse(argc, argv)) return 2;
  const HwParams& hw = harness.params();
  harness.announce("{} IFD={} EW={}, {} cycles", hw_name(hw), hw.ifmap_depth, hw.elem_bits, harness.count());
  Figures fig;
  RtlView view(hw, harness.seed(), !no_assertions);
  harness.run(harness.rtl_view(), [&](tb::MismatchLog& log) {
    tb::Rand r(harness.seed(0));
    Bench<RtlView> bench(view, hw, r, log, fig);
    bench.reset();
    if (!no_assertions) bench.protocol_checks();
    if (hw.bus_elems == 8 && hw.rows == 4 && hw.m == 3) bench.worked_examples();
    random_batches(bench, hw, r, log, fig, harness.count(), harness.long_run() ? 12 : 6, 6000);
  });
  return harness.finish(fmt::format("{} protocol checks, {} worked-example checks, {} batches, {} runs, {} resets, {} "
                                    "cycles, {} pops, {} SRAM reads, {} sel-stall cycles",
                                    fig.directed, fig.example_checks, fig.batches, fig.runs, fig.resets, fig.cycles,
                                    fig.pops, fig.reads, view.stalls()));
}

#else

int sc_main(int argc, char* argv[]) {
  tb::BenchMain harness("feeder", {"sets", 150, 1500, "random parameter sets on the core (the SystemC view: 16, "
                                                      "--slow 100)", "slow"});
  if (!harness.parse(argc, argv)) return 2;
  const bool slow = harness.long_run();
  const int n_core = int(harness.count()), n_sc = slow ? 100 : 16;
  harness.announce("{} core and {} SystemC parameter sets", n_core, n_sc);
  const int depth_elems = 1 << 18;  // ifmap image per parameter set, in elements
  // The parameter sets, drawn up front (every SC_MODULE exists before the first sc_start): the
  // reference parameters first, then random ones; the worked examples' B = 8, 4 lanes, M = 3 last.
  tb::Rand pr(harness.seed(0));
  std::vector<HwParams> sets;
  for (int i = 0; i < std::max(n_core, n_sc); ++i)
    sets.push_back(i == 0 ? make_hw(16, 16, 3, 4, 64, depth_elems / 16) : random_hw(pr, depth_elems));
  const HwParams example_hw = make_hw(4, 8, 3, 4, 64, 64);
  std::vector<std::unique_ptr<ScView>> sc_views;
  if (harness.sc()) {
    for (int i = 0; i < n_sc; ++i) sc_views.push_back(std::make_unique<ScView>(fmt::format("feeder{}", i), sets[std::size_t(i)]));
    sc_views.push_back(std::make_unique<ScView>("feeder_examples", example_hw));
  }
  Figures fig;
  auto one = [&](const std::string& name, auto& v, const HwParams& hw, std::uint64_t k, bool first, int n_runs,
                 std::uint64_t run_budget) {
    ++fig.configs;
    harness.run(fmt::format("{} [{}]", name, hw_name(hw)), [&](tb::MismatchLog& log) {
      tb::Rand r(harness.seed(k));
      Bench<std::remove_reference_t<decltype(v)>> bench(v, hw, r, log, fig);
      bench.reset();
      if (first) bench.protocol_checks();
      // A fixed budget of batches (not cycles): each batch is one image and up to n_runs RUNs.
      for (int b = 0; b < 2 && log.ok(); ++b) random_batches(bench, hw, r, log, fig, 1, n_runs, run_budget);
    });
  };
  auto examples = [&](const std::string& name, auto& v) {
    harness.run(name + " worked examples", [&](tb::MismatchLog& log) {
      tb::Rand r(harness.seed(999));
      Bench<std::remove_reference_t<decltype(v)>> bench(v, example_hw, r, log, fig);
      bench.reset();
      bench.worked_examples();
    });
  };
  double cpe[3] = {0, 0, 0};
  if (harness.core()) {
    harness.run("core worked examples, read by read", [&](tb::MismatchLog& log) { core_worked_examples(log, fig); });
    CoreView ex(example_hw);
    examples("core", ex);
    for (int i = 0; i < n_core; ++i) {
      CoreView core(sets[std::size_t(i)]);
      one("core", core, sets[std::size_t(i)], std::uint64_t(i + 1), i == 0, slow ? 30 : 16, 8000);
    }
    cpe[0] = cycles_per_elem(3, 1, 1);
    cpe[1] = cycles_per_elem(1, 2, 1);
    cpe[2] = cycles_per_elem(3, 1, 2);
  }
  if (harness.sc()) {
    examples("sc", *sc_views.back());
    for (int i = 0; i < n_sc; ++i)
      one("sc", *sc_views[std::size_t(i)], sets[std::size_t(i)], std::uint64_t(10000 + i), i == 0, slow ? 30 : 10,
          5000);
  }
  return harness.finish(fmt::format("{} parameter sets, {} batches, {} runs, {} resets, {} cycles, {} pops, {} "
                                    "SRAM reads, {} worked-example checks, {} protocol checks; cycles/element (B=16 "
                                    "ROWS=16 M=3) 3x3s1 {:.2f} 1x1s2 {:.2f} 3x3d2 {:.2f}",
                                    fig.configs, fig.batches, fig.runs, fig.resets, fig.cycles, fig.pops, fig.reads,
                                    fig.example_checks, fig.directed, cpe[0], cpe[1], cpe[2]));
}

#endif
