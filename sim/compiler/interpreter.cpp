// Functional command interpreter: SRAM buffers as element arrays, DMA streams element by element,
// RUN as the plain loop nest of section 8 with the PE's scalar MAC, and a pooling RUN as section
// 16's windows reduced with section 15's arithmetic (max in window order; the average's exact sum
// divided by the divisor window's count with one rounding, computed here by a long division of its
// own). Speed matters only enough to run hundreds of random layers in a unit test, so the loops stay
// close to the spec's text.
#include "sim/compiler/interpreter.h"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

#include "base/numerics/fp16.h"
#include "base/numerics/int_mac.h"

namespace flycol {
namespace {

using u128 = unsigned __int128;

// Section 15's binary16 average, from the spec: `mag` (the exact |sum| in units of 2^-24) over `n`
// (n > 0, mag > 0) rounded once to nearest, ties to even, with the sign put on. The quotient is
// formed with 40 more bits than the sum has below its point, so its bits below the result's last
// one decide the rounding, with the division's remainder as a last sticky bit.
std::uint32_t half_of_quotient(bool neg, std::uint64_t mag, std::uint64_t n) {
  const u128 a = u128(mag) << 40;  // units of 2^-64
  const u128 q = a / n;
  const bool rest = a % n != 0;
  int lead = 127;
  while (((q >> lead) & 1u) == 0) --lead;
  const int weight = lead - 64;                // q * 2^-64 lies in [2^weight, 2^(weight+1))
  int lsb = std::max(weight - 10, -24);        // the weight of the result's last bit
  const int drop = lsb + 64;                   // quotient bits below it (at least 40)
  std::uint64_t kept = std::uint64_t(q >> drop);
  const u128 below = q & ((u128(1) << drop) - 1), half = u128(1) << (drop - 1);
  if (below > half || (below == half && (rest || (kept & 1u)))) ++kept;
  if (kept == 0x800) {  // rounded up into the next binade
    kept = 0x400;
    ++lsb;
  }
  const std::uint32_t sign = neg ? 0x8000u : 0u;
  if (kept < 0x400) return sign | std::uint32_t(kept);  // subnormal (lsb = -24)
  const int field = lsb + 25;
  if (field >= 31) return sign | 0x7C00u;
  return sign | (std::uint32_t(field) << 10) | std::uint32_t(kept & 0x3FFu);
}

struct Buffer {
  std::vector<std::uint32_t> elems;  // raw element bits
  std::vector<std::uint8_t> defined; // psum buffers: element holds a value some command wrote
  std::int64_t written = -1;         // ifmap/weights: stream length of the last load (-1: never loaded)
};

class Interpreter {
public:
  Interpreter(const Program& p, std::vector<std::uint8_t>& dram) : p_(p), hw_(p.hw), dram_(dram) {
    const auto make = [](int count, int depth, int per_word) {
      auto v = std::vector<Buffer>(std::size_t(count));
      for (auto& b : v) {
        b.elems.assign(std::size_t(depth) * std::size_t(per_word), 0);
        b.defined.assign(b.elems.size(), 0);
      }
      return v;
    };
    ifmap_ = make(hw_.ifmap_buffers, hw_.ifmap_depth, hw_.bus_elems);
    weights_ = make(hw_.weight_buffers, hw_.weight_depth, hw_.cols);
    psums_ = make(hw_.psum_buffers, hw_.psum_depth, hw_.rows);
    if (dram_.size() < p.dram.total_bytes)
      throw std::logic_error(fmt::format("interpret: the DRAM image has {} bytes, the program needs {}", dram_.size(),
                                         p.dram.total_bytes));
  }

