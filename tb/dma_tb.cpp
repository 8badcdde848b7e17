// Block testbench of the DMA (hw/dma): hand-worked cycle timelines of the cores (spec 7.2-7.5), then
// random descriptors on both engines at once through the `Dma` module and random DRAM profiles, each
// checked against straight-loop references of the descriptor, and a replay on the bare cores.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <systemc>

#include "hw/common/protocol_error.h"
#include "hw/dma/dma.h"
#include "sim/dram/dram_model.h"

using namespace flycol;
using namespace flycol::hw;

namespace {

int g_errors = 0;

template <class... Args>
void fail(fmt::format_string<Args...> f, Args&&... args) {
  if (++g_errors <= 30) fmt::print(stderr, "dma_tb: FAIL: {}\n", fmt::format(f, std::forward<Args>(args)...));
}

// ------------------------------------------------------------------------------------------------
// Independent references: the stream of section 7.3 element by element, and the chunk rules
// counted element by element.

struct StreamElem {
  bool data = false;
  std::uint32_t row = 0;    // global DRAM row number (data only)
  std::uint64_t addr = 0;   // DRAM byte address (data only)
};

std::vector<StreamElem> stream_of(const DmaDesc& d, int eb) {
  std::vector<StreamElem> s;
  const std::uint32_t w = d.pad_left + d.row_len + d.pad_right;
  const StreamElem zero{};
  std::uint32_t row_id = 0;
  for (std::uint32_t p = 0; p < d.n_planes; ++p) {
    for (std::uint32_t r = 0; r < d.pad_top; ++r)
      for (std::uint32_t x = 0; x < w; ++x) s.push_back(zero);
    for (std::uint32_t y = 0; y < d.n_rows; ++y, ++row_id) {
      for (std::uint32_t x = 0; x < d.pad_left; ++x) s.push_back(zero);
      for (std::uint32_t i = 0; i < d.row_len; ++i)
        s.push_back({true, row_id,
                     d.dram_addr + std::uint64_t(p) * d.plane_stride + std::uint64_t(y) * d.row_stride +
                         std::uint64_t(i) * std::uint64_t(eb)});
      for (std::uint32_t x = 0; x < d.pad_right; ++x) s.push_back(zero);
    }
    for (std::uint32_t r = 0; r < d.pad_bottom; ++r)
      for (std::uint32_t x = 0; x < w; ++x) s.push_back(zero);
  }
  for (std::uint32_t x = 0; x < d.tail; ++x) s.push_back(zero);
  return s;
}

// A chunk starts at every SRAM word boundary, at every change between zeros and DRAM data, and,
// within DRAM data, at every new row and every BEAT boundary.
void count_load_chunks(const std::vector<StreamElem>& s, int epw, std::uint64_t& chunks, std::uint64_t& requests) {
  chunks = requests = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    bool start = i % std::size_t(epw) == 0 || i == 0 || s[i].data != s[i - 1].data;
    if (s[i].data) start = start || s[i].row != s[i - 1].row || s[i].addr % kBeatBytes == 0;
    if (start) {
      ++chunks;
      if (s[i].data) ++requests;
    }
  }
}

std::uint64_t count_store_requests(const DmaDesc& d, int eb, int epw) {
  std::uint64_t n = 0;
  for (std::uint32_t p = 0; p < d.n_planes; ++p)
    for (std::uint32_t y = 0; y < d.n_rows; ++y)
      for (std::uint32_t i = 0; i < d.row_len; ++i) {
        const std::uint64_t a = d.dram_addr + std::uint64_t(p) * d.plane_stride + std::uint64_t(y) * d.row_stride +
                                std::uint64_t(i) * std::uint64_t(eb);
        if (i == 0 || i % std::uint32_t(epw) == 0 || a % kBeatBytes == 0) ++n;
      }
  return n;
}

word_elem_t elem_at(const std::uint8_t* mem, std::uint64_t addr, int eb) {
  word_elem_t v = 0;
  for (int b = 0; b < eb; ++b) v |= word_elem_t(mem[addr + std::uint64_t(b)]) << (8 * b);
  return v;
}

word_elem_t elem_mask(int eb) { return eb >= 4 ? ~word_elem_t(0) : (word_elem_t(1) << (8 * eb)) - 1; }

// ------------------------------------------------------------------------------------------------
// Directed checks on the cores: one cycle loop wiring arbiter, engines and DRAM model the way the
// accelerator top does, with the cycle of every event recorded.

struct Rig {
  HwParams p;
  std::unique_ptr<SramBank> ifmap[2], weights[2], psums[2];
  SramBank* ifmap_p[2];
  SramBank* weights_p[2];
  SramBank* psums_p[2];
  LoadEngine ld;
  PsumEngine ps;
  MemArbiter arb;
  DramModel dram;
  std::uint64_t t = 0;
  std::vector<std::uint64_t> fires[2], done[2], writes;  // cycles

