// Testbench of the processing element (docs/microarchitecture.md 9.5), one for all three views:
// random operands that reach every fp16 corner or integer extreme, random flags and shift banks in
// phases of random rates, resets; every output checked every cycle against a reference written here
// (its MACs are the golden model's, sim/golden/fp16_exact.h and int_exact.h: no code of the PE's);
// then a swap and a shift of the same reserve bank together must be refused. Built twice from this file (see hw/pe/CMakeLists.txt):
//   pe_tb [--view core|sc] [--seed N] [--cycles N] [--long]   the C++ core and the SystemC module,
//         each on fp16, int8 and int16 with zero gating on and off (200 k / 5 M cycles each)
//   pe_rtl_tb_<cfg> [--config NAME|FILE] [--seed N] [--cycles N] [--long]   pe.sv Verilated for
//         one configuration (FLYCOL_VTOP defined; 4 M / 50 M cycles)
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "hw/common/hw_params.h"
#include "hw/common/protocol_error.h"
#include "base/numerics/fp16.h"  // stimulus constants only: the reference MACs are the golden model's
#include "sim/golden/fp16_exact.h"
#include "sim/golden/int_exact.h"
#include "hw/pe/pe_core.h"  // PeIn, the inputs of one cycle (the RTL view links no core)
#include "tb/common/bench_main.h"

#include "tb/common/views.h"
#ifndef FLYCOL_VTOP
#include "hw/pe/pe.h"
#endif

using namespace flycol;
using namespace flycol::hw;

namespace {

// ---------------------------------------------------------------------------------------------
// Stimulus

// Random operands that reach the corners: zeros of both signs, subnormals, extremes, infinities
// and NaNs of any payload for fp16; zeros, extremes, small values of either sign and bits above
// an int8 element for the integers.
class ValueGen {
public:
  explicit ValueGen(std::uint64_t seed) : r(seed) {}
  tb::Rand r;

