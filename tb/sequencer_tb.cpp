// Testbench of the sequencer module (docs/microarchitecture.md, sections 9.4 and 10): random RUNs for
// every array width COLS 1..16 side by side, random lane/weight stalls, a preload-queue model in place
// of the partial-sums manager. Checks each cycle the token rules, that no cycle is lost, and its class.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <deque>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <systemc>

#include "hw/common/command.h"
#include "hw/common/hw_params.h"
#include "hw/common/protocol_error.h"
#include "hw/sequencer/sequencer.h"
#include "hw/sequencer/sequencer_core.h"

using namespace flycol::hw;
using sc_core::sc_signal;
using Kind = SequencerCore::CycleKind;

namespace {

constexpr int kMaxReported = 20;
int g_errors = 0;
int g_harnesses_left = 0;

void fail(const std::string& msg) {
  if (g_errors < kMaxReported) fmt::print(stderr, "MISMATCH: {}\n", msg);
  ++g_errors;
}

// A ready signal that is high with probability `on` in the long run and keeps its value for a while
// when `stick` is high, so both scattered and bursty stalls occur.
struct ReadySource {
  double on = 1.0, change = 1.0;
  bool state = true;
  bool next(std::mt19937_64& rng) {
    std::uniform_real_distribution<double> u(0, 1);
    if (u(rng) < change) state = u(rng) < on;
    return state;
  }
};

// One DUT with its stimulus and scoreboard; one harness per array width.
SC_MODULE(Harness) {
  sc_core::sc_in<bool> clk{"clk"};

  sc_signal<bool> rst_n{"rst_n"}, start{"start"}, preload{"preload"}, lanes_ready{"lanes_ready"},
      weight_ready{"weight_ready"}, finish{"finish"};
  sc_signal<std::uint32_t> n_kg{"n_kg"}, n_cy{"n_cy"}, n_cx{"n_cx"}, n_c{"n_c"}, n_ky{"n_ky"}, n_kx{"n_kx"};
  sc_signal<int> unclaimed{"unclaimed"}, kind{"kind"};
  sc_signal<bool> tok_valid{"tok_valid"}, tok_swap{"tok_swap"}, tok_window{"tok_window"}, pop{"pop"}, claim{"claim"},
      busy{"busy"};
  Sequencer dut;

  const int cols;
  std::mt19937_64 rng;
  int runs_left;

  // The RUN (as the controller started it) and its progress, from the tokens seen so far.
  RunDesc run;
  std::uint32_t L = 1, n_ctx = 1;
  bool active = false;  // the RUN is active in the current cycle (busy_o must be high)
  bool fill_seen = false, swap0_seen = false;
  std::uint32_t macs = 0, windows = 0;
  std::int64_t last_window = 0;  // cycle of the last window token of this RUN
  std::int64_t finish_at = -1, start_at = 0, last_token = 0;
  std::int64_t reset_at = -1;  // a reset in the middle of this RUN, if >= 0
  std::int64_t run_start = 0;  // cycle of start_i

  // Preload-queue model (the partial-sums manager's side of the claim protocol).
  int pq = 0, claimed = 0;
  std::uint32_t delivered = 0, to_deliver = 0;
  std::deque<std::pair<std::int64_t, int>> removals;  // (cycle, words) popped at the end of that cycle
  double fill_prob = 1.0;

  // Inputs driven for the current cycle.
  bool d_start = false, d_lanes = false, d_weight = false, d_finish = false;
  int d_unclaimed = 0;
  ReadySource lanes_src, weight_src;

  // Figures.
  std::int64_t cycle = 0;
  std::uint64_t runs_done = 0, runs_reset = 0, tokens = 0, glitches = 0, kind_count[6] = {0, 0, 0, 0, 0, 0};
  std::uint64_t short_cross_run_gaps = 0;  // FILL closer than 2*COLS to the previous RUN's last window
  std::int64_t prev_run_last_window = -1000000;
  bool done = false;

  Harness(sc_core::sc_module_name name, int cols_, std::uint64_t seed, int runs)
      : sc_core::sc_module(name), dut("dut", params(cols_)), cols(cols_), rng(seed), runs_left(runs) {
    dut.clk_i(clk);
    dut.rst_ni(rst_n);
    dut.start_i(start);
    dut.run_preload_i(preload);
    dut.run_n_kg_i(n_kg);
    dut.run_n_cy_i(n_cy);
    dut.run_n_cx_i(n_cx);
    dut.run_n_c_i(n_c);
    dut.run_n_ky_i(n_ky);
    dut.run_n_kx_i(n_kx);
    dut.lanes_ready_i(lanes_ready);
    dut.weight_ready_i(weight_ready);
    dut.unclaimed_i(unclaimed);
    dut.finish_i(finish);
    dut.token_valid_o(tok_valid);
    dut.token_swap_o(tok_swap);
    dut.token_window_o(tok_window);
    dut.pop_o(pop);
    dut.claim_o(claim);
    dut.busy_o(busy);
    dut.cycle_kind_o(kind);
    SC_THREAD(main);
  }
  SC_HAS_PROCESS(Harness);

  static HwParams params(int c) {
    HwParams p;
    p.cols = c;
    return p;
  }

  int rand_int(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); }
  bool chance(double p) { return std::uniform_real_distribution<double>(0, 1)(rng) < p; }

