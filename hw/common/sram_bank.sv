// Single-port SRAM bank (docs/microarchitecture.md, section 6), the RTL twin of hw::SramBank
// (hw/common/sram_bank.h): one read or one write per cycle, element write mask, read data from
// the cycle after the read and held until the next read. Behavioural storage; see below.
//
// REPLACING IT WITH A COMPILED MACRO. The array `mem_q` is a model. An ASIC flow swaps the
// storage for one single-port macro of Depth words x Elems*ElemBits bits (reference chip:
// 1024 x 256, 32 kB per buffer) with a per-bit or per-element write mask, keeping this module as
// the wrapper:
//   macro CE   <- req_i                       (access this cycle)
//   macro WE   <- we_i                        (1 write, 0 read)
//   macro A    <- addr_i                      ($clog2(Depth) bits)
//   macro D    <- wdata_i                     (Elems*ElemBits bits)
//   macro BWE  <- each bit of wmask_i repeated ElemBits times (or the element enables as they are)
//   macro Q    -> rdata_o, but only if the macro holds Q until its next read; a macro whose Q
//                 changes on writes or idle cycles needs the hold register below kept (load it
//                 from Q in the cycle after a read).
// Its read latency must be one cycle (Q valid in the cycle after the read). An FPGA flow infers
// block RAM from this file as it is.
`include "flycol_assert.svh"

module sram_bank #(
  parameter int unsigned Depth = 1024,  // words
  parameter int unsigned ElemBits = 16, // bits per element
  parameter int unsigned Elems = 16     // elements per word (the write mask granule)
) (
  input  logic                      clk_i,    // clock
  input  logic                      rst_ni,   // reset, active low: nothing to reset (only masks the assertions)
  input  logic                      req_i,    // access this cycle
  input  logic                      we_i,     // with req_i: 1 write, 0 read
  input  logic [$clog2((Depth > 1) ? Depth : 2)-1:0] addr_i,  // word address, < Depth
  input  logic [Elems*ElemBits-1:0] wdata_i,  // write word: element e in bits [e*ElemBits +: ElemBits]
  input  logic [Elems-1:0]          wmask_i,  // write element e where bit e is set
  output logic [Elems*ElemBits-1:0] rdata_o   // word of the last read, from the cycle after it on
);

  localparam int unsigned WordBits = Elems * ElemBits;

  logic [WordBits-1:0] mem_q [Depth];
  logic [WordBits-1:0] rdata_q, rdata_d;

  always_comb begin
    rdata_d = rdata_q;
    if (req_i && !we_i) rdata_d = mem_q[addr_i];
  end

  assign rdata_o = rdata_q;

  // Not reset, like hw::SramBank (which has no reset) and like a macro's output: the clients never
  // look at rdata_o before their first read.
  always_ff @(posedge clk_i) begin
    rdata_q <= rdata_d;
  end

  // The storage array is written in place (a memory, not a _d/_q register pair) and not reset,
  // like the macro it stands for.
  always_ff @(posedge clk_i) begin
    if (req_i && we_i) begin
      for (int unsigned e = 0; e < Elems; e++) begin
        if (wmask_i[e]) mem_q[addr_i][e*ElemBits +: ElemBits] <= wdata_i[e*ElemBits +: ElemBits];
      end
    end
  end

`ifdef SYNTHESIS
  // Nothing is reset: rst_ni only masks the simulation assertions below.
  logic unused_rst_ni;
  assign unused_rst_ni = rst_ni;
`else
  initial begin
    if (!(Depth >= 1)) $fatal(1, "sram_bank: Depth must be at least 1");
    if (!(ElemBits >= 1)) $fatal(1, "sram_bank: ElemBits must be at least 1");
    if (!(Elems >= 1 && Elems <= 64)) $fatal(1, "sram_bank: Elems must be in 1..64");
  end
  always_ff @(posedge clk_i) begin
    if (rst_ni && req_i && 32'(addr_i) >= Depth)
      $error("sram_bank: address %0d out of range (depth %0d)", addr_i, Depth);
  end
`endif

  // ---- Assertions (hw/common/flycol_assert.svh) ----
  `FLYCOL_ASSERT_NEVER(AddrInRange_A, req_i && 32'(addr_i) >= Depth, clk_i, rst_ni)
  `FLYCOL_ASSERT_KNOWN(ReqKnown_A, req_i, clk_i, rst_ni)
  `FLYCOL_ASSERT(WeKnown_A, req_i |-> !$isunknown(we_i), clk_i, rst_ni)
  `FLYCOL_COVER(Write_C, req_i && we_i, clk_i, rst_ni)
  `FLYCOL_COVER(Read_C, req_i && !we_i, clk_i, rst_ni)

endmodule