  void run_all() {
    for (std::size_t i = 0; i < p_.commands.size(); ++i) {
      index_ = i;
      const hw::Command& c = p_.commands[i];
      if (c.op != hw::Opcode::LoadIfmap && c.op != hw::Opcode::Run && c.dma.pad_value != 0)
        fail("only a LOAD_IFMAP pads with a value other than 0 (pad_value)");
      switch (c.op) {
        case hw::Opcode::LoadIfmap: load(c.dma, pick(ifmap_, c.dma.buf, "ifmap"), hw_.elem_bytes()); break;
        case hw::Opcode::LoadWeights: load(c.dma, pick(weights_, c.dma.buf, "weight"), hw_.elem_bytes()); break;
        case hw::Opcode::LoadPsums:
          check_psum_stream(c.dma);
          load(c.dma, pick(psums_, c.dma.buf, "psum"), hw_.acc_bytes());
          break;
        case hw::Opcode::StorePsums: store(c.dma); break;
        case hw::Opcode::Run: run(c.run); break;
      }
    }
  }

private:
  [[noreturn]] void fail(const std::string& what) const {
    const hw::Command& c = p_.commands[index_];
    throw std::logic_error(fmt::format("interpret: command #{} ({}){}: {}", index_, c.to_string(),
                                       index_ < p_.notes.size() ? " [" + p_.notes[index_] + "]" : "", what));
  }

  Buffer& pick(std::vector<Buffer>& bufs, unsigned index, const char* sram) {
    if (index >= bufs.size()) fail(fmt::format("{} buffer {} does not exist ({} buffers)", sram, index, bufs.size()));
    return bufs[index];
  }

  std::uint32_t dram_read(std::uint64_t addr, int bytes) const {
    if (addr + std::uint64_t(bytes) > dram_.size())
      fail(fmt::format("DRAM read at {:#x} is outside the {}-byte image", addr, dram_.size()));
    std::uint32_t v = 0;
    for (int b = 0; b < bytes; ++b) v |= std::uint32_t(dram_[addr + std::uint64_t(b)]) << (8 * b);
    return v;
  }

  void dram_write(std::uint64_t addr, int bytes, std::uint32_t v) {
    if (addr + std::uint64_t(bytes) > dram_.size())
      fail(fmt::format("DRAM write at {:#x} is outside the {}-byte image", addr, dram_.size()));
    for (int b = 0; b < bytes; ++b) dram_[addr + std::uint64_t(b)] = std::uint8_t(v >> (8 * b));
  }

  void check_psum_stream(const hw::DmaDesc& d) const {
    if (d.pad_left || d.pad_top || d.pad_bottom || d.tail)
      fail("a psum transfer has only row_len and pad_right per row (pad_left, pad_top, pad_bottom, tail must be 0)");
    if ((d.row_len + d.pad_right) % std::uint32_t(hw_.rows) != 0)
      fail(fmt::format("psum rows of row_len + pad_right = {} elements do not start at word boundaries ({} per word)",
                       d.row_len + d.pad_right, hw_.rows));
  }

  // Section 7.3: the dense stream written from element 0.
  void load(const hw::DmaDesc& d, Buffer& buf, int elem_bytes) {
    std::size_t pos = 0;
    const auto put = [&](std::uint32_t v) {
      if (pos >= buf.elems.size()) fail(fmt::format("the stream overflows the buffer ({} elements)", buf.elems.size()));
      buf.elems[pos] = v;
      buf.defined[pos] = 1;
      ++pos;
    };
    const auto zeros = [&](std::uint64_t n) {  // padding and tail: pad_value (section 7.3)
      for (std::uint64_t i = 0; i < n; ++i) put(d.pad_value);
    };
    const std::uint64_t row_width = std::uint64_t(d.pad_left) + d.row_len + d.pad_right;
    for (std::uint32_t pl = 0; pl < d.n_planes; ++pl) {
      zeros(std::uint64_t(d.pad_top) * row_width);
      for (std::uint32_t y = 0; y < d.n_rows; ++y) {
        zeros(d.pad_left);
        const std::uint64_t row = d.dram_addr + std::uint64_t(pl) * d.plane_stride + std::uint64_t(y) * d.row_stride;
        for (std::uint32_t x = 0; x < d.row_len; ++x)  // every elem_step-th element (a gather)
          put(dram_read(row + std::uint64_t(x) * d.elem_step * std::uint64_t(elem_bytes), elem_bytes));
        zeros(d.pad_right);
      }
      zeros(std::uint64_t(d.pad_bottom) * row_width);
    }
    zeros(d.tail);
    buf.written = std::int64_t(pos);
  }

