// Testbench of the DMA (hw/dma, docs/microarchitecture.md section 7), one for all views: random
// descriptors on both engines at once (LOAD_IFMAP with every padding, LOAD_WEIGHTS, LOAD_PSUMS with
// the general stream too, STORE_PSUMS with partial rows, and where partial sums are elements
// STORE_PSUMS into an ifmap buffer (section 7.6) beside LOAD_IFMAPs into the other one, so that the
// LD engine's priority on the ifmap port is exercised; overlapping load rows, degenerate and
// empty streams, commands that fill the buffers; junk on the command ports while start is low)
// under DRAM profiles from the reference to random bandwidth, latency, back-pressure and
// outstanding-read limits. The environment is the DRAM model (sim/dram) and six SRAM buffers; the
// reference, written here: the stream of section 7.3 element by element (what every buffer word
// must hold after a load, sentinels elsewhere), straight loops for what a store must write to DRAM
// or into an ifmap buffer, and the DRAM requests and bytes a command makes. Checked after every
// command: the destination (whole buffer, or the whole store region), the DRAM requests and bytes
// of its region, the SRAM banks' own counters, the engine's statistics (core and module),
// busy/done; between views, that the core, the module and the RTL make every DRAM request and
// complete every command in the same cycle (the RTL and the cores also access every SRAM buffer). Then directed bad
// descriptors must be refused, valid ones accepted; on the core also hand-worked cycle timelines
// and the arbiter's round robin.
//   dma_tb [--view core|sc|all] [--seed N] [--long]   the cores (LoadEngine, PsumEngine, MemArbiter
//         wired as the accelerator top wires them) and the Dma SC_MODULE, on six parameter sets
//   dma_rtl_tb_<cfg> [--config FILE] [--seed N] [--long]   dma.sv Verilated for one configuration
//         (its SRAM ports on the bench's buffers), and the cores beside it for the cycle comparison
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "hw/common/command.h"
#include "hw/common/hw_params.h"
#include "hw/common/mem_port.h"
#include "hw/common/protocol_error.h"
#include "hw/common/sram_bank.h"
#include "hw/dma/load_engine.h"
#include "hw/dma/mem_arbiter.h"
#include "hw/dma/psum_engine.h"
#include "sim/dram/dram_model.h"
#include "tb/common/bench_main.h"

#include "tb/common/views.h"
#ifdef FLYCOL_VTOP
#include "sim/rtlgen/rtl_types.h"
#else
#include "hw/dma/dma.h"
#endif

using namespace flycol;
using namespace flycol::hw;

namespace {

constexpr std::uint64_t kRegion = 1 << 18;  // DRAM: ifmap, weights, psum loads, psum stores
constexpr int kIfmap = 0, kWeights = 1, kPsums = 2;
const char* const kKindName[3] = {"ifmap", "weight", "psum"};
const char* const kRegionNames[4] = {"ifmap", "weights", "psum_in", "psum_out"};

std::uint64_t low_mask(int n) { return n >= 64 ? ~std::uint64_t(0) : (std::uint64_t(1) << n) - 1; }

// ------------------------------------------------------------------------------------------------
// Reference: the stream of section 7.3 element by element, and the request rules.

struct StreamElem {
  bool data = false;
  std::uint32_t row = 0;   // global DRAM row number (data only)
  std::uint64_t addr = 0;  // DRAM byte address (data only)
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
      for (std::uint32_t i = 0; i < d.row_len; ++i)  // a gather keeps every elem_step-th DRAM element
        s.push_back({true, row_id,
                     d.dram_addr + std::uint64_t(p) * d.plane_stride + std::uint64_t(y) * d.row_stride +
                         std::uint64_t(i) * d.elem_step * std::uint64_t(eb)});
      for (std::uint32_t x = 0; x < d.pad_right; ++x) s.push_back(zero);
    }
    for (std::uint32_t r = 0; r < d.pad_bottom; ++r)
      for (std::uint32_t x = 0; x < w; ++x) s.push_back(zero);
  }
  for (std::uint32_t x = 0; x < d.tail; ++x) s.push_back(zero);
  return s;
}

std::uint64_t stream_len(const DmaDesc& d) {
  return std::uint64_t(d.n_planes) * (std::uint64_t(d.pad_top) + d.n_rows + d.pad_bottom) *
             (std::uint64_t(d.pad_left) + d.row_len + d.pad_right) +
         d.tail;
}

// A chunk starts at every SRAM word boundary, at every change between zeros and DRAM data, and,
// within DRAM data, at every new row and wherever an element lies in another BEAT than the one
// before it (dense or gathered); each data chunk is one request.
void count_load_chunks(const std::vector<StreamElem>& s, int epw, std::uint64_t& chunks, std::uint64_t& requests) {
  chunks = requests = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    bool start = i % std::size_t(epw) == 0 || i == 0 || s[i].data != s[i - 1].data;
    if (s[i].data) start = start || s[i].row != s[i - 1].row || s[i].addr / kBeatBytes != s[i - 1].addr / kBeatBytes;
    if (start) {
      ++chunks;
      if (s[i].data) ++requests;
    }
  }
}

// Data elements where a chunk starts only because a beat ends there (same row, inside an SRAM
// word, data before): the shapes the chunk generator's beat cut serves. The directed streams
// check that they have some.
std::uint64_t count_beat_cuts(const std::vector<StreamElem>& s, int epw) {
  std::uint64_t n = 0;
  for (std::size_t i = 1; i < s.size(); ++i)
    if (s[i].data && s[i - 1].data && s[i].row == s[i - 1].row && i % std::size_t(epw) != 0 &&
        s[i].addr % kBeatBytes == 0)
      ++n;
  return n;
}

// STORE_PSUMS layouts (section 7.5): word-aligned rows (row_len + pad_right a multiple of the
// word) or packed rows (rows one after another, each plane n_rows*row_len + tail elements).
bool store_packed(const DmaDesc& d, int epw) { return (d.row_len + d.pad_right) % std::uint32_t(epw) != 0; }
std::uint64_t store_plane_elems(const DmaDesc& d, int epw) {
  return store_packed(d, epw) ? std::uint64_t(d.n_rows) * d.row_len + d.tail
                              : std::uint64_t(d.n_rows) * (d.row_len + d.pad_right);
}
// Buffer element of plane p, row y, column i.
std::uint64_t store_pos(const DmaDesc& d, int epw, std::uint32_t p, std::uint32_t y, std::uint32_t i) {
  const std::uint64_t pitch = store_packed(d, epw) ? d.row_len : std::uint64_t(d.row_len) + d.pad_right;
  return std::uint64_t(p) * store_plane_elems(d, epw) + std::uint64_t(y) * pitch + i;
}

// Byte address of a store's element (plane p, row y, column i): in DRAM, or with dst_ifmap in the
// ifmap buffer.
std::uint64_t store_addr(const DmaDesc& d, int eb, std::uint32_t p, std::uint32_t y, std::uint32_t i) {
  return d.dram_addr + std::uint64_t(p) * d.plane_stride + std::uint64_t(y) * d.row_stride +
         std::uint64_t(i) * std::uint64_t(eb);
}

// A write request starts at every row start, SRAM word start and start of a `block`: the DRAM beat,
// or into an ifmap buffer min(BEAT, ifmap word) bytes (section 7.6).
std::uint64_t count_store_requests(const DmaDesc& d, int eb, int epw, std::uint64_t block = kBeatBytes) {
  std::uint64_t n = 0;
  for (std::uint32_t p = 0; p < d.n_planes; ++p)
    for (std::uint32_t y = 0; y < d.n_rows; ++y)
      for (std::uint32_t i = 0; i < d.row_len; ++i)
        if (i == 0 || store_pos(d, epw, p, y, i) % std::uint64_t(epw) == 0 || store_addr(d, eb, p, y, i) % block == 0)
          ++n;
  return n;
}

// SRAM words a store reads: every data word of every row, or every word of every packed plane.
std::uint64_t count_store_words(const DmaDesc& d, int epw) {
  const std::uint64_t e = std::uint64_t(epw);
  if (d.n_planes == 0 || d.n_rows == 0 || d.row_len == 0) return 0;
  if (store_packed(d, epw)) return std::uint64_t(d.n_planes) * store_plane_elems(d, epw) / e;
  return std::uint64_t(d.n_planes) * d.n_rows * ((d.row_len + e - 1) / e);
}

word_elem_t elem_at(const std::uint8_t* mem, std::uint64_t addr, int eb) {
  word_elem_t v = 0;
  for (int b = 0; b < eb; ++b) v |= word_elem_t(mem[addr + std::uint64_t(b)]) << (8 * b);
  return v;
}

// ------------------------------------------------------------------------------------------------
// The six SRAM buffers of a view: its banks (core, module) or the memories behind its ports (RTL).

struct Buffers {
  std::unique_ptr<SramBank> bank[3][2];
  SramBank* ptr[3][2]{};
  explicit Buffers(const HwParams& p) {
    const int depth[3] = {p.ifmap_depth, p.weight_depth, p.psum_depth};
    const int epw[3] = {p.bus_elems, p.cols, p.rows};
    for (int k = 0; k < 3; ++k)
      for (int b = 0; b < 2; ++b) {
        bank[k][b] = std::make_unique<SramBank>(fmt::format("{}{}", kKindName[k], b), depth[k], epw[k]);
        ptr[k][b] = bank[k][b].get();
      }
  }
  void tick() {
    for (auto& k : bank)
      for (auto& b : k) b->tick();
  }
};

// One cycle's inputs and outputs of the DMA.
struct In {
  bool rst_n = true;
  bool start[2] = {false, false};
  Command cmd[2];
  bool req_ready = false, rsp_valid = false;
  const MemRsp* rsp = nullptr;
};
struct Out {
  bool req_valid = false;
  MemReq req;
  bool busy[2] = {false, false}, done[2] = {false, false};
};

// The engines' statistics, for views that have them.
struct Counters {
  std::uint64_t requests = 0, chunks = 0, bytes_read = 0, bytes_written = 0, words_written = 0, words_read = 0;
  std::uint64_t ifmap_writes = 0;  // PS: chunks of stores into an ifmap buffer
};

// What a run did, cycle by cycle, for the comparison between views.
struct Trace {
  std::vector<std::uint64_t> done[2];
  std::vector<std::uint64_t> fired;  // cycle ^ address hash of every accepted request, in order
  std::vector<std::uint64_t> sram;   // cycle << 12 | the SRAM buffers accessed (views that show it)
};

struct Figures {
  std::uint64_t cycles = 0, commands = 0, requests = 0, bytes = 0, directed = 0;
  int kinds[5] = {0, 0, 0, 0, 0};
  std::uint64_t ifmap_stores = 0;  // STORE_PSUMS into an ifmap buffer (section 7.6)
  std::uint64_t ifmap_waits = 0;   // cycles such a store's chunk waited for the LD engine's write (core views)
};

// ------------------------------------------------------------------------------------------------
// The run. A view offers buffers(), eval(in) -> Out (this cycle), edge(in) (the clock edge; false
// when it refused a start: a protocol error), fault(), counters(e, &c) (false without statistics),
// expect_refusals_begin/end().

template <class View>
class Bench {
public:
  Bench(View& v, const HwParams& p, std::uint64_t seed, tb::MismatchLog& log, Figures& fig)
      : v_(v), p_(p), r_(seed), log_(log), fig_(fig), fuse_(p.acc_bits == p.elem_bits) {}

  Trace trace;

