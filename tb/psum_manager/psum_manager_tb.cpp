// Testbench of the partial-sums manager (docs/microarchitecture.md, section 9.6, without the
// skew/de-skew, which belong to the array), one for all views. The stimulus plays the issue stage
// and the array: random RUNs (1..3 x 1..3 x 1..4 contexts, single-context RUNs, RUNs that fill the
// psum buffer; with and without preload), window tokens at least COLS apart with random extra
// gaps and long stalls, claims only with COLS unclaimed words, preload pops and result words at
// the datasheet's offsets after each window (junk results for the two FILL and the SWAP0 windows), junk
// on every field without its strobe, resets in the middle of RUNs. The reference, written here:
// the spec's preload queue, result queue and SRAM port rules (a result write first; else a
// preload read while reads are left and count + inflight < 2*COLS) and the RUN's psum layout.
// Every cycle unclaimed_o, busy_o, run_done_o, the SRAM read and write counts and, on a pop, the
// preload word are checked; after each RUN the whole psum buffer (results where they belong, the
// rest unchanged) and the statistics. Pooling RUNs (section 16, "Results"; 1..4 windows per context
// over 1..3 x 1..4 contexts, single-word RUNs, RUNs that fill the psum buffer) take their result words
// from the pooling unit's port instead, at random times (back to back, scattered, long gaps): the
// k-th word is window c of context (cy, cx), c innermost, and lands at (c*n_cy + cy)*n_cx + cx; the
// array's port stays quiet, no preload is read, the RUN ends with its n_c*n_cy*n_cx-th write. Then
// directed protocol errors must be refused.
//   psum_manager_tb [--view core|sc|all] [--seed N] [--runs N] [--long]   the C++ core (on an SRAM
//         bank) and the SystemC module in bank and in port mode, for ROWSxCOLS 16x16, 4x4, 3x5,
//         5x3, 1x1 (1000 / 50000 RUNs per shape and view)
//   psum_manager_rtl_tb_<cfg> [--config FILE] [--seed N] [--runs N] [--long]   psum_manager.sv
//         Verilated for one configuration, its SRAM port on the bench's memory
#include <algorithm>
#include <cstdint>
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
#include "hw/psum_manager/psum_manager.h"
#include "hw/psum_manager/psum_manager_core.h"
#endif

using namespace flycol;
using namespace flycol::hw;

namespace {

// The inputs of one cycle.
struct Drive : tb::RunStartInputs {
  bool claim = false, pre_pop = false, res_valid = false, pool_valid = false;
  int res_col = 0;
  std::vector<acc_t> res_word;   // ROWS
  std::vector<acc_t> pool_word;  // ROWS
};

// The psum SRAM as the bench sees it, for views with an SRAM port (read data from the next cycle
// on, held until the next read; writes at the edge under the element mask).
struct PortMemory {
  int depth, rows;
  std::vector<acc_t> mem, rdata;
  std::uint64_t reads = 0, writes = 0;
  std::string error;  // the first port misuse seen
  PortMemory(int d, int r) : depth(d), rows(r), mem(std::size_t(d) * std::size_t(r)), rdata(std::size_t(r)) {}
  acc_t& at(int a, int e) { return mem[std::size_t(a) * std::size_t(rows) + std::size_t(e)]; }
  // The operation of the cycle that ends; `wdata(e)` and `wmask` are read only for a write.
  template <class W>
  void edge(bool req, bool we, std::uint32_t addr, W&& wdata, std::uint64_t wmask) {
    if (!req) return;
    if (int(addr) >= depth) {
      if (error.empty()) error = fmt::format("psum_addr_o {} out of range", addr);
      return;
    }
    if (we) {
      ++writes;
      for (int e = 0; e < rows; ++e) {
        if (((wmask >> e) & 1u) == 0) {
          if (error.empty()) error = fmt::format("psum_wmask_o bit {} low on a result write", e);
          continue;
        }
        at(int(addr), e) = wdata(e);
      }
    } else {
      ++reads;
      for (int e = 0; e < rows; ++e) rdata[std::size_t(e)] = at(int(addr), e);
    }
  }
  std::string take_error() {
    std::string e;
    e.swap(error);
    return e;
  }
};

struct Figures {
  std::uint64_t cycles = 0, runs = 0, runs_reset = 0, pre_words = 0, results = 0, directed = 0;
  std::uint64_t cov_full = 0, cov_deferred = 0, cov_claim_wait = 0;
  std::uint64_t pool_runs = 0, pool_results = 0, pool_back_to_back = 0;
};

// A recognizable result value: which RUN, window, column and row produced it.
acc_t result_value(std::uint64_t run_id, std::uint32_t k, int col, int r) {
  std::uint64_t x = run_id * 0x9e3779b97f4a7c15ull ^ (std::uint64_t(k) << 24) ^ (std::uint64_t(col) << 8) ^ std::uint64_t(r);
  x ^= x >> 29;
  x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 32;
  return acc_t(x);
}

// ---------------------------------------------------------------------------------------------
// Stimulus, reference and scoreboard. A view offers: drive(d), edge(d), fault() (an assertion or a
// port misuse), unclaimed(), busy(), run_done(), pre_word(r) (after drive: Mealy in pre_pop),
// reads()/writes() (SRAM operations since the last reset), peek(a, e) and poke(a, e, v) (the
// psum buffer), stats(written, reads, writes) (the core's statistics, if the view has them),
// offer_once(d) (a directed protocol error: whether it was refused), expect_refusals_begin/end().

template <class View>
class Bench {
public:
  Bench(View& v, const HwParams& p, acc_t amask, std::uint64_t seed, tb::MismatchLog& log, Figures& fig)
      : v_(v), p_(p), rows_(p.rows), cols_(p.cols), pqd_(p.preload_queue_depth()), amask_(amask), r_(seed),
        log_(log), fig_(fig) {}