  // Section 7.5: the psum buffer read as [n_planes][n_rows][row_len + pad_right] (word-aligned
  // rows), or as planes of n_rows*row_len + tail elements with the rows one after another (packed).
  void store(const hw::DmaDesc& d) {
    const std::uint32_t word = std::uint32_t(hw_.rows);
    const bool packed = (d.row_len + d.pad_right) % word != 0;
    std::uint64_t row_width = std::uint64_t(d.row_len) + d.pad_right, plane_width = d.n_rows * row_width;
    if (!packed) {
      check_psum_stream(d);
    } else {
      plane_width = std::uint64_t(d.n_rows) * d.row_len + d.tail;
      row_width = d.row_len;
      if (d.pad_left || d.pad_top || d.pad_bottom || d.pad_right)
        fail("a store of packed rows (row_len not a whole number of words) has only row_len and tail");
      if (d.tail >= word || plane_width % word != 0)
        fail(fmt::format("a store of packed rows has planes of n_rows * row_len + tail = {} elements, not whole "
                         "{}-element words with a tail below one word",
                         plane_width, word));
    }
    Buffer& buf = pick(psums_, d.buf, "psum");
    const int ab = hw_.acc_bytes();
    // Section 7.6: with dst_ifmap the rows go to ifmap buffer dst_buf, whose element e is at byte
    // e*EB of the addresses and strides; a partial sum must be as wide as an element.
    if (!d.dst_ifmap && d.dst_buf != 0) fail("dst_buf is set without dst_ifmap");
    Buffer* dst = nullptr;
    std::vector<std::uint8_t> stored;  // dst_ifmap: the ifmap elements this store writes
    if (d.dst_ifmap) {
      if (hw_.acc_bits != hw_.elem_bits)
        fail(fmt::format("stores {}-bit partial sums into an ifmap buffer of {}-bit elements", hw_.acc_bits,
                         hw_.elem_bits));
      dst = &pick(ifmap_, d.dst_buf, "ifmap");
      stored.assign(dst->elems.size(), 0);
    }
    for (std::uint32_t pl = 0; pl < d.n_planes; ++pl)
      for (std::uint32_t y = 0; y < d.n_rows; ++y) {
        const std::uint64_t row = d.dram_addr + std::uint64_t(pl) * d.plane_stride + std::uint64_t(y) * d.row_stride;
        for (std::uint32_t x = 0; x < d.row_len; ++x) {
          const std::uint64_t e = std::uint64_t(pl) * plane_width + std::uint64_t(y) * row_width + x;
          if (e >= buf.elems.size()) fail(fmt::format("psum element {} is outside the buffer", e));
          if (!buf.defined[e])
            fail(fmt::format("stores psum element {} (plane {}, row {}, column {}), which no command wrote", e, pl, y,
                             x));
          const std::uint64_t addr = row + std::uint64_t(x) * std::uint64_t(ab);
          if (!dst) {
            dram_write(addr, ab, buf.elems[e]);
            continue;
          }
          if (addr % std::uint64_t(ab) != 0) fail(fmt::format("ifmap byte address {} is not element aligned", addr));
          const std::uint64_t ie = addr / std::uint64_t(ab);
          if (ie >= dst->elems.size())
            fail(fmt::format("writes ifmap element {}, outside the {}-element buffer", ie, dst->elems.size()));
          dst->elems[ie] = buf.elems[e];
          dst->defined[ie] = 1;
          stored[ie] = 1;
        }
      }
    if (dst) {  // the defined prefix a RUN may read grows by what this store wrote right after it
      std::int64_t end = std::max<std::int64_t>(dst->written, 0);
      while (std::size_t(end) < stored.size() && stored[std::size_t(end)]) ++end;
      if (end > std::max<std::int64_t>(dst->written, 0)) dst->written = end;
    }
  }

