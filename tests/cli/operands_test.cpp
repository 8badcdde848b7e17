// The operand classes end to end: `flycol run --check --operands X` on SystemC ([sc]) and on the
// Verilated RTL in lockstep with SystemC ([rtl]) must stay bit-exact with the golden model for
// every class in fp16, int8 and int16, plus the option's refusals and its report key ([unit]).
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>
#include <unistd.h>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "tests/common/test_util.h"

namespace fs = std::filesystem;

namespace {

fs::path scratch_dir() {
  fs::path d = fs::temp_directory_path() / ("flycol_operands_test_" + std::to_string(::getpid()));
  fs::create_directories(d);
  return d;
}

const char* const kClasses[] = {"uniform", "normal", "wide", "specials", "saturate"};

// Small layers that still reach the paths the classes are for: padding (gated padding zeros next to
// Inf and NaN), stride and dilation with column tiles (fornt16: K=20 > 16 columns) spilled through
// the psum SRAM and DRAM (NaN, Inf and -0 partial sums preloaded), and one deep reduction of 576
// terms (C=64, 3x3: int16 saturates the int32 accumulator, fp16 overflows to Inf), a 2-term
// reduction whose tiny products give -0 and subnormal outputs, and channel slices (C=300) whose
// partial sums - Inf, NaN, -0 or clamped - go out to DRAM and come back as preloads. tests/workload/classes_golden_test
// shows on the golden model that these cases and seeds do reach those results.
struct Case {
  const char* layer;
  const char* extra;
};
const Case kCases[] = {
    {"C=3,H=9,W=11,K=5,k=3,p=1", ""},
    {"C=40,H=6,W=21,K=20,ky=3,kx=2,s=2,d=2,p=2", "--tiling heuristic --order spill"},
    {"N=2,C=64,H=3,W=4,K=6,k=3", ""},
    {"C=2,H=7,W=9,K=16,k=1", ""},
    {"C=300,H=8,W=16,K=16,k=3,p=1", "--tiling heuristic --order spill"},
};

// Runs every class x case on one configuration and model; a failure prints the command.
void check_all(const std::string& config, const std::string& model) {
  std::uint64_t seed = 1;
  for (const char* cls : kClasses)
    for (const Case& c : kCases) {
      const std::string args = "run --check --model " + model + " --config " + config + " --operands " + cls +
                               " --zeros 0.2 --seed " + std::to_string(seed++) + " --layer " + c.layer + " " + c.extra;
      const flycol::test::FlycolRun r = flycol::test::run_flycol_in(scratch_dir(), args);
      INFO("reproduce: flycol " << args << "\n" << r.out << r.err);
      CHECK(r.code == 0);
      CHECK(r.out.find("bit-exact with the golden model") != std::string::npos);
    }
}

}  // namespace

TEST_CASE("SystemC is bit-exact with golden for every operand class: fp16", "[sc]") { check_all("fornt16", "sc"); }
TEST_CASE("SystemC is bit-exact with golden for every operand class: int8", "[sc]") { check_all("int8", "sc"); }
TEST_CASE("SystemC is bit-exact with golden for every operand class: int16", "[sc]") {
  check_all(flycol::test::repo_path("tests/data/configs/small_int16.yaml"), "sc");
}
TEST_CASE("RTL and SystemC are bit-exact with golden for every operand class: fp16", "[rtl]") {
  check_all("fornt16", "both");
}
TEST_CASE("RTL and SystemC are bit-exact with golden for every operand class: int8", "[rtl]") {
  check_all("int8", "both");
}

TEST_CASE("--operands refuses an unknown class naming the option and the choices", "[unit]") {
  flycol::test::check_usage_error(scratch_dir(), "run --model golden --layer C=1,H=3,W=3,K=1,k=1 --operands gaussian",
                                  {"--operands", "uniform, normal, wide, specials, saturate"});
}

TEST_CASE("the report names the operand class next to the seed", "[unit]") {
  for (const char* model : {"golden", "sc"}) {
    const fs::path rep = scratch_dir() / (std::string(model) + ".json");
    const flycol::test::FlycolRun r = flycol::test::run_flycol_in(
        scratch_dir(), std::string("run --model ") + model + " --layer C=2,H=5,W=5,K=3,k=3 --operands specials --seed 3 --report " +
                           rep.string());
    INFO(r.out << r.err);
    REQUIRE(r.code == 0);
    const YAML::Node j = YAML::LoadFile(rep.string());
    CHECK(j["seed"].as<int>() == 3);
    CHECK(j["operands"].as<std::string>() == "specials");
    CHECK(r.out.find("seed 3, operands specials") != std::string::npos);
  }
  // The default is uniform, named as such in the report.
  const fs::path rep = scratch_dir() / "default.json";
  REQUIRE(flycol::test::run_flycol_in(scratch_dir(), "run --model golden --layer C=2,H=5,W=5,K=3,k=3 --report " + rep.string()).code == 0);
  CHECK(YAML::LoadFile(rep.string())["operands"].as<std::string>() == "uniform");
}
