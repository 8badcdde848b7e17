// The PS engine (docs/microarchitecture.md 7.4, 7.5): LOAD_PSUMS through the shared load path
// with accumulator-wide elements, and STORE_PSUMS through the store path, one command at a time,
// both on the psum buffers.
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
  // idle (protocol error otherwise).
  void start(const Command& c);
  bool busy() const { return loader_.busy() || store_.busy(); }
  bool done() const { return loader_.done() || store_.done(); }  // after eval()
  bool req_valid() const { return loader_.req_valid() || store_.req_valid(); }  // Moore
  const MemReq& req() const { return store_.busy() ? store_.req() : loader_.req(); }

  // rsp: the read response routed to this engine this cycle, or nullptr.
  void eval(bool req_fired, const MemRsp* rsp, SramBank* const psum_banks[2]);
  void tick();

  std::uint64_t dram_bytes_read() const { return loader_.dram_bytes_read(); }
  std::uint64_t dram_bytes_written() const { return store_.dram_bytes_written(); }
  std::uint64_t dram_requests() const { return loader_.dram_requests() + store_.dram_requests(); }
  std::uint64_t chunks() const { return loader_.chunks(); }
  std::uint64_t sram_words_written() const { return loader_.sram_words_written(); }
  std::uint64_t sram_words_read() const { return store_.sram_words_read(); }
  std::uint64_t busy_cycles() const { return busy_cycles_; }
  std::uint64_t commands() const { return commands_; }

private:
  HwParams p_;
  StreamLoader loader_;
  StoreStream store_;
  int buf_q_ = 0, buf_start_ = 0;
  bool start_req_ = false;
  std::uint64_t busy_cycles_ = 0, commands_ = 0;
};

}  // namespace flycol::hw