  // Splits n into three factors in random order.
  void split3(std::uint32_t n, std::uint32_t& a, std::uint32_t& b, std::uint32_t& c) {
    std::vector<std::uint32_t> divs;
    for (std::uint32_t d = 1; d <= n; ++d)
      if (n % d == 0) divs.push_back(d);
    a = divs[std::size_t(rand_int(0, int(divs.size()) - 1))];
    const std::uint32_t rest = n / a;
    divs.clear();
    for (std::uint32_t d = 1; d <= rest; ++d)
      if (rest % d == 0) divs.push_back(d);
    b = divs[std::size_t(rand_int(0, int(divs.size()) - 1))];
    c = rest / b;
  }

  void new_run() {
    run = RunDesc{};
    n_ctx = std::uint32_t(rand_int(1, 6));
    // Context lengths: one step, shorter than the window spacing, and at least the spacing.
    const int two_cols = 2 * cols;
    switch (rand_int(0, 2)) {
      case 0: L = 1; break;
      case 1: L = std::uint32_t(two_cols > 2 ? rand_int(2, two_cols - 1) : 1); break;
      default: L = std::uint32_t(rand_int(two_cols, 40)); break;
    }
    split3(n_ctx, run.n_kg, run.n_cy, run.n_cx);
    split3(L, run.n_c, run.n_ky, run.n_kx);
    run.preload = chance(0.5);
    static const double kOn[] = {1.0, 1.0, 0.9, 0.6, 0.3};
    static const double kChange[] = {1.0, 0.3, 0.05};
    lanes_src = {kOn[rand_int(0, 4)], kChange[rand_int(0, 2)], true};
    weight_src = {kOn[rand_int(0, 4)], kChange[rand_int(0, 2)], true};
    static const double kFill[] = {1.0, 0.5, 0.1, 0.02};
    fill_prob = kFill[rand_int(0, 3)];
    to_deliver = run.preload ? n_ctx * std::uint32_t(cols) : 0;
    delivered = 0;
    reset_at = chance(0.04) ? cycle + rand_int(1, int(2 * L * n_ctx) + 6 * cols) : -1;
  }

  void drive_inputs() {
    if (chance(0.2)) {
      // A delta-cycle glitch: the module re-evaluates the core, and only the settled values count.
      lanes_ready.write(chance(0.5));
      weight_ready.write(chance(0.5));
      unclaimed.write(rand_int(0, 2 * cols));
      wait(sc_core::SC_ZERO_TIME);
      ++glitches;
    }
    start.write(d_start);
    if (d_start) {
      preload.write(run.preload);
      n_kg.write(run.n_kg);
      n_cy.write(run.n_cy);
      n_cx.write(run.n_cx);
      n_c.write(run.n_c);
      n_ky.write(run.n_ky);
      n_kx.write(run.n_kx);
    } else {
      // The RUN fields only matter with start_i.
      preload.write(chance(0.5));
      n_kg.write(std::uint32_t(rand_int(0, 9)));
      n_c.write(std::uint32_t(rand_int(0, 9)));
    }
    lanes_ready.write(d_lanes);
    weight_ready.write(d_weight);
    unclaimed.write(d_unclaimed);
    finish.write(d_finish);
  }

