// The STORE_PSUMS path (docs/microarchitecture.md 7.5). The reader's throttle counts the word
// FIFO and the read in flight from registers only, so the SRAM port use is a Moore function too.
#include "hw/dma/store_stream.h"

#include <algorithm>
#include <cstring>
#include <string>

namespace flycol::hw {

StoreStream::StoreStream(const char* name) : name_(name), words_q_("dma store word fifo") { reset(); }

void StoreStream::reset() {
  desc_q_ = DmaDesc{};
  shape_q_ = StreamShape{};
  data_words_q_ = row_words_q_ = 0;
  active_q_ = active_d_ = false;
  rd_q_ = rd_d_ = Reader{};
  inflight_q_ = inflight_d_ = false;
  inflight_tag_q_ = inflight_tag_d_ = Tag{};
  words_q_.reset();
  elem_q_ = elem_d_ = 0;
  start_req_ = false;
  done_ = fired_ = read_ = false;
  update_outputs();
}

void StoreStream::start(const DmaDesc& d, const StreamShape& shape) {
  if (active_q_) protocol_error(name_, "start while busy");
  check_stream_start(name_, d, shape);
  if (d.pad_left || d.pad_top || d.pad_bottom || d.tail)
    protocol_error(name_, "STORE_PSUMS uses no padding but pad_right");
  const std::uint64_t w = std::uint64_t(d.row_len) + d.pad_right;
  if (w % std::uint64_t(shape.elems_per_word))
    protocol_error(name_, "row_len + pad_right is not a whole number of SRAM words");
  const std::uint64_t total = std::uint64_t(d.n_planes) * d.n_rows * w;
  if (total > std::uint64_t(shape.depth_words) * std::uint64_t(shape.elems_per_word))
    protocol_error(name_, "stream of " + std::to_string(total) + " elements exceeds the buffer");
  start_req_ = true;
  start_desc_ = d;
  start_shape_ = shape;
}

StoreStream::Tag StoreStream::tag_of(const Reader& r) const {
  const std::uint32_t epw = std::uint32_t(shape_q_.elems_per_word);
  Tag t;
  t.addr = r.row_addr + std::uint64_t(r.word) * epw * std::uint64_t(shape_q_.elem_bytes);
  t.n = std::uint8_t(std::min(epw, desc_q_.row_len - r.word * epw));
  t.last = r.word + 1 == data_words_q_ && r.row + 1 == desc_q_.n_rows && r.plane + 1 == desc_q_.n_planes;
  return t;
}

void StoreStream::update_outputs() {
  req_valid_ = active_q_ && !words_q_.empty();
  std::memset(req_.wdata, 0, sizeof req_.wdata);
  req_.write = true;
  req_elems_ = 0;
  if (!req_valid_) {
    req_.addr = 0;
    req_.bytes = 0;
    return;
  }
  const Word& head = words_q_.front();
  const int eb = shape_q_.elem_bytes;
  req_.addr = head.tag.addr + std::uint64_t(elem_q_) * std::uint64_t(eb);
  const int lane = int(req_.addr % kBeatBytes);
  req_elems_ = std::min(int(head.tag.n) - elem_q_, (kBeatBytes - lane) / eb);
  req_.bytes = req_elems_ * eb;
  for (int i = 0; i < req_elems_; ++i) {
    const word_elem_t v = head.data[elem_q_ + i];
    for (int b = 0; b < eb; ++b) req_.wdata[lane + i * eb + b] = std::uint8_t(v >> (8 * b));
  }
}

void StoreStream::eval(bool req_fired, SramBank* bank) {
  rd_d_ = rd_q_;
  active_d_ = active_q_;
  inflight_d_ = false;
  inflight_tag_d_ = inflight_tag_q_;
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
    w.tag = inflight_tag_q_;
    words_q_.set_push(true, w);
  }
  if (rd_q_.more && words_q_.count() + (inflight_q_ ? 1 : 0) < kStoreWordFifoDepth) {
    bank->read(SramBank::kDma, int(rd_q_.row_sram + rd_q_.word));
    read_ = true;
    inflight_d_ = true;
    inflight_tag_d_ = tag_of(rd_q_);
    Reader& r = rd_d_;
    if (r.word + 1 < data_words_q_) {
      ++r.word;
    } else {
      r.word = 0;
      r.row_sram += row_words_q_;
      if (r.row + 1 < desc_q_.n_rows) {
        ++r.row;
        r.row_addr += desc_q_.row_stride;
      } else if (r.plane + 1 < desc_q_.n_planes) {
        ++r.plane;
        r.row = 0;
        r.plane_addr += desc_q_.plane_stride;
        r.row_addr = r.plane_addr;
      } else {
        r.more = false;
      }
    }
  }

  // Writer: the head word's next chunk went out if the request fired.
  if (req_fired) {
    fired_ = true;
    const Word& head = words_q_.front();
    elem_d_ = elem_q_ + req_elems_;
    if (elem_d_ == head.tag.n) {
      words_q_.set_pop(true);
      elem_d_ = 0;
      if (head.tag.last) {
        done_ = true;
        active_d_ = false;
      }
    }
  } else if (!rd_q_.more && !inflight_q_ && words_q_.empty()) {  // an empty store
    done_ = true;
    active_d_ = false;
  }
}

void StoreStream::tick() {
  words_q_.tick();
  if (fired_) {
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
    const std::uint32_t epw = std::uint32_t(shape_q_.elems_per_word);
    data_words_q_ = (d.row_len + epw - 1) / epw;
    row_words_q_ = (d.row_len + d.pad_right) / epw;
    Reader r;
    r.more = d.n_planes > 0 && d.n_rows > 0 && d.row_len > 0;
    r.plane_addr = r.row_addr = d.dram_addr;
    rd_q_ = r;
    inflight_q_ = false;
    elem_q_ = 0;
    active_q_ = true;
  } else {
    rd_q_ = rd_d_;
    active_q_ = active_d_;
    inflight_q_ = inflight_d_;
    inflight_tag_q_ = inflight_tag_d_;
    elem_q_ = elem_d_;
  }
  update_outputs();
}

}  // namespace flycol::hw
