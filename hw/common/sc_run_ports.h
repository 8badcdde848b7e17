// The RUN start and the RUN fields that the EX-engine blocks take as input ports (start_i,
// run_preload_i, run_n_kg_i, ...), in one bundle that a block's SystemC module and its RTL adapter
// inherit, so that they are declared, read, copied and bound in one place. The ports keep the SV
// twins' names (testbenches bind them by name).
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>

#include <systemc>

#include "hw/common/command.h"
#include "hw/common/sc_sensitivity.h"

namespace flycol::hw {

// The structural top's wires that carry the EX engine's RUN fields (flycol_top.sv's run_* wires).
// `prefix` names them (<prefix>_preload, <prefix>_n_kg, ...): one set a top, or one a testbench view.
struct RunFieldSignals {
  explicit RunFieldSignals(const std::string& prefix = "run")
      : preload((prefix + "_preload").c_str()), n_kg((prefix + "_n_kg").c_str()), n_cy((prefix + "_n_cy").c_str()),
        n_cx((prefix + "_n_cx").c_str()), n_c((prefix + "_n_c").c_str()), n_ky((prefix + "_n_ky").c_str()),
        n_kx((prefix + "_n_kx").c_str()), pool_op((prefix + "_pool_op").c_str()) {}
  sc_core::sc_signal<bool> preload;
  sc_core::sc_signal<std::uint32_t> n_kg, n_cy, n_cx, n_c, n_ky, n_kx;
  sc_core::sc_signal<std::uint32_t> pool_op;

  void write(const RunDesc& r) {
    preload.write(r.preload);
    n_kg.write(r.n_kg);
    n_cy.write(r.n_cy);
    n_cx.write(r.n_cx);
    n_c.write(r.n_c);
    n_ky.write(r.n_ky);
    n_kx.write(r.n_kx);
    pool_op.write(r.pool_op);
  }
};

// The groups of fields a block picks from (RunIn's flags): the preload flag, the outer loop bounds
// (kernel groups, output rows and columns), the inner ones (channels, kernel rows and columns) and
// the pooling operation (pool_op: 0 a convolution RUN).
enum RunFieldGroup : unsigned { kRunPreload = 1u, kRunOuter = 2u, kRunInner = 4u, kRunPool = 8u };

// A field the block does not take: a name only, no port (binding it does not compile).
struct NoRunPort {
  explicit NoRunPort(const char*) {}
};

// A block's RUN start and RUN field ports, the groups in kGroups. Inherited after sc_module, so the
// ports belong to the block. Fields the block does not take keep RunDesc's defaults in read_run().
template <unsigned kGroups>
struct RunIn {
  template <class T, RunFieldGroup kGroup>
  using Port = std::conditional_t<(kGroups & kGroup) != 0, sc_core::sc_in<T>, NoRunPort>;

  sc_core::sc_in<bool> start_i{"start_i"};  // the EX engine starts a RUN this cycle, with these fields
  Port<bool, kRunPreload> run_preload_i{"run_preload_i"};
  Port<std::uint32_t, kRunOuter> run_n_kg_i{"run_n_kg_i"}, run_n_cy_i{"run_n_cy_i"}, run_n_cx_i{"run_n_cx_i"};
  Port<std::uint32_t, kRunInner> run_n_c_i{"run_n_c_i"}, run_n_ky_i{"run_n_ky_i"}, run_n_kx_i{"run_n_kx_i"};
  Port<std::uint32_t, kRunPool> run_pool_op_i{"run_pool_op_i"};

  RunDesc read_run() const {
    RunDesc r;
    each([&](auto& port, auto field, auto) { r.*field = port.read(); });
    return r;
  }
  void bind_run(sc_core::sc_signal<bool>& start, RunFieldSignals& s) {
    start_i(start);
    each([&](auto& port, auto, auto wire) { port(s.*wire); });
  }
  void sense_run(sc_core::sc_sensitive& s) {
    s << start_i;
    each([&](auto& port, auto, auto) { s << port; });
  }
  // Onto the Verilated model's ports of the same names.
  template <class M>
  void put_run(M& m) const {
    m.start_i = start_i.read();
    if constexpr ((kGroups & kRunPreload) != 0) m.run_preload_i = run_preload_i.read();
    if constexpr ((kGroups & kRunOuter) != 0) {
      m.run_n_kg_i = run_n_kg_i.read();
      m.run_n_cy_i = run_n_cy_i.read();
      m.run_n_cx_i = run_n_cx_i.read();
    }
    if constexpr ((kGroups & kRunInner) != 0) {
      m.run_n_c_i = run_n_c_i.read();
      m.run_n_ky_i = run_n_ky_i.read();
      m.run_n_kx_i = run_n_kx_i.read();
    }
    if constexpr ((kGroups & kRunPool) != 0) m.run_pool_op_i = run_pool_op_i.read();
  }

private:
  // f(port, the RunDesc member, the top's wire), for every field the block takes.
  template <class Self, class F>
  static void each_of(Self& self, F&& f) {
    if constexpr ((kGroups & kRunPreload) != 0) f(self.run_preload_i, &RunDesc::preload, &RunFieldSignals::preload);
    if constexpr ((kGroups & kRunOuter) != 0) {
      f(self.run_n_kg_i, &RunDesc::n_kg, &RunFieldSignals::n_kg);
      f(self.run_n_cy_i, &RunDesc::n_cy, &RunFieldSignals::n_cy);
      f(self.run_n_cx_i, &RunDesc::n_cx, &RunFieldSignals::n_cx);
    }
    if constexpr ((kGroups & kRunInner) != 0) {
      f(self.run_n_c_i, &RunDesc::n_c, &RunFieldSignals::n_c);
      f(self.run_n_ky_i, &RunDesc::n_ky, &RunFieldSignals::n_ky);
      f(self.run_n_kx_i, &RunDesc::n_kx, &RunFieldSignals::n_kx);
    }
    if constexpr ((kGroups & kRunPool) != 0) f(self.run_pool_op_i, &RunDesc::pool_op, &RunFieldSignals::pool_op);
  }
  template <class F>
  void each(F&& f) {
    each_of(*this, f);
  }
  template <class F>
  void each(F&& f) const {
    each_of(*this, f);
  }
};

// A process that reads the RUN inputs: sensitive to all of them.
template <unsigned kGroups>
void sense(sc_core::sc_sensitive& s, RunIn<kGroups>& run) {
  run.sense_run(s);
}

}  // namespace flycol::hw
