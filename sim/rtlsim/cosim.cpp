// The lockstep loop. Per cycle and per side: the DRAM model's Moore outputs, the command offer,
// the design's combinational outputs, the comparison, the request acceptance, the clock edge.
#include "sim/rtlsim/cosim.h"

#include <chrono>
#include <memory>

#include <fmt/format.h>

namespace flycol {
namespace {

// One side's environment: its DRAM model and its position in the command stream.
struct Env {
  std::unique_ptr<DramModel> dram;
  std::size_t next_cmd = 0;
  bool done = false;
  std::uint64_t end_cycle = 0;
  std::uint64_t last_progress = 0;
  std::uint32_t last_done_total = 0;
};

std::unique_ptr<DramModel> make_dram(const Program& prog, const std::vector<std::uint8_t>& image,
                                     const DramTiming& timing) {
  auto d = std::make_unique<DramModel>(timing, image.size());
  d->write_bytes(0, image.data(), image.size());
  add_tensor_regions(*d, prog);  // the per-tensor accounting of simulate_layer (sim/scsim/layer_sim.h)
  return d;
}

std::string req_text(const hw::MemReq& r) {
  std::string data;
  if (r.write)
    for (int i = 0; i < r.bytes; ++i) data += fmt::format("{:02x}", r.wdata[(r.addr + i) % hw::kBeatBytes]);
  return fmt::format("{} addr={:#x} bytes={}{}{}", r.write ? "write" : "read", r.addr, r.bytes,
                     r.write ? " data=" : "", data);
}

bool same_request(const hw::MemReq& a, const hw::MemReq& b) {
  if (a.write != b.write || a.addr != b.addr || a.bytes != b.bytes) return false;
  if (!a.write) return true;
  for (int i = 0; i < a.bytes; ++i) {
    const int lane = int((a.addr + std::uint64_t(i)) % hw::kBeatBytes);
    if (a.wdata[lane] != b.wdata[lane]) return false;  // only the request's own byte lanes count
  }
  return true;
}

// Every output of flycol_top in one cycle, as either side presents it after eval().
struct TopPins {
  bool cmd_ready = false, mem_req_valid = false, idle = false, run_active = false;
  hw::MemReq mem_req;  // meaningful while mem_req_valid
  std::uint32_t done_count[3] = {0, 0, 0};
  int cycle_kind = 0;
  std::uint32_t gated = 0;
};

// The first pin on which the two sides differ, in the port order of flycol_top.sv; the request's
// fields are compared while it is valid (they are don't-care otherwise) and the write data on the
// request's own byte lanes only. Returns false when every pin agrees.
bool first_difference(const TopPins& a, const TopPins& b, std::string& pin, std::string& va, std::string& vb) {
  auto differ = [&](const char* name, auto x, auto y) {
    if (x == y) return false;
    pin = name;
    va = fmt::format("{}", x);
    vb = fmt::format("{}", y);
    return true;
  };
  if (differ("cmd_ready_o", a.cmd_ready, b.cmd_ready) || differ("mem_req_valid_o", a.mem_req_valid, b.mem_req_valid))
    return true;
  if (a.mem_req_valid && !same_request(a.mem_req, b.mem_req)) {
    pin = "mem_req_write_o/addr_o/bytes_o/wdata_o";
    va = req_text(a.mem_req);
    vb = req_text(b.mem_req);
    return true;
  }
  static const char* const kDone[3] = {"done_count_o[LD]", "done_count_o[EX]", "done_count_o[PS]"};
  for (int e = 0; e < 3; ++e)
    if (differ(kDone[e], a.done_count[e], b.done_count[e])) return true;
  return differ("idle_o", a.idle, b.idle) || differ("run_active_o", a.run_active, b.run_active) ||
         differ("cycle_kind_o", a.cycle_kind, b.cycle_kind) || differ("gated_cnt_o", a.gated, b.gated);
}

constexpr int kResetCycles = 3;

// Runs the program; `trace_rtl` only changes whether the RTL writes a VCD.
CosimResult run(const Program& prog, const std::vector<std::uint8_t>& image, const DramTiming& timing, const CosimOptions& opt,
                const std::string& trace_path, std::uint64_t stop_after_divergence) {
  CosimResult res;
  const auto& cmds = prog.commands;

  std::unique_ptr<hw::AcceleratorCore> sc;
  std::unique_ptr<RtlTop> rtl;
  Env env_sc, env_rtl;
  if (opt.run_sc) {
    sc = std::make_unique<hw::AcceleratorCore>(prog.hw);
    std::uint64_t runs = 0;
    for (const auto& c : cmds) runs += c.op == hw::Opcode::Run;
    sc->expect_runs(runs);
    env_sc.dram = make_dram(prog, image, timing);
  } else {
    env_sc.done = true;
  }
  if (opt.run_rtl) {
    RtlTopOptions ro;
    ro.trace = !trace_path.empty();
    ro.trace_path = trace_path;
    ro.randomize_x = opt.randomize_x;
    ro.x_seed = opt.x_seed;
    if (trace_path.empty()) ro.vcd_sink = opt.rtl_vcd_sink;
    rtl = opt.rtl_factory ? opt.rtl_factory(ro) : make_rtl_top(prog.config, ro);
    env_rtl.dram = make_dram(prog, image, timing);
    rtl->set_reset(true);
    for (int i = 0; i < kResetCycles; ++i) {
      rtl->eval();
      rtl->clock();
    }
    rtl->set_reset(false);
  } else {
    env_rtl.done = true;
  }

  double wall_sc = 0, wall_rtl = 0;
  auto now = [] { return std::chrono::steady_clock::now(); };
  std::uint64_t stop_at = ~0ull;
  const hw::Command no_cmd{};
  for (std::uint64_t cycle = 0; !(env_sc.done && env_rtl.done) && cycle < stop_at; ++cycle) {
    TopPins sc_pins, rtl_pins;

    if (!env_sc.done) {
      const auto t0 = now();
      if (env_sc.next_cmd == cmds.size() && sc->idle()) {
        env_sc.done = true;
        env_sc.end_cycle = cycle;
      } else {
        DramModel& d = *env_sc.dram;
        d.begin_cycle(cycle);
        hw::AcceleratorCore::In in;
        in.cmd_valid = env_sc.next_cmd < cmds.size();
        if (in.cmd_valid) in.cmd = cmds[env_sc.next_cmd];
        in.mem_req_ready = d.req_ready();
        in.mem_rsp_valid = d.rsp_valid();
        if (in.mem_rsp_valid) in.mem_rsp = d.rsp();
        const hw::AcceleratorCore::Out& out = sc->eval(in);
        sc_pins.cmd_ready = out.cmd_ready;
        sc_pins.mem_req_valid = out.mem_req_valid;
        sc_pins.mem_req = out.mem_req;
        sc_pins.idle = out.idle;
        for (int e = 0; e < 3; ++e) sc_pins.done_count[e] = out.done_count[e];
        sc_pins.run_active = out.run_active;
        sc_pins.cycle_kind = int(out.cycle_kind);
        sc_pins.gated = out.gated;
        if (in.cmd_valid && out.cmd_ready) ++env_sc.next_cmd;
        d.end_cycle(out.mem_req_valid && in.mem_req_ready ? &out.mem_req : nullptr);
        sc->tick();
      }
      wall_sc += std::chrono::duration<double>(now() - t0).count();
    }
    if (!env_rtl.done) {
      const auto t0 = now();
      if (env_rtl.next_cmd == cmds.size() && rtl->idle()) {
        env_rtl.done = true;
        env_rtl.end_cycle = cycle;
      } else {
        DramModel& d = *env_rtl.dram;
        d.begin_cycle(cycle);
        const bool cmd_valid = env_rtl.next_cmd < cmds.size();
        rtl->set_cmd(cmd_valid, cmd_valid ? cmds[env_rtl.next_cmd] : no_cmd);
        rtl->set_mem(d.req_ready(), d.rsp_valid(), d.rsp_valid() ? d.rsp() : hw::MemRsp{});
        rtl->eval();
        rtl_pins.cmd_ready = rtl->cmd_ready();
        rtl_pins.mem_req_valid = rtl->mem_req_valid();
        if (rtl_pins.mem_req_valid) rtl_pins.mem_req = rtl->mem_req();
        rtl_pins.idle = rtl->idle();
        for (int e = 0; e < 3; ++e) rtl_pins.done_count[e] = rtl->done_count(e);
        rtl_pins.run_active = rtl->run_active();
        rtl_pins.cycle_kind = rtl->cycle_kind();
        rtl_pins.gated = std::uint32_t(rtl->gated());
        res.rtl_mac_cycles += rtl_pins.cycle_kind == int(hw::SequencerCore::CycleKind::mac);
        const bool fired = rtl_pins.mem_req_valid && d.req_ready();
        if (cmd_valid && rtl_pins.cmd_ready) ++env_rtl.next_cmd;
        d.end_cycle(fired ? &rtl_pins.mem_req : nullptr);
        rtl->clock();
      }
      wall_rtl += std::chrono::duration<double>(now() - t0).count();
    }

    // Compare the ports of this cycle (only while both sides still run).
    if (opt.run_sc && opt.run_rtl && !res.first.found) {
      auto diverge = [&](const std::string& sig, const std::string& a, const std::string& b) {
        res.first = {true, cycle, sig, a, b};
        stop_at = cycle + stop_after_divergence;
      };
      if (env_sc.done != env_rtl.done)
        diverge("idle_o (end of the run)", env_sc.done ? "finished" : "running", env_rtl.done ? "finished" : "running");
      else if (!env_sc.done) {
        std::string pin, a, b;
        if (first_difference(sc_pins, rtl_pins, pin, a, b)) diverge(pin, a, b);
      }
    }

    // Watchdog: no command completed on a side for too long.
    auto watch = [&](Env& e, std::uint32_t done_total, std::string& err) {
      if (e.done) return;
      if (done_total != e.last_done_total) {
        e.last_done_total = done_total;
        e.last_progress = cycle;
      } else if (cycle - e.last_progress > opt.watchdog_cycles) {
        err = fmt::format("watchdog: no command completed for {} cycles (cycle {}, {} of {} commands accepted)",
                          opt.watchdog_cycles, cycle, e.next_cmd, cmds.size());
        e.done = true;
        e.end_cycle = cycle;
      }
    };
    if (sc)
      watch(env_sc, sc->done_count(hw::Engine::LD) + sc->done_count(hw::Engine::EX) + sc->done_count(hw::Engine::PS),
            res.sc.error);
    if (rtl) watch(env_rtl, rtl->done_count(0) + rtl->done_count(1) + rtl->done_count(2), res.rtl.error);
    if (rtl) res.rtl_gated += rtl_pins.gated;
  }
  if (rtl) rtl->finish();

  if (sc) {
    res.sc.finished = env_sc.done && res.sc.error.empty() && env_sc.next_cmd == cmds.size();
    res.sc.cycles = env_sc.end_cycle;
    res.sc.outputs = extract_outputs(prog, env_sc.dram->bytes());
    res.sc.dram = tensor_bytes(*env_sc.dram);
    res.sc.wall_seconds = wall_sc;
    res.sc_stats = sc->stats();
  }
  if (rtl) {
    res.rtl.finished = env_rtl.done && res.rtl.error.empty() && env_rtl.next_cmd == cmds.size();
    if (!env_rtl.done) res.rtl.error = "stopped after the first divergence";
    res.rtl.cycles = env_rtl.end_cycle;
    res.rtl.outputs = extract_outputs(prog, env_rtl.dram->bytes());
    res.rtl.dram = tensor_bytes(*env_rtl.dram);
    res.rtl.wall_seconds = wall_rtl;
  }
  res.cycles_equal = opt.run_sc && opt.run_rtl && res.sc.finished && res.rtl.finished && res.sc.cycles == res.rtl.cycles;
  res.outputs_equal = opt.run_sc && opt.run_rtl && res.sc.outputs == res.rtl.outputs;
  return res;
}

}  // namespace

CosimResult cosim_layer(const Program& prog, const ConvOperands& ops, const DramTiming& timing,
                        const CosimOptions& opt) {
  return cosim_program(prog, build_dram_image(prog, ops), timing, opt);
}

CosimResult cosim_program(const Program& prog, const std::vector<std::uint8_t>& image, const DramTiming& timing,
                          const CosimOptions& opt) {
  // Without a mismatch a run goes to the end; after one it stops soon (the two sides no longer
  // see the same memory, so later differences say nothing new).
  CosimResult r = run(prog, image, timing, opt, opt.wave_on_mismatch ? "" : opt.wave_path, 200);
  if (!opt.wave_path.empty()) {
    if (!opt.wave_on_mismatch) {
      r.wave_written = opt.wave_path;
    } else if (r.first.found) {
      // Repeat with tracing on (slower), up to a little past the divergence.
      const CosimResult traced = run(prog, image, timing, opt, opt.wave_path, 50);
      (void)traced;
      r.wave_written = opt.wave_path;
    }
  }
  return r;
}

}  // namespace flycol
