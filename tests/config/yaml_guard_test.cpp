// Tests of the pathological-YAML guard: each limit at its bound (accepted) and one step past it
// (rejected with the source and a clear problem), and the same characters inside quotes, comments
// and block scalars, where they are harmless and must not be rejected.
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include <catch2/catch.hpp>

#include "sim/config/config.h"
#include "sim/config/yaml_guard.h"
#include "tests/common/test_util.h"

using flycol::InputError;
using flycol::test::input_error_of;
using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;

namespace {

std::string repeat(const std::string& s, std::size_t n) {
  std::string out;
  out.reserve(s.size() * n);
  for (std::size_t i = 0; i < n; ++i) out += s;
  return out;
}

// The problem raised by load_yaml for `text`, which must be rejected.
std::string rejected(const std::string& text) {
  const InputError e = input_error_of([&] { flycol::load_yaml(text, "guard.yaml"); });
  CHECK(e.source() == "guard.yaml");
  CHECK(e.key().empty());
  return e.problem();
}

void accepted(const std::string& text) { CHECK_NOTHROW(flycol::load_yaml(text, "guard.yaml")); }

// A temporary file removed at the end of the scope.
class TempFile {
public:
  explicit TempFile(const std::string& content)
      : path_((std::filesystem::temp_directory_path() /
               ("flycol_guard_" + std::to_string(reinterpret_cast<std::uintptr_t>(this)) + ".yaml"))
                  .string()) {
    std::ofstream(path_, std::ios::binary) << content;
  }
  ~TempFile() { std::remove(path_.c_str()); }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  const std::string& path() const { return path_; }

private:
  std::string path_;
};

}  // namespace

TEST_CASE("guard: file size", "[yaml_guard]") {
  const std::string line = "# " + std::string(1021, 'x') + "\n";  // 1 KiB
  accepted(repeat(line, 1024));                                    // exactly 1 MiB
  CHECK_THAT(rejected(repeat(line, 1024) + "\n"), Contains("larger than the 1048576 byte (1 MiB) limit"));
  TempFile big(repeat(line, 1025));
  const InputError e = input_error_of([&] { flycol::load_config(big.path()); });
  CHECK(e.source() == big.path());
  CHECK_THAT(e.problem(), Contains("larger than the 1048576 byte (1 MiB) limit"));
}

TEST_CASE("guard: line count", "[yaml_guard]") {
  accepted(repeat("#\n", 100000));
  accepted(repeat("#\n", 99999) + "a: 1");
  CHECK_THAT(rejected(repeat("#\n", 100000) + "a: 1\n"), Contains("more than 100000 lines"));
  CHECK_THAT(rejected(repeat("\n", 100001) + "a: 1"), Contains("more than 100000 lines"));
}

TEST_CASE("guard: flow nesting", "[yaml_guard]") {
  CHECK_NOTHROW(flycol::check_yaml_text("a: " + repeat("[", 32) + repeat("]", 32), "t"));
  CHECK_THAT(rejected("a: " + repeat("[", 33) + repeat("]", 33)),
             Contains("line 1, column 36: flow collections ('[', '{') nested deeper than 32 levels"));
  CHECK_THAT(rejected("a: " + repeat("{b: ", 40) + "1" + repeat("}", 40)), Contains("nested deeper than 32 levels"));
  // Brackets that close free the depth again; brackets in strings and comments do not count.
  accepted("a: [[[1]]]\n" + repeat("# [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[\n", 2));
  accepted("a: '" + repeat("[", 100) + "'\nb: \"" + repeat("{", 100) + "\"\n");
  std::string many;
  for (int i = 0; i < 50; ++i) many += "k" + std::to_string(i) + ": [[[[1]]]]\n";
  accepted(many);
}

TEST_CASE("guard: indentation", "[yaml_guard]") {
  const auto nested = [](int levels) {  // each level indents 8 more columns
    std::string s;
    for (int i = 0; i < levels; ++i) s += std::string(8 * i, ' ') + "k" + std::to_string(i) + ":\n";
    return s + std::string(8 * levels, ' ') + "leaf: 1\n";
  };
  CHECK_NOTHROW(flycol::check_yaml_text(nested(16), "t"));  // deepest line at 128 columns
  CHECK_THAT(input_error_of([&] { flycol::check_yaml_text(nested(17), "t"); }).problem(),
             Contains("line 18, column 137: indented 136 columns: deeper than the 128 column limit"));
  // Compact nesting counts like indentation.
  CHECK_NOTHROW(flycol::check_yaml_text("a:\n" + repeat("- ", 64) + "x\n", "t"));
  CHECK_THAT(rejected("a:\n" + repeat("- ", 65) + "x\n"), Contains("indented 130 columns"));
  // Blank lines full of spaces are not indentation.
  accepted("a: 1\n" + std::string(300, ' ') + "\nb: 2\n");
}

