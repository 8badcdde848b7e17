// DMA work of one command: the stream walk of section 7.3 counted segment by segment (a zero run
// or a DRAM row costs one chunk per SRAM word and DRAM beat it touches), in O(rows).
#include "sim/analytic/dma_timing.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "sim/compiler/compiler.h"  // gather_row_requests: the chunk rule of a gathered row

namespace flycol::analytic {
namespace {

// Pieces of a run of n elements that starts at offset `a` of a period-`pa` grid and offset `b` of
// a period-`pb` grid (both powers of two), cut at every boundary of either grid.
std::uint64_t pieces(std::uint64_t n, std::uint64_t a, std::uint64_t pa, std::uint64_t b, std::uint64_t pb) {
  if (n == 0) return 0;
  const std::uint64_t cuts_a = (a + n - 1) / pa, cuts_b = (b + n - 1) / pb;
  const std::uint64_t lo = std::min(pa, pb);
  // The coarser grid's cuts are a subset of the finer grid's when the offsets agree modulo it.
  const std::uint64_t shared = (a % lo) == (b % lo) ? (pa >= pb ? cuts_a : cuts_b) : 0;
  return 1 + cuts_a + cuts_b - shared;
}

}  // namespace

std::uint64_t ifmap_block_bytes(const hw::HwParams& p) {
  return std::min<std::uint64_t>(std::uint64_t(hw::kBeatBytes), std::uint64_t(p.bus_elems) * std::uint64_t(p.elem_bytes()));
}

DmaWork dma_work(const hw::Command& c, const hw::HwParams& p) {
  DmaWork w;
  const hw::DmaDesc& d = c.dma;
  const std::uint64_t beat = std::uint64_t(hw::kBeatBytes);
  switch (c.op) {
    case hw::Opcode::LoadIfmap: w.tensor = Tensor::ifmap; break;
    case hw::Opcode::LoadWeights: w.tensor = Tensor::weights; break;
    case hw::Opcode::LoadPsums: w.tensor = Tensor::psums_in; break;
    case hw::Opcode::StorePsums: w.tensor = Tensor::ofmap; w.write = true; break;
    case hw::Opcode::Run: throw std::logic_error("dma_work: a RUN is not a DMA command");
  }
  const bool psum = c.op == hw::Opcode::LoadPsums || c.op == hw::Opcode::StorePsums;
  const std::uint64_t eb = std::uint64_t(psum ? p.acc_bytes() : p.elem_bytes());
  const std::uint64_t word = std::uint64_t(c.op == hw::Opcode::LoadIfmap     ? p.bus_elems
                                           : c.op == hw::Opcode::LoadWeights ? p.cols
                                                                             : p.rows);
  const std::uint64_t beat_elems = beat / eb;
  w.bytes = std::uint64_t(d.n_planes) * d.n_rows * d.row_len * eb;

  if (w.write && d.dst_ifmap) {
    // A store into the ifmap buffer (section 7.6): the same chunks cut at ifmap words instead of
    // DRAM beats, written to the ifmap SRAM; the memory is not involved.
    DmaWork as_store = dma_work([&] {
      hw::Command plain = c;
      plain.dma.dst_ifmap = false;
      return plain;
    }(), p);
    const std::uint64_t block_elems = ifmap_block_bytes(p) / eb;
    std::uint64_t chunks = 0;
    const bool packed = (std::uint64_t(d.row_len) + d.pad_right) % word != 0;
    for (std::uint32_t pl = 0; pl < d.n_planes; ++pl)
      for (std::uint32_t y = 0; y < d.n_rows; ++y) {
        const std::uint64_t addr = d.dram_addr + std::uint64_t(pl) * d.plane_stride + std::uint64_t(y) * d.row_stride;
        const std::uint64_t off = packed ? (std::uint64_t(y) * d.row_len) % word : 0;
        chunks += pieces(d.row_len, off, word, (addr / eb) % block_elems, block_elems);
      }
    w.to_ifmap = true;
    w.ifmap_writes = chunks;
    w.sram_words = as_store.sram_words;
    w.bytes = 0;
    w.requests = 0;
    return w;
  }
  if (w.write) {
    // Word-aligned rows start on SRAM word boundaries and only their data words are read; packed
    // rows (section 7.5) follow each other, and every word of every plane is read. A write
    // request is the part of one row's data in one word that lies in one DRAM beat.
    const bool packed = (std::uint64_t(d.row_len) + d.pad_right) % word != 0;
    for (std::uint32_t pl = 0; pl < d.n_planes; ++pl)
      for (std::uint32_t y = 0; y < d.n_rows; ++y) {
        const std::uint64_t addr = d.dram_addr + std::uint64_t(pl) * d.plane_stride + std::uint64_t(y) * d.row_stride;
        const std::uint64_t off = packed ? (std::uint64_t(y) * d.row_len) % word : 0;  // planes are whole words
        w.requests += pieces(d.row_len, off, word, (addr / eb) % beat_elems, beat_elems);
      }
    if (d.n_planes == 0 || d.n_rows == 0 || d.row_len == 0)
      w.sram_words = 0;
    else if (packed)
      w.sram_words = std::uint64_t(d.n_planes) * ((std::uint64_t(d.n_rows) * d.row_len + d.tail) / word);
    else
      w.sram_words = std::uint64_t(d.n_planes) * d.n_rows * ((d.row_len + word - 1) / word);
    return w;
  }

  const std::uint64_t width = std::uint64_t(d.pad_left) + d.row_len + d.pad_right;
  const std::uint64_t total =
      std::uint64_t(d.n_planes) * (std::uint64_t(d.pad_top) + d.n_rows + d.pad_bottom) * width + d.tail;
  w.sram_words = (total + word - 1) / word;
  std::uint64_t pos = 0, zero_chunks = 0;
  const auto zero_run = [&](std::uint64_t z) {
    if (z == 0) return;
    zero_chunks += (pos % word + z - 1) / word + 1;
    pos += z;
  };
  if (d.n_planes == 0 || d.n_rows == 0 || d.row_len == 0) {
    zero_run(total);
  } else {
    const std::uint64_t z_row = std::uint64_t(d.pad_right) + d.pad_left;
    const std::uint64_t z_plane = std::uint64_t(d.pad_right) + (std::uint64_t(d.pad_bottom) + d.pad_top) * width +
                                  d.pad_left;
    const std::uint64_t z_last = std::uint64_t(d.pad_right) + std::uint64_t(d.pad_bottom) * width + d.tail;
    zero_run(std::uint64_t(d.pad_top) * width + d.pad_left);
    for (std::uint32_t pl = 0; pl < d.n_planes; ++pl)
      for (std::uint32_t y = 0; y < d.n_rows; ++y) {
        const std::uint64_t addr = d.dram_addr + std::uint64_t(pl) * d.plane_stride + std::uint64_t(y) * d.row_stride;
        w.requests += d.elem_step > 1
                          ? gather_row_requests(d.row_len, pos % word, word, addr / eb, beat_elems, d.elem_step)
                          : pieces(d.row_len, pos % word, word, (addr / eb) % beat_elems, beat_elems);
        pos += d.row_len;
        zero_run(y + 1 < d.n_rows ? z_row : pl + 1 < d.n_planes ? z_plane : z_last);
      }
  }
  w.chunks = w.requests + zero_chunks;
  if (d.elem_step > 1) w.bytes = w.requests * beat;  // a gather requests whole beats
  return w;
}

}  // namespace flycol::analytic

