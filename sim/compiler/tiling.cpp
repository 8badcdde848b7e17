// Tile geometry, the legality of a tiling and the tile-size heuristic. Every limit the hardware
// has is checked here, before any command exists, so that a layer the configuration cannot run
// is rejected with the key to change rather than failing deep inside a model.
#include "sim/compiler/tiling.h"

#include <algorithm>
#include <functional>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>

#include "hw/feeder/feeder_params.h"
#include "sim/common/input_error.h"
#include "sim/common/int_math.h"
#include "sim/compiler/command_limits.h"
#include "sim/config/config_keys.h"

namespace flycol {
namespace {

constexpr const char* kOptionsSource = "compile options";


std::string counted(std::int64_t n, const char* noun) { return fmt::format("{} {}{}", n, noun, n == 1 ? "" : "s"); }

int groups(const Layer& l, const hw::HwParams& hw) { return int(ceil_div(l.k, hw.cols)); }

// The smallest kB value of `key`'s SRAM that holds `words` words (what a message should ask for).
std::int64_t kbytes_for(std::int64_t words, int word_bits) { return ceil_div(words * word_bits, 8192); }

// A tile that needs `words` words of `what` (`detail` counts them) where one buffer of the SRAM
// `sram` holds `depth`; `key` is the SRAM's kbytes key.
Shortfall sram_shortfall(const char* key, const char* what, std::int64_t words, const SramConfig& sram,
                         std::int64_t depth, const std::string& detail) {
  const std::int64_t kb = kbytes_for(words, sram.word_bits);
  Shortfall s;
  s.key = key;
  s.needed = words;
  s.available = depth;
  s.problem =
      fmt::format("needs {} {} words of {} bits ({}), but one buffer of {} kB holds {}: at least {} kB{} is needed",
                  words, what, sram.word_bits, detail, sram.kbytes, depth, kb,
                  kb > 4096 ? " (more than the largest, 4096)" : "");
  return s;
}

// A command field of the tiling that would not fit its width.
std::optional<Shortfall> field_shortfall(const char* key, const char* field, std::int64_t value, std::uint64_t max,
                                         const char* why) {
  if (value >= 0 && std::uint64_t(value) <= max) return std::nullopt;
  Shortfall s;
  s.key = key;
  s.layer_key = true;
  s.needed = value;
  s.available = std::int64_t(max);
  s.problem = fmt::format("makes the command field {} = {} ({}), but it holds at most {}", field, value, why, max);
  return s;
}

// Fields that depend only on the layer, the array and the DRAM layout, not on the tiling.
void check_layer_fields(const Layer& l, const hw::HwParams& hw) {
  const std::int64_t eb = hw.elem_bytes(), ab = hw.acc_bytes();
  const DramLayout d = dram_layout(l, hw);
  const std::optional<Shortfall> checks[] = {
      field_shortfall("sx", "step_cx", std::int64_t(hw.rows) * l.sx, kStepMax, "array.rows x sx"),
      field_shortfall("sx", "region", region_width(l, hw), kCountMax, "(array.rows - 1) x sx + (kx - 1) x dx + 1"),
      field_shortfall("sx", "lane_stride", l.sx, kLaneStrideMax, "sx"),
      field_shortfall("ky", "n_ky", l.ky, kCountMax, "ky"),
      field_shortfall("W", "plane_stride", std::int64_t(l.h) * l.w * eb, kByteStrideMax, "ifmap H x W x bytes"),
      field_shortfall("C", "plane_stride", std::int64_t(l.c) * l.ky * l.kx * hw.cols * eb, kByteStrideMax,
                      "weights C x ky x kx x array.cols x bytes"),
      field_shortfall("W", "plane_stride", std::int64_t(l.ho()) * l.wo() * ab, kByteStrideMax,
                      "ofmap Ho x Wo x bytes"),
      field_shortfall("N", "dram_addr", std::int64_t(d.total_bytes), kDramAddrMax, "the end of the DRAM image"),
  };
  for (const auto& s : checks)
    if (s) throw InputError(layer_source(l), s->key, fmt::format("= {}: {}", s->needed, s->problem));
}

// Kernel rows wider than a feed lane holds are split into chunks (set_kernel_fields), so the
// pattern width is the only kernel limit.
void check_pattern(const Layer& l, const Config& cfg) {
  const int pb = cfg.feeder.pattern_bits;
  if (l.extent_x() <= pb) return;
  throw InputError(cfg.source, "feeder.pattern_bits",
                   fmt::format("= {}: the layer '{}' has a dilated kernel width (kx - 1) * dx + 1 = ({} - 1) * {} + 1 "
                               "= {}, but the kernel pattern allows at most {} columns; for kx = {} the largest "
                               "dilation is dx = {} (or feeder.pattern_bits must be at least {}, at most 64)",
                               pb, l.name, l.kx, l.dx, l.extent_x(), pb, l.kx, cfg.max_dilation(l.kx), l.extent_x()));
}

std::string option_value_text(const CompileOptions& o) {
  std::vector<std::string> parts;
  if (o.tile_c) parts.push_back(fmt::format("tile_c = {}", o.tile_c));
  if (o.tile_kg) parts.push_back(fmt::format("tile_kg = {}", o.tile_kg));
  if (o.tile_h) parts.push_back(fmt::format("tile_h = {}", o.tile_h));
  if (o.tile_w) parts.push_back(fmt::format("tile_w = {}", o.tile_w));
  if (o.tile_n) parts.push_back(fmt::format("tile_n = {}", o.tile_n));
  std::string s;
  for (const auto& p : parts) s += (s.empty() ? "" : ", ") + p;
  return s;
}

void validate_options(const Layer& l, const hw::HwParams& hw, const CompileOptions& o) {
  const auto names = loop_order_names();
  if (std::find(names.begin(), names.end(), o.order) == names.end()) {
    std::string list;
    for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
    throw InputError(kOptionsSource, "order", fmt::format("= {}: must be one of {}", o.order, list));
  }
  const auto range = [](const char* key, int v, int hi, const char* what) {
    if (v < 0 || v > hi)
      throw InputError(kOptionsSource, key,
                       fmt::format("= {}: must be 0 (the compiler chooses) or an integer in [1, {}] ({})", v, hi, what));
  };
  range("tile_c", o.tile_c, l.c, "input channels C");
  range("tile_kg", o.tile_kg, groups(l, hw), "output-channel groups ceil(K / array.cols)");
  range("tile_h", o.tile_h, l.ho(), "output rows Ho");
  range("tile_w", o.tile_w, l.wo(), "output columns Wo");
  range("tile_n", o.tile_n, l.n, "images N");
  if (o.tile_n > 1) {
    const std::string why =
        images_pack_problem(l, hw, {o.align_rows, o.skip_rows, o.flat_contexts, o.gather_cols}, o.order);
    if (!why.empty()) throw InputError(kOptionsSource, "tile_n", fmt::format("= {}: {}", o.tile_n, why));
    if (o.tile_h > 0 && o.tile_h != l.ho())
      throw InputError(kOptionsSource, "tile_h",
                       fmt::format("= {}: packing images (tile_n = {}) takes whole images, tile_h must be Ho = {} (or 0)",
                                   o.tile_h, o.tile_n, l.ho()));
  }
  if (o.tile_w > 0 && o.tile_w < l.wo() && o.tile_w % hw.rows != 0)
    throw InputError(kOptionsSource, "tile_w",
                     fmt::format("= {}: a column tile narrower than the output row (Wo = {}) must be a multiple of "
                                 "array.rows = {}",
                                 o.tile_w, l.wo(), hw.rows));
  const std::string layout = layout_problem(l, {o.align_rows, o.skip_rows, o.flat_contexts, o.gather_cols});
  if (!layout.empty()) {
    // Name the option the message is about (each check above names its own option first).
    const char* key = layout.rfind("gather_cols", 0) == 0 ? "gather_cols"
                      : layout.rfind("flat_contexts", 0) == 0 ? "flat_contexts" : "skip_rows";
    throw InputError(kOptionsSource, key, fmt::format("is set, but {}", layout));
  }
  const std::string pack = pack_problem(l, hw, {o.align_rows, o.skip_rows, o.flat_contexts, o.gather_cols});
  if (!pack.empty()) throw InputError(kOptionsSource, "flat_contexts", fmt::format("is set, but {}", pack));
  if (o.flat_contexts && o.tile_w > 0 && o.tile_w != l.wo())
    throw InputError(kOptionsSource, "tile_w",
                     fmt::format("= {}: flat_contexts runs whole output rows, tile_w must be Wo = {} (or 0)", o.tile_w,
                                 l.wo()));
}

}  // namespace

std::string layer_source(const Layer& l) { return fmt::format("layer '{}' ({})", l.name, l.spec()); }

std::uint32_t region_width(const Layer& l, const hw::HwParams& hw, TileLayout lay) {
  return std::uint32_t((hw.rows - 1) * (lay.gather ? 1 : l.sx) + l.extent_x());
}

std::uint64_t kernel_pattern(const Layer& l) {
  std::uint64_t p = 0;
  for (int i = 0; i < l.kx; ++i) p |= std::uint64_t(1) << (i * l.dx);
  return p;
}

KernelChunks kernel_chunks(const Layer& l, const hw::HwParams& hw) {
  KernelChunks k;
  k.kc = k.last = l.kx;
  const int lane_elems = hw.lane_fifo_depth * hw.m;
  if (hw.rows <= 1 || l.kx <= lane_elems) return k;
  k.n = int(ceil_div(l.kx, lane_elems));
  k.kc = int(ceil_div(l.kx, k.n));
  k.last = l.kx - (k.n - 1) * k.kc;
  return k;
}

void set_kernel_fields(hw::RunDesc& r, const Layer& l, const hw::HwParams& hw) {
  const KernelChunks k = kernel_chunks(l, hw);
  const auto region = [&](int cols) { return std::uint32_t((hw.rows - 1) * l.sx + (cols - 1) * l.dx + 1); };
  const auto pattern = [&](int cols) {
    std::uint64_t p = 0;
    for (int i = 0; i < cols; ++i) p |= std::uint64_t(1) << (i * l.dx);
    return p;
  };
  r.n_kx = std::uint32_t(l.kx);
  r.region = region(k.last);
  r.pattern = pattern(k.last);
  r.n_kxc = std::uint32_t(k.n);
  r.step_kxc = k.n > 1 ? std::uint32_t(k.kc * l.dx) : 0;
  r.region_kxc = k.n > 1 ? region(k.kc) : 1;
  r.pattern_kxc = k.n > 1 ? pattern(k.kc) : 1;
}

std::string layout_problem(const Layer& l, TileLayout lay) {
  if (lay.skip_rows && (l.ky != 1 || l.sy < 2))
    return fmt::format("skip_rows needs a kernel of one row (ky = 1) and a vertical stride sy > 1, not ky = {}, sy = {}",
                       l.ky, l.sy);
  const bool one_by_one = l.kx == 1 && l.ky == 1;
  if (lay.flat && one_by_one && l.sy != 1 && !lay.skip_rows)
    return "flat_contexts of a 1x1 kernel needs consecutive output rows in consecutive buffer rows: sy = 1, or "
           "skip_rows";
  if (lay.flat && lay.align) return "flat_contexts sets the row pitch itself: it cannot be combined with align_rows";
  if (lay.gather && (l.kx != 1 || l.sx < 2 || l.sx > hw::kMaxElemStep))
    return fmt::format("gather_cols needs a kernel of one column (kx = 1) and a horizontal stride 2 <= sx <= {} (the "
                       "DMA's element step), not kx = {}, sx = {}",
                       hw::kMaxElemStep, l.kx, l.sx);
  if (lay.flat && !one_by_one) {
    const int sx = lay.gather ? 1 : l.sx;  // buffer columns between two outputs
    const std::int64_t wt = std::int64_t(l.wo() - 1) * sx + l.extent_x();
    const int rows_per_output = lay.skip_rows ? l.extent_y() : l.sy;  // buffer rows between output rows
    if (std::int64_t(rows_per_output) * wt < std::int64_t(l.wo()) * sx)
      return fmt::format("flat_contexts needs the next output row to start no earlier than the row would continue: "
                         "{} x Wt = {} x {} < Wo x sx = {} x {}",
                         lay.skip_rows ? "skipped rows" : "sy", rows_per_output, wt, l.wo(), sx);
  }
  return "";
}

std::string pack_problem(const Layer& l, const hw::HwParams& hw, TileLayout lay) {
  if (!lay.flat || (l.kx == 1 && l.ky == 1)) return "";
  const std::uint32_t wraps = hw::pack_max_wraps(std::uint32_t(l.wo()), hw.rows);
  if (wraps > std::uint32_t(hw::kPackWraps))
    return fmt::format("flat_contexts packs ROWS = {} pixels into rows of Wo = {}: a lane would pass {} row ends, the "
                       "feeder compares {} (microarchitecture 9.2)",
                       hw.rows, l.wo(), wraps, hw::kPackWraps);
  // The region is the widest context's, so a context with fewer wraps ends its region rows with
  // words no lane needs. After the RUN's last useful word the feeder must finish those reads
  // before the RUN completes (at least ROWS + 2*COLS cycles after its last MAC step), or the next
  // LOAD into this buffer would meet them on the SRAM port (microarchitecture 12).
  const TileWindow w = tile_window(l, hw, 1, 1, l.wo(), lay);
  const std::int64_t slack_words = ceil_div(std::int64_t(wraps) * w.pack_jump, hw.bus_elems) + 1;
  if (slack_words > std::int64_t(hw.rows) + 2 * std::int64_t(hw.cols))
    return fmt::format("flat_contexts would end a packed RUN with up to {} words no lane needs ({} row jumps of {} "
                       "elements), more than the ROWS + 2*COLS = {} cycles between its last MAC step and its end "
                       "(microarchitecture 12)",
                       slack_words, wraps, w.pack_jump, hw.rows + 2 * hw.cols);
  return "";
}

std::string images_pack_problem(const Layer& l, const hw::HwParams& hw, TileLayout lay, const std::string& order) {
  if (l.n < 2) return fmt::format("packing across images needs N > 1, not N = {}", l.n);
  if (l.kx != 1 || l.ky != 1 || l.sx != 1 || l.sy != 1 || l.pt || l.pb || l.pl || l.pr)
    return "packing across images needs a 1x1 kernel with stride 1 and no padding (an image is then one DRAM row "
           "per channel)";
  if (!lay.flat || lay.align || lay.skip_rows || lay.gather)
    return "packing across images needs flat_contexts alone (no align_rows, skip_rows or gather_cols)";
  if (order == "spill")
    return "packing across images keeps the partial sums on chip: the spill order cannot be used";
  const std::uint64_t eb = std::uint64_t(hw.elem_bytes()), ab = std::uint64_t(hw.acc_bytes());
  const std::uint64_t plane = std::uint64_t(l.h) * std::uint64_t(l.w);
  if (plane > kCountMax)
    return fmt::format("packing across images makes an image one DMA row of H x W = {} elements, the row_len field "
                       "holds at most {}",
                       plane, kCountMax);
  if (std::uint64_t(l.c) * plane * eb > kByteStrideMax || std::uint64_t(l.k) * plane * ab > kByteStrideMax)
    return fmt::format("packing across images makes the DMA row stride an image (C x H x W x {} = {} or K x Ho x Wo x "
                       "{} = {} bytes), the row_stride field holds at most {}",
                       eb, std::uint64_t(l.c) * plane * eb, ab, std::uint64_t(l.k) * plane * ab, kByteStrideMax);
  return "";
}

TileWindow tile_window(const Layer& l, const hw::HwParams& hw, int tc, int th, int tw, TileLayout lay) {
  TileWindow w;
  const int sx = lay.gather ? 1 : l.sx;  // buffer columns between two outputs
  w.ht = lay.skip_rows ? th * l.extent_y() : (th - 1) * l.sy + l.extent_y();
  w.span = (tw - 1) * sx + l.extent_x();
  const bool packed = lay.flat && !(l.kx == 1 && l.ky == 1);
  w.wt = lay.flat && !packed ? tw * sx : lay.align ? int(ceil_div(w.span, hw.bus_elems) * hw.bus_elems) : w.span;
  w.ncx = int(ceil_div(lay.flat ? std::int64_t(th) * tw : tw, hw.rows));
  w.ncy = lay.flat ? 1 : th;
  // Elements between output rows (consecutive buffer rows of a 1x1 flat tile).
  const std::int64_t step_row = std::int64_t(lay.skip_rows ? l.extent_y() : l.sy) * w.wt;
  w.step_cy = step_row;
  w.step_cx = std::int64_t(hw.rows) * sx;
  w.region = region_width(l, hw, lay);
  if (packed) {
    w.pack_w = tw;
    w.pack_r = hw.rows % tw;
    w.pack_jump = step_row - std::int64_t(tw) * sx;
    w.step_cx += std::int64_t(hw.rows / tw) * w.pack_jump;
    w.pack_extra = std::int64_t(hw::pack_max_wraps(std::uint32_t(tw), hw.rows)) * w.pack_jump;
    w.region += w.pack_extra;
  }
  const std::int64_t plane = std::int64_t(w.ht) * w.wt;
  w.elems = tc * plane;
  // The feeder's largest row start (last context, last channel, last kernel row) plus the
  // region: lanes of an edge context run past the tile's last column into the tail. A packed
  // context starts at its first pixel, (ncx-1)*ROWS in row-major order.
  const std::int64_t last_ctx = packed ? ((std::int64_t(w.ncx) - 1) * hw.rows / tw) * step_row +
                                             ((std::int64_t(w.ncx) - 1) * hw.rows % tw) * sx
                                       : std::int64_t(w.ncx - 1) * hw.rows * sx;
  const std::int64_t row_start_max = last_ctx + std::int64_t(w.ncy - 1) * w.step_cy +
                                     std::int64_t(tc - 1) * plane + std::int64_t(l.ky - 1) * l.dy * w.wt;
  w.last_read = row_start_max + w.region - 1;
  const std::int64_t b = hw.bus_elems;
  const std::int64_t read_end = (w.last_read / b + 1) * b;  // whole words are read
  w.tail = std::max<std::int64_t>(0, read_end - w.elems);
  w.words = ceil_div(w.elems + w.tail, b);
  return w;
}

std::optional<Shortfall> plan_shortfall(const Layer& l, const Config& cfg, const hw::HwParams& hw, int tc, int n_kg,
                                        int th, int tw, TileLayout lay, int tn) {
  th *= tn;  // packed images: the RUN covers tn images of th = Ho rows
  if (tn > 1) {
    const std::int64_t tail = ceil_div(std::int64_t(th) * tw, hw.rows) * hw.rows - std::int64_t(th) * tw;
    const std::optional<Shortfall> checks[] = {
        field_shortfall("N", "n_rows", tn, kCountMax, "images per tile"),
        field_shortfall("N", "tail", tail, kCountMax, "STORE_PSUMS context padding"),
    };
    for (const auto& s : checks)
      if (s) return s;
  }
  const int wo = l.wo();
  const int tiles_w = int(ceil_div(wo, tw));
  std::vector<int> widths = {tw};
  const int edge = wo - (tiles_w - 1) * tw;
  if (edge != tw) widths.push_back(edge);

  for (int w : widths) {
    const TileWindow win = tile_window(l, hw, tc, th, w, lay);
    if (win.words > hw.ifmap_depth)
      return sram_shortfall("sram.ifmap.kbytes", "ifmap", win.words, cfg.ifmap, hw.ifmap_depth,
                            fmt::format("{} x {} x {} + {}", counted(tc, "channel"), counted(win.ht, "row"),
                                        counted(win.wt, "column"), counted(win.tail, "tail zero")));
  }
  const std::int64_t wwords = std::int64_t(n_kg) * tc * l.ky * l.kx;
  if (wwords > hw.weight_depth)
    return sram_shortfall("sram.weights.kbytes", "weight", wwords, cfg.weights, hw.weight_depth,
                          fmt::format("{} x {} x a {} x {} kernel", counted(n_kg, "group"), counted(tc, "channel"),
                                      l.ky, l.kx));
  for (int w : widths) {
    const std::int64_t pwords = std::int64_t(n_kg) * hw.cols * tile_window(l, hw, 1, th, w, lay).ncy *
                                tile_window(l, hw, 1, th, w, lay).ncx;
    if (pwords > hw.psum_depth) {
      const std::string channels = counted(std::int64_t(n_kg) * hw.cols, "output channel");
      // Flat contexts run over the tile's th x w outputs in row-major order.
      const std::string detail =
          lay.flat ? fmt::format("{} x {} of {} outputs", channels, counted(ceil_div(std::int64_t(th) * w, hw.rows), "context"),
                                 std::int64_t(th) * w)
                   : fmt::format("{} x {} x {}", channels, counted(th, "row"), counted(ceil_div(w, hw.rows), "context"));
      return sram_shortfall("sram.psums.kbytes", "psum", pwords, cfg.psums, hw.psum_depth, detail);
    }
  }

  // Command fields that grow with the tile. Keys name the layer dimension that drives them.
  for (int w : widths) {
    const TileWindow win = tile_window(l, hw, tc, th, w, lay);
    const std::optional<Shortfall> checks[] = {
        field_shortfall("C", "n_c", tc, kCountMax, "input channels per slice"),
        field_shortfall("H", "n_cy", th, kCountMax, "output rows per tile"),
        field_shortfall("W", "n_cx", win.ncx, kCountMax, "contexts per output row"),
        field_shortfall("K", "n_planes", std::min<std::int64_t>(l.k, std::int64_t(n_kg) * hw.cols), kCountMax,
                        "output channels per STORE_PSUMS"),
        field_shortfall("W", "row_len", lay.flat ? std::int64_t(th) * w : w, kCountMax,
                        "output columns per STORE_PSUMS row"),
        field_shortfall("H", "pad_top", win.ht, kCountMax, "input rows per tile"),
        field_shortfall("W", "pad_left", win.wt, kCountMax, "input columns per tile"),
        field_shortfall("sx", "tail", win.tail, kCountMax, "feeder over-read"),
        field_shortfall("sy", "step_cy", win.step_cy, kStepMax, "sy x tile width"),
        field_shortfall("W", "region", win.region, kCountMax, "interest region of packed contexts"),
        field_shortfall("W", "step_cx", win.step_cx, kStepMax, "elements between packed contexts"),
        field_shortfall("dy", "step_ky", std::int64_t(l.dy) * win.wt, kStepMax, "dy x tile width"),
        field_shortfall("H", "step_c", std::int64_t(win.ht) * win.wt, kStepMax, "tile rows x tile width"),
        field_shortfall(tc == 1 ? "ky" : "C", "row_len", std::int64_t(tc) * l.ky * l.kx * hw.cols, kCountMax,
                        "LOAD_WEIGHTS: Tc x ky x kx x array.cols weights per group"),
    };
    for (const auto& s : checks)
      if (s) return s;
  }
  return std::nullopt;
}

TilePlan make_plan(const Layer& l, const hw::HwParams& hw, int tc, int n_kg, int th, int tw, const std::string& order,
                   TileLayout lay, int tn) {
  TilePlan p;
  p.tn = tn;
  p.tiles_n = int(ceil_div(l.n, tn));
  p.aligned = lay.align;
  p.skip_rows = lay.skip_rows;
  p.flat = lay.flat;
  p.gather = lay.gather;
  p.tc = tc;
  p.n_kg = n_kg;
  p.th = th;
  p.tw = tw;
  p.tiles_c = int(ceil_div(l.c, tc));
  p.tiles_k = int(ceil_div(groups(l, hw), n_kg));
  p.tiles_h = int(ceil_div(l.ho(), th));
  p.tiles_w = int(ceil_div(l.wo(), tw));
  p.order = order;
  const int edge = l.wo() - (p.tiles_w - 1) * tw;
  const TileWindow full = tile_window(l, hw, tc, tn * th, tw, lay);
  p.ifmap_words = std::max(full.words, tile_window(l, hw, tc, tn * th, edge, lay).words);
  p.weight_words = std::int64_t(n_kg) * tc * l.ky * l.kx;
  p.psum_words = std::int64_t(n_kg) * hw.cols * full.ncy * full.ncx;
  return p;
}

TilePlan choose_plan(const Layer& l, const Config& cfg, const CompileOptions& opt) {
  const hw::HwParams hw = hardware_params(cfg);
  check_pattern(l, cfg);
  check_layer_fields(l, hw);

  const int wo = l.wo();
  const int tw_min = std::min(wo, hw.rows);
  if (auto s = plan_shortfall(l, cfg, hw, 1, 1, 1, tw_min)) {
    const std::string tile =
        fmt::format("the smallest tile (Tc = 1 input channel, 1 group of {}, Th = 1 output row, Tw = {})",
                    counted(hw.cols, "output channel"), counted(tw_min, "output column"));
    if (s->layer_key) throw InputError(layer_source(l), s->key, fmt::format("is too large: {} {}", tile, s->problem));
    const SramConfig& sram = s->key == "sram.ifmap.kbytes" ? cfg.ifmap : s->key == "sram.weights.kbytes" ? cfg.weights
                                                                                                        : cfg.psums;
    throw InputError(cfg.source, s->key,
                     fmt::format("= {}: layer '{}' cannot run: {} {}", sram.kbytes, l.name, tile, s->problem));
  }
  validate_options(l, hw, opt);

  const int c_hi = int(std::min<std::int64_t>(l.c, kCountMax));
  const int kg_hi = groups(l, hw);
  const int h_hi = l.ho();
  // Forced images per tile: whole images (Th = Ho), and every other size chosen around them.
  const int tn0 = opt.tile_n > 1 ? opt.tile_n : 1;
  const int tc0 = opt.tile_c ? opt.tile_c : 1;
  const int kg0 = opt.tile_kg ? opt.tile_kg : 1;
  const int th0 = opt.tile_h ? opt.tile_h : tn0 > 1 ? h_hi : 1;

  // Whole output rows first; narrower column tiles (multiples of ROWS) only when nothing fits.
  std::vector<int> widths;
  if (opt.tile_w) {
    widths.push_back(opt.tile_w);
  } else if (opt.flat_contexts) {
    widths.push_back(wo);  // flat contexts run whole output rows
  } else {
    widths.push_back(wo);
    for (std::int64_t m = ceil_div(wo, hw.rows) - 1; m >= 1; --m) widths.push_back(int(m * hw.rows));
  }
  const TileLayout al{opt.align_rows, opt.skip_rows, opt.flat_contexts, opt.gather_cols};
  const auto fits = [&](int tc, int kg, int th, int tw) {
    return !plan_shortfall(l, cfg, hw, tc, kg, th, tw, al, tn0);
  };
  const bool can_pack_images = images_pack_problem(l, hw, al, opt.order).empty();
  if (tn0 > 1 && !fits(tc0, kg0, th0, wo)) {
    // Not even one channel and one group of tile_n whole images fit.
    const std::optional<Shortfall> why = plan_shortfall(l, cfg, hw, tc0, kg0, h_hi, wo, al, tn0);
    const auto fits_n = [&](int v) { return !plan_shortfall(l, cfg, hw, tc0, kg0, h_hi, wo, al, v); };
    throw InputError(kOptionsSource, "tile_n",
                     fmt::format("= {}: a tile of {} whole images with Tc = {} and n_kg = {} {} ({}); the most that "
                                 "fit is {}",
                                 opt.tile_n, opt.tile_n, tc0, kg0, why ? why->problem : std::string("does not fit"),
                                 why ? why->key : "", largest_fitting(1, l.n, fits_n)));
  }
  for (int tw : widths) {
    if (!fits(tc0, kg0, th0, tw)) continue;
    const int tc = opt.tile_c ? opt.tile_c : largest_fitting(1, c_hi, [&](int v) { return fits(v, kg0, th0, tw); });
    const int kg = opt.tile_kg ? opt.tile_kg : largest_fitting(1, kg_hi, [&](int v) { return fits(tc, v, th0, tw); });
    const int th = opt.tile_h || tn0 > 1 ? th0 : largest_fitting(1, h_hi, [&](int v) { return fits(tc, kg, v, tw); });
    // Unforced: when whole images fit, as many per tile as fit (packing contexts across them).
    int tn = tn0;
    if (opt.tile_n == 0 && can_pack_images && th == h_hi)
      tn = largest_fitting(1, l.n, [&](int v) { return !plan_shortfall(l, cfg, hw, tc, kg, th, tw, al, v); });
    return make_plan(l, hw, tc, kg, th, tw, opt.order, al, tn);
  }

  // The forced sizes do not fit. At the widest column tile where some forced option could be
  // reduced to fit, blame the first such option and say how large it may be.
  const std::string values = option_value_text(opt);
  const auto reject = [&](const char* key, int value, int tw, const std::string& best) {
    const std::optional<Shortfall> why = plan_shortfall(l, cfg, hw, tc0, kg0, th0, tw, al);
    const std::string tile = fmt::format("the tile of {}", counted(tw, "output column"));
    throw InputError(kOptionsSource, key,
                     fmt::format("= {}: with {}, {} {} ({}){}", value, values, tile,
                                 why ? why->problem : std::string("does not fit"), why ? why->key : "", best));
  };
  struct Option { const char* key; int value; int hi; std::function<bool(int, int)> fits_with; };
  const Option options[] = {
      {"tile_c", opt.tile_c, c_hi, [&](int v, int tw) { return fits(v, kg0, th0, tw); }},
      {"tile_kg", opt.tile_kg, kg_hi, [&](int v, int tw) { return fits(tc0, v, th0, tw); }},
      {"tile_h", opt.tile_h, h_hi, [&](int v, int tw) { return fits(tc0, kg0, v, tw); }},
  };
  for (int tw : widths)
    for (const auto& o : options)
      if (o.value && o.fits_with(1, tw)) {
        const int best = largest_fitting(1, o.hi, [&](int v) { return o.fits_with(v, tw); });
        reject(o.key, o.value, tw, fmt::format("; the largest {} that fits is {}", o.key, best));
      }
  if (opt.tile_w)
    for (std::int64_t m = ceil_div(wo, hw.rows) - 1; m >= 1; --m)
      if (fits(tc0, kg0, th0, int(m * hw.rows)))
        reject("tile_w", opt.tile_w, opt.tile_w, fmt::format("; the largest tile_w that fits is {}", m * hw.rows));
  const char* key = opt.tile_c ? "tile_c" : opt.tile_kg ? "tile_kg" : opt.tile_h ? "tile_h" : "tile_w";
  const int value = opt.tile_c ? opt.tile_c : opt.tile_kg ? opt.tile_kg : opt.tile_h ? opt.tile_h : opt.tile_w;
  reject(key, value, widths.back(), "; make the forced tile sizes smaller");
  throw std::logic_error("unreachable");  // reject() always throws
}

}  // namespace flycol