  fp16::Bits half() {
    const int k = r.uniform(0, 99);
    const fp16::Bits sign = fp16::Bits(r.bits(1) << 15);
    if (k < 12) return sign;                                                   // +-0
    if (k < 20) return fp16::Bits(sign | (1 + r.bits(10) % 0x3FF));            // subnormal
    if (k < 22) return fp16::Bits(sign | fp16::kMaxNormal);
    if (k < 24) return fp16::Bits(sign | fp16::kMinNormal);
    if (k < 26) return fp16::Bits(sign | fp16::kPosInf);
    if (k < 27) return fp16::kCanonicalNaN;
    if (k < 28) return fp16::Bits(sign | 0x7C00 | (1 + r.bits(10) % 0x3FF));   // NaN, any payload
    if (k < 33) return fp16::Bits(sign | (r.uniform(1, 30) << 10) | r.bits(10));  // any normal
    return fp16::Bits(sign | ((r.uniform(9, 20) << 10) | r.bits(10)));  // around 1: sums stay finite a while
  }
  // An operand on the 16-bit bus, sometimes with bits above an int8 element set (the core and the
  // SystemC module drop them; the RTL port does not have them).
  elem_t elem(Arithmetic arith) {
    if (arith == Arithmetic::fp16) return half();
    const int ew = arith == Arithmetic::int8 ? 8 : 16;
    const int k = r.uniform(0, 99);
    std::uint32_t v;
    if (k < 15) v = 0;
    else if (k < 20) v = 1u << (ew - 1);                                        // most negative
    else if (k < 25) v = (1u << (ew - 1)) - 1;                                  // most positive
    else if (k < 35) v = std::uint32_t(r.uniform(-3, 3)) & ((1u << ew) - 1);    // small, either sign
    else v = std::uint32_t(r.bits(ew));
    if (ew == 8 && r.chance(0.1)) v |= std::uint32_t(r.bits(8)) << 8;           // garbage above
    return elem_t(v);
  }
  // fp16 operands whose product lies just inside half an ulp of the accumulator c: a*w =
  // +-ulp(c)/2 * (1 - 2^-14), with a = 1 + 2^-7 and w = (1 - 2^-7) * ulp(c)/2. The exact sum is a
  // hair from a tie, closer than a float's precision: an FMA that rounds twice (to float, then to
  // binary16) lands on the tie and, for an odd c, rounds the wrong way. Random operands reach such
  // a case about once in 10^5 MACs; this draws it on purpose. Leaves a, w alone for other c.
  void near_tie(fp16::Bits c, elem_t& a, elem_t& w) {
    const int field = (c >> 10) & 0x1F;
    if (field < 13 || field > 30) return;  // w must be a normal half
    a = elem_t(0x3C08 | (r.bits(1) << 15));
    w = elem_t((r.bits(1) << 15) | ((field - 12) << 10) | 0x3F0);
  }
  // A zero operand: +-0 in fp16, 0 for the integers (with garbage above an int8 element).
  elem_t zero(Arithmetic arith) {
    if (arith == Arithmetic::fp16) return elem_t(r.bits(1) << 15);
    return arith == Arithmetic::int8 ? elem_t(r.bits(8) << 8) : elem_t(0);
  }
  acc_t acc(Arithmetic arith) {
    if (arith == Arithmetic::fp16) {
      acc_t v = half();
      if (r.chance(0.05)) v |= acc_t(r.bits(16)) << 16;  // above the 16-bit accumulator
      return v;
    }
    const int k = r.uniform(0, 99);
    if (k < 10) return 0;
    if (k < 15) return 0x80000000u;
    if (k < 20) return 0x7FFFFFFFu;
    if (k < 25) return 0x7FFFFFFFu - acc_t(r.uniform(0, 40000));  // near saturation
    if (k < 30) return 0x80000000u + acc_t(r.uniform(0, 40000));
    if (k < 50) return acc_t(std::int32_t(r.uniform(-100000, 100000)));
    return acc_t(r.bits(32));
  }
};

// ---------------------------------------------------------------------------------------------
// Reference: the PE as the spec states it, register by register (shares nothing with PeCore).

struct PeOut {
  elem_t a = 0, w = 0;
  bool valid = false, swap = false, window = false;
  acc_t res = 0, acc = 0;  // res: the chain output, the bank that shift_bank_i selects
  bool gated = false;  // the MAC step of the previous cycle was gated
};

struct RefPe {
  explicit RefPe(const HwParams& hp) : p(hp) {}
  HwParams p;
  PeOut q;
  acc_t res[2] = {0, 0};  // the reserve banks
  int bank = 0;           // the bank the next swap uses
  std::uint64_t macs = 0, gated = 0;              // since the last reset, like the PE's counters
  std::uint64_t total_macs = 0, total_gated = 0;  // over the whole run

