// Testbench of the weight fetcher module (docs/microarchitecture.md, section 9.3): random RUN shapes
// and weight SRAM images for several array widths, random pop stalls. Checks every popped word
// against the expected MAC-step order, the read count, and cycle by cycle the FIFO-valid and SRAM
// read timing against a small model of the spec's read rule (count + inflight < WFD).
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <systemc>

#include "hw/common/hw_params.h"
#include "hw/common/sram_bank.h"
#include "hw/weight_fetcher/weight_fetcher.h"

using namespace flycol::hw;
using sc_core::sc_signal;

namespace {

int g_errors = 0;
constexpr int kMaxReported = 20;

void fail(const std::string& msg) {
  if (g_errors < kMaxReported) fmt::print(stderr, "MISMATCH: {}\n", msg);
  ++g_errors;
}

// One DUT with its bank and stimulus; several run side by side, one per array width.
SC_MODULE(Harness) {
  sc_core::sc_in<bool> clk{"clk"};
  sc_signal<bool> rst_n{"rst_n"}, start{"start"}, pop{"pop"}, valid{"valid"}, busy{"busy"};
  sc_signal<std::uint32_t> n_kg{"n_kg"}, n_cy{"n_cy"}, n_cx{"n_cx"}, n_c{"n_c"}, n_ky{"n_ky"}, n_kx{"n_kx"};
  sc_core::sc_vector<sc_signal<elem_t>> word;

  HwParams p;
  SramBank bank;
  WeightFetcher dut;
  std::mt19937_64 rng;
  int runs_left;
  bool done = false;
  std::uint64_t cycles = 0, words_checked = 0, runs_done = 0;

  Harness(sc_core::sc_module_name name, const HwParams& params, std::uint64_t seed, int runs)
      : sc_core::sc_module(name), word("word", std::size_t(params.cols)), p(params),
        bank("weights", params.weight_depth, params.cols), dut("dut", params, bank), rng(seed), runs_left(runs) {
    dut.clk_i(clk);
    dut.rst_ni(rst_n);
    dut.start_i(start);
    dut.run_n_kg_i(n_kg);
    dut.run_n_cy_i(n_cy);
    dut.run_n_cx_i(n_cx);
    dut.run_n_c_i(n_c);
    dut.run_n_ky_i(n_ky);
    dut.run_n_kx_i(n_kx);
    dut.pop_i(pop);
    dut.valid_o(valid);
    dut.word_o(word);
    dut.busy_o(busy);
    SC_METHOD(drive);
    sensitive << clk.neg();
    dont_initialize();
  }
  SC_HAS_PROCESS(Harness);

  int rand_int(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); }

  // Stimulus and checks, in the middle of each cycle: outputs have settled from the last edge and
  // the inputs written here are what the DUT samples at the next edge.
  enum class Phase { reset, gap, running } phase = Phase::reset;
  int gap = 0;
  RunDesc run;
  std::vector<int> expected;  // addresses of the words in pop order
  std::size_t next_word = 0;
  double pop_prob = 1.0;
  std::uint64_t reads_at_start = 0, last_progress = 0, start_cycle = 0;
  // Model of the read rule (section 9.3), for the cycle-exact checks.
  int m_count = 0, m_reads_left = 0;
  bool m_inflight = false;
  std::uint64_t m_reads = 0;
  std::uint64_t cov_full = 0;  // cycles with a full weight FIFO (coverage)

