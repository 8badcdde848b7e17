// The PS engine (docs/microarchitecture.md 7.4, 7.5, 7.6): LOAD_PSUMS through the shared load path
// with accumulator-wide elements, and STORE_PSUMS through the store path, one command at a time,
// both on the psum buffers; a STORE_PSUMS with dst_ifmap writes an ifmap buffer instead of DRAM,
// on the DMA's ifmap SRAM port whenever the LD engine does not write it.
#pragma once

#include <cstdint>

#include "hw/common/command.h"
#include "hw/common/hw_params.h"
#include "hw/common/mem_port.h"
#include "hw/common/sram_bank.h"
#include "hw/dma/store_stream.h"
#include "hw/dma/stream_loader.h"

namespace flycol::hw {

class PsumEngine {
public:
  explicit PsumEngine(const HwParams& p);

  void reset();
  // Latched at tick(); first work in the next cycle. Only LOAD_PSUMS / STORE_PSUMS, only while
  // idle (protocol error otherwise); dst_ifmap only on a STORE_PSUMS of a configuration whose
  // accumulator is as wide as its element, and dst_buf only with it.
  void start(const Command& c);
  bool busy() const { return loader_.busy() || store_.busy(); }
  bool done() const { return loader_.done() || store_.done(); }  // after eval()
  // Moore: the request to the memory arbiter (never one of a store into the ifmap buffer).
  bool req_valid() const { return loader_.req_valid() || (store_.req_valid() && !store_.to_ifmap()); }
  const MemReq& req() const { return store_.to_ifmap() ? no_req_ : store_.busy() ? store_.req() : loader_.req(); }
  // Moore: a store into ifmap buffer ifmap_buf() has a chunk; it is written in a cycle in which the
  // LD engine does not write the ifmap SRAM (section 7.6).
  bool ifmap_req_valid() const { return store_.req_valid() && store_.to_ifmap(); }
  int ifmap_buf() const { return dst_buf_q_; }

  // rsp: the read response routed to this engine this cycle, or nullptr. ifmap_banks: the
  // destinations of a dst_ifmap store; ld_writes_ifmap: the LD engine writes the ifmap SRAM in this
  // cycle (LoadEngine::writes_ifmap() after its eval()), so the store's ifmap chunk waits.
  void eval(bool req_fired, const MemRsp* rsp, SramBank* const psum_banks[2], SramBank* const ifmap_banks[2],
            bool ld_writes_ifmap);
  void tick();

  std::uint64_t dram_bytes_read() const { return loader_.dram_bytes_read(); }
  std::uint64_t dram_bytes_written() const { return store_.dram_bytes_written(); }
  std::uint64_t dram_requests() const { return loader_.dram_requests() + store_.dram_requests(); }
  std::uint64_t chunks() const { return loader_.chunks(); }
  std::uint64_t sram_words_written() const { return loader_.sram_words_written(); }
  std::uint64_t sram_words_read() const { return store_.sram_words_read(); }
  std::uint64_t ifmap_writes() const { return store_.ifmap_writes(); }  // dst_ifmap chunks written
  std::uint64_t busy_cycles() const { return busy_cycles_; }
  std::uint64_t commands() const { return commands_; }

private:
  HwParams p_;
  StreamLoader loader_;
  StoreStream store_;
  int buf_q_ = 0, buf_start_ = 0;
  int dst_buf_q_ = 0, dst_buf_start_ = 0;
  bool start_req_ = false;
  MemReq no_req_{};
  std::uint64_t busy_cycles_ = 0, commands_ = 0;
};

}  // namespace flycol::hw
