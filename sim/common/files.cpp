// Whole-file reading and atomic writing (files.h).
#include "sim/common/files.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <system_error>

#include <fmt/format.h>

#include "sim/common/input_error.h"

namespace flycol {

std::optional<std::string> read_whole_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::stringstream ss;
  ss << in.rdbuf();
  if (in.bad()) return std::nullopt;
  return ss.str();
}

std::string read_input_file(const std::string& path, const std::string& what) {
  std::optional<std::string> text = read_whole_file(path);
  if (!text) throw InputError(path, "", "cannot read " + what);
  return std::move(*text);
}

void write_file_atomic(const std::string& path, const std::string& content) {
  namespace fs = std::filesystem;
  const fs::path target(path);
  std::error_code ec;
  if (target.has_parent_path()) fs::create_directories(target.parent_path(), ec);
  const fs::path tmp = target.parent_path() / fmt::format(".{}.tmp{}", target.filename().string(), ::getpid());
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    if (!f) throw std::runtime_error(fmt::format("cannot write '{}'", path));
    f << content;
    f.flush();
    if (!f) {
      fs::remove(tmp, ec);
      throw std::runtime_error(fmt::format("cannot write '{}' (disk full?)", path));
    }
  }
  fs::rename(tmp, target, ec);
  if (ec) {
    fs::remove(tmp, ec);
    throw std::runtime_error(fmt::format("cannot write '{}': {}", path, ec.message()));
  }
}

}  // namespace flycol
