// Registry of simulation models.
#include "sim/runner/models.h"

namespace flycol {

const std::vector<ModelInfo>& models() {
  static const std::vector<ModelInfo> list = {
      {"golden", "direct convolution in the PE's arithmetic, with a float64 error reference", true},
      {"sc", "cycle-accurate SystemC model of the accelerator", true},
      {"rtl", "SystemVerilog RTL co-simulated with Verilator", true},
      {"both", "SystemC and RTL in lockstep, outputs and cycles compared", true},
      {"analytic", "fast transaction-level model for whole networks", true},
  };
  return list;
}

const ModelInfo* find_model(const std::string& name) {
  for (const auto& m : models())
    if (m.name == name) return &m;
  return nullptr;
}

}  // namespace flycol