TEST_CASE("guard: anchors, aliases, tags and merge keys", "[yaml_guard]") {
  CHECK_THAT(rejected("a: &x 1\nb: 2\n"), Contains("line 1, column 4: YAML anchors ('&') are not supported"));
  CHECK_THAT(rejected("a: 1\nb: *x\n"), Contains("line 2, column 4: YAML aliases ('*') are not supported"));
  CHECK_THAT(rejected("a: [1, *x]\n"), Contains("YAML aliases"));
  CHECK_THAT(rejected("- &x [1]\n"), Contains("YAML anchors"));
  CHECK_THAT(rejected("- - *x\n"), Contains("line 1, column 5: YAML aliases"));
  CHECK_THAT(rejected("? &x a\n: 1\n"), Contains("YAML anchors"));
  CHECK_THAT(rejected("a: {b: [1, *x]}\n"), Contains("line 1, column 12: YAML aliases"));
  CHECK_THAT(rejected("&x a: 1\n"), Contains("line 1, column 1: YAML anchors"));
  CHECK_THAT(rejected("a: 'q' \nb: !t 1\n"), Contains("line 2, column 4: YAML tags"));
  CHECK_THAT(rejected("a: !!int 3\n"), Contains("line 1, column 4: YAML tags ('!') are not supported"));
  CHECK_THAT(rejected("a: {b: !foo 3}\n"), Contains("YAML tags"));
  CHECK_THAT(rejected("a:\n  <<: {b: 1}\n"), Contains("line 2, column 3: YAML merge keys ('<<') are not supported"));
  // The billion-laughs shape never reaches yaml-cpp.
  CHECK_THAT(rejected("a: &a [1, 1]\nb: &b [*a, *a]\nc: [*b, *b]\n"), Contains("YAML anchors"));
  SECTION("the same characters are harmless in quotes, comments, plain text and block scalars") {
    accepted("a: '&x *y !z <<'\nb: \"&x *y !z << \\\" &w\"\n");
    accepted("a: 1  # &anchor *alias !tag <<\n# &x\n");
    accepted("a: b&c\nd: it's\ne: x*y!\nf: 'it''s &'\n");
    accepted("a: 2 * 3\nb: x & y\nc: hello !world\nd: x, *y\ne: a << b\nf: -1\n");
    accepted("a: |\n  &x *y !z << [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[\n  ---\nb: >-\n  *more\n\nc: 1\n");
    accepted("a: \"multi\n  line &x\n  string\"\nb: 2\n");
  }
  SECTION("after a block scalar ends, the scan resumes") {
    CHECK_THAT(rejected("a: |\n  text\nb: &x 1\n"), Contains("line 3, column 4: YAML anchors"));
  }
}

TEST_CASE("guard: encoding", "[yaml_guard]") {
  accepted("# caf\xC3\xA9, \xE4\xB8\xAD, \xF0\x9F\x98\x80\na: '\xC3\xA9'\n");
  accepted("\xEF\xBB\xBF" "a: 1\n");  // a UTF-8 byte order mark
  accepted("a: 1\r\nb: 2\r\n");
  struct Case {
    std::string text, expect;
  };
  const Case cases[] = {
      {std::string("a: 1\nb: x\0y\n", 11), "line 2, column 5: NUL byte"},
      {"a: \xE9t\xE9\n", "line 1, column 4: byte 0xE9 is not valid UTF-8"},
      {"a: \xC3\n", "byte 0xC3 is not valid UTF-8"},           // truncated sequence
      {"a: \xC0\x80\n", "byte 0xC0 is not valid UTF-8"},       // overlong NUL
      {"a: \xE0\x80\xAF\n", "byte 0xE0 is not valid UTF-8"},   // overlong '/'
      {"a: \xED\xA0\x80\n", "byte 0xED is not valid UTF-8"},   // UTF-16 surrogate
      {"a: \xF4\x90\x80\x80\n", "byte 0xF4 is not valid UTF-8"},  // above U+10FFFF
      {"a: \x80\n", "byte 0x80 is not valid UTF-8"},           // stray continuation byte
      {"a: \x01\n", "control character 0x01"},
      {"a: \x7F\n", "control character 0x7F"},
      {"\xFF\xFE" "a\0:\0", "byte 0xFF is not valid UTF-8"},  // UTF-16 with a byte order mark
  };
  for (const auto& c : cases) {
    INFO(c.expect);
    CHECK_THAT(rejected(c.text), Contains(c.expect));
  }
}

TEST_CASE("guard: a value starting with ',' outside flow collections", "[yaml_guard]") {
  // Invalid YAML that sends yaml-cpp 0.7 into an endless allocation loop.
  CHECK(rejected(",") == "line 1, column 1: ',' cannot start a value outside [ ] or { }: quote the value");
  CHECK_THAT(rejected("- 1\n,x\n"), Contains("line 2, column 1: ',' cannot start a value"));
  CHECK_THAT(rejected("a: , *b\n"), Contains("line 1, column 4: ',' cannot start a value"));
  accepted("a: 1, 2\nb: [1, 2]\nc: {d: 1, e: [3, 4]}\nf: ','\n");
}

