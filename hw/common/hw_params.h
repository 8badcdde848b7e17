// Hardware parameters of one accelerator configuration, shared by every block core (derived from
// the YAML configuration by flycol::hardware_params, sim/config/config_keys.h); plus the fixed-width types the hardware models use. Capacities
// (kMax*) size the cores' fixed arrays, so the models never allocate in the cycle loop.
#pragma once

#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <string>

#include "base/numerics/arithmetic.h"
#include "hw/common/protocol_error.h"

namespace flycol::hw {

// Raw element bits on the SRAM buses: fp16 patterns, or int8/int16 two's complement.
using elem_t = std::uint16_t;
// Raw accumulator bits: fp16 in the low 16 bits, or int32.
using acc_t = std::uint32_t;
// Generic SRAM word element (either of the above).
using word_elem_t = std::uint32_t;

inline constexpr int kMaxRows = 64;
inline constexpr int kMaxCols = 64;
inline constexpr int kMaxWordElems = 64;  // elements per SRAM word (ifmap bus B, COLS, ROWS)
inline constexpr int kMaxM = 8;
inline constexpr int kMaxLaneFifo = 64;

// Fixed depths of the spec (docs/microarchitecture.md, section 3).
inline constexpr int kWeightFifoDepth = 4;
inline constexpr int kResultQueueDepth = 2;
// Windows 0 .. 2 of a RUN (FILL, FILL, SWAP0) deliver no results; window k >= 3 delivers those of
// context k - 3, and a RUN has n_ctx + 3 windows (docs/microarchitecture.md 9.4).
inline constexpr int kFirstResultWindow = 3;
inline constexpr int kChunkQueueDepth = 32;  // outstanding reads per DMA engine: covers the DRAM bandwidth-delay product
inline constexpr int kBeatBytes = 32;
inline constexpr int kCmdQueueDepth = 2;

struct HwParams {
  int rows = 16, cols = 16;
  Arithmetic arithmetic = Arithmetic::fp16;
  bool zero_gating = true;
  bool operand_isolation = true;  // hold the multiplier's operands on steps that compute nothing
  int elem_bits = 16, acc_bits = 16;
  int bus_elems = 16;      // B: ifmap word in elements (power of two)
  int log2_bus = 4;
  int pattern_bits = 64;   // PB
  int m = 3;               // intermediate registers per lane
  int lane_fifo_depth = 4; // FD, groups of M
  int ifmap_depth = 1024, weight_depth = 1024, psum_depth = 1024;  // words per buffer
  int ifmap_buffers = 2, weight_buffers = 2, psum_buffers = 2;

  int preload_queue_depth() const { return 2 * cols; }
  int elem_bytes() const { return elem_bits / 8; }
  int acc_bytes() const { return acc_bits / 8; }
};

// One row per hardware parameter: the one list the RTL configuration package (its cfg_t fields,
// their values and the range bounds the RTL blocks check) and the cores' parameter checks are
// generated from. Ranges are the capacities of the models (the fixed sizes above), which may be
// wider than what a configuration file allows (sim/config/config_keys.h).
struct HwParamField {
  const char* name;  // HwParams member
  const char* rtl;   // field of flycol_pkg::cfg_t, nullptr when the RTL takes it otherwise
  const char* doc;   // where it comes from and what it means
  std::int64_t min, max;
  std::int64_t (*get)(const HwParams&);
  void (*set)(HwParams&, std::int64_t);
};

#define FLYCOL_HW_FIELD(member, rtl, doc, lo, hi)                                   \
  HwParamField {                                                                     \
    #member, rtl, doc, lo, hi, [](const HwParams& p) { return std::int64_t(p.member); }, \
        [](HwParams& p, std::int64_t v) { p.member = decltype(p.member)(v); }        \
  }
inline const HwParamField kHwParamFields[] = {
    FLYCOL_HW_FIELD(rows, "rows", "array.rows: PE rows, output pixels along x", 1, kMaxRows),
    FLYCOL_HW_FIELD(cols, "cols", "array.cols: PE columns, output channels", 1, kMaxCols),
    FLYCOL_HW_FIELD(arithmetic, "arith", "arithmetic: 0 fp16, 1 int8, 2 int16", 0, 2),
    FLYCOL_HW_FIELD(zero_gating, "zero_gating", "pe.zero_gating: 1 = a zero operand skips the MAC", 0, 1),
    FLYCOL_HW_FIELD(operand_isolation, "operand_isolation",
                    "pe.operand_isolation: 1 = the multiplier's operands hold on idle and gated steps", 0, 1),
    FLYCOL_HW_FIELD(elem_bits, "elem_bits", "operand width (from arithmetic)", 8, 16),
    FLYCOL_HW_FIELD(acc_bits, "acc_bits", "accumulator width (from arithmetic)", 16, 32),
    FLYCOL_HW_FIELD(bus_elems, "bus_elems", "B: ifmap SRAM word in elements (sram.ifmap.word_bits / elem_bits)", 1,
                    kMaxWordElems),
    FLYCOL_HW_FIELD(log2_bus, "log2_bus", "log2(B)", 0, 6),
    FLYCOL_HW_FIELD(pattern_bits, "pattern_bits", "feeder.pattern_bits", 1, 64),
    FLYCOL_HW_FIELD(m, "m", "feeder.intermediate_regs", 1, kMaxM),
    FLYCOL_HW_FIELD(lane_fifo_depth, "lane_fifo_depth", "feeder.fifo_depth, in groups of m", 1, kMaxLaneFifo),
    FLYCOL_HW_FIELD(ifmap_depth, "ifmap_depth", "ifmap SRAM words per buffer (kbytes, word_bits)", 1, 1 << 30),
    FLYCOL_HW_FIELD(weight_depth, "weight_depth", "weight SRAM words per buffer (kbytes, word_bits)", 1, 1 << 30),
    FLYCOL_HW_FIELD(psum_depth, "psum_depth", "psum SRAM words per buffer (kbytes, word_bits)", 1, 1 << 30),
    FLYCOL_HW_FIELD(ifmap_buffers, nullptr, "sram.ifmap.buffers", 1, 2),
    FLYCOL_HW_FIELD(weight_buffers, nullptr, "sram.weights.buffers", 1, 2),
    FLYCOL_HW_FIELD(psum_buffers, nullptr, "sram.psums.buffers", 1, 2),
};
#undef FLYCOL_HW_FIELD

inline const HwParamField* find_hw_param_field(const char* name) {
  for (const auto& f : kHwParamFields)
    if (std::strcmp(f.name, name) == 0) return &f;
  return nullptr;
}

// A block core's check of the parameters it uses against their ranges in the table: a
// ProtocolError naming the block, the field, its value and the range.
inline void check_hw_param_ranges(const HwParams& p, const char* block, std::initializer_list<const char*> names) {
  for (const char* name : names) {
    const HwParamField* f = find_hw_param_field(name);
    if (f == nullptr) protocol_error(block, std::string("no hardware parameter ") + name);
    const std::int64_t v = f->get(p);
    if (v < f->min || v > f->max)
      protocol_error(block, "parameter " + std::string(name) + " = " + std::to_string(v) + " outside " +
                                std::to_string(f->min) + ".." + std::to_string(f->max));
  }
}

}  // namespace flycol::hw
