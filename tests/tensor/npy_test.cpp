// Unit tests of sim/tensor/npy: the reader against .npy bytes spelled out by hand as NumPy writes
// them (not against our own writer), the writer against the same bytes, round trips of every
// element type and edge value, and one test per kind of bad file checking its message.
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/common/input_error.h"
#include "sim/tensor/npy.h"
#include "tests/common/test_util.h"

using namespace flycol;
using flycol::test::input_error_of;

namespace {

std::string bytes(std::initializer_list<int> b) {
  std::string s;
  for (int x : b) s.push_back(char(x));
  return s;
}

// np.save(f, np.arange(6, dtype='<f4').reshape(2, 3)) with current NumPy (2.x, late 1.x): version 1.0,
// header length 0x0076 (118), the dict, 20 spare spaces for growing axis 0 and 38 of padding to
// 128 bytes, '\n', then 0.0 .. 5.0 as little-endian float32.
const std::string kF4Data = bytes({0, 0, 0, 0, 0, 0, 0x80, 0x3F, 0, 0, 0, 0x40, 0, 0, 0x40, 0x40, 0, 0, 0x80, 0x40, 0, 0, 0xA0, 0x40});
std::string f4_fixture() {
  return std::string("\x93NUMPY\x01\x00\x76\x00", 10) + "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }" +
         std::string(58, ' ') + "\n" + kF4Data;
}

// A file with the given version and header dict text, padded to `align` bytes by the rule of
// NumPy's _wrap_header (the tests below bend one thing at a time).
std::string build(int major, int minor, const std::string& dict, const std::string& data, int align = 64) {
  const std::size_t lb = major == 1 ? 2 : 4;
  std::size_t pad = align - (8 + lb + dict.size() + 1) % align;
  const std::size_t hlen = dict.size() + pad + 1;
  std::string s = std::string("\x93NUMPY", 6) + char(major) + char(minor);
  for (std::size_t b = 0; b < lb; ++b) s.push_back(char((hlen >> (8 * b)) & 0xFF));
  return s + dict + std::string(pad, ' ') + "\n" + data;
}

std::string bad(const std::string& file) { return input_error_of([&] { parse_npy(file, "x.npy"); }).what(); }

}  // namespace

TEST_CASE("npy: reads NumPy's own bytes for float32 (2, 3) and writes the same bytes", "[unit]") {
  const Tensor t = parse_npy(f4_fixture(), "fixture");
  CHECK(t.dtype == DType::float32);
  CHECK(t.shape == std::vector<std::int64_t>{2, 3});
  CHECK(t.values == std::vector<double>{0, 1, 2, 3, 4, 5});
  CHECK(f4_fixture().size() == 128 + 24);
  CHECK(npy_bytes(t) == f4_fixture());
}

