// Co-simulation of one feed lane's RTL (hw/feeder/feed_lane.sv, Verilated per configuration) in
// lockstep with hw::FeedLaneCore on random word streams: random shifts over the whole clamped range,
// random patterns, flushes, stalls caused by other lanes and pop stalls; outputs compared every cycle.
// Usage: feed_lane_rtl_tb_<tag> [--seed N] [--slow] [--config NAME|FILE]
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include <fmt/format.h>

#include FLYCOL_VTOP_HEADER
#include "verilated.h"

#include "hw/common/hw_params.h"
#include "hw/common/protocol_error.h"
#include "hw/feeder/feed_lane_core.h"
#include "sim/config/config.h"
#include "sim/config/config_keys.h"

using namespace flycol::hw;
using Top = FLYCOL_VTOP;

namespace {

int g_errors = 0;
template <class... Args>
void fail(fmt::format_string<Args...> f, Args&&... args) {
  if (++g_errors <= 10) fmt::print(stderr, "MISMATCH: {}\n", fmt::format(f, std::forward<Args>(args)...));
}

using Rng = std::mt19937_64;
int uni(Rng& r, int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(r); }
bool chance(Rng& r, double p) { return std::uniform_real_distribution<double>(0.0, 1.0)(r) < p; }

// Bit access to Verilated ports of any width (CData .. QData, or VlWide for more than 64 bits).
template <class T, std::enable_if_t<std::is_integral_v<T>, int> = 0>
void put_bits(T& sig, int lsb, int width, std::uint64_t v) {
  const std::uint64_t m = (width >= 64 ? ~std::uint64_t(0) : (std::uint64_t(1) << width) - 1) << lsb;
  sig = T((std::uint64_t(sig) & ~m) | ((v << lsb) & m));
}
template <std::size_t N>
void put_bits(VlWide<N>& sig, int lsb, int width, std::uint64_t v) {
  for (int done = 0; done < width;) {  // one 32-bit word of the port at a time
    const int p = lsb + done, o = p % 32, take = std::min(32 - o, width - done);
    const EData m = EData((take == 32 ? ~std::uint64_t(0) : (std::uint64_t(1) << take) - 1) << o);
    EData& w = sig[std::size_t(p / 32)];
    w = EData((w & ~m) | ((EData(v >> done) << o) & m));
    done += take;
  }
}

// The shift port is ShiftBits wide, two's complement (feed_lane.sv).
int shift_bits(const HwParams& p) {
  const int hi = std::max(p.pattern_bits, p.bus_elems) + 1;
  int c = 0;
  while ((1 << c) < hi) ++c;
  return c + 1;
}

struct Options {
  std::uint64_t seed = 0;
  bool seed_given = false, slow = false;
  std::string config = FLYCOL_RTL_CONFIG;
};

Options parse_args(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--seed") == 0 && i + 1 < argc) {
      o.seed = std::strtoull(argv[++i], nullptr, 0);
      o.seed_given = true;
    } else if (std::strcmp(argv[i], "--slow") == 0) {
      o.slow = true;
    } else if (std::strcmp(argv[i], "--config") == 0 && i + 1 < argc) {
      o.config = argv[++i];
    } else {
      fmt::print(stderr, "usage: {} [--seed N] [--slow] [--config NAME|FILE]\n", argv[0]);
      std::exit(2);
    }
  }
  if (!o.seed_given) o.seed = std::random_device{}();
  return o;
}

// A random kernel pattern of PB bits: a dilated row (the feeder's case) or arbitrary bits.
std::uint64_t random_pattern(const HwParams& hw, Rng& rng) {
  const std::uint64_t all = hw.pattern_bits >= 64 ? ~std::uint64_t(0) : (std::uint64_t(1) << hw.pattern_bits) - 1;
  if (chance(rng, 0.5)) {
    const int kx = uni(rng, 1, std::min(hw.pattern_bits, 12));
    const int dx = kx > 1 ? uni(rng, 1, (hw.pattern_bits - 1) / (kx - 1)) : 1;
    std::uint64_t p = 0;
    for (int i = 0; i < kx; ++i) p |= std::uint64_t(1) << (i * dx);
    return p;
  }
  std::uint64_t p = 0;
  while (p == 0) p = rng() & rng() & all;  // about a quarter of the bits
  return p;
}

}  // namespace

