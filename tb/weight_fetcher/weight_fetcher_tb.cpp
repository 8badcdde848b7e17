// Testbench of the weight fetcher (docs/microarchitecture.md, section 9.3), one for all views:
// random RUN shapes (small ones, one-step contexts, RUNs spanning the whole buffer), a random
// weight SRAM image that changes between RUNs, random pop stalls, junk on the RUN fields while
// start is low, resets between and inside RUNs. The reference is written here: the words of a
// RUN in MAC-step order (kg, context, step) and the spec's read rule (a read issues while reads
// are left and count + inflight < WFD; its word enters the FIFO at the next edge). Every cycle
// valid_o, busy_o, the head word and the number of SRAM reads are checked; after each RUN the
// read count statistic. Pooling RUNs (section 16) read nothing: the fetcher must stay idle with an
// empty FIFO. Then directed protocol errors must be refused.
//   weight_fetcher_tb [--view core|sc|all] [--seed N] [--runs N] [--long]   the C++ core (on an
//         SRAM bank) and the SystemC module in bank mode and in port mode, for COLS 16, 4, 5, 3, 1
//   weight_fetcher_rtl_tb_<cfg> [--config FILE] [--seed N] [--runs N] [--long]   weight_fetcher.sv
//         Verilated for one configuration, its SRAM port on a memory model of the bench
#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "hw/common/command.h"
#include "hw/common/hw_params.h"
#include "hw/common/protocol_error.h"
#include "tb/common/bench_main.h"
#include "tb/common/run_ports.h"
#include "tb/common/sram_core_view.h"

#include "tb/common/views.h"
#ifndef FLYCOL_VTOP
#include "hw/weight_fetcher/weight_fetcher.h"
#include "hw/weight_fetcher/weight_fetcher_core.h"
#endif

using namespace flycol;
using namespace flycol::hw;

namespace {

// The inputs of one cycle.
struct Drive : tb::RunStartInputs {
  bool pop = false;
};

// The weight SRAM as the bench sees it: the image, and the port of a view without a bank (read
// data from the next cycle on, held until the next read).
struct Image {
  int depth, cols;
  std::vector<word_elem_t> mem;
  Image(int d, int c) : depth(d), cols(c), mem(std::size_t(d) * std::size_t(c)) {}
  word_elem_t& at(int a, int e) { return mem[std::size_t(a) * std::size_t(cols) + std::size_t(e)]; }
};

struct PortModel {
  std::vector<word_elem_t> rdata;
  std::uint64_t reads = 0;
  // The request of the cycle that ends; returns false for an address outside the buffer.
  bool edge(Image& img, bool req, std::uint32_t addr) {
    if (!req) return true;
    if (int(addr) >= img.depth) return false;
    ++reads;
    rdata.resize(std::size_t(img.cols));
    for (int e = 0; e < img.cols; ++e) rdata[std::size_t(e)] = img.at(int(addr), e);
    return true;
  }
};

// ---------------------------------------------------------------------------------------------
// Stimulus, reference and scoreboard. A view offers: drive(d), edge(d), fault(), valid(), busy(),
// word(e), reads() (SRAM reads since the last reset), stat_reads(&n) (the core's statistic, if
// the view has it), poke(a, e, v) (the image changed), offer_once(d) (a directed protocol error:
// whether it was refused), expect_refusals_begin/end().

struct Figures {
  std::uint64_t cycles = 0, runs = 0, runs_reset = 0, pops = 0, held_reads = 0, fifo_full = 0, directed = 0;
  std::uint64_t pool_runs = 0;  // pooling RUNs (no reads)
};

template <class View>
class Bench {
public:
  Bench(View& v, Image& img, int wfd, std::uint64_t seed, tb::MismatchLog& log, Figures& fig, word_elem_t emask)
      : v_(v), img_(img), wfd_(wfd), r_(seed), log_(log), fig_(fig), emask_(emask) {}

  void run(int n_runs) {
    for (int a = 0; a < img_.depth; ++a)
      for (int e = 0; e < img_.cols; ++e) poke(a, e, word_elem_t(r_.bits(16)) & emask_);
    do_reset(3);
    for (int i = 0; i < n_runs && !too_many(); ++i) one_run();
    if (!too_many()) directed_errors();
  }

private:
  View& v_;
  Image& img_;
  int wfd_;
  tb::Rand r_;
  tb::MismatchLog& log_;
  Figures& fig_;
  word_elem_t emask_;
  std::uint64_t reads_base_ = 0;

  bool too_many() const { return log_.errors() >= std::uint64_t(tb::MismatchLog::kMaxReported); }

