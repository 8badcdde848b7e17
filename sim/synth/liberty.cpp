// A small Liberty reader: tokenizes the file, parses it into groups and attributes, and keeps what
// liberty.h describes. Unknown groups and attributes are skipped, so the file may carry more.
#include "sim/synth/liberty.h"

#include <cctype>
#include <memory>
#include <optional>

#include <fmt/format.h>

#include "sim/common/files.h"
#include "sim/common/find_by.h"
#include "sim/common/input_error.h"
#include "sim/report/json.h"

namespace flycol::synth {
namespace {

struct Group {
  std::string type;
  std::vector<std::string> args;
  std::map<std::string, std::string> attrs;
  std::vector<std::unique_ptr<Group>> children;
};

class Parser {
public:
  Parser(const std::string& text, const std::string& source) : s_(text), source_(source) {}

  std::unique_ptr<Group> parse_top() {
    auto g = std::make_unique<Group>();
    std::string type = word();
    expect('(');
    g->type = type;
    g->args = args();
    expect('{');
    body(*g);
    return g;
  }

private:
  [[noreturn]] void fail(const std::string& what) const {
    throw InputError(source_, "", fmt::format("line {}: {}", line_, what));
  }

  void skip_space() {
    for (;;) {
      while (pos_ < s_.size() && (std::isspace(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '\\')) {
        if (s_[pos_] == '\n') ++line_;
        ++pos_;
      }
      if (s_.compare(pos_, 2, "/*") == 0) {
        const auto end = s_.find("*/", pos_ + 2);
        if (end == std::string::npos) fail("unterminated comment");
        for (std::size_t i = pos_; i < end; ++i) line_ += s_[i] == '\n';
        pos_ = end + 2;
      } else if (s_.compare(pos_, 2, "//") == 0) {
        while (pos_ < s_.size() && s_[pos_] != '\n') ++pos_;
      } else {
        return;
      }
    }
  }

  char peek() {
    skip_space();
    return pos_ < s_.size() ? s_[pos_] : '\0';
  }

  void expect(char c) {
    if (peek() != c) fail(fmt::format("expected '{}'", c));
    ++pos_;
  }

  static bool word_char(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '-' || c == '+' || c == '!' ||
           c == '[' || c == ']';
  }

  // A plain word or a quoted string (returned without its quotes).
  std::string word() {
    const char c = peek();
    if (c == '"') {
      const auto end = s_.find('"', pos_ + 1);
      if (end == std::string::npos) fail("unterminated string");
      std::string w = s_.substr(pos_ + 1, end - pos_ - 1);
      pos_ = end + 1;
      return w;
    }
    const std::size_t start = pos_;
    while (pos_ < s_.size() && word_char(s_[pos_])) ++pos_;
    if (pos_ == start) fail(c ? fmt::format("unexpected '{}'", c) : std::string("unexpected end of file"));
    return s_.substr(start, pos_ - start);
  }

  std::vector<std::string> args() {
    std::vector<std::string> out;
    while (peek() != ')') {
      out.push_back(word());
      if (peek() == ',') ++pos_;
    }
    ++pos_;
    return out;
  }

  void body(Group& g) {
    while (peek() != '}') {
      if (peek() == '\0') fail("missing '}'");
      const std::string name = word();
      const char c = peek();
      if (c == ':') {
        ++pos_;
        std::string value = word();
        // Values such as "1ns" or expressions in quotes are one token; anything up to ';' is kept.
        while (peek() != ';') {
          if (peek() == '\0' || peek() == '}') fail(fmt::format("attribute '{}' is missing its ';'", name));
          value += " " + word();
        }
        ++pos_;
        g.attrs[name] = value;
      } else if (c == '(') {
        ++pos_;
        auto child = std::make_unique<Group>();
        child->type = name;
        child->args = args();
        if (peek() == '{') {
          ++pos_;
          body(*child);
          g.children.push_back(std::move(child));
        } else if (peek() == ';') {
          ++pos_;  // complex attribute such as capacitive_load_unit (1, ff);
        }
      } else {
        fail(fmt::format("expected ':' or '(' after '{}'", name));
      }
    }
    ++pos_;
  }

  const std::string& s_;
  std::string source_;
  std::size_t pos_ = 0;
  int line_ = 1;
};

double number(const std::string& v, const std::string& source, const std::string& what) {
  try {
    std::size_t used = 0;
    const double d = std::stod(v, &used);
    if (used == v.size()) return d;
  } catch (const std::exception&) {
  }
  throw InputError(source, what, fmt::format("'{}' is not a number", v));
}

}  // namespace

const LibPin* LibCell::pin(const std::string& n) const {
  for (const auto& p : pins)
    if (p.name == n) return &p;
  return nullptr;
}

double LibCell::data_capacitance() const {
  double c = 0;
  for (const auto& p : pins)
    if (p.input && !p.clock) c += p.capacitance;
  return c;
}

double LibCell::clock_capacitance() const {
  double c = 0;
  for (const auto& p : pins)
    if (p.input && p.clock) c += p.capacitance;
  return c;
}

CellLibrary CellLibrary::parse(const std::string& text, const std::string& source) {
  Parser p(text, source);
  const std::unique_ptr<Group> lib = p.parse_top();
  if (lib->type != "library") throw InputError(source, "", "not a Liberty library (no 'library' group)");
  CellLibrary out;
  out.name_ = lib->args.empty() ? std::string() : lib->args[0];
  for (const auto& g : lib->children) {
    if (g->type != "cell") continue;
    if (g->args.size() != 1) throw InputError(source, "cell", "a cell group needs one name");
    LibCell cell;
    cell.name = g->args[0];
    const auto area = g->attrs.find("area");
    if (area == g->attrs.end()) throw InputError(source, "cell " + cell.name, "has no area");
    cell.area = number(area->second, source, "cell " + cell.name + " area");
    for (const auto& c : g->children) {
      if (c->type == "ff") {
        cell.flop = true;
      } else if (c->type == "pin") {
        if (c->args.size() != 1) throw InputError(source, "cell " + cell.name, "a pin group needs one name");
        LibPin pin;
        pin.name = c->args[0];
        const auto dir = c->attrs.find("direction");
        if (dir == c->attrs.end())
          throw InputError(source, "cell " + cell.name + " pin " + pin.name, "has no direction");
        pin.input = dir->second == "input";
        const auto cap = c->attrs.find("capacitance");
        if (cap != c->attrs.end()) pin.capacitance = number(cap->second, source, "cell " + cell.name + " pin " + pin.name);
        const auto clk = c->attrs.find("clock");
        pin.clock = clk != c->attrs.end() && clk->second == "true";
        cell.pins.push_back(pin);
      }
    }
    out.cells_[cell.name] = std::move(cell);
  }
  if (out.cells_.empty()) throw InputError(source, "", "the library defines no cells");
  return out;
}

CellLibrary CellLibrary::load(const std::string& path) {
  return parse(read_input_file(path, "the cell library"), path);
}

const LibCell* CellLibrary::find(const std::string& cell) const {
  return find_value(cells_, cell);
}

}  // namespace flycol::synth
