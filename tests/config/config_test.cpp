// Tests of configuration loading: the built-in default against configs/fornt16.yaml and the
// brief's reference table, round trips of every shipped file, name lookup, strict scalars, and
// every deliberately bad file in configs/bad/ against the error its header promises.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "sim/config/config.h"
#include "sim/config/config_keys.h"
#include "sim/config/layer.h"
#include "sim/config/yaml_guard.h"
#include "tests/common/small_config_text.h"
#include "tests/common/test_util.h"

using flycol::Config;
using flycol::InputError;
using flycol::test::input_error_of;
using flycol::test::repo_path;
using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;

using flycol::test::slurp;

namespace {

// Sets an environment variable for one scope.
class ScopedEnv {
public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old, had_ = true;
    ::setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (had_) ::setenv(name_, old_.c_str(), 1);
    else ::unsetenv(name_);
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

private:
  const char* name_;
  std::string old_;
  bool had_ = false;
};

// Collects the key paths of a YAML tree ("sram.ifmap.kbytes").
void key_paths(const YAML::Node& n, const std::string& prefix, std::vector<std::string>& out) {
  if (!n.IsMap()) {
    out.push_back(prefix);
    return;
  }
  for (const auto& kv : n) key_paths(kv.second, flycol::join_key(prefix, kv.first.Scalar()), out);
}

}  // namespace

TEST_CASE("built-in default is configs/fornt16.yaml", "[config]") {
  const std::string file = repo_path("configs/fornt16.yaml");
  CHECK(flycol::default_config_yaml() == slurp(file));
  CHECK(flycol::default_config() == flycol::load_config(file));
  CHECK(flycol::default_config() == flycol::parse_config(flycol::default_config_yaml(), "text"));
  CHECK(flycol::default_config().source == "built-in");
  CHECK(flycol::load_config(file).source == file);
}

TEST_CASE("fornt16.yaml sets every key, so the file alone defines the default", "[config]") {
  std::vector<std::string> in_file, all_keys;
  key_paths(flycol::load_yaml_file(repo_path("configs/fornt16.yaml")), "", in_file);
  key_paths(flycol::load_yaml(flycol::to_yaml(flycol::default_config()), "to_yaml"), "", all_keys);
  std::sort(in_file.begin(), in_file.end());
  std::sort(all_keys.begin(), all_keys.end());
  CHECK(in_file == all_keys);
  CHECK(all_keys.size() == 28);
}

TEST_CASE("the default holds every value of the brief's reference table", "[config]") {
  const Config& c = flycol::default_config();
  CHECK(c.name == "fornt16");
  // 16 x 16 output-stationary PEs
  CHECK(c.array.rows == 16);
  CHECK(c.array.cols == 16);
  CHECK(c.pes() == 256);
  // IEEE binary16 FMA with FP16 accumulation; zero-detection gating
  CHECK(c.arithmetic == flycol::Arithmetic::fp16);
  CHECK(c.elem_bits() == 16);
  CHECK(c.acc_bits() == 16);
  CHECK(c.zero_gating);
  // the paper's zero detection sits before the multiplier: operand isolation (docs/microarchitecture.md 9.5)
  CHECK(c.operand_isolation);
  // ifmap, weights, psums: each 2 x 32 kB, 256-bit word (16 elements)
  for (const flycol::SramConfig* s : {&c.ifmap, &c.weights, &c.psums}) {
    CHECK(s->kbytes == 32);
    CHECK(s->buffers == 2);
    CHECK(s->word_bits == 256);
    CHECK(s->words() == 1024);
  }
  CHECK(c.bus_elems() == 16);
  // 5 index counters, 64-bit kernel pattern, M = 3; dilation up to 31 for 3x3
  CHECK(c.feeder.index_counters == 5);
  CHECK(c.feeder.pattern_bits == 64);
  CHECK(c.feeder.intermediate_regs == 3);
  CHECK(c.feeder.fifo_depth >= 1);
  CHECK(c.max_dilation(3) == 31);
  CHECK(c.pattern_limit() == 64);
  // 555 MHz: peak 284 GFLOP/s
  CHECK(c.clock_mhz == 555.0);
  CHECK(c.peak_gflops() == Approx(284.16));
  // LPDDR3, 32 bit at 800 MHz: 6.4 GB/s, about 120 pJ/byte
  CHECK(c.dram.type == "lpddr3");
  CHECK(c.dram.bus_bits == 32);
  CHECK(c.dram.mhz == 800.0);
  CHECK(c.dram.transfers_per_clock == 2);
  CHECK(c.dram.bandwidth_gbps() == Approx(6.4));
  CHECK(c.dram.energy_pj_per_byte == 120.0);
  CHECK(c.dram_bytes_per_cycle() == Approx(6.4e3 / 555.0));
  CHECK(c.dram_latency_cycles() == 28);  // ceil(50 ns x 555 MHz)
}

