// Index counters (docs/microarchitecture.md, section 9.1): register-transfer model, with the
// kernel-column chunk level kxc between j and ky (section 9.2). The pointer is
// the sum of the counters' outputs, each a running sum of its step, as in the paper's Fig. 4.
#include "hw/feeder/index_counters.h"

#include <fmt/format.h>

#include "hw/common/protocol_error.h"
#include "hw/common/wrap_counter.h"
#include "hw/feeder/feeder_params.h"

namespace flycol::hw {

namespace {
constexpr const char* kBlock = "index_counters";
}

IndexCounters::IndexCounters(const HwParams& p) : p_(p) {
  check_feeder_params(p, kBlock);
  reset();
}

void IndexCounters::check_run(const HwParams& p, const RunDesc& r) {
  auto range = [](const char* what, std::uint64_t v, std::uint64_t lo, std::uint64_t hi) {
    if (v < lo || v > hi) protocol_error(kBlock, fmt::format("RUN field {} = {} outside {}..{}", what, v, lo, hi));
  };
  constexpr std::uint64_t k16 = 0xFFFF, k24 = 0xFFFFFF;
  range("n_kg", r.n_kg, 1, k16);
  range("n_cy", r.n_cy, 1, k16);
  range("n_cx", r.n_cx, 1, k16);
  range("n_c", r.n_c, 1, k16);
  range("n_ky", r.n_ky, 1, k16);
  range("n_kx", r.n_kx, 1, k16);
  range("step_cx", r.step_cx, 0, k24);
  range("step_cy", r.step_cy, 0, k24);
  range("step_c", r.step_c, 0, k24);
  range("step_ky", r.step_ky, 0, k24);
  range("region", r.region, 1, k16);
  range("lane_stride", r.lane_stride, 0, 0xFF);
  range("pack_w", r.pack_w, 0, k16);
  range("pack_jump", r.pack_jump, 0, k24);
  if (r.pack_w == 0) {
    if (r.pack_r != 0 || r.pack_jump != 0)
      protocol_error(kBlock, fmt::format("RUN fields pack_r = {}, pack_jump = {} must be 0 without packing (pack_w = 0)",
                                         r.pack_r, r.pack_jump));
  } else {
    if (r.pack_r != std::uint32_t(p.rows) % r.pack_w)
      protocol_error(kBlock, fmt::format("RUN field pack_r = {} is not rows mod pack_w = {} mod {}", r.pack_r, p.rows,
                                         r.pack_w));
    if (pack_max_wraps(r.pack_w, p.rows) > std::uint32_t(kPackWraps))
      protocol_error(kBlock, fmt::format("RUN field pack_w = {}: a lane would wrap {} rows, the lanes compare {} "
                                         "(section 9.2)",
                                         r.pack_w, pack_max_wraps(r.pack_w, p.rows), kPackWraps));
  }
  // Pixel packing: the last lane's window lies up to `wraps` row jumps further.
  const std::uint64_t wraps = pack_max_wraps(r.pack_w, p.rows);
  range("n_kxc", r.n_kxc, 1, k16);
  range("step_kxc", r.step_kxc, 0, k24);
  if (r.n_kxc > 1) range("region_kxc", r.region_kxc, 1, k16);  // unused with one chunk
  // A chunk pattern: not zero, inside PB, a region covering the last lane, and (ROWS > 1) at most
  // FD*M columns, the bound of section 9.2 under which the lockstep lanes cannot deadlock.
  const auto check_pattern = [&p, &r, wraps](const char* pname, std::uint64_t pat, const char* rname, std::uint32_t region) {
    if (pat == 0) protocol_error(kBlock, fmt::format("RUN field {} is zero (a kernel has at least one column)", pname));
    if (p.pattern_bits < 64 && (pat >> p.pattern_bits) != 0)
      protocol_error(kBlock, fmt::format("RUN field {} = {:#x} does not fit pattern_bits = {}", pname, pat,
                                         p.pattern_bits));
    int msb = 63;
    while (((pat >> msb) & 1u) == 0) --msb;
    // The region must cover what the last lane needs, or that lane would miss elements.
    const std::uint64_t need =
        std::uint64_t(p.rows - 1) * r.lane_stride + wraps * r.pack_jump + std::uint64_t(msb) + 1;
    if (region < need)
      protocol_error(kBlock, fmt::format("RUN field {} = {} smaller than (rows-1)*lane_stride + {}*pack_jump + {} "
                                         "width = {}",
                                         rname, region, wraps, pname, need));
    const int ones = __builtin_popcountll(pat);
    if (p.rows > 1 && ones > p.lane_fifo_depth * p.m)
      protocol_error(kBlock, fmt::format("RUN field {} = {:#x} has {} columns, more than fifo_depth x m = {} (the "
                                         "lanes could deadlock; split the row into chunks)",
                                         pname, pat, ones, p.lane_fifo_depth * p.m));
    return std::uint64_t(ones);
  };
  const std::uint64_t ones = check_pattern("pattern", r.pattern, "region", r.region);
  const std::uint64_t ones_kxc = r.n_kxc > 1 ? check_pattern("pattern_kxc", r.pattern_kxc, "region_kxc", r.region_kxc) : 0;
  // The issue stage pops n_kx elements per kernel row from every lane; the lanes produce one per
  // pattern bit of each chunk, so a mismatch would silently shift every later context.
  if (ones + std::uint64_t(r.n_kxc - 1) * ones_kxc != r.n_kx)
    protocol_error(kBlock, fmt::format("RUN fields pattern = {:#x} ({} bits set) and n_kxc = {} chunks of pattern_kxc "
                                       "= {:#x} ({} bits set) do not give n_kx = {} columns",
                                       r.pattern, ones, r.n_kxc, r.pattern_kxc, ones_kxc, r.n_kx));
  // Chunks in column order: an earlier chunk's region ends no later than the next chunk's start
  // plus the last chunk's region, so the last region row is the furthest (the last read bounds
  // the RUN, as the compiler's tail assumes).
  if (r.n_kxc > 1 && std::uint64_t(r.region_kxc) > std::uint64_t(r.step_kxc) + r.region)
    protocol_error(kBlock, fmt::format("RUN field region_kxc = {} larger than step_kxc + region = {} + {} (an earlier "
                                       "chunk would read beyond the last one)",
                                       r.region_kxc, r.step_kxc, r.region));
  const std::uint64_t last_word = r.last_element() >> p.log2_bus;
  if (last_word >= std::uint64_t(p.ifmap_depth))
    protocol_error(kBlock, fmt::format("RUN reads word {} but the ifmap buffer has {} words", last_word,
                                       p.ifmap_depth));
}

void IndexCounters::reset() {
  run_q_ = RunDesc{};
  active_q_ = active_d_ = false;
  kxc_q_ = ky_q_ = c_q_ = cx_q_ = cy_q_ = g_q_ = 0;
  kxc_d_ = ky_d_ = c_d_ = cx_d_ = cy_d_ = g_d_ = 0;
  ox_q_ = ox_d_ = 0;
  joff_q_ = kxcoff_q_ = kyoff_q_ = coff_q_ = cxoff_q_ = cyoff_q_ = 0;
  joff_d_ = kxcoff_d_ = kyoff_d_ = coff_d_ = cxoff_d_ = cyoff_d_ = 0;
  start_req_ = false;
}

void IndexCounters::start(const RunDesc& r) {
  if (active_q_) protocol_error(kBlock, "start while reads remain");
  check_run(p_, r);
  start_req_ = true;
  start_run_ = r;
}

// j is the last read of the row when the next word would start beyond the region:
// go + region <= (j+1)*B, i.e. j == (go + region - 1) >> log2 B, without a divider. The region
// is the chunk's: region for the last chunk of a kernel row, region_kxc for the others.
bool IndexCounters::last_j() const {
  const std::int64_t go = row_start() & (p_.bus_elems - 1);
  const std::int64_t region = last_chunk() ? run_q_.region : run_q_.region_kxc;
  return go + region <= joff_q_ + p_.bus_elems;
}

IcRead IndexCounters::read() const {
  IcRead r;
  const std::int64_t rs = row_start();
  r.ptr = rs + joff_q_;
  r.addr = int(r.ptr >> p_.log2_bus);
  r.go = int(rs & (p_.bus_elems - 1));
  r.j = int(joff_q_ >> p_.log2_bus);
  r.b = int(r.go - joff_q_);
  r.lastc = last_chunk();
  r.ox = ox_q_;
  r.flush = active_q_ && last_j() && last_chunk() && ky_q_ + 1 == run_q_.n_ky && c_q_ + 1 == run_q_.n_c &&
            cx_q_ + 1 == run_q_.n_cx && cy_q_ + 1 == run_q_.n_cy && g_q_ + 1 == run_q_.n_kg;
  return r;
}

void IndexCounters::eval(bool issued) {
  active_d_ = active_q_;
  kxc_d_ = kxc_q_, ky_d_ = ky_q_, c_d_ = c_q_, cx_d_ = cx_q_, cy_d_ = cy_q_, g_d_ = g_q_;
  ox_d_ = ox_q_;
  joff_d_ = joff_q_, kxcoff_d_ = kxcoff_q_, kyoff_d_ = kyoff_q_, coff_d_ = coff_q_, cxoff_d_ = cxoff_q_,
  cyoff_d_ = cyoff_q_;
  if (!issued) return;
  if (!active_q_) protocol_error(kBlock, "read issued with no read left");
  // Innermost first: j, kxc, ky, c, cx, cy, g; each counter wraps to zero and carries into the next.
  if (!last_j()) {
    joff_d_ = joff_q_ + p_.bus_elems;
    return;
  }
  joff_d_ = 0;
  if (!wrap_next(kxc_q_, run_q_.n_kxc, kxc_d_, kxcoff_q_, run_q_.step_kxc, kxcoff_d_)) return;
  if (!wrap_next(ky_q_, run_q_.n_ky, ky_d_, kyoff_q_, run_q_.step_ky, kyoff_d_)) return;
  if (!wrap_next(c_q_, run_q_.n_c, c_d_, coff_q_, run_q_.step_c, coff_d_)) return;
  // cx: with packing the context's first pixel column advances by pack_r; passing a row end adds pack_jump.
  const std::uint32_t ox_next = ox_q_ + run_q_.pack_r;
  const bool row_wrap = run_q_.pack_w != 0 && ox_next >= run_q_.pack_w;
  const std::uint32_t cx_step = run_q_.step_cx + (row_wrap ? run_q_.pack_jump : 0);
  const bool cx_carry = wrap_next(cx_q_, run_q_.n_cx, cx_d_, cxoff_q_, cx_step, cxoff_d_);
  ox_d_ = cx_carry ? 0 : row_wrap ? ox_next - run_q_.pack_w : ox_next;
  if (!cx_carry) return;
  if (!wrap_next(cy_q_, run_q_.n_cy, cy_d_, cyoff_q_, run_q_.step_cy, cyoff_d_)) return;
  if (!wrap_next(g_q_, run_q_.n_kg, g_d_)) return;
  active_d_ = false;
}

void IndexCounters::tick() {
  if (start_req_) {
    run_q_ = start_run_;
    active_q_ = true;
    kxc_q_ = ky_q_ = c_q_ = cx_q_ = cy_q_ = g_q_ = 0;
    ox_q_ = 0;
    joff_q_ = kxcoff_q_ = kyoff_q_ = coff_q_ = cxoff_q_ = cyoff_q_ = 0;
    start_req_ = false;
  } else {
    active_q_ = active_d_;
    kxc_q_ = kxc_d_, ky_q_ = ky_d_, c_q_ = c_d_, cx_q_ = cx_d_, cy_q_ = cy_d_, g_q_ = g_d_;
    ox_q_ = ox_d_;
    joff_q_ = joff_d_, kxcoff_q_ = kxcoff_d_, kyoff_q_ = kyoff_d_, coff_q_ = coff_d_, cxoff_q_ = cxoff_d_,
    cyoff_q_ = cyoff_d_;
  }
  // Without a new eval() the registers hold.
  active_d_ = active_q_;
  kxc_d_ = kxc_q_, ky_d_ = ky_q_, c_d_ = c_q_, cx_d_ = cx_q_, cy_d_ = cy_q_, g_d_ = g_q_;
  ox_d_ = ox_q_;
  joff_d_ = joff_q_, kxcoff_d_ = kxcoff_q_, kyoff_d_ = kyoff_q_, coff_d_ = coff_q_, cxoff_d_ = cxoff_q_,
  cyoff_d_ = cyoff_q_;
}

}  // namespace flycol::hw
