// The fused convolution + pooling lowering: what may fuse, the tile choice (output channel
// groups, pooled rows per tile, input channels per slice) and the program (emitted by
// compiler.cpp's emitter, which adds the fused tail to every tile's last slice).
#include "sim/compiler/fused_compiler.h"

#include <algorithm>
#include <limits>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "sim/common/input_error.h"
#include "sim/common/int_math.h"
#include "sim/compiler/command_limits.h"
#include "sim/compiler/pool_compiler.h"
#include "sim/compiler/tiling.h"
#include "sim/config/config_keys.h"

namespace flycol {
namespace {

constexpr const char* kOptions = "fused compile options";

struct Sizes {
  int kg = 0, tq = 0, tc = 0, tp = 0;
  std::string order;
  TileLayout lay;  // the convolution's tile layout: plain or flat contexts
};

// The convolution rows a tile of `tq` pooled rows starting at pooled row `q0` needs.
int conv_rows(const Layer& conv, const Layer& g, int q0, int tq) {
  const int iy0 = q0 * g.sy - g.pt;
  return std::min(conv.ho(), iy0 + (tq - 1) * g.sy + g.extent_y()) - std::max(0, iy0);
}
// The convolution columns a tile of `tp` pooled columns starting at pooled column `p0` needs.
int conv_cols(const Layer& conv, const Layer& g, int p0, int tp) {
  const int ix0 = p0 * g.sx - g.pl;
  return std::min(conv.wo(), ix0 + (tp - 1) * g.sx + g.extent_x()) - std::max(0, ix0);
}

class Planner {
public:
  Planner(const Layer& conv, const PoolShape& pool, const Layer& g, const Config& cfg)
      : conv_(conv), pool_(pool), g_(g), cfg_(cfg), hw_(hardware_params(cfg)) {}

  // The most convolution rows any tile of tq pooled rows needs (the first tile has no top halo
  // cut by padding; a middle tile the full window extent).
  int max_conv_rows(int tq) const {
    int most = 0;
    for (int q0 = 0; q0 < g_.ho(); q0 += tq) most = std::max(most, conv_rows(conv_, g_, q0, std::min(tq, g_.ho() - q0)));
    return most;
  }
  int max_conv_cols(int tp) const {
    int most = 0;
    for (int p0 = 0; p0 < g_.wo(); p0 += tp) most = std::max(most, conv_cols(conv_, g_, p0, std::min(tp, g_.wo() - p0)));
    return most;
  }

  bool fits(int tc, int kg, int tq, int tp, TileLayout lay = {}) const {
    const int th = max_conv_rows(tq);
    if (plan_shortfall(conv_, cfg_, hw_, tc, kg, th, max_conv_cols(tp), lay)) return false;
    // The pooling tile of kg*COLS channels (or K): ifmap and psum words, and its RUN's fields, for
    // the full tile and the edge tiles; the move's fields are those of the convolution's store.
    const int tcp = std::min(conv_.k, kg * hw_.cols);
    for (int t : {tq, g_.ho() % tq})
      for (int w : {tp, g_.wo() % tp}) {
        if (t == 0 || w == 0) continue;
        const TileWindow win = tile_window(g_, hw_, tcp, t, w);
        if (win.words > hw_.ifmap_depth) return false;
        if (std::int64_t(tcp) * win.ncy * win.ncx > hw_.psum_depth) return false;
        hw::Command c;
        c.op = hw::Opcode::Run;
        c.run = pool_tile_run(pool_, g_, hw_, 0, t, 0, w, tcp);
        if (!command_field_violation(c, hw_).empty()) return false;
      }
    return true;
  }

  // The default score: the array's MAC steps (recomputed halo rows and columns included) against
  // the program's DRAM bytes at the configured bandwidth, whichever is larger.
  double default_score(const Program& p) const {
    std::int64_t rows = 0, contexts = 0;
    for (int q0 = 0; q0 < g_.ho(); q0 += p.fused->tq) rows += conv_rows(conv_, g_, q0, std::min(p.fused->tq, g_.ho() - q0));
    for (int p0 = 0; p0 < g_.wo(); p0 += p.fused->tp)
      contexts += ceil_div(conv_cols(conv_, g_, p0, std::min(p.fused->tp, g_.wo() - p0)), hw_.rows);
    const double steps = double(conv_.n) * double(rows) * double(contexts) * double(ceil_div(conv_.k, hw_.cols)) *
                         conv_.c * conv_.ky * conv_.kx;
    return std::max(steps, double(program_traffic(p).total()) / cfg_.dram_bytes_per_cycle());
  }

