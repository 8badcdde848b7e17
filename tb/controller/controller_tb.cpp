// Testbench of the controller (docs/microarchitecture.md, section 5), one for all three views:
// random command streams (opcode mixes, wait thresholds of none / the last dispatched / anything
// between, valid gaps, junk on the port while it is not valid, delta-cycle glitches before the
// final values), three engine models with random latencies, resets between and inside streams.
// A queue-based scoreboard written here (the spec's rules, sharing nothing with ControllerCore)
// checks cmd_ready, start, the started command, idle every cycle and the done counters after
// every edge; directed cases check that a threshold naming a command not dispatched yet is
// refused, and on the core that a repeated eval() in one cycle leaves no trace.
//   controller_tb [--view core|sc|all] [--seed N] [--streams N] [--long]   the C++ core and the
//         SystemC module (150 / 3000 streams)
//   controller_rtl_tb_<cfg> [--config FILE] [--seed N] [--streams N] [--long]   controller.sv
//         Verilated for one configuration (FLYCOL_VTOP defined)
#include <algorithm>
#include <cstdint>
#include <deque>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "hw/common/command.h"
#include "hw/common/hw_params.h"
#include "hw/common/protocol_error.h"
#include "sim/rtlgen/rtl_types.h"  // command_fields/command_values: the fields a command travels as
#include "tb/common/bench_main.h"

#include "tb/common/views.h"
#ifndef FLYCOL_VTOP
#include "hw/controller/controller.h"
#include "hw/controller/controller_core.h"
#endif

using namespace flycol;
using namespace flycol::hw;

namespace {

constexpr int kEngines = 3;  // LD, EX, PS (the index is int(Engine))
const char* engine_name(int e) { return e == 0 ? "LD" : (e == 1 ? "EX" : "PS"); }
using Fields = std::vector<std::uint64_t>;  // a command's field values (rtl::command_values order)

// The first field where two commands differ ("" when none).
std::string first_difference(const Fields& got, const Fields& want) {
  const auto& layout = rtl::command_fields();
  for (std::size_t i = 0; i < layout.size() && i < got.size() && i < want.size(); ++i)
    if (got[i] != want[i]) return fmt::format("{} = {:#x}, expected {:#x}", layout[i].name, got[i], want[i]);
  return got.size() == want.size() ? "" : "field count";
}

// The inputs of one cycle.
struct Drive {
  bool rst_n = true, valid = false;
  Command cmd;
  bool busy[kEngines] = {false, false, false}, done[kEngines] = {false, false, false};
};

// The outputs of one cycle (start_cmd as the field values the RTL carries; read with start only).
struct Outs {
  bool cmd_ready = false, idle = false;
  bool start[kEngines] = {false, false, false};
  Fields start_cmd[kEngines];
};

// What became of one offered command (the directed threshold cases).
enum class Verdict { accepted, refused, not_ready, refused_twice };
const char* verdict_name(Verdict v) {
  return v == Verdict::accepted  ? "accepted"
         : v == Verdict::refused ? "refused"
         : v == Verdict::not_ready ? "not ready"
                                   : "refused more than once";
}

// Registered state after an edge; what a view cannot show is left at -1.
struct Registered {
  std::int64_t done[kEngines] = {-1, -1, -1}, dispatched[kEngines] = {-1, -1, -1}, queued[kEngines] = {-1, -1, -1};
};

// ---------------------------------------------------------------------------------------------
// Stimulus: how one stream stresses the controller.

struct Profile {
  int op_weight[5];                        // relative frequency of each opcode
  int lat_lo[kEngines], lat_hi[kEngines];  // engine busy cycles per command
  double valid_prob;                       // chance to offer the next command in a cycle
  double glitch_prob;                      // chance of transient inputs before the final ones
  int wait_zero, wait_last;                // percent of thresholds that are 0 / the last dispatched
};

// ---------------------------------------------------------------------------------------------
// Reference and scoreboard: the controller as section 5 states it. Per engine a FIFO of
// kCmdQueueDepth commands; a command is accepted when its engine's queue has room; an engine
// starts its queue head when it is not busy and the head's thresholds are met by the done
// counters; idle when every queue is empty and no engine busy.

template <class View>
class Bench {
public:
  Bench(View& v, std::uint64_t seed, tb::MismatchLog& log, bool with_glitches)
      : v_(v), r_(seed), log_(log), glitches_(with_glitches) {}

