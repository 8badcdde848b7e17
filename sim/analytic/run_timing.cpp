// RUN timing: a per-row feeder model (exact lane selection per word offset, memoized) feeding a
// per-group max-plus recursion for the lane FIFOs and the issue stage. See README.md, "RUN".
#include "sim/analytic/run_timing.h"

#include <algorithm>
#include <deque>
#include <memory>

#include "hw/feeder/feeder_params.h"

namespace flycol::analytic {

namespace {

// The divider of an average pooling RUN's windows (docs/microarchitecture.md section 16, "The
// divisor" and the pool lane's divider), written from the spec apart from the pooling unit's core:
// the windows of context (cy, cx) take D cycles (21 binary16, 16 integer: radix 4), or one when every lane's
// divisor is 0 or a power of two (the lanes shift instead of dividing).
class PoolDivider {
public:
  PoolDivider(const hw::RunDesc& r, const hw::HwParams& p)
      : r_(r), rows_(p.rows), full_(p.arithmetic == Arithmetic::fp16 ? 21 : 16) {}

  // Cycles of the RUN's window k (windows in the unit's order: n_c per context, contexts cx inner).
  std::int64_t cycles(std::uint64_t k) {
    const std::uint64_t ctx = k / std::max<std::uint64_t>(1, r_.n_c);
    if (ctx != ctx_) {
      ctx_ = ctx;
      cycles_ = context_cycles(std::uint32_t(ctx / r_.n_cx), std::uint32_t(ctx % r_.n_cx));
    }
    return cycles_;
  }

private:
  std::int64_t context_cycles(std::uint32_t cy, std::uint32_t cx) const {
    const auto overlap = [](std::int64_t start, std::int64_t len, std::int64_t lo, std::int64_t hi) {
      return std::max<std::int64_t>(0, std::min(start + len, hi) - std::max(start, lo));
    };
    const std::int64_t rows = overlap(std::int64_t(cy) * r_.pool_sy, r_.divisor_ky(), r_.pool_y0, r_.pool_y1);
    for (int l = 0; l < rows_; ++l) {
      const std::int64_t xs = (std::int64_t(cx) * rows_ + l) * r_.divisor_sx();
      const std::int64_t n = rows * overlap(xs, r_.divisor_kx(), r_.pool_x0, r_.pool_x1);
      if ((n & (n - 1)) != 0) return full_;
    }
    return 1;
  }

  const hw::RunDesc& r_;
  int rows_;
  std::int64_t full_;
  std::uint64_t ctx_ = ~std::uint64_t(0);
  std::int64_t cycles_ = 0;
};

// The partial-sums manager's side of a RUN with preload (docs/microarchitecture.md 9.6), cycle by
// cycle from the RUN's first cycle: the preload queue (PQD words, one SRAM read per cycle, counted
// two cycles after the read), the claims of window tokens, the array's pops, and result writes,
// which win the single port. It answers when a window token that takes SRAM preload may go: the
// first cycle, from a given one, with COLS unclaimed words. Windows are opened in time order, so
// the model only ever steps forward.
class PsumPort {
public:
  PsumPort(const hw::HwParams& p, std::uint64_t n_ctx)
      : rows_(p.rows), cols_(p.cols), pqd_(p.preload_queue_depth()), n_ctx_(n_ctx),
        reads_left_(n_ctx * std::uint64_t(p.cols)) {}