  void poke(int a, int e, word_elem_t v) {
    img_.at(a, e) = v;
    v_.poke(a, e, v);
  }

  RunDesc random_shape() {
    RunDesc r;
    if (r_.chance(0.15)) {
      // A RUN that spans (nearly) the whole buffer, so every address bit is exercised.
      r.n_kg = std::uint32_t(r_.uniform(1, 3));
      r.n_c = std::uint32_t(std::max(1, img_.depth / int(r.n_kg) - r_.uniform(0, 2)));
      r.n_ky = r.n_kx = 1;
      r.n_cy = 1;
      r.n_cx = r_.chance(0.5) ? 2 : 1;
    } else {
      r.n_kg = std::uint32_t(r_.uniform(1, 3));
      r.n_cy = std::uint32_t(r_.uniform(1, 3));
      r.n_cx = std::uint32_t(r_.uniform(1, 3));
      r.n_c = std::uint32_t(r_.uniform(1, 4));
      r.n_ky = std::uint32_t(r_.uniform(1, 3));
      r.n_kx = std::uint32_t(r_.uniform(1, 3));
      if (r_.chance(0.1)) r.n_c = r.n_ky = r.n_kx = 1;  // one-step contexts
    }
    if (r_.chance(0.1)) {
      // A pooling RUN (max or average, one group): the fetcher reads nothing.
      r.pool_op = std::uint32_t(r_.uniform(1, 2));
      r.n_kg = 1;
    }
    return r;
  }

  void do_reset(int cycles) {
    tb::hold_reset<Drive>(v_, log_, fig_.cycles, cycles);
    reads_base_ = v_.reads();
  }

  // RUN fields while start is low: any value (the fetcher must not look at them).
  Drive junk_drive() {
    Drive d;
    d.run = tb::junk_run(r_);
    d.run.pool_op = std::uint32_t(r_.uniform(0, 3));
    return d;
  }

  // One cycle with no RUN of interest: junk fields, no pop; nothing may happen.
  void idle_cycle() {
    Drive d = junk_drive();
    log_.at(fig_.cycles);
    v_.drive(d);
    log_.expect("valid_o (idle)", v_.valid(), false);
    log_.expect("busy_o (idle)", v_.busy(), false);
    const std::uint64_t before = v_.reads();
    v_.edge(d);
    if (v_.fault()) log_.fail("an assertion fired");
    log_.expect("SRAM reads (idle)", v_.reads(), before);
    ++fig_.cycles;
  }

