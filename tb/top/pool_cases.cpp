// Random pooling layers for the whole-accelerator pooling benches (pool_cases.h).
#include "tb/top/pool_cases.h"

#include <fmt/format.h>

namespace flycol::tb {

std::string PoolCase::describe() const {
  const PoolShape& s = shape;
  return fmt::format("{} N={},C={},H={},W={},k={}x{},s={}x{},d={}x{},p={}/{}/{}/{},ceil={},include_pad={} "
                     "tile(c={},h={},w={}) operands={}",
                     s.op == hw::PoolOp::Max ? "maxpool" : "avgpool", s.n, s.c, s.h, s.w, s.ky, s.kx, s.sy, s.sx, s.dy,
                     s.dx, s.pt, s.pl, s.pb, s.pr, int(s.ceil_mode), int(s.count_include_pad), options.tile_c,
                     options.tile_h, options.tile_w, operand_class_name(operands));
}

// A random layer the pooling unit takes (pool_cases.h).
PoolCase random_pool_case(std::mt19937_64& rng, const hw::HwParams& hw) {
  auto pick = [&](int lo, int hi) { return int(std::uniform_int_distribution<int>(lo, hi)(rng)); };
  auto chance = [&](double p) { return std::bernoulli_distribution(p)(rng); };
  PoolCase c;
  PoolShape& s = c.shape;
  for (;;) {
    s = PoolShape{};
    s.op = chance(0.5) ? hw::PoolOp::Max : hw::PoolOp::Average;
    s.n = chance(0.2) ? 2 : 1;
    s.c = chance(0.3) ? pick(1, 3) : pick(4, 40);
    s.h = pick(1, 24);
    s.w = chance(0.2) ? pick(hw.rows, 3 * hw.rows + 5) : pick(1, 24);
    if (chance(0.12)) {  // global pooling: the map is the window
      s.ky = s.h;
      s.kx = s.w;
    } else {
      s.ky = pick(1, 5);
      s.kx = pick(1, 5);
      s.sy = pick(1, 3);
      s.sx = pick(1, 3);
      if (s.op == hw::PoolOp::Max && chance(0.25)) {
        s.dy = pick(1, 3);
        s.dx = pick(1, 3);
      }
      const int ey = (s.ky - 1) * s.dy + 1, ex = (s.kx - 1) * s.dx + 1;
      if (chance(0.6)) {
        s.pt = pick(0, ey - 1);
        s.pb = pick(0, ey - 1);
        s.pl = pick(0, ex - 1);
        s.pr = pick(0, ex - 1);
      }
      s.ceil_mode = chance(0.3);
      s.count_include_pad = s.op == hw::PoolOp::Average && chance(0.4);
    }
    if (s.ho() >= 1 && s.wo() >= 1) break;
  }
  if (chance(0.2)) c.options.tile_c = 1;
  if (chance(0.2)) c.options.tile_h = pick(1, s.ho());
  const OperandClass classes[] = {OperandClass::uniform, OperandClass::normal, OperandClass::wide,
                                  OperandClass::specials, OperandClass::saturate};
  c.operands = classes[pick(0, 4)];
  c.data_seed = rng();
  c.dram_seed = rng();
  return c;
}

std::vector<ElemBits> pool_ifmap(const PoolCase& c, Arithmetic arith) {
  Layer as_conv;
  as_conv.n = c.shape.n, as_conv.c = c.shape.c, as_conv.h = c.shape.h, as_conv.w = c.shape.w;
  OperandDistribution dist;
  dist.operand_class = c.operands;
  return make_random_operands(as_conv, arith, c.data_seed, dist).ifmap;
}

}  // namespace flycol::tb