namespace flycol::analytic {
namespace {

constexpr std::uint64_t kQ16 = 65536;

// The DRAM channel of sim/dram (fixed timing): Q16 channel position, backlog rule, in-order
// responses at most one per cycle.
class Channel {
public:
  explicit Channel(const DramTiming& t)
      : bw_(std::uint64_t(std::llround(t.bytes_per_cycle * double(kQ16)))),
        backlog_(std::uint64_t(t.backlog_bytes) * kQ16), latency_(std::uint64_t(t.latency_cycles)) {
    if (bw_ == 0) throw std::invalid_argument("analytic model: DRAM bandwidth below the Q16 resolution");
  }
  bool ready(std::uint64_t t) const {
    const std::uint64_t pos = t * bw_;
    return (busy_ > pos ? busy_ - pos : 0) < backlog_;
  }
  // Accepts n bytes in cycle t; returns the cycle its response is valid (reads).
  std::uint64_t accept(std::uint64_t t, std::uint64_t n, bool read) {
    busy_ = std::max(t * bw_, busy_) + n * kQ16;
    if (!read) return 0;
    const std::uint64_t end = busy_ / bw_ + (busy_ % bw_ != 0 ? 1 : 0);
    std::uint64_t r = end + latency_;
    if (any_) r = std::max(r, last_ + 1);
    any_ = true;
    last_ = r;
    return r;
  }

private:
  std::uint64_t bw_, backlog_, latency_;
  std::uint64_t busy_ = 0, last_ = 0;
  bool any_ = false;
};

// The chunk walk of StreamLoader (hw/dma/stream_loader.cpp), one chunk per next().
class ChunkWalk {
public:
  ChunkWalk(const hw::DmaDesc& d, std::uint64_t eb, std::uint64_t word) : d_(d), eb_(eb), word_(word) {
    const std::uint64_t w = std::uint64_t(d.pad_left) + d.row_len + d.pad_right;
    const std::uint64_t total = std::uint64_t(d.n_planes) * (std::uint64_t(d.pad_top) + d.n_rows + d.pad_bottom) * w + d.tail;
    z_row_ = std::uint64_t(d.pad_right) + d.pad_left;
    z_plane_ = std::uint64_t(d.pad_right) + (std::uint64_t(d.pad_bottom) + d.pad_top) * w + d.pad_left;
    z_last_ = std::uint64_t(d.pad_right) + std::uint64_t(d.pad_bottom) * w + d.tail;
    const std::uint64_t z_first = std::uint64_t(d.pad_top) * w + d.pad_left;
    more_ = total > 0;
    plane_addr_ = row_addr_ = addr_ = d.dram_addr;
    if (d.n_planes == 0 || d.n_rows == 0 || d.row_len == 0) {
      zero_ = final_ = true;
      rem_ = total;
    } else if (z_first > 0) {
      zero_ = true;
      rem_ = z_first;
    } else {
      rem_ = d.row_len;
    }
  }
  bool more() const { return more_; }
  bool zero() const { return zero_; }
  // A gather (elem_step > 1) requests the whole beat (section 7.3).
  std::uint64_t bytes() const { return zero_ ? 0 : d_.elem_step > 1 ? std::uint64_t(hw::kBeatBytes) : count() * eb_; }
  void next() {
    const std::uint64_t n = count();
    off_ = (off_ + n) % word_;
    if (!zero_) addr_ += n * d_.elem_step * eb_;
    rem_ -= n;
    if (rem_ > 0) return;
    if (zero_) {
      if (final_) {
        more_ = false;
      } else {
        zero_ = false;
        rem_ = d_.row_len;
        addr_ = row_addr_;
      }
      return;
    }
    std::uint64_t z;
    bool last = false;
    if (row_ + 1 < d_.n_rows) {
      ++row_;
      row_addr_ += d_.row_stride;
      z = z_row_;
    } else if (plane_ + 1 < d_.n_planes) {
      ++plane_;
      row_ = 0;
      plane_addr_ += d_.plane_stride;
      row_addr_ = plane_addr_;
      z = z_plane_;
    } else {
      last = true;
      z = z_last_;
    }
    if (z > 0) {
      zero_ = true;
      final_ = last;
      rem_ = z;
    } else if (last) {
      more_ = false;
    } else {
      rem_ = d_.row_len;
      addr_ = row_addr_;
    }
  }

private:
  std::uint64_t count() const {
    std::uint64_t n = std::min(rem_, word_ - off_);
    if (!zero_) {
      const std::uint64_t room = (std::uint64_t(hw::kBeatBytes) - addr_ % hw::kBeatBytes) / eb_;
      n = std::min(n, (room + d_.elem_step - 1) / d_.elem_step);
    }
    return n;
  }
  hw::DmaDesc d_;
  std::uint64_t eb_, word_;
  std::uint64_t z_row_ = 0, z_plane_ = 0, z_last_ = 0;
  bool more_ = false, zero_ = false, final_ = false;
  std::uint64_t rem_ = 0, off_ = 0;
  std::uint32_t plane_ = 0, row_ = 0;
  std::uint64_t plane_addr_ = 0, row_addr_ = 0, addr_ = 0;
};

DmaReplay load_alone(const hw::DmaDesc& d, std::uint64_t eb, std::uint64_t word, const DramTiming& timing) {
  Channel ch(timing);
  ChunkWalk walk(d, eb, word);
  DmaReplay out;
  if (!walk.more()) return out;  // an empty stream completes in its first cycle
  struct Entry {
    bool zero;
    std::uint64_t ready;  // response valid in this cycle (DRAM chunks)
  };
  constexpr std::size_t kDepth = std::size_t(hw::kChunkQueueDepth);
  Entry q[kDepth];
  std::size_t head = 0, count = 0;
  for (std::uint64_t t = 1;; ++t) {
    // Packer: the head, pushed in an earlier cycle, whose response arrived before this cycle.
    const bool consume = count > 0 && (q[head].zero || q[head].ready + 1 <= t);
    // Generator: against the registered queue count.
    if (walk.more() && count < kDepth && (walk.zero() || ch.ready(t))) {
      const bool zero = walk.zero();
      const std::uint64_t r = zero ? 0 : ch.accept(t, walk.bytes(), true);
      if (!zero) {
        if (out.requests > 0 && out.last + 1 == t) ++out.back_to_back;
        if (out.requests++ == 0) out.first = t;
        out.last = t;
      }
      walk.next();
      q[(head + count) % kDepth] = {zero, r};
      ++count;
    }
    if (consume) {
      head = (head + 1) % kDepth;
      --count;
      if (count == 0 && !walk.more()) {
        out.done = t;
        return out;
      }
    }
  }
}

// `block`: the bytes a chunk may not cross, the DRAM beat or, for a store into the ifmap buffer
// (section 7.6, `on_chip`), one ifmap word; an on-chip store's chunks never wait for a channel
// but the LD engine's ifmap writes: `port_taken(t)` says the LD engine writes the ifmap SRAM in
// cycle t (null: never).
DmaReplay store_alone(const hw::DmaDesc& d, std::uint64_t eb, std::uint64_t word, const DramTiming& timing,
                      bool on_chip, std::uint64_t block, const std::function<bool(std::uint64_t)>* port_taken = nullptr) {
  DmaReplay out;
  if (d.n_planes == 0 || d.n_rows == 0 || d.row_len == 0) return out;
  Channel ch(timing);
  const std::uint64_t beat = block;
  const bool packed = (std::uint64_t(d.row_len) + d.pad_right) % word != 0;
  const std::uint64_t total_words =
      packed ? std::uint64_t(d.n_planes) * ((std::uint64_t(d.n_rows) * d.row_len + d.tail) / word)
             : std::uint64_t(d.n_planes) * d.n_rows * ((d.row_len + word - 1) / word);
  // Reader: words read so far and the word FIFO (depth 2) of StoreStream; the FIFO holds only a
  // count, since the writer keeps the DRAM position (plane, row, column) itself.
  std::uint64_t next_word = 0;
  bool inflight = false;
  std::uint64_t fcount = 0;
  std::uint64_t elem = 0;  // writer position in the head word
  std::uint64_t plane = 0, row = 0, col = 0;
  for (std::uint64_t t = 1;; ++t) {
    bool pop = false, done = false;
    const bool writer_may = on_chip ? !(port_taken && (*port_taken)(t)) : ch.ready(t);
    if (fcount > 0 && writer_may) {  // writer: the head word's next chunk
      const std::uint64_t addr = d.dram_addr + plane * d.plane_stride + row * d.row_stride + col * eb;
      const std::uint64_t chunk = std::min({word - elem, d.row_len - col, (beat - addr % beat) / eb});
      if (!on_chip) ch.accept(t, chunk * eb, false);
      if (out.requests > 0 && out.last + 1 == t) ++out.back_to_back;
      if (out.requests++ == 0) out.first = t;
      out.last = t;
      elem += chunk;
      col += chunk;
      pop = elem == word;
      if (col == d.row_len) {  // row end: the rest of an aligned row's word is padding
        col = 0;
        const bool plane_end = row + 1 == d.n_rows;
        if (!packed || plane_end) pop = true;
        if (!plane_end) {
          ++row;
        } else {
          row = 0;
          done = ++plane == d.n_planes;
        }
      }
      if (pop) elem = 0;
    }
    if (done) {
      out.done = t;
      return out;
    }
    const bool push = inflight;
    const bool read = next_word < total_words && fcount + (inflight ? 1 : 0) < 2;
    if (pop) --fcount;
    if (push) ++fcount;
    inflight = read;
    if (read) ++next_word;
  }
}

}  // namespace

DmaReplay replay(const hw::Command& c, const hw::HwParams& p, const DramTiming& t) {
  switch (c.op) {
    case hw::Opcode::LoadIfmap: return load_alone(c.dma, std::uint64_t(p.elem_bytes()), std::uint64_t(p.bus_elems), t);
    case hw::Opcode::LoadWeights: return load_alone(c.dma, std::uint64_t(p.elem_bytes()), std::uint64_t(p.cols), t);
    case hw::Opcode::LoadPsums: return load_alone(c.dma, std::uint64_t(p.acc_bytes()), std::uint64_t(p.rows), t);
    case hw::Opcode::StorePsums:
      return store_alone(c.dma, std::uint64_t(p.acc_bytes()), std::uint64_t(p.rows), t, c.dma.dst_ifmap,
                         c.dma.dst_ifmap ? ifmap_block_bytes(p) : std::uint64_t(hw::kBeatBytes));
    case hw::Opcode::Run: break;
  }
  throw std::logic_error("replay: a RUN is not a DMA command");
}

std::uint64_t alone_cycles(const hw::Command& c, const hw::HwParams& p, const DramTiming& t) {
  return replay(c, p, t).done;
}

std::uint64_t move_cycles(const hw::Command& c, const hw::HwParams& p, const std::function<bool(std::uint64_t)>& port_taken) {
  if (c.op != hw::Opcode::StorePsums || !c.dma.dst_ifmap)
    throw std::logic_error("move_cycles: not a STORE_PSUMS into the ifmap buffer");
  return store_alone(c.dma, std::uint64_t(p.acc_bytes()), std::uint64_t(p.rows), DramTiming{}, true,
                     ifmap_block_bytes(p), &port_taken)
      .done;
}

}  // namespace flycol::analytic
