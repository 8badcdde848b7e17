// Testbench of the controller module (docs/microarchitecture.md, section 5): random command streams
// with random wait thresholds, valid gaps and delta-cycle glitches on the command port, and three
// engine models with random latencies. A queue-based scoreboard checks every cycle.
#include <cstdint>
#include <cstdlib>
#include <deque>
#include <random>
#include <string>

#include <fmt/format.h>
#include <systemc>

#include "hw/common/command.h"
#include "hw/common/hw_params.h"
#include "hw/common/protocol_error.h"
#include "hw/controller/controller.h"
#include "hw/controller/controller_core.h"

using namespace flycol::hw;
using sc_core::sc_signal;

namespace {

constexpr int kEngines = ControllerCore::kEngines;
constexpr int kMaxReported = 20;
int g_errors = 0;

void fail(const std::string& msg) {
  if (g_errors < kMaxReported) fmt::print(stderr, "MISMATCH: {}\n", msg);
  ++g_errors;
}

const char* engine_name(int e) { return e == 0 ? "LD" : (e == 1 ? "EX" : "PS"); }

// How one stream stresses the controller.
struct Profile {
  int op_weight[5];           // relative frequency of each opcode
  int lat_lo[kEngines], lat_hi[kEngines];  // engine busy cycles per command
  double valid_prob;          // chance to offer the next command in a cycle
  double glitch_prob;         // chance of a delta-cycle glitch on the port before the final values
  int wait_zero, wait_last;   // percent of thresholds that are 0 / the last dispatched command
};

SC_MODULE(Tb) {
  sc_core::sc_in<bool> clk{"clk"};

  sc_signal<bool> rst_n{"rst_n"}, cmd_valid{"cmd_valid"}, cmd_ready{"cmd_ready"}, idle{"idle"};
  sc_signal<Command> cmd{"cmd"};
  sc_core::sc_vector<sc_signal<bool>> busy{"busy", kEngines}, done{"done", kEngines}, start{"start", kEngines};
  sc_core::sc_vector<sc_signal<Command>> start_cmd{"start_cmd", kEngines};
  Controller dut;

  std::mt19937_64 rng;
  int n_streams;
  bool glitches_on;
  bool finished = false;

  // Scoreboard: what the spec says the controller holds at the start of the current cycle.
  std::deque<Command> queue[kEngines];
  std::uint32_t done_cnt[kEngines] = {0, 0, 0}, accepted[kEngines] = {0, 0, 0};
  int remaining[kEngines] = {0, 0, 0};  // engine model: busy cycles left, 0 = idle
  // Inputs driven for the current cycle.
  bool drv_valid = false, drv_busy[kEngines] = {false, false, false}, drv_done[kEngines] = {false, false, false};
  Command drv_cmd;

  // Stream source.
  Profile prof{};
  bool pending = false;  // drv_cmd is a real offer held until accepted
  int stream_left = 0;   // commands of the stream not yet offered
  std::uint64_t serial = 0;

  // Figures.
  std::uint64_t cycle = 0, last_progress = 0, commands = 0, starts_checked = 0, glitches = 0, streams_cut = 0;
  int directed_errors_expected = 0;

  Tb(sc_core::sc_module_name name, std::uint64_t seed, int streams, bool glitches_)
      : sc_core::sc_module(name), dut("ctrl", HwParams{}), rng(seed), n_streams(streams), glitches_on(glitches_) {
    dut.clk_i(clk);
    dut.rst_ni(rst_n);
    dut.cmd_valid_i(cmd_valid);
    dut.cmd_i(cmd);
    dut.cmd_ready_o(cmd_ready);
    dut.busy_i(busy);
    dut.done_i(done);
    dut.start_o(start);
    dut.start_cmd_o(start_cmd);
    dut.idle_o(idle);
    SC_THREAD(run);
  }
  SC_HAS_PROCESS(Tb);

  int rand_int(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); }
  bool chance(double p) { return std::uniform_real_distribution<double>(0, 1)(rng) < p; }
  std::uint32_t rand_u32() { return std::uint32_t(rng()); }

