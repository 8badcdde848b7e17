// Testbench of the FIFO cell (hw/common/fifo.h, hw/common/fifo.sv), one for both views: for every
// test shape (hw/common/rtl.cmake: one entry, non-powers of two, entries wider than 64 bits, the
// DMA's 32-deep chunk queue), random push/pop in phases of random rates (bursts fill it, reader
// stalls keep it full, the reverse drains it) and resets, checked every cycle against a queue
// written here: full, empty, count and the head entry; then push while full (also with a pop in the
// same cycle) and pop while empty must be refused.
//   fifo_tb [--seed N] [--cycles N] [--long]       the C++ model hw::Fifo (1 M / 20 M cycles per shape)
//   fifo_rtl_tb [--seed N] [--cycles N] [--long]   fifo.sv Verilated for every shape (FLYCOL_VTOP)
#include <algorithm>
#include <array>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>

#include <fmt/format.h>

#include "fifo_shapes.h"
#include "hw/common/protocol_error.h"
#include "tb/common/bench_main.h"

#ifdef FLYCOL_VTOP
#include "tb/common/verilator.h"
#else
#include "hw/common/fifo.h"
#endif

using namespace flycol;

namespace {

constexpr int kMaxWords = 4;  // entries up to 128 bits
using Entry = std::array<std::uint32_t, kMaxWords>;

// ---------------------------------------------------------------------------------------------
// Stimulus, reference (a std::deque bounded by the depth) and scoreboard. A view offers
// drive(push, pop, entry, rst_n), full(), empty(), count(), head(), edge(), fault() and
// refuses(push, pop) (a request the cell must refuse, in one cycle).

struct Figures {
  std::uint64_t cycles = 0, pushes = 0, pops = 0, full_cycles = 0, resets = 0, refusals = 0;
};

template <class View>
void run_shape(View& v, int width, int depth, std::uint64_t seed, std::uint64_t cycles, tb::MismatchLog& log,
               Figures& fig) {
  tb::Rand r(seed);
  std::deque<Entry> ref;
  auto random_entry = [&] {
    Entry e{};
    for (int i = 0; i < kMaxWords; ++i) {
      const int bits = std::min(32, width - 32 * i);
      if (bits > 0) e[std::size_t(i)] = std::uint32_t(r.bits(bits));
    }
    return e;
  };
  auto compare = [&] {
    log.expect("full_o", v.full(), int(ref.size()) == depth);
    log.expect("empty_o", v.empty(), ref.empty());
    log.expect("count_o", v.count(), int(ref.size()));
    if (!ref.empty()) {
      const Entry got = v.head();
      for (int i = 0; i * 32 < width; ++i)
        if (!log.expect("rdata_o word", got[std::size_t(i)], ref.front()[std::size_t(i)])) break;
    }
    if (v.fault()) log.fail("an assertion fired");
  };
  auto step = [&](bool push, bool pop, const Entry& e, bool rst_n) {
    v.drive(push, pop, e, rst_n);
    log.note("rst_n {} push {} pop {}", rst_n, push, pop);
    if (!rst_n) ref.clear();  // the reset is asynchronous: empty at once
    compare();
    v.edge();
    if (!rst_n) return;
    if (pop) ref.pop_front();
    if (push) ref.push_back(e);
  };
  step(false, false, Entry{}, false);
  // Phases of random length with their own push and pop rates.
  tb::PhasedRate push_rate({0.0, 0.1, 0.5, 0.9, 1.0}, 100), pop_rate({0.0, 0.1, 0.5, 0.9, 1.0}, 100);
  std::uint64_t c = 0;
  for (; c < cycles && log.ok(); ++c) {
    log.at(fig.cycles + c);
    if (r.chance(1.0 / 5000)) {
      ++fig.resets;
      step(false, false, Entry{}, false);
      continue;
    }
    const bool push_wanted = push_rate.draw(r), pop_wanted = pop_rate.draw(r);
    const bool push = int(ref.size()) < depth && push_wanted;
    const bool pop = !ref.empty() && pop_wanted;
    fig.full_cycles += int(ref.size()) == depth;
    fig.pushes += push;
    fig.pops += pop;
    step(push, pop, random_entry(), true);
  }
  fig.cycles += c;
  if (!log.ok()) return;
  // Requests the cell must refuse.
  step(false, false, Entry{}, false);
  log.expect_true(v.refuses(false, true), "pop while empty was not refused");
  step(false, false, Entry{}, false);
  for (int i = 0; i < depth; ++i) step(true, false, random_entry(), true);
  // Full: a push is refused even with a pop in the same cycle (the count is registered).
  log.expect_true(v.refuses(true, true), "push while full and popping was not refused");
  step(false, false, Entry{}, false);
  for (int i = 0; i < depth; ++i) step(true, false, random_entry(), true);
  log.expect_true(v.refuses(true, false), "push while full was not refused");
  fig.refusals += 3;
}

#ifdef FLYCOL_VTOP

// One Verilated shape of fifo.sv.
template <class V, int Width>
class RtlView {
public:
  void drive(bool push, bool pop, const Entry& e, bool rst_n) {
    dut_->rst_ni = rst_n;
    dut_->push_i = push;
    dut_->pop_i = pop;
    for (int i = 0; i * 32 < Width; ++i)
      tb::put_bits(dut_->wdata_i, 32 * i, std::min(32, Width - 32 * i), e[std::size_t(i)]);
    dut_->clk_i = 0;
    dut_->eval();
  }
  bool full() { return dut_->full_o; }
  bool empty() { return dut_->empty_o; }
  int count() { return int(dut_->count_o); }
  Entry head() {
    Entry e{};
    for (int i = 0; i * 32 < Width; ++i)
      e[std::size_t(i)] = std::uint32_t(tb::get_bits(dut_->rdata_o, 32 * i, std::min(32, Width - 32 * i)));
    return e;
  }
  void edge() { dut_.edge(); }
  bool fault() { return dut_.fault(); }
  bool refuses(bool push, bool pop) {
    fmt::print("fifo_rtl_tb W={}: a request the FIFO refuses (the assertion below is expected)\n", Width);
    drive(push, pop, Entry{}, true);
    return dut_.refuses_on_edge();
  }

private:
  tb::Dut<V> dut_;
};

#else

// hw::Fifo configured to the shape's depth.
class CoreView {
public:
  explicit CoreView(int depth) : fifo_("fifo", depth) {}
  void drive(bool push, bool pop, const Entry& e, bool rst_n) {
    push_ = push, pop_ = pop, e_ = e, rst_n_ = rst_n;
    if (!rst_n) fifo_.reset();  // asynchronous: at once
  }
  bool full() { return fifo_.full(); }
  bool empty() { return fifo_.empty(); }
  int count() { return fifo_.count(); }
  Entry head() { return fifo_.front(); }
  void edge() {
    if (!rst_n_) return;
    fifo_.set_push(push_, e_);
    fifo_.set_pop(pop_);
    fifo_.tick();
  }
  bool fault() { return false; }
  bool refuses(bool push, bool pop) {
    drive(push, pop, Entry{}, true);
    try {
      edge();
    } catch (const hw::ProtocolError&) {
      return true;
    }
    return false;
  }

private:
  hw::Fifo<Entry, 64> fifo_;
  bool push_ = false, pop_ = false, rst_n_ = false;
  Entry e_{};
};

#endif

}  // namespace

