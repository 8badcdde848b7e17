// The tiling search: candidate enumeration over tile counts (balanced tile sizes), a fast legality
// check that mirrors plan_shortfall (which still has the last word on every candidate returned),
// closed-form traffic from the emitter's residency rules, and a rough time estimate.
#include "sim/compiler/search.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <numeric>
#include <set>

#include "sim/common/int_math.h"
#include "sim/compiler/command_limits.h"
#include "sim/compiler/tiling.h"
#include "sim/config/config_keys.h"

namespace flycol {
namespace {


// Distinct balanced tile sizes ceil(n / t) for t = 1 .. n, largest first.
std::vector<int> balanced_sizes(int n) {
  std::vector<int> v;
  for (int t = 1; t <= n; ++t) {
    const int s = int(ceil_div(n, t));
    if (v.empty() || s < v.back()) v.push_back(s);
  }
  return v;
}

// Column tile widths: the whole row, then multiples of ROWS for 2, 3, ... tiles.
std::vector<int> width_sizes(int wo, int rows) {
  std::vector<int> v = {wo};
  for (int t = 2; t <= ceil_div(wo, rows); ++t) {
    const int w = int(ceil_div(ceil_div(wo, t), rows) * rows);
    if (w < wo && (v.empty() || w < v.back())) v.push_back(w);
  }
  return v;
}

// Real (non-padding) input rows or columns of the windows of all tiles along one axis. With
// `skip` (one buffer row per output, extent 1), only every stride-th input is loaded.
std::int64_t real_extent_sum(int out, int tile, int stride, int extent, int pad, int in, bool skip = false) {
  std::int64_t sum = 0;
  for (int o0 = 0; o0 < out; o0 += tile) {
    const int t = std::min(tile, out - o0);
    const int i0 = o0 * stride - pad;
    if (skip) {
      for (int j = 0; j < t; ++j) sum += (i0 + j * stride >= 0 && i0 + j * stride < in) ? 1 : 0;
      continue;
    }
    const int i1 = i0 + (t - 1) * stride + extent - 1;
    const int lo = std::max(i0, 0), hi = std::min(i1, in - 1);
    if (hi >= lo) sum += hi - lo + 1;
  }
  return sum;
}

// plan_shortfall without messages, for the enumeration (plan_shortfall re-checks the winners).
bool fits(const Layer& l, const hw::HwParams& hw, int tc, int n_kg, int th, int tw, TileLayout lay) {
  const int wo = l.wo();
  const int tiles_w = int(ceil_div(wo, tw));
  const int edge = wo - (tiles_w - 1) * tw;
  for (int w : {tw, edge}) {
    const TileWindow win = tile_window(l, hw, tc, th, w, lay);
    if (win.words > hw.ifmap_depth) return false;
    if (std::int64_t(n_kg) * hw.cols * win.ncy * win.ncx > hw.psum_depth) return false;
    if (std::uint64_t(win.ncx) > kCountMax || std::uint64_t(lay.flat ? std::int64_t(th) * w : w) > kCountMax ||
        std::uint64_t(win.ht) > kCountMax ||
        std::uint64_t(win.wt) > kCountMax || std::uint64_t(win.tail) > kCountMax)
      return false;
    if (std::uint64_t(win.region) > kCountMax || std::uint64_t(win.step_cx) > kStepMax) return false;
    if (std::uint64_t(win.step_cy) > kStepMax || std::uint64_t(l.dy) * std::uint64_t(win.wt) > kStepMax ||
        std::uint64_t(win.ht) * std::uint64_t(win.wt) > kStepMax)
      return false;
  }
  if (std::int64_t(n_kg) * tc * l.ky * l.kx > hw.weight_depth) return false;
  if (std::uint64_t(tc) > kCountMax || std::uint64_t(th) > kCountMax) return false;
  if (std::uint64_t(std::min<std::int64_t>(l.k, std::int64_t(n_kg) * hw.cols)) > kCountMax) return false;
  if (std::uint64_t(tc) * std::uint64_t(l.ky) * std::uint64_t(l.kx) * std::uint64_t(hw.cols) > kCountMax) return false;
  return true;
}

// The feeder's SRAM reads per interest-region row, averaged over the row starts of a full tile
// (their word offsets follow from the RUN steps), against kx MAC steps per row: the factor by
// which a feeder slower than the array stretches the steps.
double feeder_factor(const Layer& l, const hw::HwParams& hw, const TileWindow& win, int tc, int th, TileLayout lay) {
  const int B = hw.bus_elems;
  // A kernel row is n region rows (kernel-column chunks, microarchitecture 9.2); the chunks' own
  // word offsets are approximated by the row's.
  const KernelChunks kc = kernel_chunks(l, hw);
  const int sx = lay.gather ? 1 : l.sx;  // a gathered tile strides by 1
  // Pixel packing widens every chunk's region by the wraps' jumps (TileWindow::pack_extra).
  const int pack_extra = int(win.pack_extra);
  const int region_kc = (hw.rows - 1) * sx + (kc.kc - 1) * l.dx + 1 + pack_extra;
  const int region_last = (hw.rows - 1) * sx + (kc.last - 1) * l.dx + 1 + pack_extra;
  const auto hist = [&](std::int64_t step, std::int64_t count) {
    std::vector<double> h(std::size_t(B), 0.0);
    for (std::int64_t i = 0; i < std::min<std::int64_t>(count, B); ++i) {
      // Offsets repeat with period B: count the multiplicity of each residue.
      const std::int64_t reps = (count - i + B - 1) / B;
      h[std::size_t((i * step) % B)] += double(reps);
    }
    return h;
  };
  const auto conv = [&](const std::vector<double>& a, const std::vector<double>& b) {
    std::vector<double> c(std::size_t(B), 0.0);
    for (int i = 0; i < B; ++i)
      if (a[std::size_t(i)] != 0)
        for (int j = 0; j < B; ++j) c[std::size_t((i + j) % B)] += a[std::size_t(i)] * b[std::size_t(j)];
    return c;
  };
  std::vector<double> h = hist(win.step_cx, win.ncx);  // packed: ignores the occasional extra jump
  h = conv(h, hist(win.step_cy, th));
  h = conv(h, hist(std::int64_t(win.ht) * win.wt, tc));
  h = conv(h, hist(std::int64_t(l.dy) * win.wt, l.ky));
  double rows = 0, cycles = 0;
  for (int go = 0; go < B; ++go) {
    const int words_kc = (go + region_kc - 1) / B + 1, words_last = (go + region_last - 1) / B + 1;
    rows += h[std::size_t(go)];
    cycles += h[std::size_t(go)] * double((kc.n - 1) * std::max(words_kc, kc.kc) + std::max(words_last, kc.last));
  }
  return rows > 0 ? cycles / (rows * l.kx) : 1.0;
}

}  // namespace

DramTraffic plan_traffic(const Layer& l, const hw::HwParams& hw, const TilePlan& p) {
  DramTraffic t;
  const std::uint64_t eb = std::uint64_t(hw.elem_bytes()), ab = std::uint64_t(hw.acc_bytes());
  const std::uint64_t rows = std::uint64_t(real_extent_sum(l.ho(), p.th, l.sy, l.extent_y(), l.pt, l.h, p.skip_rows));
  const std::uint64_t cols = std::uint64_t(real_extent_sum(l.wo(), p.tw, l.sx, l.extent_x(), l.pl, l.w));
  std::uint64_t ifmap_once = std::uint64_t(l.n) * std::uint64_t(l.c) * rows * cols * eb;
  if (p.gather) {
    // Whole beats, cut where the kept elements cross SRAM words: no closed form, so every
    // tile's descriptor is counted (a row costs a few steps).
    ifmap_once = 0;
    const std::uint64_t base = dram_layout(l, hw).ifmap_base;
    for (int n = 0; n < l.n; ++n)
      for (int oy0 = 0; oy0 < l.ho(); oy0 += p.th)
        for (int ox0 = 0; ox0 < l.wo(); ox0 += p.tw)
          for (int c0 = 0; c0 < l.c; c0 += p.tc)
            ifmap_once += load_request_bytes(
                ifmap_tile_load(l, hw, p, base, n, oy0, std::min(p.th, l.ho() - oy0), ox0, std::min(p.tw, l.wo() - ox0),
                                c0, std::min(p.tc, l.c - c0)),
                hw.elem_bytes(), hw.bus_elems);
  }
  const std::uint64_t weights_once =
      std::uint64_t(ceil_div(l.k, hw.cols)) * std::uint64_t(hw.cols) * std::uint64_t(l.c) * std::uint64_t(l.ky) * std::uint64_t(l.kx) * eb;
  const std::uint64_t ofmap = std::uint64_t(l.ofmap_elems()) * ab;
  const std::uint64_t spatial = std::uint64_t(p.tiles_n) * std::uint64_t(p.tiles_h) * std::uint64_t(p.tiles_w);
  const std::uint64_t tk = std::uint64_t(p.tiles_k), tcs = std::uint64_t(p.tiles_c);
  const std::uint64_t ibuf = std::uint64_t(hw.ifmap_buffers), wbuf = std::uint64_t(hw.weight_buffers);
  // A tile is loaded again unless it is still in one of the buffers: with two buffers (LRU) a
  // cycle of more distinct tiles than buffers misses every time.
  if (p.order == "spill") {
    t.ifmap = ifmap_once;
    t.weights = weights_once * (tk <= wbuf ? 1 : spatial);
    t.ofmap = ofmap * tcs;
    t.psums_in = ofmap * (tcs - 1);
  } else if (p.order == "k_outer") {
    t.ifmap = ifmap_once * (spatial * tcs <= ibuf ? 1 : tk);
    t.weights = weights_once * (tcs <= wbuf ? 1 : spatial);
    t.ofmap = ofmap;
  } else {
    t.ifmap = ifmap_once * (tcs <= ibuf || tk == 1 ? 1 : tk);
    t.weights = weights_once * (tk * tcs <= wbuf ? 1 : spatial);
    t.ofmap = ofmap;
  }
  return t;
}

std::vector<PlanCandidate> search_plans(const Layer& l, const Config& cfg, const SearchOptions& opt) {
  // choose_plan checks the layer against the configuration and throws for what cannot run.
  (void)choose_plan(l, cfg, {});
  const hw::HwParams hw = hardware_params(cfg);
  const double bw = opt.dram_bytes_per_cycle > 0 ? opt.dram_bytes_per_cycle : cfg.dram_bytes_per_cycle();
  const double latency = double(cfg.dram_latency_cycles());
  const std::vector<std::string> orders = opt.orders.empty() ? loop_order_names() : opt.orders;
  const int groups = int(ceil_div(l.k, hw.cols));
  const int c_hi = int(std::min<std::int64_t>(l.c, std::int64_t(kCountMax)));

  std::vector<PlanCandidate> all;
  std::set<std::array<int, 9>> seen;  // (tc, n_kg, th, tw, layout, tn) already scored
  const bool one_by_one = l.kx == 1 && l.ky == 1;
  for (int tw : width_sizes(l.wo(), hw.rows)) {
    // The tile layouts worth trying: plain, aligned rows (when the pitch is not a multiple of B),
    // and for 1x1 kernels skipped rows (sy > 1) and flat contexts (whole output rows).
    // For kx = 1 and a stride the DMA can gather, each of those with gathered columns too.
    std::vector<TileLayout> layouts = {{}};
    const bool gather = l.kx == 1 && l.sx >= 2 && l.sx <= hw::kMaxElemStep;
    for (int g = 0; g <= (gather ? 1 : 0); ++g) {
      const bool gt = g == 1;
      if (gt) layouts.push_back({false, false, false, true});
      if (tile_window(l, hw, 1, 1, tw, {false, false, false, gt}).wt % hw.bus_elems != 0)
        layouts.push_back({true, false, false, gt});
      if (l.ky == 1 && l.sy > 1) {
        layouts.push_back({false, true, false, gt});
        if (tile_window(l, hw, 1, 1, tw, {false, true, false, gt}).wt % hw.bus_elems != 0)
          layouts.push_back({true, true, false, gt});
      }
      if (one_by_one && tw == l.wo()) {
        if (l.sy == 1) layouts.push_back({false, false, true, gt});
        else layouts.push_back({false, true, true, gt});
      }
    }
    // Wider kernels: pixels packed across whole output rows, when the array's lanes can. Only for
    // sy = 1: with sy > 1 a packed region also spans the skipped input rows between two output
    // rows, and the estimate below (one region per row start) picked slower plans on the
    // stride_kernel sweep (k7_s2: 517k cycles against 486k unpacked).
    if (!one_by_one && l.sy == 1 && tw == l.wo() && pack_problem(l, hw, {false, false, true}).empty())
      layouts.push_back({false, false, true});
    // Images packed per tile (whole images, flat contexts): tn > 1 beside the tn = 1 plans.
    // Besides the balanced counts, the multiples of B / gcd(H*W, B) (when above 1): their channel
    // planes are whole SRAM words, so every context starts on a word (microarchitecture 12).
    std::vector<int> image_counts = {1};
    for (int tn : balanced_sizes(l.n))
      if (tn > 1) image_counts.push_back(tn);
    const int whole_words = hw.bus_elems / int(std::gcd(std::int64_t(l.h) * l.w, std::int64_t(hw.bus_elems)));
    for (int tn = whole_words; whole_words > 1 && tn <= l.n; tn += whole_words)
      if (tn > 1 && std::find(image_counts.begin(), image_counts.end(), tn) == image_counts.end())
        image_counts.push_back(tn);
    for (int th : balanced_sizes(l.ho()))
      for (int n_kg : balanced_sizes(groups))
        for (const TileLayout& lay : layouts)
          for (int tn : image_counts) {
          if (!layout_problem(l, lay).empty()) continue;
          if (tn > 1 && (th != l.ho() || !images_pack_problem(l, hw, lay, "output_stationary").empty())) continue;
          // The extra fields of packed images (images per DMA row count, the store's tail).
          const auto fits_n = [&](int tc) {
            return fits(l, hw, tc, n_kg, tn * th, tw, lay) &&
                   (tn == 1 || !plan_shortfall(l, cfg, hw, tc, n_kg, th, tw, lay, tn));
          };
          if (!fits_n(1)) continue;
          int lo = 1, hi = c_hi;  // the largest Tc that fits (legality is monotone in Tc)
          while (lo < hi) {
            const int mid = lo + (hi - lo + 1) / 2;
            if (fits_n(mid)) lo = mid; else hi = mid - 1;
          }
          const int tc = int(ceil_div(l.c, ceil_div(l.c, lo)));  // balanced slices
          if (!seen.insert({tc, n_kg, th, tw, lay.align, lay.skip_rows, lay.flat, lay.gather, tn}).second) continue;

          const TileWindow win = tile_window(l, hw, tc, tn * th, tw, lay);
          const double factor = feeder_factor(l, hw, win, tc, win.ncy, lay);
          for (const std::string& order : orders) {
            if (tn > 1 && order == "spill") continue;  // packed images keep their partial sums on chip
            TilePlan plan = make_plan(l, hw, tc, n_kg, th, tw, order, lay, tn);
            if (order == "spill" && plan.tiles_c == 1) continue;  // the same as output_stationary
            PlanCandidate c;
            c.plan = plan;
            c.options = {tc, n_kg, th, tw, order, lay.align, lay.skip_rows, lay.flat, lay.gather, tn};
            c.traffic = plan_traffic(l, hw, plan);
            // Compute: the MAC steps stretched by the feeder, contexts shorter than the window
            // gap, and the fill and drain of every RUN.
            // Contexts of the layer per channel slice (flat: per row tile, over its whole outputs;
            // packed images: per image tile).
            double ctx_all_images = 0;  // over all images
            if (tn > 1) {
              for (int n0 = 0; n0 < l.n; n0 += tn)
                ctx_all_images += double(ceil_div(std::int64_t(std::min(tn, l.n - n0)) * l.ho() * tw, hw.rows));
            } else if (lay.flat) {
              for (int y0 = 0; y0 < l.ho(); y0 += th) ctx_all_images += double(ceil_div(std::int64_t(std::min(th, l.ho() - y0)) * tw, hw.rows));
              ctx_all_images *= double(l.n);
            } else {
              std::int64_t ncx_sum = 0;
              for (int x0 = 0; x0 < l.wo(); x0 += tw) ncx_sum += ceil_div(std::min(tw, l.wo() - x0), hw.rows);
              ctx_all_images = double(l.n) * double(l.ho()) * double(ncx_sum);
            }
            const double ctx = groups * ctx_all_images * plan.tiles_c;
            const double steps = ctx / plan.tiles_c * l.c * l.ky * l.kx;
            const double len = double(tc) * l.ky * l.kx * factor;
            const double runs = double(plan.tiles_n) * plan.tiles_h * plan.tiles_w * plan.tiles_k * plan.tiles_c;
            // A context takes at least COLS cycles (the window gap), 2*COLS with preload (the psum
            // port reads and writes COLS words each): the first channel slice has no preload.
            const double short_ctx = std::max(0.0, double(hw.cols) - len) / plan.tiles_c +
                                     std::max(0.0, 2.0 * hw.cols - len) * (plan.tiles_c - 1) / plan.tiles_c;
            const double compute = steps * factor + ctx * short_ctx +
                                   runs * (hw.rows + 4.0 * hw.cols + 1) +
                                   runs * (plan.tiles_c - 1) / plan.tiles_c * (hw.cols + 1);
            const double dram = double(c.traffic.total()) / bw;
            // Before the first RUN: its ifmap and weight tiles; after the last: its store.
            const double first = (double(win.elems) * hw.elem_bytes() +
                                  double(n_kg) * hw.cols * tc * l.ky * l.kx * hw.elem_bytes()) / bw + 2 * latency;
            const double last = double(std::min<std::int64_t>(l.k, std::int64_t(n_kg) * hw.cols)) * tn * th * tw *
                                hw.acc_bytes() / bw;
            c.est_cycles = std::max(compute, dram) + first + last;
            all.push_back(c);
          }
        }
  }
  std::sort(all.begin(), all.end(), [](const PlanCandidate& a, const PlanCandidate& b) {
    if (a.est_cycles != b.est_cycles) return a.est_cycles < b.est_cycles;
    return a.traffic.total() < b.traffic.total();
  });
  std::vector<PlanCandidate> out;
  for (const PlanCandidate& c : all) {
    if (int(out.size()) >= std::max(opt.keep, 1)) break;
    if (plan_shortfall(l, cfg, hw, c.plan.tc, c.plan.n_kg, c.plan.th, c.plan.tw, c.plan.layout(), c.plan.tn)) continue;
    out.push_back(c);
  }
  return out;
}

}  // namespace flycol
