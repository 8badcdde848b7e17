// What one DMA command asks of the memory system in the analytic model (docs/microarchitecture.md
// sections 7.3-7.5, sim/analytic/README.md): bytes, memory-port requests, chunks and SRAM words,
// counted exactly from the descriptor with the chunk rules, and the command's own rate limit.
#pragma once

#include <cstdint>
#include <functional>

#include "hw/common/command.h"
#include "hw/common/hw_params.h"
#include "sim/dram/dram_model.h"

namespace flycol::analytic {

enum class Tensor : std::uint8_t { ifmap, weights, psums_in, ofmap };

struct DmaWork {
  bool write = false;          // STORE_PSUMS
  // A STORE_PSUMS into the ifmap buffer (section 7.6): no DRAM byte and no memory request (bytes
  // and requests 0); ifmap_writes counts its chunks, each an ifmap SRAM write.
  bool to_ifmap = false;
  std::uint64_t ifmap_writes = 0;
  Tensor tensor = Tensor::ifmap;
  std::uint64_t bytes = 0;     // DRAM bytes requested: real data only, or whole beats for a gather
  std::uint64_t requests = 0;  // memory-port requests: DRAM chunks of a load, write chunks of a store
  std::uint64_t chunks = 0;    // loads: every chunk the generator emits (DRAM and zero chunks)
  std::uint64_t sram_words = 0;  // SRAM words written (loads) or read (stores)
  // Cycles from the command's start to its completion when it has the memory to itself
  // (alone_cycles()), 0 until computed.
  std::uint64_t alone = 0;
  // How the engine issues its requests by itself (replay() with a channel of unlimited bandwidth,
  // the DRAM latency kept): the first request `lead` cycles after the start, the last one
  // `issue - 1` cycles after the first. Set with `alone`.
  std::uint64_t lead = 0, issue = 0;
  // Of its requests, those that fire in the cycle after the previous one (same replay): each of
  // them finds the arbiter's turn with the other engine when that one requests too.
  std::uint64_t back_to_back = 0;
  // The analytic model's tail after the command's last request (sim/analytic/analytic_model.cpp,
  // Flow::tail), calibrated once per shape. Set with `alone`.
  double tail = 0;
};

// Throws std::logic_error for a RUN command.
DmaWork dma_work(const hw::Command& c, const hw::HwParams& p);
// The bytes a chunk of a store into the ifmap buffer may not cross: min(BEAT, one ifmap word).
std::uint64_t ifmap_block_bytes(const hw::HwParams& p);

// A command run alone (idle memory channel, no other requester), in cycles from its start: when
// it completes, and when its first and last memory requests fire.
struct DmaReplay {
  std::uint64_t done = 1;  // an empty stream completes in its first cycle
  std::uint64_t first = 0, last = 0;  // 0 when it requests nothing
  std::uint64_t requests = 0;
  std::uint64_t back_to_back = 0;  // requests that fire in the cycle after the previous one
};

// A transaction-level replay of the chunk generator, chunk queue, packer (or the store's reader
// and writer) against the DRAM timing rules of sim/dram/README.md.
DmaReplay replay(const hw::Command& c, const hw::HwParams& p, const DramTiming& t);

// The command's duration (start cycle to completing cycle) alone: replay(...).done.
std::uint64_t alone_cycles(const hw::Command& c, const hw::HwParams& p, const DramTiming& t);

// The duration of a move (a STORE_PSUMS into the ifmap buffer, section 7.6) whose chunks cannot
// fire in the cycles t (from its start, as in DmaReplay) where port_taken(t): the LD engine
// writes the ifmap SRAM then. std::logic_error for any other command.
std::uint64_t move_cycles(const hw::Command& c, const hw::HwParams& p, const std::function<bool(std::uint64_t)>& port_taken);

}  // namespace flycol::analytic
