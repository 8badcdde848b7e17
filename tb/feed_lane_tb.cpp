// Testbench of one feed lane (docs/microarchitecture.md, section 9.2): random words, shifts, flushes
// and patterns with random "other lane" stalls and FIFO back-pressure on the FeedLane SC_MODULE,
// against a cycle-by-cycle model of the selection rule and the element stream each word owes.
// Usage: feed_lane_tb [--seed N] [--slow]
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

#include "hw/feeder/feed_lane.h"

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

// One word as the selection stage presents it.
struct WordIn {
  int shift = 0;
  bool flush = false;
  std::uint64_t pattern = 1;
  std::vector<word_elem_t> data;
};

// The elements a word contributes, in order: positions e with pattern[e - s], ascending.
std::vector<elem_t> selected(const WordIn& w, int bus, int pb) {
  std::vector<elem_t> out;
  for (int e = 0; e < bus; ++e) {
    const int p = e - w.shift;
    if (p >= 0 && p < pb && ((w.pattern >> p) & 1u)) out.push_back(elem_t(w.data[std::size_t(e)]));
  }
  return out;
}

// Section 9.2's rule, one cycle at a time, with containers instead of registers.
class RefLane {
public:
  RefLane(int bus, int m, int fd, int pb) : bus_(bus), m_(m), fd_(fd), pb_(pb), taken_(std::size_t(bus), false) {}

  struct Decision {
    std::vector<int> avail;  // positions not yet taken, ascending
    std::size_t k = 0;
    bool push = false, blocked = false, stall = false;
  };
  Decision decide(bool valid, const WordIn* w) const {
    Decision d;
    if (!valid) return d;
    for (int e = 0; e < bus_; ++e) {
      const int p = e - w->shift;
      if (p >= 0 && p < pb_ && ((w->pattern >> p) & 1u) && !taken_[std::size_t(e)]) d.avail.push_back(e);
    }
    const std::size_t n = d.avail.size(), free = std::size_t(m_) - regs_.size();
    d.k = std::min(n, free);
    d.push = regs_.size() + d.k == std::size_t(m_) || (w->flush && d.k == n && regs_.size() + d.k > 0);
    if (d.push && fifo_.size() == std::size_t(fd_)) {
      d.blocked = true;
      d.k = 0;
      d.push = false;
    }
    d.stall = d.k < n || d.blocked;
    return d;
  }
  bool has_elem() const { return !fifo_.empty(); }
  elem_t elem() const { return fifo_.front()[rd_]; }

