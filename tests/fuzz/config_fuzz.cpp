// Fuzz harness: accelerator configuration YAML (sim/config parse_config). A parsed configuration
// must also survive its own writer: to_yaml() parsed again gives the same Config (a failure there
// is a finding, since `flycol sweep` and the reports write configurations back out).
#include <cstddef>
#include <cstdint>
#include <stdexcept>

#include "sim/common/input_error.h"
#include "sim/config/config.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text = flycol::fuzz::as_text(data, size);
  FLYCOL_FUZZ_EXPECT_INPUT_ERROR({
    const flycol::Config c = flycol::parse_config(text, "fuzz.yaml");
    const flycol::Config again = flycol::parse_config(flycol::to_yaml(c), "fuzz.yaml (written back)");
    if (!(again == c)) throw std::logic_error("config_fuzz: to_yaml() of a parsed config parses to another config");
  });
  return 0;
}
