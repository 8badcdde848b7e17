// Lockstep testbench of the DMA RTL (hw/dma/dma.sv) against its C++ cores, each side with its own
// DRAM model and SRAM banks: random descriptors on both engines under random DRAM profiles, every
// output compared every cycle, and directed checks that the RTL asserts where the cores throw.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include <fmt/format.h>
#include <verilated.h>

#include FLYCOL_VTOP_HEADER

#include "hw/common/command.h"
#include "hw/common/hw_params.h"
#include "hw/common/mem_port.h"
#include "hw/common/protocol_error.h"
#include "hw/common/sram_bank.h"
#include "hw/dma/load_engine.h"
#include "hw/dma/mem_arbiter.h"
#include "hw/dma/psum_engine.h"
#include "sim/config/config.h"
#include "sim/config/config_keys.h"
#include "sim/dram/dram_model.h"
#include "sim/rtlgen/rtl_types.h"

using namespace flycol;
using namespace flycol::hw;
using Vtop = FLYCOL_VTOP;

namespace {

constexpr int kMaxReported = 30;
int g_errors = 0;

template <class... Args>
void fail(fmt::format_string<Args...> f, Args&&... args) {
  if (++g_errors <= kMaxReported)
    fmt::print(stderr, "dma_rtl_tb[{}]: MISMATCH: {}\n", FLYCOL_RTL_CONFIG, fmt::format(f, std::forward<Args>(args)...));
}

// ------------------------------------------------------------------------------------------------
// Bit fields of Verilated ports of any width: plain integers up to 64 bits, VlWide above. Word-wise,
// because the wide ports (beats, SRAM words) are read every cycle.

std::uint64_t low_mask(int n) { return n >= 64 ? ~std::uint64_t(0) : (std::uint64_t(1) << n) - 1; }

template <class T, std::enable_if_t<std::is_integral_v<T>, int> = 0>
std::uint64_t get_bits(const T& s, int lo, int n) {
  return (std::uint64_t(s) >> lo) & low_mask(n);
}
template <std::size_t W>
std::uint64_t get_bits(const VlWide<W>& s, int lo, int n) {
  const int w = lo / 32, off = lo % 32;
  std::uint64_t v = std::uint64_t(s.at(std::size_t(w))) >> off;
  int have = 32 - off;
  for (int k = w + 1; have < n && k < int(W); ++k, have += 32) v |= std::uint64_t(s.at(std::size_t(k))) << have;
  return v & low_mask(n);
}
template <class T, std::enable_if_t<std::is_integral_v<T>, int> = 0>
void put_bits(T& s, int lo, int n, std::uint64_t v) {
  const std::uint64_t m = low_mask(n) << lo;
  s = T((std::uint64_t(s) & ~m) | ((v << lo) & m));
}
template <std::size_t W>
void put_bits(VlWide<W>& s, int lo, int n, std::uint64_t v) {
  for (int b = 0; b < n;) {  // one 32-bit word at a time
    const int i = lo + b, w = i / 32, off = i % 32, take = std::min(32 - off, n - b);
    const std::uint32_t m = std::uint32_t(low_mask(take) << off);
    s.at(std::size_t(w)) = (s.at(std::size_t(w)) & ~m) | (std::uint32_t((v >> b) << off) & m);
    b += take;
  }
}

// ------------------------------------------------------------------------------------------------
// Independent reference of a load: the stream of section 7.3 element by element (as tb/dma_tb.cpp).

struct StreamElem {
  bool data = false;
  std::uint64_t addr = 0;  // DRAM byte address (data only)
};

std::vector<StreamElem> stream_of(const DmaDesc& d, int eb) {
  std::vector<StreamElem> s;
  const std::uint32_t w = d.pad_left + d.row_len + d.pad_right;
  for (std::uint32_t p = 0; p < d.n_planes; ++p) {
    s.resize(s.size() + std::size_t(d.pad_top) * w);
    for (std::uint32_t y = 0; y < d.n_rows; ++y) {
      s.resize(s.size() + d.pad_left);
      for (std::uint32_t i = 0; i < d.row_len; ++i)
        s.push_back({true, d.dram_addr + std::uint64_t(p) * d.plane_stride + std::uint64_t(y) * d.row_stride +
                               std::uint64_t(i) * std::uint64_t(eb)});
      s.resize(s.size() + d.pad_right);
    }
    s.resize(s.size() + std::size_t(d.pad_bottom) * w);
  }
  s.resize(s.size() + d.tail);
  return s;
}

word_elem_t elem_at(const std::uint8_t* mem, std::uint64_t addr, int eb) {
  word_elem_t v = 0;
  for (int b = 0; b < eb; ++b) v |= word_elem_t(mem[addr + std::uint64_t(b)]) << (8 * b);
  return v;
}

std::uint64_t stream_len(const DmaDesc& d) {
  return std::uint64_t(d.n_planes) * (std::uint64_t(d.pad_top) + d.n_rows + d.pad_bottom) *
             (std::uint64_t(d.pad_left) + d.row_len + d.pad_right) +
         d.tail;
}

// ------------------------------------------------------------------------------------------------

constexpr std::uint64_t kRegion = 1 << 18;  // DRAM: ifmap, weights, psum loads, psum stores
constexpr int kIfmap = 0, kWeights = 1, kPsums = 2;
const char* const kKindName[3] = {"ifmap", "weight", "psum"};

struct Profile {
  std::string name;
  DramTiming timing;
  int commands = 100;  // per engine
};

// One side's memories: a DRAM model and the six SRAM banks.
struct Memories {
  std::unique_ptr<DramModel> dram;
  std::unique_ptr<SramBank> bank[3][2];
  SramBank* ptr[3][2]{};

