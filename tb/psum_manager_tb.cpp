// Testbench of the partial-sums manager module (docs/microarchitecture.md, section 9.6 without the
// skew/de-skew, which belong to the array): the stimulus plays issue stage + array for random RUNs
// on several array shapes, with random gaps between window tokens. Checks every preload word, the
// psum SRAM image after each RUN, the run_done pulse, and cycle by cycle the queue/port timing
// against a small model of the spec's rules.
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <systemc>

#include "hw/common/hw_params.h"
#include "hw/common/protocol_error.h"
#include "hw/common/sram_bank.h"
#include "hw/psum_manager/psum_manager.h"

using namespace flycol::hw;
using sc_core::sc_signal;

namespace {

int g_errors = 0;
constexpr int kMaxReported = 20;

void fail(const std::string& msg) {
  if (g_errors < kMaxReported) fmt::print(stderr, "MISMATCH: {}\n", msg);
  ++g_errors;
}

// A recognizable result value: which RUN, window, column and row produced it.
acc_t result_value(std::uint64_t run_id, std::uint32_t k, int col, int r) {
  std::uint64_t x = run_id * 0x9e3779b97f4a7c15ull ^ (std::uint64_t(k) << 24) ^ (std::uint64_t(col) << 8) ^ std::uint64_t(r);
  x ^= x >> 29;
  x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 32;
  return acc_t(x);
}

// One DUT with its bank and stimulus; several run side by side, one per array shape.
SC_MODULE(Harness) {
  sc_core::sc_in<bool> clk{"clk"};
  sc_signal<bool> rst_n{"rst_n"}, start{"start"}, preload{"preload"}, claim{"claim"}, pre_pop{"pre_pop"};
  sc_signal<bool> res_valid{"res_valid"}, busy{"busy"}, run_done{"run_done"};
  sc_signal<std::uint32_t> n_kg{"n_kg"}, n_cy{"n_cy"}, n_cx{"n_cx"};
  sc_signal<int> unclaimed{"unclaimed"}, res_col{"res_col"};
  sc_core::sc_vector<sc_signal<acc_t>> pre_word, res_word;

  HwParams p;
  int rows, cols, pqd;
  SramBank bank;
  PsumManager dut;
  std::mt19937_64 rng;
  int runs_left;
  bool done = false;
  std::uint64_t cycles = 0, runs_done = 0, pre_words_checked = 0, results_checked = 0;

  Harness(sc_core::sc_module_name name, const HwParams& params, std::uint64_t seed, int runs)
      : sc_core::sc_module(name), pre_word("pre_word", std::size_t(params.rows)),
        res_word("res_word", std::size_t(params.rows)), p(params), rows(params.rows), cols(params.cols),
        pqd(params.preload_queue_depth()), bank("psums", params.psum_depth, params.rows), dut("dut", params, bank),
        rng(seed), runs_left(runs), initial(std::size_t(params.psum_depth * params.rows)),
        expected(initial.size()), pre_expect(std::size_t(params.rows)) {
    dut.clk_i(clk);
    dut.rst_ni(rst_n);
    dut.start_i(start);
    dut.run_preload_i(preload);
    dut.run_n_kg_i(n_kg);
    dut.run_n_cy_i(n_cy);
    dut.run_n_cx_i(n_cx);
    dut.unclaimed_o(unclaimed);
    dut.claim_i(claim);
    dut.pre_pop_i(pre_pop);
    dut.pre_word_o(pre_word);
    dut.res_valid_i(res_valid);
    dut.res_col_i(res_col);
    dut.res_word_i(res_word);
    dut.busy_o(busy);
    dut.run_done_o(run_done);
    SC_METHOD(drive);
    sensitive << clk.neg();
    dont_initialize();
    SC_METHOD(monitor);
    sensitive << clk.pos();
    dont_initialize();
  }
  SC_HAS_PROCESS(Harness);

  int rand_int(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); }

  enum class Phase { reset, gap, running, finished } phase = Phase::reset;
  int gap = 0;
  RunDesc run;
  std::uint32_t n_ctx = 0, n_windows = 0;
  std::uint64_t run_id = 0;
  std::vector<acc_t> initial, expected;  // psum bank image before the RUN, and what it must become
  std::uint64_t start_cycle = 0, last_progress = 0, done_cycle = 0;
  int done_seen = 0;
  std::uint64_t reads_at_start = 0, writes_at_start = 0;

