// Whole-file reading and writing for the host libraries: reports, exported packages and generated
// files appear whole or not at all. (YAML input is read through read_text_file in
// sim/config/yaml_guard.h, which bounds its size.)
#pragma once

#include <optional>
#include <string>

namespace flycol {

// Writes `content` to `path` so that the file appears whole or not at all: the text goes to a
// temporary file in the same directory, which is renamed over `path` once complete. Parent
// directories are created. Throws std::runtime_error naming the path on failure.
void write_file_atomic(const std::string& path, const std::string& content);

// The whole content of the file at `path`, byte for byte; nothing if it cannot be opened or read
// (callers say what the file was for in their own error).
std::optional<std::string> read_whole_file(const std::string& path);

// The whole content of an input file the user named; throws InputError(path, "", "cannot read
// <what>") when it cannot be read.
std::string read_input_file(const std::string& path, const std::string& what);

}  // namespace flycol