  void new_run() {
    run = RunDesc{};
    run.n_kg = std::uint32_t(rand_int(1, 3));
    run.n_cy = std::uint32_t(rand_int(1, 3));
    run.n_cx = std::uint32_t(rand_int(1, 3));
    run.n_c = std::uint32_t(rand_int(1, 4));
    run.n_ky = std::uint32_t(rand_int(1, 3));
    run.n_kx = std::uint32_t(rand_int(1, 3));
    if (rand_int(0, 9) == 0) run.n_c = run.n_ky = run.n_kx = 1;  // one-step contexts
    const int len = int(run.steps_per_context());
    for (int a = 0; a < p.weight_depth; ++a)
      for (int e = 0; e < p.cols; ++e) bank.poke(a, e, word_elem_t(rng() & 0xffffu));
    expected.clear();
    for (std::uint32_t g = 0; g < run.n_kg; ++g)
      for (std::uint32_t ctx = 0; ctx < run.n_cy * run.n_cx; ++ctx)
        for (int step = 0; step < len; ++step) expected.push_back(int(g) * len + step);
    next_word = 0;
    static const double kPopProbs[] = {1.0, 1.0, 0.9, 0.5, 0.2};
    pop_prob = kPopProbs[rand_int(0, 4)];
    reads_at_start = bank.reads();
    m_count = 0;
    m_inflight = false;
    m_reads_left = int(expected.size());
    m_reads = 0;
    start_cycle = cycles;
  }

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
    if (done) return;
    if (cycles - last_progress > 2000) {
      fail(fmt::format("{}: watchdog, no progress for 2000 cycles (word {}/{})", name(), next_word, expected.size()));
      done = true;
      return;
    }
    bool do_pop = false;
    if (phase == Phase::running) {
      {
        if (valid.read() != (m_count > 0))
          fail(fmt::format("{}: cycle {}: valid_o={} but the spec model holds {} words", name(), cycles,
                           valid.read(), m_count));
        if (bank.reads() - reads_at_start != m_reads)
          fail(fmt::format("{}: cycle {}: {} SRAM reads done, spec model {}", name(), cycles,
                           bank.reads() - reads_at_start, m_reads));
        if (busy.read() != (m_reads_left > 0 || m_inflight))
          fail(fmt::format("{}: cycle {}: busy_o={} but the spec model says {}", name(), cycles, busy.read(),
                           m_reads_left > 0 || m_inflight));
      }
      if (valid.read() && next_word < expected.size()) {
        do_pop = std::uniform_real_distribution<double>(0, 1)(rng) < pop_prob;
        if (do_pop) {
          const int addr = expected[next_word];
          for (int e = 0; e < p.cols; ++e) {
            const elem_t want = elem_t(bank.peek(addr, e));
            if (word[std::size_t(e)].read() != want) {
              fail(fmt::format("{}: word {} (address {}) element {}: got {:#06x}, want {:#06x}", name(), next_word,
                               addr, e, word[std::size_t(e)].read(), want));
              break;
            }
          }
          ++next_word;
          ++words_checked;
          last_progress = cycles;
        }
      } else if (valid.read()) {
        fail(fmt::format("{}: cycle {}: valid_o after the last word", name(), cycles));
      }
      // Advance the spec model over this cycle's edge.
      {
        const bool read = m_reads_left > 0 && m_count + (m_inflight ? 1 : 0) < kWeightFifoDepth;
        if (m_count == kWeightFifoDepth) ++cov_full;
        m_count += (m_inflight ? 1 : 0) - (do_pop ? 1 : 0);
        m_inflight = read;
        if (read) {
          --m_reads_left;
          ++m_reads;
        }
      }
      start.write(false);
      if (next_word == expected.size() && !busy.read() && !valid.read()) {
        if (bank.reads() - reads_at_start != expected.size())
          fail(fmt::format("{}: {} SRAM reads for {} words", name(), bank.reads() - reads_at_start, expected.size()));
        if (dut.core().sram_reads() != bank.reads())
          fail(fmt::format("{}: sram_reads()={} but the bank counted {}", name(), dut.core().sram_reads(),
                           bank.reads()));
        ++runs_done;
        phase = Phase::gap;
        gap = rand_int(0, 4);
      }
    } else if (phase == Phase::gap) {
      if (gap > 0) {
        --gap;
      } else if (runs_left == 0) {
        done = true;
      } else {
        --runs_left;
        new_run();
        start.write(true);
        n_kg.write(run.n_kg);
        n_cy.write(run.n_cy);
        n_cx.write(run.n_cx);
        n_c.write(run.n_c);
        n_ky.write(run.n_ky);
        n_kx.write(run.n_kx);
        phase = Phase::running;
        last_progress = cycles;
      }
    }
    pop.write(do_pop);
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
  p.cols = 4;
  p.weight_depth = 64;
  RunDesc run;
  run.n_c = 3;
  expect_throw("pop of an empty weight FIFO", [&] {
    SramBank bank("w", p.weight_depth, p.cols);
    WeightFetcherCore c(p);
    c.set_pop(true);
    c.eval(bank);
    c.tick();
  });
  expect_throw("start while busy", [&] {
    SramBank bank("w", p.weight_depth, p.cols);
    WeightFetcherCore c(p);
    c.start(run);
    c.eval(bank);
    c.tick();
    bank.tick();
    c.start(run);
  });
  expect_throw("RUN larger than the weight buffer", [&] {
    WeightFetcherCore c(p);
    RunDesc big = run;
    big.n_kg = 30;
    c.start(big);
  });
  return missed;
}

}  // namespace

int sc_main(int argc, char* argv[]) {
  std::uint64_t seed = 1;
  int runs = 3000;
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
  fmt::print("weight_fetcher_tb: seed {} runs {}\n", seed, runs);
  sc_core::sc_report_handler::set_actions("/IEEE_Std_1666/deprecated", sc_core::SC_DO_NOTHING);

  g_errors += protocol_checks();

  sc_core::sc_clock clk("clk", 10, sc_core::SC_NS);
  std::vector<std::unique_ptr<Harness>> hs;
  const int widths[] = {16, 4, 5, 3, 1};
  int idx = 0;
  for (int cols : widths) {
    HwParams p;
    p.cols = cols;
    p.weight_depth = 128;
    auto h = std::make_unique<Harness>(fmt::format("cols{}", cols).c_str(), p, seed * 1000 + std::uint64_t(idx++), runs);
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
  std::uint64_t words = 0, done_runs = 0, cov_full = 0;
  for (auto& h : hs) {
    words += h->words_checked;
    done_runs += h->runs_done;
    cov_full += h->cov_full;
  }
  const bool covered = runs < 50 || cov_full > 0;
  const bool ok = g_errors == 0 && sc_errors == 0 && covered;
  fmt::print("weight_fetcher_tb: {} seed {}: {} RUNs, {} words checked, {} cycles, {} mismatches, {} SC errors; "
             "coverage: {} cycles weight FIFO full\n",
             ok ? "PASS" : "FAIL", seed, done_runs, words, hs[0]->cycles, g_errors, sc_errors, cov_full);
  return ok ? 0 : 1;
}