  void run(int n_runs) {
    do_reset(3);
    for (int i = 0; i < n_runs && !too_many(); ++i) {
      if (r_.chance(0.3)) pool_run();
      else one_run();
    }
    if (!too_many()) directed_errors();
  }

private:
  View& v_;
  HwParams p_;
  int rows_, cols_, pqd_;
  acc_t amask_;
  tb::Rand r_;
  tb::MismatchLog& log_;
  Figures& fig_;
  std::uint64_t run_id_ = 0, reads_base_ = 0, writes_base_ = 0;

  bool too_many() const { return log_.errors() >= std::uint64_t(tb::MismatchLog::kMaxReported); }

  // Junk on the fields that only matter with their strobes.
  Drive idle_drive() {
    Drive d;
    d.run.preload = r_.chance(0.5);
    d.run.n_kg = std::uint32_t(r_.uniform(0, 0xffff));
    d.run.n_cy = std::uint32_t(r_.uniform(0, 0xffff));
    d.run.n_cx = std::uint32_t(r_.uniform(0, 0xffff));
    d.run.n_c = std::uint32_t(r_.uniform(0, 0xffff));
    d.run.n_ky = std::uint32_t(r_.uniform(0, 0xffff));
    d.run.n_kx = std::uint32_t(r_.uniform(0, 0xffff));
    d.run.pool_op = std::uint32_t(r_.uniform(0, 3));
    d.res_col = r_.uniform(0, cols_ - 1);
    d.res_word.resize(std::size_t(rows_));
    for (acc_t& w : d.res_word) w = acc_t(r_.bits(32)) & amask_;
    d.pool_word.resize(std::size_t(rows_));
    for (acc_t& w : d.pool_word) w = acc_t(r_.bits(32)) & amask_;
    return d;
  }

  void cycle(const Drive& d) {
    log_.at(fig_.cycles);
    v_.drive(d);
    v_.edge(d);
    if (v_.fault()) log_.fail("an assertion fired or the SRAM port was misused");
    ++fig_.cycles;
  }

  void do_reset(int cycles) {
    Drive d;
    d.rst_n = false;
    d.res_word.assign(std::size_t(rows_), 0);
    d.pool_word.assign(std::size_t(rows_), 0);
    for (int i = 0; i < cycles; ++i) cycle(d);
    reads_base_ = v_.reads();
    writes_base_ = v_.writes();
    log_.note("reset for {} cycles", cycles);
  }

  RunDesc random_run() {
    RunDesc run;
    if (r_.chance(0.05)) {
      // A RUN that fills the psum buffer, so every address bit is exercised.
      const int max_ctx = std::max(1, p_.psum_depth / cols_);
      run.n_kg = 1;
      run.n_cy = std::uint32_t(r_.chance(0.5) ? 1 : 2);
      run.n_cx = std::uint32_t(std::max(1, max_ctx / int(run.n_cy)));
    } else {
      do {
        run.n_kg = std::uint32_t(r_.uniform(1, 3));
        run.n_cy = std::uint32_t(r_.uniform(1, 3));
        run.n_cx = std::uint32_t(r_.uniform(1, 4));
        if (r_.chance(0.12)) run.n_kg = run.n_cy = run.n_cx = 1;
      } while (run.contexts() * std::uint32_t(cols_) > std::uint32_t(p_.psum_depth));
    }
    run.preload = r_.uniform(0, 2) != 0;
    return run;
  }

  // The psum word of context `ctx`, column `col` (the RUN's layout: kg, col, cy, cx).
  static int address(const RunDesc& run, int cols, std::uint32_t ctx, int col) {
    const std::uint32_t cx = ctx % run.n_cx, cy = (ctx / run.n_cx) % run.n_cy, g = ctx / (run.n_cx * run.n_cy);
    return int(((g * std::uint32_t(cols) + std::uint32_t(col)) * run.n_cy + cy) * run.n_cx + cx);
  }

