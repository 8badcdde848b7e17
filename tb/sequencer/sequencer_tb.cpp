// Testbench of the sequencer, the EX engine's issue stage (docs/microarchitecture.md, sections 9.4
// and 10), one for all views: random RUNs (context lengths of one step, shorter than the window
// spacing COLS, between COLS and 2*COLS, and longer; 1..6 contexts split over kg/cy/cx; preload or not), random
// lanes_ready/weight_ready stalls (scattered and bursty), a preload-queue model in place of the
// partial-sums manager (claims remove COLS words COLS cycles later; refills at random rates), junk
// on the RUN fields without start and on unclaimed_i outside preload RUNs, transient inputs before
// the final ones of a cycle, resets in the middle of RUNs. The reference is the spec's token rules,
// written here: two FILL windows and SWAP0, then L*n_ctx MAC steps with the last step of each
// context a window, windows at least COLS apart and (with preload) only with COLS unclaimed words; every
// cycle the token, pop, weight pop, claim, busy and cycle class are checked, a cycle the rules allow
// a token in must issue one, a stall-free RUN ends at the datasheet's cycle. Pooling RUNs (section 16,
// "The pooling RUN": max or average, random n_c/n_ky/n_kx and n_cy/n_cx, random pool_ready stalls,
// scattered and bursty) against the spec's issue stage for them: no token at all, from the first
// cycle a pool step (cycle class 6) popping the feed lanes but not the weight FIFO whenever every
// lane has an element and the pooling unit is ready, else a feeder stall or (unit not ready) a
// context stall; L*n_ctx pool steps, then the drain; pool_ready_i and weight_ready_i junk where they
// do not count. Then directed protocol errors.
//   sequencer_tb [--view core|sc|all] [--seed N] [--runs N] [--cols N] [--long]   the C++ core and
//         the SystemC module for every array width COLS 1..16 (400 / 8000 RUNs per width)
//   sequencer_rtl_tb_<cfg> [--config FILE] [--seed N] [--runs N] [--long]   sequencer.sv Verilated
//         for one configuration (3000 / 40000 RUNs)
#include <algorithm>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "hw/common/command.h"
#include "hw/common/hw_params.h"
#include "hw/common/protocol_error.h"
#include "tb/common/bench_main.h"
#include "tb/common/run_ports.h"

#include "tb/common/views.h"
#ifndef FLYCOL_VTOP
#include "hw/sequencer/sequencer.h"
#include "hw/sequencer/sequencer_core.h"
#endif

using namespace flycol;
using namespace flycol::hw;

namespace {

// The cycle classes, numbered as the hardware reports them (spec sections 13 and 16).
enum class Kind : int { none = 0, mac, feeder_stall, weight_stall, context_stall, pipeline, pool };
constexpr int kKinds = 7;
const char* kind_name(Kind k) {
  static const char* const names[] = {"none", "mac", "feeder_stall", "weight_stall", "context_stall", "pipeline",
                                      "pool"};
  return int(k) >= 0 && int(k) < kKinds ? names[int(k)] : "?";
}

// The inputs of one cycle.
struct Drive : tb::RunStartInputs {
  bool lanes = false, weight = false, finish = false, pool_ready = false;
  int unclaimed = 0;
};

// The outputs of one cycle.
struct Outs {
  bool valid = false, swap = false, window = false, pop = false, weight_pop = false, claim = false, busy = false;
  Kind kind = Kind::none;
};

// A ready signal that is high with probability `on` in the long run and keeps its value for a
// while when `change` is low, so both scattered and bursty stalls occur.
struct ReadySource {
  double on = 1.0, change = 1.0;
  bool state = true;
  bool next(tb::Rand& r) {
    if (r.chance(change)) state = r.chance(on);
    return state;
  }
};

struct Figures {
  std::uint64_t cycles = 0, runs = 0, runs_reset = 0, tokens = 0, glitches = 0, directed = 0, short_gaps = 0;
  std::uint64_t pool_runs = 0, pool_steps = 0;
  std::uint64_t kinds[kKinds] = {};
};

// ---------------------------------------------------------------------------------------------
// Stimulus, reference and scoreboard. A view offers drive(d) (the final inputs of the cycle),
// glitch(d) (transient inputs before them), out(), edge(d), fault(), offer_once(d) (a directed
// protocol error: whether it was refused), expect_refusals_begin/end().

template <class View>
class Bench {
public:
  Bench(View& v, int cols, int max_len, std::uint64_t seed, tb::MismatchLog& log, Figures& fig)
      : v_(v), cols_(cols), max_len_(max_len), r_(seed), log_(log), fig_(fig) {}