  // One DRAM profile: `commands` per engine, back to back with random gaps.
  void run_profile(const std::string& name, const DramTiming& timing, int commands) {
    const std::uint64_t stores_before = fig_.ifmap_stores, waits_before = fig_.ifmap_waits;
    new_dram(timing);
    reset();
    fill_dram();
    for (Eng& g : eng_) g = Eng{};
    tb::Watchdog dog(200000);
    while (log_.ok()) {
      In in = idle_in();
      for (int e = 0; e < 2; ++e) {
        Eng& g = eng_[e];
        if (g.running) continue;
        if (g.gap > 0) {
          --g.gap;
        } else if (g.issued < commands) {
          in.start[e] = true;
          in.cmd[e] = e == 0 ? gen_ld() : gen_ps();
          prepare(e, in.cmd[e]);
        }
      }
      if (!in.start[0] && !in.start[1] && !eng_[0].running && !eng_[1].running && eng_[0].issued == commands &&
          eng_[1].issued == commands)
        break;
      const Out o = step(in);
      if (o.req_valid || o.done[0] || o.done[1] || dram_->rsp_valid()) dog.progress();
      for (int e = 0; e < 2; ++e) {
        Eng& g = eng_[e];
        if (g.running && o.done[e]) {
          g.running = false;
          ++fig_.commands;
          check_command(e);
          g.gap = r_.chance(0.4) ? 0 : r_.uniform(1, 30);
        } else if (g.running && t_ - g.start_cycle > g.deadline) {
          log_.fail("{}: watchdog: {} command started in cycle {} not done after {} cycles: {}", name, e ? "PS" : "LD",
                    g.start_cycle, g.deadline, g.c.to_string());
          return;
        }
      }
      if (!dog.tick(log_, "DRAM traffic or a completion")) return;
    }
    fig_.cycles += t_;
    fig_.requests += dram_->stats().reads + dram_->stats().writes;
    fig_.bytes += dram_->stats().bytes_read + dram_->stats().bytes_written;
    ifmap_stores_ += fig_.ifmap_stores - stores_before;
    ifmap_waits_ += fig_.ifmap_waits - waits_before;
  }

  // After the random profiles: where partial sums are elements, stores into an ifmap buffer ran,
  // and (on a view that shows it) some of their chunks waited for an LD write of the ifmap SRAM.
  void fused_coverage(bool view_counts_waits) {
    if (!fuse_) return;
    log_.expect_true(ifmap_stores_ >= 8, fmt::format("only {} STORE_PSUMS into an ifmap buffer ran", ifmap_stores_));
    if (view_counts_waits)
      log_.expect_true(ifmap_waits_ > 0, "no store into an ifmap buffer ever waited for the LD engine's ifmap write");
  }

  // Directed streams, on every view and in the comparison between views: the shapes that random
  // descriptors reach only by chance (docs/verification.md, Coverage). Each command runs alone
  // on a fast DRAM and is checked like a random one; each also checks that its descriptor has
  // the shape it is there for, so that a change of parameters cannot quietly empty it.
  void directed_streams() {
    DramTiming fast;
    fast.bytes_per_cycle = 32;
    fast.latency_cycles = 3;
    new_dram(fast);
    reset();
    fill_dram();
    const int eb = p_.elem_bytes(), ab = p_.acc_bytes();
    const std::uint32_t bw = std::uint32_t(p_.bus_elems), pw = std::uint32_t(p_.rows);
    struct Case {
      const char* what;
      int engine;
      Command c;
      bool beat_cut, zero_plane, zero_last, adjacent, mid_word;  // the shapes it must have
    };
    std::vector<Case> cases;
    const auto load = [](Opcode op, std::uint64_t addr, std::uint32_t planes, std::uint32_t rows, std::uint32_t len,
                         std::uint32_t row_stride, std::uint32_t plane_stride) {
      Command c;
      c.op = op;
      c.dma.dram_addr = addr;
      c.dma.n_planes = planes;
      c.dma.n_rows = rows;
      c.dma.row_len = len;
      c.dma.row_stride = row_stride;
      c.dma.plane_stride = plane_stride;
      return c;
    };
    {  // Rows starting one element before a beat ends: every row's first chunk is cut at the beat.
      const std::uint32_t len = 2 * bw + 1, rs = (len + 5) * std::uint32_t(eb);
      Command c = load(Opcode::LoadIfmap, 4096 + kBeatBytes - std::uint64_t(eb), 1, 3, len, rs, 3 * rs);
      cases.push_back({"LOAD_IFMAP, rows not aligned to the beat", 0, c, true, false, false, false, false});
    }
    {  // Zero runs that end a plane (right + bottom + top + left padding) and the stream (right +
       // bottom padding and a tail), rows that do not fill whole words.
      const std::uint32_t len = bw + 1, rs = (len + 3) * std::uint32_t(eb);
      Command c = load(Opcode::LoadIfmap, 8192 + std::uint64_t(eb), 2, 2, len, rs, 4 * rs);
      c.dma.pad_left = 1;
      c.dma.pad_right = 2;
      c.dma.pad_top = 1;
      c.dma.pad_bottom = 1;
      c.dma.tail = 3;
      cases.push_back({"LOAD_IFMAP, zero runs between planes and after the last row", 0, c, false, true, true, false,
                       false});
    }
    {  // The final row followed by a tail only (no right or bottom padding).
      const std::uint32_t len = bw + 2, rs = len * std::uint32_t(eb);
      Command c = load(Opcode::LoadIfmap, 12288, 1, 2, len, rs, 2 * rs);
      c.dma.tail = 2;
      cases.push_back({"LOAD_IFMAP, a tail after the last row", 0, c, false, false, true, true, false});
    }
    {  // No padding: each row and each plane follows the previous one with no zero run, at gaps
       // and back to back in DRAM.
      const std::uint32_t len = bw + 3, rs = (len + 2) * std::uint32_t(eb);
      cases.push_back({"LOAD_IFMAP, adjacent rows and planes with gaps in DRAM", 0,
                       load(Opcode::LoadIfmap, 16384 + 3 * std::uint64_t(eb), 2, 3, len, rs, 3 * rs + 8 * std::uint32_t(eb)),
                       false, false, false, true, false});
      const std::uint32_t cs = len * std::uint32_t(eb);
      cases.push_back({"LOAD_WEIGHTS, adjacent rows back to back in DRAM", 0,
                       load(Opcode::LoadWeights, kRegion + 64 + std::uint64_t(eb), 2, 3, len, cs, 3 * cs), false, false,
                       false, true, false});
    }
    // Gathers (strided 1 x 1 layers): every step-th element, rows starting at every lane of a
    // beat, padding around them, so that chunks end at beats between kept elements, at word ends
    // and with one element; each step from 2 to the largest.
    for (std::uint32_t st = 2; st <= std::uint32_t(kMaxElemStep); ++st) {
      const std::uint32_t len = 2 * bw + st, rs = ((len - 1) * st + 1 + 5) * std::uint32_t(eb);
      Command c = load(Opcode::LoadIfmap, 20480 + 4096 * st + kBeatBytes - std::uint64_t(eb) * st, 2, 3, len, rs,
                       4 * rs);
      c.dma.elem_step = st;
      c.dma.pad_left = st - 1;
      c.dma.pad_right = 1;
      c.dma.tail = 2;
      cases.push_back({st == 2   ? "LOAD_IFMAP gathering every 2nd element"
                       : st == 3 ? "LOAD_IFMAP gathering every 3rd element"
                                 : "LOAD_IFMAP gathering every 4th element",
                       0, c, false, false, true, false, false});
    }
    {  // The PS engine's loader on the general stream: unaligned rows, zero runs, adjacent rows.
      const std::uint32_t len = 2 * pw + 1, rs = (len + 1) * std::uint32_t(ab);
      Command c = load(Opcode::LoadPsums, 2 * kRegion + kBeatBytes - std::uint64_t(ab), 2, 2, len, rs, 2 * rs);
      cases.push_back({"LOAD_PSUMS, unaligned adjacent rows", 1, c, true, false, false, true, false});
      c.dma.pad_right = 1;
      c.dma.pad_bottom = 1;
      c.dma.tail = 1;
      cases.push_back({"LOAD_PSUMS, zero runs between planes and at the end", 1, c, false, true, true, false, false});
    }
    if (pw > 1) {  // Stores whose rows end inside a word, at an unaligned and at an aligned address.
      Command c;
      c.op = Opcode::StorePsums;
      c.dma.n_planes = 2;
      c.dma.n_rows = 3;
      c.dma.row_len = pw + 1;
      c.dma.pad_right = pw - 1;
      c.dma.row_stride = (2 * pw + 3) * std::uint32_t(ab);
      c.dma.plane_stride = 3 * c.dma.row_stride;
      c.dma.dram_addr = 3 * kRegion + 4096 + kBeatBytes - std::uint64_t(ab);
      cases.push_back({"STORE_PSUMS, rows ending mid-word, unaligned", 1, c, false, false, false, false, true});
      c.dma.row_len = 1;
      c.dma.pad_right = pw - 1;
      c.dma.row_stride = 2 * std::uint32_t(ab);
      c.dma.plane_stride = 3 * c.dma.row_stride;
      c.dma.dram_addr = 3 * kRegion + 8192;
      cases.push_back({"STORE_PSUMS, one element per row", 1, c, false, false, false, false, true});
      // Packed rows (images packed into one RUN): rows of 3 elements, several rows per word, a
      // tail completing each plane's last word; DRAM rows far apart.
      c.dma.n_planes = 3;
      c.dma.n_rows = 5;
      c.dma.row_len = 3;
      c.dma.pad_right = 0;
      c.dma.tail = std::uint32_t((pw - 15 % pw) % pw);
      c.dma.row_stride = 40 * std::uint32_t(ab);
      c.dma.plane_stride = 3 * std::uint32_t(ab);
      c.dma.dram_addr = 3 * kRegion + 12288 + std::uint64_t(ab);
      if (15 % pw != 0) cases.push_back({"STORE_PSUMS, packed rows", 1, c, false, false, false, false, true});
    }
    // Stores into an ifmap buffer (section 7.6): rows starting one element before a block of
    // min(BEAT, ifmap word) bytes ends, so chunks are cut there inside a psum word; packed rows;
    // rows overlapping each other (the later row's elements win). Each at element-aligned, not
    // word-aligned addresses.
    std::vector<std::pair<const char*, Command>> fused;
    if (fuse_) {
      Command c;
      c.op = Opcode::StorePsums;
      c.dma.dst_ifmap = true;
      c.dma.dst_buf = 1;
      c.dma.n_planes = 2;
      c.dma.n_rows = 3;
      c.dma.row_len = 2 * pw + 1;
      c.dma.pad_right = pw - 1;
      c.dma.row_stride = (2 * pw + 4) * std::uint32_t(ab);
      c.dma.plane_stride = 3 * c.dma.row_stride + 2 * std::uint32_t(ab);
      c.dma.dram_addr = dst_block() - std::uint64_t(ab);
      fused.push_back({"STORE_PSUMS into an ifmap buffer, rows cut at its blocks", c});
      c.dma.dst_buf = 0;
      c.dma.n_planes = 3;
      c.dma.n_rows = 5;
      c.dma.row_len = 3;
      c.dma.pad_right = 0;
      c.dma.tail = std::uint32_t((pw - 15 % pw) % pw);
      c.dma.row_stride = 7 * std::uint32_t(ab);
      c.dma.plane_stride = 40 * std::uint32_t(ab);
      c.dma.dram_addr = std::uint64_t(ab);
      if (15 % pw != 0) fused.push_back({"STORE_PSUMS into an ifmap buffer, packed rows", c});
      c.dma.n_planes = 2;
      c.dma.n_rows = 4;
      c.dma.row_len = pw;
      c.dma.tail = 0;
      c.dma.row_stride = std::uint32_t(ab);
      c.dma.plane_stride = 2 * std::uint32_t(ab);
      c.dma.dram_addr = 5 * std::uint64_t(ab);
      fused.push_back({"STORE_PSUMS into an ifmap buffer, overlapping rows", c});
      for (const auto& [what, f] : fused) {
        // Some chunk must be cut by the block alone (not by a row or psum word end).
        if (std::string(what).find("blocks") != std::string::npos)
          log_.expect_true(count_store_requests(f.dma, ab, int(pw), dst_block()) >
                               count_store_requests(f.dma, ab, int(pw), std::uint64_t(1) << 40),
                           fmt::format("directed {}: no chunk cut at a block", what));
        cases.push_back({what, 1, f, false, false, false, false, false});
      }
    }
    for (Case& k : cases) {
      const DmaDesc& d = k.c.dma;
      const int e = k.engine;
      const int epw = k.c.op == Opcode::LoadPsums ? p_.rows : p_.bus_elems;
      if (k.beat_cut && epw > 1)  // a one-element word starts a chunk at every element
        log_.expect_true(count_beat_cuts(stream_of(d, k.c.op == Opcode::LoadPsums ? ab : eb), epw) > 0,
                         fmt::format("directed {}: no beat cut", k.what));
      if (k.zero_plane)
        log_.expect_true(d.n_planes > 1 && d.pad_right + d.pad_bottom + d.pad_top + d.pad_left > 0,
                         fmt::format("directed {}: no zero run between planes", k.what));
      if (k.zero_last)
        log_.expect_true(d.pad_right + d.pad_bottom + d.tail > 0, fmt::format("directed {}: no final zero run", k.what));
      if (k.adjacent)
        log_.expect_true(d.n_rows > 1 && d.pad_left + d.pad_right == 0,
                         fmt::format("directed {}: no adjacent DRAM rows", k.what));
      if (k.mid_word)
        log_.expect_true(d.row_len % pw != 0, fmt::format("directed {}: rows end on a word boundary", k.what));
      In in = idle_in();
      in.start[e] = true;
      in.cmd[e] = k.c;
      prepare(e, k.c);
      bool done = false;
      for (std::uint64_t i = 0; i <= eng_[e].deadline && !done && log_.ok(); ++i) {
        const Out o = step(in);
        in = idle_in();
        if (o.done[e]) done = true;
      }
      eng_[e].running = false;
      ++fig_.directed;
      if (!log_.expect_true(done, fmt::format("directed {}: not done after {} cycles ({})", k.what, eng_[e].deadline,
                                              k.c.to_string())))
        return;
      check_command(e);
      if (!log_.ok()) {
        log_.fail("  in the directed stream: {}", k.what);
        return;
      }
    }
    if (fuse_) directed_port_priority();
  }

