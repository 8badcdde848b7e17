// Lockstep testbench of controller.sv against ControllerCore: random command streams (thresholds,
// valid gaps, junk offers, engine latencies, resets), every output compared every cycle, and directed
// illegal thresholds on which the core must throw and the RTL assertion fire in the same cycle.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>

// Verilator's own headers do not pass -Wextra (unused parameters); they are not ours to fix.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#include <verilated.h>

#include FLYCOL_VTOP_HEADER
#pragma GCC diagnostic pop

#include "hw/common/command.h"
#include "hw/common/hw_params.h"
#include "hw/common/protocol_error.h"
#include "hw/controller/controller_core.h"
#include "sim/config/config_keys.h"
#include "tb/common/verilator.h"
#include "sim/config/config.h"
#include "tb/common/lockstep.h"
#include "sim/rtlgen/rtl_types.h"

using namespace flycol::hw;
using Vtop = FLYCOL_VTOP;
using namespace flycol::rtltb;

namespace {

constexpr int kEngines = ControllerCore::kEngines;
const char* engine_name(int e) { return e == 0 ? "LD" : (e == 1 ? "EX" : "PS"); }

std::uint64_t low_mask(int n) { return n >= 64 ? ~std::uint64_t(0) : (std::uint64_t(1) << n) - 1; }

struct Profile {
  int op_weight[5];                        // relative frequency of each opcode
  int lat_lo[kEngines], lat_hi[kEngines];  // engine busy cycles per command
  double valid_prob;                       // chance to offer the next command in a cycle
  int wait_zero, wait_last;                // percent of thresholds that are 0 / the last dispatched command
};

class Bench {
public:
  Bench(const HwParams& p, std::uint64_t seed) : core_(p), rng_(seed) {
    ctx_ = make_context(seed);
    top_ = std::make_unique<Vtop>(ctx_.get(), "TOP");
    cmd_bits_ = flycol::rtl::command_bits();
  }
  ~Bench() { top_->final(); }

  std::uint64_t cycle = 0, commands = 0, starts = 0, streams_cut = 0, directed = 0;

  void run(int n_streams) {
    do_reset(3);
    for (int s = 0; s < n_streams && g_errors < kMaxReported; ++s) {
      new_profile();
      if (s > 0 && chance(0.3)) do_reset(rand_int(1, 3));
      run_stream(rand_int(1, 300));
    }
    if (g_errors < kMaxReported) directed_bad_waits();
  }

private:
  ControllerCore core_;
  std::unique_ptr<VerilatedContext> ctx_;
  std::unique_ptr<Vtop> top_;
  std::mt19937_64 rng_;
  int cmd_bits_ = 0;

  Profile prof_{};
  int remaining_[kEngines] = {0, 0, 0};  // engine model: busy cycles left, 0 = idle
  bool pending_ = false;                 // cmd_ is a real offer held until accepted
  int stream_left_ = 0;
  Command cmd_;
  std::uint64_t serial_ = 0, last_progress_ = 0;