  Memories(const HwParams& p, const DramTiming& t) {
    dram = std::make_unique<DramModel>(t, 4 * kRegion);
    const int depth[3] = {p.ifmap_depth, p.weight_depth, p.psum_depth};
    const int epw[3] = {p.bus_elems, p.cols, p.rows};
    for (int k = 0; k < 3; ++k)
      for (int b = 0; b < 2; ++b) {
        bank[k][b] = std::make_unique<SramBank>(fmt::format("{}{}", kKindName[k], b), depth[k], epw[k]);
        ptr[k][b] = bank[k][b].get();
      }
  }
  void tick_banks() {
    for (auto& k : bank)
      for (auto& b : k) b->tick();
  }
};

class Bench {
public:
  Bench(const HwParams& p, std::uint64_t seed) : p_(p), ld_(p), ps_(p), rng_(seed) {
    ctx_ = std::make_unique<VerilatedContext>();
    ctx_->randReset(2);  // registers start random: the reset must cover every one that matters
    ctx_->randSeed(int(seed % 1000003));
    ctx_->fatalOnError(false);  // assertion failures are counted here, not fatal
    top_ = std::make_unique<Vtop>(ctx_.get(), "TOP");
  }
  ~Bench() { top_->final(); }

  std::uint64_t cycles = 0, commands = 0, dram_requests = 0, dram_bytes = 0, sram_accesses = 0, directed = 0;
  int kinds[4] = {0, 0, 0, 0};
  int max_outstanding = 0;
  std::uint64_t conflicts = 0;

  void run_profile(const Profile& prof) {
    new_memories(prof.timing);
    do_reset();
    fill_dram();
    target_ = prof.commands;
    for (Eng& g : eng_) g = Eng{};
    std::uint64_t last_progress = t_;
    const int errors_before = g_errors;
    const std::uint64_t conflicts_before = arb_.conflicts();
    // Up to the first cycle with a difference: what follows it would only repeat it.
    while (g_errors == errors_before) {
      bool start[2] = {false, false};
      Command cmd[2];
      for (int e = 0; e < 2; ++e) {
        Eng& g = eng_[e];
        if (g.running || engine_busy(e)) continue;
        if (g.gap > 0) {
          --g.gap;
        } else if (g.issued < target_) {
          cmd[e] = e == 0 ? gen_ld() : gen_ps();
          prepare(e, cmd[e]);
          start[e] = true;
        }
      }
      if (!start[0] && !start[1] && !eng_[0].running && !eng_[1].running && eng_[0].issued == target_ &&
          eng_[1].issued == target_)
        break;
      const StepResult r = step(start, cmd);
      if (r.progress) last_progress = t_;
      for (int e = 0; e < 2; ++e) {
        Eng& g = eng_[e];
        if (g.running && r.done[e]) {
          g.running = false;
          ++commands;
          check_command(e);
          g.gap = chance(40) ? 0 : int(rnd(1, 30));
        } else if (g.running && t_ - g.start_cycle > g.deadline) {
          fail("{}: watchdog: {} command started in cycle {} not done after {} cycles: {}", prof.name,
               e ? "PS" : "LD", g.start_cycle, g.deadline, g.c.to_string());
          return;
        }
      }
      if (t_ - last_progress > 200000) {
        fail("{}: watchdog: no memory traffic and no completion for 200000 cycles", prof.name);
        return;
      }
    }
    compare_memories(prof.name);
    cycles += t_;
    dram_requests += rtl_->dram->stats().reads + rtl_->dram->stats().writes;
    dram_bytes += rtl_->dram->stats().bytes_read + rtl_->dram->stats().bytes_written;
    conflicts += arb_.conflicts() - conflicts_before;
    fmt::print("  {}: {} cycles, {} commands, dram {} requests {} bytes, not-ready {} cycles, arbiter conflicts {}{}\n",
               prof.name, t_, eng_[0].issued + eng_[1].issued,
               rtl_->dram->stats().reads + rtl_->dram->stats().writes,
               rtl_->dram->stats().bytes_read + rtl_->dram->stats().bytes_written, rtl_->dram->stats().not_ready_cycles,
               arb_.conflicts() - conflicts_before, g_errors > errors_before ? " FAILED" : "");
  }

