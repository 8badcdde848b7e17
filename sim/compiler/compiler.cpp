// Command emission (loop orders, buffer residency, wait thresholds), the DRAM layout and the
// DRAM image helpers. The tile sizes come from tiling.cpp; this file only walks the tiles.
#include "sim/compiler/compiler.h"

#include <algorithm>
#include <array>
#include <stdexcept>

#include <fmt/format.h>

#include "sim/common/int_math.h"
#include "sim/compiler/command_limits.h"
#include "sim/compiler/fused_compiler.h"
#include "sim/compiler/pool_compiler.h"
#include "sim/compiler/tiling.h"
#include "sim/config/config_keys.h"

namespace flycol {
namespace {

std::uint64_t align64(std::uint64_t v) { return (v + 63) / 64 * 64; }

// One tile of the loop nest: which outputs, which input channels, which output-channel groups.
struct TileBox {
  int n = 0, tn = 1;  // first image, images (tn > 1: packed across images, th = tn * Ho)
  int yi = 0, oy0 = 0, th = 0;
  int xi = 0, ox0 = 0, tw = 0;
  int ci = 0, c0 = 0, tc = 0;
  int ki = 0, kg0 = 0, nkg = 0;
  int q0 = 0, tq = 0;  // fused: the pooled output rows the tile's convolution rows feed
  int p0 = 0, tp = 0;  // fused: the pooled output columns its convolution columns feed
};

// Residency of one ifmap or weight buffer: the tile it holds, the LD ordinal that loaded it and
// the EX ordinal of the last RUN that read it.
struct InBuffer {
  bool valid = false;
  std::array<int, 4> tile{};
  std::uint32_t load = 0, last_reader = 0;
};

struct PsumBuffer {
  std::uint32_t last_run = 0;  // EX ordinal of the last RUN that wrote (or preloaded from) it
  std::uint32_t last_ps = 0;   // PS ordinal of the last store or psum load on it
};

class Emitter {
public:
  explicit Emitter(Program& p)
      : p_(p), l_(p.layer), hw_(p.hw), ifb_(std::size_t(p.hw.ifmap_buffers)), wtb_(std::size_t(p.hw.weight_buffers)),
        psb_(std::size_t(p.hw.psum_buffers)) {}

  TileBox box(int n, int yi, int xi, int ki, int ci) const {
    const TilePlan& plan = p_.plan;
    TileBox b;
    b.n = n * plan.tn;
    b.tn = std::min(plan.tn, l_.n - b.n);
    b.yi = yi; b.oy0 = yi * plan.th; b.th = std::min(plan.th, l_.ho() - b.oy0);
    if (plan.tn > 1) b.th = b.tn * l_.ho();  // whole images: the RUN covers all their rows
    b.xi = xi; b.ox0 = xi * plan.tw; b.tw = std::min(plan.tw, l_.wo() - b.ox0);
    b.ci = ci; b.c0 = ci * plan.tc; b.tc = std::min(plan.tc, l_.c - b.c0);
    b.ki = ki; b.kg0 = ki * plan.n_kg; b.nkg = std::min(plan.n_kg, ceil_div(l_.k, hw_.cols) - b.kg0);
    return b;
  }

  int next_psum_buffer() {
    const int b = next_psum_;
    next_psum_ = (next_psum_ + 1) % hw_.psum_buffers;
    return b;
  }

