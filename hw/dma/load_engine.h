// The LD engine (docs/microarchitecture.md 7.4): executes LOAD_IFMAP into an ifmap buffer and
// LOAD_WEIGHTS into a weight buffer, one command at a time, through the shared load path.
#pragma once

#include <cstdint>

#include "hw/common/command.h"
#include "hw/common/hw_params.h"
#include "hw/common/mem_port.h"
#include "hw/common/sram_bank.h"
#include "hw/dma/stream_loader.h"

namespace flycol::hw {

class LoadEngine {
public:
  explicit LoadEngine(const HwParams& p);

  void reset();
  // Latched at tick(); first work in the next cycle. Only LOAD_IFMAP / LOAD_WEIGHTS, only while
  // idle (protocol error otherwise).
  void start(const Command& c);
  bool busy() const { return loader_.busy(); }
  bool done() const { return loader_.done(); }  // after eval(): the command completes this cycle
  bool req_valid() const { return loader_.req_valid(); }  // Moore
  const MemReq& req() const { return loader_.req(); }     // Moore
  // After eval(): the packer writes an ifmap buffer in this cycle (a function of registers); a
  // STORE_PSUMS into the ifmap buffer waits for such a cycle to pass (section 7.6).
  bool writes_ifmap() const { return !weights_q_ && loader_.writes(); }

  // rsp: the read response routed to this engine this cycle, or nullptr.
  void eval(bool req_fired, const MemRsp* rsp, SramBank* const ifmap_banks[2], SramBank* const weight_banks[2]);
  void tick();

  std::uint64_t dram_bytes_read() const { return loader_.dram_bytes_read(); }
  std::uint64_t dram_requests() const { return loader_.dram_requests(); }
  std::uint64_t chunks() const { return loader_.chunks(); }
  std::uint64_t sram_words_written() const { return loader_.sram_words_written(); }
  std::uint64_t busy_cycles() const { return busy_cycles_; }
  std::uint64_t commands() const { return commands_; }

private:
  HwParams p_;
  StreamLoader loader_;
  bool weights_q_ = false, weights_start_ = false;  // destination: weight (else ifmap) buffers
  int buf_q_ = 0, buf_start_ = 0;
  bool start_req_ = false;
  std::uint64_t busy_cycles_ = 0, commands_ = 0;
};

}  // namespace flycol::hw
