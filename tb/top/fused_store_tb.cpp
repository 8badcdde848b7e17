// STORE_PSUMS into the ifmap buffer on the whole accelerator (docs/microarchitecture.md 7.6): a
// hand-written program moves a tensor DRAM -> LOAD_PSUMS -> psum buffer 0 -> STORE_PSUMS with
// dst_ifmap -> ifmap buffer 1 (at an offset of one row and one column inside a tile that a
// LOAD_IFMAP of padding rows only first fills with the pad value) -> a pooling RUN of 1 x 1 max
// windows (the identity on finite values) -> psum buffer 1 -> STORE_PSUMS -> DRAM. Two more
// LOAD_IFMAPs into ifmap buffer 0 (padding only, then DRAM data) run beside the store, so the LD
// engine's priority on the ifmap port is taken. The DRAM result must be the loaded tensor at the
// shifted positions and the pad value around it, on the fast SystemC model and the structural top
// (and, built as fused_store_tb_rtl, the structural top with RTL blocks and the Verilated top in
// lockstep with the fast model, every pin every cycle), with equal cycles between the views, the
// statistics the program implies (the store's ifmap writes and psum reads, no DRAM byte of it)
// and equal statistics between the SystemC views. Rows word-aligned and packed in the psum buffer,
// the configuration's and a random DRAM timing.
// With --violate the program breaks the rule of 7.6 that the tops check: `run` lets the RUN start
// while the store writes its ifmap buffer, `load` a LOAD_IFMAP write that buffer beside it; the
// view named by --view must then stop with its error (a SystemC top reports it, once per process
// since SystemC does not run on after an error; the RTL's $error ends the process, which its CTest
// expects by the message).
//
//   fused_store_tb --config fornt16|small|tests/data/configs/rect8x4.yaml [--seed N]
//   fused_store_tb --config fornt16 --violate run|load [--view fast|structural]
//   fused_store_tb_rtl --config small [--rtl-blocks dma|all] [--rtl-top]
//   fused_store_tb_rtl --config small --violate run|load --view structural --rtl-blocks all | --view rtl
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <systemc>

#include "sim/compiler/compiler.h"
#include "sim/config/config.h"
#include "sim/config/config_keys.h"
#include "sim/dram/dram_model.h"
#include "sim/scsim/layer_sim.h"
#include "sim/scsim/sc_simulation.h"
#include "tb/common/args.h"
#include "tb/top/layer_cases.h"
#ifdef FLYCOL_WITH_RTL_BLOCKS
#include "sim/common/input_error.h"
#include "sim/rtlblocks/rtl_blocks.h"
#endif
#ifdef FLYCOL_WITH_RTL_TOP
#include "sim/rtlsim/cosim.h"
#endif

using namespace flycol;

namespace {

struct Scenario {
  const char* name;
  bool packed;        // packed rows in the psum buffer (section 7.5), else word-aligned rows
  int c, h, w;        // the tensor: planes, rows, columns
  std::uint32_t pad;  // the pooling tile's pad value (raw binary16)
};

// What the program must do, counted from its descriptors (section 7), not by the models.
struct Expect {
  std::vector<AccBits> out;  // the DRAM result [c][Ht][Wt]
  std::uint64_t ifmap_writes = 0, psum_reads = 0, psum_writes = 0;
  std::uint64_t dram_read = 0, dram_written = 0, dram_write_requests = 0;
};

std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) { return (a + b - 1) / b; }

std::uint64_t load_len(const hw::DmaDesc& d) {
  return std::uint64_t(d.n_planes) * (std::uint64_t(d.pad_top) + d.n_rows + d.pad_bottom) *
             (std::uint64_t(d.pad_left) + d.row_len + d.pad_right) +
         d.tail;
}

