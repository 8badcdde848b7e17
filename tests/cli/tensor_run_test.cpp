// `flycol run` on NumPy tensors end to end: the sc and golden models run the given operands
// bit-exactly, --ofmap writes the golden output plus the bias added in float32 (recomputed here
// from the golden convolution, not read back from flycol), --expect accepts a float32 reference
// within the bound and rejects one past it, and every bad input exits 2 with a message naming it
// and writes no ofmap.
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "sim/common/files.h"
#include "sim/config/layer.h"
#include "sim/golden/conv.h"
#include "sim/tensor/convert.h"
#include "sim/tensor/npy.h"
#include "tests/common/test_util.h"

using namespace flycol;
using flycol::test::FlycolRun;
using flycol::test::run_flycol_in;
using flycol::test::ScratchDir;

namespace {

// Operands of C=5,H=7,W=9,K=6,k=3 (stride 2 and padding 1 from --layer): float32 values that
// mostly change when rounded to binary16, and a bias per channel.
struct Case {
  Tensor x{DType::float32, {1, 5, 7, 9}, {}}, w{DType::float32, {6, 5, 3, 3}, {}}, b{DType::float32, {6}, {}};
  Layer layer = parse_layer_spec("C=5,H=7,W=9,K=6,k=3,s=2,p=1");
  explicit Case(ScratchDir& dir) {
    std::mt19937 rng(15);
    std::uniform_real_distribution<float> u(-1.f, 1.f);
    for (int i = 0; i < 5 * 7 * 9; ++i) x.values.push_back(double(u(rng)));
    for (int i = 0; i < 6 * 5 * 9; ++i) w.values.push_back(double(u(rng) * 0.5f));
    for (int i = 0; i < 6; ++i) b.values.push_back(double(u(rng)));
    write_npy(dir / "x.npy", x);
    write_npy(dir / "w.npy", w);
    write_npy(dir / "b.npy", b);
  }
  // The golden output plus the bias in float32, computed here.
  std::vector<double> want() const {
    ConvOperands ops;
    ops.layer = layer;
    ops.arithmetic = Arithmetic::fp16;
    ops.ifmap = to_elements(x, Arithmetic::fp16, "x");
    ops.weights = to_elements(w, Arithmetic::fp16, "w");
    const std::vector<AccBits> acc = golden::conv(ops);
    std::vector<double> y;
    const int per_k = layer.ho() * layer.wo();
    for (std::size_t i = 0; i < acc.size(); ++i)
      y.push_back(double(float(acc_value(acc[i], Arithmetic::fp16)) + float(b.values[i / std::size_t(per_k) % 6])));
    return y;
  }
  std::string args(ScratchDir& dir) const { return "run --ifmap " + (dir / "x.npy") + " --weights " + (dir / "w.npy") + " --layer s=2,p=1"; }
};

// flycol must refuse `args` with exit 2, a message holding each of `mentions`, and no ofmap file.
void refuses(ScratchDir& dir, const std::string& args, std::initializer_list<std::string> mentions) {
  const FlycolRun r = run_flycol_in(dir.path, args + " --ofmap " + (dir / "y.npy"));
  INFO("flycol " << args << "\n" << r.out << r.err);
  CHECK(r.code == 2);
  for (const std::string& m : mentions) CHECK(r.err.find(m) != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(dir / "y.npy"));
}

}  // namespace

