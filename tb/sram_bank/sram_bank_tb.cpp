// Testbench of the SRAM bank cell (hw/common/sram_bank.h, hw/common/sram_bank.sv), one for both
// views: for every test shape (hw/common/rtl.cmake: the reference 1024 x 16 x 16, the small
// configuration's 256 x 16 x 4, 32-bit psum words, a depth that is not a power of two, one-word and
// one-element banks, a 64-element word), random reads and masked writes in phases of random rates,
// mostly on a few hot addresses so reads see recent partial writes, idle stretches and resets
// (which keep the contents and the read data). The reference is an array written here: read data
// from the cycle after a read, held until the next read; writes under the element mask at the
// edge. Then an address past the end (depths that are not a power of two) must be refused.
//   sram_bank_tb [--seed N] [--cycles N] [--long]       the C++ model hw::SramBank (500 k / 10 M
//         cycles per shape)
//   sram_bank_rtl_tb [--seed N] [--cycles N] [--long]   sram_bank.sv Verilated for every shape
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "hw/common/protocol_error.h"
#include "sram_bank_shapes.h"
#include "tb/common/bench_main.h"

#ifdef FLYCOL_VTOP
#include "tb/common/verilator.h"
#else
#include "hw/common/sram_bank.h"
#endif

using namespace flycol;

namespace {

struct Req {
  bool req = false, we = false;
  int addr = 0;
  std::vector<std::uint32_t> data;
  std::uint64_t mask = 0;
};

struct Figures {
  std::uint64_t cycles = 0, reads = 0, writes = 0, resets = 0, refusals = 0;
};

// ---------------------------------------------------------------------------------------------
// Stimulus, reference and scoreboard. A view offers drive(q, rst_n), rdata(e), edge(), fault() and
// refuses(q) (a request the bank must refuse, in one cycle).

template <class View>
void run_shape(View& v, int depth, int elem_bits, int elems, std::uint64_t seed, std::uint64_t cycles,
               tb::MismatchLog& log, Figures& fig) {
  tb::Rand r(seed);
  std::vector<std::uint32_t> mem(std::size_t(depth) * std::size_t(elems), 0), rdata(std::size_t(elems), 0);
  int hot[4];
  for (int& h : hot) h = r.uniform(0, depth - 1);
  auto random_req = [&](double p_req, double p_we) {
    Req q;
    q.req = r.chance(p_req);
    q.we = r.chance(p_we);
    // Mostly a few hot addresses, so that reads see recent masked writes.
    q.addr = r.chance(0.7) ? hot[r.uniform(0, 3)] : r.uniform(0, depth - 1);
    q.data.resize(std::size_t(elems));
    for (auto& d : q.data) d = std::uint32_t(r.bits(elem_bits));
    const int k = r.uniform(0, 3);
    q.mask = k == 0 ? ~0ull : k == 1 ? 0ull : r.bits(64);
    if (elems < 64) q.mask &= (1ull << elems) - 1;
    return q;
  };
  auto step = [&](const Req& q, bool rst_n) {
    v.drive(q, rst_n);
    log.note("rst_n {} req {} we {} addr {} mask {:#x}", rst_n, q.req, q.we, q.addr, q.mask);
    for (int e = 0; e < elems; ++e)
      if (!log.expect("rdata_o element", std::uint64_t(v.rdata(e)), std::uint64_t(rdata[std::size_t(e)]))) break;
    if (v.fault()) log.fail("an assertion fired");
    v.edge();
    // Neither view resets anything: contents and read data survive a reset.
    if (!q.req) return;
    std::uint32_t* w = &mem[std::size_t(q.addr) * std::size_t(elems)];
    if (q.we) {
      ++fig.writes;
      for (int e = 0; e < elems; ++e)
        if ((q.mask >> e) & 1u) w[e] = q.data[std::size_t(e)];
    } else {
      ++fig.reads;
      for (int e = 0; e < elems; ++e) rdata[std::size_t(e)] = w[e];
    }
  };
  Req idle;
  idle.data.assign(std::size_t(elems), 0);
  step(idle, false);
  // Phases of random length with their own request and write rates.
  tb::PhasedRate req_rate({0.0, 0.2, 0.5, 0.9, 1.0}, 200), we_rate({0.2, 0.5, 0.9}, 200);
  std::uint64_t c = 0;
  for (; c < cycles && log.ok(); ++c) {
    log.at(fig.cycles + c);
    if (r.chance(1.0 / 10000)) {
      ++fig.resets;
      step(idle, false);
      continue;
    }
    const double p_req = req_rate.next(r), p_we = we_rate.next(r);
    step(random_req(p_req, p_we), true);
  }
  fig.cycles += c;
  if (!log.ok() || depth <= 1 || (depth & (depth - 1)) == 0) return;
  // The address port reaches past the end: reading or writing there is refused. The first address
  // past the end always (an off-by-one in the range check lets exactly that one through), then a
  // random one.
  int addr_bits = 1;
  while ((1 << addr_bits) < depth) ++addr_bits;
  for (int we = 0; we < 2; ++we) {
    for (int boundary = 1; boundary >= 0; --boundary) {
      Req q = random_req(1.0, we);
      q.req = true;
      q.we = we != 0;
      q.addr = boundary ? depth : depth + r.uniform(0, (1 << addr_bits) - 1 - depth);
      log.expect_true(v.refuses(q), fmt::format("{} at address {} (depth {}) was not refused",
                                                q.we ? "write" : "read", q.addr, depth));
      ++fig.refusals;
    }
  }
}

#ifdef FLYCOL_VTOP

// One Verilated shape of sram_bank.sv (its storage starts at zero, as the reference's).
template <class V, int ElemBits, int Elems>
class RtlView {
public:
  void drive(const Req& q, bool rst_n) {
    dut_->rst_ni = rst_n;
    dut_->req_i = q.req;
    dut_->we_i = q.we;
    dut_->addr_i = std::uint32_t(q.addr);
    for (int e = 0; e < Elems; ++e) {
      tb::put_elem(dut_->wdata_i, e, ElemBits, q.data[std::size_t(e)]);
      tb::put_elem(dut_->wmask_i, e, 1, (q.mask >> e) & 1u);
    }
    dut_->clk_i = 0;
    dut_->eval();
  }
  std::uint32_t rdata(int e) { return std::uint32_t(tb::get_elem(dut_->rdata_o, e, ElemBits)); }
  void edge() { dut_.edge(); }
  bool fault() { return dut_.fault(); }
  bool refuses(const Req& q) {
    fmt::print("sram_bank_rtl_tb: {} past the end (the assertion below is expected)\n", q.we ? "a write" : "a read");
    drive(q, true);
    return dut_.refuses_on_edge();
  }

private:
  tb::Dut<V> dut_;
};

#else

// hw::SramBank with the testbench as its client.
class CoreView {
public:
  CoreView(int depth, int elems) : bank_("sram_bank", depth, elems) {}
  void drive(const Req& q, bool rst_n) {
    q_ = q;
    rst_n_ = rst_n;
  }
  std::uint32_t rdata(int e) { return std::uint32_t(bank_.rdata()[e]); }
  void edge() {
    if (rst_n_ && q_.req) {
      std::vector<hw::word_elem_t> d(q_.data.begin(), q_.data.end());
      if (q_.we) bank_.write(hw::SramBank::kTestbench, q_.addr, d.data(), q_.mask);
      else bank_.read(hw::SramBank::kTestbench, q_.addr);
    }
    bank_.tick();
  }
  bool fault() { return false; }
  bool refuses(const Req& q) {
    drive(q, true);
    try {
      edge();
    } catch (const hw::ProtocolError&) {
      bank_.drop_request();
      return true;
    }
    return false;
  }

private:
  hw::SramBank bank_;
  Req q_;
  bool rst_n_ = false;
};

#endif

}  // namespace