// A store's chunks (section 7.5, 7.6): one starts at every row start, every psum word start and
// every `block` start (the DRAM beat, or min(BEAT, ifmap word) into an ifmap buffer). Psum
// element of (plane, row, column): word-aligned rows of row_len + pad_right, or packed rows.
std::uint64_t store_chunks(const hw::DmaDesc& d, int rows, int eb, std::uint64_t block) {
  const bool packed = (d.row_len + d.pad_right) % std::uint32_t(rows) != 0;
  const std::uint64_t pitch = packed ? d.row_len : std::uint64_t(d.row_len) + d.pad_right;
  const std::uint64_t plane = packed ? std::uint64_t(d.n_rows) * d.row_len + d.tail : d.n_rows * pitch;
  std::uint64_t n = 0;
  for (std::uint32_t p = 0; p < d.n_planes; ++p)
    for (std::uint32_t y = 0; y < d.n_rows; ++y)
      for (std::uint32_t i = 0; i < d.row_len; ++i) {
        const std::uint64_t pos = p * plane + y * pitch + i;
        const std::uint64_t a = d.dram_addr + std::uint64_t(p) * d.plane_stride + std::uint64_t(y) * d.row_stride +
                                std::uint64_t(i) * std::uint64_t(eb);
        n += i == 0 || pos % std::uint64_t(rows) == 0 || a % block == 0;
      }
  return n;
}

std::uint64_t store_words(const hw::DmaDesc& d, int rows) {
  const std::uint64_t r = std::uint64_t(rows);
  if (d.n_planes == 0 || d.n_rows == 0 || d.row_len == 0) return 0;
  if ((d.row_len + d.pad_right) % r != 0) return std::uint64_t(d.n_planes) * (std::uint64_t(d.n_rows) * d.row_len + d.tail) / r;
  return std::uint64_t(d.n_planes) * d.n_rows * ceil_div(d.row_len, r);
}

// A finite binary16 value (sometimes an infinity): max pooling of one element gives it back.
std::uint32_t random_value(std::mt19937_64& rng) {
  const std::uint64_t r = rng();
  const std::uint32_t sign = std::uint32_t(r & 1) << 15;
  if ((r >> 1) % 50 == 0) return sign | 0x7C00;
  const std::uint32_t exp = std::uint32_t((r >> 8) % 31);  // 0 .. 30: zeros, subnormals, normals
  return sign | exp << 10 | std::uint32_t((r >> 16) & 0x3FF);
}

