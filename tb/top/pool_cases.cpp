// Random pooling layers for the whole-accelerator pooling benches (pool_cases.h).
#include "tb/top/pool_cases.h"

#include <fmt/format.h>

#include "sim/common/input_error.h"
#include "sim/config/config_keys.h"

namespace flycol::tb {

std::string PoolCase::describe() const {
  const PoolShape& s = shape;
  return fmt::format("{} N={},C={},H={},W={},k={}x{},s={}x{},d={}x{},p={}/{}/{}/{},ceil={},include_pad={} "
                     "tile(c={},h={},w={}) operands={}{}",
                     s.op == hw::PoolOp::Max ? "maxpool" : "avgpool", s.n, s.c, s.h, s.w, s.ky, s.kx, s.sy, s.sx, s.dy,
                     s.dx, s.pt, s.pl, s.pb, s.pr, int(s.ceil_mode), int(s.count_include_pad), options.tile_c,
                     options.tile_h, options.tile_w, operand_class_name(operands), ties ? " ties" : "");
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

PoolCase random_pool_backward_case(std::mt19937_64& rng, const Config& cfg) {
  auto pick = [&](int lo, int hi) { return int(std::uniform_int_distribution<int>(lo, hi)(rng)); };
  auto chance = [&](double p) { return std::bernoulli_distribution(p)(rng); };
  const hw::HwParams hw = hardware_params(cfg);
  const auto fits = [&](const PoolShape& s, const PoolCompileOptions& o) {
    try {
      (void)compile_pool_backward(s, cfg, o);
      return true;
    } catch (const InputError& e) {
      if (e.key().rfind("sram", 0) != 0) throw;  // not a capacity refusal: the bench reports it
      return false;
    }
  };
  PoolCase c;
  do c = random_pool_case(rng, hw);
  while ((c.shape.op != hw::PoolOp::Average && (c.shape.dy != 1 || c.shape.dx != 1)) || !fits(c.shape, {}));
  const PoolShape& s = c.shape;
  c.options = {};
  c.ties = s.op == hw::PoolOp::Max && chance(0.33);
  if (chance(0.2)) c.options.tile_c = pick(1, std::min(s.c, 3));
  if (chance(0.25)) c.options.tile_h = pick(1, s.h);
  if (chance(0.2) && s.w > hw.rows) c.options.tile_w = hw.rows * pick(1, (s.w - 1) / hw.rows);
  if (!fits(s, c.options)) c.options = {};  // forced tiles too large for the buffers: the compiler's own
  return c;
}

std::vector<AccBits> pool_grad(const PoolCase& c, Arithmetic arith) {
  PoolCase on_out = c;
  on_out.shape.h = c.shape.ho();
  on_out.shape.w = c.shape.wo();
  return elements_as_accumulators(pool_ifmap(on_out, arith), arith);
}

PoolCaseRun pool_case_run(const PoolCase& c, const Config& cfg, bool backward) {
  PoolCaseRun r;
  if (!backward) {
    r.prog = compile_pool(c.shape, cfg, c.options);
    const std::vector<ElemBits> ifmap = pool_ifmap(c, cfg.arithmetic);
    r.want = golden::pool(golden_pool_layer(c.shape), cfg.arithmetic, ifmap);
    r.image = build_pool_dram_image(r.prog, ifmap);
    return r;
  }
  r.prog = compile_pool_backward(c.shape, cfg, c.options);
  const std::vector<AccBits> grad = pool_grad(c, cfg.arithmetic);
  const std::vector<ElemBits> x =
      c.shape.op == hw::PoolOp::Max ? pool_ifmap(c, cfg.arithmetic) : std::vector<ElemBits>{};
  r.want = golden::pool_backward(golden_pool_layer(c.shape), cfg.arithmetic, x, grad);
  r.image = build_pool_backward_dram_image(r.prog, grad, x);
  return r;
}

std::vector<ElemBits> pool_ifmap(const PoolCase& c, Arithmetic arith) {
  Layer as_conv;
  as_conv.n = c.shape.n, as_conv.c = c.shape.c, as_conv.h = c.shape.h, as_conv.w = c.shape.w;
  OperandDistribution dist;
  dist.operand_class = c.operands;
  std::vector<ElemBits> v = make_random_operands(as_conv, arith, c.data_seed, dist).ifmap;
  if (c.ties) {
    static const ElemBits fp16[] = {0xFC00, 0xFC00, 0xFC00, 0x8000, 0x0000, 0x3C00, 0x7E01};
    const ElemBits lo = arith == Arithmetic::int8 ? 0x80 : 0x8000;
    const ElemBits ints[] = {lo, lo, lo, 0, 1};
    std::uint64_t h = c.data_seed;
    for (ElemBits& e : v) {
      h = h * 6364136223846793005ull + 1442695040888963407ull;  // one LCG step per element
      e = arith == Arithmetic::fp16 ? fp16[(h >> 33) % 7] : ints[(h >> 33) % 5];
    }
  }
  return v;
}

}  // namespace flycol::tb
