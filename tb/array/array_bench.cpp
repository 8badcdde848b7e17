// Benchmark of the fast PE-array model (hw/array/array_core.h): tokens evaluated per second for
// 16x16 fp16 (the accelerator top's hot loop) and the integer arithmetics. Prints figures only;
// speed targets are not tests. Usage: array_bench [--tokens N]
#include <chrono>
#include <ctime>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "base/numerics/fp16.h"
#include "hw/array/array_core.h"

using namespace flycol;
using namespace flycol::hw;

namespace {

struct Rate {
  double cpu, wall;  // tokens per second of process CPU time and of wall-clock time
};

// Runs `n` cycles; every cycle issues a MAC step, and with context length `ctx` > 0 every ctx-th
// step is also a swap+window token (windows as often as the issue rule allows).
Rate run(Arithmetic arith, bool gating, int rows, int cols, std::uint64_t n, int ctx, double zero_frac) {
  HwParams p;
  p.rows = rows;
  p.cols = cols;
  p.arithmetic = arith;
  p.zero_gating = gating;
  ArrayCore core(p);
  std::mt19937_64 rng(7);
  // A pool of pre-made tokens, so the benchmark times the array and not the random generator.
  std::vector<Token> pool(64);
  for (Token& t : pool) {
    t.valid = true;
    for (int i = 0; i < kMaxRows; ++i) {
      const bool zero = std::uniform_real_distribution<double>(0, 1)(rng) < zero_frac;
      if (arith == Arithmetic::fp16) {
        t.a[i] = zero ? 0 : fp16::from_float(std::uniform_real_distribution<float>(-1, 1)(rng));
        t.w[i] = fp16::from_float(std::uniform_real_distribution<float>(-0.1f, 0.1f)(rng));
      } else {
        t.a[i] = zero ? 0 : elem_t(rng() & (arith == Arithmetic::int8 ? 0x7F : 0x7FF));
        t.w[i] = elem_t(rng() & (arith == Arithmetic::int8 ? 0xFF : 0xFFF));
      }
    }
  }
  std::vector<Token> pool_win = pool;
  for (Token& t : pool_win) t.swap = t.window = true;
  acc_t pre[kMaxRows]{};
  std::uint64_t since = 1u << 30, sink = 0;
  const auto t0 = std::chrono::steady_clock::now();
  const std::clock_t c0 = std::clock();
  for (std::uint64_t i = 0; i < n; ++i) {
    const bool win = ctx > 0 && (i % std::uint64_t(ctx)) == std::uint64_t(ctx - 1) && since >= std::uint64_t(2 * cols);
    const Token& t = win ? pool_win[i & 63] : pool[i & 63];
    since = win ? 0 : since + 1;
    core.eval(&t, core.pre_pop() ? pre : nullptr);
    core.tick();
    if (core.res_valid()) sink += core.res_word()[0];
  }
  const double cpu = double(std::clock() - c0) / CLOCKS_PER_SEC;
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (sink == 42) fmt::print(" ");  // keeps the results alive
  return Rate{double(n) / cpu, double(n) / wall};
}

}  // namespace

int main(int argc, char** argv) {
  std::uint64_t n = 2000000;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--tokens" && i + 1 < argc) n = std::strtoull(argv[++i], nullptr, 0);
    else {
      fmt::print(stderr, "usage: array_bench [--tokens N]\n");
      return 2;
    }
  }
  struct Case {
    const char* name;
    Arithmetic arith;
    bool gating;
    int rows, cols, ctx;
    double zeros;
  };
  const Case cases[] = {
      {"16x16 fp16, all MAC tokens, gating on, no zeros", Arithmetic::fp16, true, 16, 16, 0, 0.0},
      {"16x16 fp16, all MAC tokens, gating off", Arithmetic::fp16, false, 16, 16, 0, 0.0},
      {"16x16 fp16, all MAC tokens, 30% zero ifmap", Arithmetic::fp16, true, 16, 16, 0, 0.3},
      {"16x16 fp16, context of 36 steps (swap+window)", Arithmetic::fp16, true, 16, 16, 36, 0.0},
      {"16x16 int8, all MAC tokens", Arithmetic::int8, true, 16, 16, 0, 0.0},
      {"16x16 int16, all MAC tokens", Arithmetic::int16, true, 16, 16, 0, 0.0},
      {"32x32 fp16, all MAC tokens", Arithmetic::fp16, true, 32, 32, 0, 0.0},
  };
  for (const Case& c : cases) {
    const Rate r = run(c.arith, c.gating, c.rows, c.cols, n, c.ctx, c.zeros);
    fmt::print("{:<48} {:7.2f} M tokens/s {:7.1f} ns/token {:6.2f} G MAC/s (CPU time; wall clock {:.2f} M tokens/s)\n",
               c.name, r.cpu / 1e6, 1e9 / r.cpu, r.cpu * c.rows * c.cols / 1e9, r.wall / 1e6);
  }
  return 0;
}
