// FIFO cell (docs/microarchitecture.md, section 6), the RTL twin of hw::Fifo (hw/common/fifo.h):
// Depth entries of Width bits, push and pop in one cycle, full/empty from the registered count.
// Generic parameters, not Cfg: the blocks instantiate it with many shapes.
`include "flycol_assert.svh"

module fifo #(
  parameter int unsigned Width = 8,  // bits per entry
  parameter int unsigned Depth = 4   // entries
) (
  input  logic             clk_i,    // clock
  input  logic             rst_ni,   // asynchronous reset, active low: empty
  input  logic             push_i,   // write wdata_i at the tail this cycle (not while full_o)
  input  logic [Width-1:0] wdata_i,  // entry to push
  input  logic             pop_i,    // drop the head this cycle (not while empty_o)
  output logic [Width-1:0] rdata_o,  // head entry (meaningful while !empty_o)
  output logic             full_o,   // count == Depth (registered: a pop does not make room this cycle)
  output logic             empty_o,  // count == 0
  output logic [$clog2(Depth+1)-1:0] count_o  // entries held
);

  // A one-entry FIFO still needs a (constant) pointer bit.
  localparam int unsigned PtrBits = (Depth > 1) ? $clog2(Depth) : 1;
  localparam int unsigned CntBits = $clog2(Depth + 1);

  // Flat storage with next state (entry i in bits [i*Width +: Width]), so that the whole cell follows
  // the _d/_q style and Yosys maps it to plain flops (the FIFOs of the design are a few entries
  // deep). Flat because Yosys 0.23 does not parse `logic [Depth-1:0][Width-1:0]` and silently
  // shrinks a packed array of a typedef'd element to one element.
  logic [Depth*Width-1:0] mem_q, mem_d;
  logic [PtrBits-1:0] head_q, head_d;
  logic [CntBits-1:0] count_q, count_d;
  logic [PtrBits-1:0] wptr;  // tail slot of this cycle's push

  // hw::Fifo writes at (head + count) % Depth after the pop; with one pop that is the same slot as
  // head_q + count_q before it, so the write pointer does not depend on pop_i.
  logic [PtrBits:0] tail_sum;

  always_comb begin
    head_d = head_q;
    count_d = count_q;
    mem_d = mem_q;
    if (pop_i) begin
      head_d = (head_q == PtrBits'(Depth - 1)) ? '0 : head_q + PtrBits'(1);
    end
    count_d = count_q + CntBits'(push_i) - CntBits'(pop_i);
    tail_sum = {1'b0, head_q} + (PtrBits + 1)'(count_q);
    wptr = (tail_sum >= (PtrBits + 1)'(Depth)) ? PtrBits'(tail_sum - (PtrBits + 1)'(Depth))
                                                : tail_sum[PtrBits-1:0];
    for (int unsigned i = 0; i < Depth; i++)
      if (push_i && wptr == PtrBits'(i)) mem_d[i*Width +: Width] = wdata_i;
  end

  // Read and write select the entry with one comparison per entry rather than an indexed
  // part-select of the flat vector: for that Yosys builds and then prunes a barrel shifter as wide
  // as the whole storage, which takes minutes for the 32 x 256-bit queues (same logic either way).
  always_comb begin
    rdata_o = '0;
    for (int unsigned i = 0; i < Depth; i++)
      rdata_o = rdata_o | ({Width{head_q == PtrBits'(i)}} & mem_q[i*Width +: Width]);
  end
`ifdef FLYCOL_BUG_FIFO_FULL
  assign full_o = count_q == CntBits'(Depth + 1);  // formal twin: full one entry too late
`else
  assign full_o = count_q == CntBits'(Depth);
`endif
  assign empty_o = count_q == '0;
  assign count_o = count_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      head_q <= '0;
      count_q <= '0;
    end else begin
      head_q <= head_d;
      count_q <= count_d;
    end
  end

  // Storage is not reset (hw::Fifo does not clear it either): only entries below count are read.
  always_ff @(posedge clk_i) begin
    mem_q <= mem_d;
  end

`ifndef SYNTHESIS
  initial begin
    if (!(Width >= 1)) $fatal(1, "fifo: Width must be at least 1");
    if (!(Depth >= 1)) $fatal(1, "fifo: Depth must be at least 1");
  end
`endif

  // ---- Assertions (hw/common/flycol_assert.svh) ----
  // Protocol (section 6): a push while full or a pop while empty is refused by the assertion.
  `FLYCOL_ASSERT_NEVER(NoPushFull_A, push_i && full_o, clk_i, rst_ni)
  `FLYCOL_ASSERT_NEVER(NoPopEmpty_A, pop_i && empty_o, clk_i, rst_ni)
  `FLYCOL_ASSERT(CountInRange_A, 32'(count_o) <= Depth, clk_i, rst_ni)
  `FLYCOL_ASSERT(EmptyIsZero_A, empty_o == (count_o == '0), clk_i, rst_ni)
  `FLYCOL_ASSERT(FullIsDepth_A, full_o == (32'(count_o) == Depth), clk_i, rst_ni)
  // The count moves by one per push and per pop, nothing else.
  `FLYCOL_ASSERT(CountStep_A, (push_i && !pop_i) |=> 32'(count_o) == 32'($past(count_o)) + 1, clk_i, rst_ni)
  `FLYCOL_ASSERT(CountHold_A, (push_i == pop_i) |=> $stable(count_o), clk_i, rst_ni)
  `FLYCOL_ASSERT_KNOWN(FlagsKnown_A, {full_o, empty_o}, clk_i, rst_ni)
  `FLYCOL_COVER(Full_C, full_o, clk_i, rst_ni)
  `FLYCOL_COVER(PushPop_C, push_i && pop_i, clk_i, rst_ni)

endmodule
