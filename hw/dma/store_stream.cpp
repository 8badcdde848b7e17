// The STORE_PSUMS path (docs/microarchitecture.md 7.5, and 7.6 into an ifmap buffer). The reader's
// throttle counts the word FIFO and the read in flight from registers only, so the SRAM port use is
// a Moore function too.
#include "hw/dma/store_stream.h"

#include <algorithm>
#include <cstring>
#include <string>

namespace flycol::hw {

StoreStream::StoreStream(const char* name) : name_(name), words_q_("dma store word fifo") { reset(); }

void StoreStream::reset() {
  desc_q_ = DmaDesc{};
  shape_q_ = StreamShape{};
  dst_elems_q_ = dst_word_bytes_q_ = 0;
  packed_q_ = false;
  rd_rows_q_ = data_words_q_ = row_words_q_ = 0;
  active_q_ = active_d_ = false;
  rd_q_ = rd_d_ = Reader{};
  inflight_q_ = inflight_d_ = false;
  wr_q_ = wr_d_ = Writer{};
  words_q_.reset();
  elem_q_ = elem_d_ = 0;
  start_req_ = false;
  start_dst_elems_ = 0;
  done_ = fired_ = read_ = false;
  update_outputs();
}

void StoreStream::start(const DmaDesc& d, const StreamShape& shape, const StreamShape* dst) {
  if (active_q_) protocol_error(name_, "start while busy");
  check_stream_start(name_, d, shape);
  if (d.pad_left || d.pad_top || d.pad_bottom)
    protocol_error(name_, "STORE_PSUMS uses no padding but pad_right or tail");
  const std::uint64_t epw = std::uint64_t(shape.elems_per_word);
  const std::uint64_t w = std::uint64_t(d.row_len) + d.pad_right;
  std::uint64_t total = 0;
  if (w % epw == 0) {  // word-aligned rows
    if (d.tail) protocol_error(name_, "tail is only for packed rows (row_len + pad_right not a whole number of words)");
    total = std::uint64_t(d.n_planes) * d.n_rows * w;
  } else {  // packed rows
    if (d.pad_right) protocol_error(name_, "packed rows (row_len not a whole number of words) take no pad_right");
    const std::uint64_t plane = std::uint64_t(d.n_rows) * d.row_len + d.tail;
    if (d.tail >= epw || plane % epw)
      protocol_error(name_, "packed rows: n_rows * row_len + tail is not a whole number of SRAM words, or tail is "
                            "a word or more");
    total = std::uint64_t(d.n_planes) * plane;
  }
  if (total > std::uint64_t(shape.depth_words) * epw)
    protocol_error(name_, "stream of " + std::to_string(total) + " elements exceeds the buffer");
  if (d.dst_ifmap) {  // section 7.6: byte addresses inside the ifmap buffer
    if (!dst) protocol_error(name_, "dst_ifmap without an ifmap destination");
    if (dst->elem_bytes != shape.elem_bytes)
      protocol_error(name_, "dst_ifmap: the ifmap element is not as wide as the stored element");
    const std::uint64_t word_bytes = std::uint64_t(dst->elems_per_word) * std::uint64_t(dst->elem_bytes);
    if (dst->elems_per_word < 1 || dst->elems_per_word > kMaxWordElems || (word_bytes & (word_bytes - 1)) != 0)
      protocol_error(name_, "dst_ifmap: the ifmap word is not a power of two bytes");
    if (d.n_planes > 0 && d.n_rows > 0 && d.row_len > 0) {
      const std::uint64_t end = d.dram_addr + std::uint64_t(d.n_planes - 1) * d.plane_stride +
                                std::uint64_t(d.n_rows - 1) * d.row_stride +
                                std::uint64_t(d.row_len) * std::uint64_t(shape.elem_bytes);
      const std::uint64_t size = std::uint64_t(dst->depth_words) * word_bytes;
      if (end > size)
        protocol_error(name_, "dst_ifmap: the rows reach byte " + std::to_string(end) + " of the " +
                                  std::to_string(size) + "-byte ifmap buffer");
    }
  } else if (d.dst_buf != 0) {
    protocol_error(name_, "dst_buf without dst_ifmap");
  }
  start_req_ = true;
  start_desc_ = d;
  start_shape_ = shape;
  start_dst_elems_ = d.dst_ifmap ? dst->elems_per_word : 0;
}

void StoreStream::update_outputs() {
  req_valid_ = active_q_ && !words_q_.empty();
  std::memset(req_.wdata, 0, sizeof req_.wdata);
  std::fill(std::begin(dst_data_), std::end(dst_data_), 0);
  req_.write = true;
  req_elems_ = 0;
  dst_word_ = 0;
  dst_mask_ = 0;
  if (!req_valid_) {
    req_.addr = 0;
    req_.bytes = 0;
    return;
  }
  const Word& head = words_q_.front();
  const int eb = shape_q_.elem_bytes;
  req_.addr = wr_q_.row_addr + std::uint64_t(wr_q_.col) * std::uint64_t(eb);
  const int lane = int(req_.addr % kBeatBytes);
  // The chunk ends at the word's end, the row's end or the end of its block: the DRAM beat, or
  // into an ifmap buffer DB = min(BEAT, ifmap word) bytes (section 7.6).
  const int block = desc_q_.dst_ifmap ? std::min(kBeatBytes, dst_word_bytes_q_) : kBeatBytes;
  const int room = (block - int(req_.addr % std::uint64_t(block))) / eb;
  const int row_left = int(std::min<std::uint32_t>(desc_q_.row_len - wr_q_.col, std::uint32_t(kMaxWordElems)));
  req_elems_ = std::min({shape_q_.elems_per_word - elem_q_, row_left, room});
  req_row_end_ = req_elems_ == row_left && wr_q_.col + std::uint32_t(req_elems_) == desc_q_.row_len;
  req_.bytes = req_elems_ * eb;
  for (int i = 0; i < req_elems_; ++i) {
    const word_elem_t v = head.data[elem_q_ + i];
    for (int b = 0; b < eb; ++b) req_.wdata[lane + i * eb + b] = std::uint8_t(v >> (8 * b));
  }
  if (desc_q_.dst_ifmap) {  // ifmap word addr / (B*EB), its elements from (addr mod (B*EB)) / EB on
    const std::uint64_t wb = std::uint64_t(dst_word_bytes_q_);
    dst_word_ = int(req_.addr / wb);
    const int pos = int(req_.addr % wb) / eb;
    for (int i = 0; i < req_elems_; ++i) dst_data_[pos + i] = head.data[elem_q_ + i];
    dst_mask_ = ((std::uint64_t(1) << req_elems_) - 1) << pos;  // req_elems_ <= BEAT / EB, pos + req_elems_ <= B
  }
}

void StoreStream::eval(bool req_fired, SramBank* bank, SramBank* dst_bank) {
  rd_d_ = rd_q_;
  active_d_ = active_q_;
  inflight_d_ = false;
  wr_d_ = wr_q_;
  elem_d_ = elem_q_;
  words_q_.set_push(false);
  words_q_.set_pop(false);
  done_ = fired_ = read_ = false;

  if (req_fired && !req_valid_) protocol_error(name_, "request fired while req_valid is low");
  if (!active_q_) return;
  if (!bank) protocol_error(name_, "no source buffer");
  if (bank->elems_per_word() != shape_q_.elems_per_word)
    protocol_error(name_, "source buffer word width differs from the command's");

  // Reader: last cycle's read data enters the FIFO; a new read if FIFO + in flight < 2.
  if (inflight_q_) {
    Word w;
    std::copy(bank->rdata(), bank->rdata() + shape_q_.elems_per_word, w.data);
    words_q_.set_push(true, w);
  }
  if (rd_q_.more && words_q_.count() + (inflight_q_ ? 1 : 0) < kStoreWordFifoDepth) {
    bank->read(SramBank::kDma, int(rd_q_.row_sram + rd_q_.word));
    read_ = true;
    inflight_d_ = true;
    Reader& r = rd_d_;
    if (r.word + 1 < data_words_q_) {
      ++r.word;
    } else {
      r.word = 0;
      r.row_sram += row_words_q_;
      if (r.row + 1 < rd_rows_q_) {
        ++r.row;
      } else if (r.plane + 1 < desc_q_.n_planes) {
        ++r.plane;
        r.row = 0;
      } else {
        r.more = false;
      }
    }
  }

  // Writer: the head word's next chunk went out if the request fired. The word is popped after
  // its last element, after a row end (word-aligned rows: the rest is pad_right) or after a plane
  // end (packed rows: the rest is tail).
  if (req_fired) {
    fired_ = true;
    if (desc_q_.dst_ifmap) {  // the chunk's ifmap write (section 7.6)
      if (!dst_bank) protocol_error(name_, "no ifmap destination buffer");
      if (dst_bank->elems_per_word() != dst_elems_q_)
        protocol_error(name_, "ifmap destination buffer word width differs from the command's");
      dst_bank->write(SramBank::kDma, dst_word_, dst_data_, dst_mask_);
    }
    elem_d_ = elem_q_ + req_elems_;
    Writer& w = wr_d_;
    w.col += std::uint32_t(req_elems_);
    bool pop = elem_d_ == shape_q_.elems_per_word, last = false;
    if (req_row_end_) {
      w.col = 0;
      const bool plane_end = w.row + 1 == desc_q_.n_rows;
      if (!packed_q_ || plane_end) pop = true;
      if (!plane_end) {
        ++w.row;
        w.row_addr += desc_q_.row_stride;
      } else if (w.plane + 1 < desc_q_.n_planes) {
        ++w.plane;
        w.row = 0;
        w.plane_addr += desc_q_.plane_stride;
        w.row_addr = w.plane_addr;
      } else {
        last = true;
      }
    }
    if (pop) {
      words_q_.set_pop(true);
      elem_d_ = 0;
    }
    if (last) {
      done_ = true;
      active_d_ = false;
    }
  } else if (!rd_q_.more && !inflight_q_ && words_q_.empty()) {  // an empty store
    done_ = true;
    active_d_ = false;
  }
}

void StoreStream::tick() {
  words_q_.tick();
  if (fired_ && desc_q_.dst_ifmap) {
    ++ifmap_writes_;
  } else if (fired_) {
    ++dram_requests_;
    dram_bytes_ += std::uint64_t(req_.bytes);
  }
  if (read_) ++sram_words_;
  fired_ = read_ = false;

  if (start_req_) {
    if (!words_q_.empty() || inflight_q_) protocol_error(name_, "start with data left from a command");
    start_req_ = false;
    const DmaDesc& d = start_desc_;
    desc_q_ = d;
    shape_q_ = start_shape_;
    dst_elems_q_ = start_dst_elems_;
    dst_word_bytes_q_ = start_dst_elems_ * shape_q_.elem_bytes;
    const std::uint32_t epw = std::uint32_t(shape_q_.elems_per_word);
    packed_q_ = (d.row_len + d.pad_right) % epw != 0;
    rd_rows_q_ = packed_q_ ? 1 : d.n_rows;
    // Packed: a plane is one reader row of (n_rows*row_len + tail) / epw words.
    const std::uint32_t row_elems = packed_q_ ? d.n_rows * d.row_len + d.tail : d.row_len;
    data_words_q_ = (row_elems + epw - 1) / epw;
    row_words_q_ = packed_q_ ? data_words_q_ : (d.row_len + d.pad_right) / epw;
    Reader r;
    r.more = d.n_planes > 0 && d.n_rows > 0 && d.row_len > 0;
    rd_q_ = r;
    Writer w;
    w.plane_addr = w.row_addr = d.dram_addr;
    wr_q_ = w;
    inflight_q_ = false;
    elem_q_ = 0;
    active_q_ = true;
  } else {
    rd_q_ = rd_d_;
    active_q_ = active_d_;
    inflight_q_ = inflight_d_;
    wr_q_ = wr_d_;
    elem_q_ = elem_d_;
  }
  update_outputs();
}

}  // namespace flycol::hw
