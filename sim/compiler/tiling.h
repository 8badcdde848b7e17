// Tile geometry and the choice of tile sizes (docs/microarchitecture.md, section 12). Split from
// the command emitter so that a DRAM-traffic-minimizing search can replace choose_plan(): it
// needs only plan_shortfall() (is a candidate legal?) and make_plan(), and can score candidates
// with program_traffic(emit_program(...)).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "sim/compiler/compiler.h"

namespace flycol {

// The ifmap window of a tile of `th` output rows and `tw` output columns with `tc` channels, as
// stored in an ifmap buffer, and the feeder's over-read beyond it.
struct TileWindow {
  int ht = 0, wt = 0;           // input rows and columns, padding included (wt: the row pitch)
  int span = 0;                 // columns the outputs need; wt > span when rows are aligned
  int ncx = 0;                  // contexts per output row: ceil(tw / ROWS) (flat: of the tile)
  int ncy = 0;                  // rows of contexts: th (flat: 1)
  std::int64_t step_cy = 0;     // elements between the rows of contexts
  std::int64_t elems = 0;       // tc * ht * wt
  std::int64_t last_read = 0;   // element index of the last element the feeder reads
  std::int64_t tail = 0;        // zeros after the tile: to the end of the last word read
  std::int64_t words = 0;       // SRAM words written: ceil((elems + tail) / B)
  // RUN fields that depend on the layout (pixel packing: flat contexts of a kernel wider than 1x1).
  std::int64_t step_cx = 0;     // ROWS*sx, plus (ROWS div Tw)*pack_jump when packed
  std::int64_t region = 0;      // interest region: region_width() + pack_extra
  std::int64_t pack_extra = 0;  // the wraps' jumps every packed chunk's region reaches (0: not packed)
  int pack_w = 0, pack_r = 0;   // packed row width Tw and ROWS mod Tw (0: not packed)
  std::int64_t pack_jump = 0;   // sy*Wt - Tw*sx: from a row's end to the next row's first pixel
};
// Layouts (TileLayout):
// * align: the row pitch wt is rounded up to a multiple of the ifmap bus width B; the extra
//   columns are zeros the DMA inserts (no DRAM traffic), and every RUN step (sy*wt, ht*wt, dy*wt)
//   becomes a multiple of B, so every interest-region row starts at word offset 0.
// * skip_rows (ky = 1): the buffer holds only the input row each output row reads (ht = th,
//   step_cy = wt); the LOAD takes every sy-th DRAM row. Less traffic when sy > 1.
// * flat (whole output rows, Tw = Wo): the RUN is one row of ceil(th*tw / ROWS) contexts of ROWS
//   consecutive outputs (row-major), so every lane works whatever Wo is. For 1x1 kernels the pitch
//   is sx*tw, so output q of the tile reads buffer position sx*q; for wider kernels the tile keeps
//   its pitch and the feeder packs pixels across rows (microarchitecture 9.2: pack_w = Tw, a lane
//   adds pack_jump per row end its pixel passes).
// * gather (kx = 1, 2 <= sx <= hw::kMaxElemStep): the LOAD_IFMAP keeps every sx-th DRAM column
//   (DmaDesc::elem_step), so the tile is laid out as for sx = 1 (span tw) and the RUN strides by
//   1: one SRAM word read serves ROWS lanes. Combines with the other three (flat: pitch tw).
TileWindow tile_window(const Layer& l, const hw::HwParams& hw, int tc, int th, int tw, TileLayout lay = {});

// RUN constants that depend only on the layer and the array.
// (ROWS-1)*sx + (kx-1)*dx + 1, with sx = 1 for a gathered tile.
std::uint32_t region_width(const Layer& l, const hw::HwParams& hw, TileLayout lay = {});
std::uint64_t kernel_pattern(const Layer& l);                        // bit i*dx for i < kx
// Kernel-column chunks (microarchitecture 9.2): with more than one array row, a kernel row wider
// than fifo_depth x intermediate_regs columns is read as n region rows of kc columns, the last of
// `last` columns; the fewest chunks, as even as possible. n = 1 (kc = last = kx) otherwise.
struct KernelChunks {
  int n = 1, kc = 1, last = 1;
};
KernelChunks kernel_chunks(const Layer& l, const hw::HwParams& hw);
// The RUN's kernel fields: n_kx, region, pattern and the chunk fields.
void set_kernel_fields(hw::RunDesc& r, const Layer& l, const hw::HwParams& hw);

// Why a tiling cannot run: the key to change (a configuration key, or for a command field that
// would overflow, the layer key) and what is needed.
struct Shortfall {
  std::string key;
  bool layer_key = false;  // key names a layer field rather than a configuration key
  std::string problem;     // "needs ... but ...", without the key
  std::int64_t needed = 0, available = 0;
};
// Checks every tile of the plan (full and edge tiles) against the buffer depths and the command
// field widths. Empty if it fits.
// With tn > 1 (images packed, th = Ho) the tile is that of tn*th output rows.
std::optional<Shortfall> plan_shortfall(const Layer& l, const Config& cfg, const hw::HwParams& hw, int tc, int n_kg,
                                        int th, int tw, TileLayout lay = {}, int tn = 1);

// The plan for given full-tile sizes: tile counts and the SRAM words of the largest tile.
TilePlan make_plan(const Layer& l, const hw::HwParams& hw, int tc, int n_kg, int th, int tw, const std::string& order,
                   TileLayout lay = {}, int tn = 1);

// Why `lay` cannot be used for the layer (empty if it can): skip_rows needs ky = 1 and sy > 1;
// flat needs no align, for a 1x1 kernel rows of contexts one buffer row apart (sy = 1 or
// skip_rows), for a wider kernel a next output row that starts no earlier than the row would
// continue (sy*Wt >= Wo*sx); gather needs kx = 1 and 2 <= sx <= hw::kMaxElemStep. With flat, Tw
// must be Wo; pack_problem() checks the array's side.
std::string layout_problem(const Layer& l, TileLayout lay);
// Why a flat layout of a kernel wider than 1x1 cannot pack its rows on this array (empty if it
// can): a lane's pixel may pass at most hw::kPackWraps row ends (Wo too narrow for the rows).
std::string pack_problem(const Layer& l, const hw::HwParams& hw, TileLayout lay);
// Why the layer's contexts cannot be packed across images (empty if they can, microarchitecture
// 12): N > 1, a 1x1 kernel with sx = sy = 1 and no padding, the flat layout alone (no align,
// skip_rows or gather), not the spill order, and the descriptors' fields wide enough.
std::string images_pack_problem(const Layer& l, const hw::HwParams& hw, TileLayout lay, const std::string& order);

// The heuristic of section 12 (whole rows, then the largest Tc, then n_kg, then Th; narrower
// column tiles only when nothing else fits), honouring forced options. Checks the layer against
// the configuration first and throws InputError for anything that cannot run.
TilePlan choose_plan(const Layer& l, const Config& cfg, const CompileOptions& opt);

// How messages name a layer (InputError source for layer keys).
std::string layer_source(const Layer& l);

}  // namespace flycol
