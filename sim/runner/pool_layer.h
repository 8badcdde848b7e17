// One pooling layer in the two forms flycol keeps apart on purpose: the golden model's
// golden::PoolLayer and the pooling compiler's PoolShape (which computes Ho and Wo itself), and
// the layer's fields as report JSON. Used by `flycol run --op`, `flycol net` and the pooling
// testbenches, so the field-by-field copies live in one place.
#pragma once

#include "sim/compiler/pool_compiler.h"
#include "sim/golden/pool.h"
#include "sim/report/json.h"

namespace flycol {

PoolShape pool_shape(const golden::PoolLayer& l);          // source: the PoolShape default
golden::PoolLayer golden_pool_layer(const PoolShape& s);   // name: the PoolLayer default

// Writes N, C, H, W, the window, strides, dilations, padding by side, ceil_mode,
// count_include_pad, Ho and Wo of `l` into the object `j` (keys as flycol run --op's report).
void write_pool_layer_json(Json& j, const golden::PoolLayer& l);

}  // namespace flycol