  // Issue stage: window tokens issued so far and when the next one may go.
  struct Window {
    std::uint64_t t;
    std::uint32_t k;
  };
  std::vector<Window> pending;  // windows whose pops or results are still ahead
  std::uint32_t next_k = 0;
  std::uint64_t earliest_next = 0;
  int long_stall_pct = 0;

  // What the monitor checks at the edge that ends this cycle.
  bool pre_check = false;
  std::vector<acc_t> pre_expect;
  std::uint32_t pre_check_k = 0;
  int pre_check_col = 0;

  // Model of the spec's queue and port rules (section 9.6): state during the current cycle.
  int m_count = 0, m_claimed = 0, m_rq = 0, m_reads_left = 0;
  bool m_inflight = false;
  std::uint32_t m_written = 0, m_total = 0;
  std::uint64_t m_reads = 0, m_writes = 0;
  // Coverage: cycles with a full preload queue, and with a preload read deferred by a result write.
  std::uint64_t cov_full = 0, cov_deferred = 0;

  int address(std::uint32_t ctx, int col) const {
    const std::uint32_t cx = ctx % run.n_cx, cy = (ctx / run.n_cx) % run.n_cy, g = ctx / (run.n_cx * run.n_cy);
    return int(((g * std::uint32_t(cols) + std::uint32_t(col)) * run.n_cy + cy) * run.n_cx + cx);
  }

  void new_run() {
    ++run_id;
    run = RunDesc{};
    do {
      run.n_kg = std::uint32_t(rand_int(1, 3));
      run.n_cy = std::uint32_t(rand_int(1, 3));
      run.n_cx = std::uint32_t(rand_int(1, 4));
      if (rand_int(0, 7) == 0) run.n_kg = run.n_cy = run.n_cx = 1;
    } while (run.contexts() * std::uint32_t(cols) > std::uint32_t(p.psum_depth));
    run.preload = rand_int(0, 2) != 0;
    n_ctx = run.contexts();
    n_windows = n_ctx + 2;
    for (int a = 0; a < p.psum_depth; ++a)
      for (int e = 0; e < rows; ++e) {
        const acc_t v = acc_t(rng());
        bank.poke(a, e, v);
        initial[std::size_t(a * rows + e)] = v;
      }
    expected = initial;
    for (std::uint32_t ctx = 0; ctx < n_ctx; ++ctx)
      for (int col = 0; col < cols; ++col)
        for (int r = 0; r < rows; ++r)
          expected[std::size_t(address(ctx, col) * rows + r)] = result_value(run_id, ctx + 2, col, r);
    pending.clear();
    next_k = 0;
    earliest_next = cycles + 1 + std::uint64_t(rand_int(0, 1) ? 0 : rand_int(0, 3 * cols));
    static const int kLongStallPct[] = {0, 0, 5, 30};
    long_stall_pct = kLongStallPct[rand_int(0, 3)];
    done_seen = 0;
    reads_at_start = bank.reads();
    writes_at_start = bank.writes();
    m_count = m_claimed = m_rq = 0;
    m_inflight = false;
    m_reads_left = run.preload ? int(n_ctx) * cols : 0;
    m_written = 0;
    m_total = n_ctx * std::uint32_t(cols);
    m_reads = m_writes = 0;
    start_cycle = cycles;
  }

  bool takes_sram(std::uint32_t k) const { return run.preload && k < n_ctx; }