TEST_CASE("arithmetic registry", "[config]") {
  CHECK(flycol::arithmetic_names() == std::vector<std::string>{"fp16", "int8", "int16"});
  CHECK(flycol::arithmetic_info(flycol::Arithmetic::fp16).elem_bits == 16);
  CHECK(flycol::arithmetic_info(flycol::Arithmetic::fp16).acc_bits == 16);
  CHECK(flycol::arithmetic_info(flycol::Arithmetic::int8).elem_bits == 8);
  CHECK(flycol::arithmetic_info(flycol::Arithmetic::int8).acc_bits == 32);
  CHECK(flycol::arithmetic_info(flycol::Arithmetic::int16).elem_bits == 16);
  CHECK(flycol::arithmetic_info(flycol::Arithmetic::int16).acc_bits == 32);
  CHECK(std::string(flycol::arithmetic_info(flycol::Arithmetic::int16).name) == "int16");
}

TEST_CASE("shipped configurations load and keep what they do not set", "[config]") {
  const Config int8 = flycol::load_config_by_name_or_path("int8");
  CHECK(int8.name == "int8");
  CHECK(int8.arithmetic == flycol::Arithmetic::int8);
  CHECK(int8.weights.word_bits == 128);
  CHECK(int8.psums.word_bits == 512);
  CHECK(int8.ifmap.word_bits == 256);
  CHECK(int8.bus_elems() == 32);
  CHECK(int8.clock_mhz == 555.0);
  CHECK(int8.array.rows == 16);

  const Config int16 = flycol::load_config_by_name_or_path("int16");
  CHECK(int16.arithmetic == flycol::Arithmetic::int16);
  CHECK(int16.psums.word_bits == 512);
  CHECK(int16.weights.word_bits == 256);
  CHECK(int16.bus_elems() == 16);

  const Config small = flycol::load_config_by_name_or_path("small");
  CHECK(small.array.rows == 4);
  CHECK(small.array.cols == 4);
  CHECK(small.arithmetic == flycol::Arithmetic::fp16);
  for (const flycol::SramConfig* s : {&small.ifmap, &small.weights, &small.psums}) {
    CHECK(s->kbytes == 2);
    CHECK(s->word_bits == 64);
  }
  CHECK(small.bus_elems() == 4);
  CHECK(small.feeder.pattern_bits == 32);
  CHECK(small.feeder.intermediate_regs == 2);
  CHECK(small.feeder.fifo_depth == 4);
  CHECK(small.max_dilation(3) == 15);
}

TEST_CASE("to_yaml round-trips every shipped configuration", "[config]") {
  const auto files = flycol::list_config_files();
  REQUIRE(files.size() >= 4);
  for (const auto& f : files) {
    INFO(f);
    const Config c = flycol::load_config(f);
    const std::string yaml = flycol::to_yaml(c);
    CHECK(flycol::parse_config(yaml, "round trip") == c);
    CHECK(flycol::to_yaml(flycol::parse_config(yaml, "round trip")) == yaml);
  }
  // Same layout as the shipped file: the built-in default renders its own values in its own order.
  const std::string yaml = flycol::to_yaml(flycol::default_config());
  CHECK_THAT(yaml, Contains("  ifmap:   { kbytes: 32, buffers: 2, word_bits: 256 }\n"));
  CHECK_THAT(yaml, Contains("clock:\n  mhz: 555\n"));
  CHECK_THAT(yaml, Contains("  energy_pj_per_byte: 120\n"));
}