  void reset() {
    q = PeOut{};
    res[0] = res[1] = 0;
    bank = 0;
    macs = gated = 0;
  }
  // The outputs while shift_bank_i is `shift_bank` (res_o is the only one that is not a register).
  PeOut out(int shift_bank) const {
    PeOut o = q;
    o.res = res[shift_bank];
    return o;
  }
  std::int32_t sext(elem_t v) const {
    return p.arithmetic == Arithmetic::int8 ? std::int32_t(std::int8_t(v & 0xFF)) : std::int32_t(std::int16_t(v));
  }
  void step(const PeIn& in) {
    const bool is_fp = p.arithmetic == Arithmetic::fp16;
    const elem_t ea = p.arithmetic == Arithmetic::int8 ? elem_t(in.a & 0xFF) : in.a;
    const elem_t ew = p.arithmetic == Arithmetic::int8 ? elem_t(in.w & 0xFF) : in.w;
    acc_t m = q.acc;
    bool gate = false;
    if (in.valid) {
      ++macs;
      ++total_macs;
      bool zero;
      if (is_fp) {
        zero = golden::half::zero(ea) || golden::half::zero(ew);
        m = golden::half::mac(ea, ew, golden::half::Bits(q.acc), p.zero_gating);
      } else {
        zero = sext(ea) == 0 || sext(ew) == 0;
        m = acc_t(golden::int_mac(sext(ea), sext(ew), std::int32_t(q.acc)));
      }
      gate = zero && p.zero_gating;
      if (gate) ++gated, ++total_gated;
    }
    const acc_t res_in = is_fp ? (in.res_in & 0xFFFF) : in.res_in;
    if (in.swap) {
      q.acc = res[bank];
      res[bank] = m;
    } else {
      q.acc = m;
    }
    if (in.shift) res[in.shift_bank] = res_in;
    if (in.window) bank = 1 - bank;
    q.a = ea;
    q.w = ew;
    q.valid = in.valid;
    q.swap = in.swap;
    q.window = in.window;
    q.gated = gate;
  }
};

// ---------------------------------------------------------------------------------------------
// Scoreboard and the run, the same for every view. A view offers:
//   drive(in, rst_n)  the inputs of this cycle;       out()   the registered outputs now;
//   settle()          applies the inputs without an edge;     edge()  one rising clock edge;
//   fault()           an assertion fired (RTL);               kAsyncReset  reset acts before the edge;
//   counters(m, g)    the MAC/gated statistics, if the view has them;
//   refuses_swap_and_shift(log)  drives both (last act of a run: the view is unusable after it).

const char* arith_name(Arithmetic a) {
  return a == Arithmetic::fp16 ? "fp16" : a == Arithmetic::int8 ? "int8" : "int16";
}

void compare(tb::MismatchLog& log, const PeOut& got, const PeOut& want) {
  log.expect("a_o", got.a, want.a);
  log.expect("w_o", got.w, want.w);
  log.expect("valid_o", got.valid, want.valid);
  log.expect("swap_o", got.swap, want.swap);
  log.expect("window_o", got.window, want.window);
  log.expect("res_o", got.res, want.res);
  log.expect("acc_o", got.acc, want.acc);
  log.expect("gated_o", got.gated, want.gated);
}

struct Figures {
  std::uint64_t cycles = 0, macs = 0, gated = 0, swaps = 0, shifts = 0, swap_shifts = 0, resets = 0;
};

template <class View>
void run_pe(View& v, const HwParams& p, std::uint64_t seed, std::uint64_t cycles, tb::MismatchLog& log,
            Figures& fig) {
  ValueGen gen(seed);
  RefPe ref(p);
  double p_valid = 0.9, p_swap = 0.05, p_shift = 0.3, p_zero = 0.0;
  int reset_left = 3;  // reset for the first 3 cycles, then now and then for one or two
  int shift_bank = 0;  // shift_bank_i as driven last (res_o follows it)
  std::uint64_t c = 0;
  try {
    for (; c < cycles && log.errors() < std::uint64_t(tb::MismatchLog::kMaxReported); ++c) {
      log.at(c);
      // The outputs now are the registers of the cycle that ends at the next edge (unknown before
      // the first reset, which cycle 0 is).
      if (c > 0) compare(log, v.out(), ref.out(shift_bank));
      if (v.fault()) log.fail("an assertion fired");
      if (gen.r.uniform(0, 499) == 0) {  // a new phase of flag rates
        p_valid = gen.r.pick({0.0, 0.3, 0.9, 1.0});
        p_swap = gen.r.pick({0.0, 0.02, 0.05, 0.2});
        p_shift = gen.r.pick({0.0, 0.2, 0.6, 1.0});
        p_zero = gen.r.chance(0.5) ? 0.0 : 0.3;
      }
      if (reset_left == 0 && gen.r.uniform(0, 4999) == 0) reset_left = gen.r.uniform(1, 2);
      PeIn in;
      in.a = gen.elem(p.arithmetic);
      in.w = gen.elem(p.arithmetic);
      if (p.arithmetic == Arithmetic::fp16 && gen.r.chance(0.05)) gen.near_tie(fp16::Bits(ref.q.acc), in.a, in.w);
      if (gen.r.chance(p_zero)) (gen.r.chance(0.5) ? in.a : in.w) = gen.zero(p.arithmetic);
      in.valid = gen.r.chance(p_valid);
      in.swap = gen.r.chance(p_swap);
      in.window = gen.r.chance(0.1);
      in.shift_bank = gen.r.chance(0.5) ? 1 : 0;
      // A swap and a shift together only on different banks (short contexts do that).
      in.shift = !(in.swap && in.shift_bank == ref.bank) && gen.r.chance(p_shift);
      shift_bank = in.shift_bank;
      in.res_in = gen.acc(p.arithmetic);
      const bool rst_n = reset_left == 0;
      v.drive(in, rst_n);
      log.note("rst_n {} a {:#x} w {:#x} valid {} swap {} window {} shift {} shift_bank {} res_i {:#x}", rst_n,
               in.a, in.w, in.valid, in.swap, in.window, in.shift, in.shift_bank, in.res_in);
      if (!rst_n) {
        --reset_left;
        ++fig.resets;
        ref.reset();
        if (View::kAsyncReset) {  // the registers clear while reset is held, before the edge
          v.settle();
          compare(log, v.out(), ref.out(shift_bank));
        }
      } else {
        ref.step(in);
        fig.swaps += in.swap;
        fig.shifts += in.shift;
        fig.swap_shifts += in.swap && in.shift;
      }
      v.edge();
    }
    log.at(c);
    compare(log, v.out(), ref.out(shift_bank));
  } catch (const std::exception& e) {
    log.fail("exception: {}", e.what());
  }
  // Statistics since the last reset, when the counters restarted with the registers.
  std::uint64_t macs = 0, gated = 0;
  if (v.counters(macs, gated)) {
    log.expect("macs counter", macs, ref.macs);
    log.expect("gated counter", gated, ref.gated);
  }
  fig.cycles += c;
  fig.macs += ref.total_macs;
  fig.gated += ref.total_gated;
}

// ---------------------------------------------------------------------------------------------
// Views

#ifdef FLYCOL_VTOP

// pe.sv, Verilated for one configuration. Its ports are exactly the element and accumulator
// widths, so the bits above them are dropped here.
class RtlView {
public:
  static constexpr bool kAsyncReset = true;
  RtlView(const HwParams& p, std::uint64_t seed)
      : dut_(seed),
        elem_mask_(p.elem_bits == 8 ? 0xFFu : 0xFFFFu), acc_mask_(p.acc_bits == 16 ? 0xFFFFu : 0xFFFFFFFFu) {}
  void drive(const PeIn& in, bool rst_n) {
    dut_->rst_ni = rst_n;
    dut_->a_i = in.a & elem_mask_;
    dut_->w_i = in.w & elem_mask_;
    dut_->valid_i = in.valid;
    dut_->swap_i = in.swap;
    dut_->window_i = in.window;
    dut_->res_i = in.res_in & acc_mask_;
    dut_->shift_i = in.shift;
    dut_->shift_bank_i = in.shift_bank;
  }
  void settle() { dut_->eval(); }
  void edge() { dut_.edge(); }
  PeOut out() const {
    PeOut o;
    o.a = elem_t(dut_->a_o);
    o.w = elem_t(dut_->w_o);
    o.valid = dut_->valid_o;
    o.swap = dut_->swap_o;
    o.window = dut_->window_o;
    o.res = acc_t(dut_->res_o);
    o.acc = acc_t(dut_->acc_o);
    o.gated = dut_->gated_o;
    return o;
  }
  bool fault() { return dut_.fault(); }
  bool counters(std::uint64_t&, std::uint64_t&) const { return false; }  // gated_o is checked per cycle
  // No window flag, so the bank pointer stays: one of the two cycles shifts the bank it swaps.
  bool refuses_swap_and_shift(tb::MismatchLog& log) {
    PeIn in;
    in.swap = in.shift = true;
    fmt::print("pe_rtl_tb: swap and shift of one bank together (the assertion below is expected):\n");
    bool fired = false;
    for (int b = 0; b < 2 && !fired; ++b) {
      in.shift_bank = b;
      drive(in, true);
      settle();
      edge();
      fired = dut_.fault();
    }
    return log.expect_true(fired, "swap and shift of one bank together: no RTL assertion");
  }

private:
  tb::Dut<FLYCOL_VTOP> dut_;
  std::uint32_t elem_mask_, acc_mask_;
};

#else

// PeCore alone: reset and eval+tick at the edge; gated_o is an increment of its gated counter.
class CoreView {
public:
  static constexpr bool kAsyncReset = false;
  explicit CoreView(const HwParams& p) : p_(p), core_(p) {}
  void drive(const PeIn& in, bool rst_n) {
    in_ = in;
    rst_n_ = rst_n;
  }
  void settle() {}
  void edge() {
    const std::uint64_t before = core_.gated();
    if (!rst_n_) {
      core_.reset();
    } else {
      core_.eval(in_);
      core_.tick();
    }
    gated_pulse_ = rst_n_ && core_.gated() != before;
  }
  PeOut out() const {
    return PeOut{core_.a_q(), core_.w_q(), core_.valid_q(), core_.swap_q(), core_.window_q(),
                 core_.res_out(in_.shift_bank), core_.acc_q(), gated_pulse_};
  }
  bool fault() { return false; }
  bool counters(std::uint64_t& macs, std::uint64_t& gated) const {
    macs = core_.macs();
    gated = core_.gated();
    return true;
  }
  bool refuses_swap_and_shift(tb::MismatchLog& log) {
    PeCore fresh(p_);  // bank 0 after reset
    PeIn in;
    in.swap = in.shift = true;
    in.shift_bank = 1;
    fresh.eval(in);  // a swap on bank 0 while bank 1 shifts is allowed
    in.shift_bank = 0;
    return tb::expect_throw<ProtocolError>(log, "swap and shift of one bank together refused by PeCore",
                                           [&] { fresh.eval(in); }, "swap and shift");
  }

private:
  HwParams p_;
  PeCore core_;
  PeIn in_;
  bool rst_n_ = false, gated_pulse_ = false;
};

// The Pe SC_MODULE on its own signals and clock. Its reset is synchronous.
class ScView {
public:
  static constexpr bool kAsyncReset = false;
  ScView(const std::string& name, const HwParams& p) : pe_(name.c_str(), p) {
    pe_.clk_i(clk_.clk());
    pe_.rst_ni(rst_n_);
    pe_.a_i(a_); pe_.w_i(w_); pe_.valid_i(valid_); pe_.swap_i(swap_); pe_.window_i(window_);
    pe_.res_i(res_); pe_.shift_i(shift_); pe_.shift_bank_i(shift_bank_);
    pe_.a_o(a_o_); pe_.w_o(w_o_); pe_.valid_o(valid_o_); pe_.swap_o(swap_o_); pe_.window_o(window_o_);
    pe_.res_o(res_o_); pe_.acc_o(acc_o_);
  }
  void drive(const PeIn& in, bool rst_n) {
    rst_n_now_ = rst_n;  // the signal shows it only after the next update phase
    rst_n_.write(rst_n);
    a_.write(in.a); w_.write(in.w); valid_.write(in.valid); swap_.write(in.swap); window_.write(in.window);
    res_.write(in.res_in); shift_.write(in.shift); shift_bank_.write(in.shift_bank != 0);
  }
  void settle() { clk_.settle(); }
  void edge() {
    const std::uint64_t before = pe_.core().gated();
    clk_.step();
    gated_pulse_ = rst_n_now_ && pe_.core().gated() != before;
  }
  PeOut out() const {
    return PeOut{a_o_.read(), w_o_.read(), valid_o_.read(), swap_o_.read(), window_o_.read(),
                 res_o_.read(), acc_o_.read(), gated_pulse_};
  }
  bool fault() { return false; }
  bool counters(std::uint64_t& macs, std::uint64_t& gated) const {
    macs = pe_.core().macs();
    gated = pe_.core().gated();
    return true;
  }
  // The module turns the core's protocol error into SC_REPORT_ERROR, thrown by ScClock's setting.
  bool refuses_swap_and_shift(tb::MismatchLog& log) {
    PeIn in;
    in.swap = in.shift = true;
    return tb::expect_throw<sc_core::sc_report>(log, "swap and shift of one bank together refused by the Pe module",
                                                [&] {
                                                  for (int b = 0; b < 2; ++b) {  // no window: the bank stays
                                                    in.shift_bank = b;
                                                    drive(in, true);
                                                    clk_.step();
                                                  }
                                                },
                                                "swap and shift");
  }

private:
  tb::ScClock clk_;
  Pe pe_;
  sc_core::sc_signal<bool> rst_n_;
  sc_core::sc_signal<elem_t> a_, w_, a_o_, w_o_;
  sc_core::sc_signal<bool> valid_, swap_, window_, shift_, shift_bank_, valid_o_, swap_o_, window_o_;
  sc_core::sc_signal<acc_t> res_, res_o_, acc_o_;
  bool rst_n_now_ = false, gated_pulse_ = false;
};

// The six PE variants of the core and SystemC views: each arithmetic with zero gating on and off.
std::vector<HwParams> variants() {
  std::vector<HwParams> v;
  for (Arithmetic a : {Arithmetic::fp16, Arithmetic::int8, Arithmetic::int16})
    for (bool gating : {true, false}) {
      HwParams p;
      p.arithmetic = a;
      p.elem_bits = a == Arithmetic::int8 ? 8 : 16;
      p.acc_bits = a == Arithmetic::fp16 ? 16 : 32;
      p.zero_gating = gating;
      v.push_back(p);
    }
  return v;
}

std::string variant_name(const HwParams& p) {
  return fmt::format("pe_{}_{}", arith_name(p.arithmetic), p.zero_gating ? "gated" : "ungated");
}

#endif

}  // namespace