  void drive() {
    ++cycles;
    if (phase == Phase::reset) {
      rst_n.write(cycles > 3);
      if (cycles > 3) {
        phase = Phase::gap;
        gap = rand_int(0, 3);
      }
      return;
    }
    if (phase == Phase::finished) return;
    if (cycles - last_progress > 5000) {
      fail(fmt::format("{}: watchdog, no progress for 5000 cycles (window {}/{}, {} results written)", name(), next_k,
                       n_windows, m_written));
      phase = Phase::finished;
      done = true;
      return;
    }

    bool do_claim = false, do_pop = false, do_res = false, pop_sram = false, push_res = false;
    int col_now = 0;
    pre_check = false;
    if (phase == Phase::running) {
      start.write(false);
      // Checks of this cycle's Moore outputs and of the port operations done so far.
      const bool m_write = m_rq > 0;
      const bool m_done = m_write && m_written + 1 == m_total;
      if (unclaimed.read() != m_count - m_claimed)
        fail(fmt::format("{}: cycle {}: unclaimed_o={}, spec model {} - {}", name(), cycles, unclaimed.read(),
                         m_count, m_claimed));
      if (bank.reads() - reads_at_start != m_reads || bank.writes() - writes_at_start != m_writes)
        fail(fmt::format("{}: cycle {}: SRAM reads/writes {}/{}, spec model {}/{}", name(), cycles,
                         bank.reads() - reads_at_start, bank.writes() - writes_at_start, m_reads, m_writes));
      if (run_done.read() != m_done)
        fail(fmt::format("{}: cycle {}: run_done_o={}, spec model {}", name(), cycles, run_done.read(), m_done));
      if (!busy.read()) fail(fmt::format("{}: cycle {}: busy_o low during the RUN", name(), cycles));

      // Issue stage: the next window token, when the gap allows and, if it takes SRAM preload, the
      // queue holds COLS unclaimed words.
      if (next_k < n_windows && cycles >= earliest_next) {
        const bool needs = takes_sram(next_k);
        if (!needs || unclaimed.read() >= cols) {
          do_claim = needs;
          pending.push_back({cycles, next_k});
          ++next_k;
          std::uint64_t extra = 0;
          if (rand_int(0, 99) < long_stall_pct) extra = std::uint64_t(rand_int(0, 8 * cols + 20));
          else if (rand_int(0, 1)) extra = std::uint64_t(rand_int(1, 2 * cols + 3));
          earliest_next = cycles + 2 * std::uint64_t(cols) + extra;
          last_progress = cycles;
        }
      }

      // Array: preload pops and result words of the windows in flight.
      for (const Window& w : pending) {
        const std::uint64_t pre0 = w.t + std::uint64_t(cols) + 1, res0 = w.t + std::uint64_t(cols + rows);
        if (cycles >= pre0 && cycles < pre0 + std::uint64_t(cols)) {
          if (do_pop) fail(fmt::format("{}: testbench bug: two preload pops in cycle {}", name(), cycles));
          do_pop = true;
          const int col = cols - 1 - int(cycles - pre0);
          pre_check = true;
          pre_check_k = w.k;
          pre_check_col = col;
          pop_sram = takes_sram(w.k);
          for (int r = 0; r < rows; ++r)
            pre_expect[std::size_t(r)] =
                takes_sram(w.k) ? initial[std::size_t(address(w.k, col) * rows + r)] : acc_t(0);
        }
        if (cycles >= res0 && cycles < res0 + std::uint64_t(cols)) {
          if (do_res) fail(fmt::format("{}: testbench bug: two results in cycle {}", name(), cycles));
          do_res = true;
          col_now = cols - 1 - int(cycles - res0);
          for (int r = 0; r < rows; ++r)
            res_word[std::size_t(r)].write(w.k >= 2 ? result_value(run_id, w.k, col_now, r) : acc_t(rng()));
          push_res = w.k >= 2;
          if (push_res) ++results_checked;
        }
      }
      while (!pending.empty() && cycles >= pending.front().t + 2 * std::uint64_t(cols) + std::uint64_t(rows) - 1)
        pending.erase(pending.begin());

      // Advance the spec model over this cycle's edge.
      {
        const bool m_read = !m_write && m_reads_left > 0 && m_count + (m_inflight ? 1 : 0) < pqd;
        if (m_count == pqd) ++cov_full;
        if (m_write && m_reads_left > 0 && m_count + (m_inflight ? 1 : 0) < pqd) ++cov_deferred;
        m_count += (m_inflight ? 1 : 0) - (pop_sram ? 1 : 0);
        m_claimed += (do_claim ? cols : 0) - (pop_sram ? 1 : 0);
        m_inflight = m_read;
        if (m_read) {
          --m_reads_left;
          ++m_reads;
        }
        m_rq += (push_res ? 1 : 0) - (m_write ? 1 : 0);
        if (m_write) {
          ++m_writes;
          ++m_written;
          last_progress = cycles;
        }
        if (m_rq > kResultQueueDepth) fail(fmt::format("{}: spec model: result queue overflow", name()));
      }
      if (m_done) {
        done_cycle = cycles;
        phase = Phase::gap;
        gap = rand_int(0, 1) ? 0 : rand_int(0, 5);
        gap += 1;  // the EX engine can start its next command in the cycle after completion
      }
    } else if (phase == Phase::gap) {
      if (busy.read() || run_done.read() || unclaimed.read() != 0)
        fail(fmt::format("{}: cycle {}: between RUNs busy_o={} run_done_o={} unclaimed_o={}", name(), cycles,
                         busy.read(), run_done.read(), unclaimed.read()));
      if (gap > 0) --gap;
      if (done_cycle != 0 && cycles == done_cycle + 1) end_of_run_checks();
      if (gap == 0) {
        if (runs_left == 0) {
          phase = Phase::finished;
          done = true;
        } else {
          --runs_left;
          new_run();
          start.write(true);
          preload.write(run.preload);
          n_kg.write(run.n_kg);
          n_cy.write(run.n_cy);
          n_cx.write(run.n_cx);
          phase = Phase::running;
          last_progress = cycles;
        }
      }
    }
    claim.write(do_claim);
    pre_pop.write(do_pop);
    res_valid.write(do_res);
    res_col.write(do_res ? col_now : rand_int(0, cols));
  }