TEST_CASE("tensor run: sc and golden run .npy operands bit-exactly and --ofmap holds golden + bias in float32", "[unit]") {
  ScratchDir dir("tensor_run_ofmap");
  const Case c(dir);
  const std::vector<double> want = c.want();
  for (const char* model : {"sc", "golden"}) {
    INFO("model " << model);
    const std::string y = dir / (std::string(model) + ".npy"), rep = dir / (std::string(model) + ".json");
    const FlycolRun r = run_flycol_in(dir.path, c.args(dir) + " --check --model " + model + " --bias " + (dir / "b.npy") +
                                                    " --ofmap " + y + " --report " + rep);
    INFO(r.out << r.err);
    REQUIRE(r.code == 0);
    if (std::string(model) == "sc") CHECK(r.out.find("bit-exact with the golden model") != std::string::npos);
    const Tensor out = read_npy(y);
    CHECK(out.dtype == DType::float32);
    CHECK(out.shape == std::vector<std::int64_t>{1, 6, 4, 5});
    CHECK(out.values == want);
    const YAML::Node j = YAML::LoadFile(rep);
    CHECK(j["seed"].IsNull());
    CHECK(j["operands"].as<std::string>() == "given");
    CHECK(j["tensors"]["ifmap"].as<std::string>() == dir / "x.npy");
    CHECK(j["tensors"]["bias"].as<std::string>() == dir / "b.npy");
    CHECK(j["rounding"]["ifmap"]["values"].as<int>() == 5 * 7 * 9);
    CHECK(j["rounding"]["ifmap"]["changed"].as<int>() > 300);  // random float32 values rarely fit binary16
    CHECK(j["rounding"]["weights"]["max_rel_change"].as<double>() > 0);
    CHECK(j["rounding"]["bias"]["changed"].as<int>() == 0);
    CHECK(j["error_vs_float64"]["max_abs"].as<double>() > 0);
    CHECK(j["error_vs_float64"]["max_abs"].as<double>() < 0.05);
    CHECK(j["error_vs_float64"]["cosine"].as<double>() > 0.9999);
    CHECK(j["host"].as<std::string>() == "bias added in float32 on the host");
  }
  // Other output types: the same values converted once.
  const FlycolRun r = run_flycol_in(dir.path, c.args(dir) + " --model golden --bias " + (dir / "b.npy") + " --ofmap " +
                                                  (dir / "h.npy") + " --ofmap-dtype float16");
  REQUIRE(r.code == 0);
  const Tensor h = read_npy(dir / "h.npy");
  CHECK(h.dtype == DType::float16);
  for (std::size_t i = 0; i < want.size(); ++i) CHECK(std::fabs(h.values[i] - want[i]) <= std::fabs(want[i]) * 0x1p-11);
}

TEST_CASE("tensor run: --expect passes a float32 reference and fails one moved past the bound, naming the element", "[unit]") {
  ScratchDir dir("tensor_run_expect");
  const Case c(dir);
  // A float32 framework's result: products and sums in float32 in C, ky, kx order, bias last.
  Tensor e{DType::float32, {1, 6, 4, 5}, {}};
  const Layer& L = c.layer;
  for (int k = 0; k < 6; ++k)
    for (int oy = 0; oy < L.ho(); ++oy)
      for (int ox = 0; ox < L.wo(); ++ox) {
        float acc = 0;
        for (int ch = 0; ch < 5; ++ch)
          for (int ky = 0; ky < 3; ++ky)
            for (int kx = 0; kx < 3; ++kx) {
              const int iy = oy * 2 - 1 + ky, ix = ox * 2 - 1 + kx;
              if (iy < 0 || iy >= 7 || ix < 0 || ix >= 9) continue;
              acc += float(c.x.values[std::size_t((ch * 7 + iy) * 9 + ix)]) * float(c.w.values[std::size_t(((k * 5 + ch) * 3 + ky) * 3 + kx)]);
            }
        e.values.push_back(double(acc + float(c.b.values[std::size_t(k)])));
      }
  write_npy(dir / "e.npy", e);
  const std::string base = c.args(dir) + " --model golden --bias " + (dir / "b.npy") + " --report " + (dir / "r.json") + " --ofmap " + (dir / "y.npy");
  FlycolRun r = run_flycol_in(dir.path, base + " --expect " + (dir / "e.npy"));
  INFO(r.out << r.err);
  REQUIRE(r.code == 0);
  YAML::Node j = YAML::LoadFile(dir / "r.json");
  CHECK(j["expect"]["passed"].as<bool>());
  CHECK(j["expect"]["outside_bound"].as<int>() == 0);
  CHECK(j["expect"]["bound_invalid"].as<int>() == 0);
  const double ratio = j["expect"]["worst_ratio"].as<double>();
  CHECK(ratio > 0);
  CHECK(ratio <= 1);
  CHECK(std::filesystem::exists(dir / "y.npy"));
  std::filesystem::remove(dir / "y.npy");
  // Element [0, 2, 1, 3] moved by 0.5 (far past any bound of these sums of 45 terms below 1).
  e.values[std::size_t((2 * 4 + 1) * 5 + 3)] += 0.5;
  write_npy(dir / "e2.npy", e);
  r = run_flycol_in(dir.path, base + " --expect " + (dir / "e2.npy"));
  CHECK(r.code == 1);
  CHECK(r.out.find("worst [0, 2, 1, 3]") != std::string::npos);
  CHECK(r.out.find("OUTSIDE THE BOUND") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(dir / "y.npy"));
  j = YAML::LoadFile(dir / "r.json");  // the report is written, as for a failed --check
  CHECK_FALSE(j["expect"]["passed"].as<bool>());
  CHECK(j["expect"]["outside_bound"].as<int>() == 1);
  CHECK(j["expect"]["worst_index"].as<std::string>() == "[0, 2, 1, 3]");
}