  // A zero-only LOAD_IFMAP writes ifmap buffer 0 in every cycle while a STORE_PSUMS into ifmap
  // buffer 1 has its chunks: the LD engine keeps the port, the store waits, both complete right.
  void directed_port_priority() {
    const std::uint32_t bw = std::uint32_t(p_.bus_elems), pw = std::uint32_t(p_.rows);
    In in = idle_in();
    Command& ld = in.cmd[0];
    ld = Command{};
    ld.op = Opcode::LoadIfmap;
    ld.dma.n_rows = 0;
    ld.dma.pad_top = 8;
    ld.dma.pad_left = 2 * bw;
    ld.dma.pad_value = 0x3C00;
    Command& st = in.cmd[1];
    st = Command{};
    st.op = Opcode::StorePsums;
    st.dma.dst_ifmap = true;
    st.dma.dst_buf = 1;
    st.dma.n_rows = 2;
    st.dma.row_len = 2 * pw;
    st.dma.row_stride = (2 * pw + 1) * std::uint32_t(p_.acc_bytes());
    st.dma.dram_addr = 3 * std::uint64_t(p_.acc_bytes());
    in.start[0] = in.start[1] = true;
    for (int e = 0; e < 2; ++e) prepare(e, in.cmd[e]);
    const std::uint64_t waits_before = fig_.ifmap_waits;
    bool done[2] = {false, false};
    for (int i = 0; i < 2000 && !(done[0] && done[1]) && log_.ok(); ++i) {
      const Out o = step(in);
      in = idle_in();
      for (int e = 0; e < 2; ++e)
        if (o.done[e] && !done[e]) {
          done[e] = true;
          eng_[e].running = false;
          check_command(e);
        }
    }
    ++fig_.directed;
    log_.expect_true(done[0] && done[1], "directed port priority: the load and the store did not both complete");
    if (v_.counts_ifmap_waits())
      log_.expect_true(fig_.ifmap_waits > waits_before, "directed port priority: the store never waited");
  }

  // Bad descriptors must be refused at the start, valid ones accepted (core: ProtocolError;
  // module: SC_ERROR; RTL: an assertion); a start while busy is refused; two loads started
  // together right after reset both complete (LD wins the first conflict).
  void directed_starts() {
    DramTiming fast;
    fast.bytes_per_cycle = 32;
    fast.latency_cycles = 2;
    struct Case {
      const char* what;
      int engine;
      Command c;
      bool error;
    };
    std::vector<Case> cases;
    const auto base = [&](Opcode op) {
      Command c;
      c.op = op;
      c.dma.row_len = std::uint32_t(op == Opcode::StorePsums || op == Opcode::LoadPsums ? p_.rows : 8);
      c.dma.dram_addr = (op == Opcode::StorePsums ? 3 : 0) * kRegion + 64;
      return c;
    };
    cases.push_back({"valid LOAD_IFMAP", 0, base(Opcode::LoadIfmap), false});
    cases.push_back({"valid STORE_PSUMS", 1, base(Opcode::StorePsums), false});
    if (p_.elem_bytes() > 1) {
      Command c = base(Opcode::LoadIfmap);
      c.dma.dram_addr += 1;
      cases.push_back({"LOAD_IFMAP at an address not element aligned", 0, c, true});
      c = base(Opcode::LoadWeights);
      c.dma.n_rows = 2;
      c.dma.row_stride = 33;
      cases.push_back({"LOAD_WEIGHTS with a row stride not element aligned", 0, c, true});
    }
    {
      Command c = base(Opcode::LoadPsums);
      c.dma.n_planes = 2;
      c.dma.row_len = 1;
      c.dma.plane_stride = std::uint32_t(p_.acc_bytes()) + 1;
      cases.push_back({"LOAD_PSUMS with a plane stride not element aligned", 1, c, true});
    }
    {
      Command c = base(Opcode::LoadIfmap);
      c.dma.row_len = 0;
      c.dma.tail = std::uint32_t(std::min<std::uint64_t>(0xffff, std::uint64_t(p_.ifmap_depth) * p_.bus_elems + 1));
      const bool fits = c.dma.tail <= std::uint64_t(p_.ifmap_depth) * p_.bus_elems;
      cases.push_back({"LOAD_IFMAP larger than the buffer", 0, c, !fits});
    }
    {
      Command c = base(Opcode::LoadWeights);
      c.dma.n_rows = std::uint32_t(p_.weight_depth);
      c.dma.row_len = std::uint32_t(p_.cols) + 1;
      c.dma.row_stride = 64;
      cases.push_back({"LOAD_WEIGHTS larger than the buffer", 0, c, true});
    }
    for (int field = 0; field < 4; ++field) {
      Command c = base(Opcode::StorePsums);
      std::uint32_t* f[4] = {&c.dma.pad_left, &c.dma.pad_top, &c.dma.pad_bottom, &c.dma.tail};
      *f[field] = 1;
      const char* names[4] = {"STORE_PSUMS with pad_left", "STORE_PSUMS with pad_top", "STORE_PSUMS with pad_bottom",
                              "STORE_PSUMS with a tail"};
      cases.push_back({names[field], 1, c, true});
    }
    if (p_.rows > 1) {
      Command c = base(Opcode::StorePsums);
      c.dma.pad_right = 1;
      cases.push_back({"STORE_PSUMS rows not whole words", 1, c, true});
      c.dma.pad_right = 0;
      c.dma.row_len = std::uint32_t(p_.rows) + 1;
      c.dma.tail = std::uint32_t(p_.rows) - 1;
      cases.push_back({"STORE_PSUMS packed rows", 1, c, false});
      c.dma.tail = std::uint32_t(p_.rows) - 2;
      cases.push_back({"STORE_PSUMS packed plane not whole words", 1, c, true});
      c.dma.n_rows = std::uint32_t(p_.rows);
      c.dma.tail = std::uint32_t(p_.rows);
      cases.push_back({"STORE_PSUMS packed tail of a whole word", 1, c, true});
    }
    {
      Command c = base(Opcode::StorePsums);
      c.dma.n_planes = std::uint32_t(p_.psum_depth) + 1;
      c.dma.plane_stride = std::uint32_t(p_.rows * p_.acc_bytes());
      cases.push_back({"STORE_PSUMS larger than the buffer", 1, c, true});
    }
#ifndef FLYCOL_VTOP  // the RTL's buffer field has one bit
    {
      Command c = base(Opcode::LoadIfmap);
      c.dma.buf = 2;
      cases.push_back({"buffer 2", 0, c, true});
    }
#endif
    {
      Command c = base(Opcode::LoadIfmap);
      c.dma.elem_step = std::uint32_t(kMaxElemStep);
      cases.push_back({"LOAD_IFMAP gathering with the largest element step", 0, c, false});
      c.dma.elem_step = std::uint32_t(kMaxElemStep) + 1;
      cases.push_back({"LOAD_IFMAP with an element step above the largest", 0, c, true});
      c.dma.elem_step = 0;
      cases.push_back({"LOAD_IFMAP with element step 0", 0, c, true});
      Command w = base(Opcode::LoadWeights);
      w.dma.elem_step = 2;
      cases.push_back({"LOAD_WEIGHTS gathering", 0, w, true});
      Command l = base(Opcode::LoadPsums);
      l.dma.elem_step = 2;
      cases.push_back({"LOAD_PSUMS gathering", 1, l, true});
      Command st = base(Opcode::StorePsums);
      st.dma.elem_step = 2;
      cases.push_back({"STORE_PSUMS with an element step", 1, st, true});
    }
    {  // The padding value: any element on LOAD_IFMAP, nothing wider, and only there (section 7.3).
      Command pv = base(Opcode::LoadIfmap);
      pv.dma.pad_value = (1u << (8 * p_.elem_bytes())) - 1;
      cases.push_back({"LOAD_IFMAP with the largest padding value", 0, pv, false});
      pv.dma.pad_value = 1u << (8 * p_.elem_bytes());
      if (p_.elem_bytes() < 2) cases.push_back({"LOAD_IFMAP with a padding value wider than the element", 0, pv, true});
      for (const auto& [op, engine, name] : {std::tuple{Opcode::LoadWeights, 0, "LOAD_WEIGHTS with a padding value"},
                                             std::tuple{Opcode::LoadPsums, 1, "LOAD_PSUMS with a padding value"},
                                             std::tuple{Opcode::StorePsums, 1, "STORE_PSUMS with a padding value"}}) {
        Command c = base(op);
        c.dma.pad_value = 1;
        cases.push_back({name, engine, c, true});
      }
    }
    {  // Stores into an ifmap buffer (section 7.6): only STORE_PSUMS, only where partial sums are
       // elements, inside the buffer, element aligned; dst_buf only with dst_ifmap.
      const std::uint64_t size = std::uint64_t(p_.ifmap_depth) * std::uint64_t(p_.bus_elems) * std::uint64_t(p_.acc_bytes());
      Command f = base(Opcode::StorePsums);
      f.dma.dst_ifmap = true;
      f.dma.dst_buf = 1;
      f.dma.dram_addr = std::uint64_t(p_.acc_bytes());
      cases.push_back({"STORE_PSUMS into an ifmap buffer", 1, f, !fuse_});
      if (fuse_) {
        Command g = f;
        g.dma.dram_addr = size - std::uint64_t(p_.rows) * std::uint64_t(p_.acc_bytes());
        cases.push_back({"STORE_PSUMS into an ifmap buffer up to its last byte", 1, g, false});
        g.dma.dram_addr += std::uint64_t(p_.acc_bytes());
        cases.push_back({"STORE_PSUMS into an ifmap buffer past its end", 1, g, true});
        g.dma.dram_addr = 1;
        cases.push_back({"STORE_PSUMS into an ifmap buffer at an address not element aligned", 1, g, true});
        g.dma.dram_addr = 0;
        g.dma.n_rows = 2;
        g.dma.row_stride = size;
        cases.push_back({"STORE_PSUMS into an ifmap buffer with a row stride past its end", 1, g, true});
      }
      Command n = base(Opcode::StorePsums);
      n.dma.dst_buf = 1;
      cases.push_back({"STORE_PSUMS with dst_buf but not dst_ifmap", 1, n, true});
      Command l = base(Opcode::LoadPsums);
      l.dma.dst_ifmap = true;
      cases.push_back({"LOAD_PSUMS with dst_ifmap", 1, l, true});
      l.dma.dst_ifmap = false;
      l.dma.dst_buf = 1;
      cases.push_back({"LOAD_PSUMS with dst_buf", 1, l, true});
      Command i = base(Opcode::LoadIfmap);
      i.dma.dst_ifmap = true;
      cases.push_back({"LOAD_IFMAP with dst_ifmap", 0, i, true});
      Command w = base(Opcode::LoadWeights);
      w.dma.dst_buf = 1;
      cases.push_back({"LOAD_WEIGHTS with dst_buf", 0, w, true});
#ifndef FLYCOL_VTOP  // the RTL's dst_buf field has one bit
      f.dma.dst_buf = 2;
      cases.push_back({"STORE_PSUMS into ifmap buffer 2", 1, f, true});
#endif
    }
    cases.push_back({"LD engine given STORE_PSUMS", 0, base(Opcode::StorePsums), true});
    cases.push_back({"LD engine given LOAD_PSUMS", 0, base(Opcode::LoadPsums), true});
    cases.push_back({"PS engine given LOAD_WEIGHTS", 1, base(Opcode::LoadWeights), true});
    cases.push_back({"PS engine given LOAD_IFMAP", 1, base(Opcode::LoadIfmap), true});
    cases.push_back({"PS engine given RUN", 1, base(Opcode::Run), true});

    v_.expect_refusals_begin();
    for (const Case& k : cases) {
      new_dram(fast);
      reset();
      In in = idle_in();
      in.start[k.engine] = true;
      in.cmd[k.engine] = k.c;
      const bool accepted = step_start(in);
      ++fig_.directed;
      log_.expect_true(accepted != k.error, fmt::format("directed: {} was {} ({})", k.what,
                                                        accepted ? "accepted" : "refused", k.c.to_string()));
    }
    {  // A start while the engine is busy.
      new_dram(fast);
      reset();
      In in = idle_in();
      in.start[0] = true;
      in.cmd[0] = base(Opcode::LoadIfmap);
      const bool first = step_start(in);
      const bool second = step_start(in);
      ++fig_.directed;
      log_.expect_true(first && !second, fmt::format("directed: start while busy: first start {}, second start {}",
                                                     first ? "accepted" : "refused", second ? "accepted" : "refused"));
    }
    v_.expect_refusals_end();
    {  // Both engines ask in the first busy cycle after reset: both loads complete, right.
      new_dram(fast);
      reset();
      fill_dram();
      In in = idle_in();
      in.start[0] = in.start[1] = true;
      in.cmd[0] = base(Opcode::LoadIfmap);
      in.cmd[1] = base(Opcode::LoadPsums);
      in.cmd[1].dma.dram_addr = 2 * kRegion;
      for (int e = 0; e < 2; ++e) prepare(e, in.cmd[e]);
      bool done[2] = {false, false};
      for (int i = 0; i < 200 && !(done[0] && done[1]); ++i) {
        const Out o = step(in);
        in = idle_in();
        for (int e = 0; e < 2; ++e)
          if (o.done[e]) done[e] = true, eng_[e].running = false;
      }
      ++fig_.directed;
      log_.expect_true(done[0] && done[1], "directed: first conflict after reset: the loads did not complete");
      for (int e = 0; e < 2; ++e) check_command(e);
    }
    reset();
  }

private:
  struct Eng {
    bool running = false;
    int gap = 0, issued = 0;
    std::uint64_t start_cycle = 0, deadline = 0;
    Command c;
    int kind = 0, buf = 0, eb = 0, region = 0;
    std::vector<word_elem_t> expect;  // loads: the whole destination buffer afterwards
    std::uint64_t expect_requests = 0, expect_bytes = 0, expect_chunks = 0, expect_words = 0;
    DramRegionStats region_before;
    Counters before;
    // Stores into an ifmap buffer (section 7.6): its chunks (ifmap writes), and the DRAM writes and
    // the SRAM banks' counters before the command.
    std::uint64_t expect_ifmap_writes = 0, dram_writes_before = 0, bank_writes_before = 0, bank_reads_before = 0;
  };

