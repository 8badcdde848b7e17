// Fuzz harness: the files and options of `flycol sweep`. The first byte chooses the reader:
// 0 a sweep file (parse_sweep_text), 1 a baseline file (parse_baseline), 2 a results file read back
// as YAML (results_from_yaml, what --merge does with shard results), 3 a --shard argument.
#include <cstddef>
#include <cstdint>

#include "sim/common/input_error.h"
#include "sim/config/yaml_guard.h"
#include "sim/sweep/baseline.h"
#include "sim/sweep/results.h"
#include "sim/sweep/shard.h"
#include "sim/sweep/sweep_spec.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string text = flycol::fuzz::as_text(data + 1, size - 1);
  switch (data[0] % 4) {
    case 0: FLYCOL_FUZZ_EXPECT_INPUT_ERROR(flycol::sweep::parse_sweep_text(text, "fuzz_sweep.yaml")); break;
    case 1: FLYCOL_FUZZ_EXPECT_INPUT_ERROR(flycol::sweep::parse_baseline(text, "fuzz_baseline.yaml")); break;
    case 2:
      FLYCOL_FUZZ_EXPECT_INPUT_ERROR(
          flycol::sweep::results_from_yaml(flycol::load_yaml(text, "fuzz_results.json"), "fuzz_results.json"));
      break;
    default: FLYCOL_FUZZ_EXPECT_INPUT_ERROR(flycol::sweep::parse_shard(text)); break;
  }
  return 0;
}