TEST_CASE("to_yaml round-trips awkward names and fractional values", "[config]") {
  Config c = flycol::default_config();
  for (const char* name : {"-", "---", "...", ".x", "-1", "null", "NULL", "true", "123", "1e3", "a.b-c_d"}) {
    c.name = name;
    c.clock_mhz = 0.1;
    c.dram.mhz = 1e-5;
    c.dram.latency_ns = 33.333333333333336;
    c.dram.energy_pj_per_byte = 0;
    INFO(name);
    CHECK(flycol::parse_config(flycol::to_yaml(c), "round trip") == c);
  }
}

TEST_CASE("partial files and empty files keep the default's values", "[config]") {
  CHECK(flycol::parse_config("", "empty") == flycol::default_config());
  CHECK(flycol::parse_config("# only a comment\n", "comment") == flycol::default_config());
  const Config c = flycol::parse_config("clock: { mhz: 500.5 }\nsram:\n  ifmap:\n    kbytes: 64\n", "partial");
  CHECK(c.clock_mhz == 500.5);
  CHECK(c.ifmap.kbytes == 64);
  CHECK(c.ifmap.word_bits == 256);
  CHECK(c.weights.kbytes == 32);
  CHECK(c.name == "fornt16");
  CHECK(c.source == "partial");
}

TEST_CASE("derived values", "[config]") {
  const Config c = flycol::parse_config(
      "clock: { mhz: 1000 }\ndram: { bus_bits: 64, mhz: 1600, transfers_per_clock: 2, latency_ns: 30 }\n", "t");
  CHECK(c.dram.bandwidth_gbps() == Approx(25.6));
  CHECK(c.dram_bytes_per_cycle() == Approx(25.6));
  CHECK(c.dram_latency_cycles() == 30);
  CHECK(c.peak_gflops() == Approx(512.0));
  CHECK(c.max_dilation(1) == 64);
  CHECK(c.max_dilation(5) == 15);  // (5 - 1) * 15 + 1 = 61 <= 64
  CHECK(flycol::parse_config("dram: { latency_ns: 0 }", "t").dram_latency_cycles() == 0);
  CHECK(flycol::parse_config("dram: { latency_ns: 1 }", "t").dram_latency_cycles() == 1);
}

TEST_CASE("the tests' built-in copy of small.yaml is the shipped file", "[config]") {
  // tests/compiler and the command-stream fuzz harness use the copy when they run without files.
  CHECK(flycol::parse_config(flycol::test::kSmallConfigText, "copy") == flycol::load_config(repo_path("configs/small.yaml")));
}

TEST_CASE("configuration names and paths", "[config]") {
  SECTION("names resolve in configs_dir()") {
    CHECK(flycol::configs_dir() == repo_path("configs"));
    const auto files = flycol::list_config_files();
    CHECK(std::is_sorted(files.begin(), files.end()));
    CHECK(std::find(files.begin(), files.end(), repo_path("configs/fornt16.yaml")) != files.end());
    CHECK(std::find(files.begin(), files.end(), repo_path("configs/small.yaml")) != files.end());
    for (const auto& f : files) CHECK(std::filesystem::path(f).extension() == ".yaml");
    CHECK(flycol::load_config_by_name_or_path("fornt16") == flycol::default_config());
    CHECK(flycol::load_config_by_name_or_path("small").source == repo_path("configs/small.yaml"));
  }
  SECTION("paths are used as paths") {
    const std::string path = repo_path("configs/int8.yaml");
    CHECK(flycol::load_config_by_name_or_path(path).source == path);
    const InputError e = input_error_of([] { flycol::load_config_by_name_or_path("no/such/file.yaml"); });
    CHECK(e.source() == "no/such/file.yaml");
    CHECK_THAT(e.problem(), Contains("cannot read file"));
  }
  SECTION("an unknown name lists the known ones") {
    const InputError e = input_error_of([] { flycol::load_config_by_name_or_path("fornt32"); });
    CHECK(e.source() == "fornt32");
    CHECK_THAT(e.problem(), Contains("known: fornt16, int16, int8, small"));
    CHECK_THAT(e.problem(), Contains(flycol::configs_dir()));
  }
  SECTION("FLYCOL_CONFIG_DIR overrides the directory; fornt16 stays available") {
    const std::string dir = repo_path("configs/layers");
    ScopedEnv env("FLYCOL_CONFIG_DIR", dir);
    CHECK(flycol::configs_dir() == dir);
    const auto files = flycol::list_config_files();
    CHECK(std::find(files.begin(), files.end(), dir + "/dilated.yaml") != files.end());
    CHECK(flycol::load_config_by_name_or_path("fornt16") == flycol::default_config());
    const InputError e = input_error_of([] { flycol::load_config_by_name_or_path("small"); });
    CHECK_THAT(e.problem(), Contains("dilated"));
  }
  SECTION("a missing directory lists nothing") {
    ScopedEnv env("FLYCOL_CONFIG_DIR", repo_path("no-such-dir"));
    CHECK(flycol::list_config_files().empty());
    CHECK_THAT(input_error_of([] { flycol::load_config_by_name_or_path("small"); }).problem(),
               Contains("known: none"));
  }
}