  Command random_command(Opcode op) {
    Command c;
    c.op = op;
    // A unique serial number in a field the controller passes through makes stream order exact.
    c.dma.dram_addr = ++serial;
    c.dma.buf = std::uint8_t(rand_int(0, 1));
    c.dma.n_planes = rand_u32() & 0xffff;
    c.dma.row_len = rand_u32() & 0xffff;
    c.dma.tail = rand_u32() & 0xffff;
    c.run.preload = chance(0.5);
    c.run.n_kg = std::uint32_t(rand_int(1, 4));
    c.run.n_c = std::uint32_t(rand_int(1, 64));
    c.run.step_cy = rand_u32() & 0xffffff;
    c.run.pattern = rng();
    return c;
  }

  Opcode random_opcode() {
    int total = 0;
    for (int w : prof.op_weight) total += w;
    int r = rand_int(0, total - 1);
    for (int i = 0; i < 5; ++i) {
      if (r < prof.op_weight[i]) return Opcode(i);
      r -= prof.op_weight[i];
    }
    return Opcode::Run;
  }

  // Thresholds name only commands already dispatched (the stream is offered in order), including
  // the command's own engine; a mix of none, the latest, and anything in between.
  std::uint32_t random_wait(int e) {
    const int r = rand_int(0, 99);
    if (r < prof.wait_zero || accepted[e] == 0) return 0;
    if (r < prof.wait_zero + prof.wait_last) return accepted[e];
    return std::uint32_t(rand_int(0, int(accepted[e])));
  }

  void new_profile() {
    static const int kLat[][2] = {{1, 1}, {1, 3}, {1, 10}, {5, 40}, {1, 100}};
    static const double kValid[] = {1.0, 0.7, 0.3, 0.05};
    for (int& w : prof.op_weight) w = rand_int(0, 4);
    if (rand_int(0, 3) == 0)
      for (int& w : prof.op_weight) w = 1;
    prof.op_weight[rand_int(0, 4)] += 1;  // never all zero
    for (int e = 0; e < kEngines; ++e) {
      const int k = rand_int(0, 4);
      prof.lat_lo[e] = kLat[k][0];
      prof.lat_hi[e] = kLat[k][1];
    }
    prof.valid_prob = kValid[rand_int(0, 3)];
    prof.glitch_prob = chance(0.5) || !glitches_on ? 0.0 : 0.25;
    prof.wait_zero = rand_int(0, 60);
    prof.wait_last = rand_int(0, 100 - prof.wait_zero);
  }

  void reset_model() {
    for (int e = 0; e < kEngines; ++e) {
      queue[e].clear();
      done_cnt[e] = accepted[e] = 0;
      remaining[e] = 0;
    }
    pending = false;
  }

  void drive(bool valid, const Command& c, bool glitch) {
    if (glitch) {
      // A transient offer (possibly of an illegal command) and busy pattern, settled over within
      // the cycle: the controller must behave as if it never happened.
      ++glitches;
      cmd_valid.write(true);
      cmd.write(random_command(Opcode(rand_int(0, 4))));
      Command bad = random_command(Opcode(rand_int(0, 4)));
      bad.wait_ps = accepted[2] + 1;
      if (chance(0.5)) cmd.write(bad);
      for (int e = 0; e < kEngines; ++e) busy[std::size_t(e)].write(chance(0.5));
      wait(sc_core::SC_ZERO_TIME);
    }
    drv_valid = valid;
    drv_cmd = c;
    cmd_valid.write(valid);
    cmd.write(c);
    for (int e = 0; e < kEngines; ++e) {
      drv_busy[e] = remaining[e] > 0;
      drv_done[e] = remaining[e] == 1;
      busy[std::size_t(e)].write(drv_busy[e]);
      done[std::size_t(e)].write(drv_done[e]);
    }
  }