  // Emits what one RUN needs: its loads (unless resident), a psum load, the RUN, a store.
  void step(const TileBox& t, bool preload, bool load_psums, bool store, int pb) {
    const std::string images = t.tn > 1 ? fmt::format("{}..{}", t.n, t.n + t.tn - 1) : fmt::format("{}", t.n);
    const int rows = t.tn > 1 ? l_.ho() : t.th;
    const std::string note = fmt::format("n={} oy={}..{} ox={}..{} k={}..{} c={}..{}", images, t.oy0, t.oy0 + rows - 1,
                                         t.ox0, t.ox0 + t.tw - 1, t.kg0 * hw_.cols,
                                         std::min(l_.k, (t.kg0 + t.nkg) * hw_.cols) - 1, t.c0, t.c0 + t.tc - 1);
    const TileWindow win = tile_window(l_, hw_, t.tc, t.th, t.tw, p_.plan.layout());

    const auto [ib, load_ifmap] = place(ifb_, {t.n, t.yi, t.xi, t.ci}, last_run_ifmap_);
    if (load_ifmap) {
      emit(ifmap_load(t, ib), note);
      ifb_[std::size_t(ib)].load = ld_;
    }
    const auto [wb, load_weights] = place(wtb_, {t.ki, t.ci, 0, 0}, last_run_weights_);
    if (load_weights) {
      emit(weight_load(t, wb), note);
      wtb_[std::size_t(wb)].load = ld_;
    }

    PsumBuffer& ps = psb_[std::size_t(pb)];
    if (load_psums) {
      hw::Command c = psum_transfer(hw::Opcode::LoadPsums, t, pb);
      c.wait_ex = ps.last_run;
      emit(c, note);
      ps.last_ps = ps_;
    }

    hw::Command run;
    run.op = hw::Opcode::Run;
    run.wait_ld = std::max(ifb_[std::size_t(ib)].load, wtb_[std::size_t(wb)].load);
    run.wait_ps = ps.last_ps;  // the store that drained the buffer, or the psum load that filled it
    hw::RunDesc& r = run.run;
    r.ifmap_buf = std::uint8_t(ib);
    r.weight_buf = std::uint8_t(wb);
    r.psum_buf = std::uint8_t(pb);
    r.preload = preload;
    r.n_kg = std::uint32_t(t.nkg);
    r.n_cy = std::uint32_t(win.ncy);
    r.n_cx = std::uint32_t(win.ncx);
    r.n_c = std::uint32_t(t.tc);
    r.n_ky = std::uint32_t(l_.ky);
    // A gathered tile holds only the columns the outputs read: the RUN strides by 1 in x.
    const int sx = p_.plan.gather ? 1 : l_.sx;
    r.step_cx = std::uint32_t(win.step_cx);  // ROWS*sx, plus the packed rows' jumps
    r.step_cy = std::uint32_t(win.step_cy);
    r.step_c = std::uint32_t(std::int64_t(win.ht) * win.wt);
    r.step_ky = std::uint32_t(l_.dy * win.wt);
    r.lane_stride = std::uint32_t(sx);
    set_kernel_fields(r, l_, hw_);  // n_kx, region, pattern and the kernel-column chunks
    // A gathered layer (kx = 1: one chunk) strides by 1: its region is the layout's.
    if (p_.plan.gather) r.region = region_width(l_, hw_, p_.plan.layout());
    // Pixel packing (flat contexts of a wider kernel): every chunk's region reaches the wraps' jumps.
    const std::uint32_t pack_extra = std::uint32_t(win.pack_extra);
    r.region += pack_extra;
    if (r.n_kxc > 1) r.region_kxc += pack_extra;
    r.pack_w = std::uint32_t(win.pack_w);
    r.pack_r = std::uint32_t(win.pack_r);
    r.pack_jump = std::uint32_t(win.pack_jump);
    emit(run, note);
    ifb_[std::size_t(ib)].last_reader = wtb_[std::size_t(wb)].last_reader = ps.last_run = ex_;
    last_run_ifmap_ = ib;
    last_run_weights_ = wb;

    if (store && p_.fused) {
      pool_on_chip(t, pb);
    } else if (store) {
      hw::Command c = psum_transfer(hw::Opcode::StorePsums, t, pb);
      c.wait_ex = ps.last_run;
      emit(c, note);
      ps.last_ps = ps_;
    }
  }