TEST_CASE("scalars are parsed strictly", "[config]") {
  const auto problem = [](const std::string& yaml) {
    return input_error_of([&] { flycol::parse_config(yaml, "t"); }).problem();
  };
  SECTION("integers") {
    CHECK(flycol::parse_config("feeder: { pattern_bits: 32 }", "t").feeder.pattern_bits == 32);
    CHECK(flycol::parse_config("feeder: { pattern_bits: 8 }", "t").feeder.pattern_bits == 8);
    for (const char* bad : {"32.5", "0x20", "1e1", "\"\"", "''", "true", "+32", "032", "32 bits", "~",
                            "[32]", "{ a: 32 }", "7", "65", "-32", "99999999999999999999999", "\"32\""}) {
      INFO(bad);
      const InputError e = input_error_of([&] {
        flycol::parse_config(std::string("feeder:\n  pattern_bits: ") + bad + "\n", "t");
      });
      CHECK(e.key() == "feeder.pattern_bits");
      CHECK_THAT(e.problem(), Contains(": must be an integer in [8, 64]"));
    }
    CHECK(problem("feeder: { pattern_bits: 32.5 }") == "= 32.5: must be an integer in [8, 64]");
    CHECK(problem("feeder: { pattern_bits: }") == "has no value: must be an integer in [8, 64]");
    CHECK(problem("feeder: { pattern_bits: \"\" }") == "is an empty string: must be an integer in [8, 64]");
    CHECK(problem("feeder: { pattern_bits: [1] }") == "is a sequence: must be an integer in [8, 64]");
  }
  SECTION("numbers") {
    CHECK(flycol::parse_config("clock: { mhz: 555.5 }", "t").clock_mhz == 555.5);
    CHECK(flycol::parse_config("clock: { mhz: 1e3 }", "t").clock_mhz == 1000.0);
    CHECK(flycol::parse_config("clock: { mhz: .5 }", "t").clock_mhz == 0.5);
    CHECK(flycol::parse_config("clock: { mhz: 5000 }", "t").clock_mhz == 5000.0);
    CHECK(flycol::parse_config("dram: { latency_ns: 0 }", "t").dram.latency_ns == 0.0);
    for (const char* bad : {"0", "-1", "5000.001", "0x10", ".inf", ".nan", "1e", "555MHz", "\"555\"", "", "true"}) {
      INFO(bad);
      const InputError e = input_error_of([&] { flycol::parse_config(std::string("clock: { mhz: ") + bad + " }", "t"); });
      CHECK(e.key() == "clock.mhz");
      CHECK_THAT(e.problem(), Contains(": must be a number in (0, 5000]"));
    }
    CHECK(problem("dram: { latency_ns: -1 }") == "= -1: must be a number in [0, 10000]");
    CHECK(problem("dram: { mhz: 10001 }") == "= 10001: must be a number in (0, 10000]");
  }
  SECTION("booleans") {
    CHECK_FALSE(flycol::parse_config("pe: { zero_gating: false }", "t").zero_gating);
    for (const char* bad : {"yes", "no", "on", "True", "FALSE", "1", "0", "\"true\"", ""}) {
      INFO(bad);
      const InputError e = input_error_of([&] { flycol::parse_config(std::string("pe: { zero_gating: ") + bad + " }", "t"); });
      CHECK(e.key() == "pe.zero_gating");
      CHECK_THAT(e.problem(), Contains("must be true or false"));
    }
    // Operand isolation: on by default, off available, a boolean like the others; it is independent of
    // zero gating (without gating it still holds the operands on idle steps), so every combination parses.
    CHECK(flycol::parse_config("name: t", "t").operand_isolation);
    CHECK_FALSE(flycol::parse_config("pe: { operand_isolation: false }", "t").operand_isolation);
    for (const bool gating : {false, true})
      for (const bool iso : {false, true}) {
        const flycol::Config c = flycol::parse_config(
            fmt::format("pe: {{ zero_gating: {}, operand_isolation: {} }}", gating, iso), "t");
        CHECK(c.zero_gating == gating);
        CHECK(c.operand_isolation == iso);
        CHECK(flycol::hardware_params(c).operand_isolation == iso);
      }
    // The test configuration that runs the PE without it in the RTL benches and the lockstep.
    CHECK_FALSE(flycol::load_config(repo_path("tests/data/configs/rect8x4.yaml")).operand_isolation);
    for (const char* bad : {"yes", "1", "\"false\"", ""}) {
      INFO(bad);
      const InputError e =
          input_error_of([&] { flycol::parse_config(std::string("pe: { operand_isolation: ") + bad + " }", "t"); });
      CHECK(e.key() == "pe.operand_isolation");
      CHECK_THAT(e.problem(), Contains("must be true or false"));
    }
  }
  SECTION("strings") {
    CHECK(flycol::parse_config("name: \"quoted\"", "t").name == "quoted");
    CHECK(flycol::parse_config("name: 1234", "t").name == "1234");
    CHECK(flycol::parse_config("arithmetic: 'int16'\nsram: { psums: { word_bits: 512 } }", "t").arithmetic ==
          flycol::Arithmetic::int16);
    CHECK_THAT(problem(std::string("name: ") + std::string(65, 'a')), Contains("must be a name of 1 to 64"));
    CHECK_THAT(problem("name: \"\""), Contains("is an empty string: must be a name"));
    CHECK_THAT(problem("name: { a: 1 }"), Contains("is a mapping: must be a name"));
    CHECK(problem("fornt16") == "the top level is a scalar (= fornt16): must be a mapping with keys name, array, "
                                "arithmetic, pe, sram, feeder, clock, dram, energy");
    CHECK_THAT(problem("dram: { type: LPDDR3 }"), Contains("= LPDDR3: must be one of lpddr3, lpddr4, ddr4, hbm2, custom"));
    for (const char* t : {"lpddr3", "lpddr4", "ddr4", "hbm2", "custom"})
      CHECK(flycol::parse_config(std::string("dram: { type: ") + t + " }", "t").dram.type == t);
  }
}