  int rand_int(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
  bool chance(double p) { return std::uniform_real_distribution<double>(0, 1)(rng_) < p; }
  std::uint32_t rand_u32() { return std::uint32_t(rng_()); }

  Command random_command(Opcode op) {
    Command c;
    c.op = op;
    // A serial number in a field the controller passes through makes stream order visible.
    c.dma.dram_addr = ++serial_ & 0xffffffffffull;
    c.dma.buf = std::uint8_t(rand_int(0, 1));
    c.dma.n_planes = rand_u32() & 0xffff;
    c.dma.plane_stride = rand_u32();
    c.dma.row_len = rand_u32() & 0xffff;
    c.dma.tail = rand_u32() & 0xffff;
    c.run.preload = chance(0.5);
    c.run.n_kg = std::uint32_t(rand_int(1, 4));
    c.run.n_c = std::uint32_t(rand_int(1, 64));
    c.run.step_cy = rand_u32() & 0xffffff;
    c.run.lane_stride = rand_u32() & 0xff;
    c.run.pattern = rng_();
    return c;
  }

  Opcode random_opcode() {
    int total = 0;
    for (int w : prof_.op_weight) total += w;
    int r = rand_int(0, total - 1);
    for (int i = 0; i < 5; ++i) {
      if (r < prof_.op_weight[i]) return Opcode(i);
      r -= prof_.op_weight[i];
    }
    return Opcode::Run;
  }

  std::uint32_t random_wait(int e) {
    const std::uint32_t acc = core_.dispatched_count(Engine(e));
    const int r = rand_int(0, 99);
    if (r < prof_.wait_zero || acc == 0) return 0;
    if (r < prof_.wait_zero + prof_.wait_last) return acc;
    return std::uint32_t(rand_int(0, int(acc)));
  }

  void new_profile() {
    static const int kLat[][2] = {{1, 1}, {1, 3}, {1, 10}, {5, 40}, {1, 100}};
    static const double kValid[] = {1.0, 0.7, 0.3, 0.05};
    for (int& w : prof_.op_weight) w = rand_int(0, 4);
    if (rand_int(0, 3) == 0)
      for (int& w : prof_.op_weight) w = 1;
    prof_.op_weight[rand_int(0, 4)] += 1;
    for (int e = 0; e < kEngines; ++e) {
      const int k = rand_int(0, 4);
      prof_.lat_lo[e] = kLat[k][0];
      prof_.lat_hi[e] = kLat[k][1];
    }
    prof_.valid_prob = kValid[rand_int(0, 3)];
    prof_.wait_zero = rand_int(0, 60);
    prof_.wait_last = rand_int(0, 100 - prof_.wait_zero);
  }

  void set_cmd(const Command& c) {
    const std::vector<std::uint32_t> w = flycol::rtl::pack_command(c);
    for (std::size_t i = 0; i < w.size(); ++i) top_->cmd_i.at(i) = w[i];
  }

  void clock_edge() {
    ctx_->timeInc(1);
    top_->clk_i = 1;
    top_->eval();
    ctx_->timeInc(1);
    top_->clk_i = 0;
    top_->eval();
  }

  void do_reset(int cycles) {
    top_->rst_ni = 0;
    top_->cmd_valid_i = 0;
    top_->busy_i = 0;
    top_->done_i = 0;
    top_->clk_i = 0;
    top_->eval();
    for (int i = 0; i < cycles; ++i) clock_edge();
    top_->rst_ni = 1;
    top_->eval();
    core_.reset();
    for (int& r : remaining_) r = 0;
    pending_ = false;
    cycle += std::uint64_t(cycles);
  }

  // One cycle with the given offer: both models evaluate, outputs are compared, both take the edge.
  // Returns the core's outputs of the cycle.
  ControllerCore::Out step(bool valid, const Command& c) {
    ControllerCore::In in;
    in.cmd_valid = valid;
    in.cmd = c;
    bool done[kEngines];
    std::uint32_t busy_bits = 0, done_bits = 0;
    for (int e = 0; e < kEngines; ++e) {
      in.engine_busy[e] = remaining_[e] > 0;
      done[e] = remaining_[e] == 1;
      busy_bits |= std::uint32_t(in.engine_busy[e]) << e;
      done_bits |= std::uint32_t(done[e]) << e;
    }
    top_->cmd_valid_i = valid;
    set_cmd(c);
    top_->busy_i = std::uint8_t(busy_bits);
    top_->done_i = std::uint8_t(done_bits);
    top_->eval();

    const ControllerCore::Out out = core_.eval(in);
    compare(out);

    for (int e = 0; e < kEngines; ++e)
      if (done[e]) core_.note_done(Engine(e));
    core_.tick();
    clock_edge();
    if (ctx_->gotError()) {
      fail(fmt::format("cycle {}: an RTL assertion fired (see above)", cycle));
      clear_rtl_error();
    }
    ++cycle;
    return out;
  }

  void compare(const ControllerCore::Out& out) {
    auto mismatch = [&](const std::string& sig, std::uint64_t rtl, std::uint64_t core) {
      fail(fmt::format("cycle {}: {} RTL {} core {}", cycle, sig, rtl, core));
    };
    if (top_->cmd_ready_o != out.cmd_ready) mismatch("cmd_ready_o", top_->cmd_ready_o, out.cmd_ready);
    if (top_->idle_o != out.idle) mismatch("idle_o", top_->idle_o, out.idle);
    for (int e = 0; e < kEngines; ++e) {
      const bool rtl_start = (top_->start_o >> e) & 1u;
      if (rtl_start != out.start[e]) mismatch(fmt::format("start_o[{}]", engine_name(e)), rtl_start, out.start[e]);
      // start_cmd_o is the queue head; it is meaningful (and compared) only with start_o.
      if (out.start[e]) {
        const std::vector<std::uint32_t> want = flycol::rtl::pack_command(out.start_cmd[e]);
        for (int b = 0; b < cmd_bits_; b += 32) {
          const int n = std::min(32, cmd_bits_ - b);
          const std::uint64_t got = get_bits(top_->start_cmd_o, e * cmd_bits_ + b, n);
          if (got != (want[std::size_t(b / 32)] & low_mask(n))) {
            fail(fmt::format("cycle {}: start_cmd_o[{}] bits {}..{}: RTL {:#x} core {:#x} (core starts {})", cycle,
                             engine_name(e), b, b + n - 1, got, want[std::size_t(b / 32)] & low_mask(n),
                             out.start_cmd[e].to_string()));
            break;
          }
        }
        ++starts;
      }
      const std::uint64_t rtl_done = get_bits(top_->done_count_o, e * 32, 32);
      if (rtl_done != core_.done_count(Engine(e)))
        mismatch(fmt::format("done_count_o[{}]", engine_name(e)), rtl_done, core_.done_count(Engine(e)));
    }
  }

  void clear_rtl_error() {
    ctx_->gotError(false);
    ctx_->gotFinish(false);
  }

  // Advances the engine models over the edge of a cycle whose outputs were `out`.
  void engines_after(const ControllerCore::Out& out) {
    for (int e = 0; e < kEngines; ++e) {
      if (remaining_[e] > 0) {
        --remaining_[e];
        if (remaining_[e] == 0) last_progress_ = cycle;
      }
      if (out.start[e]) {
        remaining_[e] = rand_int(prof_.lat_lo[e], prof_.lat_hi[e]);
        last_progress_ = cycle;
      }
    }
  }

  bool stream_done() const {
    if (pending_ || stream_left_ > 0) return false;
    for (int e = 0; e < kEngines; ++e)
      if (core_.queue_count(Engine(e)) != 0 || remaining_[e] > 0) return false;
    return true;
  }

  void run_stream(int n) {
    stream_left_ = n;
    last_progress_ = cycle;
    const std::uint64_t reset_at = chance(0.1) ? cycle + std::uint64_t(rand_int(1, 5 * n)) : 0;
    while (!stream_done() && g_errors < kMaxReported) {
      if (cycle == reset_at) {
        ++streams_cut;
        do_reset(rand_int(1, 3));
        stream_left_ = 0;
        return;
      }
      if (!pending_ && stream_left_ > 0 && chance(prof_.valid_prob)) {
        cmd_ = random_command(random_opcode());
        cmd_.wait_ld = random_wait(0);
        cmd_.wait_ex = random_wait(1);
        cmd_.wait_ps = random_wait(2);
        pending_ = true;
        --stream_left_;
      }
      ControllerCore::Out out;
      if (pending_) {
        out = step(true, cmd_);
        if (out.cmd_ready) {
          pending_ = false;
          ++commands;
          last_progress_ = cycle;
        }
      } else {
        // Junk while not valid, including opcodes outside the table and impossible thresholds:
        // only an accepted command is checked.
        Command junk = random_command(Opcode(rand_int(0, 7)));
        junk.wait_ld = rand_u32();
        junk.wait_ps = rand_u32();
        out = step(false, junk);
      }
      engines_after(out);
      if (cycle - last_progress_ > 5000) {
        fail(fmt::format("watchdog: no progress for 5000 cycles at cycle {}", cycle));
        return;
      }
    }
    const ControllerCore::Out out = step(false, Command{});
    if (!out.idle) fail(fmt::format("cycle {}: not idle after the stream completed", cycle - 1));
    engines_after(out);
  }

  // A command waiting for a command of an engine that has not been dispatched yet: the core throws
  // at acceptance, and the RTL's assertion must fire at the same edge. The last dispatched one is legal.
  void directed_bad_waits() {
    fmt::print("controller_rtl_tb: directed checks of illegal thresholds; RTL assertion messages below are expected\n");
    struct Case {
      Opcode op;
      int engine, ahead;
      bool error;
    };
    const Case cases[] = {{Opcode::LoadIfmap, 2, 1, true},  {Opcode::Run, 0, 1, true},
                          {Opcode::LoadWeights, 0, 1, true}, {Opcode::StorePsums, 2, 5, true},
                          {Opcode::Run, 1, 1, true},         {Opcode::Run, 1, 0, false},
                          {Opcode::LoadPsums, 0, 0, false}};
    for (const Case& k : cases) {
      do_reset(2);
      for (int e = 0; e < kEngines; ++e) prof_.lat_lo[e] = prof_.lat_hi[e] = 1;
      for (Opcode op : {Opcode::LoadIfmap, Opcode::Run, Opcode::StorePsums}) {
        const Command c = random_command(op);
        for (bool accepted = false; !accepted;) {
          const ControllerCore::Out out = step(true, c);
          accepted = out.cmd_ready;
          engines_after(out);
        }
      }
      Command c = random_command(k.op);
      std::uint32_t* waits[kEngines] = {&c.wait_ld, &c.wait_ex, &c.wait_ps};
      *waits[k.engine] = core_.dispatched_count(Engine(k.engine)) + std::uint32_t(k.ahead);
      // The target queue has room: the three commands above have started by now or sit alone.
      ControllerCore::In in;
      in.cmd_valid = true;
      in.cmd = c;
      for (int e = 0; e < kEngines; ++e) in.engine_busy[e] = remaining_[e] > 0;
      bool core_threw = false;
      try {
        core_.eval(in);
      } catch (const ProtocolError&) {
        core_threw = true;
      }
      top_->cmd_valid_i = 1;
      set_cmd(c);
      top_->busy_i = std::uint8_t((remaining_[0] > 0) | (remaining_[1] > 0) << 1 | (remaining_[2] > 0) << 2);
      top_->done_i = 0;
      top_->eval();
      const bool ready = top_->cmd_ready_o;
      clock_edge();
      const bool rtl_error = ctx_->gotError();
      clear_rtl_error();
      ++cycle;
      ++directed;
      if (!ready) fail(fmt::format("directed: {} not accepted", opcode_name(k.op)));
      if (core_threw != k.error || rtl_error != k.error)
        fail(fmt::format("directed: {} waiting for {} command {} with {} dispatched: core threw {}, RTL error {}, "
                         "expected {}",
                         opcode_name(k.op), engine_name(k.engine), *waits[k.engine],
                         core_.dispatched_count(Engine(k.engine)), core_threw, rtl_error, k.error));
    }
    do_reset(2);
  }
};

}  // namespace

int main(int argc, char** argv) {
  const auto args = parse_seed_and_count(argc, argv, "streams", 150);
  if (!args) return 2;
  const std::uint64_t seed = args->seed;
  const int streams = args->count;
  const HwParams p = flycol::hardware_params(flycol::load_config_by_name_or_path(FLYCOL_RTL_CONFIG));
  fmt::print("controller_rtl_tb ({}): seed {} streams {}\n", FLYCOL_RTL_CONFIG, seed, streams);
  Bench bench(p, seed);
  run_guarded(bench.cycle, [&] { bench.run(streams); });
  const bool ok = g_errors == 0;
  fmt::print("controller_rtl_tb ({}): {} seed {}: {} commands, {} starts compared, {} streams cut by a reset, "
             "{} directed cases, {} cycles, {} mismatches\n",
             FLYCOL_RTL_CONFIG, ok ? "PASS" : "FAIL", seed, bench.commands, bench.starts, bench.streams_cut,
             bench.directed, bench.cycle, g_errors);
  return ok ? 0 : 1;
}