  // Bad commands: the core throws at start(); the RTL must raise an assertion at the same edge.
  // A valid command next to them checks that the assertions stay quiet otherwise.
  void directed_assertions() {
    fmt::print("  directed: bad descriptors; RTL assertion messages below are expected\n");
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
      const char* names[4] = {"pad_left", "pad_top", "pad_bottom", "tail"};
      cases.push_back({names[field], 1, c, true});
    }
    if (p_.rows > 1) {
      Command c = base(Opcode::StorePsums);
      c.dma.pad_right = 1;
      cases.push_back({"STORE_PSUMS rows not whole words", 1, c, true});
    }
    {
      Command c = base(Opcode::StorePsums);
      c.dma.n_planes = std::uint32_t(p_.psum_depth) + 1;
      c.dma.plane_stride = std::uint32_t(p_.rows * p_.acc_bytes());
      cases.push_back({"STORE_PSUMS larger than the buffer", 1, c, true});
    }
    cases.push_back({"LD engine given STORE_PSUMS", 0, base(Opcode::StorePsums), true});
    cases.push_back({"LD engine given LOAD_PSUMS", 0, base(Opcode::LoadPsums), true});
    cases.push_back({"PS engine given LOAD_WEIGHTS", 1, base(Opcode::LoadWeights), true});
    cases.push_back({"PS engine given RUN", 1, base(Opcode::Run), true});

    for (const Case& k : cases) {
      new_memories(fast);
      do_reset();
      bool start[2] = {false, false};
      Command cmd[2];
      start[k.engine] = true;
      cmd[k.engine] = k.c;
      const StepResult r = step(start, cmd, /*expect_errors=*/true);
      ++directed;
      if (r.core_threw != k.error || r.rtl_error != k.error)
        fail("directed: {}: core threw {}, RTL assertion {}, expected {} ({})", k.what, r.core_threw, r.rtl_error,
             k.error, k.c.to_string());
    }
    {  // A start while the engine is busy.
      new_memories(fast);
      do_reset();
      bool start[2] = {true, false};
      Command cmd[2] = {base(Opcode::LoadIfmap), Command{}};
      const StepResult first = step(start, cmd, true);
      const StepResult second = step(start, cmd, true);
      ++directed;
      if (first.core_threw || first.rtl_error || !second.core_threw || !second.rtl_error)
        fail("directed: start while busy: core threw {}/{}, RTL assertion {}/{} (first start/second start)",
             first.core_threw, second.core_threw, first.rtl_error, second.rtl_error);
    }
    {  // Both engines ask in the first busy cycle after reset: LD must win the first conflict.
      new_memories(fast);
      do_reset();
      fill_dram();
      bool start[2] = {true, true};
      Command cmd[2] = {base(Opcode::LoadIfmap), base(Opcode::LoadPsums)};
      cmd[1].dma.dram_addr = 2 * kRegion;
      for (int e = 0; e < 2; ++e) prepare(e, cmd[e]);
      bool done[2] = {false, false};
      for (int i = 0; i < 200 && !(done[0] && done[1]); ++i) {
        const StepResult r = step(start, cmd);
        start[0] = start[1] = false;
        for (int e = 0; e < 2; ++e) done[e] = done[e] || r.done[e];
      }
      ++directed;
      if (!done[0] || !done[1]) fail("directed: first conflict after reset: the loads did not complete");
      for (int e = 0; e < 2; ++e) {
        eng_[e].running = false;
        check_command(e);
      }
    }
    new_memories(fast);
    do_reset();
  }

private:
  struct Eng {
    bool running = false;
    int gap = 0, issued = 0;
    std::uint64_t start_cycle = 0, deadline = 0;
    Command c;
    int kind = 0, buf = 0, eb = 0;
    std::vector<word_elem_t> expect;  // loads: the whole destination buffer afterwards
  };
  struct StepResult {
    bool done[2] = {false, false};
    bool progress = false;
    bool core_threw = false, rtl_error = false;
  };

  HwParams p_;
  LoadEngine ld_;
  PsumEngine ps_;
  MemArbiter arb_;
  std::unique_ptr<Memories> ref_, rtl_;
  std::unique_ptr<VerilatedContext> ctx_;
  std::unique_ptr<Vtop> top_;
  std::mt19937_64 rng_;
  std::uint64_t t_ = 0;  // cycle of the current DRAM models
  Eng eng_[2];
  int target_ = 0;
  std::vector<std::uint8_t> store_mirror_;  // the store region as it must be

  std::uint64_t rnd(std::uint64_t lo, std::uint64_t hi) { return lo + rng_() % (hi - lo + 1); }  // [lo, hi]
  bool chance(int percent) { return int(rng_() % 100) < percent; }

