// Unit tests of sim/common/input_error.h: the one exception for bad input names where it came from,
// the key and the problem, in the one message format the command line prints as is.
#include <catch2/catch.hpp>

#include <stdexcept>

#include "sim/common/input_error.h"

using flycol::InputError;

TEST_CASE("InputError's message is source, key and problem", "[common]") {
  const InputError e("configs/x.yaml", "sram.ifmap.kbytes", "= 0: must be an integer in [1, 4096]");
  CHECK(std::string(e.what()) == "configs/x.yaml: key 'sram.ifmap.kbytes': = 0: must be an integer in [1, 4096]");
  CHECK(e.source() == "configs/x.yaml");
  CHECK(e.key() == "sram.ifmap.kbytes");
  CHECK(e.problem() == "= 0: must be an integer in [1, 4096]");
}

TEST_CASE("InputError without a key or a source says so", "[common]") {
  CHECK(std::string(InputError("--layer", "", "unknown key 'q'").what()) == "--layer: unknown key 'q'");
  CHECK(std::string(InputError("", "name", "is missing").what()) == "<input>: key 'name': is missing");
  CHECK(std::string(InputError("", "", "empty").what()) == "<input>: empty");
  // The parts keep what was given, not the placeholder.
  CHECK(InputError("", "", "empty").source().empty());
}

TEST_CASE("InputError is caught as the standard runtime_error", "[common]") {
  // The command line's one handler catches std::exception and exits 2 with the message.
  try {
    throw InputError("--model", "", "unknown model 'x'");
  } catch (const std::runtime_error& e) {
    CHECK(std::string(e.what()) == "--model: unknown model 'x'");
  }
}
