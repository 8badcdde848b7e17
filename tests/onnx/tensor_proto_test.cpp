// TensorProto reading against ONNX's own test data (values from the ONNX operator docs) and the
// encodings ONNX allows (typed fields, raw_data, FLOAT16 in int32_data, external data), plus
// `flycol tensor convert` to .npy.
#include <catch2/catch.hpp>

#include "sim/tensor/npy.h"
#include "tests/common/test_util.h"
#include "tests/onnx/onnx_test_util.h"

using namespace flycol;
using namespace flycol::test;

// Conv docs: x = np.array([[[[0., 1., ..., 24.]]]]) [1,1,5,5]; y_with_padding's first row
// [12, 21, 27, 33, 24] and last row [72, 111, 117, 123, 84].
TEST_CASE("tensor proto: ONNX test data of test_basic_conv_with_padding", "[unit]") {
  const std::string d = onnx_data("node/test_basic_conv_with_padding/test_data_set_0");
  const Tensor x = read_tensor_proto_file(d + "/input_0.pb");
  CHECK(x.dtype == DType::float32);
  CHECK(x.shape == std::vector<std::int64_t>{1, 1, 5, 5});
  for (int i = 0; i < 25; ++i) CHECK(x.values[std::size_t(i)] == i);
  const Tensor w = read_tensor_proto_file(d + "/input_1.pb");
  CHECK(w.shape == std::vector<std::int64_t>{1, 1, 3, 3});
  for (double v : w.values) CHECK(v == 1);
  const Tensor y = read_tensor_proto_file(d + "/output_0.pb");
  CHECK(std::vector<double>(y.values.begin(), y.values.begin() + 5) == std::vector<double>{12, 21, 27, 33, 24});
  CHECK(std::vector<double>(y.values.end() - 5, y.values.end()) == std::vector<double>{72, 111, 117, 123, 84});
}

TEST_CASE("tensor proto: INT64 test data (Reshape's shape) as an index and as data", "[unit]") {
  const Tensor s = read_tensor_proto_file(onnx_data("node/test_reshape_negative_dim/test_data_set_0/input_1.pb"));
  CHECK(s.values == std::vector<double>{2, -1, 2});
  onnx::TensorProto t;
  t.set_name("big");
  t.set_data_type(onnx::TensorProto::INT64);
  t.add_dims(2);
  t.add_int64_data(1);
  t.add_int64_data(std::int64_t(1) << 40);
  CHECK(tensor_from_proto(t, "", "m.onnx", Int64Use::index).values[1] == double(std::int64_t(1) << 40));
  const auto e = input_error_of([&] { tensor_from_proto(t, "", "m.onnx", Int64Use::data); });
  CHECK(e.problem().find("tensor 'big'") == 0);
  CHECK(e.problem().find("must fit int32") != std::string::npos);
}

TEST_CASE("tensor proto: typed fields, raw data and FLOAT16 in int32_data", "[unit]") {
  onnx::TensorProto t;
  t.set_name("h");
  t.set_data_type(onnx::TensorProto::FLOAT16);
  t.add_dims(3);
  for (int bits : {0x3C00, 0xC000, 0x0001}) t.add_int32_data(bits);  // 1, -2, 2^-24
  CHECK(tensor_from_proto(t, "", "m").values == std::vector<double>{1, -2, std::ldexp(1.0, -24)});
  CHECK(tensor_from_proto(t, "", "m").dtype == DType::float16);
  t.add_int32_data(0);  // one value too many
  CHECK(input_error_of([&] { tensor_from_proto(t, "", "m"); }).problem().find("holds 4 values") != std::string::npos);
  // Every dtype through raw_data and back.
  for (DType d : {DType::float16, DType::float32, DType::float64, DType::int8, DType::int16, DType::int32}) {
    Tensor a;
    a.dtype = d;
    a.shape = {2, 2};
    a.values = {1, -2, 3, is_float(d) ? 0.5 : 4};
    onnx::TensorProto p;
    tensor_to_proto(a, "a", &p);
    const Tensor b = tensor_from_proto(p, "", "m");
    CHECK(b.dtype == d);
    CHECK(b.shape == a.shape);
    CHECK(b.values == a.values);
  }
  onnx::TensorProto s;
  s.set_data_type(onnx::TensorProto::STRING);
  CHECK(input_error_of([&] { tensor_from_proto(s, "", "m"); }).problem().find("STRING") != std::string::npos);
}

