// `flycol run --model analytic` (and run_layer(model "analytic") for sweeps): one layer through the
// analytic model, reported with the keys of the SystemC model's report.
#pragma once

#include "sim/runner/run_layer.h"

namespace flycol {

RunOutcome run_analytic(const RunRequest& req);

}  // namespace flycol
