// The pooling lowering: tile choice (whole output rows, then the most output rows, then the most
// channels that fit the ifmap and psum buffers), the padding value, the divisor geometry of each
// tile, and the command stream with double-buffered ifmap and psum buffers.
#include "sim/compiler/pool_compiler.h"

#include <algorithm>

#include <fmt/format.h>

#include "sim/common/input_error.h"
#include "sim/common/int_math.h"
#include "sim/compiler/command_limits.h"
#include "sim/compiler/tiling.h"
#include "sim/config/config_keys.h"

namespace flycol {

namespace {

constexpr const char* kOptions = "pool compile options";

// ONNX's output size: floor (ceil_mode: ceil) of (padded - extent) / stride, plus one; with
// ceil_mode a last window starting in the end padding is dropped.
int out_size(int in, int pad_begin, int pad_end, int extent, int stride, bool ceil_mode) {
  const int span = in + pad_begin + pad_end - extent;
  if (span < 0 || stride < 1) return 0;
  int out = (ceil_mode ? (span + stride - 1) / stride : span / stride) + 1;
  if (ceil_mode && (out - 1) * stride >= in + pad_begin) --out;
  return out;
}



struct Tile {
  int n = 0, oy0 = 0, th = 0, ox0 = 0, tw = 0, c0 = 0, tc = 0;
};

class PoolEmitter {
public:
  PoolEmitter(Program& p, const PoolShape& s) : p_(p), s_(s), l_(p.layer), hw_(p.hw) {}

  // The RUN of a tile (buffers set by the caller).
  hw::RunDesc run_of(const Tile& t) const { return pool_tile_run(s_, l_, hw_, t.oy0, t.th, t.ox0, t.tw, t.tc); }

  void tile(const Tile& t) {
    const std::string note = fmt::format("n={} oy={}..{} ox={}..{} c={}..{}", t.n, t.oy0, t.oy0 + t.th - 1, t.ox0,
                                         t.ox0 + t.tw - 1, t.c0, t.c0 + t.tc - 1);
    const int ib = next_ifmap_;
    next_ifmap_ = (next_ifmap_ + 1) % hw_.ifmap_buffers;
    const int pb = next_psum_;
    next_psum_ = (next_psum_ + 1) % hw_.psum_buffers;

    hw::Command load;
    load.op = hw::Opcode::LoadIfmap;
    load.wait_ex = ifmap_reader_[std::size_t(ib)];
    load.dma = ifmap_tile_load(l_, hw_, p_.plan, p_.dram.ifmap_base, t.n, t.oy0, t.th, t.ox0, t.tw, t.c0, t.tc);
    load.dma.buf = std::uint8_t(ib);
    load.dma.pad_value = pool_pad_value(s_.op, p_.config.arithmetic);
    emit(load, note);

    hw::Command run;
    run.op = hw::Opcode::Run;
    run.run = run_of(t);
    run.run.ifmap_buf = std::uint8_t(ib);
    run.run.psum_buf = std::uint8_t(pb);
    run.wait_ld = ld_;
    run.wait_ps = psum_store_[std::size_t(pb)];  // the store that drained the buffer
    emit(run, note);
    ifmap_reader_[std::size_t(ib)] = ex_;

    hw::Command store;
    store.op = hw::Opcode::StorePsums;
    store.wait_ex = ex_;
    store.dma = pool_tile_store(l_, hw_, p_.dram.ofmap_base, t.n, t.oy0, t.th, t.ox0, t.tw, t.c0, t.tc);
    store.dma.buf = std::uint8_t(pb);
    emit(store, note);
    psum_store_[std::size_t(pb)] = ps_;
  }

private:
  // fits() rejects every tiling whose commands could overflow a field.
  void emit(const hw::Command& c, const std::string& note) { append_command(p_, c, note, ld_, ex_, ps_); }