  void step(bool valid, const WordIn* w, bool global_stall, bool pop) {
    const Decision d = decide(valid, w);
    std::vector<elem_t> group;
    if (pop) {
      if (++rd_ == fifo_.front().size()) {
        fifo_.pop_front();
        rd_ = 0;
      }
    }
    for (std::size_t i = 0; i < d.k; ++i) {
      regs_.push_back(elem_t(w->data[std::size_t(d.avail[i])]));
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

int g_active = 0;

SC_MODULE(LaneHarness) {
  FeedLane dut;
  sc_core::sc_signal<bool> rst_n{"rst_n", false}, valid{"valid"}, flush{"flush"}, lane_stall{"lane_stall"};
  sc_core::sc_signal<bool> global_stall{"global_stall"}, other_stall{"other_stall"}, elem_valid{"elem_valid"};
  sc_core::sc_signal<bool> pop{"pop"}, pop_en{"pop_en"};
  sc_core::sc_signal<int> shift{"shift"};
  sc_core::sc_signal<std::uint64_t> pattern{"pattern"};
  sc_core::sc_signal<elem_t> elem{"elem"};
  sc_core::sc_vector<sc_core::sc_signal<word_elem_t>> word;

  SC_HAS_PROCESS(LaneHarness);
  LaneHarness(sc_core::sc_module_name name, const HwParams& hw, sc_core::sc_clock& clk, std::vector<WordIn> words,
              std::uint64_t seed)
      : sc_core::sc_module(name), dut("dut", hw), word("word", std::size_t(hw.bus_elems)), hw_(hw),
        words_(std::move(words)), rng_(seed), ref_(hw.bus_elems, hw.m, hw.lane_fifo_depth, hw.pattern_bits),
        where_(fmt::format("lane[B={} M={} FD={} PB={}]", hw.bus_elems, hw.m, hw.lane_fifo_depth, hw.pattern_bits)) {
    dut.clk_i(clk);
    dut.rst_ni(rst_n);
    dut.valid_i(valid);
    dut.shift_i(shift);
    dut.flush_i(flush);
    dut.pattern_i(pattern);
    dut.word_i.bind(word);
    dut.lane_stall_o(lane_stall);
    dut.global_stall_i(global_stall);
    dut.elem_valid_o(elem_valid);
    dut.elem_o(elem);
    dut.pop_i(pop);
    for (const WordIn& w : words_)
      for (elem_t e : selected(w, hw.bus_elems, hw.pattern_bits)) stream_.push_back(e);
    expected_ = stream_.size();
    p_other_ = std::vector<double>{0.0, 0.2, 0.5}[std::size_t(uni(rng_, 0, 2))];
    p_pop_ = std::vector<double>{1.0, 0.7, 0.4, 0.15}[std::size_t(uni(rng_, 0, 3))];
    p_bubble_ = std::vector<double>{0.0, 0.2, 0.5}[std::size_t(uni(rng_, 0, 2))];
    SC_METHOD(on_clock);
    sensitive << clk.posedge_event();
    dont_initialize();
    SC_METHOD(comb);
    sensitive << valid << lane_stall << other_stall << elem_valid << pop_en;
    ++g_active;
  }

  std::size_t expected_ = 0, popped_ = 0, stall_cycles_ = 0, blocked_cycles_ = 0;

private:
  // The feeder's OR over lanes (the other lanes are random) and the issue stage's pop.
  void comb() {
    global_stall.write(valid.read() && (lane_stall.read() || other_stall.read()));
    pop.write(elem_valid.read() && pop_en.read());
  }

  void finish() {
    done_ = true;
    if (--g_active == 0) sc_core::sc_stop();
  }

  void load(const WordIn* w) {
    cur_ = w;
    valid.write(w != nullptr);
    if (!w) return;
    shift.write(w->shift);
    flush.write(w->flush);
    pattern.write(w->pattern);
    for (int e = 0; e < hw_.bus_elems; ++e) word[std::size_t(e)].write(w->data[std::size_t(e)]);
  }

  void on_clock() {
    if (done_) return;
    ++cycle_;
    if (cycle_ <= 3) {
      if (cycle_ == 3) rst_n.write(true);
      return;
    }
    // This cycle's outputs against the reference rule.
    const bool v = valid.read();
    const RefLane::Decision d = ref_.decide(v, cur_);
    if (lane_stall.read() != d.stall)
      fail("{}: cycle {} word {}: lane_stall {}, want {}", where_, cycle_, next_ - 1, lane_stall.read(), d.stall);
    if (elem_valid.read() != ref_.has_elem())
      fail("{}: cycle {}: elem_valid {}, want {}", where_, cycle_, elem_valid.read(), ref_.has_elem());
    else if (ref_.has_elem() && elem.read() != ref_.elem())
      fail("{}: cycle {}: elem {:#06x}, want {:#06x}", where_, cycle_, elem.read(), ref_.elem());
    const bool gs = global_stall.read(), p = pop.read();
    if (gs != (v && (d.stall || other_stall.read()))) fail("{}: global stall wiring", where_);
    if (p) {
      if (popped_ >= stream_.size())
        fail("{}: element popped beyond the stream", where_);
      else if (elem.read() != stream_[popped_])
        fail("{}: stream element {}: {:#06x}, want {:#06x}", where_, popped_, elem.read(), stream_[popped_]);
      ++popped_;
      last_progress_ = cycle_;
    }
    stall_cycles_ += d.stall ? 1 : 0;
    blocked_cycles_ += d.blocked ? 1 : 0;
    ref_.step(v, cur_, gs, p);
    // The selection stage: a stalled word stays, else the next word (or a bubble) enters.
    if (!(v && gs)) {
      if (v) last_progress_ = cycle_;
      if (next_ < words_.size() && !chance(rng_, p_bubble_))
        load(&words_[next_++]);
      else
        load(nullptr);
    }
    other_stall.write(chance(rng_, p_other_));
    pop_en.write(chance(rng_, p_pop_));
    if (next_ == words_.size() && !v && !cur_ && popped_ == expected_) {
      if (!ref_.idle() || (elem_valid.read() && !p)) fail("{}: elements left after the stream", where_);
      if (++drain_ == 8) finish();
      return;
    }
    if (cycle_ - last_progress_ > 5000) {
      fail("{}: watchdog: no progress for 5000 cycles ({} of {} elements)", where_, popped_, expected_);
      finish();
    }
  }

  HwParams hw_;
  std::vector<WordIn> words_;
  Rng rng_;
  RefLane ref_;
  std::string where_;
  std::vector<elem_t> stream_;
  const WordIn* cur_ = nullptr;
  std::size_t next_ = 0;
  double p_other_ = 0, p_pop_ = 1, p_bubble_ = 0;
  std::uint64_t cycle_ = 0, last_progress_ = 0;
  int drain_ = 0;
  bool done_ = false;
};

std::uint64_t random_pattern(Rng& rng, int pb) {
  if (chance(rng, 0.5)) {  // a kernel row: kx columns dilated by dx
    const int kx = uni(rng, 1, std::min(pb, 9));
    const int dx = kx > 1 ? uni(rng, 1, std::min(8, (pb - 1) / (kx - 1))) : 1;
    std::uint64_t p = 0;
    for (int i = 0; i < kx; ++i) p |= std::uint64_t(1) << (i * dx);
    return p;
  }
  // Any bit vector: the lane does not care what the pattern means.
  const int width = uni(rng, 1, pb);
  const double density = std::uniform_real_distribution<double>(0.05, 1.0)(rng);
  std::uint64_t p = std::uint64_t(1) << (width - 1);
  for (int i = 0; i < width - 1; ++i)
    if (chance(rng, density)) p |= std::uint64_t(1) << i;
  return p;
}

// Words as the feeder produces them: region rows of consecutive words whose shift drops by B per
// word, plus some arbitrary shifts; a flush ends each RUN.
std::vector<WordIn> random_stream(const HwParams& hw, Rng& rng, int n_words, std::uint32_t& tag) {
  std::vector<WordIn> out;
  const int bus = hw.bus_elems;
  while (int(out.size()) < n_words) {
    const std::uint64_t pat = random_pattern(rng, hw.pattern_bits);
    int width = 64;
    while (((pat >> (width - 1)) & 1u) == 0) --width;
    const int run_rows = uni(rng, 1, 12), off = uni(rng, 0, 3 * bus);
    for (int r = 0; r < run_rows; ++r) {
      const int go = uni(rng, 0, bus - 1);
      const int nw = (go + off + width - 1) / bus + 1 + (chance(rng, 0.2) ? 1 : 0);
      for (int j = 0; j < nw; ++j) {
        WordIn w;
        w.shift = chance(rng, 0.05) ? uni(rng, -2 * hw.pattern_bits, 2 * bus) : go + off - j * bus;
        w.pattern = pat;
        w.data.resize(std::size_t(bus));
        for (auto& e : w.data) e = word_elem_t((tag++ * 40503u) & 0xFFFFu);
        out.push_back(std::move(w));
      }
    }
    out.back().flush = true;
  }
  return out;
}

HwParams random_hw(Rng& rng) {
  static const int kBus[] = {4, 8, 16, 32, 64}, kFd[] = {1, 2, 4}, kPb[] = {16, 32, 64};
  HwParams p;
  p.rows = 1;
  p.bus_elems = kBus[uni(rng, 0, 4)];
  p.log2_bus = 0;
  while ((1 << p.log2_bus) < p.bus_elems) ++p.log2_bus;
  p.m = uni(rng, 1, 4);
  p.lane_fifo_depth = kFd[uni(rng, 0, 2)];
  p.pattern_bits = kPb[uni(rng, 0, 2)];
  return p;
}

}  // namespace

int sc_main(int argc, char** argv) {
  std::uint64_t seed = std::random_device{}();
  bool slow = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--seed") == 0 && i + 1 < argc) {
      seed = std::strtoull(argv[++i], nullptr, 0);
    } else if (std::strcmp(argv[i], "--slow") == 0) {
      slow = true;
    } else {
      fmt::print(stderr, "usage: {} [--seed N] [--slow]\n", argv[0]);
      return 2;
    }
  }
  fmt::print("feed_lane_tb: seed {}{}\n", seed, slow ? " (slow)" : "");
  Rng rng(seed);
  std::vector<std::unique_ptr<LaneHarness>> hs;
  std::size_t elems = 0, popped = 0, stalls = 0, blocked = 0, words = 0;
  try {
    sc_core::sc_clock clk("clk", 10, sc_core::SC_NS);
    const int n_cfg = slow ? 160 : 48, n_words = slow ? 6000 : 3000;
    std::uint32_t tag = 0;
    for (int i = 0; i < n_cfg; ++i) {
      const HwParams hw = random_hw(rng);
      std::vector<WordIn> ws = random_stream(hw, rng, n_words, tag);
      words += ws.size();
      hs.push_back(std::make_unique<LaneHarness>(fmt::format("h{}", i).c_str(), hw, clk, std::move(ws), rng()));
    }
    sc_core::sc_start(sc_core::sc_time(100, sc_core::SC_MS));
    if (g_active != 0) fail("{} harnesses did not finish", g_active);
    for (const auto& h : hs) {
      elems += h->expected_;
      popped += h->popped_;
      stalls += h->stall_cycles_;
      blocked += h->blocked_cycles_;
    }
    if (popped != elems) fail("{} elements popped, want {}", popped, elems);
  } catch (const std::exception& e) {
    fmt::print(stderr, "ERROR: {}\n", e.what());
    ++g_errors;
  }
  fmt::print("feed_lane_tb: {} seed {}: {} lanes, {} words, {} of {} elements popped, {} lane-stall cycles ({} with "
             "a blocked push); {} mismatches\n",
             g_errors == 0 ? "PASS" : "FAIL", seed, hs.size(), words, popped, elems, stalls, blocked, g_errors);
  return g_errors == 0 ? 0 : 1;
}
