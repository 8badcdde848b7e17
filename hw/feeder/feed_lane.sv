// One feed lane of the data feeder (docs/microarchitecture.md, section 9.2, stage SEL): the RTL
// twin of hw::FeedLaneCore (feed_lane_core.h/.cpp), register for register. It picks its
// elements from the selection stage's word with the shifted kernel pattern, gathers them in M-1
// intermediate registers, pushes groups of up to M into its FIFO and serves them one at a time.
`include "flycol_assert.svh"

module feed_lane #(
  parameter flycol_pkg::cfg_t Cfg = flycol_cfg_pkg::Cfg,
  localparam int unsigned B = Cfg.bus_elems,
  localparam int unsigned PB = Cfg.pattern_bits,
  localparam int unsigned Eb = Cfg.elem_bits,
  // Every shift outside (-PB, B) selects nothing, so the feeder clamps s to [-PB, B]: this width
  // holds that range (feeder.sv uses the same formula).
  localparam int unsigned ShiftBits = $clog2(((PB > B) ? PB : B) + 1) + 1
) (
  input  logic                        clk_i,           // clock
  input  logic                        rst_ni,          // asynchronous reset, active low
  input  logic                        valid_i,         // the selection stage holds a word
  input  logic signed [ShiftBits-1:0] shift_i,         // s = b + l*lane_stride, clamped to [-PB, B]
  input  logic                        flush_i,         // the word is the RUN's last read
  input  logic [PB-1:0]               pattern_i,       // kernel pattern
  input  logic [B*Eb-1:0]             word_i,          // the word: element e in bits [e*Eb +: Eb]
  output logic                        lane_stall_o,    // this lane needs the word another cycle
  input  logic                        global_stall_i,  // valid_i and the OR of every lane's stall
  output logic                        elem_valid_o,    // the lane FIFO is not empty
  output logic [Eb-1:0]               elem_o,          // head element (0 when empty)
  input  logic                        pop_i            // pop the head element (while elem_valid_o)
);

  localparam int unsigned M = Cfg.m;
  localparam int unsigned FD = Cfg.lane_fifo_depth;
  localparam int unsigned KBits = $clog2(M + 1);               // k, fill + k and group counts: 0..M
  localparam int unsigned NBits = $clog2(B + 1);               // n: 0..B
  localparam int unsigned CBits = ((KBits > NBits) ? KBits : NBits) + 1;  // k and n compared
  localparam int unsigned FillBits = flycol_pkg::index_bits(M);  // fill: 0..M-1
  localparam int unsigned RegsN = (M > 1) ? M - 1 : 1;         // M = 1: one register, never written
  localparam int unsigned VBits = PB + B - 1;                  // pattern placed left of the word
  localparam int unsigned ShBits = flycol_pkg::index_bits(VBits);
  localparam int unsigned GroupBits = KBits + M * Eb;          // FIFO entry {count, elems[M]}
  localparam logic signed [ShiftBits-1:0] ShiftLo = -$signed(ShiftBits'(PB));
  localparam logic signed [ShiftBits-1:0] ShiftHi = $signed(ShiftBits'(B));

  // Element vectors are flat (element i at [i*Eb +: Eb]): Yosys 0.23 drops the outer dimension
  // of a packed array of a typedef'd element (docs/dev/rtl_conventions.md).

  // Registers (hw::FeedLaneCore): fill_q, regs_q[0..M-2], taken_q, rd_idx_q; the FIFO below.
  logic [FillBits-1:0] fill_q, fill_d;
  logic [RegsN*Eb-1:0] regs_q, regs_d;
  logic [B-1:0]        taken_q, taken_d;
  logic [FillBits-1:0] rd_idx_q, rd_idx_d;

  // Selection (hw::FeedLaneCore::select).
  logic [VBits-1:0]  placed;     // bit i is pattern[i - (B-1)]
  logic [ShBits-1:0] sh;         // B-1-s: the right shift that puts pattern[e-s] at bit e
  logic              in_range;   // -PB < s < B: some pattern bit can land on the word
  logic [B-1:0]      mask, avail, rest, took;
  logic [B-1:0]      lowest;     // position of the next lowest available element
  logic [M*Eb-1:0]   sel_elem;   // slot i: the element at that position
  logic [NBits-1:0]  n;
  logic [KBits-1:0]  room, k0, k, fill_k;
  logic              push0, push, blocked, stall;
  logic [M*Eb-1:0]   grp;        // the held elements followed by the ones taken this cycle

  // FIFO of groups {count, elems[M]}.
  logic              fifo_push, fifo_pop, fifo_full, fifo_empty;
  logic [GroupBits-1:0] fifo_wdata, fifo_rdata;
  logic [M*Eb-1:0]   head_elems;
  logic [KBits-1:0]  head_cnt;
  logic              last;

  always_comb begin
    // Barrel shift of the pattern by the signed amount s into a B-bit mask: bit e of the mask is
    // pattern[e - s] for 0 <= e - s < PB. Placing the pattern B-1 bits up turns it into one right
    // shift by B-1-s, which is in 0 .. PB+B-2 exactly when -PB < s < B.
    placed = VBits'(pattern_i) << (B - 1);
    in_range = (shift_i > ShiftLo) && (shift_i < ShiftHi);
    sh = ShBits'((ShiftBits + 1)'(B - 1) - {shift_i[ShiftBits-1], shift_i});
    mask = in_range ? B'(placed >> sh) : '0;
    avail = valid_i ? (mask & ~taken_q) : '0;

    n = '0;
    for (int e = 0; e < B; e++) n = n + NBits'(avail[e]);

    // k = min(n, M - fill); push on a full group or on the RUN's flush; a push into a full FIFO
    // blocks the lane (it takes nothing and stalls, so that the flush group is never lost).
    room = KBits'(M) - KBits'(fill_q);
    k0 = (CBits'(n) < CBits'(room)) ? KBits'(n) : room;
    fill_k = KBits'(fill_q) + k0;
    push0 = valid_i && ((fill_k == KBits'(M)) ||
                        (flush_i && CBits'(k0) == CBits'(n) && fill_k != '0));
    blocked = push0 && fifo_full;
    k = blocked ? '0 : k0;
    push = push0 && !blocked;
`ifdef FLYCOL_BUG_FEED_STALL
    stall = (CBits'(k) + 1'b1 < CBits'(n)) || blocked;  // formal twin: one element short
`else
    stall = (CBits'(k) < CBits'(n)) || blocked;
`endif

    // Priority select: slot i gets the lowest available element not given to slots < i (a
    // one-hot mask and an AND-OR multiplexer); the first k slots are taken, later ones ignored.
    rest = avail;
    took = '0;
    for (int i = 0; i < M; i++) begin
      lowest = rest & (~rest + 1'b1);
      rest = rest & (rest - 1'b1);
      if (KBits'(i) < k) took = took | lowest;
      sel_elem[i*Eb+:Eb] = '0;
      for (int e = 0; e < B; e++) begin
        sel_elem[i*Eb+:Eb] = sel_elem[i*Eb+:Eb] | ({Eb{lowest[e]}} & word_i[e*Eb+:Eb]);
      end
    end

    // Slots 0..fill-1 hold the intermediate registers, the selected elements follow from fill on.
    grp = '0;
    for (int j = 0; j + 1 < M; j++) grp[j*Eb+:Eb] = regs_q[j*Eb+:Eb];
    for (int f = 0; f < M; f++) begin
      if (fill_q == FillBits'(f)) begin
        for (int i = 0; i < M - f; i++) grp[(f+i)*Eb+:Eb] = sel_elem[i*Eb+:Eb];
      end
    end
  end

  // Next state of the selection side.
  always_comb begin
    regs_d = regs_q;
    fill_d = fill_q;
    fifo_push = push;
    fifo_wdata = {KBits'(fill_k), grp};
    if (push) begin
      fill_d = '0;
    end else begin
      for (int j = 0; j + 1 < M; j++) begin
        if (FillBits'(j) >= fill_q && KBits'(j) < KBits'(fill_q) + k) begin
          regs_d[j*Eb+:Eb] = grp[j*Eb+:Eb];
        end
      end
      fill_d = FillBits'(KBits'(fill_q) + k);
    end
    // A held word keeps the record of what this lane already took; a new word starts clean.
    taken_d = (global_stall_i && valid_i) ? (taken_q | took) : '0;
  end

  // FIFO read side: the head group is served element by element.
  always_comb begin
    {head_cnt, head_elems} = fifo_rdata;
    last = KBits'(rd_idx_q) + 1'b1 >= head_cnt;
    fifo_pop = pop_i && last;
    rd_idx_d = rd_idx_q;
    if (pop_i) rd_idx_d = last ? '0 : rd_idx_q + 1'b1;
  end

  assign lane_stall_o = stall;
  assign elem_valid_o = !fifo_empty;
  assign elem_o = fifo_empty ? '0 : head_elems[rd_idx_q*Eb+:Eb];

  fifo #(
    .Width(GroupBits),
    .Depth(FD)
  ) u_fifo (
    .clk_i,
    .rst_ni,
    .push_i (fifo_push),
    .wdata_i(fifo_wdata),
    .pop_i  (fifo_pop),
    .rdata_o(fifo_rdata),
    .full_o (fifo_full),
    .empty_o(fifo_empty),
    // The lane needs only full and empty (section 9.2).
    /* verilator lint_off PINCONNECTEMPTY */
    .count_o()
    /* verilator lint_on PINCONNECTEMPTY */
  );

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      fill_q <= '0;
      regs_q <= '0;
      taken_q <= '0;
      rd_idx_q <= '0;
    end else begin
      fill_q <= fill_d;
      regs_q <= regs_d;
      taken_q <= taken_d;
      rd_idx_q <= rd_idx_d;
    end
  end

`ifndef SYNTHESIS
  initial begin
    flycol_pkg::check_range("feed_lane", "bus_elems", B, flycol_pkg::CfgBusElemsMin,
                            flycol_pkg::CfgBusElemsMax);
    flycol_pkg::check_range("feed_lane", "pattern_bits", PB, flycol_pkg::CfgPatternBitsMin,
                            flycol_pkg::CfgPatternBitsMax);
    flycol_pkg::check_range("feed_lane", "m", M, flycol_pkg::CfgMMin, flycol_pkg::CfgMMax);
    flycol_pkg::check_range("feed_lane", "lane_fifo_depth", FD, flycol_pkg::CfgLaneFifoDepthMin,
                            flycol_pkg::CfgLaneFifoDepthMax);
    flycol_pkg::check_range("feed_lane", "elem_bits", Eb, flycol_pkg::CfgElemBitsMin,
                            flycol_pkg::CfgElemBitsMax);
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (rst_ni && stall && !global_stall_i) begin
      $error("feed_lane: lane stalls but the feeder's stall is low");
    end
    if (rst_ni && pop_i && fifo_empty) $error("feed_lane: pop while empty");
    if (rst_ni && valid_i && (shift_i < ShiftLo || shift_i > ShiftHi))
      $error("feed_lane: shift %0d outside the clamped range %0d..%0d", shift_i, ShiftLo, ShiftHi);
    if (rst_ni && !fifo_empty && head_cnt == '0) $error("feed_lane: empty group in the FIFO");
  end
`endif

  // ---- Assertions (hw/common/flycol_assert.svh) ----
  `FLYCOL_ASSERT_NEVER(NoPopEmpty_A, pop_i && !elem_valid_o, clk_i, rst_ni)
  `FLYCOL_ASSERT(StallInGlobal_A, lane_stall_o |-> global_stall_i, clk_i, rst_ni)
  // The selection stage holds its word while any lane stalls: the word and shift stay put.
  `FLYCOL_ASSERT(WordHeld_A, (valid_i && global_stall_i) |=> valid_i && $stable(word_i) && $stable(shift_i),
                 clk_i, rst_ni)
  `FLYCOL_ASSERT(EmptyHeadZero_A, !elem_valid_o |-> elem_o == '0, clk_i, rst_ni)
  `FLYCOL_ASSERT_KNOWN(CtrlKnown_A, {lane_stall_o, elem_valid_o}, clk_i, rst_ni)
  `FLYCOL_COVER(LaneStall_C, lane_stall_o, clk_i, rst_ni)
  `FLYCOL_COVER(FifoFull_C, fifo_full, clk_i, rst_ni)
  `FLYCOL_COVER(Flush_C, valid_i && flush_i && !global_stall_i, clk_i, rst_ni)

endmodule