  void one_run() {
    ++run_id_;
    const RunDesc run = random_run();
    const std::uint32_t first = 3;  // spec 9.4: windows 0..2 (FILL, FILL, SWAP0) deliver no results
    const std::uint32_t n_ctx = run.contexts(), n_windows = n_ctx + first;
    auto takes_sram = [&](std::uint32_t k) { return run.preload && k < n_ctx; };
    // A fresh image, and what it must become.
    std::vector<acc_t> initial(std::size_t(p_.psum_depth) * std::size_t(rows_));
    for (int a = 0; a < p_.psum_depth; ++a)
      for (int e = 0; e < rows_; ++e) {
        const acc_t w = acc_t(r_.bits(32)) & amask_;
        initial[std::size_t(a * rows_ + e)] = w;
        v_.poke(a, e, w);
      }
    std::vector<acc_t> expected = initial;
    for (std::uint32_t ctx = 0; ctx < n_ctx; ++ctx)
      for (int col = 0; col < cols_; ++col)
        for (int r = 0; r < rows_; ++r)
          expected[std::size_t(address(run, cols_, ctx, col) * rows_ + r)] =
              result_value(run_id_, ctx + first, col, r) & amask_;
    static const int kLongStallPct[] = {0, 0, 5, 30};
    const int long_stall_pct = kLongStallPct[r_.uniform(0, 3)];
    const std::int64_t reset_after = r_.chance(0.03) ? r_.uniform(1, int(n_windows) * 2 * cols_ + rows_) : -1;
    log_.note("RUN {}: kg {} cy {} cx {} preload {}", run_id_, run.n_kg, run.n_cy, run.n_cx, run.preload);

    // The start cycle.
    Drive s = idle_drive();
    s.start = true;
    s.run = run;
    cycle(s);
    const std::uint64_t reads0 = v_.reads(), writes0 = v_.writes();

    // The spec's queues and port (state at the start of the current cycle).
    int count = 0, claimed = 0, rq = 0, reads_left = run.preload ? int(n_ctx) * cols_ : 0;
    bool inflight = false;
    std::uint32_t written = 0;
    const std::uint32_t total = n_ctx * std::uint32_t(cols_);
    std::uint64_t reads = 0, writes = 0;
    // The issue stage: windows issued and when the next may go.
    struct Window {
      std::int64_t t;
      std::uint32_t k;
    };
    std::vector<Window> pending;
    std::uint32_t next_k = 0;
    std::int64_t t = 0;  // cycles since the start cycle, minus one
    std::int64_t earliest = r_.chance(0.5) ? 0 : r_.uniform(0, 3 * cols_);
    int done_seen = 0;
    tb::Watchdog dog(5000);
    for (bool finished = false; !finished; ++t) {
      if (too_many()) return;
      if (t == reset_after) {
        ++fig_.runs_reset;
        do_reset(r_.uniform(1, 2));
        return;
      }
      Drive d = idle_drive();
      log_.at(fig_.cycles);
      // Moore outputs of this cycle against the model.
      const bool write = rq > 0;
      const bool run_done = write && written + 1 == total;
      log_.expect("unclaimed_o", v_.unclaimed(), count - claimed);
      log_.expect("busy_o", v_.busy(), true);
      log_.expect("run_done_o", v_.run_done(), run_done);
      log_.expect("SRAM reads", v_.reads() - reads0, reads);
      log_.expect("SRAM writes", v_.writes() - writes0, writes);
      done_seen += run_done;
      // Issue stage: the next window when the gap allows and, if it takes SRAM preload, the queue
      // holds COLS unclaimed words.
      if (next_k < n_windows && t >= earliest) {
        const bool needs = takes_sram(next_k);
        if (!needs || count - claimed >= cols_) {
          d.claim = needs;
          pending.push_back({t, next_k});
          ++next_k;
          std::int64_t extra = 0;
          if (r_.uniform(0, 99) < long_stall_pct) extra = r_.uniform(0, 8 * cols_ + 20);
          else if (r_.chance(0.5)) extra = r_.uniform(1, 2 * cols_ + 3);
          earliest = t + cols_ + extra;
          dog.progress();
        } else {
          ++fig_.cov_claim_wait;
        }
      }
      // Array: preload pops and result words of the windows in flight.
      bool pop_sram = false, push_res = false;
      std::vector<acc_t> pre_want(std::size_t(rows_), 0);
      for (const Window& w : pending) {
        const std::int64_t pre0 = w.t + cols_ + 1, res0 = w.t + cols_ + rows_;
        if (t >= pre0 && t < pre0 + cols_) {
          if (d.pre_pop) log_.fail("bench bug: two preload pops in one cycle");
          d.pre_pop = true;
          const int col = cols_ - 1 - int(t - pre0);
          pop_sram = takes_sram(w.k);
          for (int r = 0; r < rows_; ++r)
            pre_want[std::size_t(r)] = pop_sram ? initial[std::size_t(address(run, cols_, w.k, col) * rows_ + r)] : 0;
          log_.note("pop: window {} column {}", w.k, col);
        }
        if (t >= res0 && t < res0 + cols_) {
          if (d.res_valid) log_.fail("bench bug: two results in one cycle");
          d.res_valid = true;
          d.res_col = cols_ - 1 - int(t - res0);
          if (w.k >= first)
            for (int r = 0; r < rows_; ++r) d.res_word[std::size_t(r)] = result_value(run_id_, w.k, d.res_col, r) & amask_;
          push_res = w.k >= first;
          fig_.results += push_res;
        }
      }
      while (!pending.empty() && t >= pending.front().t + 2 * cols_ + rows_ - 1) pending.erase(pending.begin());
      v_.drive(d);
      if (d.pre_pop) {
        ++fig_.pre_words;
        for (int r = 0; r < rows_; ++r)
          if (!log_.expect("pre_word_o", std::uint64_t(v_.pre_word(r)), std::uint64_t(pre_want[std::size_t(r)]))) {
            log_.fail("  row {} of the popped preload word", r);
            break;
          }
      }
      v_.edge(d);
      if (v_.fault()) log_.fail("an assertion fired or the SRAM port was misused");
      ++fig_.cycles;
      // The model over the edge.
      const bool read = !write && reads_left > 0 && count + (inflight ? 1 : 0) < pqd_;
      if (count - claimed == pqd_) ++fig_.cov_full;
      if (write && reads_left > 0 && count + (inflight ? 1 : 0) < pqd_) ++fig_.cov_deferred;
      count += (inflight ? 1 : 0) - (pop_sram ? 1 : 0);
      claimed += (d.claim ? cols_ : 0) - (pop_sram ? 1 : 0);
      inflight = read;
      if (read) --reads_left, ++reads;
      rq += (push_res ? 1 : 0) - (write ? 1 : 0);
      if (write) ++writes, ++written, dog.progress();
      if (rq > kResultQueueDepth) log_.fail("model: the result queue overflows");
      finished = run_done;
      if (!dog.tick(log_, "the RUN's windows and results")) return;
    }
    after_run(initial, expected, total, run.preload ? std::uint64_t(total) : 0, reads0, writes0, done_seen);
  }

