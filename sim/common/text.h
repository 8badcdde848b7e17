// Small text helpers every host library uses: the one definition of each, so that no library
// keeps its own copy.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace flycol {

// "a, b, c" (or with another separator).
std::string join(const std::vector<std::string>& items, std::string_view sep = ", ");
// `s` without leading and trailing spaces, tabs, carriage returns and newlines.
std::string trim(std::string_view s);
// The lines of `text` without their '\n'; a final line without one is kept, no empty last line.
std::vector<std::string> split_lines(std::string_view text);
// True when `s` ends with `suffix`.
bool ends_with(std::string_view s, std::string_view suffix);

}  // namespace flycol
