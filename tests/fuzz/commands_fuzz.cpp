// Fuzz harness: command streams. The input becomes a sequence of hw::Command for the `small`
// array (4x4 fp16, 2 kB double buffers) and a DRAM image of a small layer: either edits of the
// compiler's own program for that layer (first byte even: deep, mostly valid streams) or a stream
// built from scratch (odd). The hazard checker must reject it with std::logic_error or accept it;
// an accepted stream runs on the functional interpreter (which may reject it with
// std::logic_error: undefined SRAM data) and then on the whole-chip C++ model (AcceleratorCore)
// under a cycle bound. Findings: any other exception, a ProtocolError of the chip model on a stream
// both oracles accepted, a chip run that does not end within the bound, or a DRAM image that
// differs between the chip model and the interpreter. Preload's and n_kg's values carry, in their
// high bits, a pooling RUN's op and divisor fields, so pooling RUNs (section 16) meet both models
// too. A stream with a STORE_PSUMS into an ifmap
// buffer (dst_ifmap, docs/microarchitecture.md 7.6) runs only if its waits also order that store
// against every other user of the buffer (fused_stores_ordered below).
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <deque>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "hw/common/protocol_error.h"
#include "hw/top/accelerator_core.h"
#include "sim/common/input_error.h"
#include "sim/compiler/compiler.h"
#include "sim/compiler/hazards.h"
#include "sim/compiler/interpreter.h"
#include "sim/config/config.h"
#include "sim/config/layer.h"
#include "tests/common/small_config_text.h"