  // A pooling RUN (section 16): one output-channel group, no preload; n_c windows per context. The
  // manager does not read n_ky, n_kx, which are drawn anyway.
  RunDesc random_pool_run() {
    RunDesc run;
    run.pool_op = std::uint32_t(r_.uniform(1, 2));
    run.n_kg = 1;
    run.preload = false;
    run.n_ky = std::uint32_t(r_.uniform(1, 3));
    run.n_kx = std::uint32_t(r_.uniform(1, 3));
    if (r_.chance(0.05)) {
      // A RUN that fills the psum buffer (or nearly), so every address bit is exercised.
      run.n_cy = std::uint32_t(r_.chance(0.5) ? 1 : 2);
      run.n_cx = std::uint32_t(r_.uniform(1, 3));
      run.n_c = std::uint32_t(std::max(1, p_.psum_depth / int(run.n_cy * run.n_cx)));
    } else {
      do {
        run.n_c = std::uint32_t(r_.uniform(1, 4));
        run.n_cy = std::uint32_t(r_.uniform(1, 3));
        run.n_cx = std::uint32_t(r_.uniform(1, 4));
        if (r_.chance(0.1)) run.n_c = run.n_cy = run.n_cx = 1;
      } while (run.n_c * run.n_cy * run.n_cx > std::uint32_t(p_.psum_depth));
    }
    return run;
  }

  // The psum word of a pooling RUN's k-th result: window c of context (cy, cx), c innermost, then
  // cx, then cy; channel c's word of the convolution layout with K = C (section 4).
  static int pool_address(const RunDesc& run, std::uint32_t k) {
    const std::uint32_t c = k % run.n_c, cx = (k / run.n_c) % run.n_cx, cy = k / (run.n_c * run.n_cx);
    return int((c * run.n_cy + cy) * run.n_cx + cx);
  }

  void pool_run() {
    ++run_id_;
    ++fig_.pool_runs;
    const RunDesc run = random_pool_run();
    const std::uint32_t total = run.n_c * run.n_cy * run.n_cx;
    // The pooling unit's results carry column COLS (no array column has it) in their value.
    auto value = [&](std::uint32_t k, int r) { return result_value(run_id_, k, cols_, r) & amask_; };
    std::vector<acc_t> initial(std::size_t(p_.psum_depth) * std::size_t(rows_));
    for (int a = 0; a < p_.psum_depth; ++a)
      for (int e = 0; e < rows_; ++e) {
        const acc_t w = acc_t(r_.bits(32)) & amask_;
        initial[std::size_t(a * rows_ + e)] = w;
        v_.poke(a, e, w);
      }
    std::vector<acc_t> expected = initial;
    for (std::uint32_t k = 0; k < total; ++k)
      for (int r = 0; r < rows_; ++r) expected[std::size_t(pool_address(run, k) * rows_ + r)] = value(k, r);
    // When the unit delivers: back to back, scattered or with long gaps, in phases.
    tb::PhasedRate rate({1.0, 1.0, 0.6, 0.2, 0.0}, 6, r_.pick({1.0, 0.5}));
    const std::int64_t reset_after = r_.chance(0.03) ? r_.uniform(1, int(total) * 3 + 4) : -1;
    log_.note("RUN {}: pooling (op {}) c {} cy {} cx {}: {} words", run_id_, run.pool_op, run.n_c, run.n_cy, run.n_cx,
              total);

    Drive s = idle_drive();
    s.start = true;
    s.run = run;
    cycle(s);
    const std::uint64_t reads0 = v_.reads(), writes0 = v_.writes();

    // The spec's result queue and port: a queued word is written in the next cycle.
    int rq = 0, done_seen = 0;
    std::uint32_t written = 0, delivered = 0;
    std::uint64_t writes = 0;
    bool delivered_last = false;
    tb::Watchdog dog(5000);
    bool finished = false;
    for (std::int64_t t = 0; !finished; ++t) {
      if (too_many()) return;
      if (t == reset_after) {
        ++fig_.runs_reset;
        do_reset(r_.uniform(1, 2));
        return;
      }
      Drive d = idle_drive();
      log_.at(fig_.cycles);
      const bool write = rq > 0;
      const bool run_done = write && written + 1 == total;
      log_.expect("unclaimed_o (pooling RUN)", v_.unclaimed(), 0);
      log_.expect("busy_o", v_.busy(), true);
      log_.expect("run_done_o", v_.run_done(), run_done);
      log_.expect("SRAM reads (pooling RUN)", v_.reads() - reads0, std::uint64_t(0));
      log_.expect("SRAM writes", v_.writes() - writes0, writes);
      done_seen += run_done;
      const bool push = delivered < total && r_.chance(rate.next(r_));
      if (push) {
        d.pool_valid = true;
        for (int r = 0; r < rows_; ++r) d.pool_word[std::size_t(r)] = value(delivered, r);
        log_.note("pooling result {} to word {}", delivered, pool_address(run, delivered));
        if (delivered_last) ++fig_.pool_back_to_back;
        ++fig_.pool_results;
      }
      delivered_last = push;
      v_.drive(d);
      v_.edge(d);
      if (v_.fault()) log_.fail("an assertion fired or the SRAM port was misused");
      ++fig_.cycles;
      rq += (push ? 1 : 0) - (write ? 1 : 0);
      if (push) ++delivered, dog.progress();
      if (write) ++writes, ++written, dog.progress();
      if (rq > kResultQueueDepth) log_.fail("model: the result queue overflows");
      finished = run_done;
      if (!dog.tick(log_, "the pooling RUN's results")) return;
    }
    after_run(initial, expected, total, 0, reads0, writes0, done_seen);
  }

