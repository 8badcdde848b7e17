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

// A load completes in the cycle after its last response, which comes `latency` cycles after the
// channel has transferred the load's last byte.
constexpr double kLoadTail = 1.0;  // plus the DRAM latency
// A load's chunk stays in its queue from its push until the cycle after its response: the DRAM
// latency, the wait for the bytes queued before it in the channel, and these cycles.
constexpr double kChunkResidence = 2.0;

// A DMA command while it issues memory requests. Its requests are spread evenly over its issue
// phase; bytes, requests and chunks are in the command's proportions (DmaWork).
struct Flow {
  int cmd = -1;
  DmaWork work;
  double left = 1.0;   // share of the command's requests still to issue
  double speed = 0;    // share per cycle under the current allocation
  double own = 0;      // the share per cycle the engine issues by itself (idle channel)
  // own, or less while its chunk queue waits for a busy channel or the other engine takes turns
  // at the port (Memory::reallocate)
  double limit = 0;
  double active_from = 0;  // cycle its first request fires
  // A load's chunk queue: the channel backlog its chunks wait for, until they have left.
  double held_q = 0, held_until = 0;
  // Cycles from the transfer of its last byte (a load) or its last request (a store) to its
  // completion: calibrated so that alone the command takes exactly its replayed duration.
  double tail = 0;
  double request_bytes() const { return double(work.bytes) / double(work.requests); }
  bool issuing() const { return cmd >= 0 && left > 0; }
};

// Shares the memory port (one request per cycle) and, while the channel takes no more than it
// transfers, its bandwidth `bw` (bytes per cycle; infinite while it has room) between the engines.
// The arbiter alternates when both request, so unconstrained flows get equal request rates; a flow
// limited by itself keeps its own speed and leaves the rest to the other.
void allocate(Flow* a, Flow* b, double bw) {
  if (!a && !b) return;
  if (!a || !b) {
    Flow* f = a ? a : b;
    f->speed = std::min(f->limit, bw / double(f->work.bytes));
    return;
  }
  a->speed = a->limit;
  b->speed = b->limit;
  const double bytes = a->speed * double(a->work.bytes) + b->speed * double(b->work.bytes);
  const double reqs = a->speed * double(a->work.requests) + b->speed * double(b->work.requests);
  if (bytes <= bw * (1 + 1e-12) && reqs <= 1 + 1e-12) return;
  const double qa = double(a->work.requests), qb = double(b->work.requests);
  const double ba = double(a->work.bytes), bb = double(b->work.bytes);
  const double x = std::min(bw / (ba / qa + bb / qb), 0.5);  // requests per cycle, each
  const auto rest = [&](Flow* capped, Flow* other) {
    const double qo = double(other->work.requests), bo = double(other->work.bytes);
    double s = std::min(other->limit, (1.0 - capped->speed * double(capped->work.requests)) / qo);
    s = std::min(s, (bw - capped->speed * double(capped->work.bytes)) / bo);
    other->speed = std::max(s, 0.0);
  };
  if (x / qa >= a->limit) {
    rest(a, b);
  } else if (x / qb >= b->limit) {
    rest(b, a);
  } else {
    a->speed = x / qa;
    b->speed = x / qb;
  }
}

// The memory port and the DRAM channel of sim/dram as fluids, with the two DMA engines' flows
// (0: LD, 1: PS). The channel holds q bytes accepted and not yet transferred, in order, and
// transfers bw per cycle. It takes a request while fewer than `backlog` bytes wait, so requests
// fill it to about `cap` = backlog + a request's bytes; a full channel takes only what it
// transfers, shared by the arbiter. So a request waits only for the bytes queued before it: a
// command that starts behind another one's backlog waits for it, and one whose requests are all
// in is not slowed by what comes after. A load's responses wait for what is queued before them,
// and its chunk queue (QD chunks) holds it back when they wait long.
class Memory {
public:
  explicit Memory(const DramTiming& t)
      : bw_(t.bytes_per_cycle), backlog_(double(t.backlog_bytes)), latency_(double(t.latency_cycles)) {}

  Flow flow[2];
  double now = 0;  // flows and channel advanced up to here
  double q = 0;

  double bw() const { return bw_; }
  bool active(int i) const { return flow[i].issuing() && flow[i].active_from <= now + 1e-9; }