namespace {

using flycol::hw::Command;
using flycol::hw::Opcode;

const flycol::Program& base_program() {
  static const flycol::Program p = [] {
    flycol::CompileOptions o;
    o.tile_c = 2;
    o.tile_h = 2;
    o.tile_w = 4;
    return flycol::compile_layer(flycol::parse_layer_spec("name=fz,C=3,H=5,W=6,K=5,k=3,p=1", "fuzz"),
                                 flycol::parse_config(flycol::test::kSmallConfigText, "small (built in by the harness)"), o);
  }();
  return p;
}

// Reads the input front to back; past its end every read gives 0.
class Reader {
public:
  Reader(const std::uint8_t* d, std::size_t n) : d_(d), n_(n) {}
  bool done() const { return i_ >= n_; }
  std::uint8_t byte() { return i_ < n_ ? d_[i_++] : 0; }
  // Mostly small values (field edges live there), sometimes any 64-bit value: a tag byte chooses.
  std::uint64_t value() {
    const std::uint8_t tag = byte();
    if (tag < 0xe0) return tag & 0x1f;
    std::uint64_t v = 0;
    for (int k = 0; k < 8; ++k) v = v << 8 | byte();
    return tag & 1 ? v : (v & 0xffff);
  }

private:
  const std::uint8_t* d_;
  std::size_t n_, i_ = 0;
};

constexpr int kFields = 31;

// Field f of c := v (truncated to the C++ field's type; the range checks are the checker's job).
void set_field(Command& c, int f, std::uint64_t v) {
  auto u32 = [v] { return static_cast<std::uint32_t>(v); };
  switch (f) {
    case 0: c.op = static_cast<Opcode>(v % 5); break;
    case 1: c.wait_ld = u32(); break;
    case 2: c.wait_ex = u32(); break;
    case 3: c.wait_ps = u32(); break;
    case 4: c.dma.buf = static_cast<std::uint8_t>(v); break;
    case 5: c.dma.dram_addr = v; break;
    case 6: c.dma.n_planes = u32(); break;
    case 7: c.dma.plane_stride = u32(); break;
    case 8: c.dma.n_rows = u32(); break;
    case 9: c.dma.row_stride = u32(); break;
    case 10: c.dma.row_len = u32(); break;
    case 11: c.dma.pad_left = u32(); break;
    case 12: c.dma.pad_right = u32(); break;
    case 13: c.dma.pad_top = u32(); break;
    case 14: c.dma.pad_bottom = u32(); break;
    case 15: c.dma.tail = u32(); break;
    case 16: c.run.ifmap_buf = static_cast<std::uint8_t>(v); break;
    case 17: c.run.weight_buf = static_cast<std::uint8_t>(v); break;
    case 18: c.run.psum_buf = static_cast<std::uint8_t>(v); break;
    case 19: c.run.preload = v & 1; break;
    case 20: c.run.n_kg = u32(); break;
    case 21: c.run.n_cy = u32(); break;
    case 22: c.run.n_cx = u32(); break;
    case 23: c.run.n_c = u32(); break;
    case 24: c.run.n_ky = u32(); break;
    case 25: c.run.n_kx = u32(); break;
    case 26: c.run.step_cx = u32(); break;
    case 27: c.run.step_cy = u32(); break;
    case 28: c.run.step_c = u32(); break;
    case 29: c.run.step_ky = u32(); break;
    default: c.run.region = u32(); break;  // lane_stride and pattern below, by the same tag
  }
  if (f == 15 && (v >> 16)) c.dma.pad_value = static_cast<std::uint32_t>(v >> 16 & 0x1ffff);  // with the tail's tag
  if (f == 4 && (v >> 8)) {  // with the buffer's tag: a store into an ifmap buffer (and bad dst_buf values)
    c.dma.dst_ifmap = (v >> 8 & 1) != 0;
    c.dma.dst_buf = static_cast<std::uint8_t>(v >> 9 & 3);
  }
  if (f == kFields - 1 && (v >> 16)) {
    c.run.lane_stride = static_cast<std::uint32_t>(v >> 16 & 0xff);
    c.run.pattern = v >> 24;
  }
  if (f == 19 && (v >> 1)) {  // with preload's tag: a pooling RUN (section 16) and its divisor window
    c.run.pool_op = static_cast<std::uint32_t>((v >> 1) % (flycol::hw::kMaxPoolOp + 1));
    if (c.run.pool_op != 0) {  // what every pooling RUN needs, so an edited convolution RUN can pool
      c.run.preload = false;
      c.run.n_kg = 1;
    }
    c.run.pool_ky = static_cast<std::uint32_t>(v >> 3 & 0xff);
    c.run.pool_kx = static_cast<std::uint32_t>(v >> 11 & 0xff);
    c.run.pool_sx = static_cast<std::uint32_t>(v >> 19 & 0xff);
    c.run.pool_sy = static_cast<std::uint32_t>(v >> 27 & 0xff);
  }
  if (f == 20 && (v >> 32)) {  // with n_kg's tag: the divisor's counted range
    c.run.pool_y0 = static_cast<std::uint32_t>(v >> 32 & 0xff);
    c.run.pool_x0 = static_cast<std::uint32_t>(v >> 40 & 0xff);
    c.run.pool_y1 = static_cast<std::uint32_t>(v >> 48 & 0xff);
    c.run.pool_x1 = static_cast<std::uint32_t>(v >> 56 & 0xff);
  }
}

// A STORE_PSUMS with dst_ifmap writes ifmap buffer dst_buf (section 7.6), which the tops allow
// only while no RUN reads it and no LOAD_IFMAP writes it. The harness checks that itself, beside
// the hazard checker (which must order the same pairs): it runs such a stream only if its waits
// order each such store against every other command that uses that buffer (RUNs read it,
// LOAD_IFMAPs and other such stores write it), with the guarantee the hazard checker derives: the
// commands of each engine complete in order, and a command's waits carry those of the commands
// they name. Without such a store every stream passes.
bool fused_stores_ordered(const flycol::Program& p) {
  const std::size_t n = p.commands.size();
  std::vector<std::array<std::uint32_t, 3>> done(n);  // per engine: ordinals complete when command i starts
  std::vector<int> engine(n);
  std::vector<std::uint32_t> ordinal(n);
  std::array<std::vector<std::size_t>, 3> by_engine;
  bool any = false;
  for (std::size_t i = 0; i < n; ++i) {
    const Command& c = p.commands[i];
    const int e = static_cast<int>(flycol::hw::engine_of(c.op));
    engine[i] = e;
    by_engine[std::size_t(e)].push_back(i);
    ordinal[i] = static_cast<std::uint32_t>(by_engine[std::size_t(e)].size());
    std::array<std::uint32_t, 3> d = {c.wait_ld, c.wait_ex, c.wait_ps};
    d[std::size_t(e)] = std::max(d[std::size_t(e)], ordinal[i] - 1);
    for (bool grown = true; grown;) {
      grown = false;
      for (std::size_t f = 0; f < 3; ++f) {
        if (d[f] == 0 || d[f] > by_engine[f].size()) continue;  // check_hazards rejected later waits already
        const std::size_t j = by_engine[f][d[f] - 1];
        if (j == i) continue;
        for (std::size_t g = 0; g < 3; ++g)
          if (done[j][g] > d[g]) d[g] = done[j][g], grown = true;
      }
    }
    done[i] = d;
    any = any || (c.op == Opcode::StorePsums && c.dma.dst_ifmap);
  }
  if (!any) return true;
  // The ifmap buffer a command uses (-1: none) and whether it writes it.
  const auto ifmap_use = [](const Command& c, bool& writes) {
    writes = c.op != Opcode::Run;
    if (c.op == Opcode::Run) return int(c.run.ifmap_buf);
    if (c.op == Opcode::LoadIfmap) return int(c.dma.buf);
    if (c.op == Opcode::StorePsums && c.dma.dst_ifmap) return int(c.dma.dst_buf);
    return -1;
  };
  for (std::size_t b = 0; b < n; ++b) {
    bool wb = false;
    const int ub = ifmap_use(p.commands[b], wb);
    if (ub < 0) continue;
    for (std::size_t a = 0; a < b; ++a) {
      bool wa = false;
      const int ua = ifmap_use(p.commands[a], wa);
      const bool fused = (p.commands[a].op == Opcode::StorePsums || p.commands[b].op == Opcode::StorePsums);
      if (ua != ub || !fused || !(wa || wb)) continue;
      if (done[b][std::size_t(engine[a])] < ordinal[a]) return false;  // a may still run when b starts
    }
  }
  return true;
}

// Work of the stream (elements moved + array steps; a row counts one more, since the checker and
// the interpreter walk rows even when they are empty): beyond kWorkBudget a stream is only checked,
// not executed, and beyond kCheckBudget not even checked (the checker, a test oracle, walks every
// row: 65535 planes of 65535 empty rows take it seconds), so every input stays fast. The chip's
// cycle bound derives from it.
std::uint64_t work_of(const flycol::Program& p) {
  std::uint64_t w = 0;
  for (const Command& c : p.commands) {
    if (c.op == Opcode::Run) {
      w += std::uint64_t(c.run.contexts()) * c.run.steps_per_context();
    } else {
      const flycol::hw::DmaDesc& d = c.dma;
      w += std::uint64_t(d.n_planes) * (std::uint64_t(d.n_rows) + d.pad_top + d.pad_bottom) *
               (std::uint64_t(d.row_len) + d.pad_left + d.pad_right + 1) + d.tail;
    }
  }
  return w;
}

constexpr std::uint64_t kWorkBudget = 50000;
constexpr std::uint64_t kCheckBudget = 2000000;

// FLYCOL_FUZZ_VERBOSE=1 prints what became of each input (for checking that a corpus reaches the
// chip model, not only the checker).
void note(const std::string& what) {
  static const bool verbose = std::getenv("FLYCOL_FUZZ_VERBOSE") != nullptr;
  if (verbose) fmt::print(stderr, "commands_fuzz: {}\n", what);
}

// Runs the stream on AcceleratorCore against an ideal DRAM (always ready, read data one cycle
// later, in order) and returns the final image.
std::vector<std::uint8_t> run_chip(const flycol::Program& p, std::vector<std::uint8_t> dram, std::uint64_t max_cycles) {
  using namespace flycol::hw;
  AcceleratorCore core(p.hw);
  core.reset();
  std::uint64_t runs = 0;
  for (const Command& c : p.commands) runs += c.op == Opcode::Run;
  core.expect_runs(runs);
  std::deque<MemRsp> rsp;  // reads answered, one per cycle
  std::size_t next = 0;
  for (std::uint64_t cycle = 0;; ++cycle) {
    if (next == p.commands.size() && core.idle() && rsp.empty()) {
      const auto pools = std::count_if(p.commands.begin(), p.commands.end(),
                                       [](const Command& c) { return c.op == Opcode::Run && c.run.pooling(); });
      note(fmt::format("{} commands ({} pooling RUNs) ran on the chip model in {} cycles (bound {})", p.commands.size(),
                       pools, cycle, max_cycles));
      return dram;
    }
    if (cycle == max_cycles)
      throw std::runtime_error(fmt::format("commands_fuzz: the chip model did not finish within {} cycles "
                                           "(command {} of {} issued)", max_cycles, next, p.commands.size()));
    AcceleratorCore::In in;
    in.cmd_valid = next < p.commands.size();
    if (in.cmd_valid) in.cmd = p.commands[next];
    in.mem_req_ready = true;
    in.mem_rsp_valid = !rsp.empty();
    if (in.mem_rsp_valid) in.mem_rsp = rsp.front();
    const AcceleratorCore::Out& out = core.eval(in);
    if (in.mem_rsp_valid) rsp.pop_front();
    if (in.cmd_valid && out.cmd_ready) ++next;
    if (out.mem_req_valid) {
      const MemReq& r = out.mem_req;
      const std::uint64_t lane = r.addr % kBeatBytes;
      if (r.bytes < 1 || lane + std::uint64_t(r.bytes) > kBeatBytes || r.addr + std::uint64_t(r.bytes) > dram.size())
        throw std::runtime_error(fmt::format("commands_fuzz: the chip model accessed DRAM at {:#x}+{} outside the "
                                             "{}-byte image or its beat", r.addr, r.bytes, dram.size()));
      if (r.write) {
        for (int i = 0; i < r.bytes; ++i) dram[r.addr + i] = r.wdata[lane + i];
      } else {
        MemRsp m;
        for (int i = 0; i < r.bytes; ++i) m.rdata[lane + i] = dram[r.addr + i];
        rsp.push_back(m);
      }
    }
    core.tick();
  }
}

}  // namespace