  // The most pooled rows that fit with tc channels per slice, kg groups and tp pooled columns (0: none).
  int most_rows(int tc, int kg, int tp, TileLayout lay) const {
    for (int v = g_.ho(); v >= 1; --v)
      if (fits(tc, kg, v, tp, lay)) return v;
    return 0;
  }
  // The most channels per slice that fit with kg groups, tq pooled rows and tp pooled columns
  // (fits() is monotone in tc).
  int most_channels(int kg, int tq, int tp, TileLayout lay) const {
    int lo = 1, hi = conv_.c;
    while (lo < hi) {
      const int mid = lo + (hi - lo + 1) / 2;
      if (fits(mid, kg, tq, tp, lay)) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  // The candidates, both loop orders each, or the forced values; empty if none fits. Over the whole
  // width: every group count, each with the most pooled rows and a few fewer (each with the most
  // channels that then fit). Column tiles of a half, a quarter and an eighth of the width are
  // there to hold more output channels per tile, so that the input is read fewer times: when a
  // whole-width tile cannot hold them all, all the groups, half of them or one, each with the most
  // pooled rows.
  std::vector<Sizes> candidates(const FusedCompileOptions& o) const {
    std::vector<Sizes> out;
    const int kg_max = int(ceil_div(conv_.k, hw_.cols));
    std::vector<TileLayout> layouts = {TileLayout{}};
    TileLayout flat;
    flat.flat = true;
    // Flat tiles keep their outputs packed row after row in the psum buffer, so the move copies
    // whole rows: only when the pooling windows read every convolution column, over the whole width.
    const bool whole_rows = (g_.wo() - 1) * g_.sx - g_.pl + g_.extent_x() >= conv_.wo();
    if (whole_rows && layout_problem(conv_, flat).empty() && pack_problem(conv_, hw_, flat).empty())
      layouts.push_back(flat);
    std::vector<int> widths;
    if (o.tile_p) {
      widths.push_back(o.tile_p);
    } else {
      widths.push_back(g_.wo());
      // Column tiles only where a whole-width tile cannot hold every group of output channels.
      if (o.tile_kg == 0 && most_rows(1, kg_max, g_.wo(), TileLayout{}) == 0)
        for (int d : {2, 4, 8})
          if (const int w = int(ceil_div(g_.wo(), d)); std::find(widths.begin(), widths.end(), w) == widths.end())
            widths.push_back(w);
    }
    for (const TileLayout& lay : layouts)
      for (int tp : widths) {
        if (lay.flat && tp != g_.wo()) continue;
        const bool whole = tp == g_.wo();
        for (int kg = o.tile_kg ? o.tile_kg : 1; kg <= (o.tile_kg ? o.tile_kg : kg_max); ++kg) {
          if (!whole && !o.tile_kg && kg != 1 && kg != kg_max && kg != int(ceil_div(kg_max, 2))) continue;
          const int tc0 = o.tile_c ? o.tile_c : 1;
          std::vector<int> rows;
          if (o.tile_q) {
            if (fits(tc0, kg, o.tile_q, tp, lay)) rows.push_back(o.tile_q);
          } else if (const int most = most_rows(tc0, kg, tp, lay); most > 0) {
            for (int v = most; v >= 1; v /= 2) {
              rows.push_back(v);
              if (!whole) break;
            }
          }
          for (int tq : rows) {
            const int tc = o.tile_c ? o.tile_c : most_channels(kg, tq, tp, lay);
            for (const char* order : {"output_stationary", "k_outer"})
              if (o.order.empty() || o.order == order) out.push_back({kg, tq, tc, tp, order, lay});
          }
        }
      }
    return out;
  }

private:
  const Layer& conv_;
  const PoolShape& pool_;
  const Layer& g_;
  const Config& cfg_;
  hw::HwParams hw_;
};

// The reasons that do not need a tiling (empty if none).
std::string shape_problem(const Layer& conv, const PoolShape& pool, const hw::HwParams& hw) {
  if (hw.acc_bits != hw.elem_bits)
    return fmt::format("the accumulator ({} bits) is wider than the element ({} bits): the chip has no requantizer "
                       "to turn a partial sum into the pooling's input (section 7.6)",
                       hw.acc_bits, hw.elem_bits);
  if (hw.ifmap_buffers < 2 || hw.psum_buffers < 2)
    return "fusion needs double-buffered ifmap and psum SRAMs (sram.ifmap.buffers, sram.psums.buffers = 2)";
  if (pool.n != conv.n || pool.c != conv.k || pool.h != conv.ho() || pool.w != conv.wo())
    return fmt::format("the pooling's input N={} C={} H={} W={} is not the convolution's output N={} K={} Ho={} Wo={}",
                       pool.n, pool.c, pool.h, pool.w, conv.n, conv.k, conv.ho(), conv.wo());
  return "";
}

}  // namespace

std::string fusion_problem(const Layer& conv, const PoolShape& pool, const Config& config) {
  const hw::HwParams hw = hardware_params(config);
  if (std::string why = shape_problem(conv, pool, hw); !why.empty()) return why;
  try {
    validate_layer(conv, layer_source(conv));
    (void)choose_plan(conv, config, CompileOptions{});
    const Layer g = pool_geometry(pool, config);
    if (Planner(conv, pool, g, config).candidates({}).empty())
      return fmt::format("no fused tile fits: one pooled row of an eighth of the width ({} of {} pooled columns, {} "
                         "convolution columns) with one group of {} output channels needs more ifmap or psum words "
                         "than the buffers hold",
                         ceil_div(g.wo(), 8), g.wo(), conv.wo(), hw.cols);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

Program compile_fused(const Layer& conv, const PoolShape& pool, const Config& config,
                      const FusedCompileOptions& options) {
  validate_layer(conv, layer_source(conv));
  const hw::HwParams hw = hardware_params(config);
  if (std::string why = shape_problem(conv, pool, hw); !why.empty())
    throw InputError(pool.source, "fuse", "cannot fuse: " + why);
  (void)choose_plan(conv, config, CompileOptions{});  // the convolution alone must run (its errors first)
  const Layer g = pool_geometry(pool, config);
  const auto range = [](const char* key, int v, int hi) {
    if (v < 0 || v > hi) throw InputError(kOptions, key, fmt::format("= {}: must be in [1, {}] (0: chosen)", v, hi));
  };
  range("tile_c", options.tile_c, conv.c);
  range("tile_kg", options.tile_kg, int(ceil_div(conv.k, hw.cols)));
  range("tile_q", options.tile_q, g.ho());
  range("tile_p", options.tile_p, g.wo());
  if (!options.order.empty() && options.order != "output_stationary" && options.order != "k_outer")
    throw InputError(kOptions, "order", fmt::format("= {}: must be output_stationary or k_outer", options.order));
  const Planner planner(conv, pool, g, config);
  const std::vector<Sizes> cands = planner.candidates(options);
  if (cands.empty()) {
    const bool forced = options.tile_c || options.tile_kg || options.tile_q || options.tile_p;
    const std::string why = fusion_problem(conv, pool, config);
    throw InputError(forced ? kOptions : config.source.c_str(), forced ? "tile_q" : "sram.ifmap.kbytes",
                     "cannot fuse: " + (forced || why.empty() ? std::string("the forced tile sizes do not fit the buffers")
                                                              : why));
  }
  const auto program = [&](const Sizes& s) {
    Program p;
    p.layer = conv;
    p.config = config;
    p.hw = hw;
    p.fused = FusedPooling{pool, g, s.tq, s.tp};
    p.plan = make_plan(conv, hw, s.tc, s.kg, planner.max_conv_rows(s.tq), planner.max_conv_cols(s.tp), s.order, s.lay);
    p.plan.tiles_h = int(ceil_div(g.ho(), s.tq));
    p.plan.tiles_w = int(ceil_div(g.wo(), s.tp));
    p.dram = dram_layout(conv, hw);
    p.dram.ofmap_bytes = std::uint64_t(g.ofmap_elems()) * std::uint64_t(hw.acc_bytes());
    p.dram.total_bytes = (p.dram.ofmap_base + p.dram.ofmap_bytes + 63) / 64 * 64;
    emit_fused_program(p);
    return p;
  };
  // The fastest by the score; among the candidates within 1 % of it, the one moving the fewest
  // DRAM bytes (fusion is there to save them, and a compute-bound layer has many equally fast
  // tilings).
  std::vector<Program> progs;
  std::vector<double> scores;
  for (const Sizes& s : cands) {
    progs.push_back(program(s));
    scores.push_back(options.score ? options.score(progs.back()) : planner.default_score(progs.back()));
  }
  const double fastest = *std::min_element(scores.begin(), scores.end());
  std::size_t best = 0;
  std::uint64_t best_bytes = std::numeric_limits<std::uint64_t>::max();
  for (std::size_t i = 0; i < progs.size(); ++i) {
    const std::uint64_t bytes = program_traffic(progs[i]).total();
    if (scores[i] <= fastest * 1.01 && bytes < best_bytes) {
      best_bytes = bytes;
      best = i;
    }
  }
  return std::move(progs[best]);
}

}  // namespace flycol
