// SystemC elaboration of the accelerator with its environment, and the run loop.
// sc_spawn (the command recorder) needs the dynamic processes of the SystemC headers.
#define SC_INCLUDE_DYNAMIC_PROCESSES
#include "sim/scsim/sc_simulation.h"

#include <chrono>
#include <functional>
#include <stdexcept>

#include <fmt/format.h>

#include "hw/common/protocol_error.h"
#include "hw/top/accelerator.h"
#include "hw/top/structural_top.h"

namespace flycol {
namespace {

using namespace sc_core;

// The host's command queue.
class CommandQueue : public sc_module, public hw::CommandSourceIf {
public:
  explicit CommandQueue(sc_module_name n) : sc_module(n) {}
  void load(const std::vector<hw::Command>* cmds) {
    cmds_ = cmds;
    next_ = 0;
  }
  bool cmd_valid() const override { return cmds_ && next_ < cmds_->size(); }
  const hw::Command& cmd() const override { return (*cmds_)[next_]; }
  void cmd_accepted() override { ++next_; }
  bool exhausted() const { return !cmds_ || next_ >= cmds_->size(); }

private:
  const std::vector<hw::Command>* cmds_ = nullptr;
  std::size_t next_ = 0;
};

// The memory port's far side: the shared DRAM model.
class DramChannel : public sc_module, public hw::MemoryIf {
public:
  explicit DramChannel(sc_module_name n) : sc_module(n) {}
  void attach(DramModel* d) { dram_ = d; }
  void begin_cycle(std::uint64_t cycle) override { dram_->begin_cycle(cycle); }
  bool req_ready() const override { return dram_->req_ready(); }
  bool rsp_valid() const override { return dram_->rsp_valid(); }
  const hw::MemRsp& rsp() const override { return dram_->rsp(); }
  void end_cycle(const hw::MemReq* fired) override { dram_->end_cycle(fired); }

private:
  DramModel* dram_ = nullptr;
};

// Ends a run at the first cycle with every command accepted and the accelerator idle. It wakes
// only when idle_o changes, so it costs nothing per cycle.
SC_MODULE(DoneMonitor) {
  sc_in<bool> idle_i;
  CommandQueue* queue = nullptr;
  std::function<std::uint64_t()> cycle;  // the top's cycle counter
  bool armed = false, done = false;
  std::uint64_t end_cycle = 0;

  SC_CTOR(DoneMonitor) {
    SC_METHOD(check);
    sensitive << idle_i;
    dont_initialize();
  }
  void check() {
    if (armed && idle_i.read() && queue->exhausted()) {
      done = true;
      armed = false;
      end_cycle = cycle();
      sc_pause();
    }
  }
};

// Records the cycle of every command completion: at each rising edge, the rise of each engine's
// done count since the last edge. Spawned only when asked for (ScSimulation::record_commands).
struct CommandRecorder {
  std::function<std::uint32_t(hw::Engine)> done_count;
  std::function<std::uint64_t()> cycle;
  bool on = false, spawned = false;
  std::uint32_t seen[3] = {0, 0, 0};
  std::vector<std::uint64_t> done[3];  // per engine (LD, EX, PS), in completion order

  void clear() {
    for (int e = 0; e < 3; ++e) {
      seen[e] = 0;
      done[e].clear();
    }
  }
  void sample() {
    if (!on) return;
    for (int e = 0; e < 3; ++e) {
      const std::uint32_t now = done_count(hw::Engine(e));
      if (now < seen[e]) seen[e] = 0;  // the reset between runs
      for (; seen[e] < now; ++seen[e]) done[e].push_back(cycle());
    }
  }
};

}  // namespace

struct ScSimulation::Impl {
  // The environment's names carry the top's as a prefix unless it is the default one.
  static std::string env_name(const ScSimOptions& o, const char* what) {
    return o.name == "accelerator" ? std::string(what) : o.name + "_" + what;
  }
  Impl(const hw::HwParams& p, const ScSimOptions& o)
      : clk(env_name(o, "clk").c_str(), sc_time(1, SC_NS)), rst_n(env_name(o, "rst_n").c_str(), false),
        idle(env_name(o, "idle").c_str(), true), queue(env_name(o, "command_queue").c_str()),
        channel(env_name(o, "dram").c_str()), monitor(env_name(o, "done_monitor").c_str()) {
    if (o.structural) {
      top = std::make_unique<hw::StructuralTop>(o.name.c_str(), p, o.block_views);
      bind(*top);
      top->expect_runs(0);
      monitor.cycle = [this] { return top->cycle(); };
    } else {
      accel = std::make_unique<hw::Accelerator>(o.name.c_str(), p);
      bind(*accel);
      monitor.cycle = [this] { return accel->cycle(); };
    }
    monitor.idle_i(idle);
    monitor.queue = &queue;
  }
  template <class Top> void bind(Top& t) {
    t.clk_i(clk);
    t.rst_ni(rst_n);
    t.idle_o(idle);
    t.cmd_port(queue);
    t.mem_port(channel);
  }
  std::uint64_t cycle() const { return top ? top->cycle() : accel->cycle(); }
  std::uint32_t done_count(hw::Engine e) const { return top ? top->done_count(e) : accel->core().done_count(e); }
  void expect_runs(std::uint64_t n) {
    if (top)
      top->expect_runs(n);
    else
      accel->core().expect_runs(n);
  }
  hw::AcceleratorStats stats() const { return top ? top->stats() : accel->core().stats(); }

