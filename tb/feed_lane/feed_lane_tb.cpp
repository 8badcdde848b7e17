// Testbench of one feed lane (docs/microarchitecture.md, section 9.2), one for all three views,
// against a cycle-by-cycle model of the selection rule written here. Two kinds of stimulus, each
// with random "other lane" stalls, pop stalls and bubbles:
//   streams  word streams as the feeder produces them (region rows, flushes ending each RUN);
//            every element the words owe must come out, in order, and the lane must drain;
//   random   a random word every cycle over the whole clamped shift range, in phases of random
//            rates and patterns, with resets.
// Built twice from this file (see hw/feeder/CMakeLists.txt):
//   feed_lane_tb [--view core|sc|all] [--seed N] [--streams N] [--slow]   the C++ core and the SystemC module on
//         random lane shapes (B, M, FIFO depth, pattern bits)
//   feed_lane_rtl_tb_<cfg> [--config NAME|FILE] [--seed N] [--streams N] [--slow]   feed_lane.sv, for
//         one configuration (FLYCOL_VTOP defined)
// Without --seed the seed is random (printed, and repeated by the reproduce line on failure).
#include <algorithm>
#include <cstdint>
#include <deque>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "hw/common/hw_params.h"
#include "hw/common/protocol_error.h"
#include "tb/common/bench_main.h"

#include "tb/common/views.h"
#ifndef FLYCOL_VTOP
#include "hw/feeder/feed_lane.h"
#include "hw/feeder/feed_lane_core.h"
#endif

using namespace flycol;
using namespace flycol::hw;