  std::uint64_t cycle = 0, commands = 0, starts = 0, glitches = 0, streams_cut = 0, directed = 0;

  void run(int n_streams) {
    do_reset(3);
    for (int s = 0; s < n_streams && !too_many(); ++s) {
      new_profile();
      // Sometimes a reset between streams; otherwise the counters keep counting and the new
      // stream's thresholds continue from the old ones.
      if (s > 0 && r_.chance(0.3)) do_reset(r_.uniform(1, 3));
      run_stream(r_.uniform(1, 300));
    }
    if (!too_many()) directed_bad_waits();
  }

private:
  View& v_;
  tb::Rand r_;
  tb::MismatchLog& log_;
  bool glitches_;
  Profile prof_{};
  std::deque<Command> queue_[kEngines];
  std::uint32_t done_cnt_[kEngines] = {0, 0, 0}, accepted_[kEngines] = {0, 0, 0};
  int remaining_[kEngines] = {0, 0, 0};  // engine model: busy cycles left, 0 = idle
  bool pending_ = false;                 // cmd_ is a real offer held until accepted
  int stream_left_ = 0;
  Command cmd_;
  std::uint64_t serial_ = 0;

  bool too_many() const { return log_.errors() >= std::uint64_t(tb::MismatchLog::kMaxReported); }

  Command random_command(Opcode op) {
    Command c;
    c.op = op;
    // A serial number in a field the controller passes through makes stream order visible.
    c.dma.dram_addr = ++serial_ & 0xffffffffffull;
    c.dma.buf = std::uint8_t(r_.uniform(0, 1));
    c.dma.n_planes = std::uint32_t(r_.bits(16));
    c.dma.plane_stride = std::uint32_t(r_.bits(32));
    c.dma.row_len = std::uint32_t(r_.bits(16));
    c.dma.tail = std::uint32_t(r_.bits(16));
    c.run.preload = r_.chance(0.5);
    c.run.n_kg = std::uint32_t(r_.uniform(1, 4));
    c.run.n_c = std::uint32_t(r_.uniform(1, 64));
    c.run.step_cy = std::uint32_t(r_.bits(24));
    c.run.lane_stride = std::uint32_t(r_.bits(8));
    c.run.pattern = r_.bits(64);
    return c;
  }

  Opcode random_opcode() {
    int total = 0;
    for (int w : prof_.op_weight) total += w;
    int k = r_.uniform(0, total - 1);
    for (int i = 0; i < 5; ++i) {
      if (k < prof_.op_weight[i]) return Opcode(i);
      k -= prof_.op_weight[i];
    }
    return Opcode::Run;
  }

  // Thresholds name only commands already dispatched (the stream is offered in order), including
  // the command's own engine: none, the latest, or anything in between.
  std::uint32_t random_wait(int e) {
    const int k = r_.uniform(0, 99);
    if (k < prof_.wait_zero || accepted_[e] == 0) return 0;
    if (k < prof_.wait_zero + prof_.wait_last) return accepted_[e];
    return std::uint32_t(r_.uniform(0, int(accepted_[e])));
  }

  void new_profile() {
    static const int kLat[][2] = {{1, 1}, {1, 3}, {1, 10}, {5, 40}, {1, 100}};
    static const double kValid[] = {1.0, 0.7, 0.3, 0.05};
    for (int& w : prof_.op_weight) w = r_.uniform(0, 4);
    if (r_.uniform(0, 3) == 0)
      for (int& w : prof_.op_weight) w = 1;
    prof_.op_weight[r_.uniform(0, 4)] += 1;  // never all zero
    for (int e = 0; e < kEngines; ++e) {
      const int k = r_.uniform(0, 4);
      prof_.lat_lo[e] = kLat[k][0];
      prof_.lat_hi[e] = kLat[k][1];
    }
    prof_.valid_prob = kValid[r_.uniform(0, 3)];
    prof_.glitch_prob = r_.chance(0.5) || !glitches_ ? 0.0 : 0.25;
    prof_.wait_zero = r_.uniform(0, 60);
    prof_.wait_last = r_.uniform(0, 100 - prof_.wait_zero);
  }

  Drive engines_drive(bool valid, const Command& c) const {
    Drive d;
    d.valid = valid;
    d.cmd = c;
    for (int e = 0; e < kEngines; ++e) {
      d.busy[e] = remaining_[e] > 0;
      d.done[e] = remaining_[e] == 1;
    }
    return d;
  }