  // End of a cycle: at the rising edge the outputs still hold the settled values of the cycle that
  // ends; check them against the scoreboard and advance it over the edge. The inputs of the next
  // cycle change later (drive_next, mid-cycle), which is what a real host and engines may do.
  void cycle_end(bool check) {
    wait(clk.posedge_event());
    ++cycle;
    if (check) {
      const int target = int(engine_of(drv_cmd.op));
      const bool want_ready = queue[target].size() < std::size_t(kCmdQueueDepth);
      if (cmd_ready.read() != want_ready)
        fail(fmt::format("cycle {}: cmd_ready={} for a {} command, but the {} queue holds {}", cycle - 1,
                         cmd_ready.read(), opcode_name(drv_cmd.op), engine_name(target), queue[target].size()));
      bool all_idle = true;
      for (int e = 0; e < kEngines; ++e) {
        bool want_start = false;
        if (!drv_busy[e] && !queue[e].empty()) {
          const Command& h = queue[e].front();
          want_start = done_cnt[0] >= h.wait_ld && done_cnt[1] >= h.wait_ex && done_cnt[2] >= h.wait_ps;
        }
        const bool got = start[std::size_t(e)].read();
        if (got != want_start) {
          fail(fmt::format("cycle {}: start_o[{}]={}, expected {} (busy={}, queued={}, done={}/{}/{}{})", cycle - 1,
                           engine_name(e), got, want_start, drv_busy[e], queue[e].size(), done_cnt[0], done_cnt[1],
                           done_cnt[2], queue[e].empty() ? "" : ", head " + queue[e].front().to_string()));
        } else if (got) {
          ++starts_checked;
          if (start_cmd[std::size_t(e)].read() != queue[e].front())
            fail(fmt::format("cycle {}: {} starts {}, expected the queue head {}", cycle - 1, engine_name(e),
                             start_cmd[std::size_t(e)].read().to_string(), queue[e].front().to_string()));
        }
        all_idle = all_idle && queue[e].empty() && !drv_busy[e];
      }
      if (idle.read() != all_idle) fail(fmt::format("cycle {}: idle_o={}, expected {}", cycle - 1, idle.read(), all_idle));

      // Advance the scoreboard over the edge: completions, starts, acceptance.
      for (int e = 0; e < kEngines; ++e) {
        if (drv_done[e]) {
          ++done_cnt[e];
          last_progress = cycle;
        }
        if (remaining[e] > 0) --remaining[e];
        if (start[std::size_t(e)].read() && !queue[e].empty()) {
          queue[e].pop_front();
          remaining[e] = rand_int(prof.lat_lo[e], prof.lat_hi[e]);
          last_progress = cycle;
        }
      }
      if (drv_valid && cmd_ready.read()) {
        queue[target].push_back(drv_cmd);
        ++accepted[target];
        ++commands;
        pending = false;
        last_progress = cycle;
      }
    }
  }

  // Mid-cycle: the edge has been applied, so the registered counters must match the scoreboard.
  void check_registers() {
    wait(clk.negedge_event());
    for (int e = 0; e < kEngines; ++e) {
      const Engine en = Engine(e);
      if (dut.core().done_count(en) != done_cnt[e])
        fail(fmt::format("cycle {}: {} done counter {}, expected {}", cycle, engine_name(e), dut.core().done_count(en),
                         done_cnt[e]));
      if (dut.core().dispatched_count(en) != accepted[e])
        fail(fmt::format("cycle {}: {} dispatched {}, expected {}", cycle, engine_name(e),
                         dut.core().dispatched_count(en), accepted[e]));
      if (dut.core().queue_count(en) != int(queue[e].size()))
        fail(fmt::format("cycle {}: {} queue holds {}, expected {}", cycle, engine_name(e), dut.core().queue_count(en),
                         queue[e].size()));
    }
  }

