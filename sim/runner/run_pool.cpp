// `flycol run --op <pooling>` (run_pool.h): the pooling layer's keys, parsed through the
// convolution layer parser for the shared ones (so names, ranges and messages are the same), and
// the golden model's run with its float64 reference.
#include "sim/runner/run_pool.h"

#include <chrono>
#include <cmath>
#include <set>

#include <fmt/format.h>

#include "sim/analytic/analytic_model.h"
#include "sim/common/input_error.h"
#include "sim/common/text.h"
#include "sim/compiler/pool_backward_compiler.h"
#include "sim/compiler/pool_compiler.h"
#include "sim/config/config_keys.h"
#include "sim/config/layer.h"
#include "sim/rtlsim/cosim.h"
#include "sim/runner/pool_layer.h"
#include "sim/runner/run_layer.h"
#include "sim/scsim/sc_simulation.h"
#include "sim/stats/run_stats.h"

namespace flycol {
namespace {

bool is_global(const std::string& op) { return op.rfind("global", 0) == 0; }
bool is_max(const std::string& op) { return op == "maxpool" || op == "globalmaxpool"; }

int flag_value(const std::string& value, const std::string& source, const std::string& key, const char* onnx) {
  if (value == "0") return 0;
  if (value == "1") return 1;
  throw InputError(source, key, fmt::format("= {}: must be 0 or 1 (ONNX's {})", value, onnx));
}

// What a chip model did with the pooling program.
struct ChipRun {
  std::vector<AccBits> output;
  RunStats stats;
  std::string error;       // did not finish: why
  std::string lockstep;    // both: the first divergence, or "" when in lockstep
  double seconds = 0;
};

ChipRun run_chip(const std::string& model, const Program& prog, const std::vector<std::uint8_t>& image,
                 const std::vector<AccBits>& golden_out) {
  ChipRun r;
  const DramTiming timing = DramTiming::from(prog.config);
  const auto t0 = std::chrono::steady_clock::now();
  if (model == "analytic") {
    analytic::Model m(prog.hw, timing);
    r.stats = m.run(prog).stats;
    r.output = golden_out;  // the analytic model counts; the values are the golden model's
  } else if (model == "sc") {
    DramModel dram(timing, image.size());
    dram.write_bytes(0, image.data(), image.size());
    add_tensor_regions(dram, prog);
    ScSimulation sim(prog.hw);
    const SimResult sr = sim.run(prog.commands, dram);
    if (!sr.finished) r.error = sr.error.empty() ? "the watchdog stopped it" : sr.error;
    r.output = extract_outputs(prog, dram.bytes());
    r.stats = run_stats(sr.stats, sr.cycles, tensor_bytes(dram));
  } else {
    CosimOptions co;
    co.run_sc = model == "both";
    co.wave_on_mismatch = false;
    const CosimResult cr = cosim_program(prog, image, timing, co);
    if (!cr.rtl.finished) r.error = "RTL: " + (cr.rtl.error.empty() ? std::string("the watchdog stopped it") : cr.rtl.error);
    if (co.run_sc && !cr.sc.finished) r.error += (r.error.empty() ? "" : "; ") + std::string("SystemC: ") + cr.sc.error;
    r.output = cr.rtl.outputs;
    if (co.run_sc) {
      // The cycle classes and SRAM counts from the SystemC twin (cycle-exact with the RTL, or the
      // lockstep check below fails); cycles and DRAM bytes from the RTL.
      r.stats = run_stats(cr.sc_stats, cr.rtl.cycles, cr.rtl.dram);
      if (cr.first.found)
        r.lockstep = fmt::format("pins diverge at cycle {} on {}: SystemC {} / RTL {}", cr.first.cycle, cr.first.signal,
                                 cr.first.sc_value, cr.first.rtl_value);
      else if (!cr.cycles_equal)
        r.lockstep = fmt::format("cycles differ: SystemC {}, RTL {}", cr.sc.cycles, cr.rtl.cycles);
      else if (!cr.outputs_equal)
        r.lockstep = "outputs differ between SystemC and RTL";
    } else {
      r.stats.cycles = cr.rtl.cycles;
      r.stats.dram = dram_traffic(cr.rtl.dram);
      r.stats.has_cycle_classes = r.stats.has_sram = false;
    }
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

}  // namespace

const std::vector<std::string>& pool_op_names() {
  static const std::vector<std::string> names = {"maxpool", "avgpool", "globalmaxpool", "globalavgpool"};
  return names;
}

bool is_pool_op(const std::string& op) {
  for (const std::string& n : pool_op_names())
    if (n == op) return true;
  return false;
}

golden::PoolLayer parse_pool_layer(const std::string& op, const std::string& spec, const std::string& source,
                                   const std::vector<std::int64_t>& shape) {
  if (!is_pool_op(op))
    throw InputError("--op", "", fmt::format("= {}: must be conv or one of {}", op, join(pool_op_names())));
  const bool global = is_global(op);
  int ceil = 0, include_pad = 0;
  std::string conv;  // the keys the convolution parser checks
  std::set<std::string> given;
  std::string c_value;
  const auto append = [&conv](const std::string& item) { conv += (conv.empty() ? "" : ",") + item; };
  const std::string t = trim(spec);
  if (t.size() > 5 && (t.compare(t.size() - 5, 5, ".yaml") == 0 || t.compare(t.size() - 4, 4, ".yml") == 0))
    throw InputError(source, "", fmt::format("= {}: --op takes the compact form of a layer (N=..,C=..,H=..,W=..,k=..), "
                                             "not a YAML file",
                                             t));
  int index = 0;
  for (std::size_t start = 0; !t.empty() && start <= spec.size();) {
    const std::size_t comma = std::min(spec.find(',', start), spec.size());
    const std::string item = trim(spec.substr(start, comma - start));
    start = comma + 1;
    ++index;
    if (item.empty())
      throw InputError(source, "", fmt::format("item {} is empty: items are key=value separated by single commas", index));
    const std::size_t eq = item.find('=');
    if (eq == std::string::npos)
      throw InputError(source, item, "must be key=value (keys: N, C, H, W, k, s, d, p, ceil, include_pad, name)");
    const std::string key = trim(item.substr(0, eq)), value = trim(item.substr(eq + 1));
    if (key == "ceil") {
      if (global) throw InputError(source, key, "does not apply to global pooling (its one window is the whole map)");
      ceil = flag_value(value, source, key, "ceil_mode");
    } else if (key == "include_pad") {
      if (op != "avgpool") throw InputError(source, key, fmt::format("applies to avgpool only (ONNX's count_include_pad), not {}", op));
      include_pad = flag_value(value, source, key, "count_include_pad");
    } else if (key == "K") {
      throw InputError(source, key, "pooling keeps the channels (its output has C channels): leave K out");
    } else if (global && key != "N" && key != "C" && key != "H" && key != "W" && key != "name") {
      throw InputError(source, key, "global pooling takes only N, C, H, W and name: its window is the whole H x W map");
    } else {
      if (key == "C") c_value = value;
      given.insert(key);
      append(item);
    }
  }
  const char* const dims[] = {"N", "C", "H", "W"};
  if (!shape.empty())
    for (int i = 0; i < 4; ++i)
      if (!given.count(dims[i])) {
        append(fmt::format("{}={}", dims[i], shape[std::size_t(i)]));
        if (i == 1) c_value = std::to_string(shape[1]);
      }
  // The convolution parser wants K and a kernel: K = C (or 1 while C is missing, so that the message
  // names C), and a 1 x 1 window for global pooling (its window is set from H and W below).
  append("K=" + (c_value.empty() ? std::string("1") : c_value));
  if (global) append("k=1");
  const Layer L = parse_layer_spec(conv, source);
  if (!shape.empty()) {
    const int got[] = {L.n, L.c, L.h, L.w};
    for (int i = 0; i < 4; ++i)
      if (given.count(dims[i]) && got[i] != shape[std::size_t(i)])
        throw InputError(source, dims[i],
                         fmt::format("= {} disagrees with the --ifmap tensor, whose shape has {} at axis {} ([N][C][H][W]): "
                                     "leave {} out of --layer or make them agree",
                                     got[i], shape[std::size_t(i)], i, dims[i]));
  }
  const golden::PoolOp kind = is_max(op) ? golden::PoolOp::max : golden::PoolOp::avg;
  golden::PoolLayer p;
  if (global) {
    p = golden::PoolLayer::global(kind, L.n, L.c, L.h, L.w);
  } else {
    p.op = kind;
    p.n = L.n, p.c = L.c, p.h = L.h, p.w = L.w;
    p.ky = L.ky, p.kx = L.kx, p.sy = L.sy, p.sx = L.sx, p.dy = L.dy, p.dx = L.dx;
    p.pt = L.pt, p.pb = L.pb, p.pl = L.pl, p.pr = L.pr;
    p.ceil_mode = ceil != 0;
    p.count_include_pad = include_pad != 0;
  }
  if (given.count("name")) p.name = L.name;
  const std::string problem = p.problem();
  if (!problem.empty()) throw InputError(source, "k", problem);
  return p;
}

std::string pool_spec(const std::string& op, const golden::PoolLayer& l) {
  std::string s = fmt::format("{} N={},C={},H={},W={}", op, l.n, l.c, l.h, l.w);
  if (is_global(op)) return s;
  s += fmt::format(",ky={},kx={},sy={},sx={},dy={},dx={},pt={},pb={},pl={},pr={},ceil={}", l.ky, l.kx, l.sy, l.sx,
                   l.dy, l.dx, l.pt, l.pb, l.pl, l.pr, l.ceil_mode ? 1 : 0);
  if (op == "avgpool") s += fmt::format(",include_pad={}", l.count_include_pad ? 1 : 0);
  return s;
}

PoolOutcome run_pool(const PoolRequest& req) {
  const std::set<std::string> models = {"golden", "analytic", "sc", "rtl", "both"};
  if (!models.count(req.model))
    throw InputError("--model", "", fmt::format("= {}: pooling (--op {}) runs on golden, analytic, sc, rtl or both",
                                                req.model, req.op));
  const golden::PoolLayer& l = req.layer;
  // Compile first: a layer the pooling unit cannot run is an input error before anything runs.
  const bool chip = req.model != "golden";
  Program prog;
  if (chip) {
    PoolShape shape = pool_shape(l);
    shape.source = "--layer";
    prog = req.backward ? compile_pool_backward(shape, req.config) : compile_pool(shape, req.config);
  }
  const Arithmetic arith = req.config.arithmetic;
  PoolOutcome r;
  if (req.given_ifmap) {
    r.ifmap = *req.given_ifmap;
  } else {
    // The ifmap of the seeded operands of a 1x1 convolution on the same map: the same classes.
    Layer as_conv;
    as_conv.n = l.n, as_conv.c = l.c, as_conv.h = l.h, as_conv.w = l.w, as_conv.k = 1;
    OperandDistribution dist;
    dist.operand_class = req.operands;
    r.ifmap = make_random_operands(as_conv, arith, req.seed, dist).ifmap;
  }
  if (req.backward && req.given_grad) {
    r.grad = *req.given_grad;
  } else if (req.backward) {
    // dy: the same classes on the Ho x Wo map, seed + 1, as accumulator words.
    Layer as_conv;
    as_conv.n = l.n, as_conv.c = l.c, as_conv.h = l.ho(), as_conv.w = l.wo(), as_conv.k = 1;
    OperandDistribution dist;
    dist.operand_class = req.operands;
    r.grad = elements_as_accumulators(make_random_operands(as_conv, arith, req.seed + 1, dist).ifmap, arith);
  }
  const auto t0 = std::chrono::steady_clock::now();
  r.output = req.backward ? golden::pool_backward(l, arith, r.ifmap, r.grad) : golden::pool(l, arith, r.ifmap);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const std::vector<double> ref =
      req.backward ? golden::pool_backward_f64(l, arith, r.ifmap, r.grad) : golden::pool_f64(l, arith, r.ifmap);
  double max_err = 0, sum_err = 0;
  std::int64_t counted = 0, non_finite = 0;
  for (std::size_t i = 0; i < r.output.size(); ++i) {
    const double v = acc_value(r.output[i], arith);
    if (!std::isfinite(v)) {
      ++non_finite;
      continue;
    }
    if (!std::isfinite(ref[i])) continue;
    const double e = std::fabs(v - ref[i]);
    max_err = std::max(max_err, e);
    sum_err += e;
    ++counted;
  }
  const std::uint64_t sum = checksum(r.output, arith);
  const char* aname = arithmetic_info(arith).name;
  const std::string seed = req.given_ifmap ? std::string("none (given ifmap)")
                                           : req.operands == OperandClass::uniform
                                                 ? std::to_string(req.seed)
                                                 : fmt::format("{}, operands {}", req.seed, operand_class_name(req.operands));

  Json& j = r.report;
  j = Json::object();
  j["model"] = "golden";
  j["op"] = req.op;
  j["backward"] = req.backward;
  Json& lj = j["layer"];
  lj = Json::object();
  lj["spec"] = pool_spec(req.op, l);
  lj["name"] = l.name;
  write_pool_layer_json(lj, l);
  j["config"] = config_json(req.config);
  j["seed"] = req.given_ifmap ? Json(nullptr) : Json(req.seed);
  j["operands"] = req.given_ifmap ? std::string("given") : std::string(operand_class_name(req.operands));
  Json& o = j["output"];
  o["shape"] = req.backward ? Json::Array{l.n, l.c, l.h, l.w} : Json::Array{l.n, l.c, l.ho(), l.wo()};
  o["checksum"] = fmt::format("0x{:016x}", sum);
  Json& c = j["check"];
  c["reference"] = "float64";
  c["max_abs_err"] = max_err;
  c["mean_abs_err"] = counted ? sum_err / double(counted) : 0.0;
  c["non_finite"] = non_finite;
  j["golden_seconds"] = seconds;

  std::string chip_text;
  if (chip) {
    const ChipRun cr = run_chip(req.model, prog,
                                req.backward ? build_pool_backward_dram_image(prog, r.grad, r.ifmap)
                                             : build_pool_dram_image(prog, r.ifmap),
                                r.output);
    std::size_t diffs = 0, first = 0;
    for (std::size_t i = 0; i < r.output.size(); ++i)
      if ((i >= cr.output.size() || cr.output[i] != r.output[i]) && diffs++ == 0) first = i;
    r.passed = cr.error.empty() && cr.lockstep.empty() && diffs == 0;
    j["model"] = req.model;
    j["cycles"] = cr.stats.cycles;
    j["seconds_at_clock"] = double(cr.stats.cycles) / (req.config.clock_mhz * 1e6);
    Json& sj = j["stats"];
    sj = Json::object();
    write_stats_json(sj, cr.stats);
    Json& pj = j["program"];
    pj = Json::object();
    pj["commands"] = prog.commands.size();
    pj["runs"] = prog.runs;
    pj["tile"] = Json::Array{prog.plan.tc, prog.plan.th, prog.plan.tw};
    // (j's members were added after `c` was taken: look the check up again.)
    Json& chk = j["check"];
    chk["golden_bit_exact"] = diffs == 0 && cr.error.empty();
    chk["mismatches"] = diffs;
    if (req.model == "both") chk["lockstep"] = cr.lockstep.empty();
    j["model_seconds"] = cr.seconds;
    chip_text = fmt::format(
        "  program      {} commands, {} pooling RUNs, tiles of {} channels x {} rows x {} columns{}\n"
        "  cycles       {} ({:.2f} us at {} MHz){}\n"
        "  DRAM         {} bytes ({} {}, {}{} {})\n",
        prog.commands.size(), prog.runs, prog.plan.tc, prog.plan.th, prog.plan.tw,
        req.backward ? (l.op == golden::PoolOp::max ? " of dx (argmax and masked-sum RUNs)" : " of dx (share and gather RUNs)")
                     : "", cr.stats.cycles,
        double(cr.stats.cycles) / req.config.clock_mhz, req.config.clock_mhz,
        cr.stats.has_cycle_classes
            ? fmt::format("; pool steps {}, feeder stalls {}, divider waits {}, pipeline {}", cr.stats.pool_cycles,
                          cr.stats.feeder_stall, cr.stats.context_stall, cr.stats.pipeline)
            : std::string(),
        cr.stats.dram.total(), req.backward ? "dy" : "ifmap", cr.stats.dram.ifmap,
        req.backward && l.op == golden::PoolOp::max ? fmt::format("x {}, ", cr.stats.dram.weights) : std::string(),
        req.backward ? "dx" : "ofmap", cr.stats.dram.ofmap);
    if (!cr.error.empty()) chip_text += fmt::format("  FAILED       did not finish: {}\n", cr.error);
    if (!cr.lockstep.empty()) chip_text += fmt::format("  FAILED       not in lockstep: {}\n", cr.lockstep);
    const char* what = req.backward ? "golden pooling's backward pass" : "golden pooling";
    chip_text += diffs == 0 ? fmt::format("  check        bit-exact with the {}\n", what)
                            : fmt::format("  FAILED       {} of {} outputs differ from the {}; first at {}: "
                                          "{:#x}, golden {:#x}\n",
                                          diffs, r.output.size(), what, first,
                                          first < cr.output.size() ? cr.output[first] : 0u, r.output[first]);
    if (req.model != "analytic") r.output = cr.output;
  }

  r.text = fmt::format(
      "flycol run: {}{} on model {} ({} arithmetic), config {} ({}), seed {}\n"
      "  layer        {}\n"
      "  output       {}{}x{}x{}x{}\n"
      "  checksum     0x{:016x}\n"
      "  {} vs f64  max |err| {:.3g}, mean |err| {:.3g}{}\n",
      req.op, req.backward ? " backward" : "", req.model, aname, req.config.name, req.config.source, seed,
      pool_spec(req.op, l), req.backward ? "dx " : "", l.n, l.c, req.backward ? l.h : l.ho(),
      req.backward ? l.w : l.wo(), sum,
      aname, max_err, counted ? sum_err / double(counted) : 0.0,
      non_finite ? fmt::format(", {} non-finite outputs", non_finite) : std::string());
  r.text += chip_text;
  return r;
}

}  // namespace flycol
