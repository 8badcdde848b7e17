// The backward pass of pooling on chip: the tile choice, the share (average) or argmax (max) RUN,
// the moves that interleave them, the gather RUN, and the command stream with its wait thresholds.
//
// Coordinates. The gather tile of dx rows iy0..iy0+th-1 has L = th + ky - 1 rows; its row z holds
// the share of output row oy when z = oy*sy + ky - 1 - pt - iy0 (the forward window of oy covers
// input rows oy*sy - pt .. oy*sy - pt + ky - 1, so a ky-row window at stride 1 starting at row
// iy - iy0 holds exactly the shares of the windows that hold input row iy). Columns likewise.
//
// Channels. The move writes the shares of every channel of the tile in one STORE_PSUMS, whose
// planes (a channel's share rows one after another) lie a constant plane_stride apart. So channel
// c's gather rows start c * nr * sy rows into the buffer, nr being the tile's share rows, and the
// channels' share rows form one grid sy rows apart. That is right when channel c's L rows hold no
// other channel's share: the first share row lies less than sy rows into the tile (z0 < sy) and
// the next one after the last lies at or past its end (z0 + nr*sy >= L), which holds for every
// tile whose share rows are not cut by the tensor's first or last output row. A tile where it does
// not hold runs one channel at a time.
//
// Max pooling (section 16, "Backward of max pooling") places, instead of a share, the pair (the
// window's argmax counted from its end, its dy) at the anchor: the gather tile's columns are
// doubled, pair column X at element columns 2X (index) and 2X + 1 (value); the gather is a masked
// sum over a ky x 2kx window at lane stride 2. The argmax RUN reads the forward input x, and dy goes
// into psum buffer 1 by LOAD_PSUMS in the argmax results' layout, so both moves read the same grid.
#include "sim/compiler/pool_backward_compiler.h"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

#include "sim/common/input_error.h"
#include "sim/common/int_math.h"
#include "sim/compiler/command_limits.h"
#include "sim/compiler/tiling.h"
#include "sim/config/config_keys.h"