#ifdef FLYCOL_VTOP

int main(int argc, char** argv) {
  tb::BenchMain harness("pe", {"cycles", 4000000, 50000000, "cycles"});
  if (!harness.parse(argc, argv)) return 2;
  const HwParams& p = harness.params();
  // Operand isolation changes no output; the RTL's own assertions (IsoHold_A, MulOperands_A) check
  // its hold registers and multiplexer every cycle, and any assertion fails the run.
  harness.announce("{} {} gating, {} operand isolation, {} cycles", arith_name(p.arithmetic),
                   p.zero_gating ? "with" : "without", p.operand_isolation ? "with" : "without", harness.count());
  Figures fig;
  RtlView view(p, harness.seed());
  harness.run(harness.rtl_view(), [&](tb::MismatchLog& log) {
    run_pe(view, p, harness.seed(0), harness.count(), log, fig);
    if (log.ok()) view.refuses_swap_and_shift(log);
  });
  return harness.finish(fmt::format("{} {} gating, {} isolation, {} cycles, {} MACs ({} gated), {} swaps, {} shifts ({} beside a swap of the other bank), {} reset cycles",
                                    arith_name(p.arithmetic), p.zero_gating ? "with" : "without",
                                    p.operand_isolation ? "with" : "without", fig.cycles, fig.macs,
                                    fig.gated, fig.swaps, fig.shifts, fig.swap_shifts, fig.resets));
}

