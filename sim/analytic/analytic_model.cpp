// The analytic model's event loop: the controller's cycle rules (command port, per-engine queues,
// start on registered done counters) at the cycles where something can change, and the DMA
// engines as fluid flows between those cycles. See README.md for the rules and their calibration.
#include "sim/analytic/analytic_model.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>
#include <stdexcept>

#include <fmt/format.h>

#include "sim/analytic/dma_timing.h"

namespace flycol::analytic {
namespace {

constexpr std::int64_t kNever = std::numeric_limits<std::int64_t>::max();
constexpr double kInf = std::numeric_limits<double>::infinity();

// A DMA command works from the cycle after its start; a load's last response comes `latency`
// cycles after its last transfer and is packed in the next cycle.
constexpr double kLead = 1.0;
constexpr double kLoadTail = 1.0;  // plus the DRAM latency

struct Flow {
  int cmd = -1;
  DmaWork work;
  double left = 1.0;   // share of the command's work still to do
  double speed = 0;    // share per cycle under the current allocation
  double alone = 0;    // the speed it would have by itself
  double active_from = 0;  // cycle its transfer starts
  double tail = 0;         // cycles after the transfer until the command completes
  bool transferring() const { return cmd >= 0 && left > 0; }
};

// Shares the channel (bw bytes per cycle) and the port (one request per cycle) between the two
// engines. The arbiter alternates when both request, so unconstrained flows get equal request
// rates; a flow limited by itself keeps its own speed and leaves the rest to the other.
void allocate(Flow* a, Flow* b, double bw) {
  if (!a && !b) return;
  if (!a || !b) {
    Flow* f = a ? a : b;
    f->speed = f->alone;
    return;
  }
  a->speed = a->alone;
  b->speed = b->alone;
  const double bytes = a->speed * double(a->work.bytes) + b->speed * double(b->work.bytes);
  const double reqs = a->speed * double(a->work.requests) + b->speed * double(b->work.requests);
  if (bytes <= bw * (1 + 1e-12) && reqs <= 1 + 1e-12) return;
  if (a->work.requests == 0 || b->work.requests == 0) return;  // a zero-only load uses neither
  const double qa = double(a->work.requests), qb = double(b->work.requests);
  const double ba = double(a->work.bytes), bb = double(b->work.bytes);
  const double x = std::min(bw / (ba / qa + bb / qb), 0.5);  // requests per cycle, each
  const auto rest = [&](Flow* capped, Flow* other) {
    const double qo = double(other->work.requests), bo = double(other->work.bytes);
    double s = std::min(other->alone, (1.0 - capped->speed * double(capped->work.requests)) / qo);
    if (bo > 0) s = std::min(s, (bw - capped->speed * double(capped->work.bytes)) / bo);
    other->speed = std::max(s, 0.0);
  };
  if (x / qa >= a->alone) {
    rest(a, b);
  } else if (x / qb >= b->alone) {
    rest(b, a);
  } else {
    a->speed = x / qa;
    b->speed = x / qb;
  }
}

}  // namespace

Model::Model(const hw::HwParams& p, const DramTiming& timing) : p_(p), timing_(timing), runs_(p) {
  if (!(timing.bytes_per_cycle > 0)) throw std::invalid_argument("analytic model: DRAM bandwidth must be positive");
}

const DmaWork& Model::dma(const hw::Command& c) {
  const hw::DmaDesc& d = c.dma;
  const std::uint64_t beat = std::uint64_t(hw::kBeatBytes);
  const std::array<std::uint64_t, 13> key = {std::uint64_t(c.op), d.n_planes, d.plane_stride % beat, d.n_rows,
                                             d.row_stride % beat, d.row_len, d.pad_left, d.pad_right,
                                             d.pad_top, d.pad_bottom, d.tail, d.dram_addr % beat, d.elem_step};
  auto it = dma_.find(key);
  if (it == dma_.end()) {
    DmaWork w = dma_work(c, p_);
    w.alone = alone_cycles(c, p_, timing_);
    it = dma_.emplace(key, w).first;
  }
  return it->second;
}

Result Model::run(const Program& prog, const Options& opt) {
  Result res;
  RunStats& st = res.stats;
  st.has_gated_macs = false;  // zero gating depends on the operand values, which this model never sees
  const auto& cmds = prog.commands;
  const int n = int(cmds.size());
  const double bw = timing_.bytes_per_cycle;
  const double latency = double(timing_.latency_cycles);

  std::vector<int> engine(static_cast<std::size_t>(n), 0);
  std::vector<std::int64_t> done(std::size_t(n), -1);
  std::vector<std::int64_t> start(std::size_t(n), -1), accept(std::size_t(n), -1);
  std::vector<std::int64_t> done_by_ord[3];
  for (int i = 0; i < n; ++i) engine[std::size_t(i)] = int(hw::engine_of(cmds[std::size_t(i)].op));

  std::deque<int> queue[3];
  int cur[3] = {-1, -1, -1};
  Flow flows[3];  // flows[0]: LD, flows[2]: PS (index by engine)
  int port = 0;
  std::int64_t port_free = 0;  // the port takes at most one command per cycle
  std::int64_t t = 0;          // next cycle the dispatch logic may act in
  double now = 0;              // the fluid flows have been advanced up to here
  int finished = 0;
  std::uint64_t last_run_done = 0;
  bool any_run = false;

  const auto add_traffic = [&](double t0, double t1, double bytes) {
    if (!opt.traffic || bytes <= 0 || t1 <= t0) return;
    if (!res.traffic.empty() && std::fabs(res.traffic.back().t1 - t0) < 1e-9) {
      TrafficSpan& last = res.traffic.back();
      const double r0 = last.bytes / (last.t1 - last.t0), r1 = bytes / (t1 - t0);
      if (std::fabs(r0 - r1) <= 1e-9 * std::max(r0, r1)) {
        last.t1 = t1;
        last.bytes += bytes;
        return;
      }
    }
    res.traffic.push_back({t0, t1, bytes});
  };

  const auto reallocate = [&]() {
    Flow* a = flows[0].transferring() && flows[0].active_from <= now + 1e-9 ? &flows[0] : nullptr;
    Flow* b = flows[2].transferring() && flows[2].active_from <= now + 1e-9 ? &flows[2] : nullptr;
    allocate(a, b, bw);
  };

  // Moves the flows forward to time `to` (no flow finishes or starts strictly before it).
  const auto advance = [&](double to) {
    if (to <= now) return;
    double bytes = 0;
    for (int e : {0, 2}) {
      Flow& f = flows[e];
      if (!f.transferring() || f.active_from > now + 1e-9) continue;
      const double d = std::min(f.left, f.speed * (to - now));
      bytes += d * double(f.work.bytes);
      f.left -= d;
      if (f.left < 1e-12) f.left = 0;
    }
    add_traffic(now, to, bytes);
    now = to;
  };

  const auto threshold_cycle = [&](const hw::Command& c) -> std::int64_t {
    // The cycle from which every wait threshold is met (done counters are registered).
    const std::uint32_t waits[3] = {c.wait_ld, c.wait_ex, c.wait_ps};
    std::int64_t at = 0;
    for (int e = 0; e < 3; ++e) {
      if (waits[e] == 0) continue;
      if (done_by_ord[e].size() < waits[e]) return kNever;
      at = std::max(at, done_by_ord[e][waits[e] - 1] + 1);
    }
    return at;
  };

  const auto complete = [&](int e, std::int64_t d) {
    const int i = cur[e];
    done[std::size_t(i)] = d;
    done_by_ord[e].push_back(d);
    ++finished;
  };

  while (finished < n) {
    // Earliest cycle at which the dispatch logic can act, from what is known now.
    std::int64_t next = kNever;
    if (port < n && queue[engine[std::size_t(port)]].size() < std::size_t(hw::kCmdQueueDepth))
      next = std::max(t, port_free);
    for (int e = 0; e < 3; ++e) {
      std::int64_t at = t;
      if (cur[e] >= 0) {
        const std::int64_t d = done[std::size_t(cur[e])];
        if (d < 0) continue;  // busy until an event tells when
        at = std::max(at, d + 1);
      }
      if (queue[e].empty()) {
        if (cur[e] >= 0) next = std::min(next, at);  // the engine frees its slot
        continue;
      }
      const int h = queue[e].front();
      at = std::max(at, accept[std::size_t(h)] + 1);
      const std::int64_t th = threshold_cycle(cmds[std::size_t(h)]);
      if (th == kNever) continue;
      next = std::min(next, std::max(at, th));
    }
    // Flow events: a transfer that starts or ends before that cycle.
    double flow_next = kInf;
    int flow_engine = -1;
    for (int e : {0, 2}) {
      const Flow& f = flows[e];
      if (f.cmd < 0) continue;
      // A transfer that rounding finished while advancing to a dispatch cycle ends now.
      double at = f.left <= 0                    ? now
                  : f.active_from > now + 1e-9 ? f.active_from
                  : f.speed > 0                ? now + f.left / f.speed
                                               : kInf;
      if (at < flow_next) {
        flow_next = at;
        flow_engine = e;
      }
    }
    if (flow_engine >= 0 && flow_next <= double(next)) {
      advance(flow_next);
      Flow& f = flows[flow_engine];
      // What is left is below the resolution of the clock (now is large): the transfer is over.
      if (f.active_from <= now + 1e-9 && f.left > 0 && f.left <= f.speed * 1e-6) f.left = 0;
      if (f.active_from > now + 1e-9 || f.left > 0) {
        // A transfer starts now (or a rounding remainder is left): reallocate and go on.
        reallocate();
        if (f.active_from <= now + 1e-9 && f.speed <= 0) throw std::logic_error("analytic model: a DMA flow got no bandwidth");
        continue;
      }
      // The transfer is over: the command completes after its tail.
      complete(flow_engine, std::int64_t(std::ceil(now - 1e-9 + f.tail)));
      f.cmd = -1;
      reallocate();
      continue;
    }
    if (next == kNever) throw std::logic_error(fmt::format("analytic model: the program deadlocks ({} of {} done)", finished, n));

    advance(double(next));
    t = next;
    // Cycle t: engines whose command completed before t are idle.
    for (int e = 0; e < 3; ++e)
      if (cur[e] >= 0 && done[std::size_t(cur[e])] >= 0 && done[std::size_t(cur[e])] < t) cur[e] = -1;
    const bool port_room = port < n && queue[engine[std::size_t(port)]].size() < std::size_t(hw::kCmdQueueDepth);
    // Starts (against the done counters registered at t).
    bool flows_changed = false;
    for (int e = 0; e < 3; ++e) {
      if (cur[e] >= 0 || queue[e].empty()) continue;
      const int h = queue[e].front();
      if (accept[std::size_t(h)] >= t || threshold_cycle(cmds[std::size_t(h)]) > t) continue;
      queue[e].pop_front();
      cur[e] = h;
      start[std::size_t(h)] = t;
      const hw::Command& c = cmds[std::size_t(h)];
      if (c.op == hw::Opcode::Run) {
        const RunTiming& rt = runs_.timing(c.run);
        done[std::size_t(h)] = t + std::int64_t(rt.cycles);
        done_by_ord[e].push_back(done[std::size_t(h)]);
        ++finished;
        st.run_cycles += rt.cycles;
        st.mac_cycles += rt.mac;
        st.pool_cycles += rt.pool;
        st.feeder_stall += rt.feeder_stall;
        st.weight_stall += rt.weight_stall;
        st.context_stall += rt.context_stall;
        st.pipeline += rt.pipeline;
        st.sram_reads[0] += rt.ifmap_reads;
        st.sram_reads[1] += rt.weight_reads;
        st.sram_reads[2] += rt.psum_reads;
        st.sram_writes[2] += rt.psum_writes;
        last_run_done = std::max<std::uint64_t>(last_run_done, std::uint64_t(done[std::size_t(h)]));
        any_run = true;
        continue;
      }
      Flow& f = flows[e];
      f = Flow{};
      f.cmd = h;
      f.work = dma(c);
      const DmaWork& w = f.work;
      switch (w.tensor) {
        case Tensor::ifmap: st.dram.ifmap += w.bytes; st.sram_writes[0] += w.sram_words; break;
        case Tensor::weights: st.dram.weights += w.bytes; st.sram_writes[1] += w.sram_words; break;
        case Tensor::psums_in: st.dram.psums_in += w.bytes; st.sram_writes[2] += w.sram_words; break;
        case Tensor::ofmap: st.dram.ofmap += w.bytes; st.sram_reads[2] += w.sram_words; break;
      }
      st.dram_requests += w.requests;
      // Alone, the command takes exactly alone() cycles: a lead cycle, its transfer, and for a
      // load the latency of its last response. The transfer is what another flow can slow down.
      const double whole = double(w.alone);
      f.tail = w.write || w.requests == 0 ? 0.0 : latency + kLoadTail;
      const double transfer = std::max(whole - kLead - f.tail, 1.0);
      f.tail = whole - kLead - transfer;
      f.alone = 1.0 / transfer;
      f.active_from = double(t) + kLead;
      flows_changed = true;
    }
    if (flows_changed) reallocate();
    // The command port (its queue count is the one registered at t, before this cycle's pops).
    if (port_room && t >= port_free) {
      const int e = engine[std::size_t(port)];
      queue[e].push_back(port);
      accept[std::size_t(port)] = t;
      ++port;
      port_free = t + 1;
    }
    t = t + 1;
  }

  std::int64_t last = -1;
  for (std::int64_t d : done) last = std::max(last, d);
  st.cycles = std::uint64_t(last + 1);
  st.tail = any_run ? st.cycles - 1 - last_run_done : st.cycles;
  st.dram_stall = st.cycles - st.run_cycles - st.tail;
  if (opt.commands) {
    res.commands.resize(std::size_t(n));
    for (int i = 0; i < n; ++i)
      res.commands[std::size_t(i)] = {accept[std::size_t(i)], start[std::size_t(i)], done[std::size_t(i)]};
  }
  return res;
}

}  // namespace flycol::analytic