// libsystemc.so (linked through flycol_hw_top, which also holds the SystemC modules) refers to
// sc_main; this program's main is libFuzzer's or the replay driver's, so a stub satisfies it.
extern "C" int sc_main(int, char**) { return 1; }

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const flycol::Program& base = base_program();
  flycol::Program p = base;
  Reader in(data + 1, size - 1);
  if (data[0] & 1) {  // from scratch: up to 64 commands of (opcode, count of edits, edits)
    p.commands.clear();
    while (!in.done() && p.commands.size() < 64) {
      Command c;
      set_field(c, 0, in.byte());
      for (int edits = in.byte() % 16; edits > 0; --edits) {
        const int f = in.byte() % kFields;
        set_field(c, f, in.value());
      }
      p.commands.push_back(c);
    }
  } else {  // edits of the compiled program: (command, field, value), or drop/duplicate a command
    for (int edits = 0; !in.done() && edits < 32; ++edits) {
      const std::uint8_t what = in.byte();
      if (p.commands.empty()) break;
      const std::size_t at = in.byte() % p.commands.size();
      if (what == 0xff) {
        p.commands.erase(p.commands.begin() + static_cast<std::ptrdiff_t>(at));
      } else if (what == 0xfe) {
        p.commands.insert(p.commands.begin() + static_cast<std::ptrdiff_t>(at), p.commands[at]);
      } else {
        set_field(p.commands[at], what % kFields, in.value());
      }
    }
  }
  p.notes.assign(p.commands.size(), "fuzz");
  p.runs = 0;
  for (const Command& c : p.commands) p.runs += c.op == Opcode::Run;

  const std::uint64_t work = work_of(p);
  if (work > kCheckBudget) {
    note(fmt::format("{} commands, work {} over the checking budget: skipped", p.commands.size(), work));
    return 0;
  }
  try {
    flycol::check_hazards(p);
  } catch (const std::logic_error& e) {
    note(fmt::format("{} commands rejected by check_hazards: {}", p.commands.size(), e.what()));
    return 0;  // rejected: the documented outcome for a bad stream
  }
  if (!fused_stores_ordered(p)) {
    note(fmt::format("{} commands: a store into an ifmap buffer is not ordered against its other users", p.commands.size()));
    return 0;  // what the hazard checker must reject too
  }
  if (work > kWorkBudget) {
    note(fmt::format("{} commands accepted, work {} over the budget: not executed", p.commands.size(), work));
    return 0;
  }

  // A DRAM image with data in every byte the layer owns (a fixed pattern; fp16 NaNs included).
  std::vector<std::uint8_t> dram(p.dram.total_bytes);
  for (std::size_t i = 0; i < dram.size(); ++i) dram[i] = static_cast<std::uint8_t>(i * 37 + 11);
  std::vector<std::uint8_t> expect = dram;
  try {
    flycol::interpret(p, expect);
  } catch (const std::logic_error& e) {
    note(fmt::format("{} commands rejected by the interpreter: {}", p.commands.size(), e.what()));
    return 0;  // reads undefined SRAM data: the interpreter's documented rejection
  }
  const std::vector<std::uint8_t> got = run_chip(p, dram, 200 * work + 20000);
  for (std::size_t i = 0; i < got.size(); ++i)
    if (got[i] != expect[i])
      throw std::runtime_error(fmt::format("commands_fuzz: DRAM byte {:#x} is {:#04x} after the chip model, "
                                           "{:#04x} after the interpreter", i, got[i], expect[i]));
  return 0;
}
