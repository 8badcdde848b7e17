// The accelerator's command format (docs/microarchitecture.md, sections 5, 7 and 8): what the
// layer compiler emits and what the controller, the DMA engines and the RUN pipeline execute.
// The RTL twin is the `command_t` packed struct in flycol_pkg.sv; field widths match.
#pragma once

#include <cstdint>
#include <string>

namespace flycol::hw {

// Field widths of the command format in bits, the one place they are defined: the compiler's
// range checks (sim/compiler/command_limits.h), the generated RTL package (sim/rtlgen) and the
// command packing for the Verilated model all derive from these.
namespace field_bits {
inline constexpr int kOpcode = 3;
inline constexpr int kWait = 32;        // completion-count thresholds
inline constexpr int kBuffer = 1;       // buffer index
inline constexpr int kDramAddr = 40;    // byte address
inline constexpr int kCount = 16;       // counts, lengths and paddings
inline constexpr int kByteStride = 32;  // DMA byte strides
inline constexpr int kStep = 24;        // RUN element steps
inline constexpr int kLaneStride = 8;   // RUN lane stride (sx)
inline constexpr int kPattern = 64;     // kernel pattern (configurations use up to 64 bits of it)
inline constexpr int kElemStep = 8;    // DMA element step of a gathering load
inline constexpr int kPadValue = 16;   // DMA padding element value (raw element bits)
inline constexpr int kPoolOp = 3;      // RUN pooling operation (PoolOp)
inline constexpr int kPoolStride = 8;  // RUN average pooling: vertical window stride
inline constexpr int kPoolStart = 8;   // RUN average pooling: first counted tile row / column
inline constexpr int kPoolSide = 9;    // RUN average pooling: divisor window side (0 .. 256)
}  // namespace field_bits

// A LOAD_IFMAP may gather every elem_step-th DRAM element of a row (section 7.3): 1 (dense) to
// this. A LOAD_WEIGHTS, LOAD_PSUMS or STORE_PSUMS has elem_step 1.
inline constexpr int kMaxElemStep = 4;

enum class Opcode : std::uint8_t { LoadIfmap = 0, LoadWeights = 1, LoadPsums = 2, StorePsums = 3, Run = 4 };

enum class Engine : std::uint8_t { LD = 0, EX = 1, PS = 2 };

inline Engine engine_of(Opcode op) {
  switch (op) {
    case Opcode::LoadIfmap:
    case Opcode::LoadWeights: return Engine::LD;
    case Opcode::Run: return Engine::EX;
    case Opcode::LoadPsums:
    case Opcode::StorePsums: return Engine::PS;
  }
  return Engine::LD;
}

const char* opcode_name(Opcode op);

// A DMA transfer between DRAM and one SRAM buffer (section 7.3). For loads the SRAM side is the
// dense stream written from element 0; for STORE_PSUMS it is read back the same way, with
// pad_right naming the row padding elements that are skipped.
struct DmaDesc {
  std::uint8_t buf = 0;
  std::uint64_t dram_addr = 0;    // 40 bits in RTL; byte address of plane 0, row 0
  std::uint32_t n_planes = 1;     // 16 bits
  std::uint32_t plane_stride = 0; // bytes, 32 bits
  std::uint32_t n_rows = 1;       // 16 bits
  std::uint32_t row_stride = 0;   // bytes, 32 bits
  std::uint32_t row_len = 0;      // elements from DRAM per row, 16 bits
  std::uint32_t pad_left = 0, pad_right = 0;   // zeros per row, 16 bits
  std::uint32_t pad_top = 0, pad_bottom = 0;   // zero rows per plane, 16 bits
  std::uint32_t tail = 0;                      // zeros after the last plane, 16 bits
  // DRAM elements between two stream elements of a row (8 bits): 1 dense; 2..kMaxElemStep a
  // gather (LOAD_IFMAP only), which requests whole beats.
  std::uint32_t elem_step = 1;
  // The raw bits of every element not from DRAM (padding and tail; 16 bits, the element's width
  // of them): 0 for convolution tiles, the type's smallest value for max pooling. LOAD_IFMAP only.
  std::uint32_t pad_value = 0;
  // STORE_PSUMS only (section 7.6): write the rows into ifmap buffer dst_buf instead of DRAM;
  // dram_addr and the strides are then byte addresses inside that buffer. 1 bit each.
  bool dst_ifmap = false;
  std::uint8_t dst_buf = 0;
};

// What a RUN computes (section 8, field pool_op; section 16): a convolution, or pooling windows
// of each channel through the pooling unit. Argmax and MaskedSum serve max pooling's backward pass
// (section 16, "Backward of max pooling"): the argmax's position counted from the window's end,
// and an average whose windows are (index, value) pairs, a value counted only where its index
// equals the pair's number.
enum class PoolOp : std::uint8_t { None = 0, Max = 1, Average = 2, Argmax = 3, MaskedSum = 4 };
inline constexpr int kMaxPoolOp = 4;

// One tile's computation (section 8).
struct RunDesc {
  std::uint8_t ifmap_buf = 0, weight_buf = 0, psum_buf = 0;
  bool preload = false;
  std::uint32_t n_kg = 1, n_cy = 1, n_cx = 1, n_c = 1, n_ky = 1, n_kx = 1;  // 16 bits each
  std::uint32_t step_cx = 0, step_cy = 0, step_c = 0, step_ky = 0;        // elements, 24 bits
  std::uint32_t region = 1;       // interest region width in elements, 16 bits
  std::uint32_t lane_stride = 1;  // sx, 8 bits
  std::uint64_t pattern = 1;      // PB bits; the last (or only) kernel-column chunk
  // Kernel-column chunks (section 9.2): a kernel row is read as n_kxc region rows, step_kxc
  // elements apart; all but the last use region_kxc and pattern_kxc. n_kxc = 1: no split.
  std::uint32_t n_kxc = 1;         // 16 bits
  std::uint32_t step_kxc = 0;      // elements, 24 bits
  std::uint32_t region_kxc = 1;    // 16 bits
  std::uint64_t pattern_kxc = 1;   // PB bits
  // Pixel packing (section 9.2): contexts run on across output rows of width pack_w (0: off).
  std::uint32_t pack_w = 0;       // output-row width Tw, 16 bits
  std::uint32_t pack_r = 0;       // ROWS mod pack_w, 16 bits
  std::uint32_t pack_jump = 0;    // elements added to a lane's offset per row wrap, 24 bits
  // Pooling (section 16, "The pooling RUN"): pool_op 0 is a convolution. The other fields are
  // average pooling's divisor geometry in tile coordinates: window rows start pool_sy apart, and
  // the divisor counts the divisor window's positions in [pool_y0, pool_y1) x [pool_x0, pool_x1).
  std::uint32_t pool_op = 0;      // PoolOp, 3 bits
  std::uint32_t pool_sy = 1;      // 8 bits
  std::uint32_t pool_y0 = 0, pool_x0 = 0;  // 8 bits each
  std::uint32_t pool_y1 = 0, pool_x1 = 0;  // 16 bits each
  // The divisor window (section 16, "The divisor"; the backward pass): its rows and columns
  // (0 .. 256, 9 bits; 0: the data window's n_ky / n_kx) and its column stride between lanes
  // (8 bits; 0: lane_stride).
  std::uint32_t pool_ky = 0, pool_kx = 0;
  std::uint32_t pool_sx = 0;

