// Unit tests of sim/tensor/convert: binary16 rounding checked exhaustively against a reference
// built here from the encoding's fields (every value, every midpoint between neighbours with its
// tie to even, and the doubles just beside each midpoint that a detour through float would round
// the wrong way), the integer range errors, and the float32 bias rule of from_accumulators.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "sim/common/input_error.h"
#include "sim/tensor/convert.h"
#include "tests/common/test_util.h"

using namespace flycol;
using flycol::test::input_error_of;

namespace {

// The value of a non-negative finite binary16 encoding, from its fields (independent of fp16.h).
double half_value(unsigned h) {
  const unsigned e = (h >> 10) & 31, m = h & 1023;
  return e == 0 ? std::ldexp(double(m), -24) : std::ldexp(double(1024 + m), int(e) - 25);
}

}  // namespace

TEST_CASE("convert: fp16 rounding is exact, ties to even, from the double, over all of binary16", "[unit]") {
  Tensor t{DType::float64, {}, {}};
  std::vector<ElemBits> want;
  for (unsigned h = 0; h <= 0x7BFF; ++h) {
    const double v = half_value(h);
    const double next = h == 0x7BFF ? 65536.0 : half_value(h + 1);  // 65536: where Inf starts
    const double mid = (v + next) / 2;                               // exact in double
    const unsigned up = h + 1;                                       // 0x7C00 (Inf) above 65504
    const unsigned even = (h & 1) ? up : h;
    for (double s : {1.0, -1.0}) {
      const unsigned sign = s < 0 ? 0x8000 : 0;
      t.values.insert(t.values.end(), {s * v, s * mid, s * std::nextafter(mid, 0.0), s * std::nextafter(mid, 1e9)});
      want.insert(want.end(), {ElemBits(sign | h), ElemBits(sign | even), ElemBits(sign | h), ElemBits(sign | up)});
    }
  }
  t.shape = {std::int64_t(t.values.size())};
  RoundingStats st;
  const std::vector<ElemBits> got = to_elements(t, Arithmetic::fp16, "t.npy", &st);
  REQUIRE(got.size() == want.size());
  std::size_t bad = 0;
  for (std::size_t i = 0; i < got.size(); ++i)
    if (got[i] != want[i] && bad++ < 10) FAIL_CHECK("value " << t.values[i] << " -> " << got[i] << ", want " << want[i]);
  CHECK(bad == 0);
  CHECK(st.values == std::int64_t(t.values.size()));
  // Per sign and encoding: the exact value is unchanged, the three others change (the midpoint of
  // 65504 and 65536 and the double above it overflow to Inf).
  CHECK(st.changed == 2 * 0x7C00 * 3);
  CHECK(st.overflowed == 2 * 2);
  // The largest relative change is at the smallest subnormal's midpoint region: 2^-25 vs 2^-24.
  CHECK(st.max_rel_change == Approx(1.0).epsilon(1e-12));
}

TEST_CASE("convert: fp16 specials and statistics", "[unit]") {
  const double inf = std::numeric_limits<double>::infinity();
  const Tensor t{DType::float32, {2, 3}, {std::nan(""), inf, -inf, -0.0, 1e6, 0.1f}};
  RoundingStats st;
  const std::vector<ElemBits> e = to_elements(t, Arithmetic::fp16, "x", &st);
  CHECK(e == std::vector<ElemBits>{0x7E00, 0x7C00, 0xFC00, 0x8000, 0x7C00, 0x2E66});
  CHECK(st.values == 6);
  CHECK(st.changed == 2);
  CHECK(st.overflowed == 1);
  const double r = std::fabs(0.0999755859375 - double(0.1f)) / double(0.1f);
  CHECK(st.max_rel_change == Approx(r).epsilon(1e-12));
}

