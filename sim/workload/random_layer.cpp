// Random layer generator for regressions.
#include "sim/workload/random_layer.h"

#include <cmath>

#include "sim/common/input_error.h"

namespace flycol {
namespace {

int log_uniform(std::mt19937_64& rng, int lo, int hi) {
  std::uniform_real_distribution<double> u(std::log(double(lo)), std::log(double(hi) + 1.0));
  const int v = int(std::exp(u(rng)));
  return v < lo ? lo : (v > hi ? hi : v);
}

int uniform(std::mt19937_64& rng, int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); }

}  // namespace

Layer random_layer(std::mt19937_64& rng, const RandomLayerLimits& lim) {
  for (;;) {
    Layer l;
    l.name = "random";
    l.n = uniform(rng, 1, 8) == 1 ? uniform(rng, 1, lim.max_n) : 1;
    l.c = log_uniform(rng, 1, lim.max_c);
    l.k = log_uniform(rng, 1, lim.max_k);
    l.h = log_uniform(rng, 1, lim.max_hw);
    l.w = log_uniform(rng, 1, lim.max_hw);
    l.ky = uniform(rng, 1, lim.max_kernel);
    l.kx = uniform(rng, 3, 4) == 3 ? l.ky : uniform(rng, 1, lim.max_kernel);  // half square
    l.sy = uniform(rng, 1, lim.max_stride);
    l.sx = uniform(rng, 0, 1) ? l.sy : uniform(rng, 1, lim.max_stride);
    l.dy = uniform(rng, 0, 1) ? 1 : uniform(rng, 1, lim.max_dilation);
    l.dx = uniform(rng, 0, 1) ? l.dy : uniform(rng, 1, lim.max_dilation);
    const bool symmetric = uniform(rng, 0, 1);
    l.pt = uniform(rng, 0, l.extent_y());
    l.pl = uniform(rng, 0, l.extent_x());
    l.pb = symmetric ? l.pt : uniform(rng, 0, l.extent_y());
    l.pr = symmetric ? l.pl : uniform(rng, 0, l.extent_x());
    try {
      validate_layer(l, "random layer");
    } catch (const InputError&) {
      continue;  // no output pixel, or too much padding for the kernel: draw again
    }
    if (l.macs() > lim.max_macs) continue;
    return l;
  }
}

}  // namespace flycol
