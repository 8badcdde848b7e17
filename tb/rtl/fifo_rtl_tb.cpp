// Lockstep testbench of fifo.sv against its C++ twin hw::Fifo (hw/common/fifo.h), for every shape
// Verilated by hw/common/rtl.cmake: random push/pop with random stall phases and resets, every
// output compared every cycle, then push-while-full and pop-while-empty must fire the assertions.
// Usage: fifo_rtl_tb [--seed N] [--cycles N] [--long]  (1 M / 20 M cycles per shape)
#include <array>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <random>
#include <string>

#include <fmt/format.h>

#include "fifo_rtl_tb_shapes.h"
#include "hw/common/fifo.h"
#include "hw/common/protocol_error.h"
#include "tb/common/verilator.h"

using namespace flycol;
using flycol::tb::get_bits;
using flycol::tb::put_bits;

namespace {

constexpr int kMaxWords = 4;  // entries up to 128 bits
using Entry = std::array<std::uint32_t, kMaxWords>;

// One Verilated shape beside an hw::Fifo of the same depth.
template <class V, int Width, int Depth>
class Bench {
public:
  Bench(std::uint64_t seed, std::uint64_t cycles)
      : name_(fmt::format("fifo W={} D={}", Width, Depth)), cycles_(cycles), rng_(seed), core_("fifo", Depth) {
    static_assert(Width <= 32 * kMaxWords, "entry wider than the testbench's Entry");
    ctx_.fatalOnError(false);  // an assertion sets gotError(); the testbench decides
    dut_ = std::make_unique<V>(&ctx_);
  }

