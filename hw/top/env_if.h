// The accelerator's environment as SystemC interfaces: the host's command queue and the memory
// behind the memory port. The top's clocked process calls them in a fixed order each cycle
// (memory outputs, evaluation, acceptance, clock edge), which is what keeps the SystemC model,
// the Verilated RTL and the analytical model in step with one shared DRAM model.
#pragma once

#include <cstdint>

#include <systemc>

#include "hw/common/command.h"
#include "hw/common/mem_port.h"

namespace flycol::hw {

class CommandSourceIf : public virtual sc_core::sc_interface {
public:
  virtual bool cmd_valid() const = 0;
  virtual const Command& cmd() const = 0;
  virtual void cmd_accepted() = 0;
};

class MemoryIf : public virtual sc_core::sc_interface {
public:
  virtual void begin_cycle(std::uint64_t cycle) = 0;  // compute this cycle's Moore outputs
  virtual bool req_ready() const = 0;
  virtual bool rsp_valid() const = 0;
  virtual const MemRsp& rsp() const = 0;
  virtual void end_cycle(const MemReq* fired) = 0;     // the request accepted this cycle, if any
};

}  // namespace flycol::hw