  // In the cycle after run_done: the manager is idle and the bank holds exactly the expected image.
  void end_of_run_checks() {
    if (busy.read()) fail(fmt::format("{}: busy_o still high in the cycle after run_done", name()));
    if (run_done.read()) fail(fmt::format("{}: run_done_o high twice", name()));
    if (done_seen != 1) fail(fmt::format("{}: run_done_o seen {} times", name(), done_seen));
    if (bank.writes() - writes_at_start != m_total)
      fail(fmt::format("{}: {} SRAM writes for {} result words", name(), bank.writes() - writes_at_start, m_total));
    if (bank.reads() - reads_at_start != (run.preload ? m_total : 0))
      fail(fmt::format("{}: {} SRAM reads for a RUN with preload={}", name(), bank.reads() - reads_at_start,
                       run.preload));
    if (dut.core().results_written() != m_total)
      fail(fmt::format("{}: results_written()={} for {} result words", name(), dut.core().results_written(), m_total));
    if (dut.core().sram_writes() != bank.writes() || dut.core().sram_reads() != bank.reads())
      fail(fmt::format("{}: statistics {}/{} but the bank counted {}/{}", name(), dut.core().sram_reads(),
                       dut.core().sram_writes(), bank.reads(), bank.writes()));
    int bad = 0;
    for (int a = 0; a < p.psum_depth; ++a)
      for (int e = 0; e < rows; ++e)
        if (bank.peek(a, e) != expected[std::size_t(a * rows + e)]) {
          if (bad++ < 3)
            fail(fmt::format("{}: RUN {}: psum word {} element {} is {:#010x}, want {:#010x}{}", name(), run_id, a, e,
                             bank.peek(a, e), expected[std::size_t(a * rows + e)],
                             expected[std::size_t(a * rows + e)] == initial[std::size_t(a * rows + e)]
                                 ? " (must be unchanged)" : ""));
        }
    ++runs_done;
  }

  // At the edge that ends the cycle: the settled Mealy preload word, and the run_done pulse count.
  void monitor() {
    if (phase == Phase::reset || phase == Phase::finished) return;
    if (run_done.read()) ++done_seen;
    if (!pre_check || !pre_pop.read()) return;
    ++pre_words_checked;
    for (int r = 0; r < rows; ++r)
      if (pre_word[std::size_t(r)].read() != pre_expect[std::size_t(r)]) {
        fail(fmt::format("{}: RUN {} cycle {}: preload word of window {} column {} row {} is {:#010x}, want {:#010x}",
                         name(), run_id, cycles, pre_check_k, pre_check_col, r, pre_word[std::size_t(r)].read(),
                         pre_expect[std::size_t(r)]));
        break;
      }
  }
};