  std::int32_t sext(std::uint32_t e) const {
    return hw_.elem_bits == 8 ? std::int32_t(std::int8_t(std::uint8_t(e))) : std::int32_t(std::int16_t(e));
  }

  // Section 8: every context (g, cy, cx), every lane r and column col, reduction over c, y, x.
  void run(const hw::RunDesc& r) {
    const bool pool = r.pooling();
    if (r.pool_op > unsigned(hw::kMaxPoolOp)) fail(fmt::format("pool_op = {}", r.pool_op));
    Buffer& ib = pick(ifmap_, r.ifmap_buf, "ifmap");
    Buffer& wb = pick(weights_, r.weight_buf, "weight");
    Buffer& pb = pick(psums_, r.psum_buf, "psum");
    if (ib.written < 0) fail("reads an ifmap buffer that was never loaded");
    if (!pool && wb.written < 0) fail("reads a weight buffer that was never loaded");
    // Section 16: a pooling RUN has no preload and one group; every op but max (average, argmax,
    // masked sum) no packing, window sides up to 256, pool_sy >= 1 and a dense pattern; an argmax
    // window at most 65535 elements.
    const bool geometric = pool && r.pool_op != unsigned(hw::PoolOp::Max);
    if (pool && (r.preload || r.n_kg != 1)) fail("a pooling RUN with preload or n_kg != 1");
    if (pool && (r.n_c == 0 || r.n_cy == 0 || r.n_cx == 0 || r.n_ky == 0 || r.n_kx == 0))
      fail("a pooling RUN with an empty window or no contexts");
    if (geometric && (r.pack_w != 0 || r.n_ky > 256 || r.n_kx > 256 || r.pool_ky > 256 || r.pool_kx > 256 ||
                      r.pool_sy == 0))
      fail(fmt::format("a pool_op {} RUN with packing, a window side above 256 or pool_sy = 0", r.pool_op));
    if (r.pool_op == unsigned(hw::PoolOp::Argmax) && r.window_len() > 65535)
      fail("an argmax RUN with a window above 65535 elements");

    // The kernel column offsets: chunk q of the kernel row starts q*step_kxc elements in, and its
    // columns are the set bits of its pattern (pattern_kxc, the last chunk's: pattern).
    if (r.n_kxc == 0) fail("n_kxc = 0");
    std::vector<std::uint64_t> xoff;
    const std::uint64_t rows = std::uint64_t(hw_.rows), cols = std::uint64_t(hw_.cols);
    std::uint64_t row_end = 0;  // one past the furthest element a kernel row's region rows read
    std::uint64_t max_wraps = 0;  // pixel packing: row ends a lane passes, over the context columns that occur
    for (std::uint64_t cx = 0; r.pack_w != 0 && cx < std::min<std::uint64_t>(r.n_cx, r.pack_w); ++cx)
      max_wraps = std::max<std::uint64_t>(max_wraps, (cx * r.pack_r % r.pack_w + rows - 1) / r.pack_w);
    for (std::uint32_t q = 0; q < r.n_kxc; ++q) {
      const bool last = q + 1 == r.n_kxc;
      const std::uint64_t pat = last ? r.pattern : r.pattern_kxc;
      const std::uint32_t region = last ? r.region : r.region_kxc;
      if (pat == 0) fail(fmt::format("the pattern of chunk {} is zero", q));
      int msb = 0;
      for (int bit = 0; bit < 64; ++bit)
        if ((pat >> bit) & 1u) xoff.push_back(std::uint64_t(q) * r.step_kxc + std::uint64_t(bit)), msb = bit;
      // What the lanes take from one region row.
      const std::uint64_t span = (rows - 1) * r.lane_stride + max_wraps * r.pack_jump + std::uint64_t(msb) + 1;
      if (span > region)
        fail(fmt::format("{} = {} is narrower than the {} elements the lanes take from one region row",
                         last ? "region" : "region_kxc", region, span));
      row_end = std::max(row_end, std::uint64_t(q) * r.step_kxc + region);
    }
    if (xoff.size() != r.n_kx)
      fail(fmt::format("the chunk patterns have {} set bits, n_kx = {}", xoff.size(), r.n_kx));

    const std::uint64_t steps = std::uint64_t(r.n_c) * r.n_ky * r.n_kx;  // L
    if (pool) {
      for (std::size_t i = 0; geometric && i < xoff.size(); ++i)
        if (xoff[i] != i) fail(fmt::format("a pool_op {} RUN whose kernel columns are not dense", r.pool_op));
      pool_run(r, ib, pb, xoff, row_end);
      return;
    }
    if (std::uint64_t(r.n_kg) * steps * cols > std::uint64_t(wb.written))
      fail(fmt::format("reads {} weight words, the buffer holds {} loaded elements", std::uint64_t(r.n_kg) * steps,
                       wb.written));
    const std::uint64_t psum_words = std::uint64_t(r.n_kg) * cols * r.n_cy * r.n_cx;
    if (psum_words * rows > pb.elems.size())
      fail(fmt::format("uses {} psum words, the buffer has {}", psum_words, pb.elems.size() / rows));

    // FP16 accumulators are kept as binary16 values in float (fp16::fma_hf is bit-exact with
    // fp16::mac and avoids converting on every step); integer ones as int32.
    const bool fp = hw_.arithmetic == Arithmetic::fp16;
    const bool gating = hw_.zero_gating;
    std::vector<float> accf(rows * cols), wf(cols);
    std::vector<std::int32_t> acci(rows * cols), wi(cols);
    std::vector<std::uint8_t> acc_defined(rows * cols);
    for (std::uint32_t g = 0; g < r.n_kg; ++g)
      for (std::uint32_t cy = 0; cy < r.n_cy; ++cy)
        for (std::uint32_t cx = 0; cx < r.n_cx; ++cx) {
          const Context ctx = context(r, ib, row_end, cy, cx, fmt::format("context (g={}, cy={}, cx={})", g, cy, cx));
          const std::uint64_t base = ctx.base;
          const auto lane_offset = [&](std::uint64_t lane) { return ctx.lane_offset(r, lane); };
          const auto psum_index = [&](std::uint64_t col, std::uint64_t lane) {
            return (((std::uint64_t(g) * cols + col) * r.n_cy + cy) * r.n_cx + cx) * rows + lane;
          };
          for (std::uint64_t lane = 0; lane < rows; ++lane)
            for (std::uint64_t col = 0; col < cols; ++col) {
              const std::uint64_t e = psum_index(col, lane);
              const std::uint32_t init = r.preload ? pb.elems[e] : 0;
              accf[lane * cols + col] = fp16::to_float(fp16::Bits(init));
              acci[lane * cols + col] = std::int32_t(init);
              acc_defined[lane * cols + col] = r.preload ? pb.defined[e] : 1;
            }
          for (std::uint32_t c = 0; c < r.n_c; ++c)
            for (std::uint32_t y = 0; y < r.n_ky; ++y)
              for (std::uint32_t x = 0; x < r.n_kx; ++x) {
                const std::uint64_t word = std::uint64_t(g) * steps + (std::uint64_t(c) * r.n_ky + y) * r.n_kx + x;
                for (std::uint64_t col = 0; col < cols; ++col) {
                  const std::uint32_t w = wb.elems[word * cols + col];
                  wf[col] = fp16::to_float(fp16::Bits(w));
                  wi[col] = sext(w);
                }
                const std::uint64_t row_start = base + std::uint64_t(c) * r.step_c + std::uint64_t(y) * r.step_ky;
                for (std::uint64_t lane = 0; lane < rows; ++lane) {
                  const std::uint32_t a = ib.elems[row_start + lane_offset(lane) + xoff[x]];
                  if (fp) {
                    // The PE's gating: a zero operand (either sign) leaves the accumulator as is.
                    const float af = fp16::to_float(fp16::Bits(a));
                    if (gating && af == 0.0f) continue;
                    float* ac = &accf[lane * cols];
                    for (std::uint64_t col = 0; col < cols; ++col)
                      if (!gating || wf[col] != 0.0f) ac[col] = fp16::fma_hf(af, wf[col], ac[col]);
                  } else {
                    const std::int32_t av = sext(a);
                    std::int32_t* ac = &acci[lane * cols];
                    for (std::uint64_t col = 0; col < cols; ++col) ac[col] = intmac::mac(av, wi[col], ac[col]);
                  }
                }
              }
          for (std::uint64_t lane = 0; lane < rows; ++lane)
            for (std::uint64_t col = 0; col < cols; ++col) {
              const std::uint64_t e = psum_index(col, lane);
              pb.elems[e] = fp ? std::uint32_t(fp16::from_float(accf[lane * cols + col]))
                               : std::uint32_t(acci[lane * cols + col]);
              pb.defined[e] = acc_defined[lane * cols + col];
            }
        }
  }

