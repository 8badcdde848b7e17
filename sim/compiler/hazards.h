// The hazard checker: proves from the wait thresholds alone (section 5) that every pair of
// commands touching the same SRAM buffer or overlapping DRAM bytes, at least one of them writing,
// runs in stream order on the hardware. It recomputes every access from the command fields and
// shares no bookkeeping with the compiler, so it can catch the compiler's mistakes.
#pragma once

#include "sim/compiler/compiler.h"

namespace flycol {

// Throws std::logic_error naming both commands of the first conflicting pair that the waits do
// not order, or naming the one command that waits on a later command (a deadlock), has a field
// out of range, or reaches outside a buffer or the DRAM image.
void check_hazards(const Program& p);

}  // namespace flycol
