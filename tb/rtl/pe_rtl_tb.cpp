// Lockstep testbench of pe.sv against its C++ twin PeCore (hw/pe/pe_core.h) for one configuration
// (built once per configuration by hw/pe/CMakeLists.txt): random operands that reach every fp16
// corner (zeros of both signs, subnormals, extremes, infinities, NaNs of any payload) or integer
// extreme, random flags in phases of random rates, shifts, resets; all eight outputs compared
// every cycle (gated_o against the core's gated counter); then swap+shift must fire the assertion.
// Usage: pe_rtl_tb [--config NAME|FILE] [--seed N] [--cycles N] [--long]  (4 M / 50 M cycles)
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <random>
#include <string>

#include <fmt/format.h>

#include FLYCOL_VTOP_HEADER
#include "hw/common/hw_params.h"
#include "hw/common/protocol_error.h"
#include "hw/pe/pe_core.h"
#include "sim/config/config.h"
#include "base/numerics/fp16.h"
#include "sim/config/config_keys.h"

using namespace flycol;
using namespace flycol::hw;

namespace {

class ValueGen {
public:
  explicit ValueGen(std::uint64_t seed) : rng_(seed) {}
  std::uint64_t bits(int n) { return n >= 64 ? rng_() : rng_() & ((1ull << n) - 1); }
  bool chance(double p) { return std::uniform_real_distribution<double>(0, 1)(rng_) < p; }
  int uniform(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }

  fp16::Bits half() {
    const int k = uniform(0, 99);
    const fp16::Bits sign = fp16::Bits(bits(1) << 15);
    if (k < 12) return sign;                                              // +-0
    if (k < 20) return fp16::Bits(sign | (1 + bits(10) % 0x3FF));         // subnormal
    if (k < 22) return fp16::Bits(sign | fp16::kMaxNormal);
    if (k < 24) return fp16::Bits(sign | fp16::kMinNormal);
    if (k < 26) return fp16::Bits(sign | fp16::kPosInf);
    if (k < 27) return fp16::kCanonicalNaN;
    if (k < 28) return fp16::Bits(sign | 0x7C00 | (1 + bits(10) % 0x3FF));  // NaN, any payload
    if (k < 33) return fp16::Bits(sign | (uniform(1, 30) << 10) | bits(10));  // any normal
    return fp16::Bits(sign | ((uniform(9, 20) << 10) | bits(10)));  // around 1: sums stay finite a while
  }
  // An operand on the 16-bit bus of the core, sometimes with bits above an int8 element set (the
  // core drops them; the RTL port does not have them).
  elem_t elem(Arithmetic arith) {
    if (arith == Arithmetic::fp16) return half();
    const int ew = arith == Arithmetic::int8 ? 8 : 16;
    const int k = uniform(0, 99);
    std::uint32_t v;
    if (k < 15) v = 0;
    else if (k < 20) v = 1u << (ew - 1);
    else if (k < 25) v = (1u << (ew - 1)) - 1;
    else if (k < 35) v = std::uint32_t(uniform(-3, 3)) & ((1u << ew) - 1);  // small, either sign
    else v = std::uint32_t(bits(ew));
    if (ew == 8 && chance(0.1)) v |= std::uint32_t(bits(8)) << 8;
    return elem_t(v);
  }
  acc_t acc(Arithmetic arith) {
    if (arith == Arithmetic::fp16) {
      acc_t v = half();
      if (chance(0.05)) v |= acc_t(bits(16)) << 16;  // above the 16-bit accumulator
      return v;
    }
    const int k = uniform(0, 99);
    if (k < 10) return 0;
    if (k < 15) return 0x80000000u;
    if (k < 20) return 0x7FFFFFFFu;
    if (k < 25) return 0x7FFFFFFFu - acc_t(uniform(0, 40000));  // near saturation
    if (k < 30) return 0x80000000u + acc_t(uniform(0, 40000));
    if (k < 50) return acc_t(std::int32_t(uniform(-100000, 100000)));
    return acc_t(bits(32));
  }

private:
  std::mt19937_64 rng_;
};

const char* arith_name(Arithmetic a) {
  return a == Arithmetic::fp16 ? "fp16" : a == Arithmetic::int8 ? "int8" : "int16";
}

class Bench {
public:
  Bench(const HwParams& p, std::uint64_t seed)
      : p_(p), core_(p), gen_(seed), elem_mask_(p.elem_bits == 8 ? 0xFFu : 0xFFFFu),
        acc_mask_(p.acc_bits == 16 ? 0xFFFFu : 0xFFFFFFFFu) {
    ctx_.fatalOnError(false);  // an assertion sets gotError(); the testbench decides
    dut_ = std::make_unique<FLYCOL_VTOP>(&ctx_);
  }