namespace {

// ---------------------------------------------------------------------------------------------
// Stimulus

// What the selection stage presents to the lane in one cycle.
struct WordIn {
  bool valid = false;
  int shift = 0;
  bool flush = false;
  std::uint64_t pattern = 1;
  std::vector<word_elem_t> data;
};

// A random kernel pattern of PB bits: a dilated kernel row (the feeder's case) or any bits, dense
// or sparse; the lane does not care what the pattern means.
std::uint64_t random_pattern(tb::Rand& r, int pb) {
  const int k = r.uniform(0, 3);
  if (k < 2) {  // kx columns dilated by dx: short dilations, and up to the whole pattern
    const int kx = r.uniform(1, std::min(pb, k == 0 ? 9 : 12));
    const int dmax = kx > 1 ? (pb - 1) / (kx - 1) : 1;
    const int dx = kx > 1 ? r.uniform(1, k == 0 ? std::min(8, dmax) : dmax) : 1;
    std::uint64_t p = 0;
    for (int i = 0; i < kx; ++i) p |= std::uint64_t(1) << (i * dx);
    return p;
  }
  if (k == 2) {  // any width, any density
    const int width = r.uniform(1, pb);
    const double density = std::uniform_real_distribution<double>(0.05, 1.0)(r.engine());
    std::uint64_t p = std::uint64_t(1) << (width - 1);
    for (int i = 0; i < width - 1; ++i)
      if (r.chance(density)) p |= std::uint64_t(1) << i;
    return p;
  }
  const std::uint64_t all = pb >= 64 ? ~std::uint64_t(0) : (std::uint64_t(1) << pb) - 1;
  std::uint64_t p = 0;
  while (p == 0) p = r.bits(64) & r.bits(64) & all;  // about a quarter of the bits
  return p;
}

// Words as the feeder produces them: region rows of consecutive words whose shift drops by B per
// word, plus some arbitrary shifts (beyond the word on both sides); a flush ends each RUN. The
// elements are numbered so that a lost, doubled or swapped element shows.
std::vector<WordIn> random_stream(const HwParams& hw, tb::Rand& r, int n_words, std::uint32_t& tag) {
  std::vector<WordIn> out;
  const int bus = hw.bus_elems;
  const std::uint32_t emask = hw.elem_bits >= 16 ? 0xFFFFu : (1u << hw.elem_bits) - 1;
  while (int(out.size()) < n_words) {
    const std::uint64_t pat = random_pattern(r, hw.pattern_bits);
    int width = 64;
    while (((pat >> (width - 1)) & 1u) == 0) --width;
    const int run_rows = r.uniform(1, 12), off = r.uniform(0, 3 * bus);
    for (int row = 0; row < run_rows; ++row) {
      const int go = r.uniform(0, bus - 1);
      const int nw = (go + off + width - 1) / bus + 1 + (r.chance(0.2) ? 1 : 0);
      for (int j = 0; j < nw; ++j) {
        WordIn w;
        w.valid = true;
        w.shift = r.chance(0.05) ? r.uniform(-2 * hw.pattern_bits, 2 * bus) : go + off - j * bus;
        w.pattern = pat;
        w.data.resize(std::size_t(bus));
        for (auto& e : w.data) e = word_elem_t((tag++ * 40503u) & emask);
        out.push_back(std::move(w));
      }
    }
    out.back().flush = true;
  }
  return out;
}

// The elements a word contributes, in order: positions e with pattern[e - s], ascending.
std::vector<elem_t> selected(const WordIn& w, int bus, int pb) {
  std::vector<elem_t> out;
  for (int e = 0; e < bus; ++e) {
    const int p = e - w.shift;
    if (p >= 0 && p < pb && ((w.pattern >> p) & 1u)) out.push_back(elem_t(w.data[std::size_t(e)]));
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Reference: section 9.2's rule, one cycle at a time, with containers instead of registers
// (shares nothing with FeedLaneCore).

class RefLane {
public:
  RefLane(int bus, int m, int fd, int pb) : bus_(bus), m_(m), fd_(fd), pb_(pb), taken_(std::size_t(bus), false) {}

  struct Decision {
    std::vector<int> avail;  // positions not yet taken, ascending
    std::size_t k = 0;
    bool push = false, blocked = false, stall = false;
  };
  Decision decide(const WordIn& w) const {
    Decision d;
    if (!w.valid) return d;
    for (int e = 0; e < bus_; ++e) {
      const int p = e - w.shift;
      if (p >= 0 && p < pb_ && ((w.pattern >> p) & 1u) && !taken_[std::size_t(e)]) d.avail.push_back(e);
    }
    const std::size_t n = d.avail.size(), free = std::size_t(m_) - regs_.size();
    d.k = std::min(n, free);
    d.push = regs_.size() + d.k == std::size_t(m_) || (w.flush && d.k == n && regs_.size() + d.k > 0);
    if (d.push && fifo_.size() == std::size_t(fd_)) {
      d.blocked = true;
      d.k = 0;
      d.push = false;
    }
    d.stall = d.k < n || d.blocked;
    return d;
  }
  bool has_elem() const { return !fifo_.empty(); }
  elem_t elem() const { return fifo_.empty() ? elem_t(0) : fifo_.front()[rd_]; }  // 0 when empty

  void step(const WordIn& w, bool global_stall, bool pop) {
    const Decision d = decide(w);
    if (pop) {
      if (++rd_ == fifo_.front().size()) {
        fifo_.pop_front();
        rd_ = 0;
      }
    }
    for (std::size_t i = 0; i < d.k; ++i) {
      regs_.push_back(elem_t(w.data[std::size_t(d.avail[i])]));
      if (global_stall) taken_[std::size_t(d.avail[i])] = true;
    }
    if (d.push) {
      fifo_.push_back(regs_);
      regs_.clear();
    }
    if (!global_stall) std::fill(taken_.begin(), taken_.end(), false);
  }
  bool idle() const { return fifo_.empty() && regs_.empty(); }

private:
  int bus_, m_, fd_, pb_;
  std::vector<bool> taken_;
  std::vector<elem_t> regs_;
  std::deque<std::vector<elem_t>> fifo_;
  std::size_t rd_ = 0;
};

// ---------------------------------------------------------------------------------------------
// Scoreboard and the runs, the same for every view. A view offers:
//   drive(word, rst_n, pop)  the inputs of this cycle but the feeder's stall;  settle();
//   lane_stall()             this lane's stall, combinational;  drive_global(stall);
//   elem_valid(), elem()     the FIFO head;  edge();  fault()  an assertion fired (RTL).

struct Figures {
  std::uint64_t lanes = 0, words = 0, cycles = 0, pops = 0, pushes = 0, blocked = 0, stalls = 0,
                flush_words = 0, resets = 0;
};

// One cycle of any stimulus: drive, check this cycle's outputs against the reference, step the
// reference, clock. `other` is the OR of the other lanes' stalls. Returns the feeder's stall.
template <class View>
bool cycle(View& v, RefLane& ref, tb::MismatchLog& log, Figures& fig, const WordIn& w, bool pop, bool other) {
  v.drive(w, true, pop);
  v.settle();
  const RefLane::Decision d = ref.decide(w);
  const bool global = w.valid && (d.stall || other);
  // Noted before the checks: lane_stall_o depends on this cycle's word.
  log.note("valid {} shift {} flush {} pattern {:#x} pop {} global_stall {}", w.valid, w.shift, w.flush, w.pattern,
           pop, global);
  log.expect("lane_stall_o", v.lane_stall(), d.stall);
  v.drive_global(global);
  v.settle();
  log.expect("elem_valid_o", v.elem_valid(), ref.has_elem());
  log.expect("elem_o", v.elem(), ref.elem());
  if (v.fault()) log.fail("an RTL assertion fired (message above)");
  fig.pushes += d.push;
  fig.blocked += d.blocked;
  fig.stalls += global;
  fig.pops += pop;
  fig.flush_words += w.flush && !global;
  ref.step(w, global, pop);
  v.edge();
  log.at(log.cycle() + 1);
  return global;
}

RefLane fresh_ref(const HwParams& hw) {
  return RefLane(hw.bus_elems, hw.m, hw.lane_fifo_depth, hw.pattern_bits);
}

// Reset held for `cycles` edges with no word and no pop; the reference starts over.
template <class View>
void reset(View& v, RefLane& ref, const HwParams& hw, tb::MismatchLog& log, Figures& fig, int cycles) {
  for (int i = 0; i < cycles; ++i) {
    v.drive(WordIn{}, false, false);
    v.drive_global(false);
    v.edge();
    log.at(log.cycle() + 1);
  }
  if (v.fault()) log.fail("an RTL assertion fired during reset");
  ref = fresh_ref(hw);
  ++fig.resets;
}

// A word stream through the lane: every owed element in order, then the lane drains.
template <class View>
void run_stream(View& v, const HwParams& hw, std::vector<WordIn> words, tb::Rand& r, tb::MismatchLog& log,
                Figures& fig) {
  RefLane ref = fresh_ref(hw);
  std::vector<elem_t> stream;
  for (const WordIn& w : words)
    for (elem_t e : selected(w, hw.bus_elems, hw.pattern_bits)) stream.push_back(e);
  const double p_other = r.pick({0.0, 0.2, 0.5}), p_pop = r.pick({1.0, 0.7, 0.4, 0.15}),
               p_bubble = r.pick({0.0, 0.2, 0.5});
  reset(v, ref, hw, log, fig, 3);
  tb::Watchdog dog(5000);
  std::size_t next = 0, popped = 0;
  WordIn cur;  // invalid: a bubble
  int drain = 0;
  while (log.errors() < std::uint64_t(tb::MismatchLog::kMaxReported)) {
    const bool pop = ref.has_elem() && r.chance(p_pop);
    if (pop) {
      if (popped >= stream.size()) log.fail("element popped beyond the stream");
      else log.expect("stream element", v.elem(), stream[popped]);
      ++popped;
      dog.progress();
    }
    const bool global = cycle(v, ref, log, fig, cur, pop, r.chance(p_other));
    // The selection stage: a stalled word stays, else the next word (or a bubble) enters.
    if (!(cur.valid && global)) {
      if (cur.valid) dog.progress();
      if (next < words.size() && !r.chance(p_bubble)) cur = words[next++];
      else cur = WordIn{};
    }
    if (next == words.size() && !cur.valid && popped == stream.size()) {
      if (!ref.idle() || v.elem_valid()) log.fail("elements left after the stream");
      if (++drain == 8) break;
    }
    if (!dog.tick(log, "the stream")) {
      log.fail("{} of {} elements popped", popped, stream.size());
      break;
    }
  }
  log.expect("elements popped", popped, stream.size());
  fig.words += words.size();
  ++fig.lanes;
}

// A random word every cycle (held while the feeder stalls), in phases of 4096 cycles with new rates
// and a new pattern, one phase in ten starting with a reset.
template <class View>
void run_random(View& v, const HwParams& hw, std::uint64_t cycles, tb::Rand& r, tb::MismatchLog& log,
                Figures& fig) {
  RefLane ref = fresh_ref(hw);
  reset(v, ref, hw, log, fig, 2);
  const std::uint32_t emask = hw.elem_bits >= 16 ? 0xFFFFu : (1u << hw.elem_bits) - 1;
  WordIn w;
  w.data.assign(std::size_t(hw.bus_elems), 0);
  double p_valid = 0.8, p_flush = 0.2, p_other = 0.3, p_pop = 0.7;
  bool held = false;
  for (std::uint64_t c = 0; c < cycles && log.errors() < std::uint64_t(tb::MismatchLog::kMaxReported); ++c) {
    if (c % 4096 == 0) {  // from a starved FIFO to a full one
      p_valid = r.chance(0.2) ? 1.0 : 0.3 + 0.7 * std::uniform_real_distribution<double>(0, 1)(r.engine());
      p_flush = r.chance(0.5) ? 0.02 : 0.3;
      p_other = r.chance(0.3) ? 0.0 : 0.4 * std::uniform_real_distribution<double>(0, 1)(r.engine());
      p_pop = r.pick({1.0, 0.7, 0.3, 0.05});
      w.pattern = random_pattern(r, hw.pattern_bits);
      if (r.chance(0.1)) {
        reset(v, ref, hw, log, fig, 2);
        held = false;
      }
    }
    if (!held) {
      w.valid = r.chance(p_valid);
      // Shifts cover the clamped range [-PB, B], with extra weight near the word.
      w.shift = r.chance(0.7) ? r.uniform(-std::min(hw.bus_elems, hw.pattern_bits), hw.bus_elems)
                              : r.uniform(-hw.pattern_bits, hw.bus_elems);
      w.flush = w.valid && r.chance(p_flush);
      for (auto& e : w.data) e = word_elem_t(r.bits(16) & emask);
    }
    const bool pop = ref.has_elem() && r.chance(p_pop);
    held = cycle(v, ref, log, fig, w, pop, r.chance(p_other));
  }
  fig.cycles += cycles;
  ++fig.lanes;
}

// ---------------------------------------------------------------------------------------------
// Views

#ifdef FLYCOL_VTOP

// feed_lane.sv, Verilated for one configuration. Its shift port is ShiftBits wide and clamped to
// [-PB, B] by the feeder; shifts beyond select nothing either way, so they are clamped here.
class RtlView {
public:
  RtlView(const HwParams& p, std::uint64_t seed)
      : p_(p), dut_(seed, "feed_lane") {
    const int hi = std::max(p.pattern_bits, p.bus_elems) + 1;
    int c = 0;
    while ((1 << c) < hi) ++c;
    shift_bits_ = c + 1;  // two's complement, as feed_lane.sv sizes it
  }
  void drive(const WordIn& w, bool rst_n, bool pop) {
    dut_->rst_ni = rst_n;
    dut_->valid_i = w.valid;
    const int s = std::clamp(w.shift, -p_.pattern_bits, p_.bus_elems);
    tb::put_bits(dut_->shift_i, 0, shift_bits_, std::uint64_t(std::int64_t(s)));
    dut_->flush_i = w.flush;
    tb::put_bits(dut_->pattern_i, 0, p_.pattern_bits, w.pattern);
    for (int e = 0; e < p_.bus_elems; ++e)
      tb::put_elem(dut_->word_i, e, p_.elem_bits, e < int(w.data.size()) ? w.data[std::size_t(e)] : 0);
    dut_->pop_i = pop;
  }
  void drive_global(bool g) { dut_->global_stall_i = g; }
  void settle() { dut_->eval(); }
  bool lane_stall() const { return dut_->lane_stall_o; }
  bool elem_valid() const { return dut_->elem_valid_o; }
  elem_t elem() const { return elem_t(dut_->elem_o); }
  void edge() {
    dut_.edge();
    dut_->eval();  // the combinational outputs of the new state
  }
  bool fault() { return dut_.fault(); }

private:
  HwParams p_;
  tb::Dut<FLYCOL_VTOP> dut_;
  int shift_bits_ = 0;
};

#else

// FeedLaneCore alone: the two-step evaluation of the RTL's combinational OR, reset at the edge.
class CoreView {
public:
  explicit CoreView(const HwParams& p) : core_(p) {}
  void drive(const WordIn& w, bool rst_n, bool pop) {
    w_ = w;
    in_.valid = w.valid;
    in_.shift = w.shift;
    in_.flush = w.flush;
    in_.pattern = w.pattern;
    in_.word = w_.data.empty() ? nullptr : w_.data.data();
    rst_n_ = rst_n;
    pop_ = pop;
  }
  void drive_global(bool g) { global_ = g; }
  void settle() {}
  bool lane_stall() const { return core_.compute_stall(in_); }
  bool elem_valid() const { return core_.has_elem(); }
  elem_t elem() const { return core_.elem(); }
  void edge() {
    if (!rst_n_) {
      core_.reset();
      return;
    }
    core_.set_pop(pop_);
    core_.eval(in_, global_);
    core_.tick();
  }
  bool fault() { return false; }

private:
  FeedLaneCore core_;
  WordIn w_;
  LaneInput in_;
  bool rst_n_ = false, pop_ = false, global_ = false;
};

// The FeedLane SC_MODULE on its own signals and clock; lane_stall_o settles before the bench
// drives global_stall_i, as the feeder's OR does.
class ScView {
public:
  ScView(const std::string& name, const HwParams& p)
      : p_(p), lane_(name.c_str(), p), word_(fmt::format("{}_word", name).c_str(), std::size_t(p.bus_elems)) {
    lane_.clk_i(clk_.clk());
    lane_.rst_ni(rst_n_);
    lane_.valid_i(valid_);
    lane_.shift_i(shift_);
    lane_.flush_i(flush_);
    lane_.pattern_i(pattern_);
    lane_.word_i.bind(word_);
    lane_.lane_stall_o(lane_stall_);
    lane_.global_stall_i(global_stall_);
    lane_.elem_valid_o(elem_valid_);
    lane_.elem_o(elem_);
    lane_.pop_i(pop_);
  }
  void drive(const WordIn& w, bool rst_n, bool pop) {
    rst_n_.write(rst_n);
    valid_.write(w.valid);
    shift_.write(w.shift);
    flush_.write(w.flush);
    pattern_.write(w.pattern);
    for (int e = 0; e < p_.bus_elems && e < int(w.data.size()); ++e) word_[std::size_t(e)].write(w.data[std::size_t(e)]);
    pop_.write(pop);
  }
  void drive_global(bool g) { global_stall_.write(g); }
  void settle() { tb::ScClock::settle(); }
  bool lane_stall() const { return lane_stall_.read(); }
  bool elem_valid() const { return elem_valid_.read(); }
  elem_t elem() const { return elem_.read(); }
  void edge() { clk_.step(); }
  bool fault() { return false; }

private:
  HwParams p_;
  tb::ScClock clk_;
  FeedLane lane_;
  sc_core::sc_signal<bool> rst_n_, valid_, flush_, lane_stall_, global_stall_, elem_valid_, pop_;
  sc_core::sc_signal<int> shift_;
  sc_core::sc_signal<std::uint64_t> pattern_;
  sc_core::sc_signal<elem_t> elem_;
  sc_core::sc_vector<sc_core::sc_signal<word_elem_t>> word_;
};

// A random lane shape: bus width, group size M, FIFO depth, pattern bits.
HwParams random_hw(tb::Rand& r) {
  HwParams p;
  p.rows = 1;
  p.bus_elems = r.pick({4, 8, 16, 32, 64});
  p.log2_bus = 0;
  while ((1 << p.log2_bus) < p.bus_elems) ++p.log2_bus;
  p.m = r.uniform(1, 4);
  p.lane_fifo_depth = r.pick({1, 2, 4});
  p.pattern_bits = r.pick({16, 32, 64});
  return p;
}

#endif

std::string shape(const HwParams& hw) {
  return fmt::format("B={} M={} FD={} PB={} EW={}", hw.bus_elems, hw.m, hw.lane_fifo_depth, hw.pattern_bits,
                     hw.elem_bits);
}

std::string figures(const Figures& f) {
  return fmt::format("{} lanes, {} stream words, {} random cycles, {} pops, {} group pushes, {} blocked pushes, "
                     "{} flush words, {} stall cycles, {} resets",
                     f.lanes, f.words, f.cycles, f.pops, f.pushes, f.blocked, f.flush_words, f.stalls, f.resets);
}

}  // namespace

#ifdef FLYCOL_VTOP

int main(int argc, char** argv) {
  tb::BenchMain harness("feed_lane", {"streams", 16, 64, "random streams (then 1.5 M random cycles; --slow: of 6000 "
                                                         "words, then 20 M cycles)", "slow"});
  harness.args().seed = std::random_device{}();
  if (!harness.parse(argc, argv)) return 2;
  const HwParams& hw = harness.params();
  const bool slow = harness.long_run();
  harness.announce("{}, {} streams", shape(hw), harness.count());
  Figures fig;
  tb::Rand r(harness.seed());
  RtlView view(hw, harness.seed());
  harness.run(harness.rtl_view(), [&](tb::MismatchLog& log) {
    std::uint32_t tag = 0;
    const int n_words = slow ? 6000 : 3000;
    for (std::uint64_t i = 0; i < harness.count() && log.ok(); ++i)
      run_stream(view, hw, random_stream(hw, r, n_words, tag), r, log, fig);
    if (log.ok()) run_random(view, hw, slow ? 20000000 : 1500000, r, log, fig);
  });
  return harness.finish(figures(fig));
}

#else

int sc_main(int argc, char* argv[]) {
  tb::BenchMain harness("feed_lane", {"streams", 48, 160, "random streams per view (then 8 random runs of 100 k "
                                                          "cycles; --slow: of 6000 words, then 32 of 500 k)", "slow"});
  harness.args().seed = std::random_device{}();
  if (!harness.parse(argc, argv)) return 2;
  const bool slow = harness.long_run();
  harness.announce("{} streams", harness.count());

  // The shapes and stimulus of the run, drawn once, the same for both views. Every SC_MODULE
  // exists before the first sc_start.
  const int n_streams = int(harness.count()), n_words = slow ? 6000 : 3000;
  const int n_random = slow ? 32 : 8;
  const std::uint64_t random_cycles = slow ? 500000 : 100000;
  std::vector<HwParams> shapes;
  {
    tb::Rand r(harness.seed());
    for (int i = 0; i < n_streams + n_random; ++i) shapes.push_back(random_hw(r));
  }
  std::vector<std::unique_ptr<ScView>> sc_views;
  if (harness.sc())
    for (std::size_t i = 0; i < shapes.size(); ++i)
      sc_views.push_back(std::make_unique<ScView>(fmt::format("lane{}", i), shapes[i]));

  Figures fig;
  for (const std::string name : {"core", "sc"}) {
    if (!(name == "core" ? harness.core() : harness.sc())) continue;
    tb::Rand r(harness.seed(1));  // the same draws for both views
    std::uint32_t tag = 0;
    for (std::size_t i = 0; i < shapes.size() && harness.errors() == 0; ++i) {
      const HwParams& hw = shapes[i];
      harness.run(fmt::format("{} lane{} {}", name, i, shape(hw)), [&](tb::MismatchLog& log) {
        const bool stream = int(i) < n_streams;
        std::vector<WordIn> words;
        if (stream) words = random_stream(hw, r, n_words, tag);
        auto run = [&](auto& v) {
          if (stream) run_stream(v, hw, std::move(words), r, log, fig);
          else run_random(v, hw, random_cycles, r, log, fig);
        };
        if (name == "core") {
          CoreView core(hw);
          run(core);
        } else {
          run(*sc_views[i]);
        }
      });
    }
  }
  return harness.finish(figures(fig));
}

#endif