  void do_reset(int cycles) {
    rst_n.write(false);
    reset_model();
    drive(false, Command{}, false);
    for (int i = 0; i < cycles; ++i) cycle_end(false);
    rst_n.write(true);
  }

  // Source side of the next cycle: hold an offer until accepted (valid/ready), otherwise maybe
  // offer the next command of the stream, otherwise show junk that must be ignored.
  void drive_next() {
    if (!pending && stream_left > 0 && chance(prof.valid_prob)) {
      const Opcode op = random_opcode();
      drv_cmd = random_command(op);
      drv_cmd.wait_ld = random_wait(0);
      drv_cmd.wait_ex = random_wait(1);
      drv_cmd.wait_ps = random_wait(2);
      pending = true;
      --stream_left;
    }
    if (pending) {
      drive(true, drv_cmd, chance(prof.glitch_prob));
    } else {
      Command junk = random_command(Opcode(rand_int(0, 4)));
      junk.wait_ld = rand_u32();  // thresholds are only checked on acceptance
      drive(false, junk, chance(prof.glitch_prob));
    }
  }

  bool stream_done() const {
    if (pending || stream_left > 0) return false;
    for (int e = 0; e < kEngines; ++e)
      if (!queue[e].empty() || remaining[e] > 0) return false;
    return true;
  }

  void run_stream(int n) {
    stream_left = n;
    last_progress = cycle;
    // Now and then a reset cuts the stream short, with commands queued and engines busy.
    const std::uint64_t reset_at = chance(0.1) ? cycle + std::uint64_t(rand_int(1, 5 * n)) : 0;
    while (!stream_done()) {
      if (cycle == reset_at) {
        ++streams_cut;
        do_reset(rand_int(1, 3));
        stream_left = 0;
        return;
      }
      drive_next();
      cycle_end(true);
      check_registers();
      if (cycle - last_progress > 5000) {
        fail(fmt::format("watchdog: no progress for 5000 cycles at cycle {} ({} commands left, queues {}/{}/{})",
                         cycle, stream_left + (pending ? 1 : 0), queue[0].size(), queue[1].size(), queue[2].size()));
        return;
      }
      if (g_errors >= kMaxReported) return;
    }
    // One more cycle with nothing offered: idle_o must be high now.
    drive(false, Command{}, false);
    cycle_end(true);
    if (!idle.read()) fail(fmt::format("cycle {}: not idle after the stream completed", cycle - 1));
  }