TEST_CASE("convert: int8 and int16 take integers in range, else name the value and index", "[unit]") {
  const Tensor ok{DType::float32, {4}, {-128, 127, -1, 0}};
  CHECK(to_elements(ok, Arithmetic::int8, "x") == std::vector<ElemBits>{0x80, 0x7F, 0xFF, 0x00});
  const Tensor ok16{DType::int16, {2}, {-32768, 32767}};
  CHECK(to_elements(ok16, Arithmetic::int16, "x") == std::vector<ElemBits>{0x8000, 0x7FFF});
  using Catch::Matchers::Contains;
  const Tensor over{DType::int16, {1, 2, 1, 2}, {0, 1, 2, 128}};
  CHECK_THAT(std::string(input_error_of([&] { to_elements(over, Arithmetic::int8, "w.npy"); }).what()),
             Contains("w.npy: value 128 at index [0, 1, 0, 1] is not an integer within the int8 arithmetic's allowed range [-128, 127]"));
  const Tensor frac{DType::float32, {2}, {1, 2.5}};
  CHECK_THAT(std::string(input_error_of([&] { to_elements(frac, Arithmetic::int16, "x.npy"); }).what()),
             Contains("value 2.5 at index [1] is not an integer within the int16"));
  const Tensor under{DType::int32, {1}, {-32769}};
  CHECK_THAT(std::string(input_error_of([&] { to_elements(under, Arithmetic::int16, "x.npy"); }).what()), Contains("[-32768, 32767]"));
  const Tensor nan{DType::float32, {1}, {std::nan("")}};
  CHECK_THAT(std::string(input_error_of([&] { to_elements(nan, Arithmetic::int8, "x.npy"); }).what()), Contains("value nan"));
}

TEST_CASE("convert: outputs with the bias added in float32 and converted to the output type", "[unit]") {
  // fp16 accumulators 1.0 and 2.0 (0x3C00, 0x4000) over shape [1, 2, 1, 1]; bias 1.5 * 2^-24 per
  // channel 0: float(1) + float(1.5 * 2^-24) is 1 + 2^-23 in float32 (0.75 ulp rounds up), while
  // the exact sum 1 + 1.5 * 2^-24 is a double: the output must be the float32 one.
  const std::vector<AccBits> out{0x3C00, 0x4000};
  const std::vector<double> bias{1.5 * 0x1p-24, -0.5};
  const Tensor y = from_accumulators(out, Arithmetic::fp16, {1, 2, 1, 1}, DType::float64, &bias);
  CHECK(y.values == std::vector<double>{1 + 0x1p-23, 1.5});
  CHECK(y.dtype == DType::float64);
  // float64 bias values are first rounded to float32 as a float32 host holds them.
  const std::vector<double> bias2{0.1, 0};
  CHECK(from_accumulators(out, Arithmetic::fp16, {1, 2, 1, 1}, DType::float64, &bias2).values[0] == double(1.0f + 0.1f));
  // Without bias: the accumulators as they are; converted to float16 / int32.
  CHECK(from_accumulators(out, Arithmetic::fp16, {2}, DType::float16).values == std::vector<double>{1, 2});
  const std::vector<AccBits> iout{AccBits(-7), 0x7FFFFFFF};
  CHECK(from_accumulators(iout, Arithmetic::int8, {2}, DType::int32).values == std::vector<double>{-7, 2147483647.0});
  // Channels cycle per [N][K][Ho][Wo]: shape [2, 2, 1, 2].
  const std::vector<AccBits> z(8, 0);
  const std::vector<double> b3{10, 20};
  CHECK(from_accumulators(z, Arithmetic::int16, {2, 2, 1, 2}, DType::float32, &b3).values ==
        std::vector<double>{10, 10, 20, 20, 10, 10, 20, 20});
  using Catch::Matchers::Contains;
  const std::vector<double> half{0.5};
  CHECK_THAT(std::string(input_error_of([&] {
               from_accumulators({0x3C00}, Arithmetic::fp16, {1, 1, 1, 1}, DType::int32, &half);
             }).what()),
             Contains("--ofmap-dtype: = int32: output value 1.5 at index [0, 0, 0, 0] is not an integer"));
}
