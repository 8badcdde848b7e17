// The Verilated RTL of the whole accelerator behind a small interface: pins in, a combinational
// settle, pins out, a clock edge. One Verilated model is built in per configuration of
// FLYCOL_RTL_CONFIGS; make_rtl_top() picks the one whose configuration equals the requested one, or
// Verilates the requested one on first use into a cache (rtl_on_demand.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "hw/common/command.h"
#include "hw/common/mem_port.h"
#include "sim/config/config.h"

namespace flycol {

struct RtlTopOptions {
  bool trace = false;           // record a VCD of every signal (slower; for debugging)
  std::string trace_path;       // where, when trace is set
  bool randomize_x = false;     // --x-initial unique: random initial values of unreset state
  std::uint32_t x_seed = 1;
  // Power proxy (sim/power): the VCD of every signal goes to this function instead of a file,
  // one sample per cycle (after eval(), before the clock edge). Not together with `trace`.
  std::function<void(const char* data, std::size_t size)> vcd_sink;
};

class RtlTop {
public:
  virtual ~RtlTop() = default;
  virtual const std::string& tag() const = 0;

  // Pins of this cycle (held until changed).
  virtual void set_reset(bool active) = 0;
  virtual void set_cmd(bool valid, const hw::Command& cmd) = 0;
  virtual void set_mem(bool req_ready, bool rsp_valid, const hw::MemRsp& rsp) = 0;
  // Settles the combinational logic with the clock low (outputs of this cycle).
  virtual void eval() = 0;
  // The rising clock edge (registers update), then the clock low again.
  virtual void clock() = 0;

  virtual bool cmd_ready() const = 0;
  virtual bool mem_req_valid() const = 0;
  virtual hw::MemReq mem_req() const = 0;
  virtual bool idle() const = 0;
  virtual std::uint32_t done_count(int engine) const = 0;
  virtual bool run_active() const = 0;
  virtual int cycle_kind() const = 0;
  virtual int gated() const = 0;

  // Flushes and closes the trace, if any.
  virtual void finish() = 0;
};

// The built-in model matching `config`, else the cached on-demand one (built on first use; throws
// std::runtime_error when that build cannot run or fails). In builds without RTL
// (FLYCOL_BUILD_RTL=OFF) throws InputError (key: the configuration source).
std::unique_ptr<RtlTop> make_rtl_top(const Config& config, const RtlTopOptions& opt = {});
// The configuration tags the RTL was Verilated for in this build.
std::vector<std::string> built_rtl_configs();

}  // namespace flycol