  void run(int n_runs) {
    do_reset(3);
    std::int64_t start_at = t_ + r_.uniform(0, 2);
    int left = n_runs;
    while (!too_many()) {
      Drive d;
      d.run = tb::junk_run(r_);
      d.run.pool_op = std::uint32_t(r_.uniform(0, 3));
      if (active_ && t_ == reset_at_) {
        ++fig_.runs_reset;
        do_reset(r_.uniform(1, 2));
        start_at = t_ + r_.uniform(0, 3);
        continue;
      }
      if (!active_ && t_ >= start_at) {
        if (left == 0) break;
        --left;
        new_run();
        d.start = true;
        d.run = run_;
      }
      d.lanes = lanes_src_.next(r_);
      d.weight = weight_src_.next(r_);
      // pool_ready_i counts only in a pooling RUN's steps; elsewhere it carries junk.
      d.pool_ready = active_ && run_.pooling() ? pool_src_.next(r_) : r_.chance(0.5);
      // Outside preload RUNs the sequencer must ignore unclaimed_i, so it carries junk there.
      d.unclaimed = active_ && run_.preload ? pq_ - claimed_ : r_.uniform(0, 2 * cols_);
      d.finish = active_ && finish_at_ == t_;
      if (r_.chance(0.2)) {
        Drive g = d;
        g.lanes = r_.chance(0.5);
        g.weight = r_.chance(0.5);
        g.pool_ready = r_.chance(0.5);
        g.unclaimed = r_.uniform(0, 2 * cols_);
        v_.glitch(g);
        ++fig_.glitches;
      }
      log_.at(fig_.cycles);
      v_.drive(d);
      const Outs o = v_.out();
      check_and_advance(d, o);
      v_.edge(d);
      if (v_.fault()) log_.fail("an assertion fired");
      if (d.finish) start_at = t_ + 1 + r_.uniform(0, 3);
      ++t_;
      ++fig_.cycles;
      if (active_ && finish_at_ < 0 && t_ - last_token_ > 5000) {
        log_.fail("watchdog: no token or pool step for 5000 cycles (step {}/{}, window {})", macs_, len_ * n_ctx_,
                  windows_);
        break;
      }
    }
    if (!too_many()) directed_errors();
  }

private:
  View& v_;
  int cols_, max_len_;
  tb::Rand r_;
  tb::MismatchLog& log_;
  Figures& fig_;
  std::int64_t t_ = 0;

  // The RUN and its progress, from the tokens seen so far.
  RunDesc run_;
  std::uint32_t len_ = 1, n_ctx_ = 1;
  bool active_ = false, swap0_seen_ = false;
  int fills_seen_ = 0;  // FILL windows issued in this RUN (two: reserve banks 0 and 1)
  std::uint32_t macs_ = 0, windows_ = 0;
  std::int64_t last_window_ = 0, finish_at_ = -1, last_token_ = 0, reset_at_ = -1, run_start_ = 0;
  std::int64_t prev_run_last_window_ = -1000000;
  ReadySource lanes_src_, weight_src_, pool_src_;
  // Preload-queue model (the partial-sums manager's side of the claim protocol).
  int pq_ = 0, claimed_ = 0;
  std::uint32_t delivered_ = 0, to_deliver_ = 0;
  std::deque<std::pair<std::int64_t, int>> removals_;  // (cycle, words) popped at the end of that cycle
  double fill_prob_ = 1.0;

