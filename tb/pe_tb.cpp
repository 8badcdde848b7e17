// Testbench of the processing element (hw/pe): six Pe modules (fp16, int8, int16, each with zero
// gating on and off) driven with random inputs every cycle, checked every cycle against a reference
// of docs/microarchitecture.md 9.5 written here, plus the swap-and-shift protocol check.
// Usage: pe_tb [--seed N] [--cycles N] [--long]
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <systemc>

#include "hw/common/protocol_error.h"
#include "hw/pe/pe.h"
#include "base/numerics/fp16.h"
#include "base/numerics/int_mac.h"

using namespace flycol;
using namespace flycol::hw;
using sc_core::sc_signal;

namespace {

// Random operands that reach the corners: zeros of both signs, subnormals, extremes, infinities
// and NaNs (canonical or not) for fp16; zeros, extremes and out-of-width garbage bits for ints.
class ValueGen {
public:
  explicit ValueGen(std::uint64_t seed) : rng_(seed) {}
  std::uint64_t bits(int n) { return n >= 64 ? rng_() : rng_() & ((1ull << n) - 1); }
  bool chance(double p) { return std::uniform_real_distribution<double>(0, 1)(rng_) < p; }
  int uniform(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }

  fp16::Bits half() {
    const int k = uniform(0, 99);
    const fp16::Bits sign = fp16::Bits(bits(1) << 15);
    if (k < 12) return sign;                                         // +-0
    if (k < 20) return fp16::Bits(sign | (1 + bits(10) % 0x3FF));      // subnormal
    if (k < 22) return fp16::Bits(sign | fp16::kMaxNormal);
    if (k < 24) return fp16::Bits(sign | fp16::kMinNormal);
    if (k < 26) return fp16::Bits(sign | fp16::kPosInf);
    if (k < 27) return fp16::kCanonicalNaN;
    if (k < 28) return fp16::Bits(sign | 0x7C00 | (1 + bits(10) % 0x3FF));  // any NaN
    // Normal numbers around 1 so that sums stay finite for a while.
    return fp16::Bits(sign | ((uniform(9, 20) << 10) | bits(10)));
  }
  // An element of `arith` on the 16-bit bus, sometimes with bits above the element width set.
  elem_t elem(Arithmetic arith) {
    if (arith == Arithmetic::fp16) return half();
    const int k = uniform(0, 99);
    std::uint32_t v;
    const int ew = arith == Arithmetic::int8 ? 8 : 16;
    if (k < 15) v = 0;
    else if (k < 20) v = 1u << (ew - 1);           // most negative
    else if (k < 25) v = (1u << (ew - 1)) - 1;     // most positive
    else v = std::uint32_t(bits(ew));
    if (ew == 8 && chance(0.1)) v |= std::uint32_t(bits(8)) << 8;  // garbage above the element
    return elem_t(v);
  }
  acc_t acc(Arithmetic arith) {
    if (arith == Arithmetic::fp16) {
      acc_t v = half();
      if (chance(0.05)) v |= acc_t(bits(16)) << 16;  // garbage above the accumulator
      return v;
    }
    const int k = uniform(0, 99);
    if (k < 10) return 0;
    if (k < 15) return 0x80000000u;
    if (k < 20) return 0x7FFFFFFFu;
    if (k < 40) return acc_t(std::int32_t(uniform(-100000, 100000)));
    return acc_t(bits(32));
  }

private:
  std::mt19937_64 rng_;
};

// The PE as the spec states it, register by register.
struct RefPe {
  HwParams p;
  elem_t a = 0, w = 0;
  bool valid = false, swap = false, window = false;
  acc_t acc = 0, res = 0;
  std::uint64_t macs = 0, gated = 0;               // since the last reset, like the PE's counters
  std::uint64_t total_macs = 0, total_gated = 0;   // over the whole run

