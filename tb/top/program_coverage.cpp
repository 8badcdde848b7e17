// Program features of whole-accelerator test cases, their coverage counts and the cases aimed at a
// feature (see program_coverage.h).
#include "tb/top/program_coverage.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "sim/common/input_error.h"

namespace flycol::tb {
namespace {

constexpr const char* kNames[kFeatureCount] = {
    "order_output_stationary", "order_k_outer", "order_spill", "aligned_rows", "flat_contexts", "skip_rows",
    "channel_slices", "spill", "k_tiles", "edge_tile_x", "edge_tile_y", "pad_top", "pad_bottom", "pad_left",
    "pad_right", "stride_and_dilation", "batch", "kernel_one_direction", "searched_plan", "zero_operands",
    "operands_normal", "operands_wide", "operands_specials", "operands_saturate"};

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
    case Feature::skip_rows:
      l.ky = l.dy = 1;
      l.pt = l.pb = 0;
      l.sy = uniform_int(rng, 2, 4);
      break;
    case Feature::channel_slices:
    case Feature::spill:
      if (l.c < 2) l.c = uniform_int(rng, 2, 48);
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
    case Feature::skip_rows:
      o.skip_rows = true;
      o.flat_contexts = false;
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
    case Feature::operands_saturate: c.operands = "saturate"; break;
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
  if (t.skip_rows) fs.push_back(Feature::skip_rows);
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

std::vector<Feature> Coverage::below(int min) const {
  std::vector<Feature> out;
  for (int i = 0; i < kFeatureCount; ++i)
    if (hits_[std::size_t(i)] < min) out.push_back(Feature(i));
  return out;
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

bool scaled_copy(const Case& c, const Config& cfg, std::int64_t max_macs, Case& out) {
  std::vector<Feature> want;
  try {
    want = features_of(c, compile_case(c, cfg));
  } catch (const InputError&) {
    return false;
  }
  std::mt19937_64 rng(c.data_seed ^ 0x5ca1edull);
  for (int attempt = 0; attempt < 400; ++attempt) {
    Case s = c;
    // Scale C, K, H and W by about the fourth root of the MAC ratio each, with some jitter, and
    // the forced tiles with them (column tiles stay multiples of array.rows).
    const double ratio = double(max_macs) / double(std::max<std::int64_t>(1, c.layer.macs()));
    const double base = std::pow(std::min(1.0, ratio), 0.25);
    auto scale = [&](int v, int lo) {
      const double f = base * std::uniform_real_distribution<double>(0.5, 1.3)(rng);
      return std::max(lo, int(std::lround(double(v) * f)));
    };
    s.layer.c = scale(c.layer.c, c.opt.tile_c > 0 ? 2 : 1);
    s.layer.k = scale(c.layer.k, 1);
    s.layer.h = scale(c.layer.h, 1);
    s.layer.w = scale(c.layer.w, 1);
    if (!valid(s.layer) || s.layer.macs() > max_macs) continue;
    if (c.opt.tile_c > 0) s.opt.tile_c = std::clamp(scale(c.opt.tile_c, 1), 1, std::max(1, s.layer.c - 1));
    if (c.opt.tile_h > 0) s.opt.tile_h = std::clamp(scale(c.opt.tile_h, 1), 1, std::max(1, s.layer.ho() - 1));
    if (c.opt.tile_w > 0 && c.opt.tile_w != c.layer.wo()) s.opt.tile_w = cfg.array.rows * std::max(1, scale(c.opt.tile_w / cfg.array.rows, 1));
    try {
      const std::vector<Feature> got = features_of(s, compile_case(s, cfg));
      if (std::all_of(want.begin(), want.end(),
                      [&](Feature f) { return std::find(got.begin(), got.end(), f) != got.end(); })) {
        out = s;
        return true;
      }
    } catch (const InputError&) {
    }
  }
  return false;
}

}  // namespace flycol::tb
