// The model registry: every registered model runs a tiny layer through run_layer() and reports
// the documented keys (values checked against the layer and across models), and an unknown model
// names the known ones. (RunStats' writer is tested in tests/stats.)
#include <catch2/catch.hpp>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "hw/top/accelerator_core.h"
#include "sim/common/input_error.h"
#include "sim/config/config.h"
#include "sim/config/config_keys.h"
#include "sim/config/layer.h"
#include "sim/golden/conv.h"
#include "sim/rtlsim/rtl_top.h"
#include "sim/runner/models.h"
#include "sim/runner/run_common.h"
#include "sim/runner/run_layer.h"
#include "sim/scsim/layer_sim.h"
#include "sim/stats/run_stats.h"

using namespace flycol;

namespace {

std::uint64_t u64(const YAML::Node& n) { return n.as<std::uint64_t>(); }

bool rtl_built(const std::string& config) {
  const std::vector<std::string> built = built_rtl_configs();
  return std::find(built.begin(), built.end(), config) != built.end();
}

}  // namespace

TEST_CASE("registry: each model once, in the order --help and list show", "[runner]") {
  std::vector<std::string> names;
  for (const ModelInfo& m : models()) {
    names.push_back(m.name);
    CHECK(find_model(m.name) == &m);
    CHECK(&model_named(m.name) == &m);
    CHECK(m.run != nullptr);
    CHECK_FALSE(m.description.empty());
  }
  CHECK(names == std::vector<std::string>{"golden", "sc", "rtl", "both", "analytic"});
  CHECK(model_names("|") == "golden|sc|rtl|both|analytic");
  CHECK_FALSE(find_model("golden")->reports_cycles);
  for (const char* cycle_model : {"sc", "rtl", "both", "analytic"}) CHECK(find_model(cycle_model)->reports_cycles);
  CHECK(find_model("nosuch") == nullptr);
}

TEST_CASE("registry: an unknown model is an InputError naming the known ones", "[runner]") {
  RunRequest req;
  req.model = "nosuch";
  req.layer = parse_layer_spec("C=2,H=4,W=4,K=2,k=1");
  try {
    run_layer(req);
    FAIL("run_layer accepted model 'nosuch'");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()) == "--model: unknown model 'nosuch' (known: golden, sc, rtl, both, analytic)");
  }
}

