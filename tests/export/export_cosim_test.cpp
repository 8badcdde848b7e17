// Co-simulation smoke test of an exported package: the Verilog-2005 netlist that `flycol export`
// wrote (Yosys output, Verilated at build time as FLYCOL_EXPORTED_VTOP) in lockstep with the
// Verilated SystemVerilog sources (the model --model rtl uses), each against its own DRAM model
// with the same timing. Every output pin is compared in every cycle, from reset on; at the end the
// cycle counts and the whole DRAM contents must be equal and the outputs must match the golden
// convolution. Exit 1 on any difference.
//
//   export_cosim_test [--layers N] [--seed S] [--max-macs M] [--vcd PREFIX]
// --vcd writes PREFIX<layer>_sources.vcd and PREFIX<layer>_netlist.vcd of every layer.
#include <cstdint>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>

#include FLYCOL_EXPORTED_HEADER
#include "sim/common/input_error.h"
#include "sim/golden/conv.h"
#include "sim/rtlsim/rtl_top_impl.h"
#include "sim/workload/workload.h"
#include "tb/top/layer_cases.h"

using namespace flycol;

namespace {

// Every output pin of flycol_top in one cycle.
struct Pins {
  bool cmd_ready = false, mem_req_valid = false, idle = false, run_active = false;
  hw::MemReq req;
  std::uint32_t done[3] = {0, 0, 0};
  int kind = 0, gated = 0;

  static Pins of(const RtlTop& t) {
    Pins p;
    p.cmd_ready = t.cmd_ready();
    p.mem_req_valid = t.mem_req_valid();
    p.idle = t.idle();
    p.run_active = t.run_active();
    p.req = t.mem_req();  // every bit of the request pins, valid or not
    for (int e = 0; e < 3; ++e) p.done[e] = t.done_count(e);
    p.kind = t.cycle_kind();
    p.gated = t.gated();
    return p;
  }
};

// The first pin that differs, as "name: a / b"; empty if none.
std::string difference(const Pins& a, const Pins& b) {
  auto d = [](const char* n, auto x, auto y) { return fmt::format("{}: {} / {}", n, x, y); };
  if (a.cmd_ready != b.cmd_ready) return d("cmd_ready_o", a.cmd_ready, b.cmd_ready);
  if (a.mem_req_valid != b.mem_req_valid) return d("mem_req_valid_o", a.mem_req_valid, b.mem_req_valid);
  if (a.idle != b.idle) return d("idle_o", a.idle, b.idle);
  if (a.run_active != b.run_active) return d("run_active_o", a.run_active, b.run_active);
  if (a.req.write != b.req.write) return d("mem_req_write_o", a.req.write, b.req.write);
  if (a.req.addr != b.req.addr) return d("mem_req_addr_o", a.req.addr, b.req.addr);
  if (a.req.bytes != b.req.bytes) return d("mem_req_bytes_o", a.req.bytes, b.req.bytes);
  if (std::memcmp(a.req.wdata, b.req.wdata, sizeof a.req.wdata) != 0) return "mem_req_wdata_o";
  for (int e = 0; e < 3; ++e)
    if (a.done[e] != b.done[e]) return d(fmt::format("done_count_o[{}]", e).c_str(), a.done[e], b.done[e]);
  if (a.kind != b.kind) return d("cycle_kind_o", a.kind, b.kind);
  if (a.gated != b.gated) return d("gated_cnt_o", a.gated, b.gated);
  return "";
}

struct Side {
  std::unique_ptr<RtlTop> top;
  std::unique_ptr<DramModel> dram;
  std::size_t next_cmd = 0;
  bool done = false;
  std::uint64_t end_cycle = 0;
};

std::unique_ptr<DramModel> make_dram(const std::vector<std::uint8_t>& image, const DramTiming& timing) {
  auto d = std::make_unique<DramModel>(timing, image.size());
  d->write_bytes(0, image.data(), image.size());
  return d;
}

// Runs one program on both models; returns what differs (empty: nothing).
std::string lockstep(const Program& prog, const ConvOperands& ops, const DramTiming& timing, const std::string& vcd,
                     std::uint64_t& cycles) {
  const std::vector<std::uint8_t> image = build_dram_image(prog, ops);
  const auto& cmds = prog.commands;
  Side src, exp;
  RtlTopOptions src_opt, exp_opt;
  if (!vcd.empty()) {
    src_opt.trace = exp_opt.trace = true;
    src_opt.trace_path = vcd + "_sources.vcd";
    exp_opt.trace_path = vcd + "_netlist.vcd";
  }
  src.top = make_rtl_top(prog.config, src_opt);  // the Verilated SystemVerilog of this build
  exp.top = std::make_unique<RtlTopImpl<FLYCOL_EXPORTED_VTOP>>("exported", exp_opt);
  for (Side* s : {&src, &exp}) s->dram = make_dram(image, timing);

  for (Side* s : {&src, &exp}) s->top->set_reset(true);
  for (int i = 0; i < 3; ++i) {
    for (Side* s : {&src, &exp}) s->top->eval();
    const std::string diff = difference(Pins::of(*src.top), Pins::of(*exp.top));
    if (!diff.empty()) return fmt::format("in reset cycle {}: {} (sources / netlist)", i, diff);
    for (Side* s : {&src, &exp}) s->top->clock();
  }
  for (Side* s : {&src, &exp}) s->top->set_reset(false);

  const hw::Command no_cmd{};
  const std::uint64_t limit = 5'000'000;
  for (std::uint64_t cycle = 0; !(src.done && exp.done); ++cycle) {
    if (cycle == limit) return fmt::format("no end after {} cycles", limit);
    Pins pins[2];
    int k = 0;
    for (Side* s : {&src, &exp}) {
      Pins& p = pins[k++];
      if (s->done) continue;
      if (s->next_cmd == cmds.size() && s->top->idle()) {
        s->done = true;
        s->end_cycle = cycle;
        continue;
      }
      DramModel& d = *s->dram;
      d.begin_cycle(cycle);
      const bool valid = s->next_cmd < cmds.size();
      s->top->set_cmd(valid, valid ? cmds[s->next_cmd] : no_cmd);
      s->top->set_mem(d.req_ready(), d.rsp_valid(), d.rsp_valid() ? d.rsp() : hw::MemRsp{});
      s->top->eval();
      p = Pins::of(*s->top);
      if (valid && p.cmd_ready) ++s->next_cmd;
      d.end_cycle(p.mem_req_valid && d.req_ready() ? &p.req : nullptr);
      s->top->clock();
    }
    if (src.done != exp.done)
      return fmt::format("cycle {}: the {} finished first", cycle, src.done ? "sources" : "netlist");
    if (!src.done) {
      const std::string diff = difference(pins[0], pins[1]);
      if (!diff.empty()) return fmt::format("cycle {}: {} (sources / netlist)", cycle, diff);
    }
  }
  src.top->finish();
  exp.top->finish();
  cycles = src.end_cycle;
  if (src.end_cycle != exp.end_cycle) return fmt::format("cycles {} / {}", src.end_cycle, exp.end_cycle);
  if (std::memcmp(src.dram->bytes(), exp.dram->bytes(), image.size()) != 0) return "the DRAM contents differ";
  golden::ConvOptions g;
  g.zero_gating = prog.config.zero_gating;
  if (extract_outputs(prog, exp.dram->bytes()) != golden::conv(ops, g)) return "the outputs differ from golden";
  return "";
}

}  // namespace

