// Field tables and SystemVerilog generation. Kept to the SystemVerilog subset that Verilator
// 5.006 and Yosys 0.23 both read: packed structs, typedef enums, parameters given as
// concatenations (no '{...} assignment patterns), no functions.
#include "sim/rtlgen/rtl_types.h"

#include <cctype>
#include <cstdint>
#include <stdexcept>
#include <utility>

#include <fmt/format.h>

#include "hw/common/hw_params.h"
#include "hw/feeder/feeder_params.h"
#include "sim/config/config_keys.h"

namespace flycol::rtl {

namespace fb = hw::field_bits;

// cfg_t: the hardware parameters the RTL takes as fields (hw::kHwParamFields with an rtl name),
// 32 bits each, in table order.
const std::vector<FieldLayout>& config_fields() {
  static const std::vector<FieldLayout> f = [] {
    std::vector<FieldLayout> out;
    for (const auto& h : hw::kHwParamFields)
      if (h.rtl != nullptr) out.push_back({h.rtl, 32, h.doc});
    return out;
  }();
  return f;
}

std::vector<std::uint64_t> config_values(const Config& c) {
  const hw::HwParams p = hardware_params(c);
  std::vector<std::uint64_t> out;
  for (const auto& h : hw::kHwParamFields)
    if (h.rtl != nullptr) out.push_back(std::uint64_t(h.get(p)));
  return out;
}

const std::vector<FieldLayout>& command_fields() {
  static const std::vector<FieldLayout> f = {
      {"op", fb::kOpcode, "opcode_e"},
      {"wait_ld", fb::kWait, "start when ld_done >= wait_ld"},
      {"wait_ex", fb::kWait, "start when ex_done >= wait_ex"},
      {"wait_ps", fb::kWait, "start when ps_done >= wait_ps"},
      {"dma_buf", fb::kBuffer, "DMA: buffer"},
      {"dma_dram_addr", fb::kDramAddr, "DMA: byte address of plane 0, row 0"},
      {"dma_n_planes", fb::kCount, "DMA: planes"},
      {"dma_plane_stride", fb::kByteStride, "DMA: bytes between planes"},
      {"dma_n_rows", fb::kCount, "DMA: rows per plane"},
      {"dma_row_stride", fb::kByteStride, "DMA: bytes between rows"},
      {"dma_row_len", fb::kCount, "DMA: elements per row from DRAM"},
      {"dma_pad_left", fb::kCount, "DMA: zeros before each row"},
      {"dma_pad_right", fb::kCount, "DMA: zeros after each row (stores: skipped elements)"},
      {"dma_pad_top", fb::kCount, "DMA: zero rows before each plane"},
      {"dma_pad_bottom", fb::kCount, "DMA: zero rows after each plane"},
      {"dma_tail", fb::kCount, "DMA: zeros after the last plane"},
      {"dma_elem_step", fb::kElemStep, "DMA: DRAM elements per stream element in a row (1 dense, >1 gather)"},
      {"dma_pad_value", fb::kPadValue, "DMA: raw bits of every padding and tail element (LOAD_IFMAP only)"},
      {"dma_dst_ifmap", 1, "DMA: STORE_PSUMS writes ifmap buffer dma_dst_buf instead of DRAM (section 7.6)"},
      {"dma_dst_buf", fb::kBuffer, "DMA: the ifmap buffer of a dma_dst_ifmap store (0 otherwise)"},
      {"run_ifmap_buf", fb::kBuffer, "RUN: ifmap buffer"},
      {"run_weight_buf", fb::kBuffer, "RUN: weight buffer"},
      {"run_psum_buf", fb::kBuffer, "RUN: psum buffer"},
      {"run_preload", 1, "RUN: initial accumulators from the psum buffer"},
      {"run_n_kg", fb::kCount, "RUN: output-channel groups"},
      {"run_n_cy", fb::kCount, "RUN: output rows"},
      {"run_n_cx", fb::kCount, "RUN: contexts per output row"},
      {"run_n_c", fb::kCount, "RUN: input channels"},
      {"run_n_ky", fb::kCount, "RUN: kernel rows"},
      {"run_n_kx", fb::kCount, "RUN: kernel columns"},
      {"run_step_cx", fb::kStep, "RUN: elements between contexts in x"},
      {"run_step_cy", fb::kStep, "RUN: elements between output rows"},
      {"run_step_c", fb::kStep, "RUN: elements between channels"},
      {"run_step_ky", fb::kStep, "RUN: elements between kernel rows"},
      {"run_region", fb::kCount, "RUN: interest region width"},
      {"run_lane_stride", fb::kLaneStride, "RUN: local offset between lanes (sx)"},
      {"run_pattern", fb::kPattern, "RUN: kernel pattern (last chunk)"},
      {"run_n_kxc", fb::kCount, "RUN: kernel-column chunks per kernel row"},
      {"run_step_kxc", fb::kStep, "RUN: elements between chunks"},
      {"run_region_kxc", fb::kCount, "RUN: interest region width of the other chunks"},
      {"run_pattern_kxc", fb::kPattern, "RUN: kernel pattern of the other chunks"},
      {"run_pack_w", fb::kCount, "RUN: packed output-row width (0: no packing)"},
      {"run_pack_r", fb::kCount, "RUN: rows mod pack_w"},
      {"run_pack_jump", fb::kStep, "RUN: lane offset added per row wrap"},
      {"run_pool_op", fb::kPoolOp, "RUN: 0 convolution, 1 max, 2 average, 3 argmax, 4 masked sum"},
      {"run_pool_sy", fb::kPoolStride, "RUN: average pooling: vertical window stride"},
      {"run_pool_y0", fb::kPoolStart, "RUN: average pooling: first tile row the divisor counts"},
      {"run_pool_x0", fb::kPoolStart, "RUN: average pooling: first tile column the divisor counts"},
      {"run_pool_y1", fb::kCount, "RUN: average pooling: end of the counted tile rows"},
      {"run_pool_x1", fb::kCount, "RUN: average pooling: end of the counted tile columns"},
      {"run_pool_ky", fb::kPoolSide, "RUN: average pooling: divisor window rows (0: n_ky)"},
      {"run_pool_kx", fb::kPoolSide, "RUN: average pooling: divisor window columns (0: n_kx)"},
      {"run_pool_sx", fb::kPoolStride, "RUN: average pooling: divisor window column stride (0: lane_stride)"},
  };
  return f;
}

std::vector<std::uint64_t> command_values(const hw::Command& c) {
  const hw::DmaDesc& d = c.dma;
  const hw::RunDesc& r = c.run;
  return {std::uint64_t(c.op), c.wait_ld, c.wait_ex, c.wait_ps,
          d.buf, d.dram_addr, d.n_planes, d.plane_stride, d.n_rows, d.row_stride, d.row_len,
          d.pad_left, d.pad_right, d.pad_top, d.pad_bottom, d.tail, d.elem_step, d.pad_value,
          std::uint64_t(d.dst_ifmap), d.dst_buf,
          r.ifmap_buf, r.weight_buf, r.psum_buf, std::uint64_t(r.preload), r.n_kg, r.n_cy, r.n_cx, r.n_c, r.n_ky,
          r.n_kx, r.step_cx, r.step_cy, r.step_c, r.step_ky, r.region, r.lane_stride, r.pattern,
          r.n_kxc, r.step_kxc, r.region_kxc, r.pattern_kxc, r.pack_w, r.pack_r, r.pack_jump,
          r.pool_op, r.pool_sy, r.pool_y0, r.pool_x0, r.pool_y1, r.pool_x1, r.pool_ky, r.pool_kx, r.pool_sx};
}

namespace {
int total_bits(const std::vector<FieldLayout>& l) {
  int n = 0;
  for (const auto& f : l) n += f.bits;
  return n;
}
}  // namespace

int command_bits() { return total_bits(command_fields()); }
int config_bits() { return total_bits(config_fields()); }

std::vector<std::uint32_t> pack(const std::vector<FieldLayout>& layout, const std::vector<std::uint64_t>& values) {
  if (layout.size() != values.size()) throw std::logic_error("rtl::pack: field count mismatch");
  const int bits = total_bits(layout);
  std::vector<std::uint32_t> w(std::size_t((bits + 31) / 32), 0);
  int pos = bits;  // the first field occupies the top bits
  for (std::size_t i = 0; i < layout.size(); ++i) {
    const int n = layout[i].bits;
    pos -= n;
    const std::uint64_t v = values[i];
    if (n < 64 && (v >> n) != 0)
      throw std::logic_error(fmt::format("rtl::pack: field {} = {} does not fit {} bits", layout[i].name, v, n));
    for (int b = 0; b < n; ++b)
      if ((v >> b) & 1u) w[std::size_t((pos + b) / 32)] |= 1u << ((pos + b) % 32);
  }
  return w;
}

namespace {

// lane_fifo_depth -> LaneFifoDepth (lowRISC parameter names).
std::string camel_case(const std::string& snake) {
  std::string out;
  bool up = true;
  for (char ch : snake) {
    if (ch == '_') {
      up = true;
      continue;
    }
    out += up ? char(std::toupper(static_cast<unsigned char>(ch))) : ch;
    up = false;
  }
  return out;
}

std::string struct_text(const std::string& type, const std::vector<FieldLayout>& l) {
  std::string s = "  typedef struct packed {\n";
  for (const auto& f : l) s += fmt::format("    logic [{}:0] {};  // {}\n", f.bits - 1, f.name, f.comment);
  return s + fmt::format("  }} {};\n", type);
}

}  // namespace

std::string generate_flycol_pkg() {
  std::string s;
  s += "// flycol_pkg: the command format shared by every RTL block and the C++ models, and the range\n";
  s += "// of every configuration field (Cfg<Field>Min/Max).\n";
  s += "// GENERATED by sim/rtlgen (generate_flycol_pkg) from the field table in sim/rtlgen/rtl_types.cpp;\n";
  s += "// do not edit by hand. tests/rtlgen checks that this file equals the generator's output.\n";
  s += "package flycol_pkg;\n\n";
  s += "  // Not every module uses every constant of the package.\n";
  s += "  /* verilator lint_off UNUSEDPARAM */\n";
  s += fmt::format("  typedef enum logic [{}:0] {{\n", fb::kOpcode - 1);
  const hw::Opcode ops[] = {hw::Opcode::LoadIfmap, hw::Opcode::LoadWeights, hw::Opcode::LoadPsums,
                            hw::Opcode::StorePsums, hw::Opcode::Run};
  const char* names[] = {"OpLoadIfmap", "OpLoadWeights", "OpLoadPsums", "OpStorePsums", "OpRun"};
  for (int i = 0; i < 5; ++i)
    s += fmt::format("    {} = {}'d{}{}\n", names[i], fb::kOpcode, int(ops[i]), i < 4 ? "," : "");
  s += "  } opcode_e;\n\n";
  const auto localparam = [&s](const std::string& name, std::int64_t value) {
    s += fmt::format("  localparam int unsigned {} = {};\n", name, value);
  };
  // The models' fixed sizes, then the field widths as constants (Yosys 0.23 gets $bits() of a
  // struct member of a signal wrong).
  const std::pair<const char*, std::int64_t> constants[] = {
      {"CommandBits", command_bits()},          {"BeatBytes", hw::kBeatBytes},
      {"ChunkQueueDepth", hw::kChunkQueueDepth}, {"WeightFifoDepth", hw::kWeightFifoDepth},
      {"ResultQueueDepth", hw::kResultQueueDepth}, {"CmdQueueDepth", hw::kCmdQueueDepth},
      {"WaitBits", fb::kWait},                   {"DramAddrBits", fb::kDramAddr},
      {"CountBits", fb::kCount},                 {"ByteStrideBits", fb::kByteStride},
      {"StepBits", fb::kStep},                   {"LaneStrideBits", fb::kLaneStride},
      {"PatternBits", fb::kPattern},             {"PackWraps", hw::kPackWraps},
  };
  for (const auto& [name, value] : constants) localparam(name, value);
  // Widths derived from the constants above, written once here rather than in every module header.
  s += "  localparam int unsigned BytesBits = $clog2(BeatBytes + 1);  // a memory request's bytes, 1..BEAT\n";
  s += "  localparam int unsigned BeatBits = BeatBytes * 8;  // one memory beat, byte lane j in [8*j +: 8]\n";
  // The range each configuration field may take (the models' capacities, hw::kHwParamFields):
  // the blocks check their Cfg against these at elaboration.
  for (const auto& h : hw::kHwParamFields) {
    if (h.rtl == nullptr) continue;
    const std::string camel = camel_case(h.rtl);
    localparam("Cfg" + camel + "Min", h.min);
    localparam("Cfg" + camel + "Max", h.max);
  }
  s += "  /* verilator lint_on UNUSEDPARAM */\n\n";
  // The one formula for the width of an index (an SRAM word address, a column, a FIFO slot) and the
  // memory port's types, so that the module headers do not each derive them again. The function is
  // assigned to its name and returns logic: Yosys 0.23 reads neither `return` there nor a function
  // returning int unsigned.
  s += "  // Bits of an index 0..n-1, at least 1 (a one-word buffer still has an address port).\n";
  s += "  function automatic logic [31:0] index_bits(input logic [31:0] n);\n";
  s += "    index_bits = $clog2((n > 1) ? n : 2);\n";
  s += "  endfunction\n\n";
  s += "  // The memory port (docs/microarchitecture.md 7.1): a DRAM byte address, a request's bytes\n";
  s += "  // (1..BEAT) and one beat (byte lane j in [8*j +: 8]).\n";
  s += "  typedef logic [DramAddrBits-1:0] dram_addr_t;\n";
  s += "  typedef logic [BytesBits-1:0] req_bytes_t;\n";
  s += "  typedef logic [BeatBits-1:0] beat_t;\n\n";
  // The range check every block makes of its Cfg fields at elaboration, with one message format.
  // Simulation only: Yosys defines SYNTHESIS and would not read the string arguments.
  s += "`ifndef SYNTHESIS\n";
  s += "  // Stops the simulation at elaboration when a block's configuration field is out of range.\n";
  s += "  function automatic void check_range(input string block, input string field, input int unsigned value,\n";
  s += "                                      input int unsigned min, input int unsigned max);\n";
  s += "    if (!(value >= min && value <= max))\n";
  s += "      $fatal(1, \"%s: Cfg.%s = %0d outside %0d..%0d\", block, field, value, min, max);\n";
  s += "  endfunction\n";
  s += "`endif\n\n";
  s += "  // The configuration every module takes as its parameter Cfg (its values: flycol_cfg_pkg).\n";
  s += struct_text("cfg_t", config_fields());
  s += "\n";
  s += struct_text("command_t", command_fields());
  s += "\nendpackage\n";
  return s;
}

std::string generate_cfg_pkg(const Config& c) {
  const auto& l = config_fields();
  const auto v = config_values(c);
  std::string s;
  s += fmt::format("// flycol_cfg_pkg: configuration '{}' as the typed parameter every RTL block takes.\n", c.name);
  s += "// GENERATED by flycol from the YAML configuration (sim/rtlgen); do not edit by hand.\n";
  s += "// The file is named after its configuration (<tag>_cfg_pkg.sv), the package is not. Cfg is a\n";
  s += "// flycol_pkg::cfg_t given as its bits (Yosys 0.23 reads no package type inside a package), the\n";
  s += "// fields in order:\n";
  // The field names as comment lines, then the values packed a few to a line: the file holds
  // numbers, not a second copy of the type.
  std::string names = "//  ";
  for (std::size_t i = 0; i < l.size(); ++i) {
    const std::string item = fmt::format(" {}{}", l[i].name, i + 1 < l.size() ? "," : "");
    if (names.size() + item.size() > 100) {
      s += names + "\n";
      names = "//  ";
    }
    names += item;
  }
  s += names + "\n";
  s += "/* verilator lint_off DECLFILENAME */\n";
  s += "package flycol_cfg_pkg;\n";
  int total_bits = 0;
  for (const auto& f : l) total_bits += f.bits;
  std::string line = fmt::format("  localparam logic [{}:0] Cfg = {{", total_bits - 1);
  const std::string indent(line.size(), ' ');
  for (std::size_t i = 0; i < l.size(); ++i) {
    const std::string item = fmt::format("{}'d{}{}", l[i].bits, v[i], i + 1 < l.size() ? ", " : "};");
    if (line.size() + item.size() > 100) {
      s += line.substr(0, line.size() - 1) + "\n";  // without the space after the comma
      line = indent;
    }
    line += item;
  }
  s += line + "\nendpackage\n";
  return s;
}

}  // namespace flycol::rtl
