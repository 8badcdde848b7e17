// Program features of whole-accelerator test cases, their coverage counts and the cases aimed at a
// feature (see program_coverage.h).
#include "tb/top/program_coverage.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "sim/common/input_error.h"
#include "sim/golden/conv.h"

namespace flycol::tb {
namespace {

constexpr const char* kNames[kFeatureCount] = {
    "order_output_stationary", "order_k_outer", "order_spill", "aligned_rows", "flat_contexts", "packed_contexts",
    "packed_images", "skip_rows", "gathered_cols", "channel_slices", "spill", "k_tiles", "edge_tile_x", "edge_tile_y", "pad_top",
    "pad_bottom", "pad_left",
    "pad_right", "stride_and_dilation", "batch", "kernel_one_direction", "searched_plan", "zero_operands",
    "operands_normal", "operands_wide", "operands_specials", "operands_saturate", "fp16_overflow", "int_saturated"};

int uniform_int(std::mt19937_64& rng, int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); }
bool coin(std::mt19937_64& rng, double p) { return std::uniform_real_distribution<double>(0, 1)(rng) < p; }

bool valid(const Layer& l) {
  try {
    validate_layer(l, "aimed layer");
  } catch (const InputError&) {
    return false;
  }
  return true;
}

// Halves the largest of C, K, H, W until the layer has at most max_macs MACs (H and W not below
// the kernel's extent).
void shrink(Layer& l, std::int64_t max_macs) {
  for (int guard = 0; guard < 64 && l.macs() > max_macs; ++guard) {
    int* dims[4] = {&l.c, &l.k, &l.h, &l.w};
    const int floor_of[4] = {1, 1, std::max(1, l.extent_y() - l.pt - l.pb), std::max(1, l.extent_x() - l.pl - l.pr)};
    int pick = -1;
    for (int i = 0; i < 4; ++i)
      if (*dims[i] / 2 >= floor_of[i] && (pick < 0 || *dims[i] > *dims[pick])) pick = i;
    if (pick < 0) return;
    *dims[pick] /= 2;
  }
}

void clamp_padding(Layer& l) {
  l.pt = std::min(l.pt, l.extent_y());
  l.pb = std::min(l.pb, l.extent_y());
  l.pl = std::min(l.pl, l.extent_x());
  l.pr = std::min(l.pr, l.extent_x());
}

// The layer half of aim_case.
void aim_layer(Feature f, Layer& l, const Config& cfg, std::mt19937_64& rng) {
  const int rows = cfg.array.rows;
  switch (f) {
    case Feature::flat_contexts:
      l.ky = l.kx = l.dy = l.dx = l.sy = 1;
      l.pt = l.pb = l.pl = l.pr = 0;
      break;
    case Feature::packed_images:  // several images of a 1x1 layer, outputs per image rarely whole contexts
      l.ky = l.kx = l.dy = l.dx = l.sy = l.sx = 1;
      l.pt = l.pb = l.pl = l.pr = 0;
      l.n = uniform_int(rng, 2, 6);
      break;
    case Feature::skip_rows:
      l.ky = l.dy = 1;
      l.pt = l.pb = 0;
      l.sy = uniform_int(rng, 2, 4);
      break;
    case Feature::gathered_cols:
      l.kx = l.dx = 1;
      l.sx = uniform_int(rng, 2, hw::kMaxElemStep);
      clamp_padding(l);
      break;
    case Feature::packed_contexts:  // a kernel wider than 1x1 over output rows of any width
      if (l.kx == 1 && l.ky == 1) l.kx = l.ky = 3;
      l.sy = 1;
      break;
    case Feature::channel_slices:
    case Feature::spill:
      if (l.c < 2) l.c = uniform_int(rng, 2, 48);
      break;
    case Feature::fp16_overflow:
    case Feature::int_saturated:  // a deeper reduction of saturate-class operands
      l.c = std::max(l.c, uniform_int(rng, 16, 128));
      break;
    case Feature::k_tiles:
      if (l.k <= cfg.array.cols) l.k = cfg.array.cols + uniform_int(rng, 1, cfg.array.cols);
      break;
    case Feature::edge_tile_x:  // Wo = m * ROWS + r, 0 < r < ROWS, with column tiles of ROWS
      l.sx = 1;
      l.pl = l.pr = 0;
      l.w = l.extent_x() - 1 + rows * uniform_int(rng, 1, 3) + uniform_int(rng, 1, std::max(1, rows - 1));
      break;
    case Feature::edge_tile_y:
      if (l.ho() < 3) {
        l.sy = 1;
        l.pt = l.pb = 0;
        l.h = l.extent_y() - 1 + uniform_int(rng, 3, 12);
      }
      break;
    case Feature::pad_top: l.pt = uniform_int(rng, 1, l.extent_y()); break;
    case Feature::pad_bottom: l.pb = uniform_int(rng, 1, l.extent_y()); break;
    case Feature::pad_left: l.pl = uniform_int(rng, 1, l.extent_x()); break;
    case Feature::pad_right: l.pr = uniform_int(rng, 1, l.extent_x()); break;
    case Feature::stride_and_dilation:
      if (l.kx == 1) l.kx = uniform_int(rng, 2, 4);
      l.sx = uniform_int(rng, 2, 4);
      l.dx = uniform_int(rng, 2, 4);
      clamp_padding(l);
      break;
    case Feature::batch: l.n = 2; break;
    case Feature::kernel_one_direction:
      if (coin(rng, 0.5)) {
        l.ky = l.dy = 1;
        l.kx = uniform_int(rng, 2, 5);
      } else {
        l.kx = l.dx = 1;
        l.ky = uniform_int(rng, 2, 5);
      }
      clamp_padding(l);
      break;
    default: break;
  }
}

// The options half of aim_case, after the layer is final.
void aim_options(Feature f, Case& c, const Config& cfg, std::mt19937_64& rng) {
  CompileOptions& o = c.opt;
  const Layer& l = c.layer;
  switch (f) {
    case Feature::order_output_stationary: o.order = "output_stationary"; break;
    case Feature::order_k_outer: o.order = "k_outer"; break;
    case Feature::order_spill: o.order = "spill"; break;
    case Feature::aligned_rows:
      o.align_rows = true;
      o.flat_contexts = false;
      break;
    case Feature::flat_contexts:
      o = CompileOptions{o.tile_c, o.tile_kg, o.tile_h, 0, o.order};
      o.flat_contexts = true;
      break;
    case Feature::packed_images:
      o = CompileOptions{o.tile_c, o.tile_kg, 0, 0, o.order == "spill" ? "output_stationary" : o.order};
      o.flat_contexts = true;  // tile_n = 0: as many whole images as fit
      break;
    case Feature::skip_rows:
      o.skip_rows = true;
      o.flat_contexts = false;
      break;
    case Feature::gathered_cols: o.gather_cols = true; break;
    case Feature::packed_contexts:
      o = CompileOptions{o.tile_c, o.tile_kg, o.tile_h, 0, o.order};
      o.flat_contexts = true;
      break;
    case Feature::channel_slices:
    case Feature::spill:
      o.order = f == Feature::spill ? "spill" : (coin(rng, 0.5) ? "output_stationary" : "k_outer");
      o.tile_c = uniform_int(rng, 1, l.c - 1);
      break;
    case Feature::k_tiles: o.tile_kg = 1; break;
    case Feature::edge_tile_x:
      o.flat_contexts = false;
      o.tile_w = cfg.array.rows;
      break;
    case Feature::edge_tile_y: {
      const int ho = l.ho();
      int th = ho - 1;
      for (int i = 0; i < 8 && ho > 2; ++i) {
        const int t = uniform_int(rng, 2, ho - 1);
        if (ho % t != 0) {
          th = t;
          break;
        }
      }
      o.tile_h = std::max(1, th);
      break;
    }
    case Feature::searched_plan:
      c.search = true;
      o = CompileOptions{};
      return;
    case Feature::zero_operands: c.zeros = 0.3; break;
    case Feature::operands_normal: c.operands = "normal"; break;
    case Feature::operands_wide: c.operands = "wide"; break;
    case Feature::operands_specials: c.operands = "specials"; break;
    case Feature::operands_saturate:
    case Feature::fp16_overflow:
    case Feature::int_saturated: c.operands = "saturate"; break;
    default: break;
  }
  if (f != Feature::searched_plan && f < Feature::zero_operands) c.search = false;
}

}  // namespace

