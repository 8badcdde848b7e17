// RtlTop over one Verilated flycol_top class. Included by the per-configuration translation units
// that CMake generates (rtl_top_<tag>.cpp), so that each Verilated model is compiled once.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include <verilated.h>
#include <verilated_vcd_c.h>

#include "sim/rtlgen/rtl_types.h"
#include "sim/rtlsim/rtl_top.h"
#include "sim/rtlsim/verilator_coverage.h"

namespace flycol {

// A VCD "file" that hands the text to a function (RtlTopOptions::vcd_sink).
class VcdSinkFile final : public VerilatedVcdFile {
public:
  explicit VcdSinkFile(std::function<void(const char*, std::size_t)> sink) : sink_(std::move(sink)) {}
  bool open(const std::string&) override { return true; }
  void close() override {}
  ssize_t write(const char* bufp, ssize_t len) override {
    if (len > 0) sink_(bufp, std::size_t(len));
    return len;
  }

private:
  std::function<void(const char*, std::size_t)> sink_;
};

template <class V>
class RtlTopImpl final : public RtlTop {
public:
  RtlTopImpl(std::string tag, const RtlTopOptions& opt) : tag_(std::move(tag)) {
    ctx_ = std::make_unique<VerilatedContext>();
    // Unreset state starts as random bits (--x-initial unique) or zeros; reset must make both
    // behave the same, which the co-simulation tests check.
    ctx_->randReset(opt.randomize_x ? 2 : 0);
    if (opt.randomize_x) ctx_->randSeed(int(opt.x_seed));
    if (opt.trace || opt.vcd_sink) ctx_->traceEverOn(true);
    top_ = std::make_unique<V>(ctx_.get(), "flycol_top");
    if (opt.vcd_sink) {
      sink_ = std::make_unique<VcdSinkFile>(opt.vcd_sink);
      vcd_ = std::make_unique<VerilatedVcdC>(sink_.get());
      top_->trace(vcd_.get(), 99);
      vcd_->open("(power sink)");
      per_cycle_ = true;
    } else if (opt.trace) {
      vcd_ = std::make_unique<VerilatedVcdC>();
      top_->trace(vcd_.get(), 99);
      vcd_->open(opt.trace_path.c_str());
    }
    top_->clk_i = 0;
    top_->rst_ni = 0;
    top_->eval();
    dump();
  }
  ~RtlTopImpl() override {
    // A Verilated model's scopes unregister from the thread's current context, which is the one
    // created last: make it this model's, or destroying one of two live models deadlocks.
    Verilated::threadContextp(ctx_.get());
    finish();
  }

  const std::string& tag() const override { return tag_; }
  void set_reset(bool active) override { top_->rst_ni = active ? 0 : 1; }
  void set_cmd(bool valid, const hw::Command& cmd) override {
    top_->cmd_valid_i = valid;
    const std::vector<std::uint32_t> w = rtl::pack_command(cmd);
    for (std::size_t i = 0; i < w.size(); ++i) top_->cmd_i[i] = w[i];
  }
  void set_mem(bool req_ready, bool rsp_valid, const hw::MemRsp& rsp) override {
    top_->mem_req_ready_i = req_ready;
    top_->mem_rsp_valid_i = rsp_valid;
    for (int i = 0; i < hw::kBeatBytes / 4; ++i)
      top_->mem_rsp_rdata_i[i] = std::uint32_t(rsp.rdata[4 * i]) | std::uint32_t(rsp.rdata[4 * i + 1]) << 8 |
                                 std::uint32_t(rsp.rdata[4 * i + 2]) << 16 | std::uint32_t(rsp.rdata[4 * i + 3]) << 24;
  }
  void eval() override {
    top_->eval();
    dump();
  }
  // The falling edge needs no evaluation of its own (no logic acts on it): the clock goes low
  // here and the next cycle's eval() settles it together with that cycle's inputs. Two model
  // evaluations per cycle instead of three.
  void clock() override {
    top_->clk_i = 1;
    top_->eval();
    if (!per_cycle_) dump();
    top_->clk_i = 0;
  }

  bool cmd_ready() const override { return top_->cmd_ready_o; }
  bool mem_req_valid() const override { return top_->mem_req_valid_o; }
  hw::MemReq mem_req() const override {
    hw::MemReq r;
    r.write = top_->mem_req_write_o;
    r.addr = top_->mem_req_addr_o;
    r.bytes = int(top_->mem_req_bytes_o);
    for (int i = 0; i < hw::kBeatBytes; ++i) r.wdata[i] = std::uint8_t(top_->mem_req_wdata_o[i / 4] >> (8 * (i % 4)));
    return r;
  }
  bool idle() const override { return top_->idle_o; }
  std::uint32_t done_count(int engine) const override { return top_->done_count_o[engine]; }
  bool run_active() const override { return top_->run_active_o; }
  int cycle_kind() const override { return int(top_->cycle_kind_o); }
  int gated() const override { return int(top_->gated_cnt_o); }

  void finish() override {
    if (vcd_) {
      vcd_->close();
      vcd_.reset();
    }
    if (top_) {
      top_->final();
      write_verilator_coverage(*ctx_, "top");
    }
  }

private:
  void dump() {
    if (vcd_) vcd_->dump(time_++);
  }

  std::string tag_;
  std::unique_ptr<VerilatedContext> ctx_;
  std::unique_ptr<V> top_;
  std::unique_ptr<VcdSinkFile> sink_;  // outlives vcd_, which writes into it until closed
  std::unique_ptr<VerilatedVcdC> vcd_;
  bool per_cycle_ = false;             // one sample per cycle (power proxy)
  std::uint64_t time_ = 0;
};

}  // namespace flycol
