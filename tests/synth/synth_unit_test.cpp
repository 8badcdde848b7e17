// Unit tests of the synthesis library without Yosys: the Liberty reader on flycol's own cell
// library, the BLIF reader, and the netlist analysis (areas per part, carving of registers and
// their logic, instance expansion, longest paths) on a hand-written netlist whose figures are
// worked out in the comments.
#include <cmath>
#include <string>

#include <catch2/catch.hpp>

#include "sim/common/input_error.h"
#include "sim/synth/analysis.h"
#include "sim/synth/block_map.h"
#include "sim/synth/liberty.h"
#include "sim/synth/netlist.h"
#include "sim/synth/yosys_run.h"

using namespace flycol::synth;
using Catch::Matchers::Contains;

namespace {

const CellLibrary& lib() {
  static const CellLibrary l = CellLibrary::load(std::string(FLYCOL_TEST_SOURCE_DIR) + "/hw/synth/flycol_cells.lib");
  return l;
}

// Top: a NAND2 into the array, whose output a DFFR (run_q) registers; an INV drives the output;
// an SRAM macro reads run_q. Array: iss_a_q (DFFR) -> INV -> INV -> wcnt_q (DFFR); a PE reads
// iss_a_q; a NAND2 of wcnt_q and the PE's output is the array's output. PE: XOR2 of its input and
// acc_q into acc_q, acc_o another name of acc_q.
const char* kNetlist = R"(# hand-written test netlist
.model flycol_top
.inputs clk_i rst_ni a b
.outputs y
.names $false
.subckt NAND2_X1 A=a B=b Y=n1
.subckt $paramod$77\array clk_i=clk_i rst_ni=rst_ni x=n1 y=n2
.cname u_array
.subckt DFFR_X1 CK=clk_i D=n2 Q=run_q RN=rst_ni
.subckt INV_X1 A=run_q Y=y
.subckt sram_bank req_i=run_q rdata_o=m1
.cname gen_buffers[0].u_ifmap
.end

.model $paramod$77\array
.inputs clk_i rst_ni x
.outputs y
.subckt DFFR_X1 CK=clk_i D=x Q=iss_a_q[0] RN=rst_ni
.subckt INV_X1 A=iss_a_q[0] Y=t1
.subckt INV_X1 A=t1 \
  Y=t2
.subckt DFFR_X1 CK=clk_i D=t2 Q=wcnt_q[0] RN=rst_ni
.subckt $paramod$77\pe clk_i=clk_i rst_ni=rst_ni a_i=iss_a_q[0] acc_o=p1
.cname gen_pe_row[0].gen_pe_col[0].u_pe
.subckt NAND2_X1 A=wcnt_q[0] B=p1 Y=y
.end

.model $paramod$77\pe
.inputs clk_i rst_ni a_i
.outputs acc_o
.subckt XOR2_X1 A=a_i B=acc_q Y=s1
.subckt DFFR_X1 CK=clk_i D=s1 Q=acc_q RN=rst_ni
.names acc_q acc_o
1 1
.end

.model sram_bank
.inputs req_i
.outputs rdata_o
.blackbox
.end
)";

double part_area(const Analysis& a, const std::string& id) {
  return a.parts[std::size_t(BlockMap::standard().part_index(id))].area;
}

}  // namespace

TEST_CASE("the cell library: areas by transistor count, capacitances by logical effort", "[synth]") {
  const CellLibrary& l = lib();
  REQUIRE(l.find("NAND2_X1"));
  CHECK(l.find("NAND2_X1")->area == Approx(1.0));
  // area = (transistors + 2) / 6
  CHECK(l.find("INV_X1")->area == Approx(4.0 / 6).epsilon(1e-3));
  CHECK(l.find("XOR2_X1")->area == Approx(14.0 / 6).epsilon(1e-3));
  CHECK(l.find("DFFR_X1")->area == Approx(30.0 / 6).epsilon(1e-3));
  // logical effort: NAND2 4/3, NOR2 5/3 of an inverter's input
  CHECK(l.find("NAND2_X1")->pin("A")->capacitance == Approx(4.0 / 3).epsilon(1e-3));
  CHECK(l.find("NOR2_X1")->pin("B")->capacitance == Approx(5.0 / 3).epsilon(1e-3));
  const LibCell* ff = l.find("DFFR_X1");
  CHECK(ff->flop);
  CHECK(ff->pin("CK")->clock);
  CHECK(ff->clock_capacitance() == Approx(1.0));
  CHECK(ff->data_capacitance() == Approx(1.0 + 4.0 / 3).epsilon(1e-3));
  CHECK_FALSE(l.find("MUX2_X1")->flop);
  for (const auto& [name, cell] : l.cells()) {
    INFO(name);
    int outputs = 0;
    for (const auto& p : cell.pins) outputs += !p.input;
    CHECK(outputs == 1);
    CHECK(cell.area > 0);
  }
}