  Rig(const HwParams& hp, const DramTiming& tm, std::uint64_t dram_bytes = 1 << 16)
      : p(hp), ld(hp), ps(hp), dram(tm, dram_bytes) {
    for (int i = 0; i < 2; ++i) {
      ifmap[i] = std::make_unique<SramBank>("ifmap", p.ifmap_depth, p.bus_elems);
      weights[i] = std::make_unique<SramBank>("weights", p.weight_depth, p.cols);
      psums[i] = std::make_unique<SramBank>("psums", p.psum_depth, p.rows);
      ifmap_p[i] = ifmap[i].get();
      weights_p[i] = weights[i].get();
      psums_p[i] = psums[i].get();
    }
    for (std::uint64_t a = 0; a < dram.size_bytes(); ++a) dram.bytes()[a] = std::uint8_t(a * 7 + 3);
  }
  void step() {
    dram.begin_cycle(t);
    arb.eval(ld.req_valid(), ld.req(), ps.req_valid(), ps.req(), dram.req_ready(), dram.rsp_valid());
    const MemRsp* rsp = dram.rsp_valid() ? &dram.rsp() : nullptr;
    ld.eval(arb.fired(0), arb.rsp_to() == 0 ? rsp : nullptr, ifmap_p, weights_p);
    ps.eval(arb.fired(1), arb.rsp_to() == 1 ? rsp : nullptr, psums_p);
    for (int i = 0; i < 2; ++i)
      if (arb.fired(i)) fires[i].push_back(t);
    if (ld.done()) done[0].push_back(t);
    if (ps.done()) done[1].push_back(t);
    for (auto* b : {ifmap_p[0], ifmap_p[1], weights_p[0], weights_p[1], psums_p[0], psums_p[1]})
      if (b->busy_this_cycle()) writes.push_back(t);
    const MemReq req = arb.mem_req();
    dram.end_cycle(arb.fired(0) || arb.fired(1) ? &req : nullptr);
    arb.tick();
    ld.tick();
    ps.tick();
    for (auto* b : {ifmap_p[0], ifmap_p[1], weights_p[0], weights_p[1], psums_p[0], psums_p[1]}) b->tick();
    ++t;
  }
  void run(int cycles) {
    for (int i = 0; i < cycles; ++i) step();
  }
};

HwParams fp16_params() { return HwParams{}; }

DramTiming fast_dram(int latency) {
  DramTiming t;
  t.bytes_per_cycle = 32;
  t.latency_cycles = latency;
  return t;
}

Command load_cmd(Opcode op, std::uint32_t row_len, std::uint32_t pad_left = 0) {
  Command c;
  c.op = op;
  c.dma.row_len = row_len;
  c.dma.pad_left = pad_left;
  return c;
}

template <class T>
void expect_eq(const char* what, const T& got, const T& want) {
  if (!(got == want)) fail("directed: {}: got {}, expected {}", what, fmt::join(got, ","), fmt::join(want, ","));
}

void expect_n(const char* what, std::uint64_t got, std::uint64_t want) {
  if (got != want) fail("directed: {}: got {}, expected {}", what, got, want);
}