  // Context (cy, cx) of a RUN in the feeder's walk. Pixel packing (section 9.2): context cx starts
  // in column ox of its packed row, having passed floor(cx * pack_r / pack_w) more row ends than
  // step_cx counts; lane l's pixel lies floor((ox + l) / pack_w) rows further down.
  struct Context {
    std::uint64_t base = 0, ox = 0;  // the context's first element; its first pixel's column
    std::uint64_t lane_offset(const hw::RunDesc& r, std::uint64_t lane) const {
      const std::uint64_t wraps = r.pack_w == 0 ? 0 : (ox + lane) / r.pack_w;
      return lane * r.lane_stride + wraps * r.pack_jump;
    }
  };
  // The context, after checking that the words its last region row reads (the furthest of its
  // reads; the feeder reads whole words) hold loaded data (tile or tail); `what` names it.
  Context context(const hw::RunDesc& r, const Buffer& ib, std::uint64_t row_end, std::uint32_t cy, std::uint32_t cx,
                  const std::string& what) const {
    const std::uint64_t b = std::uint64_t(hw_.bus_elems);
    Context ctx;
    ctx.ox = r.pack_w == 0 ? 0 : std::uint64_t(cx) * r.pack_r % r.pack_w;
    const std::uint64_t extra = r.pack_w == 0 ? 0 : std::uint64_t(cx) * r.pack_r / r.pack_w;
    ctx.base = std::uint64_t(cx) * r.step_cx + extra * r.pack_jump + std::uint64_t(cy) * r.step_cy;
    const std::uint64_t last_row =
        ctx.base + std::uint64_t(r.n_c - 1) * r.step_c + std::uint64_t(r.n_ky - 1) * r.step_ky;
    const std::uint64_t last_word = (last_row + row_end - 1) / b;
    if ((last_word + 1) * b > std::uint64_t(ib.written))
      fail(fmt::format("{} reads ifmap word {}, but only elements 0..{} were loaded", what, last_word, ib.written - 1));
    return ctx;
  }

