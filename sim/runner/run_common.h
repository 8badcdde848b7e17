// Pieces every model's run shares: comparing outputs with the golden convolution, naming an
// output index, and the DRAM timing a run request asks for.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/dram/dram_model.h"
#include "sim/runner/run_layer.h"
#include "sim/workload/workload.h"

namespace flycol {

struct Mismatches {
  std::int64_t count = 0;
  std::int64_t first = -1;  // index of the first differing output, -1 if none
};

Mismatches compare_outputs(const std::vector<AccBits>& got, const std::vector<AccBits>& want);
// "n=..,k=..,y=..,x=.." of an index into the [N][K][Ho][Wo] output.
std::string index_name(const Layer& L, std::int64_t i);
// The configuration's DRAM timing, or a reproducible random profile when dram_seed is set.
DramTiming timing_for(const RunRequest& req);

}  // namespace flycol