  View& v_;
  HwParams p_;
  tb::Rand r_;
  tb::MismatchLog& log_;
  Figures& fig_;
  std::unique_ptr<DramModel> dram_;
  std::vector<std::uint8_t> store_mirror_;  // the store region as it must be
  std::uint64_t t_ = 0;
  Eng eng_[2];
  bool fuse_;  // partial sums are elements: STORE_PSUMS may write an ifmap buffer (section 7.6)
  std::uint64_t ifmap_stores_ = 0, ifmap_waits_ = 0;  // over the random profiles

  std::uint64_t rnd(std::uint64_t lo, std::uint64_t hi) { return r_.uniform64(lo, hi); }
  bool chance(int percent) { return r_.uniform(0, 99) < percent; }
  int epw_of(int kind) const { return kind == kIfmap ? p_.bus_elems : kind == kWeights ? p_.cols : p_.rows; }
  int bits_of(int kind) const { return kind == kPsums ? p_.acc_bits : p_.elem_bits; }
  // Into an ifmap buffer: its bytes, and the block a store's chunk may not cross (section 7.6).
  std::uint64_t ifmap_bytes() const {
    return std::uint64_t(p_.ifmap_depth) * std::uint64_t(p_.bus_elems) * std::uint64_t(p_.elem_bytes());
  }
  std::uint64_t dst_block() const {
    return std::min<std::uint64_t>(kBeatBytes, std::uint64_t(p_.bus_elems) * std::uint64_t(p_.elem_bytes()));
  }
  // The ifmap buffer a running command of engine e writes, or -1.
  int ifmap_written_by(int e) const {
    const Eng& g = eng_[e];
    if (!g.running) return -1;
    if (g.c.op == Opcode::LoadIfmap) return g.c.dma.buf;
    if (g.c.op == Opcode::StorePsums && g.c.dma.dst_ifmap) return g.c.dma.dst_buf;
    return -1;
  }

  void new_dram(const DramTiming& timing) {
    dram_ = std::make_unique<DramModel>(timing, 4 * kRegion);
    for (int r = 0; r < 4; ++r) dram_->add_region(kRegionNames[r], std::uint64_t(r) * kRegion, kRegion);
    t_ = 0;
  }

  void fill_dram() {
    for (std::uint64_t a = 0; a < dram_->size_bytes(); a += 8) {
      const std::uint64_t v = r_.bits(64);
      std::memcpy(dram_->bytes() + a, &v, 8);
    }
    store_mirror_.assign(dram_->bytes() + 3 * kRegion, dram_->bytes() + 4 * kRegion);
    for (int k = 0; k < 3; ++k)
      for (int b = 0; b < 2; ++b) fill_bank(k, b);
  }

  void fill_bank(int kind, int b) {
    SramBank* x = v_.buffers().ptr[kind][b];
    const word_elem_t m = word_elem_t(low_mask(bits_of(kind)));
    for (int a = 0; a < x->depth(); ++a)
      for (int i = 0; i < x->elems_per_word(); ++i) x->poke(a, i, word_elem_t(r_.bits(32)) & m);
  }

  // A random command while start is low: the DMA must ignore it.
  Command junk() {
    Command c;
    c.op = Opcode(r_.uniform(0, 4));
    c.dma.buf = std::uint8_t(r_.bits(1));
    c.dma.dram_addr = r_.bits(40);
    c.dma.n_planes = std::uint32_t(r_.bits(16));
    c.dma.plane_stride = std::uint32_t(r_.bits(32));
    c.dma.n_rows = std::uint32_t(r_.bits(16));
    c.dma.row_stride = std::uint32_t(r_.bits(32));
    c.dma.row_len = std::uint32_t(r_.bits(16));
    c.dma.pad_left = std::uint32_t(r_.bits(16));
    c.dma.pad_right = std::uint32_t(r_.bits(16));
    c.dma.pad_top = std::uint32_t(r_.bits(16));
    c.dma.pad_bottom = std::uint32_t(r_.bits(16));
    c.dma.tail = std::uint32_t(r_.bits(16));
    c.dma.dst_ifmap = r_.bits(1) != 0;
    c.dma.dst_buf = std::uint8_t(r_.bits(1));
    c.run.pattern = r_.bits(64);
    return c;
  }
  In idle_in() {
    In in;
    in.cmd[0] = junk();
    in.cmd[1] = junk();
    return in;
  }

  void reset() {
    In in = idle_in();
    in.rst_n = false;
    for (int i = 0; i < 2; ++i) {
      (void)v_.eval(in);
      v_.edge(in);
    }
    log_.note("reset");
  }

  // One cycle with the DRAM model.
  Out step(const In& given) {
    In in = given;
    log_.at(t_);
    dram_->begin_cycle(t_);
    in.req_ready = dram_->req_ready();
    in.rsp_valid = dram_->rsp_valid();
    in.rsp = &dram_->rsp();
    const Out o = v_.eval(in);
    if (v_.ifmap_waited()) ++fig_.ifmap_waits;
    const bool fired = o.req_valid && in.req_ready;
    if (fired) trace.fired.push_back(t_ * 0x9E3779B97F4A7C15ull ^ o.req.addr ^ (std::uint64_t(o.req.bytes) << 48) ^
                                     (o.req.write ? 1ull << 63 : 0));
    std::uint32_t access = 0;
    if (v_.sram_access(access) && access != 0) trace.sram.push_back(t_ << 12 | access);
    // One ifmap port: the LD engine's write or a store's (section 7.6), never both buffers at once.
    if ((access & 3u) == 3u) log_.fail("both ifmap buffers accessed in one cycle through the DMA's one ifmap port");
    for (int e = 0; e < 2; ++e) {
      if (o.done[e]) {
        trace.done[e].push_back(t_);
        if (!eng_[e].running) log_.fail("{} done_o while idle", e ? "PS" : "LD");
      } else if (eng_[e].running && t_ > eng_[e].start_cycle && !o.busy[e]) {
        log_.fail("{} busy_o low while a command runs", e ? "PS" : "LD");
      }
      if (in.start[e] && o.busy[e]) log_.fail("{} busy_o high in the cycle of a start", e ? "PS" : "LD");
    }
    try {
      dram_->end_cycle(fired ? &o.req : nullptr);
    } catch (const ProtocolError& e) {
      log_.fail("memory request: {}", e.what());
    }
    if (!v_.edge(in)) log_.fail("a start was refused");
    if (v_.fault()) log_.fail("an assertion fired or an SRAM port was misused");
    ++t_;
    return o;
  }

  // A directed start: whether the view accepted it.
  bool step_start(const In& given) {
    In in = given;
    dram_->begin_cycle(t_);
    in.req_ready = dram_->req_ready();
    in.rsp_valid = dram_->rsp_valid();
    in.rsp = &dram_->rsp();
    const Out o = v_.eval(in);
    dram_->end_cycle(o.req_valid && in.req_ready ? &o.req : nullptr);
    const bool accepted = v_.edge(in);
    (void)v_.fault();
    ++t_;
    return accepted;
  }

  // Strides and a DRAM address for `d` inside region `region`; loads may overlap rows (they only
  // read), stores never do.
  void place(DmaDesc& d, int eb, int region, bool overlap) {
    // A gathered row spans (row_len - 1) * elem_step + 1 elements, read in whole beats.
    const std::uint64_t row_bytes =
        d.row_len == 0 ? 0 : ((std::uint64_t(d.row_len) - 1) * d.elem_step + 1) * std::uint64_t(eb);
    std::uint64_t rs, ps;
    const int m = r_.uniform(0, 7);
    if (m == 0) rs = row_bytes;
    else if (m == 1 && overlap) rs = rnd(0, row_bytes / std::uint64_t(eb)) * std::uint64_t(eb);
    else rs = row_bytes + rnd(0, 48) * std::uint64_t(eb);
    const std::uint64_t plane_span = (d.n_rows ? d.n_rows - 1 : 0) * rs + row_bytes;
    const int k = r_.uniform(0, 7);
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
    if (d.elem_step > 1) span += kBeatBytes;  // the last beat of a gathered row may reach past the span
    d.dram_addr = std::uint64_t(region) * kRegion + rnd(0, (kRegion - span) / std::uint64_t(eb) - 1) * std::uint64_t(eb);
  }

  std::uint32_t pad(int epw) {
    return std::uint32_t(chance(35) ? 0 : chance(10) ? rnd(0, std::uint64_t(2 * epw)) : rnd(1, 4));
  }

  // Random paddings of a general stream (section 7.3) with the given word.
  void random_stream(DmaDesc& d, int epw, bool big) {
    d.n_planes = std::uint32_t(rnd(1, big ? 6 : 3));
    d.n_rows = std::uint32_t(rnd(1, big ? 24 : 6));
    d.row_len = chance(5) ? 0 : std::uint32_t(rnd(1, std::uint64_t(big ? 5 * epw : 2 * epw + 3)));
    d.pad_left = pad(epw);
    d.pad_right = pad(epw);
    d.pad_top = pad(epw) % 5;
    d.pad_bottom = pad(epw) % 5;
    d.tail = chance(50) ? 0 : std::uint32_t(rnd(1, std::uint64_t(2 * epw)));
    if (chance(3)) d.n_planes = 0;  // no rows at all: the stream is the tail
    if (chance(3)) d.n_rows = 0;    // planes of padding rows only
    if (chance(2)) d = DmaDesc{};   // no elements at all: completes in its first cycle
  }