  bool pooling() const { return pool_op != 0; }
  // Average and masked sum: windows through the divider, with its divisor, checks and ready rule.
  bool pool_divides() const {
    return pool_op == unsigned(PoolOp::Average) || pool_op == unsigned(PoolOp::MaskedSum);
  }

  // The divisor window's rows, columns and column stride (pool_ky, pool_kx, pool_sx or their defaults).
  std::uint32_t divisor_ky() const { return pool_ky != 0 ? pool_ky : n_ky; }
  std::uint32_t divisor_kx() const { return pool_kx != 0 ? pool_kx : n_kx; }
  std::uint32_t divisor_sx() const { return pool_sx != 0 ? pool_sx : lane_stride; }

  std::uint32_t steps_per_context() const { return n_c * n_ky * n_kx; }
  // The last element the feeder reads: the end of the last region row, the last chunk of the
  // last kernel row (a valid RUN's earlier chunks end no later: region_kxc <= step_kxc + region).
  std::uint64_t last_element() const {
    // Packed contexts pass floor((n_cx - 1) * pack_r / pack_w) row ends beyond what step_cx counts.
    const std::uint64_t extra_wraps = pack_w == 0 ? 0 : std::uint64_t(n_cx - 1) * pack_r / pack_w;
    return std::uint64_t(n_cx - 1) * step_cx + extra_wraps * pack_jump + std::uint64_t(n_cy - 1) * step_cy +
           std::uint64_t(n_c - 1) * step_c + std::uint64_t(n_ky - 1) * step_ky + std::uint64_t(n_kxc - 1) * step_kxc +
           region - 1;
  }
  std::uint32_t contexts() const { return n_kg * n_cy * n_cx; }
  // Pooling: elements per window (one window per channel and context).
  std::uint32_t window_len() const { return n_ky * n_kx; }
};

struct Command {
  Opcode op = Opcode::Run;
  std::uint32_t wait_ld = 0, wait_ex = 0, wait_ps = 0;  // start when done counters reach these
  DmaDesc dma;  // LOAD_* and STORE_PSUMS
  RunDesc run;  // RUN

  std::string to_string() const;
};

}  // namespace flycol::hw