  // A fused tile (section 16, "Fused convolution + pooling"): pooled rows q0..q0+tq-1 and
  // columns p0..p0+tp-1 of image n, output channels of k tile ki, and the convolution rows and
  // columns they need.
  TileBox fused_box(int n, int qi, int pi, int ki, int ci) const {
    const FusedPooling& f = *p_.fused;
    const Layer& g = f.geometry;
    TileBox b;
    b.n = n;
    b.q0 = qi * f.tq;
    b.tq = std::min(f.tq, g.ho() - b.q0);
    b.p0 = pi * f.tp;
    b.tp = std::min(f.tp, g.wo() - b.p0);
    const int iy0 = b.q0 * g.sy - g.pt;  // the tile's first row, in convolution output rows
    b.yi = qi;
    b.oy0 = std::max(0, iy0);
    b.th = std::min(l_.ho(), iy0 + (b.tq - 1) * g.sy + g.extent_y()) - b.oy0;
    const int ix0 = b.p0 * g.sx - g.pl;  // the tile's first column, in convolution output columns
    b.xi = pi;
    b.ox0 = std::max(0, ix0);
    b.tw = std::min(l_.wo(), ix0 + (b.tp - 1) * g.sx + g.extent_x()) - b.ox0;
    b.ci = ci; b.c0 = ci * p_.plan.tc; b.tc = std::min(p_.plan.tc, l_.c - b.c0);
    b.ki = ki; b.kg0 = ki * p_.plan.n_kg; b.nkg = std::min(p_.plan.n_kg, ceil_div(l_.k, hw_.cols) - b.kg0);
    return b;
  }

private:
  // The fused tail of a tile whose last channel slice has run into psum buffer pb: fill the pooling
  // tile with the padding value where its windows read beyond the convolution rows, move the
  // outputs into that ifmap buffer (STORE_PSUMS into the ifmap buffer, section 7.6), pool them
  // into the other psum buffer and store only the pooled rows.
  void pool_on_chip(const TileBox& t, int pb) {
    const FusedPooling& f = *p_.fused;
    const Layer& g = f.geometry;
    const int k0 = t.kg0 * hw_.cols;
    const int tc = std::min(l_.k, k0 + t.nkg * hw_.cols) - k0;
    const std::string note = fmt::format("n={} pooled oy={}..{} ox={}..{} k={}..{} (convolution rows {}..{}, columns "
                                         "{}..{})",
                                         t.n, t.q0, t.q0 + t.tq - 1, t.p0, t.p0 + t.tp - 1, k0, k0 + tc - 1, t.oy0,
                                         t.oy0 + t.th - 1, t.ox0, t.ox0 + t.tw - 1);
    // The pooling tile as a LOAD from the convolution's output would lay it out.
    const hw::DmaDesc in = ifmap_tile_load(g, hw_, TilePlan{}, 0, t.n, t.q0, t.tq, t.p0, t.tp, k0, tc);
    if (int(in.n_rows) != t.th || int(in.row_len) != t.tw)
      throw std::logic_error(fmt::format("compiler bug: fused tile of {} rows x {} columns for {} x {} convolution "
                                         "outputs",
                                         in.n_rows, in.row_len, t.th, t.tw));
    const std::uint64_t eb = std::uint64_t(hw_.elem_bytes());
    const std::uint64_t row_w = std::uint64_t(in.pad_left) + in.row_len + in.pad_right;
    const std::uint64_t rows = std::uint64_t(in.pad_top) + in.n_rows + in.pad_bottom;
    const int ib = last_run_ifmap_ < 0 ? 0 : 1 - last_run_ifmap_;  // not the buffer the last RUN read
    const int pool_pb = 1 - pb;
    InBuffer& buf = ifb_[std::size_t(ib)];
    PsumBuffer& conv_ps = psb_[std::size_t(pb)];
    PsumBuffer& pool_ps = psb_[std::size_t(pool_pb)];

    std::uint32_t wait_ld = buf.load;
    if (in.pad_left || in.pad_right || in.pad_top || in.pad_bottom || in.tail) {
      hw::Command fill;
      fill.op = hw::Opcode::LoadIfmap;
      fill.wait_ex = buf.last_reader;
      fill.dma = in;
      fill.dma.buf = std::uint8_t(ib);
      fill.dma.dram_addr = 0;
      fill.dma.pad_top = std::uint32_t(rows);  // every row padding: no memory request
      fill.dma.n_rows = 0;
      fill.dma.pad_bottom = 0;
      fill.dma.pad_value = pool_pad_value(f.pool.op, p_.config.arithmetic);
      emit(fill, note + " fill");
      wait_ld = ld_;
    }
    buf.valid = false;  // holds the pooling tile now, no ifmap tile of the convolution

    hw::Command move;
    move.op = hw::Opcode::StorePsums;
    move.wait_ld = wait_ld;
    move.wait_ex = std::max(conv_ps.last_run, buf.last_reader);
    hw::DmaDesc& m = move.dma;
    m.buf = std::uint8_t(pb);
    m.dst_ifmap = true;
    m.dst_buf = std::uint8_t(ib);
    m.dram_addr = (std::uint64_t(in.pad_top) * row_w + in.pad_left) * eb;
    m.n_planes = std::uint32_t(tc);
    m.plane_stride = std::uint32_t(rows * row_w * eb);
    m.n_rows = std::uint32_t(t.th);
    m.row_stride = std::uint32_t(row_w * eb);
    m.row_len = in.row_len;
    if (p_.plan.flat) {
      // Flat contexts: the tile's outputs follow each other row after row in the psum buffer, the
      // packed rows of section 7.5 (a plane is th*Wo outputs and the tail to a whole word).
      if (in.row_len != std::uint32_t(l_.wo()) || t.tw != l_.wo())
        throw std::logic_error("compiler bug: a flat fused tile must move whole convolution rows");
      const int n = t.th * l_.wo();
      m.tail = std::uint32_t(ceil_div(n, hw_.rows) * hw_.rows - n);
    } else {
      m.pad_right = std::uint32_t(ceil_div(t.tw, hw_.rows) * hw_.rows) - in.row_len;  // the tile's psum rows
    }
    emit(move, note + " move");
    conv_ps.last_ps = ps_;
    const std::uint32_t move_ps = ps_;

    hw::Command run;
    run.op = hw::Opcode::Run;
    run.run = pool_tile_run(f.pool, g, hw_, t.q0, t.tq, t.p0, t.tp, tc);
    run.run.ifmap_buf = std::uint8_t(ib);
    run.run.psum_buf = std::uint8_t(pool_pb);
    // It reads no weight, but the tops keep its weight buffer from the DMA while it runs: name the
    // buffer of the resident weights, which the next tile's first load leaves alone.
    const int wb = std::max(last_run_weights_, 0);
    run.run.weight_buf = std::uint8_t(wb);
    run.wait_ld = wait_ld;
    run.wait_ps = std::max(move_ps, pool_ps.last_ps);
    emit(run, note + " pool");
    buf.last_reader = pool_ps.last_run = wtb_[std::size_t(wb)].last_reader = ex_;
    last_run_ifmap_ = ib;

    hw::Command store;
    store.op = hw::Opcode::StorePsums;
    store.wait_ex = ex_;
    store.dma = pool_tile_store(g, hw_, p_.dram.ofmap_base, t.n, t.q0, t.tq, t.p0, t.tp, k0, tc);
    store.dma.buf = std::uint8_t(pool_pb);
    emit(store, note + " store");
    pool_ps.last_ps = ps_;
  }