int main(int argc, char** argv) {
  int layers = 30;
  std::uint64_t seed = 1;
  std::int64_t max_macs = 100'000;
  std::string vcd;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const std::string v = i + 1 < argc ? argv[i + 1] : "";
    if (a == "--layers") layers = std::stoi(v);
    else if (a == "--seed") seed = std::stoull(v);
    else if (a == "--max-macs") max_macs = std::stoll(v);
    else if (a == "--vcd") vcd = v;
    else {
      fmt::print(stderr, "export_cosim_test: unknown option '{}'\n", a);
      return 2;
    }
    ++i;
  }
  const Config cfg = load_config_by_name_or_path(FLYCOL_EXPORTED_CONFIG);
  fmt::print("export_cosim_test: netlist of the exported '{}' against its SystemVerilog, {} random layers\n", cfg.name,
             layers);
  std::mt19937_64 rng(seed);
  int run = 0, failed = 0;
  for (int i = 0; i < layers; ++i) {
    const tb::Case c = tb::random_case(rng, cfg, max_macs);
    Program prog;
    try {
      prog = tb::compile_case(c, cfg);
    } catch (const InputError&) {
      continue;  // a layer the configuration cannot run
    }
    const ConvOperands ops = make_random_operands(c.layer, cfg.arithmetic, c.data_seed, {c.zeros});
    std::uint64_t cycles = 0;
    const std::string why =
        lockstep(prog, ops, tb::timing_for(cfg, c.dram_seed), vcd.empty() ? "" : vcd + std::to_string(i), cycles);
    ++run;
    if (why.empty()) {
      fmt::print("  ok   {} cycles  {}\n", cycles, c.describe());
    } else {
      ++failed;
      fmt::print("  FAIL {}\n       {}\n", c.describe(), why);
    }
  }
  if (run == 0) {
    fmt::print("export_cosim_test: no layer could run\n");
    return 1;
  }
  fmt::print("export_cosim_test: {} layers, {} failed\n", run, failed);
  return failed ? 1 : 0;
}
