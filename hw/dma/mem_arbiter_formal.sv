// Formal harness of the memory arbiter (mem_arbiter.sv), proved by hw/common/formal.cmake (k-
// induction): every read response goes to the requester that issued the read, in issue order;
// no request is lost or duplicated; the memory port carries the granted request; a requester
// waits at most one grant of the other; the order FIFO never overflows.
`ifdef FORMAL
module mem_arbiter_formal (
  input logic                   clk_i,            // clock (one SAT step per cycle)
  input logic                   rst_ni,           // reset: low in the first cycle only (assumed)
  input logic                   ld_req_valid_i,   // free; held until it fires (assumed)
  input logic                   ld_req_write_i,   // free
  input flycol_pkg::dram_addr_t ld_req_addr_i,    // free
  input flycol_pkg::req_bytes_t ld_req_bytes_i,   // free
  input logic                   ps_req_valid_i,   // free; held until it fires (assumed)
  input logic                   ps_req_write_i,   // free
  input flycol_pkg::dram_addr_t ps_req_addr_i,    // free
  input flycol_pkg::req_bytes_t ps_req_bytes_i,   // free
  input logic                   mem_req_ready_i,  // free
  input logic                   mem_rsp_valid_i,  // free; only with a read outstanding (assumed)
  input logic                   pick_i            // free: track the read fired in this cycle
);

  localparam int unsigned OD = 2 * flycol_pkg::ChunkQueueDepth;  // the order FIFO: 2*QD reads
  localparam int unsigned PB = $clog2(OD);
  localparam int unsigned CB = $clog2(OD + 1) + 1;

  logic ld_fire, ld_rsp, ps_fire, ps_rsp, mem_valid, mem_write;
  flycol_pkg::dram_addr_t mem_addr;
  flycol_pkg::req_bytes_t mem_bytes;
  flycol_pkg::beat_t      mem_wdata;

  // Write data is only multiplexed like the address; a constant per requester keeps it visible.
  mem_arbiter u_dut (
    .clk_i,
    .rst_ni,
    .ld_req_valid_i,
    .ld_req_write_i,
    .ld_req_addr_i,
    .ld_req_bytes_i,
    .ld_req_wdata_i ('0),
    .ld_req_fire_o  (ld_fire),
    .ld_rsp_valid_o (ld_rsp),
    .ps_req_valid_i,
    .ps_req_write_i,
    .ps_req_addr_i,
    .ps_req_bytes_i,
    .ps_req_wdata_i ('1),
    .ps_req_fire_o  (ps_fire),
    .ps_rsp_valid_o (ps_rsp),
    .mem_req_valid_o(mem_valid),
    .mem_req_ready_i,
    .mem_req_write_o(mem_write),
    .mem_req_addr_o (mem_addr),
    .mem_req_bytes_o(mem_bytes),
    .mem_req_wdata_o(mem_wdata),
    .mem_rsp_valid_i
  );

  // Probes of the order FIFO (runner PROBES): storage, head and count for the invariant.
  logic [OD-1:0]          p_mem;
  logic [PB-1:0]          p_head;
  logic [$clog2(OD+1)-1:0] p_count;
  logic                    p_last;  // the arbiter's last grant (1 = PS)

  // Scoreboard: reads outstanding, one tracked read.
  logic [CB-1:0] out_q;
  logic          trk_q, trk_ps_q;
  logic [CB-1:0] trk_pos_q;
  // Environment memory of held requests and the fairness counters.
  logic          ld_wait_q, ps_wait_q;
  logic [1:0]    ld_lost_q, ps_lost_q;  // grants of the other while waiting

  logic init_q = 1'b1;
  always_ff @(posedge clk_i) init_q <= 1'b0;
  always_comb begin
    assume (rst_ni == !init_q);
    // Moore requests (section 7.1): a request stays until it fires.
    if (ld_wait_q) assume (ld_req_valid_i);
    if (ps_wait_q) assume (ps_req_valid_i);
    // Responses only for reads issued.
    if (out_q == '0) assume (!mem_rsp_valid_i);
    // Each engine reserves room for QD responses, so the two never have more than 2*QD reads out:
    // assumed in total (a per-engine count would need the PS entries of the FIFO counted in the
    // induction invariant, which makes the SAT problem too big for the default run).
    if (out_q >= CB'(OD)) assume (!(ld_req_valid_i && !ld_req_write_i) && !(ps_req_valid_i && !ps_req_write_i));
  end

  logic rd_fire;
  assign rd_fire = (ld_fire && !ld_req_write_i) || (ps_fire && !ps_req_write_i);

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      out_q <= '0;
      trk_q <= 1'b0;
      trk_ps_q <= 1'b0;
      trk_pos_q <= '0;
      ld_wait_q <= 1'b0;
      ps_wait_q <= 1'b0;
      ld_lost_q <= '0;
      ps_lost_q <= '0;
    end else begin
      out_q <= out_q + CB'(rd_fire) - CB'(mem_rsp_valid_i);
      if (trk_q && mem_rsp_valid_i) begin
        if (trk_pos_q == '0) trk_q <= 1'b0;
        else trk_pos_q <= trk_pos_q - 1'b1;
      end
      if (!trk_q && rd_fire && pick_i) begin
        trk_q <= 1'b1;
        trk_ps_q <= ps_fire;
        trk_pos_q <= out_q - CB'(mem_rsp_valid_i);
      end
      ld_wait_q <= ld_req_valid_i && !ld_fire;
      ps_wait_q <= ps_req_valid_i && !ps_fire;
      ld_lost_q <= (ld_req_valid_i && !ld_fire) ? ld_lost_q + 2'(ps_fire) : '0;
      ps_lost_q <= (ps_req_valid_i && !ps_fire) ? ps_lost_q + 2'(ld_fire) : '0;
    end
  end

  // OD is a power of two: the slot wraps with the pointer's width.
  logic [PB-1:0] trk_slot;
  assign trk_slot = p_head + PB'(trk_pos_q);

  always_comb begin
    if (rst_ni) begin
      // No request lost or duplicated: the port offers exactly when a requester does, and a
      // taken request fires exactly one requester, one that asked.
      a_offer: assert (mem_valid == (ld_req_valid_i || ps_req_valid_i));
      a_fire: assert ((ld_fire || ps_fire) == (mem_valid && mem_req_ready_i));
      a_one: assert (!(ld_fire && ps_fire));
      a_ld_asked: assert (!ld_fire || ld_req_valid_i);
      a_ps_asked: assert (!ps_fire || ps_req_valid_i);
      // The port carries the fired request.
      if (ld_fire) a_ld_mux: assert (mem_addr == ld_req_addr_i && mem_bytes == ld_req_bytes_i &&
                                     mem_write == ld_req_write_i && mem_wdata == '0);
      if (ps_fire) a_ps_mux: assert (mem_addr == ps_req_addr_i && mem_bytes == ps_req_bytes_i &&
                                     mem_write == ps_req_write_i && mem_wdata == '1);
      // Fairness: while waiting, a requester sees at most one grant of the other.
      a_ld_fair: assert (ld_lost_q <= 2'd1);
      a_ps_fair: assert (ps_lost_q <= 2'd1);
      // Each response goes to exactly one requester.
      a_rsp: assert ((ld_rsp || ps_rsp) == mem_rsp_valid_i && !(ld_rsp && ps_rsp));
      // The order FIFO holds every outstanding read, never more than 2*QD.
      a_count: assert ((CB)'(p_count) == out_q);
      a_bound: assert (out_q <= CB'(OD));
      // The tracked read's response goes to its requester.
      if (trk_q) begin
        a_trk_in: assert (trk_pos_q < out_q);
        if (trk_pos_q == '0 && mem_rsp_valid_i) a_route: assert (trk_ps_q ? ps_rsp : ld_rsp);
        a_trk_mem: assert (p_mem[trk_slot] == trk_ps_q);
      end
      a_head: assert (32'(p_head) < OD);
      a_fair_inv: assert (!(ld_lost_q == 2'd1 && ps_lost_q == 2'd1));
      // Induction strengthening: who lost last is the one the round robin favours next.
      if (ld_lost_q != '0) a_ld_lost: assert (p_last && ld_wait_q);
      if (ps_lost_q != '0) a_ps_lost: assert (!p_last && ps_wait_q);

    end
  end

  // Not vacuous (formal_mem_arbiter_reach): both requesters conflict on a ready port, and a
  // tracked read of each requester gets its response.
  logic reach_conflict_q, reach_ld_q, reach_ps_q;
  (* keep *) logic reach_all;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      reach_conflict_q <= 1'b0;
      reach_ld_q <= 1'b0;
      reach_ps_q <= 1'b0;
    end else begin
      reach_conflict_q <= reach_conflict_q || (ld_req_valid_i && ps_req_valid_i && mem_req_ready_i);
      reach_ld_q <= reach_ld_q || (ld_rsp && trk_q && !trk_ps_q && trk_pos_q == '0);
      reach_ps_q <= reach_ps_q || (ps_rsp && trk_q && trk_ps_q && trk_pos_q == '0);
    end
  end
  assign reach_all = reach_conflict_q && reach_ld_q && reach_ps_q;

endmodule
`endif
