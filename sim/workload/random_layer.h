// Random convolution layers for regressions: the distribution of the whole-accelerator tests
// (kernels 1x1..7x7 incl. non-square, strides 1-4, dilations 1-8, asymmetric padding up to the
// kernel extent, sizes that are not multiples of the array), with a cap on MACs so a test run
// stays within its time budget. Every layer returned passes validate_layer().
#pragma once

#include <cstdint>
#include <random>

#include "sim/config/layer.h"

namespace flycol {

struct RandomLayerLimits {
  int max_c = 300, max_hw = 80, max_k = 80;
  int max_kernel = 7, max_stride = 4, max_dilation = 8;
  int max_n = 2;
  std::int64_t max_macs = 2'000'000;
};

// Draws until a valid layer within the limits comes up (sizes are log-uniform, so small layers
// are common and large ones still appear).
Layer random_layer(std::mt19937_64& rng, const RandomLayerLimits& lim);

}  // namespace flycol
