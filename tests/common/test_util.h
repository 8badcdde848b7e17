// Helpers every Catch2 test may use: paths into the source tree, the InputError a call must
// raise, reading a whole file, and a scratch directory removed at the end of a test case.
#pragma once

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <system_error>

#include <catch2/catch.hpp>
#include <unistd.h>

#include "sim/common/input_error.h"

namespace flycol::test {

inline std::string repo_path(const std::string& rel) { return std::string(FLYCOL_TEST_SOURCE_DIR) + "/" + rel; }

// Runs f, which must throw flycol::InputError, and returns the error for inspection.
template <class F>
InputError input_error_of(F&& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e;
  }
  FAIL("expected flycol::InputError, nothing was thrown");
  throw std::logic_error("unreachable");
}

// The whole file as bytes ("" when it cannot be read: the test's own checks then fail).
inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A fresh directory per test case (named after `tag` and the process), removed at the end.
struct ScratchDir {
  std::filesystem::path path;
  explicit ScratchDir(const std::string& tag) {
    path = std::filesystem::temp_directory_path() / ("flycol_test_" + tag + "_" + std::to_string(::getpid()));
    std::filesystem::remove_all(path);
    std::filesystem::create_directories(path);
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  std::string operator/(const std::string& rel) const { return (path / rel).string(); }
};

}  // namespace flycol::test