  // Checks the outputs of cycle t (still on the signals at the rising edge that ends it) against
  // the rules, then advances the scoreboard and the models over that edge.
  void check_and_advance(std::int64_t t) {
    const bool tv = tok_valid.read(), ts = tok_swap.read(), tw = tok_window.read();
    const bool issued = tv || ts || tw;
    const Kind got_kind = Kind(kind.read());
    if (busy.read() != active) fail(fmt::format("{} cycle {}: busy_o={}, expected {}", name(), t, busy.read(), active));

    enum class Next { none, fill, swap0, mac, drain } next = Next::none;
    bool last = false;
    if (active) {
      if (!fill_seen) next = Next::fill;
      else if (!swap0_seen) next = Next::swap0;
      else if (macs < L * n_ctx) {
        next = Next::mac;
        last = (macs + 1) % L == 0;
      } else {
        next = Next::drain;
      }
    }
    const bool needs_sram = run.preload && windows < n_ctx;
    // gap_q starts saturated at every RUN start (as the core does; the spec only says "starts
    // saturated"), so the first window of a RUN never waits for the previous RUN's last one.
    const bool gap_ok = windows == 0 || t - last_window >= 2 * cols;
    const bool pre_ok = !needs_sram || d_unclaimed >= cols;
    const bool window_ok = gap_ok && pre_ok;
    bool allowed = false;
    Kind want_kind = Kind::none;
    bool want_v = false, want_s = false, want_w = false;
    switch (next) {
      case Next::none: break;
      case Next::fill:
      case Next::swap0:
        allowed = window_ok;
        want_kind = Kind::pipeline;
        want_s = next == Next::swap0;
        want_w = true;
        break;
      case Next::mac:
        allowed = d_lanes && d_weight && (!last || window_ok);
        want_kind = !d_lanes ? Kind::feeder_stall
                    : !d_weight ? Kind::weight_stall
                    : (last && !window_ok) ? Kind::context_stall
                    : Kind::mac;
        want_v = true;
        want_s = want_w = last;
        break;
      case Next::drain: want_kind = Kind::pipeline; break;
    }
    const std::string where = fmt::format("{} cycle {} (RUN L={} n_ctx={} preload={}, step {}/{}, window {})", name(),
                                          t, L, n_ctx, int(run.preload), macs, L * n_ctx, windows);

    if (issued) {
      if (!allowed) {
        // Say which rule the token broke.
        if (next == Next::none || next == Next::drain)
          fail(fmt::format("{}: token outside the RUN's token sequence", where));
        else if (tv && !(d_lanes && d_weight))
          fail(fmt::format("{}: MAC step without lanes_ready/weight_ready", where));
        else if (tw && !gap_ok)
          fail(fmt::format("{}: window token only {} cycles after the previous one (< 2*COLS = {})", where,
                           t - last_window, 2 * cols));
        else if (tw && !pre_ok)
          fail(fmt::format("{}: window needing SRAM preload with unclaimed = {} < COLS", where, d_unclaimed));
        else
          fail(fmt::format("{}: token issued although the rules do not allow it", where));
      }
      if (tv != want_v || ts != want_s || tw != want_w)
        fail(fmt::format("{}: token (valid {}, swap {}, window {}), expected (valid {}, swap {}, window {})", where, tv,
                         ts, tw, want_v, want_s, want_w));
    } else if (allowed) {
      fail(fmt::format("{}: lost cycle, the rules allow a token but none was issued", where));
    }
    if (pop.read() != tv) fail(fmt::format("{}: pop_o={} with token_valid_o={}", where, pop.read(), tv));
    const bool want_claim = tw && needs_sram;
    if (claim.read() != want_claim)
      fail(fmt::format("{}: claim_o={}, expected {} (window token {}, needs SRAM preload {})", where, claim.read(),
                       want_claim, tw, needs_sram));
    if (got_kind != want_kind)
      fail(fmt::format("{}: cycle class {}, expected {}", where, cycle_kind_name(got_kind), cycle_kind_name(want_kind)));
    if (active) ++kind_count[int(got_kind)];

    // Advance the RUN's progress by what the DUT issued (checked above).
    if (issued && active) {
      ++tokens;
      last_token = t;
      switch (next) {
        case Next::fill: fill_seen = true; break;
        case Next::swap0: swap0_seen = true; break;
        case Next::mac:
          if (tv) ++macs;
          break;
        default: break;
      }
      if (tw) {
        if (windows == 0 && t - prev_run_last_window < 2 * cols) ++short_cross_run_gaps;
        ++windows;
        last_window = t;
      }
      if (next == Next::mac && tv && macs == L * n_ctx) {
        // Without stalls and preload the datasheet's latency holds exactly.
        const std::int64_t span = std::max<std::int64_t>(L, 2 * cols);
        const std::int64_t want = run_start + 1 + 2 * cols + std::int64_t(n_ctx) * span;
        if (!run.preload && lanes_src.on == 1.0 && weight_src.on == 1.0 && t != want)
          fail(fmt::format("{}: stall-free RUN issued its last step in cycle {}, expected {}", where, t, want));
        // The partial-sums manager writes the last result some cycles after the last step.
        const int d = chance(0.3) ? rand_int(1, 2) : rand_int(1, 4 * cols + 20);
        finish_at = t + d;
      }
    }
    // Preload queue over the edge: claims, pops of claimed words, refills.
    if (claim.read()) {
      claimed += cols;
      removals.emplace_back(t + cols, cols);
    }
    while (!removals.empty() && removals.front().first <= t) {
      pq -= removals.front().second;
      claimed -= removals.front().second;
      removals.pop_front();
    }
    if (claimed < 0 || pq < claimed) fail(fmt::format("{}: preload model broken: {} words, {} claimed", where, pq, claimed));
    if (active && delivered < to_deliver && chance(fill_prob)) {
      const int room = std::min(2 * cols - pq, int(to_deliver - delivered));
      if (room > 0) {
        const int n = rand_int(1, std::min(room, cols));
        pq += n;
        delivered += std::uint32_t(n);
      }
    }
    // RUN start and end over the edge.
    if (d_finish) {
      if (!active || macs != L * n_ctx) fail(fmt::format("{}: testbench finished a RUN that was not drained", where));
      if (windows != n_ctx + 2) fail(fmt::format("{}: {} window tokens, expected n_ctx + 2 = {}", where, windows, n_ctx + 2));
      active = false;
      finish_at = -1;
      prev_run_last_window = last_window;
      ++runs_done;
      start_at = t + 1 + rand_int(0, 3);
    }
    if (d_start) {
      active = true;
      run_start = t;
      fill_seen = swap0_seen = false;
      macs = windows = 0;
      last_token = t;
    }
  }

