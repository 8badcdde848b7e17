// RUN timing: a per-row feeder model (exact lane selection per word offset, memoized) feeding a
// per-group max-plus recursion for the lane FIFOs and the issue stage. See README.md, "RUN".
#include "sim/analytic/run_timing.h"

#include <algorithm>
#include <deque>
#include <memory>

#include "hw/feeder/feeder_params.h"

namespace flycol::analytic {

namespace {

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
  std::vector<int> fill(static_cast<std::size_t>(R), 0);
  std::vector<std::int64_t> lane_off(static_cast<std::size_t>(R), 0);  // pixel packing: depends on ox
  for (int l = 0; l < R; ++l)
    lane_off[std::size_t(l)] = hw::lane_local_offset(l, r.lane_stride, r.pack_w, r.pack_jump, ox);
  for (int go = 0; go < B; ++go) {
    const int words = (go + int(region) - 1) / B + 1;
    for (int f0 = 0; f0 < M; ++f0) {
      RowShape& s = shapes[std::size_t(go * M + f0)];
      s.reads = words;
      s.push_at.assign(std::size_t(kx), -1);
      s.push_first.assign(std::size_t(kx), -1);
      s.word_start.assign(std::size_t(words), 0);
      std::fill(fill.begin(), fill.end(), f0);
      int t = 0;  // SEL cycle of the current word, relative to the row
      for (int j = 0; j < words; ++j) {
        s.word_start[std::size_t(j)] = t;
        int word_cycles = 1;
        for (int l = 0; l < R; ++l) {
          const std::int64_t base = go + lane_off[std::size_t(l)] - std::int64_t(j) * B;
          // Elements of this lane in word j: kernel columns x with 0 <= base + px[x] < B.
          int x = 0;
          while (x < kx && base + px[std::size_t(x)] < 0) ++x;
          int end = x;
          while (end < kx && base + px[std::size_t(end)] < B) ++end;
          int& f = fill[std::size_t(l)];
          int c = 0;
          while (x < end) {
            const int k = std::min(end - x, M - f);
            x += k;
            f += k;
            if (f == M) {
              int& at = s.push_at[std::size_t(x - 1)];
              at = std::max(at, t + c);
              int& first = s.push_first[std::size_t(x - 1)];
              first = first < 0 ? t + c : std::min(first, t + c);
              f = 0;
            }
            if (x < end) ++c;
          }
          word_cycles = std::max(word_cycles, c + 1);
        }
        t += word_cycles;
      }
      s.cycles = t;
    }
  }
  return shapes;
}

RunTiming RunTimer::strided_pool(const hw::RunDesc& r) const {
  RunTiming out;
  const std::int64_t B = p_.bus_elems;
  const int R = p_.rows;
  const bool avg = r.pool_op == unsigned(hw::PoolOp::Average);
  const std::int64_t divider = p_.arithmetic == Arithmetic::fp16 ? 41 : 32;
  const std::uint64_t Lw = r.window_len();
  const auto columns = [](std::uint64_t pattern) {
    std::vector<std::int64_t> px;
    for (int i = 0; i < 64; ++i)
      if ((pattern >> i) & 1u) px.push_back(i);
    return px;
  };
  const std::vector<std::int64_t> px_last = columns(r.pattern), px_kxc = columns(r.pattern_kxc);
  std::vector<std::int64_t> lane_off(std::size_t(R), 0), words(std::size_t(R), 0);
  std::int64_t t = 0, last_window_end = -divider;
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
                const std::int64_t w = std::max(at, last_window_end + divider);
                context_stall += std::uint64_t(w - at);
                at = w;
                last_window_end = at;
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
  out.cycles = std::uint64_t(last_issue + 2 + (avg ? divider : 0));
  out.pipeline = out.cycles - out.pool - out.feeder_stall - out.context_stall;
  out.psum_writes = std::uint64_t(r.n_c) * r.n_cy * r.n_cx;
  return out;
}

RunTiming RunTimer::compute(const hw::RunDesc& r) const {
  if (r.pooling() && pool_feed_ == PoolFeed::strided) return strided_pool(r);
  RunTiming out;
  const int B = p_.bus_elems, M = p_.m, FD = p_.lane_fifo_depth;
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
  // first cycle. The last element of an average window waits until the divider is D cycles past the
  // previous window's last element (the pooling unit's ready rule).
  const bool pool = r.pooling();
  const bool avg = r.pool_op == unsigned(hw::PoolOp::Average);
  const std::int64_t divider = p_.arithmetic == Arithmetic::fp16 ? 41 : 32;
  const std::uint64_t Lw = r.window_len();
  std::int64_t last_window_end = -divider;  // issue cycle of the previous window's last element
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

  // Issues every element of group `g` (elements e .. e_end-1), available from cycle `avail`.
  const auto issue_group = [&](std::uint64_t e_end, std::int64_t avail) {
    for (; e < e_end; ++e) {
      std::int64_t t = std::max(last_issue + 1, avail);
      feeder_stall += std::uint64_t(t - (last_issue + 1));
      if (pool) {
        if (avg && (e + 1) % Lw == 0) {  // a window's last element: the divider must be free
          const std::int64_t w = std::max(t, last_window_end + divider);
          context_stall += std::uint64_t(w - t);
          t = w;
          last_window_end = t;
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
              const std::uint64_t kx = s.push_at.size();
              out.ifmap_reads += std::uint64_t(s.reads);
              const bool last_row = row_elems + kx == E;
              // The columns of this row that complete a group, in order (groups g, g+1, ...).
              std::vector<int> cols_at, at_of, first_of;
              for (std::uint64_t x = 0; x < kx; ++x) {
                int at = s.push_at[x], first = s.push_first[x];
                if (at < 0 && last_row && x + 1 == kx) at = first = s.cycles - 1;  // the flush of the last group
                if (at < 0) continue;
                cols_at.push_back(int(x));
                at_of.push_back(at);
                first_of.push_back(first);
              }
              const std::uint64_t g0 = g;
              std::vector<char> held(cols_at.size(), 0);
              // The SEL stage takes an element in cycle feed + offset + 1. The first lane to push a
              // group into a full FIFO holds the word, and with it the whole feeder, until the group
              // FD places earlier has been popped; the group is complete at the last lane.
              const auto hold = [&](std::size_t k) {
                held[k] = 1;
                const std::uint64_t gk = g0 + k;
                if (gk < std::uint64_t(FD)) return;
                const std::int64_t room = pops[std::size_t(gk % std::uint64_t(FD))] + 1;
                const std::int64_t push_first = feed + first_of[k] + 1;
                if (push_first < room) feed += room - push_first;
              };
              for (std::size_t i = 0; i < cols_at.size(); ++i) {
                // A later group whose first lane pushes in an earlier word than this group's last
                // lane (a wide row: the leading lane runs FD groups ahead) holds the feeder before
                // this group completes. Its room is known once the group FD places before it has
                // been issued (k < i + FD; deadlock freedom, spec 9.2, keeps the others later).
                const int word_i = s.word_of(at_of[i]);
                for (std::size_t k = i + 1; k < cols_at.size() && k < i + std::size_t(FD); ++k)
                  if (!held[k] && s.word_of(first_of[k]) < word_i) hold(k);
                if (!held[i]) hold(i);
                issue_group(std::min(E, (g + 1) * std::uint64_t(M)), feed + at_of[i] + 2);
              }
              feed += s.cycles;
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
    // The last window's result: one cycle after its last element (average: the divider's D more),
    // written by the partial-sums manager in the next cycle, which completes the RUN.
    const std::int64_t done = last_issue + (avg ? divider : 0) + 2;
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