  void shrink(DmaDesc& d, std::uint64_t cap) {
    while (stream_len(d) > cap) {
      if (d.n_rows > 1) d.n_rows /= 2;
      else if (d.n_planes > 1) d.n_planes /= 2;
      else if (d.row_len > 0) d.row_len /= 2;
      else if (d.tail > 0) d.tail /= 2;
      else d.pad_top = d.pad_bottom = d.pad_left = d.pad_right = 0;
    }
  }

  Command gen_ld() {
    Command c;
    DmaDesc& d = c.dma;
    const bool big = chance(20);
    const int eb = p_.elem_bytes();
    if (chance(55)) {
      c.op = Opcode::LoadIfmap;
      random_stream(d, p_.bus_elems, big);
      shrink(d, std::uint64_t(p_.ifmap_depth) * std::uint64_t(p_.bus_elems));
      if (chance(35)) d.elem_step = std::uint32_t(rnd(2, kMaxElemStep));  // a gather (strided 1 x 1 layers)
      // The padding value: 0 (convolution), the type's smallest (max pooling) or any element.
      const std::uint32_t smallest = eb == 1 ? 0x80 : p_.arithmetic == Arithmetic::fp16 ? 0xFC00 : 0x8000;
      d.pad_value = chance(40) ? 0 : chance(50) ? smallest : std::uint32_t(r_.bits(8 * eb));
      if (fuse_ && chance(15)) {  // a pooling tile's fill (section 7.6): padding rows only, a word per cycle
        const std::uint32_t pv = d.pad_value;
        d = DmaDesc{};
        d.pad_value = pv;
        d.n_planes = std::uint32_t(rnd(1, 3));
        d.n_rows = 0;
        d.pad_top = std::uint32_t(rnd(1, 12));
        d.pad_left = std::uint32_t(rnd(1, 3 * std::uint64_t(p_.bus_elems)));
        d.tail = std::uint32_t(rnd(0, 3));
        shrink(d, std::uint64_t(p_.ifmap_depth) * std::uint64_t(p_.bus_elems));
      }
      place(d, eb, 0, true);
    } else {
      c.op = Opcode::LoadWeights;
      d.n_planes = std::uint32_t(rnd(1, 2));
      d.n_rows = std::uint32_t(rnd(1, big ? 64 : 8));
      d.row_len = std::uint32_t(rnd(1, std::uint64_t(big ? 9 * p_.cols : 2 * p_.cols)));
      shrink(d, std::uint64_t(p_.weight_depth) * std::uint64_t(p_.cols));
      place(d, eb, 1, true);
    }
    d.buf = std::uint8_t(r_.bits(1));
    // No LOAD_IFMAP into the ifmap buffer a running STORE_PSUMS writes (section 7.6: the top asserts it).
    const int busy_buf = ifmap_written_by(1);
    if (c.op == Opcode::LoadIfmap && busy_buf >= 0) d.buf = std::uint8_t(1 - busy_buf);
    return c;
  }

  Command gen_ps() {
    Command c;
    DmaDesc& d = c.dma;
    const bool big = chance(20);
    const int epw = p_.rows;
    c.op = chance(50) ? Opcode::LoadPsums : Opcode::StorePsums;
    if (c.op == Opcode::LoadPsums && chance(20)) {
      random_stream(d, epw, big);  // LOAD_PSUMS accepts the general stream
    } else {
      const std::uint32_t w = std::uint32_t(epw) * std::uint32_t(rnd(1, 3));
      d.row_len = chance(30) ? w : std::uint32_t(rnd(1, w));
      d.pad_right = w - d.row_len;
      d.n_rows = std::uint32_t(rnd(1, 4));
      d.n_planes = std::uint32_t(rnd(1, big ? 48 : 8));
    }
    const std::uint64_t cap = std::uint64_t(p_.psum_depth) * std::uint64_t(epw);
    if (c.op == Opcode::StorePsums) {
      if (epw > 1 && chance(40)) {  // packed rows: words that hold the end of one row and the start of the next
        d.row_len = std::uint32_t(chance(30) ? rnd(1, std::uint64_t(epw) - 1) : rnd(1, 3 * std::uint64_t(epw)));
        if (d.row_len % std::uint32_t(epw) == 0) ++d.row_len;
        d.pad_right = 0;
        d.n_rows = std::uint32_t(rnd(1, chance(20) ? 40 : 5));
        d.tail = std::uint32_t((std::uint64_t(epw) - std::uint64_t(d.n_rows) * d.row_len % std::uint64_t(epw)) %
                               std::uint64_t(epw));
      }
      if (chance(3)) {  // nothing to store: completes in its first cycle
        d.pad_right += d.row_len;
        d.row_len = 0;
        d.tail = 0;
        d.pad_right = (d.pad_right + std::uint32_t(epw) - 1) / std::uint32_t(epw) * std::uint32_t(epw);
      }
      if (chance(2) && !store_packed(d, epw)) d.n_rows = 0;
      while (d.n_planes * store_plane_elems(d, epw) > cap) d.n_planes /= 2;
    } else {
      shrink(d, cap);
    }
    d.buf = std::uint8_t(r_.bits(1));
    if (c.op == Opcode::StorePsums && fuse_ && chance(35)) {
      // Into an ifmap buffer (section 7.6), not the one a running LOAD_IFMAP writes.
      d.dst_ifmap = true;
      const int busy_buf = ifmap_written_by(0);
      d.dst_buf = std::uint8_t(busy_buf >= 0 ? 1 - busy_buf : int(r_.bits(1)));
      place_in_ifmap(d);
    } else {
      place(d, p_.acc_bytes(), c.op == Opcode::LoadPsums ? 2 : 3, c.op == Opcode::LoadPsums);
    }
    return c;
  }

  // Byte addresses and strides of a store into an ifmap buffer: element aligned, mostly not word
  // aligned, rows and planes dense, with gaps, or overlapping (the later element wins); every
  // written byte inside the buffer.
  void place_in_ifmap(DmaDesc& d) {
    const std::uint64_t eb = std::uint64_t(p_.acc_bytes()), size = ifmap_bytes();
    const std::uint64_t row_bytes = std::uint64_t(d.row_len) * eb;
    std::uint64_t rs, ps;
    const int m = r_.uniform(0, 9);
    if (m < 3) rs = row_bytes;
    else if (m == 3) rs = rnd(0, d.row_len) * eb;
    else rs = row_bytes + rnd(1, 2 * std::uint64_t(p_.bus_elems) + 3) * eb;
    const std::uint64_t plane_span = (d.n_rows ? d.n_rows - 1 : 0) * rs + row_bytes;
    const int k = r_.uniform(0, 9);
    if (k < 3) ps = plane_span;
    else if (k == 3) ps = rnd(0, plane_span / eb) * eb;
    else ps = plane_span + rnd(1, 4 * std::uint64_t(p_.bus_elems)) * eb;
    std::uint64_t span = (d.n_planes ? d.n_planes - 1 : 0) * ps + plane_span;
    if (span > size) {  // dense, and fewer planes if even that does not fit
      rs = row_bytes;
      ps = std::uint64_t(d.n_rows) * rs;
      while (std::uint64_t(d.n_planes) * ps > size) d.n_planes /= 2;
      span = std::uint64_t(d.n_planes) * ps;
    }
    d.row_stride = std::uint32_t(rs);
    d.plane_stride = std::uint32_t(ps);
    d.dram_addr = rnd(0, (size - span) / eb) * eb;
  }

  // New contents for the command's buffer, and its expected effect.
  void prepare(int e, const Command& c) {
    Eng& g = eng_[e];
    const DmaDesc& d = c.dma;
    g.c = c;
    g.running = true;
    g.start_cycle = t_;
    ++g.issued;
    ++fig_.kinds[int(c.op)];
    g.kind = c.op == Opcode::LoadIfmap ? kIfmap : c.op == Opcode::LoadWeights ? kWeights : kPsums;
    g.region = c.op == Opcode::LoadIfmap ? 0 : c.op == Opcode::LoadWeights ? 1 : c.op == Opcode::LoadPsums ? 2 : 3;
    g.buf = d.buf;
    g.eb = bits_of(g.kind) / 8;
    const int epw = epw_of(g.kind);
    fill_bank(g.kind, g.buf);
    SramBank* bank = v_.buffers().ptr[g.kind][g.buf];
    g.expect_bytes = std::uint64_t(d.n_planes) * d.n_rows * d.row_len * std::uint64_t(g.eb);
    g.expect_ifmap_writes = 0;
    g.dram_writes_before = dram_->stats().writes;
    g.bank_reads_before = bank->reads();
    g.bank_writes_before = bank->writes();
    if (c.op == Opcode::StorePsums && d.dst_ifmap) {
      // Into ifmap buffer dst_buf (section 7.6): element e of the buffer is at byte e*EB; the
      // elements are written in row order, so where rows overlap the later one's stays.
      ++fig_.ifmap_stores;
      fill_bank(kIfmap, d.dst_buf);
      const SramBank* dst = v_.buffers().ptr[kIfmap][d.dst_buf];
      const int dw = p_.bus_elems;
      g.expect.resize(std::size_t(dst->depth()) * std::size_t(dw));
      for (int a = 0; a < dst->depth(); ++a)
        for (int i = 0; i < dw; ++i) g.expect[std::size_t(a) * std::size_t(dw) + std::size_t(i)] = dst->peek(a, i);
      for (std::uint32_t pl = 0; pl < d.n_planes; ++pl)
        for (std::uint32_t y = 0; y < d.n_rows; ++y)
          for (std::uint32_t i = 0; i < d.row_len; ++i) {
            const std::uint64_t pos = store_pos(d, epw, pl, y, i);
            const std::uint64_t a = store_addr(d, g.eb, pl, y, i);
            g.expect[std::size_t(a / std::uint64_t(g.eb))] =
                bank->peek(int(pos / std::uint64_t(epw)), int(pos % std::uint64_t(epw)));
          }
      g.expect_requests = g.expect_bytes = 0;  // no DRAM byte
      g.expect_ifmap_writes = count_store_requests(d, g.eb, epw, dst_block());
      g.expect_chunks = 0;
      g.expect_words = count_store_words(d, epw);
      g.bank_writes_before = dst->writes();
    } else if (c.op == Opcode::StorePsums) {
      for (std::uint32_t pl = 0; pl < d.n_planes; ++pl)
        for (std::uint32_t y = 0; y < d.n_rows; ++y)
          for (std::uint32_t i = 0; i < d.row_len; ++i) {
            const std::uint64_t pos = store_pos(d, epw, pl, y, i);
            const word_elem_t v = bank->peek(int(pos / std::uint64_t(epw)), int(pos % std::uint64_t(epw)));
            const std::uint64_t a = store_addr(d, g.eb, pl, y, i);
            for (int b = 0; b < g.eb; ++b) store_mirror_[a - 3 * kRegion + std::uint64_t(b)] = std::uint8_t(v >> (8 * b));
          }
      g.expect_requests = count_store_requests(d, g.eb, epw);
      g.expect_chunks = 0;
      g.expect_words = count_store_words(d, epw);
    } else {
      // The whole buffer afterwards: sentinels where the load must not write.
      g.expect.resize(std::size_t(bank->depth()) * std::size_t(epw));
      for (int a = 0; a < bank->depth(); ++a)
        for (int i = 0; i < epw; ++i) g.expect[std::size_t(a) * std::size_t(epw) + std::size_t(i)] = bank->peek(a, i);
      const std::vector<StreamElem> s = stream_of(d, g.eb);
      // Padding and tail elements hold the descriptor's pad_value (0 but for a LOAD_IFMAP).
      for (std::size_t i = 0; i < s.size(); ++i) g.expect[i] = s[i].data ? elem_at(dram_->bytes(), s[i].addr, g.eb) : d.pad_value;
      count_load_chunks(s, epw, g.expect_chunks, g.expect_requests);
      if (d.elem_step > 1) g.expect_bytes = g.expect_requests * kBeatBytes;  // whole beats
      g.expect_words = (s.size() + std::size_t(epw) - 1) / std::size_t(epw);
    }
    g.region_before = dram_->region(kRegionNames[g.region]);
    (void)v_.counters(e, g.before);
    // Generous: every request alone through the latency and the channel, for both engines.
    const DramTiming& t = dram_->timing();
    const std::uint64_t per_req = std::uint64_t(t.latency_cycles + t.extra_latency_max) + 4 +
                                  std::uint64_t(double(kBeatBytes) / t.bytes_per_cycle) + 1;
    g.deadline = 2000 + std::uint64_t(8.0 * double((g.expect_requests + 8) * per_req + stream_len(d)) /
                                      std::max(0.05, 1.0 - t.not_ready_prob));
    // A store into an ifmap buffer yields the port to every LD write of the ifmap SRAM.
    if (d.dst_ifmap) g.deadline += 4 * std::uint64_t(p_.ifmap_depth) * std::uint64_t(p_.bus_elems);
    log_.note("{} start: {}", e ? "PS" : "LD", c.to_string());
  }