TEST_CASE("registry: every model runs a tiny layer and reports the documented keys", "[runner]") {
  const Layer layer = parse_layer_spec("C=4,H=6,W=5,K=3,k=3,p=1");
  const std::uint64_t macs = 4 * 6 * 5 * 3 * 9;  // C * Ho * Wo * K * ky * kx (same-size output)
  const hw::HwParams hw = hardware_params(default_config());
  const double pes = double(hw.rows) * double(hw.cols);
  std::vector<std::pair<std::string, YAML::Node>> reports;
  for (const ModelInfo& m : models()) {
    INFO("model " << m.name);
    if ((m.name == "rtl" || m.name == "both") && !rtl_built("fornt16")) {
      WARN("model " << m.name << " skipped: fornt16 is not in FLYCOL_RTL_CONFIGS");
      continue;
    }
    RunRequest req;
    req.model = m.name;
    req.config = default_config();
    req.layer = layer;
    req.seed = 5;
    const RunOutcome out = run_layer(req);
    CHECK(out.passed);
    CHECK_FALSE(out.text.empty());
    const YAML::Node j = YAML::Load(out.report.dump());
    for (const char* key : {"model", "layer", "config", "seed", "operands", "macs", "output", "check"}) {
      INFO("key " << key);
      CHECK(j[key].IsDefined());
    }
    CHECK(j["model"].as<std::string>() == m.name);
    CHECK(u64(j["macs"]) == macs);
    CHECK(j["output"]["shape"][1].as<int>() == 3);
    CHECK(j["output"]["shape"][2].as<int>() == 6);
    CHECK(j["output"]["shape"][3].as<int>() == 5);
    if (m.reports_cycles) {
      for (const char* key : {"plan", "tiling", "cycles", "utilization", "time_us", "dram_bytes", "energy", "gated_macs"}) {
        INFO("key " << key);
        CHECK(j[key].IsDefined());
      }
      const YAML::Node d = j["dram_bytes"];
      CHECK(u64(d["total"]) == u64(d["ifmap"]) + u64(d["weights"]) + u64(d["psums_in"]) + u64(d["ofmap"]));
      // Every input element and weight is read at least once, every output written at least once.
      CHECK(u64(d["ifmap"]) >= std::uint64_t(layer.ifmap_elems() * hw.elem_bytes()));
      CHECK(u64(d["weights"]) >= std::uint64_t(layer.weight_elems() * hw.elem_bytes()));
      CHECK(u64(d["ofmap"]) >= std::uint64_t(layer.ofmap_elems() * hw.acc_bytes()));
      CHECK(j["utilization"].as<double>() == Approx(double(macs) / (double(u64(j["cycles"])) * pes)));
    }
    if (m.name != "rtl" && m.reports_cycles) {
      // Cycle classes: every cycle is exactly one of them (spec section 13).
      const YAML::Node s = j["stalls"];
      REQUIRE(s.IsMap());
      const std::uint64_t classes = u64(j["mac_cycles"]) + u64(s["feeder"]) + u64(s["weights"]) +
                                    u64(s["context_switch"]) + u64(s["pipeline"]) + u64(s["dram"]) + u64(s["tail"]);
      CHECK(classes == u64(j["cycles"]));
      for (const char* sram : {"ifmap", "weights", "psums"}) {
        INFO("sram " << sram);
        CHECK(j["sram"][sram]["reads"].IsDefined());
        CHECK(j["sram"][sram]["writes"].IsDefined());
      }
      // Every context writes its COLS result words; packed contexts hold ROWS outputs of any row.
      const std::uint64_t min_contexts = std::uint64_t((layer.ho() * layer.wo() + hw.rows - 1) / hw.rows) *
                                         std::uint64_t((layer.k + hw.cols - 1) / hw.cols) * std::uint64_t(layer.n);
      CHECK(u64(j["sram"]["psums"]["writes"]) >= min_contexts * std::uint64_t(hw.cols));
    }
    reports.emplace_back(m.name, j);
  }
  // Across models: the bit-exact ones agree on the outputs; the analytic model's DRAM bytes are
  // the SystemC model's; lockstep runs report one cycle count.
  const auto report = [&](const std::string& name) -> const YAML::Node* {
    for (const auto& [n, j] : reports)
      if (n == name) return &j;
    return nullptr;
  };
  const YAML::Node* golden = report("golden");
  const YAML::Node* sc = report("sc");
  const YAML::Node* analytic = report("analytic");
  REQUIRE(golden);
  REQUIRE(sc);
  REQUIRE(analytic);
  CHECK((*sc)["output"]["checksum"].as<std::string>() == (*golden)["output"]["checksum"].as<std::string>());
  CHECK((*analytic)["output"]["checksum"].IsNull());
  CHECK((*analytic)["gated_macs"].IsNull());
  for (const char* t : {"ifmap", "weights", "psums_in", "ofmap", "total"})
    CHECK(u64((*analytic)["dram_bytes"][t]) == u64((*sc)["dram_bytes"][t]));
  for (const char* name : {"rtl", "both"})
    if (const YAML::Node* r = report(name)) {
      INFO("model " << name);
      CHECK((*r)["output"]["checksum"].as<std::string>() == (*golden)["output"]["checksum"].as<std::string>());
      CHECK(u64((*r)["cycles"]) == u64((*sc)["cycles"]));
      CHECK(u64((*r)["gated_macs"]) == u64((*r)["gated_macs_rtl"]));
    }
}

// Regression: with --tiling search the plan of a 1x1 layer may run it flattened (H' x W' with
// H'*W' = Ho*Wo); sc and both then failed with "build_dram_image: the operands ... are not those of
// the program's layer" because the operands were not lowered to the program's layer.
TEST_CASE("tiling search: a layer the search flattens runs and checks on sc and both", "[runner]") {
  RunRequest req;
  req.config = default_config();
  req.layer = parse_layer_spec("C=300,H=17,W=17,K=80,k=1");
  req.tiling = "search";
  req.seed = 3;
  const Program prog = compile_request(req);
  INFO("plan " << prog.plan.describe() << " on " << prog.layer.spec());
  REQUIRE(prog.layer.w != req.layer.w);  // the case needs the flattened form
  for (const char* model : {"sc", "both"}) {
    if (std::string(model) == "both" && !rtl_built("fornt16")) continue;
    req.model = model;
    INFO("model " << model);
    const RunOutcome out = run_layer(req);
    CHECK(out.passed);
  }
}