#else

int sc_main(int argc, char* argv[]) {
  tb::BenchMain harness("pe", {"cycles", 200000, 5000000, "cycles per PE variant"});
  if (!harness.parse(argc, argv)) return 2;
  harness.announce("{} cycles per variant", harness.count());

  // Every SC_MODULE exists before the first sc_start; the variants then run one after another.
  std::vector<std::unique_ptr<ScView>> sc_views;
  for (const HwParams& p : variants()) sc_views.push_back(std::make_unique<ScView>(variant_name(p), p));

  Figures fig;
  // The same stimulus for both views of a variant: the seed does not depend on the view.
  std::size_t k = 0;
  for (const HwParams& p : variants()) {
    if (harness.core())
      harness.run(fmt::format("core {}", variant_name(p)), [&](tb::MismatchLog& log) {
        CoreView core(p);
        run_pe(core, p, harness.seed(k), harness.count(), log, fig);
        if (k == 0 && log.ok()) core.refuses_swap_and_shift(log);
      });
    if (harness.sc())
      harness.run(fmt::format("sc {}", variant_name(p)),
                  [&](tb::MismatchLog& log) { run_pe(*sc_views[k], p, harness.seed(k), harness.count(), log, fig); });
    ++k;
  }
  // The module's refusal stops the simulation, so it is checked once, after every variant ran.
  if (harness.sc() && harness.errors() == 0)
    harness.run("sc", [&](tb::MismatchLog& log) { sc_views[0]->refuses_swap_and_shift(log); });
  return harness.finish(fmt::format("{} cycles, {} MACs ({} gated), {} swaps, {} shifts ({} beside a swap of the "
                                    "other bank), {} reset cycles",
                                    fig.cycles, fig.macs, fig.gated, fig.swaps, fig.shifts, fig.swap_shifts,
                                    fig.resets));
}

#endif