  // A pooling RUN (section 16): context (cy, cx) in the convolution's walk (pixel packing
  // included), window c of each lane over the n_ky x n_kx steps of channel c; its result word goes
  // where a convolution with K = C would put output channel c's, (c*n_cy + cy)*n_cx + cx. The
  // divisor (average, masked sum) and the argmax's padding come from the window's place in the tile.
  void pool_run(const hw::RunDesc& r, const Buffer& ib, Buffer& pb, const std::vector<std::uint64_t>& xoff,
                std::uint64_t row_end) {
    const std::uint64_t rows = std::uint64_t(hw_.rows);
    const auto op = hw::PoolOp(r.pool_op);
    const bool avg = op == hw::PoolOp::Average || op == hw::PoolOp::MaskedSum;
    if (std::uint64_t(r.n_c) * r.n_cy * r.n_cx * rows > pb.elems.size())
      fail(fmt::format("writes {} psum words, the buffer has {}", std::uint64_t(r.n_c) * r.n_cy * r.n_cx,
                       pb.elems.size() / rows));
    // The divisor window (pool_ky x pool_kx, lanes pool_sx apart; the data window's and lane_stride
    // where 0) and the range it is counted in.
    const std::int64_t wy = r.pool_ky ? r.pool_ky : r.n_ky, wx = r.pool_kx ? r.pool_kx : r.n_kx;
    const std::int64_t dsx = r.pool_sx ? r.pool_sx : r.lane_stride;
    const auto inside = [](std::int64_t start, std::int64_t len, std::int64_t lo, std::int64_t hi) {
      return std::max<std::int64_t>(0, std::min(start + len, hi) - std::max(start, lo));
    };
    std::vector<std::uint32_t> window(std::size_t(r.n_ky) * r.n_kx);
    std::vector<char> valid(window.size(), 1);
    for (std::uint32_t cy = 0; cy < r.n_cy; ++cy)
      for (std::uint32_t cx = 0; cx < r.n_cx; ++cx) {
        const Context ctx = context(r, ib, row_end, cy, cx, fmt::format("pooling context (cy={}, cx={})", cy, cx));
        const std::uint64_t base = ctx.base;
        for (std::uint64_t lane = 0; lane < rows; ++lane) {
          const std::uint64_t lane_off = ctx.lane_offset(r, lane);
          std::uint32_t count = 0;
          const std::int64_t ys = std::int64_t(cy) * r.pool_sy;
          const std::int64_t xs = (std::int64_t(cx) * std::int64_t(rows) + std::int64_t(lane)) * dsx;
          if (avg) count = std::uint32_t(inside(ys, wy, r.pool_y0, r.pool_y1) * inside(xs, wx, r.pool_x0, r.pool_x1));
          // The argmax's valid elements: (y, x) of the window inside the counted range.
          for (std::uint32_t y = 0; op == hw::PoolOp::Argmax && y < r.n_ky; ++y)
            for (std::uint32_t x = 0; x < r.n_kx; ++x)
              valid[std::size_t(y) * r.n_kx + x] = inside(ys + y, 1, r.pool_y0, r.pool_y1) != 0 &&
                                                   inside(xs + x, 1, r.pool_x0, r.pool_x1) != 0;
          for (std::uint32_t c = 0; c < r.n_c; ++c) {
            for (std::uint32_t y = 0; y < r.n_ky; ++y) {
              const std::uint64_t row_start = base + std::uint64_t(c) * r.step_c + std::uint64_t(y) * r.step_ky;
              for (std::uint32_t x = 0; x < r.n_kx; ++x)
                window[std::size_t(y) * r.n_kx + x] = ib.elems[row_start + lane_off + xoff[x]];
            }
            const std::uint64_t e = ((std::uint64_t(c) * r.n_cy + cy) * r.n_cx + cx) * rows + lane;
            switch (op) {
              case hw::PoolOp::Average: pb.elems[e] = average(window, count); break;
              case hw::PoolOp::Argmax: pb.elems[e] = argmax_from_end(window, valid); break;
              case hw::PoolOp::MaskedSum: pb.elems[e] = average(selected(window), count); break;
              default: pb.elems[e] = maximum(window); break;
            }
            pb.defined[e] = 1;
          }
        }
      }
  }

