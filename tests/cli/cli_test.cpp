// End-to-end checks of the flycol command line: the documented jobs work, bad input exits
// non-zero with a message naming the key, and reports appear whole or not at all.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>
#include <vector>


#include <yaml-cpp/yaml.h>

#include "tests/common/test_util.h"

namespace fs = std::filesystem;
using flycol::test::check_usage_error;
using flycol::test::slurp;

namespace {

using Result = flycol::test::FlycolRun;

fs::path scratch_dir() {
  fs::path d = fs::temp_directory_path() / ("flycol_cli_test_" + std::to_string(::getpid()));
  fs::create_directories(d);
  return d;
}

Result run_flycol(const std::string& args) { return flycol::test::run_flycol_in(scratch_dir(), args); }

}  // namespace

TEST_CASE("run --model golden works for strided, dilated, padded and non-square layers", "[cli]") {
  for (const char* spec : {"C=3,H=17,W=23,K=5,k=3,s=2,p=1", "C=4,H=20,W=20,K=3,k=3,d=4,p=4",
                           "C=2,H=9,W=31,K=7,ky=2,kx=5,sy=1,sx=3,pt=0,pb=1,pl=2,pr=0",
                           "N=2,C=5,H=8,W=16,K=4,ky=1,kx=7,dy=1,dx=2,p=0"}) {
    const Result r = run_flycol(std::string("run --model golden --layer ") + spec);
    INFO(spec << "\n" << r.out << r.err);
    CHECK(r.code == 0);
    CHECK(r.out.find("MACs") != std::string::npos);
    CHECK(r.out.find("checksum") != std::string::npos);
  }
}

TEST_CASE("run writes a JSON report with the documented keys", "[cli]") {
  const fs::path rep = scratch_dir() / "sub" / "report.json";
  const Result r = run_flycol("run --model golden --layer C=3,H=8,W=8,K=2,k=3,p=1 --seed 4 --report " + rep.string());
  REQUIRE(r.code == 0);
  const YAML::Node j = YAML::LoadFile(rep.string());
  for (const char* key : {"model", "layer", "config", "macs", "check"}) CHECK(j[key].IsDefined());
  CHECK(j["macs"].as<long long>() == 3LL * 8 * 8 * 2 * 9);
  CHECK(j["model"].as<std::string>() == "golden");
}

TEST_CASE("run --model sc is the default, checks against golden and reports cycles and traffic", "[cli]") {
  const fs::path rep = scratch_dir() / "sc.json";
  const Result r = run_flycol("run --layer C=20,H=9,W=21,K=18,ky=3,kx=2,s=2,dy=2,dx=1,p=1 --check --report " + rep.string());
  INFO(r.out << r.err);
  REQUIRE(r.code == 0);
  CHECK(r.out.find("bit-exact with the golden model") != std::string::npos);
  const YAML::Node j = YAML::LoadFile(rep.string());
  CHECK(j["model"].as<std::string>() == "sc");
  for (const char* key : {"layer", "config", "cycles", "macs", "utilization", "stalls", "sram", "dram_bytes", "check"})
    CHECK(j[key].IsDefined());
  for (const char* key : {"feeder", "dram"}) CHECK(j["stalls"][key].IsDefined());
  for (const char* key : {"ifmap", "weights", "psums_in", "ofmap", "total"}) CHECK(j["dram_bytes"][key].IsDefined());
  CHECK(j["check"]["bit_exact"].as<bool>());
  CHECK(j["check"]["mismatches"].as<long long>() == 0);
  CHECK(j["cycles"].as<long long>() > 0);
  // The ifmap is read at least once and the outputs written exactly once (2 bytes each).
  CHECK(j["dram_bytes"]["ifmap"].as<long long>() >= 20LL * 9 * 21 * 2);
  CHECK(j["dram_bytes"]["ofmap"].as<long long>() == 18LL * 4 * 11 * 2);  // Ho = 4, Wo = 11
}

