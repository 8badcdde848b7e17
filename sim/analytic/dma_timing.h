// What one DMA command asks of the memory system in the analytic model (docs/microarchitecture.md
// sections 7.3-7.5, sim/analytic/README.md): bytes, memory-port requests, chunks and SRAM words,
// counted exactly from the descriptor with the chunk rules, and the command's own rate limit.
#pragma once

#include <cstdint>

#include "hw/common/command.h"
#include "hw/common/hw_params.h"
#include "sim/dram/dram_model.h"

namespace flycol::analytic {

enum class Tensor : std::uint8_t { ifmap, weights, psums_in, ofmap };

struct DmaWork {
  bool write = false;          // STORE_PSUMS
  Tensor tensor = Tensor::ifmap;
  std::uint64_t bytes = 0;     // DRAM bytes requested: real data only, or whole beats for a gather
  std::uint64_t requests = 0;  // memory-port requests: DRAM chunks of a load, write chunks of a store
  std::uint64_t chunks = 0;    // loads: every chunk the generator emits (DRAM and zero chunks)
  std::uint64_t sram_words = 0;  // SRAM words written (loads) or read (stores)
  // Cycles from the command's start to its completion when it has the memory to itself
  // (alone_cycles()), 0 until computed.
  std::uint64_t alone = 0;
};

// Throws std::logic_error for a RUN command.
DmaWork dma_work(const hw::Command& c, const hw::HwParams& p);

// The command's duration (start cycle to completing cycle) with an idle memory channel and no
// other requester: a transaction-level replay of the chunk generator, chunk queue, packer (or the
// store's reader and writer) against the DRAM timing rules of sim/dram/README.md.
std::uint64_t alone_cycles(const hw::Command& c, const hw::HwParams& p, const DramTiming& t);

}  // namespace flycol::analytic