  void reset() {
    const std::uint64_t tm = total_macs, tg = total_gated;
    *this = RefPe{p};
    total_macs = tm;
    total_gated = tg;
  }
  std::int32_t sext(elem_t v) const {
    return p.arithmetic == Arithmetic::int8 ? std::int32_t(std::int8_t(v & 0xFF)) : std::int32_t(std::int16_t(v));
  }
  void step(const PeIn& in) {
    const bool is_fp = p.arithmetic == Arithmetic::fp16;
    const elem_t ea = p.arithmetic == Arithmetic::int8 ? elem_t(in.a & 0xFF) : in.a;
    const elem_t ew = p.arithmetic == Arithmetic::int8 ? elem_t(in.w & 0xFF) : in.w;
    acc_t m = acc;
    if (in.valid) {
      ++macs;
      ++total_macs;
      bool zero;
      if (is_fp) {
        zero = fp16::is_zero(ea) || fp16::is_zero(ew);
        m = fp16::mac(ea, ew, fp16::Bits(acc), p.zero_gating);
      } else {
        zero = sext(ea) == 0 || sext(ew) == 0;
        m = acc_t(intmac::mac(sext(ea), sext(ew), std::int32_t(acc)));
      }
      if (zero && p.zero_gating) ++gated, ++total_gated;
    }
    const acc_t res_in = is_fp ? (in.res_in & 0xFFFF) : in.res_in;
    if (in.swap) {
      acc = res;
      res = m;
    } else {
      acc = m;
      if (in.shift) res = res_in;
    }
    a = ea;
    w = ew;
    valid = in.valid;
    swap = in.swap;
    window = in.window;
  }
};

struct Dut {
  std::string label;
  HwParams p;
  sc_signal<elem_t> a, w, a_o, w_o;
  sc_signal<bool> valid, swap, window, shift, valid_o, swap_o, window_o;
  sc_signal<acc_t> res, res_o, acc_o;
  std::unique_ptr<Pe> pe;
  RefPe ref;
  PeIn in;  // what is on the input signals this cycle
  ValueGen gen;
  double p_valid, p_swap, p_shift;
  std::uint64_t errors = 0, checks = 0;

  Dut(const std::string& name, const HwParams& hp, std::uint64_t seed)
      : label(name), p(hp), pe(new Pe(name.c_str(), hp)), ref{hp}, gen(seed) {
    pe->a_i(a); pe->w_i(w); pe->valid_i(valid); pe->swap_i(swap); pe->window_i(window);
    pe->res_i(res); pe->shift_i(shift);
    pe->a_o(a_o); pe->w_o(w_o); pe->valid_o(valid_o); pe->swap_o(swap_o); pe->window_o(window_o);
    pe->res_o(res_o); pe->acc_o(acc_o);
    p_valid = 0.3 + 0.6 * gen.chance(0.5);
    p_swap = gen.chance(0.5) ? 0.05 : 0.2;
    p_shift = gen.chance(0.5) ? 0.2 : 0.6;
  }

  template <class T>
  void expect(const char* what, T got, T want, std::uint64_t cycle) {
    ++checks;
    if (got == want) return;
    if (errors++ < 10)
      fmt::print("MISMATCH {} cycle {}: {} = {:#x}, expected {:#x}\n", label, cycle, what, std::uint64_t(got),
                 std::uint64_t(want));
  }
  void check(std::uint64_t cycle) {
    expect("a_o", a_o.read(), ref.a, cycle);
    expect("w_o", w_o.read(), ref.w, cycle);
    expect("valid_o", valid_o.read(), ref.valid, cycle);
    expect("swap_o", swap_o.read(), ref.swap, cycle);
    expect("window_o", window_o.read(), ref.window, cycle);
    expect("res_o", res_o.read(), ref.res, cycle);
    expect("acc_o", acc_o.read(), ref.acc, cycle);
  }
  void drive() {
    in.a = gen.elem(p.arithmetic);
    in.w = gen.elem(p.arithmetic);
    in.valid = gen.chance(p_valid);
    in.swap = gen.chance(p_swap);
    in.window = gen.chance(0.1);
    in.shift = !in.swap && gen.chance(p_shift);
    in.res_in = gen.acc(p.arithmetic);
    a.write(in.a); w.write(in.w); valid.write(in.valid); swap.write(in.swap); window.write(in.window);
    shift.write(in.shift); res.write(in.res_in);
  }
};

SC_MODULE(Harness) {
  sc_core::sc_in<bool> clk_i{"clk_i"};
  sc_signal<bool> rst_n{"rst_n"};
  std::vector<std::unique_ptr<Dut>> duts;
  std::mt19937_64 rng;
  std::uint64_t cycle = 0, limit = 0;
  bool forbid_next = false;  // the last cycle drives swap and shift together into duts[0]

  SC_HAS_PROCESS(Harness);
  Harness(sc_core::sc_module_name n, std::uint64_t seed) : sc_module(n), rng(seed ^ 0x5EED) {
    SC_METHOD(step);
    sensitive << clk_i.pos();
    dont_initialize();
  }

  void step() {
    // The outputs now on the signals are the registers of the cycle that ends at this edge; the
    // inputs now on the signals are what the PEs sample at this edge.
    const bool in_reset = !rst_n.read();
    for (auto& d : duts) {
      d->check(cycle);
      if (in_reset) d->ref.reset();
      else d->ref.step(d->in);
    }
    ++cycle;
    // Reset for the first 3 cycles, then now and then for one or two cycles.
    rst_n.write(cycle >= 3 && std::uniform_int_distribution<int>(0, 4999)(rng) != 0);
    for (auto& d : duts) d->drive();
    if (forbid_next) {
      rst_n.write(true);
      duts[0]->swap.write(true);
      duts[0]->shift.write(true);
    }
  }
};

}  // namespace