  // Glitch: a transient offer and busy pattern before the final inputs of the cycle; the
  // controller must behave as if it never happened. Half the offers are legal (a push that must
  // not stay behind), half wait for a command not dispatched yet (an error that must not be
  // reported, or an impossible threshold).
  Drive junk_drive() {
    Drive g;
    g.valid = r_.chance(0.7);
    g.cmd = random_command(Opcode(r_.uniform(0, 4)));
    if (r_.chance(0.5)) {
      g.cmd.wait_ps = accepted_[2] + 1;
      if (r_.chance(0.5)) g.cmd.wait_ld = std::uint32_t(r_.bits(32));
    }
    for (int e = 0; e < kEngines; ++e) g.busy[e] = r_.chance(0.5);
    return g;
  }

  void do_reset(int cycles) {
    tb::hold_reset<Drive>(v_, log_, cycle, cycles, [&] {
      if (v_.fault()) log_.fail("{} during reset", v_.fault_name());
    });
    for (int e = 0; e < kEngines; ++e) {
      queue_[e].clear();
      done_cnt_[e] = accepted_[e] = 0;
      remaining_[e] = 0;
    }
    pending_ = false;
    log_.note("reset for {} cycles", cycles);
  }

  // One cycle: drive (after a glitch, maybe), check the outputs against the scoreboard, advance
  // it over the edge, and check the registered state after the edge. Returns the accepted flag.
  bool cycle_step(const Drive& d, bool glitch) {
    log_.at(cycle);
    if (glitch) {
      ++glitches;
      v_.glitch(junk_drive());
    }
    v_.drive(d);
    // Short: the opcode, the serial number (dram_addr) and the thresholds identify the command.
    log_.note("valid {} {} #{} wait {}/{}/{} busy {}{}{} done {}{}{} (LD EX PS)", int(d.valid), opcode_name(d.cmd.op),
              d.cmd.dma.dram_addr, d.cmd.wait_ld, d.cmd.wait_ex, d.cmd.wait_ps, int(d.busy[0]), int(d.busy[1]),
              int(d.busy[2]), int(d.done[0]), int(d.done[1]), int(d.done[2]));
    const Outs o = v_.out();
    // cmd_ready_o depends on the offered opcode's queue, valid or not; opcodes outside the table
    // (only ever offered with valid low) count as LD.
    const bool valid_op = int(d.cmd.op) <= int(Opcode::Run);
    const int target = valid_op ? int(engine_of(d.cmd.op)) : 0;
    log_.expect("cmd_ready_o", o.cmd_ready, queue_[target].size() < std::size_t(kCmdQueueDepth));
    bool all_idle = true;
    bool started[kEngines];
    for (int e = 0; e < kEngines; ++e) {
      bool want = false;
      if (!d.busy[e] && !queue_[e].empty()) {
        const Command& h = queue_[e].front();
        want = done_cnt_[0] >= h.wait_ld && done_cnt_[1] >= h.wait_ex && done_cnt_[2] >= h.wait_ps;
      }
      started[e] = want;
      if (!log_.expect(e == 0 ? "start_o[LD]" : e == 1 ? "start_o[EX]" : "start_o[PS]", o.start[e], want)) {
        log_.fail("  engine {}: busy {}, {} queued, done {}/{}/{}{}", engine_name(e), d.busy[e], queue_[e].size(),
                  done_cnt_[0], done_cnt_[1], done_cnt_[2],
                  queue_[e].empty() ? "" : ", head " + queue_[e].front().to_string());
      } else if (want) {
        ++starts;
        const Fields head = rtl::command_values(queue_[e].front());
        if (!log_.expect_true(o.start_cmd[e] == head, fmt::format("start_cmd_o[{}] is not the queue head", engine_name(e))))
          log_.fail("  {}; head {}", first_difference(o.start_cmd[e], head), queue_[e].front().to_string());
      }
      all_idle = all_idle && queue_[e].empty() && !d.busy[e];
    }
    log_.expect("idle_o", o.idle, all_idle);

    v_.edge(d);
    if (v_.fault()) log_.fail("{}", v_.fault_name());
    ++cycle;
    const bool accepted = d.valid && valid_op && queue_[target].size() < std::size_t(kCmdQueueDepth);
    for (int e = 0; e < kEngines; ++e) {
      if (d.done[e]) ++done_cnt_[e];
      if (remaining_[e] > 0) --remaining_[e];
      if (started[e]) {
        queue_[e].pop_front();
        remaining_[e] = r_.uniform(prof_.lat_lo[e], prof_.lat_hi[e]);
      }
    }
    if (accepted) {
      queue_[target].push_back(d.cmd);
      ++accepted_[target];
    }
    Registered reg;
    v_.registered(reg);
    static const char* const kDone[kEngines] = {"done counter LD", "done counter EX", "done counter PS"};
    static const char* const kDispatched[kEngines] = {"dispatched LD", "dispatched EX", "dispatched PS"};
    static const char* const kQueued[kEngines] = {"queue count LD", "queue count EX", "queue count PS"};
    for (int e = 0; e < kEngines; ++e) {
      if (reg.done[e] >= 0) log_.expect(kDone[e], std::uint64_t(reg.done[e]), std::uint64_t(done_cnt_[e]));
      if (reg.dispatched[e] >= 0)
        log_.expect(kDispatched[e], std::uint64_t(reg.dispatched[e]), std::uint64_t(accepted_[e]));
      if (reg.queued[e] >= 0) log_.expect(kQueued[e], std::uint64_t(reg.queued[e]), std::uint64_t(queue_[e].size()));
    }
    return accepted;
  }

