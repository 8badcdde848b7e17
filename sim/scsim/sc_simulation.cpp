// SystemC elaboration of the accelerator with its environment, and the run loop.
#include "sim/scsim/sc_simulation.h"

#include <chrono>
#include <stdexcept>

#include <fmt/format.h>

#include "hw/common/protocol_error.h"
#include "hw/top/accelerator.h"

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
  hw::Accelerator* accel = nullptr;
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
      end_cycle = accel->cycle();
      sc_pause();
    }
  }
};

}  // namespace

struct ScSimulation::Impl {
  explicit Impl(const hw::HwParams& p)
      : clk("clk", sc_time(1, SC_NS)), accel("accelerator", p), queue("command_queue"), channel("dram"),
        monitor("done_monitor") {
    accel.clk_i(clk);
    accel.rst_ni(rst_n);
    accel.idle_o(idle);
    accel.cmd_port(queue);
    accel.mem_port(channel);
    monitor.idle_i(idle);
    monitor.queue = &queue;
    monitor.accel = &accel;
  }

  sc_clock clk;
  sc_signal<bool> rst_n{"rst_n", false};
  sc_signal<bool> idle{"idle", true};
  hw::Accelerator accel;
  CommandQueue queue;
  DramChannel channel;
  DoneMonitor monitor;
  sc_trace_file* vcd = nullptr;
};

ScSimulation::ScSimulation(const hw::HwParams& p) : impl_(std::make_unique<Impl>(p)) {
  // Quiet the kernel's banner and make sure errors throw rather than abort.
  sc_report_handler::set_actions(SC_ERROR, SC_DISPLAY | SC_THROW);
  sc_report_handler::set_actions("/IEEE_Std_1666/deprecated", SC_DO_NOTHING);
}

ScSimulation::~ScSimulation() {
  if (impl_ && impl_->vcd) sc_close_vcd_trace_file(impl_->vcd);
}

void ScSimulation::trace_to(const std::string& path) {
  std::string base = path;
  if (base.size() > 4 && base.substr(base.size() - 4) == ".vcd") base.resize(base.size() - 4);
  impl_->vcd = sc_create_vcd_trace_file(base.c_str());
  impl_->accel.trace(impl_->vcd);
}

hw::AcceleratorCore& ScSimulation::core() { return impl_->accel.core(); }

SimResult ScSimulation::run(const std::vector<hw::Command>& commands, DramModel& dram,
                            std::uint64_t watchdog_cycles) {
  Impl& s = *impl_;
  SimResult r;
  s.channel.attach(&dram);
  s.queue.load(&commands);
  std::uint64_t runs_total = 0;
  for (const auto& c : commands) runs_total += c.op == hw::Opcode::Run;

  const auto t0 = std::chrono::steady_clock::now();
  try {
    // Two cycles of reset, then the program.
    s.rst_n.write(false);
    sc_start(sc_time(2, SC_NS));
    s.rst_n.write(true);
    s.accel.core().expect_runs(runs_total);
    s.monitor.done = false;
    s.monitor.armed = true;
    if (commands.empty()) {
      r.finished = true;
      return r;
    }
    // Run in slices so that progress can be watched without a per-cycle process.
    std::uint64_t last_progress_cycle = 0;
    std::uint32_t last_done_total = 0;
    const std::uint64_t slice = 4096;
    while (!s.monitor.done) {
      sc_start(sc_time(double(slice), SC_NS));
      hw::AcceleratorCore& core = s.accel.core();
      const std::uint32_t done_total = core.done_count(hw::Engine::LD) + core.done_count(hw::Engine::EX) +
                                       core.done_count(hw::Engine::PS);
      if (done_total != last_done_total) {
        last_done_total = done_total;
        last_progress_cycle = s.accel.cycle();
      } else if (!s.monitor.done && s.accel.cycle() - last_progress_cycle > watchdog_cycles) {
        r.error = fmt::format("watchdog: no command completed for {} cycles (cycle {}, done ld={} ex={} ps={})",
                              watchdog_cycles, s.accel.cycle(), core.done_count(hw::Engine::LD),
                              core.done_count(hw::Engine::EX), core.done_count(hw::Engine::PS));
        break;
      }
    }
  } catch (const std::exception& e) {
    r.error = e.what();
  }
  r.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  r.finished = s.monitor.done && r.error.empty();
  r.cycles = s.monitor.done ? s.monitor.end_cycle : s.accel.cycle();
  r.stats = s.accel.core().stats();
  r.dram_stall = r.stats.dram_stall;
  r.tail = r.stats.tail;
  return r;
}

}  // namespace flycol