TEST_CASE("the Liberty reader rejects what it cannot use", "[synth]") {
  CHECK_THROWS_AS(CellLibrary::parse("cell (X) { area : 1; }", "t.lib"), flycol::InputError);
  CHECK_THROWS_WITH(CellLibrary::parse("library (l) { cell (X) { pin (A) { direction : input; } } }", "t.lib"),
                    Contains("no area"));
  CHECK_THROWS_WITH(CellLibrary::parse("library (l) { cell (X) { area : big; } }", "t.lib"), Contains("not a number"));
  CHECK_THROWS_WITH(CellLibrary::parse("library (l) { /* open", "t.lib"), Contains("unterminated comment"));
}

TEST_CASE("names: modules without parameters, nets without bit index, globs", "[synth]") {
  CHECK(module_base_name("$paramod$0f6b\\pe") == "pe");
  CHECK(module_base_name("$paramod\\fifo\\Width=32'00000000000000000000000000001000") == "fifo");
  CHECK(module_base_name("\\flycol_top") == "flycol_top");
  CHECK(module_base_name("mem_arbiter") == "mem_arbiter");
  CHECK(net_base_name("gen_row_feed[3].a_q[5]") == "gen_row_feed[3].a_q");
  CHECK(net_base_name("valid_q") == "valid_q");
  CHECK(net_base_name("x[a]") == "x[a]");
  CHECK(glob_match("gen_row_feed*", "gen_row_feed[3].a_q"));
  CHECK(glob_match("*_q", "iss_a_q"));
  CHECK_FALSE(glob_match("iss_w_q", "iss_a_q"));
  CHECK(glob_match("a*b*c", "axxbyyc"));
  CHECK_FALSE(glob_match("a*b*c", "axxbyy"));
}

TEST_CASE("the BLIF reader: models, buffers, constants, continuations, blackboxes", "[synth]") {
  const Netlist nl = Netlist::parse_blif(kNetlist, "test.blif");
  REQUIRE(nl.modules().size() == 4);
  CHECK(nl.top().name == "flycol_top");
  const NetlistModule* arr = nl.find("$paramod$77\\array");
  REQUIRE(arr);
  CHECK(arr->cells.size() == 6);
  CHECK(arr->cells[2].pins.size() == 2);  // the continued line
  CHECK(arr->cells[4].name == "gen_pe_row[0].gen_pe_col[0].u_pe");
  const NetlistModule* pe = nl.find("$paramod$77\\pe");
  REQUIRE(pe);
  CHECK(pe->buffers.size() == 1);
  CHECK(nl.top().const0.size() == 1);
  CHECK(nl.find("sram_bank")->blackbox);
  CHECK_THROWS_WITH(Netlist::parse_blif(".model m\n.names a b c\n11 1\n.end\n", "x.blif"), Contains("unmapped logic"));
  CHECK_THROWS_WITH(Netlist::parse_blif(".model m\n.latch a b\n.end\n", "x.blif"), Contains("unsupported"));
}