int sc_main(int argc, char* argv[]) {
  std::uint64_t seed = 1, cycles = 200000;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--seed" && i + 1 < argc) seed = std::strtoull(argv[++i], nullptr, 0);
    else if (arg == "--cycles" && i + 1 < argc) cycles = std::strtoull(argv[++i], nullptr, 0);
    else if (arg == "--long") cycles = 5000000;
    else {
      fmt::print(stderr, "usage: pe_tb [--seed N] [--cycles N] [--long]\n");
      return 2;
    }
  }
  fmt::print("pe_tb: seed {} cycles {}\n", seed, cycles);

  // The core alone must refuse swap and shift together.
  bool core_refuses = false;
  {
    PeCore core{HwParams{}};
    PeIn in;
    in.swap = in.shift = true;
    try {
      core.eval(in);
    } catch (const ProtocolError&) {
      core_refuses = true;
    }
  }

  sc_core::sc_clock clk("clk", 10, sc_core::SC_NS);
  Harness h("h", seed);
  h.clk_i(clk);
  const Arithmetic ariths[] = {Arithmetic::fp16, Arithmetic::int8, Arithmetic::int16};
  const char* names[] = {"fp16", "int8", "int16"};
  std::uint64_t sub = seed * 0x9E3779B97F4A7C15ull;
  for (int ai = 0; ai < 3; ++ai)
    for (int g = 0; g < 2; ++g) {
      HwParams p;
      p.arithmetic = ariths[ai];
      p.elem_bits = ariths[ai] == Arithmetic::int8 ? 8 : 16;
      p.acc_bits = ariths[ai] == Arithmetic::fp16 ? 16 : 32;
      p.zero_gating = g == 0;
      auto d = std::make_unique<Dut>(fmt::format("pe_{}_{}", names[ai], g == 0 ? "gated" : "ungated"), p, ++sub);
      d->pe->clk_i(clk);
      d->pe->rst_ni(h.rst_n);
      h.duts.push_back(std::move(d));
    }

  int rc = 0;
  try {
    sc_core::sc_start(sc_core::sc_time(10.0 * double(cycles), sc_core::SC_NS));
  } catch (const std::exception& e) {
    fmt::print("FAIL: exception during the random run: {}\n", e.what());
    rc = 1;
  }

  std::uint64_t errors = 0, checks = 0, macs = 0, gated = 0;
  for (auto& d : h.duts) {
    errors += d->errors;
    checks += d->checks;
    // Statistics since the last reset, when the counters restarted with the registers.
    if (d->pe->core().macs() != d->ref.macs || d->pe->core().gated() != d->ref.gated) {
      fmt::print("MISMATCH {} counters: macs {} gated {}, expected {} {}\n", d->label, d->pe->core().macs(),
                 d->pe->core().gated(), d->ref.macs, d->ref.gated);
      ++errors;
    }
    macs += d->ref.total_macs;
    gated += d->ref.total_gated;
  }

  // Last: swap and shift together must stop the simulation with an error.
  bool module_refuses = false;
  if (rc == 0) {
    sc_core::sc_report_handler::set_actions(sc_core::SC_ERROR, sc_core::SC_THROW);
    h.forbid_next = true;
    try {
      sc_core::sc_start(sc_core::sc_time(30, sc_core::SC_NS));
    } catch (const sc_core::sc_report& r) {
      module_refuses = std::strstr(r.what(), "swap and shift") != nullptr;
    } catch (const std::exception& e) {
      module_refuses = std::strstr(e.what(), "swap and shift") != nullptr;
    }
  }
  if (!core_refuses || !module_refuses) {
    fmt::print("FAIL: swap and shift together not refused (core {}, module {})\n", core_refuses, module_refuses);
    rc = 1;
  }
  if (errors) rc = 1;
  fmt::print("pe_tb: {} - seed {}, {} PEs x {} cycles, {} checks, {} MACs ({} gated), {} mismatches\n",
             rc ? "FAIL" : "PASS", seed, h.duts.size(), h.cycle, checks, macs, gated, errors);
  return rc;
}