  void one_run() {
    // A few words of the image change between RUNs.
    for (int i = 0; i < 8; ++i) {
      const int a = r_.uniform(0, img_.depth - 1);
      for (int e = 0; e < img_.cols; ++e) poke(a, e, word_elem_t(r_.bits(16)) & emask_);
    }
    for (int gap = r_.uniform(0, 3); gap > 0; --gap) idle_cycle();
    const RunDesc run = random_shape();
    const int len = int(run.steps_per_context());
    std::vector<int> expected;  // word addresses in pop order (none for a pooling RUN)
    for (std::uint32_t g = 0; g < (run.pooling() ? 0 : run.n_kg); ++g)
      for (std::uint32_t ctx = 0; ctx < run.n_cy * run.n_cx; ++ctx)
        for (int step = 0; step < len; ++step) expected.push_back(int(g) * len + step);
    static const double kPopProbs[] = {1.0, 1.0, 0.9, 0.5, 0.2};
    const double pop_prob = kPopProbs[r_.uniform(0, 4)];
    const std::int64_t reset_after = r_.chance(0.04) ? r_.uniform(1, int(expected.size()) + 10) : -1;
    log_.note("RUN kg {} cy {} cx {} c {} ky {} kx {} pool_op {}: {} words, pop rate {}", run.n_kg, run.n_cy, run.n_cx,
              run.n_c, run.n_ky, run.n_kx, run.pool_op, expected.size(), pop_prob);
    // A pooling RUN is watched for a while: no read, no word, never busy.
    const std::int64_t min_cycles = run.pooling() ? r_.uniform(2, 12) : 1;

    // The spec's read rule, cycle by cycle: words in the FIFO, reads left, a read in flight.
    int count = 0, reads_left = int(expected.size());
    bool inflight = false;
    std::uint64_t reads = 0;
    std::size_t next = 0;
    const std::uint64_t reads_at_start = v_.reads();
    tb::Watchdog dog(2000);
    for (std::int64_t c = 0; next < expected.size() || inflight || reads_left > 0 || c < min_cycles; ++c) {
      if (too_many()) return;
      if (c == reset_after) {
        ++fig_.runs_reset;
        do_reset(r_.uniform(1, 2));
        return;
      }
      Drive d = junk_drive();
      d.start = c == 0;
      if (d.start) d.run = run;
      log_.at(fig_.cycles);
      v_.drive(d);
      // Moore outputs of this cycle against the model (the first cycle: nothing yet).
      log_.expect("valid_o", v_.valid(), count > 0);
      log_.expect("busy_o", v_.busy(), c > 0 && (reads_left > 0 || inflight));
      if (count > 0) {
        if (next >= expected.size()) {
          log_.fail("valid_o after the last word");
        } else {
          for (int e = 0; e < img_.cols; ++e)
            if (!log_.expect("word_o", std::uint64_t(v_.word(e)), std::uint64_t(img_.at(expected[next], e)))) {
              log_.fail("  word {} of {} (address {}) element {}", next, expected.size(), expected[next], e);
              break;
            }
        }
      }
      d.pop = count > 0 && r_.chance(pop_prob);
      v_.drive(d);
      v_.edge(d);
      if (v_.fault()) log_.fail("an assertion fired");
      ++fig_.cycles;
      // The model over the edge: the read of this cycle (none in the start cycle, which only
      // loads the RUN) enters the FIFO at the next edge.
      const bool read = c > 0 && reads_left > 0 && count + (inflight ? 1 : 0) < wfd_;
      if (c > 0 && !read && reads_left > 0) ++fig_.held_reads;
      if (count == wfd_) ++fig_.fifo_full;
      count += (inflight ? 1 : 0) - (d.pop ? 1 : 0);
      inflight = read;
      if (read) --reads_left, ++reads;
      if (d.pop) ++next, ++fig_.pops, dog.progress();
      if (read) dog.progress();
      log_.expect("SRAM reads", v_.reads() - reads_at_start, reads);
      if (!dog.tick(log_, "the RUN's words")) return;
    }
    ++fig_.runs;
    if (run.pooling()) ++fig_.pool_runs;
    std::uint64_t stat = 0;
    if (v_.stat_reads(stat)) log_.expect("sram_reads() statistic", stat, v_.reads() - reads_base_);
  }