  // Cycle of window token k: the first cycle from `earliest` it may go (COLS unclaimed words if it
  // takes SRAM preload); the model records its claim, pops and result writes.
  std::int64_t open_window(std::uint64_t k, std::int64_t earliest) {
    advance_to(earliest);
    const bool sram = k < n_ctx_;
    while (sram && count_ - claimed_ < cols_) step();
    const std::int64_t t = x_;
    if (sram) {
      claim_ = true;
      pops_.push_back(t + cols_ + 1);  // pops in t+COLS+1 .. t+2*COLS
    }
    if (k >= std::uint64_t(hw::kFirstResultWindow)) results_.push_back(t + cols_ + rows_);  // results in t+COLS+ROWS .. t+2*COLS+ROWS-1
    return t;
  }

private:
  void advance_to(std::int64_t x) {
    while (x_ < x) step();
  }
  static bool in_window(std::deque<std::int64_t>& starts, std::int64_t x, int len) {
    while (!starts.empty() && x >= starts.front() + len) starts.pop_front();
    return !starts.empty() && x >= starts.front();
  }
  // One cycle x_ of PsumManagerCore's port rule, then the edge.
  void step() {
    const bool pop = in_window(pops_, x_, cols_);
    const bool push = in_window(results_, x_, cols_);
    const bool write = rq_ > 0;
    const bool read = !write && reads_left_ > 0 && count_ + (inflight_ ? 1 : 0) < pqd_;
    count_ += (inflight_ ? 1 : 0) - (pop ? 1 : 0);
    claimed_ += (claim_ ? cols_ : 0) - (pop ? 1 : 0);
    rq_ += (push ? 1 : 0) - (write ? 1 : 0);
    inflight_ = read;
    reads_left_ -= read ? 1 : 0;
    claim_ = false;
    ++x_;
  }

