// Formal harness of one feed lane (feed_lane.sv, docs/microarchitecture.md section 9.2), proved by
// hw/common/formal.cmake (k-induction on small, bounded on fornt16): every element the lane is
// given leaves at a pop, none lost, duplicated or reordered; after a flush every owed one is offered.
`ifdef FORMAL
module feed_lane_formal #(
  parameter flycol_pkg::cfg_t Cfg = flycol_cfg_pkg::Cfg,
  localparam int unsigned B = Cfg.bus_elems,
  localparam int unsigned PB = Cfg.pattern_bits,
  localparam int unsigned Eb = Cfg.elem_bits,
  localparam int unsigned ShiftBits = $clog2(((PB > B) ? PB : B) + 1) + 1,  // as feed_lane.sv
  localparam int unsigned PosBits = flycol_pkg::index_bits(B)
) (
  input logic                        clk_i,          // clock (one SAT step per cycle)
  input logic                        rst_ni,         // reset: low in the first cycle only (assumed)
  input logic                        valid_i,        // free; held while stalled (assumed)
  input logic signed [ShiftBits-1:0] shift_i,        // free in [-PB, B]; held while stalled
  input logic                        flush_i,        // free; held while stalled
  input logic [PB-1:0]               pattern_i,      // free; held while stalled
  input logic [B*Eb-1:0]             word_i,         // free (only the tracked element is held)
  input logic                        other_stall_i,  // free: the OR of the other lanes' stalls
  input logic                        pop_i,          // free; only while an element is offered
  input logic                        pick_i,         // free: track an element of the word starting
  input logic [PosBits-1:0]          pick_pos_i      // free: ... the one at this position
);

  localparam int unsigned M = Cfg.m;
  localparam int unsigned FD = Cfg.lane_fifo_depth;
  localparam int unsigned KBits = $clog2(M + 1);
  localparam int unsigned FillBits = flycol_pkg::index_bits(M);
  localparam int unsigned RegsN = (M > 1) ? M - 1 : 1;
  localparam int unsigned GroupBits = KBits + M * Eb;
  localparam int unsigned PtrBits = (FD > 1) ? $clog2(FD) : 1;
  localparam int unsigned CntBits = $clog2(FD + 1);
  // Elements the lane can owe: a full FIFO, M-1 held in registers, a whole word not yet taken.
  localparam int unsigned Cap = FD * M + (M - 1) + B;
  localparam int unsigned SB = $clog2(Cap + 1) + 1;  // one bit more: an overflow shows
  localparam int unsigned IB = ShiftBits + 2;        // e - s for e in 0..B-1, signed

  logic lane_stall, global_stall, elem_valid;
  logic [Eb-1:0] elem;

  // The feeder's stall: the word is held while this lane or any other stalls (section 9.2).
  assign global_stall = valid_i && (lane_stall || other_stall_i);

  feed_lane #(
    .Cfg(Cfg)
  ) u_dut (
    .clk_i,
    .rst_ni,
    .valid_i,
    .shift_i,
    .flush_i,
    .pattern_i,
    .word_i,
    .lane_stall_o  (lane_stall),
    .global_stall_i(global_stall),
    .elem_valid_o  (elem_valid),
    .elem_o        (elem),
    .pop_i
  );

  // Probes of the lane's registers (runner PROBES): the induction invariant needs them.
  logic [FillBits-1:0]     p_fill, p_rd_idx;
  logic [RegsN*Eb-1:0]     p_regs;
  logic [B-1:0]            p_taken;
  logic [FD*GroupBits-1:0] p_mem;
  logic [PtrBits-1:0]      p_head;
  logic [CntBits-1:0]      p_count;
  // Every use goes through these copies: `connect -set` deletes any plain alias of a probe (a
  // concatenation, an OR with 0 or an add of 0 folded by proc's opt_expr, e.g. `{0, p_fill}`) as
  // if it drove the probe, leaving the alias undriven (Yosys 0.23). A multiplexer on the reset
  // cannot fold; the copies differ from the probes only in the reset cycle, where nothing is
  // asserted.
  logic [FillBits-1:0]     q_fill, q_rd_idx;
  logic [RegsN*Eb-1:0]     q_regs;
  logic [B-1:0]            q_taken;
  logic [FD*GroupBits-1:0] q_mem;
  logic [PtrBits-1:0]      q_head;
  logic [CntBits-1:0]      q_count;
  assign q_fill = rst_ni ? p_fill : '0;
  assign q_rd_idx = rst_ni ? p_rd_idx : '0;
  assign q_regs = rst_ni ? p_regs : '0;
  assign q_taken = rst_ni ? p_taken : '0;
  assign q_mem = rst_ni ? p_mem : '0;
  assign q_head = rst_ni ? p_head : '0;
  assign q_count = rst_ni ? p_count : '0;

  // ---- The specification's element stream, computed independently of the lane ----
  // mask[e] = pattern[e - s] for 0 <= e - s < PB: the elements of the word the lane is given.
  // A word enters whole in its first cycle (valid and not a continuation of a held word), its
  // masked elements in increasing e; the stream leaves one element per pop.
  logic [B-1:0] mask;
  logic signed [IB-1:0] shift_x;
  assign shift_x = $signed({{(IB - ShiftBits){shift_i[ShiftBits-1]}}, shift_i});
  for (genvar e = 0; e < B; e++) begin : gen_mask
    logic signed [IB-1:0] idx;
    assign idx = $signed(IB'(e)) - shift_x;
    assign mask[e] = (idx >= 0) && (idx < $signed(IB'(PB))) && pattern_i[idx[IB-2:0]];
  end

  // Held-word record: the feeder keeps the word, shift, pattern and flush while it stalls.
  logic hold_q, flushed_q;
  logic signed [ShiftBits-1:0] shift_h_q;
  logic [PB-1:0] pattern_h_q;
  logic flush_h_q;

  // Elements still in the current word: the masked ones the lane has not taken yet. The lane's
  // taken_q is zero outside a held word (asserted below), so this is the whole mask at a start.
  logic [B-1:0] rest;
  assign rest = mask & ~q_taken;

  // Prefix counts, unrolled (no looping function: Yosys 0.23 pitfall): pre_m[e] masked elements
  // below e, pre_r[e] the same for the rest; above_t[e]: some element above e was taken.
  logic [SB-1:0] pre_m[B+1];
  logic [SB-1:0] pre_r[B+1];
  logic [B:0]    above_t;
  assign pre_m[0] = '0;
  assign pre_r[0] = '0;
  assign above_t[B] = 1'b0;
  for (genvar e = 0; e < B; e++) begin : gen_pre
    assign pre_m[e+1] = pre_m[e] + {{(SB - 1){1'b0}}, mask[e]};
    assign pre_r[e+1] = pre_r[e] + {{(SB - 1){1'b0}}, rest[e]};
  end
  for (genvar e = B; e > 0; e--) begin : gen_above
    assign above_t[e-1] = above_t[e] | q_taken[e-1];
  end

  logic start, accept;
  assign start = valid_i && !hold_q;          // a new word enters
  assign accept = valid_i && !global_stall;   // the word leaves the selection stage

  // ---- Scoreboard: elements owed, one tracked element ----
  logic [SB-1:0] owed_q;       // entered - popped
  logic          trk_q;        // an element is tracked and has not left yet
  logic [Eb-1:0] trk_data_q;
  logic [SB-1:0] trk_dist_q;   // owed elements ahead of it
  logic [PosBits-1:0] trk_pos_q;  // its position in its word
  logic          trk_word_q;   // its word is still held

  // The picked element: position pick_pos_i of the starting word, if masked.
  logic          pick_ok;
  logic [Eb-1:0] pick_data;
  logic [SB-1:0] pick_pre;
  always_comb begin
    pick_ok = 1'b0;
    pick_data = '0;
    pick_pre = '0;
    for (int e = 0; e < B; e++) begin
      if (pick_pos_i == PosBits'(e)) begin
        pick_ok = mask[e];
        pick_data = word_i[e*Eb+:Eb];
        pick_pre = pre_m[e];
      end
    end
  end

  logic init_q = 1'b1;
  always_ff @(posedge clk_i) init_q <= 1'b0;

  // The tracked element's data in the current word (only it is held: the other elements of a
  // held word are left free, which only adds behaviours).
  logic [Eb-1:0] word_at_trk;
  always_comb begin
    word_at_trk = '0;
    for (int e = 0; e < B; e++) begin
      if (trk_pos_q == PosBits'(e)) word_at_trk = word_i[e*Eb+:Eb];
    end
  end

  always_comb begin
    assume (rst_ni == !init_q);
    if (valid_i) begin
      assume (shift_i >= -$signed(ShiftBits'(PB)) && shift_i <= $signed(ShiftBits'(B)));
    end
    if (hold_q) begin
      assume (valid_i && shift_i == shift_h_q && pattern_i == pattern_h_q && flush_i == flush_h_q);
    end
    if (trk_word_q) assume (word_at_trk == trk_data_q);
    if (pop_i) assume (elem_valid);
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      hold_q <= 1'b0;
      shift_h_q <= '0;
      pattern_h_q <= '0;
      flush_h_q <= 1'b0;
      flushed_q <= 1'b0;
      owed_q <= '0;
      trk_q <= 1'b0;
      trk_data_q <= '0;
      trk_dist_q <= '0;
      trk_pos_q <= '0;
      trk_word_q <= 1'b0;
    end else begin
      hold_q <= valid_i && global_stall;
      shift_h_q <= shift_i;
      pattern_h_q <= pattern_i;
      flush_h_q <= flush_i;
      if (valid_i) flushed_q <= accept && flush_i;
      owed_q <= owed_q + (start ? pre_m[B] : '0) - {{(SB - 1){1'b0}}, pop_i};
      trk_word_q <= trk_word_q && global_stall;
      if (trk_q && pop_i) begin
        if (trk_dist_q == '0) trk_q <= 1'b0;
        else trk_dist_q <= trk_dist_q - 1'b1;
      end
      if (!trk_q && start && pick_i && pick_ok) begin
        trk_q <= 1'b1;
        trk_data_q <= pick_data;
        trk_dist_q <= owed_q - {{(SB - 1){1'b0}}, pop_i} + pick_pre;
        trk_pos_q <= pick_pos_i;
        trk_word_q <= global_stall;
      end
    end
  end

  // ---- The lane's state seen through the probes ----
  // FIFO window: slot of the j-th group from the head, its count, and the running element sums.
  logic [KBits-1:0] g_cnt[FD];
  logic [SB-1:0]    cum[FD+1];
  logic [FD-1:0]    g_in;        // the j-th group from the head is held
  logic [FD-1:0]    grp_ok;      // its count is 1..M
  for (genvar j = 0; j < FD; j++) begin : gen_win
    logic [PtrBits:0] sum;
    logic [PtrBits-1:0] slot;
    assign sum = {1'b0, q_head} + (PtrBits + 1)'(j);
    assign slot = (sum >= (PtrBits + 1)'(FD)) ? PtrBits'(sum - (PtrBits + 1)'(FD)) : sum[PtrBits-1:0];
    assign g_in[j] = (CntBits + 1)'(j) < {1'b0, q_count};
    always_comb begin
      g_cnt[j] = '0;
      for (int i = 0; i < FD; i++) begin
        if (slot == PtrBits'(i)) g_cnt[j] = q_mem[i*GroupBits+M*Eb+:KBits];
      end
    end
    assign grp_ok[j] = g_cnt[j] != '0 && 32'(g_cnt[j]) <= M;
    assign cum[j+1] = cum[j] + (g_in[j] ? {{(SB - KBits){1'b0}}, g_cnt[j]} : '0);
  end
  assign cum[0] = '0;

  logic [SB-1:0] fifo_elems, pend, fill_x, rd_x;
  assign fill_x = {{(SB - FillBits){1'b0}}, q_fill};
  assign rd_x = {{(SB - FillBits){1'b0}}, q_rd_idx};
  assign fifo_elems = cum[FD] - rd_x;
  assign pend = hold_q ? pre_r[B] : '0;

  // Where the tracked element sits: FIFO (element e_abs counted from the head group's first),
  // intermediate register, or the held word.
  logic [SB-1:0] e_abs, r_idx, w_idx;
  logic in_fifo, in_regs;
  assign e_abs = trk_dist_q + rd_x;
  assign in_fifo = trk_dist_q < fifo_elems;
  assign in_regs = !in_fifo && (trk_dist_q - fifo_elems < fill_x);
  assign r_idx = trk_dist_q - fifo_elems;
  assign w_idx = trk_dist_q - fifo_elems - fill_x;

  // FIFO slot and element holding the tracked element, unrolled: hit_fifo is 1 when the element at
  // position e_abs of the window equals the tracked data.
  logic [FD*M-1:0] fifo_hit, fifo_at;
  for (genvar j = 0; j < FD; j++) begin : gen_fhit
    logic [PtrBits:0] sum;
    logic [PtrBits-1:0] slot;
    assign sum = {1'b0, q_head} + (PtrBits + 1)'(j);
    assign slot = (sum >= (PtrBits + 1)'(FD)) ? PtrBits'(sum - (PtrBits + 1)'(FD)) : sum[PtrBits-1:0];
    for (genvar q = 0; q < M; q++) begin : gen_q
      logic [Eb-1:0] v;
      always_comb begin
        v = '0;
        for (int i = 0; i < FD; i++) begin
          if (slot == PtrBits'(i)) v = q_mem[i*GroupBits+q*Eb+:Eb];
        end
      end
      assign fifo_at[j*M+q] = g_in[j] && (KBits'(q) < g_cnt[j]) && (cum[j] + SB'(q) == e_abs);
      assign fifo_hit[j*M+q] = v == trk_data_q;
    end
  end

  logic regs_hit;
  always_comb begin
    regs_hit = 1'b0;
    for (int r = 0; r < RegsN; r++) begin
      if (r_idx == SB'(r)) regs_hit = q_regs[r*Eb+:Eb] == trk_data_q;
    end
  end

  logic word_ok;  // the tracked element is untaken at its position, w_idx-th of the rest
  always_comb begin
    word_ok = 1'b0;
    for (int e = 0; e < B; e++) begin
      if (trk_pos_q == PosBits'(e)) word_ok = rest[e] && pre_r[e] == w_idx;
    end
  end

  always_comb begin
    if (rst_ni) begin
      // The properties: every pop takes an owed element, the tracked one leaves in its place
      // with its value, the lane never owes more than it can hold, and after a flush every
      // owed element is offered.
      a_owed: assert (!elem_valid || owed_q != '0);
      a_bound: assert (owed_q <= SB'(Cap));
      if (trk_q) begin
        a_trk_in: assert (trk_dist_q < owed_q);
        if (trk_dist_q == '0 && pop_i) a_order: assert (elem == trk_data_q);
      end
      if (flushed_q) a_flush: assert (elem_valid == (owed_q != '0));

      // Induction strengthening: the owed elements are exactly the FIFO's (from rd_idx on),
      // the registers' and the untaken rest of the held word, in that order.
      a_sum: assert (owed_q == fifo_elems + fill_x + pend);
      a_fill: assert (32'(q_fill) < M);
      a_count: assert (32'(q_count) <= FD && 32'(q_head) < FD);
      a_rd: assert (q_count == '0 ? q_rd_idx == '0 : KBits'(q_rd_idx) < g_cnt[0]);
      a_grp: assert ((g_in & ~grp_ok) == '0);
      if (!hold_q) a_idle: assert (q_taken == '0);
      // The lane takes a word's elements lowest first: no untaken element below a taken one.
      a_taken: assert ((q_taken & ~mask) == '0 && (rest & above_t[B:1]) == '0);
      if (flushed_q) a_flushed: assert (q_fill == '0 && !hold_q);
      if (trk_q) begin
        if (in_fifo) begin
          a_trk_fifo: assert ((fifo_at & ~fifo_hit) == '0 && fifo_at != '0);
        end else if (in_regs) begin
          a_trk_regs: assert (regs_hit);
        end else begin
          a_trk_word: assert (hold_q && trk_word_q && word_ok);
        end
      end
      if (trk_word_q) a_trk_held: assert (hold_q);
    end
  end

  // Not vacuous (formal_feed_lane_*_reach): the FIFO full, a word held while this lane takes
  // part of it, a flush pushing a partial group, a pop from a full FIFO, and the tracked
  // element popped.
  logic reach_full_q, reach_multi_q, reach_flush_q, reach_pop_full_q, reach_trk_q;
  (* keep *) logic reach_all;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      reach_full_q <= 1'b0;
      reach_multi_q <= 1'b0;
      reach_flush_q <= 1'b0;
      reach_pop_full_q <= 1'b0;
      reach_trk_q <= 1'b0;
    end else begin
      reach_full_q <= reach_full_q || 32'(q_count) == FD;
      reach_multi_q <= reach_multi_q || (hold_q && q_taken != '0);
      reach_flush_q <= reach_flush_q ||
                       (accept && flush_i && fill_x + pre_r[B] != '0 && fill_x + pre_r[B] < SB'(M));
      reach_pop_full_q <= reach_pop_full_q || (pop_i && 32'(q_count) == FD);
      reach_trk_q <= reach_trk_q || (trk_q && trk_dist_q == '0 && pop_i);
    end
  end
  assign reach_all = reach_full_q && reach_multi_q && reach_flush_q && reach_pop_full_q && reach_trk_q;

endmodule
`endif
