// `flycol run --model rtl` and `--model both`: the Verilated RTL alone, or in lockstep with the
// SystemC model (outputs and cycle counts compared, first divergence and a waveform on mismatch).
#pragma once

#include "sim/runner/run_layer.h"

namespace flycol {

RunOutcome run_rtl(const RunRequest& req);   // the Verilated RTL alone
RunOutcome run_both(const RunRequest& req);  // RTL and SystemC model in lockstep

}  // namespace flycol
