// The simulation models `flycol run` can use, registered by name in one place so that --help,
// `flycol list` and the runner agree on what exists and what is built.
#pragma once

#include <string>
#include <vector>

namespace flycol {

struct ModelInfo {
  std::string name;
  std::string description;
  bool available;  // false: named in the interface but not built in this version
};

const std::vector<ModelInfo>& models();
const ModelInfo* find_model(const std::string& name);

}  // namespace flycol