int main(int argc, char** argv) {
  tb::BenchMain harness("fifo", {"cycles", 1000000, 20000000, "cycles per shape"}, false);
  if (!harness.parse(argc, argv)) return 2;
  harness.announce("{} cycles per shape", harness.count());
  std::uint64_t k = 0;
  Figures fig;
  auto one = [&](auto& view, int width, int depth) {
    harness.run(fmt::format("W={} D={}", width, depth), [&](tb::MismatchLog& log) {
      run_shape(view, width, depth, harness.seed(k++), harness.count(), log, fig);
    });
  };
#ifdef FLYCOL_VTOP
#define FLYCOL_SHAPE(V, W, D) \
  {                           \
    RtlView<V, W> v;          \
    one(v, W, D);             \
  }
  FLYCOL_RTL_SHAPES(FLYCOL_SHAPE)
#else
#define FLYCOL_SHAPE(W, D) \
  {                        \
    CoreView v(D);         \
    one(v, W, D);          \
  }
  FLYCOL_CELL_SHAPES(FLYCOL_SHAPE)
#endif
#undef FLYCOL_SHAPE
  return harness.finish(fmt::format("{} shapes, {} cycles, {} pushes, {} pops, {} cycles full, {} resets, {} refusals",
                                    k, fig.cycles, fig.pushes, fig.pops, fig.full_cycles, fig.resets, fig.refusals));
}
