// `flycol net --onnx M.onnx --input X.npy` on the command line: the small network of
// tests/graph/tiny_net.h written as an ONNX model, run on the SystemC model with --check, its
// output .npy read back and compared with a float64 evaluation written in the test, --expect
// passing and failing, reports, and the bad-input cases (exit 2, nothing written).
#include <cmath>
#include <filesystem>
#include <random>
#include <regex>
#include <string>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "sim/common/files.h"
#include "sim/tensor/npy.h"
#include "tests/common/test_util.h"
#include "tests/graph/tiny_net.h"

using namespace flycol;

namespace {

struct Files {
  test::ScratchDir dir{"net_cli"};
  test::TinyNet net = test::make_tiny_net(15);
  test::TinyEval want = test::eval_tiny_f64(net);
  std::string model = dir / "tiny.onnx", input = dir / "x.npy", expect = dir / "expect.npy";

  Files() {
    write_file_atomic(model, test::tiny_onnx(net));
    Tensor x;
    x.shape = {1, 4, 8, 8};
    x.values = net.x;
    write_npy(input, x);
    Tensor e;
    e.shape = {1, 10};
    for (double v : want.prob) e.values.push_back(double(float(v)));
    write_npy(expect, e);
  }
};

}  // namespace

TEST_CASE("flycol net --onnx --input runs a real-data network on SystemC bit-exact, writes and checks its output", "[sc]") {
  Files f;
  const std::string out = f.dir / "y.npy", rep = f.dir / "rep";
  const test::FlycolRun r = test::run_flycol_in(
      f.dir.path, fmt::format("net --onnx {} --input {} --output {} --expect {} --model sc --check --report {}", f.model,
                              f.input, out, f.expect, rep));
  INFO(r.out << r.err);
  REQUIRE(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("3 of 3 array nodes bit-exact") && Catch::Contains("float32") &&
                        Catch::Contains("within tolerance") && Catch::Contains("conv2"));
  // --output round trip: float32 [1, 10], close to the float64 evaluation (see graph_run_test for
  // the bound), and probabilities that sum to 1 within float32 and FP16 rounding.
  const Tensor y = read_npy(out);
  CHECK(y.dtype == DType::float32);
  REQUIRE(y.shape == std::vector<std::int64_t>{1, 10});
  double sum = 0, worst = 0;
  for (std::size_t i = 0; i < 10; ++i) {
    sum += y.values[i];
    worst = std::max(worst, std::fabs(y.values[i] - f.want.prob[i]));
  }
  CHECK(worst < 0.03);
  CHECK(sum == Approx(1).margin(1e-5));
  const std::string json = test::slurp(rep + "/tiny.json");
  CHECK_THAT(json, Catch::Contains("\"host_arithmetic\": \"float32\"") && Catch::Contains("\"expect\"") &&
                       Catch::Contains("\"cosine\"") && Catch::Contains("\"exact\": true"));
  CHECK(std::filesystem::exists(rep + "/tiny.txt"));

  // An expectation off by 0.05 in one value fails with exit 1 and says so.
  Tensor e = read_npy(f.expect);
  e.values[3] = double(float(e.values[3] + 0.05));
  write_npy(f.dir / "bad_expect.npy", e);
  const test::FlycolRun bad =
      test::run_flycol_in(f.dir.path, fmt::format("net --onnx {} --input {} --expect {}", f.model, f.input, f.dir / "bad_expect.npy"));
  INFO(bad.out << bad.err);
  CHECK(bad.code == 1);
  CHECK_THAT(bad.out, Catch::Contains("FAILED") && Catch::Contains("tolerance"));
  // ... and passes with a stated tolerance wide enough.
  const test::FlycolRun wide = test::run_flycol_in(
      f.dir.path, fmt::format("net --onnx {} --input {} --expect {} --tolerance 0.1", f.model, f.input, f.dir / "bad_expect.npy"));
  CHECK(wide.code == 0);
  CHECK_THAT(wide.out, Catch::Contains("--tolerance"));
}