  // The checks after a RUN's run_done cycle (`total` words written, `want_reads` read since
  // `reads0` / `writes0`, `done_seen` pulses of run_done_o), and the gap before the next RUN.
  void after_run(const std::vector<acc_t>& initial, const std::vector<acc_t>& expected, std::uint32_t total,
                 std::uint64_t want_reads, std::uint64_t reads0, std::uint64_t writes0, int done_seen) {
    // The cycle after run_done: idle, every word where it belongs.
    Drive d = idle_drive();
    log_.at(fig_.cycles);
    v_.drive(d);
    log_.expect("busy_o after run_done", v_.busy(), false);
    log_.expect("run_done_o after run_done", v_.run_done(), false);
    log_.expect("unclaimed_o after run_done", v_.unclaimed(), 0);
    log_.expect("run_done_o pulses", done_seen, 1);
    log_.expect("SRAM writes of the RUN", v_.writes() - writes0, std::uint64_t(total));
    log_.expect("SRAM reads of the RUN", v_.reads() - reads0, want_reads);
    std::uint64_t st_written = 0, st_reads = 0, st_writes = 0;
    if (v_.stats(st_written, st_reads, st_writes)) {
      log_.expect("results_written()", st_written, std::uint64_t(total));
      log_.expect("sram_reads() statistic", st_reads, v_.reads() - reads_base_);
      log_.expect("sram_writes() statistic", st_writes, v_.writes() - writes_base_);
    }
    int bad = 0;
    for (int a = 0; a < p_.psum_depth && bad < 3; ++a)
      for (int e = 0; e < rows_; ++e) {
        const acc_t want = expected[std::size_t(a * rows_ + e)];
        if (!log_.expect("psum buffer word", std::uint64_t(v_.peek(a, e)), std::uint64_t(want))) {
          log_.fail("  RUN {}: word {} element {}{}", run_id_, a, e,
                    want == initial[std::size_t(a * rows_ + e)] ? " (must be unchanged)" : "");
          if (++bad == 3) break;
        }
      }
    v_.edge(d);
    ++fig_.cycles;
    ++fig_.runs;
    // The EX engine can start its next command in the cycle after completion; sometimes later.
    for (int gap = r_.chance(0.5) ? 0 : r_.uniform(0, 5); gap > 0; --gap) {
      Drive g = idle_drive();
      log_.at(fig_.cycles);
      v_.drive(g);
      log_.expect("busy_o between RUNs", v_.busy(), false);
      log_.expect("run_done_o between RUNs", v_.run_done(), false);
      log_.expect("unclaimed_o between RUNs", v_.unclaimed(), 0);
      v_.edge(g);
      ++fig_.cycles;
    }
  }

