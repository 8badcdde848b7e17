// Host-side im2col: the lowered layer's shape and the lowered operands.
#include "sim/compiler/explicit_lowering.h"

#include <stdexcept>

#include <fmt/format.h>

namespace flycol {
namespace {
constexpr int kMaxWidth = 8192;  // the layer validator's limit on W
}

Layer explicit_lowered_layer(const Layer& l, const hw::HwParams& hw) {
  const int ho = l.ho(), wo = l.wo();
  int best_f = 1;
  bool best_aligned = false;
  for (int f = 1; f <= ho; ++f) {
    if (ho % f != 0 || std::int64_t(wo) * f > kMaxWidth) continue;
    const bool aligned = (std::int64_t(wo) * f) % hw.rows == 0;
    if ((aligned && !best_aligned) || (aligned == best_aligned && f > best_f)) {
      best_f = f;
      best_aligned = aligned;
    }
  }
  Layer m;
  m.name = l.name;
  m.n = l.n;
  m.c = l.c * l.ky * l.kx;
  m.h = ho / best_f;
  m.w = wo * best_f;
  m.k = l.k;
  return m;  // k = 1, stride 1, dilation 1, no padding: the defaults
}

ConvOperands lower_operands(const ConvOperands& ops, const Layer& m) {
  const Layer& l = ops.layer;
  const int ho = l.ho(), wo = l.wo();
  if (m.n != l.n || m.c != l.c * l.ky * l.kx || std::int64_t(m.h) * m.w != std::int64_t(ho) * wo || m.k != l.k)
    throw std::invalid_argument(fmt::format("lower_operands: {} is not the lowered form of {}", m.spec(), l.spec()));
  ConvOperands out;
  out.layer = m;
  out.arithmetic = ops.arithmetic;
  out.weights = ops.weights;  // [K][C][ky][kx] is [K][C*ky*kx][1][1]
  out.ifmap.assign(std::size_t(m.ifmap_elems()), 0);
  const std::size_t pixels = std::size_t(ho) * std::size_t(wo);
  for (int n = 0; n < l.n; ++n)
    for (int c = 0; c < l.c; ++c)
      for (int y = 0; y < l.ky; ++y)
        for (int x = 0; x < l.kx; ++x) {
          const std::size_t row = (std::size_t(n) * std::size_t(m.c) + std::size_t((c * l.ky + y) * l.kx + x)) * pixels;
          for (int oy = 0; oy < ho; ++oy) {
            const int iy = oy * l.sy - l.pt + y * l.dy;
            if (iy < 0 || iy >= l.h) continue;
            for (int ox = 0; ox < wo; ++ox) {
              const int ix = ox * l.sx - l.pl + x * l.dx;
              if (ix < 0 || ix >= l.w) continue;
              out.ifmap[row + std::size_t(oy) * std::size_t(wo) + std::size_t(ox)] =
                  ops.ifmap[((std::size_t(n) * std::size_t(l.c) + std::size_t(c)) * std::size_t(l.h) + std::size_t(iy)) *
                                std::size_t(l.w) + std::size_t(ix)];
            }
          }
        }
  return out;
}

}  // namespace flycol