  bool engine_busy(int e) const { return e == 0 ? ld_.busy() : ps_.busy(); }
  int elems_per_word(int kind) const { return kind == kIfmap ? p_.bus_elems : kind == kWeights ? p_.cols : p_.rows; }
  int elem_bits(int kind) const { return kind == kPsums ? p_.acc_bits : p_.elem_bits; }

  void new_memories(const DramTiming& t) {
    ref_ = std::make_unique<Memories>(p_, t);
    rtl_ = std::make_unique<Memories>(p_, t);
    t_ = 0;
  }

  // Identical random contents on both sides.
  void fill_dram() {
    for (std::uint64_t a = 0; a < ref_->dram->size_bytes(); a += 8) {
      const std::uint64_t v = rng_();
      std::memcpy(ref_->dram->bytes() + a, &v, 8);
    }
    std::memcpy(rtl_->dram->bytes(), ref_->dram->bytes(), ref_->dram->size_bytes());
    store_mirror_.assign(ref_->dram->bytes() + 3 * kRegion, ref_->dram->bytes() + 4 * kRegion);
    for (int k = 0; k < 3; ++k)
      for (int b = 0; b < 2; ++b) fill_bank(k, b);
  }

  void fill_bank(int kind, int b) {
    SramBank* x = ref_->ptr[kind][b];
    SramBank* y = rtl_->ptr[kind][b];
    const word_elem_t m = word_elem_t(low_mask(elem_bits(kind)));
    for (int a = 0; a < x->depth(); ++a)
      for (int i = 0; i < x->elems_per_word(); ++i) {
        const word_elem_t v = word_elem_t(rng_()) & m;
        x->poke(a, i, v);
        y->poke(a, i, v);
      }
  }

  // Both sides reset; the cores' reset() is the RTL's rst_ni.
  void do_reset() {
    top_->rst_ni = 0;
    top_->clk_i = 0;
    top_->ld_start_i = 0;
    top_->ps_start_i = 0;
    top_->mem_req_ready_i = 0;
    top_->mem_rsp_valid_i = 0;
    top_->eval();
    for (int i = 0; i < 2; ++i) {
      top_->clk_i = 1;
      top_->eval();
      top_->clk_i = 0;
      top_->eval();
    }
    top_->rst_ni = 1;
    top_->eval();
    ld_.reset();
    ps_.reset();
    arb_.reset();
    ctx_->gotError(false);
  }