  void reallocate() {
    Flow* a = active(0) ? &flow[0] : nullptr;
    Flow* b = active(1) ? &flow[1] : nullptr;
    cap_ = kInf;
    over_ = false;
    queue_held_ = false;
    if (!a && !b) return;
    double sum = 0, demand = 0;
    for (Flow* f : {a, b})
      if (f) {
        sum += f->request_bytes();
        f->limit = f->own;
        // A load's chunk queue (QD chunks) holds it back when its chunks wait long: at most QD
        // chunks per residence. The chunks in the queue wait for the channel as it was when they
        // were pushed: the fullest channel of the last residence counts until they have left. A
        // queue that holds every chunk of the command never fills; and where the own rate (the
        // replay, idle channel) beats the bound of an idle channel, the chunks do not all wait
        // (zero chunks at the head, bursts shorter than the queue): the rate is then scaled.
        if (!f->work.write && f->work.chunks > std::uint64_t(hw::kChunkQueueDepth)) {
          const double base = latency_ + kChunkResidence;
          if (f->held_until <= now + 1e-9 || q >= f->held_q) {
            f->held_q = q;
            f->held_until = q > 0 ? now + base + q / bw_ : 0.0;
          }
          const double idle = double(hw::kChunkQueueDepth) / (double(f->work.chunks) * base);
          const double held = idle * base / (base + f->held_q / bw_) * std::max(1.0, f->own / idle);
          if (held < f->limit) {
            f->limit = held;
            queue_held_ = true;
          }
        }
      }
    if (a && b) contend(*a, *b);
    for (Flow* f : {a, b})
      if (f) demand += f->limit * double(f->work.bytes);
    cap_ = backlog_ + sum / double((a ? 1 : 0) + (b ? 1 : 0));
    if (q > cap_ * (1 + 1e-9)) {
      over_ = true;
      for (Flow* f : {a, b})
        if (f) f->speed = 0;
      return;
    }
    allocate(a, b, q >= cap_ * (1 - 1e-9) && demand > bw_ ? bw_ : kInf);
  }

  // Both engines request: the arbiter alternates, so a request that follows the engine's own
  // request of the previous cycle waits a cycle whenever the other engine requests too (zero
  // chunks and waits for responses leave the port to the other engine). Each engine's cycles per
  // unit of work grow by its back-to-back requests times the share of cycles in which the other
  // one requests (waiting included); a few fixed-point steps settle both.
  static void contend(Flow& a, Flow& b) {
    const double ta = 1.0 / a.limit, tb = 1.0 / b.limit;
    const double da = double(a.work.back_to_back), db = double(b.work.back_to_back);
    const double na = double(a.work.requests), nb = double(b.work.requests);
    double pa = std::min(1.0, na / ta), pb = std::min(1.0, nb / tb);
    double ca = ta, cb = tb;
    for (int k = 0; k < 8; ++k) {
      ca = ta + da * pb;
      cb = tb + db * pa;
      pa = std::min(1.0, (na + da * pb) / ca);
      pb = std::min(1.0, (nb + db * pa) / cb);
    }
    a.limit = 1.0 / ca;
    b.limit = 1.0 / cb;
  }

  double inflow() const {
    double r = 0;
    for (int i : {0, 1})
      if (active(i)) r += flow[i].speed * double(flow[i].work.bytes);
    return r;
  }

  // The next time the rates change by themselves: an issue phase that starts or ends (`which` 0
  // or 1), or the channel that fills up to its cap, drains down to it, or empties while a chunk
  // queue waits for it (`which` 2). kInf if none.
  double next_event(int* which) const {
    double next = kInf;
    *which = -1;
    for (int i : {0, 1}) {
      const Flow& f = flow[i];
      if (f.cmd < 0) continue;
      // An issue phase that rounding finished while advancing to a dispatch cycle ends now.
      const double at = f.left <= 0                    ? now
                        : f.active_from > now + 1e-9 ? f.active_from
                        : f.speed > 0                ? now + f.left / f.speed
                                                     : kInf;
      if (at < next) {
        next = at;
        *which = i;
      }
    }
    const double in = inflow();
    double at = kInf;
    int kind = 2;
    if (over_) {
      at = now + (q - cap_) / bw_;
    } else if (in > bw_ * (1 + 1e-12) && q < cap_) {
      at = now + (cap_ - q) / (in - bw_);
    } else if (queue_held_ && q > 0 && in < bw_) {
      at = now + q / (bw_ - in);  // the channel empties
    }
    for (int i : {0, 1})  // a held queue's chunks of a fuller channel have left
      if (active(i) && flow[i].held_until > now + 1e-9 && flow[i].held_until < at) {
        at = flow[i].held_until;
        kind = 3;
      }
    if (at < next) {
      next = at;
      *which = kind;
    }
    return next;
  }

