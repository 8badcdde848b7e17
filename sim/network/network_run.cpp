// A network run: every array layer planned and timed by the analytic model (and, with --model sc,
// run on the SystemC model too), one lowering after the other, with the layers back to back on
// one timeline (each layer's program starts when the previous one has finished).
#include "sim/network/network_run.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>

#include <fmt/format.h>

#include "sim/analytic/traffic_bound.h"
#include "sim/common/input_error.h"
#include "sim/compiler/explicit_lowering.h"
#include "sim/compiler/fused_compiler.h"
#include "sim/config/config_keys.h"
#include "sim/golden/conv.h"
#include "sim/golden/pool.h"
#include "sim/rtlsim/cosim.h"
#include "sim/runner/pool_layer.h"
#include "sim/network/traffic.h"
#include "sim/scsim/layer_sim.h"
#include "sim/workload/workload.h"

namespace flycol::net {
namespace {

using Clock = std::chrono::steady_clock;
double since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

std::uint64_t compulsory(const Layer& l, const hw::HwParams& hw) {
  return std::uint64_t(l.ifmap_elems() + l.weight_elems()) * std::uint64_t(hw.elem_bytes()) +
         std::uint64_t(l.ofmap_elems()) * std::uint64_t(hw.acc_bytes());
}

// The SystemC model's counters of one program. SRAM counters of the banks are cumulative over the
// runs of one elaboration, so the caller passes the previous totals.
RunStats from_sc(const SimResult& sim, const DramBytes& dram, const DramStats& dram_stats,
                 std::uint64_t prev_reads[3], std::uint64_t prev_writes[3]) {
  RunStats a = run_stats(sim.stats, sim.cycles, dram);
  for (int i = 0; i < 3; ++i) {
    const std::uint64_t reads = a.sram_reads[i], writes = a.sram_writes[i];
    a.sram_reads[i] -= prev_reads[i];
    a.sram_writes[i] -= prev_writes[i];
    prev_reads[i] = reads;
    prev_writes[i] = writes;
  }
  a.dram_requests = dram_stats.reads + dram_stats.writes;
  return a;
}
RunStats from_sc(const LayerSimResult& s, std::uint64_t prev_reads[3], std::uint64_t prev_writes[3]) {
  return from_sc(s.sim, s.dram, s.dram_stats, prev_reads, prev_writes);
}

// The lockstep run's first disagreement with the SystemC model's own run, or "".
std::string lockstep_mismatch(const CosimResult& c, std::uint64_t sc_cycles, const std::vector<AccBits>& sc_outputs) {
  if (c.first.found)
    return fmt::format("pins diverge at cycle {} on {}: SystemC {} / RTL {}", c.first.cycle, c.first.signal,
                       c.first.sc_value, c.first.rtl_value);
  if (!c.sc.finished || !c.rtl.finished)
    return fmt::format("did not finish: {}", !c.rtl.finished ? c.rtl.error : c.sc.error);
  if (!c.cycles_equal) return fmt::format("cycles SystemC {} RTL {}", c.sc.cycles, c.rtl.cycles);
  if (c.sc.cycles != sc_cycles)
    return fmt::format("the lockstep run took {} cycles, the SystemC run {}", c.sc.cycles, sc_cycles);
  if (!c.outputs_equal || c.rtl.outputs != sc_outputs) return "RTL outputs differ from SystemC's";
  return "";
}

// A network file's or ONNX model's pooling layer as the golden model takes it (pool_layer.h turns
// it into the compiler's PoolShape).
golden::PoolLayer golden_pool_layer(const NetworkLayer& nl, int batch) {
  golden::PoolLayer l;
  l.name = nl.name;
  l.op = nl.op == "maxpool" ? golden::PoolOp::max : golden::PoolOp::avg;
  l.n = batch, l.c = nl.c, l.h = nl.h, l.w = nl.w;
  const PoolWindow& w = nl.pool;
  l.ky = w.ky, l.kx = w.kx, l.sy = w.sy, l.sx = w.sx, l.dy = w.dy, l.dx = w.dx;
  l.pt = w.pt, l.pb = w.pb, l.pl = w.pl, l.pr = w.pr;
  l.ceil_mode = w.ceil_mode;
  l.count_include_pad = w.count_include_pad;
  return l;
}

void add_energy(energy::Estimate& into, const energy::Estimate& e) {
  into.core_j += e.core_j;
  into.sram_j += e.sram_j;
  into.dram_j += e.dram_j;
}

// One group's counters counted `groups` times (a grouped convolution: identical programs back to back).
RunStats times(const RunStats& one, int groups) {
  RunStats all = one;
  for (int g = 1; g < groups; ++g) accumulate(all, one);
  return all;
}

void add(Totals& t, const LayerRun& l) {
  const RunStats& s = l.stats;
  t.macs += std::uint64_t(l.layer.macs()) * std::uint64_t(l.groups);
  accumulate(t.stats, s);
  t.compulsory_bytes += l.compulsory_bytes;
  t.bound_bytes += l.bound_bytes;
  t.energy.core_j += l.energy.core_j;
  t.energy.sram_j += l.energy.sram_j;
  t.energy.dram_j += l.energy.dram_j;
  t.sc_wall_seconds += l.sc_wall_seconds;
  t.rtl_wall_seconds += l.rtl_wall_seconds;
  t.analytic_cycles += l.analytic.cycles;
  t.free_cycles += l.free_cycles;
  if (l.checked && !l.exact) ++t.mismatched_layers;
}

// Why the pooling layer at index i cannot be fused with the layer that produces its input, or ""
// (sets *conv to that layer's index): the producer is an array convolution of one group whose
// input the host does not subsample, and no other layer reads its output.
std::string fusion_pair_problem(const Network& net, std::size_t i, int* conv) {
  const int src = net.layers[i].inputs.size() > 1 ? -1 : input_producer(net, i, 0);
  *conv = src;
  if (src < 0) return "its input is not a convolution's output";
  const NetworkLayer& c = net.layers[std::size_t(src)];
  if (!c.on_array || c.op != "conv") return fmt::format("its input is the output of {} ({}), not of a convolution", c.name, c.op);
  if (c.groups != 1) return fmt::format("{} is a grouped convolution", c.name);
  if (host_subsamples_input(net, std::size_t(src))) return fmt::format("{} runs on a subsampled input", c.name);
  for (std::size_t j = 0; j < net.layers.size(); ++j) {
    if (j == i) continue;
    for (std::size_t k = 0; k < std::max<std::size_t>(1, net.layers[j].inputs.size()); ++k)
      if ((j > 0 || !net.layers[j].inputs.empty()) && input_producer(net, j, k) == src)
        return fmt::format("{} also reads {}'s output", net.layers[j].name, c.name);
  }
  return "";
}

// The fused pairs (FusedRun): every pooling layer run on chip that fusion_pair_problem accepts.
void run_fusions(NetworkRun& r, const Network& net, const Config& cfg, const RunOptions& opt, const DramTiming& timing,
                 analytic::Model& model, analytic::Model& free_model, ScSimulation* sc, bool rtl,
                 std::uint64_t prev_reads[3], std::uint64_t prev_writes[3]) {
  const auto t0 = Clock::now();
  std::size_t pool_i = 0;
  int index = 0;
  for (std::size_t i = 0; i < net.layers.size(); ++i) {
    const NetworkLayer& nl = net.layers[i];
    if (!is_pooling_op(nl.op)) continue;
    const PoolRun& P = r.pools[pool_i++];
    if (!P.on_chip) continue;
    int src = -1;
    FusedRun F;
    F.pool = nl.name;
    F.refused = fusion_pair_problem(net, i, &src);
    if (src >= 0) F.conv = net.layers[std::size_t(src)].name;
    FusedTotals& T = r.fused_total;
    ++T.pairs;
    const auto conv_run = std::find_if(r.feeder.layers.begin(), r.feeder.layers.end(),
                                       [&](const LayerRun& l) { return l.name == F.conv; });
    if (F.refused.empty() && conv_run == r.feeder.layers.end()) F.refused = "the convolution did not run";
    Program prog;
    if (F.refused.empty()) {
      const Layer& conv = net.layers[std::size_t(src)].layer;
      F.refused = fusion_problem(conv, P.shape, cfg);
      if (F.refused.empty()) {
        // The analytic model's cycles pick among the candidate tilings, as the planner's search does
        // for the convolutions.
        FusedCompileOptions fo;
        fo.score = [&model](const Program& p) { return double(model.run(p).stats.cycles); };
        prog = compile_fused(conv, P.shape, cfg, fo);
      }
    }
    if (!F.refused.empty()) {
      r.fusions.push_back(std::move(F));
      continue;
    }
    if (opt.progress) opt.progress("fused", index, int(r.pools.size()), F.conv + "+" + F.pool);
    F.fused = true;
    F.plan = prog.plan;
    F.tq = prog.fused->tq;
    F.tp = prog.fused->tp;
    F.commands = prog.commands.size();
    F.analytic = model.run(prog).stats;
    F.stats = F.analytic;
    F.free_cycles = free_model.run(prog).stats.cycles;
    F.unfused = conv_run->stats;
    accumulate(F.unfused, P.stats);
    F.unfused_free_cycles = conv_run->free_cycles + P.free_cycles;
    if (sc) {
      const Layer& conv = net.layers[std::size_t(src)].layer;
      const ConvOperands ops = make_random_operands(conv, cfg.arithmetic, opt.seed + 200'000 + std::uint64_t(index));
      const LayerSimResult s = simulate_layer(*sc, prog, ops, timing, 50'000'000);
      if (!s.sim.finished)
        throw std::runtime_error(fmt::format("flycol net: the SystemC model did not finish the fused layers '{}' + "
                                             "'{}': {}",
                                             F.conv, F.pool, s.sim.error));
      F.stats = from_sc(s, prev_reads, prev_writes);
      F.sc_wall_seconds = s.sim.wall_seconds;
      std::vector<AccBits> rtl_outputs;
      if (rtl) {
        CosimOptions co;
        co.watchdog_cycles = 2'000'000;
        const CosimResult c = cosim_layer(prog, ops, timing, co);
        F.rtl_run = true;
        F.rtl_wall_seconds = c.rtl.wall_seconds;
        F.rtl_mismatch = lockstep_mismatch(c, s.sim.cycles, s.outputs);
        rtl_outputs = c.rtl.outputs;
        r.rtl_wall_seconds += F.rtl_wall_seconds;
      }
      if (opt.check) {
        golden::ConvOptions go;
        go.zero_gating = cfg.zero_gating;
        const std::vector<AccBits> conv_out = golden::conv(ops, go);
        const std::vector<ElemBits> elems(conv_out.begin(), conv_out.end());  // FP16: an accumulator is an element
        const std::vector<AccBits> want = golden::pool(golden_pool_layer(nl, net.batch), cfg.arithmetic, elems);
        F.checked = true;
        F.exact = s.outputs == want && (!rtl || (F.rtl_mismatch.empty() && rtl_outputs == want));
        if (!F.exact) ++T.mismatched_layers;
      }
      r.sc_wall_seconds += F.sc_wall_seconds;
    }
    F.energy = energy::estimate(cfg, energy_activity(F.stats));
    F.unfused_energy = conv_run->energy;
    add_energy(F.unfused_energy, P.energy);
    ++T.fused;
    accumulate(T.stats, F.stats);
    accumulate(T.analytic, F.analytic);
    accumulate(T.unfused, F.unfused);
    T.free_cycles += F.free_cycles;
    T.unfused_free_cycles += F.unfused_free_cycles;
    add_energy(T.energy, F.energy);
    add_energy(T.unfused_energy, F.unfused_energy);
    r.fusions.push_back(std::move(F));
    ++index;
  }
  r.fused_wall_seconds = since(t0);
}

}  // namespace

double seconds(const NetworkRun& r, std::uint64_t cycles) { return double(cycles) / (r.clock_mhz * 1e6); }
double gflops(const NetworkRun& r, std::uint64_t macs, std::uint64_t cycles) {
  return cycles ? 2.0 * double(macs) / seconds(r, cycles) / 1e9 : 0.0;
}
double avg_gbps(const NetworkRun& r, std::uint64_t bytes, std::uint64_t cycles) {
  return cycles ? double(bytes) / seconds(r, cycles) / 1e9 : 0.0;
}
double stall_pct(std::uint64_t dram_stall, std::uint64_t tail, std::uint64_t cycles) {
  return cycles ? 100.0 * double(dram_stall + tail) / double(cycles) : 0.0;
}

NetworkRun run_network(const Network& net, const Config& cfg, const RunOptions& opt) {
  if (opt.model != "analytic" && opt.model != "sc" && opt.model != "both")
    throw InputError("--model", "", fmt::format("= {}: must be analytic, sc or both", opt.model));
  if (!(opt.bandwidth_gbps == 0 || (opt.bandwidth_gbps > 0 && opt.bandwidth_gbps <= 1000)))
    throw InputError("--bandwidth", "",
                     fmt::format("= {}: must be a DRAM bandwidth in GB/s in (0, 1000] (default: the configuration's "
                                 "{} GB/s)",
                                 opt.bandwidth_gbps, cfg.dram.bandwidth_gbps()));
  if (!(opt.window_us > 0 && opt.window_us <= 1e6))
    throw InputError("--window-us", "", fmt::format("= {}: must be in (0, 1000000] microseconds", opt.window_us));

  NetworkRun r;
  r.net = net;
  r.config = cfg;
  r.model = opt.model;
  r.tiling = analytic::tiling_name(opt.tiling);
  r.clock_mhz = cfg.clock_mhz;
  r.window_us = opt.window_us;
  DramTiming timing = DramTiming::from(cfg);
  if (opt.bandwidth_gbps > 0) timing.bytes_per_cycle = opt.bandwidth_gbps * 1e3 / cfg.clock_mhz;
  r.bandwidth_gbps = timing.bytes_per_cycle * cfg.clock_mhz / 1e3;
  const hw::HwParams hw = hardware_params(cfg);
  const double window_cycles = opt.window_us * cfg.clock_mhz;
  const double clock_hz = cfg.clock_mhz * 1e6;
  const analytic::BoundParams bound = analytic::bound_params(hw);

  analytic::Planner planner(cfg, timing, opt.tiling);
  // A model of its own times the chosen programs, so that its wall time is that of a network run
  // without the search (whose candidate timings fill the planner's caches).
  analytic::Model model(hw, timing);
  DramTiming unlimited = timing;
  unlimited.bytes_per_cycle = 1e6;
  analytic::Model free_model(hw, unlimited);
  std::unique_ptr<ScSimulation> sc;
  if (opt.model != "analytic") sc = std::make_unique<ScSimulation>(hw);
  const bool rtl = opt.model == "both";
  std::uint64_t prev_reads[3] = {0, 0, 0}, prev_writes[3] = {0, 0, 0};

  const int count = net.array_layers();
  for (const analytic::Lowering lw : {analytic::Lowering::feeder, analytic::Lowering::explicit_im2col}) {
    LoweringRun& lr = lw == analytic::Lowering::feeder ? r.feeder : r.expl;
    lr.lowering = analytic::lowering_name(lw);
    std::uint64_t offset = 0, timeline_at = 0;
    int index = 0;
    for (std::size_t li = 0; li < net.layers.size(); ++li) {
      const NetworkLayer& nl = net.layers[li];
      if (!nl.on_array) continue;
      if (opt.progress) opt.progress(lr.lowering.c_str(), index, count, nl.name);
      // A strided 1x1 layer whose input the host writes subsampled runs dense on Ho x Wo.
      const bool subsampled = host_subsamples_input(net, li);
      const Layer run_layer = subsampled ? subsampled_layer(nl.layer) : nl.layer;
      const auto t0 = Clock::now();
      const analytic::Choice choice = planner.choose(run_layer, lw);
      r.plan_wall_seconds += since(t0);
      const auto t1 = Clock::now();
      analytic::Options with_traffic;
      with_traffic.traffic = true;
      const analytic::Result timed = model.run(choice.program, with_traffic);
      r.analytic_wall_seconds += since(t1);

      const int groups = nl.groups;
      LayerRun L;
      L.name = nl.name;
      L.layer = nl.layer;
      L.groups = groups;
      L.host_subsampled = subsampled;
      L.view = choice.program.layer;
      L.plan = choice.program.plan;
      L.commands = choice.program.commands.size();
      L.analytic = times(timed.stats, groups);
      L.stats = L.analytic;
      L.compulsory_bytes = compulsory(run_layer, hw) * std::uint64_t(groups);  // the tensor the host writes
      L.bound_bytes = analytic::traffic_bound(nl.layer, bound).bytes() * std::uint64_t(groups);
      L.start_cycle = offset;
      if (sc) {
        const ConvOperands ops = make_random_operands(nl.layer, cfg.arithmetic, opt.seed + std::uint64_t(index));
        const bool lowered = lw == analytic::Lowering::explicit_im2col || !(choice.program.layer == nl.layer);
        const ConvOperands run_ops = lowered ? lower_operands(ops, choice.program.layer) : ops;
        const LayerSimResult s = simulate_layer(*sc, choice.program, run_ops, timing, 50'000'000);
        if (!s.sim.finished)
          throw std::runtime_error(fmt::format("flycol net: the SystemC model did not finish layer '{}' ({}): {}",
                                               nl.name, lr.lowering, s.sim.error));
        L.stats = times(from_sc(s, prev_reads, prev_writes), groups);
        L.sc_wall_seconds = s.sim.wall_seconds;  // the simulation only, not the DRAM image or the check
        std::vector<AccBits> rtl_outputs;
        if (rtl) {
          // The same program on the Verilated RTL in lockstep with the SystemC core: every pin
          // every cycle, equal cycles, equal outputs (sim/rtlsim/cosim.h).
          CosimOptions co;
          co.watchdog_cycles = 2'000'000;
          const CosimResult c = cosim_layer(choice.program, run_ops, timing, co);
          L.rtl_run = true;
          L.rtl_wall_seconds = c.rtl.wall_seconds;
          L.rtl_mismatch = lockstep_mismatch(c, s.sim.cycles, s.outputs);
          rtl_outputs = c.rtl.outputs;
          r.rtl_wall_seconds += L.rtl_wall_seconds;
        }
        if (opt.check) {
          golden::ConvOptions go;
          go.zero_gating = cfg.zero_gating;
          const std::vector<AccBits> want = golden::conv(ops, go);
          L.checked = true;
          L.exact = s.outputs == want && (!rtl || (L.rtl_mismatch.empty() && rtl_outputs == want));
        }
        r.sc_wall_seconds += L.sc_wall_seconds;
      }
      // The DRAM timeline is the analytic model's (the SystemC run keeps no per-cycle record); the
      // groups of a grouped convolution follow each other.
      std::vector<analytic::TrafficSpan> spans;
      for (int g = 0; g < groups; ++g)
        for (const analytic::TrafficSpan& s : timed.traffic) {
          const double at = double(std::uint64_t(g) * timed.stats.cycles);
          spans.push_back({s.t0 + at, s.t1 + at, s.bytes});
        }
      for (const analytic::TrafficSpan& s : spans)
        lr.timeline.push_back({s.t0 + double(timeline_at), s.t1 + double(timeline_at), s.bytes});
      timeline_at += timed.stats.cycles * std::uint64_t(groups);
      L.peak_gbps = busiest_window_gbps(spans, window_cycles, clock_hz);
      L.free_cycles = free_model.run(choice.program).stats.cycles * std::uint64_t(groups);
      L.demand_gbps = double(L.analytic.dram.total()) / (double(L.free_cycles) / clock_hz) / 1e9;
      const energy::Activity act = energy_activity(L.stats);
      L.energy = energy::estimate(cfg, act);
      offset += L.stats.cycles;
      add(lr.total, L);
      lr.layers.push_back(std::move(L));
      ++index;
    }
    lr.total.peak_gbps = busiest_window_gbps(lr.timeline, window_cycles, clock_hz);
    for (const LayerRun& l : lr.layers) lr.total.demand_peak_gbps = std::max(lr.total.demand_peak_gbps, l.demand_gbps);
  }

  // The pooling layers on the pooling unit (docs/networks.md, "Pooling on chip"), after the feeder
  // run's array layers on the timeline; the strided-access baseline and the host beside them.
  const auto tp = Clock::now();
  analytic::Model strided_model(hw, timing, analytic::PoolFeed::strided);
  analytic::Model strided_free_model(hw, unlimited, analytic::PoolFeed::strided);
  std::uint64_t pool_at = r.feeder.total.stats.cycles;
  int pool_index = 0;
  const int pool_count = int(std::count_if(net.layers.begin(), net.layers.end(),
                                           [](const NetworkLayer& l) { return is_pooling_op(l.op); }));
  for (const NetworkLayer& nl : net.layers) {
    if (!is_pooling_op(nl.op)) continue;
    PoolRun P;
    P.name = nl.name;
    P.op = nl.op;
    P.detail = nl.detail;
    PoolTotals& T = r.pool_total;
    ++T.layers;
    if (!nl.pool.known) {
      P.refused = "the layer does not list its input's C x H x W and window";
      r.pools.push_back(std::move(P));
      continue;
    }
    const golden::PoolLayer gl = golden_pool_layer(nl, net.batch);
    P.shape = pool_shape(gl);
    P.shape.source = nl.name;
    Program prog;
    try {
      prog = compile_pool(P.shape, cfg);
    } catch (const InputError& e) {
      P.refused = e.what();  // e.g. average pooling with dilation: it stays on the host
      r.pools.push_back(std::move(P));
      continue;
    }
    if (opt.progress) opt.progress("pooling", T.layers - 1, pool_count, nl.name);
    P.on_chip = true;
    P.plan = prog.plan;
    P.commands = prog.commands.size();
    P.start_cycle = pool_at;
    P.analytic = model.run(prog).stats;
    P.strided = strided_model.run(prog).stats;
    P.free_cycles = free_model.run(prog).stats.cycles;
    P.strided_free_cycles = strided_free_model.run(prog).stats.cycles;
    P.stats = P.analytic;
    if (sc) {
      // The ifmap of seeded operands of a 1x1 convolution on the same map (flycol run --op's).
      Layer as_conv;
      as_conv.n = gl.n, as_conv.c = gl.c, as_conv.h = gl.h, as_conv.w = gl.w, as_conv.k = 1;
      const std::vector<ElemBits> ifmap =
          make_random_operands(as_conv, cfg.arithmetic, opt.seed + 100'000 + std::uint64_t(pool_index)).ifmap;
      const std::vector<std::uint8_t> image = build_pool_dram_image(prog, ifmap);
      DramModel dram(timing, image.size());
      dram.write_bytes(0, image.data(), image.size());
      add_tensor_regions(dram, prog);
      const SimResult sr = sc->run(prog.commands, dram);
      if (!sr.finished)
        throw std::runtime_error(fmt::format("flycol net: the SystemC model did not finish pooling layer '{}': {}",
                                             nl.name, sr.error));
      const std::vector<AccBits> outputs = extract_outputs(prog, dram.bytes());
      P.stats = from_sc(sr, tensor_bytes(dram), dram.stats(), prev_reads, prev_writes);
      P.sc_wall_seconds = sr.wall_seconds;
      std::vector<AccBits> rtl_outputs;
      if (rtl) {
        CosimOptions co;
        co.watchdog_cycles = 2'000'000;
        const CosimResult c = cosim_program(prog, image, timing, co);
        P.rtl_run = true;
        P.rtl_wall_seconds = c.rtl.wall_seconds;
        P.rtl_mismatch = lockstep_mismatch(c, sr.cycles, outputs);
        rtl_outputs = c.rtl.outputs;
        r.rtl_wall_seconds += P.rtl_wall_seconds;
      }
      if (opt.check) {
        const std::vector<AccBits> want = golden::pool(gl, cfg.arithmetic, ifmap);
        P.checked = true;
        P.exact = outputs == want && (!rtl || (P.rtl_mismatch.empty() && rtl_outputs == want));
        if (!P.exact) ++T.mismatched_layers;
      }
      r.sc_wall_seconds += P.sc_wall_seconds;
    }
    P.energy = energy::estimate(cfg, energy_activity(P.stats));
    P.strided_energy = energy::estimate(cfg, energy_activity(P.strided));
    P.host_bytes = std::uint64_t(gl.ifmap_elems()) * std::uint64_t(hw.elem_bytes()) +
                   std::uint64_t(gl.ofmap_elems()) * std::uint64_t(hw.acc_bytes());
    P.host_cycles = std::uint64_t(std::ceil(double(P.host_bytes) / timing.bytes_per_cycle));
    P.host_dram_j = double(P.host_bytes) * cfg.dram.energy_pj_per_byte * 1e-12;
    pool_at += P.stats.cycles;
    ++T.on_chip;
    accumulate(T.stats, P.stats);
    accumulate(T.analytic, P.analytic);
    accumulate(T.strided, P.strided);
    T.free_cycles += P.free_cycles;
    T.strided_free_cycles += P.strided_free_cycles;
    add_energy(T.energy, P.energy);
    add_energy(T.strided_energy, P.strided_energy);
    T.host_bytes += P.host_bytes;
    T.host_cycles += P.host_cycles;
    T.host_dram_j += P.host_dram_j;
    r.pools.push_back(std::move(P));
    ++pool_index;
  }
  r.pool_wall_seconds = since(tp);
  run_fusions(r, net, cfg, opt, timing, model, free_model, sc.get(), rtl, prev_reads, prev_writes);
  return r;
}

}  // namespace flycol::net