  // The controller must refuse (SC_ERROR) a command that waits for an engine's command that has
  // not been dispatched yet, and accept one that waits exactly for the last dispatched one.
  void directed_bad_waits() {
    const char* msg_type = dut.name();
    sc_core::sc_report_handler::set_actions(msg_type, sc_core::SC_ERROR, sc_core::SC_DISPLAY);
    fmt::print("controller_tb: directed checks of illegal wait thresholds; the {} errors below are expected\n",
               msg_type);
    const std::uint64_t stream_commands = commands, stream_starts = starts_checked;
    struct Case {
      Opcode op;
      int engine;     // the threshold that is set
      int ahead;      // threshold - dispatched
      bool error;
    };
    const Case cases[] = {{Opcode::LoadIfmap, 2, 1, true},  {Opcode::Run, 0, 1, true},
                          {Opcode::LoadWeights, 0, 1, true}, {Opcode::StorePsums, 2, 5, true},
                          {Opcode::Run, 1, 0, false},        {Opcode::LoadPsums, 0, 0, false}};
    for (const Case& k : cases) {
      do_reset(2);
      // Dispatch one command of each engine first, so "dispatched" is not just zero.
      for (Opcode op : {Opcode::LoadIfmap, Opcode::Run, Opcode::StorePsums}) {
        prof.lat_lo[int(engine_of(op))] = prof.lat_hi[int(engine_of(op))] = 1;
        pending = true;
        drv_cmd = random_command(op);
        while (pending) {
          drive(true, drv_cmd, false);
          cycle_end(true);
        }
      }
      const int before = sc_core::sc_report_handler::get_count(msg_type, sc_core::SC_ERROR);
      Command c = random_command(k.op);
      std::uint32_t* waits[kEngines] = {&c.wait_ld, &c.wait_ex, &c.wait_ps};
      *waits[k.engine] = accepted[k.engine] + std::uint32_t(k.ahead);
      drive(true, c, false);
      wait(clk.posedge_event());
      ++cycle;
      drive(false, Command{}, false);
      wait(clk.posedge_event());
      ++cycle;
      const int got = sc_core::sc_report_handler::get_count(msg_type, sc_core::SC_ERROR) - before;
      if (got != (k.error ? 1 : 0))
        fail(fmt::format("directed: {} waiting for {} command {} with {} dispatched: {} errors, expected {}",
                         opcode_name(k.op), engine_name(k.engine), *waits[k.engine], accepted[k.engine], got,
                         k.error ? 1 : 0));
      directed_errors_expected += k.error ? 1 : 0;
    }
    sc_core::sc_report_handler::set_actions(msg_type, sc_core::SC_ERROR, sc_core::SC_UNSPECIFIED);
    commands = stream_commands;  // the summary counts the random streams only
    starts_checked = stream_starts;
    do_reset(2);
  }

  void run() {
    do_reset(3);
    for (int s = 0; s < n_streams && g_errors < kMaxReported; ++s) {
      new_profile();
      // Sometimes a reset between streams; otherwise the counters keep counting and the new
      // stream's thresholds continue from the old ones.
      if (s > 0 && chance(0.3)) do_reset(rand_int(1, 3));
      run_stream(rand_int(1, 300));
    }
    if (g_errors < kMaxReported) directed_bad_waits();
    finished = true;
    sc_core::sc_stop();
  }
};

// Directed checks on the bare core: the threshold rule, and that a repeated eval() in one cycle
// (as SystemC delta cycles do) leaves no trace of the earlier evaluation.
int core_checks() {
  int missed = 0;
  auto check = [&](bool ok, const char* what) {
    if (!ok) {
      fmt::print(stderr, "CORE CHECK FAILED: {}\n", what);
      ++missed;
    }
  };
  auto throws = [](auto&& f) {
    try {
      f();
    } catch (const ProtocolError&) {
      return true;
    }
    return false;
  };
  const HwParams p;
  auto offer = [](ControllerCore& c, Opcode op, std::uint32_t wld, std::uint32_t wex, std::uint32_t wps) {
    ControllerCore::In in;
    in.cmd_valid = true;
    in.cmd.op = op;
    in.cmd.wait_ld = wld;
    in.cmd.wait_ex = wex;
    in.cmd.wait_ps = wps;
    c.eval(in);
    c.tick();
  };
  {
    ControllerCore c(p);
    check(throws([&] { offer(c, Opcode::LoadIfmap, 1, 0, 0); }), "first LD command waiting for itself");
  }
  {
    ControllerCore c(p);
    check(throws([&] { offer(c, Opcode::LoadWeights, 0, 1, 0); }), "wait for an EX command before any RUN");
  }
  {
    ControllerCore c(p);
    offer(c, Opcode::Run, 0, 0, 0);
    check(!throws([&] { offer(c, Opcode::StorePsums, 0, 1, 0); }), "wait for the dispatched RUN");
    check(throws([&] { offer(c, Opcode::StorePsums, 0, 2, 0); }), "wait for a RUN not dispatched yet");
    check(throws([&] { offer(c, Opcode::LoadPsums, 0, 0, 2); }), "PS command waiting for itself");
  }
  {
    ControllerCore c(p);
    ControllerCore::In in;
    in.cmd.wait_ex = 7;
    check(!throws([&] {
      c.eval(in);
      c.tick();
    }), "thresholds of a command that is not offered are ignored");
  }
  {
    // Two evaluations in one cycle with different offered engines: only the last one counts.
    ControllerCore c(p);
    ControllerCore::In in;
    in.cmd_valid = true;
    in.cmd.op = Opcode::LoadIfmap;
    c.eval(in);
    in.cmd.op = Opcode::Run;
    c.eval(in);
    c.tick();
    check(c.queue_count(Engine::LD) == 0 && c.queue_count(Engine::EX) == 1,
          "re-evaluation with another engine's command leaves a stale push");
  }
  return missed;
}

}  // namespace