TEST_CASE("tensor run: weights whose C differs from the ifmap's", "[unit]") {
  ScratchDir dir("tensor_run_c");
  const Case c(dir);
  write_npy(dir / "w4.npy", Tensor{DType::float32, {6, 4, 3, 3}, std::vector<double>(6 * 4 * 9, 1.0)});
  refuses(dir, "run --ifmap " + (dir / "x.npy") + " --weights " + (dir / "w4.npy"),
          {"w4.npy: shape [6, 4, 3, 3] has C=4 (axis 1) but --ifmap", "x.npy has C=5"});
}

TEST_CASE("tensor run: --layer keys that disagree with the shapes", "[unit]") {
  ScratchDir dir("tensor_run_layer");
  const Case c(dir);
  refuses(dir, c.args(dir) + ",H=8", {"--layer: key 'H': = 8 disagrees with", "x.npy, whose shape has 7 at axis 2"});
  refuses(dir, "run --ifmap " + (dir / "x.npy") + " --weights " + (dir / "w.npy") + " --layer K=7,k=3",
          {"--layer: key 'K': = 7 disagrees with", "w.npy, whose shape has 6 at axis 0"});
  refuses(dir, c.args(dir) + ",k=5", {"--layer: key 'k': = 5 disagrees with", "w.npy, whose shape has 3 at axis 2"});
}

TEST_CASE("tensor run: --layer as a YAML file gives stride and padding, and its shape keys must agree", "[unit]") {
  ScratchDir dir("tensor_run_yaml");
  const Case c(dir);
  write_file_atomic(dir / "l.yaml", "layer:\n  stride: 2\n  padding: 1\n");
  const std::string base = "run --model golden --ifmap " + (dir / "x.npy") + " --weights " + (dir / "w.npy");
  const FlycolRun r = run_flycol_in(dir.path, base + " --layer " + (dir / "l.yaml"));
  INFO(r.out << r.err);
  CHECK(r.code == 0);
  CHECK(r.out.find("N=1,C=5,H=7,W=9,K=6,k=3,s=2,d=1,p=1") != std::string::npos);
  write_file_atomic(dir / "l2.yaml", "stride: 2\npadding: 1\nC: 5\nW: 10\n");
  refuses(dir, base + " --layer " + (dir / "l2.yaml"), {"l2.yaml: key 'W': = 10 disagrees with", "x.npy, whose shape has 9 at axis 3"});
}