Program build(const Config& cfg, const hw::HwParams& hw, const Scenario& s, std::mt19937_64& rng,
              std::vector<std::uint8_t>& image, Expect& ex, const std::string& violate = "") {
  const int rows = hw.rows, eb = hw.acc_bytes(), b = hw.bus_elems;
  const int ht = s.h + 2, wt = s.w + 3;  // the pooling tile: one row above and below, one column left, two right
  const int ncx = int(ceil_div(std::uint64_t(wt), std::uint64_t(rows)));
  const std::uint64_t in_base = 6;  // not beat aligned
  const std::uint64_t in_bytes = std::uint64_t(s.c) * s.h * s.w * std::uint64_t(eb);
  const std::uint64_t out_base = (in_base + in_bytes + 63) / 64 * 64 + 64;
  const std::uint64_t out_bytes = std::uint64_t(s.c) * ht * wt * std::uint64_t(eb);

  Program p;
  p.config = cfg;
  p.hw = hw;
  p.pool = hw::PoolOp::Max;
  p.layer.name = s.name;  // only its output count matters: [1][c][ht][wt], a 1 x 1 "layer"
  p.layer.c = p.layer.k = s.c;
  p.layer.h = ht;
  p.layer.w = wt;
  p.dram.ifmap_base = 0;
  p.dram.ifmap_bytes = in_base + in_bytes;
  p.dram.weights_base = out_base;  // the ifmap region reaches up to here; no weights
  p.dram.ofmap_base = out_base;
  p.dram.ofmap_bytes = out_bytes;
  p.dram.total_bytes = out_base + out_bytes;
  image.assign(p.dram.total_bytes, 0);
  std::vector<std::uint32_t> in(std::size_t(s.c) * s.h * s.w);
  for (std::size_t i = 0; i < in.size(); ++i) {
    in[i] = random_value(rng);
    image[in_base + 2 * i] = std::uint8_t(in[i]);
    image[in_base + 2 * i + 1] = std::uint8_t(in[i] >> 8);
  }
  auto emit = [&](const hw::Command& c, const char* note) {
    p.commands.push_back(c);
    p.notes.push_back(note);
  };

  // PS #1: the tensor into psum buffer 0, rows padded to whole words, or packed (h*w whole words).
  hw::Command lp;
  lp.op = hw::Opcode::LoadPsums;
  lp.dma.buf = 0;
  lp.dma.dram_addr = in_base;
  lp.dma.n_planes = std::uint32_t(s.c);
  lp.dma.plane_stride = std::uint32_t(s.h * s.w * eb);
  lp.dma.n_rows = std::uint32_t(s.h);
  lp.dma.row_stride = std::uint32_t(s.w * eb);
  lp.dma.row_len = std::uint32_t(s.w);
  lp.dma.pad_right = s.packed ? 0 : std::uint32_t(ceil_div(std::uint64_t(s.w), std::uint64_t(rows)) * rows - s.w);
  emit(lp, "tensor into psum buffer 0");

  // LD #1: the tile of ifmap buffer 1 filled with the pad value (padding rows only), and the
  // words the RUN reads past it.
  const std::uint64_t tile = std::uint64_t(s.c) * ht * wt;
  const std::uint64_t last_read = std::uint64_t(ncx - 1) * rows + std::uint64_t(ht - 1) * wt +
                                  std::uint64_t(s.c - 1) * ht * wt + std::uint64_t(rows) - 1;
  const std::uint64_t read_end = (last_read / std::uint64_t(b) + 1) * std::uint64_t(b);
  hw::Command fill;
  fill.op = hw::Opcode::LoadIfmap;
  fill.dma.buf = 1;
  fill.dma.n_planes = std::uint32_t(s.c);
  fill.dma.n_rows = 0;
  fill.dma.pad_top = std::uint32_t(ht);
  fill.dma.pad_left = std::uint32_t(wt);
  fill.dma.tail = std::uint32_t(read_end > tile ? read_end - tile : 0);
  fill.dma.pad_value = s.pad;
  emit(fill, "pad value into ifmap buffer 1");

  // PS #2: psum buffer 0 into ifmap buffer 1 at row 1, column 1 of every plane of the tile.
  hw::Command st;
  st.op = hw::Opcode::StorePsums;
  st.wait_ld = 1;
  st.dma.buf = 0;
  st.dma.dst_ifmap = true;
  st.dma.dst_buf = 1;
  st.dma.dram_addr = std::uint64_t(wt + 1) * std::uint64_t(eb);
  st.dma.n_planes = std::uint32_t(s.c);
  st.dma.plane_stride = std::uint32_t(ht * wt * eb);
  st.dma.n_rows = std::uint32_t(s.h);
  st.dma.row_stride = std::uint32_t(wt * eb);
  st.dma.row_len = std::uint32_t(s.w);
  st.dma.pad_right = lp.dma.pad_right;
  emit(st, "psum buffer 0 into ifmap buffer 1");

  // LD #2 and #3: into ifmap buffer 0 beside the store (no wait): padding only (a word in every
  // cycle), then the tensor from DRAM.
  hw::Command z;
  z.op = hw::Opcode::LoadIfmap;
  z.dma.buf = violate == "load" ? 1 : 0;  // `load`: beside the store, into its buffer
  z.dma.n_rows = 0;
  z.dma.pad_top = 6;
  z.dma.pad_left = std::uint32_t(3 * b);
  z.dma.pad_value = 0x1234;
  emit(z, "padding into ifmap buffer 0");
  hw::Command ld = z;
  ld.dma = lp.dma;
  ld.dma.buf = z.dma.buf;
  ld.dma.pad_right = 1;
  emit(ld, "tensor into ifmap buffer 0");

  // EX #1: max pooling of 1 x 1 windows over the tile (section 16): output (c, y, x) is tile
  // element (c, y, x); results to psum buffer 1, word (c * ht + y) * ncx + x / rows.
  hw::Command run;
  run.op = hw::Opcode::Run;
  run.wait_ps = 2;
  if (violate == "run") {  // waits for the fill and the LOAD_PSUMS only: starts with the store
    run.wait_ld = 1;
    run.wait_ps = 1;
  }
  hw::RunDesc& r = run.run;
  r.ifmap_buf = 1;
  r.psum_buf = 1;
  r.pool_op = std::uint32_t(hw::PoolOp::Max);
  r.n_kg = 1;
  r.n_cy = std::uint32_t(ht);
  r.n_cx = std::uint32_t(ncx);
  r.n_c = std::uint32_t(s.c);
  r.n_ky = r.n_kx = 1;
  r.step_cx = std::uint32_t(rows);
  r.step_cy = std::uint32_t(wt);
  r.step_c = std::uint32_t(ht * wt);
  r.step_ky = std::uint32_t(wt);
  r.region = std::uint32_t(rows);
  r.lane_stride = 1;
  r.pattern = 1;
  emit(run, "1 x 1 max pooling of ifmap buffer 1");

  // PS #3: psum buffer 1 to DRAM, the whole tile.
  hw::Command out;
  out.op = hw::Opcode::StorePsums;
  out.wait_ex = 1;
  out.dma.buf = 1;
  out.dma.dram_addr = out_base;
  out.dma.n_planes = std::uint32_t(s.c);
  out.dma.plane_stride = std::uint32_t(ht * wt * eb);
  out.dma.n_rows = std::uint32_t(ht);
  out.dma.row_stride = std::uint32_t(wt * eb);
  out.dma.row_len = std::uint32_t(wt);
  out.dma.pad_right = std::uint32_t(ncx * rows - wt);
  emit(out, "psum buffer 1 to DRAM");
  p.runs = 1;

  // The result: the tensor one row down and one column right, the pad value around it.
  ex.out.assign(tile, s.pad);
  for (int c = 0; c < s.c; ++c)
    for (int y = 0; y < s.h; ++y)
      for (int x = 0; x < s.w; ++x)
        ex.out[(std::size_t(c) * ht + std::size_t(y) + 1) * wt + std::size_t(x) + 1] =
            in[(std::size_t(c) * s.h + std::size_t(y)) * s.w + std::size_t(x)];
  const std::uint64_t block = std::min<std::uint64_t>(hw::kBeatBytes, std::uint64_t(b) * std::uint64_t(eb));
  ex.ifmap_writes = ceil_div(load_len(fill.dma), b) + ceil_div(load_len(z.dma), b) + ceil_div(load_len(ld.dma), b) +
                    store_chunks(st.dma, rows, eb, block);
  ex.psum_reads = store_words(st.dma, rows) + store_words(out.dma, rows);
  ex.psum_writes = ceil_div(load_len(lp.dma), rows) + std::uint64_t(s.c) * ht * ncx;
  ex.dram_read = 2 * in_bytes;  // LOAD_PSUMS and LD #3; the store into the ifmap buffer moves no DRAM byte
  ex.dram_written = out_bytes;
  ex.dram_write_requests = store_chunks(out.dma, rows, eb, hw::kBeatBytes);
  return p;
}