TEST_CASE("the analysis: areas per part, carving, instances, longest paths", "[synth]") {
  const Netlist nl = Netlist::parse_blif(kNetlist, "test.blif");
  const Analysis a = analyze(nl, lib(), BlockMap::standard());
  const double inv = lib().find("INV_X1")->area, dff = lib().find("DFFR_X1")->area, xor2 = lib().find("XOR2_X1")->area;
  // Top glue: NAND2 + DFFR + INV. iss_a_q is carved into the feeder's feed registers; wcnt_q
  // with the two inverters of its fanout-free cone into the partial-sums manager's links; the
  // array's own NAND2 stays array edge; the PE's XOR2 and DFFR are PE registers.
  CHECK(part_area(a, "control/top_glue") == Approx(1 + dff + inv));
  CHECK(part_area(a, "feeder/feed_registers") == Approx(dff));
  CHECK(part_area(a, "psum_manager/array_links") == Approx(dff + 2 * inv));
  CHECK(part_area(a, "pe_array/array_edge") == Approx(1.0));
  CHECK(part_area(a, "pe_array/pe_registers") == Approx(xor2 + dff));
  CHECK(a.total().area == Approx(2 + 3 * inv + 4 * dff + xor2));
  CHECK(a.total().flops == 4);
  CHECK(a.parts[std::size_t(BlockMap::standard().part_index("control/top_glue"))].clock_cap == Approx(1.0));
  // Instances in walk order, with their own parts; the SRAM is a macro.
  REQUIRE(a.instances.size() == 3);
  CHECK(a.instances[0].path.empty());
  CHECK(a.instances[1].path == "u_array");
  CHECK(a.instances[2].path == "u_array.gen_pe_row[0].gen_pe_col[0].u_pe");
  CHECK(a.instances[2].part == "pe_array/pe_registers");
  CHECK(a.instances_of("pe") == 1);
  REQUIRE(a.macros.size() == 1);
  CHECK(a.macros[0].path == "gen_buffers[0].u_ifmap");
  // Longest paths: two inverters from iss_a_q to wcnt_q; one cell elsewhere.
  CHECK(a.critical.depth == 2);
  CHECK(a.critical.start == "u_array/iss_a_q[0]");
  CHECK(a.critical.end == "u_array/wcnt_q[0]");
  const auto depth = [&](const std::string& id) { return a.part_paths[std::size_t(BlockMap::standard().part_index(id))].depth; };
  CHECK(depth("psum_manager/array_links") == 2);
  CHECK(depth("feeder/feed_registers") == 1);  // from input a through the top's NAND2
  CHECK(depth("pe_array/pe_registers") == 1);
  CHECK(depth("control/top_glue") == 1);
  CHECK(depth("pe_array/mac") == -1);  // no register of its own
  CHECK(a.loop_cells == 0);
}

TEST_CASE("the analysis refuses cells it does not know", "[synth]") {
  const char* bad = ".model top\n.inputs a\n.outputs y\n.subckt WEIRD_X9 A=a Y=y\n.end\n";
  CHECK_THROWS_WITH(analyze(Netlist::parse_blif(bad, "b.blif"), lib(), BlockMap::standard()),
                    Contains("neither in the cell library nor a module"));
}

TEST_CASE("the block map: module parts, parents, signals", "[synth]") {
  const BlockMap& m = BlockMap::standard();
  CHECK(m.module_part("fifo", "feed_lane", "feeder/feed_lanes") == "feeder/lane_fifos");
  CHECK(m.module_part("fifo", "psum_manager", "psum_manager/manager") == "psum_manager/queues");
  CHECK(m.module_part("fifo", "stream_loader", "control/dma") == "control/dma");  // inherited
  CHECK(m.module_part("pe", "array", "pe_array/array_edge") == "pe_array/pe_registers");
  CHECK(m.signal_part("pe", "res_q", "pe_array/pe_registers") == "pe_array/reserve_registers");
  CHECK(m.signal_part("pe", "gate", "pe_array/pe_registers") == "pe_array/zero_gating");
  CHECK(m.signal_part("pe", "gen_iso.hold_a_q", "pe_array/pe_registers") == "pe_array/operand_isolation");
  CHECK(m.signal_part("pe", "mul_w", "pe_array/pe_registers") == "pe_array/operand_isolation");
  CHECK(m.signal_part("pe", "acc_q", "pe_array/pe_registers") == "pe_array/pe_registers");
  CHECK(m.signal_part("array", "gen_row_feed[3].a_q", "pe_array/array_edge") == "feeder/feed_registers");
  CHECK(m.signal_part("array", "gen_col_feed[2].w_d", "pe_array/array_edge") == "weight_fetcher/feed_registers");
  // Every part named by a rule exists and belongs to a block.
  for (const auto& r : m.carve_rules()) CHECK(m.part_index(r.part) >= 0);
  for (const auto& r : m.variant_rules()) CHECK(m.part_index(r.part) >= 0);
  for (const auto& p : m.parts()) {
    bool found = false;
    for (const auto& b : m.blocks()) found = found || BlockMap::block_of(p.id) == b.id;
    CHECK(found);
  }
}

TEST_CASE("the script template: fields filled, missing ones named", "[synth]") {
  CHECK(fill_template("read @A@ and @B@; mail a@b", {{"A", "x"}, {"B", "y"}}) == "read x and y; mail a@b");
  CHECK_THROWS_WITH(fill_template("@MISSING@", {}), Contains("@MISSING@"));
}