  // Protocol errors, each of which must be refused (core: ProtocolError; module: SC_ERROR; RTL:
  // an assertion at the edge).
  void directed_errors() {
    v_.expect_refusals_begin();
    Drive quiet;
    quiet.res_word.assign(std::size_t(rows_), 0);
    quiet.pool_word.assign(std::size_t(rows_), 0);
    Drive start = quiet;
    start.start = true;
    start.run.preload = true;
    start.run.n_cx = 3;
    Drive no_pre = start;
    no_pre.run.preload = false;
    auto directed = [&](const char* what, const std::vector<Drive>& setup, const Drive& bad) {
      do_reset(2);
      for (const Drive& s : setup) cycle(s);
      log_.at(fig_.cycles);
      log_.expect_true(v_.offer_once(bad), fmt::format("directed '{}' was not refused", what));
      ++fig_.cycles;
      ++fig_.directed;
    };
    std::vector<Drive> filled = {start};
    for (int i = 0; i < 2 * cols_ + 4; ++i) filled.push_back(quiet);
    Drive claim = quiet;
    claim.claim = true;
    directed("claim beyond the preload queue", {start, quiet}, claim);
    directed("claim in a RUN without preload", {no_pre}, claim);
    directed("claim without a RUN", {}, claim);
    Drive pop = quiet;
    pop.pre_pop = true;
    directed("pop of an unclaimed preload word", filled, pop);
    directed("preload pop outside a RUN", {}, pop);
    Drive res = quiet;
    res.res_valid = true;
    res.res_col = 0;  // column COLS-1 is due first
    if (cols_ > 1) directed("result column out of order", {start}, res);
    res.res_col = cols_ - 1;
    directed("result word outside a RUN", {}, res);
    directed("start while busy", {start}, start);
    Drive big = start;
    big.run.n_cy = std::uint32_t(p_.psum_depth / cols_ + 1);
    directed("RUN larger than the psum buffer", {}, big);
    Drive none = start;
    none.run.n_kg = 0;
    directed("RUN without contexts", {}, none);
    // Pooling RUNs (section 16).
    Drive pool = no_pre;
    pool.run.pool_op = 1;
    pool.run.n_c = 2;
    Drive pool_word = quiet;
    pool_word.pool_valid = true;
    directed("pooling result without a RUN", {}, pool_word);
    directed("pooling result in a convolution RUN", {no_pre}, pool_word);
    directed("array result in a pooling RUN", {pool}, res);
    Drive pool_one = pool;
    pool_one.run.n_c = pool_one.run.n_cx = 1;
    directed("pooling result after the RUN's last one", {pool_one, pool_word}, pool_word);
    Drive pool_pre = pool;
    pool_pre.run.preload = true;
    directed("pooling RUN with preload", {}, pool_pre);
    Drive pool_kg = pool;
    pool_kg.run.pool_op = 2;
    pool_kg.run.n_kg = 2;
    directed("pooling RUN with two output-channel groups", {}, pool_kg);
    Drive pool_big = pool;
    pool_big.run.n_cx = 1;
    pool_big.run.n_c = std::uint32_t(p_.psum_depth + 1);
    directed("pooling RUN larger than the psum buffer", {}, pool_big);
    v_.expect_refusals_end();
    do_reset(2);
  }
};

#ifdef FLYCOL_VTOP

// ---------------------------------------------------------------------------------------------
// psum_manager.sv, Verilated for one configuration; its SRAM port on the bench's memory.

class RtlView {
public:
  RtlView(const HwParams& p, std::uint64_t seed) : dut_(seed), p_(p), mem_(p.psum_depth, p.rows) {}
  void drive(const Drive& d) {
    dut_->rst_ni = d.rst_n;
    dut_->start_i = d.start;
    tb::put_run(*dut_, d.run);
    dut_->run_pool_op_i = std::uint8_t(d.run.pool_op);
    dut_->claim_i = d.claim;
    dut_->pre_pop_i = d.pre_pop;
    dut_->res_valid_i = d.res_valid;
    dut_->res_col_i = std::uint8_t(d.res_col);
    dut_->pool_valid_i = d.pool_valid;
    for (int r = 0; r < p_.rows; ++r) {
      tb::put_elem(dut_->res_word_i, r, p_.acc_bits, d.res_word.empty() ? 0 : d.res_word[std::size_t(r)]);
      tb::put_elem(dut_->pool_word_i, r, p_.acc_bits, d.pool_word.empty() ? 0 : d.pool_word[std::size_t(r)]);
      tb::put_elem(dut_->psum_rdata_i, r, p_.acc_bits, mem_.rdata[std::size_t(r)]);
    }
    dut_->eval();
  }
  void edge(const Drive& d) {
    dut_->eval();
    if (d.rst_n)
      mem_.edge(dut_->psum_req_o, dut_->psum_we_o, dut_->psum_addr_o,
                [&](int e) { return acc_t(tb::get_elem(dut_->psum_wdata_o, e, p_.acc_bits)); },
                tb::get_bits(dut_->psum_wmask_o, 0, std::min(64, p_.rows)));
    dut_.edge();
  }
  bool fault() {
    const std::string e = mem_.take_error();
    if (!e.empty()) fmt::print(stderr, "port: {}\n", e);
    return dut_.fault() || !e.empty();
  }
  int unclaimed() { return int(dut_->unclaimed_o); }
  bool busy() { return dut_->busy_o; }
  bool run_done() { return dut_->run_done_o; }
  acc_t pre_word(int r) { return acc_t(tb::get_elem(dut_->pre_word_o, r, p_.acc_bits)); }
  std::uint64_t reads() const { return mem_.reads; }
  std::uint64_t writes() const { return mem_.writes; }
  acc_t peek(int a, int e) { return mem_.at(a, e); }
  void poke(int a, int e, acc_t v) { mem_.at(a, e) = v; }
  bool stats(std::uint64_t&, std::uint64_t&, std::uint64_t&) const { return false; }
  void expect_refusals_begin() { tb::expect_rtl_assertions("psum_manager_rtl_tb", "directed protocol errors"); }
  void expect_refusals_end() {}
  bool offer_once(const Drive& d) {
    drive(d);
    edge(d);
    (void)mem_.take_error();
    return dut_.fault();
  }

private:
  tb::Dut<FLYCOL_VTOP> dut_;
  HwParams p_;
  PortMemory mem_;  // the psum SRAM behind the port
};

#else

// ---------------------------------------------------------------------------------------------
// PsumManagerCore on an hw::SramBank.

class CoreView : public tb::SramCoreView<CoreView, PsumManagerCore, Drive> {
public:
  explicit CoreView(const HwParams& p) : SramCoreView(p, "psums", p.psum_depth, p.rows) {}
  void step(const Drive& d) {
    core_.set_claim(d.claim);
    core_.eval(d.pre_pop, d.res_valid, d.res_col, d.res_word.data(), d.pool_valid, d.pool_word.data(), bank_);
  }
  int unclaimed() { return core_.unclaimed(); }
  bool run_done() { return core_.run_done(); }
  acc_t pre_word(int r) { return core_.pre_word(d_.pre_pop)[r]; }
  acc_t peek(int a, int e) { return acc_t(bank_.peek(a, e)); }
  bool stats(std::uint64_t& written, std::uint64_t& reads, std::uint64_t& writes) const {
    written = core_.results_written();
    reads = core_.sram_reads();
    writes = core_.sram_writes();
    return true;
  }
};

// The PsumManager SC_MODULE on its own signals and clock: with its bank (bank mode), or with its
// SRAM port on the bench's memory (port mode, as in the structural top).
class ScView {
public:
  ScView(const std::string& name, const HwParams& p, bool port_mode)
      : p_(p), port_mode_(port_mode), bank_("psums", p.psum_depth, p.rows), mem_(p.psum_depth, p.rows),
        dut_(port_mode ? std::make_unique<PsumManager>(name.c_str(), p)
                       : std::make_unique<PsumManager>(name.c_str(), p, bank_)),
        in_(name), pre_word_((name + "_pre_word").c_str(), std::size_t(p.rows)),
        res_word_((name + "_res_word").c_str(), std::size_t(p.rows)),
        pool_word_((name + "_pool_word").c_str(), std::size_t(p.rows)),
        wdata_((name + "_wdata").c_str(), std::size_t(p.rows)), rdata_((name + "_rdata").c_str(), std::size_t(p.rows)) {
    PsumManager& m = *dut_;
    in_.bind(m);
    m.unclaimed_o(unclaimed_);
    m.claim_i(claim_);
    m.pre_pop_i(pre_pop_);
    m.pre_word_o(pre_word_);
    m.res_valid_i(res_valid_);
    m.res_col_i(res_col_);
    m.res_word_i(res_word_);
    m.pool_valid_i(pool_valid_);
    m.pool_word_i(pool_word_);
    m.busy_o(busy_);
    m.run_done_o(run_done_);
    if (port_mode) {
      m.psum_req_o(req_);
      m.psum_we_o(we_);
      m.psum_addr_o(addr_);
      m.psum_wdata_o(wdata_);
      m.psum_wmask_o(wmask_);
      m.psum_rdata_i(rdata_);
    }
  }
  void drive(const Drive& d) {
    in_.write(d);
    claim_.write(d.claim);
    pre_pop_.write(d.pre_pop);
    res_valid_.write(d.res_valid);
    res_col_.write(d.res_col);
    pool_valid_.write(d.pool_valid);
    for (int r = 0; r < p_.rows; ++r) {
      res_word_[std::size_t(r)].write(d.res_word.empty() ? 0 : d.res_word[std::size_t(r)]);
      pool_word_[std::size_t(r)].write(d.pool_word.empty() ? 0 : d.pool_word[std::size_t(r)]);
    }
    tb::ScClock::settle();
  }
  void edge(const Drive& d) {
    tb::ScClock::settle();
    if (port_mode_ && d.rst_n)
      mem_.edge(req_.read(), we_.read(), addr_.read(), [&](int e) { return acc_t(wdata_[std::size_t(e)].read()); },
                wmask_.read());
    in_.clk.step();
    if (port_mode_)  // the read data of this cycle's request, from the next cycle on
      for (int r = 0; r < p_.rows; ++r) rdata_[std::size_t(r)].write(mem_.rdata[std::size_t(r)]);
    if (!d.rst_n) {
      base_reads_ = reads_raw();
      base_writes_ = writes_raw();
    }
  }
  bool fault() {
    const std::string e = mem_.take_error();
    if (!e.empty()) fmt::print(stderr, "port: {}\n", e);
    return !e.empty();
  }
  int unclaimed() { return unclaimed_.read(); }
  bool busy() { return busy_.read(); }
  bool run_done() { return run_done_.read(); }
  acc_t pre_word(int r) { return pre_word_[std::size_t(r)].read(); }
  std::uint64_t reads() const { return reads_raw() - base_reads_; }
  std::uint64_t writes() const { return writes_raw() - base_writes_; }
  acc_t peek(int a, int e) { return port_mode_ ? mem_.at(a, e) : acc_t(bank_.peek(a, e)); }
  void poke(int a, int e, acc_t v) {
    if (port_mode_) mem_.at(a, e) = v;
    else bank_.poke(a, e, v);
  }
  bool stats(std::uint64_t& written, std::uint64_t& reads, std::uint64_t& writes) const {
    written = dut_->core().results_written();
    reads = dut_->core().sram_reads();
    writes = dut_->core().sram_writes();
    return true;
  }
  void expect_refusals_begin() { tb::expect_sc_errors(dut_->name(), "psum_manager_tb", "directed protocol errors"); }
  void expect_refusals_end() { tb::end_sc_errors(dut_->name()); }
  bool offer_once(const Drive& d) {
    return tb::sc_errors_during(dut_->name(), [&] {
             drive(d);
             edge(d);
             (void)mem_.take_error();
           }) == 1;
  }

private:
  std::uint64_t reads_raw() const { return port_mode_ ? mem_.reads : bank_.reads(); }
  std::uint64_t writes_raw() const { return port_mode_ ? mem_.writes : bank_.writes(); }
  HwParams p_;
  bool port_mode_;
  SramBank bank_;
  PortMemory mem_;
  std::uint64_t base_reads_ = 0, base_writes_ = 0;
  std::unique_ptr<PsumManager> dut_;
  tb::ScRunInputs in_;
  sc_core::sc_signal<bool> claim_, pre_pop_, res_valid_, pool_valid_, busy_, run_done_, req_, we_;
  sc_core::sc_signal<std::uint32_t> addr_;
  sc_core::sc_signal<int> unclaimed_, res_col_;
  sc_core::sc_signal<std::uint64_t> wmask_;
  sc_core::sc_vector<sc_core::sc_signal<acc_t>> pre_word_, res_word_, pool_word_;
  sc_core::sc_vector<sc_core::sc_signal<word_elem_t>> wdata_, rdata_;
};

#endif

std::string figures(const Figures& f) {
  return fmt::format("{} RUNs ({} cut by a reset), {} preload words and {} result words checked, {} pooling RUNs with "
                     "{} result words ({} back to back), {} directed cases, {} cycles; coverage: {} cycles preload "
                     "queue full, {} reads deferred by writes, {} windows waiting for preload words",
                     f.runs, f.runs_reset, f.pre_words, f.results, f.pool_runs, f.pool_results, f.pool_back_to_back,
                     f.directed, f.cycles, f.cov_full, f.cov_deferred, f.cov_claim_wait);
}

// A run long enough to mean anything must have reached the corner cases.
bool covered(const Figures& f, std::uint64_t runs) {
  return runs < 50 || (f.cov_full > 0 && f.cov_deferred > 0 && f.cov_claim_wait > 0 && f.pool_back_to_back > 0);
}

}  // namespace

