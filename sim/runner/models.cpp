// The registry of simulation models (models.h): the one list of names, descriptions and run
// functions.
#include "sim/runner/models.h"

#include <fmt/format.h>

#include "sim/common/input_error.h"
#include "sim/runner/run_analytic.h"
#include "sim/runner/run_cosim.h"
#include "sim/runner/run_golden.h"
#include "sim/runner/run_sc.h"

namespace flycol {

const std::vector<ModelInfo>& models() {
  static const std::vector<ModelInfo> list = {
      {"golden", "direct convolution in the PE's arithmetic, with a float64 error reference", run_golden, false},
      {"sc", "cycle-accurate SystemC model of the accelerator", run_sc, true},
      {"rtl", "SystemVerilog RTL co-simulated with Verilator", run_rtl, true},
      {"both", "SystemC and RTL in lockstep, outputs and cycles compared", run_both, true},
      {"analytic", "fast transaction-level model for whole networks", run_analytic, true},
  };
  return list;
}

const ModelInfo* find_model(const std::string& name) {
  for (const auto& m : models())
    if (m.name == name) return &m;
  return nullptr;
}

std::string model_names(const std::string& separator) {
  std::string names;
  for (const auto& m : models()) names += (names.empty() ? "" : separator) + m.name;
  return names;
}

const ModelInfo& model_named(const std::string& name) {
  if (const ModelInfo* m = find_model(name)) return *m;
  throw InputError("--model", "", fmt::format("unknown model '{}' (known: {})", name, model_names(", ")));
}

}  // namespace flycol