  int run(std::uint64_t cycles) {
    reset();
    for (cycle_ = 0; cycle_ < cycles && errors_ == 0; ++cycle_) {
      if (gen_.uniform(0, 499) == 0) new_phase();
      if (gen_.uniform(0, 9999) == 0) {
        reset();
        continue;
      }
      PeIn in;
      in.a = gen_.elem(p_.arithmetic);
      in.w = gen_.elem(p_.arithmetic);
      if (gen_.chance(p_zero_)) (gen_.chance(0.5) ? in.a : in.w) = zero();
      in.valid = gen_.chance(p_valid_);
      in.swap = gen_.chance(p_swap_);
      in.window = gen_.chance(0.1);
      in.shift = !in.swap && gen_.chance(p_shift_);
      in.res_in = gen_.acc(p_.arithmetic);
      step(in);
    }
    if (errors_ == 0) protocol_check();
    fmt::print("pe_rtl_tb [{}]: {} {} gating, {} cycles, {} checks, {} MACs ({} gated), {} swaps, {} shifts, "
               "{} resets, {} mismatches\n",
               FLYCOL_RTL_CONFIG, arith_name(p_.arithmetic), p_.zero_gating ? "with" : "without", cycle_, checks_,
               total_macs_, total_gated_, swaps_, shifts_, resets_, errors_);
    return errors_;
  }

private:
  // A zero operand: +-0 in fp16, 0 for the integers (with garbage above an int8 element).
  elem_t zero() {
    if (p_.arithmetic == Arithmetic::fp16) return elem_t(gen_.bits(1) << 15);
    return p_.arithmetic == Arithmetic::int8 ? elem_t(gen_.bits(8) << 8) : elem_t(0);
  }

  void new_phase() {
    const double valid[] = {0.0, 0.3, 0.9, 1.0};
    const double swap[] = {0.0, 0.02, 0.2};
    const double shift[] = {0.0, 0.2, 0.6, 1.0};
    p_valid_ = valid[gen_.uniform(0, 3)];
    p_swap_ = swap[gen_.uniform(0, 2)];
    p_shift_ = shift[gen_.uniform(0, 3)];
    p_zero_ = gen_.chance(0.5) ? 0.0 : 0.3;
  }

  template <class T>
  void expect(const char* what, T got, T want) {
    ++checks_;
    if (got == want) return;
    if (errors_++ < 10)
      fmt::print("MISMATCH [{}] cycle {}: {} = {:#x}, expected {:#x}\n", FLYCOL_RTL_CONFIG, cycle_, what,
                 std::uint64_t(got), std::uint64_t(want));
  }

  // Outputs of this cycle: all registers, so the inputs of this cycle do not matter.
  void compare() {
    expect("a_o", std::uint32_t(dut_->a_o), std::uint32_t(core_.a_q()));
    expect("w_o", std::uint32_t(dut_->w_o), std::uint32_t(core_.w_q()));
    expect("valid_o", bool(dut_->valid_o), core_.valid_q());
    expect("swap_o", bool(dut_->swap_o), core_.swap_q());
    expect("window_o", bool(dut_->window_o), core_.window_q());
    expect("res_o", std::uint32_t(dut_->res_o), std::uint32_t(core_.res_q()));
    expect("acc_o", std::uint32_t(dut_->acc_o), std::uint32_t(core_.acc_q()));
    // gated_o pulses once for each increment of the core's counter (both at the same edge).
    expect("gated_o", bool(dut_->gated_o), core_.gated() != gated_seen_);
    gated_seen_ = core_.gated();
    if (ctx_.gotError()) {
      if (errors_++ < 10) fmt::print("MISMATCH [{}] cycle {}: an assertion fired\n", FLYCOL_RTL_CONFIG, cycle_);
      ctx_.gotError(false);
      ctx_.gotFinish(false);
    }
  }

