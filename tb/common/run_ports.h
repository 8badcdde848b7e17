// The RUN fields that the issue-stage blocks (sequencer, weight fetcher, psum manager) take on
// ports named run_<field>_i: put_run() sets those a Verilated model has from a RunDesc (each block
// has its own subset). The SystemC views drive the modules' RunIn ports through hw::RunFieldSignals.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <type_traits>
#include <utility>

#include "hw/common/command.h"
#include "tb/common/random.h"

// X(field) for every RUN field a block may have as a port, in the order of the RTL's RUN word.
#define FLYCOL_TB_RUN_PORTS(X) X(preload) X(n_kg) X(n_cy) X(n_cx) X(n_c) X(n_ky) X(n_kx)

namespace flycol::tb {

// has_run_<field><M>::value: whether M has a member run_<field>_i.
#define FLYCOL_TB_HAS_RUN(f)                            \
  template <class M, class = void>                      \
  struct has_run_##f : std::false_type {};              \
  template <class M>                                    \
  struct has_run_##f<M, std::void_t<decltype(std::declval<M&>().run_##f##_i)>> : std::true_type {};
FLYCOL_TB_RUN_PORTS(FLYCOL_TB_HAS_RUN)
#undef FLYCOL_TB_HAS_RUN

// The inputs of one cycle that every issue-stage block has: the reset, the RUN start and the RUN
// fields (junk unless start). A bench's Drive derives from it and adds the block's own inputs;
// put_run, ScRunInputs and hold_reset read these members.
struct RunStartInputs {
  bool rst_n = true, start = false;
  hw::RunDesc run;
};

// Sets the run_<field>_i ports of a Verilated model from `r` (the loop counts are 16 bits).
template <class Model>
void put_run(Model& m, const hw::RunDesc& r) {
#define FLYCOL_TB_PUT(f) \
  if constexpr (has_run_##f<Model>::value) m.run_##f##_i = std::remove_reference_t<decltype(m.run_##f##_i)>(r.f);
  FLYCOL_TB_RUN_PORTS(FLYCOL_TB_PUT)
#undef FLYCOL_TB_PUT
}

// RUN fields for the cycles start is low: any value of every field (16-bit loop counts, which a
// block must not look at then).
inline hw::RunDesc junk_run(Rand& r) {
  hw::RunDesc j;
  j.preload = r.chance(0.5);
  using hw::RunDesc;
  for (std::uint32_t RunDesc::*f : {&RunDesc::n_kg, &RunDesc::n_cy, &RunDesc::n_cx, &RunDesc::n_c, &RunDesc::n_ky,
                                    &RunDesc::n_kx})
    j.*f = std::uint32_t(r.bits(16));
  return j;
}

}  // namespace flycol::tb
