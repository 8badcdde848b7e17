// Speed of the Verilated RTL on the reference configuration, single-threaded and (when built with
// FLYCOL_RTL_BENCH_THREADS) with --threads 2, next to the SystemC model's core on the same layer.
// Prints figures and writes them as JSON; nothing here passes or fails on speed.
//
//   rtl_bench [--layer SPEC] [--out FILE.json]
#include <string>

#include <fmt/format.h>

#include "sim/common/files.h"
#include "sim/compiler/compiler.h"
#include "sim/config/config.h"
#include "sim/report/json.h"
#include "sim/rtlsim/cosim.h"

namespace flycol {
#ifdef FLYCOL_RTL_BENCH_THREADS
std::unique_ptr<RtlTop> make_rtl_top_fornt16_mt(const RtlTopOptions& opt);
#endif
}  // namespace flycol

using namespace flycol;

int main(int argc, char** argv) {
  std::string spec = "C=64,H=56,W=56,K=64,k=3,s=1,p=1", out = "out/bench/rtl_bench.json";
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--layer") spec = argv[i + 1];
    else if (a == "--out") out = argv[i + 1];
  }
  const Config& cfg = default_config();
  const Layer l = parse_layer_spec(spec, "--layer");
  const Program p = compile_layer(l, cfg);
  const ConvOperands ops = make_random_operands(l, cfg.arithmetic, 1);
  const DramTiming t = DramTiming::from(cfg);
  Json j = Json::object();
  j["layer"] = l.spec();

  CosimOptions sc_only;
  sc_only.run_rtl = false;
  const CosimResult sc = cosim_layer(p, ops, t, sc_only);
  fmt::print("SystemC model core, {}: {} cycles in {:.2f} s = {:.0f} cycles/s\n", l.spec(), sc.sc.cycles,
             sc.sc.wall_seconds, double(sc.sc.cycles) / sc.sc.wall_seconds);
  j["sc_cycles_per_s"] = double(sc.sc.cycles) / sc.sc.wall_seconds;

  CosimOptions rtl_only;
  rtl_only.run_sc = false;
  const CosimResult r1 = cosim_layer(p, ops, t, rtl_only);
  const double cps1 = double(r1.rtl.cycles) / r1.rtl.wall_seconds;
  fmt::print("Verilated RTL, 1 thread:  {} cycles in {:.2f} s = {:.0f} cycles/s ({:.1f} M MAC/s){}\n", r1.rtl.cycles,
             r1.rtl.wall_seconds, cps1, double(l.macs()) / r1.rtl.wall_seconds / 1e6,
             r1.rtl.cycles == sc.sc.cycles ? "" : " CYCLES DIFFER FROM SystemC");
  j["rtl_cycles"] = r1.rtl.cycles;
  j["rtl_cycles_per_s"] = cps1;
#ifdef FLYCOL_RTL_BENCH_THREADS
  CosimOptions mt = rtl_only;
  mt.rtl_factory = &make_rtl_top_fornt16_mt;
  const CosimResult r2 = cosim_layer(p, ops, t, mt);
  const double cps2 = double(r2.rtl.cycles) / r2.rtl.wall_seconds;
  fmt::print("Verilated RTL, 2 threads: {} cycles in {:.2f} s = {:.0f} cycles/s\n", r2.rtl.cycles, r2.rtl.wall_seconds,
             cps2);
  j["rtl_threads2_cycles_per_s"] = cps2;
#else
  fmt::print("Verilated RTL, 2 threads: not built (configure with -DFLYCOL_RTL_BENCH_THREADS=ON)\n");
#endif
  write_file_atomic(out, j.dump());
  fmt::print("wrote {}\n", out);
  return 0;
}