  bool stream_done() const {
    if (pending_ || stream_left_ > 0) return false;
    for (int e = 0; e < kEngines; ++e)
      if (!queue_[e].empty() || remaining_[e] > 0) return false;
    return true;
  }

  void run_stream(int n) {
    stream_left_ = n;
    tb::Watchdog dog(5000);
    // Now and then a reset cuts the stream short, with commands queued and engines busy.
    const std::uint64_t reset_at = r_.chance(0.1) ? cycle + std::uint64_t(r_.uniform(1, 5 * n)) : 0;
    while (!stream_done() && !too_many()) {
      if (cycle == reset_at) {
        ++streams_cut;
        do_reset(r_.uniform(1, 3));
        stream_left_ = 0;
        return;
      }
      if (!pending_ && stream_left_ > 0 && r_.chance(prof_.valid_prob)) {
        cmd_ = random_command(random_opcode());
        cmd_.wait_ld = random_wait(0);
        cmd_.wait_ex = random_wait(1);
        cmd_.wait_ps = random_wait(2);
        pending_ = true;
        --stream_left_;
      }
      const std::uint32_t done_before = done_cnt_[0] + done_cnt_[1] + done_cnt_[2];
      bool progress;
      if (pending_) {
        progress = cycle_step(engines_drive(true, cmd_), r_.chance(prof_.glitch_prob));
        if (progress) {
          pending_ = false;
          ++commands;
        }
      } else {
        // Junk while not valid, including opcodes outside the table and impossible thresholds.
        Command junk = random_command(Opcode(r_.uniform(0, 7)));
        junk.wait_ld = std::uint32_t(r_.bits(32));
        junk.wait_ps = std::uint32_t(r_.bits(32));
        cycle_step(engines_drive(false, junk), r_.chance(prof_.glitch_prob));
        progress = false;
      }
      if (progress || done_cnt_[0] + done_cnt_[1] + done_cnt_[2] != done_before) dog.progress();
      if (!dog.tick(log_, "the stream to complete")) return;
    }
    // One more cycle with nothing offered: idle_o must be high now (checked by the scoreboard).
    cycle_step(engines_drive(false, Command{}), false);
  }