int main(int argc, char** argv) {
  const Options opt = parse_args(argc, argv);
  std::uint64_t cycles = 0, pops = 0, stalls = 0, pushes = 0, blocked = 0, flush_words = 0;
  try {
    const HwParams hw = flycol::hardware_params(flycol::load_config_by_name_or_path(opt.config));
    fmt::print("feed_lane_rtl_tb[{}]: seed {}{}: B={} M={} FD={} PB={} EW={}\n", FLYCOL_RTL_CONFIG, opt.seed,
               opt.slow ? " (slow)" : "", hw.bus_elems, hw.m, hw.lane_fifo_depth, hw.pattern_bits, hw.elem_bits);
    Rng rng(opt.seed);
    const std::uint64_t elem_mask = (std::uint64_t(1) << hw.elem_bits) - 1;
    const int sbits = shift_bits(hw);

    auto ctx = std::make_unique<VerilatedContext>();
    ctx->errorLimit(1 << 30);  // assertion failures are counted and reported with the cycle
    ctx->randReset(2);          // unreset storage (the FIFO) starts random
    ctx->randSeed(int(rng() & 0x7fffffff));
    auto top = std::make_unique<Top>(ctx.get(), "feed_lane");
    FeedLaneCore core(hw);

    auto reset = [&] {
      core.reset();
      top->rst_ni = 0;
      top->valid_i = 0;
      top->pop_i = 0;
      top->global_stall_i = 0;
      for (int i = 0; i < 2; ++i) {
        top->clk_i = 0;
        top->eval();
        top->clk_i = 1;
        top->eval();
      }
      top->clk_i = 0;
      top->eval();
      top->rst_ni = 1;
      top->eval();
    };
    reset();

    // The selection stage's inputs; they stay while the lane's feeder stalls (section 9.2).
    std::vector<word_elem_t> word(std::size_t(hw.bus_elems), 0);
    LaneInput in;
    in.word = word.data();
    std::uint64_t pattern = random_pattern(hw, rng);
    double p_valid = 0.8, p_flush = 0.2, p_other = 0.3, p_pop = 0.7;
    bool held = false;
    const std::uint64_t n_cycles = opt.slow ? 20000000 : 1500000;
    int asserts_seen = 0;
    for (std::uint64_t cyc = 0; cyc < n_cycles && g_errors == 0; ++cyc) {
      // Every few thousand cycles: new rates (from a starved FIFO to a full one) and sometimes a reset.
      if (cyc % 4096 == 0) {
        p_valid = chance(rng, 0.2) ? 1.0 : 0.3 + 0.7 * std::uniform_real_distribution<double>(0, 1)(rng);
        p_flush = chance(rng, 0.5) ? 0.02 : 0.3;
        p_other = chance(rng, 0.3) ? 0.0 : 0.4 * std::uniform_real_distribution<double>(0, 1)(rng);
        static const double kPop[] = {1.0, 0.7, 0.3, 0.05};
        p_pop = kPop[uni(rng, 0, 3)];
        pattern = random_pattern(hw, rng);
        if (chance(rng, 0.1)) {
          reset();
          held = false;
        }
      }
      if (!held) {
        in.valid = chance(rng, p_valid);
        // Shifts cover the clamped range [-PB, B], with extra weight near the word.
        in.shift = chance(rng, 0.7) ? uni(rng, -std::min(hw.bus_elems, hw.pattern_bits), hw.bus_elems)
                                    : uni(rng, -hw.pattern_bits, hw.bus_elems);
        in.flush = in.valid && chance(rng, p_flush);
        in.pattern = pattern;
        for (auto& w : word) w = word_elem_t(rng() & elem_mask);
      }
      top->valid_i = in.valid;
      put_bits(top->shift_i, 0, sbits, std::uint64_t(std::int64_t(in.shift)));
      top->flush_i = in.flush;
      put_bits(top->pattern_i, 0, hw.pattern_bits, in.pattern);
      for (int e = 0; e < hw.bus_elems; ++e)
        put_bits(top->word_i, e * hw.elem_bits, hw.elem_bits, word[std::size_t(e)]);
      const bool pop = core.has_elem() && chance(rng, p_pop);
      top->pop_i = pop;
      top->global_stall_i = 0;
      top->clk_i = 0;
      top->eval();

      // The lane's own stall first; the feeder's stall is its OR with the (random) other lanes'.
      const LaneSelect sel = core.select(in);
      const bool global = in.valid && (sel.stall || chance(rng, p_other));
      top->global_stall_i = global;
      top->eval();
      auto check = [&](const char* sig, std::uint64_t rtl, std::uint64_t want) {
        if (rtl != want) fail("cycle {}: {}: RTL {:#x}, core {:#x}", cyc, sig, rtl, want);
      };
      check("lane_stall_o", top->lane_stall_o, sel.stall);
      check("elem_valid_o", top->elem_valid_o, core.has_elem());
      check("elem_o", top->elem_o, core.elem() & elem_mask);
      core.set_pop(pop);
      core.eval(in, global);
      pushes += core.pushing() ? 1 : 0;
      blocked += sel.blocked ? 1 : 0;
      flush_words += (in.flush && !global) ? 1 : 0;
      stalls += global ? 1 : 0;
      pops += pop ? 1 : 0;
      top->clk_i = 1;
      top->eval();
      core.tick();
      if (ctx->errorCount() != asserts_seen) {
        asserts_seen = ctx->errorCount();
        fail("cycle {}: RTL assertion failed (message above)", cyc);
      }
      held = global;
      cycles = cyc + 1;
    }
    top->final();
  } catch (const ProtocolError& e) {
    fail("core protocol error: {}", e.what());
  } catch (const std::exception& e) {
    fail("error: {}", e.what());
  }
  fmt::print("feed_lane_rtl_tb[{}]: {} seed {}: {} cycles, {} pops, {} group pushes, {} blocked pushes, "
             "{} flush words, {} stall cycles; {} mismatches\n",
             FLYCOL_RTL_CONFIG, g_errors == 0 ? "PASS" : "FAIL", opt.seed, cycles, pops, pushes, blocked,
             flush_words, stalls, g_errors);
  return g_errors == 0 ? 0 : 1;
}
