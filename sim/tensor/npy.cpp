// The strict .npy reader and the NumPy-identical writer (sim/tensor/npy.h). The header is parsed
// as the small Python literal NumPy writes, token by token, so that every deviation gets its own
// message instead of a vague "bad header".
#include "sim/tensor/npy.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <stdexcept>

#include <fmt/format.h>

#include "base/numerics/fp16.h"
#include "sim/common/files.h"
#include "sim/common/input_error.h"

namespace flycol {
namespace {

const char kMagic[] = "\x93NUMPY";
constexpr std::size_t kMagicLen = 6;

struct DescrInfo {
  const char* descr;
  DType dtype;
};
// The descr strings accepted on reading; the first one per dtype is what NumPy writes.
const DescrInfo kDescrs[] = {
    {"<f2", DType::float16}, {"<f4", DType::float32}, {"<f8", DType::float64}, {"|i1", DType::int8},
    {"<i1", DType::int8},    {"<i2", DType::int16},   {"<i4", DType::int32},
};

const char* descr_of(DType d) {
  for (const DescrInfo& x : kDescrs)
    if (x.dtype == d) return x.descr;
  return "?";
}

// A hint for descr strings that are close to an accepted one.
std::string descr_hint(const std::string& descr) {
  if (descr.size() == 3 && descr[0] == '>') return " (big-endian data: save it little-endian, e.g. a.astype('<" + descr.substr(1) + "'))";
  if (descr == "<i8" || descr == "<u8" || descr == "|u1" || descr == "<u2" || descr == "<u4")
    return " (convert it first, e.g. a.astype(np.int32) or a.astype(np.float32))";
  if (descr == "|b1") return " (booleans: convert them first, e.g. a.astype(np.int8))";
  return "";
}

class HeaderParser {
public:
  HeaderParser(const std::string& text, const std::string& source) : s_(text), src_(source) {}