int directed_checks() {
  const int before = g_errors;
  using V = std::vector<std::uint64_t>;
  {  // One beat of DRAM data: request in the first busy cycle; with latency 5 and a 1-cycle
     // transfer the response is valid in cycle 1+1+5 = 7, enters the response FIFO at that edge,
     // and the packer consumes it (writing the word) in cycle 8, which completes the command.
    Rig r(fp16_params(), fast_dram(5));
    r.ld.start(load_cmd(Opcode::LoadIfmap, 16));
    r.run(12);
    expect_eq("one beat: request cycles", r.fires[0], V{1});
    expect_eq("one beat: done cycles", r.done[0], V{8});
    expect_eq("one beat: SRAM write cycles", r.writes, V{8});
    expect_n("one beat: chunks", r.ld.chunks(), 1);
    for (int e = 0; e < 16; ++e)
      if (r.ifmap[0]->peek(0, e) != elem_at(r.dram.bytes(), std::uint64_t(2 * e), 2))
        fail("directed: one beat: element {} wrong", e);
  }
  {  // pad_left 3: zero chunk (cycle 1), 13 elements up to the word end (request 2, 26 bytes,
     // transfer ends in cycle 3 -> response 8), 3 elements in word 1 (request 3, ends in 4 ->
     // response 9). Packer: zeros in 2, data in 9 (word 0 written) and 10 (word 1, done).
    Rig r(fp16_params(), fast_dram(5));
    r.ld.start(load_cmd(Opcode::LoadWeights, 16, 3));
    r.run(14);
    expect_eq("pad 3: request cycles", r.fires[0], V{2, 3});
    expect_eq("pad 3: done cycles", r.done[0], V{10});
    expect_eq("pad 3: SRAM write cycles", r.writes, V{9, 10});
    expect_n("pad 3: chunks", r.ld.chunks(), 3);
    expect_n("pad 3: bytes", r.ld.dram_bytes_read(), 32);
  }
  {  // Zeros only (no DRAM row): 2 rows of pad_left 5 = one run of 10 zeros, one chunk in cycle 1,
     // consumed in 2. An empty stream completes in its first cycle.
    Rig r(fp16_params(), fast_dram(5));
    Command c = load_cmd(Opcode::LoadIfmap, 0, 5);
    c.dma.n_rows = 2;
    r.ld.start(c);
    r.run(4);
    expect_eq("zeros only: done", r.done[0], V{2});
    expect_n("zeros only: chunks", r.ld.chunks(), 1);
    Command e = load_cmd(Opcode::LoadIfmap, 0, 0);
    r.ld.start(e);
    r.run(3);
    expect_eq("empty: done", r.done[0], V{2, 5});
  }
  {  // Maximal zero runs: pad_right 2 of row 0 and pad_left 2 of row 1 form one 4-zero chunk.
     // Stream: z2 d4 z4 d4 z2 (16 elements, one word) -> 5 chunks, 2 requests.
    Rig r(fp16_params(), fast_dram(1));
    Command c = load_cmd(Opcode::LoadIfmap, 4, 2);
    c.dma.pad_right = 2;
    c.dma.n_rows = 2;
    c.dma.row_stride = 64;
    r.ld.start(c);
    r.run(20);
    expect_n("merged zero runs: chunks", r.ld.chunks(), 5);
    expect_n("merged zero runs: requests", r.ld.dram_requests(), 2);
    expect_n("merged zero runs: words", r.ld.sram_words_written(), 1);
  }
  {  // STORE_PSUMS of 6 aligned words: the reader reads while FIFO + in flight < 2, so writes go
     // out in cycles 3,4 | 6,7 | 9,10 (two words per three cycles) and the last one completes.
    Rig r(fp16_params(), fast_dram(1));
    Command c;
    c.op = Opcode::StorePsums;
    c.dma.row_len = 96;
    c.dma.dram_addr = 1024;
    r.ps.start(c);
    r.run(14);
    expect_eq("store: write request cycles", r.fires[1], V{3, 4, 6, 7, 9, 10});
    expect_eq("store: done", r.done[1], V{10});
    expect_eq("store: SRAM read cycles", r.writes, V{1, 2, 4, 5, 7, 8});
  }
  {  // Round robin on a shared port: LD first after reset, then alternate while both ask.
    MemArbiter a;
    MemReq r0, r1;
    r0.addr = 0;
    r1.addr = 32;
    r1.write = true;
    const auto cyc = [&](bool v0, bool v1, bool ready, bool rsp) {
      a.eval(v0, r0, v1, r1, ready, rsp);
      const int f = a.fired(0) ? 0 : a.fired(1) ? 1 : -1;
      const int to = a.rsp_to();
      a.tick();
      return std::make_pair(f, to);
    };
    std::vector<int> got;
    got.push_back(cyc(true, true, true, false).first);   // 0 (reset: LD wins)
    got.push_back(cyc(true, true, false, false).first);  // none: turn stays with PS
    got.push_back(cyc(true, true, true, false).first);   // 1
    got.push_back(cyc(false, true, true, false).first);  // 1 (alone)
    got.push_back(cyc(true, true, true, false).first);   // 0
    got.push_back(cyc(true, false, true, false).first);  // 0 (alone)
    got.push_back(cyc(true, true, true, false).first);   // 1
    expect_eq("arbiter grants", got, std::vector<int>{0, -1, 1, 1, 0, 0, 1});
    // Reads fired: LD's three (PS's were writes), so the responses all go back to LD.
    std::vector<int> to;
    for (int i = 0; i < 3; ++i) to.push_back(cyc(false, false, false, true).second);
    expect_eq("arbiter responses", to, std::vector<int>{0, 0, 0});
    r1.write = false;
    cyc(false, true, true, false);
    cyc(true, false, true, false);
    to.clear();
    for (int i = 0; i < 2; ++i) to.push_back(cyc(false, false, false, true).second);
    expect_eq("arbiter response order", to, std::vector<int>{1, 0});
    bool threw = false;
    try {
      cyc(false, false, false, true);
    } catch (const ProtocolError&) {
      threw = true;
    }
    if (!threw) fail("directed: arbiter: response with nothing outstanding not caught");
  }
  {  // Bad commands are protocol errors.
    const auto throws = [](auto fn) {
      try {
        fn();
      } catch (const ProtocolError&) {
        return true;
      }
      return false;
    };
    const HwParams p = fp16_params();
    LoadEngine ld(p);
    PsumEngine ps(p);
    Command c = load_cmd(Opcode::LoadIfmap, 16);
    if (!throws([&] { ps.start(c); })) fail("directed: PS accepted LOAD_IFMAP");
    c.op = Opcode::StorePsums;
    if (!throws([&] { ld.start(c); })) fail("directed: LD accepted STORE_PSUMS");
    c = load_cmd(Opcode::LoadIfmap, 16);
    c.dma.dram_addr = 1;
    if (!throws([&] { ld.start(c); })) fail("directed: unaligned address accepted");
    c = load_cmd(Opcode::LoadIfmap, 16);
    c.dma.n_rows = 1025;
    if (!throws([&] { ld.start(c); })) fail("directed: oversized stream accepted");
    c = load_cmd(Opcode::LoadIfmap, 16);
    c.dma.buf = 2;
    if (!throws([&] { ld.start(c); })) fail("directed: buffer 2 accepted");
    c.op = Opcode::StorePsums;
    c.dma.buf = 0;
    c.dma.row_len = 10;  // 10 + 0 is not a whole number of 16-element words
    if (!throws([&] { ps.start(c); })) fail("directed: ragged store rows accepted");
    c.dma.pad_right = 6;
    c.dma.pad_left = 1;
    if (!throws([&] { ps.start(c); })) fail("directed: store with pad_left accepted");
    c.dma.pad_left = 0;
    ps.start(c);
    ps.tick();
    if (!throws([&] { ps.start(c); })) fail("directed: start while busy accepted");
  }
  return g_errors - before;
}

// ------------------------------------------------------------------------------------------------
// Random regression: one harness = one Dma module, its SRAM banks and DRAM, with its own
// parameters, timing profile and command sequence. Harnesses run side by side on one clock.

struct Profile {
  const char* name;
  HwParams p;
  DramTiming timing;
};

constexpr std::uint64_t kRegion = 1 << 20;
const char* const kRegionNames[4] = {"ifmap", "weights", "psum_in", "psum_out"};

int g_harnesses_running = 0;

