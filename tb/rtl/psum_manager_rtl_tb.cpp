// Lockstep testbench of psum_manager.sv against PsumManagerCore: the stimulus plays issue stage + array;
// the core's hw::SramBank and the RTL port's C++ memory hold the same image; outputs, port, read data
// and written words compared every cycle; directed protocol errors must make both models fail together.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <random>
#include <string>
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
#include "hw/common/sram_bank.h"
#include "hw/psum_manager/psum_manager_core.h"
#include "sim/config/config.h"
#include "sim/config/config_keys.h"
#include "tb/common/lockstep.h"
#include "tb/common/verilator.h"

using namespace flycol::hw;
using Vtop = FLYCOL_VTOP;
using namespace flycol::rtltb;

namespace {

// Inputs of one cycle, as both models see them.
struct Inputs {
  bool start = false;
  RunDesc run;
  bool claim = false, pre_pop = false, res_valid = false;
  int res_col = 0;
  std::vector<acc_t> res_word;
};

class Bench {
public:
  Bench(const HwParams& p, std::uint64_t seed)
      : p_(p), rows_(p.rows), cols_(p.cols), abits_(p.acc_bits),
        amask_(p.acc_bits >= 32 ? ~acc_t(0) : (acc_t(1) << p.acc_bits) - 1u), core_(p),
        bank_("psums", p.psum_depth, p.rows), pmem_(p.psum_depth, p.rows), rng_(seed) {
    ctx_ = make_context(seed);
    top_ = std::make_unique<Vtop>(ctx_.get(), "TOP");
    for (int a = 0; a < p.psum_depth; ++a)
      for (int e = 0; e < rows_; ++e) poke(a, e, acc_t(rng_()) & amask_);
  }
  ~Bench() { top_->final(); }

  std::uint64_t cycle = 0, runs_done = 0, runs_reset = 0, pre_words = 0, results = 0, directed = 0;
  // Coverage: cycles with a full, unclaimed preload queue; preload reads deferred by a result write;
  // window tokens waiting for preload words.
  std::uint64_t cov_full = 0, cov_deferred = 0, cov_claim_wait = 0;

  void run(int n_runs) {
    do_reset(3);
    for (int r = 0; r < n_runs && g_errors < kMaxReported; ++r) one_run();
    if (g_errors < kMaxReported) directed_errors();
  }

private:
  HwParams p_;
  int rows_, cols_, abits_;
  acc_t amask_;
  PsumManagerCore core_;
  SramBank bank_;
  PortMemory<acc_t> pmem_;
  std::unique_ptr<VerilatedContext> ctx_;
  std::unique_ptr<Vtop> top_;
  std::mt19937_64 rng_;
  std::int64_t reads_left_ = 0;  // preload reads the current RUN still has to do (coverage only)

