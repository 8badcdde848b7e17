// Formal harness of the DMA load path's request/response bookkeeping (stream_loader.sv), proved
// by hw/common/formal.cmake (k-induction): every issued read gets exactly one response, which the
// packer consumes with that read's chunk; the response FIFO never overflows or underflows; the
// bytes requested equal the bytes accounted (consumed plus still owed).
`ifdef FORMAL
module stream_loader_formal #(
  parameter int unsigned ElemBits  = 16,   // the engine's element bits (LD: elem, PS: acc)
  parameter int unsigned WordElems = 4,    // widest SRAM word written, in elements
  parameter int unsigned MaxDepth  = 256   // deepest destination buffer, in words
) (
  input logic                                 clk_i,          // clock (one SAT step per cycle)
  input logic                                 rst_ni,         // reset: low in the first cycle only
  input logic                                 start_i,        // free; only while idle (assumed)
  input flycol_pkg::command_t                 cmd_i,          // free
  input logic [$clog2(((WordElems > flycol_pkg::BeatBytes) ? WordElems : flycol_pkg::BeatBytes) + 1)-1:0]
                                              word_elems_i,   // free; 1..WordElems (assumed)
  input logic                                 req_ready_i,    // free: the memory takes the request
  input logic                                 rsp_valid_i,    // free; only with a read outstanding
  input logic [flycol_pkg::BeatBits-1:0]      rsp_rdata_i     // free (data is not tracked)
);

  localparam int unsigned QD = flycol_pkg::ChunkQueueDepth;
  localparam int unsigned QB = $clog2(QD);
  localparam int unsigned CB = $clog2(QD + 1);  // FIFO counts
  localparam int unsigned NB = CB + 2;          // harness counts, wider so an overflow shows
  localparam int unsigned CountBits = $clog2(((WordElems > flycol_pkg::BeatBytes) ? WordElems
                                                                                   : flycol_pkg::BeatBytes) + 1);
  localparam int unsigned LaneBits = $clog2(flycol_pkg::BeatBytes);
  localparam int unsigned ChunkBits = 1 + CountBits + LaneBits;
  // Bytes owed: up to QD chunks of a beat each.
  localparam int unsigned YB = $clog2(QD * flycol_pkg::BeatBytes + 1) + 1;

  logic                            busy, done, req_valid, req_fire;
  logic [flycol_pkg::BytesBits-1:0] req_bytes;

  stream_loader #(
    .ElemBits (ElemBits),
    .WordElems(WordElems),
    .MaxDepth (MaxDepth)
  ) u_dut (
    .clk_i,
    .rst_ni,
    .start_i,
    .cmd_i,
    .word_elems_i,
    .depth_words_i(32'(MaxDepth)),
    .busy_o       (busy),
    .done_o       (done),
    .req_valid_o  (req_valid),
    /* verilator lint_off PINCONNECTEMPTY */
    .req_addr_o   (),
    /* verilator lint_on PINCONNECTEMPTY */
    .req_bytes_o  (req_bytes),
    .req_fire_i   (req_fire),
    .rsp_valid_i,
    .rsp_rdata_i,
    /* verilator lint_off PINCONNECTEMPTY */
    .wr_o         (),
    .wr_addr_o    (),
    .wr_data_o    (),
    .wr_mask_o    ()
    /* verilator lint_on PINCONNECTEMPTY */
  );

  // The arbiter fires a valid request when the memory is ready (mem_arbiter_formal proves it
  // passes requests on unchanged).
  assign req_fire = req_valid && req_ready_i;

  // Probes (runner PROBES): the chunk queue's storage, head and count, the response FIFO's
  // count, and the packer's consume decisions.
  logic [QD*ChunkBits-1:0] p_cq_mem;
  logic [QB-1:0]           p_cq_head;
  logic [CB-1:0]           p_cq_count, p_rq_count;
  logic                    p_rq_pop, p_cq_pop, p_cq_push;
  logic [ChunkBits-1:0]    p_cq_rdata;

  // Scoreboard: reads outstanding in the memory, DRAM chunks in the chunk queue (pushed by a
  // fired read, popped with their response), and bytes requested but not yet consumed.
  logic [NB-1:0] out_q, dram_q;
  logic [YB-1:0] owed_q;
  logic [YB-1:0] consumed_bytes;
  assign consumed_bytes = {{(YB - CountBits){1'b0}}, p_cq_rdata[LaneBits +: CountBits]} * YB'(ElemBits / 8);

  logic init_q = 1'b1;
  always_ff @(posedge clk_i) init_q <= 1'b0;
  always_comb begin
    assume (rst_ni == !init_q);
    // The loader's start checks: idle, an SRAM word in range, element-aligned DRAM addresses.
    if (start_i) begin
      assume (!busy && word_elems_i != '0 && 32'(word_elems_i) <= WordElems);
      assume ((cmd_i.dma_dram_addr[1:0] & 2'(ElemBits / 8 - 1)) == '0 &&
              (cmd_i.dma_row_stride[1:0] & 2'(ElemBits / 8 - 1)) == '0 &&
              (cmd_i.dma_plane_stride[1:0] & 2'(ElemBits / 8 - 1)) == '0);
    end
    if (out_q == '0) assume (!rsp_valid_i);
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      out_q <= '0;
      dram_q <= '0;
      owed_q <= '0;
    end else begin
      out_q <= out_q + NB'(req_fire) - NB'(rsp_valid_i);
      dram_q <= dram_q + NB'(req_fire) - NB'(p_rq_pop);
      owed_q <= owed_q + (req_fire ? YB'(req_bytes) : '0) - (p_rq_pop ? consumed_bytes : '0);
    end
  end

  // DRAM chunks and their bytes in the chunk queue's window (head .. head+count-1). Zero
  // extension by concatenation and bytes by a multiplication: with a size cast of a part-select
  // or a shift by a $clog2 localparam, Yosys 0.23 gave wrong sums here (cause not isolated).
  logic [NB-1:0]      win_dram;
  logic [YB-1:0]      win_bytes;
  logic [QD-1:0]      in_win;         // slot j holds a DRAM chunk of the window
  logic [QD*YB-1:0]   slot_bytes;     // its bytes (0 outside the window)
  for (genvar j = 0; j < QD; j++) begin : g_slot
    logic [QB-1:0] dist;
    assign dist = QB'(j) - p_cq_head;
    assign in_win[j] = ({1'b0, dist} < p_cq_count) && !p_cq_mem[j*ChunkBits+ChunkBits-1];
    assign slot_bytes[j*YB+:YB] = in_win[j] ?
        ({{(YB - CountBits){1'b0}}, p_cq_mem[j*ChunkBits+LaneBits+:CountBits]} * YB'(ElemBits / 8)) : '0;
  end
  always_comb begin
    win_dram = '0;
    win_bytes = '0;
    for (int j = 0; j < QD; j++) begin
      win_dram = win_dram + NB'(in_win[j]);
      win_bytes = win_bytes + slot_bytes[j*YB+:YB];
    end
  end

  always_comb begin
    if (rst_ni) begin
      // Every issued read gets exactly one response: a response only ever answers an
      // outstanding read (assumed), none is dropped (the FIFO never overflows) and each is
      // consumed with one DRAM chunk.
      a_no_overflow: assert (!(rsp_valid_i && p_rq_count == CB'(QD)));
      a_rsp_match: assert (out_q + NB'(p_rq_count) == dram_q);
      a_bound: assert (dram_q <= NB'(QD));
      // Each fired read pushes its chunk, and the bytes requested equal the bytes consumed plus
      // the bytes of the DRAM chunks still queued (the chunk's count in elements is the
      // request's size).
      if (req_fire) a_req_chunk: assert (p_cq_push);
      a_bytes: assert (owed_q == win_bytes);
      // Induction strengthening: the scoreboard's DRAM chunks are the queue's.
      a_win: assert (win_dram == dram_q);
      a_cq: assert (32'(p_cq_count) <= QD && 32'(p_cq_head) < QD && 32'(p_rq_count) <= QD &&
                    out_q <= NB'(QD));
    end
  end

  // Not vacuous (formal_stream_loader_*_reach): the response FIFO holds a response while a
  // zero chunk is at the head (the order the packer must keep), and a stream completes.
  logic reach_order_q, reach_done_q;
  (* keep *) logic reach_all;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      reach_order_q <= 1'b0;
      reach_done_q <= 1'b0;
    end else begin
      reach_order_q <= reach_order_q || (p_rq_count != '0 && p_cq_pop && !p_rq_pop);
      reach_done_q <= reach_done_q || (reach_order_q && done);
    end
  end
  assign reach_all = reach_done_q;

endmodule
`endif