  // The channel reached its cap or emptied (next_event's 2), or a held chunk queue's chunks of
  // a fuller channel have left (3).
  void channel_event(int which) {
    if (which == 2 && q > 0) q = q > cap_ * 0.5 ? cap_ : 0.0;
    reallocate();
  }

  // Moves flows and channel forward to `to` (no event strictly before it); `traffic(t0, t1,
  // bytes)` receives what the channel transfers.
  template <class Traffic>
  void advance(double to, Traffic&& traffic) {
    if (to <= now) return;
    const double dt = to - now, in = inflow();
    for (int i : {0, 1}) {
      Flow& f = flow[i];
      if (!active(i)) continue;
      f.left -= std::min(f.left, f.speed * dt);
      if (f.left < 1e-12) f.left = 0;
    }
    if (q > 0 && in < bw_ && q < (bw_ - in) * dt) {  // the channel empties within the step
      const double empty = now + q / (bw_ - in);
      traffic(now, empty, bw_ * (empty - now));
      traffic(empty, to, in * (to - empty));
      q = 0;
    } else {
      const double q1 = std::max(0.0, q + (in - bw_) * dt);
      traffic(now, to, q + in * dt - q1);
      q = q1;
    }
    now = to;
  }

  // Cycles from now until flow i's completion once its last request is in: a load's last byte
  // leaves the channel after everything queued before it.
  double finish(int i) const { return (flow[i].work.write ? 0.0 : q / bw_) + flow[i].tail; }

  // The tail (Flow::tail) that makes `w`, issued from `lead` cycles after its start at its own
  // rate, take exactly w.alone cycles on an idle channel by the rules above.
  double calibrate(const DmaWork& w) const {
    Memory m(*this);
    m.now = 0;
    m.q = 0;
    m.flow[1] = Flow{};
    Flow& f = m.flow[0];
    f = Flow{};
    f.cmd = 0;
    f.work = w;
    f.own = 1.0 / double(w.issue);
    f.active_from = double(w.lead);
    f.tail = w.write ? 0.0 : latency_ + kLoadTail;
    m.reallocate();
    for (int guard = 0; guard < 100000; ++guard) {
      int which = -1;
      const double at = m.next_event(&which);
      if (which < 0) break;
      m.advance(at, [](double, double, double) {});
      if (which >= 2) {
        m.channel_event(which);
        continue;
      }
      if (f.active_from <= m.now + 1e-9 && f.left > 0 && f.left <= f.speed * 1e-6) f.left = 0;
      if (f.left > 0) {
        m.reallocate();
        continue;
      }
      return f.tail + double(w.alone) - (m.now + m.finish(0));
    }
    throw std::logic_error("analytic model: the DMA flow alone does not finish");
  }

private:
  double bw_, backlog_, latency_;
  double cap_ = kInf;
  bool over_ = false;        // q above the cap of the requests now offered: nothing is taken until it drains
  bool queue_held_ = false;  // a load's chunk queue waits for the channel
};

}  // namespace

Model::Model(const hw::HwParams& p, const DramTiming& timing, PoolFeed pool_feed)
    : p_(p), timing_(timing), runs_(p, pool_feed) {
  if (!(timing.bytes_per_cycle > 0)) throw std::invalid_argument("analytic model: DRAM bandwidth must be positive");
}