TEST_CASE("npy: NumPy fixtures for float16, float64 scalar, int8, int16 (16-byte aligned), versions 2.0 and 3.0", "[unit]") {
  SECTION("float16 [1, -2, 65504, inf]") {
    const std::string f = std::string("\x93NUMPY\x01\x00\x76\x00", 10) + "{'descr': '<f2', 'fortran_order': False, 'shape': (4,), }" +
                          std::string(60, ' ') + "\n" + bytes({0x00, 0x3C, 0x00, 0xC0, 0xFF, 0x7B, 0x00, 0x7C});
    const Tensor t = parse_npy(f, "f");
    CHECK(t.dtype == DType::float16);
    CHECK(t.shape == std::vector<std::int64_t>{4});
    CHECK(t.values == std::vector<double>{1, -2, 65504, std::numeric_limits<double>::infinity()});
    CHECK(npy_bytes(t) == f);
  }
  SECTION("np.ones((1,) * 15, dtype='<f4'): the 20 spare spaces push the header from 128 to 192 bytes") {
    const std::string dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1), }";
    REQUIRE(dict.size() == 98);
    const std::string f = std::string("\x93NUMPY\x01\x00\xB6\x00", 10) + dict + std::string(83, ' ') + "\n" + bytes({0, 0, 0x80, 0x3F});
    const Tensor t = parse_npy(f, "f");
    CHECK(t.shape == std::vector<std::int64_t>(15, 1));
    CHECK(t.values == std::vector<double>{1});
    CHECK(npy_bytes(t) == f);
    // Earlier NumPy (1.14 on) wrote the same array without the spare spaces: 128 bytes, also accepted.
    CHECK(parse_npy(std::string("\x93NUMPY\x01\x00\x76\x00", 10) + dict + std::string(19, ' ') + "\n" + bytes({0, 0, 0x80, 0x3F}), "f").values ==
          std::vector<double>{1});
  }
  SECTION("0-d float64 1.5: shape (), no growth spaces") {
    const std::string f = std::string("\x93NUMPY\x01\x00\x76\x00", 10) + "{'descr': '<f8', 'fortran_order': False, 'shape': (), }" +
                          std::string(62, ' ') + "\n" + bytes({0, 0, 0, 0, 0, 0, 0xF8, 0x3F});
    const Tensor t = parse_npy(f, "f");
    CHECK(t.dtype == DType::float64);
    CHECK(t.shape.empty());
    CHECK(t.values == std::vector<double>{1.5});
    CHECK(npy_bytes(t) == f);
  }
  SECTION("int8 (2, 2) [-128, 127, -1, 0] as '|i1'") {
    const std::string f = std::string("\x93NUMPY\x01\x00\x76\x00", 10) + "{'descr': '|i1', 'fortran_order': False, 'shape': (2, 2), }" +
                          std::string(58, ' ') + "\n" + bytes({0x80, 0x7F, 0xFF, 0x00});
    const Tensor t = parse_npy(f, "f");
    CHECK(t.dtype == DType::int8);
    CHECK(t.values == std::vector<double>{-128, 127, -1, 0});
    CHECK(npy_bytes(t) == f);
  }
  SECTION("int16 (3,) as NumPy < 1.14 wrote it: 16-byte alignment, header length 0x46") {
    const std::string f = std::string("\x93NUMPY\x01\x00\x46\x00", 10) + "{'descr': '<i2', 'fortran_order': False, 'shape': (3,), }" +
                          std::string(12, ' ') + "\n" + bytes({0x00, 0x80, 0xFF, 0x7F, 0x02, 0x00});
    CHECK(f.size() == 80 + 6);
    const Tensor t = parse_npy(f, "f");
    CHECK(t.dtype == DType::int16);
    CHECK(t.values == std::vector<double>{-32768, 32767, 2});
  }
  SECTION("versions 2.0 and 3.0: 4-byte header length 0x74") {
    for (char v : {'\x02', '\x03'}) {
      const std::string f = std::string("\x93NUMPY", 6) + v + std::string("\x00\x74\x00\x00\x00", 5) +
                            "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }" + std::string(56, ' ') + "\n" + kF4Data;
      CHECK(f.size() == 128 + 24);
      const Tensor t = parse_npy(f, "f");
      CHECK(t.shape == std::vector<std::int64_t>{2, 3});
      CHECK(t.values == std::vector<double>{0, 1, 2, 3, 4, 5});
    }
  }
  SECTION("keys in another order, double quotes, no trailing comma, int32") {
    const Tensor t = parse_npy(build(1, 0, "{\"shape\": (2,), \"fortran_order\": False, \"descr\": \"<i4\"}",
                                     bytes({0, 0, 0, 0x80, 0xFF, 0xFF, 0xFF, 0x7F})), "f");
    CHECK(t.dtype == DType::int32);
    CHECK(t.values == std::vector<double>{-2147483648.0, 2147483647.0});
  }
}

