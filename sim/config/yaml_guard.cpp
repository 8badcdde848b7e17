// Screening of YAML input before and after yaml-cpp (see yaml_guard.h). The text scan is a small
// lexer that knows just enough YAML (quotes, comments, block scalars, document markers) to find
// the constructs flycol refuses without being fooled by the same characters inside strings.
#include "sim/config/yaml_guard.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <yaml-cpp/eventhandler.h>

#include "sim/common/input_error.h"
#include "sim/config/scalars.h"

namespace flycol {

namespace {

[[noreturn]] void fail_at(const std::string& source, std::size_t line, std::size_t column,
                          const std::string& problem) {
  throw InputError(source, "", fmt::format("line {}, column {}: {}", line, column, problem));
}

// Length of the UTF-8 sequence starting at s[i], or 0 if it is not well-formed (overlong forms,
// surrogates and code points above U+10FFFF are rejected, as the Unicode standard requires).
std::size_t utf8_length(const std::string& s, std::size_t i) {
  const auto byte = [&](std::size_t j) { return static_cast<unsigned char>(s[j]); };
  const unsigned char b0 = byte(i);
  if (b0 < 0x80) return 1;
  std::size_t len;
  unsigned lo = 0x80, hi = 0xBF;  // allowed range of the second byte
  if (b0 >= 0xC2 && b0 <= 0xDF) len = 2;
  else if (b0 == 0xE0) len = 3, lo = 0xA0;
  else if (b0 >= 0xE1 && b0 <= 0xEC) len = 3;
  else if (b0 == 0xED) len = 3, hi = 0x9F;
  else if (b0 >= 0xEE && b0 <= 0xEF) len = 3;
  else if (b0 == 0xF0) len = 4, lo = 0x90;
  else if (b0 >= 0xF1 && b0 <= 0xF3) len = 4;
  else if (b0 == 0xF4) len = 4, hi = 0x8F;
  else return 0;
  if (i + len > s.size()) return 0;
  if (byte(i + 1) < lo || byte(i + 1) > hi) return 0;
  for (std::size_t j = 2; j < len; ++j)
    if (byte(i + j) < 0x80 || byte(i + j) > 0xBF) return 0;
  return len;
}

// Bytes, encoding and line count: everything that can be judged without knowing any YAML.
void check_bytes(const std::string& text, const std::string& source) {
  if (text.size() > YamlLimits::max_bytes)
    throw InputError(source, "",
                     fmt::format("is {} bytes: larger than the {} byte (1 MiB) limit for YAML input",
                                 text.size(), YamlLimits::max_bytes));
  std::size_t line = 1, column = 1;
  for (std::size_t i = 0; i < text.size();) {
    const unsigned char ch = static_cast<unsigned char>(text[i]);
    if (ch == 0) fail_at(source, line, column, "NUL byte: YAML input must be UTF-8 text");
    if ((ch < 0x20 && ch != '\t' && ch != '\n' && ch != '\r') || ch == 0x7F)
      fail_at(source, line, column,
              fmt::format("control character 0x{:02X}: YAML input must be printable UTF-8 text", ch));
    const std::size_t len = utf8_length(text, i);
    if (len == 0)
      fail_at(source, line, column, fmt::format("byte 0x{:02X} is not valid UTF-8: YAML input must be UTF-8 text", ch));
    if (ch == '\n') {
      ++line;
      column = 1;
      if (line > YamlLimits::max_lines && i + 1 < text.size())
        throw InputError(source, "",
                         fmt::format("has more than {} lines: too long for a flycol YAML file",
                                     YamlLimits::max_lines));
    } else {
      ++column;
    }
    i += len;
  }
}

bool is_blank(char ch) { return ch == ' ' || ch == '\t'; }
bool is_marker(const std::string& line, const char* marker) {
  return line.compare(0, 3, marker) == 0 && (line.size() == 3 || is_blank(line[3]));
}

// Where flycol's YAML subset ends: a lexer over the lines that tracks quoted strings, comments and
// block scalars, and rejects anchors, aliases, tags, merge keys, directives, deep flow nesting,
// deep indentation and a second document.
class TextScanner {
public:
  TextScanner(const std::string& text, const std::string& source) : text_(text), source_(source) {}

