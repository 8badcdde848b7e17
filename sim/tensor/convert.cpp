// Rounding tensors to the PE arithmetic and bringing outputs back (sim/tensor/convert.h).
#include "sim/tensor/convert.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

#include "base/numerics/fp16.h"
#include "sim/common/input_error.h"

namespace flycol {

void accumulate(RoundingStats& into, const RoundingStats& more) {
  into.values += more.values;
  into.changed += more.changed;
  into.overflowed += more.overflowed;
  into.max_rel_change = std::max(into.max_rel_change, more.max_rel_change);
}

Json rounding_json(const RoundingStats& s) {
  Json j = Json::object();
  j["values"] = s.values;
  j["changed"] = s.changed;
  j["max_rel_change"] = s.max_rel_change;
  j["overflowed"] = s.overflowed;
  return j;
}
namespace {

// Integer range of an integer element type or arithmetic (bits wide).
void int_range(int bits, double& lo, double& hi) {
  lo = -std::ldexp(1.0, bits - 1);
  hi = std::ldexp(1.0, bits - 1) - 1;
}

}  // namespace

std::string index_text(std::int64_t i, const std::vector<std::int64_t>& shape) {
  std::vector<std::int64_t> idx(shape.size());
  for (std::size_t d = shape.size(); d-- > 0;) {
    const std::int64_t s = shape[d] > 0 ? shape[d] : 1;
    idx[d] = i % s;
    i /= s;
  }
  return fmt::format("[{}]", fmt::join(idx, ", "));
}

std::vector<ElemBits> to_elements(const Tensor& t, Arithmetic a, const std::string& source, RoundingStats* stats) {
  if (std::int64_t(t.values.size()) != t.elems())
    throw std::logic_error(fmt::format("to_elements: {} values for shape {}", t.values.size(), t.shape_text()));
  RoundingStats st;
  std::vector<ElemBits> out(t.values.size());
  if (a == Arithmetic::fp16) {
    for (std::size_t i = 0; i < t.values.size(); ++i) {
      const double v = t.values[i];
      const fp16::Bits h = fp16::from_double(v);
      out[i] = h;
      ++st.values;
      if (std::isnan(v)) continue;
      const double r = fp16::to_double(h);
      if (r == v) continue;
      ++st.changed;
      if (std::isinf(r)) ++st.overflowed;
      else st.max_rel_change = std::max(st.max_rel_change, std::fabs(r - v) / std::fabs(v));
    }
  } else {
    const int bits = a == Arithmetic::int8 ? 8 : 16;
    double lo, hi;
    int_range(bits, lo, hi);
    for (std::size_t i = 0; i < t.values.size(); ++i) {
      const double v = t.values[i];
      if (!(v >= lo && v <= hi) || v != std::floor(v))
        throw InputError(source, "", fmt::format("value {} at index {} is not an integer within the {} arithmetic's allowed range [{}, {}] "
                                                 "(integer configurations take integer tensors as they are: quantize them first; nothing is rounded or clamped)",
                                                 v, index_text(std::int64_t(i), t.shape), arithmetic_info(a).name, lo, hi));
      const int x = int(v);
      out[i] = bits == 8 ? ElemBits(std::uint8_t(std::int8_t(x))) : ElemBits(std::uint16_t(std::int16_t(x)));
      ++st.values;
    }
  }
  if (stats) *stats = st;
  return out;
}

Tensor from_accumulators(const std::vector<AccBits>& out, Arithmetic a, std::vector<std::int64_t> shape, DType d,
                         const std::vector<double>* bias_per_channel, const std::string& source) {
  Tensor t;
  t.dtype = d;
  t.shape = std::move(shape);
  if (std::int64_t(out.size()) != t.elems())
    throw std::logic_error(fmt::format("from_accumulators: {} outputs for shape {}", out.size(), t.shape_text()));
  std::int64_t inner = 1, channels = 1;
  if (bias_per_channel) {
    if (t.shape.size() < 2 || std::int64_t(bias_per_channel->size()) != t.shape[1])
      throw std::logic_error(fmt::format("from_accumulators: {} bias values for shape {}", bias_per_channel->size(), t.shape_text()));
    channels = t.shape[1];
    for (std::size_t i = 2; i < t.shape.size(); ++i) inner *= t.shape[i];
  }
  double lo = 0, hi = 0;
  if (!is_float(d)) int_range(8 * dtype_bytes(d), lo, hi);
  t.values.resize(out.size());
  for (std::size_t i = 0; i < out.size(); ++i) {
    double v = acc_value(out[i], a);
    if (bias_per_channel) {
      const double b = (*bias_per_channel)[std::size_t((std::int64_t(i) / inner) % channels)];
      v = double(float(v) + float(b));  // the host's float32 bias add: one rounding of the sum
    }
    switch (d) {
      case DType::float16: v = fp16::to_double(fp16::from_double(v)); break;
      case DType::float32: v = double(float(v)); break;
      case DType::float64: break;
      default:
        if (!(v >= lo && v <= hi) || v != std::floor(v))
          throw InputError(source, "", fmt::format("= {}: output value {} at index {} is not an integer within [{}, {}]; "
                                                   "choose a float element type (float16, float32, float64)",
                                                   dtype_name(d), v, index_text(std::int64_t(i), t.shape), lo, hi));
    }
    t.values[i] = v;
  }
  return t;
}

}  // namespace flycol
