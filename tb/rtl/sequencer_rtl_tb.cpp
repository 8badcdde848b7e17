// Lockstep testbench of sequencer.sv against SequencerCore: random RUNs, lane/weight stalls, a
// preload-queue model, random finish delays and resets; every output compared every cycle; directed
// protocol errors on which the core must throw and the RTL assertion fire in the same cycle.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

// Verilator's own headers do not pass -Wextra (unused parameters); they are not ours to fix.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#include <verilated.h>

#include FLYCOL_VTOP_HEADER
#pragma GCC diagnostic pop

#include "hw/common/command.h"
#include "hw/common/hw_params.h"
#include "hw/common/protocol_error.h"
#include "hw/sequencer/sequencer_core.h"
#include "sim/config/config.h"
#include "sim/config/config_keys.h"
#include "tb/common/lockstep.h"

using namespace flycol::hw;
using Vtop = FLYCOL_VTOP;
using namespace flycol::rtltb;
using Phase = SequencerCore::Phase;

namespace {

// A ready signal that is high with probability `on` in the long run and keeps its value for a while
// when `change` is low, so both scattered and bursty stalls occur.
struct ReadySource {
  double on = 1.0, change = 1.0;
  bool state = true;
  bool next(std::mt19937_64& rng) {
    std::uniform_real_distribution<double> u(0, 1);
    if (u(rng) < change) state = u(rng) < on;
    return state;
  }
};

// Inputs of one cycle, as both models see them.
struct Inputs {
  bool start = false;
  RunDesc run;  // the fields driven on the run ports (junk unless start)
  bool lanes = false, weight = false, finish = false;
  int unclaimed = 0;
};

class Bench {
public:
  Bench(const HwParams& p, std::uint64_t seed) : cols_(p.cols), core_(p), rng_(seed) {
    ctx_ = make_context(seed);
    top_ = std::make_unique<Vtop>(ctx_.get(), "TOP");
  }
  ~Bench() { top_->final(); }

  std::uint64_t cycle = 0, runs_done = 0, runs_reset = 0, tokens = 0, directed = 0;
  std::uint64_t kind_count[6] = {0, 0, 0, 0, 0, 0};

  void run(int n_runs) {
    do_reset(3);
    int left = n_runs;
    std::int64_t start_at = std::int64_t(cycle) + rand_int(0, 2);
    while (g_errors < kMaxReported) {
      Inputs in;
      in.run = junk_run();
      const bool active = core_.busy();
      if (active && std::int64_t(cycle) == reset_at_) {
        ++runs_reset;
        do_reset(rand_int(1, 2));
        start_at = std::int64_t(cycle) + rand_int(0, 3);
        continue;
      }
      if (!active && !start_pending_ && std::int64_t(cycle) >= start_at) {
        if (left == 0) break;
        --left;
        new_run();
        in.start = true;
        in.run = run_;
      }
      in.lanes = lanes_src_.next(rng_);
      in.weight = weight_src_.next(rng_);
      // Outside preload RUNs the sequencer must ignore unclaimed_i, so it carries junk there.
      in.unclaimed = active && run_.preload ? pq_ - claimed_ : rand_int(0, 2 * cols_);
      in.finish = active && finish_at_ == std::int64_t(cycle);
      start_pending_ = in.start;

      const SequencerCore::Out out = step(in);

      // Models over the edge: the preload queue, and the RUN's end.
      if (out.token_valid || out.token_swap || out.token_window) {
        ++tokens;
        last_token_ = cycle;
      }
      if (in.start) {
        last_token_ = cycle;
        start_pending_ = false;
      }
      if (out.claim) {
        claimed_ += cols_;
        removals_.emplace_back(std::int64_t(cycle) + cols_, cols_);
      }
      while (!removals_.empty() && removals_.front().first <= std::int64_t(cycle)) {
        pq_ -= removals_.front().second;
        claimed_ -= removals_.front().second;
        removals_.pop_front();
      }
      if (core_.busy() && delivered_ < to_deliver_ && chance(fill_prob_)) {
        const int room = std::min(2 * cols_ - pq_, int(to_deliver_ - delivered_));
        if (room > 0) {
          const int n = rand_int(1, std::min(room, cols_));
          pq_ += n;
          delivered_ += std::uint32_t(n);
        }
      }
      // The partial-sums manager writes the last result some cycles after the last step.
      if (core_.phase() == Phase::drain && finish_at_ < std::int64_t(cycle)) {
        finish_at_ = std::int64_t(cycle) + (chance(0.3) ? rand_int(0, 1) : rand_int(0, 4 * cols_ + 20));
      }
      if (in.finish) {
        ++runs_done;
        finish_at_ = -1;
        start_at = std::int64_t(cycle) + rand_int(0, 3);
      }
      ++cycle;
      if (core_.busy() && finish_at_ < 0 && cycle - last_token_ > 5000) {
        fail(fmt::format("watchdog: no token for 5000 cycles at cycle {}", cycle));
        break;
      }
    }
    if (g_errors < kMaxReported) directed_errors();
  }

private:
  int cols_;
  SequencerCore core_;
  std::unique_ptr<VerilatedContext> ctx_;
  std::unique_ptr<Vtop> top_;
  std::mt19937_64 rng_;

