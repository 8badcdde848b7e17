// Fuzz harness: ONNX models (sim/onnx import_onnx). import_onnx takes a path, as `flycol import`
// does, so each input is written to a scratch .onnx file; every problem must come out as one
// InputError (onnx_import.h), never as a protobuf or ONNX checker exception.
#include <cstddef>
#include <cstdint>

#include "sim/common/input_error.h"
#include "sim/onnx/onnx_import.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = flycol::fuzz::scratch_file(flycol::fuzz::as_text(data, size), ".onnx");
  FLYCOL_FUZZ_EXPECT_INPUT_ERROR(flycol::import_onnx(path));
  return 0;
}