TEST_CASE("every range bound is enforced", "[config]") {
  struct Case {
    const char* yaml;
    const char* key;
    const char* allowed;
  };
  // Each key at both ends of its range: the bound itself loads, one step beyond is rejected.
  const Case cases[] = {
      {"array: {{ rows: {} }}", "array.rows", "[1, 64]"},
      {"array: {{ cols: {} }}", "array.cols", "[1, 64]"},
      {"sram: {{ ifmap: {{ kbytes: {} }} }}", "sram.ifmap.kbytes", "[1, 4096]"},
      {"sram: {{ weights: {{ kbytes: {} }} }}", "sram.weights.kbytes", "[1, 4096]"},
      {"sram: {{ psums: {{ buffers: {} }} }}", "sram.psums.buffers", "[1, 2]"},
      {"feeder: {{ pattern_bits: {} }}", "feeder.pattern_bits", "[8, 64]"},
      {"feeder: {{ intermediate_regs: {} }}", "feeder.intermediate_regs", "[1, 8]"},
      {"feeder: {{ fifo_depth: {} }}", "feeder.fifo_depth", "[1, 64]"},
      {"dram: {{ transfers_per_clock: {} }}", "dram.transfers_per_clock", "[1, 2]"},
  };
  const auto bounds = [](const std::string& allowed) {
    int lo = 0, hi = 0;
    std::sscanf(allowed.c_str(), "[%d, %d]", &lo, &hi);
    return std::pair<int, int>(lo, hi);
  };
  for (const auto& c : cases) {
    INFO(c.key);
    const auto [lo, hi] = bounds(c.allowed);
    for (int bad : {lo - 1, hi + 1}) {
      const InputError e = input_error_of([&] { flycol::parse_config(fmt::format(c.yaml, bad), "range.yaml"); });
      CHECK(e.source() == "range.yaml");
      CHECK(e.key() == c.key);
      CHECK(e.problem() == fmt::format("= {}: must be an integer in {}", bad, c.allowed));
    }
    // The array bounds also drive the word-width rules; check them where they are consistent.
    if (std::string(c.key).rfind("array.", 0) != 0) {
      CHECK_NOTHROW(flycol::parse_config(fmt::format(c.yaml, lo), "t"));
      CHECK_NOTHROW(flycol::parse_config(fmt::format(c.yaml, hi), "t"));
    }
  }
  CHECK_NOTHROW(flycol::parse_config("dram: { bus_bits: 8 }", "t"));
  CHECK_NOTHROW(flycol::parse_config("dram: { bus_bits: 4096 }", "t"));
  CHECK(input_error_of([] { flycol::parse_config("dram: { bus_bits: 4104 }", "t"); }).key() == "dram.bus_bits");
  CHECK_NOTHROW(flycol::parse_config("array: { rows: 64, cols: 64 }\nsram: { weights: { word_bits: 1024 }, psums: { word_bits: 1024 } }", "t"));
  CHECK_NOTHROW(flycol::parse_config("array: { rows: 4, cols: 4 }\nsram: { weights: { word_bits: 64 }, psums: { word_bits: 64 } }", "t"));
}

