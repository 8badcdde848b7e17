// Formal model of the FIFO cell (hw/common/fifo.sv) for the stream loader's proof
// (stream_loader_formal.sv, hw/common/formal.cmake): read INSTEAD of fifo.sv, never with it.
// Same module name, ports and timing; the textbook structure (a shift register, the head always
// in entry 0) instead of fifo.sv's ring buffer.
//
// Why it is sound: fifo.sv is proved separately (formal_fifo_*, fifo_formal.sv) to be an in-order
// FIFO whose count moves by one per push and per pop, with full/empty from the registered count
// and every entry leaving with its value; this model has exactly that port behaviour, so the
// loader sees the same traces (the head data while empty differs, and the loader consumes only
// while the queue is not empty). Why it is needed: with the ring buffer every entry's position
// depends on the head pointer, and the loader proof's induction step over 32 entries did not
// finish in 5 minutes even with ChunkQueueDepth cut to 16 (an experiment; the model: 30 s there).
`ifdef FORMAL
// The model must carry fifo.sv's module name, not its file's.
/* verilator lint_off DECLFILENAME */
module fifo #(
  parameter int unsigned Width = 8,  // bits per entry
  parameter int unsigned Depth = 4   // entries
) (
  input  logic                       clk_i,    // clock
  input  logic                       rst_ni,   // asynchronous reset, active low: empty
  input  logic                       push_i,   // append wdata_i (not while full_o)
  input  logic [Width-1:0]           wdata_i,  // entry to push
  input  logic                       pop_i,    // drop the head (not while empty_o)
  output logic [Width-1:0]           rdata_o,  // head entry (meaningful while !empty_o)
  output logic                       full_o,   // count == Depth (registered, as fifo.sv)
  output logic                       empty_o,  // count == 0
  output logic [$clog2(Depth+1)-1:0] count_o   // entries held
);

  localparam int unsigned CntBits = $clog2(Depth + 1);

  // Entry i (i-th oldest) in bits [i*Width +: Width]; a pop shifts every entry down by one.
  logic [Depth*Width-1:0] mem_q, mem_d;
  logic [CntBits-1:0]     count_q, count_d, wpos;

  always_comb begin
    mem_d = mem_q;
    if (pop_i) mem_d = {{Width{1'b0}}, mem_q[Depth*Width-1:Width]};
    wpos = count_q - {{(CntBits - 1){1'b0}}, pop_i};  // the push lands behind the last entry left
    for (int unsigned i = 0; i < Depth; i++)
      if (push_i && wpos == CntBits'(i)) mem_d[i*Width +: Width] = wdata_i;
    count_d = count_q + CntBits'(push_i) - CntBits'(pop_i);
  end

  assign rdata_o = mem_q[Width-1:0];
  assign full_o = count_q == CntBits'(Depth);
  assign empty_o = count_q == '0;
  assign count_o = count_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) count_q <= '0;
    else count_q <= count_d;
  end
  always_ff @(posedge clk_i) mem_q <= mem_d;

endmodule
/* verilator lint_on DECLFILENAME */
`endif
