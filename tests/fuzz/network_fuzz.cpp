// Fuzz harness: network files (sim/network parse_network), the YAML `flycol network` and
// `flycol import` read and write.
#include <cstddef>
#include <cstdint>

#include "sim/common/input_error.h"
#include "sim/network/network.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text = flycol::fuzz::as_text(data, size);
  FLYCOL_FUZZ_EXPECT_INPUT_ERROR(flycol::parse_network(text, "fuzz.yaml"));
  return 0;
}