#ifdef FLYCOL_VTOP

int main(int argc, char** argv) {
  tb::BenchMain harness("psum_manager", {"runs", 1000, 10000, "random RUNs"});
  if (!harness.parse(argc, argv)) return 2;
  const HwParams& p = harness.params();
  harness.announce("ROWS {} COLS {} depth {}, {} RUNs", p.rows, p.cols, p.psum_depth, harness.count());
  Figures fig;
  RtlView view(p, harness.seed());
  const acc_t amask = p.acc_bits >= 32 ? ~acc_t(0) : acc_t((1u << p.acc_bits) - 1u);
  harness.run(harness.rtl_view(), [&](tb::MismatchLog& log) {
    Bench<RtlView>(view, p, amask, harness.seed(0), log, fig).run(int(harness.count()));
  });
  if (!covered(fig, harness.count())) harness.fail("coverage: a corner case was never reached");
  return harness.finish(figures(fig));
}

#else

int sc_main(int argc, char* argv[]) {
  tb::BenchMain harness("psum_manager", {"runs", 1000, 50000, "random RUNs per shape and view"});
  if (!harness.parse(argc, argv)) return 2;
  harness.announce("{} RUNs per shape", harness.count());
  const int shapes[][2] = {{16, 16}, {4, 4}, {3, 5}, {5, 3}, {1, 1}};  // rows, cols
  auto params = [](const int* s) {
    HwParams p;
    p.rows = s[0];
    p.cols = s[1];
    p.psum_depth = 1024;
    return p;
  };
  // Every SC_MODULE exists before the first sc_start: per shape one in bank and one in port mode.
  std::vector<std::unique_ptr<ScView>> sc_views;
  for (const auto& s : shapes)
    for (bool port : {false, true})
      sc_views.push_back(
          std::make_unique<ScView>(fmt::format("pm_r{}c{}_{}", s[0], s[1], port ? "port" : "bank"), params(s), port));
  Figures fig;
  for (std::size_t i = 0; i < std::size(shapes); ++i) {
    const HwParams p = params(shapes[i]);
    auto one = [&](const std::string& name, auto& v) {
      harness.run(fmt::format("{} {}x{}", name, p.rows, p.cols), [&](tb::MismatchLog& log) {
        // The same stimulus on every view of a shape.
        Bench<std::remove_reference_t<decltype(v)>>(v, p, ~acc_t(0), harness.seed(i), log, fig)
            .run(int(harness.count()));
      });
    };
    if (harness.core()) {
      CoreView core(p);
      one("core", core);
    }
    if (harness.sc()) {
      one("sc bank", *sc_views[2 * i]);
      one("sc port", *sc_views[2 * i + 1]);
    }
  }
  if (!covered(fig, harness.count())) harness.fail("coverage: a corner case was never reached");
  return harness.finish(figures(fig));
}

#endif