const DmaWork& Model::dma(const hw::Command& c) {
  const hw::DmaDesc& d = c.dma;
  const std::uint64_t beat = std::uint64_t(hw::kBeatBytes);
  const std::array<std::uint64_t, 13> key = {std::uint64_t(c.op) | (std::uint64_t(d.dst_ifmap) << 8), d.n_planes, d.plane_stride % beat, d.n_rows,
                                             d.row_stride % beat, d.row_len, d.pad_left, d.pad_right,
                                             d.pad_top, d.pad_bottom, d.tail, d.dram_addr % beat, d.elem_step};
  auto it = dma_.find(key);
  if (it == dma_.end()) {
    DmaWork w = dma_work(c, p_);
    w.alone = alone_cycles(c, p_, timing_);
    // The engine's own request rate: the same replay on a channel that is never busy.
    DramTiming unlimited = timing_;
    unlimited.bytes_per_cycle = 1e6;
    const DmaReplay own = replay(c, p_, unlimited);
    w.lead = own.first;
    w.issue = own.last - own.first + 1;
    w.back_to_back = own.back_to_back;
    if (w.requests > 0) w.tail = Memory(timing_).calibrate(w);
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

  std::vector<int> engine(static_cast<std::size_t>(n), 0);
  std::vector<std::int64_t> done(std::size_t(n), -1);
  std::vector<std::int64_t> start(std::size_t(n), -1), accept(std::size_t(n), -1);
  std::vector<std::int64_t> done_by_ord[3];
  for (int i = 0; i < n; ++i) engine[std::size_t(i)] = int(hw::engine_of(cmds[std::size_t(i)].op));

  std::deque<int> queue[3];
  int cur[3] = {-1, -1, -1};
  int port = 0;
  std::int64_t port_free = 0;  // the port takes at most one command per cycle
  std::int64_t t = 0;          // next cycle the dispatch logic may act in
  Memory mem(timing_);
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

  // The move of a fused tile, a STORE_PSUMS into the ifmap buffer (section 7.6), cannot fire a
  // chunk in a cycle the LD engine writes the ifmap SRAM: the LD engine keeps the ifmap port.
  // Each LD command that writes the ifmap buffer during the move counts with its words spread
  // evenly over its own duration (it has the memory to itself then: the PS engine is busy with the
  // move), from its first response (a fill of padding values: from its start) to its completion;
  // a load already running when the move starts counts with the words it has still to write, from
  // the move's start. Its completion is first predicted (its duration alone) and, when it comes,
  // the move is settled again with the real one.
  struct IfmapWriter {
    int cmd = -1;
    double from = 0, to = 0, writes = 0;
  };
  int move = -1;  // the running move, or -1
  std::int64_t move_start = 0;
  std::vector<IfmapWriter> move_writers;
  const auto ifmap_writer = [&](int i) -> IfmapWriter {
    const DmaWork& w = dma(cmds[std::size_t(i)]);
    const double s = double(start[std::size_t(i)]);
    const double from = s + (w.requests > 0 ? double(w.lead) + double(timing_.latency_cycles) : 0.0);
    return {i, from, std::max(from + 1.0, s + double(w.alone)), double(w.sram_words)};
  };
  const auto writes_ifmap = [&](int i) { return cmds[std::size_t(i)].op == hw::Opcode::LoadIfmap; };
  // The move's completion: a replay of its reader and writer in which a chunk cannot fire in a
  // cycle the LD engine writes the ifmap SRAM, each writer's words evenly spaced over its span.
  const auto settle_move = [&] {
    const auto port_taken = [&](std::uint64_t cycle) {
      const double at = double(move_start) + double(cycle);  // the replay's cycle, in program cycles
      for (const IfmapWriter& wr : move_writers) {
        if (wr.writes <= 0 || at + 1 <= wr.from || at >= wr.to) continue;
        const double step = (wr.to - wr.from) / wr.writes;
        // The first write at or after `at`: writes sit at from + (k + 0.5) * step.
        const double k = std::max(0.0, std::ceil((at - wr.from) / step - 0.5));
        if (k < wr.writes && wr.from + (k + 0.5) * step < at + 1) return true;
      }
      return false;
    };
    const std::int64_t at = move_start + std::int64_t(move_cycles(cmds[std::size_t(move)], p_, port_taken));
    done[std::size_t(move)] = at;
    done_by_ord[2].back() = at;  // the PS engine runs one command at a time: the move's entry
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
    // Memory events: an issue phase that starts or ends before that cycle, or the channel.
    int which = -1;
    const double flow_next = mem.next_event(&which);
    if (which >= 0 && flow_next <= double(next)) {
      mem.advance(flow_next, add_traffic);
      if (which >= 2) {
        mem.channel_event(which);
        continue;
      }
      Flow& f = mem.flow[which];
      const int e = which == 0 ? 0 : 2;
      // What is left is below the resolution of the clock (now is large): the issue phase is over.
      if (f.active_from <= mem.now + 1e-9 && f.left > 0 && f.left <= f.speed * 1e-6) f.left = 0;
      if (f.active_from > mem.now + 1e-9 || f.left > 0) {
        // An issue phase starts now (or a rounding remainder is left): reallocate and go on.
        mem.reallocate();
        continue;
      }
      // The last request is in: a store completes after its tail, a load once the channel has
      // transferred everything before and including its last request (in order) and its tail.
      const std::int64_t d = std::int64_t(std::ceil(mem.now - 1e-9 + mem.finish(which)));
      const int finishing = cur[e];
      complete(e, std::max(d, start[std::size_t(cur[e])] + 1));
      // A load that wrote the ifmap buffer during a move still running: its real end.
      if (e == 0 && move >= 0 && done[std::size_t(move)] >= d)
        for (IfmapWriter& wr : move_writers)
          if (wr.cmd == finishing) {
            wr.to = std::max(wr.from + 1.0, double(done[std::size_t(finishing)]));
            settle_move();
          }
      f.cmd = -1;
      mem.reallocate();
      continue;
    }
    if (next == kNever) throw std::logic_error(fmt::format("analytic model: the program deadlocks ({} of {} done)", finished, n));

    mem.advance(double(next), add_traffic);
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
      const DmaWork& w = dma(c);
      switch (w.tensor) {
        case Tensor::ifmap: st.sram_writes[0] += w.sram_words; break;
        case Tensor::weights: st.sram_writes[1] += w.sram_words; break;
        case Tensor::psums_in: st.sram_writes[2] += w.sram_words; break;
        case Tensor::ofmap: st.sram_reads[2] += w.sram_words; break;
      }
      // DRAM bytes by the region the command addresses, as the SystemC DRAM model counts them
      // (a convolution's loads read their own tensor's region; max pooling's backward pass loads x
      // from the weights region with LOAD_IFMAP and dy from the ifmap region with LOAD_PSUMS).
      if (w.write) {
        st.dram.ofmap += w.bytes;
      } else if (c.dma.dram_addr >= prog.dram.ofmap_base) {
        st.dram.psums_in += w.bytes;
      } else if (prog.dram.weights_bytes != 0 && c.dma.dram_addr >= prog.dram.weights_base) {
        st.dram.weights += w.bytes;
      } else {
        st.dram.ifmap += w.bytes;
      }
      st.sram_writes[0] += w.ifmap_writes;  // a store into the ifmap buffer (section 7.6)
      st.dram_requests += w.requests;
      if (e == 0 && move >= 0 && done[std::size_t(move)] >= t && writes_ifmap(h)) {  // a load during a move
        move_writers.push_back(ifmap_writer(h));
        settle_move();
      }
      if (w.requests == 0) {  // zeros only, or a move: the memory is not involved
        done[std::size_t(h)] = t + std::int64_t(w.alone);
        done_by_ord[e].push_back(done[std::size_t(h)]);
        ++finished;
        if (w.to_ifmap) {
          move = h;
          move_start = t;
          move_writers.clear();
          if (cur[0] >= 0 && writes_ifmap(cur[0])) {
            IfmapWriter wr = ifmap_writer(cur[0]);
            if (mem.flow[0].cmd == cur[0]) {  // the words of its requests still to issue or in flight
              const Flow& f = mem.flow[0];
              wr.writes *= std::clamp(f.left + double(timing_.latency_cycles) * f.speed, 0.0, 1.0);
              wr.from = std::max(wr.from, double(t));
              wr.to = std::max(wr.to, wr.from + 1.0);
            }
            move_writers.push_back(wr);
          }
          settle_move();
        }
        continue;
      }
      // The engine issues its requests from `lead` cycles after the start at its own rate, which
      // the port and the channel may hold back; the tail makes the command alone take exactly
      // its replayed duration.
      Flow& f = mem.flow[e == 0 ? 0 : 1];
      f = Flow{};
      f.cmd = h;
      f.work = w;
      f.own = 1.0 / double(w.issue);
      f.active_from = double(t) + double(w.lead);
      f.tail = w.tail;
      flows_changed = true;
    }
    if (flows_changed) mem.reallocate();
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

  if (mem.q > 0) add_traffic(mem.now, mem.now + mem.q / mem.bw(), mem.q);  // writes the channel still holds
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