TEST_CASE("guard: one document only", "[yaml_guard]") {
  accepted("---\na: 1\n");
  accepted("# comment\n---\na: 1\n...\n# trailing comment\n");
  CHECK_THAT(rejected("a: 1\n---\nb: 2\n"), Contains("line 2, column 1: a second YAML document starts here ('---')"));
  CHECK_THAT(rejected("---\na: 1\n---\n"), Contains("a second YAML document"));
  CHECK_THAT(rejected("a: 1\n...\nb: 2\n"), Contains("line 3, column 1: content after the document end marker '...'"));
  CHECK_THAT(rejected("%YAML 1.2\n---\na: 1\n"), Contains("YAML directives"));
  CHECK_THAT(rejected("%TAG ! tag:example.com,2000:\n---\na: 1\n"), Contains("YAML directives"));
  CHECK_THAT(rejected("a: \"x\n---\ny\"\n"), StartsWith("malformed YAML at line 2, column 1"));
  // "---" inside a value is text.
  CHECK(flycol::load_yaml("a: ---x\nb: '---'\n", "t")["b"].Scalar() == "---");
}

TEST_CASE("guard: tree depth and sequence length after parsing", "[yaml_guard]") {
  const auto nested = [](int n) { return repeat("{a: ", n) + "1" + repeat("}", n); };
  accepted(nested(15));  // 15 mappings and the scalar: 16 levels
  CHECK_THAT(rejected(nested(16)), Contains("line 1: nested deeper than 16 levels"));
  accepted("s: [" + repeat("0,", 99999) + "0]\n");
  CHECK_THAT(rejected("s: [" + repeat("0,", 100000) + "0]\n"), Contains("a sequence of 100001 entries (at most 100000)"));
}

TEST_CASE("guard: malformed YAML quotes line and column", "[yaml_guard]") {
  CHECK_THAT(rejected("a: 1\nb: [1, 2\nc: 3\n"), StartsWith("malformed YAML at line "));
  CHECK_THAT(rejected("a: 1\n b: 2\n"), Contains("malformed YAML at line 2, column 3: "));
  CHECK(rejected("a: 1\nb: 'unterminated\n") == "line 2, column 4: quoted string is never closed");
  CHECK(rejected("a: \"open \\\"\n") == "line 1, column 4: quoted string is never closed");
  CHECK_THAT(rejected("a:\n\t- 1\n"), StartsWith("malformed YAML at line 2"));
  CHECK(flycol::load_yaml("", "t").IsNull());
  CHECK(flycol::load_yaml("# nothing\n", "t").IsNull());
}

TEST_CASE("guard: reading files", "[yaml_guard]") {
  TempFile f("a: 1\n");
  CHECK(flycol::read_text_file(f.path()) == "a: 1\n");
  CHECK(flycol::load_yaml_file(f.path())["a"].Scalar() == "1");
  const InputError e = input_error_of([] { flycol::read_text_file("/nonexistent/x.yaml"); });
  CHECK(e.source() == "/nonexistent/x.yaml");
  CHECK(e.problem() == "cannot read file (No such file or directory)");
  CHECK_THAT(input_error_of([] { flycol::read_text_file("/"); }).problem(), StartsWith("cannot read file"));
}

TEST_CASE("guard: mapping entries", "[yaml_guard]") {
  const YAML::Node n = flycol::load_yaml("a: 1\nb: 2\n", "t");
  const auto entries = flycol::mapping_entries(n, "t", "sec", {"a", "b", "c"});
  REQUIRE(entries.size() == 2);
  CHECK(entries[0].key == "a");
  CHECK(entries[1].value.Scalar() == "2");
  const InputError unknown = input_error_of([&] { flycol::mapping_entries(n, "t", "sec", {"a"}); });
  CHECK(unknown.key() == "sec.b");
  CHECK(unknown.problem() == "unknown key (allowed: a)");
  const InputError twice = input_error_of([] {
    flycol::mapping_entries(flycol::load_yaml("a: 1\na: 2\n", "t"), "t", "", {"a"});
  });
  CHECK(twice.key() == "a");
  CHECK(twice.problem() == "appears twice in the same mapping (line 2)");
  const InputError complex_key = input_error_of([] {
    flycol::mapping_entries(flycol::load_yaml("[a]: 1\n", "t"), "t", "", {"a"});
  });
  CHECK_THAT(complex_key.problem(), Contains("has a key that is a sequence"));
  CHECK(flycol::join_key("", "a") == "a");
  CHECK(flycol::join_key("a", "b") == "a.b");
}