struct ViewResult {
  SimResult sim;
  std::vector<AccBits> out;
  DramStats dram;
};

// One SystemC top and its SRAM counters so far (the banks count over the whole elaboration).
struct ScView {
  ScSimulation* sim;
  std::uint64_t reads[3] = {0, 0, 0}, writes[3] = {0, 0, 0};
};

ViewResult run_sc(ScView& v, const Program& p, const std::vector<std::uint8_t>& image, const DramTiming& t) {
  DramModel dram(t, image.size());
  dram.write_bytes(0, image.data(), image.size());
  add_tensor_regions(dram, p);
  ViewResult r;
  r.sim = v.sim->run(p.commands, dram, 200'000);
  for (int k = 0; k < 3; ++k) {  // this run's accesses
    const std::uint64_t rd = r.sim.stats.sram_reads[k], wr = r.sim.stats.sram_writes[k];
    r.sim.stats.sram_reads[k] -= v.reads[k];
    r.sim.stats.sram_writes[k] -= v.writes[k];
    v.reads[k] = rd;
    v.writes[k] = wr;
  }
  r.out = extract_outputs(p, dram.bytes());
  r.dram = dram.stats();
  return r;
}

// "" when the view did what the program implies, else why not.
std::string check_view(const char* view, const ViewResult& v, const Expect& ex) {
  std::string why;
  auto cmp = [&](const char* what, std::uint64_t got, std::uint64_t want) {
    if (got != want) why += fmt::format("{} {} (expected {}); ", what, got, want);
  };
  if (!v.sim.finished) why += fmt::format("did not finish ({}); ", v.sim.error);
  if (v.out != ex.out) {
    std::size_t i = 0;
    while (i < v.out.size() && i < ex.out.size() && v.out[i] == ex.out[i]) ++i;
    why += fmt::format("DRAM result differs first at element {} ({:#06x}, expected {:#06x}); ", i,
                       i < v.out.size() ? v.out[i] : 0u, i < ex.out.size() ? ex.out[i] : 0u);
  }
  cmp("ifmap SRAM writes", v.sim.stats.sram_writes[0], ex.ifmap_writes);
  cmp("psum SRAM reads", v.sim.stats.sram_reads[2], ex.psum_reads);
  cmp("psum SRAM writes", v.sim.stats.sram_writes[2], ex.psum_writes);
  cmp("DRAM bytes read", v.dram.bytes_read, ex.dram_read);
  cmp("DRAM bytes written", v.dram.bytes_written, ex.dram_written);
  cmp("DRAM write requests", v.dram.writes, ex.dram_write_requests);
  return why.empty() ? "" : fmt::format("{}: {}", view, why);
}

std::string stats_diff(const char* a_name, const ViewResult& a, const char* b_name, const ViewResult& b) {
  std::string d;
  auto cmp = [&](const std::string& name, std::uint64_t x, std::uint64_t y) {
    if (x != y) d += fmt::format("{} {}/{} ", name, x, y);
  };
  cmp("cycles", a.sim.cycles, b.sim.cycles);
  cmp("run_cycles", a.sim.stats.run_cycles, b.sim.stats.run_cycles);
  cmp("pool_cycles", a.sim.stats.pool_cycles, b.sim.stats.pool_cycles);
  cmp("feeder_stall", a.sim.stats.feeder_stall, b.sim.stats.feeder_stall);
  cmp("context_stall", a.sim.stats.context_stall, b.sim.stats.context_stall);
  cmp("dram_stall", a.sim.stats.dram_stall, b.sim.stats.dram_stall);
  cmp("tail", a.sim.stats.tail, b.sim.stats.tail);
  const char* sram[3] = {"ifmap", "weights", "psums"};
  for (int k = 0; k < 3; ++k) {
    cmp(fmt::format("sram_reads.{}", sram[k]), a.sim.stats.sram_reads[k], b.sim.stats.sram_reads[k]);
    cmp(fmt::format("sram_writes.{}", sram[k]), a.sim.stats.sram_writes[k], b.sim.stats.sram_writes[k]);
  }
  cmp("dram.reads", a.dram.reads, b.dram.reads);
  cmp("dram.writes", a.dram.writes, b.dram.writes);
  return d.empty() ? "" : fmt::format("{}/{} differ: {}; ", a_name, b_name, d);
}

// A program that breaks the ownership rule of 7.6: the view must stop with its error.
int run_violation(const Config& cfg, const hw::HwParams& hw, const std::string& violate, const std::string& view,
                  ScSimulation& fast, ScSimulation& structural, ScSimulation* structural_rtl) {
  if ((violate != "run" && violate != "load") || (view != "fast" && view != "structural" && view != "rtl")) {
    fmt::print(stderr, "fused_store_tb: --violate takes run or load, --view fast, structural or rtl\n");
    return 2;
  }
  const std::string want = violate == "run" ? "STORE_PSUMS writes ifmap buffer 1 while a RUN reads it"
                                            : "LOAD_IFMAP and STORE_PSUMS write ifmap buffer 1 together";
  std::mt19937_64 rng(1);
  std::vector<std::uint8_t> image;
  Expect ex;
  const Scenario s{"word-aligned rows", false, 3, 3, hw.rows + 3, 0xFC00};
  const Program p = build(cfg, hw, s, rng, image, ex, violate);
  const DramTiming timing = tb::timing_for(cfg, 0);
  if (view == "rtl") {
#ifdef FLYCOL_WITH_RTL_TOP
    // The RTL alone: its $error ends the process with the flycol_top message.
    fmt::print("  the Verilated top must stop with \"flycol_top: {}\"\n", want);
    std::fflush(stdout);
    CosimOptions opt;
    opt.run_sc = false;
    opt.watchdog_cycles = 100'000;
    const CosimResult c = cosim_program(p, image, timing, opt);
    fmt::print("  FAIL RTL top: {} without an assertion\n", c.rtl.finished ? "finished" : c.rtl.error);
#else
    fmt::print(stderr, "fused_store_tb: built without the RTL top (use fused_store_tb_rtl)\n");
#endif
    return 1;
  }
  // The structural top with RTL blocks, when there is one, stands for the structural view.
  ScView v{view == "fast" ? &fast : structural_rtl ? structural_rtl : &structural};
  const ViewResult r = run_sc(v, p, image, timing);
  const bool ok = !r.sim.finished && r.sim.error.find(want) != std::string::npos;
  fmt::print("  {} {}: {}\n", ok ? "ok  " : "FAIL", view,
             r.sim.finished ? std::string("finished without an error") : r.sim.error);
  fmt::print("fused_store_tb: {} {}: the {} view {} \"{}\"\n", cfg.name, ok ? "passed" : "FAILED", view,
             ok ? "reported" : "did not report", want);
  return ok ? 0 : 1;
}

}  // namespace

