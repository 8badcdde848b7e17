// Data feeder (docs/microarchitecture.md, sections 8, 9.1 and 9.2): the RTL twin of
// hw::FeederCore (feeder_core.h/.cpp), register for register and cycle for cycle. The index
// counters read every interest-region word once; ROWS feed lanes pick their elements from it.
`include "flycol_assert.svh"

module feeder #(
  parameter flycol_pkg::cfg_t Cfg = flycol_cfg_pkg::Cfg,
  localparam int unsigned Rows = Cfg.rows,
  localparam int unsigned B = Cfg.bus_elems,
  localparam int unsigned Eb = Cfg.elem_bits,
  localparam int unsigned AddrBits = flycol_pkg::index_bits(Cfg.ifmap_depth)
) (
  input  logic                 clk_i,          // clock
  input  logic                 rst_ni,         // asynchronous reset, active low
  input  logic                 start_i,        // start the RUN on run_i (only while !busy_o)
  // Only the run_* fields of the command are read; the rest belongs to other engines.
  /* verilator lint_off UNUSEDSIGNAL */
  input  flycol_pkg::command_t run_i,          // the RUN command, sampled with start_i
  /* verilator lint_on UNUSEDSIGNAL */
  output logic                 ifmap_req_o,    // ifmap SRAM read now (from ifmap_rdata_i too)
  output logic [AddrBits-1:0]  ifmap_addr_o,   // its word address (0 without a read)
  input  logic [B*Eb-1:0]      ifmap_rdata_i,  // SRAM's held last read; element e at [e*Eb +: Eb]
  output logic                 lanes_valid_o,  // every lane has an element
  output logic [Rows*Eb-1:0]   lane_data_o,    // head of lane l at [l*Eb +: Eb] (0 when empty)
  input  logic                 pop_i,          // pop every lane's head (only while lanes_valid_o)
  output logic                 busy_o,         // reads remain or the selection stage holds a word
  output logic                 sel_stall_o     // the selection stage stalls this cycle (statistics)
);

  localparam int unsigned Log2B = Cfg.log2_bus;
  localparam int unsigned PB = Cfg.pattern_bits;
  localparam int unsigned PtrBits = AddrBits + Log2B;   // as in index_counters
  localparam int unsigned BBits = PtrBits + 1;           // sel_b: as index_counters' b_o
  localparam int unsigned LsBits = flycol_pkg::LaneStrideBits;
  localparam int unsigned RowBits = flycol_pkg::index_bits(Rows);
  localparam int unsigned CountBits = flycol_pkg::CountBits;
  localparam int unsigned PackWraps = flycol_pkg::PackWraps;
  localparam int unsigned WrapBits = $clog2(PackWraps + 1);
  // Pixel packing: lo = l*lane_stride + w*pack_jump with w <= PackWraps, pack_jump < 2^PtrBits.
  localparam int unsigned LsOffBits = RowBits + LsBits;  // l*lane_stride < Rows*2^LsBits
  localparam int unsigned JOffBits = PtrBits + WrapBits; // w*pack_jump
  localparam int unsigned LoBits = ((LsOffBits > JOffBits) ? LsOffBits : JOffBits) + 1;
  // The multiples m*pack_w (m <= PackWraps) the lanes compare their pixel column ox + l with.
  localparam int unsigned ThrBits = CountBits + WrapBits;
  // s = b + lo without overflow.
  localparam int unsigned SwBits = ((BBits > LoBits + 1) ? BBits : LoBits + 1) + 1;
  // The lanes' shift input: s clamped to [-PB, B] (feed_lane.sv's formula).
  localparam int unsigned ShiftBits = $clog2(((PB > B) ? PB : B) + 1) + 1;
  localparam logic signed [SwBits-1:0] SwLo = -$signed(SwBits'(PB));
  localparam logic signed [SwBits-1:0] SwHi = $signed(SwBits'(B));

  // Stage IC.
  logic                   ic_has_read, ic_flush, ic_lastc;
  logic [AddrBits-1:0]    ic_addr;
  logic signed [BBits-1:0] ic_b;
  logic [LsBits-1:0]      lane_stride;
  logic [PB-1:0]          pattern_last, pattern_kxc;
  logic [PB-1:0]          pattern;  // the held word's chunk pattern (section 9.1: one shared mux)
  logic [CountBits-1:0]   ic_ox, pack_w;
  logic [PtrBits-1:0]     pack_jump;
  logic [PackWraps*ThrBits-1:0] pack_thr;  // threshold m+1 at [m*ThrBits +: ThrBits] (a flat vector: Yosys 0.23)

  // Selection stage (SEL) registers; the word itself is the SRAM's held output.
  logic                    sel_valid_q, sel_valid_d, sel_flush_q, sel_flush_d;
  logic                    sel_lastc_q, sel_lastc_d;  // the word is of a kernel row's last chunk
  logic signed [BBits-1:0] sel_b_q, sel_b_d;
  logic [CountBits-1:0]    sel_ox_q, sel_ox_d;  // the word's context column (pixel packing)

  logic            stall, issue;
  logic [Rows-1:0] lane_stall, lane_elem_valid;

  index_counters #(
    .Cfg(Cfg)
  ) u_ic (
    .clk_i,
    .rst_ni,
    .start_i,
    .run_i,
    .issue_i      (issue),
    .has_read_o   (ic_has_read),
    .addr_o       (ic_addr),
    .b_o          (ic_b),
    .flush_o      (ic_flush),
    .lastc_o      (ic_lastc),
    .lane_stride_o(lane_stride),
    .pattern_o    (pattern_last),
    .pattern_kxc_o(pattern_kxc),
    .ox_o         (ic_ox),
    .pack_w_o     (pack_w),
    .pack_jump_o  (pack_jump)
  );

  assign pattern = sel_lastc_q ? pattern_last : pattern_kxc;

  // Thresholds of the packing comparators, fixed during a RUN.
  always_comb begin
    for (int m = 0; m < PackWraps; m++) pack_thr[m*ThrBits +: ThrBits] = ThrBits'(m + 1) * ThrBits'(pack_w);
  end

  // The feeder stalls when any lane needs the held word again; then the IC issues no read, the SEL
  // registers keep their word (the SRAM holds rdata) and each lane records what it took.
  always_comb begin
    stall = sel_valid_q && (|lane_stall);
    issue = ic_has_read && !stall;
    sel_valid_d = 1'b0;
    sel_b_d = '0;
    sel_flush_d = 1'b0;
    sel_lastc_d = 1'b1;
    sel_ox_d = '0;
    if (issue) begin
      sel_valid_d = 1'b1;
      sel_b_d = ic_b;
      sel_flush_d = ic_flush;
      sel_lastc_d = ic_lastc;
      sel_ox_d = ic_ox;
    end else if (stall) begin
      sel_valid_d = sel_valid_q;
      sel_b_d = sel_b_q;
      sel_flush_d = sel_flush_q;
      sel_lastc_d = sel_lastc_q;
      sel_ox_d = sel_ox_q;
    end
  end

  assign ifmap_req_o = issue;
  assign ifmap_addr_o = issue ? ic_addr : '0;
  assign lanes_valid_o = &lane_elem_valid;
  assign busy_o = ic_has_read || sel_valid_q;
  assign sel_stall_o = stall;

  for (genvar l = 0; l < Rows; l++) begin : gen_lane
    logic [LoBits-1:0]             local_off;  // the lane's local offset l*lane_stride + w*pack_jump
    logic [WrapBits-1:0]           wraps;      // rows the lane's pixel lies below the context's first
    logic signed [SwBits-1:0]      s;          // global offset b plus the local offset
    logic signed [ShiftBits-1:0]   shift;

    always_comb begin
      wraps = '0;
      if (pack_w != '0)
        for (int m = 0; m < PackWraps; m++)
          if (ThrBits'(sel_ox_q) + ThrBits'(l) >= pack_thr[m*ThrBits +: ThrBits]) wraps = wraps + 1'b1;
      local_off = LoBits'(l) * LoBits'(lane_stride) + LoBits'(wraps) * LoBits'(pack_jump);
      s = $signed({{(SwBits - BBits){sel_b_q[BBits-1]}}, sel_b_q}) + $signed(SwBits'(local_off));
      if (s >= SwHi) shift = ShiftBits'(SwHi);
      else if (s <= SwLo) shift = ShiftBits'(SwLo);
      else shift = ShiftBits'(s);
    end

    feed_lane #(
      .Cfg(Cfg)
    ) u_lane (
      .clk_i,
      .rst_ni,
      .valid_i       (sel_valid_q),
      .shift_i       (shift),
      .flush_i       (sel_flush_q),
      .pattern_i     (pattern),
      .word_i        (ifmap_rdata_i),
      .lane_stall_o  (lane_stall[l]),
      .global_stall_i(stall),
      .elem_valid_o  (lane_elem_valid[l]),
      .elem_o        (lane_data_o[l*Eb+:Eb]),
      .pop_i
    );
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      sel_valid_q <= 1'b0;
      sel_b_q <= '0;
      sel_flush_q <= 1'b0;
      sel_lastc_q <= 1'b1;
      sel_ox_q <= '0;
    end else begin
      sel_valid_q <= sel_valid_d;
      sel_b_q <= sel_b_d;
      sel_flush_q <= sel_flush_d;
      sel_lastc_q <= sel_lastc_d;
      sel_ox_q <= sel_ox_d;
    end
  end

`ifndef SYNTHESIS
  initial begin
    flycol_pkg::check_range("feeder", "rows", Rows, flycol_pkg::CfgRowsMin, flycol_pkg::CfgRowsMax);
    flycol_pkg::check_range("feeder", "elem_bits", Eb, flycol_pkg::CfgElemBitsMin,
                            flycol_pkg::CfgElemBitsMax);
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (rst_ni && start_i && busy_o) $error("feeder: start while busy");
    if (rst_ni && pop_i && !lanes_valid_o) $error("feeder: pop while a lane is empty");
  end
