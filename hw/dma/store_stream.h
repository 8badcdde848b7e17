// The DMA store path of the PS engine (STORE_PSUMS, docs/microarchitecture.md 7.5): a reader that
// fetches the data words of every psum row, a word FIFO of depth 2, and a writer that cuts each
// word into beat-bounded write requests; with dst_ifmap (7.6) the writer's chunks are bounded by
// min(BEAT, ifmap word) instead and go to an ifmap buffer as element-masked word writes.
#pragma once

#include <cstdint>

#include "hw/common/command.h"
#include "hw/common/fifo.h"
#include "hw/common/mem_port.h"
#include "hw/common/sram_bank.h"
#include "hw/dma/stream_loader.h"

namespace flycol::hw {

inline constexpr int kStoreWordFifoDepth = 2;

class StoreStream {
public:
  explicit StoreStream(const char* name);

  void reset();
  // Latched at tick(): store the rows of `d` from a buffer of `shape` (section 7.5). Word-aligned
  // rows: row_len + pad_right is a multiple of the word and tail is 0. Packed rows: pad_right is
  // 0, rows follow element by element and each plane is n_rows*row_len + tail elements, a whole
  // number of words with tail below one word. No other padding. Protocol error if busy or
  // malformed. With d.dst_ifmap (section 7.6) `dst` is the ifmap buffer's geometry (elements as
  // wide as the psum's, a power-of-two word); the addresses and strides are byte addresses in that
  // buffer and every written byte must lie inside it.
  void start(const DmaDesc& d, const StreamShape& shape, const StreamShape* dst = nullptr);

  bool busy() const { return active_q_; }
  bool done() const { return done_; }  // after eval(): the last write request fired this cycle
  // Moore: the writer's next chunk. A DRAM write request, or with to_ifmap() an ifmap word write
  // (req().addr is then the byte address in the ifmap buffer, and dst_word/data/mask the write).
  bool req_valid() const { return req_valid_; }
  const MemReq& req() const { return req_; }
  bool to_ifmap() const { return active_q_ && desc_q_.dst_ifmap; }  // Moore: the command writes the ifmap
  int dst_word() const { return dst_word_; }
  const word_elem_t* dst_data() const { return dst_data_; }
  std::uint64_t dst_mask() const { return dst_mask_; }

  // One cycle: `req_fired` says the chunk went out (the memory took req(), or with to_ifmap() the
  // ifmap port was free); `bank` is the source buffer, `dst_bank` the ifmap buffer (to_ifmap()).
  void eval(bool req_fired, SramBank* bank, SramBank* dst_bank = nullptr);
  void tick();

  std::uint64_t dram_bytes_written() const { return dram_bytes_; }
  std::uint64_t dram_requests() const { return dram_requests_; }
  std::uint64_t sram_words_read() const { return sram_words_; }
  std::uint64_t ifmap_writes() const { return ifmap_writes_; }  // chunks written into an ifmap buffer

private:
  struct Word {
    word_elem_t data[kMaxWordElems]{};
  };
  struct Reader {  // which SRAM word comes next
    bool more = false;
    std::uint32_t plane = 0, row = 0, word = 0;  // row: of the reader's rows (one per plane when packed)
    std::uint32_t row_sram = 0;                  // SRAM word address of the row's start
  };
  struct Writer {  // where the head word's next element goes
    std::uint32_t plane = 0, row = 0, col = 0;   // col: element within the DRAM row
    std::uint64_t plane_addr = 0, row_addr = 0;  // DRAM byte addresses
  };
  void update_outputs();

  const char* name_;
  DmaDesc desc_q_{};
  StreamShape shape_q_{};
  int dst_elems_q_ = 0, dst_word_bytes_q_ = 0;    // dst_ifmap: the ifmap word in elements and bytes
  bool packed_q_ = false;                         // packed rows (section 7.5)
  std::uint32_t rd_rows_q_ = 0;                   // reader rows per plane: n_rows, or 1 when packed
  std::uint32_t data_words_q_ = 0, row_words_q_ = 0;  // per reader row: words with data, words in SRAM
  bool active_q_ = false, active_d_ = false;
  Reader rd_q_{}, rd_d_{};
  bool inflight_q_ = false, inflight_d_ = false;  // a read issued last cycle
  Writer wr_q_{}, wr_d_{};
  Fifo<Word, kStoreWordFifoDepth> words_q_;
  int elem_q_ = 0, elem_d_ = 0;  // writer: next element of the head word

  bool start_req_ = false;
  DmaDesc start_desc_{};
  StreamShape start_shape_{};
  int start_dst_elems_ = 0;

  bool req_valid_ = false;
  MemReq req_{};
  int dst_word_ = 0;                       // to_ifmap: the chunk's ifmap word address
  word_elem_t dst_data_[kMaxWordElems]{};  // and its elements at their word positions (0 elsewhere)
  std::uint64_t dst_mask_ = 0;
  int req_elems_ = 0;
  bool req_row_end_ = false;  // the chunk ends its DRAM row
  bool done_ = false, fired_ = false, read_ = false;

  std::uint64_t dram_bytes_ = 0, dram_requests_ = 0, sram_words_ = 0, ifmap_writes_ = 0;
};

}  // namespace flycol::hw