  Program& p_;
  const PoolShape& s_;
  const Layer& l_;
  const hw::HwParams& hw_;
  std::uint32_t ld_ = 0, ex_ = 0, ps_ = 0;
  int next_ifmap_ = 0, next_psum_ = 0;
  std::uint32_t ifmap_reader_[2] = {0, 0}, psum_store_[2] = {0, 0};
};

void check_shape(const PoolShape& s, const hw::HwParams& hw) {
  const auto range = [&s](const char* key, int v, int lo, int hi) {
    if (v < lo || v > hi) throw InputError(s.source, key, fmt::format("= {}: must be in [{}, {}]", v, lo, hi));
  };
  range("N", s.n, 1, 65535);
  range("C", s.c, 1, 1 << 20);
  range("H", s.h, 1, 65535);
  range("W", s.w, 1, 65535);
  range("ky", s.ky, 1, 65535);
  range("kx", s.kx, 1, 65535);
  range("sy", s.sy, 1, int(kPoolStrideMax));
  range("sx", s.sx, 1, int(kLaneStrideMax));
  range("dy", s.dy, 1, 255);
  range("dx", s.dx, 1, 255);
  range("pt", s.pt, 0, int(kPoolStartMax));
  range("pl", s.pl, 0, int(kPoolStartMax));
  range("pb", s.pb, 0, int(kPoolStartMax));
  range("pr", s.pr, 0, int(kPoolStartMax));
  if (s.ho() < 1 || s.wo() < 1)
    throw InputError(s.source, "k", fmt::format("= {}x{}: the window (dilated) is larger than the padded {}x{} map",
                                               s.ky, s.kx, s.h + s.pt + s.pb, s.w + s.pl + s.pr));
  if (s.op == hw::PoolOp::Average) {
    if (s.dy != 1 || s.dx != 1)
      throw InputError(s.source, "d", fmt::format("= {}x{}: average pooling on chip takes no dilation (section 16)",
                                                 s.dy, s.dx));
    range("ky", s.ky, 1, int(kMaxAvgPoolSide));
    range("kx", s.kx, 1, int(kMaxAvgPoolSide));
  }
  (void)hw;
}

}  // namespace

std::uint32_t pool_pad_value(hw::PoolOp op, Arithmetic a) {
  if (op != hw::PoolOp::Max) return 0;  // the average's padding adds nothing; its divisor ignores it
  switch (a) {
    case Arithmetic::fp16: return 0xFC00;  // -Inf: never wins
    case Arithmetic::int8: return 0x80;
    case Arithmetic::int16: return 0x8000;
  }
  return 0;
}

Layer pool_geometry(const PoolShape& s, const Config& config) {
  const hw::HwParams hw = hardware_params(config);
  check_shape(s, hw);
  const int ho = s.ho(), wo = s.wo();
  Layer l;
  l.name = s.op == hw::PoolOp::Max ? "maxpool" : "avgpool";
  l.n = s.n;
  l.c = l.k = s.c;
  l.h = s.h;
  l.w = s.w;
  l.ky = s.ky;
  l.kx = s.kx;
  l.sy = s.sy;
  l.sx = s.sx;
  l.dy = s.dy;
  l.dx = s.dx;
  l.pt = s.pt;
  l.pl = s.pl;
  // ceil_mode's last window reaches past the declared padding: the tiles pad that far too.
  l.pb = std::max(s.pb, (ho - 1) * s.sy + l.extent_y() - s.h - s.pt);
  l.pr = std::max(s.pr, (wo - 1) * s.sx + l.extent_x() - s.w - s.pl);
  if (l.ho() != ho || l.wo() != wo)
    throw std::logic_error(fmt::format("compiler bug: pooling geometry {}x{} for outputs {}x{}", l.ho(), l.wo(), ho, wo));
  if (l.extent_x() > hw.pattern_bits && kernel_chunks(l, hw).n == 1)
    throw InputError(config.source, "feeder.pattern_bits",
                     fmt::format("= {}: the dilated pooling window is {} columns wide", hw.pattern_bits, l.extent_x()));
  return l;
}

hw::DmaDesc pool_tile_store(const Layer& l, const hw::HwParams& hw, std::uint64_t ofmap_base, int n, int oy0, int th,
                            int ox0, int tw, int c0, int tc) {
  const std::uint64_t ab = std::uint64_t(hw.acc_bytes());
  hw::DmaDesc d;
  d.dram_addr = ofmap_base + (((std::uint64_t(n) * l.k + std::uint64_t(c0)) * l.ho() + std::uint64_t(oy0)) * l.wo() +
                              std::uint64_t(ox0)) * ab;
  d.n_planes = std::uint32_t(tc);
  d.plane_stride = std::uint32_t(std::uint64_t(l.ho()) * l.wo() * ab);
  d.n_rows = std::uint32_t(th);
  d.row_stride = std::uint32_t(std::uint64_t(l.wo()) * ab);
  d.row_len = std::uint32_t(tw);
  d.pad_right = std::uint32_t(ceil_div(tw, hw.rows) * hw.rows - tw);
  return d;
}

hw::RunDesc pool_tile_run(const PoolShape& s, const Layer& l, const hw::HwParams& hw, int oy0, int th, int ox0, int tw,
                          int tc) {
  const TileWindow win = tile_window(l, hw, tc, th, tw);
  hw::RunDesc r;
  r.pool_op = std::uint32_t(s.op);
  r.n_kg = 1;
  r.n_cy = std::uint32_t(win.ncy);
  r.n_cx = std::uint32_t(win.ncx);
  r.n_c = std::uint32_t(tc);
  r.n_ky = std::uint32_t(l.ky);
  r.step_cx = std::uint32_t(win.step_cx);
  r.step_cy = std::uint32_t(win.step_cy);
  r.step_c = std::uint32_t(std::int64_t(win.ht) * win.wt);
  r.step_ky = std::uint32_t(l.dy * win.wt);
  r.lane_stride = std::uint32_t(l.sx);
  set_kernel_fields(r, l, hw);
  if (s.op == hw::PoolOp::Average) set_pool_divisor(r, s, oy0, ox0);
  return r;
}

void set_pool_divisor(hw::RunDesc& r, const PoolShape& s, int oy0, int ox0) {
  // Tile coordinates: row 0 is input row iy0 = oy0*sy - pt (the first window's top), column 0
  // input column ix0. The divisor counts real data, or with count_include_pad the declared
  // padding (never the rows ceil_mode adds beyond it).
  const int iy0 = oy0 * s.sy - s.pt, ix0 = ox0 * s.sx - s.pl;
  const int lo_y = s.count_include_pad ? -s.pt : 0, hi_y = s.count_include_pad ? s.h + s.pb : s.h;
  const int lo_x = s.count_include_pad ? -s.pl : 0, hi_x = s.count_include_pad ? s.w + s.pr : s.w;
  r.pool_sy = std::uint32_t(s.sy);
  r.pool_y0 = std::uint32_t(std::max(0, lo_y - iy0));
  r.pool_y1 = std::uint32_t(std::max(0, hi_y - iy0));
  r.pool_x0 = std::uint32_t(std::max(0, lo_x - ix0));
  r.pool_x1 = std::uint32_t(std::max(0, hi_x - ix0));
}

int PoolShape::ho() const { return out_size(h, pt, pb, (ky - 1) * dy + 1, sy, ceil_mode); }
int PoolShape::wo() const { return out_size(w, pl, pr, (kx - 1) * dx + 1, sx, ceil_mode); }

Program compile_pool(const PoolShape& s, const Config& config, const PoolCompileOptions& options) {
  const hw::HwParams hw = hardware_params(config);
  check_shape(s, hw);
  const int ho = s.ho(), wo = s.wo();

  Program p;
  p.config = config;
  p.hw = hw;
  p.pool = s.op;
  p.layer = pool_geometry(s, config);
  const Layer& l = p.layer;

  p.dram.ifmap_base = 0;
  p.dram.ifmap_bytes = std::uint64_t(l.ifmap_elems()) * std::uint64_t(hw.elem_bytes());
  p.dram.weights_base = p.dram.ofmap_base = (p.dram.ifmap_bytes + 63) / 64 * 64;
  p.dram.weights_bytes = 0;
  p.dram.ofmap_bytes = std::uint64_t(l.ofmap_elems()) * std::uint64_t(hw.acc_bytes());
  p.dram.total_bytes = (p.dram.ofmap_base + p.dram.ofmap_bytes + 63) / 64 * 64;

  PoolEmitter probe(p, s);
  // A tile fits if its full and edge column tiles fit the ifmap and psum buffers and every RUN
  // field its width (rows only shrink at the bottom edge, which fits when the full tile does).
  const auto fits = [&](int tc, int th, int tw) {
    std::vector<int> widths = {tw};
    if (wo % tw) widths.push_back(wo % tw);
    for (int w : widths) {
      const TileWindow win = tile_window(l, hw, tc, th, w);
      if (win.words > hw.ifmap_depth) return false;
      if (std::int64_t(tc) * win.ncy * win.ncx > hw.psum_depth) return false;
      hw::Command c;
      c.op = hw::Opcode::Run;
      c.run = probe.run_of({0, 0, th, 0, w, 0, tc});
      if (!command_field_violation(c, hw).empty()) return false;
    }
    return true;
  };
  std::vector<int> widths;
  if (options.tile_w) {
    if (options.tile_w != wo && (options.tile_w % hw.rows || options.tile_w > wo))
      throw InputError(kOptions, "tile_w", fmt::format("= {}: must be Wo = {} or a multiple of array.rows = {} below it",
                                                       options.tile_w, wo, hw.rows));
    widths.push_back(options.tile_w);
  } else {
    widths.push_back(wo);
    for (int m = int(ceil_div(wo, hw.rows)) - 1; m >= 1; --m) widths.push_back(m * hw.rows);
  }
  int tc = 0, th = 0, tw = 0;
  for (int w : widths) {
    const int th0 = options.tile_h ? options.tile_h : 1, tc0 = options.tile_c ? options.tile_c : 1;
    if (!fits(tc0, th0, w)) continue;
    tw = w;
    // The most output rows (fewer halo rows loaded twice), then the most channels.
    th = options.tile_h ? options.tile_h : largest_fitting(1, ho, [&](int v) { return fits(tc0, v, w); });
    tc = options.tile_c ? options.tile_c : largest_fitting(1, s.c, [&](int v) { return fits(v, th, w); });
    break;
  }
  if (tw == 0)
    throw InputError(config.source, "sram.ifmap.kbytes",
                     fmt::format("= {}: the pooling layer cannot run: its smallest tile (1 channel, 1 output row, {} "
                                 "output columns) does not fit the ifmap or psum buffer",
                                 config.ifmap.kbytes, std::min(wo, hw.rows)));
  if (options.tile_h && (options.tile_h < 1 || options.tile_h > ho))
    throw InputError(kOptions, "tile_h", fmt::format("= {}: must be in [1, {}]", options.tile_h, ho));
  if (options.tile_c && (options.tile_c < 1 || options.tile_c > s.c))
    throw InputError(kOptions, "tile_c", fmt::format("= {}: must be in [1, {}]", options.tile_c, s.c));

  TilePlan& plan = p.plan;
  plan.tc = tc;
  plan.th = th;
  plan.tw = tw;
  plan.tiles_c = int(ceil_div(s.c, tc));
  plan.tiles_h = int(ceil_div(ho, th));
  plan.tiles_w = int(ceil_div(wo, tw));
  plan.tiles_n = s.n;
  plan.ifmap_words = tile_window(l, hw, tc, th, tw).words;
  plan.psum_words = std::int64_t(tc) * tile_window(l, hw, 1, th, tw).ncy * tile_window(l, hw, 1, th, tw).ncx;

  PoolEmitter e(p, s);
  for (int n = 0; n < s.n; ++n)
    for (int yi = 0; yi < plan.tiles_h; ++yi)
      for (int xi = 0; xi < plan.tiles_w; ++xi)
        for (int ci = 0; ci < plan.tiles_c; ++ci) {
          Tile t;
          t.n = n;
          t.oy0 = yi * th;
          t.th = std::min(th, ho - t.oy0);
          t.ox0 = xi * tw;
          t.tw = std::min(tw, wo - t.ox0);
          t.c0 = ci * tc;
          t.tc = std::min(tc, s.c - t.c0);
          e.tile(t);
        }
  p.runs = int(std::count_if(p.commands.begin(), p.commands.end(),
                             [](const hw::Command& c) { return c.op == hw::Opcode::Run; }));
  return p;
}

std::vector<std::uint8_t> build_pool_dram_image(const Program& p, const std::vector<ElemBits>& ifmap) {
  if (p.pool == hw::PoolOp::None || ifmap.size() != std::size_t(p.layer.ifmap_elems()))
    throw std::invalid_argument(fmt::format("build_pool_dram_image: {} elements for a {} program of {} ifmap elements",
                                            ifmap.size(), p.pool == hw::PoolOp::None ? "convolution" : "pooling",
                                            p.layer.ifmap_elems()));
  std::vector<std::uint8_t> dram(p.dram.total_bytes, 0);
  const int eb = p.hw.elem_bytes();
  for (std::size_t i = 0; i < ifmap.size(); ++i)
    for (int b = 0; b < eb; ++b) dram[p.dram.ifmap_base + i * std::uint64_t(eb) + std::uint64_t(b)] = std::uint8_t(ifmap[i] >> (8 * b));
  return dram;
}

}  // namespace flycol