  bool too_many() const { return log_.errors() >= std::uint64_t(tb::MismatchLog::kMaxReported); }

  // Splits n into three factors in random order.
  void split3(std::uint32_t n, std::uint32_t& a, std::uint32_t& b, std::uint32_t& c) {
    std::vector<std::uint32_t> divs;
    for (std::uint32_t k = 1; k <= n; ++k)
      if (n % k == 0) divs.push_back(k);
    a = divs[std::size_t(r_.uniform(0, int(divs.size()) - 1))];
    const std::uint32_t rest = n / a;
    divs.clear();
    for (std::uint32_t k = 1; k <= rest; ++k)
      if (rest % k == 0) divs.push_back(k);
    b = divs[std::size_t(r_.uniform(0, int(divs.size()) - 1))];
    c = rest / b;
  }

  void new_run() {
    run_ = RunDesc{};
    n_ctx_ = std::uint32_t(r_.uniform(1, 6));
    // Context lengths: one step, shorter than the window spacing COLS, up to 2*COLS (the spacing
    // with one reserve bank), and longer.
    const int two_cols = 2 * cols_;
    switch (r_.uniform(0, 3)) {
      case 0: len_ = 1; break;
      case 1: len_ = std::uint32_t(cols_ > 2 ? r_.uniform(2, cols_ - 1) : 1); break;
      case 2: len_ = std::uint32_t(r_.uniform(cols_, two_cols)); break;
      default: len_ = std::uint32_t(r_.uniform(two_cols, std::max(max_len_, two_cols + 8))); break;
    }
    split3(n_ctx_, run_.n_kg, run_.n_cy, run_.n_cx);
    split3(len_, run_.n_c, run_.n_ky, run_.n_kx);
    run_.preload = r_.chance(0.5);
    if (r_.chance(0.3)) {
      // A pooling RUN (section 16): max or average, no preload, one output-channel group, so the
      // contexts are n_cy * n_cx; its windows per context (n_c) and window sides as drawn above.
      run_.pool_op = std::uint32_t(r_.uniform(1, 2));
      run_.preload = false;
      run_.n_cy *= run_.n_kg;
      run_.n_kg = 1;
      ++fig_.pool_runs;
    }
    static const double kOn[] = {1.0, 1.0, 0.9, 0.6, 0.3};
    static const double kChange[] = {1.0, 0.3, 0.05};
    lanes_src_ = {kOn[r_.uniform(0, 4)], kChange[r_.uniform(0, 2)], true};
    weight_src_ = {kOn[r_.uniform(0, 4)], kChange[r_.uniform(0, 2)], true};
    pool_src_ = {kOn[r_.uniform(0, 4)], kChange[r_.uniform(0, 2)], true};
    static const double kFill[] = {1.0, 0.5, 0.1, 0.02};
    fill_prob_ = kFill[r_.uniform(0, 3)];
    to_deliver_ = run_.preload ? n_ctx_ * std::uint32_t(cols_) : 0;
    delivered_ = 0;
    reset_at_ = r_.chance(0.04) ? t_ + r_.uniform(1, int(2 * len_ * n_ctx_) + 6 * cols_) : -1;
    log_.note("RUN L {} n_ctx {} preload {} pool_op {} (kg {} cy {} cx {}, c {} ky {} kx {})", len_, n_ctx_,
              run_.preload, run_.pool_op, run_.n_kg, run_.n_cy, run_.n_cx, run_.n_c, run_.n_ky, run_.n_kx);
  }

  // Reset: the sequencer and (in the model) the preload queue forget the RUN.
  void do_reset(int cycles) {
    tb::hold_reset<Drive>(v_, log_, fig_.cycles, cycles);
    t_ += cycles;
    active_ = false;
    finish_at_ = reset_at_ = -1;
    pq_ = claimed_ = 0;
    removals_.clear();
    prev_run_last_window_ = -1000000;
  }

