// `flycol run --model sc`: one layer on the cycle-accurate SystemC model, checked against the
// golden convolution.
#pragma once

#include "sim/runner/run_layer.h"

namespace flycol {

RunOutcome run_sc(const RunRequest& req);

}  // namespace flycol
