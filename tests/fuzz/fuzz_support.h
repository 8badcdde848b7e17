// Shared helpers of the fuzz harnesses (tests/fuzz/*_fuzz.cpp): how an input becomes text or a
// file, and which exceptions count as a clean rejection. Everything else a harness lets escape
// (another exception type, an assert, a sanitizer report, a hang) is a finding.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace flycol::fuzz {

inline std::string as_text(const std::uint8_t* data, std::size_t size) {
  return std::string(reinterpret_cast<const char*>(data), size);
}

// Writes `bytes` to a file of this process (one per suffix, reused for every input) and returns
// its path: for entry points that only take a path (import_onnx, parse_layer_argument).
std::string scratch_file(const std::string& bytes, const std::string& suffix);

}  // namespace flycol::fuzz

// Runs `body`; a flycol::InputError is the documented rejection of bad input and is swallowed.
// Anything else propagates, and libFuzzer (or the replay driver) reports it as a crash.
#define FLYCOL_FUZZ_EXPECT_INPUT_ERROR(body) \
  try {                                      \
    body;                                    \
  } catch (const ::flycol::InputError&) {    \
  }
