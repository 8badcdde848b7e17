// PE array (docs/microarchitecture.md 9.4-9.6), the RTL twin of the signal-level SystemC Array:
// ROWS x COLS pe instances and, register for register as ArrayEdgeCore (hw/array/array_edge.h),
// the issue register, the feed-register triangles, the row window counters, the preload skew line
// and the result de-skew. Cycle-exact with the fast ArrayCore the accelerator model uses.
//
// Arrays of elements are flat vectors, element i in bits [i*W +: W] (the layout of
// `logic [N-1:0][W-1:0]`), in the ports and inside: Yosys 0.23 does not parse multi-dimensional
// packed declarations, and silently shrinks a packed array of a typedef'd element to one element.
`include "flycol_assert.svh"

module array #(
  parameter flycol_pkg::cfg_t Cfg = flycol_cfg_pkg::Cfg,
  localparam int unsigned Rows = Cfg.rows,
  localparam int unsigned Cols = Cfg.cols,
  localparam int unsigned ElemBits = Cfg.elem_bits,
  localparam int unsigned AccBits = Cfg.acc_bits,
  localparam int unsigned ColBits = flycol_pkg::index_bits(Cols),  // a column index, a window count
  localparam int unsigned GatedBits = $clog2(Rows * Cols + 1)        // 0 .. ROWS*COLS gated MACs
) (
  input  logic                     clk_i,         // clock, rising edge
  input  logic                     rst_ni,        // asynchronous reset, active low: every register 0
  input  logic                     tok_valid_i,   // issue decision of this cycle: a MAC step
  input  logic                     tok_swap_i,    //   swap accumulators and reserve registers after it
  input  logic                     tok_window_i,  //   open a reserve-chain window in every row
  input  logic [Rows*ElemBits-1:0] tok_a_i,       // ifmap element per row (before the skew), read with tok_valid_i
  input  logic [Cols*ElemBits-1:0] tok_w_i,       // weight per column (before the skew), read with tok_valid_i
  input  logic [Rows*AccBits-1:0]  pre_word_i,    // preload word, element r for row r; read only while pre_pop_o
  output logic                     pre_pop_o,     // row 0 shifts: the array takes pre_word_i this cycle
  output logic                     res_valid_o,   // a result word leaves the de-skew this cycle
  output logic [ColBits-1:0]       res_col_o,     // its column (0 while !res_valid_o)
  output logic [Rows*AccBits-1:0]  res_word_o,    // the result word, element r from row r (meaningful with res_valid_o)
  output logic [GatedBits-1:0]     gated_cnt_o    // PEs whose MAC step of the previous cycle was gated (statistics)
);

  // -----------------------------------------------------------------------------------------------
  // Issue register: flags every cycle, operands only with a MAC step (they are don't-care
  // otherwise, and holding them saves the toggles).
  // -----------------------------------------------------------------------------------------------
  logic                     iss_valid_q, iss_valid_d, iss_swap_q, iss_swap_d, iss_window_q, iss_window_d;
  logic [Rows*ElemBits-1:0] iss_a_q, iss_a_d;
  logic [Cols*ElemBits-1:0] iss_w_q, iss_w_d;

  always_comb begin
    iss_valid_d = tok_valid_i;
    iss_swap_d = tok_swap_i;
    iss_window_d = tok_window_i;
    iss_a_d = tok_valid_i ? tok_a_i : iss_a_q;
    iss_w_d = tok_valid_i ? tok_w_i : iss_w_q;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      iss_valid_q <= 1'b0;
      iss_swap_q <= 1'b0;
      iss_window_q <= 1'b0;
      iss_a_q <= '0;
      iss_w_q <= '0;
    end else begin
      iss_valid_q <= iss_valid_d;
      iss_swap_q <= iss_swap_d;
      iss_window_q <= iss_window_d;
      iss_a_q <= iss_a_d;
      iss_w_q <= iss_w_d;
    end
  end

  // West edge of row r (into PE(r,0)) and north edge of column c (into PE(0,c)). Public to the
  // lockstep testbench, which compares them with ArrayEdgeCore's every cycle: they show the
  // issue register, the triangles and the skew line even where the array's outputs cannot.
  logic [Rows*ElemBits-1:0] feed_a       /* verilator public_flat_rd */;
  logic [Rows-1:0]          feed_valid   /* verilator public_flat_rd */;
  logic [Rows-1:0]          feed_swap    /* verilator public_flat_rd */;
  logic [Rows-1:0]          feed_window  /* verilator public_flat_rd */;
  logic [Rows*AccBits-1:0]  res_in       /* verilator public_flat_rd */;
  logic [Cols*ElemBits-1:0] feed_w       /* verilator public_flat_rd */;

  assign feed_a[0 +: ElemBits] = iss_a_q[0 +: ElemBits];
  assign feed_valid[0] = iss_valid_q;
  assign feed_swap[0] = iss_swap_q;
  assign feed_window[0] = iss_window_q;
  assign feed_w[0 +: ElemBits] = iss_w_q[0 +: ElemBits];

  // -----------------------------------------------------------------------------------------------
  // Feed triangles: row r's a and flags r more cycles (stages 0..r-1, stage r-1 feeds PE(r,0)),
  // column c's weight c more cycles. They shift every cycle.
  // -----------------------------------------------------------------------------------------------
  for (genvar r = 1; r < Rows; r++) begin : gen_row_feed
    logic [r*ElemBits-1:0] a_q, a_d;
    logic [r-1:0]          valid_q, valid_d, swap_q, swap_d, window_q, window_d;

    always_comb begin
      a_d[0 +: ElemBits] = iss_a_q[r*ElemBits +: ElemBits];
      valid_d[0] = iss_valid_q;
      swap_d[0] = iss_swap_q;
      window_d[0] = iss_window_q;
      for (int unsigned s = 1; s < r; s++) begin
        a_d[s*ElemBits +: ElemBits] = a_q[(s-1)*ElemBits +: ElemBits];
        valid_d[s] = valid_q[s-1];
        swap_d[s] = swap_q[s-1];
        window_d[s] = window_q[s-1];
      end
    end

    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        a_q <= '0;
        valid_q <= '0;
        swap_q <= '0;
        window_q <= '0;
      end else begin
        a_q <= a_d;
        valid_q <= valid_d;
        swap_q <= swap_d;
        window_q <= window_d;
      end
    end

    assign feed_a[r*ElemBits +: ElemBits] = a_q[(r-1)*ElemBits +: ElemBits];
    assign feed_valid[r] = valid_q[r-1];
    assign feed_swap[r] = swap_q[r-1];
    assign feed_window[r] = window_q[r-1];
  end

  for (genvar c = 1; c < Cols; c++) begin : gen_col_feed
    logic [c*ElemBits-1:0] w_q, w_d;

    always_comb begin
      w_d[0 +: ElemBits] = iss_w_q[c*ElemBits +: ElemBits];
      for (int unsigned s = 1; s < c; s++) w_d[s*ElemBits +: ElemBits] = w_q[(s-1)*ElemBits +: ElemBits];
    end

    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        w_q <= '0;
      end else begin
        w_q <= w_d;
      end
    end

    assign feed_w[c*ElemBits +: ElemBits] = w_q[(c-1)*ElemBits +: ElemBits];
  end

  // -----------------------------------------------------------------------------------------------
  // The PEs. PE(r,c)'s outputs are signals of its own generate scope (gen_pe_row[r].gen_pe_col[c]);
  // it takes a, the flags and the reserve chain from PE(r,c-1) (column 0: the row's feed register
  // and skew line), w from PE(r-1,c) (row 0: the column's feed register), and its row's shift.
  // Small per-PE signals, rather than slices of flat Rows*Cols-wide vectors, keep the Verilated
  // model fast: every slice update of a multi-thousand-bit vector is a generic wide insert.
  // -----------------------------------------------------------------------------------------------
  logic [Rows*Cols-1:0] pe_gated;
  logic [Rows-1:0]      shift /* verilator public_flat_rd */;
  logic [Rows-1:0]      shift_bank /* verilator public_flat_rd */;

  for (genvar r = 0; r < Rows; r++) begin : gen_pe_row
    for (genvar c = 0; c < Cols; c++) begin : gen_pe_col
      localparam int unsigned Idx = r * Cols + c;
      logic [ElemBits-1:0] a_in, w_in;
      logic                valid_in, swap_in, window_in;
      logic [AccBits-1:0]  res_chain_in;
      // The east column's a, valid and swap and the south row's w go nowhere: every PE has the
      // same pass-through registers, and synthesis removes the unused ones.
      /* verilator lint_off UNUSEDSIGNAL */
      logic [ElemBits-1:0] a_out, w_out;
      logic                valid_out, swap_out;
      /* verilator lint_on UNUSEDSIGNAL */
      logic                window_out;
      logic [AccBits-1:0]  res_out;

      if (c == 0) begin : gen_west_edge
        assign a_in = feed_a[r*ElemBits +: ElemBits];
        assign valid_in = feed_valid[r];
        assign swap_in = feed_swap[r];
        assign window_in = feed_window[r];
        assign res_chain_in = res_in[r*AccBits +: AccBits];
      end else begin : gen_west_pe
        assign a_in = gen_pe_col[c-1].a_out;
        assign valid_in = gen_pe_col[c-1].valid_out;
        assign swap_in = gen_pe_col[c-1].swap_out;
        assign window_in = gen_pe_col[c-1].window_out;
        assign res_chain_in = gen_pe_col[c-1].res_out;
      end
      if (r == 0) begin : gen_north_edge
        assign w_in = feed_w[c*ElemBits +: ElemBits];
      end else begin : gen_north_pe
        assign w_in = gen_pe_row[r-1].gen_pe_col[c].w_out;
      end

      pe #(
        .Cfg(Cfg)
      ) u_pe (
        .clk_i,
        .rst_ni,
        .a_i     (a_in),
        .w_i     (w_in),
        .valid_i (valid_in),
        .swap_i  (swap_in),
        .window_i(window_in),
        .res_i   (res_chain_in),
        .shift_i (shift[r]),
        .shift_bank_i(shift_bank[r]),
        .a_o     (a_out),
        .w_o     (w_out),
        .valid_o (valid_out),
        .swap_o  (swap_out),
        .window_o(window_out),
        .res_o   (res_out),
        // The accumulator port is for a lone PE's tests and waveforms; nothing in the array reads it.
        /* verilator lint_off PINCONNECTEMPTY */
        .acc_o   (),
        /* verilator lint_on PINCONNECTEMPTY */
        .gated_o (pe_gated[Idx])
      );
    end
  end

  // The east column: a window flag there starts the row's shifts; its reserve registers are the
  // row's result output.
  logic [Rows-1:0]         east_window;
  logic [Rows*AccBits-1:0] east_res;

  for (genvar r = 0; r < Rows; r++) begin : gen_east
    assign east_window[r] = gen_pe_row[r].gen_pe_col[Cols-1].window_out;
    assign east_res[r*AccBits +: AccBits] = gen_pe_row[r].gen_pe_col[Cols-1].res_out;
  end

  // -----------------------------------------------------------------------------------------------
  // Row windows: a window flag in PE(r, COLS-1) starts COLS shifts of row r; wcnt_q[r] counts the
  // shifts left after this cycle. nb_q[r] is the reserve bank of the next window to reach the
  // row; the row shifts (and its PEs show on their chain) nb_q[r] with the flag, else the other.
  // -----------------------------------------------------------------------------------------------
  logic [Rows*ColBits-1:0] wcnt_q, wcnt_d;
  logic [Rows-1:0]         nb_q, nb_d;
  logic [ColBits-1:0]      wcnt, wcnt_last, res_col;

  always_comb begin
    for (int unsigned r = 0; r < Rows; r++) begin
      wcnt = wcnt_q[r*ColBits +: ColBits];
      shift[r] = east_window[r] || (wcnt != '0);
      shift_bank[r] = east_window[r] ? nb_q[r] : !nb_q[r];
      nb_d[r] = east_window[r] ? !nb_q[r] : nb_q[r];
      if (east_window[r]) wcnt_d[r*ColBits +: ColBits] = ColBits'(Cols - 1);
      else if (wcnt != '0) wcnt_d[r*ColBits +: ColBits] = wcnt - ColBits'(1);
      else wcnt_d[r*ColBits +: ColBits] = '0;
    end
    // Shift j of the last row delivers column COLS-1-j.
    wcnt_last = wcnt_q[(Rows-1)*ColBits +: ColBits];
    if (east_window[Rows-1]) res_col = ColBits'(Cols - 1);
    else if (wcnt_last != '0) res_col = wcnt_last - ColBits'(1);
    else res_col = '0;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      wcnt_q <= '0;
      nb_q <= '0;
    end else begin
      wcnt_q <= wcnt_d;
      nb_q <= nb_d;
    end
  end

  assign pre_pop_o = shift[0];
  assign res_valid_o = shift[Rows-1];
  assign res_col_o = res_valid_o ? res_col : '0;

  // -----------------------------------------------------------------------------------------------
  // Preload skew line: element r of the word taken in a row-0 shift enters row r's chain r cycles
  // later. Stage 0 loads zeros outside pop cycles, so the bus is a don't-care then.
  // -----------------------------------------------------------------------------------------------
  assign res_in[0 +: AccBits] = pre_pop_o ? pre_word_i[0 +: AccBits] : '0;

  for (genvar r = 1; r < Rows; r++) begin : gen_skew
    logic [r*AccBits-1:0] sk_q, sk_d;

    always_comb begin
      sk_d[0 +: AccBits] = pre_pop_o ? pre_word_i[r*AccBits +: AccBits] : '0;
      for (int unsigned s = 1; s < r; s++) sk_d[s*AccBits +: AccBits] = sk_q[(s-1)*AccBits +: AccBits];
    end

    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        sk_q <= '0;
      end else begin
        sk_q <= sk_d;
      end
    end

    assign res_in[r*AccBits +: AccBits] = sk_q[(r-1)*AccBits +: AccBits];
  end

  // -----------------------------------------------------------------------------------------------
  // Result de-skew: row r's output waits ROWS-1-r cycles for the last row's, so that a whole word
  // leaves at once.
  // -----------------------------------------------------------------------------------------------
  assign res_word_o[(Rows-1)*AccBits +: AccBits] = east_res[(Rows-1)*AccBits +: AccBits];

  for (genvar r = 0; r + 1 < Rows; r++) begin : gen_deskew
    localparam int unsigned Stages = Rows - 1 - r;
    logic [Stages*AccBits-1:0] ds_q, ds_d;

    always_comb begin
      ds_d[0 +: AccBits] = east_res[r*AccBits +: AccBits];
      for (int unsigned s = 1; s < Stages; s++) ds_d[s*AccBits +: AccBits] = ds_q[(s-1)*AccBits +: AccBits];
    end

    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        ds_q <= '0;
      end else begin
        ds_q <= ds_d;
      end
    end

    assign res_word_o[r*AccBits +: AccBits] = ds_q[(Stages-1)*AccBits +: AccBits];
  end

  // -----------------------------------------------------------------------------------------------
  // Statistics: the PEs' gated-MAC pulses of this cycle, counted (every PE pulse is a register, so
  // the count is a Moore output). Summed over a run it equals the C++ models' gated MAC count.
  // -----------------------------------------------------------------------------------------------
  always_comb begin
    gated_cnt_o = '0;
    for (int unsigned i = 0; i < Rows * Cols; i++) gated_cnt_o = gated_cnt_o + GatedBits'(pe_gated[i]);
  end

`ifndef SYNTHESIS
  initial begin
    flycol_pkg::check_range("array", "rows", Rows, flycol_pkg::CfgRowsMin, flycol_pkg::CfgRowsMax);
    flycol_pkg::check_range("array", "cols", Cols, flycol_pkg::CfgColsMin, flycol_pkg::CfgColsMax);
  end

  // The issue rule (9.4), checked here because the array depends on it: a window token at least
  // COLS cycles after the previous window token, and a swap token at least 2*COLS after the one
  // before that (for a window token the first rule implies it). gap_q, gap2_q count cycles since
  // those two, saturating at 2*COLS; simulation only.
  localparam int unsigned GapBits = $clog2(2 * Cols + 1);
  logic [GapBits-1:0] gap_q, gap_d, gap2_q, gap2_d, gap_inc, gap2_inc;

  always_comb begin
    gap_inc = (gap_q < GapBits'(2 * Cols)) ? gap_q + GapBits'(1) : gap_q;
    gap2_inc = (gap2_q < GapBits'(2 * Cols)) ? gap2_q + GapBits'(1) : gap2_q;
    gap_d = tok_window_i ? GapBits'(1) : gap_inc;
    gap2_d = tok_window_i ? gap_inc : gap2_inc;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      gap_q <= GapBits'(2 * Cols);
      gap2_q <= GapBits'(2 * Cols);
    end else begin
      gap_q <= gap_d;
      gap2_q <= gap2_d;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (rst_ni && tok_window_i && gap_q < GapBits'(Cols))
      $error("array: window token less than COLS cycles after the previous one");
    if (rst_ni && tok_swap_i && !tok_window_i && gap2_q < GapBits'(2 * Cols))
      $error("array: swap token less than 2*COLS cycles after the window token before the last");
    for (int unsigned r = 0; r < Rows; r++) begin
      if (rst_ni && east_window[r] && wcnt_q[r*ColBits +: ColBits] != '0)
        $error("array: a window reaches row %0d while it is still shifting", r);
    end
  end
`endif

  // ---- Assertions (hw/common/flycol_assert.svh) ----
  `FLYCOL_ASSERT(ResColZero_A, !res_valid_o |-> res_col_o == '0, clk_i, rst_ni)
  `FLYCOL_ASSERT(ResColInRange_A, res_valid_o |-> 32'(res_col_o) < Cols, clk_i, rst_ni)
  `FLYCOL_ASSERT(GatedInRange_A, 32'(gated_cnt_o) <= Rows * Cols, clk_i, rst_ni)
  `FLYCOL_ASSERT_KNOWN(CtrlKnown_A, {pre_pop_o, res_valid_o}, clk_i, rst_ni)
  // Context swap (double-buffered accumulators), window, preload and result traffic.
  `FLYCOL_COVER(Swap_C, tok_valid_i && tok_swap_i, clk_i, rst_ni)
  `FLYCOL_COVER(SwapNoStep_C, !tok_valid_i && tok_swap_i, clk_i, rst_ni)
  `FLYCOL_COVER(Window_C, tok_window_i, clk_i, rst_ni)
  `FLYCOL_COVER(PrePop_C, pre_pop_o, clk_i, rst_ni)
  `FLYCOL_COVER(PrePopResult_C, pre_pop_o && res_valid_o, clk_i, rst_ni)

endmodule