  // After the completing cycle: the destination, the DRAM traffic of the region, the statistics.
  void check_command(int e) {
    Eng& g = eng_[e];
    const std::string what =
        fmt::format("{} #{} started in cycle {} ({})", e ? "PS" : "LD", g.issued, g.start_cycle, g.c.to_string());
    const bool store = g.c.op == Opcode::StorePsums;
    const bool fused = store && g.c.dma.dst_ifmap;  // into an ifmap buffer (section 7.6)
    const DramRegionStats& now = dram_->region(kRegionNames[g.region]);
    const std::uint64_t reqs = store ? now.writes - g.region_before.writes : now.reads - g.region_before.reads;
    const std::uint64_t bytes =
        store ? now.bytes_written - g.region_before.bytes_written : now.bytes_read - g.region_before.bytes_read;
    if (!log_.expect("DRAM requests of the command", reqs, g.expect_requests) ||
        !log_.expect("DRAM bytes of the command", bytes, g.expect_bytes))
      log_.fail("  {}", what);
    Counters c;
    if (v_.counters(e, c)) {
      log_.expect("engine's request count", c.requests - g.before.requests, g.expect_requests);
      const std::uint64_t eb = store ? c.bytes_written - g.before.bytes_written : c.bytes_read - g.before.bytes_read;
      log_.expect("engine's byte count", eb, g.expect_bytes);
      const std::uint64_t words = store ? c.words_read - g.before.words_read : c.words_written - g.before.words_written;
      log_.expect("engine's SRAM word count", words, g.expect_words);
      if (!store) log_.expect("engine's chunk count", c.chunks - g.before.chunks, g.expect_chunks);
      if (e == 1)
        log_.expect("engine's ifmap write count", c.ifmap_writes - g.before.ifmap_writes, g.expect_ifmap_writes);
    }
    // The SRAM banks' own counters (every view): a load writes a word of its buffer per word; a
    // store reads a psum word per word, and into an ifmap buffer writes one ifmap word per chunk.
    const SramBank* src = v_.buffers().ptr[g.kind][g.buf];
    if (store) log_.expect("psum SRAM reads of the store", src->reads() - g.bank_reads_before, g.expect_words);
    else log_.expect("SRAM writes of the load", src->writes() - g.bank_writes_before, g.expect_words);
    if (fused) {
      log_.expect("ifmap SRAM writes of the store", v_.buffers().ptr[kIfmap][g.c.dma.dst_buf]->writes() -
                                                         g.bank_writes_before, g.expect_ifmap_writes);
      log_.expect("DRAM writes during a store into an ifmap buffer", dram_->stats().writes - g.dram_writes_before,
                  std::uint64_t(0));
    }
    if (store) {
      const std::uint8_t* got = dram_->bytes() + 3 * kRegion;
      if (std::memcmp(got, store_mirror_.data(), kRegion) != 0) {
        std::uint64_t i = 0;
        while (got[i] == store_mirror_[i]) ++i;
        log_.fail("{}: DRAM byte {:#x} is {:#04x}, expected {:#04x}", what, 3 * kRegion + i, got[i], store_mirror_[i]);
        std::memcpy(store_mirror_.data(), got, kRegion);  // report once
      }
      if (!fused) return;
    }
    const int kind = fused ? kIfmap : g.kind, buf = fused ? g.c.dma.dst_buf : g.buf;
    const int epw = epw_of(kind);
    const SramBank* bank = v_.buffers().ptr[kind][buf];
    for (int a = 0; a < bank->depth(); ++a)
      for (int i = 0; i < epw; ++i) {
        const word_elem_t want = g.expect[std::size_t(a) * std::size_t(epw) + std::size_t(i)];
        if (!log_.expect("buffer element", std::uint64_t(bank->peek(a, i)), std::uint64_t(want))) {
          log_.fail("  {}: {} buffer {} word {} element {}", what, kKindName[kind], buf, a, i);
          return;
        }
      }
  }
};

// ------------------------------------------------------------------------------------------------
// The cores, wired as the accelerator top wires them (hw/top/accelerator_core.cpp).

class CoreView {
public:
  explicit CoreView(const HwParams& p) : bufs_(p), ld_(p), ps_(p) {}
  Buffers& buffers() { return bufs_; }
  Out eval(const In& in) {
    Out o;
    if (!in.rst_n) return o;
    arb_.eval(ld_.req_valid(), ld_.req(), ps_.req_valid(), ps_.req(), in.req_ready, in.rsp_valid);
    const MemRsp* rsp = in.rsp_valid ? in.rsp : nullptr;
    ld_.eval(arb_.fired(0), arb_.rsp_to() == 0 ? rsp : nullptr, bufs_.ptr[kIfmap], bufs_.ptr[kWeights]);
    ps_.eval(arb_.fired(1), arb_.rsp_to() == 1 ? rsp : nullptr, bufs_.ptr[kPsums], bufs_.ptr[kIfmap], ld_.writes_ifmap());
    o.req_valid = arb_.mem_req_valid();
    o.req = arb_.mem_req();
    o.busy[0] = ld_.busy();
    o.busy[1] = ps_.busy();
    o.done[0] = ld_.done();
    o.done[1] = ps_.done();
    return o;
  }
  bool edge(const In& in) {
    if (!in.rst_n) {
      ld_.reset();
      ps_.reset();
      arb_.reset();
      return true;
    }
    bool ok = true;
    try {
      if (in.start[0]) ld_.start(in.cmd[0]);
      if (in.start[1]) ps_.start(in.cmd[1]);
    } catch (const ProtocolError&) {
      ok = false;
    }
    arb_.tick();
    ld_.tick();
    ps_.tick();
    bufs_.tick();
    return ok;
  }
  bool fault() { return false; }
  // After eval: a store's ifmap chunk waits for the LD engine's ifmap write in this cycle.
  bool ifmap_waited() const { return ps_.ifmap_req_valid() && ld_.writes_ifmap(); }
  bool counts_ifmap_waits() const { return true; }
  // The SRAM accesses of this cycle (after eval): bit 2*kind+buffer, and bit 6+ of the same for writes.
  bool sram_access(std::uint32_t& m) const {
    m = 0;
    for (int k = 0; k < 3; ++k)
      for (int b = 0; b < 2; ++b) {
        const SramBank* x = bufs_.ptr[k][b];
        if (x->busy_this_cycle()) m |= 1u << (2 * k + b) | (x->pending_write() ? 1u << (6 + 2 * k + b) : 0u);
      }
    return true;
  }
  bool counters(int e, Counters& c) const {
    if (e == 0) {
      c.requests = ld_.dram_requests(), c.chunks = ld_.chunks(), c.bytes_read = ld_.dram_bytes_read();
      c.words_written = ld_.sram_words_written();
    } else {
      c.requests = ps_.dram_requests(), c.chunks = ps_.chunks(), c.bytes_read = ps_.dram_bytes_read();
      c.bytes_written = ps_.dram_bytes_written(), c.words_written = ps_.sram_words_written();
      c.words_read = ps_.sram_words_read(), c.ifmap_writes = ps_.ifmap_writes();
    }
    return true;
  }
  void expect_refusals_begin() {}
  void expect_refusals_end() {}

private:
  Buffers bufs_;
  LoadEngine ld_;
  PsumEngine ps_;
  MemArbiter arb_;
};

#ifdef FLYCOL_VTOP

// dma.sv, Verilated for one configuration; its six SRAM ports on the bench's buffers.
class RtlView {
public:
  RtlView(const HwParams& p, std::uint64_t seed)
      : p_(p), bufs_(p), dut_(seed) {}
  Buffers& buffers() { return bufs_; }
  Out eval(const In& in) {
    dut_->rst_ni = in.rst_n;
    dut_->mem_req_ready_i = in.req_ready;
    dut_->mem_rsp_valid_i = in.rsp_valid;
    if (in.rsp) std::memcpy(dut_->mem_rsp_rdata_i.data(), in.rsp->rdata, kBeatBytes);  // little endian, as the lanes
    for (int b = 0; b < 2; ++b) {
      const word_elem_t* w = bufs_.ptr[kPsums][b]->rdata();
      for (int i = 0; i < p_.rows; ++i) tb::put_bits(dut_->psum_rdata_i, (b * p_.rows + i) * p_.acc_bits, p_.acc_bits, w[i]);
    }
    dut_->ld_start_i = in.start[0];
    dut_->ps_start_i = in.start[1];
    set_cmd(dut_->ld_cmd_i, in.cmd[0]);
    set_cmd(dut_->ps_cmd_i, in.cmd[1]);
    dut_->eval();
    Out o;
    o.req_valid = dut_->mem_req_valid_o;
    o.req.write = dut_->mem_req_write_o;
    o.req.addr = dut_->mem_req_addr_o;
    o.req.bytes = int(dut_->mem_req_bytes_o);
    std::memcpy(o.req.wdata, dut_->mem_req_wdata_o.data(), kBeatBytes);
    o.busy[0] = dut_->ld_busy_o;
    o.busy[1] = dut_->ps_busy_o;
    o.done[0] = dut_->ld_done_o;
    o.done[1] = dut_->ps_done_o;
    return o;
  }
  bool edge(const In& in) {
    // The SRAM ports: this cycle's requests go to the buffers.
    if (in.rst_n) {
      const std::uint32_t req[3] = {dut_->ifmap_req_o, dut_->weight_req_o, dut_->psum_req_o};
      const bool we[3] = {bool(dut_->ifmap_we_o), bool(dut_->weight_we_o), bool(dut_->psum_we_o)};
      const int addr[3] = {int(dut_->ifmap_addr_o), int(dut_->weight_addr_o), int(dut_->psum_addr_o)};
      for (int k = 0; k < 3; ++k)
        for (int b = 0; b < 2; ++b) {
          if (!((req[k] >> b) & 1u)) continue;
          try {
            if (we[k]) {
              word_elem_t data[kMaxWordElems];
              std::uint64_t mask = 0;
              const int epw = bufs_.ptr[k][b]->elems_per_word(), w = k == kPsums ? p_.acc_bits : p_.elem_bits;
              for (int i = 0; i < epw; ++i)
                data[i] = word_elem_t(k == kIfmap    ? tb::get_bits(dut_->ifmap_wdata_o, i * w, w)
                                      : k == kWeights ? tb::get_bits(dut_->weight_wdata_o, i * w, w)
                                                      : tb::get_bits(dut_->psum_wdata_o, i * w, w));
              mask = k == kIfmap    ? tb::get_bits(dut_->ifmap_wmask_o, 0, epw)
                     : k == kWeights ? tb::get_bits(dut_->weight_wmask_o, 0, epw)
                                     : tb::get_bits(dut_->psum_wmask_o, 0, epw);
              bufs_.ptr[k][b]->write(SramBank::kDma, addr[k], data, mask);
            } else {
              bufs_.ptr[k][b]->read(SramBank::kDma, addr[k]);
            }
          } catch (const ProtocolError& e) {
            port_error_ = fmt::format("{} port: {}", kKindName[k], e.what());
          }
        }
    }
    dut_.edge();
    bufs_.tick();
    const bool fired = dut_.fault();
    pending_assertion_ = fired;
    return !fired;  // an assertion at the edge of a start refuses it
  }
  bool fault() {
    const bool f = pending_assertion_ || !port_error_.empty();
    if (!port_error_.empty()) fmt::print(stderr, "{}\n", port_error_);
    port_error_.clear();
    pending_assertion_ = false;
    return f;
  }
  bool counters(int, Counters&) const { return false; }
  bool ifmap_waited() const { return false; }  // not visible at the ports (the cores beside it count)
  bool counts_ifmap_waits() const { return false; }
  bool sram_access(std::uint32_t& m) const {
    const std::uint32_t req[3] = {dut_->ifmap_req_o, dut_->weight_req_o, dut_->psum_req_o};
    const bool we[3] = {bool(dut_->ifmap_we_o), bool(dut_->weight_we_o), bool(dut_->psum_we_o)};
    m = 0;
    for (int k = 0; k < 3; ++k)
      for (int b = 0; b < 2; ++b)
        if ((req[k] >> b) & 1u) m |= 1u << (2 * k + b) | (we[k] ? 1u << (6 + 2 * k + b) : 0u);
    return true;
  }
  void expect_refusals_begin() { tb::expect_rtl_assertions("dma_rtl_tb", "directed bad descriptors"); }
  void expect_refusals_end() {}

private:
  template <class P>
  static void set_cmd(P& port, const Command& c) {
    const std::vector<std::uint32_t> w = rtl::pack_command(c);
    for (std::size_t i = 0; i < w.size(); ++i) port.at(i) = w[i];
  }
  HwParams p_;
  Buffers bufs_;
  tb::Dut<FLYCOL_VTOP> dut_;
  std::string port_error_;
  bool pending_assertion_ = false;
};