`endif

  // ---- Assertions (hw/common/flycol_assert.svh) ----
  `FLYCOL_ASSERT_NEVER(NoStartBusy_A, start_i && busy_o, clk_i, rst_ni)
  `FLYCOL_ASSERT_NEVER(NoPopEmpty_A, pop_i && !lanes_valid_o, clk_i, rst_ni)
  `FLYCOL_ASSERT(IdleNoRead_A, !busy_o |-> !ifmap_req_o, clk_i, rst_ni)
  `FLYCOL_ASSERT(NoReadAddrZero_A, !ifmap_req_o |-> ifmap_addr_o == '0, clk_i, rst_ni)
  `FLYCOL_ASSERT_KNOWN(CtrlKnown_A, {ifmap_req_o, lanes_valid_o, busy_o, sel_stall_o}, clk_i, rst_ni)
  `FLYCOL_COVER(SelStall_C, sel_stall_o, clk_i, rst_ni)
  `FLYCOL_COVER(LanesWait_C, busy_o && !lanes_valid_o, clk_i, rst_ni)
  `FLYCOL_COVER(Start_C, start_i, clk_i, rst_ni)
  `FLYCOL_COVER(PackedWord_C, sel_valid_q && pack_w != '0 && sel_ox_q != '0, clk_i, rst_ni)

endmodule