const char* feature_name(Feature f) { return kNames[int(f)]; }

std::vector<Feature> features_of(const Case& c, const Program& p) {
  std::vector<Feature> fs;
  const TilePlan& t = p.plan;
  const Layer& l = c.layer;   // as drawn
  const Layer& v = p.layer;   // as the program runs it (a GeMM view of a 1x1 layer may differ)
  if (t.order == "output_stationary") fs.push_back(Feature::order_output_stationary);
  if (t.order == "k_outer") fs.push_back(Feature::order_k_outer);
  if (t.order == "spill") fs.push_back(Feature::order_spill);
  if (t.aligned) fs.push_back(Feature::aligned_rows);
  if (t.flat) fs.push_back(Feature::flat_contexts);
  if (t.flat && !(v.kx == 1 && v.ky == 1)) fs.push_back(Feature::packed_contexts);
  if (t.tn > 1) fs.push_back(Feature::packed_images);
  if (t.skip_rows) fs.push_back(Feature::skip_rows);
  if (t.gather) fs.push_back(Feature::gathered_cols);
  if (t.tiles_c > 1) fs.push_back(t.order == "spill" ? Feature::spill : Feature::channel_slices);
  if (t.tiles_k > 1) fs.push_back(Feature::k_tiles);
  if (t.tiles_w > 1 && v.wo() % t.tw != 0) fs.push_back(Feature::edge_tile_x);
  if (t.tiles_h > 1 && v.ho() % t.th != 0) fs.push_back(Feature::edge_tile_y);
  if (l.pt > 0) fs.push_back(Feature::pad_top);
  if (l.pb > 0) fs.push_back(Feature::pad_bottom);
  if (l.pl > 0) fs.push_back(Feature::pad_left);
  if (l.pr > 0) fs.push_back(Feature::pad_right);
  const bool strided = l.sy > 1 || l.sx > 1;
  const bool dilated = (l.dy > 1 && l.ky > 1) || (l.dx > 1 && l.kx > 1);  // a dilation that spreads taps
  if (strided && dilated) fs.push_back(Feature::stride_and_dilation);
  if (l.n > 1) fs.push_back(Feature::batch);
  if ((l.ky > 1) != (l.kx > 1)) fs.push_back(Feature::kernel_one_direction);
  if (c.search) fs.push_back(Feature::searched_plan);
  if (c.zeros > 0) fs.push_back(Feature::zero_operands);
  if (c.operands == "normal") fs.push_back(Feature::operands_normal);
  if (c.operands == "wide") fs.push_back(Feature::operands_wide);
  if (c.operands == "specials") fs.push_back(Feature::operands_specials);
  if (c.operands == "saturate") fs.push_back(Feature::operands_saturate);
  return fs;
}