  // ----------------------------------------------------------------------------------------------
  // Command generation (the shapes of tb/dma_tb.cpp, plus degenerate streams).

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
      place(d, eb, 0, true);
    } else {
      c.op = Opcode::LoadWeights;
      d.n_planes = std::uint32_t(rnd(1, 2));
      d.n_rows = std::uint32_t(rnd(1, big ? 64 : 8));
      d.row_len = std::uint32_t(rnd(1, std::uint64_t(big ? 9 * p_.cols : 2 * p_.cols)));
      shrink(d, std::uint64_t(p_.weight_depth) * std::uint64_t(p_.cols));
      place(d, eb, 1, true);
    }
    d.buf = std::uint8_t(rng_() % 2);
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
      if (chance(3)) {  // nothing to store: completes in its first cycle
        d.pad_right += d.row_len;
        d.row_len = 0;
      }
      if (chance(2)) d.n_rows = 0;
      while (stream_len(d) > cap) d.n_planes /= 2;
    } else {
      shrink(d, cap);
    }
    place(d, p_.acc_bytes(), c.op == Opcode::LoadPsums ? 2 : 3, c.op == Opcode::LoadPsums);
    d.buf = std::uint8_t(rng_() % 2);
    return c;
  }

  // New contents for the command's buffer on both sides, and its expected effect.
  void prepare(int e, const Command& c) {
    Eng& g = eng_[e];
    const DmaDesc& d = c.dma;
    g.c = c;
    g.running = true;
    g.start_cycle = t_;
    ++g.issued;
    ++kinds[int(c.op)];
    g.kind = c.op == Opcode::LoadIfmap ? kIfmap : c.op == Opcode::LoadWeights ? kWeights : kPsums;
    g.buf = d.buf;
    g.eb = elem_bits(g.kind) / 8;
    const int epw = elems_per_word(g.kind);
    fill_bank(g.kind, g.buf);
    SramBank* bank = ref_->ptr[g.kind][g.buf];
    std::uint64_t requests = 0;
    if (c.op == Opcode::StorePsums) {
      const std::uint32_t w = d.row_len + d.pad_right;
      for (std::uint32_t pl = 0; pl < d.n_planes; ++pl)
        for (std::uint32_t y = 0; y < d.n_rows; ++y)
          for (std::uint32_t i = 0; i < d.row_len; ++i) {
            const std::uint64_t pos = (std::uint64_t(pl) * d.n_rows + y) * w + i;
            const word_elem_t v = bank->peek(int(pos / std::uint64_t(epw)), int(pos % std::uint64_t(epw)));
            const std::uint64_t a = d.dram_addr + std::uint64_t(pl) * d.plane_stride +
                                    std::uint64_t(y) * d.row_stride + std::uint64_t(i) * std::uint64_t(g.eb);
            for (int b = 0; b < g.eb; ++b) store_mirror_[a - 3 * kRegion + std::uint64_t(b)] = std::uint8_t(v >> (8 * b));
            if (i % std::uint32_t(epw) == 0 || a % kBeatBytes == 0) ++requests;
          }
    } else {
      g.expect.resize(std::size_t(bank->depth()) * std::size_t(epw));
      for (int a = 0; a < bank->depth(); ++a)
        for (int i = 0; i < epw; ++i) g.expect[std::size_t(a) * std::size_t(epw) + std::size_t(i)] = bank->peek(a, i);
      const std::vector<StreamElem> s = stream_of(d, g.eb);
      for (std::size_t i = 0; i < s.size(); ++i) {
        g.expect[i] = s[i].data ? elem_at(ref_->dram->bytes(), s[i].addr, g.eb) : 0;
        if (s[i].data && (i == 0 || !s[i - 1].data || s[i].addr % kBeatBytes == 0 || i % std::size_t(epw) == 0 ||
                          s[i].addr != s[i - 1].addr + std::uint64_t(g.eb)))
          ++requests;
      }
    }
    // Generous: every request alone through the latency and the channel, for both engines.
    const DramTiming& t = ref_->dram->timing();
    const std::uint64_t per_req = std::uint64_t(t.latency_cycles + t.extra_latency_max) + 4 +
                                  std::uint64_t(double(kBeatBytes) / t.bytes_per_cycle) + 1;
    g.deadline = 2000 + std::uint64_t(8.0 * double((requests + 8) * per_req + stream_len(d)) /
                                      std::max(0.05, 1.0 - t.not_ready_prob));
  }

  // After the completing cycle: the destination against the straight-loop reference, on both sides.
  void check_command(int e) {
    Eng& g = eng_[e];
    const std::string what = fmt::format("{} #{} started in cycle {} ({})", e ? "PS" : "LD", g.issued, g.start_cycle,
                                         g.c.to_string());
    if (g.c.op == Opcode::StorePsums) {
      for (const Memories* m : {ref_.get(), rtl_.get()}) {
        const std::uint8_t* got = m->dram->bytes() + 3 * kRegion;
        if (std::memcmp(got, store_mirror_.data(), kRegion) != 0) {
          std::uint64_t i = 0;
          while (got[i] == store_mirror_[i]) ++i;
          fail("{}: {} DRAM byte {:#x} is {:#04x}, expected {:#04x}", what, m == ref_.get() ? "core" : "RTL",
               3 * kRegion + i, got[i], store_mirror_[i]);
          return;
        }
      }
      return;
    }
    const int epw = elems_per_word(g.kind);
    for (const Memories* m : {ref_.get(), rtl_.get()}) {
      const SramBank* bank = m->ptr[g.kind][g.buf];
      for (int a = 0; a < bank->depth(); ++a)
        for (int i = 0; i < epw; ++i) {
          const word_elem_t want = g.expect[std::size_t(a) * std::size_t(epw) + std::size_t(i)];
          if (bank->peek(a, i) != want) {
            fail("{}: {} {} buffer {} word {} element {} is {:#x}, expected {:#x}", what,
                 m == ref_.get() ? "core" : "RTL", kKindName[g.kind], g.buf, a, i, bank->peek(a, i), want);
            return;
          }
        }
    }
  }

  void compare_memories(const std::string& name) {
    for (int k = 0; k < 3; ++k)
      for (int b = 0; b < 2; ++b) {
        const SramBank* x = ref_->ptr[k][b];
        const SramBank* y = rtl_->ptr[k][b];
        for (int a = 0; a < x->depth(); ++a)
          for (int i = 0; i < x->elems_per_word(); ++i)
            if (x->peek(a, i) != y->peek(a, i)) {
              fail("{}: end: {} buffer {} word {} element {}: RTL {:#x} core {:#x}", name, kKindName[k], b, a, i,
                   y->peek(a, i), x->peek(a, i));
              a = x->depth();
              break;
            }
      }
    if (std::memcmp(ref_->dram->bytes(), rtl_->dram->bytes(), ref_->dram->size_bytes()) != 0)
      fail("{}: end: DRAM contents differ", name);
  }

  // ----------------------------------------------------------------------------------------------
  // One cycle of both sides.

  template <class P>
  void set_cmd(P& port, const Command& c) {
    const std::vector<std::uint32_t> w = flycol::rtl::pack_command(c);
    for (std::size_t i = 0; i < w.size(); ++i) port.at(i) = w[i];
  }

  // A random command while start is low: the RTL must ignore it.
  Command junk() {
    Command c;
    c.op = Opcode(rng_() % 5);
    c.dma.buf = std::uint8_t(rng_() & 1);
    c.dma.dram_addr = rng_() & 0xffffffffffull;
    c.dma.n_planes = std::uint32_t(rng_() & 0xffff);
    c.dma.plane_stride = std::uint32_t(rng_());
    c.dma.n_rows = std::uint32_t(rng_() & 0xffff);
    c.dma.row_stride = std::uint32_t(rng_());
    c.dma.row_len = std::uint32_t(rng_() & 0xffff);
    c.dma.pad_left = std::uint32_t(rng_() & 0xffff);
    c.dma.pad_right = std::uint32_t(rng_() & 0xffff);
    c.dma.pad_top = std::uint32_t(rng_() & 0xffff);
    c.dma.pad_bottom = std::uint32_t(rng_() & 0xffff);
    c.dma.tail = std::uint32_t(rng_() & 0xffff);
    c.run.pattern = rng_();
    return c;
  }

  template <class P>
  void read_word(const P& port, int kind, word_elem_t* out) const {
    const int w = elem_bits(kind);
    for (int i = 0; i < elems_per_word(kind); ++i) out[i] = word_elem_t(get_bits(port, i * w, w));
  }

  StepResult step(const bool start[2], const Command cmd[2], bool expect_errors = false) {
    StepResult r;
    // ---- Reference: the cores as the accelerator top evaluates them.
    ref_->dram->begin_cycle(t_);
    arb_.eval(ld_.req_valid(), ld_.req(), ps_.req_valid(), ps_.req(), ref_->dram->req_ready(), ref_->dram->rsp_valid());
    const MemRsp* rsp = ref_->dram->rsp_valid() ? &ref_->dram->rsp() : nullptr;
    ld_.eval(arb_.fired(0), arb_.rsp_to() == 0 ? rsp : nullptr, ref_->ptr[kIfmap], ref_->ptr[kWeights]);
    ps_.eval(arb_.fired(1), arb_.rsp_to() == 1 ? rsp : nullptr, ref_->ptr[kPsums]);
    const bool ref_valid = arb_.mem_req_valid();
    const MemReq ref_req = arb_.mem_req();
    const bool ref_fired = arb_.fired(0) || arb_.fired(1);
    const bool ref_busy[2] = {ld_.busy(), ps_.busy()};
    r.done[0] = ld_.done();
    r.done[1] = ps_.done();
    bool ref_access[3][2];
    std::uint64_t ref_reads[3][2], ref_writes[3][2];
    for (int k = 0; k < 3; ++k)
      for (int b = 0; b < 2; ++b) {
        ref_access[k][b] = ref_->ptr[k][b]->busy_this_cycle();
        ref_reads[k][b] = ref_->ptr[k][b]->reads();
        ref_writes[k][b] = ref_->ptr[k][b]->writes();
      }
    r.progress = ref_fired || ref_->dram->rsp_valid() || r.done[0] || r.done[1];
    max_outstanding = std::max(max_outstanding, arb_.reads_outstanding());
    ref_->dram->end_cycle(ref_fired ? &ref_req : nullptr);
    try {
      if (start[0]) ld_.start(cmd[0]);
      if (start[1]) ps_.start(cmd[1]);
    } catch (const ProtocolError& e) {
      if (!expect_errors) fail("cycle {}: core: {}", t_, e.what());
      r.core_threw = true;
    }
    arb_.tick();
    ld_.tick();
    ps_.tick();
    ref_->tick_banks();

    // ---- RTL.
    DramModel& dram = *rtl_->dram;
    dram.begin_cycle(t_);
    top_->clk_i = 0;
    top_->mem_req_ready_i = dram.req_ready();
    top_->mem_rsp_valid_i = dram.rsp_valid();
    std::memcpy(top_->mem_rsp_rdata_i.data(), dram.rsp().rdata, kBeatBytes);  // little endian, like the lanes
    for (int b = 0; b < 2; ++b) {
      const word_elem_t* w = rtl_->ptr[kPsums][b]->rdata();
      for (int i = 0; i < p_.rows; ++i) put_bits(top_->psum_rdata_i, (b * p_.rows + i) * p_.acc_bits, p_.acc_bits, w[i]);
    }
    top_->ld_start_i = start[0];
    top_->ps_start_i = start[1];
    set_cmd(top_->ld_cmd_i, start[0] ? cmd[0] : junk());
    set_cmd(top_->ps_cmd_i, start[1] ? cmd[1] : junk());
    top_->eval();

    // Outputs of the cycle.
    const auto mismatch = [&](const char* sig, std::uint64_t rtl, std::uint64_t core) {
      fail("cycle {}: {}: RTL {:#x}, core {:#x}", t_, sig, rtl, core);
    };
    const bool valid = top_->mem_req_valid_o;
    if (valid != ref_valid) mismatch("mem_req_valid_o", valid, ref_valid);
    MemReq req;
    req.write = top_->mem_req_write_o;
    req.addr = top_->mem_req_addr_o;
    req.bytes = top_->mem_req_bytes_o;
    std::memcpy(req.wdata, top_->mem_req_wdata_o.data(), kBeatBytes);
    // The RTL drives the cores' values even without a request (the loader's walk address, the
    // store's zeros), so every field is compared every cycle, and all 32 byte lanes.
    if (req.write != ref_req.write) mismatch("mem_req_write_o", req.write, ref_req.write);
    if (req.addr != ref_req.addr) mismatch("mem_req_addr_o", req.addr, ref_req.addr);
    if (req.bytes != ref_req.bytes) mismatch("mem_req_bytes_o", std::uint64_t(req.bytes), std::uint64_t(ref_req.bytes));
    for (int lane = 0; lane < kBeatBytes; ++lane)
      if (req.wdata[lane] != ref_req.wdata[lane]) {
        fail("cycle {}: mem_req_wdata_o byte lane {}: RTL {:#04x}, core {:#04x}", t_, lane, req.wdata[lane],
             ref_req.wdata[lane]);
        break;
      }
    if (bool(top_->ld_busy_o) != ref_busy[0]) mismatch("ld_busy_o", top_->ld_busy_o, ref_busy[0]);
    if (bool(top_->ld_done_o) != r.done[0]) mismatch("ld_done_o", top_->ld_done_o, r.done[0]);
    if (bool(top_->ps_busy_o) != ref_busy[1]) mismatch("ps_busy_o", top_->ps_busy_o, ref_busy[1]);
    if (bool(top_->ps_done_o) != r.done[1]) mismatch("ps_done_o", top_->ps_done_o, r.done[1]);

    // SRAM ports: the requests go to this side's banks.
    const std::uint32_t req_bits[3] = {top_->ifmap_req_o, top_->weight_req_o, top_->psum_req_o};
    const bool we[3] = {bool(top_->ifmap_we_o), bool(top_->weight_we_o), bool(top_->psum_we_o)};
    const int addr[3] = {int(top_->ifmap_addr_o), int(top_->weight_addr_o), int(top_->psum_addr_o)};
    bool rtl_access[3][2];
    for (int k = 0; k < 3; ++k)
      for (int b = 0; b < 2; ++b) {
        rtl_access[k][b] = (req_bits[k] >> b) & 1u;
        if (rtl_access[k][b] != ref_access[k][b])
          fail("cycle {}: {}_req_o[{}]: RTL {}, core {}", t_, kKindName[k], b, rtl_access[k][b], ref_access[k][b]);
        if (!rtl_access[k][b]) continue;
        ++sram_accesses;
        try {
          if (we[k]) {
            word_elem_t data[kMaxWordElems];
            std::uint64_t mask = 0;
            if (k == kIfmap) {
              read_word(top_->ifmap_wdata_o, k, data);
              mask = get_bits(top_->ifmap_wmask_o, 0, p_.bus_elems);
            } else if (k == kWeights) {
              read_word(top_->weight_wdata_o, k, data);
              mask = get_bits(top_->weight_wmask_o, 0, p_.cols);
            } else {
              read_word(top_->psum_wdata_o, k, data);
              mask = get_bits(top_->psum_wmask_o, 0, p_.rows);
            }
            rtl_->ptr[k][b]->write(SramBank::kDma, addr[k], data, mask);
          } else {
            rtl_->ptr[k][b]->read(SramBank::kDma, addr[k]);
          }
        } catch (const ProtocolError& e) {
          fail("cycle {}: RTL {} port: {}", t_, kKindName[k], e.what());
        }
      }

    const bool fired = valid && top_->mem_req_ready_i;
    try {
      dram.end_cycle(fired ? &req : nullptr);
    } catch (const ProtocolError& e) {  // the model has ended the cycle before it checks
      fail("cycle {}: RTL memory request: {}", t_, e.what());
    }
    ctx_->timeInc(1);
    top_->clk_i = 1;
    top_->eval();
    ctx_->timeInc(1);
    top_->clk_i = 0;
    rtl_->tick_banks();
    r.rtl_error = ctx_->gotError();
    if (r.rtl_error) {
      if (!expect_errors) fail("cycle {}: an RTL assertion fired (see above)", t_);
      ctx_->gotError(false);
    }

    // Effects of the SRAM accesses: the same kind of access, the same words written, the same data read.
    for (int k = 0; k < 3; ++k)
      for (int b = 0; b < 2; ++b) {
        if (!rtl_access[k][b] || !ref_access[k][b]) continue;
        const SramBank* x = ref_->ptr[k][b];
        const SramBank* y = rtl_->ptr[k][b];
        const bool ref_wrote = x->writes() != ref_writes[k][b];
        const bool ref_read = x->reads() != ref_reads[k][b];
        if (ref_wrote != we[k] || ref_read == we[k]) {
          fail("cycle {}: {} buffer {}: RTL {}, core {}", t_, kKindName[k], b, we[k] ? "writes" : "reads",
               ref_wrote ? "writes" : "reads");
          continue;
        }
        for (int i = 0; i < x->elems_per_word(); ++i) {
          const word_elem_t got = we[k] ? y->peek(addr[k], i) : y->rdata()[i];
          const word_elem_t want = we[k] ? x->peek(addr[k], i) : x->rdata()[i];
          if (got != want) {
            fail("cycle {}: {} buffer {} {} word {} element {}: RTL {:#x}, core {:#x}", t_, kKindName[k], b,
                 we[k] ? "write of" : "read of", addr[k], i, got, want);
            break;
          }
        }
      }
    ++t_;
    return r;
  }
};