  void run() {
    std::size_t start = 0;
    std::size_t line_no = 0;
    while (start <= text_.size()) {
      std::size_t end = text_.find('\n', start);
      if (end == std::string::npos) end = text_.size();
      std::string line = text_.substr(start, end - start);
      if (!line.empty() && line.back() == '\r') line.pop_back();
      scan_line(line, ++line_no);
      if (end == text_.size()) break;
      start = end + 1;
    }
    // yaml-cpp quietly closes a quote left open at the end of the input.
    if (mode_ != Mode::plain)
      fail_at(source_, quote_line_, quote_column_, "quoted string is never closed");
  }

private:
  enum class Mode { plain, single_quoted, double_quoted };

  void scan_line(const std::string& line, std::size_t line_no) {
    line_ = line_no;
    std::size_t indent = 0;
    while (indent < line.size() && line[indent] == ' ') ++indent;
    const bool blank = line.find_first_not_of(" \t") == std::string::npos;

    if (mode_ == Mode::plain && block_parent_indent_ >= 0) {
      // Inside a literal or folded block scalar everything is text; it ends at the first
      // non-blank line indented no deeper than the line that opened it.
      if (blank || static_cast<int>(indent) > block_parent_indent_) {
        check_indent(blank ? 0 : indent);
        return;
      }
      block_parent_indent_ = -1;
    }

    std::size_t i = 0;
    if (mode_ == Mode::plain) {
      if (is_marker(line, "---")) {
        if (seen_content_ || seen_doc_start_)
          fail_at(source_, line_, 1, "a second YAML document starts here ('---'): a flycol file holds one document");
        seen_doc_start_ = true;
        i = 3;
      } else if (is_marker(line, "...")) {
        doc_ended_ = true;
        i = 3;
      } else if (!line.empty() && line[0] == '%') {
        fail_at(source_, line_, 1, "YAML directives ('%YAML', '%TAG') are not supported in flycol files");
      }
      // Compact nesting ("- - - x", "? - x") indents as much as spaces do.
      std::size_t effective = indent;
      while (effective < line.size() && (line[effective] == '-' || line[effective] == '?' || line[effective] == ':') &&
             (effective + 1 == line.size() || is_blank(line[effective + 1]))) {
        ++effective;
        while (effective < line.size() && is_blank(line[effective])) ++effective;
      }
      check_indent(blank ? 0 : effective);
      if (i == 0) i = indent;
    }

    // Quotes, anchors, aliases, tags, merge keys and block scalars only count where a YAML node
    // can begin (line start, after "key: ", "- ", "? " or a flow indicator); inside a plain scalar
    // ("it's", "a&b", "2 * 3") they are ordinary characters.
    bool node_start = mode_ == Mode::plain;
    for (; i < line.size(); ++i) {
      const char ch = line[i];
      const bool blank_next = i + 1 == line.size() || is_blank(line[i + 1]);
      if (mode_ == Mode::single_quoted) {
        if (ch == '\'') {
          if (i + 1 < line.size() && line[i + 1] == '\'') ++i;  // '' is an escaped quote
          else mode_ = Mode::plain;
        }
        continue;
      }
      if (mode_ == Mode::double_quoted) {
        if (ch == '\\') ++i;
        else if (ch == '"') mode_ = Mode::plain;
        continue;
      }
      if (is_blank(ch)) continue;
      if (ch == '#' && (i == 0 || is_blank(line[i - 1]))) return;  // comment to end of line
      if (doc_ended_)
        fail_at(source_, line_, i + 1, "content after the document end marker '...': a flycol file holds one document");
      seen_content_ = true;
      const bool at_node = node_start;
      node_start = false;
      if (ch == '[' || ch == '{') {
        if (++flow_depth_ > YamlLimits::max_flow_depth)
          fail_at(source_, line_, i + 1,
                  fmt::format("flow collections ('[', '{{') nested deeper than {} levels", YamlLimits::max_flow_depth));
        node_start = true;
      } else if (ch == ']' || ch == '}') {
        if (flow_depth_ > 0) --flow_depth_;
      } else if (ch == ',' && flow_depth_ > 0) {
        node_start = true;
      } else if (ch == ',' && at_node) {
        // Not valid YAML, and yaml-cpp 0.7's LoadAll loops allocating forever on it.
        fail_at(source_, line_, i + 1, "',' cannot start a value outside [ ] or { }: quote the value");
      } else if (ch == ':' && (blank_next || flow_depth_ > 0)) {
        node_start = true;
      } else if ((ch == '-' || ch == '?') && at_node && blank_next) {
        node_start = true;  // "- " and "? " open a node of their own
      } else if (!at_node) {
        continue;
      } else if (ch == '\'' || ch == '"') {
        mode_ = ch == '"' ? Mode::double_quoted : Mode::single_quoted;
        quote_line_ = line_;
        quote_column_ = i + 1;
      } else if (ch == '&') {
        fail_at(source_, line_, i + 1, "YAML anchors ('&') are not supported in flycol files: write the values out");
      } else if (ch == '*') {
        fail_at(source_, line_, i + 1, "YAML aliases ('*') are not supported in flycol files: write the values out");
      } else if (ch == '!') {
        fail_at(source_, line_, i + 1, "YAML tags ('!') are not supported in flycol files");
      } else if (ch == '<' && i + 1 < line.size() && line[i + 1] == '<') {
        fail_at(source_, line_, i + 1, "YAML merge keys ('<<') are not supported in flycol files: write the keys out");
      } else if ((ch == '|' || ch == '>') && opens_block_scalar(line, i + 1)) {
        block_parent_indent_ = static_cast<int>(indent);
        return;
      }
    }
  }

