// The functional oracle of the command stream: executes a program's commands in stream order on
// a DRAM image with the data semantics of docs/microarchitecture.md (sections 4, 7.3, 7.5, 8),
// and no timing. Written from the spec, not from the compiler, so it can check the compiler.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/compiler/compiler.h"

namespace flycol {

// Runs every command of `p` in order on `dram` (an image of at least p.dram.total_bytes bytes,
// e.g. from build_dram_image). Wait thresholds are ignored: check_hazards() proves that stream
// order is the only order the hardware can observe. Throws std::logic_error when a command
// would read SRAM data that no command defined (outside the last load's stream, or a partial sum
// that was never written), address outside a buffer or the DRAM image, or has a malformed field
// (a pooling RUN against section 16's rules among them). Pooling RUNs are modelled from sections 15
// and 16 (windows, divisor windows, max and the once-rounded average), so the pooling, fused and
// backward pooling programs can be checked here too (tb/top/pool_tb, fused_tb).
void interpret(const Program& p, std::vector<std::uint8_t>& dram);

}  // namespace flycol
