// A small JSON value (null, bool, integer, number, string, array, object with keys kept in
// insertion order) and its serializer: enough for flycol's reports, with no extra dependency.
// Reading JSON back (sweep merges, baselines) goes through yaml-cpp, since JSON is YAML.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace flycol {

class Json {
public:
  using Array = std::vector<Json>;
  using Object = std::vector<std::pair<std::string, Json>>;

  Json() : v_(nullptr) {}
  Json(std::nullptr_t) : v_(nullptr) {}
  Json(bool b) : v_(b) {}
  Json(int i) : v_(std::int64_t(i)) {}
  Json(long i) : v_(std::int64_t(i)) {}
  Json(long long i) : v_(std::int64_t(i)) {}
  Json(unsigned i) : v_(std::int64_t(i)) {}
  Json(unsigned long i) : v_(std::int64_t(i)) {}
  Json(unsigned long long i) : v_(std::int64_t(i)) {}
  Json(double d) : v_(d) {}
  Json(const char* s) : v_(std::string(s)) {}
  Json(std::string s) : v_(std::move(s)) {}
  Json(Array a) : v_(std::move(a)) {}

  static Json object() { Json j; j.v_ = Object{}; return j; }
  static Json array() { Json j; j.v_ = Array{}; return j; }

  // Object access: inserts the key (keeping insertion order) when missing.
  Json& operator[](const std::string& key);
  // Array append.
  Json& push(Json v);

  bool is_object() const { return std::holds_alternative<Object>(v_); }
  const Json* find(const std::string& key) const;

  // Pretty-printed with the given indent (0 = one line). Non-finite numbers become null.
  std::string dump(int indent = 2) const;

private:
  void dump_to(std::string& out, int indent, int depth) const;
  std::variant<std::nullptr_t, bool, std::int64_t, double, std::string, Array, Object> v_;
};

}  // namespace flycol
