// Verilator side of the block testbenches: the context a model starts from, one clock edge,
// assertion failures as mismatches, field access to packed-array ports, and an SRAM port model.
// Only compiled into the RTL views (FLYCOL_BUILD_RTL).
#pragma once

#include <cstdint>
#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <verilated.h>

#include "sim/rtlsim/verilator_coverage.h"
#include "tb/common/check.h"

namespace flycol::tb {

// A Verilator context whose registers and storage start random (reset must cover every one that
// matters), seeded from the testbench seed, with assertion failures counted rather than fatal.
inline std::unique_ptr<VerilatedContext> make_context(std::uint64_t seed) {
  auto ctx = std::make_unique<VerilatedContext>();
  ctx->randReset(2);
  ctx->randSeed(int(seed % 1000003));
  ctx->fatalOnError(false);
  return ctx;
}

// One rising edge of clk_i (and the falling edge after it): the inputs settle first, as they do
// before a real clock edge, then the model samples them.
template <class Model>
void clock_edge(VerilatedContext& ctx, Model& m) {
  m.eval();
  ctx.timeInc(1);
  m.clk_i = 1;
  m.eval();
  ctx.timeInc(1);
  m.clk_i = 0;
}

// Whether an assertion of the model fired since the last call (and clears it).
inline bool take_assertion(VerilatedContext& ctx) {
  const bool fired = ctx.gotError();
  ctx.gotError(false);
  ctx.gotFinish(false);
  return fired;
}

// A block's Verilated model on its own context (make_context: random initial state; without a
// seed every bit starts at zero), assertions counted: built with the clock low and out of reset
// (so that the bench's first reset is an edge an asynchronous reset acts on), evaluated once, and
// finished at the end of its life (in coverage builds its counters written out first:
// write_verilator_coverage).
template <class Model>
class Dut {
public:
  explicit Dut(std::uint64_t seed, const char* name = "TOP") : Dut(make_context(seed), name) {}
  Dut() : Dut(zero_context(), "TOP") {}
  ~Dut() {
    m_->final();
    write_verilator_coverage(*ctx_, "block");
  }
  Dut(const Dut&) = delete;
  Dut& operator=(const Dut&) = delete;

  Model* operator->() { return m_.get(); }
  const Model* operator->() const { return m_.get(); }
  Model& operator*() { return *m_; }
  const Model& operator*() const { return *m_; }
  // One clock edge (clock_edge), and whether an assertion fired since the last call.
  void edge() { clock_edge(*ctx_, *m_); }
  bool fault() { return take_assertion(*ctx_); }
  // One edge with inputs the model must refuse: whether its assertion fired (a Yosys netlist of the
  // block, FLYCOL_NETLIST, has no assertions: always true).
  bool refuses_on_edge() {
    edge();
#ifdef FLYCOL_NETLIST
    return true;
#else
    return fault();
#endif
  }

private:
  Dut(std::unique_ptr<VerilatedContext> ctx, const char* name)
      : ctx_(std::move(ctx)), m_(std::make_unique<Model>(ctx_.get(), name)) {
    m_->clk_i = 0;
    m_->rst_ni = 1;
    m_->eval();
  }
  static std::unique_ptr<VerilatedContext> zero_context() {
    auto ctx = std::make_unique<VerilatedContext>();
    ctx->fatalOnError(false);
    return ctx;
  }

  std::unique_ptr<VerilatedContext> ctx_;
  std::unique_ptr<Model> m_;
};

// Says that the RTL assertion messages that follow are expected: the bench offers inputs the
// block must refuse (`what`, e.g. "directed protocol errors").
inline void expect_rtl_assertions(const char* bench, const char* what) {
  fmt::print("{}: {}; the RTL assertion messages below are expected\n", bench, what);
}

// A packed-array port (`logic [N*W-1:0]`, element i in bits [i*W +: W]) is a CData/SData/IData/QData
// integer or a VlWide word array depending on its width; these read and write one field of either.
// Bits [lsb, lsb+n) of `port`, n <= 64.
template <class P>
std::uint64_t get_bits(const P& port, int lsb, int n) {
  if constexpr (std::is_integral_v<P>) {
    const std::uint64_t v = std::uint64_t(port) >> lsb;
    return n >= 64 ? v : v & ((std::uint64_t(1) << n) - 1);
  } else {
    std::uint64_t v = 0;
    for (int b = 0; b < n; ++b) {
      const int i = lsb + b;
      v |= std::uint64_t((port.at(std::size_t(i / 32)) >> (i % 32)) & 1u) << b;
    }
    return v;
  }
}

// Sets bits [lsb, lsb+n) of `port` to the low n bits of v, n <= 64.
template <class P>
void put_bits(P& port, int lsb, int n, std::uint64_t v) {
  if constexpr (std::is_integral_v<P>) {
    const std::uint64_t mask = (n >= 64 ? ~std::uint64_t(0) : (std::uint64_t(1) << n) - 1) << lsb;
    port = P((std::uint64_t(port) & ~mask) | ((v << lsb) & mask));
  } else {
    for (int b = 0; b < n; ++b) {
      const int i = lsb + b;
      EData& w = port.at(std::size_t(i / 32));
      const EData bit = EData(1) << (i % 32);
      w = ((v >> b) & 1u) ? (w | bit) : (w & ~bit);
    }
  }
}

// Element i of a packed array of w-bit elements.
template <class P>
std::uint64_t get_elem(const P& port, int i, int w) { return get_bits(port, i * w, w); }
template <class P>
void put_elem(P& port, int i, int w, std::uint64_t v) { put_bits(port, i * w, w, v); }

// An SRAM as seen by the RTL's port (docs/microarchitecture.md, section 6): one access per cycle,
// read data from the next cycle on, held until the next read; writes take effect at the edge.
template <class Elem>
struct PortMemory {
  int depth, elems;
  std::vector<Elem> mem, rdata;
  std::uint64_t reads = 0, writes = 0;
  PortMemory(int d, int e) : depth(d), elems(e), mem(std::size_t(d) * std::size_t(e)), rdata(std::size_t(e)) {}
  Elem& at(int addr, int e) { return mem[std::size_t(addr) * std::size_t(elems) + std::size_t(e)]; }
};

}  // namespace flycol::tb