TEST_CASE("run searches the tiling by default: the plan net would pick, bit-exact and no slower than the heuristic", "[cli]") {
  // A dilated layer: the heuristic tiling stalls on DRAM here, the search finds a better plan.
  const std::string layer = "--layer C=48,H=30,W=30,K=40,k=3,d=4,p=4 --check --report ";
  const fs::path heur = scratch_dir() / "heuristic.json", search = scratch_dir() / "search.json";
  const Result h = run_flycol("run --tiling heuristic " + layer + heur.string());
  const Result s = run_flycol("run " + layer + search.string());  // no --tiling: the search
  INFO(h.out << h.err << s.out << s.err);
  REQUIRE(h.code == 0);
  REQUIRE(s.code == 0);
  CHECK(s.out.find("bit-exact with the golden model") != std::string::npos);
  CHECK(s.out.find("(search)") != std::string::npos);
  const YAML::Node jh = YAML::LoadFile(heur.string()), js = YAML::LoadFile(search.string());
  CHECK(jh["tiling"].as<std::string>() == "heuristic");
  CHECK(js["tiling"].as<std::string>() == "search");
  CHECK(js["macs"].as<long long>() == jh["macs"].as<long long>());
  // The search times its candidates (the heuristic plan among them) with the analytic model,
  // which is within 0.2 % of the SystemC cycles.
  CHECK(js["cycles"].as<double>() <= jh["cycles"].as<double>() * 1.002);

  check_usage_error(scratch_dir(), "run --tiling search --order spill --layer C=4,H=6,W=6,K=4,k=3", {"--order"});
  // --order alone means the default search with an order: refused, naming the fix.
  check_usage_error(scratch_dir(), "run --order spill --layer C=4,H=6,W=6,K=4,k=3", {"--order", "--tiling heuristic"});
  const Result order_heur = run_flycol("run --model analytic --tiling heuristic --order spill --layer C=4,H=6,W=6,K=4,k=3");
  CHECK(order_heur.code == 0);
  const Result bad = run_flycol("run --tiling best --layer C=4,H=6,W=6,K=4,k=3");
  CHECK(bad.code != 0);
  CHECK(bad.err.find("--tiling") != std::string::npos);
}

TEST_CASE("run --structural and --rtl-blocks: the structural top equals the fast model", "[cli]") {
  const std::string layer = " --layer C=20,H=9,W=11,K=12,k=3,s=2,p=1 --config small --dram-seed 5 --check --report ";
  const fs::path fast = scratch_dir() / "fast.json", st = scratch_dir() / "structural.json",
                 rtl = scratch_dir() / "rtl_blocks.json";
  const Result f = run_flycol("run" + layer + fast.string());
  const Result s = run_flycol("run --structural" + layer + st.string());
  INFO(f.out << f.err << s.out << s.err);
  REQUIRE(f.code == 0);
  REQUIRE(s.code == 0);
  CHECK(s.out.find("structural top") != std::string::npos);
  CHECK(s.out.find("equal to the fast model's") != std::string::npos);
  const YAML::Node jf = YAML::LoadFile(fast.string()), js = YAML::LoadFile(st.string());
  CHECK(!jf["view"].IsDefined());  // the fast model's report is unchanged
  CHECK(js["view"].as<std::string>() == "structural");
  CHECK(js["cycles"].as<long long>() == jf["cycles"].as<long long>());
  CHECK(js["output"]["checksum"].as<std::string>() == jf["output"]["checksum"].as<std::string>());
  CHECK(js["check"]["fast_model_cycles"].as<long long>() == jf["cycles"].as<long long>());
  CHECK(js["check"]["same_as_fast_model"].as<bool>());
  CHECK(js["rtl_blocks"].size() == 0);

  const Result r = run_flycol("run --rtl-blocks feeder,psum_manager" + layer + rtl.string());
  INFO(r.out << r.err);
  if (r.err.find("FLYCOL_BUILD_RTL=OFF") != std::string::npos) {  // the sanitizer build
    WARN("this build holds no block RTL: " << r.err);
  } else {
    REQUIRE(r.code == 0);
    const YAML::Node jr = YAML::LoadFile(rtl.string());
    CHECK(jr["view"].as<std::string>() == "structural");
    CHECK(jr["rtl_blocks"].size() == 2);
    CHECK(jr["cycles"].as<long long>() == jf["cycles"].as<long long>());
    CHECK(jr["check"]["same_as_fast_model"].as<bool>());
  }

  // The known names are listed.
  check_usage_error(scratch_dir(), "run --rtl-blocks feeder,nosuch --layer C=4,H=6,W=6,K=4,k=3 --config small",
                    {"nosuch", "psum_manager"});
  check_usage_error(scratch_dir(), "run --model analytic --structural --layer C=4,H=6,W=6,K=4,k=3", {"--structural"});
}