  // Returns the number of mismatches (0: pass).
  int run() {
    reset();
    std::uint64_t pushes = 0, pops = 0, full_cycles = 0;
    double p_push = 0.5, p_pop = 0.5;
    for (cycle_ = 0; cycle_ < cycles_ && errors_ == 0; ++cycle_) {
      // Phases of random length with their own push and pop rates: long bursts fill the FIFO,
      // long stalls of the reader keep it full, and the reverse drains it.
      if (uniform(0, 99) == 0) {
        const double rates[] = {0.0, 0.1, 0.5, 0.9, 1.0};
        p_push = rates[uniform(0, 4)];
        p_pop = rates[uniform(0, 4)];
      }
      if (uniform(0, 4999) == 0) {
        reset();
        continue;
      }
      const bool push = !core_.full() && chance(p_push);
      const bool pop = !core_.empty() && chance(p_pop);
      step(push, pop, random_entry());
      pushes += push;
      pops += pop;
      full_cycles += core_.full();
    }
    if (errors_ == 0) protocol_checks();
    fmt::print("{}: {} cycles, {} pushes, {} pops, {} cycles full, {} mismatches\n", name_, cycle_, pushes, pops,
               full_cycles, errors_);
    return errors_;
  }

private:
  int uniform(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
  bool chance(double p) { return std::uniform_real_distribution<double>(0, 1)(rng_) < p; }
  Entry random_entry() {
    Entry e{};
    for (int i = 0; i < kMaxWords; ++i) {
      const int bits = std::min(32, Width - 32 * i);
      if (bits > 0) e[std::size_t(i)] = std::uint32_t(rng_()) & (bits == 32 ? ~0u : (1u << bits) - 1);
    }
    return e;
  }

  void fail(const std::string& what) {
    if (errors_++ < 5) fmt::print("MISMATCH {} cycle {}: {}\n", name_, cycle_, what);
  }

  // Outputs of this cycle (registers only) against the core.
  void compare() {
    if (bool(dut_->full_o) != core_.full()) fail(fmt::format("full_o {} expected {}", int(dut_->full_o), core_.full()));
    if (bool(dut_->empty_o) != core_.empty())
      fail(fmt::format("empty_o {} expected {}", int(dut_->empty_o), core_.empty()));
    if (int(dut_->count_o) != core_.count()) fail(fmt::format("count_o {} expected {}", int(dut_->count_o), core_.count()));
    if (!core_.empty()) {
      const Entry& want = core_.front();
      for (int i = 0; i * 32 < Width; ++i) {
        const int bits = std::min(32, Width - 32 * i);
        const std::uint64_t got = get_bits(dut_->rdata_o, 32 * i, bits);
        if (got != want[std::size_t(i)])
          fail(fmt::format("rdata_o word {}: {:#x} expected {:#x}", i, got, want[std::size_t(i)]));
      }
    }
    if (ctx_.gotError()) {
      fail("an assertion fired");
      ctx_.gotError(false);
      ctx_.gotFinish(false);
    }
  }

  void drive(bool push, bool pop, const Entry& e) {
    dut_->push_i = push;
    dut_->pop_i = pop;
    for (int i = 0; i * 32 < Width; ++i) put_bits(dut_->wdata_i, 32 * i, std::min(32, Width - 32 * i), e[std::size_t(i)]);
  }

  // One cycle: inputs, compare, clock edge in both models.
  void step(bool push, bool pop, const Entry& e) {
    drive(push, pop, e);
    dut_->clk_i = 0;
    dut_->eval();
    compare();
    core_.set_push(push, e);
    core_.set_pop(pop);
    core_.tick();
    ctx_.timeInc(1);
    dut_->clk_i = 1;
    dut_->eval();
  }

  // Asynchronous in the RTL, at once in the core; held over one clock edge.
  void reset() {
    drive(false, false, Entry{});
    dut_->rst_ni = 0;
    dut_->clk_i = 0;
    dut_->eval();
    core_.reset();
    compare();
    ctx_.timeInc(1);
    dut_->clk_i = 1;
    dut_->eval();
    dut_->rst_ni = 1;
    dut_->clk_i = 0;
    dut_->eval();
  }

  // One cycle with a request the core refuses: the RTL must report it with an assertion.
  void expect_violation(bool push, bool pop, const char* rule) {
    fmt::print("{}: {} (the assertion below is expected)\n", name_, rule);
    drive(push, pop, random_entry());
    dut_->clk_i = 0;
    dut_->eval();
    bool refused = false;
    try {
      core_.set_push(push, Entry{});
      core_.set_pop(pop);
      core_.tick();
    } catch (const hw::ProtocolError&) {
      refused = true;
    }
    ctx_.timeInc(1);
    dut_->clk_i = 1;
    dut_->eval();
    if (!refused) fail(fmt::format("the core accepted {}", rule));
#ifndef FLYCOL_NETLIST  // a Yosys netlist of fifo.sv (a check of how Yosys reads it) has no assertions
    if (!ctx_.gotError()) fail(fmt::format("no assertion for {}", rule));
#endif
    ctx_.gotError(false);
    ctx_.gotFinish(false);
  }

  void protocol_checks() {
    reset();
    expect_violation(false, true, "pop while empty");
    reset();
    for (int i = 0; i < Depth; ++i) step(true, false, random_entry());
    // Full: a push is refused even with a pop in the same cycle (the count is registered).
    expect_violation(true, true, "push while full and popping");
    reset();
    for (int i = 0; i < Depth; ++i) step(true, false, random_entry());
    expect_violation(true, false, "push while full");
    reset();
  }

  std::string name_;
  std::uint64_t cycles_, cycle_ = 0;
  std::mt19937_64 rng_;
  hw::Fifo<Entry, 64> core_;
  VerilatedContext ctx_;
  std::unique_ptr<V> dut_;
  int errors_ = 0;
};

}  // namespace

int main(int argc, char** argv) {
  std::uint64_t seed = 1, cycles = 1000000;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--seed" && i + 1 < argc) seed = std::strtoull(argv[++i], nullptr, 0);
    else if (a == "--cycles" && i + 1 < argc) cycles = std::strtoull(argv[++i], nullptr, 0);
    else if (a == "--long") cycles = 20000000;
    else {
      fmt::print(stderr, "usage: fifo_rtl_tb [--seed N] [--cycles N] [--long]\n");
      return 2;
    }
  }
  fmt::print("fifo_rtl_tb: seed {}, {} cycles per shape\n", seed, cycles);
  int errors = 0, shapes = 0;
  std::uint64_t sub = seed * 0x9E3779B97F4A7C15ull;
#define FLYCOL_RUN_SHAPE(V, W, D) \
  errors += Bench<V, W, D>(++sub, cycles).run(); \
  ++shapes;
  FLYCOL_RTL_SHAPES(FLYCOL_RUN_SHAPE)
#undef FLYCOL_RUN_SHAPE
  fmt::print("fifo_rtl_tb: {} - {} shapes, {} mismatches\n", errors ? "FAIL" : "PASS", shapes, errors);
  return errors ? 1 : 0;
}