TEST_CASE("cross-key rules name the key to change and the value it needs", "[config]") {
  const auto error = [](const std::string& yaml) { return input_error_of([&] { flycol::parse_config(yaml, "x.yaml"); }); };
  SECTION("feeder bus width B = ifmap word / element bits in [4, 64]") {
    const InputError e = error("arithmetic: int8\nsram: { ifmap: { word_bits: 1024 }, weights: { word_bits: 128 }, psums: { word_bits: 512 } }");
    CHECK(e.key() == "sram.ifmap.word_bits");
    CHECK_THAT(e.problem(), Contains("feeder bus of 128 8-bit int8 elements"));
    CHECK_THAT(e.problem(), Contains("word_bits must be one of 64, 128, 256, 512"));
    CHECK_NOTHROW(flycol::parse_config("sram: { ifmap: { word_bits: 64 } }", "t"));
    CHECK_NOTHROW(flycol::parse_config("sram: { ifmap: { word_bits: 1024 } }", "t"));
    CHECK(error("sram: { ifmap: { word_bits: 2048 } }").key() == "sram.ifmap.word_bits");
  }
  SECTION("weights word = array.cols x element bits") {
    const InputError e = error("array: { cols: 8 }\nsram: { psums: { word_bits: 256 } }");
    CHECK(e.key() == "sram.weights.word_bits");
    CHECK_THAT(e.problem(), StartsWith("= 256: must be 128 = array.cols (8) x 16-bit fp16 elements"));
  }
  SECTION("psums word = array.rows x accumulator bits") {
    const InputError e = error("array: { rows: 32 }");
    CHECK(e.key() == "sram.psums.word_bits");
    CHECK_THAT(e.problem(), StartsWith("= 256: must be 512 = array.rows (32) x 16-bit fp16 accumulators"));
  }
  SECTION("array dimensions must give real word widths") {
    // Any size whose row and column words are whole bytes of 64 to 2048 bits: 6 rows of fp16
    // partial sums are a 96-bit word (a non-power-of-two array), 3 columns of fp16 weights are
    // 48 bits, too narrow.
    const InputError e = error("array: { rows: 6 }");
    CHECK(e.key() == "sram.psums.word_bits");
    CHECK_THAT(e.problem(), StartsWith("= 256: must be 96 = array.rows (6) x 16-bit fp16 accumulators"));
    CHECK_NOTHROW(flycol::parse_config("array: { rows: 6, cols: 10 }\nsram: { psums: { word_bits: 96, kbytes: 3 }, "
                                       "weights: { word_bits: 160, kbytes: 5 } }",
                                       "x.yaml"));
    const InputError c = error("array: { cols: 3 }");
    CHECK(c.key() == "array.cols");
    CHECK_THAT(c.problem(), Contains("= 3: a weight row of 3 x 16-bit fp16 values is 48 bits, not an SRAM word width"));
    CHECK_THAT(c.problem(), Contains("array.cols must be at least 4 with fp16"));
    const InputError i = error("arithmetic: int8\narray: { cols: 4 }");
    CHECK(i.key() == "array.cols");
    CHECK_THAT(i.problem(), Contains("must be at least 8 with int8"));
    const InputError r = error("arithmetic: int8\narray: { rows: 1 }\nsram: { weights: { word_bits: 128 } }");
    CHECK_THAT(r.problem(), Contains("must be at least 2 with int8"));
  }
  SECTION("five index counters, no more and no fewer") {
    for (int n : {0, 4, 6}) {
      const InputError e = error(fmt::format("feeder: {{ index_counters: {} }}", n));
      CHECK(e.key() == "feeder.index_counters");
      CHECK_THAT(e.problem(), Contains("must be 5: the data feeder has exactly five index counters"));
    }
  }
}