DramTiming random_timing(std::mt19937_64& rng) {
  const auto uni = [&](double lo, double hi) { return lo + (hi - lo) * double(rng() >> 11) * 0x1p-53; };
  DramTiming t;
  t.latency_cycles = int(rng() % 200);
  t.bytes_per_cycle = std::exp(uni(0.0, std::log(40.0)));  // log-uniform in [1, 40]
  t.random_seed = rng() | 1;
  t.not_ready_prob = rng() % 4 == 0 ? 0.0 : uni(0.0, 0.5);
  t.extra_latency_max = rng() % 4 == 0 ? 0 : int(rng() % 60);
  t.backlog_bytes = rng() % 2 ? 128 : 32 + int(rng() % 480);
  t.max_outstanding_reads = rng() % 2 ? 64 : 1 + int(rng() % 64);
  return t;
}

std::string describe(const DramTiming& t) {
  return fmt::format("{:.2f} B/cycle, latency {}, not-ready {:.2f}, extra {}, backlog {}, outstanding {}",
                     t.bytes_per_cycle, t.latency_cycles, t.not_ready_prob, t.extra_latency_max, t.backlog_bytes,
                     t.max_outstanding_reads);
}

}  // namespace

int main(int argc, char** argv) {
  std::uint64_t seed = 1;
  bool long_run = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--seed" && i + 1 < argc) {
      seed = std::strtoull(argv[++i], nullptr, 0);
    } else if (a == "--long") {
      long_run = true;
    } else {
      fmt::print(stderr, "usage: {} [--seed N] [--long]\n", argv[0]);
      return 2;
    }
  }
  const auto t0 = std::chrono::steady_clock::now();
  Config cfg;
  try {
    cfg = load_config_by_name_or_path(FLYCOL_RTL_CONFIG);
  } catch (const std::exception& e) {
    fmt::print(stderr, "dma_rtl_tb: {}\n", e.what());
    return 2;
  }
  const HwParams p = flycol::hardware_params(cfg);
  fmt::print("dma_rtl_tb[{}]: seed {}{}: elem {}b, acc {}b, B={}, {}x{}, depths {}/{}/{}\n", FLYCOL_RTL_CONFIG, seed,
             long_run ? " (long)" : "", p.elem_bits, p.acc_bits, p.bus_elems, p.rows, p.cols, p.ifmap_depth,
             p.weight_depth, p.psum_depth);

  std::mt19937_64 rng(seed);
  std::vector<Profile> profiles;
  const int commands = long_run ? 600 : 150;
  profiles.push_back({"reference DRAM", DramTiming::from(cfg), commands});
  {
    DramTiming fast;  // the whole beat every cycle, short latency: full queues, back-to-back chunks
    fast.bytes_per_cycle = 32;
    fast.latency_cycles = 1;
    profiles.push_back({"fast DRAM", fast, commands});
  }
  for (int i = 0; i < (long_run ? 14 : 5); ++i) profiles.push_back({fmt::format("random {}", i), random_timing(rng), commands});

  Bench bench(p, rng());
  try {
    for (const Profile& prof : profiles) {
      fmt::print("  {}: {}\n", prof.name, describe(prof.timing));
      bench.run_profile(prof);
      if (g_errors > 0) break;
    }
    if (g_errors == 0) bench.directed_assertions();
  } catch (const std::exception& e) {
    fail("stopped: {}", e.what());
  }

  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  fmt::print("dma_rtl_tb[{}]: {} seed={} profiles={} commands={} (ifmap {} weights {} psum loads {} stores {}) "
             "cycles={} dram_requests={} dram_bytes={} sram_accesses={} max_reads_outstanding={} "
             "arbiter_conflicts={} directed={} errors={} time={:.1f}s\n",
             FLYCOL_RTL_CONFIG, g_errors == 0 ? "PASS" : "FAIL", seed, profiles.size(), bench.commands,
             bench.kinds[0], bench.kinds[1], bench.kinds[2], bench.kinds[3], bench.cycles, bench.dram_requests,
             bench.dram_bytes, bench.sram_accesses, bench.max_outstanding, bench.conflicts, bench.directed, g_errors,
             secs);
  return g_errors == 0 ? 0 : 1;
}