TEST_CASE("run --model sc --trace writes a VCD of the top-level signals", "[cli]") {
  const fs::path vcd = scratch_dir() / "run.vcd";
  fs::remove(vcd);
  const Result r = run_flycol("run --layer C=4,H=6,W=6,K=4,k=3,p=1 --trace " + vcd.string());
  REQUIRE(r.code == 0);
  const std::string text = slurp(vcd);
  CHECK(text.find("$var") != std::string::npos);
  CHECK(text.find("mem_req_valid") != std::string::npos);
  CHECK(text.find("token_swap") != std::string::npos);
}

TEST_CASE("run --structural --trace writes a VCD of the structural top, commands included", "[cli]") {
  const fs::path vcd = scratch_dir() / "structural.vcd";
  fs::remove(vcd);
  const Result r = run_flycol("run --structural --layer C=4,H=6,W=6,K=4,k=3,p=1 --trace " + vcd.string());
  REQUIRE(r.code == 0);
  const std::string text = slurp(vcd);
  CHECK(text.find("ifmap0_addr") != std::string::npos);
  CHECK(text.find("$scope module cmd $end") != std::string::npos);  // the command, field by field
  CHECK(text.find(" n_kx ") != std::string::npos);
  CHECK(text.find("cycle_kind") != std::string::npos);
}

TEST_CASE("a layer the configuration cannot run is rejected naming the key", "[cli]") {
  check_usage_error(scratch_dir(), "run --layer C=4,H=8,W=100,K=4,ky=1,kx=3,dy=1,dx=40 --check",
                    {"feeder.pattern_bits"});
}

TEST_CASE("the same seed gives the same checksum, another seed a different one", "[cli]") {
  auto sum = [](const std::string& seed) {
    const Result r = run_flycol("run --layer C=4,H=10,W=10,K=4,k=3 --seed " + seed);
    const auto pos = r.out.find("checksum");
    return r.out.substr(pos, 40);
  };
  CHECK(sum("1") == sum("1"));
  CHECK(sum("1") != sum("2"));
}

TEST_CASE("bad input exits non-zero and names the key", "[cli]") {
  const fs::path d = scratch_dir();
  {
    std::ofstream(d / "bad.yaml") << "array:\n  rows: 0\n";
    check_usage_error(d, "run --config " + (d / "bad.yaml").string(), {"array.rows", "bad.yaml"});
  }
  check_usage_error(scratch_dir(), "run --layer C=3,H=8,W=8,K=2,k=3,d=0", {"'d'", "--layer"});
  check_usage_error(scratch_dir(), "run --model nosuch", {"nosuch"});
  check_usage_error(scratch_dir(), "run --no-such-option", {});
}

TEST_CASE("a failed run leaves no report behind", "[cli]") {
  const fs::path rep = scratch_dir() / "never.json";
  fs::remove(rep);
  const Result r = run_flycol("run --layer C=3,H=2,W=2,K=2,k=5 --report " + rep.string());
  CHECK(r.code == 2);
  CHECK_FALSE(fs::exists(rep));
}