  // The buffer holding `tile`, or the one to load it into: the buffer the most recent RUN did not
  // use, so the load overlaps that RUN.
  std::pair<int, bool> place(std::vector<InBuffer>& bufs, std::array<int, 4> tile, int last_run_buf) {
    for (std::size_t b = 0; b < bufs.size(); ++b)
      if (bufs[b].valid && bufs[b].tile == tile) return {int(b), false};
    const int b = (bufs.size() == 1 || last_run_buf < 0) ? 0 : 1 - last_run_buf;
    bufs[std::size_t(b)].valid = true;
    bufs[std::size_t(b)].tile = tile;
    return {b, true};
  }

  hw::Command ifmap_load(const TileBox& t, int ib) {
    hw::Command c;
    c.op = hw::Opcode::LoadIfmap;
    c.wait_ex = ifb_[std::size_t(ib)].last_reader;
    c.dma = t.tn > 1 ? ifmap_images_load(l_, hw_, p_.plan, p_.dram.ifmap_base, t.n, t.tn, t.c0, t.tc)
                     : ifmap_tile_load(l_, hw_, p_.plan, p_.dram.ifmap_base, t.n, t.oy0, t.th, t.ox0, t.tw, t.c0, t.tc);
    c.dma.buf = std::uint8_t(ib);
    return c;
  }

  hw::Command weight_load(const TileBox& t, int wb) {
    const std::uint64_t eb = std::uint64_t(hw_.elem_bytes());
    const std::uint64_t kernel = std::uint64_t(l_.ky) * l_.kx * std::uint64_t(hw_.cols);  // elements per channel
    hw::Command c;
    c.op = hw::Opcode::LoadWeights;
    c.wait_ex = wtb_[std::size_t(wb)].last_reader;
    hw::DmaDesc& d = c.dma;
    d.buf = std::uint8_t(wb);
    d.dram_addr = p_.dram.weights_base + (std::uint64_t(t.kg0) * l_.c + std::uint64_t(t.c0)) * kernel * eb;
    d.n_planes = std::uint32_t(t.nkg);
    d.plane_stride = std::uint32_t(std::uint64_t(l_.c) * kernel * eb);
    d.n_rows = 1;
    d.row_len = std::uint32_t(std::uint64_t(t.tc) * kernel);
    d.row_stride = std::uint32_t(d.row_len * eb);
    return c;
  }

  // STORE_PSUMS and LOAD_PSUMS share one geometry: the tile's valid output channels and columns,
  // with the context padding of each row skipped (store) or zero filled (load).
  hw::Command psum_transfer(hw::Opcode op, const TileBox& t, int pb) {
    const std::uint64_t ab = std::uint64_t(hw_.acc_bytes());
    const int k0 = t.kg0 * hw_.cols;
    hw::Command c;
    c.op = op;
    hw::DmaDesc& d = c.dma;
    d.buf = std::uint8_t(pb);
    d.dram_addr = p_.dram.ofmap_base +
                  (((std::uint64_t(t.n) * l_.k + std::uint64_t(k0)) * l_.ho() + std::uint64_t(t.oy0)) * l_.wo() +
                   std::uint64_t(t.ox0)) * ab;
    d.n_planes = std::uint32_t(std::min(l_.k, k0 + t.nkg * hw_.cols) - k0);
    d.plane_stride = std::uint32_t(std::uint64_t(l_.ho()) * l_.wo() * ab);
    d.row_stride = std::uint32_t(std::uint64_t(l_.wo()) * ab);
    if (t.tn > 1) {
      // Contexts packed across images (microarchitecture 12): a DRAM row is one image's output
      // plane, the rows follow each other in the buffer (packed rows, section 7.5).
      const int n = t.th * t.tw;  // tn images of Ho*Wo outputs
      d.n_rows = std::uint32_t(t.tn);
      d.row_len = std::uint32_t(std::int64_t(l_.ho()) * l_.wo());
      d.row_stride = std::uint32_t(std::uint64_t(l_.k) * d.row_len * ab);
      d.tail = std::uint32_t(ceil_div(n, hw_.rows) * hw_.rows - n);  // 0 when an image is whole words
      return c;
    }
    if (p_.plan.flat) {
      // One row of contexts over whole output rows: the tile's outputs are contiguous in DRAM.
      const int n = t.th * t.tw;
      d.n_rows = 1;
      d.row_len = std::uint32_t(n);
      d.pad_right = std::uint32_t(ceil_div(n, hw_.rows) * hw_.rows - n);
      return c;
    }
    d.n_rows = std::uint32_t(t.th);
    d.row_len = std::uint32_t(t.tw);
    d.pad_right = std::uint32_t(ceil_div(t.tw, hw_.rows) * hw_.rows - t.tw);
    return c;
  }

