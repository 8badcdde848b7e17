// Power test of operand isolation (pe.operand_isolation, docs/microarchitecture.md 9.5): pe.sv
// Verilated with tracing for a configuration with isolation (fornt16) and one without (rect8x4),
// its VCD counted by the power proxy's toggle counter (sim/power), toggles of every net of the
// multiplier (the u_fma / u_mac scope) compared between two runs of the same computing steps: one
// dense, one with gated and idle steps between them. With isolation those steps must add few
// multiplier toggles; without it they add many. Built in hw/pe/CMakeLists.txt (it needs the
// configuration packages the hw/ directory holds); `--seed N` repeats a run.
#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <verilated.h>
#include <verilated_vcd_c.h>

#include "Vpe_trace_fornt16.h"
#include "Vpe_trace_rect8x4.h"
#include "sim/power/toggle_counter.h"

namespace {

// A VCD "file" that streams into the toggle counter.
class SinkFile final : public VerilatedVcdFile {
public:
  explicit SinkFile(flycol::power::VcdToggleCounter& t) : t_(t) {}
  bool open(const std::string&) override { return true; }
  void close() override {}
  ssize_t write(const char* p, ssize_t n) override {
    if (n > 0) t_.feed(p, std::size_t(n));
    return n;
  }

private:
  flycol::power::VcdToggleCounter& t_;
};

// One cycle's inputs of the PE.
struct Step {
  std::uint16_t a = 0, w = 0;
  bool valid = false;
};

// xorshift64*: the stimulus must not depend on the library's generators.
struct Rand {
  std::uint64_t s;
  std::uint64_t next() {
    s ^= s >> 12;
    s ^= s << 25;
    s ^= s >> 27;
    return s * 0x2545F4914F6CDD1DULL;
  }
  // A nonzero fp16 value around 1 (exponent 13..17), either sign: sums stay finite.
  std::uint16_t half() { return std::uint16_t((next() & 0x8000) | ((13 + next() % 5) << 10) | (next() & 0x3FF)); }
};

// Multiplier toggles (bit changes between consecutive cycles, summed over the unit's nets) of one
// run of `steps` on the Verilated PE V.
template <class V>
std::uint64_t multiplier_toggles(const std::vector<Step>& steps) {
  flycol::power::VcdToggleCounter toggles;
  VerilatedContext ctx;
  ctx.traceEverOn(true);
  V pe(&ctx, "pe");
  SinkFile sink(toggles);
  VerilatedVcdC vcd(&sink);
  pe.trace(&vcd, 99);
  vcd.open("(toggle counter)");
  std::uint64_t t = 0;
  auto cycle = [&](const Step& s, bool rst_n) {
    pe.rst_ni = rst_n;
    pe.a_i = s.a;
    pe.w_i = s.w;
    pe.valid_i = s.valid;
    pe.swap_i = 0;
    pe.shift_i = 0;
    pe.window_i = 0;
    pe.res_i = 0;
    pe.clk_i = 0;
    pe.eval();
    vcd.dump(t++);  // one sample per cycle, after the inputs settled
    pe.clk_i = 1;
    pe.eval();
  };
  for (int i = 0; i < 2; ++i) cycle(Step{}, false);
  for (const Step& s : steps) cycle(s, true);
  vcd.close();
  toggles.finish();
  std::uint64_t n = 0;
  for (const auto& sig : toggles.signals()) {
    bool in_unit = false;
    for (const auto& name : sig.names) in_unit = in_unit || name.find(".u_fma.") != std::string::npos ||
                                                 name.find(".u_mac.") != std::string::npos;
    if (in_unit) n += sig.toggles;
  }
  return n;
}

}  // namespace

int main(int argc, char** argv) {
  std::uint64_t seed = 1;
  for (int i = 1; i + 1 < argc; i += 2)
    if (std::string(argv[i]) == "--seed") seed = std::stoull(argv[i + 1]);
  Rand r{seed * 0x9E3779B97F4A7C15ULL + 1};

  // 20,000 computing steps; the sparse run puts one to three steps that compute nothing after each
  // (a zero weight, a zero activation, or no MAC step at all), carrying random other operands.
  constexpr int kSteps = 20000;
  std::vector<Step> dense, sparse;
  for (int i = 0; i < kSteps; ++i) {
    const Step s{r.half(), r.half(), true};
    dense.push_back(s);
    sparse.push_back(s);
    const int gaps = 1 + int(r.next() % 3);
    for (int g = 0; g < gaps; ++g) {
      Step x{r.half(), r.half(), true};
      switch (r.next() % 3) {
        case 0: x.w = std::uint16_t(r.next() & 0x8000); break;  // +-0 weight: gated
        case 1: x.a = std::uint16_t(r.next() & 0x8000); break;  // +-0 activation: gated
        default: x.valid = false; break;                         // idle
      }
      sparse.push_back(x);
    }
  }

  const double on_dense = double(multiplier_toggles<Vpe_trace_fornt16>(dense));
  const double on_sparse = double(multiplier_toggles<Vpe_trace_fornt16>(sparse));
  const double off_dense = double(multiplier_toggles<Vpe_trace_rect8x4>(dense));
  const double off_sparse = double(multiplier_toggles<Vpe_trace_rect8x4>(sparse));
  const double on_ratio = on_sparse / on_dense, off_ratio = off_sparse / off_dense;
  fmt::print("isolation_toggle_test (seed {}): multiplier toggles, {} computing steps, dense -> with {} steps that "
             "compute nothing between them\n",
             seed, kSteps, sparse.size() - dense.size());
  fmt::print("  with operand isolation (fornt16):    {:.0f} -> {:.0f} (x {:.2f})\n", on_dense, on_sparse, on_ratio);
  fmt::print("  without operand isolation (rect8x4): {:.0f} -> {:.0f} (x {:.2f})\n", off_dense, off_sparse, off_ratio);
  // Bounds: with isolation a step that computes nothing moves only the accumulator input once
  // after a computing step (the new sum meets the held operands), well under the dense run's
  // toggles again; without it every such step switches like a computing one (about x 3 here).
  bool ok = on_dense > 0 && off_dense > 0;
  ok = ok && on_ratio < 1.6;
  ok = ok && off_ratio > 2.0;
  ok = ok && on_sparse < 0.6 * off_sparse;
  fmt::print("isolation_toggle_test: {}\n", ok ? "PASS" : "FAIL");
  if (!ok) fmt::print("reproduce: {} --seed {}\n", argv[0], seed);
  return ok ? 0 : 1;
}