  int rand_int(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
  bool chance(double p) { return std::uniform_real_distribution<double>(0, 1)(rng_) < p; }

  void poke(int a, int e, acc_t v) {
    bank_.poke(a, e, v);
    pmem_.at(a, e) = v;
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
    top_->claim_i = in.claim;
    top_->pre_pop_i = in.pre_pop;
    top_->res_valid_i = in.res_valid;
    top_->res_col_i = std::uint8_t(in.res_col);
    for (int r = 0; r < rows_; ++r) {
      put_elem(top_->res_word_i, r, abits_, in.res_word.empty() ? 0 : in.res_word[std::size_t(r)]);
      put_elem(top_->psum_rdata_i, r, abits_, pmem_.rdata[std::size_t(r)]);
    }
    top_->eval();
  }

  Inputs idle_inputs() {
    Inputs in;
    // Junk on the fields that only matter with their strobes.
    in.run.preload = chance(0.5);
    in.run.n_kg = std::uint32_t(rand_int(0, 0xffff));
    in.run.n_cy = std::uint32_t(rand_int(0, 0xffff));
    in.run.n_cx = std::uint32_t(rand_int(0, 0xffff));
    in.res_col = rand_int(0, cols_ - 1);
    in.res_word.resize(std::size_t(rows_));
    for (acc_t& v : in.res_word) v = acc_t(rng_()) & amask_;
    return in;
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
    pmem_.reads = pmem_.writes = 0;  // the core's statistics restart with reset
    cycle += std::uint64_t(cycles);
  }

  // The RTL's port at the edge.
  void port_edge() {
    if (!top_->psum_req_o) return;
    const int addr = int(top_->psum_addr_o);
    if (addr >= pmem_.depth) {
      fail(fmt::format("cycle {}: psum_addr_o {} out of range", cycle, addr));
      return;
    }
    if (top_->psum_we_o) {
      ++pmem_.writes;
      for (int e = 0; e < rows_; ++e)
        if (get_bits(top_->psum_wmask_o, e, 1)) pmem_.at(addr, e) = acc_t(get_elem(top_->psum_wdata_o, e, abits_));
    } else {
      ++pmem_.reads;
      for (int e = 0; e < rows_; ++e) pmem_.rdata[std::size_t(e)] = pmem_.at(addr, e);
    }
  }

  void check(const std::string& sig, std::uint64_t rtl, std::uint64_t core) {
    if (rtl != core) fail(fmt::format("cycle {}: {} RTL {:#x} core {:#x}", cycle, sig, rtl, core));
  }

  // One cycle in lockstep.
  void step(const Inputs& in) {
    drive(in);
    // Moore outputs and the Mealy preload word of the cycle.
    check("unclaimed_o", top_->unclaimed_o, std::uint64_t(core_.unclaimed()));
    check("busy_o", top_->busy_o, core_.busy());
    check("run_done_o", top_->run_done_o, core_.run_done());
    const acc_t* pw = core_.pre_word(in.pre_pop);
    for (int r = 0; r < rows_; ++r) {
      const std::uint64_t got = get_elem(top_->pre_word_o, r, abits_);
      if (got != (pw[r] & amask_)) {
        check(fmt::format("pre_word_o[{}]", r), got, pw[r] & amask_);
        break;
      }
    }
    if (in.pre_pop && core_.busy()) ++pre_words;

    if (in.start) core_.start(in.run);
    core_.set_claim(in.claim);
    core_.eval(in.pre_pop, in.res_valid, in.res_col, in.res_word.data(), bank_);
    check("psum_req_o", top_->psum_req_o, bank_.busy_this_cycle());
    const bool rtl_write = top_->psum_req_o && top_->psum_we_o;
    const int rtl_addr = int(top_->psum_addr_o);
    if (rtl_write)
      for (int r = 0; r < rows_; ++r)
        if (!get_bits(top_->psum_wmask_o, r, 1)) {
          fail(fmt::format("cycle {}: psum_wmask_o bit {} low on a result write", cycle, r));
          break;
        }
    const std::uint64_t core_reads = core_.sram_reads(), core_writes = core_.sram_writes();
    if (core_.busy() && core_.unclaimed() == 2 * cols_) ++cov_full;
    if (rtl_write && reads_left_ > 0) ++cov_deferred;
    core_.tick();
    bank_.tick();
    port_edge();
    clock_edge();
    if (ctx_->gotError()) {
      fail(fmt::format("cycle {}: an RTL assertion fired (see above)", cycle));
      clear_rtl_error();
    }
    // Same operation in the same cycle, on the same address (the images are random, so a different
    // address shows up in the data).
    check("psum reads", pmem_.reads, core_.sram_reads());
    check("psum writes", pmem_.writes, core_.sram_writes());
    if (core_.sram_reads() != core_reads) --reads_left_;
    if (core_.sram_reads() != core_reads)
      for (int r = 0; r < rows_; ++r)
        if (pmem_.rdata[std::size_t(r)] != (bank_.rdata()[r] & amask_)) {
          check(fmt::format("psum read data[{}] (address differs)", r), pmem_.rdata[std::size_t(r)],
                bank_.rdata()[r] & amask_);
          break;
        }
    if (core_.sram_writes() != core_writes && rtl_write && rtl_addr < pmem_.depth) {
      ++results;
      for (int r = 0; r < rows_; ++r)
        if (pmem_.at(rtl_addr, r) != (bank_.peek(rtl_addr, r) & amask_)) {
          check(fmt::format("psum word {} row {} after the write (address differs)", rtl_addr, r),
                pmem_.at(rtl_addr, r), bank_.peek(rtl_addr, r) & amask_);
          break;
        }
    }
    ++cycle;
  }

  void compare_images() {
    for (int a = 0; a < p_.psum_depth; ++a)
      for (int r = 0; r < rows_; ++r)
        if (pmem_.at(a, r) != (bank_.peek(a, r) & amask_)) {
          fail(fmt::format("cycle {}: psum word {} row {}: RTL side {:#x}, core side {:#x}", cycle, a, r,
                           pmem_.at(a, r), bank_.peek(a, r)));
          return;
        }
  }

  struct Window {
    std::uint64_t t;
  };

  void one_run() {
    RunDesc run;
    if (chance(0.05)) {
      // A RUN that fills the psum buffer, so every address bit is exercised.
      const int max_ctx = std::max(1, p_.psum_depth / cols_);
      run.n_kg = 1;
      run.n_cy = std::uint32_t(chance(0.5) ? 1 : 2);
      run.n_cx = std::uint32_t(std::max(1, max_ctx / int(run.n_cy)));
    } else {
      do {
        run.n_kg = std::uint32_t(rand_int(1, 3));
        run.n_cy = std::uint32_t(rand_int(1, 3));
        run.n_cx = std::uint32_t(rand_int(1, 4));
        if (chance(0.12)) run.n_kg = run.n_cy = run.n_cx = 1;
      } while (run.contexts() * std::uint32_t(cols_) > std::uint32_t(p_.psum_depth));
    }
    run.preload = rand_int(0, 2) != 0;
    const std::uint32_t n_ctx = run.contexts(), n_windows = n_ctx + 2;
    static const int kLongStallPct[] = {0, 0, 5, 30};
    const int long_stall_pct = kLongStallPct[rand_int(0, 3)];
    const std::int64_t reset_after = chance(0.03) ? rand_int(1, int(n_windows) * 2 * cols_ + rows_) : -1;

    Inputs in = idle_inputs();
    in.start = true;
    in.run = run;
    step(in);
    reads_left_ = run.preload ? std::int64_t(n_ctx) * cols_ : 0;
    const std::uint64_t start = cycle;
    std::vector<Window> pending;
    std::uint32_t next_k = 0;
    std::uint64_t earliest_next = cycle + std::uint64_t(chance(0.5) ? 0 : rand_int(0, 3 * cols_));
    bool done = false;
    while (!done && g_errors < kMaxReported) {
      if (std::int64_t(cycle - start) == reset_after) {
        ++runs_reset;
        do_reset(rand_int(1, 2));
        return;
      }
      in = idle_inputs();
      // Issue stage: the next window token, when the gap allows and, if it takes SRAM preload,
      // the queue holds COLS unclaimed words.
      if (next_k < n_windows && cycle >= earliest_next) {
        const bool needs = run.preload && next_k < n_ctx;
        if (!needs || core_.unclaimed() >= cols_) {
          in.claim = needs;
          pending.push_back({cycle});
          ++next_k;
          std::uint64_t extra = 0;
          if (rand_int(0, 99) < long_stall_pct) extra = std::uint64_t(rand_int(0, 8 * cols_ + 20));
          else if (rand_int(0, 1)) extra = std::uint64_t(rand_int(1, 2 * cols_ + 3));
          earliest_next = cycle + 2 * std::uint64_t(cols_) + extra;
        } else {
          ++cov_claim_wait;
        }
      }
      // Array: preload pops and result words of the windows in flight (timing of the README).
      for (const Window& w : pending) {
        const std::uint64_t pre0 = w.t + std::uint64_t(cols_) + 1, res0 = w.t + std::uint64_t(cols_ + rows_);
        if (cycle >= pre0 && cycle < pre0 + std::uint64_t(cols_)) in.pre_pop = true;
        if (cycle >= res0 && cycle < res0 + std::uint64_t(cols_)) {
          in.res_valid = true;
          in.res_col = cols_ - 1 - int(cycle - res0);
        }
      }
      while (!pending.empty() && cycle >= pending.front().t + 2 * std::uint64_t(cols_) + std::uint64_t(rows_) - 1)
        pending.erase(pending.begin());
      done = core_.run_done();
      step(in);
      if (cycle - start > 100000) {
        fail(fmt::format("watchdog: RUN of {} contexts not done after 100000 cycles", n_ctx));
        return;
      }
    }
    ++runs_done;
    compare_images();
    // The EX engine can start its next command in the cycle after completion; sometimes later.
    for (int gap = chance(0.5) ? 0 : rand_int(0, 5); gap > 0; --gap) step(idle_inputs());
  }

  void directed_case(const char* what, const std::function<void()>& setup, const Inputs& bad) {
    do_reset(2);
    setup();
    drive(bad);
    bool core_threw = false;
    try {
      if (bad.start) core_.start(bad.run);
      core_.set_claim(bad.claim);
      core_.eval(bad.pre_pop, bad.res_valid, bad.res_col, bad.res_word.data(), bank_);
      core_.tick();
      bank_.tick();
    } catch (const ProtocolError&) {
      core_threw = true;
    }
    // A throw from tick() leaves the cycle's bank request pending; retire it (the next case resets
    // the models anyway).
    if (bank_.busy_this_cycle()) bank_.tick();
    clock_edge();
    const bool rtl_error = ctx_->gotError();
    clear_rtl_error();
    ++cycle;
    ++directed;
    if (!core_threw || !rtl_error)
      fail(fmt::format("directed '{}': core threw {}, RTL error {}, expected both", what, core_threw, rtl_error));
  }

  void directed_errors() {
    fmt::print("psum_manager_rtl_tb: directed protocol errors; RTL assertion messages below are expected\n");
    Inputs quiet;
    quiet.res_word.assign(std::size_t(rows_), 0);
    Inputs start = quiet;
    start.start = true;
    start.run.preload = true;
    start.run.n_cx = 3;
    auto started = [&] { step(start); };
    auto started_filled = [&] {
      step(start);
      for (int i = 0; i < 2 * cols_ + 4; ++i) step(quiet);
    };
    Inputs claim = quiet;
    claim.claim = true;
    directed_case("claim beyond the preload queue", [&] {
      step(start);
      step(quiet);
    }, claim);
    Inputs no_pre = start;
    no_pre.run.preload = false;
    directed_case("claim in a RUN without preload", [&] { step(no_pre); }, claim);
    directed_case("claim without a RUN", [] {}, claim);
    Inputs pop = quiet;
    pop.pre_pop = true;
    directed_case("pop of an unclaimed preload word", started_filled, pop);
    directed_case("preload pop outside a RUN", [] {}, pop);
    Inputs res = quiet;
    res.res_valid = true;
    res.res_col = 0;  // column COLS-1 is due first
    if (cols_ > 1) directed_case("result column out of order", started, res);
    res.res_col = cols_ - 1;
    directed_case("result word outside a RUN", [] {}, res);
    directed_case("start while busy", started, start);
    Inputs big = start;
    big.run.n_cy = std::uint32_t(p_.psum_depth / cols_ + 1);
    directed_case("RUN larger than the psum buffer", [] {}, big);
    Inputs none = start;
    none.run.n_kg = 0;
    directed_case("RUN without contexts", [] {}, none);
    do_reset(2);
  }
};

}  // namespace

int main(int argc, char** argv) {
  const auto args = parse_seed_and_count(argc, argv, "runs", 1000);
  if (!args) return 2;
  const std::uint64_t seed = args->seed;
  const int runs = args->count;
  const HwParams p = flycol::hardware_params(flycol::load_config_by_name_or_path(FLYCOL_RTL_CONFIG));
  fmt::print("psum_manager_rtl_tb ({}, ROWS {} COLS {} PD {}): seed {} runs {}\n", FLYCOL_RTL_CONFIG, p.rows, p.cols,
             p.psum_depth, seed, runs);
  Bench bench(p, seed);
  run_guarded(bench.cycle, [&] { bench.run(runs); });
  // A run long enough to mean anything must have reached the corner cases.
  const bool covered = runs < 50 || (bench.cov_full > 0 && bench.cov_deferred > 0 && bench.cov_claim_wait > 0);
  const bool ok = g_errors == 0 && covered;
  fmt::print("psum_manager_rtl_tb ({}): {} seed {}: {} RUNs ({} cut by a reset), {} preload pops, {} result words "
             "written, {} directed cases, {} cycles, {} mismatches; coverage: {} cycles preload queue full, {} reads "
             "deferred by writes, {} windows waiting for preload words\n",
             FLYCOL_RTL_CONFIG, ok ? "PASS" : "FAIL", seed, bench.runs_done, bench.runs_reset, bench.pre_words,
             bench.results, bench.directed, bench.cycle, g_errors, bench.cov_full, bench.cov_deferred,
             bench.cov_claim_wait);
  return ok ? 0 : 1;
}