#else

// The Dma SC_MODULE (bank mode: it ticks the bench's banks) on its own signals and clock.
class ScView {
public:
  ScView(const std::string& name, const HwParams& p) : bufs_(p) {
    dut_ = std::make_unique<Dma>(name.c_str(), p, bufs_.ptr[kIfmap], bufs_.ptr[kWeights], bufs_.ptr[kPsums], true);
    Dma& m = *dut_;
    m.clk_i(clk_.clk());
    m.rst_ni(rst_n_);
    m.ld_start_i(start_[0]);
    m.ld_cmd_i(cmd_[0]);
    m.ld_busy_o(busy_[0]);
    m.ld_done_o(done_[0]);
    m.ps_start_i(start_[1]);
    m.ps_cmd_i(cmd_[1]);
    m.ps_busy_o(busy_[1]);
    m.ps_done_o(done_[1]);
    m.mem_req_valid_o(req_valid_);
    m.mem_req_ready_i(req_ready_);
    m.mem_req_write_o(req_write_);
    m.mem_req_addr_o(req_addr_);
    m.mem_req_bytes_o(req_bytes_);
    m.mem_req_wdata_o(req_wdata_);
    m.mem_rsp_valid_i(rsp_valid_);
    m.mem_rsp_rdata_i(rsp_rdata_);
  }
  Buffers& buffers() { return bufs_; }
  Out eval(const In& in) {
    rst_n_.write(in.rst_n);
    for (int e = 0; e < 2; ++e) {
      start_[e].write(in.start[e]);
      DmaCmd c;
      c.op = in.cmd[e].op;
      c.dma = in.cmd[e].dma;
      cmd_[e].write(c);
    }
    req_ready_.write(in.req_ready);
    rsp_valid_.write(in.rsp_valid);
    if (in.rsp) {
      MemBeatBits bv;
      bytes_to_beat(in.rsp->rdata, bv);
      rsp_rdata_.write(bv);
    }
    tb::ScClock::settle();
    Out o;
    o.req_valid = req_valid_.read();
    o.req.write = req_write_.read();
    o.req.addr = req_addr_.read();
    o.req.bytes = req_bytes_.read();
    beat_to_bytes(req_wdata_.read(), o.req.wdata);
    for (int e = 0; e < 2; ++e) {
      o.busy[e] = busy_[e].read();
      o.done[e] = done_[e].read();
    }
    return o;
  }
  bool edge(const In&) {
    return tb::sc_errors_during("flycol/dma", [&] { clk_.step(); }) == 0;
  }
  bool fault() { return false; }
  bool sram_access(std::uint32_t&) const { return false; }  // its banks are accessed inside the edge
  bool ifmap_waited() const { return false; }
  bool counts_ifmap_waits() const { return false; }
  bool counters(int e, Counters& c) const {
    if (e == 0) {
      const LoadEngine& ld = dut_->ld();
      c.requests = ld.dram_requests(), c.chunks = ld.chunks(), c.bytes_read = ld.dram_bytes_read();
      c.words_written = ld.sram_words_written();
    } else {
      const PsumEngine& ps = dut_->ps();
      c.requests = ps.dram_requests(), c.chunks = ps.chunks(), c.bytes_read = ps.dram_bytes_read();
      c.bytes_written = ps.dram_bytes_written(), c.words_written = ps.sram_words_written();
      c.words_read = ps.sram_words_read(), c.ifmap_writes = ps.ifmap_writes();
    }
    return true;
  }
  // The module turns the cores' protocol errors into SC_REPORT_ERROR("flycol/dma", ...).
  void expect_refusals_begin() { tb::expect_sc_errors("flycol/dma", "dma_tb", "directed bad descriptors"); }
  void expect_refusals_end() { tb::end_sc_errors("flycol/dma"); }

private:
  Buffers bufs_;
  tb::ScClock clk_;
  std::unique_ptr<Dma> dut_;
  sc_core::sc_signal<bool> rst_n_, start_[2], busy_[2], done_[2], req_valid_, req_ready_, req_write_, rsp_valid_;
  sc_core::sc_signal<DmaCmd> cmd_[2];
  sc_core::sc_signal<std::uint64_t> req_addr_;
  sc_core::sc_signal<int> req_bytes_;
  sc_core::sc_signal<MemBeatBits> req_wdata_, rsp_rdata_;
};

// ------------------------------------------------------------------------------------------------
// Hand-worked cycle timelines of the cores (spec 7.2-7.5), the arbiter's round robin and bad
// commands on the bare engines.

struct Rig {
  HwParams p;
  Buffers bufs;
  LoadEngine ld;
  PsumEngine ps;
  MemArbiter arb;
  DramModel dram;
  std::uint64_t t = 0;
  std::vector<std::uint64_t> fires[2], done[2], writes;  // cycles
  std::vector<std::uint64_t> ifmap_writes[2];            // cycles each ifmap buffer is written

  Rig(const HwParams& hp, const DramTiming& tm) : p(hp), bufs(hp), ld(hp), ps(hp), dram(tm, 1 << 16) {
    for (std::uint64_t a = 0; a < dram.size_bytes(); ++a) dram.bytes()[a] = std::uint8_t(a * 7 + 3);
  }
  void step() {
    dram.begin_cycle(t);
    arb.eval(ld.req_valid(), ld.req(), ps.req_valid(), ps.req(), dram.req_ready(), dram.rsp_valid());
    const MemRsp* rsp = dram.rsp_valid() ? &dram.rsp() : nullptr;
    ld.eval(arb.fired(0), arb.rsp_to() == 0 ? rsp : nullptr, bufs.ptr[kIfmap], bufs.ptr[kWeights]);
    ps.eval(arb.fired(1), arb.rsp_to() == 1 ? rsp : nullptr, bufs.ptr[kPsums], bufs.ptr[kIfmap], ld.writes_ifmap());
    for (int i = 0; i < 2; ++i)
      if (arb.fired(i)) fires[i].push_back(t);
    if (ld.done()) done[0].push_back(t);
    if (ps.done()) done[1].push_back(t);
    for (auto& k : bufs.ptr)
      for (SramBank* b : k)
        if (b->busy_this_cycle()) writes.push_back(t);
    for (int b = 0; b < 2; ++b)
      if (bufs.ptr[kIfmap][b]->pending_write()) ifmap_writes[b].push_back(t);
    const MemReq req = arb.mem_req();
    dram.end_cycle(arb.fired(0) || arb.fired(1) ? &req : nullptr);
    arb.tick();
    ld.tick();
    ps.tick();
    bufs.tick();
    ++t;
  }
  void run(int cycles) {
    for (int i = 0; i < cycles; ++i) step();
  }
};

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

