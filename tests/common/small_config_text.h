// The text of configs/small.yaml (4x4 fp16 array, 2 kB double buffers, B = 4, PB = 32), for the
// tests and fuzz harnesses that must run without the file. One copy, so the tests that read the
// file and those that build it in code cannot drift apart (tests/config checks the file itself).
#pragma once

namespace flycol::test {

inline constexpr const char* kSmallConfigText = R"(name: small
array: { rows: 4, cols: 4 }
arithmetic: fp16
sram:
  ifmap:   { kbytes: 2, buffers: 2, word_bits: 64 }
  weights: { kbytes: 2, buffers: 2, word_bits: 64 }
  psums:   { kbytes: 2, buffers: 2, word_bits: 64 }
feeder: { pattern_bits: 32, intermediate_regs: 2, fifo_depth: 4 }
)";

}  // namespace flycol::test
