// Lockstep testbench of weight_fetcher.sv against WeightFetcherCore: random RUNs and pop stalls, the
// core on an hw::SramBank and the RTL's port on a C++ memory with the same image, outputs, port and
// read data compared every cycle; directed protocol errors must make both models fail together.
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
#include "hw/weight_fetcher/weight_fetcher_core.h"
#include "sim/config/config.h"
#include "sim/config/config_keys.h"
#include "tb/common/lockstep.h"
#include "tb/common/verilator.h"

using namespace flycol::hw;
using Vtop = FLYCOL_VTOP;
using namespace flycol::rtltb;

namespace {

class Bench {
public:
  Bench(const HwParams& p, std::uint64_t seed)
      : p_(p), cols_(p.cols), ebits_(p.elem_bits), emask_((1u << p.elem_bits) - 1u), core_(p),
        bank_("weights", p.weight_depth, p.cols), pmem_(p.weight_depth, p.cols), rng_(seed) {
    ctx_ = make_context(seed);
    top_ = std::make_unique<Vtop>(ctx_.get(), "TOP");
    for (int a = 0; a < p.weight_depth; ++a)
      for (int e = 0; e < cols_; ++e) poke(a, e, word_elem_t(rng_()) & emask_);
  }
  ~Bench() { top_->final(); }

  std::uint64_t cycle = 0, runs_done = 0, runs_reset = 0, pops = 0, held_reads = 0, directed = 0;

  void run(int n_runs) {
    do_reset(3);
    for (int r = 0; r < n_runs && g_errors < kMaxReported; ++r) one_run();
    if (g_errors < kMaxReported) directed_errors();
  }

private:
  HwParams p_;
  int cols_, ebits_;
  word_elem_t emask_;
  WeightFetcherCore core_;
  SramBank bank_;
  PortMemory<word_elem_t> pmem_;
  std::unique_ptr<VerilatedContext> ctx_;
  std::unique_ptr<Vtop> top_;
  std::mt19937_64 rng_;