void Coverage::add(const std::vector<Feature>& fs) {
  for (const Feature f : fs) ++hits_[std::size_t(f)];
}

std::vector<Feature> Coverage::below(int min, Arithmetic a) const {
  std::vector<Feature> out;
  for (int i = 0; i < kFeatureCount; ++i)
    if (hits_[std::size_t(i)] < min && feature_applies(Feature(i), a)) out.push_back(Feature(i));
  return out;
}

std::vector<Feature> outcome_features(const ConvOperands& ops, const std::vector<AccBits>& want) {
  std::vector<Feature> fs;
  if (ops.arithmetic == Arithmetic::fp16) {
    auto finite = [](ElemBits e) { return (e & 0x7C00u) != 0x7C00u; };
    const bool operands_finite = std::all_of(ops.ifmap.begin(), ops.ifmap.end(), finite) &&
                                 std::all_of(ops.weights.begin(), ops.weights.end(), finite);
    const bool overflow = std::any_of(want.begin(), want.end(), [](AccBits v) { return (v & 0x7C00u) == 0x7C00u; });
    if (operands_finite && overflow) fs.push_back(Feature::fp16_overflow);
  } else {
    const bool clamped = std::any_of(want.begin(), want.end(), [](AccBits v) {
      return std::int32_t(v) == std::numeric_limits<std::int32_t>::max() ||
             std::int32_t(v) == std::numeric_limits<std::int32_t>::min();
    });
    if (clamped) fs.push_back(Feature::int_saturated);
  }
  return fs;
}

