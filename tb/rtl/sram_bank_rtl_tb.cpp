// Lockstep testbench of sram_bank.sv against its C++ twin hw::SramBank (hw/common/sram_bank.h),
// for every shape Verilated by hw/common/rtl.cmake: random reads and masked writes over a few hot
// addresses and the whole range, idle stretches, resets; rdata_o compared every cycle; then an
// address past the end must fire the assertion (shapes whose depth is not a power of two).
// Usage: sram_bank_rtl_tb [--seed N] [--cycles N] [--long]  (500 k / 10 M cycles per shape)
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "hw/common/protocol_error.h"
#include "hw/common/sram_bank.h"
#include "sram_bank_rtl_tb_shapes.h"
#include "tb/common/verilator.h"

using namespace flycol;
using flycol::tb::get_elem;
using flycol::tb::put_elem;

namespace {

template <class V, int Depth, int ElemBits, int Elems>
class Bench {
public:
  Bench(std::uint64_t seed, std::uint64_t cycles)
      : name_(fmt::format("sram_bank {}x{}x{}", Depth, ElemBits, Elems)), cycles_(cycles), rng_(seed),
        core_("sram_bank", Depth, Elems) {
    ctx_.fatalOnError(false);  // an assertion sets gotError(); the testbench decides
    dut_ = std::make_unique<V>(&ctx_);
    for (int i = 0; i < 4; ++i) hot_[i] = uniform(0, Depth - 1);
  }

  int run() {
    reset();
    std::uint64_t reads = 0, writes = 0;
    double p_req = 0.5, p_we = 0.5;
    for (cycle_ = 0; cycle_ < cycles_ && errors_ == 0; ++cycle_) {
      if (uniform(0, 199) == 0) {
        const double rates[] = {0.0, 0.2, 0.5, 0.9, 1.0};
        p_req = rates[uniform(0, 4)];
        p_we = rates[uniform(1, 3)];
      }
      if (uniform(0, 9999) == 0) {
        reset();
        continue;
      }
      Req q;
      q.req = chance(p_req);
      q.we = chance(p_we);
      // Mostly a few hot addresses, so that reads see recent masked writes.
      q.addr = chance(0.7) ? hot_[uniform(0, 3)] : uniform(0, Depth - 1);
      random_data(q);
      step(q);
      reads += q.req && !q.we;
      writes += q.req && q.we;
    }
    if (errors_ == 0) protocol_checks();
    fmt::print("{}: {} cycles, {} reads, {} writes (core counted {} / {}), {} mismatches\n", name_, cycle_, reads,
               writes, core_.reads(), core_.writes(), errors_);
    return errors_;
  }

private:
  struct Req {
    bool req = false, we = false;
    int addr = 0;
    std::uint32_t data[Elems]{};
    std::uint64_t mask = 0;
  };