  // Reset in the middle of a RUN: the sequencer and (in the model) the preload queue forget it.
  void mid_run_reset() {
    rst_n.write(false);
    start.write(false);
    finish.write(false);
    for (int i = rand_int(1, 2); i > 0; --i) {
      wait(clk.posedge_event());
      ++cycle;
    }
    rst_n.write(true);
    active = false;
    finish_at = reset_at = -1;
    pq = claimed = 0;
    removals.clear();
    prev_run_last_window = -1000000;
    ++runs_reset;
    start_at = cycle + rand_int(0, 3);
  }

  void main() {
    rst_n.write(false);
    for (int i = 0; i < 3; ++i) {
      wait(clk.posedge_event());
      ++cycle;
    }
    rst_n.write(true);
    start_at = cycle + rand_int(0, 2);
    while (true) {
      // Inputs of cycle `cycle`; the controller's role: start the next RUN once the last one ended.
      d_start = false;
      if (active && cycle == reset_at) {
        mid_run_reset();
        continue;
      }
      if (!active && cycle >= start_at) {
        if (runs_left == 0) {
          finish.write(false);  // the DUT keeps running while the other widths finish
          start.write(false);
          break;
        }
        --runs_left;
        new_run();
        d_start = true;
      }
      d_lanes = lanes_src.next(rng);
      d_weight = weight_src.next(rng);
      // Outside preload RUNs the sequencer must ignore unclaimed_i, so it carries junk there.
      const bool pq_used = active && run.preload;
      d_unclaimed = pq_used ? pq - claimed : rand_int(0, 2 * cols);
      d_finish = active && finish_at == cycle;
      drive_inputs();

      wait(clk.posedge_event());
      check_and_advance(cycle);
      ++cycle;
      if (active && finish_at < 0 && cycle - last_token > 5000) {
        fail(fmt::format("{}: watchdog, no token for 5000 cycles at cycle {} (step {}/{}, window {})", name(), cycle,
                         macs, L * n_ctx, windows));
        break;
      }
      if (g_errors >= kMaxReported) break;
    }
    done = true;
    if (--g_harnesses_left == 0 || g_errors >= kMaxReported) sc_core::sc_stop();
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
  p.cols = 2;
  RunDesc run;
  run.n_c = 3;
  const SequencerCore::In ready{true, true, 0};
  expect_throw("start while a RUN is active", [&] {
    SequencerCore c(p);
    c.start(run);
    c.eval(ready);
    c.tick();
    c.start(run);
  });
  expect_throw("finish before the last step", [&] {
    SequencerCore c(p);
    c.start(run);
    c.eval(ready);
    c.tick();
    c.eval(ready);
    c.finish();
    c.tick();
  });
  expect_throw("finish without a RUN", [&] {
    SequencerCore c(p);
    c.eval(ready);
    c.finish();
    c.tick();
  });
  expect_throw("RUN without steps", [&] {
    SequencerCore c(p);
    RunDesc empty = run;
    empty.n_kx = 0;
    c.start(empty);
    c.eval(ready);
    c.tick();
  });
  return missed;
}

}  // namespace