TEST_CASE("flycol net --onnx without --input runs the imported layer list like --network", "[unit]") {
  Files f;
  const test::FlycolRun r = test::run_flycol_in(f.dir.path, fmt::format("net --onnx {}", f.model));
  INFO(r.out << r.err);
  CHECK(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("conv1") && Catch::Contains("conv2"));
  // The real-data run on the analytic model times the same programs: its cycles are the layer
  // list's with the data feeder.
  std::smatch m;
  REQUIRE(std::regex_search(r.out, m, std::regex(R"(\ncycles\s+(\d+)\s+(\d+))")));
  const std::string feeder_cycles = m[1];
  const test::FlycolRun d = test::run_flycol_in(f.dir.path, fmt::format("net --onnx {} --input {}", f.model, f.input));
  INFO(d.out << d.err);
  REQUIRE(d.code == 0);
  REQUIRE(std::regex_search(d.out, m, std::regex(R"(array MACs, (\d+) cycles)")));
  CHECK(m[1] == feeder_cycles);
}

TEST_CASE("flycol net real-data input errors: exit 2, one message, nothing written", "[unit]") {
  Files f;
  Tensor wrong;
  wrong.shape = {1, 4, 4, 16};
  wrong.values.assign(256, 0.5);
  write_npy(f.dir / "wrong.npy", wrong);
  const std::string out = f.dir / "never.npy";
  test::check_usage_error(f.dir.path, fmt::format("net --onnx {} --input {} --output {}", f.model, f.dir / "wrong.npy", out),
                          {"--input", "[1, 4, 4, 16]", "[1, 4, 8, 8]"});
  CHECK_FALSE(std::filesystem::exists(out));
  test::check_usage_error(f.dir.path, fmt::format("net --network arnp --input {}", f.input), {"--input", "--onnx"});
  test::check_usage_error(f.dir.path, fmt::format("net --network arnp --onnx {}", f.model), {"--network", "--onnx"});
  test::check_usage_error(f.dir.path, "net", {"--network", "--onnx"});
  test::check_usage_error(f.dir.path, fmt::format("net --onnx {} --output {}", f.model, out), {"--output", "--input"});
  test::check_usage_error(f.dir.path, fmt::format("net --onnx {} --input {} --check", f.model, f.input), {"--check"});
  test::check_usage_error(f.dir.path, fmt::format("net --onnx {} --input {} --expect {}", f.model, f.input, f.dir / "wrong.npy"),
                          {"wrong.npy", "[1, 10]"});
  test::check_usage_error(f.dir.path, fmt::format("net --onnx {} --input {} --tolerance -1 --expect {}", f.model, f.input, f.expect),
                          {"--tolerance"});
  CHECK_FALSE(std::filesystem::exists(out));
}

TEST_CASE("ARNP exported at 32 x 32 runs on real data on SystemC, every array node bit-exact", "[.slow]") {
  // A real architecture end to end: flycol onnx-export (seeded weights), the import, and the
  // real-data run with --check (about a minute). Input: uniform [0, 1), seed 1.
  test::ScratchDir dir("net_arnp");
  const test::FlycolRun ex = test::run_flycol_in(
      dir.path, fmt::format("onnx-export --network arnp --input-size 32x32 --seed 1 --out {}", dir / "arnp.onnx"));
  INFO(ex.out << ex.err);
  REQUIRE(ex.code == 0);
  std::mt19937_64 rng(1);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  Tensor x;
  x.shape = {1, 3, 32, 32};
  for (int i = 0; i < 3 * 32 * 32; ++i) x.values.push_back(double(float(u(rng))));
  write_npy(dir / "x.npy", x);
  const test::FlycolRun r = test::run_flycol_in(
      dir.path, fmt::format("net --onnx {} --input {} --model sc --check", dir / "arnp.onnx", dir / "x.npy"));
  INFO(r.out << r.err);
  REQUIRE(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("18 of 18 array nodes bit-exact"));
  std::smatch m;
  REQUIRE(std::regex_search(r.out, m, std::regex(R"(cosine (0\.\d+))")));
  CHECK(std::stod(m[1]) > 0.999);
}