  // Protocol errors: each must be refused (core: ProtocolError; module: SC_ERROR; RTL: an
  // assertion at the edge).
  void directed_errors() {
    v_.expect_refusals_begin();
    RunDesc good;
    good.n_c = 3;
    auto directed = [&](const char* what, bool start_first, Drive d) {
      do_reset(2);
      if (start_first) {
        Drive s;
        s.start = true;
        s.run = good;
        v_.drive(s);
        v_.edge(s);
        ++fig_.cycles;
      }
      log_.at(fig_.cycles);
      log_.expect_true(v_.offer_once(d), fmt::format("directed '{}' was not refused", what));
      ++fig_.cycles;
      ++fig_.directed;
    };
    Drive pop_empty;
    pop_empty.pop = true;
    directed("pop of an empty weight FIFO", false, pop_empty);
    Drive again;
    again.start = true;
    again.run = good;
    directed("start while busy", true, again);
    Drive big = again;
    big.run.n_kg = std::uint32_t(img_.depth / 3 + 1);
    directed("RUN larger than the weight buffer", false, big);
    Drive no_steps = again;
    no_steps.run.n_kx = 0;
    directed("RUN without steps", false, no_steps);
    Drive no_ctx = again;
    no_ctx.run.n_cy = 0;
    directed("RUN without contexts", false, no_ctx);
    v_.expect_refusals_end();
    do_reset(2);
  }
};

#ifdef FLYCOL_VTOP

// ---------------------------------------------------------------------------------------------
// weight_fetcher.sv, Verilated for one configuration; its SRAM port on the bench's image.

class RtlView {
public:
  RtlView(const HwParams& p, Image& img, std::uint64_t seed) : dut_(seed), p_(p), img_(img) {
    port_.rdata.assign(std::size_t(p.cols), 0);
  }
  void drive(const Drive& d) {
    dut_->rst_ni = d.rst_n;
    dut_->start_i = d.start;
    tb::put_run(*dut_, d.run);
    dut_->run_pool_op_i = std::uint8_t(d.run.pool_op);
    dut_->pop_i = d.pop;
    for (int e = 0; e < p_.cols; ++e) tb::put_elem(dut_->weight_rdata_i, e, p_.elem_bits, port_.rdata[std::size_t(e)]);
    dut_->eval();
  }
  void edge(const Drive& d) {
    dut_->eval();
    if (dut_->weight_we_o) bad_port_ = "weight_we_o high: the fetcher only reads";
    const bool req = dut_->weight_req_o && d.rst_n;
    if (!port_.edge(img_, req, dut_->weight_addr_o)) bad_port_ = fmt::format("weight_addr_o {} out of range", dut_->weight_addr_o);
    dut_.edge();
    if (!d.rst_n) port_.reads = 0;
  }
  bool fault() {
    if (!bad_port_.empty()) {
      fmt::print(stderr, "port: {}\n", bad_port_);
      bad_port_.clear();
      return true;
    }
    return dut_.fault();
  }
  bool valid() { return dut_->has_word_o; }
  bool busy() { return dut_->busy_o; }
  word_elem_t word(int e) { return word_elem_t(tb::get_elem(dut_->word_o, e, p_.elem_bits)); }
  std::uint64_t reads() const { return port_.reads; }
  bool stat_reads(std::uint64_t&) const { return false; }  // counted by the port model above
  void poke(int, int, word_elem_t) {}                       // the port reads the image itself
  void expect_refusals_begin() { tb::expect_rtl_assertions("weight_fetcher_rtl_tb", "directed protocol errors"); }
  void expect_refusals_end() {}
  bool offer_once(const Drive& d) {
    drive(d);
    edge(d);
    bad_port_.clear();
    return dut_.fault();
  }

private:
  tb::Dut<FLYCOL_VTOP> dut_;
  HwParams p_;
  Image& img_;           // the weight SRAM's contents, read through port_
  PortModel port_;
  std::string bad_port_;  // what the last edge did wrong on the port, if anything
};

#else

// ---------------------------------------------------------------------------------------------
// WeightFetcherCore on an hw::SramBank.

class CoreView : public tb::SramCoreView<CoreView, WeightFetcherCore, Drive> {
public:
  explicit CoreView(const HwParams& p) : SramCoreView(p, "weights", p.weight_depth, p.cols) {}
  void step(const Drive& d) {
    core_.set_pop(d.pop);
    core_.eval(bank_);
  }
  bool valid() { return core_.has_word(); }
  word_elem_t word(int e) { return word_elem_t(core_.word()[e]); }
  bool stat_reads(std::uint64_t& n) const {
    n = core_.sram_reads();
    return true;
  }
};

// The WeightFetcher SC_MODULE on its own signals and clock: with a bank it ticks (bank mode), or
// with its SRAM port on the bench's image (port mode, as in the structural top).
class ScView {
public:
  ScView(const std::string& name, const HwParams& p, Image& img, bool port_mode)
      : p_(p), img_(img), port_mode_(port_mode), bank_("weights", p.weight_depth, p.cols),
        dut_(port_mode ? std::make_unique<WeightFetcher>(name.c_str(), p)
                       : std::make_unique<WeightFetcher>(name.c_str(), p, bank_)),
        in_(name), word_((name + "_word").c_str(), std::size_t(p.cols)), rdata_((name + "_rdata").c_str(), std::size_t(p.cols)) {
    WeightFetcher& m = *dut_;
    in_.bind(m);
    m.pop_i(pop_);
    m.valid_o(valid_);
    m.word_o(word_);
    m.busy_o(busy_);
    if (port_mode) {
      m.weight_req_o(req_);
      m.weight_addr_o(addr_);
      m.weight_rdata_i(rdata_);
    }
    port_.rdata.assign(std::size_t(p.cols), 0);
  }
  void drive(const Drive& d) {
    in_.write(d);
    pop_.write(d.pop);
    tb::ScClock::settle();
  }
  void edge(const Drive& d) {
    tb::ScClock::settle();
    if (port_mode_) {
      if (!port_.edge(img_, req_.read() && d.rst_n, addr_.read()))
        bad_port_ = fmt::format("weight_addr_o {} out of range", addr_.read());
    }
    in_.clk.step();
    // The read data of this cycle's request, from the next cycle on (after the edge).
    if (port_mode_)
      for (int e = 0; e < p_.cols; ++e) rdata_[std::size_t(e)].write(port_.rdata[std::size_t(e)]);
    if (!d.rst_n) {
      port_.reads = 0;
      reads_base_ = bank_.reads();
    }
  }
  bool fault() {
    const bool f = !bad_port_.empty();
    if (f) fmt::print(stderr, "port: {}\n", bad_port_);
    bad_port_.clear();
    return f;
  }
  bool valid() { return valid_.read(); }
  bool busy() { return busy_.read(); }
  word_elem_t word(int e) { return word_elem_t(word_[std::size_t(e)].read()); }
  std::uint64_t reads() const { return port_mode_ ? port_.reads : bank_.reads() - reads_base_; }
  bool stat_reads(std::uint64_t& n) const {
    n = dut_->core().sram_reads();
    return true;
  }
  void poke(int a, int e, word_elem_t v) { bank_.poke(a, e, v); }
  void expect_refusals_begin() { tb::expect_sc_errors(dut_->name(), "weight_fetcher_tb", "directed protocol errors"); }
  void expect_refusals_end() { tb::end_sc_errors(dut_->name()); }
  bool offer_once(const Drive& d) {
    return tb::sc_errors_during(dut_->name(), [&] {
             drive(d);
             edge(d);
           }) == 1;
  }

private:
  HwParams p_;
  Image& img_;
  bool port_mode_;
  SramBank bank_;
  PortModel port_;
  std::string bad_port_;
  std::uint64_t reads_base_ = 0;
  std::unique_ptr<WeightFetcher> dut_;
  tb::ScRunInputs in_;
  sc_core::sc_signal<bool> pop_, valid_, busy_, req_;
  sc_core::sc_signal<std::uint32_t> addr_;
  sc_core::sc_vector<sc_core::sc_signal<elem_t>> word_;
  sc_core::sc_vector<sc_core::sc_signal<word_elem_t>> rdata_;
};

#endif

std::string figures(const Figures& f) {
  return fmt::format("{} RUNs ({} cut by a reset, {} pooling RUNs without reads), {} words popped, {} directed cases, "
                     "{} cycles ({} with a read held back by the FIFO rule, {} with the FIFO full)",
                     f.runs, f.runs_reset, f.pool_runs, f.pops, f.directed, f.cycles, f.held_reads, f.fifo_full);
}

}  // namespace