  int rows_, cols_, pqd_;
  std::uint64_t n_ctx_, reads_left_;
  std::int64_t x_ = 1;  // the cycle the state below is at the start of (the RUN's first is 1)
  int count_ = 0, claimed_ = 0, rq_ = 0;
  bool inflight_ = false, claim_ = false;
  std::deque<std::int64_t> pops_, results_;  // first pop / result cycle of each window, oldest first
};

}  // namespace

RunTimer::RunTimer(const hw::HwParams& p, PoolFeed pool_feed) : p_(p), pool_feed_(pool_feed) {}

const RunTiming& RunTimer::timing(const hw::RunDesc& r) {
  const Key k{r.preload, r.n_kg,    r.n_cy,    r.n_cx,   r.n_c,       r.n_ky,  r.n_kx,  r.step_cx,
              r.step_cy, r.step_c,  r.step_ky, r.region, r.lane_stride, r.pattern,
              r.n_kxc,   r.step_kxc, r.region_kxc, r.pattern_kxc, r.pack_w, r.pack_r, r.pack_jump,
              r.pool_op, r.pool_sy, r.pool_y0, r.pool_x0, r.pool_y1, r.pool_x1};
  auto it = cache_.find(k);
  if (it == cache_.end()) it = cache_.emplace(k, compute(r)).first;
  return it->second;
}

std::vector<RunTimer::RowShape> RunTimer::row_shapes(const hw::RunDesc& r, std::uint64_t pattern,
                                                     std::uint32_t region, std::uint32_t ox) const {
  const int B = p_.bus_elems, M = p_.m, R = p_.rows;
  std::vector<int> px;  // pattern bit positions, ascending: kernel columns in order
  for (int i = 0; i < 64; ++i)
    if ((pattern >> i) & 1u) px.push_back(i);
  const int kx = int(px.size());  // the columns of this region row (a chunk of the kernel row)

  std::vector<RowShape> shapes(std::size_t(B * M));
  std::vector<std::int64_t> lane_off(static_cast<std::size_t>(R), 0);  // pixel packing: depends on ox
  for (int l = 0; l < R; ++l)
    lane_off[std::size_t(l)] = hw::lane_local_offset(l, r.lane_stride, r.pack_w, r.pack_jump, ox);
  for (int go = 0; go < B; ++go) {
    const int words = (go + int(region) - 1) / B + 1;
    for (int f0 = 0; f0 < M; ++f0) {
      RowShape& s = shapes[std::size_t(go * M + f0)];
      s.reads = words;
      s.columns = kx;
      s.groups = (f0 + kx) / M;
      s.word_cycles.assign(std::size_t(words), 1);
      s.pushes.clear();
      s.flush.clear();
      // Each lane's pushes word by word, and the lanes merged per word: run (l, j) is lane l's
      // pushes in word j, rep[l] the first lane with the same run in the current word.
      std::vector<std::vector<LanePush>> runs(std::size_t(R) * std::size_t(words));
      std::vector<int> last_len(std::size_t(R), 1);
      for (int l = 0; l < R; ++l) {
        int f = f0;
        for (int j = 0; j < words; ++j) {
          std::vector<LanePush>& run = runs[std::size_t(l) * std::size_t(words) + std::size_t(j)];
          const std::int64_t base = go + lane_off[std::size_t(l)] - std::int64_t(j) * B;
          // Elements of this lane in word j: kernel columns x with 0 <= base + px[x] < B.
          int x = 0;
          while (x < kx && base + px[std::size_t(x)] < 0) ++x;
          int end = x;
          while (end < kx && base + px[std::size_t(end)] < B) ++end;
          int c = 0;  // the lane's SEL cycle in this word
          while (x < end) {
            const int k = std::min(end - x, M - f);
            x += k;
            f += k;
            if (f == M) {
              run.push_back(LanePush{j, (f0 + x) / M - 1, l, 1, c, 0});
              f = 0;
            }
            if (x < end) ++c;
          }
          for (LanePush& u : run) u.len = c + 1;
          int& wc = s.word_cycles[std::size_t(j)];
          wc = std::max(wc, c + 1);
          if (j + 1 == words) last_len[std::size_t(l)] = c + 1;
        }
      }
      const auto same = [](const std::vector<LanePush>& u, const std::vector<LanePush>& v) {
        if (u.size() != v.size()) return false;
        for (std::size_t i = 0; i < u.size(); ++i)
          if (u[i].group != v[i].group || u[i].at != v[i].at || u[i].len != v[i].len) return false;
        return true;
      };
      std::vector<int> rep(std::size_t(R), 0);
      for (int j = 0; j < words; ++j) {
        const auto run_of = [&](int l) -> std::vector<LanePush>& {
          return runs[std::size_t(l) * std::size_t(words) + std::size_t(j)];
        };
        for (int l = 0; l < R; ++l) {
          int m = 0;
          while (m < l && !(rep[std::size_t(m)] == m && same(run_of(m), run_of(l)))) ++m;
          rep[std::size_t(l)] = m;
          if (m == l) continue;
          for (LanePush& u : run_of(m)) ++u.lanes;
          run_of(l).clear();
        }
        for (int l = 0; l < R; ++l)
          for (const LanePush& u : run_of(l)) s.pushes.push_back(u);
        // A partial last group of the RUN is pushed with a lane's last take from the last word (in
        // its first cycle when it takes nothing from it), after its other pushes there.
        if (j + 1 == words)
          for (int l = 0; l < R; ++l) {
            const int m = rep[std::size_t(l)];
            if (m == l)
              s.flush.push_back(LanePush{j, s.groups, l, 1, last_len[std::size_t(l)] - 1, last_len[std::size_t(l)]});
            else
              for (LanePush& u : s.flush)
                if (u.lane == m) ++u.lanes;
          }
      }
      std::sort(s.pushes.begin(), s.pushes.end(), [](const LanePush& u, const LanePush& v) {
        return std::tie(u.word, u.group, u.lane) < std::tie(v.word, v.group, v.lane);
      });
      s.cycles = 0;
      for (const int wc : s.word_cycles) s.cycles += wc;
    }
  }
  return shapes;
}

RunTiming RunTimer::strided_pool(const hw::RunDesc& r) const {
  RunTiming out;
  const std::int64_t B = p_.bus_elems;
  const int R = p_.rows;
  const bool avg = r.pool_divides();  // average or masked sum: windows through the divider
  PoolDivider divider(r, p_);
  std::int64_t last_divider = 0;  // the divider cycles of the previous average window
  const std::uint64_t Lw = r.window_len();
  const auto columns = [](std::uint64_t pattern) {
    std::vector<std::int64_t> px;
    for (int i = 0; i < 64; ++i)
      if ((pattern >> i) & 1u) px.push_back(i);
    return px;
  };
  const std::vector<std::int64_t> px_last = columns(r.pattern), px_kxc = columns(r.pattern_kxc);
  std::vector<std::int64_t> lane_off(std::size_t(R), 0), words(std::size_t(R), 0);
  std::int64_t t = 0, last_window_end = 0;
  std::uint64_t e = 0, stall = 0, context_stall = 0;
  for (std::uint32_t cy = 0; cy < r.n_cy; ++cy)
    for (std::uint32_t cx = 0, ox = 0, cx_off = 0; cx < r.n_cx; ++cx) {
      for (int l = 0; l < R; ++l)
        lane_off[std::size_t(l)] = hw::lane_local_offset(l, r.lane_stride, r.pack_w, r.pack_jump, ox);
      for (std::uint32_t c = 0; c < r.n_c; ++c)
        for (std::uint32_t ky = 0; ky < r.n_ky; ++ky)
          for (std::uint32_t q = 0; q < r.n_kxc; ++q) {
            const std::int64_t start = std::int64_t(cx_off) + std::int64_t(cy) * r.step_cy +
                                       std::int64_t(c) * r.step_c + std::int64_t(ky) * r.step_ky +
                                       std::int64_t(q) * r.step_kxc;
            for (const std::int64_t x : q + 1 == r.n_kxc ? px_last : px_kxc) {
              // The step's words: one per distinct word among the lanes' elements.
              for (int l = 0; l < R; ++l) words[std::size_t(l)] = (start + lane_off[std::size_t(l)] + x) / B;
              std::sort(words.begin(), words.end());
              const std::int64_t n = std::unique(words.begin(), words.end()) - words.begin();
              out.ifmap_reads += std::uint64_t(n);
              // Reads from cycle t + 1; the step issues in the cycle after its last word's read.
              std::int64_t at = t + n + 1;
              stall += std::uint64_t(n - 1);
              if (avg && (e + 1) % Lw == 0) {  // the divider must have finished the previous window
                const std::int64_t w = std::max(at, last_window_end + last_divider);
                context_stall += std::uint64_t(w - at);
                at = w;
                last_window_end = at;
                last_divider = divider.cycles(e / Lw);
              }
              t = at - 1;  // the next step's reads may start while this one issues
              ++e;
            }
          }
      ox += r.pack_r;
      cx_off += r.step_cx;
      if (r.pack_w != 0 && ox >= r.pack_w) {
        ox -= r.pack_w;
        cx_off += r.pack_jump;
      }
    }
  // The drain as the feeder's pooling RUN: the last result a cycle (average: D more) after the last
  // element, written in the next.
  const std::int64_t last_issue = t + 1;
  out.pool = e;
  out.feeder_stall = stall;
  out.context_stall = context_stall;
  out.cycles = std::uint64_t(last_issue + 2 + (avg ? last_divider : 0));
  out.pipeline = out.cycles - out.pool - out.feeder_stall - out.context_stall;
  out.psum_writes = std::uint64_t(r.n_c) * r.n_cy * r.n_cx;
  return out;
}

RunTiming RunTimer::compute(const hw::RunDesc& r) const {
  if (r.pooling() && pool_feed_ == PoolFeed::strided) return strided_pool(r);
  RunTiming out;
  const int B = p_.bus_elems, M = p_.m, FD = p_.lane_fifo_depth, R = p_.rows;
  // Window tokens at least COLS apart (two reserve banks, section 9.4); a window's results leave
  // the array's east edge from COLS+ROWS cycles after it, over COLS cycles.
  const std::int64_t window_gap = std::int64_t(p_.cols);
  const std::uint64_t L = r.steps_per_context();
  const std::uint64_t n_ctx = r.contexts();
  const std::uint64_t E = L * n_ctx;  // elements per lane = MAC steps

  // Issue stage: FILL, FILL, SWAP0 from the RUN's first cycle (s + 1), COLS apart; with preload a
  // window that takes SRAM preload waits for COLS words in the preload queue (the port model).
  std::unique_ptr<PsumPort> port;
  if (r.preload) port = std::make_unique<PsumPort>(p_, n_ctx);
  std::uint64_t n_windows = 0;
  const auto open_window = [&](std::int64_t earliest) {
    const std::int64_t t = port ? port->open_window(n_windows, earliest) : earliest;
    ++n_windows;
    return t;
  };
  // A pooling RUN (section 16) has no FILL / SWAP0: its first element step may issue in the RUN's
  // first cycle. The last element of an average window waits until the divider is past the previous
  // window's last element by that window's divider cycles (D, or 1 for a shift: the unit's ready rule).
  const bool pool = r.pooling();
  const bool avg = r.pool_divides();  // average or masked sum: windows through the divider
  PoolDivider divider(r, p_);
  const std::uint64_t Lw = r.window_len();
  std::int64_t last_window_end = 0;  // issue cycle of the previous window's last element
  std::int64_t last_divider = 0;     // ... and its divider cycles (0: no window yet)
  const std::int64_t fill0 = pool ? 0 : open_window(1);
  const std::int64_t fill1 = pool ? 0 : open_window(fill0 + window_gap);
  const std::int64_t swap0 = pool ? 0 : open_window(fill1 + window_gap);

  // Region rows of the last (or only) chunk of a kernel row, and of the other chunks, per context
  // column ox (pixel packing: the lanes' offsets depend on it; one set without), made when needed.
  std::map<std::uint32_t, std::pair<std::vector<RowShape>, std::vector<RowShape>>> shapes_by_ox;
  std::vector<std::int64_t> pops(std::size_t(FD), 0);  // pop cycle of group G, ring by G % FD

  std::int64_t last_issue = swap0;  // no step before swap0 + 1
  std::int64_t window = swap0;      // the last window token
  std::uint64_t e = 0;              // next element (step) to issue
  std::uint64_t g = 0;              // next group to complete
  std::uint64_t feeder_stall = 0, context_stall = 0;
  std::int64_t feed = 1;            // cycle of the next row's first read
  // Per row: each group's pushes so far and its last push; per lane: its holds in the current word
  // (valid while delay_word is that word's number).
  std::vector<int> pushed;
  std::vector<std::int64_t> complete;
  std::vector<std::int64_t> delay(std::size_t(p_.rows), 0);
  std::vector<std::uint64_t> delay_word(std::size_t(p_.rows), ~std::uint64_t(0));
  std::uint64_t word_no = 0;        // words read so far in the RUN

  // Issues every element of group `g` (elements e .. e_end-1), available from cycle `avail`.
  const auto issue_group = [&](std::uint64_t e_end, std::int64_t avail) {
    for (; e < e_end; ++e) {
      std::int64_t t = std::max(last_issue + 1, avail);
      feeder_stall += std::uint64_t(t - (last_issue + 1));
      if (pool) {
        if (avg && (e + 1) % Lw == 0) {  // a window's last element: the divider must be free
          const std::int64_t w = std::max(t, last_window_end + last_divider);
          context_stall += std::uint64_t(w - t);
          t = w;
          last_window_end = t;
          last_divider = divider.cycles(e / Lw);
        }
        last_issue = t;
        continue;
      }
      if ((e + 1) % L == 0) {  // the context's last step is a window token
        const std::int64_t w = open_window(std::max(t, window + window_gap));
        context_stall += std::uint64_t(w - t);
        t = w;
        window = t;
      }
      last_issue = t;
    }
    pops[std::size_t(g % std::uint64_t(FD))] = last_issue;
    ++g;
  };

  std::uint64_t row_elems = 0;  // elements per lane before the current row
  for (std::uint32_t kg = 0; kg < r.n_kg; ++kg)
    for (std::uint32_t cy = 0; cy < r.n_cy; ++cy)
      for (std::uint32_t cx = 0, ox = 0, cx_off = 0; cx < r.n_cx; ++cx) {
        auto it = shapes_by_ox.find(ox);
        if (it == shapes_by_ox.end())
          it = shapes_by_ox
                   .emplace(ox, std::make_pair(row_shapes(r, r.pattern, r.region, ox),
                                               r.n_kxc > 1 ? row_shapes(r, r.pattern_kxc, r.region_kxc, ox)
                                                           : std::vector<RowShape>{}))
                   .first;
        const std::vector<RowShape>& shapes_last = it->second.first;
        const std::vector<RowShape>& shapes_kxc = it->second.second;
        for (std::uint32_t c = 0; c < r.n_c; ++c)
          for (std::uint32_t ky = 0; ky < r.n_ky; ++ky)
            for (std::uint32_t q = 0; q < r.n_kxc; ++q) {
              const bool lastc = q + 1 == r.n_kxc;
              const std::uint64_t start = std::uint64_t(cx_off) + std::uint64_t(cy) * r.step_cy +
                                          std::uint64_t(c) * r.step_c + std::uint64_t(ky) * r.step_ky +
                                          std::uint64_t(q) * r.step_kxc;
              const int go = int(start & std::uint64_t(B - 1));
              const int f0 = int(row_elems % std::uint64_t(M));
              const RowShape& s = (lastc ? shapes_last : shapes_kxc)[std::size_t(go * M + f0)];
              const std::uint64_t kx = std::uint64_t(s.columns);
              out.ifmap_reads += std::uint64_t(s.reads);
              // The RUN's last read flushes a partial last group (section 9.2).
              const bool flush = row_elems + kx == E && E % std::uint64_t(M) != 0;
              const int n_groups = s.groups + (flush ? 1 : 0);
              const std::uint64_t g0 = g;  // the row's first group
              pushed.assign(std::size_t(n_groups), 0);
              complete.assign(std::size_t(n_groups), 0);
              // Word by word, each lane's pushes in group order. A lane whose FIFO is full when it
              // must push (the group FD places earlier not popped yet) is blocked: it takes nothing
              // until the cycle after that pop, and its later cycles in this word move with it. The
              // other lanes go on taking from the held word; the word leaves (and the next one enters
              // the SEL stage) once every lane is done with it. A group is complete at its last lane's
              // push and its elements issue from the next cycle. (The room of a group is known when it
              // is needed: all lanes push group G - FD before any lane pushes G, spec 9.2.)
              std::int64_t w0 = feed + 1;  // SEL cycle of the current word's first cycle
              std::int64_t word_len = 0;   // SEL cycles of the current word so far
              const auto push = [&](const LanePush& u) {
                std::int64_t& d = delay[std::size_t(u.lane)];  // the lane's holds in this word
                if (delay_word[std::size_t(u.lane)] != word_no) d = 0, delay_word[std::size_t(u.lane)] = word_no;
                std::int64_t t = w0 + u.at + d;
                const std::uint64_t gk = g0 + std::uint64_t(u.group);
                if (gk >= std::uint64_t(FD) && g + std::uint64_t(FD) > gk) {
                  const std::int64_t room = pops[std::size_t(gk % std::uint64_t(FD))] + 1;
                  if (t < room) d += room - t, t = room;
                }
                word_len = std::max(word_len, std::int64_t(u.len) + d);
                std::int64_t& done = complete[std::size_t(u.group)];
                done = std::max(done, t);
                if ((pushed[std::size_t(u.group)] += u.lanes) == R)
                  issue_group(std::min(E, (g + 1) * std::uint64_t(M)), done + 1);
              };
              std::size_t ev = 0;
              for (int j = 0; j < s.reads; ++j, ++word_no) {
                word_len = s.word_cycles[std::size_t(j)];
                for (; ev < s.pushes.size() && s.pushes[ev].word == j; ++ev) push(s.pushes[ev]);
                if (flush && j + 1 == s.reads)
                  for (const LanePush& u : s.flush) push(u);
                w0 += word_len;
              }
              feed = w0 - 1;
              row_elems += kx;
            }
        // The next context (section 9.1): packed contexts pass a row end now and then.
        ox += r.pack_r;
        cx_off += r.step_cx;
        if (r.pack_w != 0 && ox >= r.pack_w) {
          ox -= r.pack_w;
          cx_off += r.pack_jump;
        }
      }

  out.feeder_stall = feeder_stall;
  out.context_stall = context_stall;
  if (pool) {
    // The last window's result: one cycle after its last element (average: its divider's cycles
    // more), written by the partial-sums manager in the next cycle, which completes the RUN.
    const std::int64_t done = last_issue + (avg ? last_divider : 0) + 2;
    out.pool = E;
    out.cycles = std::uint64_t(done);
    out.pipeline = std::uint64_t(done - last_issue);
    out.psum_writes = std::uint64_t(r.n_c) * r.n_cy * r.n_cx;
    return out;
  }
  out.mac = E;
  // Results of the last window leave the array's east edge 2*COLS cycles after the token, plus
  // ROWS-1 de-skew, and are written one cycle later: done at the last token + ROWS + 2*COLS.
  const std::int64_t done = window + std::int64_t(p_.rows) + 2 * std::int64_t(p_.cols);
  out.cycles = std::uint64_t(done);
  out.pipeline = std::uint64_t(swap0) + std::uint64_t(done - window);
  out.weight_reads = E;
  out.psum_writes = n_ctx * std::uint64_t(p_.cols);
  out.psum_reads = r.preload ? out.psum_writes : 0;
  return out;
}

}  // namespace flycol::analytic
