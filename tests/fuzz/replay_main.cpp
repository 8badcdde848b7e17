// Replay driver: runs a fuzz harness (LLVMFuzzerTestOneInput) over every file of the corpus
// directories or files named on the command line, without libFuzzer, so the default GCC build
// and the sanitizer build replay the committed corpora (one CTest per harness, label fuzz).
// An exception escaping the harness is a finding: the driver names the input and exits 1.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace {

std::vector<std::string> inputs_of(const std::string& arg) {
  namespace fs = std::filesystem;
  std::vector<std::string> out;
  if (fs::is_directory(arg)) {
    for (const auto& e : fs::recursive_directory_iterator(arg))
      if (e.is_regular_file()) out.push_back(e.path().string());
    std::sort(out.begin(), out.end());  // a stable order, so a failure reproduces alike
  } else {
    out.push_back(arg);
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s CORPUS_DIR_OR_FILE...\n  runs the harness once per file; exit 1 on the first input that escapes it\n", argv[0]);
    return 2;
  }
  std::size_t runs = 0;
  const auto start = std::chrono::steady_clock::now();
  for (int i = 1; i < argc; ++i) {
    const std::vector<std::string> files = inputs_of(argv[i]);
    if (files.empty() || !std::filesystem::exists(argv[i])) {
      std::fprintf(stderr, "replay: %s holds no inputs\n", argv[i]);
      return 2;
    }
    for (const std::string& f : files) {
      std::ifstream in(f, std::ios::binary);
      const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      if (!in && !in.eof()) {
        std::fprintf(stderr, "replay: cannot read %s\n", f.c_str());
        return 2;
      }
      try {
        LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
      } catch (const std::exception& e) {
        std::fprintf(stderr, "replay: FINDING on %s: %s\n", f.c_str(), e.what());
        return 1;
      } catch (...) {
        std::fprintf(stderr, "replay: FINDING on %s: a non-std exception\n", f.c_str());
        return 1;
      }
      ++runs;
    }
  }
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("replay: %zu inputs passed in %.2f s\n", runs, s);
  return 0;
}
