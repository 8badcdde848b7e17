// The layer compiler (docs/microarchitecture.md, sections 4, 5, 8 and 12): turns one convolution
// layer and an accelerator configuration into the command stream and the DRAM layout that the
// SystemC model, the RTL and the analytical model all execute. Host side only, no timing.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "hw/common/command.h"
#include "hw/common/hw_params.h"
#include "sim/compiler/pool_shape.h"
#include "sim/config/config.h"
#include "sim/config/layer.h"
#include "sim/workload/workload.h"

namespace flycol {

// Tile sizes and loop order forced by the user; 0 lets the compiler choose. Forced values are
// validated like any input (InputError with source "compile options" and the option's key).
struct CompileOptions {
  int tile_c = 0;   // input channels per slice (Tc)
  int tile_kg = 0;  // output-channel groups of array.cols per tile (n_kg)
  int tile_h = 0;   // output rows per tile (Th)
  int tile_w = 0;   // output columns per tile (Tw): a multiple of array.rows, or Wo
  // "output_stationary" (output tiles outermost, k tiles, then channel slices), "k_outer" (k tiles
  // outermost: weights stay resident) or "spill" (channel slices outermost, partial sums leave the
  // chip after every slice).
  std::string order = "output_stationary";
  // How a tile lies in the ifmap buffer (tiling.h, TileLayout): row pitch rounded up to a multiple
  // of the feeder's bus width; only the input rows a ky = 1 kernel reads (sy > 1); contexts
  // running across output rows (1x1 kernels, whole output rows).
  bool align_rows = false;
  bool skip_rows = false;
  bool flat_contexts = false;
  // kx = 1, sx = 2..hw::kMaxElemStep: the LOAD_IFMAP gathers every sx-th column (DmaDesc::elem_step),
  // so the buffer holds only the columns the outputs read and the RUN is a stride-1 1 x ky.
  bool gather_cols = false;
  // Images per tile (Tn), packing contexts across images (microarchitecture 12): N > 1, a 1x1
  // kernel with stride 1 and no padding, flat_contexts, Th = Ho. 0: the compiler chooses
  // (the most images that fit when the layer can pack, else 1).
  int tile_n = 0;
};

// The ifmap tile layout options of a plan (see tiling.h).
struct TileLayout {
  bool align = false;      // row pitch rounded up to a multiple of B (zero columns, no traffic)
  bool skip_rows = false;  // ky = 1, sy > 1: one buffer row per output row, loaded with a DRAM row stride
  bool flat = false;       // kx = ky = 1, Tw = Wo: pitch sx*Tw, contexts of ROWS consecutive outputs
  bool gather = false;     // kx = 1, sx > 1: columns gathered by the DMA, the RUN strides by 1
};

// The loop orders compile_layer knows, for --help and validation.
std::vector<std::string> loop_order_names();

// Byte addresses of the three tensors in DRAM (section 4); each base is 64-byte aligned and
// total_bytes (the image size) is rounded up to 64 bytes.
struct DramLayout {
  std::uint64_t ifmap_base = 0, ifmap_bytes = 0;      // [N][C][H][W], elem_bits/8 per element
  std::uint64_t weights_base = 0, weights_bytes = 0;  // [ceil(K/COLS)][C][ky][kx][COLS], zero padded
  std::uint64_t ofmap_base = 0, ofmap_bytes = 0;      // [N][K][Ho][Wo], acc_bits/8 per element
  std::uint64_t total_bytes = 0;
};
DramLayout dram_layout(const Layer& layer, const hw::HwParams& hw);

// The tiling of a layer: full-tile sizes and how many tiles each dimension has (edge tiles
// are smaller). The *_words fields are the SRAM words the largest tile needs per buffer.
struct TilePlan {
  int tc = 1, n_kg = 1, th = 1, tw = 1;
  int tiles_c = 1, tiles_k = 1, tiles_h = 1, tiles_w = 1;
  // Images per tile (> 1: contexts packed across images, th = Ho) and image tiles ceil(N / tn).
  int tn = 1, tiles_n = 1;
  std::string order = "output_stationary";
  bool aligned = false;    // CompileOptions::align_rows
  bool skip_rows = false;  // CompileOptions::skip_rows
  bool flat = false;       // CompileOptions::flat_contexts
  bool gather = false;     // CompileOptions::gather_cols
  std::int64_t ifmap_words = 0, weight_words = 0, psum_words = 0;

  TileLayout layout() const { return {aligned, skip_rows, flat, gather}; }
  // Output rows a full tile's RUN covers: th, or tn * th when images are packed.
  int run_rows() const { return tn * th; }

