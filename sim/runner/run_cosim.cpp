// `flycol run --model rtl|both`: compiles the layer, runs the Verilated RTL (alone, or in lockstep
// with the SystemC model) and checks outputs against the golden model; with `both` also outputs
// and total cycles against each other, reporting the first port divergence and writing a VCD of
// the RTL run when the two disagree.
#include "sim/runner/run_cosim.h"

#include <cstdio>
#include <memory>

#include <fmt/format.h>

#include "sim/common/input_error.h"
#include "sim/compiler/compiler.h"
#include "sim/energy/energy.h"
#include "sim/golden/conv.h"
#include "sim/power/power.h"
#include "sim/power/toggle_counter.h"
#include "sim/rtlsim/cosim.h"
#include "sim/runner/run_common.h"
#include "sim/stats/run_stats.h"
#include "sim/synth/synth.h"

namespace flycol {

namespace {

// `both` adds the SystemC model in lockstep; without it the RTL runs alone.
RunOutcome run_cosim(const RunRequest& req, bool both) {
  const Layer& L = req.layer;
  const Config& cfg = req.config;
  const Program prog = compile_request(req);
  const ConvOperands ops = request_operands(req);
  const ConvOperands run_ops = program_operands(ops, prog);  // what the chip's DRAM image holds

  CosimOptions co;
  co.run_sc = both;
  co.run_rtl = true;
  // A waveform: always with --trace; otherwise only to explain a mismatch.
  co.wave_on_mismatch = req.trace_path.empty();
  co.wave_path = req.trace_path.empty() ? (both ? std::string("flycol_rtl_mismatch.vcd") : std::string()) : req.trace_path;

  // --power: the synthesized capacitance per part first (cached after the first run), then the
  // RTL's VCD streamed into the toggle counter.
  std::unique_ptr<synth::SynthReport> synth_report;
  std::unique_ptr<power::VcdToggleCounter> toggles;
  bool synth_ran = false;
  if (req.power) {
    if (!req.trace_path.empty()) throw InputError("--power", "", "cannot be combined with --trace (both use the RTL's trace)");
    synth_report = std::make_unique<synth::SynthReport>(synth::synthesize_cached(
        cfg, synth::default_cache_dir(), &synth_ran, {}, [](const std::string& note) {
          std::fputs(("flycol run: " + note + "\n").c_str(), stderr);
        }));
    toggles = std::make_unique<power::VcdToggleCounter>();
    co.rtl_vcd_sink = [t = toggles.get()](const char* p, std::size_t n) { t->feed(p, n); };
  }
  const CosimResult cr = cosim_layer(prog, run_ops, timing_for(req), co);

  golden::ConvOptions gopt;
  gopt.zero_gating = cfg.zero_gating;
  const std::vector<AccBits> want = golden::conv(ops, gopt);
  const Mismatches mm_rtl = compare_outputs(cr.rtl.outputs, want);
  const Mismatches mm_sc = both ? compare_outputs(cr.sc.outputs, want) : Mismatches{};
  const Mismatches mm_pair = both ? compare_outputs(cr.rtl.outputs, cr.sc.outputs) : Mismatches{};
  const bool rtl_exact = cr.rtl.finished && mm_rtl.count == 0;
  const bool sc_exact = !both || (cr.sc.finished && mm_sc.count == 0);
  const bool lockstep = !both || (cr.cycles_equal && cr.outputs_equal && !cr.first.found);

  RunOutcome r;
  r.output = cr.rtl.outputs;
  r.passed = rtl_exact && sc_exact && lockstep;
  const std::uint64_t cycles = cr.rtl.cycles;
  const double util = cycles ? double(L.macs()) / (double(cycles) * double(cfg.pes())) : 0.0;
  const double secs = double(cycles) / (cfg.clock_mhz * 1e6);

  // Statistics: cycles, gated MACs and DRAM bytes from the RTL; the cycle classes and the SRAM
  // traffic, which the RTL does not count, from its SystemC twin when it runs (cycle-exact with
  // the RTL, or the check below fails).
  RunStats st;
  if (both) {
    st = run_stats(cr.sc_stats, cycles, cr.rtl.dram);
  } else {
    st.cycles = cycles;
    st.has_cycle_classes = false;
    st.has_sram = false;
    st.mac_cycles = cr.rtl_mac_cycles;
    st.dram = dram_traffic(cr.rtl.dram);
  }
  st.gated_macs = cr.rtl_gated;

  Json& j = r.report;
  j = Json::object();
  j["model"] = both ? "both" : "rtl";
  write_run_header(j, req, prog);
  write_stats_json(j, st);
  if (both) j["cycles_sc"] = cr.sc.cycles;
  j["cycles_rtl"] = cr.rtl.cycles;
  j["macs"] = L.macs();
  j["output"]["shape"] = Json::Array{L.n, L.k, L.ho(), L.wo()};
  j["output"]["checksum"] = fmt::format("0x{:016x}", checksum(cr.rtl.outputs, cfg.arithmetic));
  j["utilization"] = util;
  j["time_us"] = secs * 1e6;
  j["gated_macs_rtl"] = cr.rtl_gated;
  Json& c = j["check"];
  c["reference"] = "golden";
  c["bit_exact"] = rtl_exact && sc_exact;
  c["mismatches"] = mm_rtl.count;
  if (mm_rtl.first >= 0) {
    c["first_mismatch"] = index_name(L, mm_rtl.first);
    c["got"] = fmt::format("0x{:x}", cr.rtl.outputs[std::size_t(mm_rtl.first)]);
    c["want"] = fmt::format("0x{:x}", want[std::size_t(mm_rtl.first)]);
  }
  if (both) {
    c["mismatches_sc"] = mm_sc.count;
    c["cycles_equal"] = cr.cycles_equal;
    c["outputs_equal"] = cr.outputs_equal;
    if (cr.first.found) {
      Json& d = c["first_divergence"];
      d["cycle"] = cr.first.cycle;
      d["signal"] = cr.first.signal;
      d["sc"] = cr.first.sc_value;
      d["rtl"] = cr.first.rtl_value;
    }
    if (!cr.wave_written.empty()) c["waveform"] = cr.wave_written;
  }
  if (!cr.rtl.error.empty()) c["error_rtl"] = cr.rtl.error;
  if (!cr.sc.error.empty()) c["error_sc"] = cr.sc.error;
  // Energy: MAC steps from the RTL's issue stage; SRAM accesses from the SystemC twin (both) or
  // from the power proxy's trace (--power); DRAM bytes from the RTL's DRAM model.
  energy::Activity act = energy_activity(st);
  power::PowerReport pw;
  if (toggles) {
    toggles->finish();
    pw = power::power_proxy(*toggles, *synth_report);
  }
  if (!both && pw.sram_counted)
    for (int i = 0; i < 3; ++i) act.sram_words[i] = pw.sram_reads[i];
  const bool sram_counted = both || pw.sram_counted;
  j["energy"] = energy::run_json(cfg, act, secs, sram_counted);
  double sram_share = 0;
  if (toggles) {
    const energy::Estimate e = energy::estimate(cfg, act);
    sram_share = e.core_j + e.sram_j > 0 ? e.sram_j / (e.core_j + e.sram_j) : 0.0;
    j["power"] = power::power_json(pw, sram_share);
    j["power"]["synthesis"]["cache"] = synth::default_cache_dir();
    j["power"]["synthesis"]["ran_now"] = synth_ran;
    j["power"]["synthesis"]["logic_nand2_eq"] = synth_report->logic_nand2_eq();
  }
  j["rtl_wall_seconds"] = cr.rtl.wall_seconds;
  j["rtl_cycles_per_s"] = cr.rtl.wall_seconds > 0 ? double(cr.rtl.cycles) / cr.rtl.wall_seconds : 0.0;
  if (both) j["sc_wall_seconds"] = cr.sc.wall_seconds;

  std::string check;
  if (!cr.rtl.error.empty()) check += "RTL FAILED: " + cr.rtl.error + "; ";
  if (!cr.sc.error.empty()) check += "SystemC FAILED: " + cr.sc.error + "; ";
  check += rtl_exact ? fmt::format("RTL bit-exact with the golden model ({} outputs)", want.size())
                     : fmt::format("RTL: {} mismatches of {}; first at {}: got 0x{:x}, want 0x{:x}", mm_rtl.count,
                                   want.size(), index_name(L, std::max<std::int64_t>(mm_rtl.first, 0)),
                                   mm_rtl.first >= 0 ? cr.rtl.outputs[std::size_t(mm_rtl.first)] : 0,
                                   mm_rtl.first >= 0 ? want[std::size_t(mm_rtl.first)] : 0);
  if (both) {
    check += fmt::format("; SystemC {}", sc_exact ? "bit-exact" : fmt::format("{} mismatches", mm_sc.count));
    check += cr.cycles_equal ? fmt::format("; cycles equal ({})", cr.rtl.cycles)
                             : fmt::format("; CYCLES DIFFER: SystemC {}, RTL {}", cr.sc.cycles, cr.rtl.cycles);
    if (mm_pair.count)
      check += fmt::format("; ofmap differs between the views at {} ({} elements)", index_name(L, mm_pair.first),
                           mm_pair.count);
    if (cr.first.found)
      check += fmt::format("; first port divergence at cycle {} on {}: SystemC {} / RTL {}", cr.first.cycle,
                           cr.first.signal, cr.first.sc_value, cr.first.rtl_value);
    if (!cr.wave_written.empty()) check += "; waveform " + cr.wave_written;
  }

  r.text = fmt::format(
      "flycol run: model {} ({} arithmetic), config {} ({}), seed {}\n"
      "  layer        {}\n"
      "  tiling       {} ({}), {} commands\n"
      "  cycles       {}{} ({:.1f} us at {} MHz)\n"
      "  MACs         {}\n"
      "  checksum     0x{:016x}\n"
      "  utilization  {:.1f} %\n"
      "  DRAM bytes   ifmap {:.3f} MB, weights {:.3f} MB, psums in {:.3f} MB, ofmap {:.3f} MB, total {:.3f} MB\n"
      "  check        {}\n"
      "  sim speed    RTL {:.2f} s wall, {:.0f} cycles/s{}\n",
      both ? "both" : "rtl", arithmetic_info(cfg.arithmetic).name, cfg.name, cfg.source, seed_text(req), L.spec(),
      prog.plan.describe(),
      req.tiling,
      prog.commands.size(), cycles, both ? fmt::format(" (SystemC {})", cr.sc.cycles) : std::string(), secs * 1e6,
      cfg.clock_mhz, L.macs(), checksum(cr.rtl.outputs, cfg.arithmetic), util * 100, double(cr.rtl.dram.ifmap) * 1e-6,
      double(cr.rtl.dram.weights) * 1e-6, double(cr.rtl.dram.psums_in) * 1e-6, double(cr.rtl.dram.ofmap) * 1e-6,
      double(cr.rtl.dram.total) * 1e-6, check, cr.rtl.wall_seconds,
      cr.rtl.wall_seconds > 0 ? double(cr.rtl.cycles) / cr.rtl.wall_seconds : 0.0,
      both ? fmt::format("; SystemC core {:.2f} s wall", cr.sc.wall_seconds) : std::string());
  r.text += energy::run_text(cfg, act, secs, sram_counted);
  if (toggles) r.text += power::power_text(pw, sram_share);
  return r;
}

}  // namespace

RunOutcome run_rtl(const RunRequest& req) { return run_cosim(req, false); }
RunOutcome run_both(const RunRequest& req) { return run_cosim(req, true); }

}  // namespace flycol
