// `flycol net --onnx --input --model both --check`: the small network of tests/graph/tiny_net.h on
// the SystemC model with the Verilated RTL in lockstep, every group of every array node compared
// pin by pin and with the golden model (built only with FLYCOL_BUILD_RTL).
#include <string>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "sim/common/files.h"
#include "sim/tensor/npy.h"
#include "tests/common/test_util.h"
#include "tests/graph/tiny_net.h"

using namespace flycol;

TEST_CASE("flycol net --onnx --input --model both: the RTL in lockstep agrees on every array node", "[cosim]") {
  test::ScratchDir dir("net_both");
  const test::TinyNet net = test::make_tiny_net(15);
  write_file_atomic(dir / "tiny.onnx", test::tiny_onnx(net));
  Tensor x;
  x.shape = {1, 4, 8, 8};
  x.values = net.x;
  write_npy(dir / "x.npy", x);
  const test::FlycolRun r = test::run_flycol_in(
      dir.path, fmt::format("net --onnx {} --input {} --output {} --model both --check --report {}", dir / "tiny.onnx",
                            dir / "x.npy", dir / "y.npy", dir / "rep"));
  INFO(r.out << r.err);
  REQUIRE(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("3 of 3 array nodes bit-exact against the golden model and the RTL in lockstep"));
  CHECK_THAT(test::slurp(dir / "rep/tiny.json"), Catch::Contains("\"model\": \"both\""));
  CHECK(read_npy(dir / "y.npy").shape == std::vector<std::int64_t>{1, 10});
}
