// The one way flycol reads YAML: the text is screened for pathological input (huge files, deep
// nesting, anchors/aliases/tags, bad encoding, several documents) before yaml-cpp sees it, and the
// parsed tree is checked again, so a hostile or broken file becomes a flycol::InputError.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

namespace flycol {

struct YamlLimits {
  static constexpr std::size_t max_bytes = 1024 * 1024;  // 1 MiB
  static constexpr std::size_t max_lines = 100000;
  static constexpr int max_flow_depth = 32;    // open [ and { at one time
  static constexpr int max_indent = 128;       // columns, counting compact "- " nesting
  static constexpr int max_tree_depth = 16;    // levels of the parsed node tree (root = 1)
  static constexpr std::size_t max_sequence = 100000;
  static constexpr std::size_t max_nodes = 2000000;
};

// Reads a whole file (at most YamlLimits::max_bytes); InputError(path, "", "cannot read file ...")
// if it is missing or unreadable, or too large.
std::string read_text_file(const std::string& path);

// Screens the raw text; throws InputError(source, "", problem) naming the line and column.
void check_yaml_text(const std::string& text, const std::string& source);

// check_yaml_text, then yaml-cpp, then the tree checks. An empty document (or one with only
// comments) gives a null node. yaml-cpp's parse errors become InputErrors quoting line and column.
YAML::Node load_yaml(const std::string& text, const std::string& source);

// read_text_file + load_yaml.
YAML::Node load_yaml_file(const std::string& path);

// The entries of a mapping node in file order, checked: every key a plain or quoted scalar, none
// twice, each one in `allowed`. `key_path` is the dotted path of the mapping ("" for the root,
// "sram", "layers[3]") and names it in messages; `what` describes the expected mapping when the
// node is something else ("a mapping with keys rows, cols").
struct YamlEntry {
  std::string key;
  YAML::Node value;
};
std::vector<YamlEntry> mapping_entries(const YAML::Node& node, const std::string& source,
                                       const std::string& key_path,
                                       const std::vector<std::string>& allowed);

// Joins a dotted key path: join_key("sram", "ifmap") == "sram.ifmap", join_key("", "name") == "name".
std::string join_key(const std::string& prefix, const std::string& key);

}  // namespace flycol
