// Fuzz harness: layer specifications. The first byte chooses the form: even, the compact
// "C=64,H=56,..." form of --layer (parse_layer_spec); odd, a YAML layer file given to --layer
// (parse_layer_argument on a scratch .yaml file, the path the command line takes). A layer that
// parses must print a compact spec that parses back to the same layer.
#include <cstddef>
#include <cstdint>
#include <stdexcept>

#include "sim/common/input_error.h"
#include "sim/config/layer.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string text = flycol::fuzz::as_text(data + 1, size - 1);
  FLYCOL_FUZZ_EXPECT_INPUT_ERROR({
    const flycol::Layer l = (data[0] & 1) ? flycol::parse_layer_argument(flycol::fuzz::scratch_file(text, ".yaml"))
                                          : flycol::parse_layer_spec(text, "--layer");
    if (!(flycol::parse_layer_spec(l.spec(), "spec()") == l))
      throw std::logic_error("layer_fuzz: spec() of a parsed layer parses to another layer");
  });
  return 0;
}