// Directed checks of the protocol rules on the bare core: each must throw hw::ProtocolError.
int protocol_checks() {
  int missed = 0;
  auto expect_throw = [&](const char* what, auto&& f) {
    try {
      f();
      fmt::print(stderr, "MISSED: {} did not raise a protocol error\n", what);
      ++missed;
    } catch (const ProtocolError&) {
    }
  };
  HwParams p;
  p.rows = 2;
  p.cols = 2;
  p.psum_depth = 64;
  RunDesc run;
  run.preload = true;
  run.n_cx = 3;
  const acc_t word[2] = {1, 2};
  auto started = [&](PsumManagerCore& c, SramBank& b, const RunDesc& r) {
    c.start(r);
    c.eval(false, false, 0, word, b);
    c.tick();
    b.tick();
  };
  auto cycle = [&](PsumManagerCore& c, SramBank& b, bool pop, bool res, int col) {
    c.eval(pop, res, col, word, b);
    c.tick();
    b.tick();
  };
  expect_throw("claim beyond the preload queue", [&] {
    SramBank b("p", p.psum_depth, p.rows);
    PsumManagerCore c(p);
    started(c, b, run);
    cycle(c, b, false, false, 0);  // one word read, none in the queue yet
    c.set_claim(true);
    cycle(c, b, false, false, 0);
  });
  expect_throw("claim in a RUN without preload", [&] {
    SramBank b("p", p.psum_depth, p.rows);
    PsumManagerCore c(p);
    RunDesc r = run;
    r.preload = false;
    started(c, b, r);
    c.set_claim(true);
    cycle(c, b, false, false, 0);
  });
  expect_throw("pop of an unclaimed preload word", [&] {
    SramBank b("p", p.psum_depth, p.rows);
    PsumManagerCore c(p);
    started(c, b, run);
    for (int i = 0; i < 6; ++i) cycle(c, b, false, false, 0);
    cycle(c, b, true, false, 0);
  });
  expect_throw("result column out of order", [&] {
    SramBank b("p", p.psum_depth, p.rows);
    PsumManagerCore c(p);
    started(c, b, run);
    cycle(c, b, false, true, 0);  // column 1 is due first
  });
  expect_throw("preload pop outside a RUN", [&] {
    SramBank b("p", p.psum_depth, p.rows);
    PsumManagerCore c(p);
    cycle(c, b, true, false, 0);
  });
  expect_throw("start while busy", [&] {
    SramBank b("p", p.psum_depth, p.rows);
    PsumManagerCore c(p);
    started(c, b, run);
    c.start(run);
  });
  expect_throw("RUN larger than the psum buffer", [&] {
    PsumManagerCore c(p);
    RunDesc r = run;
    r.n_cy = 40;
    c.start(r);
  });
  return missed;
}

}  // namespace

int sc_main(int argc, char* argv[]) {
  std::uint64_t seed = 1;
  int runs = 1000;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--seed" && i + 1 < argc) {
      seed = std::strtoull(argv[++i], nullptr, 0);
    } else if (a == "--runs" && i + 1 < argc) {
      runs = std::atoi(argv[++i]);
    } else {
      fmt::print(stderr, "usage: {} [--seed N] [--runs N]\n", argv[0]);
      return 2;
    }
  }
  fmt::print("psum_manager_tb: seed {} runs {}\n", seed, runs);
  sc_core::sc_report_handler::set_actions("/IEEE_Std_1666/deprecated", sc_core::SC_DO_NOTHING);

  g_errors += protocol_checks();

  sc_core::sc_clock clk("clk", 10, sc_core::SC_NS);
  std::vector<std::unique_ptr<Harness>> hs;
  const int shapes[][2] = {{16, 16}, {4, 4}, {3, 5}, {5, 3}, {1, 1}};  // rows, cols
  int idx = 0;
  for (const auto& s : shapes) {
    HwParams p;
    p.rows = s[0];
    p.cols = s[1];
    p.psum_depth = 1024;
    auto h = std::make_unique<Harness>(fmt::format("r{}c{}", s[0], s[1]).c_str(), p,
                                       seed * 1000 + std::uint64_t(idx++), runs);
    h->clk(clk);
    hs.push_back(std::move(h));
  }

  try {
    bool all_done = false;
    while (!all_done && g_errors == 0) {
      sc_core::sc_start(1000 * 10, sc_core::SC_NS);
      all_done = true;
      for (auto& h : hs) all_done = all_done && h->done;
    }
  } catch (const std::exception& e) {
    fmt::print(stderr, "ERROR: {}\n", e.what());
    ++g_errors;
  }
  const int sc_errors = int(sc_core::sc_report_handler::get_count(sc_core::SC_ERROR));
  std::uint64_t done_runs = 0, pre_words = 0, results = 0, cov_full = 0, cov_deferred = 0;
  for (auto& h : hs) {
    done_runs += h->runs_done;
    pre_words += h->pre_words_checked;
    results += h->results_checked;
    cov_full += h->cov_full;
    cov_deferred += h->cov_deferred;
  }
  // A run long enough to mean anything must have reached the corner cases.
  const bool covered = runs < 50 || (cov_full > 0 && cov_deferred > 0);
  const bool ok = g_errors == 0 && sc_errors == 0 && covered;
  fmt::print("psum_manager_tb: {} seed {}: {} RUNs, {} preload words and {} result words checked, {} cycles, "
             "{} mismatches, {} SC errors; coverage: {} cycles preload queue full, {} reads deferred by writes\n",
             ok ? "PASS" : "FAIL", seed, done_runs, pre_words, results, hs[0]->cycles, g_errors, sc_errors, cov_full,
             cov_deferred);
  return ok ? 0 : 1;
}
