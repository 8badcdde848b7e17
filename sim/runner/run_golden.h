// `flycol run --model golden`: the golden convolution in the configured arithmetic, with its
// error against a float64 reference.
#pragma once

#include "sim/runner/run_layer.h"

namespace flycol {

RunOutcome run_golden(const RunRequest& req);

}  // namespace flycol