int sc_main(int argc, char* argv[]) {
  tb::Args args("fused_store_tb");
  std::string config = "fornt16", rtl_blocks, violate, view = "fast";
  bool rtl_top = false;
  args.text("config", &config, "configuration name or YAML path (partial sums as wide as elements: FP16)")
      .text("violate", &violate, "run|load: a program that breaks the ifmap buffer's ownership (7.6)")
      .text("view", &view, "with --violate: fast, structural or rtl (the view that must report it)");
#ifdef FLYCOL_WITH_RTL_BLOCKS
  args.text("rtl-blocks", &rtl_blocks, "also the structural top with these blocks as Verilated RTL (or all)");
#endif
#ifdef FLYCOL_WITH_RTL_TOP
  args.flag("rtl-top", &rtl_top, "also the Verilated top in lockstep with the fast model");
#endif
  if (!args.parse(argc, argv)) return 2;
  const Config cfg = load_config_by_name_or_path(config);
  const hw::HwParams hw = hardware_params(cfg);
  if (hw.acc_bits != hw.elem_bits) {
    fmt::print(stderr, "fused_store_tb: {} has {}-bit partial sums and {}-bit elements: no store into the ifmap buffer\n",
               cfg.name, hw.acc_bits, hw.elem_bits);
    return 2;
  }
  fmt::print("fused_store_tb: config {} ({}x{}, ifmap word {} bytes), seed {}{}{}\n", cfg.name, hw.rows, hw.cols,
             hw.bus_elems * hw.elem_bytes(), args.seed, rtl_blocks.empty() ? "" : ", RTL blocks " + rtl_blocks,
             rtl_top ? ", RTL top in lockstep" : "");

  // Every SystemC top is elaborated before the first run.
  ScSimulation fast(hw);
  ScSimOptions so;
  so.structural = true;
  so.name = "structural";
  ScSimulation structural(hw, so);
  std::unique_ptr<ScSimulation> structural_rtl;
#ifdef FLYCOL_WITH_RTL_BLOCKS
  std::unique_ptr<hw::StructuralBlockViews> views;
  if (!rtl_blocks.empty()) {
    try {
      views = make_rtl_block_views(cfg, parse_rtl_blocks(rtl_blocks));
    } catch (const InputError& e) {
      fmt::print(stderr, "fused_store_tb: {}\n", e.what());
      return 2;
    }
    ScSimOptions ro;
    ro.structural = true;
    ro.block_views = views.get();
    ro.name = "structural_rtl";
    structural_rtl = std::make_unique<ScSimulation>(hw, ro);
  }
#endif

  // Rows of the tensor: not whole psum words (word-aligned rows with pad_right), or packed rows
  // (h * w whole words, no row a whole word); the pad values of max and of some other tile.
  const int rows = hw.rows;
  if (!violate.empty()) return run_violation(cfg, hw, violate, view, fast, structural, structural_rtl.get());
  const Scenario scenarios[] = {
      {"word-aligned rows", false, 3, 3, rows + 3, 0xFC00},
      {"packed rows", true, 2, rows, rows % 2 == 0 ? rows / 2 + 1 : rows + 2, 0x3C00},
  };
  ScView fast_view{&fast}, structural_view{&structural}, structural_rtl_view{structural_rtl.get()};
  std::mt19937_64 rng(args.seed);
  int failed = 0, checked = 0;
  for (const Scenario& s : scenarios) {
    if (s.packed && (s.w % rows == 0 || (s.h * s.w) % rows != 0)) continue;  // one-element psum words
    for (const std::uint64_t dram_seed : {std::uint64_t(0), rng() | 1}) {
      std::vector<std::uint8_t> image;
      Expect ex;
      const Program p = build(cfg, hw, s, rng, image, ex);
      const DramTiming timing = tb::timing_for(cfg, dram_seed);
      const ViewResult f = run_sc(fast_view, p, image, timing);
      const ViewResult st = run_sc(structural_view, p, image, timing);
      std::string why = check_view("fast model", f, ex) + check_view("structural top", st, ex) +
                        stats_diff("fast", f, "structural", st);
      if (structural_rtl) {
        const ViewResult sr = run_sc(structural_rtl_view, p, image, timing);
        why += check_view("structural top with RTL blocks", sr, ex) + stats_diff("fast", f, "structural RTL", sr);
      }
#ifdef FLYCOL_WITH_RTL_TOP
      if (rtl_top) {
        CosimOptions opt;
        opt.watchdog_cycles = 100'000;
        const CosimResult c = cosim_program(p, image, timing, opt);
        if (c.first.found)
          why += fmt::format("RTL lockstep: pins diverge at cycle {} on {}: fast {} / RTL {}; ", c.first.cycle,
                             c.first.signal, c.first.sc_value, c.first.rtl_value);
        if (!c.rtl.finished) why += fmt::format("RTL did not finish ({}); ", c.rtl.error);
        if (!c.cycles_equal || c.rtl.cycles != f.sim.cycles)
          why += fmt::format("cycles: RTL {}, its fast model {}, the SystemC fast model {}; ", c.rtl.cycles,
                             c.sc.cycles, f.sim.cycles);
        if (c.rtl.outputs != ex.out) why += "RTL DRAM result differs; ";
        if (c.rtl.dram.ifmap != ex.dram_read || c.rtl.dram.psums_in != 0 || c.rtl.dram.ofmap != ex.dram_written)
          why += fmt::format("RTL DRAM bytes: read {} from the input, {} from the output, {} written (expected {}, 0, "
                             "{}); ", c.rtl.dram.ifmap, c.rtl.dram.psums_in, c.rtl.dram.ofmap, ex.dram_read,
                             ex.dram_written);
      }
#endif
      ++checked;
      fmt::print("  {} {}, {} DRAM: {} cycles{}{}\n", why.empty() ? "ok  " : "FAIL", s.name,
                 dram_seed ? fmt::format("random (seed {})", dram_seed) : std::string("the configuration's"),
                 f.sim.cycles, why.empty() ? "" : "\n       ", why);
      if (!why.empty()) {
        ++failed;
        fmt::print("       program:\n{}", p.listing());
      }
    }
  }
  fmt::print("fused_store_tb: {} {}: {} of {} runs as expected\n", cfg.name, failed ? "FAILED" : "passed",
             checked - failed, checked);
  return failed == 0 && checked > 0 ? 0 : 1;
}
