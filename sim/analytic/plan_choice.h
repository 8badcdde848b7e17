// Per-layer program choice for whole networks: the compiler's heuristic plan, or the tiling search
// (sim/compiler/search.h) with its best candidates timed by the analytic model, for on-the-fly
// im2col (the data feeder) or for the explicit-im2col baseline. Choices are cached by layer shape.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "sim/analytic/analytic_model.h"
#include "sim/analytic/tiling_mode.h"
#include "sim/compiler/compiler.h"

namespace flycol::analytic {

enum class Lowering { feeder, explicit_im2col };

const char* lowering_name(Lowering l);

struct Choice {
  Program program;     // of the layer, or of its lowered form (explicit_im2col)
  Result result;       // the analytic model's run of `program`
  int evaluated = 0;   // programs the analytic model timed to choose
  bool cached = false; // the same shape was chosen before
};

class Planner {
public:
  // `tolerance`: among programs within this share of the fastest, the one with the fewest DRAM
  // bytes wins (less energy for no measurable time).
  Planner(const Config& cfg, const DramTiming& timing, Tiling tiling, int keep = 8, double tolerance = 0.01);

  // The chosen program for `layer` and its timing. The result holds no traffic timeline; run the
  // model again with Options::traffic when it is needed.
  Choice choose(const Layer& layer, Lowering lowering);

  Model& model() { return model_; }
  const Config& config() const { return cfg_; }

private:
  Config cfg_;
  Model model_;
  Tiling tiling_;
  int keep_;
  double tolerance_;
  std::map<std::string, Choice> cache_;
};

}  // namespace flycol::analytic
