// Strict scalar parsing for configuration and layer input (see scalars.h): the text decides, not
// yaml-cpp's lenient conversions, so "32.5" for an integer is an error rather than 32.
#include "sim/config/scalars.h"

#include <cmath>
#include <cstdlib>

#include <fmt/format.h>

#include "sim/common/input_error.h"
#include "sim/config/yaml_guard.h"

namespace flycol {

namespace {

bool is_digit(char ch) { return ch >= '0' && ch <= '9'; }

// yaml-cpp tags plain scalars "?" and quoted or block scalars "!": only plain text may be a
// number or a boolean, as YAML itself would type it.
bool is_plain_scalar(const YAML::Node& node) { return node.IsScalar() && node.Tag() == "?"; }

}  // namespace

std::optional<std::int64_t> parse_int_text(const std::string& text) {
  std::size_t i = 0;
  bool negative = false;
  if (i < text.size() && text[i] == '-') {
    negative = true;
    ++i;
  }
  if (i >= text.size()) return std::nullopt;
  if (text[i] == '0' && i + 1 < text.size()) return std::nullopt;  // leading zero: octal in YAML 1.1
  // Saturate well inside int64 so that negation and later comparisons cannot overflow.
  constexpr std::int64_t cap = std::int64_t(1) << 62;
  std::int64_t value = 0;
  for (; i < text.size(); ++i) {
    if (!is_digit(text[i])) return std::nullopt;
    value = value >= cap / 10 ? cap : value * 10 + (text[i] - '0');
  }
  return negative ? -value : value;
}

std::optional<double> parse_number_text(const std::string& text) {
  std::size_t i = 0;
  if (i < text.size() && text[i] == '-') ++i;
  std::size_t int_digits = 0, frac_digits = 0;
  while (i < text.size() && is_digit(text[i])) ++i, ++int_digits;
  if (i < text.size() && text[i] == '.') {
    ++i;
    while (i < text.size() && is_digit(text[i])) ++i, ++frac_digits;
  }
  if (int_digits + frac_digits == 0) return std::nullopt;
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    if (i < text.size() && (text[i] == '+' || text[i] == '-')) ++i;
    std::size_t exp_digits = 0;
    while (i < text.size() && is_digit(text[i])) ++i, ++exp_digits;
    if (exp_digits == 0) return std::nullopt;
  }
  if (i != text.size()) return std::nullopt;
  // strtod is locale-dependent only for the decimal point, and flycol never calls setlocale.
  const double v = std::strtod(text.c_str(), nullptr);
  if (!std::isfinite(v)) return std::nullopt;
  return v;
}

std::string int_range_text(std::int64_t lo, std::int64_t hi) { return fmt::format("[{}, {}]", lo, hi); }

std::string describe_node(const YAML::Node& node) {
  if (!node.IsDefined()) return "is missing";
  if (node.IsNull()) return "has no value";
  if (node.IsMap()) return "is a mapping";
  if (node.IsSequence()) return "is a sequence";
  std::string text = node.Scalar();
  if (text.size() > 40) text = text.substr(0, 37) + "...";
  if (is_plain_scalar(node)) return "= " + text;
  if (text.empty()) return "is an empty string";
  return fmt::format("= \"{}\" (a quoted string)", text);
}

std::int64_t yaml_int(const YAML::Node& node, const std::string& source, const std::string& key,
                      std::int64_t lo, std::int64_t hi) {
  std::optional<std::int64_t> v;
  if (is_plain_scalar(node)) v = parse_int_text(node.Scalar());
  if (!v || *v < lo || *v > hi)
    throw InputError(source, key,
                     fmt::format("{}: must be an integer in {}", describe_node(node), int_range_text(lo, hi)));
  return *v;
}

std::int64_t yaml_int_if(const YAML::Node& node, const std::string& source, const std::string& key,
                         bool (*ok)(std::int64_t), const std::string& expected) {
  std::optional<std::int64_t> v;
  if (is_plain_scalar(node)) v = parse_int_text(node.Scalar());
  if (!v || !ok(*v)) throw InputError(source, key, fmt::format("{}: must be {}", describe_node(node), expected));
  return *v;
}

double yaml_number(const YAML::Node& node, const std::string& source, const std::string& key,
                   double lo, bool lo_open, double hi) {
  std::optional<double> v;
  if (is_plain_scalar(node)) v = parse_number_text(node.Scalar());
  if (!v || (lo_open ? *v <= lo : *v < lo) || *v > hi)
    throw InputError(source, key,
                     fmt::format("{}: must be a number in {}{}, {}]", describe_node(node),
                                 lo_open ? "(" : "[", lo, hi));
  return *v;
}

bool yaml_bool(const YAML::Node& node, const std::string& source, const std::string& key) {
  if (is_plain_scalar(node)) {
    if (node.Scalar() == "true") return true;
    if (node.Scalar() == "false") return false;
  }
  throw InputError(source, key, describe_node(node) + ": must be true or false");
}

std::string yaml_string(const YAML::Node& node, const std::string& source, const std::string& key,
                        const std::string& expected) {
  if (!node.IsScalar()) throw InputError(source, key, describe_node(node) + ": must be " + expected);
  return node.Scalar();
}

bool valid_name(const std::string& s, std::size_t max_len, const std::string& extra) {
  if (s.empty() || s.size() > max_len) return false;
  for (char ch : s) {
    const bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || is_digit(ch) || ch == '_' ||
                    ch == '.' || ch == '-' || (ch != '\0' && extra.find(ch) != std::string::npos);
    if (!ok) return false;
  }
  return true;
}

}  // namespace flycol
