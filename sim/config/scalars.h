// Strict scalar parsing shared by configuration and layer files and the compact layer form:
// yaml-cpp's as<int>() accepts "0x20", "1e3" or "+5" and silently truncates, so flycol reads the
// scalar text itself and reports anything else with the expected type and range.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <yaml-cpp/yaml.h>

namespace flycol {

// A decimal integer: optional '-', digits, no leading zeros. Values too large for the int64 range
// saturate (they are out of every allowed range anyway, and get the range message).
std::optional<std::int64_t> parse_int_text(const std::string& text);
// A decimal number: optional '-', digits with an optional fraction, optional exponent. No hex, no
// .inf/.nan.
std::optional<double> parse_number_text(const std::string& text);

// How a node looks, for "must be ..." messages: "= 32.5", "is a mapping", "has no value".
std::string describe_node(const YAML::Node& node);

// "[1, 64]" style range text used by every message.
std::string int_range_text(std::int64_t lo, std::int64_t hi);

// Node readers. Each throws InputError(source, key, "<what was found>: must be ...") when the node
// is not a plain scalar of the right form or lies outside the range.
std::int64_t yaml_int(const YAML::Node& node, const std::string& source, const std::string& key,
                      std::int64_t lo, std::int64_t hi);
// An integer accepted by `ok`; otherwise "<found>: must be <expected>".
std::int64_t yaml_int_if(const YAML::Node& node, const std::string& source, const std::string& key,
                         bool (*ok)(std::int64_t), const std::string& expected);
// A number in the interval lo..hi; lo_open makes the lower bound exclusive: (0, 5000].
double yaml_number(const YAML::Node& node, const std::string& source, const std::string& key,
                   double lo, bool lo_open, double hi);
bool yaml_bool(const YAML::Node& node, const std::string& source, const std::string& key);
// Any scalar, plain or quoted (a plain "null" or empty value is not a string).
std::string yaml_string(const YAML::Node& node, const std::string& source, const std::string& key,
                        const std::string& expected);

// True for 1..max_len characters drawn from [A-Za-z0-9_.-] plus `extra`.
bool valid_name(const std::string& s, std::size_t max_len, const std::string& extra = "");

}  // namespace flycol
