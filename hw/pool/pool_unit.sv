// Pooling unit (docs/microarchitecture.md, section 16, "The pooling RUN" and "The divisor"): the
// RTL twin of hw::PoolUnitCore (pool_unit_core.h/.cpp), register for register. ROWS pool lanes
// (pool_lane.sv) behind the issue stage and the registers that frame their windows:
//   * a RUN start loads the RUN's geometry; pool_op 0 (a convolution) leaves the unit inactive and
//     its pops are ignored. pool_op 1 max, 2 average, 3 argmax, 4 masked sum: the lanes' op_i is
//     pool_op - 1, and average and masked sum (avg_q) go through the lanes' divider alike (divisor,
//     pow2_i, pool_ready_o).
//   * in a cycle the issue stage pops the feed lanes (pop_i) while the unit is active, lane r takes
//     feed lane r's head, marked first / last of its window from the window position j_q; the
//     walk j_q (0 .. Lw-1, Lw = n_ky*n_kx), c_q (0 .. n_c-1), cx_q, cy_q advances, and the unit goes
//     inactive at the edge that takes the RUN's last element (the lanes finish their windows after).
//     a_q, b_q follow j_q as its window row and column (j = a*n_kx + b, n_kx the data window's).
//   * with the last element of an average or masked-sum window each lane gets its divisor
//     count_r = rows * cols_r, the positions of its divisor window [ys, ys + wy) x [xs_r, xs_r + wx)
//     inside [pool_y0, pool_y1) x [pool_x0, pool_x1), ys = cy*pool_sy, xs_r = (cx*ROWS + r)*sx;
//     wy, wx, sx are pool_ky, pool_kx, pool_sx, or n_ky, n_kx, lane_stride where those are 0
//     (loaded into n_ky_q, n_kx_q, sx_q at the start). ys and cx*ROWS*sx are kept in registers that follow cy_q and cx_q (ys_q,
//     xb_q), saturated at 2^16: pool_y1 and pool_x1 are below 2^16, so a window starting there or
//     later counts no position either way. A valid average or masked-sum RUN (and an argmax RUN)
//     has n_ky, n_kx, pool_ky, pool_kx <= 256 (section 16; refused at its start here and by the
//     core), so both factors are at most 256 and a 9 x 9 bit product per lane gives the core's value.
//   * with the same last element every lane gets pow2_i when all lanes' divisors are 0 or powers of
//     two (a lane's is when a factor is 0 or both are powers of two): the lanes then divide by a
//     shift in one cycle, and still all finish together.
//   * in an argmax RUN (section 16, "Backward of max pooling") lane r's element at window row a_q,
//     column b_q is padding (pad_i) unless its tile position (ys + a_q, xs_r + b_q) lies in
//     [pool_y0, pool_y1) x [pool_x0, pool_x1), ys and xs_r the divisor window's origins (pool_ky,
//     pool_kx ignored); with ys_q and xb_q saturated at 2^16 the comparison is still the exact one,
//     a position at 2^16 or later lying past pool_y1 / pool_x1 either way.
//   * div_left_q copies the lanes' divider count (D = 21 binary16, 16 int8 / int16, 1 with pow2_i), so the Moore
//     pool_ready_o is exactly the lanes' in_ready_o for the next element: low only before the last
//     element of an average or masked-sum window while the divider holds a window that does not
//     finish this cycle.
//   * the result port is lane 0's out_valid_o with the ROWS lanes' out_value_o (all lanes take their
//     elements in the same cycles, so their windows end together).
`include "flycol_assert.svh"

module pool_unit #(
  parameter flycol_pkg::cfg_t Cfg = flycol_cfg_pkg::Cfg,
  localparam int unsigned Rows = Cfg.rows,
  localparam int unsigned ElemBits = Cfg.elem_bits,  // EW: 16 (fp16, int16) or 8 (int8)
  localparam int unsigned AccBits = Cfg.acc_bits     // AW: 16 (fp16) or 32 (int)
) (
  input  logic                     clk_i,         // clock, rising edge
  input  logic                     rst_ni,        // asynchronous reset, active low
  input  logic                     start_i,       // a RUN starts this cycle (every RUN: pool_op 0 leaves the
                                                  // unit inactive); only while no pooling RUN takes elements
  // Only the RUN's loop bounds, lane stride, packing width and pooling fields are read.
  /* verilator lint_off UNUSEDSIGNAL */
  input  flycol_pkg::command_t     run_i,         // the RUN command, sampled with start_i
  /* verilator lint_on UNUSEDSIGNAL */
  input  logic                     pop_i,         // the issue stage pops every feed lane (taken while active;
                                                  // only while pool_ready_o then)
  input  logic [Rows*ElemBits-1:0] lane_data_i,   // the feed lanes' heads, lane r at [r*ElemBits +: ElemBits]
  output logic                     pool_ready_o,  // the lanes take the next elements (Moore)
  output logic                     res_valid_o,   // a window's ROWS results, for one cycle
  output logic [Rows*AccBits-1:0]  res_word_o     // lane r's result at [r*AccBits +: AccBits]; holds the last
                                                  // results while res_valid_o is low
);

  localparam flycol_pkg::command_t CmdShape = '0;
  localparam int unsigned CountBits = $bits(CmdShape.run_n_kg);         // 16
  localparam int unsigned StrideBits = $bits(CmdShape.run_lane_stride);  // 8
  localparam int unsigned SyBits = $bits(CmdShape.run_pool_sy);          // 8
  localparam int unsigned StartBits = $bits(CmdShape.run_pool_y0);       // 8
  localparam int unsigned EndBits = $bits(CmdShape.run_pool_y1);         // 16
  localparam int unsigned PoolOpBits = $bits(CmdShape.run_pool_op);      // 3
  // run_pool_op: 0 convolution, 1 max, 2 average, 3 argmax, 4 masked sum (5 .. 7 refused).
  localparam logic [PoolOpBits-1:0] PoolMax = PoolOpBits'(1);
  localparam logic [PoolOpBits-1:0] PoolAverage = PoolOpBits'(2);
  localparam logic [PoolOpBits-1:0] PoolArgmax = PoolOpBits'(3);
  localparam logic [PoolOpBits-1:0] PoolMaskedSum = PoolOpBits'(4);
  // pool_lane's op_i (pool_op - 1): 0 max, 1 average, 2 argmax, 3 masked sum.
  localparam logic [1:0] LaneArgmax = 2'd2;
  localparam logic [1:0] LaneMaskedSum = 2'd3;
  localparam int unsigned MaxArgmaxLen = 65535;  // an argmax window's elements (0xFFFF is "none")
  localparam int unsigned ArithFp16 = 0;      // Cfg.arith: 0 fp16, 1 int8, 2 int16
  // The lanes' divider steps D (pool_lane.sv).
  localparam int unsigned DivSteps = (Cfg.arith == ArithFp16) ? 21 : 16;
  localparam int unsigned DivBits = 6;
  // The core's window length and position are uint32 (Lw = n_ky*n_kx < 2^32).
  localparam int unsigned LenBits = 32;
  // Window starts, saturated at 2^16 (pool_y1, pool_x1 < 2^16): 17 bits; + n_ky / n_kx: 18 bits.
  // (xs_r = xb + r * lane_stride is not saturated: below 2^16 + 2^14, it fits the same 17 bits.)
  localparam int unsigned PosBits = EndBits + 1;
  localparam logic [PosBits-1:0] PosSat = PosBits'(1) << EndBits;
  localparam int unsigned RowBits = flycol_pkg::index_bits(Rows);
  // r * lane_stride and ROWS * lane_stride, below 2^(RowBits + 1 + StrideBits) <= 2^15 (ROWS <= 64).
  localparam int unsigned OffBits = RowBits + 1 + StrideBits;
  localparam int unsigned CountInBits = 17;  // pool_lane's count_i: 0 .. 65536
  // The window sides n_ky, n_kx of every RUN but max, and so the divisor's factors: at most 256 (9 bits).
  localparam int unsigned MaxSide = 256;
  localparam int unsigned FactorBits = 9;

  // ---- Registers ----
  // The RUN, loaded at start.
  logic                   active_q, active_d;  // a pooling RUN takes elements
  logic                   avg_q;               // through the lanes' divider: average or masked sum
  logic [1:0]             lane_op_q;           // the lanes' op_i: pool_op - 1
  logic [LenBits-1:0]     len_q;               // Lw = n_ky * n_kx
  logic [CountBits-1:0]   kx_q;                // n_kx: the data window's columns (b_q wraps there)
  logic [CountBits-1:0]   n_c_q, n_cx_q, n_cy_q, n_ky_q, n_kx_q;
  logic [SyBits-1:0]      sy_q;                // pool_sy
  logic [StrideBits-1:0]  sx_q;                // lane_stride
  logic [StartBits-1:0]   y0_q, x0_q;          // pool_y0, pool_x0
  logic [EndBits-1:0]     y1_q, x1_q;          // pool_y1, pool_x1
  // Walk: window position (and its row a_q, column b_q), window (channel) of the context, context;
  // divider copy.
  logic [LenBits-1:0]     j_q, j_d;
  logic [CountBits-1:0]   a_q, a_d, b_q, b_d;  // j_q = a_q * n_kx + b_q (exact: a < n_ky, b < n_kx)
  logic [CountBits-1:0]   c_q, c_d, cx_q, cx_d, cy_q, cy_d;
  logic [DivBits-1:0]     div_left_q, div_left_d;
  // The divisor's window starts of the context: min(cy*sy, 2^16) and min(cx*ROWS*sx, 2^16).
  logic [PosBits-1:0]     ys_q, ys_d, xb_q, xb_d;

  // ---- Walk ----
  logic take;   // the lanes take the popped elements this cycle
  logic first;  // j_q is the first position of a window
  logic last;   // j_q is the last position of a window
  logic load;   // the last element of an average or masked-sum window is taken: the lanes get their divisors
  logic [OffBits-1:0]   xb_step;  // ROWS * lane_stride
  logic [PosBits:0]     ys_inc, xb_inc;

  assign first = j_q == '0;
  assign last = (j_q + 1'b1) == len_q;
  assign take = pop_i && active_q;
  assign load = take && avg_q && last;
  assign pool_ready_o = !(avg_q && last && div_left_q > DivBits'(1));

  always_comb begin
    xb_step = OffBits'(Rows) * OffBits'(sx_q);
    ys_inc = {1'b0, ys_q} + (PosBits + 1)'(sy_q);
    xb_inc = {1'b0, xb_q} + (PosBits + 1)'(xb_step);

    active_d = active_q;
    j_d = j_q;
    a_d = a_q;
    b_d = b_q;
    c_d = c_q;
    cx_d = cx_q;
    cy_d = cy_q;
    ys_d = ys_q;
    xb_d = xb_q;
    div_left_d = (div_left_q != '0) ? div_left_q - 1'b1 : '0;
    if (load) div_left_d = all_pow2 ? DivBits'(1) : DivBits'(DivSteps);
    if (take) begin
      if (!last) begin
        j_d = j_q + 1'b1;
        if (({1'b0, b_q} + 1'b1) == {1'b0, kx_q}) begin
          b_d = '0;
          a_d = a_q + 1'b1;
        end else begin
          b_d = b_q + 1'b1;
        end
      end else begin
        j_d = '0;
        a_d = '0;
        b_d = '0;
        if (({1'b0, c_q} + 1'b1) < {1'b0, n_c_q}) begin
          c_d = c_q + 1'b1;
        end else begin
          c_d = '0;
          if (({1'b0, cx_q} + 1'b1) < {1'b0, n_cx_q}) begin
            cx_d = cx_q + 1'b1;
            xb_d = (xb_inc > {1'b0, PosSat}) ? PosSat : xb_inc[PosBits-1:0];
          end else begin
            cx_d = '0;
            xb_d = '0;
            if (({1'b0, cy_q} + 1'b1) < {1'b0, n_cy_q}) begin
              cy_d = cy_q + 1'b1;
              ys_d = (ys_inc > {1'b0, PosSat}) ? PosSat : ys_inc[PosBits-1:0];
            end else begin
              cy_d = '0;
              ys_d = '0;
              active_d = 1'b0;  // the RUN's last element
            end
          end
        end
      end
    end
  end

  // ---- The divisor (section 16, "The divisor") ----
  // rows = max(0, min(ys + n_ky, pool_y1) - max(ys, pool_y0)), shared by the lanes.
  logic [PosBits:0]     ys_end;
  logic [EndBits-1:0]   y_hi;      // min(ys + n_ky, pool_y1)
  logic [PosBits-1:0]   y_lo;      // max(ys, pool_y0)
  logic [EndBits-1:0]   rows_cnt;  // at most n_ky (at most 256 in a valid average RUN)

  always_comb begin
    ys_end = {1'b0, ys_q} + (PosBits + 1)'(n_ky_q);
    y_hi = (ys_end < (PosBits + 1)'(y1_q)) ? EndBits'(ys_end) : y1_q;
    y_lo = (ys_q > PosBits'(y0_q)) ? ys_q : PosBits'(y0_q);
    rows_cnt = (PosBits'(y_hi) > y_lo) ? EndBits'(PosBits'(y_hi) - y_lo) : '0;
  end

  // ---- Argmax padding (section 16, "Backward of max pooling") ----
  // The element's tile row ys + a_q: below 2^17 + 2^16 (ys saturated at 2^16), and inside
  // [pool_y0, pool_y1) exactly when the unsaturated row is. Shared by the lanes. Its column xs_r +
  // b_q is compared per lane as xs_r against the shared bounds pool_x0 - b_q and pool_x1 - b_q
  // (signed, above -2^16), so the lanes need no adder.
  logic [PosBits:0] y_elem;
  logic             y_in;      // y_elem lies in the counted rows
  logic [PosBits:0] pad_x_lo;  // pool_x0 - b_q, signed: the lowest xs_r whose element is counted
  logic [PosBits:0] pad_x_hi;  // pool_x1 - b_q, signed: one past the highest
  always_comb begin
    y_elem = {1'b0, ys_q} + (PosBits + 1)'(a_q);
    y_in = y_elem >= (PosBits + 1)'(y0_q) && y_elem < (PosBits + 1)'(y1_q);
    pad_x_lo = (PosBits + 1)'(x0_q) - (PosBits + 1)'(b_q);
    pad_x_hi = (PosBits + 1)'(x1_q) - (PosBits + 1)'(b_q);
  end

  // ---- Lanes ----
  logic [Rows-1:0] lane_ready, lane_valid;
  logic [Rows-1:0] lane_pad;   // lane r's element of this cycle lies outside the counted range
  logic [Rows-1:0] lane_pow2;  // lane r's divisor of this context is 0 or a power of two
  logic            all_pow2;   // every lane's is: the lanes shift instead of dividing (D = 1)
  logic            rows_pow2;  // rows_cnt is 0 or a power of two
  assign rows_pow2 = (rows_cnt & (rows_cnt - EndBits'(1))) == '0;
  assign all_pow2 = &lane_pow2;

  for (genvar r = 0; r < Rows; r++) begin : gen_lanes
    // cols_r = max(0, min(xs_r + n_kx, pool_x1) - max(xs_r, pool_x0)) with xs_r = xb + r*sx: exact
    // below 2^16, else (xb saturated) at least 2^16 like the real start, which counts no column
    // either; below 2^16 + 2^14, so PosBits hold it.
    logic [OffBits-1:0]     x_off;
    logic [PosBits-1:0]     xs;
    logic [PosBits:0]       xs_end;
    logic [EndBits-1:0]     x_hi;
    logic [PosBits-1:0]     x_lo;
    logic [EndBits-1:0]     cols_cnt;
    logic [CountInBits-1:0] count;  // rows * cols_r: both at most 256 in a valid average or masked-sum RUN
    logic                   pow2;   // count is 0 or a power of two
    logic [PosBits:0]       xs_s;   // xs_r as a signed PosBits + 1 bit value (below 2^16 + 2^14)

    always_comb begin
      x_off = OffBits'(r) * OffBits'(sx_q);
      xs = xb_q + PosBits'(x_off);
      xs_end = {1'b0, xs} + (PosBits + 1)'(n_kx_q);
      x_hi = (xs_end < (PosBits + 1)'(x1_q)) ? EndBits'(xs_end) : x1_q;
      x_lo = (xs > PosBits'(x0_q)) ? xs : PosBits'(x0_q);
      cols_cnt = (PosBits'(x_hi) > x_lo) ? EndBits'(PosBits'(x_hi) - x_lo) : '0;
      // The core feeds the divisor only with the last element of an average or masked-sum window,
      // else 0. A valid such RUN has n_ky, n_kx <= 256 (checked at its start), so rows, cols_r <= 256
      // and a 9 x 9 bit product is the core's value.
      count = load ? CountInBits'(rows_cnt[FactorBits-1:0] * cols_cnt[FactorBits-1:0]) : '0;
      // rows * cols is 0 or a power of two iff a factor is 0 or both are powers of two; from the
      // factors, so the product is not on this path.
      pow2 = rows_cnt == '0 || cols_cnt == '0 || (rows_pow2 && (cols_cnt & (cols_cnt - EndBits'(1))) == '0);
      // Argmax padding: pool_x0 <= xs_r + b_q < pool_x1 as pad_x_lo <= xs_r < pad_x_hi. xs_r
      // saturates with xb (at least 2^16, past pool_x1 either way).
      xs_s = {1'b0, xs};
      lane_pad[r] = !(y_in && $signed(xs_s) >= $signed(pad_x_lo) && $signed(xs_s) < $signed(pad_x_hi));
    end
    assign lane_pow2[r] = pow2;

    pool_lane #(.Cfg(Cfg)) u_lane (
      .clk_i,
      .rst_ni,
      .in_valid_i  (take),
      .in_ready_o  (lane_ready[r]),
      .in_first_i  (take && first),
      .in_last_i   (take && last),
      .in_elem_i   (lane_data_i[r*ElemBits +: ElemBits]),
      .op_i        (lane_op_q),
      .pad_i       (lane_op_q == LaneArgmax && lane_pad[r]),
      .count_i     (count),
      .pow2_i      (load && all_pow2),
      .out_valid_o (lane_valid[r]),
      .out_value_o (res_word_o[r*AccBits +: AccBits])
    );

    // The divisor's factors fit the product (they are at most n_ky, n_kx).
    `FLYCOL_ASSERT_NEVER(CountFactors_A, load && (rows_cnt > EndBits'(MaxSide) || cols_cnt > EndBits'(MaxSide)),
                         clk_i, rst_ni)
  end

  assign res_valid_o = lane_valid[0];

  // ---- Registers ----
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      active_q <= 1'b0;
      avg_q <= 1'b0;
      lane_op_q <= '0;
      len_q <= LenBits'(1);
      kx_q <= CountBits'(1);
      n_c_q <= CountBits'(1);
      n_cx_q <= CountBits'(1);
      n_cy_q <= CountBits'(1);
      n_ky_q <= CountBits'(1);
      n_kx_q <= CountBits'(1);
      sy_q <= SyBits'(1);
      sx_q <= StrideBits'(1);
      y0_q <= '0;
      x0_q <= '0;
      y1_q <= '0;
      x1_q <= '0;
      j_q <= '0;
      a_q <= '0;
      b_q <= '0;
      c_q <= '0;
      cx_q <= '0;
      cy_q <= '0;
      div_left_q <= '0;
      ys_q <= '0;
      xb_q <= '0;
    end else begin
      active_q <= active_d;
      j_q <= j_d;
      a_q <= a_d;
      b_q <= b_d;
      c_q <= c_d;
      cx_q <= cx_d;
      cy_q <= cy_d;
      div_left_q <= div_left_d;
      ys_q <= ys_d;
      xb_q <= xb_d;
      // A start is only legal while inactive, so it loses no element taken above.
      if (start_i) begin
        active_q <= run_i.run_pool_op != '0;
        avg_q <= run_i.run_pool_op == PoolAverage || run_i.run_pool_op == PoolMaskedSum;
        lane_op_q <= (run_i.run_pool_op != '0) ? 2'(run_i.run_pool_op - PoolOpBits'(1)) : '0;
        len_q <= LenBits'(run_i.run_n_ky) * LenBits'(run_i.run_n_kx);
        kx_q <= run_i.run_n_kx;
        n_c_q <= run_i.run_n_c;
        n_cx_q <= run_i.run_n_cx;
        n_cy_q <= run_i.run_n_cy;
        // The divisor window: pool_ky, pool_kx, pool_sx, or the data window's where those are 0.
        n_ky_q <= (run_i.run_pool_ky != '0) ? CountBits'(run_i.run_pool_ky) : run_i.run_n_ky;
        n_kx_q <= (run_i.run_pool_kx != '0) ? CountBits'(run_i.run_pool_kx) : run_i.run_n_kx;
        sy_q <= run_i.run_pool_sy;
        sx_q <= (run_i.run_pool_sx != '0) ? run_i.run_pool_sx : run_i.run_lane_stride;
        y0_q <= run_i.run_pool_y0;
        x0_q <= run_i.run_pool_x0;
        y1_q <= run_i.run_pool_y1;
        x1_q <= run_i.run_pool_x1;
        j_q <= '0;
        a_q <= '0;
        b_q <= '0;
        c_q <= '0;
        cx_q <= '0;
        cy_q <= '0;
        ys_q <= '0;
        xb_q <= '0;
      end
    end
  end

`ifndef SYNTHESIS
  initial begin
    // 64 rows at most keep r * lane_stride below 2^14 (the divisor's widths).
    if (!(Cfg.rows >= 1 && Cfg.rows <= 64)) $fatal(1, "pool_unit: Cfg.rows must be 1..64");
  end
  // The core's start() checks. Every op but max walks the geometry (the divisor, the argmax's
  // padding): no packing, sides of at most 256, pool_sy at least 1.
  logic start_geometric;  // the RUN started is a pooling RUN other than max
  assign start_geometric = run_i.run_pool_op != '0 && run_i.run_pool_op != PoolMax;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (rst_ni && start_i && active_q) $error("pool_unit: RUN started while a pooling RUN still takes elements");
    if (rst_ni && start_i && run_i.run_pool_op != '0
        && (run_i.run_n_ky == '0 || run_i.run_n_kx == '0 || run_i.run_n_c == '0 || run_i.run_n_cx == '0
            || run_i.run_n_cy == '0))
      $error("pool_unit: pooling RUN with an empty window or no contexts");
    if (rst_ni && start_i && run_i.run_pool_op > PoolMaskedSum)
      $error("pool_unit: pool_op %0d above 4", run_i.run_pool_op);
    if (rst_ni && start_i && start_geometric && run_i.run_pack_w != '0)
      $error("pool_unit: average, argmax or masked-sum RUN with packing");
    // Section 16 and the compiler's command limits (the 9 x 9 bit divisor product relies on it,
    // CountFactors_A).
    if (rst_ni && start_i && start_geometric
        && (32'(run_i.run_n_ky) > MaxSide || 32'(run_i.run_n_kx) > MaxSide
            || 32'(run_i.run_pool_ky) > MaxSide || 32'(run_i.run_pool_kx) > MaxSide))
      $error("pool_unit: average, argmax or masked-sum RUN with a window side above %0d", MaxSide);
    if (rst_ni && start_i && start_geometric && run_i.run_pool_sy == '0)
      $error("pool_unit: average, argmax or masked-sum RUN with pool_sy = 0");
    if (rst_ni && start_i && run_i.run_pool_op == PoolArgmax
        && 32'(run_i.run_n_ky) * 32'(run_i.run_n_kx) > MaxArgmaxLen)
      $error("pool_unit: argmax RUN with a window above %0d elements", MaxArgmaxLen);
  end
`endif

  // ---- Assertions (hw/common/flycol_assert.svh) ----
  // The issue stage pops only while the unit is ready (the core's protocol error), and then every
  // lane takes its element: pool_ready_o is the lanes' in_ready_o for that element.
  `FLYCOL_ASSERT_NEVER(PopReady_A, pop_i && active_q && !pool_ready_o, clk_i, rst_ni)
  `FLYCOL_ASSERT_NEVER(LanesTake_A, take && lane_ready != '1, clk_i, rst_ni)
  `FLYCOL_ASSERT_NEVER(NoStartActive_A, start_i && active_q, clk_i, rst_ni)
  // All lanes end their windows in the same cycles, so their results are valid together.
  `FLYCOL_ASSERT(ResultsTogether_A, lane_valid == '0 || lane_valid == '1, clk_i, rst_ni)
  // Only the last element of an average or masked-sum window waits, and only for a divider that is
  // still busy.
  `FLYCOL_ASSERT(ReadyLow_A, !pool_ready_o |-> avg_q && last && div_left_q > DivBits'(1), clk_i, rst_ni)
  `FLYCOL_ASSERT(DivLeftRange_A, 32'(div_left_q) <= DivSteps, clk_i, rst_ni)
  // a_q, b_q are j_q's window row and column.
  `FLYCOL_ASSERT(WindowRowCol_A,
                 active_q |-> b_q < kx_q && LenBits'(a_q) * LenBits'(kx_q) + LenBits'(b_q) == j_q, clk_i, rst_ni)
  `FLYCOL_ASSERT_KNOWN(CtrlKnown_A, {pool_ready_o, res_valid_o}, clk_i, rst_ni)
  `FLYCOL_COVER(DivWait_C, active_q && !pool_ready_o, clk_i, rst_ni)
  `FLYCOL_COVER(PopWhileDividing_C, take && div_left_q > DivBits'(1), clk_i, rst_ni)
  `FLYCOL_COVER(RunEnd_C, active_q && !active_d, clk_i, rst_ni)
  `FLYCOL_COVER(Result_C, res_valid_o, clk_i, rst_ni)
  `FLYCOL_COVER(CountZero_C, load && gen_lanes[0].count == '0, clk_i, rst_ni)
  `FLYCOL_COVER(ShiftWindow_C, load && all_pow2, clk_i, rst_ni)
  `FLYCOL_COVER(DivideWindow_C, load && !all_pow2, clk_i, rst_ni)
  // Argmax: some lanes' elements padding and others' not (pool_lane.sv covers a window without a
  // valid element); an argmax window's last element.
  `FLYCOL_COVER(ArgmaxPadSome_C, take && lane_op_q == LaneArgmax && lane_pad != '0 && lane_pad != '1,
                clk_i, rst_ni)
  `FLYCOL_COVER(ArgmaxWindow_C, take && last && lane_op_q == LaneArgmax, clk_i, rst_ni)
  // A masked-sum window's divisors handed to the lanes, and one divided by a shift.
  `FLYCOL_COVER(MaskedSumWindow_C, load && lane_op_q == LaneMaskedSum, clk_i, rst_ni)
  `FLYCOL_COVER(MaskedSumShift_C, load && lane_op_q == LaneMaskedSum && all_pow2, clk_i, rst_ni)

endmodule