  // Section 15's max over a window's elements in order: the first loads, a later one replaces it
  // only if strictly greater (binary16: -0 = +0; a NaN anywhere gives 0x7E00); an accumulator word.
  std::uint32_t maximum(const std::vector<std::uint32_t>& w) const {
    if (hw_.arithmetic != Arithmetic::fp16) {
      std::int32_t m = sext(w[0]);
      for (const std::uint32_t e : w) m = std::max(m, sext(e));
      return std::uint32_t(m);
    }
    const auto order = [](std::uint32_t h) { return (h & 0x8000u) ? -std::int32_t(h & 0x7FFFu) : std::int32_t(h & 0x7FFFu); };
    std::uint32_t m = w[0] & 0xFFFFu;
    bool nan = false;
    for (const std::uint32_t e : w) {
      const std::uint32_t h = e & 0xFFFFu;
      if ((h & 0x7C00u) == 0x7C00u && (h & 0x3FFu) != 0) {
        nan = true;
        continue;
      }
      if (order(h) > order(m)) m = h;  // a NaN in m never matters: the result is then NaN
    }
    return nan ? 0x7E00u : m;
  }

  // Section 16's argmax RUN: the window position j of section 15's argmax over the valid elements
  // (the first NaN, else the first of the greatest; binary16 -0 = +0), as L - 1 - j; 0xFFFF when
  // no element is valid.
  std::uint32_t argmax_from_end(const std::vector<std::uint32_t>& w, const std::vector<char>& valid) const {
    const bool fp = hw_.arithmetic == Arithmetic::fp16;
    const auto key = [&](std::uint32_t e) -> std::int32_t {
      if (!fp) return sext(e);
      const std::uint32_t h = e & 0xFFFFu;
      return (h & 0x8000u) ? -std::int32_t(h & 0x7FFFu) : std::int32_t(h & 0x7FFFu);
    };
    std::int64_t best = -1;
    for (std::size_t j = 0; j < w.size(); ++j) {
      if (!valid[j]) continue;
      const std::uint32_t h = w[j] & 0xFFFFu;
      if (fp && (h & 0x7C00u) == 0x7C00u && (h & 0x3FFu) != 0) {
        best = std::int64_t(j);
        break;
      }
      if (best < 0 || key(w[j]) > key(w[std::size_t(best)])) best = std::int64_t(j);
    }
    return best < 0 ? 0xFFFFu : std::uint32_t(w.size() - 1 - std::size_t(best));
  }