  RunDesc run_;
  bool start_pending_ = false;
  std::int64_t finish_at_ = -1, reset_at_ = -1;
  std::uint64_t last_token_ = 0;
  ReadySource lanes_src_, weight_src_;
  // Preload-queue model (the partial-sums manager's side of the claim protocol).
  int pq_ = 0, claimed_ = 0;
  std::uint32_t delivered_ = 0, to_deliver_ = 0;
  std::deque<std::pair<std::int64_t, int>> removals_;  // (cycle, words) popped at the end of that cycle
  double fill_prob_ = 1.0;

  int rand_int(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
  bool chance(double p) { return std::uniform_real_distribution<double>(0, 1)(rng_) < p; }

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

  RunDesc junk_run() {
    RunDesc r;
    r.preload = chance(0.5);
    r.n_kg = std::uint32_t(rand_int(0, 0xffff));
    r.n_cy = std::uint32_t(rand_int(0, 9));
    r.n_cx = std::uint32_t(rand_int(0, 9));
    r.n_c = std::uint32_t(rand_int(0, 0xffff));
    r.n_ky = std::uint32_t(rand_int(0, 9));
    r.n_kx = std::uint32_t(rand_int(0, 9));
    return r;
  }

  void new_run() {
    run_ = RunDesc{};
    const std::uint32_t n_ctx = std::uint32_t(rand_int(1, 6));
    const int two_cols = 2 * cols_;
    std::uint32_t len = 1;
    switch (rand_int(0, 2)) {
      case 0: len = 1; break;
      case 1: len = std::uint32_t(two_cols > 2 ? rand_int(2, two_cols - 1) : 1); break;
      default: len = std::uint32_t(rand_int(two_cols, std::max(40, two_cols + 8))); break;
    }
    split3(n_ctx, run_.n_kg, run_.n_cy, run_.n_cx);
    split3(len, run_.n_c, run_.n_ky, run_.n_kx);
    run_.preload = chance(0.5);
    static const double kOn[] = {1.0, 1.0, 0.9, 0.6, 0.3};
    static const double kChange[] = {1.0, 0.3, 0.05};
    lanes_src_ = {kOn[rand_int(0, 4)], kChange[rand_int(0, 2)], true};
    weight_src_ = {kOn[rand_int(0, 4)], kChange[rand_int(0, 2)], true};
    static const double kFill[] = {1.0, 0.5, 0.1, 0.02};
    fill_prob_ = kFill[rand_int(0, 3)];
    to_deliver_ = run_.preload ? n_ctx * std::uint32_t(cols_) : 0;
    delivered_ = 0;
    pq_ = claimed_ = 0;
    removals_.clear();
    finish_at_ = -1;
    reset_at_ = chance(0.04) ? std::int64_t(cycle) + rand_int(1, int(2 * len * n_ctx) + 6 * cols_) : -1;
  }

  void clock_edge() {
    ctx_->timeInc(1);
    top_->clk_i = 1;
    top_->eval();
    ctx_->timeInc(1);
    top_->clk_i = 0;
    top_->eval();
  }

  void clear_rtl_error() {
    ctx_->gotError(false);
    ctx_->gotFinish(false);
  }

  void drive(const Inputs& in) {
    top_->start_i = in.start;
    top_->run_preload_i = in.run.preload;
    top_->run_n_kg_i = std::uint16_t(in.run.n_kg);
    top_->run_n_cy_i = std::uint16_t(in.run.n_cy);
    top_->run_n_cx_i = std::uint16_t(in.run.n_cx);
    top_->run_n_c_i = std::uint16_t(in.run.n_c);
    top_->run_n_ky_i = std::uint16_t(in.run.n_ky);
    top_->run_n_kx_i = std::uint16_t(in.run.n_kx);
    top_->lanes_ready_i = in.lanes;
    top_->weight_ready_i = in.weight;
    top_->unclaimed_i = std::uint8_t(in.unclaimed);
    top_->finish_i = in.finish;
    top_->eval();
  }

  void do_reset(int cycles) {
    drive(Inputs{});
    top_->rst_ni = 0;
    top_->clk_i = 0;
    top_->eval();
    for (int i = 0; i < cycles; ++i) clock_edge();
    top_->rst_ni = 1;
    top_->eval();
    core_.reset();
    pq_ = claimed_ = 0;
    removals_.clear();
    finish_at_ = reset_at_ = -1;
    start_pending_ = false;
    cycle += std::uint64_t(cycles);
  }

  SequencerCore::Out step(const Inputs& in) {
    drive(in);
    SequencerCore::In ci;
    ci.lanes_ready = in.lanes;
    ci.weight_ready = in.weight;
    ci.unclaimed = in.unclaimed;
    const SequencerCore::Out out = core_.eval(ci);
    compare(out);
    if (core_.busy()) ++kind_count[int(out.kind)];
    if (in.start) core_.start(in.run);
    if (in.finish) core_.finish();
    core_.tick();
    clock_edge();
    if (ctx_->gotError()) {
      fail(fmt::format("cycle {}: an RTL assertion fired (see above)", cycle));
      clear_rtl_error();
    }
    return out;
  }

  void compare(const SequencerCore::Out& out) {
    auto check = [&](const char* sig, int rtl, int core) {
      if (rtl != core)
        fail(fmt::format("cycle {}: {} RTL {} core {} (phase {})", cycle, sig, rtl, core, int(core_.phase())));
    };
    check("token_valid_o", top_->token_valid_o, out.token_valid);
    check("token_swap_o", top_->token_swap_o, out.token_swap);
    check("token_window_o", top_->token_window_o, out.token_window);
    check("pop_o", top_->pop_o, out.pop);
    check("claim_o", top_->claim_o, out.claim);
    check("busy_o", top_->busy_o, core_.busy());
    check("cycle_kind_o", top_->cycle_kind_o, int(out.kind));
  }

  // One directed case: `setup` brings both models to the cycle before, `act` drives the offending
  // cycle (the core may throw in it); the RTL must flag an error at that edge, the core must throw.
  void directed_case(const char* what, const std::function<void()>& setup, const Inputs& bad) {
    do_reset(2);
    setup();
    drive(bad);
    bool core_threw = false;
    try {
      SequencerCore::In ci;
      ci.lanes_ready = bad.lanes;
      ci.weight_ready = bad.weight;
      ci.unclaimed = bad.unclaimed;
      core_.eval(ci);
      if (bad.start) core_.start(bad.run);
      if (bad.finish) core_.finish();
      core_.tick();
    } catch (const ProtocolError&) {
      core_threw = true;
    }
    clock_edge();
    const bool rtl_error = ctx_->gotError();
    clear_rtl_error();
    ++cycle;
    ++directed;
    if (!core_threw || !rtl_error)
      fail(fmt::format("directed '{}': core threw {}, RTL error {}, expected both", what, core_threw, rtl_error));
  }

  void directed_errors() {
    fmt::print("sequencer_rtl_tb: directed protocol errors; RTL assertion messages below are expected\n");
    RunDesc good;
    good.n_c = 2;
    good.n_cx = 2;
    Inputs start_good;
    start_good.start = true;
    start_good.run = good;
    auto started = [&] { step(start_good); };

    directed_case("start while a RUN is active", started, start_good);
    Inputs no_steps = start_good;
    no_steps.run.n_ky = 0;
    directed_case("RUN with no steps", [] {}, no_steps);
    Inputs no_ctx = start_good;
    no_ctx.run.n_kg = 0;
    directed_case("RUN with no contexts", [] {}, no_ctx);
    Inputs early_finish;
    early_finish.finish = true;
    directed_case("finish before the last step", started, early_finish);
    directed_case("finish without a RUN", [] {}, early_finish);
    do_reset(2);
  }
};

}  // namespace

int main(int argc, char** argv) {
  const auto args = parse_seed_and_count(argc, argv, "runs", 3000);
  if (!args) return 2;
  const std::uint64_t seed = args->seed;
  const int runs = args->count;
  const HwParams p = flycol::hardware_params(flycol::load_config_by_name_or_path(FLYCOL_RTL_CONFIG));
  fmt::print("sequencer_rtl_tb ({}, COLS {}): seed {} runs {}\n", FLYCOL_RTL_CONFIG, p.cols, seed, runs);
  Bench bench(p, seed);
  run_guarded(bench.cycle, [&] { bench.run(runs); });
  const bool ok = g_errors == 0;
  const auto& k = bench.kind_count;
  fmt::print("sequencer_rtl_tb ({}): {} seed {}: {} RUNs ({} cut by a reset), {} tokens, {} directed cases, {} cycles "
             "(mac {}, feeder_stall {}, weight_stall {}, context_stall {}, pipeline {}), {} mismatches\n",
             FLYCOL_RTL_CONFIG, ok ? "PASS" : "FAIL", seed, bench.runs_done, bench.runs_reset, bench.tokens,
             bench.directed, bench.cycle, k[1], k[2], k[3], k[4], k[5], g_errors);
  return ok ? 0 : 1;
}
