// Helpers shared by the compiler tests: the small configurations, random layers and forced
// tilings, and the end-to-end check compile -> hazards -> interpret -> compare with golden::conv.
#pragma once

#include <cstdint>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "sim/common/input_error.h"
#include "sim/compiler/compiler.h"
#include "sim/compiler/hazards.h"
#include "sim/compiler/interpreter.h"
#include "sim/config/config_keys.h"
#include "sim/golden/conv.h"
#include "tests/common/small_config_text.h"

namespace flycol::test {

// configs/small.yaml (4x4 array, 2 kB buffers, B = 4, PB = 32) if present, else the same in code.
inline Config small_config() {
  const std::string path = configs_dir() + "/small.yaml";
  if (std::filesystem::exists(path)) return load_config(path);
  return parse_config(kSmallConfigText, "small (built in by the test)");
}

// Small configurations for the other arithmetics and buffer counts. The integer arrays differ
// from 4x4 where the SRAM word widths require it (a weight row must be at least 64 bits).
inline Config small_variant(Arithmetic a, int ifmap_buffers = 2, int weight_buffers = 2, int psum_buffers = 2) {
  const int cols = a == Arithmetic::int8 ? 8 : 4;
  const int psum_bits = 4 * arithmetic_info(a).acc_bits;
  const std::string text = fmt::format(
      "name: small-{}-b{}{}{}\narray: {{ rows: 4, cols: {} }}\narithmetic: {}\nsram:\n"
      "  ifmap:   {{ kbytes: 2, buffers: {}, word_bits: 64 }}\n"
      "  weights: {{ kbytes: 2, buffers: {}, word_bits: {} }}\n"
      "  psums:   {{ kbytes: 2, buffers: {}, word_bits: {} }}\n"
      "feeder: {{ pattern_bits: 32, intermediate_regs: 2, fifo_depth: 4 }}\n",
      arithmetic_info(a).name, ifmap_buffers, weight_buffers, psum_buffers, cols, arithmetic_info(a).name,
      ifmap_buffers, weight_buffers, cols * arithmetic_info(a).elem_bits, psum_buffers, psum_bits);
  return parse_config(text, "small-variant (built in by the test)");
}

inline Config with_arithmetic(const std::string& name) {
  return load_config(configs_dir() + "/" + name + ".yaml");
}

inline int uniform(std::mt19937_64& rng, int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); }

// Work the interpreter does for a layer on this array (padded lanes and columns included).
inline std::int64_t interpreter_cost(const Layer& l, const hw::HwParams& hw) {
  const std::int64_t kpad = (l.k + hw.cols - 1) / hw.cols * hw.cols;
  const std::int64_t wpad = (l.wo() + hw.rows - 1) / hw.rows * hw.rows;
  return std::int64_t(l.n) * kpad * l.ho() * wpad * l.c * l.ky * l.kx;
}

// Random sizes in the ranges of the brief: N 1-2 and C, H, W, K 1-40 (the kernel, strides,
// dilations and padding are the caller's).
inline void random_sizes(std::mt19937_64& rng, Layer& l) {
  l.n = uniform(rng, 1, 2);
  l.c = uniform(rng, 1, 40);
  l.h = uniform(rng, 1, 40);
  l.w = uniform(rng, 1, 40);
  l.k = uniform(rng, 1, 40);
}

// A random layer in the ranges of the brief (C, H, W, K 1-40, kernels 1x1..7x7, strides and
// dilations 1-4, padding 0..extent-1 per side, N 1-2) whose interpretation costs at most `budget`.
// With full_padding, padding goes up to the extent (the most the layer validator allows), so that
// whole tiles can lie in the padding.
inline Layer random_layer(std::mt19937_64& rng, const hw::HwParams& hw, std::int64_t budget, int index,
                          bool full_padding = false) {
  for (;;) {
    Layer l;
    l.name = fmt::format("random{}", index);
    random_sizes(rng, l);
    l.ky = uniform(rng, 1, 7);
    l.kx = uniform(rng, 1, 7);
    l.sy = uniform(rng, 1, 4);
    l.sx = uniform(rng, 1, 4);
    l.dy = uniform(rng, 1, 4);
    l.dx = uniform(rng, 1, 4);
    const int extra = full_padding ? 1 : 0;
    l.pt = uniform(rng, 0, l.extent_y() - 1 + extra);
    l.pb = uniform(rng, 0, l.extent_y() - 1 + extra);
    l.pl = uniform(rng, 0, l.extent_x() - 1 + extra);
    l.pr = uniform(rng, 0, l.extent_x() - 1 + extra);
    if (l.h + l.pt + l.pb < l.extent_y() || l.w + l.pl + l.pr < l.extent_x()) continue;
    if (l.extent_x() > hw.pattern_bits) continue;
    if (interpreter_cost(l, hw) > budget) continue;
    return l;
  }
}