  // A command waiting for a command of an engine that has not been dispatched yet must be refused
  // when it is accepted (core: ProtocolError, SystemC: SC_ERROR, RTL: an assertion); one waiting
  // for exactly the last dispatched command is legal.
  void directed_bad_waits() {
    struct Case {
      Opcode op;
      int engine, ahead;
      bool error;
    };
    const Case cases[] = {{Opcode::LoadIfmap, 2, 1, true},   {Opcode::Run, 0, 1, true},
                          {Opcode::LoadWeights, 0, 1, true}, {Opcode::StorePsums, 2, 5, true},
                          {Opcode::Run, 1, 1, true},         {Opcode::Run, 1, 0, false},
                          {Opcode::LoadPsums, 0, 0, false}};
    v_.expect_refusals_begin();
    for (const Case& k : cases) {
      do_reset(2);
      for (int e = 0; e < kEngines; ++e) prof_.lat_lo[e] = prof_.lat_hi[e] = 1;
      // Dispatch one command of each engine first, so "dispatched" is not just zero.
      for (Opcode op : {Opcode::LoadIfmap, Opcode::Run, Opcode::StorePsums}) {
        const Command c = random_command(op);
        tb::Watchdog dog(100);
        while (!cycle_step(engines_drive(true, c), false) && dog.tick(log_, "a directed command's acceptance")) {
        }
      }
      Command c = random_command(k.op);
      std::uint32_t* waits[kEngines] = {&c.wait_ld, &c.wait_ex, &c.wait_ps};
      *waits[k.engine] = accepted_[k.engine] + std::uint32_t(k.ahead);
      log_.at(cycle);
      const Verdict got = v_.offer_once(engines_drive(true, c));
      ++cycle;
      ++directed;
      const Verdict want = k.error ? Verdict::refused : Verdict::accepted;
      log_.expect_true(got == want,
                       fmt::format("directed: {} waiting for {} command {} with {} dispatched: {}, expected {}",
                                   opcode_name(k.op), engine_name(k.engine), *waits[k.engine], accepted_[k.engine],
                                   verdict_name(got), verdict_name(want)));
    }
    v_.expect_refusals_end();
    do_reset(2);
  }
};

#ifdef FLYCOL_VTOP

// ---------------------------------------------------------------------------------------------
// controller.sv, Verilated for one configuration.

// Packing a command's fields into 32-bit words (the layout of rtl::command_fields(), the first
// field in the top bits, word 0 least significant, as Verilator's VlWide) and back, a word at a
// time: rtl::pack goes bit by bit, and the RTL view packs the command port every cycle.
std::vector<std::uint32_t> pack_fields(const std::vector<rtl::FieldLayout>& layout, const Fields& values) {
  int pos = 0;
  for (const auto& f : layout) pos += f.bits;
  std::vector<std::uint32_t> w(std::size_t((pos + 31) / 32), 0);
  for (std::size_t i = 0; i < layout.size(); ++i) {
    const int n = layout[i].bits;
    pos -= n;
    if (n < 64 && (values[i] >> n) != 0)
      throw std::logic_error(fmt::format("pack_fields: {} = {:#x} does not fit {} bits", layout[i].name, values[i], n));
    for (int done = 0; done < n;) {
      const int b = pos + done, take = std::min(32 - b % 32, n - done);
      const std::uint64_t part = (values[i] >> done) & ((std::uint64_t(1) << take) - 1);
      w[std::size_t(b / 32)] |= std::uint32_t(part << (b % 32));
      done += take;
    }
  }
  return w;
}
// `word(k)` is 32-bit word k of the packed command.
template <class Word>
Fields unpack_fields(const std::vector<rtl::FieldLayout>& layout, Word&& word) {
  int pos = 0;
  for (const auto& f : layout) pos += f.bits;
  Fields v(layout.size(), 0);
  for (std::size_t i = 0; i < layout.size(); ++i) {
    const int n = layout[i].bits;
    pos -= n;
    for (int done = 0; done < n;) {
      const int b = pos + done, take = std::min(32 - b % 32, n - done);
      const std::uint64_t part = (std::uint64_t(word(b / 32)) >> (b % 32)) & ((std::uint64_t(1) << take) - 1);
      v[i] |= part << done;
      done += take;
    }
  }
  return v;
}
// pack_fields and unpack_fields agree with rtl::pack on random field values.
void check_packing(tb::Rand& r, tb::MismatchLog& log) {
  const auto& layout = rtl::command_fields();
  for (int k = 0; k < 100; ++k) {
    Fields v;
    for (const auto& f : layout) v.push_back(r.bits(f.bits));
    const std::vector<std::uint32_t> w = pack_fields(layout, v);
    log.expect_true(w == rtl::pack(layout, v), "pack_fields differs from rtl::pack");
    log.expect_true(unpack_fields(layout, [&](int i) { return w[std::size_t(i)]; }) == v,
                    "unpack_fields does not invert pack_fields");
  }
}

class RtlView {
public:
  RtlView(std::uint64_t seed)
      : dut_(seed), bits_(rtl::command_bits()) {}
  void drive(const Drive& d) {
    dut_->rst_ni = d.rst_n;
    dut_->cmd_valid_i = d.valid;
    const std::vector<std::uint32_t> w = pack_fields(rtl::command_fields(), rtl::command_values(d.cmd));
    for (std::size_t i = 0; i < w.size(); ++i) dut_->cmd_i.at(i) = w[i];
    std::uint32_t busy = 0, done = 0;
    for (int e = 0; e < kEngines; ++e) {
      busy |= std::uint32_t(d.busy[e]) << e;
      done |= std::uint32_t(d.done[e]) << e;
    }
    dut_->busy_i = std::uint8_t(busy);
    dut_->done_i = std::uint8_t(done);
  }
  void glitch(const Drive& d) {
    drive(d);
    dut_->eval();
  }
  Outs out() {
    dut_->eval();
    Outs o;
    o.cmd_ready = dut_->cmd_ready_o;
    o.idle = dut_->idle_o;
    for (int e = 0; e < kEngines; ++e) {
      o.start[e] = (dut_->start_o >> e) & 1u;
      if (!o.start[e]) continue;  // start_cmd_o is meaningful (and compared) only with start_o
      o.start_cmd[e] = unpack_fields(rtl::command_fields(), [&](int k) {
        return tb::get_bits(dut_->start_cmd_o, e * bits_ + 32 * k, std::min(32, bits_ - 32 * k));
      });
    }
    return o;
  }
  void edge(const Drive&) { dut_.edge(); }
  bool fault() { return dut_.fault(); }
  const char* fault_name() const { return "an RTL assertion fired (see above)"; }
  void registered(Registered& r) {
    dut_->eval();
    for (int e = 0; e < kEngines; ++e) r.done[e] = std::int64_t(tb::get_bits(dut_->done_count_o, e * 32, 32));
  }
  void expect_refusals_begin() { tb::expect_rtl_assertions("controller_rtl_tb", "directed illegal thresholds"); }
  void expect_refusals_end() {}
  Verdict offer_once(const Drive& d) {
    drive(d);
    dut_->eval();
    const bool ready = dut_->cmd_ready_o;
    dut_.edge();
    const bool fired = dut_.fault();
    return !ready ? Verdict::not_ready : fired ? Verdict::refused : Verdict::accepted;
  }

private:
  tb::Dut<FLYCOL_VTOP> dut_;
  int bits_;
};

#else

// ---------------------------------------------------------------------------------------------
// ControllerCore alone. A glitch is an earlier eval() of the same cycle, which must leave no
// trace (SystemC's delta cycles do the same to it).

class CoreView {
public:
  explicit CoreView(const HwParams& p) : core_(p) {}
  void drive(const Drive& d) { in_ = inputs(d); }
  void glitch(const Drive& d) {
    try {
      (void)core_.eval(inputs(d));
    } catch (const ProtocolError&) {
      // an illegal transient offer: only the final inputs of the cycle count
    }
  }
  Outs out() {
    const ControllerCore::Out& c = core_.eval(in_);
    Outs o;
    o.cmd_ready = c.cmd_ready;
    o.idle = c.idle;
    for (int e = 0; e < kEngines; ++e) {
      o.start[e] = c.start[e];
      if (c.start[e]) o.start_cmd[e] = rtl::command_values(c.start_cmd[e]);
    }
    return o;
  }
  void edge(const Drive& d) {
    if (!d.rst_n) {
      core_.reset();
      return;
    }
    for (int e = 0; e < kEngines; ++e)
      if (d.done[e]) core_.note_done(Engine(e));
    core_.tick();
  }
  bool fault() { return false; }  // a refusal is a ProtocolError thrown out of eval()
  const char* fault_name() const { return ""; }
  void registered(Registered& r) const {
    for (int e = 0; e < kEngines; ++e) {
      r.done[e] = core_.done_count(Engine(e));
      r.dispatched[e] = core_.dispatched_count(Engine(e));
      r.queued[e] = core_.queue_count(Engine(e));
    }
  }
  void expect_refusals_begin() {}
  void expect_refusals_end() {}
  Verdict offer_once(const Drive& d) {
    try {
      if (!core_.eval(inputs(d)).cmd_ready) return Verdict::not_ready;
    } catch (const ProtocolError&) {
      return Verdict::refused;
    }
    edge(d);
    return Verdict::accepted;
  }

private:
  static ControllerCore::In inputs(const Drive& d) {
    ControllerCore::In in;
    in.cmd_valid = d.valid;
    in.cmd = d.cmd;
    for (int e = 0; e < kEngines; ++e) in.engine_busy[e] = d.busy[e];
    return in;
  }
  ControllerCore core_;
  ControllerCore::In in_;
};

// The Controller SC_MODULE on its own signals and clock; a glitch is a delta cycle with other
// values before the final ones. Its refusal is an SC_ERROR report (counted, not thrown, while
// the directed cases run).
class ScView {
public:
  ScView(const std::string& name, const HwParams& p) : dut_(name.c_str(), p) {
    dut_.clk_i(clk_.clk());
    dut_.rst_ni(rst_n_);
    dut_.cmd_valid_i(valid_);
    dut_.cmd_i(cmd_);
    dut_.cmd_ready_o(ready_);
    dut_.busy_i(busy_);
    dut_.done_i(done_);
    dut_.start_o(start_);
    dut_.start_cmd_o(start_cmd_);
    dut_.idle_o(idle_);
  }
  void drive(const Drive& d) {
    rst_n_.write(d.rst_n);
    valid_.write(d.valid);
    cmd_.write(d.cmd);
    for (int e = 0; e < kEngines; ++e) {
      busy_[std::size_t(e)].write(d.busy[e]);
      done_[std::size_t(e)].write(d.done[e]);
    }
  }
  void glitch(const Drive& d) {
    drive(d);
    tb::ScClock::settle();
  }
  Outs out() {
    tb::ScClock::settle();
    Outs o;
    o.cmd_ready = ready_.read();
    o.idle = idle_.read();
    for (int e = 0; e < kEngines; ++e) {
      o.start[e] = start_[std::size_t(e)].read();
      if (o.start[e]) o.start_cmd[e] = rtl::command_values(start_cmd_[std::size_t(e)].read());
    }
    return o;
  }
  void edge(const Drive&) { clk_.step(); }
  // An SC_ERROR outside the directed refusals is thrown (tb::ScClock); during them it is only
  // displayed, so any report not taken by offer_once() is a fault.
  bool fault() {
    const int n = sc_core::sc_report_handler::get_count(dut_.name(), sc_core::SC_ERROR);
    const bool fired = n != reports_;
    reports_ = n;
    return fired;
  }
  const char* fault_name() const { return "an unexpected SC_ERROR report (see above)"; }
  void registered(Registered& r) const {
    for (int e = 0; e < kEngines; ++e) {
      r.done[e] = dut_.core().done_count(Engine(e));
      r.dispatched[e] = dut_.core().dispatched_count(Engine(e));
      r.queued[e] = dut_.core().queue_count(Engine(e));
    }
  }
  void expect_refusals_begin() { tb::expect_sc_errors(dut_.name(), "controller_tb", "directed illegal thresholds"); }
  void expect_refusals_end() { tb::end_sc_errors(dut_.name()); }
  Verdict offer_once(const Drive& d) {
    (void)fault();  // earlier reports were checked by the cycle that made them
    drive(d);
    tb::ScClock::settle();
    const bool ready = ready_.read();
    clk_.step();
    const int before = reports_;
    (void)fault();
    const int reports = reports_ - before;
    return !ready ? Verdict::not_ready
           : reports == 0 ? Verdict::accepted
           : reports == 1 ? Verdict::refused
                          : Verdict::refused_twice;
  }

private:
  tb::ScClock clk_;
  Controller dut_;
  int reports_ = 0;  // SC_ERROR reports of dut_ seen so far
  sc_core::sc_signal<bool> rst_n_, valid_, ready_, idle_;
  sc_core::sc_signal<Command> cmd_;
  sc_core::sc_vector<sc_core::sc_signal<bool>> busy_{"busy", kEngines}, done_{"done", kEngines},
      start_{"start", kEngines};
  sc_core::sc_vector<sc_core::sc_signal<Command>> start_cmd_{"start_cmd", kEngines};
};

// Directed checks of the bare core that need its own interface: the threshold rule at
// acceptance, ignored thresholds of a command not offered, and that a second eval() in one
// cycle with another engine's command leaves no stale push.
void core_checks(tb::MismatchLog& log) {
  const HwParams p;
  auto offer = [](ControllerCore& c, Opcode op, std::uint32_t wld, std::uint32_t wex, std::uint32_t wps) {
    ControllerCore::In in;
    in.cmd_valid = true;
    in.cmd.op = op;
    in.cmd.wait_ld = wld;
    in.cmd.wait_ex = wex;
    in.cmd.wait_ps = wps;
    (void)c.eval(in);
    c.tick();
  };
  {
    ControllerCore c(p);
    tb::expect_throw<ProtocolError>(log, "first LD command waiting for itself", [&] { offer(c, Opcode::LoadIfmap, 1, 0, 0); });
  }
  {
    ControllerCore c(p);
    tb::expect_throw<ProtocolError>(log, "wait for an EX command before any RUN",
                                    [&] { offer(c, Opcode::LoadWeights, 0, 1, 0); });
  }
  {
    ControllerCore c(p);
    offer(c, Opcode::Run, 0, 0, 0);
    try {
      offer(c, Opcode::StorePsums, 0, 1, 0);
      log.expect_true(true, "");
    } catch (const ProtocolError& e) {
      log.expect_true(false, fmt::format("waiting for the dispatched RUN refused: {}", e.what()));
    }
    tb::expect_throw<ProtocolError>(log, "wait for a RUN not dispatched yet", [&] { offer(c, Opcode::StorePsums, 0, 2, 0); });
    tb::expect_throw<ProtocolError>(log, "PS command waiting for itself", [&] { offer(c, Opcode::LoadPsums, 0, 0, 2); });
  }
  {
    ControllerCore c(p);
    ControllerCore::In in;
    in.cmd.wait_ex = 7;
    try {
      (void)c.eval(in);
      c.tick();
      log.expect_true(true, "");
    } catch (const ProtocolError& e) {
      log.expect_true(false, fmt::format("thresholds of a command not offered were checked: {}", e.what()));
    }
  }
  {
    ControllerCore c(p);
    ControllerCore::In in;
    in.cmd_valid = true;
    in.cmd.op = Opcode::LoadIfmap;
    (void)c.eval(in);
    in.cmd.op = Opcode::Run;
    (void)c.eval(in);
    c.tick();
    log.expect_true(c.queue_count(Engine::LD) == 0 && c.queue_count(Engine::EX) == 1,
                    "re-evaluation with another engine's command leaves a stale push");
  }
}

#endif

struct Totals {
  std::uint64_t commands = 0, starts = 0, glitches = 0, cut = 0, directed = 0, cycles = 0;
  template <class B>
  void add(const B& b) {
    commands += b.commands;
    starts += b.starts;
    glitches += b.glitches;
    cut += b.streams_cut;
    directed += b.directed;
    cycles += b.cycle;
  }
  std::string figures(std::uint64_t streams) const {
    return fmt::format("{} streams ({} cut by a reset), {} commands, {} starts checked, {} glitches, {} directed, "
                       "{} cycles",
                       streams, cut, commands, starts, glitches, directed, cycles);
  }
};

}  // namespace

