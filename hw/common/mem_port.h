// The accelerator's memory port (docs/microarchitecture.md, section 7.1): one request of up to a
// BEAT of bytes that never crosses a BEAT boundary, data on the byte lanes of its address; read
// responses in request order, which the accelerator cannot refuse.
#pragma once

#include <cstdint>

#include "hw/common/hw_params.h"

namespace flycol::hw {

struct MemReq {
  bool write = false;
  std::uint64_t addr = 0;  // byte address
  int bytes = 0;           // 1 .. kBeatBytes, addr % kBeatBytes + bytes <= kBeatBytes
  std::uint8_t wdata[kBeatBytes]{};  // indexed by byte lane (addr % kBeatBytes + i)
};

struct MemRsp {
  std::uint8_t rdata[kBeatBytes]{};  // indexed by byte lane
};

}  // namespace flycol::hw
