// Formal harness of the FIFO cell (fifo.sv), proved by hw/common/formal.cmake with Yosys and
// SAT-based k-induction: count == pushes - pops, no overflow or underflow under the push/pop
// protocol, full/empty from the count, and every entry leaves in order with its value.
`ifdef FORMAL
module fifo_formal #(
  parameter int unsigned Width = 8,  // bits per entry
  parameter int unsigned Depth = 4   // entries
) (
  input logic             clk_i,    // clock (one smtbmc step per cycle)
  input logic             rst_ni,   // reset: low in the first cycle only (assumed)
  input logic             push_i,   // free; assumed low while full
  input logic [Width-1:0] wdata_i,  // free
  input logic             pop_i,    // free; assumed low while empty
  input logic             pick_i    // free: track the entry pushed in this cycle
);

  localparam int unsigned PtrBits = (Depth > 1) ? $clog2(Depth) : 1;
  localparam int unsigned CntBits = $clog2(Depth + 1);

  logic [Width-1:0]   rdata;
  logic               full, empty;
  logic [CntBits-1:0] count;

  fifo #(
    .Width(Width),
    .Depth(Depth)
  ) u_dut (
    .clk_i,
    .rst_ni,
    .push_i,
    .wdata_i,
    .pop_i,
    .rdata_o(rdata),
    .full_o (full),
    .empty_o(empty),
    .count_o(count)
  );

  // Probes of the FIFO's registers, connected by the runner (PROBES): the induction invariant
  // needs the storage, which the ports do not show.
  logic [Depth*Width-1:0] p_mem;
  logic [PtrBits-1:0]     p_head;

  // Reset in the first cycle, never again (a later reset is the same start from empty).
  logic init_q = 1'b1;
  always_ff @(posedge clk_i) init_q <= 1'b0;
  always_comb begin
    assume (rst_ni == !init_q);
    // The protocol of fifo.sv's ports.
    if (full) assume (!push_i);
    if (empty) assume (!pop_i);
  end

  // Scoreboard: an independent count (one bit wider, so an overflow shows) and one tracked entry
  // (value and distance from the head), chosen freely: proving it for any chosen entry proves
  // it for all of them.
  logic [CntBits:0]   sb_count_q;
  logic               trk_q;
  logic [Width-1:0]   trk_data_q;
  logic [CntBits:0]   trk_pos_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      sb_count_q <= '0;
      trk_q <= 1'b0;
      trk_data_q <= '0;
      trk_pos_q <= '0;
    end else begin
      sb_count_q <= sb_count_q + (CntBits + 1)'(push_i) - (CntBits + 1)'(pop_i);
      if (trk_q && pop_i) begin
        if (trk_pos_q == '0) trk_q <= 1'b0;
        else trk_pos_q <= trk_pos_q - 1'b1;
      end
      if (!trk_q && push_i && pick_i) begin
        trk_q <= 1'b1;
        trk_data_q <= wdata_i;
        trk_pos_q <= sb_count_q - (CntBits + 1)'(pop_i);
      end
    end
  end

  // Slot of the tracked entry: (head + pos) mod Depth.
  logic [PtrBits+CntBits:0] trk_slot;
  assign trk_slot = ((PtrBits + CntBits + 1)'(p_head) + (PtrBits + CntBits + 1)'(trk_pos_q)) %
                    (PtrBits + CntBits + 1)'(Depth);

  always_comb begin
    if (rst_ni) begin
      a_count: assert ((CntBits + 1)'(count) == sb_count_q);
      a_bound: assert (sb_count_q <= (CntBits + 1)'(Depth));
      a_full: assert (full == (sb_count_q == (CntBits + 1)'(Depth)));
      a_empty: assert (empty == (sb_count_q == '0));
      if (trk_q) begin
        a_trk_in: assert (trk_pos_q < sb_count_q);
        if (trk_pos_q == '0) a_order: assert (rdata == trk_data_q);
        // Induction strengthening: the tracked entry sits in its slot.
        a_trk_mem: assert (p_mem[trk_slot*Width +: Width] == trk_data_q);
      end
      a_head: assert (32'(p_head) < Depth);
    end
  end

  // Not vacuous (formal_fifo_*_reach): a trace fills the FIFO, then pops the tracked entry from
  // a full FIFO, and pushes and pops in one cycle.
  logic reach_full_q, reach_trk_q, reach_both_q;
  (* keep *) logic reach_all;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      reach_full_q <= 1'b0;
      reach_trk_q <= 1'b0;
      reach_both_q <= 1'b0;
    end else begin
      reach_full_q <= reach_full_q || full;
      reach_trk_q <= reach_trk_q || (trk_q && trk_pos_q == '0 && pop_i && full);
      reach_both_q <= reach_both_q || (push_i && pop_i && !empty);
    end
  end
  assign reach_all = reach_full_q && reach_trk_q && reach_both_q;

endmodule
`endif