TEST_CASE("npy: round trip of every element type, scalars, empty dimensions and edge values", "[unit]") {
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  std::vector<Tensor> cases;
  cases.push_back({DType::float16, {2, 4}, {0x1p-24, -0x1p-24, 0x3FFp-24, 0x1p-14, 65504, -inf, inf, nan}});
  cases.push_back({DType::float16, {}, {-0.0}});
  cases.push_back({DType::float32, {1, 2, 1, 3}, {0x1p-149, -3.4028234663852886e38, 0.1f, inf, nan, -0.0}});
  cases.push_back({DType::float64, {3}, {0.1, 0x1p-1074, -1.7976931348623157e308}});
  cases.push_back({DType::int8, {2, 2}, {-128, 127, 0, -1}});
  cases.push_back({DType::int16, {4}, {-32768, 32767, 1, -1}});
  cases.push_back({DType::int32, {2}, {-2147483648.0, 2147483647.0}});
  cases.push_back({DType::float32, {0, 3}, {}});
  cases.push_back({DType::int8, {2, 0, 5}, {}});
  cases.push_back({DType::float64, {}, {42}});
  for (const Tensor& t : cases) {
    INFO(dtype_name(t.dtype) << " " << t.shape_text());
    const std::string b = npy_bytes(t);
    CHECK(b.size() % 64 == std::size_t(t.elems() * dtype_bytes(t.dtype)) % 64);
    const Tensor r = parse_npy(b, "roundtrip");
    CHECK(r.dtype == t.dtype);
    CHECK(r.shape == t.shape);
    REQUIRE(r.values.size() == t.values.size());
    for (std::size_t i = 0; i < t.values.size(); ++i) {
      if (std::isnan(t.values[i])) CHECK(std::isnan(r.values[i]));
      else {
        CHECK(r.values[i] == t.values[i]);
        CHECK(std::signbit(r.values[i]) == std::signbit(t.values[i]));
      }
    }
  }
}

TEST_CASE("npy: a header past 65535 bytes is written as version 2.0 and read back", "[unit]") {
  Tensor t{DType::int8, std::vector<std::int64_t>(30000, 1), {7}};
  const std::string b = npy_bytes(t);
  CHECK(b[6] == 2);
  CHECK(b[7] == 0);
  const std::size_t hlen = std::uint8_t(b[8]) | std::uint8_t(b[9]) << 8 | std::uint8_t(b[10]) << 16;
  CHECK((12 + hlen) % 64 == 0);
  CHECK(hlen > 65535);
  const Tensor r = parse_npy(b, "v2");
  CHECK(r.shape.size() == 30000);
  CHECK(r.values == std::vector<double>{7});
}

TEST_CASE("npy: write_npy and read_npy through a file, and the writer refuses inexact values", "[unit]") {
  flycol::test::ScratchDir dir("npy");
  const Tensor t{DType::float16, {3}, {1.5, -0.25, 1024}};
  write_npy(dir / "a.npy", t);
  const Tensor r = read_npy(dir / "a.npy");
  CHECK(r.values == t.values);
  CHECK(std::string(input_error_of([&] { read_npy(dir / "missing.npy"); }).what()).find("missing.npy: cannot read") != std::string::npos);
  CHECK_THROWS_AS(write_npy(dir / "b.npy", Tensor{DType::float16, {1}, {0.1}}), std::logic_error);
  CHECK_THROWS_AS(write_npy(dir / "b.npy", Tensor{DType::float32, {1}, {0.1}}), std::logic_error);
  CHECK_THROWS_AS(write_npy(dir / "b.npy", Tensor{DType::int8, {1}, {128}}), std::logic_error);
  CHECK_THROWS_AS(write_npy(dir / "b.npy", Tensor{DType::int16, {1}, {1.5}}), std::logic_error);
  CHECK_THROWS_AS(write_npy(dir / "b.npy", Tensor{DType::int32, {2}, {1}}), std::logic_error);
  CHECK_FALSE(std::filesystem::exists(dir / "b.npy"));
}