  void parse(std::string& descr, bool& fortran, std::vector<std::int64_t>& shape) {
    skip_spaces();
    expect('{', "the header must be a Python dict literal starting with '{'");
    bool have_descr = false, have_fortran = false, have_shape = false;
    skip_spaces();
    while (peek() != '}') {
      const std::string key = string_literal("a quoted key");
      skip_spaces();
      expect(':', fmt::format("':' after the key '{}'", key));
      skip_spaces();
      if (key == "descr") {
        if (have_descr) fail("the key 'descr' appears twice");
        descr = string_literal("the descr string (e.g. '<f4')");
        have_descr = true;
      } else if (key == "fortran_order") {
        if (have_fortran) fail("the key 'fortran_order' appears twice");
        if (s_.compare(i_, 4, "True") == 0) { fortran = true; i_ += 4; }
        else if (s_.compare(i_, 5, "False") == 0) { fortran = false; i_ += 5; }
        else fail("'fortran_order' must be True or False");
        have_fortran = true;
      } else if (key == "shape") {
        if (have_shape) fail("the key 'shape' appears twice");
        shape = shape_tuple();
        have_shape = true;
      } else {
        fail(fmt::format("unexpected key '{}' (allowed: exactly 'descr', 'fortran_order', 'shape')", key));
      }
      skip_spaces();
      if (peek() == ',') { ++i_; skip_spaces(); continue; }
      if (peek() != '}') fail("malformed header: expected ',' or '}' after a value in the header dict");
    }
    ++i_;  // '}'
    if (!have_descr) fail("the header has no 'descr' key (required: 'descr', 'fortran_order', 'shape')");
    if (!have_fortran) fail("the header has no 'fortran_order' key (required: 'descr', 'fortran_order', 'shape')");
    if (!have_shape) fail("the header has no 'shape' key (required: 'descr', 'fortran_order', 'shape')");
    // NumPy pads the header with spaces and ends it with exactly one '\n'.
    while (i_ < s_.size() && s_[i_] == ' ') ++i_;
    if (i_ + 1 != s_.size() || s_[i_] != '\n')
      fail("the header dict must be followed only by space padding and one final '\\n', as NumPy writes it");
  }

private:
  char peek() const {
    if (i_ >= s_.size() || s_[i_] == '\n') fail("the header dict is not terminated (no closing '}')");
    return s_[i_];
  }
  void skip_spaces() { while (i_ < s_.size() && s_[i_] == ' ') ++i_; }
  void expect(char c, const std::string& what) {
    if (peek() != c) fail(fmt::format("malformed header: expected {} at header offset {}", what, i_));
    ++i_;
  }
  std::string string_literal(const char* what) {
    const char q = peek();
    if (q != '\'' && q != '"') fail(fmt::format("malformed header: expected {} at header offset {}", what, i_));
    const std::size_t end = s_.find(q, i_ + 1);
    if (end == std::string::npos || s_.find('\n', i_ + 1) < end) fail("malformed header: unterminated string");
    std::string out = s_.substr(i_ + 1, end - i_ - 1);
    i_ = end + 1;
    return out;
  }
  std::vector<std::int64_t> shape_tuple() {
    expect('(', "the shape tuple, e.g. (1, 3, 224, 224)");
    std::vector<std::int64_t> shape;
    bool comma_after_last = false;
    skip_spaces();
    while (peek() != ')') {
      if (peek() == '-') fail("the shape has a negative entry; entries must be integers >= 0");
      if (peek() < '0' || peek() > '9') fail("the shape must be a tuple of non-negative integers, e.g. (2, 3) or (6,) or ()");
      std::int64_t v = 0;
      while (i_ < s_.size() && s_[i_] >= '0' && s_[i_] <= '9') {
        if (v > (std::numeric_limits<std::int64_t>::max() - 9) / 10) fail("a shape entry is too large");
        v = v * 10 + (s_[i_++] - '0');
      }
      if (i_ < s_.size() && (s_[i_] == '.' || s_[i_] == 'e' || s_[i_] == 'E' || s_[i_] == 'L' || s_[i_] == 'j'))
        fail("the shape has a non-integer entry; entries must be integers >= 0");
      shape.push_back(v);
      skip_spaces();
      comma_after_last = false;
      if (peek() == ',') { ++i_; comma_after_last = true; skip_spaces(); continue; }
      if (peek() != ')') fail("malformed shape tuple: expected ',' or ')'");
    }
    ++i_;
    if (shape.size() == 1 && !comma_after_last)
      fail("the shape (n) is not a tuple in Python; a one-dimensional shape is written (n,)");
    return shape;
  }
  [[noreturn]] void fail(const std::string& what) const {
    throw InputError(src_, "", fmt::format("not a valid .npy file: {}", what));
  }

