// The scratch files of the fuzz harnesses: one file per process and suffix in the temp directory,
// rewritten for each input, so that a campaign of millions of inputs leaves no litter behind.
#include "tests/fuzz/fuzz_support.h"

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <stdexcept>

#include <fmt/format.h>

namespace flycol::fuzz {
namespace {

// Removes the scratch files at exit (libFuzzer exits through exit(), which runs these).
struct ScratchFiles {
  std::map<std::string, std::string> by_suffix;
  ~ScratchFiles() {
    for (const auto& kv : by_suffix) std::remove(kv.second.c_str());
  }
};

ScratchFiles& scratch() {
  static ScratchFiles s;
  return s;
}

}  // namespace

std::string scratch_file(const std::string& bytes, const std::string& suffix) {
  std::string& path = scratch().by_suffix[suffix];
  if (path.empty())
    path = (std::filesystem::temp_directory_path() / fmt::format("flycol_fuzz_{}{}", getpid(), suffix)).string();
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  f.close();
  if (!f) throw std::runtime_error("fuzz harness: cannot write scratch file " + path);
  return path;
}

}  // namespace flycol::fuzz