  // Checks the outputs of cycle t_ against the rules, then advances the scoreboard and the models
  // over the edge that ends it.
  void check_and_advance(const Drive& d, const Outs& o) {
    const bool issued = o.valid || o.swap || o.window;
    log_.expect("busy_o", o.busy, active_);

    enum class Next { none, fill, swap0, mac, pool, drain } next = Next::none;
    bool last = false;
    if (active_ && run_.pooling()) {
      // A pooling RUN has no FILL, FILL, SWAP0: element steps from its first cycle, then the drain.
      next = macs_ < len_ * n_ctx_ ? Next::pool : Next::drain;
    } else if (active_) {
      if (fills_seen_ < 2) next = Next::fill;
      else if (!swap0_seen_) next = Next::swap0;
      else if (macs_ < len_ * n_ctx_) {
        next = Next::mac;
        last = (macs_ + 1) % len_ == 0;
      } else {
        next = Next::drain;
      }
    }
    const bool needs_sram = run_.preload && windows_ < n_ctx_;
    // The window spacing starts saturated at every RUN start (the spec: "starts saturated"), so
    // the first window of a RUN never waits for the previous RUN's last one.
    const bool gap_ok = windows_ == 0 || t_ - last_window_ >= cols_;
    const bool pre_ok = !needs_sram || d.unclaimed >= cols_;
    const bool window_ok = gap_ok && pre_ok;
    bool allowed = false, want_v = false, want_s = false, want_w = false;
    bool pool_allowed = false;  // a pool step: pop the feed lanes, no token
    Kind want_kind = Kind::none;
    switch (next) {
      case Next::none: break;
      case Next::pool:
        pool_allowed = d.lanes && d.pool_ready;
        want_kind = !d.lanes ? Kind::feeder_stall : !d.pool_ready ? Kind::context_stall : Kind::pool;
        break;
      case Next::fill:
      case Next::swap0:
        allowed = window_ok;
        want_kind = Kind::pipeline;
        want_s = next == Next::swap0;
        want_w = true;
        break;
      case Next::mac:
        allowed = d.lanes && d.weight && (!last || window_ok);
        want_kind = !d.lanes ? Kind::feeder_stall
                    : !d.weight ? Kind::weight_stall
                    : (last && !window_ok) ? Kind::context_stall
                    : Kind::mac;
        want_v = true;
        want_s = want_w = last;
        break;
      case Next::drain: want_kind = Kind::pipeline; break;
    }
    const std::string where =
        fmt::format("(RUN L={} n_ctx={} preload={} pool_op={}, step {}/{}, window {})", len_, n_ctx_,
                    int(run_.preload), run_.pool_op, macs_, len_ * n_ctx_, windows_);
    if (issued) {
      if (!allowed) {
        // Say which rule the token broke.
        if (next == Next::pool)
          log_.fail("token in a pooling RUN {}", where);
        else if (next == Next::none || next == Next::drain)
          log_.fail("token outside the RUN's token sequence {}", where);
        else if (o.valid && !(d.lanes && d.weight)) log_.fail("MAC step without lanes_ready/weight_ready {}", where);
        else if (o.window && !gap_ok)
          log_.fail("window token only {} cycles after the previous one (< COLS = {}) {}", t_ - last_window_,
                    cols_, where);
        else if (o.window && !pre_ok)
          log_.fail("window needing SRAM preload with unclaimed = {} < COLS {}", d.unclaimed, where);
        else
          log_.fail("token issued although the rules do not allow it {}", where);
      }
      if (o.valid != want_v || o.swap != want_s || o.window != want_w)
        log_.fail("token (valid {}, swap {}, window {}), expected (valid {}, swap {}, window {}) {}", o.valid, o.swap,
                  o.window, want_v, want_s, want_w, where);
    } else if (allowed) {
      log_.fail("lost cycle: the rules allow a token but none was issued {}", where);
    }
    if (next == Next::pool) {
      if (o.pop && !pool_allowed) {
        if (!d.lanes) log_.fail("pool step without lanes_ready {}", where);
        else log_.fail("pool step while the pooling unit is not ready {}", where);
      } else if (!o.pop && pool_allowed) {
        log_.fail("lost cycle: every lane has an element and the pooling unit is ready, but no pool step {}", where);
      }
      log_.expect("weight_pop_o in a pooling RUN", o.weight_pop, false);
    } else {
      log_.expect("pop_o (= token_valid_o)", o.pop, o.valid);
      log_.expect("weight_pop_o (= token_valid_o)", o.weight_pop, o.valid);
    }
    log_.expect("claim_o", o.claim, o.window && needs_sram);
    if (!log_.expect("cycle_kind_o", int(o.kind), int(want_kind)))
      log_.fail("  class {}, expected {} {}", kind_name(o.kind), kind_name(want_kind), where);
    if (active_) ++fig_.kinds[std::size_t(o.kind) % kKinds];

    // A pool step advances the RUN's element steps (checked above).
    if (next == Next::pool && o.pop && active_) {
      ++fig_.pool_steps;
      last_token_ = t_;
      ++macs_;
      if (macs_ == len_ * n_ctx_) {
        // Without feeder and pooling-unit stalls the steps are back to back from the cycle after the start.
        const std::int64_t want = run_start_ + std::int64_t(len_) * n_ctx_;
        if (lanes_src_.on == 1.0 && pool_src_.on == 1.0 && t_ != want)
          log_.fail("stall-free pooling RUN issued its last step in cycle {}, expected {} {}", t_ - run_start_,
                    want - run_start_, where);
        finish_at_ = t_ + (r_.chance(0.3) ? r_.uniform(1, 2) : r_.uniform(1, 60));
      }
    }

    // Advance the RUN's progress by what was issued (checked above).
    if (issued && active_) {
      ++fig_.tokens;
      last_token_ = t_;
      if (next == Next::fill) ++fills_seen_;
      if (next == Next::swap0) swap0_seen_ = true;
      if (next == Next::mac && o.valid) ++macs_;
      if (o.window) {
        if (windows_ == 0 && t_ - prev_run_last_window_ < cols_) ++fig_.short_gaps;
        ++windows_;
        last_window_ = t_;
      }
      if (next == Next::mac && o.valid && macs_ == len_ * n_ctx_) {
        // Without stalls and preload the datasheet's latency holds exactly.
        const std::int64_t span = std::max<std::int64_t>(len_, cols_);
        const std::int64_t want = run_start_ + 1 + 2 * cols_ + std::int64_t(n_ctx_) * span;
        if (!run_.preload && lanes_src_.on == 1.0 && weight_src_.on == 1.0 && t_ != want)
          log_.fail("stall-free RUN issued its last step in cycle {}, expected {} {}", t_ - run_start_,
                    want - run_start_, where);
        // The partial-sums manager writes the last result some cycles after the last step.
        finish_at_ = t_ + (r_.chance(0.3) ? r_.uniform(1, 2) : r_.uniform(1, 4 * cols_ + 20));
      }
    }
    // Preload queue over the edge: claims, pops of claimed words, refills.
    if (o.claim) {
      claimed_ += cols_;
      removals_.emplace_back(t_ + cols_, cols_);
    }
    while (!removals_.empty() && removals_.front().first <= t_) {
      pq_ -= removals_.front().second;
      claimed_ -= removals_.front().second;
      removals_.pop_front();
    }
    if (claimed_ < 0 || pq_ < claimed_) log_.fail("preload model broken: {} words, {} claimed {}", pq_, claimed_, where);
    if (active_ && delivered_ < to_deliver_ && r_.chance(fill_prob_)) {
      const int room = std::min(2 * cols_ - pq_, int(to_deliver_ - delivered_));
      if (room > 0) {
        const int n = r_.uniform(1, std::min(room, cols_));
        pq_ += n;
        delivered_ += std::uint32_t(n);
      }
    }
    // RUN start and end over the edge.
    if (d.finish) {
      if (!active_ || macs_ != len_ * n_ctx_) log_.fail("the bench finished a RUN that was not drained {}", where);
      if (run_.pooling()) log_.expect("window tokens of a pooling RUN", windows_, 0u);
      else log_.expect("window tokens of the RUN (n_ctx + 3)", windows_, n_ctx_ + 3);
      active_ = false;
      finish_at_ = -1;
      prev_run_last_window_ = last_window_;
      ++fig_.runs;
    }
    if (d.start) {
      active_ = true;
      run_start_ = t_;
      fills_seen_ = 0;
      swap0_seen_ = false;
      macs_ = windows_ = 0;
      last_token_ = t_;
    }
  }
  // Protocol errors, each of which must be refused (core: ProtocolError; module: SC_ERROR; RTL:
  // an assertion at the edge).
  void directed_errors() {
    v_.expect_refusals_begin();
    RunDesc good;
    good.n_c = 2;
    good.n_cx = 2;
    Drive start_good;
    start_good.start = true;
    start_good.run = good;
    Drive start_pool = start_good;  // a max pooling RUN of 2 windows of 1 element in each of 2 contexts
    start_pool.run.pool_op = 1;
    // `started`: after the start of `first` (a convolution RUN unless said otherwise).
    auto directed = [&](const char* what, bool started, const Drive& bad, const Drive* first = nullptr) {
      do_reset(2);
      if (started) {
        const Drive& s = first ? *first : start_good;
        v_.drive(s);
        (void)v_.out();
        v_.edge(s);
        ++fig_.cycles;
      }
      log_.at(fig_.cycles);
      log_.expect_true(v_.offer_once(bad), fmt::format("directed '{}' was not refused", what));
      ++fig_.cycles;
      ++fig_.directed;
    };
    directed("start while a RUN is active", true, start_good);
    Drive no_steps = start_good;
    no_steps.run.n_ky = 0;
    directed("RUN with no steps", false, no_steps);
    Drive no_ctx = start_good;
    no_ctx.run.n_kg = 0;
    directed("RUN with no contexts", false, no_ctx);
    Drive early_finish;
    early_finish.finish = true;
    directed("finish before the last step", true, early_finish);
    directed("finish without a RUN", false, early_finish);
    Drive pool_preload = start_good;
    pool_preload.run.pool_op = 1;
    pool_preload.run.preload = true;
    directed("pooling RUN with preload", false, pool_preload);
    Drive pool_groups = start_good;
    pool_groups.run.pool_op = 2;
    pool_groups.run.n_kg = 2;
    directed("pooling RUN with two output-channel groups", false, pool_groups);
    directed("start while a pooling RUN is active", true, start_good, &start_pool);
    directed("finish before the last step of a pooling RUN", true, early_finish, &start_pool);
    v_.expect_refusals_end();
    do_reset(2);
  }
};

#ifdef FLYCOL_VTOP

// ---------------------------------------------------------------------------------------------
// sequencer.sv, Verilated for one configuration.

class RtlView {
public:
  explicit RtlView(std::uint64_t seed) : dut_(seed) {}
  void drive(const Drive& d) {
    dut_->rst_ni = d.rst_n;
    dut_->start_i = d.start;
    tb::put_run(*dut_, d.run);
    dut_->run_pool_op_i = std::uint8_t(d.run.pool_op);
    dut_->lanes_ready_i = d.lanes;
    dut_->weight_ready_i = d.weight;
    dut_->unclaimed_i = std::uint8_t(d.unclaimed);
    dut_->finish_i = d.finish;
    dut_->pool_ready_i = d.pool_ready;
    dut_->eval();
  }
  void glitch(const Drive& d) { drive(d); }
  Outs out() {
    dut_->eval();
    Outs o;
    o.valid = dut_->token_valid_o;
    o.swap = dut_->token_swap_o;
    o.window = dut_->token_window_o;
    o.pop = dut_->pop_o;
    o.weight_pop = dut_->weight_pop_o;
    o.claim = dut_->claim_o;
    o.busy = dut_->busy_o;
    o.kind = Kind(dut_->cycle_kind_o);
    return o;
  }
  void edge(const Drive&) { dut_.edge(); }
  bool fault() { return dut_.fault(); }
  void expect_refusals_begin() { tb::expect_rtl_assertions("sequencer_rtl_tb", "directed protocol errors"); }
  void expect_refusals_end() {}
  bool offer_once(const Drive& d) {
    drive(d);
    dut_.edge();
    return dut_.fault();
  }

private:
  tb::Dut<FLYCOL_VTOP> dut_;
};

#else

// ---------------------------------------------------------------------------------------------
// SequencerCore alone; a transient input is an earlier eval() of the same cycle.

class CoreView {
public:
  explicit CoreView(const HwParams& p) : core_(p) {}
  void drive(const Drive& d) { d_ = d; }
  void glitch(const Drive& d) { (void)core_.eval(inputs(d)); }
  Outs out() {
    const SequencerCore::Out& c = core_.eval(inputs(d_));
    Outs o;
    o.valid = c.token_valid;
    o.swap = c.token_swap;
    o.window = c.token_window;
    o.pop = c.pop;
    o.weight_pop = c.weight_pop;
    o.claim = c.claim;
    o.busy = core_.busy();
    o.kind = Kind(int(c.kind));
    return o;
  }
  void edge(const Drive& d) {
    if (!d.rst_n) {
      core_.reset();
      return;
    }
    if (d.start) core_.start(d.run);
    if (d.finish) core_.finish();
    core_.tick();
  }
  bool fault() { return false; }
  void expect_refusals_begin() {}
  void expect_refusals_end() {}
  bool offer_once(const Drive& d) {
    return tb::throws<ProtocolError>([&] {
      (void)core_.eval(inputs(d));
      edge(d);
    });
  }

private:
  static SequencerCore::In inputs(const Drive& d) {
    SequencerCore::In in;
    in.lanes_ready = d.lanes;
    in.weight_ready = d.weight;
    in.unclaimed = d.unclaimed;
    in.pool_ready = d.pool_ready;
    return in;
  }
  SequencerCore core_;
  Drive d_;
};

// The Sequencer SC_MODULE on its own signals and clock; a transient input is a delta cycle with
// other values before the final ones.
class ScView {
public:
  ScView(const std::string& name, const HwParams& p) : dut_(name.c_str(), p), in_(name) {
    in_.bind(dut_);
    dut_.lanes_ready_i(lanes_);
    dut_.weight_ready_i(weight_);
    dut_.unclaimed_i(unclaimed_);
    dut_.finish_i(finish_);
    dut_.pool_ready_i(pool_ready_);
    dut_.token_valid_o(valid_);
    dut_.token_swap_o(swap_);
    dut_.token_window_o(window_);
    dut_.pop_o(pop_);
    dut_.weight_pop_o(weight_pop_);
    dut_.claim_o(claim_);
    dut_.busy_o(busy_);
    dut_.cycle_kind_o(kind_);
  }
  void drive(const Drive& d) {
    in_.write(d);
    lanes_.write(d.lanes);
    weight_.write(d.weight);
    unclaimed_.write(d.unclaimed);
    finish_.write(d.finish);
    pool_ready_.write(d.pool_ready);
  }
  void glitch(const Drive& d) {
    drive(d);
    tb::ScClock::settle();
  }
  Outs out() {
    tb::ScClock::settle();
    Outs o;
    o.valid = valid_.read();
    o.swap = swap_.read();
    o.window = window_.read();
    o.pop = pop_.read();
    o.weight_pop = weight_pop_.read();
    o.claim = claim_.read();
    o.busy = busy_.read();
    o.kind = Kind(kind_.read());
    return o;
  }
  void edge(const Drive&) { in_.clk.step(); }
  bool fault() { return false; }
  void expect_refusals_begin() { tb::expect_sc_errors(dut_.name(), "sequencer_tb", "directed protocol errors"); }
  void expect_refusals_end() { tb::end_sc_errors(dut_.name()); }
  bool offer_once(const Drive& d) {
    return tb::sc_errors_during(dut_.name(), [&] {
             drive(d);
             in_.clk.step();
           }) == 1;
  }

private:
  Sequencer dut_;
  tb::ScRunInputs in_;
  sc_core::sc_signal<bool> lanes_, weight_, finish_, pool_ready_, valid_, swap_, window_, pop_, weight_pop_, claim_,
      busy_;
  sc_core::sc_signal<int> unclaimed_, kind_;
};

HwParams width(int cols) {
  HwParams p;
  p.cols = cols;
  return p;
}

#endif

std::string figures(const Figures& f) {
  return fmt::format("{} RUNs (+{} cut by a reset; {} pooling RUNs drawn), {} tokens, {} pool steps, {} glitches, "
                     "{} directed, {} cycles; classes mac {} feeder {} weight {} context {} pipeline {} pool {}; {} "
                     "RUNs opened their first window < COLS after the previous RUN's last",
                     f.runs, f.runs_reset, f.pool_runs, f.tokens, f.pool_steps, f.glitches, f.directed, f.cycles,
                     f.kinds[1], f.kinds[2], f.kinds[3], f.kinds[4], f.kinds[5], f.kinds[6], f.short_gaps);
}

}  // namespace