namespace flycol {

namespace {

constexpr const char* kOptions = "pool compile options";

// floor(a / b) for b > 0 and any a.
int floor_div(int a, int b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

// The shares one dimension of a dx tile needs: outputs lo..lo+n-1 (n may be 0), the first at tile
// row / column z0 of the gather tile.
struct ShareSpan {
  int lo = 0, n = 0, z0 = 0;
};
ShareSpan share_span(int i0, int t, int k, int s, int p, int n_out) {
  // Output o lands at z = o*s + k - 1 - p - i0, which must lie in [0, t + k - 1).
  const int a = i0 + p - k + 1;  // z = o*s - a
  const int lo = std::max(0, -floor_div(-a, s));
  const int hi = std::min(n_out - 1, floor_div(a + t + k - 2, s));
  ShareSpan sp;
  sp.lo = lo;
  sp.n = std::max(0, hi - lo + 1);
  sp.z0 = lo * s - a;
  return sp;
}

struct Tile {
  int n = 0, iy0 = 0, th = 0, ix0 = 0, tw = 0, c0 = 0, tc = 0;
};

class BackwardEmitter {
public:
  // `shares`: the share RUN's layer (average: dy as the input of a 1 x 1 layer) or the forward
  // pooling's geometry (max: the argmax RUN's tiles); `gather`: the gather geometry.
  BackwardEmitter(Program& p, const PoolShape& s, const Layer& shares, const Layer& gather)
      : p_(p), s_(s), l1_(shares), lg_(gather), hw_(p.hw), max_(s.op == hw::PoolOp::Max) {}

  // Everything the tile's commands need, computed once (the fits() probe and the emitter).
  struct Plan {
    ShareSpan ry, rx;
    TileWindow share_win, gather_win;
    hw::RunDesc share_run, gather_run;  // max: share_run is the argmax RUN
    std::int64_t gather_rows = 0;  // buffer rows the gather tiles of the channels span
    std::int64_t gather_words = 0, gather_tail = 0;
    bool grid_ok = true;            // the channels' share rows may share one move (file comment)
  };
  Plan plan(const Tile& t) const {
    Plan q;
    q.ry = share_span(t.iy0, t.th, s_.ky, s_.sy, s_.pt, s_.ho());
    q.rx = share_span(t.ix0, t.tw, s_.kx, s_.sx, s_.pl, s_.wo());
    const int L = t.th + s_.ky - 1;
    q.grid_ok = q.ry.n == 0 || (q.ry.z0 < s_.sy && q.ry.z0 + q.ry.n * s_.sy >= L);
    if (q.ry.n > 0 && q.rx.n > 0 && max_) {
      // The argmax of the forward windows ry x rx over x, valid elements the real data.
      q.share_win = tile_window(l1_, hw_, t.tc, q.ry.n, q.rx.n);
      PoolShape arg = s_;
      arg.op = hw::PoolOp::Argmax;
      q.share_run = pool_tile_run(arg, l1_, hw_, q.ry.lo, q.ry.n, q.rx.lo, q.rx.n, t.tc);
      PoolShape real = s_;
      real.count_include_pad = false;
      set_pool_divisor(q.share_run, real, q.ry.lo, q.rx.lo);
      q.share_run.pool_y1 = std::min<std::uint32_t>(q.share_run.pool_y1, std::uint32_t(kCountMax));
      q.share_run.pool_x1 = std::min<std::uint32_t>(q.share_run.pool_x1, std::uint32_t(kCountMax));
    } else if (q.ry.n > 0 && q.rx.n > 0) {
      q.share_win = tile_window(l1_, hw_, t.tc, q.ry.n, q.rx.n);
      PoolShape one;
      one.op = hw::PoolOp::Average;
      q.share_run = pool_tile_run(one, l1_, hw_, q.ry.lo, q.ry.n, q.rx.lo, q.rx.n, t.tc);
      // The divisor: the forward window of each output, in the forward tile's coordinates.
      set_pool_divisor(q.share_run, s_, q.ry.lo, q.rx.lo);
      q.share_run.pool_ky = std::uint32_t(s_.ky);
      q.share_run.pool_kx = std::uint32_t(s_.kx);
      q.share_run.pool_sx = std::uint32_t(s_.sx);
      q.share_run.pool_y1 = std::min<std::uint32_t>(q.share_run.pool_y1, std::uint32_t(kCountMax));
      q.share_run.pool_x1 = std::min<std::uint32_t>(q.share_run.pool_x1, std::uint32_t(kCountMax));
    }
    q.gather_win = tile_window(lg_, hw_, t.tc, t.th, t.tw);
    PoolShape sum;
    sum.op = max_ ? hw::PoolOp::MaskedSum : hw::PoolOp::Average;
    sum.ky = s_.ky;
    sum.kx = max_ ? 2 * s_.kx : s_.kx;  // max: (index, value) pairs
    q.gather_run = pool_tile_run(sum, lg_, hw_, t.iy0, t.th, t.ix0, t.tw, t.tc);
    // A 1 x 1 divisor window inside the range at every lane: a divisor of 1.
    q.gather_run.pool_ky = q.gather_run.pool_kx = 1;
    q.gather_run.pool_sx = 0;
    q.gather_run.pool_sy = 1;
    q.gather_run.pool_y0 = q.gather_run.pool_x0 = 0;
    q.gather_run.pool_y1 = q.gather_run.pool_x1 = std::uint32_t(kCountMax);
    const std::int64_t pitch = std::int64_t(q.ry.n > 0 ? q.ry.n : 1) * s_.sy;  // rows between channels
    if (t.tc > 1) q.gather_run.step_c = std::uint32_t(pitch * q.gather_win.wt);
    q.gather_rows = std::int64_t(t.tc > 1 ? (t.tc - 1) * pitch : 0) + q.gather_win.ht;
    const std::int64_t elems = q.gather_rows * q.gather_win.wt;
    const std::int64_t b = hw_.bus_elems;
    const std::int64_t read_end = std::int64_t(q.gather_run.last_element()) + 1;
    q.gather_words = ceil_div(std::max(elems, read_end), b);
    q.gather_tail = q.gather_words * b - elems;
    return q;
  }

  // Whether the tile fits the buffers and every command field its width.
  bool fits(const Tile& t) const {
    const Plan q = plan(t);
    if (t.tc > 1 && !q.grid_ok) return false;
    if (q.gather_words > hw_.ifmap_depth) return false;
    if (std::int64_t(t.tc) * q.gather_win.ncy * q.gather_win.ncx > hw_.psum_depth) return false;
    std::vector<hw::Command> probe = {run_of(q.gather_run, 1, kGatherPsum), fill_of(q, 1)};
    if (q.ry.n > 0 && q.rx.n > 0) {
      if (q.share_win.words > hw_.ifmap_depth) return false;
      if (std::int64_t(t.tc) * q.share_win.ncy * q.share_win.ncx > hw_.psum_depth) return false;
      probe.push_back(run_of(q.share_run, 0, kSharePsum));
      probe.push_back(move_of(t, q, 1, kSharePsum, 0));
      if (max_) {
        probe.push_back(move_of(t, q, 1, kGatherPsum, 1));
        probe.push_back(x_load_of(t, q));
        probe.push_back(dy_load_of(t, q));
      }
    }
    for (const hw::Command& c : probe)
      if (!command_field_violation(c, hw_).empty()) return false;
    return true;
  }

  // A tile's commands in two stages, so that the next tile's shares are made while this tile
  // gathers (compile_pool_backward emits A(0), then A(t+1) before B(t)). Tile t uses ifmap buffer
  // t % 2 for everything: its dy rows (read by the share RUN), then the zero fill, the move and the
  // gather over them; the shares go through psum buffer 0, the gathered dx through psum buffer 1.
  //   A: LOAD_IFMAP dy, the share RUN, LOAD_IFMAP of +0 (the gather tile), the move;
  //   B: the gather RUN, STORE_PSUMS dx.
  void stage_a(const Tile& t, std::uint8_t buf) {
    const Plan q = plan(t);
    if (t.tc > 1 && !q.grid_ok) throw std::logic_error("compiler bug: a backward pooling tile of several channels "
                                                       "whose share rows do not form one grid");
    const std::string note = note_of(t);
    const bool shares = q.ry.n > 0 && q.rx.n > 0;
    std::uint32_t share_ex = 0;
    if (shares) {
      hw::Command load;
      load.op = hw::Opcode::LoadIfmap;
      load.wait_ex = last_reader_[buf];
      load.dma = ifmap_tile_load(l1_, hw_, TilePlan{}, p_.dram.ifmap_base, t.n, q.ry.lo, q.ry.n, q.rx.lo, q.rx.n,
                                 t.c0, t.tc);
      load.dma.buf = buf;
      emit(load, note + " dy");

      hw::Command run = run_of(q.share_run, buf, kSharePsum);
      run.wait_ld = ld_;
      run.wait_ps = last_drain_[kSharePsum];
      emit(run, note + " shares");
      last_reader_[buf] = ex_;
      share_ex = ex_;
    }

    hw::Command fill = fill_of(q, buf);
    fill.wait_ex = last_reader_[buf];
    emit(fill, note + " zeros");
    fill_ld_ = ld_;

    move_ps_ = 0;
    if (shares) {
      hw::Command move = move_of(t, q, buf, kSharePsum, 0);
      move.wait_ld = fill_ld_;
      move.wait_ex = std::max(share_ex, last_reader_[buf]);
      emit(move, note + " interleave");
      last_drain_[kSharePsum] = ps_;
      move_ps_ = ps_;
    }
  }

  // Max pooling's stage A in two halves (file comment; compile_pool_backward emits A1(t+1) before
  // B(t) and A2(t+1) after it, since A2 loads dy into psum buffer 1, which B(t) stores from):
  //   A1: LOAD_IFMAP x, the argmax RUN into psum buffer 0;
  //   A2: LOAD_PSUMS dy into psum buffer 1, LOAD_IFMAP of 0xFFFF (the pair tile), the two moves.
  void stage_a1(const Tile& t, std::uint8_t buf) {
    const Plan q = plan(t);
    if (t.tc > 1 && !q.grid_ok) throw std::logic_error("compiler bug: a backward pooling tile of several channels "
                                                       "whose share rows do not form one grid");
    argmax_ex_ = 0;
    if (q.ry.n == 0 || q.rx.n == 0) return;
    const std::string note = note_of(t);
    hw::Command load = x_load_of(t, q);
    load.dma.buf = buf;
    load.wait_ex = last_reader_[buf];
    emit(load, note + " x");

    hw::Command run = run_of(q.share_run, buf, kSharePsum);
    run.wait_ld = ld_;
    run.wait_ps = last_drain_[kSharePsum];
    emit(run, note + " argmax");
    last_reader_[buf] = ex_;
    argmax_ex_ = ex_;
  }

  void stage_a2(const Tile& t, std::uint8_t buf) {
    const Plan q = plan(t);
    const std::string note = note_of(t);
    const bool shares = q.ry.n > 0 && q.rx.n > 0;
    if (shares) {
      hw::Command dy = dy_load_of(t, q);
      dy.wait_ex = last_gather_ex_;  // the gather that last wrote psum buffer 1 (its store comes first)
      emit(dy, note + " dy");
    }
    hw::Command fill = fill_of(q, buf);
    fill.wait_ex = last_reader_[buf];
    emit(fill, note + " no-index");
    fill_ld_ = ld_;

    move_ps_ = 0;
    if (shares) {
      hw::Command idx = move_of(t, q, buf, kSharePsum, 0);
      idx.wait_ld = fill_ld_;
      idx.wait_ex = argmax_ex_;
      emit(idx, note + " index pairs");
      last_drain_[kSharePsum] = ps_;
      hw::Command val = move_of(t, q, buf, kGatherPsum, 1);
      val.wait_ld = fill_ld_;
      emit(val, note + " value pairs");
      move_ps_ = ps_;
    }
  }

  // Stage B of the tile whose stage A was emitted last but one (or last, for the final tile): the
  // waits on its fill and move are passed in, since stage A of the next tile came in between.
  void stage_b(const Tile& t, std::uint8_t buf, std::uint32_t fill_ld, std::uint32_t move_ps) {
    const Plan q = plan(t);
    const std::string note = note_of(t);
    hw::Command run = run_of(q.gather_run, buf, kGatherPsum);
    run.wait_ld = fill_ld;
    run.wait_ps = std::max(move_ps, last_drain_[kGatherPsum]);
    emit(run, note + " gather");
    last_reader_[buf] = ex_;
    last_gather_ex_ = ex_;

    hw::Command store;
    store.op = hw::Opcode::StorePsums;
    store.wait_ex = ex_;
    store.dma = pool_tile_store(lg_, hw_, p_.dram.ofmap_base, t.n, t.iy0, t.th, t.ix0, t.tw, t.c0, t.tc);
    store.dma.buf = kGatherPsum;
    emit(store, note + " dx");
    last_drain_[kGatherPsum] = ps_;
  }

  // The LD ordinal of the last stage A's fill and the PS ordinal of its move (0 without shares).
  std::uint32_t fill_ld() const { return fill_ld_; }
  std::uint32_t move_ps() const { return move_ps_; }

private:
  static constexpr std::uint8_t kSharePsum = 0, kGatherPsum = 1;

  static std::string note_of(const Tile& t) {
    return fmt::format("n={} dx y={}..{} x={}..{} c={}..{}", t.n, t.iy0, t.iy0 + t.th - 1, t.ix0, t.ix0 + t.tw - 1,
                       t.c0, t.c0 + t.tc - 1);
  }

  // A RUN command of `r` from ifmap buffer ib into psum buffer pb (waits left to the caller).
  static hw::Command run_of(const hw::RunDesc& r, std::uint8_t ib, std::uint8_t pb) {
    hw::Command c;
    c.op = hw::Opcode::Run;
    c.run = r;
    c.run.ifmap_buf = ib;
    c.run.psum_buf = pb;
    return c;
  }

  // +0 (max: 0xFFFF, no window position) over every element of ifmap buffer `buf` the gather reads
  // (no memory request).
  hw::Command fill_of(const Plan& q, std::uint8_t buf) const {
    hw::Command fill;
    fill.op = hw::Opcode::LoadIfmap;
    fill.dma.buf = buf;
    fill.dma.n_planes = 1;
    fill.dma.n_rows = 0;
    fill.dma.row_len = 0;
    fill.dma.pad_top = std::uint32_t(q.gather_rows);
    fill.dma.pad_left = std::uint32_t(q.gather_win.wt);
    fill.dma.tail = std::uint32_t(q.gather_tail);
    fill.dma.pad_value = max_ ? 0xFFFFu : 0u;
    return fill;
  }

  // Max: the forward input x of the argmax RUN's windows (the forward tile of outputs ry x rx),
  // from the DRAM region after dy (Program::dram.weights_base).
  hw::Command x_load_of(const Tile& t, const Plan& q) const {
    hw::Command load;
    load.op = hw::Opcode::LoadIfmap;
    load.dma = ifmap_tile_load(l1_, hw_, TilePlan{}, p_.dram.weights_base, t.n, q.ry.lo, q.ry.n, q.rx.lo, q.rx.n, t.c0,
                               t.tc);
    load.dma.pad_value = pool_pad_value(hw::PoolOp::Max, p_.config.arithmetic);
    return load;
  }

  // Max: dy of the same outputs into psum buffer 1, in the argmax results' layout (word-aligned
  // rows of ceil(rx.n / ROWS) words per output row, a channel's rows one after another).
  hw::Command dy_load_of(const Tile& t, const Plan& q) const {
    hw::Command load;
    load.op = hw::Opcode::LoadPsums;
    load.dma = pool_tile_store(l1_, hw_, p_.dram.ifmap_base, t.n, q.ry.lo, q.ry.n, q.rx.lo, q.rx.n, t.c0, t.tc);
    load.dma.buf = kGatherPsum;
    return load;
  }

  // The shares of psum buffer `src` (planes: a channel's share rows one after another, each a packed
  // row of single elements) into the gather tile: share (r, q) of channel c at buffer row
  // z0_y + (c*nr + r)*sy, column z0_x + q*sx; for max the pair column, element 2*column + half
  // (0 the argmax index, 1 the value dy).
  hw::Command move_of(const Tile& t, const Plan& q, std::uint8_t buf, std::uint8_t src, int half) const {
    const std::uint64_t eb = std::uint64_t(hw_.elem_bytes());
    const std::uint64_t wt = std::uint64_t(q.gather_win.wt);
    const std::uint64_t pair = max_ ? 2 : 1;
    hw::Command m;
    m.op = hw::Opcode::StorePsums;
    hw::DmaDesc& d = m.dma;
    d.buf = src;
    d.dst_ifmap = true;
    d.dst_buf = buf;
    d.dram_addr = (std::uint64_t(q.ry.z0) * wt + pair * std::uint64_t(q.rx.z0) + std::uint64_t(half)) * eb;
    d.n_planes = std::uint32_t(std::int64_t(t.tc) * q.ry.n);
    d.plane_stride = std::uint32_t(std::uint64_t(s_.sy) * wt * eb);
    d.n_rows = std::uint32_t(q.rx.n);
    d.row_stride = std::uint32_t(pair * std::uint64_t(s_.sx) * eb);
    d.row_len = 1;
    // A share row is n_cx words of the share RUN (section 4's psum layout): nr elements and the
    // lanes past them.
    const std::int64_t row_words = q.share_win.ncx;
    d.tail = std::uint32_t(row_words * hw_.rows - q.rx.n);
    if (hw_.rows == 1) d.tail = 0;  // one-element words: the word-aligned layout, no tail
    return m;
  }

  // fits() rejects every tiling whose commands could overflow a field.
  void emit(const hw::Command& c, const std::string& note) { append_command(p_, c, note, ld_, ex_, ps_); }

  Program& p_;
  const PoolShape& s_;
  const Layer& l1_;  // average: dy as the input of a 1 x 1 layer; max: the forward geometry
  const Layer& lg_;  // the gather geometry
  const hw::HwParams& hw_;
  const bool max_;   // max pooling: argmax and masked-sum RUNs, pairs in the gather tile
  std::uint32_t ld_ = 0, ex_ = 0, ps_ = 0;
  std::uint32_t argmax_ex_ = 0, last_gather_ex_ = 0;  // max: the last A1's argmax RUN, the last gather
  std::uint32_t last_reader_[2] = {0, 0};  // per ifmap buffer: the EX count of its last RUN
  std::uint32_t last_drain_[2] = {0, 0};   // per psum buffer: the PS count of the command that emptied it
  std::uint32_t fill_ld_ = 0, move_ps_ = 0;  // of the last stage A
};


}  // namespace

Program compile_pool_backward(const PoolShape& s, const Config& config, const PoolCompileOptions& options) {
  const bool max = s.op == hw::PoolOp::Max;
  if (s.op != hw::PoolOp::Average && !max)
    throw InputError(s.source, "op", "is not a pooling (max or average)");
  if (max && (s.dy != 1 || s.dx != 1))
    throw InputError(s.source, "d",
                     fmt::format("= {}x{}: the backward pass of dilated max pooling does not run on chip "
                                 "(docs/microarchitecture.md section 16, \"Backward of max pooling\"); the golden model "
                                 "computes it",
                                 s.dy, s.dx));
  if (max && std::int64_t(s.ky) * s.kx > std::int64_t(kMaxArgmaxWindow))
    throw InputError(s.source, "k",
                     fmt::format("= {}x{}: the backward pass of max pooling on chip takes windows of at most {} "
                                 "elements (the argmax RUN's)",
                                 s.ky, s.kx, kMaxArgmaxWindow));
  if (max && (s.ky > int(kMaxAvgPoolSide) || s.kx > int(kMaxAvgPoolSide)))
    throw InputError(s.source, "k",
                     fmt::format("= {}x{}: the backward pass of max pooling on chip takes window sides of at most {}",
                                 s.ky, s.kx, kMaxAvgPoolSide));
  const hw::HwParams hw = hardware_params(config);
  if (hw.acc_bits != hw.elem_bits)
    throw InputError(config.source, "arithmetic",
                     fmt::format("= {}: the backward pass of pooling runs on chip only where accumulators are "
                                 "as wide as elements (FP16): its shares move from the psum buffer into the ifmap "
                                 "buffer (section 7.6)",
                                 arithmetic_info(config.arithmetic).name));
  if (hw.ifmap_buffers < 2 || hw.psum_buffers < 2)
    throw InputError(config.source, "sram", "the backward pass of pooling needs two ifmap and two psum buffers");
  if (!max) (void)pool_geometry(s, config);  // the forward layer's checks: the unit could pool it

  Program p;
  p.config = config;
  p.hw = hw;
  p.pool = s.op;
  p.pool_backward = true;
  Layer& lg = p.layer;
  lg.name = max ? "maxpool_backward" : "avgpool_backward";
  lg.n = s.n;
  lg.c = lg.k = s.c;
  lg.h = s.h + s.ky - 1;
  lg.w = s.w + s.kx - 1;
  lg.ky = s.ky;
  lg.kx = s.kx;
  if (max) {  // the pair tile: every column doubled into (index, value), the window at lane stride 2
    lg.w *= 2;
    lg.kx *= 2;
    lg.sx = 2;
  }
  // Average: dy as the input of a 1 x 1 layer (the share RUN); max: the forward geometry (the
  // argmax RUN over x, and dy as its output's layout).
  Layer l1;
  if (max) {
    l1 = pool_geometry(s, config);
  } else {
    l1.name = "avgpool_shares";
    l1.n = s.n;
    l1.c = l1.k = s.c;
    l1.h = s.ho();
    l1.w = s.wo();
  }

  // DRAM: dy [N][C][Ho][Wo] at the ifmap base, for max x [N][C][H][W] in the weights region, dx
  // [N][C][H][W] at the ofmap base.
  const std::uint64_t eb = std::uint64_t(hw.elem_bytes());
  const auto align = [](std::uint64_t v) { return (v + 63) / 64 * 64; };
  p.dram.ifmap_base = 0;
  p.dram.ifmap_bytes = std::uint64_t(s.n) * s.c * std::uint64_t(s.ho()) * std::uint64_t(s.wo()) * eb;
  p.dram.weights_base = align(p.dram.ifmap_bytes);
  p.dram.weights_bytes = max ? std::uint64_t(s.n) * s.c * std::uint64_t(s.h) * std::uint64_t(s.w) * eb : 0;
  p.dram.ofmap_base = align(p.dram.weights_base + p.dram.weights_bytes);
  p.dram.ofmap_bytes = std::uint64_t(lg.ofmap_elems()) * std::uint64_t(hw.acc_bytes());
  p.dram.total_bytes = align(p.dram.ofmap_base + p.dram.ofmap_bytes);
  if (lg.ho() != s.h || lg.wo() != s.w)
    throw std::logic_error(fmt::format("compiler bug: gather geometry {}x{} for dx {}x{}", lg.ho(), lg.wo(), s.h, s.w));

  const BackwardEmitter probe(p, s, l1, lg);
  // A tile size fits when every tile of that size fits (the tiles' share spans differ by position).
  const auto fits = [&](int tc, int th, int tw) {
    for (int iy0 = 0; iy0 < s.h; iy0 += th)
      for (int ix0 = 0; ix0 < s.w; ix0 += tw) {
        Tile t;
        t.iy0 = iy0;
        t.th = std::min(th, s.h - iy0);
        t.ix0 = ix0;
        t.tw = std::min(tw, s.w - ix0);
        t.tc = std::min(tc, s.c);
        if (!probe.fits(t)) {
          Tile one = t;  // a tile whose share rows are cut runs channel by channel
          one.tc = 1;
          if (t.tc == 1 || probe.plan(t).grid_ok || !probe.fits(one)) return false;
        }
      }
    return true;
  };
  std::vector<int> widths;
  if (options.tile_w) {
    if (options.tile_w != s.w && (options.tile_w % hw.rows || options.tile_w > s.w))
      throw InputError(kOptions, "tile_w", fmt::format("= {}: must be W = {} or a multiple of array.rows = {} below it",
                                                       options.tile_w, s.w, hw.rows));
    widths.push_back(options.tile_w);
  } else {
    widths.push_back(s.w);
    for (int m = int(ceil_div(s.w, hw.rows)) - 1; m >= 1; --m) widths.push_back(m * hw.rows);
  }
  if (options.tile_h && (options.tile_h < 1 || options.tile_h > s.h))
    throw InputError(kOptions, "tile_h", fmt::format("= {}: must be in [1, {}]", options.tile_h, s.h));
  if (options.tile_c && (options.tile_c < 1 || options.tile_c > s.c))
    throw InputError(kOptions, "tile_c", fmt::format("= {}: must be in [1, {}]", options.tile_c, s.c));
  int tc = 0, th = 0, tw = 0;
  for (int w : widths) {
    const int th0 = options.tile_h ? options.tile_h : 1, tc0 = options.tile_c ? options.tile_c : 1;
    if (!fits(tc0, th0, w)) continue;
    tw = w;
    th = options.tile_h ? options.tile_h : largest_fitting(1, s.h, [&](int v) { return fits(tc0, v, w); });
    tc = options.tile_c ? options.tile_c : largest_fitting(1, s.c, [&](int v) { return fits(v, th, w); });
    break;
  }
  if (tw == 0)
    throw InputError(config.source, "sram.ifmap.kbytes",
                     fmt::format("= {}: the backward pooling cannot run: its smallest {}tile ({} channel(s), {} "
                                 "row(s), {} columns of dx) does not fit the ifmap or psum buffer",
                                 config.ifmap.kbytes, options.tile_c || options.tile_h || options.tile_w ? "forced " : "",
                                 options.tile_c ? options.tile_c : 1, options.tile_h ? options.tile_h : 1,
                                 options.tile_w ? options.tile_w : std::min(s.w, hw.rows)));

  TilePlan& plan = p.plan;
  plan.tc = tc;
  plan.th = th;
  plan.tw = tw;
  plan.tiles_c = int(ceil_div(s.c, tc));
  plan.tiles_h = int(ceil_div(s.h, th));
  plan.tiles_w = int(ceil_div(s.w, tw));
  plan.tiles_n = s.n;

  std::vector<Tile> tiles;
  BackwardEmitter e(p, s, l1, lg);
  for (int n = 0; n < s.n; ++n)
    for (int yi = 0; yi < plan.tiles_h; ++yi)
      for (int xi = 0; xi < plan.tiles_w; ++xi)
        for (int ci = 0; ci < plan.tiles_c; ++ci) {
          Tile t;
          t.n = n;
          t.iy0 = yi * th;
          t.th = std::min(th, s.h - t.iy0);
          t.ix0 = xi * tw;
          t.tw = std::min(tw, s.w - t.ix0);
          t.c0 = ci * tc;
          t.tc = std::min(tc, s.c - t.c0);
          if (t.tc == 1 || e.plan(t).grid_ok) {
            tiles.push_back(t);
            continue;
          }
          for (int c = t.c0; c < t.c0 + t.tc; ++c) {  // share rows cut by the tensor's edge
            Tile one = t;
            one.c0 = c;
            one.tc = 1;
            tiles.push_back(one);
          }
        }
  // Software-pipelined: stage A of tile t+1 (its dy, shares, zero fill and move, in the other ifmap
  // buffer) before stage B of tile t (its gather and store), so the next tile's move runs while this
  // one gathers.
  // Max: stage A in two halves around stage B (BackwardEmitter::stage_a1), the x load and argmax
  // of tile t+1 before the gather of tile t, the dy load and moves after its store.
  const auto buf_of = [](std::size_t i) { return std::uint8_t(i % 2); };
  if (max) {
    e.stage_a1(tiles[0], buf_of(0));
    e.stage_a2(tiles[0], buf_of(0));
  } else {
    e.stage_a(tiles[0], buf_of(0));
  }
  for (std::size_t i = 0; i < tiles.size(); ++i) {
    const std::uint32_t fill_ld = e.fill_ld(), move_ps = e.move_ps();
    const bool next = i + 1 < tiles.size();
    if (next && max) e.stage_a1(tiles[i + 1], buf_of(i + 1));
    if (next && !max) e.stage_a(tiles[i + 1], buf_of(i + 1));
    e.stage_b(tiles[i], buf_of(i), fill_ld, move_ps);
    if (next && max) e.stage_a2(tiles[i + 1], buf_of(i + 1));
  }
  p.runs = int(std::count_if(p.commands.begin(), p.commands.end(),
                             [](const hw::Command& c) { return c.op == hw::Opcode::Run; }));
  return p;
}

std::vector<std::uint8_t> build_pool_backward_dram_image(const Program& p, const std::vector<AccBits>& grad,
                                                         const std::vector<ElemBits>& x) {
  const std::uint64_t eb = std::uint64_t(p.hw.elem_bytes());
  if (!p.pool_backward || grad.size() * eb != p.dram.ifmap_bytes)
    throw std::invalid_argument(fmt::format("build_pool_backward_dram_image: {} gradient elements for a program of {} "
                                            "bytes of dy",
                                            grad.size(), p.dram.ifmap_bytes));
  const bool max = p.pool == hw::PoolOp::Max;
  if (max && x.size() * eb != p.dram.weights_bytes)
    throw std::invalid_argument(fmt::format("build_pool_backward_dram_image: {} input elements for a program of {} "
                                            "bytes of x",
                                            x.size(), p.dram.weights_bytes));
  std::vector<std::uint8_t> dram(p.dram.total_bytes, 0);
  for (std::size_t i = 0; i < grad.size(); ++i)
    for (std::uint64_t b = 0; b < eb; ++b) dram[p.dram.ifmap_base + i * eb + b] = std::uint8_t(grad[i] >> (8 * b));
  for (std::size_t i = 0; max && i < x.size(); ++i)
    for (std::uint64_t b = 0; b < eb; ++b) dram[p.dram.weights_base + i * eb + b] = std::uint8_t(x[i] >> (8 * b));
  return dram;
}

}  // namespace flycol