  sc_clock clk;
  sc_signal<bool> rst_n;
  sc_signal<bool> idle;
  std::unique_ptr<hw::Accelerator> accel;
  std::unique_ptr<hw::StructuralTop> top;
  CommandQueue queue;
  DramChannel channel;
  DoneMonitor monitor;
  CommandRecorder recorder;
  sc_trace_file* vcd = nullptr;
};

ScSimulation::ScSimulation(const hw::HwParams& p, const ScSimOptions& options)
    : impl_(std::make_unique<Impl>(p, options)) {
  // Quiet the kernel's banner and make sure errors throw rather than abort.
  sc_report_handler::set_actions(SC_ERROR, SC_DISPLAY | SC_THROW);
  sc_report_handler::set_actions("/IEEE_Std_1666/deprecated", SC_DO_NOTHING);
}

ScSimulation::~ScSimulation() {
  if (impl_ && impl_->vcd) sc_close_vcd_trace_file(impl_->vcd);
}

void ScSimulation::record_commands(bool on) {
  Impl& s = *impl_;
  s.recorder.on = on;
  if (!on || s.recorder.spawned) return;
  s.recorder.spawned = true;
  s.recorder.done_count = [&s](hw::Engine e) { return s.done_count(e); };
  s.recorder.cycle = [&s] { return s.cycle(); };
  sc_spawn_options opt;
  opt.spawn_method();
  opt.dont_initialize();
  opt.set_sensitivity(&s.clk.posedge_event());
  sc_spawn([&s] { s.recorder.sample(); }, sc_gen_unique_name("command_recorder"), &opt);
}

void ScSimulation::trace_to(const std::string& path) {
  std::string base = path;
  if (base.size() > 4 && base.substr(base.size() - 4) == ".vcd") base.resize(base.size() - 4);
  impl_->vcd = sc_create_vcd_trace_file(base.c_str());
  if (impl_->top)
    impl_->top->trace(impl_->vcd);
  else
    impl_->accel->trace(impl_->vcd);
}

hw::AcceleratorCore& ScSimulation::core() {
  if (!impl_->accel) throw std::logic_error("ScSimulation::core(): the structural top has no AcceleratorCore");
  return impl_->accel->core();
}

bool ScSimulation::structural() const { return impl_->top != nullptr; }

SimResult ScSimulation::run(const std::vector<hw::Command>& commands, DramModel& dram,
                            std::uint64_t watchdog_cycles) {
  Impl& s = *impl_;
  SimResult r;
  s.channel.attach(&dram);
  s.queue.load(&commands);
  s.recorder.clear();
  std::uint64_t runs_total = 0;
  for (const auto& c : commands) runs_total += c.op == hw::Opcode::Run;

  const auto t0 = std::chrono::steady_clock::now();
  try {
    // Two cycles of reset, then the program.
    s.rst_n.write(false);
    sc_start(sc_time(2, SC_NS));
    s.rst_n.write(true);
    s.expect_runs(runs_total);
    s.monitor.done = false;
    s.monitor.armed = true;
    if (commands.empty()) {
      r.finished = true;
      s.rst_n.write(false);
      return r;
    }
    // Run in slices so that progress can be watched without a per-cycle process.
    std::uint64_t last_progress_cycle = 0;
    std::uint32_t last_done_total = 0;
    const std::uint64_t slice = 4096;
    while (!s.monitor.done) {
      sc_start(sc_time(double(slice), SC_NS));
      const std::uint32_t done_total = s.done_count(hw::Engine::LD) + s.done_count(hw::Engine::EX) +
                                       s.done_count(hw::Engine::PS);
      if (done_total != last_done_total) {
        last_done_total = done_total;
        last_progress_cycle = s.cycle();
      } else if (!s.monitor.done && s.cycle() - last_progress_cycle > watchdog_cycles) {
        r.error = fmt::format("watchdog: no command completed for {} cycles (cycle {}, done ld={} ex={} ps={})",
                              watchdog_cycles, s.cycle(), s.done_count(hw::Engine::LD),
                              s.done_count(hw::Engine::EX), s.done_count(hw::Engine::PS));
        break;
      }
    }
  } catch (const std::exception& e) {
    r.error = e.what();
  }
  // Hold the top in reset until its next run: other ScSimulations of the process keep the clock
  // going, and the DRAM model of this run is about to go away.
  s.rst_n.write(false);
  r.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  r.finished = s.monitor.done && r.error.empty();
  r.cycles = s.monitor.done ? s.monitor.end_cycle : s.cycle();
  r.stats = s.stats();
  r.dram_stall = r.stats.dram_stall;
  r.tail = r.stats.tail;
  if (s.recorder.on) {
    std::size_t next[3] = {0, 0, 0};
    for (const auto& c : commands) {
      const int e = int(hw::engine_of(c.op));
      r.done_cycles.push_back(next[e] < s.recorder.done[e].size() ? s.recorder.done[e][next[e]++] : 0);
    }
  }
  return r;
}

}  // namespace flycol