#ifdef FLYCOL_VTOP

int main(int argc, char** argv) {
  tb::BenchMain harness("sequencer", {"runs", 3000, 40000, "random RUNs"});
  if (!harness.parse(argc, argv)) return 2;
  const int cols = harness.params().cols;  // the only parameter the sequencer has
  harness.announce("COLS {}, {} RUNs", cols, harness.count());
  Figures fig;
  RtlView view(harness.seed());
  harness.run(harness.rtl_view(), [&](tb::MismatchLog& log) {
    Bench<RtlView>(view, cols, 40, harness.seed(0), log, fig).run(int(harness.count()));
  });
  return harness.finish(figures(fig));
}

#else

int sc_main(int argc, char* argv[]) {
  tb::BenchMain harness("sequencer", {"runs", 400, 8000, "random RUNs per width and view"});
  std::uint64_t only_cols = 0;
  harness.args().count("cols", &only_cols, "only this array width (1..16)");
  if (!harness.parse(argc, argv)) return 2;
  if (only_cols > 16) {
    fmt::print(stderr, "sequencer_tb: --cols {}: expected 1..16\n", only_cols);
    return 2;
  }
  harness.announce("{} RUNs per width", harness.count());
  // Every SC_MODULE exists before the first sc_start.
  std::vector<std::unique_ptr<ScView>> sc_views;
  for (int cols = 1; cols <= 16; ++cols) sc_views.push_back(std::make_unique<ScView>(fmt::format("seq{}", cols), width(cols)));
  Figures fig;
  for (int cols = 1; cols <= 16; ++cols) {
    if (only_cols != 0 && std::uint64_t(cols) != only_cols) continue;
    auto one = [&](const std::string& name, auto& v) {
      harness.run(fmt::format("{} COLS {}", name, cols), [&](tb::MismatchLog& log) {
        // The same stimulus on both views.
        Bench<std::remove_reference_t<decltype(v)>>(v, cols, 40, harness.seed(std::uint64_t(cols)), log, fig)
            .run(int(harness.count()));
      });
    };
    if (harness.core()) {
      CoreView core(width(cols));
      one("core", core);
    }
    if (harness.sc()) one("sc", *sc_views[std::size_t(cols - 1)]);
  }
  return harness.finish(figures(fig));
}

#endif
