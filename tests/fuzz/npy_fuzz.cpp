// Fuzz harness: .npy files (sim/tensor parse_npy) and what `flycol run` does with a tensor it read:
// convert it to the array's element bits for fp16, int8 and int16 (sim/tensor/convert to_elements).
// A tensor that parses must also be written back (npy_bytes) to bytes that parse to the same values.
#include <cstddef>
#include <cstdint>
#include <cmath>
#include <cstring>
#include <stdexcept>

#include "sim/common/input_error.h"
#include "sim/tensor/convert.h"
#include "sim/tensor/npy.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string bytes = flycol::fuzz::as_text(data, size);
  FLYCOL_FUZZ_EXPECT_INPUT_ERROR({
    const flycol::Tensor t = flycol::parse_npy(bytes, "fuzz.npy");
    const flycol::Tensor back = flycol::parse_npy(flycol::npy_bytes(t), "fuzz.npy (written back)");
    bool same = back.shape == t.shape && back.dtype == t.dtype && back.values.size() == t.values.size();
    for (std::size_t i = 0; same && i < t.values.size(); ++i)  // NaN payloads may be canonicalized
      same = std::isnan(t.values[i]) ? std::isnan(back.values[i])
                                     : std::memcmp(&back.values[i], &t.values[i], sizeof(double)) == 0;
    if (!same)
      throw std::logic_error("npy_fuzz: npy_bytes() of a parsed tensor parses to another tensor");
    for (flycol::Arithmetic a : {flycol::Arithmetic::fp16, flycol::Arithmetic::int8, flycol::Arithmetic::int16}) {
      flycol::RoundingStats stats;
      FLYCOL_FUZZ_EXPECT_INPUT_ERROR(flycol::to_elements(t, a, "fuzz.npy", &stats));
    }
  });
  return 0;
}
