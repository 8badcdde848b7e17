// Helpers shared by the configuration tests: catching the InputError a call must raise, and
// paths into the source tree.
#pragma once

#include <stdexcept>
#include <string>

#include <catch2/catch.hpp>

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

}  // namespace flycol::test