bool feature_applies(Feature f, Arithmetic a) {
  if (f == Feature::fp16_overflow) return a == Arithmetic::fp16;
  if (f == Feature::int_saturated) return a == Arithmetic::int16;
  return true;
}

std::string Coverage::table() const {
  std::string t;
  for (int i = 0; i < kFeatureCount; ++i) t += fmt::format("{}{}={}", i ? " " : "", kNames[i], hits_[std::size_t(i)]);
  return t;
}

void aim_case(Feature f, Case& c, const Config& cfg, std::mt19937_64& rng, std::int64_t max_macs) {
  aim_layer(f, c.layer, cfg, rng);
  shrink(c.layer, max_macs);
  aim_options(f, c, cfg, rng);
}

bool case_features(const Case& c, const Config& cfg, std::vector<Feature>& fs) {
  try {
    fs = features_of(c, compile_case(c, cfg));
  } catch (const InputError&) {
    return false;
  }
  golden::ConvOptions g;
  g.zero_gating = cfg.zero_gating;
  const ConvOperands ops = make_case_operands(c, cfg);
  for (const Feature f : outcome_features(ops, golden::conv(ops, g))) fs.push_back(f);
  return true;
}

bool scaled_copy(const Case& c, const Config& cfg, std::int64_t max_macs, Case& out) {
  std::vector<Feature> want;
  if (!case_features(c, cfg, want)) return false;
  std::mt19937_64 rng(c.data_seed ^ 0x5ca1edull);
  const double ratio = std::min(1.0, double(max_macs) / double(std::max<std::int64_t>(1, c.layer.macs())));
  for (int attempt = 0; attempt < 200; ++attempt) {
    Case s = c;
    // Early attempts aim well below the cap (the smaller the copy, the cheaper the RTL run).
    const double target = ratio * std::min(1.0, 0.05 + 0.01 * attempt);
    // Spread the MAC ratio over C, K, H and W with random weights (some attempts keep C, which a
    // deep reduction such as a saturating one needs), with the forced tiles scaled alongside
    // (column tiles stay multiples of array.rows).
    double w[4], sum = 0;
    for (double& x : w) sum += (x = std::uniform_real_distribution<double>(0.05, 1.0)(rng));
    if (attempt % 2 == 1) sum -= w[0], w[0] = 0;
    double f[4];
    for (int i = 0; i < 4; ++i) f[i] = std::pow(target, w[i] / sum) * std::uniform_real_distribution<double>(0.8, 1.0)(rng);
    auto scaled = [](int v, double x, int lo) { return std::max(lo, int(std::lround(double(v) * x))); };
    s.layer.c = scaled(c.layer.c, f[0], c.opt.tile_c > 0 ? 2 : 1);
    s.layer.k = scaled(c.layer.k, f[1], 1);
    s.layer.h = scaled(c.layer.h, f[2], std::max(1, c.layer.extent_y() - c.layer.pt - c.layer.pb));
    s.layer.w = scaled(c.layer.w, f[3], std::max(1, c.layer.extent_x() - c.layer.pl - c.layer.pr));
    if (!valid(s.layer) || s.layer.macs() > max_macs) continue;
    if (c.opt.tile_c > 0) s.opt.tile_c = std::clamp(scaled(c.opt.tile_c, f[0], 1), 1, std::max(1, s.layer.c - 1));
    if (c.opt.tile_h > 0) s.opt.tile_h = std::clamp(scaled(c.opt.tile_h, f[2], 1), 1, std::max(1, s.layer.ho() - 1));
    if (c.opt.tile_w > 0 && c.opt.tile_w != c.layer.wo())
      s.opt.tile_w = cfg.array.rows * std::max(1, scaled(c.opt.tile_w / cfg.array.rows, f[3], 1));
    std::vector<Feature> got;
    if (!case_features(s, cfg, got)) continue;
    if (std::all_of(want.begin(), want.end(),
                    [&](Feature x) { return std::find(got.begin(), got.end(), x) != got.end(); })) {
      out = s;
      return true;
    }
  }
  return false;
}

}  // namespace flycol::tb
