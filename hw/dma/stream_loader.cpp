// The DMA load path (docs/microarchitecture.md 7.3/7.4). The walk treats the stream as DRAM rows
// separated by maximal zero runs, so a chunk never stops at a boundary between two kinds of padding
// (hw/dma/README.md, "Stream and chunks"); all sizes of those runs are fixed per command and latched at start.
#include "hw/dma/stream_loader.h"

#include <algorithm>
#include <string>

namespace flycol::hw {

namespace {

std::uint64_t prefix_mask(int n) { return n >= 64 ? ~std::uint64_t(0) : (std::uint64_t(1) << n) - 1; }

}  // namespace

StreamLoader::StreamLoader(const char* name)
    : name_(name), chunks_q_("dma chunk queue"), rsps_q_("dma response fifo") {
  reset();
}

void StreamLoader::reset() {
  desc_q_ = DmaDesc{};
  shape_q_ = StreamShape{};
  z_row_q_ = z_plane_q_ = z_last_q_ = 0;
  active_q_ = active_d_ = false;
  walk_q_ = walk_d_ = Walk{};
  chunks_q_.reset();
  rsps_q_.reset();
  std::fill(std::begin(word_q_), std::end(word_q_), 0);
  std::fill(std::begin(word_d_), std::end(word_d_), 0);
  pack_off_q_ = pack_off_d_ = 0;
  pack_word_q_ = pack_word_d_ = 0;
  pack_left_q_ = pack_left_d_ = 0;
  start_req_ = false;
  done_ = fired_ = wrote_ = emitted_ = false;
  update_outputs();
}

void check_stream_start(const char* block, const DmaDesc& d, const StreamShape& shape) {
  if (shape.elem_bytes != 1 && shape.elem_bytes != 2 && shape.elem_bytes != 4)
    protocol_error(block, "element width must be 1, 2 or 4 bytes");
  if (shape.elems_per_word < 1 || shape.elems_per_word > kMaxWordElems)
    protocol_error(block, "SRAM word width out of range");
  const std::uint64_t eb = std::uint64_t(shape.elem_bytes);
  if (d.dram_addr % eb || d.row_stride % eb || d.plane_stride % eb)
    protocol_error(block, "DRAM address or stride not element aligned");
  if (d.elem_step < 1 || d.elem_step > std::uint32_t(shape.max_elem_step))
    protocol_error(block, "element step " + std::to_string(d.elem_step) + " out of range 1.." +
                              std::to_string(shape.max_elem_step));
  // The padding value is one element's raw bits (at most the 16-bit field).
  const int value_bits = std::min(8 * shape.elem_bytes, field_bits::kPadValue);
  if ((std::uint64_t(d.pad_value) >> value_bits) != 0)
    protocol_error(block, "padding value " + std::to_string(d.pad_value) + " wider than " +
                              std::to_string(value_bits) + " bits");
}

void StreamLoader::start(const DmaDesc& d, const StreamShape& shape) {
  if (active_q_) protocol_error(name_, "start while busy");
  check_stream_start(name_, d, shape);
  const std::uint64_t w = std::uint64_t(d.pad_left) + d.row_len + d.pad_right;
  const std::uint64_t total =
      std::uint64_t(d.n_planes) * (std::uint64_t(d.pad_top) + d.n_rows + d.pad_bottom) * w + d.tail;
  if (total > std::uint64_t(shape.depth_words) * std::uint64_t(shape.elems_per_word))
    protocol_error(name_, "stream of " + std::to_string(total) + " elements does not fit the buffer");
  start_req_ = true;
  start_desc_ = d;
  start_shape_ = shape;
}

std::uint32_t StreamLoader::chunk_count(const Walk& w) const {
  std::uint32_t n = std::min<std::uint32_t>(w.rem, std::uint32_t(shape_q_.elems_per_word - w.word_off));
  if (!w.zero) {  // the kept elements (every elem_step-th) left in the beat
    const std::uint32_t room = std::uint32_t((kBeatBytes - int(w.addr % kBeatBytes)) / shape_q_.elem_bytes);
    const std::uint32_t s = desc_q_.elem_step;
    n = std::min<std::uint32_t>(n, (room + s - 1) / s);
  }
  return n;
}

void StreamLoader::update_outputs() {
  req_valid_ = active_q_ && walk_q_.more && !walk_q_.zero && !chunks_q_.full();
  req_.write = false;
  // A gather asks for the whole beat: DRAM moves bursts, and the bytes between the kept
  // elements cost the channel as much as the kept ones (section 7.3).
  const bool gather = desc_q_.elem_step > 1;
  req_.addr = gather ? walk_q_.addr / kBeatBytes * kBeatBytes : walk_q_.addr;
  req_.bytes = !req_valid_ ? 0 : gather ? kBeatBytes : int(chunk_count(walk_q_)) * shape_q_.elem_bytes;
}

void StreamLoader::eval(bool req_fired, const MemRsp* rsp, SramBank* bank) {
  walk_d_ = walk_q_;
  active_d_ = active_q_;
  std::copy(std::begin(word_q_), std::end(word_q_), std::begin(word_d_));
  pack_off_d_ = pack_off_q_;
  pack_word_d_ = pack_word_q_;
  pack_left_d_ = pack_left_q_;
  chunks_q_.set_push(false);
  chunks_q_.set_pop(false);
  rsps_q_.set_push(false);
  rsps_q_.set_pop(false);
  done_ = fired_ = wrote_ = emitted_ = false;

  if (req_fired && !req_valid_) protocol_error(name_, "request fired while req_valid is low");
  if (rsp) {
    if (!active_q_) protocol_error(name_, "read response while idle");
    rsps_q_.set_push(true, *rsp);
  }
  if (!active_q_) return;

  // Chunk generator: the next chunk of the walk, if the queue has room (and its request fires).
  if (walk_q_.more && !chunks_q_.full() && (walk_q_.zero || req_fired)) {
    const std::uint32_t n = chunk_count(walk_q_);
    Chunk c;
    c.zero = walk_q_.zero;
    c.count = std::uint8_t(n);
    c.lane = std::uint8_t(walk_q_.addr % kBeatBytes);
    chunks_q_.set_push(true, c);
    emitted_ = true;
    fired_ = !c.zero;

    Walk& w = walk_d_;
    w.word_off += int(n);
    if (w.word_off == shape_q_.elems_per_word) w.word_off = 0;
    if (!w.zero) w.addr += std::uint64_t(n) * desc_q_.elem_step * std::uint64_t(shape_q_.elem_bytes);
    w.rem -= n;
    if (w.rem == 0) {
      if (w.zero) {
        if (w.final_run) {
          w.more = false;
        } else {  // the zero run ends where the next DRAM row begins
          w.zero = false;
          w.rem = desc_q_.row_len;
          w.addr = w.row_addr;
        }
      } else {
        std::uint32_t z;
        bool last = false;
        if (w.row + 1 < desc_q_.n_rows) {
          ++w.row;
          w.row_addr += desc_q_.row_stride;
          z = z_row_q_;
        } else if (w.plane + 1 < desc_q_.n_planes) {
          ++w.plane;
          w.row = 0;
          w.plane_addr += desc_q_.plane_stride;
          w.row_addr = w.plane_addr;
          z = z_plane_q_;
        } else {
          last = true;
          z = z_last_q_;
        }
        if (z > 0) {
          w.zero = true;
          w.final_run = last;
          w.rem = z;
        } else if (last) {
          w.more = false;
        } else {  // adjacent DRAM rows: no zero run between them
          w.rem = desc_q_.row_len;
          w.addr = w.row_addr;
        }
      }
    }
  }

  // Packer: consume the head chunk when its data is here (zeros always are).
  if (!chunks_q_.empty() && (chunks_q_.front().zero || !rsps_q_.empty())) {
    const Chunk& c = chunks_q_.front();
    chunks_q_.set_pop(true);
    const int eb = shape_q_.elem_bytes;
    if (c.zero) {
      for (int i = 0; i < c.count; ++i) word_d_[pack_off_q_ + i] = word_elem_t(desc_q_.pad_value);
    } else {
      rsps_q_.set_pop(true);
      const std::uint8_t* src = rsps_q_.front().rdata + c.lane;
      const int step = int(desc_q_.elem_step) * eb;  // bytes from one kept element to the next
      for (int i = 0; i < c.count; ++i) {
        word_elem_t v = 0;
        for (int b = 0; b < eb; ++b) v |= word_elem_t(src[i * step + b]) << (8 * b);
        word_d_[pack_off_q_ + i] = v;
      }
    }
    const int end = pack_off_q_ + c.count;
    const bool last = c.count == pack_left_q_;
    pack_left_d_ = pack_left_q_ - c.count;
    if (end == shape_q_.elems_per_word || last) {
      if (!bank) protocol_error(name_, "no destination buffer");
      if (bank->elems_per_word() != shape_q_.elems_per_word)
        protocol_error(name_, "destination buffer word width differs from the command's");
      bank->write(SramBank::kDma, pack_word_q_, word_d_, prefix_mask(end));
      std::fill(std::begin(word_d_), std::end(word_d_), 0);
      pack_off_d_ = 0;
      pack_word_d_ = pack_word_q_ + 1;
      wrote_ = true;
    } else {
      pack_off_d_ = end;
    }
    if (last) {
      done_ = true;
      active_d_ = false;
    }
  } else if (pack_left_q_ == 0) {  // an empty stream completes in its first cycle
    done_ = true;
    active_d_ = false;
  }
}

void StreamLoader::tick() {
  chunks_q_.tick();
  rsps_q_.tick();
  if (fired_) {
    ++dram_requests_;
    dram_bytes_ += std::uint64_t(req_.bytes);
  }
  if (emitted_) ++chunks_;
  if (wrote_) ++sram_words_;
  fired_ = wrote_ = emitted_ = false;

  if (start_req_) {
    if (!chunks_q_.empty() || !rsps_q_.empty()) protocol_error(name_, "start with data left from a command");
    start_req_ = false;
    const DmaDesc& d = start_desc_;
    desc_q_ = d;
    shape_q_ = start_shape_;
    const std::uint32_t w = d.pad_left + d.row_len + d.pad_right;
    const std::uint32_t total = d.n_planes * (d.pad_top + d.n_rows + d.pad_bottom) * w + d.tail;
    z_row_q_ = d.pad_right + d.pad_left;
    z_plane_q_ = d.pad_right + (d.pad_bottom + d.pad_top) * w + d.pad_left;
    z_last_q_ = d.pad_right + d.pad_bottom * w + d.tail;
    const std::uint32_t z_first = d.pad_top * w + d.pad_left;
    Walk k;
    k.more = total > 0;
    k.plane_addr = k.row_addr = k.addr = d.dram_addr;
    if (d.n_planes == 0 || d.n_rows == 0 || d.row_len == 0) {  // no DRAM data: one zero run
      k.zero = true;
      k.final_run = true;
      k.rem = total;
    } else if (z_first > 0) {
      k.zero = true;
      k.rem = z_first;
    } else {
      k.rem = d.row_len;
    }
    walk_q_ = k;
    active_q_ = true;
    std::fill(std::begin(word_q_), std::end(word_q_), 0);
    pack_off_q_ = 0;
    pack_word_q_ = 0;
    pack_left_q_ = total;
  } else {
    walk_q_ = walk_d_;
    active_q_ = active_d_;
    std::copy(std::begin(word_d_), std::end(word_d_), std::begin(word_q_));
    pack_off_q_ = pack_off_d_;
    pack_word_q_ = pack_word_d_;
    pack_left_q_ = pack_left_d_;
  }
  update_outputs();
}

}  // namespace flycol::hw