  const std::string& s_;
  const std::string& src_;
  std::size_t i_ = 0;
};

std::uint64_t load_le(const unsigned char* p, int bytes) {
  std::uint64_t v = 0;
  for (int b = bytes - 1; b >= 0; --b) v = (v << 8) | p[b];
  return v;
}

void store_le(std::string& out, std::uint64_t v, int bytes) {
  for (int b = 0; b < bytes; ++b) out.push_back(char((v >> (8 * b)) & 0xFF));
}

double decode(const unsigned char* p, DType d) {
  switch (d) {
    case DType::float16: return fp16::to_double(fp16::Bits(load_le(p, 2)));
    case DType::float32: {
      const std::uint32_t u = std::uint32_t(load_le(p, 4));
      float f;
      std::memcpy(&f, &u, 4);
      return double(f);
    }
    case DType::float64: {
      const std::uint64_t u = load_le(p, 8);
      double f;
      std::memcpy(&f, &u, 8);
      return f;
    }
    case DType::int8: return double(std::int8_t(p[0]));
    case DType::int16: return double(std::int16_t(std::uint16_t(load_le(p, 2))));
    case DType::int32: return double(std::int32_t(std::uint32_t(load_le(p, 4))));
  }
  return 0;
}

// The bits of v in dtype d; throws std::logic_error if v is not exactly representable.
std::uint64_t encode(double v, DType d, std::int64_t index) {
  auto inexact = [&]() -> std::uint64_t {
    throw std::logic_error(fmt::format("write_npy: value {} at flat index {} is not exactly representable as {}; convert it first",
                                       v, index, dtype_name(d)));
  };
  switch (d) {
    case DType::float16: {
      const fp16::Bits h = fp16::from_double(v);
      if (!std::isnan(v) && fp16::to_double(h) != v) return inexact();
      return h;
    }
    case DType::float32: {
      const float f = float(v);
      if (!std::isnan(v) && double(f) != v) return inexact();
      std::uint32_t u;
      std::memcpy(&u, &f, 4);
      return u;
    }
    case DType::float64: {
      std::uint64_t u;
      std::memcpy(&u, &v, 8);
      return u;
    }
    case DType::int8:
    case DType::int16:
    case DType::int32: {
      const int bits = 8 * dtype_bytes(d);
      const double lo = -std::ldexp(1.0, bits - 1), hi = std::ldexp(1.0, bits - 1) - 1;
      if (!(v >= lo && v <= hi) || v != std::floor(v)) return inexact();
      return std::uint64_t(std::int64_t(v)) & ((bits == 64 ? 0 : (1ull << bits)) - 1);
    }
  }
  return 0;
}

}  // namespace

const char* npy_allowed_descrs() { return "<f2 <f4 <f8 |i1 <i1 <i2 <i4"; }

Tensor parse_npy(const std::string& bytes, const std::string& source) {
  auto fail = [&](const std::string& what) { throw InputError(source, "", fmt::format("not a valid .npy file: {}", what)); };
  if (bytes.size() < kMagicLen + 2 || std::memcmp(bytes.data(), kMagic, kMagicLen) != 0)
    fail("it does not start with the magic string \\x93NUMPY (is it a NumPy .npy file? .npz archives and pickles are not accepted)");
  const int major = static_cast<unsigned char>(bytes[6]), minor = static_cast<unsigned char>(bytes[7]);
  if (!((major == 1 || major == 2 || major == 3) && minor == 0))
    fail(fmt::format("format version {}.{} is not supported (supported: 1.0, 2.0, 3.0)", major, minor));
  const std::size_t len_bytes = major == 1 ? 2 : 4;
  if (bytes.size() < kMagicLen + 2 + len_bytes) fail("the file ends inside the header length field");
  const auto* u = reinterpret_cast<const unsigned char*>(bytes.data());
  const std::uint64_t header_len = load_le(u + 8, int(len_bytes));
  const std::uint64_t prefix = kMagicLen + 2 + len_bytes + header_len;
  if (prefix > bytes.size())
    fail(fmt::format("the header is {} bytes long but the file has only {} bytes after the length field", header_len,
                     bytes.size() - kMagicLen - 2 - len_bytes));
  if (prefix % 16 != 0)
    fail(fmt::format("the header is not padded as NumPy pads it: magic, length and header take {} bytes, not a multiple of 64 (or 16, as NumPy < 1.14 wrote)", prefix));
  const std::string header = bytes.substr(kMagicLen + 2 + len_bytes, std::size_t(header_len));
  for (unsigned char c : header)
    if (c >= 0x80 || (c < 0x20 && c != '\n'))
      fail("the header has a non-ASCII or control character (an accepted header is plain ASCII)");

  std::string descr;
  bool fortran = false;
  Tensor t;
  HeaderParser(header, source).parse(descr, fortran, t.shape);
  bool known = false;
  for (const DescrInfo& x : kDescrs)
    if (descr == x.descr) { t.dtype = x.dtype; known = true; }
  if (!known)
    fail(fmt::format("element type (descr) '{}' is not supported; allowed: {}{}", descr, npy_allowed_descrs(), descr_hint(descr)));
  if (fortran) fail("'fortran_order': True is not supported; save a C-ordered array (np.ascontiguousarray(a))");

  const std::uint64_t esize = std::uint64_t(dtype_bytes(t.dtype));
  const std::uint64_t avail = bytes.size() - prefix;
  bool has_zero = false, overflow = false;
  for (std::int64_t d : t.shape) has_zero = has_zero || d == 0;
  // An empty tensor (a zero axis) needs no data, but its other axes must still multiply to a
  // signed 64-bit count: slice sizes and strides are computed in std::int64_t everywhere. (Without
  // a zero axis, the data-size check below already bounds the product.)
  std::uint64_t axes_product = 1;
  for (std::int64_t d : t.shape)
    if (has_zero && d != 0) {
      if (axes_product > std::uint64_t(std::numeric_limits<std::int64_t>::max()) / std::uint64_t(d))
        fail(fmt::format("shape {}: the product of its non-zero axes exceeds 2^63 - 1 (allowed: a shape whose "
                         "non-zero axes multiply to at most 2^63 - 1)", t.shape_text()));
      axes_product *= std::uint64_t(d);
    }
  std::uint64_t need = has_zero ? 0 : esize;  // bytes for product(shape) elements
  for (std::int64_t d : t.shape)
    if (!has_zero && !overflow) {
      if (need > std::numeric_limits<std::uint64_t>::max() / std::uint64_t(d)) overflow = true;
      else need *= std::uint64_t(d);
    }
  if (overflow || need > avail)
    fail(fmt::format("the data is truncated: shape {} of {} needs {} bytes of data, the file has {}", t.shape_text(),
                     descr, overflow ? std::string("more than 2^64") : std::to_string(need), avail));
  if (need < avail)
    fail(fmt::format("{} trailing bytes after the data of shape {} of {} ({} bytes expected)", avail - need,
                     t.shape_text(), descr, need));

  const std::int64_t n = t.elems();
  t.values.resize(std::size_t(n));
  const unsigned char* data = u + prefix;
  for (std::int64_t i = 0; i < n; ++i) t.values[std::size_t(i)] = decode(data + i * esize, t.dtype);
  return t;
}

Tensor read_npy(const std::string& path) { return parse_npy(read_input_file(path, "the .npy file"), path); }

std::string npy_bytes(const Tensor& t) {
  if (std::int64_t(t.values.size()) != t.elems())
    throw std::logic_error(fmt::format("npy_bytes: {} values for shape {}", t.values.size(), t.shape_text()));
  // The header dict exactly as NumPy's repr writes it, keys sorted.
  std::string shape;
  if (t.shape.size() == 1) shape = fmt::format("({},)", t.shape[0]);
  else shape = fmt::format("({})", fmt::join(t.shape, ", "));
  std::string header = fmt::format("{{'descr': '{}', 'fortran_order': False, 'shape': {}, }}", descr_of(t.dtype), shape);
  // Spare room NumPy leaves for the first axis to grow in place (GROWTH_AXIS_MAX_DIGITS = 21).
  if (!t.shape.empty()) header.append(std::size_t(21 - int(std::to_string(t.shape[0]).size())), ' ');
  int version = 1;
  std::size_t len_bytes = 2;
  auto padlen = [&]() { return 64 - (kMagicLen + 2 + len_bytes + header.size() + 1) % 64; };
  if (header.size() + 1 + padlen() > 65535) { version = 2; len_bytes = 4; }
  const std::size_t pad = padlen();
  std::string out(kMagic, kMagicLen);
  out.push_back(char(version));
  out.push_back(0);
  store_le(out, header.size() + pad + 1, int(len_bytes));
  out += header;
  out.append(pad, ' ');
  out.push_back('\n');
  const int esize = dtype_bytes(t.dtype);
  out.reserve(out.size() + t.values.size() * std::size_t(esize));
  for (std::size_t i = 0; i < t.values.size(); ++i) store_le(out, encode(t.values[i], t.dtype, std::int64_t(i)), esize);
  return out;
}

void write_npy(const std::string& path, const Tensor& t) { write_file_atomic(path, npy_bytes(t)); }

}  // namespace flycol