int sc_main(int argc, char* argv[]) {
  std::uint64_t seed = 1;
  int runs = 400, only_cols = 0;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--seed" && i + 1 < argc) {
      seed = std::strtoull(argv[++i], nullptr, 0);
    } else if (a == "--runs" && i + 1 < argc) {
      runs = std::atoi(argv[++i]);
    } else if (a == "--cols" && i + 1 < argc) {
      only_cols = std::atoi(argv[++i]);
    } else {
      fmt::print(stderr, "usage: {} [--seed N] [--runs N] [--cols 1..16]\n", argv[0]);
      return 2;
    }
  }
  fmt::print("sequencer_tb: seed {} runs {} per width\n", seed, runs);
  sc_core::sc_report_handler::set_actions("/IEEE_Std_1666/deprecated", sc_core::SC_DO_NOTHING);

  g_errors += protocol_checks();

  sc_core::sc_clock clk("clk", 10, sc_core::SC_NS);
  std::vector<std::unique_ptr<Harness>> hs;
  for (int cols = 1; cols <= 16; ++cols) {
    if (only_cols != 0 && cols != only_cols) continue;
    auto h = std::make_unique<Harness>(fmt::format("cols{}", cols).c_str(), cols,
                                       seed * 1000003u + std::uint64_t(cols), runs);
    h->clk(clk);
    hs.push_back(std::move(h));
  }
  g_harnesses_left = int(hs.size());
  try {
    sc_core::sc_start();
  } catch (const std::exception& e) {
    fmt::print(stderr, "ERROR: {}\n", e.what());
    ++g_errors;
  }
  std::uint64_t runs_done = 0, runs_reset = 0, tokens = 0, glitches = 0, kinds[6] = {0, 0, 0, 0, 0, 0}, short_gaps = 0;
  std::int64_t cycles = 0;
  for (auto& h : hs) {
    if (!h->done && g_errors == 0) fail(fmt::format("{} did not finish", h->name()));
    runs_done += h->runs_done;
    runs_reset += h->runs_reset;
    tokens += h->tokens;
    glitches += h->glitches;
    short_gaps += h->short_cross_run_gaps;
    cycles = std::max(cycles, h->cycle);
    for (int k = 0; k < 6; ++k) kinds[k] += h->kind_count[k];
  }
  const int sc_errors = sc_core::sc_report_handler::get_count(sc_core::SC_ERROR);
  const bool ok = g_errors == 0 && sc_errors == 0;
  fmt::print("sequencer_tb: {} seed {}: {} RUNs (+{} cut by a reset) over {} widths, {} tokens, {} glitches, {} cycles; cycle classes mac {} feeder {} "
             "weight {} context {} pipeline {}; {} RUNs opened their first window < 2*COLS after the previous RUN's "
             "last; {} mismatches, {} SC errors\n",
             ok ? "PASS" : "FAIL", seed, runs_done, runs_reset, hs.size(), tokens, glitches, cycles, kinds[int(Kind::mac)],
             kinds[int(Kind::feeder_stall)], kinds[int(Kind::weight_stall)], kinds[int(Kind::context_stall)],
             kinds[int(Kind::pipeline)], short_gaps, g_errors, sc_errors);
  return ok ? 0 : 1;
}
