// run_layer(): one layer through the model the request names, dispatched by the model registry
// (models.h); and the report pieces and helpers every model's run shares (run_common.h).
#include "sim/runner/run_layer.h"

#include <optional>
#include <stdexcept>

#include <fmt/format.h>

#include "sim/analytic/plan_choice.h"
#include "sim/common/input_error.h"
#include "sim/compiler/compiler.h"
#include "sim/compiler/explicit_lowering.h"
#include "sim/dram/dram_model.h"
#include "sim/runner/models.h"
#include "sim/runner/run_common.h"

namespace flycol {

Json layer_json(const Layer& l) {
  Json j = Json::object();
  j["spec"] = l.spec();
  j["name"] = l.name;
  j["N"] = l.n; j["C"] = l.c; j["H"] = l.h; j["W"] = l.w; j["K"] = l.k;
  j["ky"] = l.ky; j["kx"] = l.kx; j["sy"] = l.sy; j["sx"] = l.sx; j["dy"] = l.dy; j["dx"] = l.dx;
  j["pt"] = l.pt; j["pb"] = l.pb; j["pl"] = l.pl; j["pr"] = l.pr;
  j["Ho"] = l.ho(); j["Wo"] = l.wo();
  return j;
}

Json config_json(const Config& c) {
  Json j = Json::object();
  j["name"] = c.name;
  j["source"] = c.source;
  j["rows"] = c.array.rows;
  j["cols"] = c.array.cols;
  j["arithmetic"] = arithmetic_info(c.arithmetic).name;
  j["clock_mhz"] = c.clock_mhz;
  j["peak_gflops"] = c.peak_gflops();
  j["dram_gbps"] = c.dram.bandwidth_gbps();
  return j;
}

// Output comparison of a model against the golden convolution.
Mismatches compare_outputs(const std::vector<AccBits>& got, const std::vector<AccBits>& want) {
  Mismatches m;
  for (std::size_t i = 0; i < want.size(); ++i)
    if (got[i] != want[i]) {
      if (m.first < 0) m.first = std::int64_t(i);
      ++m.count;
    }
  return m;
}

std::string index_name(const Layer& L, std::int64_t i) {
  const int wo = L.wo(), ho = L.ho();
  const std::int64_t x = i % wo, y = (i / wo) % ho, k = (i / (std::int64_t(wo) * ho)) % L.k,
                     n = i / (std::int64_t(wo) * ho * L.k);
  return fmt::format("n={},k={},y={},x={}", n, k, y, x);
}

std::string seed_text(const RunRequest& req) {
  if (req.given_operands) return "none (given operands)";
  if (req.operands == OperandClass::uniform) return fmt::format("{}", req.seed);
  return fmt::format("{}, operands {}", req.seed, operand_class_name(req.operands));
}

ConvOperands program_operands(const ConvOperands& ops, const Program& prog) {
  Layer want = prog.layer;
  want.name = ops.layer.name;
  return want == ops.layer ? ops : lower_operands(ops, prog.layer);
}

DramTiming timing_for(const RunRequest& req) {
  DramTiming t = DramTiming::from(req.config);
  if (req.dram_seed) {
    // A reproducible random profile: latency jitter and back-pressure on the request channel.
    t.random_seed = req.dram_seed;
    t.not_ready_prob = 0.2;
    t.extra_latency_max = 64;
  }
  return t;
}

void write_run_header(Json& j, const RunRequest& req, const Program& prog) {
  j["layer"] = layer_json(req.layer);
  j["config"] = config_json(req.config);
  j["seed"] = seed_json(req);
  j["operands"] = operands_name(req);
  j["plan"] = prog.plan.describe();
  j["tiling"] = req.tiling;
  j["commands"] = std::uint64_t(prog.commands.size());
}

Program compile_request(const RunRequest& req) {
  const std::optional<analytic::Tiling> tiling = analytic::tiling_named(req.tiling);
  if (!tiling)
    throw InputError("--tiling", "", fmt::format("= {}: must be {}", req.tiling, analytic::tiling_choices()));
  if (*tiling == analytic::Tiling::heuristic) {
    CompileOptions copt;
    if (!req.order.empty()) copt.order = req.order;
    return compile_layer(req.layer, req.config, copt);
  }
  if (!req.order.empty())
    throw InputError("--order", "",
                     "picks the loop order of the compiler's heuristic plan: add --tiling heuristic (the tiling search, "
                     "the default, chooses the loop order itself)");
  analytic::Planner planner(req.config, DramTiming::from(req.config), analytic::Tiling::search);
  Program prog = planner.choose(req.layer, analytic::Lowering::feeder).program;
  prog.layer.name = req.layer.name;
  return prog;
}

ConvOperands request_operands(const RunRequest& req) {
  if (!req.given_operands) return make_random_operands(req.layer, req.config.arithmetic, req.seed, operand_distribution(req));
  const ConvOperands& g = *req.given_operands;
  if (!(g.layer == req.layer) || g.arithmetic != req.config.arithmetic ||
      std::int64_t(g.ifmap.size()) != g.layer.ifmap_elems() || std::int64_t(g.weights.size()) != g.layer.weight_elems())
    throw std::logic_error("run request: the given operands do not match the request's layer " + req.layer.spec() +
                           " and arithmetic");
  return g;
}

Json seed_json(const RunRequest& req) { return req.given_operands ? Json(nullptr) : Json(req.seed); }

std::string operands_name(const RunRequest& req) {
  return req.given_operands ? std::string("given") : std::string(operand_class_name(req.operands));
}

OperandDistribution operand_distribution(const RunRequest& req) {
  OperandDistribution d;
  d.zero_fraction = req.zero_fraction;
  d.operand_class = req.operands;
  return d;
}

RunOutcome run_layer(const RunRequest& req) { return model_named(req.model).run(req); }

}  // namespace flycol