SC_MODULE(Harness) {
  sc_core::sc_in<bool> clk;

  Harness(sc_core::sc_module_name n, const Profile& prof, std::uint64_t seed, int commands_per_engine)
      : sc_module(n), prof_(prof), rng_(seed), dram_(prof.timing, 4 * kRegion), target_(commands_per_engine) {
    const HwParams& p = prof_.p;
    for (int i = 0; i < 2; ++i) {
      ifmap_[i] = std::make_unique<SramBank>(fmt::format("{}.ifmap{}", name(), i), p.ifmap_depth, p.bus_elems);
      weights_[i] = std::make_unique<SramBank>(fmt::format("{}.weights{}", name(), i), p.weight_depth, p.cols);
      psums_[i] = std::make_unique<SramBank>(fmt::format("{}.psums{}", name(), i), p.psum_depth, p.rows);
      ifmap_p_[i] = ifmap_[i].get();
      weights_p_[i] = weights_[i].get();
      psums_p_[i] = psums_[i].get();
    }
    for (int r = 0; r < 4; ++r) dram_.add_region(kRegionNames[r], std::uint64_t(r) * kRegion, kRegion);
    for (std::uint64_t a = 0; a < dram_.size_bytes(); a += 8) {
      const std::uint64_t v = rng_();
      std::memcpy(dram_.bytes() + a, &v, 8);
    }
    store_mirror_.assign(dram_.bytes() + 3 * kRegion, dram_.bytes() + 4 * kRegion);

    dut_ = std::make_unique<Dma>("dut", p, ifmap_p_, weights_p_, psums_p_, true);
    dut_->clk_i(clk);
    dut_->rst_ni(rst_n_);
    dut_->ld_start_i(eng_[0].start);
    dut_->ld_cmd_i(eng_[0].cmd);
    dut_->ld_busy_o(eng_[0].busy);
    dut_->ld_done_o(eng_[0].done);
    dut_->ps_start_i(eng_[1].start);
    dut_->ps_cmd_i(eng_[1].cmd);
    dut_->ps_busy_o(eng_[1].busy);
    dut_->ps_done_o(eng_[1].done);
    dut_->mem_req_valid_o(req_valid_);
    dut_->mem_req_ready_i(req_ready_);
    dut_->mem_req_write_o(req_write_);
    dut_->mem_req_addr_o(req_addr_);
    dut_->mem_req_bytes_o(req_bytes_);
    dut_->mem_req_wdata_o(req_wdata_);
    dut_->mem_rsp_valid_i(rsp_valid_);
    dut_->mem_rsp_rdata_i(rsp_rdata_);

    SC_METHOD(on_posedge);
    sensitive << clk.pos();
    dont_initialize();
    SC_METHOD(on_negedge);
    sensitive << clk.neg();
    dont_initialize();
    ++g_harnesses_running;
  }
  SC_HAS_PROCESS(Harness);

  struct StartRec {
    std::uint64_t cycle;
    int engine;
    Command cmd;
  };
  bool finished() const { return finished_; }
  std::uint64_t cycles() const { return finished_ ? finish_cycle_ : cycle_; }
  const Profile& profile() const { return prof_; }
  const std::vector<StartRec>& starts() const { return starts_; }
  const std::vector<std::uint64_t>& done_cycles(int e) const { return done_cycles_[e]; }
  int commands_done() const { return eng_[0].completed_count + eng_[1].completed_count; }
  const DramModel& dram() const { return dram_; }
  // What the run exercised: commands per opcode, arbitration conflicts, the deepest order FIFO.
  std::string coverage() const {
    return fmt::format("{}: {} cycles, ifmap {} weights {} psum loads {} stores {}, arbiter conflicts {}, "
                       "max reads outstanding {}, dram not-ready cycles {}",
                       name(), finish_cycle_, kinds_[0], kinds_[1], kinds_[2], kinds_[3], dut_->arbiter().conflicts(),
                       max_outstanding_, dram_.stats().not_ready_cycles);
  }
  std::string describe() const {
    const DramTiming& t = prof_.timing;
    return fmt::format("{}: {} (elem {}b, acc {}b, B={}, {}x{}), dram {:.2f} B/cycle, latency {}, "
                       "not_ready {:.2f}, extra {}, backlog {}, outstanding {}",
                       name(), prof_.name, prof_.p.elem_bits, prof_.p.acc_bits, prof_.p.bus_elems, prof_.p.rows,
                       prof_.p.cols, t.bytes_per_cycle, t.latency_cycles, t.not_ready_prob, t.extra_latency_max,
                       t.backlog_bytes, t.max_outstanding_reads);
  }

private:
  struct Engine {
    sc_core::sc_signal<bool> start, busy, done;
    sc_core::sc_signal<DmaCmd> cmd;
    bool running = false, start_asserted = false, completed = false;
    int gap = 0, issued = 0, completed_count = 0;
    std::uint64_t start_cycle = 0, done_cycle = 0, deadline = 0;
    DmaCmd c;
    // Expectations of the running command.
    int region = 0;
    SramBank* bank = nullptr;
    int eb = 0, epw = 0;
    std::vector<word_elem_t> expect_bank;
    std::uint64_t expect_bytes = 0, expect_requests = 0, expect_chunks = 0, expect_words = 0;
    DramRegionStats region_before;
    std::uint64_t bytes_before = 0, requests_before = 0, chunks_before = 0, words_before = 0;
  };

  std::uint64_t rnd(std::uint64_t lo, std::uint64_t hi) { return lo + rng_() % (hi - lo + 1); }  // [lo, hi]
  bool chance(int percent) { return int(rng_() % 100) < percent; }

  // Strides and a DRAM address for `d` inside region `region`; loads may overlap rows (they only
  // read), stores never do.
  void place(DmaDesc& d, int eb, int region, bool overlap) {
    const std::uint64_t row_bytes = std::uint64_t(d.row_len) * std::uint64_t(eb);
    std::uint64_t rs, ps;
    const int m = int(rng_() % 8);
    if (m == 0) rs = row_bytes;
    else if (m == 1 && overlap) rs = rnd(0, row_bytes / std::uint64_t(eb)) * std::uint64_t(eb);
    else rs = row_bytes + rnd(0, 48) * std::uint64_t(eb);
    const std::uint64_t plane_span = (d.n_rows ? d.n_rows - 1 : 0) * rs + row_bytes;
    const int k = int(rng_() % 8);
    if (k == 0) ps = plane_span;
    else if (k == 1 && overlap) ps = rnd(0, plane_span / std::uint64_t(eb)) * std::uint64_t(eb);
    else ps = plane_span + rnd(0, 64) * std::uint64_t(eb);
    std::uint64_t span = (d.n_planes ? d.n_planes - 1 : 0) * ps + plane_span;
    if (span > kRegion / 2) {  // keep it inside the region
      rs = row_bytes;
      ps = std::uint64_t(d.n_rows) * rs;
      span = std::uint64_t(d.n_planes) * ps;
    }
    d.row_stride = std::uint32_t(rs);
    d.plane_stride = std::uint32_t(ps);
    d.dram_addr = std::uint64_t(region) * kRegion + rnd(0, (kRegion - span) / std::uint64_t(eb) - 1) * std::uint64_t(eb);
  }

  static std::uint64_t stream_len(const DmaDesc& d) {
    return std::uint64_t(d.n_planes) * (std::uint64_t(d.pad_top) + d.n_rows + d.pad_bottom) *
               (std::uint64_t(d.pad_left) + d.row_len + d.pad_right) +
           d.tail;
  }

  DmaCmd gen_ld() {
    const HwParams& p = prof_.p;
    DmaCmd c;
    DmaDesc& d = c.dma;
    d.buf = std::uint8_t(rng_() % 2);
    const bool big = chance(20);
    const int eb = p.elem_bytes();
    int epw, depth, region;
    if (chance(55)) {
      c.op = Opcode::LoadIfmap;
      epw = p.bus_elems;
      depth = p.ifmap_depth;
      region = 0;
      d.n_planes = std::uint32_t(rnd(1, big ? 6 : 3));
      d.n_rows = std::uint32_t(rnd(1, big ? 24 : 6));
      d.row_len = chance(5) ? 0 : std::uint32_t(rnd(1, std::uint64_t(big ? 5 * epw : 2 * epw + 3)));
      const auto pad = [&] {
        return std::uint32_t(chance(35) ? 0 : chance(10) ? rnd(0, std::uint64_t(2 * epw)) : rnd(1, 4));
      };
      d.pad_left = pad();
      d.pad_right = pad();
      d.pad_top = pad() % 5;
      d.pad_bottom = pad() % 5;
      d.tail = chance(50) ? 0 : std::uint32_t(rnd(1, std::uint64_t(2 * epw)));
    } else {
      c.op = Opcode::LoadWeights;
      epw = p.cols;
      depth = p.weight_depth;
      region = 1;
      d.n_planes = std::uint32_t(rnd(1, 2));
      d.n_rows = std::uint32_t(rnd(1, big ? 64 : 8));
      d.row_len = std::uint32_t(rnd(1, std::uint64_t(big ? 9 * epw : 2 * epw)));
    }
    while (stream_len(d) > std::uint64_t(depth) * std::uint64_t(epw)) {
      if (d.n_rows > 1) d.n_rows /= 2;
      else if (d.n_planes > 1) d.n_planes /= 2;
      else d.row_len /= 2;
    }
    place(d, eb, region, true);
    return c;
  }

  DmaCmd gen_ps() {
    const HwParams& p = prof_.p;
    DmaCmd c;
    DmaDesc& d = c.dma;
    d.buf = std::uint8_t(rng_() % 2);
    const bool big = chance(20);
    const int epw = p.rows;
    const std::uint32_t w = std::uint32_t(epw) * std::uint32_t(rnd(1, 3));
    d.row_len = chance(30) ? w : std::uint32_t(rnd(1, w));
    d.pad_right = w - d.row_len;
    d.n_rows = std::uint32_t(rnd(1, 4));
    d.n_planes = std::uint32_t(rnd(1, big ? 48 : 8));
    while (stream_len(d) > std::uint64_t(p.psum_depth) * std::uint64_t(epw)) d.n_planes /= 2;
    c.op = chance(50) ? Opcode::LoadPsums : Opcode::StorePsums;
    place(d, p.acc_bytes(), c.op == Opcode::LoadPsums ? 2 : 3, c.op == Opcode::LoadPsums);
    return c;
  }

  std::uint64_t engine_requests(int e) const { return e == 0 ? dut_->ld().dram_requests() : dut_->ps().dram_requests(); }
  std::uint64_t engine_chunks(int e) const { return e == 0 ? dut_->ld().chunks() : dut_->ps().chunks(); }

  // Sets up the expectations of a new command (and the buffer contents it starts from).
  void prepare(int e, const DmaCmd& c) {
    Engine& g = eng_[e];
    const HwParams& p = prof_.p;
    const DmaDesc& d = c.dma;
    g.c = c;
    switch (c.op) {
      case Opcode::LoadIfmap: g.bank = ifmap_p_[d.buf]; g.eb = p.elem_bytes(); g.region = 0; break;
      case Opcode::LoadWeights: g.bank = weights_p_[d.buf]; g.eb = p.elem_bytes(); g.region = 1; break;
      case Opcode::LoadPsums: g.bank = psums_p_[d.buf]; g.eb = p.acc_bytes(); g.region = 2; break;
      default: g.bank = psums_p_[d.buf]; g.eb = p.acc_bytes(); g.region = 3; break;
    }
    g.epw = g.bank->elems_per_word();
    const int depth = g.bank->depth();
    const std::uint64_t data_bytes = std::uint64_t(d.n_planes) * d.n_rows * d.row_len * std::uint64_t(g.eb);
    g.expect_bytes = data_bytes;

    if (c.op == Opcode::StorePsums) {
      // Random accumulator values in the source buffer; the mirror of the DRAM region gets the
      // row data by straight loops.
      const word_elem_t mask = elem_mask(g.eb);
      for (int a = 0; a < depth; ++a)
        for (int i = 0; i < g.epw; ++i) g.bank->poke(a, i, word_elem_t(rng_()) & mask);
      const std::uint32_t w = d.row_len + d.pad_right;
      for (std::uint32_t pl = 0; pl < d.n_planes; ++pl)
        for (std::uint32_t y = 0; y < d.n_rows; ++y)
          for (std::uint32_t i = 0; i < d.row_len; ++i) {
            const std::uint64_t pos = (std::uint64_t(pl) * d.n_rows + y) * w + i;
            const word_elem_t v = g.bank->peek(int(pos / std::uint64_t(g.epw)), int(pos % std::uint64_t(g.epw)));
            const std::uint64_t a = d.dram_addr + std::uint64_t(pl) * d.plane_stride +
                                    std::uint64_t(y) * d.row_stride + std::uint64_t(i) * std::uint64_t(g.eb);
            for (int b = 0; b < g.eb; ++b) store_mirror_[a - 3 * kRegion + std::uint64_t(b)] = std::uint8_t(v >> (8 * b));
          }
      g.expect_requests = count_store_requests(d, g.eb, g.epw);
      g.expect_chunks = 0;
      g.expect_words = std::uint64_t(d.n_planes) * d.n_rows * ((d.row_len + std::uint32_t(g.epw) - 1) / std::uint32_t(g.epw));
    } else {
      // Sentinels everywhere, so that every element the load must not touch is checked too.
      g.expect_bank.resize(std::size_t(depth) * std::size_t(g.epw));
      for (int a = 0; a < depth; ++a)
        for (int i = 0; i < g.epw; ++i) {
          const word_elem_t v = word_elem_t(rng_());
          g.bank->poke(a, i, v);
          g.expect_bank[std::size_t(a) * std::size_t(g.epw) + std::size_t(i)] = v;
        }
      const std::vector<StreamElem> s = stream_of(d, g.eb);
      for (std::size_t i = 0; i < s.size(); ++i)
        g.expect_bank[i] = s[i].data ? elem_at(dram_.bytes(), s[i].addr, g.eb) : 0;
      count_load_chunks(s, g.epw, g.expect_chunks, g.expect_requests);
      g.expect_words = (s.size() + std::size_t(g.epw) - 1) / std::size_t(g.epw);
    }
    g.region_before = dram_.region(kRegionNames[g.region]);
    g.requests_before = engine_requests(e);
    g.chunks_before = engine_chunks(e);
    g.bytes_before = e == 0 ? dut_->ld().dram_bytes_read()
                            : (c.op == Opcode::StorePsums ? dut_->ps().dram_bytes_written() : dut_->ps().dram_bytes_read());
    g.words_before = e == 0 ? dut_->ld().sram_words_written()
                            : (c.op == Opcode::StorePsums ? dut_->ps().sram_words_read() : dut_->ps().sram_words_written());
    // Generous: every request alone through the latency, plus the channel time, twice over for
    // the other engine and the random not-ready cycles.
    const DramTiming& t = prof_.timing;
    const std::uint64_t per_req = std::uint64_t(t.latency_cycles + t.extra_latency_max) + 4 +
                                  std::uint64_t(double(kBeatBytes) / t.bytes_per_cycle) + 1;
    const std::uint64_t work = (g.expect_requests + 8) * per_req + std::max(g.expect_chunks, g.expect_words);
    g.deadline = 2000 + std::uint64_t(4.0 * double(work) / std::max(0.05, 1.0 - t.not_ready_prob));
  }

  void check(int e) {
    Engine& g = eng_[e];
    const std::string what = fmt::format("{} {} #{} ({})", name(), opcode_name(g.c.op), g.issued, g.c.command().to_string());
    const DramRegionStats& now = dram_.region(kRegionNames[g.region]);
    const bool store = g.c.op == Opcode::StorePsums;
    const std::uint64_t reqs = store ? now.writes - g.region_before.writes : now.reads - g.region_before.reads;
    const std::uint64_t bytes =
        store ? now.bytes_written - g.region_before.bytes_written : now.bytes_read - g.region_before.bytes_read;
    if (reqs != g.expect_requests) fail("{}: {} DRAM requests, expected {}", what, reqs, g.expect_requests);
    if (bytes != g.expect_bytes) fail("{}: {} DRAM bytes, expected {}", what, bytes, g.expect_bytes);
    if (engine_requests(e) - g.requests_before != g.expect_requests)
      fail("{}: engine counted {} requests, expected {}", what, engine_requests(e) - g.requests_before, g.expect_requests);
    const std::uint64_t ebytes = e == 0 ? dut_->ld().dram_bytes_read()
                                        : (store ? dut_->ps().dram_bytes_written() : dut_->ps().dram_bytes_read());
    if (ebytes - g.bytes_before != g.expect_bytes) fail("{}: engine counted {} bytes", what, ebytes - g.bytes_before);
    const std::uint64_t words = e == 0 ? dut_->ld().sram_words_written()
                                       : (store ? dut_->ps().sram_words_read() : dut_->ps().sram_words_written());
    if (words - g.words_before != g.expect_words)
      fail("{}: {} SRAM words, expected {}", what, words - g.words_before, g.expect_words);
    if (store) {
      if (std::memcmp(store_mirror_.data(), dram_.bytes() + 3 * kRegion, kRegion) != 0) {
        std::uint64_t i = 0;
        while (store_mirror_[i] == dram_.bytes()[3 * kRegion + i]) ++i;
        fail("{}: DRAM byte {:#x} is {:#04x}, expected {:#04x}", what, 3 * kRegion + i, dram_.bytes()[3 * kRegion + i],
             store_mirror_[i]);
        std::memcpy(store_mirror_.data(), dram_.bytes() + 3 * kRegion, kRegion);  // report once
      }
    } else {
      if (engine_chunks(e) - g.chunks_before != g.expect_chunks)
        fail("{}: {} chunks, expected {}", what, engine_chunks(e) - g.chunks_before, g.expect_chunks);
      for (int a = 0; a < g.bank->depth(); ++a)
        for (int i = 0; i < g.epw; ++i) {
          const word_elem_t want = g.expect_bank[std::size_t(a) * std::size_t(g.epw) + std::size_t(i)];
          if (g.bank->peek(a, i) != want) {
            fail("{}: SRAM word {} element {} (stream position {}) is {:#x}, expected {:#x}", what, a, i,
                 a * g.epw + i, g.bank->peek(a, i), want);
            return;
          }
        }
    }
  }

  void on_posedge() {
    try {
      if (dram_begun_) {
        const bool fired = req_valid_.read() && req_ready_.read();
        MemReq r;
        if (fired) {
          r.write = req_write_.read();
          r.addr = req_addr_.read();
          r.bytes = req_bytes_.read();
          const MemBeatBits bv = req_wdata_.read();
          for (int w = 0; w < kBeatBytes / 4; ++w) {
            const std::uint32_t v = bv.get_word(w);
            for (int b = 0; b < 4; ++b) r.wdata[4 * w + b] = std::uint8_t(v >> (8 * b));
          }
          last_progress_ = cycle_;
        }
        if (rsp_valid_.read()) last_progress_ = cycle_;
        dram_.end_cycle(fired ? &r : nullptr);
        ++cycle_;
      }
      dram_.begin_cycle(cycle_);
      dram_begun_ = true;
      req_ready_.write(dram_.req_ready());
      rsp_valid_.write(dram_.rsp_valid());
      MemBeatBits bv;
      const MemRsp& rsp = dram_.rsp();
      for (int w = 0; w < kBeatBytes / 4; ++w) {
        std::uint32_t v;
        std::memcpy(&v, rsp.rdata + 4 * w, 4);
        bv.set_word(w, v);
      }
      rsp_rdata_.write(bv);
    } catch (const ProtocolError& e) {
      SC_REPORT_ERROR("flycol/dma_tb", e.what());
    }
  }

  void on_negedge() {
    if (cycle_ == 3) rst_n_.write(true);
    if (!rst_n_.read() || finished_) return;
    for (int e = 0; e < 2; ++e) {
      Engine& g = eng_[e];
      if (g.start_asserted) {
        g.start.write(false);
        g.start_asserted = false;
      }
      if (g.done.read()) {
        if (!g.running) fail("{}: {} done_o while idle in cycle {}", name(), e ? "PS" : "LD", cycle_);
        g.running = false;
        g.completed = true;
        g.done_cycle = cycle_;
        done_cycles_[e].push_back(cycle_);
        last_progress_ = cycle_;
      } else if (g.running && cycle_ > g.start_cycle && !g.busy.read()) {
        fail("{}: {} busy_o low while running in cycle {}", name(), e ? "PS" : "LD", cycle_);
      }
      if (g.running && cycle_ - g.start_cycle > g.deadline) {
        fail("{}: watchdog: {} command #{} started in cycle {} not done after {} cycles: {}", name(),
             e ? "PS" : "LD", g.issued, g.start_cycle, g.deadline, g.c.command().to_string());
        sc_core::sc_stop();
        return;
      }
      if (g.completed && cycle_ > g.done_cycle) {  // its last SRAM / DRAM write has been applied
        check(e);
        g.completed = false;
        ++g.completed_count;
        g.gap = chance(40) ? 0 : int(rnd(1, 30));
      }
      if (!g.running && !g.completed) {
        if (g.gap > 0) {
          --g.gap;
        } else if (g.issued < target_) {
          if (g.busy.read()) fail("{}: {} busy_o high while idle in cycle {}", name(), e ? "PS" : "LD", cycle_);
          const DmaCmd c = e == 0 ? gen_ld() : gen_ps();
          prepare(e, c);
          ++kinds_[int(c.op)];
          starts_.push_back({cycle_, e, c.command()});
          g.cmd.write(c);
          g.start.write(true);
          g.start_asserted = true;
          g.running = true;
          g.start_cycle = cycle_;
          ++g.issued;
        }
      }
    }
    max_outstanding_ = std::max(max_outstanding_, dut_->arbiter().reads_outstanding());
    if (cycle_ - last_progress_ > 2000000) {
      fail("{}: watchdog: no memory traffic and no completion for 2000000 cycles", name());
      sc_core::sc_stop();
    }
    if (!finished_ && eng_[0].completed_count == target_ && eng_[1].completed_count == target_) {
      finished_ = true;
      finish_cycle_ = cycle_;
      if (--g_harnesses_running == 0) sc_core::sc_stop();
    }
  }

  Profile prof_;
  std::mt19937_64 rng_;
  DramModel dram_;
  int target_;
  std::unique_ptr<SramBank> ifmap_[2], weights_[2], psums_[2];
  SramBank* ifmap_p_[2];
  SramBank* weights_p_[2];
  SramBank* psums_p_[2];
  std::unique_ptr<Dma> dut_;
  std::vector<std::uint8_t> store_mirror_;

  sc_core::sc_signal<bool> rst_n_{"rst_n", false};
  Engine eng_[2];
  sc_core::sc_signal<bool> req_valid_, req_ready_, req_write_, rsp_valid_;
  sc_core::sc_signal<std::uint64_t> req_addr_;
  sc_core::sc_signal<int> req_bytes_;
  sc_core::sc_signal<MemBeatBits> req_wdata_, rsp_rdata_;

  std::uint64_t cycle_ = 0, last_progress_ = 0;
  bool dram_begun_ = false, finished_ = false;
  int kinds_[5] = {0, 0, 0, 0, 0};
  int max_outstanding_ = 0;
  std::uint64_t finish_cycle_ = 0;
  std::vector<StartRec> starts_;
  std::vector<std::uint64_t> done_cycles_[2];
};

