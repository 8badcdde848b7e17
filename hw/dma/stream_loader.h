// The DMA load path shared by the LD engine (LOAD_IFMAP, LOAD_WEIGHTS) and the PS engine
// (LOAD_PSUMS), docs/microarchitecture.md 7.3/7.4: chunk generator, chunk queue, response FIFO and
// packer, with element width and SRAM word chosen per command, so both engines agree by construction.
#pragma once

#include <cstdint>

#include "hw/common/command.h"
#include "hw/common/fifo.h"
#include "hw/common/mem_port.h"
#include "hw/common/sram_bank.h"

namespace flycol::hw {

// What one load writes: the SRAM geometry of the destination and the DRAM element width.
struct StreamShape {
  int elem_bytes = 2;      // DRAM bytes per element (1, 2 or 4)
  int elems_per_word = 16; // SRAM word in elements
  int depth_words = 1024;  // buffer depth, for the fits-check at start
  int max_elem_step = 1;   // largest DmaDesc::elem_step the destination accepts (1: no gather)
};

// The start checks both streams make (protocol errors of `block`): a supported element width, an
// SRAM word in range, a DRAM address and strides aligned to the element, and an element step the
// destination accepts.
void check_stream_start(const char* block, const DmaDesc& d, const StreamShape& shape);

class StreamLoader {
public:
  explicit StreamLoader(const char* name);

  void reset();
  // Latched at tick(): the stream of `d` (section 7.3) into a buffer of `shape`; the first chunk
  // can be emitted in the next cycle. Protocol error if busy or the descriptor is malformed.
  void start(const DmaDesc& d, const StreamShape& shape);

  bool busy() const { return active_q_; }
  bool done() const { return done_; }  // after eval(): the last chunk was consumed this cycle
  // After eval(): the packer writes an SRAM word in this cycle (a function of registers).
  bool writes() const { return wrote_; }
  // Moore request of the chunk generator (a DRAM chunk with room in the chunk queue).
  bool req_valid() const { return req_valid_; }
  const MemReq& req() const { return req_; }

  // One cycle: `req_fired` says the memory took req(); `rsp` is a read response for this loader
  // (nullptr if none); `bank` is the destination buffer (it receives at most one write).
  void eval(bool req_fired, const MemRsp* rsp, SramBank* bank);
  void tick();

  std::uint64_t dram_bytes_read() const { return dram_bytes_; }
  std::uint64_t dram_requests() const { return dram_requests_; }
  std::uint64_t chunks() const { return chunks_; }
  std::uint64_t sram_words_written() const { return sram_words_; }

private:
  struct Chunk {
    bool zero = true;
    std::uint8_t count = 0;  // elements
    std::uint8_t lane = 0;   // byte lane of the first element in the response beat
  };
  struct Walk {  // chunk generator registers
    bool more = false;          // chunks left to emit
    bool zero = false;          // current segment is a zero run
    bool final_run = false;     // the current zero run is the last segment
    std::uint32_t rem = 0;      // elements left in the current segment
    std::uint32_t plane = 0, row = 0;  // the DRAM row the walk is in or heads for
    std::uint64_t plane_addr = 0, row_addr = 0, addr = 0;  // byte addresses
    int word_off = 0;           // stream position within the SRAM word
  };
  std::uint32_t chunk_count(const Walk& w) const;
  void update_outputs();

  const char* name_;
  // Command registers (latched at start).
  DmaDesc desc_q_{};
  StreamShape shape_q_{};
  std::uint32_t z_row_q_ = 0, z_plane_q_ = 0, z_last_q_ = 0;  // zero runs between data rows
  bool active_q_ = false;
  // Chunk generator.
  Walk walk_q_{}, walk_d_{};
  Fifo<Chunk, kChunkQueueDepth> chunks_q_;
  Fifo<MemRsp, kChunkQueueDepth> rsps_q_;
  // Packer.
  word_elem_t word_q_[kMaxWordElems]{}, word_d_[kMaxWordElems]{};
  int pack_off_q_ = 0, pack_off_d_ = 0;
  int pack_word_q_ = 0, pack_word_d_ = 0;
  std::uint32_t pack_left_q_ = 0, pack_left_d_ = 0;  // elements still to be packed
  bool active_d_ = false;
  // Pending start (applied at tick).
  bool start_req_ = false;
  DmaDesc start_desc_{};
  StreamShape start_shape_{};

  // Outputs.
  bool req_valid_ = false;
  MemReq req_{};
  bool done_ = false;
  bool fired_ = false, wrote_ = false, emitted_ = false;

  std::uint64_t dram_bytes_ = 0, dram_requests_ = 0, chunks_ = 0, sram_words_ = 0;
};

}  // namespace flycol::hw