// Small forced tiles: channel slices (so that preload happens whenever C >= 2), column tiles that
// leave an edge tile, few groups and rows. Falls back towards the smallest tile until it fits.
inline Program compile_forced(const Layer& l, const Config& cfg, const std::string& order, std::mt19937_64& rng) {
  const hw::HwParams hw = hardware_params(cfg);
  const int groups = (l.k + hw.cols - 1) / hw.cols;
  CompileOptions o;
  o.order = order;
  o.align_rows = uniform(rng, 0, 2) == 0;
  o.tile_c = l.c > 1 ? uniform(rng, 1, std::min(l.c - 1, 12)) : 1;
  o.tile_kg = uniform(rng, 1, groups);
  o.tile_h = uniform(rng, 1, std::min(l.ho(), 4));
  const int col_tiles = (l.wo() + hw.rows - 1) / hw.rows;
  o.tile_w = col_tiles > 1 ? hw.rows * uniform(rng, 1, col_tiles - 1) : 0;
  for (int attempt = 0;; ++attempt) {
    try {
      return compile_layer(l, cfg, o);
    } catch (const InputError&) {
      if (attempt == 0) o.tile_h = 1;
      else if (attempt == 1) o.tile_kg = 1;
      else if (attempt == 2) o.tile_w = std::min(l.wo(), hw.rows) == l.wo() ? 0 : hw.rows;
      else if (attempt == 3) o.tile_c = 1;
      else throw;
    }
  }
}

inline std::string first_mismatch(const std::vector<AccBits>& got, const std::vector<AccBits>& want, const Layer& l) {
  if (got.size() != want.size()) return fmt::format("{} outputs, expected {}", got.size(), want.size());
  const int ho = l.ho(), wo = l.wo();
  std::size_t bad = 0, first = got.size();
  for (std::size_t i = 0; i < got.size(); ++i)
    if (got[i] != want[i]) {
      if (first == got.size()) first = i;
      ++bad;
    }
  if (!bad) return "";
  const std::size_t x = first % std::size_t(wo), y = first / std::size_t(wo) % std::size_t(ho);
  const std::size_t k = first / (std::size_t(wo) * std::size_t(ho)) % std::size_t(l.k);
  const std::size_t n = first / (std::size_t(wo) * std::size_t(ho) * std::size_t(l.k));
  return fmt::format("{} of {} outputs differ; first at n={} k={} y={} x={}: {:#x}, golden {:#x}", bad, got.size(), n, k,
                     y, x, got[first], want[first]);
}

// Result of one end-to-end check: empty `error` when the interpreter matches golden::conv.
struct EndToEnd {
  std::string error;
  std::vector<AccBits> out;
};

// Hazard check, interpretation of the program on its DRAM image, and the comparison with the
// golden convolution; also checks that the input tensors in DRAM are untouched.
inline EndToEnd run_end_to_end(const Program& p, std::uint64_t seed, double zero_fraction = 0.0) {
  EndToEnd r;
  check_hazards(p);
  OperandDistribution dist;
  dist.zero_fraction = zero_fraction;
  const ConvOperands ops = make_random_operands(p.layer, p.config.arithmetic, seed, dist);
  std::vector<std::uint8_t> dram = build_dram_image(p, ops);
  const std::vector<std::uint8_t> before(dram.begin(), dram.begin() + std::ptrdiff_t(p.dram.ofmap_base));
  interpret(p, dram);
  if (!std::equal(before.begin(), before.end(), dram.begin())) r.error = "the ifmap or weight region changed";
  r.out = extract_outputs(p, dram.data());
  golden::ConvOptions go;
  go.zero_gating = p.config.zero_gating;
  const std::string mismatch = first_mismatch(r.out, golden::conv(ops, go), p.layer);
  if (r.error.empty()) r.error = mismatch;
  return r;
}

}  // namespace flycol::test
