// The simulation models `flycol run` can use, each registered once with its run function, so that
// `flycol run --help`, `flycol list`, `flycol sweep` and run_layer() agree on what exists.
// A new model is one entry in models.cpp.
#pragma once

#include <string>
#include <vector>

namespace flycol {

struct RunRequest;
struct RunOutcome;

struct ModelInfo {
  std::string name;
  std::string description;
  RunOutcome (*run)(const RunRequest& req);  // runs one layer, reports with the keys of run_layer.h
  bool reports_cycles;  // a cycle model; false: it computes outputs only (sweeps need cycles)
};

// In the order `--help` and `flycol list` show them.
const std::vector<ModelInfo>& models();
const ModelInfo* find_model(const std::string& name);
// The model called `name`; throws InputError naming the known models when there is none.
const ModelInfo& model_named(const std::string& name);
// The names of the models, joined by `separator`.
std::string model_names(const std::string& separator);

}  // namespace flycol