void directed_core_checks(tb::MismatchLog& log, Figures& fig) {
  using V = std::vector<std::uint64_t>;
  auto eq = [&](const char* what, const V& got, const V& want) {
    ++fig.directed;
    log.expect_true(got == want, fmt::format("{}: got {}, expected {}", what, fmt::join(got, ","), fmt::join(want, ",")));
  };
  const HwParams fp16;
  {  // One beat of DRAM data: request in the first busy cycle; with latency 5 and a 1-cycle
     // transfer the response is valid in cycle 1+1+5 = 7, enters the response FIFO at that edge,
     // and the packer consumes it (writing the word) in cycle 8, which completes the command.
    Rig r(fp16, fast_dram(5));
    r.ld.start(load_cmd(Opcode::LoadIfmap, 16));
    r.run(12);
    eq("one beat: request cycles", r.fires[0], V{1});
    eq("one beat: done cycles", r.done[0], V{8});
    eq("one beat: SRAM write cycles", r.writes, V{8});
    log.expect("one beat: chunks", r.ld.chunks(), std::uint64_t(1));
    for (int e = 0; e < 16; ++e)
      log.expect("one beat: element", r.bufs.ptr[kIfmap][0]->peek(0, e), elem_at(r.dram.bytes(), std::uint64_t(2 * e), 2));
  }
  {  // pad_left 3: zero chunk (cycle 1), 13 elements up to the word end (request 2, 26 bytes,
     // transfer ends in cycle 3 -> response 8), 3 elements in word 1 (request 3, ends in 4 ->
     // response 9). Packer: zeros in 2, data in 9 (word 0 written) and 10 (word 1, done).
    Rig r(fp16, fast_dram(5));
    r.ld.start(load_cmd(Opcode::LoadWeights, 16, 3));
    r.run(14);
    eq("pad 3: request cycles", r.fires[0], V{2, 3});
    eq("pad 3: done cycles", r.done[0], V{10});
    eq("pad 3: SRAM write cycles", r.writes, V{9, 10});
    log.expect("pad 3: chunks", r.ld.chunks(), std::uint64_t(3));
    log.expect("pad 3: bytes", r.ld.dram_bytes_read(), std::uint64_t(32));
  }
  {  // Zeros only (no DRAM row): 2 rows of pad_left 5 = one run of 10 zeros, one chunk in cycle 1,
     // consumed in 2. An empty stream completes in its first cycle.
    Rig r(fp16, fast_dram(5));
    Command c = load_cmd(Opcode::LoadIfmap, 0, 5);
    c.dma.n_rows = 2;
    r.ld.start(c);
    r.run(4);
    eq("zeros only: done", r.done[0], V{2});
    log.expect("zeros only: chunks", r.ld.chunks(), std::uint64_t(1));
    r.ld.start(load_cmd(Opcode::LoadIfmap, 0, 0));
    r.run(3);
    eq("empty: done", r.done[0], V{2, 5});
  }
  {  // Maximal zero runs: pad_right 2 of row 0 and pad_left 2 of row 1 form one 4-zero chunk.
     // Stream: z2 d4 z4 d4 z2 (16 elements, one word) -> 5 chunks, 2 requests.
    Rig r(fp16, fast_dram(1));
    Command c = load_cmd(Opcode::LoadIfmap, 4, 2);
    c.dma.pad_right = 2;
    c.dma.n_rows = 2;
    c.dma.row_stride = 64;
    r.ld.start(c);
    r.run(20);
    log.expect("merged zero runs: chunks", r.ld.chunks(), std::uint64_t(5));
    log.expect("merged zero runs: requests", r.ld.dram_requests(), std::uint64_t(2));
    log.expect("merged zero runs: words", r.ld.sram_words_written(), std::uint64_t(1));
  }
  {  // STORE_PSUMS of 6 aligned words: the reader reads while FIFO + in flight < 2, so writes go
     // out in cycles 3,4 | 6,7 | 9,10 (two words per three cycles) and the last one completes.
    Rig r(fp16, fast_dram(1));
    Command c;
    c.op = Opcode::StorePsums;
    c.dma.row_len = 96;
    c.dma.dram_addr = 1024;
    r.ps.start(c);
    r.run(14);
    eq("store: write request cycles", r.fires[1], V{3, 4, 6, 7, 9, 10});
    eq("store: done", r.done[1], V{10});
    eq("store: SRAM read cycles", r.writes, V{1, 2, 4, 5, 7, 8});
  }
  {  // STORE_PSUMS of one psum word into ifmap buffer 1 at byte 2 (section 7.6): the read in cycle
     // 1, the word in the FIFO from 3; the 32-byte block holds elements 0..14 (chunk in 3) and the
     // next one element 15 (chunk in 4, done). With a zero-only LOAD_IFMAP of 4 words into ifmap
     // buffer 0 started in the same cycle (chunks 1..4, a word written in each of 2..5), the LD
     // engine keeps the ifmap port: the store's chunks wait and go out in 6 and 7.
    Command st;
    st.op = Opcode::StorePsums;
    st.dma.row_len = 16;
    st.dma.dram_addr = 2;
    st.dma.dst_ifmap = true;
    st.dma.dst_buf = 1;
    for (int c = 0; c < 2; ++c) {
      Rig r(fp16, fast_dram(1));
      for (int i = 0; i < 16; ++i) r.bufs.ptr[kPsums][0]->poke(0, i, word_elem_t(0x100 + i));
      r.ps.start(st);
      const bool with_load = c == 1;
      Command z = load_cmd(Opcode::LoadIfmap, 0, 64);
      if (with_load) r.ld.start(z);
      r.run(10);
      const char* tag = with_load ? "store into the ifmap beside a load" : "store into the ifmap";
      eq(fmt::format("{}: ifmap buffer 1 write cycles", tag).c_str(), r.ifmap_writes[1], with_load ? V{6, 7} : V{3, 4});
      eq(fmt::format("{}: done", tag).c_str(), r.done[1], with_load ? V{7} : V{4});
      if (with_load) eq("store into the ifmap beside a load: ifmap buffer 0 write cycles", r.ifmap_writes[0], V{2, 3, 4, 5});
      eq(fmt::format("{}: DRAM requests", tag).c_str(), r.fires[1], V{});
      log.expect("store into the ifmap: chunks written", r.ps.ifmap_writes(), std::uint64_t(2));
      for (int i = 0; i < 16; ++i)
        log.expect("store into the ifmap: element", std::uint64_t(r.bufs.ptr[kIfmap][1]->peek((1 + i) / 16, (1 + i) % 16)),
                   std::uint64_t(0x100 + i));
    }
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
    log.expect_true(got == std::vector<int>{0, -1, 1, 1, 0, 0, 1}, fmt::format("arbiter grants {}", fmt::join(got, ",")));
    // Reads fired: LD's three (PS's were writes), so the responses all go back to LD.
    std::vector<int> to;
    for (int i = 0; i < 3; ++i) to.push_back(cyc(false, false, false, true).second);
    log.expect_true(to == std::vector<int>{0, 0, 0}, fmt::format("arbiter responses {}", fmt::join(to, ",")));
    r1.write = false;
    cyc(false, true, true, false);
    cyc(true, false, true, false);
    to.clear();
    for (int i = 0; i < 2; ++i) to.push_back(cyc(false, false, false, true).second);
    log.expect_true(to == std::vector<int>{1, 0}, fmt::format("arbiter response order {}", fmt::join(to, ",")));
    tb::expect_throw<ProtocolError>(log, "arbiter: response with nothing outstanding", [&] { cyc(false, false, false, true); });
    fig.directed += 4;
  }
  {  // A ragged store and one with pad_left on the bare engine.
    PsumEngine ps(fp16);
    Command c;
    c.op = Opcode::StorePsums;
    c.dma.row_len = 10;  // 10 + 0 is not a whole number of 16-element words
    tb::expect_throw<ProtocolError>(log, "ragged store rows", [&] { ps.start(c); });
    c.dma.pad_right = 6;
    c.dma.pad_left = 1;
    tb::expect_throw<ProtocolError>(log, "store with pad_left", [&] { ps.start(c); });
    c.dma.pad_left = 0;
    LoadEngine ld(fp16);
    Command big = load_cmd(Opcode::LoadIfmap, 16);
    big.dma.n_rows = 1025;
    tb::expect_throw<ProtocolError>(log, "oversized load stream", [&] { ld.start(big); });
    fig.directed += 3;
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

#endif

DramTiming random_timing(tb::Rand& r) {
  const auto uni = [&](double lo, double hi) { return lo + (hi - lo) * double(r.bits(53)) * 0x1p-53; };
  DramTiming t;
  t.latency_cycles = r.uniform(0, 199);
  t.bytes_per_cycle = std::exp(uni(0.0, std::log(40.0)));  // log-uniform in [1, 40]
  t.random_seed = r.bits(63) | 1;
  t.not_ready_prob = r.uniform(0, 3) == 0 ? 0.0 : uni(0.0, 0.5);
  t.extra_latency_max = r.uniform(0, 3) == 0 ? 0 : r.uniform(0, 59);
  t.backlog_bytes = r.chance(0.5) ? 128 : 32 + r.uniform(0, 479);
  t.max_outstanding_reads = r.chance(0.5) ? 64 : 1 + r.uniform(0, 63);
  return t;
}

struct Profile {
  std::string name;
  DramTiming timing;
};

// The DRAM profiles of one run: the configuration's, a fast one (full queues, back-to-back
// chunks), and random ones.
std::vector<Profile> profiles(const DramTiming& reference, std::uint64_t seed, int n_random) {
  tb::Rand r(seed);
  std::vector<Profile> out;
  out.push_back({"reference DRAM", reference});
  DramTiming fast;
  fast.bytes_per_cycle = 32;
  fast.latency_cycles = 1;
  out.push_back({"fast DRAM", fast});
  for (int i = 0; i < n_random; ++i) out.push_back({fmt::format("random DRAM {}", i), random_timing(r)});
  return out;
}

// The first difference between two views' traces, or "".
std::string trace_diff(const Trace& a, const Trace& b) {
  for (int e = 0; e < 2; ++e)
    if (a.done[e] != b.done[e]) {
      std::size_t i = 0;
      while (i < a.done[e].size() && i < b.done[e].size() && a.done[e][i] == b.done[e][i]) ++i;
      return fmt::format("{} command #{} completes in cycle {} on one view, {} on the other", e ? "PS" : "LD", i + 1,
                         i < a.done[e].size() ? a.done[e][i] : 0, i < b.done[e].size() ? b.done[e][i] : 0);
    }
  if (!a.sram.empty() && !b.sram.empty() && a.sram != b.sram) {
    std::size_t i = 0;
    while (i < a.sram.size() && i < b.sram.size() && a.sram[i] == b.sram[i]) ++i;
    return fmt::format("SRAM access #{} differs (cycle {} vs {})", i + 1, i < a.sram.size() ? a.sram[i] >> 12 : 0,
                       i < b.sram.size() ? b.sram[i] >> 12 : 0);
  }
  if (a.fired != b.fired) {
    std::size_t i = 0;
    while (i < a.fired.size() && i < b.fired.size() && a.fired[i] == b.fired[i]) ++i;
    return fmt::format("DRAM request #{} differs (cycle, address or size)", i + 1);
  }
  return "";
}

template <class View>
Trace run_view(View& v, const HwParams& p, const std::vector<Profile>& profs, int commands, std::uint64_t seed,
               bool directed, tb::MismatchLog& log, Figures& fig) {
  Bench<View> b(v, p, seed, log, fig);
  try {
    for (const Profile& prof : profs) {
      b.run_profile(prof.name, prof.timing, commands);
      if (!log.ok()) break;
    }
    if (log.ok()) b.fused_coverage(v.counts_ifmap_waits());
    // The directed streams run on every view, so the RTL's cycle comparison with the cores covers them.
    if (log.ok()) b.directed_streams();
    if (directed && log.ok()) b.directed_starts();
  } catch (const std::exception& e) {
    log.fail("exception: {}", e.what());
  }
  return b.trace;
}

std::string figures(const Figures& f) {
  return fmt::format("{} commands (ifmap {} weights {} psum loads {} stores {}, {} of them into an ifmap buffer, "
                     "{} cycles waiting for the LD engine's ifmap write), {} cycles, {} DRAM requests, {} DRAM "
                     "bytes, {} directed checks",
                     f.commands, f.kinds[0], f.kinds[1], f.kinds[2], f.kinds[3], f.ifmap_stores, f.ifmap_waits,
                     f.cycles, f.requests, f.bytes, f.directed);
}

}  // namespace

#ifdef FLYCOL_VTOP

int main(int argc, char** argv) {
  tb::BenchMain harness("dma", {"commands", 150, 600, "commands per engine and profile (--long: 16 profiles)"});
  if (!harness.parse(argc, argv)) return 2;
  const HwParams& p = harness.params();
  harness.announce("elem {}b, acc {}b, B={}, {}x{}, depths {}/{}/{}, {} commands", p.elem_bits, p.acc_bits, p.bus_elems,
                   p.rows, p.cols, p.ifmap_depth, p.weight_depth, p.psum_depth, harness.count());
  const std::vector<Profile> profs =
      profiles(DramTiming::from(harness.config()), harness.seed(1), harness.long_run() ? 14 : 5);
  const int commands = int(harness.count());
  Figures fig;
  RtlView rtl(p, harness.seed());
  harness.run(harness.rtl_view(), [&](tb::MismatchLog& log) {
    const Trace t_rtl = run_view(rtl, p, profs, commands, harness.seed(2), true, log, fig);
    if (!log.ok()) return;
    // The cores on the same stimulus: the RTL must make every request and finish every command in
    // the same cycle (the directed starts are left out: they differ in their refusals only).
    tb::MismatchLog core_log("cores beside the RTL");
    Figures core_fig;
    CoreView core(p);
    const Trace t_core = run_view(core, p, profs, commands, harness.seed(2), false, core_log, core_fig);
    fig.ifmap_waits += core_fig.ifmap_waits;  // the RTL's ports do not show them; the same cycles, by the comparison
    Trace t_rtl_random = t_rtl;
    t_rtl_random.done[0].resize(t_core.done[0].size());
    t_rtl_random.done[1].resize(t_core.done[1].size());
    t_rtl_random.fired.resize(std::min(t_rtl.fired.size(), t_core.fired.size()));
    t_rtl_random.sram.resize(std::min(t_rtl.sram.size(), t_core.sram.size()));
    const std::string d = trace_diff(t_rtl_random, t_core);
    log.expect_true(core_log.ok() && d.empty(), "RTL and cores differ: " + d);
  });
  return harness.finish(figures(fig));
}

#else

int sc_main(int argc, char* argv[]) {
  tb::BenchMain harness("dma", {"commands", 40, 1000, "commands per engine (--long: more parameter sets and profiles)"});
  if (!harness.parse(argc, argv)) return 2;
  harness.announce("{} commands per engine", harness.count());
  struct Set {
    const char* name;
    HwParams p;
  };
  std::vector<Set> sets = {{"fp16 reference", params(16, 16, 16, 16, 16, 1024)},
                           {"int8", params(8, 32, 32, 16, 16, 512)},
                           {"int16 8x12", params(16, 32, 16, 8, 12, 512)},
                           {"fp16 5x4", params(16, 16, 16, 5, 4, 256)},
                           // Ifmap words below and above the beat for stores into an ifmap buffer
                           // (section 7.6: chunks cut at 8-byte blocks; at beats of a 64-byte word).
                           {"fp16 B=4 4x4", params(16, 16, 4, 4, 4, 256)},
                           {"fp16 B=32 8x8", params(16, 16, 32, 8, 8, 256)}};
  if (harness.long_run()) sets.push_back({"int8 32x8", params(8, 32, 32, 32, 8, 256)});
  const int commands = int(harness.count());
  // Every SC_MODULE exists before the first sc_start.
  std::vector<std::unique_ptr<ScView>> sc_views;
  if (harness.sc())
    for (std::size_t i = 0; i < sets.size(); ++i) sc_views.push_back(std::make_unique<ScView>(fmt::format("dma{}", i), sets[i].p));
  Figures fig;
  if (harness.core()) harness.run("core timelines", [&](tb::MismatchLog& log) { directed_core_checks(log, fig); });
  for (std::size_t i = 0; i < sets.size(); ++i) {
    const HwParams& p = sets[i].p;
    const std::vector<Profile> profs =
        profiles(DramTiming::from(Config{}), harness.seed(100 + i), harness.long_run() ? 6 : 1);
    Trace t_core;
    // The same stimulus on both views.
    if (harness.core())
      harness.run(fmt::format("core {}", sets[i].name), [&](tb::MismatchLog& log) {
        CoreView core(p);
        t_core = run_view(core, p, profs, commands, harness.seed(i), true, log, fig);
      });
    if (harness.sc())
      harness.run(fmt::format("sc {}", sets[i].name), [&](tb::MismatchLog& log) {
        const Trace t_sc = run_view(*sc_views[i], p, profs, commands, harness.seed(i), true, log, fig);
        if (harness.core() && log.ok()) {
          const std::string d = trace_diff(t_core, t_sc);
          log.expect_true(d.empty(), "the Dma module and the cores differ: " + d);
        }
      });
  }
  return harness.finish(figures(fig));
}

#endif