int main(int argc, char** argv) {
  tb::BenchMain harness("sram_bank", {"cycles", 500000, 10000000, "cycles per shape"}, false);
  if (!harness.parse(argc, argv)) return 2;
  harness.announce("{} cycles per shape", harness.count());
  std::uint64_t k = 0;
  Figures fig;
  auto one = [&](auto& view, int depth, int elem_bits, int elems) {
    harness.run(fmt::format("{}x{}x{}", depth, elem_bits, elems), [&](tb::MismatchLog& log) {
      run_shape(view, depth, elem_bits, elems, harness.seed(k++), harness.count(), log, fig);
    });
  };
#ifdef FLYCOL_VTOP
#define FLYCOL_SHAPE(V, D, EB, E) \
  {                               \
    RtlView<V, EB, E> v;          \
    one(v, D, EB, E);             \
  }
  FLYCOL_RTL_SHAPES(FLYCOL_SHAPE)
#else
#define FLYCOL_SHAPE(D, EB, E) \
  {                            \
    CoreView v(D, E);          \
    one(v, D, EB, E);          \
  }
  FLYCOL_CELL_SHAPES(FLYCOL_SHAPE)
#endif
#undef FLYCOL_SHAPE
  return harness.finish(fmt::format("{} shapes, {} cycles, {} reads, {} writes, {} resets, {} refusals", k, fig.cycles,
                                fig.reads, fig.writes, fig.resets, fig.refusals));
}