  std::string describe() const;
};

// A convolution whose output tiles are pooled on chip before they are stored (microarchitecture
// section 16, "Fused convolution + pooling"; sim/compiler/fused_compiler.h): the pooling on the
// convolution's [N][K][Ho][Wo] output, the geometry its tiles follow (pool_geometry) and the
// pooled output rows of a full tile.
struct FusedPooling {
  PoolShape pool;
  Layer geometry;
  int tq = 1;
  // Pooled output columns of a full tile (geometry.wo(): the whole width; fewer: column tiles,
  // whose convolution columns overlap where the windows do, as the rows' do).
  int tp = 0;
};

struct Program {
  Layer layer;
  Config config;
  hw::HwParams hw;
  DramLayout dram;
  TilePlan plan;
  std::vector<hw::Command> commands;
  std::vector<std::string> notes;  // per command: the tile it works on, for listings and errors
  int runs = 0;                    // RUN commands in `commands`
  // None: a convolution. Otherwise a pooling program (sim/compiler/pool_compiler.h): `layer` is the
  // geometry its tiles follow (K = C), there are no weights.
  hw::PoolOp pool = hw::PoolOp::None;
  // Set: a fused convolution + pooling program. `layer` is the convolution; the DRAM ofmap is the
  // pooled [N][K][Hp][Wp] (fused->geometry's output), and the plan's th and tw are the convolution
  // rows and columns of a full tile (tiles_h, tiles_w: the tiles of fused->tq pooled rows and
  // fused->tp pooled columns).
  std::optional<FusedPooling> fused;
  // Set: the backward pass of an average pooling (sim/compiler/pool_backward_compiler.h). The DRAM
  // ifmap is the output gradient [N][C][Ho][Wo], the ofmap the input gradient [N][C][H][W];
  // `layer` is the gather geometry (K = C, its output dx's H x W).
  bool pool_backward = false;

  // The ofmap in DRAM: the layer's, or the pooled one of a fused program.
  std::int64_t ofmap_elems() const { return fused ? fused->geometry.ofmap_elems() : layer.ofmap_elems(); }

  // One line per command: stream index, engine and ordinal (what wait thresholds count), the
  // command, and the tile it belongs to.
  std::string listing() const;
};

// Appends `c` with its note to `p`'s stream and counts it in its engine's counter (ld, ex or ps:
// the ordinals wait thresholds name). A command field out of its range is a compiler bug (the
// emitters' tilings are checked before): std::logic_error naming the command.
void append_command(Program& p, const hw::Command& c, const std::string& note, std::uint32_t& ld, std::uint32_t& ex,
                    std::uint32_t& ps);

// Bytes the DMA descriptors of a program move, per tensor (section 13's DRAM counters).
struct DramTraffic {
  std::uint64_t ifmap = 0, weights = 0, psums_in = 0, ofmap = 0;  // ofmap: every STORE_PSUMS
  std::uint64_t total() const { return ifmap + weights + psums_in + ofmap; }
};
DramTraffic program_traffic(const Program& p);

// Memory-port requests of one gathered DRAM row (section 7.3, elem_step s > 1): `n` kept elements,
// the first at DRAM element index `elem` (beats of `beat_elems`) and stream position `off` of an
// SRAM word of `word` elements. Each request is a whole beat.
std::uint64_t gather_row_requests(std::uint64_t n, std::uint64_t off, std::uint64_t word, std::uint64_t elem,
                                  std::uint64_t beat_elems, std::uint64_t s);
// The LOAD_IFMAP descriptor (buffer 0) of the ifmap tile of outputs oy0..oy0+th-1, ox0..ox0+tw-1,
// channels c0..c0+tc-1 of image n, in the plan's layout (section 12).
hw::DmaDesc ifmap_tile_load(const Layer& l, const hw::HwParams& hw, const TilePlan& plan, std::uint64_t ifmap_base,
                            int n, int oy0, int th, int ox0, int tw, int c0, int tc);
// The LOAD_IFMAP descriptor (buffer 0) of images n0..n0+tn-1, channels c0..c0+tc-1 of a layer
// whose contexts are packed across images (microarchitecture 12): rows are images.
hw::DmaDesc ifmap_images_load(const Layer& l, const hw::HwParams& hw, const TilePlan& plan, std::uint64_t ifmap_base,
                              int n0, int tn, int c0, int tc);
// DRAM bytes a load descriptor requests: its elements, or for a gather its whole beats.
std::uint64_t load_request_bytes(const hw::DmaDesc& d, int elem_bytes, int word_elems);

// Chooses the tiling (or takes the forced one), lays out DRAM and emits the command stream with
// its wait thresholds. Throws InputError for a layer the configuration cannot run: dilated kernel
// wider than feeder.pattern_bits, a smallest tile that does not fit the SRAMs, a command field
// that would overflow, or bad options.
Program compile_layer(const Layer& layer, const Config& config, const CompileOptions& options = {});

// The DRAM image before the run: ifmap and blocked weights at their bases, everything else zero.
// Throws std::invalid_argument if the operands do not belong to the program's layer/arithmetic.
std::vector<std::uint8_t> build_dram_image(const Program& p, const ConvOperands& ops);

// The ofmap [N][K][Ho][Wo] read back from a DRAM image after the run.
std::vector<AccBits> extract_outputs(const Program& p, const std::uint8_t* dram);

}  // namespace flycol
