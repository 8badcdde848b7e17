// Explicit-im2col traffic of a layer (lowering.h).
#include "sim/sweep/lowering.h"

#include <fmt/format.h>

#include "sim/analytic/plan_choice.h"
#include "sim/common/input_error.h"
#include "sim/dram/dram_model.h"

namespace flycol::sweep {

Layer explicit_lowered_layer(const Layer& l) {
  Layer m;
  m.name = l.name.size() + 8 <= 128 ? l.name + ".lowered" : "lowered";
  m.n = l.n;
  m.c = l.c * l.ky * l.kx;
  m.h = l.ho();
  m.w = l.wo();
  m.k = l.k;
  return m;  // 1x1, stride 1, dilation 1, no padding
}

LoweredTraffic explicit_lowering_traffic(const Layer& l, const Config& config, const CompileOptions& options,
                                         analytic::Tiling tiling) {
  LoweredTraffic out;
  const Layer m = explicit_lowered_layer(l);
  try {
    validate_layer(m, "explicit im2col");
    if (tiling == analytic::Tiling::heuristic) {
      out.traffic = program_traffic(compile_layer(m, config, options));
    } else {
      // The lowered layer is an ordinary 1x1 layer: the Planner's feeder choice is what
      // `flycol run` would run for it.
      analytic::Planner planner(config, DramTiming::from(config), tiling);
      out.traffic = program_traffic(planner.choose(m, analytic::Lowering::feeder).program);
    }
    out.ok = true;
  } catch (const InputError& e) {
    out.note = fmt::format("the lowered layer {} cannot be compiled: {}{}", m.spec(),
                           e.key().empty() ? "" : e.key() + ": ", e.problem());
  }
  return out;
}

}  // namespace flycol::sweep