  // tiling.cpp rejects every layer whose commands could overflow a field.
  void emit(const hw::Command& c, const std::string& note) { append_command(p_, c, note, ld_, ex_, ps_); }

  Program& p_;
  const Layer& l_;
  const hw::HwParams& hw_;
  std::vector<InBuffer> ifb_, wtb_;
  std::vector<PsumBuffer> psb_;
  std::uint32_t ld_ = 0, ex_ = 0, ps_ = 0;  // commands emitted per engine (= ordinal of the last)
  int last_run_ifmap_ = -1, last_run_weights_ = -1;
  int next_psum_ = 0;
};

void emit_program(Program& p) {
  Emitter e(p);
  const TilePlan& t = p.plan;
  if (t.order == "spill") {
    // Input-channel slices outermost: after every slice the partial sums go to the ofmap region
    // and come back for the next one.
    for (int ci = 0; ci < t.tiles_c; ++ci)
      for (int n = 0; n < t.tiles_n; ++n)
        for (int yi = 0; yi < t.tiles_h; ++yi)
          for (int xi = 0; xi < t.tiles_w; ++xi)
            for (int ki = 0; ki < t.tiles_k; ++ki)
              e.step(e.box(n, yi, xi, ki, ci), ci > 0, ci > 0, true, e.next_psum_buffer());
  } else if (t.order == "k_outer") {
    // Output-channel tiles outermost: a k tile's weight slices stay in the weight buffers while
    // every output tile of the layer uses them (when they fit there), the ifmap is reloaded per
    // k tile instead.
    for (int ki = 0; ki < t.tiles_k; ++ki)
      for (int n = 0; n < t.tiles_n; ++n)
        for (int yi = 0; yi < t.tiles_h; ++yi)
          for (int xi = 0; xi < t.tiles_w; ++xi) {
            const int pb = e.next_psum_buffer();
            for (int ci = 0; ci < t.tiles_c; ++ci)
              e.step(e.box(n, yi, xi, ki, ci), ci > 0, false, ci == t.tiles_c - 1, pb);
          }
  } else {
    for (int n = 0; n < t.tiles_n; ++n)
      for (int yi = 0; yi < t.tiles_h; ++yi)
        for (int xi = 0; xi < t.tiles_w; ++xi)
          for (int ki = 0; ki < t.tiles_k; ++ki) {
            const int pb = e.next_psum_buffer();
            for (int ci = 0; ci < t.tiles_c; ++ci)
              e.step(e.box(n, yi, xi, ki, ci), ci > 0, false, ci == t.tiles_c - 1, pb);
          }
  }
  p.runs = int(std::count_if(p.commands.begin(), p.commands.end(),
                             [](const hw::Command& c) { return c.op == hw::Opcode::Run; }));
}

}  // namespace

void emit_fused_program(Program& p) {
  Emitter e(p);
  const TilePlan& t = p.plan;
  // The convolution always accumulates into psum buffer 0 and the pooling writes buffer 1, so the
  // next tile's convolution waits only for the move. k_outer: a k tile's weight slices stay
  // resident over its row and column tiles when they fit the weight buffers (the ifmap is
  // reloaded per k tile).
  const auto tile = [&](int n, int qi, int pi, int ki) {
    for (int ci = 0; ci < t.tiles_c; ++ci)
      e.step(e.fused_box(n, qi, pi, ki, ci), ci > 0, false, ci == t.tiles_c - 1, 0);
  };
  if (t.order == "k_outer") {
    for (int ki = 0; ki < t.tiles_k; ++ki)
      for (int n = 0; n < p.layer.n; ++n)
        for (int qi = 0; qi < t.tiles_h; ++qi)
          for (int pi = 0; pi < t.tiles_w; ++pi) tile(n, qi, pi, ki);
  } else {
    for (int n = 0; n < p.layer.n; ++n)
      for (int qi = 0; qi < t.tiles_h; ++qi)
        for (int pi = 0; pi < t.tiles_w; ++pi)
          for (int ki = 0; ki < t.tiles_k; ++ki) tile(n, qi, pi, ki);
  }
  p.runs = int(std::count_if(p.commands.begin(), p.commands.end(),
                             [](const hw::Command& c) { return c.op == hw::Opcode::Run; }));
}

namespace {

std::uint64_t dma_bytes(const hw::DmaDesc& d, int elem_bytes) {
  return std::uint64_t(d.n_planes) * d.n_rows * d.row_len * std::uint64_t(elem_bytes);
}

}  // namespace

void append_command(Program& p, const hw::Command& c, const std::string& note, std::uint32_t& ld, std::uint32_t& ex,
                    std::uint32_t& ps) {
  switch (hw::engine_of(c.op)) {
    case hw::Engine::LD: ++ld; break;
    case hw::Engine::EX: ++ex; break;
    case hw::Engine::PS: ++ps; break;
  }
  const std::string bad = command_field_violation(c, p.hw);
  if (!bad.empty())
    throw std::logic_error(fmt::format("compiler bug: command #{} ({}) has {}", p.commands.size(), c.to_string(), bad));
  p.commands.push_back(c);
  p.notes.push_back(note);
}

hw::DmaDesc ifmap_tile_load(const Layer& l, const hw::HwParams& hw, const TilePlan& plan, std::uint64_t ifmap_base,
                            int n, int oy0, int th, int ox0, int tw, int c0, int tc) {
  const TileWindow win = tile_window(l, hw, tc, th, tw, plan.layout());
  const std::uint64_t eb = std::uint64_t(hw.elem_bytes());
  hw::DmaDesc d;
  d.n_planes = std::uint32_t(tc);
  d.plane_stride = std::uint32_t(std::uint64_t(l.h) * l.w * eb);
  d.tail = std::uint32_t(win.tail);
  const int iy0 = oy0 * l.sy - l.pt, ix0 = ox0 * l.sx - l.pl;
  // Buffer row j holds input row iy0 + j, or with skip_rows iy0 + j*sy (every sy-th DRAM row).
  const int row_step = plan.skip_rows ? l.sy : 1;
  d.row_stride = std::uint32_t(std::uint64_t(l.w) * eb * std::uint64_t(row_step));
  const int j_lo = iy0 >= 0 ? 0 : (-iy0 + row_step - 1) / row_step;
  const int j_hi = std::min(win.ht - 1, l.h - 1 - iy0 < 0 ? -1 : (l.h - 1 - iy0) / row_step);
  const int r_lo = iy0 + j_lo * row_step;
  // Buffer column i holds input column ix0 + i, or gathered ix0 + i*sx (every sx-th DRAM
  // element). Only the columns the outputs need come from DRAM; an aligned pitch adds zeros on
  // the right.
  const int col_step = plan.gather ? l.sx : 1;
  d.elem_step = std::uint32_t(col_step);
  const int i_lo = ix0 >= 0 ? 0 : (-ix0 + col_step - 1) / col_step;
  const int i_hi = std::min(win.span - 1, l.w - 1 - ix0 < 0 ? -1 : (l.w - 1 - ix0) / col_step);
  const int c_lo = ix0 + i_lo * col_step;
  const std::uint64_t plane0 = (std::uint64_t(n) * l.c + std::uint64_t(c0)) * l.h;
  if (j_hi < j_lo || i_hi < i_lo) {
    // The window lies wholly in the padding: every row is a zero row, no DRAM data.
    d.dram_addr = ifmap_base + plane0 * std::uint64_t(l.w) * eb;
    d.n_rows = 0;
    d.row_len = 0;
    d.pad_top = std::uint32_t(win.ht);
    d.pad_left = std::uint32_t(win.wt);
    d.elem_step = 1;
    return d;
  }
  d.dram_addr = ifmap_base + ((plane0 + std::uint64_t(r_lo)) * l.w + std::uint64_t(c_lo)) * eb;
  d.n_rows = std::uint32_t(j_hi - j_lo + 1);
  d.row_len = std::uint32_t(i_hi - i_lo + 1);
  d.pad_top = std::uint32_t(j_lo);
  d.pad_bottom = std::uint32_t(win.ht - 1 - j_hi);
  d.pad_left = std::uint32_t(i_lo);
  d.pad_right = std::uint32_t(win.wt - 1 - i_hi);
  return d;
}

std::uint64_t gather_row_requests(std::uint64_t n, std::uint64_t off, std::uint64_t word, std::uint64_t elem,
                                  std::uint64_t beat_elems, std::uint64_t s) {
  // A chunk holds the kept elements left in the beat of its first one and in the SRAM word: the
  // cuts lie on no fixed grid of the kept elements, so the row is walked chunk by chunk.
  std::uint64_t k = 0;
  while (n > 0) {
    const std::uint64_t c = std::min({n, word - off, (beat_elems - elem % beat_elems + s - 1) / s});
    ++k;
    n -= c;
    off = (off + c) % word;
    elem += c * s;
  }
  return k;
}

hw::DmaDesc ifmap_images_load(const Layer& l, const hw::HwParams& hw, const TilePlan& plan, std::uint64_t ifmap_base,
                              int n0, int tn, int c0, int tc) {
  // The buffer is [tc][tn][H*W]: the flat tile of tn*Ho output rows of a 1x1 stride-1 kernel.
  const TileWindow win = tile_window(l, hw, tc, tn * l.ho(), l.wo(), plan.layout());
  const std::uint64_t eb = std::uint64_t(hw.elem_bytes());
  const std::uint64_t image = std::uint64_t(l.h) * std::uint64_t(l.w);
  hw::DmaDesc d;
  d.dram_addr = ifmap_base + (std::uint64_t(n0) * l.c + std::uint64_t(c0)) * image * eb;
  d.n_planes = std::uint32_t(tc);
  d.plane_stride = std::uint32_t(image * eb);
  d.n_rows = std::uint32_t(tn);
  d.row_stride = std::uint32_t(std::uint64_t(l.c) * image * eb);
  d.row_len = std::uint32_t(image);
  d.tail = std::uint32_t(win.tail);
  return d;
}

std::uint64_t load_request_bytes(const hw::DmaDesc& d, int elem_bytes, int word_elems) {
  const std::uint64_t eb = std::uint64_t(elem_bytes);
  if (d.elem_step <= 1) return dma_bytes(d, elem_bytes);
  const std::uint64_t beat = std::uint64_t(hw::kBeatBytes);
  const std::uint64_t width = std::uint64_t(d.pad_left) + d.row_len + d.pad_right;
  const std::uint64_t plane = (std::uint64_t(d.pad_top) + d.n_rows + d.pad_bottom) * width;
  std::uint64_t requests = 0;
  for (std::uint32_t pl = 0; pl < d.n_planes; ++pl)
    for (std::uint32_t y = 0; y < d.n_rows; ++y) {
      const std::uint64_t pos = pl * plane + (std::uint64_t(d.pad_top) + y) * width + d.pad_left;
      const std::uint64_t addr = d.dram_addr + std::uint64_t(pl) * d.plane_stride + std::uint64_t(y) * d.row_stride;
      requests += gather_row_requests(d.row_len, pos % std::uint64_t(word_elems), std::uint64_t(word_elems),
                                      addr / eb, beat / eb, d.elem_step);
    }
  return requests * beat;
}

std::vector<std::string> loop_order_names() { return {"output_stationary", "k_outer", "spill"}; }

DramLayout dram_layout(const Layer& l, const hw::HwParams& hw) {
  DramLayout d;
  const std::uint64_t groups = std::uint64_t(ceil_div(l.k, hw.cols));
  d.ifmap_base = 0;
  d.ifmap_bytes = std::uint64_t(l.ifmap_elems()) * std::uint64_t(hw.elem_bytes());
  d.weights_base = align64(d.ifmap_base + d.ifmap_bytes);
  d.weights_bytes = groups * std::uint64_t(l.c) * l.ky * l.kx * std::uint64_t(hw.cols) * std::uint64_t(hw.elem_bytes());
  d.ofmap_base = align64(d.weights_base + d.weights_bytes);
  d.ofmap_bytes = std::uint64_t(l.ofmap_elems()) * std::uint64_t(hw.acc_bytes());
  d.total_bytes = align64(d.ofmap_base + d.ofmap_bytes);
  return d;
}

std::string TilePlan::describe() const {
  const auto n = [](int v, const char* what) { return fmt::format("{} {}{}", v, what, v == 1 ? "" : "s"); };
  return fmt::format("Tc = {} ({}), n_kg = {} ({}), Th = {} ({}), Tw = {} ({}), order {}{}; largest tile uses {} "
                     "ifmap, {} weight and {} psum words",
                     tc, n(tiles_c, "slice"), n_kg, n(tiles_k, "tile"), th, n(tiles_h, "tile"), tw,
                     n(tiles_w, "tile"), order,
                     std::string(aligned ? ", rows aligned" : "") + (skip_rows ? ", rows skipped" : "") +
                         (flat ? ", flat contexts" : "") + (gather ? ", columns gathered" : "") +
                         (tn > 1 ? fmt::format(", Tn = {} images packed ({})", tn, n(tiles_n, "tile")) : ""),
                     ifmap_words, weight_words, psum_words);
}

std::string Program::listing() const {
  std::string out;
  std::array<int, 3> ordinal{};
  static const char* const kEngine[] = {"LD", "EX", "PS"};
  for (std::size_t i = 0; i < commands.size(); ++i) {
    const int e = int(hw::engine_of(commands[i].op));
    out += fmt::format("{:>5} {}{:<5} {}", i, kEngine[e], ++ordinal[std::size_t(e)], commands[i].to_string());
    if (i < notes.size()) out += "  ; " + notes[i];
    out += '\n';
  }
  return out;
}

DramTraffic program_traffic(const Program& p) {
  DramTraffic t;
  for (const auto& c : p.commands) {
    switch (c.op) {
      case hw::Opcode::LoadIfmap: t.ifmap += load_request_bytes(c.dma, p.hw.elem_bytes(), p.hw.bus_elems); break;
      case hw::Opcode::LoadWeights: t.weights += dma_bytes(c.dma, p.hw.elem_bytes()); break;
      case hw::Opcode::LoadPsums: t.psums_in += dma_bytes(c.dma, p.hw.acc_bytes()); break;
      case hw::Opcode::StorePsums:
        if (!c.dma.dst_ifmap) t.ofmap += dma_bytes(c.dma, p.hw.acc_bytes());  // a move stays on chip
        break;
      case hw::Opcode::Run: break;
    }
  }
  return t;
}

Program compile_layer(const Layer& layer, const Config& config, const CompileOptions& options) {
  validate_layer(layer, layer_source(layer));
  Program p;
  p.layer = layer;
  p.config = config;
  p.hw = hardware_params(config);
  p.plan = choose_plan(layer, config, options);
  p.dram = dram_layout(layer, p.hw);
  emit_program(p);
  return p;
}

std::vector<std::uint8_t> build_dram_image(const Program& p, const ConvOperands& ops) {
  const Layer& l = p.layer;
  if (!(ops.layer == l) || ops.arithmetic != p.config.arithmetic ||
      ops.ifmap.size() != std::size_t(l.ifmap_elems()) || ops.weights.size() != std::size_t(l.weight_elems()))
    throw std::invalid_argument(fmt::format("build_dram_image: the operands ({}, {}) are not those of the program's "
                                            "layer {} in {}",
                                            ops.layer.spec(), arithmetic_info(ops.arithmetic).name, l.spec(),
                                            arithmetic_info(p.config.arithmetic).name));
  std::vector<std::uint8_t> dram(p.dram.total_bytes, 0);
  const int eb = p.hw.elem_bytes();
  const auto put = [&](std::uint64_t addr, ElemBits v) {
    for (int b = 0; b < eb; ++b) dram[addr + std::uint64_t(b)] = std::uint8_t(v >> (8 * b));
  };
  for (std::size_t i = 0; i < ops.ifmap.size(); ++i) put(p.dram.ifmap_base + i * std::uint64_t(eb), ops.ifmap[i]);
  // [K][C][ky][kx] -> [K/COLS][C][ky][kx][COLS]; the last group's missing channels stay zero.
  const std::uint64_t kernel = std::uint64_t(l.ky) * l.kx;
  const std::uint64_t cols = std::uint64_t(p.hw.cols);
  for (int k = 0; k < l.k; ++k)
    for (int c = 0; c < l.c; ++c)
      for (std::uint64_t j = 0; j < kernel; ++j) {
        const std::uint64_t src = (std::uint64_t(k) * l.c + std::uint64_t(c)) * kernel + j;
        const std::uint64_t dst = ((std::uint64_t(k) / cols * l.c + std::uint64_t(c)) * kernel + j) * cols +
                                  std::uint64_t(k) % cols;
        put(p.dram.weights_base + dst * std::uint64_t(eb), ops.weights[src]);
      }
  return dram;
}

std::vector<AccBits> extract_outputs(const Program& p, const std::uint8_t* dram) {
  std::vector<AccBits> out(std::size_t(p.ofmap_elems()));
  const int ab = p.hw.acc_bytes();
  for (std::size_t i = 0; i < out.size(); ++i) {
    const std::uint8_t* e = dram + p.dram.ofmap_base + i * std::uint64_t(ab);
    AccBits v = 0;
    for (int b = 0; b < ab; ++b) v |= AccBits(e[b]) << (8 * b);
    out[i] = v;
  }
  return out;
}

}  // namespace flycol