  int rand_int(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
  bool chance(double p) { return std::uniform_real_distribution<double>(0, 1)(rng_) < p; }

  void poke(int a, int e, word_elem_t v) {
    bank_.poke(a, e, v);
    pmem_.at(a, e) = v;
  }

  RunDesc random_shape() {
    RunDesc r;
    const int depth = p_.weight_depth;
    if (chance(0.15)) {
      // A RUN that spans (nearly) the whole buffer, so every address bit is exercised.
      r.n_kg = std::uint32_t(rand_int(1, 3));
      r.n_c = std::uint32_t(depth / int(r.n_kg) - rand_int(0, 2));
      if (r.n_c == 0) r.n_c = 1;
      r.n_ky = r.n_kx = 1;
      r.n_cy = r.n_cx = 1;
      if (chance(0.5)) r.n_cx = 2;
    } else {
      r.n_kg = std::uint32_t(rand_int(1, 3));
      r.n_cy = std::uint32_t(rand_int(1, 3));
      r.n_cx = std::uint32_t(rand_int(1, 3));
      r.n_c = std::uint32_t(rand_int(1, 4));
      r.n_ky = std::uint32_t(rand_int(1, 3));
      r.n_kx = std::uint32_t(rand_int(1, 3));
      if (chance(0.1)) r.n_c = r.n_ky = r.n_kx = 1;  // one-step contexts
    }
    return r;
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

  void drive(bool start, const RunDesc& r, bool pop) {
    top_->start_i = start;
    top_->run_n_kg_i = std::uint16_t(r.n_kg);
    top_->run_n_cy_i = std::uint16_t(r.n_cy);
    top_->run_n_cx_i = std::uint16_t(r.n_cx);
    top_->run_n_c_i = std::uint16_t(r.n_c);
    top_->run_n_ky_i = std::uint16_t(r.n_ky);
    top_->run_n_kx_i = std::uint16_t(r.n_kx);
    top_->pop_i = pop;
    for (int e = 0; e < cols_; ++e) put_elem(top_->weight_rdata_i, e, ebits_, pmem_.rdata[std::size_t(e)]);
    top_->eval();
  }

  RunDesc junk_run() {
    RunDesc r;
    r.n_kg = std::uint32_t(rand_int(0, 0xffff));
    r.n_cy = std::uint32_t(rand_int(0, 0xffff));
    r.n_cx = std::uint32_t(rand_int(0, 5));
    r.n_c = std::uint32_t(rand_int(0, 0xffff));
    r.n_ky = std::uint32_t(rand_int(0, 5));
    r.n_kx = std::uint32_t(rand_int(0, 5));
    return r;
  }

  void do_reset(int cycles) {
    drive(false, RunDesc{}, false);
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

  // The RTL's port at the edge: a read loads the held read data, a write updates the memory.
  void port_edge() {
    if (!top_->weight_req_o) return;
    const int addr = int(top_->weight_addr_o);
    if (addr >= pmem_.depth) {
      fail(fmt::format("cycle {}: weight_addr_o {} out of range", cycle, addr));
      return;
    }
    if (top_->weight_we_o) {
      ++pmem_.writes;
      for (int e = 0; e < cols_; ++e)
        if (flycol::rtltb::get_bits(top_->weight_wmask_o, e, 1))
          pmem_.at(addr, e) = word_elem_t(get_elem(top_->weight_wdata_o, e, ebits_));
    } else {
      ++pmem_.reads;
      for (int e = 0; e < cols_; ++e) pmem_.rdata[std::size_t(e)] = pmem_.at(addr, e);
    }
  }

  // One cycle in lockstep. Compares the Moore outputs, the port request and, after the edge, the
  // read data both banks hold.
  void step(bool start, const RunDesc& r, bool pop) {
    drive(start, r, pop);
    // Moore outputs of the cycle, before the core evaluates it.
    auto check = [&](const std::string& sig, std::uint64_t rtl, std::uint64_t core) {
      if (rtl != core) fail(fmt::format("cycle {}: {} RTL {:#x} core {:#x}", cycle, sig, rtl, core));
    };
    check("has_word_o", top_->has_word_o, core_.has_word());
    check("busy_o", top_->busy_o, core_.busy());
    const elem_t* w = core_.word();
    for (int e = 0; e < cols_; ++e) {
      const std::uint64_t got = get_elem(top_->word_o, e, ebits_);
      if (got != (w[e] & emask_)) {
        check(fmt::format("word_o[{}]", e), got, w[e] & emask_);
        break;
      }
    }
    if (start) core_.start(r);
    core_.set_pop(pop);
    core_.eval(bank_);
    check("weight_req_o", top_->weight_req_o, bank_.busy_this_cycle());
    if (core_.busy() && !bank_.busy_this_cycle()) ++held_reads;
    check("weight_we_o", top_->weight_we_o, 0);
    if (top_->weight_we_o) check("weight_wmask_o", top_->weight_wmask_o != 0, 0);
    const std::uint64_t core_reads = core_.sram_reads();
    core_.tick();
    bank_.tick();
    port_edge();
    clock_edge();
    if (ctx_->gotError()) {
      fail(fmt::format("cycle {}: an RTL assertion fired (see above)", cycle));
      clear_rtl_error();
    }
    // The core's read and the RTL's read must have fetched the same word (same address: the image
    // is random) in the same cycle.
    check("reads", pmem_.reads, core_.sram_reads());
    if (core_.sram_reads() != core_reads)
      for (int e = 0; e < cols_; ++e)
        if (pmem_.rdata[std::size_t(e)] != bank_.rdata()[e]) {
          check(fmt::format("weight read data[{}] (address differs)", e), pmem_.rdata[std::size_t(e)],
                bank_.rdata()[e]);
          break;
        }
    ++cycle;
  }

  void one_run() {
    // A few words of the image change between RUNs, in both banks.
    for (int i = 0; i < 8; ++i) {
      const int a = rand_int(0, p_.weight_depth - 1);
      for (int e = 0; e < cols_; ++e) poke(a, e, word_elem_t(rng_()) & emask_);
    }
    for (int gap = rand_int(0, 3); gap > 0; --gap) step(false, junk_run(), false);
    const RunDesc r = random_shape();
    const std::uint64_t words = std::uint64_t(r.n_kg) * r.n_cy * r.n_cx * r.steps_per_context();
    static const double kPopProbs[] = {1.0, 1.0, 0.9, 0.5, 0.2};
    const double pop_prob = kPopProbs[rand_int(0, 4)];
    const std::int64_t reset_after = chance(0.04) ? rand_int(1, int(words) + 10) : -1;
    step(true, r, false);
    std::uint64_t popped = 0;
    const std::uint64_t start = cycle;
    while (popped < words && g_errors < kMaxReported) {
      if (std::int64_t(cycle - start) == reset_after) {
        ++runs_reset;
        do_reset(rand_int(1, 2));
        return;
      }
      const bool pop = core_.has_word() && chance(pop_prob);
      step(false, junk_run(), pop);
      if (pop) ++popped;
      if (cycle - start > 20 * words + 1000) {
        fail(fmt::format("watchdog: RUN of {} words stuck after {} pops", words, popped));
        return;
      }
    }
    pops += popped;
    ++runs_done;
    // The FIFO is empty and no read is left: the next RUN may start.
    step(false, junk_run(), false);
  }

  // One directed case: `setup` brings both models to the cycle before; in the offending cycle the
  // core must throw and the RTL must flag an error at the edge.
  void directed_case(const char* what, const std::function<void()>& setup, bool start, const RunDesc& r, bool pop) {
    do_reset(2);
    setup();
    drive(start, r, pop);
    bool core_threw = false;
    try {
      if (start) core_.start(r);
      core_.set_pop(pop);
      core_.eval(bank_);
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
    fmt::print("weight_fetcher_rtl_tb: directed protocol errors; RTL assertion messages below are expected\n");
    RunDesc good;
    good.n_c = 3;
    auto started = [&] { step(true, good, false); };
    directed_case("pop of an empty weight FIFO", [] {}, false, good, true);
    directed_case("start while busy", started, true, good, false);
    RunDesc big = good;
    big.n_kg = std::uint32_t(p_.weight_depth / 3 + 1);
    directed_case("RUN larger than the weight buffer", [] {}, true, big, false);
    RunDesc empty = good;
    empty.n_kx = 0;
    directed_case("RUN without steps", [] {}, true, empty, false);
    RunDesc no_ctx = good;
    no_ctx.n_cy = 0;
    directed_case("RUN without contexts", [] {}, true, no_ctx, false);
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
  fmt::print("weight_fetcher_rtl_tb ({}, COLS {}, WD {}): seed {} runs {}\n", FLYCOL_RTL_CONFIG, p.cols,
             p.weight_depth, seed, runs);
  Bench bench(p, seed);
  run_guarded(bench.cycle, [&] { bench.run(runs); });
  const bool ok = g_errors == 0;
  fmt::print("weight_fetcher_rtl_tb ({}): {} seed {}: {} RUNs ({} cut by a reset), {} words popped, {} directed "
             "cases, {} cycles ({} with a read held back by the FIFO rule), {} mismatches\n",
             FLYCOL_RTL_CONFIG, ok ? "PASS" : "FAIL", seed, bench.runs_done, bench.runs_reset, bench.pops,
             bench.directed, bench.cycle, bench.held_reads, g_errors);
  return ok ? 0 : 1;
}
