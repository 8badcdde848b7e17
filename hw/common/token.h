// The token the issue stage sends into the PE array each cycle (docs/microarchitecture.md,
// section 9.4): one MAC step's operands plus the swap/window control flags.
#pragma once

#include "hw/common/hw_params.h"

namespace flycol::hw {

struct Token {
  bool valid = false;   // a MAC step (a[] and w[] meaningful)
  bool swap = false;    // accumulators and reserve registers swap after this step
  bool window = false;  // opens a reserve-chain window in every row (COLS shifts)
  elem_t a[kMaxRows]{};  // ifmap element per row (lane), before the feed-register skew
  elem_t w[kMaxCols]{};  // weight per column, before the skew

  bool any() const { return valid || swap || window; }
};

}  // namespace flycol::hw