#ifdef FLYCOL_VTOP

int main(int argc, char** argv) {
  tb::BenchMain harness("controller", {"streams", 150, 3000, "random command streams"});
  bool no_glitches = false;
  harness.args().flag("no-glitches", &no_glitches, "no transient inputs before the final ones");
  if (!harness.parse(argc, argv)) return 2;  // the configuration is only checked: the controller has no parameter
  harness.announce("{} streams", harness.count());
  RtlView view(harness.seed());
  Totals t;
  harness.run(harness.rtl_view(), [&](tb::MismatchLog& log) {
    tb::Rand packing_rand(harness.seed(1));
    check_packing(packing_rand, log);
    Bench<RtlView> bench(view, harness.seed(0), log, !no_glitches);
    bench.run(int(harness.count()));
    t.add(bench);
  });
  return harness.finish(t.figures(harness.count()));
}

#else

int sc_main(int argc, char* argv[]) {
  tb::BenchMain harness("controller", {"streams", 150, 3000, "random command streams per view"});
  bool no_glitches = false;
  harness.args().flag("no-glitches", &no_glitches, "no transient inputs before the final ones");
  if (!harness.parse(argc, argv)) return 2;
  harness.announce("{} streams", harness.count());
  ScView sc_view("ctrl", HwParams{});  // every SC_MODULE exists before the first sc_start
  Totals t;
  // Both views get the same stimulus; on the SystemC view any other SC_ERROR is thrown (tb::ScClock)
  // and counted as a mismatch.
  auto one = [&](const std::string& name, auto& v) {
    harness.run(name, [&](tb::MismatchLog& log) {
      if (name == "core") core_checks(log);
      Bench<std::remove_reference_t<decltype(v)>> bench(v, harness.seed(0), log, !no_glitches);
      bench.run(int(harness.count()));
      t.add(bench);
    });
  };
  if (harness.core()) {
    CoreView core(HwParams{});
    one("core", core);
  }
  if (harness.sc()) one("sc", sc_view);
  return harness.finish(t.figures(harness.count()));
}

#endif