  // After '|' or '>': optional indentation/chomping indicators, then only blanks or a comment.
  static bool opens_block_scalar(const std::string& line, std::size_t i) {
    std::size_t indicators = 0;
    while (i < line.size() && indicators < 2 && (line[i] == '+' || line[i] == '-' || (line[i] >= '1' && line[i] <= '9')))
      ++i, ++indicators;
    while (i < line.size() && is_blank(line[i])) ++i;
    return i == line.size() || (line[i] == '#' && is_blank(line[i - 1]));
  }

  void check_indent(std::size_t columns) const {
    if (columns > static_cast<std::size_t>(YamlLimits::max_indent))
      fail_at(source_, line_, columns + 1,
              fmt::format("indented {} columns: deeper than the {} column limit", columns, YamlLimits::max_indent));
  }

  const std::string& text_;
  const std::string& source_;
  std::size_t line_ = 0;
  std::size_t quote_line_ = 0, quote_column_ = 0;  // where the open quoted string began
  Mode mode_ = Mode::plain;
  int block_parent_indent_ = -1;
  int flow_depth_ = 0;
  bool seen_content_ = false, seen_doc_start_ = false, doc_ended_ = false;
};

// Parser events are not needed to count documents.
class NullEvents : public YAML::EventHandler {
public:
  void OnDocumentStart(const YAML::Mark&) override {}
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t, const std::string&) override {}
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
  void OnMapEnd() override {}
};

// Depth, sequence length and total size of the parsed tree. The node budget also stops a tree
// that shares nodes from being walked exponentially often.
void check_tree(const YAML::Node& node, int depth, std::size_t& nodes, const std::string& source) {
  const auto where = [&] { return fmt::format("line {}", node.Mark().line + 1); };
  if (depth > YamlLimits::max_tree_depth)
    throw InputError(source, "",
                     fmt::format("{}: nested deeper than {} levels", where(), YamlLimits::max_tree_depth));
  if (++nodes > YamlLimits::max_nodes)
    throw InputError(source, "", fmt::format("more than {} YAML nodes", YamlLimits::max_nodes));
  if (node.IsSequence()) {
    if (node.size() > YamlLimits::max_sequence)
      throw InputError(source, "",
                       fmt::format("{}: a sequence of {} entries (at most {})", where(), node.size(),
                                   YamlLimits::max_sequence));
    for (const auto& child : node) check_tree(child, depth + 1, nodes, source);
  } else if (node.IsMap()) {
    for (const auto& kv : node) {
      check_tree(kv.first, depth + 1, nodes, source);
      check_tree(kv.second, depth + 1, nodes, source);
    }
  }
}

std::string join_names(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

}  // namespace

std::string read_text_file(const std::string& path) {
  struct Closer {
    void operator()(std::FILE* f) const { std::fclose(f); }
  };
  errno = 0;
  std::unique_ptr<std::FILE, Closer> f(std::fopen(path.c_str(), "rb"));
  if (!f) throw InputError(path, "", fmt::format("cannot read file ({})", std::strerror(errno)));
  std::string text;
  char buf[65536];
  // Reading one byte past the limit tells an oversized file apart without trusting its size
  // (pipes and /proc files report none).
  while (text.size() <= YamlLimits::max_bytes) {
    const std::size_t got = std::fread(buf, 1, sizeof buf, f.get());
    if (got == 0) break;
    text.append(buf, got);
  }
  if (std::ferror(f.get()))
    throw InputError(path, "", fmt::format("cannot read file ({})", std::strerror(errno)));
  if (text.size() > YamlLimits::max_bytes)
    throw InputError(path, "",
                     fmt::format("is larger than the {} byte (1 MiB) limit for YAML input", YamlLimits::max_bytes));
  return text;
}

void check_yaml_text(const std::string& text, const std::string& source) {
  check_bytes(text, source);
  TextScanner(text, source).run();
}

YAML::Node load_yaml(const std::string& text, const std::string& source) {
  check_yaml_text(text, source);
  YAML::Node root;
  try {
    // Counting documents with a bound instead of YAML::LoadAll, which can loop forever on input
    // that does not consume a token; the text scan above already rejects the cases known to do so.
    std::istringstream in(text);
    YAML::Parser parser(in);
    NullEvents events;
    int docs = 0;
    while (docs < 2 && parser.HandleNextDocument(events)) ++docs;
    if (docs > 1) throw InputError(source, "", "holds more than one YAML document: a flycol file holds one");
    if (docs == 0) return YAML::Node();
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw InputError(source, "",
                     fmt::format("malformed YAML at line {}, column {}: {}", e.mark.line + 1, e.mark.column + 1,
                                 e.msg));
  }
  std::size_t nodes = 0;
  check_tree(root, 1, nodes, source);
  return root;
}

YAML::Node load_yaml_file(const std::string& path) { return load_yaml(read_text_file(path), path); }

std::string join_key(const std::string& prefix, const std::string& key) {
  if (prefix.empty()) return key;
  if (key.empty()) return prefix;
  return prefix + "." + key;
}

std::vector<YamlEntry> mapping_entries(const YAML::Node& node, const std::string& source,
                                       const std::string& key_path,
                                       const std::vector<std::string>& allowed) {
  if (!node.IsMap()) {
    std::string found = describe_node(node);
    if (key_path.empty()) found = node.IsScalar() ? "the top level is a scalar (" + found + ")" : "the top level " + found;
    throw InputError(source, key_path, fmt::format("{}: must be a mapping with keys {}", found, join_names(allowed)));
  }
  std::vector<YamlEntry> entries;
  std::set<std::string> seen;
  for (const auto& kv : node) {
    if (!kv.first.IsScalar())
      throw InputError(source, key_path,
                       fmt::format("has a key that {} (line {}): keys must be names ({})", describe_node(kv.first),
                                   kv.first.Mark().line + 1, join_names(allowed)));
    const std::string key = kv.first.Scalar();
    if (!seen.insert(key).second)
      throw InputError(source, join_key(key_path, key),
                       fmt::format("appears twice in the same mapping (line {})", kv.first.Mark().line + 1));
    bool known = false;
    for (const auto& a : allowed) known = known || a == key;
    if (!known)
      throw InputError(source, join_key(key_path, key), fmt::format("unknown key (allowed: {})", join_names(allowed)));
    entries.push_back({key, kv.second});
  }
  return entries;
}

}  // namespace flycol