TEST_CASE("tensor proto: external data with offset and length", "[unit]") {
  ScratchDir dir("tensor_proto_ext");
  const float vals[3] = {1.5f, -2.25f, 8.0f};
  {
    std::ofstream out(dir / "data.bin", std::ios::binary);
    out << "PAD!";
    out.write(reinterpret_cast<const char*>(vals), sizeof vals);
  }
  onnx::TensorProto t;
  t.set_name("w");
  t.set_data_type(onnx::TensorProto::FLOAT);
  t.add_dims(3);
  t.set_data_location(onnx::TensorProto::EXTERNAL);
  for (auto kv : {std::make_pair("location", "data.bin"), std::make_pair("offset", "4"), std::make_pair("length", "12")}) {
    auto* e = t.add_external_data();
    e->set_key(kv.first);
    e->set_value(kv.second);
  }
  CHECK(tensor_from_proto(t, dir.path.string(), "m").values == std::vector<double>{1.5, -2.25, 8});
  t.mutable_external_data(2)->set_value("16");  // past the end
  CHECK(input_error_of([&] { tensor_from_proto(t, dir.path.string(), "m"); }).problem().find("too short") !=
        std::string::npos);
  t.mutable_external_data(0)->set_value("../data.bin");
  CHECK(input_error_of([&] { tensor_from_proto(t, dir.path.string(), "m"); }).problem().find("inside the model's directory") !=
        std::string::npos);
}

TEST_CASE("tensor convert: ONNX input_0.pb to .npy, and info", "[unit]") {
  ScratchDir dir("tensor_convert");
  const std::string in = onnx_data("node/test_basic_conv_with_padding/test_data_set_0/input_0.pb");
  FlycolRun r = run_flycol_in(dir.path, "tensor convert " + in + " " + (dir / "x.npy"));
  INFO(r.err);
  REQUIRE(r.code == 0);
  const Tensor x = read_npy(dir / "x.npy");
  CHECK(x.dtype == DType::float32);
  CHECK(x.values == read_tensor_proto_file(in).values);
  r = run_flycol_in(dir.path, "tensor convert " + (dir / "x.npy") + " " + (dir / "h.npy") + " --dtype float16");
  REQUIRE(r.code == 0);
  CHECK(read_npy(dir / "h.npy").dtype == DType::float16);
  CHECK(read_npy(dir / "h.npy").values == x.values);  // 0..24 are exact in float16
  r = run_flycol_in(dir.path, "tensor info " + in);
  REQUIRE(r.code == 0);
  CHECK(r.out.find("float32 [1, 1, 5, 5]") != std::string::npos);
  CHECK(r.out.find("min 0  max 24  mean 12") != std::string::npos);
}

TEST_CASE("tensor random: seeded, the shape asked for, in range; a bad shape writes nothing", "[unit]") {
  ScratchDir dir("tensor_random");
  FlycolRun r = run_flycol_in(dir.path, "tensor random " + (dir / "a.npy") + " --shape 2x3x4x5 --seed 7");
  INFO(r.err);
  REQUIRE(r.code == 0);
  r = run_flycol_in(dir.path, "tensor random " + (dir / "b.npy") + " --shape 2x3x4x5 --seed 7");
  REQUIRE(r.code == 0);
  r = run_flycol_in(dir.path, "tensor random " + (dir / "c.npy") + " --shape 2x3x4x5 --seed 8 --dist normal");
  REQUIRE(r.code == 0);
  const Tensor a = read_npy(dir / "a.npy"), b = read_npy(dir / "b.npy"), c = read_npy(dir / "c.npy");
  CHECK(a.dtype == DType::float32);
  CHECK(a.shape == std::vector<std::int64_t>{2, 3, 4, 5});
  CHECK(a.values == b.values);
  CHECK(a.values != c.values);
  double lo = 1, hi = 0, neg = 0;
  for (double v : a.values) lo = std::min(lo, v), hi = std::max(hi, v);
  for (double v : c.values) neg += v < 0 ? 1 : 0;
  CHECK(lo >= 0);
  CHECK(hi < 1);
  CHECK(hi - lo > 0.5);                       // 120 uniform draws spread out
  CHECK((neg > 20 && neg < 100));             // a normal draw has both signs
  r = run_flycol_in(dir.path, "tensor random " + (dir / "d.npy") + " --shape 1x0x4");
  CHECK(r.code == 2);
  CHECK(r.err.find("--shape") != std::string::npos);
  CHECK(!std::filesystem::exists(dir / "d.npy"));
}