int sc_main(int argc, char* argv[]) {
  std::uint64_t seed = 1;
  int streams = 150;
  bool glitches = true;
  std::string vcd;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--seed" && i + 1 < argc) {
      seed = std::strtoull(argv[++i], nullptr, 0);
    } else if (a == "--streams" && i + 1 < argc) {
      streams = std::atoi(argv[++i]);
    } else if (a == "--no-glitches") {
      glitches = false;
    } else if (a == "--vcd" && i + 1 < argc) {
      vcd = argv[++i];
    } else {
      fmt::print(stderr, "usage: {} [--seed N] [--streams N] [--no-glitches] [--vcd FILE.vcd]\n", argv[0]);
      return 2;
    }
  }
  fmt::print("controller_tb: seed {} streams {}\n", seed, streams);
  sc_core::sc_report_handler::set_actions("/IEEE_Std_1666/deprecated", sc_core::SC_DO_NOTHING);

  g_errors += core_checks();

  sc_core::sc_clock clk("clk", 10, sc_core::SC_NS);
  Tb tb("tb", seed, streams, glitches);
  tb.clk(clk);
  sc_core::sc_trace_file* tf = nullptr;
  if (!vcd.empty()) {
    tf = sc_core::sc_create_vcd_trace_file(vcd.substr(0, vcd.rfind(".vcd")).c_str());
    sc_core::sc_trace(tf, clk, "clk");
    sc_core::sc_trace(tf, tb.rst_n, "rst_n");
    sc_core::sc_trace(tf, tb.cmd_valid, "cmd_valid");
    sc_core::sc_trace(tf, tb.cmd, "cmd");
    sc_core::sc_trace(tf, tb.cmd_ready, "cmd_ready");
    for (int e = 0; e < kEngines; ++e) {
      const std::size_t i = std::size_t(e);
      sc_core::sc_trace(tf, tb.busy[i], fmt::format("busy{}", e));
      sc_core::sc_trace(tf, tb.done[i], fmt::format("done{}", e));
      sc_core::sc_trace(tf, tb.start[i], fmt::format("start{}", e));
      sc_core::sc_trace(tf, tb.start_cmd[i], fmt::format("start_cmd{}", e));
    }
    sc_core::sc_trace(tf, tb.idle, "idle");
  }
  try {
    sc_core::sc_start();
  } catch (const std::exception& e) {
    fmt::print(stderr, "ERROR: {}\n", e.what());
    ++g_errors;
  }
  if (tf) sc_core::sc_close_vcd_trace_file(tf);
  if (!tb.finished) fail("simulation ended before the testbench finished");
  const int sc_errors = sc_core::sc_report_handler::get_count(sc_core::SC_ERROR) - tb.directed_errors_expected;
  const bool ok = g_errors == 0 && sc_errors == 0;
  fmt::print("controller_tb: {} seed {}: {} streams ({} cut by a reset), {} commands, {} starts checked, {} glitches, "
             "{} cycles, {} mismatches, {} unexpected SC errors\n",
             ok ? "PASS" : "FAIL", seed, streams, tb.streams_cut, tb.commands, tb.starts_checked, tb.glitches,
             tb.cycle, g_errors, sc_errors);
  return ok ? 0 : 1;
}
