// Helpers every Catch2 test may use: paths into the source tree, the InputError a call must
// raise, reading a whole file, a scratch directory removed at the end of a test case, and (in
// tests built with FLYCOL_BIN) running the flycol executable.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <sstream>
#include <stdexcept>
#include <string>
#include <system_error>

#include <catch2/catch.hpp>
#include <sys/wait.h>
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

#ifdef FLYCOL_BIN
// What one run of the flycol executable (FLYCOL_BIN, given by the test's CMakeLists) returned.
struct FlycolRun {
  int code;
  std::string out, err;
};

// Runs flycol with `args`, its output caught in files of `dir`; `env` ("NAME=value") is set for
// it alone.
inline FlycolRun run_flycol_in(const std::filesystem::path& dir, const std::string& args, const std::string& env = "") {
  const std::string cmd = (env.empty() ? "" : "env " + env + " ") + std::string(FLYCOL_BIN) + " " + args + " >" +
                          (dir / "out").string() + " 2>" + (dir / "err").string();
  const int status = std::system(cmd.c_str());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, slurp(dir / "out"), slurp(dir / "err")};
}

// Runs flycol with `args`, which it must refuse as a usage error (exit 2) whose message names
// each of `mentions`.
inline void check_usage_error(const std::filesystem::path& dir, const std::string& args,
                              std::initializer_list<std::string> mentions) {
  const FlycolRun r = run_flycol_in(dir, args);
  INFO("flycol " << args << "\n" << r.err);
  CHECK(r.code == 2);
  for (const std::string& m : mentions) CHECK(r.err.find(m) != std::string::npos);
}
#endif

}  // namespace flycol::test