// Replays a harness's command starts on the bare cores (wired as the accelerator top wires them)
// with an identical DRAM model: the SC_MODULE must complete every command in the same cycle.
void replay_on_cores(const Harness& h) {
  const Profile& prof = h.profile();
  Rig r(prof.p, prof.timing, 4 * kRegion);
  std::size_t next = 0;
  const std::uint64_t end = h.cycles() + 2;
  while (r.t < end) {
    while (next < h.starts().size() && h.starts()[next].cycle == r.t) {
      const auto& st = h.starts()[next++];
      if (st.engine == 0) r.ld.start(st.cmd);
      else r.ps.start(st.cmd);
    }
    r.step();
  }
  for (int e = 0; e < 2; ++e) {
    const auto& want = h.done_cycles(e);
    const auto& got = r.done[e];
    if (got != want) {
      std::size_t i = 0;
      while (i < got.size() && i < want.size() && got[i] == want[i]) ++i;
      fail("{}: cores alone complete {} command #{} in cycle {}, the Dma module in cycle {}", h.name(),
           e ? "PS" : "LD", i + 1, i < got.size() ? got[i] : 0, i < want.size() ? want[i] : 0);
    }
  }
}

HwParams params(int elem_bits, int acc_bits, int bus_elems, int rows, int cols, int depth) {
  HwParams p;
  p.elem_bits = elem_bits;
  p.acc_bits = acc_bits;
  p.arithmetic = elem_bits == 8 ? Arithmetic::int8 : acc_bits == 16 ? Arithmetic::fp16 : Arithmetic::int16;
  p.bus_elems = bus_elems;
  p.log2_bus = 0;
  while ((1 << p.log2_bus) < bus_elems) ++p.log2_bus;
  p.rows = rows;
  p.cols = cols;
  p.ifmap_depth = p.weight_depth = p.psum_depth = depth;
  return p;
}