TEST_CASE("npy: every kind of bad file gets its own message", "[unit]") {
  const std::string f4 = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";
  using Catch::Matchers::Contains;
  CHECK_THAT(bad("PK\x03\x04 not npy at all"), Contains("x.npy: not a valid .npy file") && Contains("magic string"));
  CHECK_THAT(bad(build(1, 1, f4, kF4Data)), Contains("format version 1.1 is not supported (supported: 1.0, 2.0, 3.0)"));
  CHECK_THAT(bad(build(4, 0, f4, kF4Data)), Contains("format version 4.0"));
  CHECK_THAT(bad(std::string("\x93NUMPY\x01\x00\xFF\x00{'descr'", 17)), Contains("header is 255 bytes long"));
  CHECK_THAT(bad(build(1, 0, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), ", kF4Data)), Contains("not terminated"));
  CHECK_THAT(bad(build(1, 0, "{'descr': '<f4, 'fortran_order': False, 'shape': (2, 3), }", kF4Data)), Contains("malformed header"));
  CHECK_THAT(bad(build(1, 0, "['descr', '<f4']", kF4Data)), Contains("Python dict literal"));
  CHECK_THAT(bad(build(1, 0, "{'descr': '<f4', 'shape': (2, 3), }", kF4Data)), Contains("no 'fortran_order' key"));
  CHECK_THAT(bad(build(1, 0, "{'fortran_order': False, 'shape': (2, 3), }", kF4Data)), Contains("no 'descr' key"));
  CHECK_THAT(bad(build(1, 0, "{'descr': '<f4', 'fortran_order': False}", kF4Data)), Contains("no 'shape' key"));
  CHECK_THAT(bad(build(1, 0, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), 'extra': 1, }", kF4Data)),
             Contains("unexpected key 'extra'"));
  CHECK_THAT(bad(build(1, 0, "{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", kF4Data)),
             Contains("'descr' appears twice"));
  CHECK_THAT(bad(build(1, 0, "{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3), }", kF4Data)),
             Contains("'fortran_order': True is not supported"));
  CHECK_THAT(bad(build(1, 0, "{'descr': '<f4', 'fortran_order': 0, 'shape': (2, 3), }", kF4Data)), Contains("True or False"));
  CHECK_THAT(bad(build(1, 0, "{'descr': '>f4', 'fortran_order': False, 'shape': (2, 3), }", kF4Data)),
             Contains("'>f4' is not supported; allowed: <f2 <f4 <f8 |i1 <i1 <i2 <i4") && Contains("big-endian"));
  CHECK_THAT(bad(build(1, 0, "{'descr': '|u1', 'fortran_order': False, 'shape': (6,), }", "abcdef")),
             Contains("'|u1' is not supported; allowed: <f2 <f4 <f8 |i1 <i1 <i2 <i4"));
  CHECK_THAT(bad(build(1, 0, "{'descr': '<i8', 'fortran_order': False, 'shape': (3,), }", kF4Data)), Contains("astype(np.int32)"));
  CHECK_THAT(bad(build(1, 0, "{'descr': '<f4', 'fortran_order': False, 'shape': (-2, 3), }", kF4Data)), Contains("negative entry"));
  CHECK_THAT(bad(build(1, 0, "{'descr': '<f4', 'fortran_order': False, 'shape': (2.0, 3), }", kF4Data)), Contains("non-integer entry"));
  CHECK_THAT(bad(build(1, 0, "{'descr': '<f4', 'fortran_order': False, 'shape': (6), }", kF4Data)), Contains("written (n,)"));
  CHECK_THAT(bad(build(1, 0, f4, kF4Data, 24)), Contains("not padded as NumPy pads it"));
  CHECK_THAT(bad(build(1, 0, f4 + "\n", kF4Data)), Contains("one final '\\n'"));
  CHECK_THAT(bad(build(1, 0, f4 + " x", kF4Data)), Contains("one final '\\n'"));
  CHECK_THAT(bad(build(1, 0, f4, kF4Data.substr(0, 23))), Contains("truncated: shape [2, 3] of <f4 needs 24 bytes of data, the file has 23"));
  CHECK_THAT(bad(build(1, 0, "{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296, 16), }", kF4Data)),
             Contains("truncated"));
  CHECK_THAT(bad(build(1, 0, f4, kF4Data + "!")), Contains("1 trailing bytes after the data"));
  CHECK_THAT(bad(build(3, 0, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), 'n\xC3\xA4me': 1}", kF4Data)),
             Contains("non-ASCII"));
}