  // Section 16's masked sum: of the (index, value) pairs of a window, the values whose index bits
  // equal the pair's number.
  std::vector<std::uint32_t> selected(const std::vector<std::uint32_t>& w) const {
    std::vector<std::uint32_t> v;
    for (std::size_t m = 0; 2 * m + 1 < w.size(); ++m)
      if (w[2 * m] == m) v.push_back(w[2 * m + 1]);
    return v;
  }

  // Section 15's average of a window's elements (padding arrives as 0) over `count`.
  std::uint32_t average(const std::vector<std::uint32_t>& w, std::uint32_t count) const {
    if (hw_.arithmetic != Arithmetic::fp16) {
      std::int64_t s = 0;
      for (const std::uint32_t e : w) s += sext(e);
      if (count == 0) return 0;
      const std::uint64_t mag = std::uint64_t(s < 0 ? -s : s);
      const std::int64_t q = std::int64_t((2 * mag + count) / (2 * std::uint64_t(count)));
      return std::uint32_t(std::int32_t(s < 0 ? -q : q));
    }
    std::int64_t s = 0;
    bool nan = false, pinf = false, ninf = false;
    for (const std::uint32_t e : w) {
      const std::uint32_t h = e & 0xFFFFu, field = (h >> 10) & 0x1Fu, frac = h & 0x3FFu;
      if (field == 0x1F) {
        if (frac != 0) nan = true;
        else ((h & 0x8000u) ? ninf : pinf) = true;
        continue;
      }
      const std::int64_t v = field == 0 ? std::int64_t(frac) : std::int64_t(frac | 0x400u) << (field - 1);
      s += (h & 0x8000u) ? -v : v;
    }
    if (nan || (pinf && ninf) || count == 0) return 0x7E00u;
    if (pinf) return 0x7C00u;
    if (ninf) return 0xFC00u;
    if (s == 0) return 0;
    return half_of_quotient(s < 0, std::uint64_t(s < 0 ? -s : s), count);
  }

  const Program& p_;
  const hw::HwParams& hw_;
  std::vector<std::uint8_t>& dram_;
  std::vector<Buffer> ifmap_, weights_, psums_;
  std::size_t index_ = 0;
};

}  // namespace

void interpret(const Program& p, std::vector<std::uint8_t>& dram) { Interpreter(p, dram).run_all(); }

}  // namespace flycol