DramTiming random_timing(std::mt19937_64& rng) {
  const auto uni = [&](double lo, double hi) { return lo + (hi - lo) * double(rng() >> 11) * 0x1p-53; };
  DramTiming t;
  t.latency_cycles = 1 + int(rng() % 200);
  t.bytes_per_cycle = std::exp(uni(0.0, std::log(40.0)));  // log-uniform in [1, 40]
  t.random_seed = rng() | 1;
  t.not_ready_prob = rng() % 4 == 0 ? 0.0 : uni(0.0, 0.5);
  t.extra_latency_max = rng() % 4 == 0 ? 0 : int(rng() % 60);
  t.backlog_bytes = rng() % 2 ? 128 : 32 + int(rng() % 480);
  t.max_outstanding_reads = rng() % 2 ? 64 : 1 + int(rng() % 64);
  return t;
}

}  // namespace

int sc_main(int argc, char* argv[]) {
  std::uint64_t seed = 1;
  bool long_run = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--seed" && i + 1 < argc) {
      seed = std::strtoull(argv[++i], nullptr, 0);
    } else if (a == "--long") {
      long_run = true;
    } else {
      fmt::print(stderr, "usage: dma_tb [--seed N] [--long]\n");
      return 2;
    }
  }
  const auto t0 = std::chrono::steady_clock::now();
  fmt::print("dma_tb: seed {}{}\n", seed, long_run ? " (long)" : "");
  sc_core::sc_report_handler::set_actions(sc_core::SC_WARNING, sc_core::SC_DISPLAY);
  sc_core::sc_report_handler::set_actions("/IEEE_Std_1666/deprecated", sc_core::SC_DO_NOTHING);

  int directed_fail = 0;
  try {
    directed_fail = directed_checks();
  } catch (const std::exception& e) {
    fail("directed checks threw: {}", e.what());
    directed_fail = 1;
  }

  std::mt19937_64 rng(seed);
  std::vector<Profile> profiles;
  DramTiming ref = DramTiming::from(Config{});
  profiles.push_back({"fp16 reference", params(16, 16, 16, 16, 16, 1024), ref});
  profiles.push_back({"int8", params(8, 32, 32, 16, 16, 512), random_timing(rng)});
  profiles.push_back({"int16 8x12", params(16, 32, 16, 8, 12, 512), random_timing(rng)});
  profiles.push_back({"fp16 5x4", params(16, 16, 16, 5, 4, 256), random_timing(rng)});
  if (long_run) {
    for (int i = 0; i < 4; ++i) {
      profiles.push_back({"fp16", params(16, 16, 16, 16, 16, 1024), random_timing(rng)});
      profiles.push_back({"int8 32x8", params(8, 32, 32, 32, 8, 256), random_timing(rng)});
    }
  }
  const int commands = long_run ? 1000 : 120;

  sc_core::sc_clock clk("clk", 2, sc_core::SC_NS);
  std::vector<std::unique_ptr<Harness>> hs;
  for (std::size_t i = 0; i < profiles.size(); ++i) {
    hs.push_back(std::make_unique<Harness>(fmt::format("h{}", i).c_str(), profiles[i], rng(), commands));
    hs.back()->clk(clk);
    fmt::print("  {}\n", hs.back()->describe());
  }

  try {
    sc_core::sc_start();
  } catch (const std::exception& e) {
    fail("simulation stopped: {}", e.what());
  }

  std::uint64_t cycles = 0, reqs = 0, bytes = 0;
  int done = 0;
  for (const auto& h : hs) {
    cycles = std::max(cycles, h->cycles());
    reqs += h->dram().stats().reads + h->dram().stats().writes;
    bytes += h->dram().stats().bytes_read + h->dram().stats().bytes_written;
    done += h->commands_done();
    if (!h->finished()) fail("{} did not finish its commands", h->describe());
    fmt::print("  {}\n", h->coverage());
    try {
      replay_on_cores(*h);
    } catch (const std::exception& e) {
      fail("{}: replay on the cores threw: {}", h->name(), e.what());
    }
  }
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  fmt::print("dma_tb: {} seed={} directed_failures={} harnesses={} commands={} cycles={} dram_requests={} "
             "dram_bytes={} errors={} time={:.1f}s\n",
             g_errors == 0 ? "PASS" : "FAIL", seed, directed_fail, hs.size(), done, cycles, reqs, bytes, g_errors, secs);
  return g_errors == 0 ? 0 : 1;
}