TEST_CASE("every file in configs/bad is rejected with the promised message", "[config][bad]") {
  namespace fs = std::filesystem;
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(repo_path("configs/bad")))
    if (entry.path().extension() == ".yaml") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  REQUIRE(files.size() >= 45);
  for (const auto& path : files) {
    DYNAMIC_SECTION(path.filename().string()) {
      // The header lines are plain ASCII even where the rest of the file is deliberately broken.
      std::ifstream in(path, std::ios::binary);
      std::string line, key, expect;
      bool layer = false, has_key = false;
      while (std::getline(in, line) && line.rfind("#", 0) == 0) {
        if (line.rfind("# expect-key:", 0) == 0) {
          key = line.size() > 14 ? line.substr(14) : "";
          has_key = true;
        }
        if (line.rfind("# expect: ", 0) == 0) expect = line.substr(10);
        if (line == "# kind: layer") layer = true;
      }
      REQUIRE(has_key);
      REQUIRE_FALSE(expect.empty());
      const std::string p = path.string();
      const InputError e = input_error_of([&] {
        if (layer) flycol::parse_layer_argument(p);
        else flycol::load_config(p);
      });
      CHECK(e.source() == p);
      CHECK(e.key() == key);
      CHECK_THAT(e.problem(), Contains(expect));
      CHECK_THAT(std::string(e.what()), StartsWith(p + ": "));
      if (!key.empty()) CHECK_THAT(std::string(e.what()), Contains("key '" + key + "'"));
    }
  }
}

TEST_CASE("unreadable files", "[config]") {
  const InputError missing = input_error_of([] { flycol::load_config("/nonexistent/flycol.yaml"); });
  CHECK(missing.source() == "/nonexistent/flycol.yaml");
  CHECK(missing.key().empty());
  CHECK_THAT(missing.problem(), StartsWith("cannot read file"));
  const InputError dir = input_error_of([] { flycol::load_config(repo_path("configs")); });
  CHECK_THAT(dir.problem(), StartsWith("cannot read file"));
}

TEST_CASE("energy keys: calibrated or a number, validated, round-tripped", "[config]") {
  const Config& def = flycol::default_config();
  CHECK(def.energy.mac_calibrated());
  CHECK(def.energy.sram_pj_per_bit == 0.05);
  const Config c = flycol::parse_config("energy:\n  mac_pj: 2.25\n  sram_pj_per_bit: 0.08\n", "e.yaml");
  CHECK_FALSE(c.energy.mac_calibrated());
  CHECK(c.energy.mac_pj == 2.25);
  CHECK(c.energy.sram_pj_per_bit == 0.08);
  CHECK(c != def);
  CHECK(flycol::parse_config(flycol::to_yaml(c), "round trip") == c);
  CHECK_THAT(flycol::to_yaml(def), Contains("energy:\n  mac_pj: calibrated\n  sram_pj_per_bit: 0.05\n"));
  CHECK(flycol::parse_config("energy: { mac_pj: calibrated }\n", "e.yaml").energy.mac_calibrated());

  const InputError word = input_error_of([] { flycol::parse_config("energy: { mac_pj: fast }\n", "e.yaml"); });
  CHECK(word.source() == "e.yaml");
  CHECK(word.key() == "energy.mac_pj");
  CHECK_THAT(word.problem(), Contains("calibrated") && Contains("[0, 1000]"));
  const InputError neg = input_error_of([] { flycol::parse_config("energy: { sram_pj_per_bit: -1 }\n", "e.yaml"); });
  CHECK(neg.key() == "energy.sram_pj_per_bit");
  const InputError unknown = input_error_of([] { flycol::parse_config("energy: { dram_pj: 3 }\n", "e.yaml"); });
  CHECK(unknown.key() == "energy.dram_pj");
}
