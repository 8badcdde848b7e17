// JSON serialization and all-or-nothing file output.
#include "sim/report/json.h"

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <unistd.h>

#include <fmt/format.h>

namespace flycol {

Json& Json::operator[](const std::string& key) {
  if (std::holds_alternative<std::nullptr_t>(v_)) v_ = Object{};
  auto& obj = std::get<Object>(v_);
  for (auto& kv : obj)
    if (kv.first == key) return kv.second;
  obj.emplace_back(key, Json());
  return obj.back().second;
}

Json& Json::push(Json v) {
  if (std::holds_alternative<std::nullptr_t>(v_)) v_ = Array{};
  auto& arr = std::get<Array>(v_);
  arr.push_back(std::move(v));
  return arr.back();
}

const Json* Json::find(const std::string& key) const {
  if (!is_object()) return nullptr;
  for (const auto& kv : std::get<Object>(v_))
    if (kv.first == key) return &kv.second;
  return nullptr;
}

namespace {
void escape_to(std::string& out, const std::string& s) {
  out += '"';
  for (unsigned char ch : s) {
    switch (ch) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (ch < 0x20) out += fmt::format("\\u{:04x}", ch);
        else out += char(ch);
    }
  }
  out += '"';
}
}  // namespace

void Json::dump_to(std::string& out, int indent, int depth) const {
  auto newline = [&](int d) {
    if (indent > 0) {
      out += '\n';
      out.append(std::size_t(indent * d), ' ');
    }
  };
  if (std::holds_alternative<std::nullptr_t>(v_)) {
    out += "null";
  } else if (auto b = std::get_if<bool>(&v_)) {
    out += *b ? "true" : "false";
  } else if (auto i = std::get_if<std::int64_t>(&v_)) {
    out += fmt::format("{}", *i);
  } else if (auto d = std::get_if<double>(&v_)) {
    // Shortest representation that reads back to the same double.
    out += std::isfinite(*d) ? fmt::format("{}", *d) : "null";
  } else if (auto s = std::get_if<std::string>(&v_)) {
    escape_to(out, *s);
  } else if (auto a = std::get_if<Array>(&v_)) {
    if (a->empty()) { out += "[]"; return; }
    // Arrays of scalars stay on one line: long numeric series would otherwise fill pages.
    bool scalars = true;
    for (const auto& e : *a) scalars = scalars && !e.is_object() && !std::holds_alternative<Array>(e.v_);
    out += '[';
    for (std::size_t k = 0; k < a->size(); ++k) {
      if (k) out += scalars || indent == 0 ? ", " : ",";
      if (!scalars) newline(depth + 1);
      (*a)[k].dump_to(out, indent, depth + 1);
    }
    if (!scalars) newline(depth);
    out += ']';
  } else {
    const auto& o = std::get<Object>(v_);
    if (o.empty()) { out += "{}"; return; }
    out += '{';
    for (std::size_t k = 0; k < o.size(); ++k) {
      if (k) out += indent == 0 ? ", " : ",";
      newline(depth + 1);
      escape_to(out, o[k].first);
      out += ": ";
      o[k].second.dump_to(out, indent, depth + 1);
    }
    newline(depth);
    out += '}';
  }
}

std::string Json::dump(int indent) const {
  std::string out;
  dump_to(out, indent, 0);
  if (indent > 0) out += '\n';
  return out;
}

}  // namespace flycol