  int uniform(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
  bool chance(double p) { return std::uniform_real_distribution<double>(0, 1)(rng_) < p; }
  void random_data(Req& q) {
    const std::uint64_t emask = ElemBits >= 64 ? ~0ull : (1ull << ElemBits) - 1;
    for (int e = 0; e < Elems; ++e) q.data[e] = std::uint32_t(rng_() & emask);
    const int k = uniform(0, 3);
    q.mask = k == 0 ? ~0ull : k == 1 ? 0ull : rng_();
    if (Elems < 64) q.mask &= (1ull << Elems) - 1;
  }

  void fail(const std::string& what) {
    if (errors_++ < 5) fmt::print("MISMATCH {} cycle {}: {}\n", name_, cycle_, what);
  }

  void compare() {
    const hw::word_elem_t* want = core_.rdata();
    for (int e = 0; e < Elems; ++e) {
      const std::uint64_t got = get_elem(dut_->rdata_o, e, ElemBits);
      if (got != want[e]) fail(fmt::format("rdata_o element {}: {:#x} expected {:#x}", e, got, want[e]));
    }
    if (ctx_.gotError()) {
      fail("an assertion fired");
      ctx_.gotError(false);
      ctx_.gotFinish(false);
    }
  }

  void drive(const Req& q) {
    dut_->req_i = q.req;
    dut_->we_i = q.we;
    dut_->addr_i = std::uint32_t(q.addr);
    for (int e = 0; e < Elems; ++e) put_elem(dut_->wdata_i, e, ElemBits, q.data[e]);
    for (int e = 0; e < Elems; ++e) put_elem(dut_->wmask_i, e, 1, (q.mask >> e) & 1u);
  }

  // Issues the request to the core; false if the core refuses it.
  bool request(const Req& q) {
    try {
      if (q.req && q.we) core_.write(hw::SramBank::kTestbench, q.addr, q.data, q.mask);
      else if (q.req) core_.read(hw::SramBank::kTestbench, q.addr);
    } catch (const hw::ProtocolError&) {
      return false;
    }
    return true;
  }

  void step(const Req& q) {
    drive(q);
    dut_->clk_i = 0;
    dut_->eval();
    compare();
    if (!request(q)) fail("the core refused an in-range request");
    core_.tick();
    ctx_.timeInc(1);
    dut_->clk_i = 1;
    dut_->eval();
  }

  // Neither the bank nor hw::SramBank resets anything (contents and rdata_o survive); the reset
  // only masks the assertions, and the comparison goes on through it.
  void reset() {
    drive(Req{});
    dut_->rst_ni = 0;
    dut_->clk_i = 0;
    dut_->eval();
    compare();
    core_.tick();
    ctx_.timeInc(1);
    dut_->clk_i = 1;
    dut_->eval();
    dut_->rst_ni = 1;
    dut_->clk_i = 0;
    dut_->eval();
  }

  void protocol_checks() {
    if (Depth > 1 && (Depth & (Depth - 1)) != 0) {
      // The address port reaches past the end: reading or writing there is refused.
      for (int we = 0; we < 2; ++we) {
        Req q;
        q.req = true;
        q.we = we != 0;
        q.addr = Depth + uniform(0, (1 << addr_bits()) - 1 - Depth);
        random_data(q);
        fmt::print("{}: {} at address {} (the assertion below is expected)\n", name_, q.we ? "write" : "read", q.addr);
        drive(q);
        dut_->clk_i = 0;
        dut_->eval();
        const bool refused = !request(q);
        core_.tick();
        ctx_.timeInc(1);
    dut_->clk_i = 1;
        dut_->eval();
        if (!refused) fail("the core accepted an address past the end");
#ifndef FLYCOL_NETLIST  // a Yosys netlist of sram_bank.sv has no assertions
        if (!ctx_.gotError()) fail(fmt::format("no assertion for address {} (depth {})", q.addr, Depth));
#endif
        ctx_.gotError(false);
        ctx_.gotFinish(false);
      }
    }
  }

  static int addr_bits() {
    int b = 1;
    while ((1 << b) < Depth) ++b;
    return b;
  }

  std::string name_;
  std::uint64_t cycles_, cycle_ = 0;
  std::mt19937_64 rng_;
  hw::SramBank core_;
  VerilatedContext ctx_;
  std::unique_ptr<V> dut_;
  int hot_[4]{};
  int errors_ = 0;
};

}  // namespace

int main(int argc, char** argv) {
  std::uint64_t seed = 1, cycles = 500000;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--seed" && i + 1 < argc) seed = std::strtoull(argv[++i], nullptr, 0);
    else if (a == "--cycles" && i + 1 < argc) cycles = std::strtoull(argv[++i], nullptr, 0);
    else if (a == "--long") cycles = 10000000;
    else {
      fmt::print(stderr, "usage: sram_bank_rtl_tb [--seed N] [--cycles N] [--long]\n");
      return 2;
    }
  }
  fmt::print("sram_bank_rtl_tb: seed {}, {} cycles per shape\n", seed, cycles);
  int errors = 0, shapes = 0;
  std::uint64_t sub = seed * 0x9E3779B97F4A7C15ull;
#define FLYCOL_RUN_SHAPE(V, D, EB, E) \
  errors += Bench<V, D, EB, E>(++sub, cycles).run(); \
  ++shapes;
  FLYCOL_RTL_SHAPES(FLYCOL_RUN_SHAPE)
#undef FLYCOL_RUN_SHAPE
  fmt::print("sram_bank_rtl_tb: {} - {} shapes, {} mismatches\n", errors ? "FAIL" : "PASS", shapes, errors);
  return errors ? 1 : 0;
}