#ifdef FLYCOL_VTOP

int main(int argc, char** argv) {
  tb::BenchMain harness("weight_fetcher", {"runs", 3000, 30000, "random RUNs"});
  if (!harness.parse(argc, argv)) return 2;
  const HwParams& p = harness.params();
  harness.announce("COLS {}, depth {}, {} RUNs", p.cols, p.weight_depth, harness.count());
  Image img(p.weight_depth, p.cols);
  RtlView view(p, img, harness.seed());
  Figures fig;
  harness.run(harness.rtl_view(), [&](tb::MismatchLog& log) {
    Bench<RtlView>(view, img, kWeightFifoDepth, harness.seed(0), log, fig, word_elem_t((1u << p.elem_bits) - 1u))
        .run(int(harness.count()));
  });
  return harness.finish(figures(fig));
}

#else

int sc_main(int argc, char* argv[]) {
  tb::BenchMain harness("weight_fetcher", {"runs", 3000, 100000, "random RUNs per array width and view"});
  if (!harness.parse(argc, argv)) return 2;
  harness.announce("{} RUNs per width", harness.count());
  const int widths[] = {16, 4, 5, 3, 1};
  auto params = [](int cols) {
    HwParams p;
    p.cols = cols;
    p.weight_depth = 128;
    return p;
  };
  // Every SC_MODULE exists before the first sc_start: per width one in bank and one in port mode.
  std::vector<std::unique_ptr<Image>> images;
  std::vector<std::unique_ptr<ScView>> sc_views;
  for (int cols : widths)
    for (bool port : {false, true}) {
      images.push_back(std::make_unique<Image>(128, cols));
      sc_views.push_back(std::make_unique<ScView>(fmt::format("wf{}_{}", cols, port ? "port" : "bank"), params(cols),
                                                  *images.back(), port));
    }
  Figures fig;
  for (std::size_t w = 0; w < std::size(widths); ++w) {
    const HwParams p = params(widths[w]);
    auto one = [&](const std::string& name, auto& v, Image& img) {
      harness.run(fmt::format("{} COLS {}", name, p.cols), [&](tb::MismatchLog& log) {
        // The same stimulus on every view of a width.
        Bench<std::remove_reference_t<decltype(v)>>(v, img, kWeightFifoDepth, harness.seed(w), log, fig, 0xffffu)
            .run(int(harness.count()));
      });
    };
    if (harness.core()) {
      Image img(128, p.cols);
      CoreView core(p);
      one("core", core, img);
    }
    if (harness.sc()) {
      one("sc bank", *sc_views[2 * w], *images[2 * w]);
      one("sc port", *sc_views[2 * w + 1], *images[2 * w + 1]);
    }
  }
  if (harness.count() >= 50 && fig.fifo_full == 0) harness.fail("coverage: the weight FIFO was never full");
  return harness.finish(figures(fig));
}

#endif
