// Formal harness of the DMA load path's request/response bookkeeping (stream_loader.sv), proved
// by hw/common/formal.cmake (k-induction): every issued read gets exactly one response, which the
// packer consumes with that read's chunk; the response FIFO never overflows or underflows; the
// bytes requested equal the bytes consumed plus the bytes of the DRAM chunks still queued.
//
// Compositional: the runner reads stream_loader_fifo_formal.sv, a formal model of the FIFO
// cell, instead of hw/common/fifo.sv, so both queues of the loader are that model here (see its
// header). Its head-relative entries keep the induction invariants below local to one entry.
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
  localparam int unsigned CB = $clog2(QD + 1);  // FIFO counts
  localparam int unsigned NB = CB + 2;          // harness counts, wider so an overflow shows
  localparam int unsigned TB = CB;              // zero-chunk tags: differences up to QD
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

  // Probes (runner PROBES): the chunk queue's storage, count and push data, the response FIFO's
  // count, and the packer's consume decisions. (p_cq_head is gone: the model's head is entry 0.)
  logic [QD*ChunkBits-1:0] p_cq_mem;
  logic [CB-1:0]           p_cq_count, p_rq_count;
  logic                    p_rq_pop, p_cq_pop, p_cq_push;
  logic [ChunkBits-1:0]    p_cq_rdata, p_cq_wdata;

  // Scoreboard: reads outstanding in the memory, DRAM chunks in the chunk queue (one pushed per
  // fired read, one popped per response consumed), and bytes requested but not yet consumed.
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

  // Ghost counters of the chunk queue's traffic, taken from its ports: zero chunks pushed and
  // popped (zin_q, zout_q, modulo 2^TB), and the bytes of the DRAM chunks pushed and popped
  // (bin_q, bout_q, modulo 2^YB). A popped entry's kind and size are read at the queue's output.
  logic [TB-1:0] zin_q, zout_q;
  logic [YB-1:0] bin_q, bout_q;
  // No wire of the harness may be a mere copy of probe bits (a part-select, a size cast, a double
  // negation): proc's opt_expr turns such a wire into an alias of the probe, `connect -set` then
  // drops the alias with the probe's old (empty) driver, and the wire is left free. Probe bits
  // are used inside expressions only; the DRAM-kind bits are single negations (real cells).
  logic          w_dram, r_dram;
  logic [YB-1:0] w_bytes, r_bytes;
  assign w_dram = !p_cq_wdata[ChunkBits-1];
  assign r_dram = !p_cq_rdata[ChunkBits-1];
  assign w_bytes = w_dram ?
      ({{(YB - CountBits){1'b0}}, p_cq_wdata[LaneBits +: CountBits]} * YB'(ElemBits / 8)) : '0;
  assign r_bytes = r_dram ? consumed_bytes : '0;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      out_q <= '0;
      dram_q <= '0;
      owed_q <= '0;
      zin_q <= '0;
      zout_q <= '0;
      bin_q <= '0;
      bout_q <= '0;
    end else begin
      out_q <= out_q + NB'(req_fire) - NB'(rsp_valid_i);
      dram_q <= dram_q + NB'(req_fire) - {{(NB - 1){1'b0}}, p_rq_pop};
      owed_q <= owed_q + (req_fire ? YB'(req_bytes) : '0) - (p_rq_pop ? consumed_bytes : '0);
      zin_q <= zin_q + {{(TB - 1){1'b0}}, p_cq_push && p_cq_wdata[ChunkBits-1]};
      zout_q <= zout_q + {{(TB - 1){1'b0}}, p_cq_pop && p_cq_rdata[ChunkBits-1]};
      bin_q <= bin_q + (p_cq_push ? w_bytes : '0);
      bout_q <= bout_q + (p_cq_pop ? r_bytes : '0);
    end
  end

  // Ghost tag per queue entry, written with the entry at its push and shifted with it at a pop
  // (as the model FIFO does): ztag = zero chunks pushed before it, btag = DRAM bytes pushed
  // before it. Not reset, like the queue's storage: only entries below the count are read. They
  // replace the 32-entry sums over the queue: each invariant below relates one entry to its
  // successor, to the head or to the counters, so the induction step stays local.
  logic [CB-1:0]    wpos;
  logic [QD*TB-1:0] ztag_q;
  logic [QD*YB-1:0] btag_q;
  assign wpos = p_cq_count - {{(CB - 1){1'b0}}, p_cq_pop};
  always_ff @(posedge clk_i) begin
    // (&& rst_ni: a bare probe as the condition becomes an alias wire, see above.)
    if (p_cq_pop && rst_ni) begin
      ztag_q <= {{TB{1'b0}}, ztag_q[QD*TB-1:TB]};
      btag_q <= {{YB{1'b0}}, btag_q[QD*YB-1:YB]};
    end
    for (int j = 0; j < QD; j++) begin
      if (p_cq_push && wpos == CB'(j)) begin
        ztag_q[j*TB +: TB] <= zin_q;
        btag_q[j*YB +: YB] <= bin_q;
      end
    end
  end

  // Per entry j below the count: the chain to the next entry (or to the counters after the last
  // one), and the zero chunks from j to the tail (zin - ztag[j]): at least one if j is a zero
  // chunk, and at most the entries from j to the tail, less one if j is a DRAM chunk. Zero
  // extension by concatenation and bytes by a multiplication (see the probe note above).
  logic [QD-1:0] ok_chain, ok_bound;
  logic [TB-1:0] head_ztag;
  logic [YB-1:0] head_btag;
  for (genvar j = 0; j < QD; j++) begin : g_slot
    localparam int unsigned Nx = (j + 1) % QD;
    logic          in_win, is_last, dram;
    logic [YB-1:0] bytes;
    logic [TB-1:0] ztag, ztag_next, zrest, room;
    logic [YB-1:0] btag, btag_next;
    assign in_win = CB'(j) < p_cq_count;
    assign is_last = CB'(j + 1) == p_cq_count;
    assign dram = !p_cq_mem[j*ChunkBits+ChunkBits-1];
    assign bytes = dram ?
        ({{(YB - CountBits){1'b0}}, p_cq_mem[j*ChunkBits+LaneBits+:CountBits]} * YB'(ElemBits / 8)) : '0;
    assign ztag = ztag_q[j*TB +: TB];
    assign btag = btag_q[j*YB +: YB];
    assign ztag_next = ztag_q[Nx*TB +: TB];
    assign btag_next = btag_q[Nx*YB +: YB];
    assign zrest = zin_q - ztag;
    assign room = p_cq_count - TB'(j);
    assign ok_chain[j] = !in_win ||
        (is_last ? (zin_q == ztag + {{(TB - 1){1'b0}}, p_cq_mem[j*ChunkBits+ChunkBits-1]} && bin_q == btag + bytes)
                 : (ztag_next == ztag + {{(TB - 1){1'b0}}, p_cq_mem[j*ChunkBits+ChunkBits-1]} &&
                    btag_next == btag + bytes));
    assign ok_bound[j] = !in_win || ((dram || zrest != '0) &&
                                         zrest + {{(TB - 1){1'b0}}, dram} <= room);
  end
  assign head_ztag = ztag_q[TB-1:0];
  assign head_btag = btag_q[YB-1:0];

  always_comb begin
    if (rst_ni) begin
      // Every issued read gets exactly one response: a response only ever answers an
      // outstanding read (assumed), none is dropped (the FIFO never overflows) and each is
      // consumed with one DRAM chunk.
      a_no_overflow: assert (!(rsp_valid_i && p_rq_count == CB'(QD)));
      a_rsp_match: assert (out_q + {{(NB - CB){1'b0}}, p_rq_count} == dram_q);
      a_bound: assert (dram_q <= NB'(QD));
      // Each fired read pushes its chunk, and the bytes requested equal the bytes consumed plus
      // the bytes of the DRAM chunks still queued (bin_q - bout_q is that sum by the chain below).
      if (req_fire) a_req_chunk: assert (p_cq_push && w_dram);
      a_bytes: assert (owed_q == bin_q - bout_q);
      // The scoreboard's DRAM chunks are the queue's entries that are not zero chunks.
      a_kinds: assert (dram_q + {{(NB - TB){1'b0}}, zin_q - zout_q} == {{(NB - CB){1'b0}}, p_cq_count});
      // Induction strengthening: the head's tags are the counts popped so far, every entry
      // continues its predecessor's tags, and the zero chunks from an entry to the tail fit.
      if (p_cq_count == '0) a_empty: assert (zin_q == zout_q && bin_q == bout_q);
      else a_head: assert (head_ztag == zout_q && head_btag == bout_q);
      a_chain: assert (&ok_chain);
      a_slot_bound: assert (&ok_bound);
      a_cq: assert (p_cq_count <= CB'(QD) && p_rq_count <= CB'(QD) &&
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