TEST_CASE("tensor run: float tensors for the int8 configuration", "[unit]") {
  ScratchDir dir("tensor_run_dtype");
  const Case c(dir);
  refuses(dir, c.args(dir) + " --config int8", {"x.npy: element type float32 does not suit the int8 configuration"});
}

TEST_CASE("tensor run: an integer out of the int8 range", "[unit]") {
  ScratchDir dir("tensor_run_range");
  Tensor x{DType::int16, {1, 1, 3, 3}, std::vector<double>(9, 1.0)};
  x.values[4] = 200;
  write_npy(dir / "x.npy", x);
  write_npy(dir / "w.npy", Tensor{DType::int8, {1, 1, 1, 1}, {1}});
  refuses(dir, "run --config int8 --ifmap " + (dir / "x.npy") + " --weights " + (dir / "w.npy"),
          {"x.npy: value 200 at index [0, 0, 1, 1] is not an integer within the int8 arithmetic's allowed range [-128, 127]"});
}

TEST_CASE("tensor run: a non-integer output for --ofmap-dtype int32", "[unit]") {
  ScratchDir dir("tensor_run_nonint");
  write_npy(dir / "x.npy", Tensor{DType::int8, {1, 1, 2, 2}, {1, 2, 3, 4}});
  write_npy(dir / "w.npy", Tensor{DType::int8, {1, 1, 1, 1}, {3}});
  write_npy(dir / "b.npy", Tensor{DType::float32, {1}, {0.5}});
  refuses(dir, "run --model golden --config int8 --ifmap " + (dir / "x.npy") + " --weights " + (dir / "w.npy") + " --bias " +
                   (dir / "b.npy") + " --ofmap-dtype int32",
          {"--ofmap-dtype: = int32: output value 3.5 at index [0, 0, 0, 0] is not an integer"});
}

TEST_CASE("tensor run: a missing file, a wrong rank, a bias of the wrong shape, a file that is not .npy", "[unit]") {
  ScratchDir dir("tensor_run_files");
  const Case c(dir);
  refuses(dir, "run --ifmap " + (dir / "none.npy") + " --weights " + (dir / "w.npy"), {"none.npy: cannot read the .npy file"});
  write_npy(dir / "x3.npy", Tensor{DType::float32, {5, 7, 9}, std::vector<double>(5 * 7 * 9, 0.0)});
  refuses(dir, "run --ifmap " + (dir / "x3.npy") + " --weights " + (dir / "w.npy"),
          {"x3.npy: shape [5, 7, 9] has rank 3: --ifmap needs rank 4, [N][C][H][W]"});
  refuses(dir, c.args(dir) + " --bias " + (dir / "w.npy"), {"w.npy: shape [6, 5, 3, 3]: --bias needs shape [6]"});
  write_file_atomic(dir / "bad.npy", "\x93NUMPY\x01\x00 truncated");
  refuses(dir, "run --ifmap " + (dir / "bad.npy") + " --weights " + (dir / "w.npy"), {"bad.npy: not a valid .npy file"});
}

TEST_CASE("tensor run: options that do not go with tensors", "[unit]") {
  ScratchDir dir("tensor_run_options");
  const Case c(dir);
  refuses(dir, c.args(dir) + " --seed 3", {"--seed: describes seeded operands and cannot be combined with --ifmap"});
  refuses(dir, c.args(dir) + " --zeros 0.5", {"--zeros: describes seeded operands"});
  refuses(dir, c.args(dir) + " --model analytic", {"--ofmap: needs output values, which --model analytic does not compute"});
  refuses(dir, "run --ifmap " + (dir / "x.npy"), {"--ifmap: needs --weights"});
  refuses(dir, "run --layer C=5,H=7,W=9,K=6,k=3", {"--ofmap: needs --ifmap X.npy and --weights W.npy"});
  // analytic on tensors without outputs to write is allowed: timing only.
  const FlycolRun r = run_flycol_in(dir.path, c.args(dir) + " --model analytic");
  CHECK(r.code == 0);
}
