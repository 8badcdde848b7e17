// Accelerator SC_MODULE: per-cycle protocol with the environment.
#include "hw/top/accelerator.h"

namespace flycol::hw {

Accelerator::Accelerator(sc_core::sc_module_name name, const HwParams& p)
    : sc_core::sc_module(name), core_(p) {
  SC_HAS_PROCESS(Accelerator);
  SC_METHOD(step);
  sensitive << clk_i.pos();
  dont_initialize();
}

void Accelerator::trace(sc_core::sc_trace_file* tf) {
  tracing_ = true;
  sc_core::sc_trace(tf, clk_i, "clk_i");
  sc_core::sc_trace(tf, rst_ni, "rst_ni");
  sc_core::sc_trace(tf, idle_o, "idle_o");
  sc_core::sc_trace(tf, cycle_s_, "cycle");
  sc_core::sc_trace(tf, cmd_valid_s_, "cmd_valid");
  sc_core::sc_trace(tf, cmd_ready_s_, "cmd_ready");
  sc_core::sc_trace(tf, cmd_op_s_, "cmd_op");
  sc_core::sc_trace(tf, mem_req_valid_s_, "mem_req_valid");
  sc_core::sc_trace(tf, mem_req_ready_s_, "mem_req_ready");
  sc_core::sc_trace(tf, mem_req_write_s_, "mem_req_write");
  sc_core::sc_trace(tf, mem_req_addr_s_, "mem_req_addr");
  sc_core::sc_trace(tf, mem_req_bytes_s_, "mem_req_bytes");
  sc_core::sc_trace(tf, mem_rsp_valid_s_, "mem_rsp_valid");
  sc_core::sc_trace(tf, run_active_s_, "run_active");
  sc_core::sc_trace(tf, tok_valid_s_, "token_valid");
  sc_core::sc_trace(tf, tok_swap_s_, "token_swap");
  sc_core::sc_trace(tf, tok_window_s_, "token_window");
  sc_core::sc_trace(tf, cycle_kind_s_, "cycle_kind");
}

void Accelerator::step() {
  if (!rst_ni.read()) {
    core_.reset();
    cycle_ = 0;
    idle_o.write(true);
    return;
  }
  MemoryIf& mem = *mem_port[0];
  CommandSourceIf& src = *cmd_port[0];
  mem.begin_cycle(cycle_);
  AcceleratorCore::In in;
  in.cmd_valid = src.cmd_valid();
  if (in.cmd_valid) in.cmd = src.cmd();
  in.mem_req_ready = mem.req_ready();
  in.mem_rsp_valid = mem.rsp_valid();
  if (in.mem_rsp_valid) in.mem_rsp = mem.rsp();
  const AcceleratorCore::Out& out = core_.eval(in);
  const bool fired = out.mem_req_valid && in.mem_req_ready;
  if (in.cmd_valid && out.cmd_ready) src.cmd_accepted();
  mem.end_cycle(fired ? &out.mem_req : nullptr);
  if (tracing_) {
    cycle_s_.write(cycle_);
    cmd_valid_s_.write(in.cmd_valid);
    cmd_ready_s_.write(out.cmd_ready);
    cmd_op_s_.write(in.cmd_valid ? int(in.cmd.op) : -1);
    mem_req_valid_s_.write(out.mem_req_valid);
    mem_req_ready_s_.write(in.mem_req_ready);
    mem_req_write_s_.write(out.mem_req.write);
    mem_req_addr_s_.write(out.mem_req.addr);
    mem_req_bytes_s_.write(out.mem_req.bytes);
    mem_rsp_valid_s_.write(in.mem_rsp_valid);
    run_active_s_.write(core_.ex_busy());
    tok_valid_s_.write(core_.last_token().valid);
    tok_swap_s_.write(core_.last_token().swap);
    tok_window_s_.write(core_.last_token().window);
    cycle_kind_s_.write(int(core_.last_cycle_kind()));
  }
  core_.tick();
  idle_o.write(core_.idle());
  ++cycle_;
}

}  // namespace flycol::hw