  void drive(const PeIn& in) {
    dut_->a_i = in.a & elem_mask_;
    dut_->w_i = in.w & elem_mask_;
    dut_->valid_i = in.valid;
    dut_->swap_i = in.swap;
    dut_->window_i = in.window;
    dut_->res_i = in.res_in & acc_mask_;
    dut_->shift_i = in.shift;
  }

  void edge() {
    ctx_.timeInc(1);
    dut_->clk_i = 1;
    dut_->eval();
    ctx_.timeInc(1);
    dut_->clk_i = 0;
  }

  void step(const PeIn& in) {
    drive(in);
    dut_->eval();
    compare();
    const std::uint64_t macs = core_.macs(), gated = core_.gated();
    core_.eval(in);  // the core gets the bits above the element and accumulator widths too
    core_.tick();
    total_macs_ += core_.macs() - macs;
    total_gated_ += core_.gated() - gated;
    swaps_ += in.swap;
    shifts_ += in.shift;
    edge();
  }

  // Asynchronous in the RTL, at once in the core: compared while held, then one edge in reset.
  void reset() {
    drive(PeIn{});
    dut_->rst_ni = 0;
    dut_->eval();
    core_.reset();
    gated_seen_ = 0;
    compare();
    edge();
    dut_->rst_ni = 1;
    dut_->eval();
    ++resets_;
  }

  void protocol_check() {
    PeIn in;
    in.swap = in.shift = true;
    drive(in);
    dut_->eval();
    bool refused = false;
    try {
      core_.eval(in);
    } catch (const ProtocolError&) {
      refused = true;
    }
    fmt::print("pe_rtl_tb: swap and shift together (the assertion below is expected):\n");
    edge();
    if (!refused || !ctx_.gotError()) {
      ++errors_;
      fmt::print("MISMATCH [{}]: swap and shift together not refused (core {}, RTL assertion {})\n",
                 FLYCOL_RTL_CONFIG, refused, ctx_.gotError());
    }
    ctx_.gotError(false);
    ctx_.gotFinish(false);
  }

  HwParams p_;
  PeCore core_;
  ValueGen gen_;
  std::uint32_t elem_mask_, acc_mask_;
  VerilatedContext ctx_;
  std::unique_ptr<FLYCOL_VTOP> dut_;
  double p_valid_ = 0.9, p_swap_ = 0.05, p_shift_ = 0.3, p_zero_ = 0.0;
  std::uint64_t cycle_ = 0, checks_ = 0, gated_seen_ = 0;
  std::uint64_t total_macs_ = 0, total_gated_ = 0, swaps_ = 0, shifts_ = 0, resets_ = 0;
  int errors_ = 0;
};

}  // namespace

int main(int argc, char** argv) {
  std::uint64_t seed = 1, cycles = 4000000;
  std::string config = FLYCOL_RTL_CONFIG;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--seed" && i + 1 < argc) seed = std::strtoull(argv[++i], nullptr, 0);
    else if (a == "--cycles" && i + 1 < argc) cycles = std::strtoull(argv[++i], nullptr, 0);
    else if (a == "--config" && i + 1 < argc) config = argv[++i];
    else if (a == "--long") cycles = 50000000;
    else {
      fmt::print(stderr, "usage: pe_rtl_tb [--config NAME|FILE] [--seed N] [--cycles N] [--long]\n");
      return 2;
    }
  }
  HwParams p;
  try {
    p = flycol::hardware_params(load_config_by_name_or_path(config));
  } catch (const std::exception& e) {
    fmt::print(stderr, "pe_rtl_tb: {}\n", e.what());
    return 2;
  }
  fmt::print("pe_rtl_tb [{}]: configuration {}, seed {}, {} cycles\n", FLYCOL_RTL_CONFIG, config, seed, cycles);
  Bench b(p, seed * 0x9E3779B97F4A7C15ull + 1);
  const int errors = b.run(cycles);
  fmt::print("pe_rtl_tb [{}]: {}\n", FLYCOL_RTL_CONFIG, errors ? "FAIL" : "PASS");
  return errors ? 1 : 0;
}
