// Random fused cases and their golden reference (tb/top/fused_cases.h).
#include "tb/top/fused_cases.h"

#include <fmt/format.h>

#include "sim/golden/conv.h"
#include "sim/golden/pool.h"
#include "sim/runner/pool_layer.h"

namespace flycol::tb {

std::string FusedCase::describe() const {
  const PoolShape& s = pool;
  return fmt::format("conv {} + {} k={}x{},s={}x{},d={}x{},p={}/{}/{}/{},ceil={},include_pad={} tile(c={},kg={},q={},p={}) "
                     "operands={}",
                     conv.spec(), s.op == hw::PoolOp::Max ? "maxpool" : "avgpool", s.ky, s.kx, s.sy, s.sx, s.dy, s.dx,
                     s.pt, s.pl, s.pb, s.pr, int(s.ceil_mode), int(s.count_include_pad), options.tile_c,
                     options.tile_kg, options.tile_q, options.tile_p, operand_class_name(operands));
}

FusedCase random_fused_case(std::mt19937_64& rng, const Config& cfg) {
  auto pick = [&](int lo, int hi) { return int(std::uniform_int_distribution<int>(lo, hi)(rng)); };
  auto chance = [&](double p) { return std::bernoulli_distribution(p)(rng); };
  const int rows = cfg.array.rows;
  FusedCase c;
  for (;;) {
    Layer& l = c.conv;
    l = Layer{};
    l.name = "fused";
    l.n = chance(0.15) ? 2 : 1;
    l.c = chance(0.3) ? pick(1, 4) : pick(5, 40);
    l.k = chance(0.3) ? pick(1, 8) : pick(9, 40);
    const int k = chance(0.2) ? 1 : chance(0.7) ? 3 : pick(2, 7);
    l.ky = l.kx = k;
    if (chance(0.15)) l.kx = pick(1, 5);
    l.sy = l.sx = chance(0.75) ? 1 : 2;
    if (chance(0.1)) l.dy = l.dx = 2;
    l.pt = l.pb = l.pl = l.pr = chance(0.7) ? (l.extent_y() - 1) / 2 : 0;
    if (chance(0.2)) l.pr = 0;
    l.h = pick(2, 28);
    l.w = chance(0.25) ? pick(rows, 3 * rows + 5) : pick(2, 28);
    if (l.ho() < 1 || l.wo() < 1) continue;

    PoolShape& s = c.pool;
    s = PoolShape{};
    s.op = chance(0.6) ? hw::PoolOp::Max : hw::PoolOp::Average;
    s.n = l.n;
    s.c = l.k;
    s.h = l.ho();
    s.w = l.wo();
    if (chance(0.08)) {  // global pooling of the convolution's output
      s.ky = s.h;
      s.kx = s.w;
    } else {
      s.ky = pick(1, 3);
      s.kx = chance(0.8) ? s.ky : pick(1, 3);
      s.sy = chance(0.6) ? s.ky : pick(1, 3);
      s.sx = chance(0.8) ? s.sy : pick(1, 3);
      if (s.op == hw::PoolOp::Max && chance(0.15)) s.dy = s.dx = 2;
      const int ey = (s.ky - 1) * s.dy + 1, ex = (s.kx - 1) * s.dx + 1;
      if (chance(0.4)) {
        s.pt = pick(0, ey - 1);
        s.pb = pick(0, ey - 1);
        s.pl = pick(0, ex - 1);
        s.pr = pick(0, ex - 1);
      }
      s.ceil_mode = chance(0.3);
      s.count_include_pad = s.op == hw::PoolOp::Average && chance(0.4);
    }
    s.source = "fused case";
    if (s.ho() < 1 || s.wo() < 1) continue;
    if (!fusion_problem(l, s, cfg).empty()) continue;
    break;
  }
  if (chance(0.15)) c.options.tile_c = 1;
  if (chance(0.15)) c.options.tile_kg = 1;
  if (chance(0.2)) c.options.tile_q = pick(1, c.pool.ho());
  if (chance(0.25)) c.options.tile_p = pick(1, c.pool.wo());  // column tiles
  try {  // forced sizes that do not fit are dropped, not reported
    (void)compile_fused(c.conv, c.pool, cfg, c.options);
  } catch (const std::exception&) {
    c.options = FusedCompileOptions{};
  }
  const OperandClass classes[] = {OperandClass::uniform, OperandClass::normal, OperandClass::wide,
                                  OperandClass::specials, OperandClass::saturate};
  c.operands = classes[pick(0, 4)];
  c.data_seed = rng();
  c.dram_seed = rng();
  return c;
}

ConvOperands fused_operands(const FusedCase& c, const Config& cfg) {
  OperandDistribution dist;
  dist.operand_class = c.operands;
  return make_random_operands(c.conv, cfg.arithmetic, c.data_seed, dist);
}

std::vector<AccBits> fused_reference(const FusedCase& c, const Config& cfg, const ConvOperands& ops) {
  golden::ConvOptions g;
  g.zero_gating = cfg.zero_gating;
  const std::vector<AccBits> conv = golden::conv(ops, g);
  // FP16 only: an accumulator is an element (fusion_problem refuses the rest).
  const std::vector<ElemBits> elems(conv.begin(), conv.end());
  return golden::pool(golden_pool_layer(c.pool), cfg.arithmetic, elems);
}

}  // namespace flycol::tb