// Gated MACs count every MAC with a zero operand (+0 or -0 in fp16; padding included), worked
// out here from the operands; the accelerator's statistic must match it on SystemC and RTL. A view
// that gated -0 for the accumulator but not for the counter (or the reverse) keeps its outputs
// and fails here.
namespace {

// One configuration per process: SystemC elaborates its model once (each TEST_CASE is its own CTest).
void check_gated_count(const char* config) {
  {
    INFO("config " << config);
    RunRequest req;
    req.config = load_config_by_name_or_path(config);  // both 16 x 16
    // K = 16 columns and Wo = 16 rows: every issued MAC is a useful one, so no idle lane is counted.
    req.layer = parse_layer_spec("C=5,H=6,W=16,K=16,k=3,p=1");
    req.seed = 6;
    req.zero_fraction = 0.3;
    req.operands = OperandClass::specials;
    OperandDistribution d;
    d.zero_fraction = req.zero_fraction;
    d.operand_class = req.operands;
    const ConvOperands ops = make_random_operands(req.layer, req.config.arithmetic, req.seed, d);
    const bool fp = req.config.arithmetic == Arithmetic::fp16;
    const Layer& L = req.layer;
    auto zero = [fp](ElemBits b) { return fp ? (b & 0x7FFF) == 0 : b == 0; };
    std::uint64_t gated = 0, neg_zero_gated = 0;
    for (int k = 0; k < L.k; ++k)
      for (int y = 0; y < L.ho(); ++y)
        for (int x = 0; x < L.wo(); ++x)
          for (int c = 0; c < L.c; ++c)
            for (int ky = 0; ky < L.ky; ++ky)
              for (int kx = 0; kx < L.kx; ++kx) {
                const int iy = y * L.sy + ky * L.dy - L.pt, ix = x * L.sx + kx * L.dx - L.pl;
                const bool pad = iy < 0 || iy >= L.h || ix < 0 || ix >= L.w;
                const ElemBits a = pad ? ElemBits(0) : ops.ifmap[(std::size_t(c) * L.h + iy) * L.w + ix];
                const ElemBits w = ops.weights[((std::size_t(k) * L.c + c) * L.ky + ky) * L.kx + kx];
                if (zero(a) || zero(w)) {
                  ++gated;
                  neg_zero_gated += !(zero(a) && a == 0) && (a == 0x8000 || w == 0x8000);
                }
              }
    if (fp) REQUIRE(neg_zero_gated > 1000);  // the case needs many MACs gated by a -0 alone
    for (const char* model : {"sc", "rtl"}) {
      if (std::string(model) == "rtl" && !rtl_built(config)) continue;
      req.model = model;
      INFO("model " << model);
      const RunOutcome out = run_layer(req);
      CHECK(out.passed);
      const YAML::Node j = YAML::Load(out.report.dump());
      if (j["mac_cycles"].IsDefined()) CHECK(u64(j["mac_cycles"]) * 256 == std::uint64_t(L.macs()));
      CHECK(u64(j["gated_macs"]) == gated);
      if (j["gated_macs_rtl"].IsDefined()) CHECK(u64(j["gated_macs_rtl"]) == gated);
    }
  }
}
}  // namespace

TEST_CASE("gated MACs count +0 and -0 operands alike on sc and rtl: fp16", "[runner]") { check_gated_count("fornt16"); }
TEST_CASE("gated MACs count zero operands on sc and rtl: int8", "[runner]") { check_gated_count("int8"); }

TEST_CASE("given operands: every model runs them instead of the seeded ones and returns its outputs", "[runner]") {
  RunRequest req;
  req.config = default_config();
  req.layer = parse_layer_spec("C=3,H=5,W=6,K=2,k=3,p=1,s=2");
  ConvOperands ops;
  ops.layer = req.layer;
  ops.arithmetic = req.config.arithmetic;
  // Not any seed's operands: small integers and halves as binary16 (-2 .. 2 in steps of 0.5).
  const ElemBits halves[] = {0xC000, 0xBE00, 0xBC00, 0xB800, 0x0000, 0x3800, 0x3C00, 0x3E00, 0x4000};
  for (std::int64_t i = 0; i < req.layer.ifmap_elems(); ++i) ops.ifmap.push_back(halves[(i * 7) % 9]);
  for (std::int64_t i = 0; i < req.layer.weight_elems(); ++i) ops.weights.push_back(halves[(i * 5 + 2) % 9]);
  req.given_operands = &ops;
  const std::vector<AccBits> want = golden::conv(ops);
  const std::vector<AccBits> seeded = golden::conv(make_random_operands(req.layer, req.config.arithmetic, req.seed));
  REQUIRE(want != seeded);
  for (const ModelInfo& m : models()) {
    INFO("model " << m.name);
    if ((m.name == "rtl" || m.name == "both") && !rtl_built("fornt16")) continue;
    req.model = m.name;
    const RunOutcome out = run_layer(req);
    CHECK(out.passed);
    if (m.name == "analytic") CHECK(out.output.empty());
    else CHECK(out.output == want);
    const YAML::Node j = YAML::Load(out.report.dump());
    CHECK(j["seed"].IsNull());
    CHECK(j["operands"].as<std::string>() == "given");
    if (m.name != "analytic") CHECK(out.text.find("given operands") != std::string::npos);
  }
  // Seeded runs keep their report and return their outputs too.
  req.given_operands = nullptr;
  req.model = "golden";
  const RunOutcome s = run_layer(req);
  CHECK(s.output == seeded);
  CHECK(YAML::Load(s.report.dump())["seed"].as<int>() == 1);
  // Operands of another layer are the caller's bug.
  ConvOperands other = ops;
  other.layer.k = 3;
  req.given_operands = &other;
  CHECK_THROWS_AS(run_layer(req), std::logic_error);
}