TEST_CASE("synth rejects an unknown configuration before running Yosys; list works", "[cli]") {
  check_usage_error(scratch_dir(), "synth --config no_such_config_xyz", {"no_such_config_xyz"});
  const Result l = run_flycol("list");
  CHECK(l.code == 0);
  CHECK(l.out.find("fornt16") != std::string::npos);
  CHECK(l.out.find("golden") != std::string::npos);
}

namespace {

// `flycol list` output by section ("configurations", "networks", ...): the indented lines under
// each unindented header, and the first word of each.
std::map<std::string, std::vector<std::string>> list_sections(const std::string& out) {
  std::map<std::string, std::vector<std::string>> s;
  std::string current;
  std::istringstream in(out);
  for (std::string line; std::getline(in, line);) {
    if (line.empty()) continue;
    if (line[0] != ' ') {
      current = line.substr(0, line.find_first_of(" :"));
      s[current];
    } else {
      s[current].push_back(line);
    }
  }
  return s;
}

std::vector<std::string> first_words(const std::vector<std::string>& lines) {
  std::vector<std::string> w;
  for (const auto& l : lines) {
    std::istringstream in(l);
    std::string first;
    in >> first;
    w.push_back(first);
  }
  return w;
}

// The *.yaml file names (without .yaml) of a directory of the source tree, sorted.
std::vector<std::string> yaml_stems(const fs::path& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().extension() == ".yaml") out.push_back(e.path().stem().string());
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

TEST_CASE("list shows every configuration once, the networks and the sweeps it finds", "[cli]") {
  const Result r = run_flycol("list");
  INFO(r.out << r.err);
  REQUIRE(r.code == 0);
  CHECK(r.out.find("INVALID") == std::string::npos);
  const auto s = list_sections(r.out);
  const fs::path configs = fs::path(FLYCOL_TEST_SOURCE_DIR) / "configs";
  // Each file of configs/ on exactly one line, nothing else; the built-in default marked once.
  std::vector<std::string> names = first_words(s.at("configurations"));
  std::sort(names.begin(), names.end());
  CHECK(names == yaml_stems(configs));
  CHECK(std::count_if(s.at("configurations").begin(), s.at("configurations").end(), [](const std::string& l) {
          return l.find("built-in default") != std::string::npos;
        }) == 1);
  CHECK(first_words(s.at("networks")) == yaml_stems(configs / "networks"));
  CHECK(first_words(s.at("sweeps")) == yaml_stems(configs / "sweeps"));
  for (const char* section : {"models", "arithmetic"}) CHECK(s.count(section) == 1);
}

TEST_CASE("list without the built-in default's file shows the built-in once and says what it lacks", "[cli]") {
  const fs::path d = scratch_dir() / "list_configs";
  fs::remove_all(d);
  fs::create_directories(d / "networks");
  std::ofstream(d / "tiny.yaml") << "name: tiny\n";
  std::ofstream(d / "broken.yaml") << "array:\n  rows: 0\n";
  const Result r = flycol::test::run_flycol_in(scratch_dir(), "list", "FLYCOL_CONFIG_DIR=" + d.string());
  INFO(r.out << r.err);
  REQUIRE(r.code == 0);
  const auto s = list_sections(r.out);
  CHECK(first_words(s.at("configurations")) == std::vector<std::string>{"fornt16", "broken", "tiny"});
  CHECK(s.at("configurations")[0].find("built-in default") != std::string::npos);
  CHECK(s.at("configurations")[1].find("INVALID") != std::string::npos);
  CHECK(s.at("configurations")[1].find("array.rows") != std::string::npos);
  CHECK(first_words(s.at("networks")) == std::vector<std::string>{"none"});
  CHECK(first_words(s.at("sweeps")) == std::vector<std::string>{"none"});
}

TEST_CASE("run --op pools on the pooling unit: the chip report, bit-exact with the golden pooling", "[cli][pool]") {
  // The SystemC model (the default model) and the analytic model on the same layer: the same
  // program, the same cycle classes within the analytic model's tolerance, the chip's output equal
  // to the golden pooling bit for bit.
  const fs::path sc = scratch_dir() / "pool_sc.json", an = scratch_dir() / "pool_an.json";
  const std::string layer = "--layer N=1,C=20,H=17,W=21,k=3,s=2,p=1,ceil=1 --operands specials --seed 4";
  const Result r = run_flycol("run --op maxpool " + layer + " --report " + sc.string());
  INFO(r.out << r.err);
  REQUIRE(r.code == 0);
  CHECK(r.out.find("bit-exact with the golden pooling") != std::string::npos);
  const YAML::Node j = YAML::LoadFile(sc.string());
  CHECK(j["model"].as<std::string>() == "sc");
  CHECK(j["check"]["golden_bit_exact"].as<bool>());
  CHECK(j["check"]["mismatches"].as<int>() == 0);
  CHECK(j["program"]["runs"].as<int>() >= 1);
  CHECK(j["stats"]["pool_cycles"].as<std::uint64_t>() > 0);
  CHECK(j["stats"]["mac_cycles"].as<std::uint64_t>() == 0);
  const std::uint64_t cycles = j["cycles"].as<std::uint64_t>();
  CHECK(cycles > j["stats"]["pool_cycles"].as<std::uint64_t>());
  const Result a = run_flycol("run --op maxpool --model analytic " + layer + " --report " + an.string());
  INFO(a.out << a.err);
  REQUIRE(a.code == 0);
  const YAML::Node ja = YAML::LoadFile(an.string());
  CHECK(ja["stats"]["pool_cycles"].as<std::uint64_t>() == j["stats"]["pool_cycles"].as<std::uint64_t>());
  CHECK(double(ja["cycles"].as<std::uint64_t>()) == Approx(double(cycles)).epsilon(0.05));
  // Average pooling with count_include_pad on the int8 configuration.
  const Result i8 = run_flycol("run --op avgpool --config int8 --layer N=2,C=5,H=9,W=7,k=3,s=2,p=1,include_pad=1");
  INFO(i8.out << i8.err);
  CHECK(i8.code == 0);
  CHECK(i8.out.find("bit-exact with the golden pooling") != std::string::npos);
}

TEST_CASE("run --op pools on the golden model and refuses what does not apply", "[cli][pool]") {
  // Every pooling op, with the options that matter; the report has the documented keys.
  const fs::path rep = scratch_dir() / "pool.json";
  const Result r = run_flycol("run --op avgpool --model golden --layer N=2,C=3,H=9,W=10,k=3,s=2,p=1,ceil=1,include_pad=1 "
                              "--operands normal --seed 3 --report " + rep.string());
  INFO(r.out << r.err);
  REQUIRE(r.code == 0);
  const YAML::Node j = YAML::LoadFile(rep.string());
  CHECK(j["op"].as<std::string>() == "avgpool");
  CHECK(j["layer"]["Ho"].as<int>() == 5);
  CHECK(j["layer"]["Wo"].as<int>() == 6);  // ceil_mode: (10 + 2 - 3) / 2 rounded up, + 1
  CHECK(j["layer"]["count_include_pad"].as<bool>());
  CHECK(j["output"]["shape"][1].as<int>() == 3);
  CHECK(j["check"]["max_abs_err"].as<double>() < 1e-3);
  for (const char* spec : {"--op maxpool --layer C=4,H=7,W=5,ky=2,kx=3,sy=1,sx=2,d=2,pt=1,pb=0,pl=2,pr=1",
                           "--op globalmaxpool --layer N=3,C=2,H=300,W=7", "--op globalavgpool --layer C=5,H=8,W=8"}) {
    const Result g = run_flycol(std::string("run --model golden ") + spec);
    INFO(spec << "\n" << g.out << g.err);
    CHECK(g.code == 0);
  }
  // What the pooling unit cannot run is refused by key; options of convolutions by name.
  check_usage_error(scratch_dir(), "run --op avgpool --model sc --layer C=3,H=8,W=8,k=2,d=2", {"--layer", "'d'", "no dilation"});
  check_usage_error(scratch_dir(), "run --op maxpool --model analytic --layer C=1,H=8,W=100,ky=1,kx=5,dy=1,dx=20",
                    {"feeder.pattern_bits", "81 columns"});
  check_usage_error(scratch_dir(), "run --op maxpool --model verilog --layer C=3,H=8,W=8,k=2", {"--model", "golden, analytic"});
  check_usage_error(scratch_dir(), "run --op maxpool --model golden --layer C=3,H=8,W=8,K=3,k=2", {"'K'", "keeps the channels"});
  check_usage_error(scratch_dir(), "run --op maxpool --model golden --layer C=3,H=8,W=8,k=2,include_pad=1",
                    {"include_pad", "avgpool only"});
  check_usage_error(scratch_dir(), "run --op avgpool --model golden --layer C=3,H=8,W=8,k=2,ceil=2", {"ceil", "0 or 1"});
  check_usage_error(scratch_dir(), "run --op globalavgpool --model golden --layer C=3,H=8,W=8,s=2", {"'s'", "only N, C, H, W"});
  check_usage_error(scratch_dir(), "run --op maxpool --model golden --layer C=3,H=2,W=8,k=5", {"'H'"});
  check_usage_error(scratch_dir(), "run --op maxpool --model golden", {"--layer", "needs the layer"});
  check_usage_error(scratch_dir(), "run --op maxpool --model golden --layer C=3,H=8,W=8,k=2 --zeros 0.5", {"--zeros", "pooling"});
  check_usage_error(scratch_dir(), "run --op maxpool --model golden --layer C=3,H=8,W=8,k=2 --expect e.npy",
                    {"--expect", "--ifmap"});
  check_usage_error(scratch_dir(), "run --op minpool --model golden --layer C=3,H=8,W=8,k=2", {"--op", "maxpool"});
}

namespace {

// A float32 [1][1][h][w] .npy written byte by byte (version 1.0), independent of flycol's writer.
void write_f32_npy(const fs::path& p, int h, int w, const std::vector<float>& v) {
  std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 1, " + std::to_string(h) + ", " +
                       std::to_string(w) + "), }";
  while ((10 + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  std::ofstream f(p, std::ios::binary);
  f.write("\x93NUMPY\x01\x00", 8);
  const std::uint16_t len = std::uint16_t(header.size());
  f.put(char(len & 0xFF));
  f.put(char(len >> 8));
  f << header;
  f.write(reinterpret_cast<const char*>(v.data()), std::streamsize(v.size() * sizeof(float)));
}

}  // namespace

TEST_CASE("run --op on a tensor: --expect passes within the bound and fails outside it", "[cli][pool]") {
  const fs::path d = scratch_dir();
  // x = 0.1 * (0..15) on 4 x 4; 2 x 2 max pooling, stride 2: 0.5, 0.7, 1.3, 1.5.
  std::vector<float> x(16);
  for (int i = 0; i < 16; ++i) x[std::size_t(i)] = 0.1f * float(i);
  write_f32_npy(d / "x.npy", 4, 4, x);
  write_f32_npy(d / "max.npy", 2, 2, {0.5f, 0.7f, 1.3f, 1.5f});
  write_f32_npy(d / "avg.npy", 2, 2, {0.25f, 0.45f, 1.05f, 1.25f});
  const Result ok = run_flycol("run --op maxpool --model golden --ifmap " + (d / "x.npy").string() +
                               " --layer k=2,s=2 --expect " + (d / "max.npy").string() + " --ofmap " +
                               (d / "y.npy").string() + " --check");
  INFO(ok.out << ok.err);
  CHECK(ok.code == 0);
  CHECK(fs::exists(d / "y.npy"));
  const Result avg = run_flycol("run --op avgpool --model golden --ifmap " + (d / "x.npy").string() +
                                " --layer k=2,s=2 --expect " + (d / "avg.npy").string() + " --check");
  INFO(avg.out << avg.err);
  CHECK(avg.code == 0);
  // The average's expected values against max pooling: outside the bound, exit 1, no --ofmap.
  const Result bad = run_flycol("run --op maxpool --model golden --ifmap " + (d / "x.npy").string() +
                                " --layer k=2,s=2 --expect " + (d / "avg.npy").string() + " --ofmap " +
                                (d / "bad.npy").string() + " --check");
  INFO(bad.out << bad.err);
  CHECK(bad.code == 1);
  CHECK(bad.out.find("OUTSIDE THE BOUND") != std::string::npos);
  CHECK_FALSE(fs::exists(d / "bad.npy"));
  // The tensor's shape must agree with --layer.
  check_usage_error(d, "run --op maxpool --model golden --ifmap " + (d / "x.npy").string() + " --layer C=2,k=2",
                    {"'C'", "disagrees", "--ifmap"});
}

TEST_CASE("run --op --backward: dx of average and max pooling on the chip and on the golden model, "
          "against hand-computed gradients",
          "[cli][pool]") {
  const fs::path d = scratch_dir();
  std::vector<float> x(16);
  for (int i = 0; i < 16; ++i) x[std::size_t(i)] = 0.1f * float(i);
  write_f32_npy(d / "x.npy", 4, 4, x);
  write_f32_npy(d / "dy.npy", 2, 2, {1.0f, 2.0f, 3.0f, 4.0f});
  // 2 x 2 average pooling, stride 2: each input receives its window's gradient / 4.
  write_f32_npy(d / "dx_avg.npy", 4, 4,
                {0.25f, 0.25f, 0.5f, 0.5f, 0.25f, 0.25f, 0.5f, 0.5f, 0.75f, 0.75f, 1.0f, 1.0f, 0.75f, 0.75f, 1.0f, 1.0f});
  const fs::path rep = d / "bwd.json";
  const Result avg = run_flycol("run --op avgpool --backward --model sc --layer N=1,C=1,H=4,W=4,k=2,s=2 --grad " +
                                (d / "dy.npy").string() + " --expect " + (d / "dx_avg.npy").string() + " --ofmap " +
                                (d / "dx.npy").string() + " --report " + rep.string() + " --check");
  INFO(avg.out << avg.err);
  CHECK(avg.code == 0);
  CHECK(avg.out.find("bit-exact with the golden pooling's backward pass") != std::string::npos);
  CHECK(fs::exists(d / "dx.npy"));
  const YAML::Node j = YAML::LoadFile(rep.string());
  CHECK(j["backward"].as<bool>());
  CHECK(j["output"]["shape"][2].as<int>() == 4);
  CHECK(j["expect"]["outside_bound"].as<int>() == 0);
  CHECK(j["stats"]["pool_cycles"].as<std::uint64_t>() > 0);
  // 3 x 3 windows, stride 1, padding 1, count_include_pad, dy all ones: a corner receives 4 shares
  // of 1/9, an edge 6, the centre 9 (the overlapping windows' gather).
  write_f32_npy(d / "ones.npy", 3, 3, std::vector<float>(9, 1.0f));
  const float c = 4.0f / 9, e = 6.0f / 9;
  write_f32_npy(d / "dx_overlap.npy", 3, 3, {c, e, c, e, 1.0f, e, c, e, c});
  const Result overlap = run_flycol("run --op avgpool --backward --model sc --layer N=1,C=1,H=3,W=3,k=3,s=1,p=1,include_pad=1 "
                                    "--grad " + (d / "ones.npy").string() + " --expect " +
                                    (d / "dx_overlap.npy").string() + " --check");
  INFO(overlap.out << overlap.err);
  CHECK(overlap.code == 0);
  // 2 x 2 max pooling, stride 2, on the golden model and on the chip: the gradient goes to each
  // block's largest input, its bottom-right element.
  write_f32_npy(d / "dx_max.npy", 4, 4, {0, 0, 0, 0, 0, 1, 0, 2, 0, 0, 0, 0, 0, 3, 0, 4});
  for (const char* model : {"golden", "sc"}) {
    const Result max = run_flycol(std::string("run --op maxpool --backward --model ") + model + " --ifmap " +
                                  (d / "x.npy").string() + " --layer k=2,s=2 --grad " + (d / "dy.npy").string() +
                                  " --expect " + (d / "dx_max.npy").string() + " --check");
    INFO(model << ": " << max.out << max.err);
    CHECK(max.code == 0);
  }
  // 3 x 3 max pooling, stride 2, padding 1 (microarchitecture section 16, "Backward of max
  // pooling"): the top-left window holds only -Inf besides its padding, so its gradient goes to its
  // first real element, (0, 0), not to the padding that comes before it with the same value; the
  // bottom-right window's 0.6 ties three times and the first, (2, 1), takes it.
  const float ninf = -std::numeric_limits<float>::infinity();
  write_f32_npy(d / "x_ties.npy", 4, 4,
                {ninf, ninf, 0.5f, 0.2f, ninf, ninf, 0.1f, 0.3f, 0.4f, 0.6f, 0.6f, 0.0f, 0.7f, 0.1f, 0.2f, 0.6f});
  write_f32_npy(d / "dx_ties.npy", 4, 4, {1, 0, 2, 0, 0, 0, 0, 0, 0, 4, 0, 0, 3, 0, 0, 0});
  for (const char* model : {"golden", "sc"}) {
    const Result ties = run_flycol(std::string("run --op maxpool --backward --model ") + model + " --ifmap " +
                                   (d / "x_ties.npy").string() + " --layer k=3,s=2,p=1 --grad " +
                                   (d / "dy.npy").string() + " --expect " + (d / "dx_ties.npy").string() + " --check");
    INFO(model << ": " << ties.out << ties.err);
    CHECK(ties.code == 0);
  }
  // The wrong gradient is outside the bound.
  const Result bad = run_flycol("run --op avgpool --backward --model sc --layer N=1,C=1,H=4,W=4,k=2,s=2 --grad " +
                                (d / "dy.npy").string() + " --expect " + (d / "dx_max.npy").string() + " --check");
  CHECK(bad.code == 1);
  CHECK(bad.out.find("OUTSIDE THE BOUND") != std::string::npos);
  // What does not run on chip, and misuse, is refused with the reason.
  check_usage_error(d, "run --op maxpool --backward --model sc --layer C=3,H=8,W=8,k=2,d=2", {"'d'", "dilated"});
  check_usage_error(d, "run --op avgpool --backward --model sc --config int8 --layer C=3,H=8,W=8,k=2",
                    {"arithmetic", "as wide as elements"});
  check_usage_error(d, "run --op avgpool --model golden --layer C=1,H=4,W=4,k=2,s=2 --grad " + (d / "dy.npy").string(),
                    {"--grad", "--backward"});
  check_usage_error(d, "run --backward --model golden --layer C=3,H=8,W=8,K=3,k=3", {"--backward", "pooling"});
  check_usage_error(d, "run --op avgpool --backward --model golden --layer N=1,C=1,H=6,W=6,k=2,s=2 --grad " +
                           (d / "dy.npy").string(),
                    {"dy.npy", "[N][C][Ho][Wo]"});
}
