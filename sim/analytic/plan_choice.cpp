// The choice: candidates from the search (plus the heuristic plan, so the search never does
// worse), each compiled and timed; fastest wins, ties within the tolerance go to fewer DRAM bytes.
#include "sim/analytic/plan_choice.h"

#include <algorithm>
#include <vector>

#include "sim/compiler/explicit_lowering.h"
#include "sim/compiler/search.h"
#include "sim/config/config_keys.h"

namespace flycol::analytic {

const char* lowering_name(Lowering l) { return l == Lowering::feeder ? "feeder" : "explicit"; }

Planner::Planner(const Config& cfg, const DramTiming& timing, Tiling tiling, int keep, double tolerance)
    : cfg_(cfg), model_(hardware_params(cfg), timing), tiling_(tiling), keep_(keep), tolerance_(tolerance) {}

Choice Planner::choose(const Layer& layer, Lowering lowering) {
  const Layer l = lowering == Lowering::feeder ? layer : explicit_lowered_layer(layer, model_.params());
  Layer shape = l;
  shape.name = "layer";
  const std::string key = std::string(lowering_name(lowering)) + ":" + shape.spec();
  if (auto it = cache_.find(key); it != cache_.end()) {
    Choice c = it->second;
    c.cached = true;
    c.program.layer.name = l.name;
    return c;
  }

  // Every candidate is compiled and timed; the fastest wins, except that among the programs
  // within the tolerance of it the one with the fewest DRAM bytes wins.
  std::vector<Choice> tried;
  const auto consider = [&](const Layer& view, const CompileOptions& o) {
    Choice c;
    c.program = compile_layer(view, cfg_, o);
    c.result = model_.run(c.program);
    tried.push_back(std::move(c));
  };
  // A 1x1, stride-1, unpadded convolution is a GeMM over the pixels as they lie in DRAM: its
  // im2col matrix is the ifmap itself. The data feeder may then run it on any H' x W' view of the
  // pixels (same bytes, same results), and a view with rows of a multiple of array.rows pixels
  // fills every context and keeps every feeder read aligned.
  std::vector<Layer> views = {l};
  if (lowering == Lowering::feeder && l.kx == 1 && l.ky == 1 && l.sx == 1 && l.sy == 1 && l.pt == 0 && l.pb == 0 &&
      l.pl == 0 && l.pr == 0) {
    const Layer flat = explicit_lowered_layer(l, model_.params());
    if (!(flat == l)) views.push_back(flat);
  }
  for (const Layer& view : views) {
    consider(view, {});
    // Strided 1 x ky layers: the heuristic tiling with gathered columns too (one SRAM read per
    // MAC step instead of two or more, for whole-beat DRAM reads); the timing decides.
    if (lowering == Lowering::feeder && view.kx == 1 && view.sx >= 2 && view.sx <= hw::kMaxElemStep) {
      CompileOptions g;
      g.gather_cols = true;
      consider(view, g);
    }
    if (tiling_ == Tiling::search) {
      SearchOptions so;
      so.dram_bytes_per_cycle = model_.timing().bytes_per_cycle;
      so.keep = keep_;
      for (const PlanCandidate& c : search_plans(view, cfg_, so)) consider(view, c.options);
    }
  }
  std::uint64_t fastest = tried.front().result.stats.cycles;
  for (const Choice& c : tried) fastest = std::min(fastest, c.result.stats.cycles);
  std::size_t pick = 0;
  for (std::size_t i = 0; i < tried.size(); ++i) {
    const RunStats& s = tried[i].result.stats;
    const RunStats& b = tried[pick].result.stats;
    const bool near = double(s.cycles) <= double(fastest) * (1 + tolerance_);
    const bool pick_near = double(b.cycles) <= double(fastest) * (1 + tolerance_);
    if (near && (!pick_near || s.dram.total() < b.dram.total() ||
                 (s.dram.total() == b.dram.total() && s.cycles < b.cycles)))
      pick = i;
  }
  Choice best = std::move(tried[pick]);
  best.evaluated = int(tried.size());
  cache_[key] = best;
  return best;
}

}  // namespace flycol::analytic
