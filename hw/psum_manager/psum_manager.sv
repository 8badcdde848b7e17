// Partial-sums manager (docs/microarchitecture.md, section 9.6; the skew and de-skew registers
// belong to the array): preload queue filled from the psum SRAM and its claims, result queue, and
// the single psum SRAM port where result writes win. A pooling RUN (section 16, "Results") takes its
// result words from the pooling unit instead of the array: window c of context (cy, cx), c innermost,
// to psum address (c*n_cy + cy)*n_cx + cx. The RTL twin of PsumManagerCore, register for register.
`include "flycol_assert.svh"

module psum_manager #(
  parameter flycol_pkg::cfg_t Cfg = flycol_cfg_pkg::Cfg,
  // Derived widths (not overridable); RUN field widths from command_t (see controller.sv).
  localparam flycol_pkg::command_t CmdShape = '0,
  localparam int unsigned CountBits = $bits(CmdShape.run_n_kg),
  localparam int unsigned PoolOpBits = $bits(CmdShape.run_pool_op),
  localparam int unsigned Rows = Cfg.rows,
  localparam int unsigned Cols = Cfg.cols,
  localparam int unsigned AccBits = Cfg.acc_bits,
  localparam int unsigned WordBits = Rows * AccBits,
  localparam int unsigned ColBits = flycol_pkg::index_bits(Cols),
  // unclaimed = preload words queued and not claimed: 0 .. PQD = 2*COLS (the queue's count width).
  localparam int unsigned UnclaimedBits = $clog2(2 * Cols + 1),
  // Same address width as hw/common/sram_bank.sv.
  localparam int unsigned AddrBits = flycol_pkg::index_bits(Cfg.psum_depth)
) (
  input  logic                     clk_i,          // clock, rising edge
  input  logic                     rst_ni,         // asynchronous reset, active low
  input  logic                     start_i,        // a RUN starts this cycle; only while !busy_o with the queues empty
  input  logic                     run_preload_i,  // RUN field, read with start_i
  input  logic [CountBits-1:0]     run_n_kg_i,     // RUN field, read with start_i
  input  logic [CountBits-1:0]     run_n_cy_i,     // RUN field, read with start_i
  input  logic [CountBits-1:0]     run_n_cx_i,     // RUN field, read with start_i
  input  logic [CountBits-1:0]     run_n_c_i,      // RUN field, read with start_i (pooling: windows per context)
  input  logic [CountBits-1:0]     run_n_ky_i,     // RUN field, not used (bound with n_c as one group)
  input  logic [CountBits-1:0]     run_n_kx_i,     // RUN field, not used (bound with n_c as one group)
  input  logic [PoolOpBits-1:0]    run_pool_op_i,  // RUN field, read with start_i: 0 convolution, else pooling
  output logic [UnclaimedBits-1:0] unclaimed_o,    // preload words queued and not claimed (Moore)
  input  logic                     claim_i,        // the issue stage claims COLS words (needs unclaimed_o >= COLS)
  input  logic                     pre_pop_i,      // the array takes a preload word this cycle
  output logic [WordBits-1:0]      pre_word_o,     // that word: queue head or zeros (Mealy in pre_pop_i)
  input  logic                     res_valid_i,    // the array delivers a result word this cycle
  input  logic [ColBits-1:0]       res_col_i,      // its column
  input  logic [WordBits-1:0]      res_word_i,     // the result word, row r at [r*AccBits +: AccBits]
  input  logic                     pool_valid_i,   // the pooling unit delivers a result word (pooling RUN only)
  input  logic [WordBits-1:0]      pool_word_i,    // its ROWS results, row r at [r*AccBits +: AccBits]
  output logic                     psum_req_o,     // psum SRAM (the RUN's buffer): access this cycle
  output logic                     psum_we_o,      // psum SRAM: 1 write (result), 0 read (preload)
  output logic [AddrBits-1:0]      psum_addr_o,    // psum SRAM: word address
  output logic [WordBits-1:0]      psum_wdata_o,   // psum SRAM: write word (meaningful with psum_we_o)
  output logic [Rows-1:0]          psum_wmask_o,   // psum SRAM: element write mask (all rows on writes, else zero)
  input  logic [WordBits-1:0]      psum_rdata_i,   // psum SRAM: word of the last read
  output logic                     busy_o,         // a RUN is active and not all its results are written (Moore)
  output logic                     run_done_o      // this cycle writes the RUN's last result word (Moore)
);

  localparam int unsigned Depth = Cfg.psum_depth;
  // Windows 0 .. 2 of a RUN (FILL, FILL, SWAP0) deliver no results (section 9.4).
  localparam int unsigned FirstResultWindow = 3;
  localparam int unsigned Pqd = 2 * Cols;  // preload queue depth
  localparam int unsigned Rqd = flycol_pkg::ResultQueueDepth;
  localparam int unsigned RqBits = AddrBits + WordBits;  // result queue entry: {address, word}
  // The core's window and word counters are uint32 (n_ctx is a product of three count fields).
  localparam int unsigned CtrBits = 32;
  localparam logic [ColBits-1:0] LastCol = ColBits'(Cols - 1);

  // RUN, loaded at start.
  logic                 active_q, active_d, preload_q, preload_d;
  logic                 pool_q, pool_d;  // a pooling RUN: results from the pooling unit
  logic [CountBits-1:0] n_c_q, n_c_d, n_kg_q, n_kg_d, n_cy_q, n_cy_d, n_cx_q, n_cx_d;
  logic [CtrBits-1:0]   n_ctx_q, n_ctx_d, total_q, total_d;
  // Preload reads: context (rd_g, rd_cy, rd_cx), column rd_col counting down.
  logic                 rd_left_q, rd_left_d, inflight_q, inflight_d;
  logic [CountBits-1:0] rd_g_q, rd_g_d, rd_cy_q, rd_cy_d, rd_cx_q, rd_cx_d;
  logic [ColBits-1:0]   rd_col_q, rd_col_d;
  // Claims: words promised to issued windows and not yet popped; windows claimed so far (the latter
  // only feeds a check, so synthesis removes it).
  logic [UnclaimedBits-1:0] claimed_q, claimed_d;
  logic [CtrBits-1:0]   claims_q, claims_d;
  // Preload side: window index and pop within it.
  logic [CtrBits-1:0]   pre_win_q, pre_win_d;
  logic [ColBits-1:0]   pre_j_q, pre_j_d;
  // Result side: window index, word within it, and the context of window res_win - 3. A pooling
  // RUN counts its result words in res_g (the channel c), res_cx and res_cy instead.
  logic [CtrBits-1:0]   res_win_q, res_win_d;
  logic [CountBits-1:0] res_g_q, res_g_d, res_cy_q, res_cy_d, res_cx_q, res_cx_d;
  logic [ColBits-1:0]   res_j_q, res_j_d;
  logic [CtrBits-1:0]   written_q, written_d;

  // Queues.
  logic                     pq_push, pq_pop, pq_empty;
  logic [WordBits-1:0]      pq_head;
  logic [UnclaimedBits-1:0] pq_count;
  logic                     rq_push, rq_pop, rq_full, rq_empty;
  logic [RqBits-1:0]        rq_wdata, rq_head;

  logic [CtrBits-1:0] n_ctx_start, n_windows;
  logic [CtrBits-1:0] pool_words_start;  // n_c*n_cy*n_cx: the result words of a pooling RUN
  logic               pool_start;        // the starting RUN pools
  logic               take_sram;         // the current preload-side window takes SRAM preload
  logic [AddrBits-1:0] res_row;          // the result's row of planes: g*COLS + col, or the pooling c
  logic [AddrBits-1:0] rd_addr, res_addr;
  logic               write, read;

  /* verilator lint_off PINCONNECTEMPTY */
  // full_o is not used: the read rule counts the word in flight as well (count + inflight < PQD).
  fifo #(
    .Width(WordBits),
    .Depth(Pqd)
  ) u_preload_queue (
    .clk_i,
    .rst_ni,
    .push_i (pq_push),
    .wdata_i(psum_rdata_i),
    .pop_i  (pq_pop),
    .rdata_o(pq_head),
    .full_o (),
    .empty_o(pq_empty),
    .count_o(pq_count)
  );
  // The occupancy is not needed: the port writes whenever the queue is not empty.
  fifo #(
    .Width(RqBits),
    .Depth(Rqd)
  ) u_result_queue (
    .clk_i,
    .rst_ni,
    .push_i (rq_push),
    .wdata_i(rq_wdata),
    .pop_i  (rq_pop),
    .rdata_o(rq_head),
    .full_o (rq_full),
    .empty_o(rq_empty),
    .count_o()
  );
  /* verilator lint_on PINCONNECTEMPTY */

  always_comb begin
    n_ctx_start = CtrBits'(run_n_kg_i) * CtrBits'(run_n_cy_i) * CtrBits'(run_n_cx_i);
    pool_words_start = CtrBits'(run_n_c_i) * CtrBits'(run_n_cy_i) * CtrBits'(run_n_cx_i);
    pool_start = run_pool_op_i != '0;
    n_windows = n_ctx_q + CtrBits'(FirstResultWindow);

    active_d = active_q;
    preload_d = preload_q;
    pool_d = pool_q;
    n_c_d = n_c_q;
    n_kg_d = n_kg_q;
    n_cy_d = n_cy_q;
    n_cx_d = n_cx_q;
    n_ctx_d = n_ctx_q;
    total_d = total_q;
    rd_left_d = rd_left_q;
    rd_g_d = rd_g_q;
    rd_cy_d = rd_cy_q;
    rd_cx_d = rd_cx_q;
    rd_col_d = rd_col_q;
    claimed_d = claimed_q;
    claims_d = claims_q;
    pre_win_d = pre_win_q;
    pre_j_d = pre_j_q;
    res_win_d = res_win_q;
    res_g_d = res_g_q;
    res_cy_d = res_cy_q;
    res_cx_d = res_cx_q;
    res_j_d = res_j_q;
    written_d = written_q;

    // Psum buffer addresses ((g*COLS + col)*n_cy + cy)*n_cx + cx (section 4), computed modulo
    // 2^AddrBits: a legal RUN has every address below the depth, so the result equals the core's.
    // A pooling result of window c is the word of channel c: (c*n_cy + cy)*n_cx + cx.
    rd_addr = ((AddrBits'(rd_g_q) * AddrBits'(Cols) + AddrBits'(rd_col_q)) * AddrBits'(n_cy_q)
               + AddrBits'(rd_cy_q)) * AddrBits'(n_cx_q) + AddrBits'(rd_cx_q);
    res_row = pool_q ? AddrBits'(res_g_q) : AddrBits'(res_g_q) * AddrBits'(Cols) + AddrBits'(res_col_i);
    res_addr = (res_row * AddrBits'(n_cy_q) + AddrBits'(res_cy_q)) * AddrBits'(n_cx_q) + AddrBits'(res_cx_q);

    // Preload side: the array pops COLS words per window; windows 0 .. n_ctx-1 take P_k with preload.
    take_sram = preload_q && (pre_win_q < n_ctx_q);
    pq_pop = 1'b0;
    if (pre_pop_i) begin
      if (take_sram) begin
        pq_pop = 1'b1;
        claimed_d = claimed_q - 1'b1;
      end
      if (pre_j_q != LastCol) begin
        pre_j_d = pre_j_q + 1'b1;
      end else begin
        pre_j_d = '0;
        pre_win_d = pre_win_q + 1'b1;
      end
    end
    pre_word_o = (pre_pop_i && active_q && take_sram && !pq_empty) ? pq_head : '0;

    // Result side: window k delivers columns COLS-1 .. 0 of context k-3; windows 0, 1 and 2 (the
    // two FILLs and SWAP0) are dropped.
    rq_push = 1'b0;
    rq_wdata = {res_addr, res_word_i};
    if (res_valid_i && !pool_q) begin
      rq_push = res_win_q >= CtrBits'(FirstResultWindow);
      if (res_j_q != LastCol) begin
        res_j_d = res_j_q + 1'b1;
      end else begin
        res_j_d = '0;
        res_win_d = res_win_q + 1'b1;
        if (res_win_q >= CtrBits'(FirstResultWindow)) begin
          // Next context in (g, cy, cx) order.
          if (({1'b0, res_cx_q} + 1'b1) < {1'b0, n_cx_q}) begin
            res_cx_d = res_cx_q + 1'b1;
          end else begin
            res_cx_d = '0;
            if (({1'b0, res_cy_q} + 1'b1) < {1'b0, n_cy_q}) begin
              res_cy_d = res_cy_q + 1'b1;
            end else begin
              res_cy_d = '0;
              res_g_d = (({1'b0, res_g_q} + 1'b1) < {1'b0, n_kg_q}) ? res_g_q + 1'b1 : '0;
            end
          end
        end
      end
    end
    // Pooling results (section 16, "Results"): window c of context (cy, cx) in the pooling unit's
    // order, c innermost, then cx, then cy (which counts past n_cy after the last word).
    if (pool_valid_i) begin
      rq_push = 1'b1;
      rq_wdata = {res_addr, pool_word_i};
      if (({1'b0, res_g_q} + 1'b1) < {1'b0, n_c_q}) begin
        res_g_d = res_g_q + 1'b1;
      end else begin
        res_g_d = '0;
        if (({1'b0, res_cx_q} + 1'b1) < {1'b0, n_cx_q}) begin
          res_cx_d = res_cx_q + 1'b1;
        end else begin
          res_cx_d = '0;
          res_cy_d = res_cy_q + 1'b1;
        end
      end
    end

    // SRAM port: results arrive at a fixed rate and cannot wait, so a pending write wins. Counts are
    // registered values.
    write = !rq_empty;
    read = !write && rd_left_q
           && ({1'b0, pq_count} + UnclaimedBits'(inflight_q)) < (UnclaimedBits + 1)'(Pqd);
    rq_pop = write;
    inflight_d = read;
    if (write) begin
      written_d = written_q + 1'b1;
      if (written_d == total_q) active_d = 1'b0;
    end else if (read) begin
      if (rd_col_q != '0) begin
        rd_col_d = rd_col_q - 1'b1;
      end else begin
        rd_col_d = LastCol;
        // Next context in (g, cy, cx) order; after the last one no reads are left.
        if (({1'b0, rd_cx_q} + 1'b1) < {1'b0, n_cx_q}) begin
          rd_cx_d = rd_cx_q + 1'b1;
        end else begin
          rd_cx_d = '0;
          if (({1'b0, rd_cy_q} + 1'b1) < {1'b0, n_cy_q}) begin
            rd_cy_d = rd_cy_q + 1'b1;
          end else begin
            rd_cy_d = '0;
            if (({1'b0, rd_g_q} + 1'b1) < {1'b0, n_kg_q}) begin
              rd_g_d = rd_g_q + 1'b1;
            end else begin
              rd_g_d = '0;
              rd_left_d = 1'b0;
            end
          end
        end
      end
    end
    psum_req_o = write || read;
    psum_we_o = write;
    psum_addr_o = write ? rq_head[WordBits +: AddrBits] : rd_addr;
    psum_wdata_o = rq_head[WordBits-1:0];
    psum_wmask_o = {Rows{write}};

    // Last cycle's read data is on the bank's output now; it enters the preload queue at this edge.
    pq_push = inflight_q;

    // Claims count at the edge.
    if (claim_i) begin
      claimed_d = claimed_d + UnclaimedBits'(Cols);
      claims_d = claims_q + 1'b1;
    end

    // A start is only legal while idle with the queues empty and nothing in flight, so it loses
    // nothing computed above.
    if (start_i) begin
      preload_d = run_preload_i;
      pool_d = pool_start;
      n_c_d = run_n_c_i;
      n_kg_d = run_n_kg_i;
      n_cy_d = run_n_cy_i;
      n_cx_d = run_n_cx_i;
      n_ctx_d = n_ctx_start;
      total_d = pool_start ? pool_words_start : n_ctx_start * CtrBits'(Cols);
      active_d = 1'b1;
      rd_left_d = run_preload_i;
      rd_g_d = '0;
      rd_cy_d = '0;
      rd_cx_d = '0;
      rd_col_d = LastCol;
      claimed_d = '0;
      claims_d = '0;
      pre_win_d = '0;
      pre_j_d = '0;
      res_win_d = '0;
      res_g_d = '0;
      res_cy_d = '0;
      res_cx_d = '0;
      res_j_d = '0;
      written_d = '0;
    end
  end

  assign unclaimed_o = pq_count - claimed_q;
  assign busy_o = active_q;
  assign run_done_o = active_q && !rq_empty && ((written_q + 1'b1) == total_q);

  // The manager takes the RUN's inner loop bounds as one group (hw/common/sc_run_ports.h binds
  // n_c, n_ky and n_kx together) but needs only n_c: a pooling RUN's windows per context.
  logic unused_run;
  assign unused_run = ^{run_n_ky_i, run_n_kx_i};

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      active_q <= 1'b0;
      preload_q <= 1'b0;
      pool_q <= 1'b0;
      n_c_q <= '0;
      n_kg_q <= '0;
      n_cy_q <= '0;
      n_cx_q <= '0;
      n_ctx_q <= '0;
      total_q <= '0;
      rd_left_q <= 1'b0;
      inflight_q <= 1'b0;
      rd_g_q <= '0;
      rd_cy_q <= '0;
      rd_cx_q <= '0;
      rd_col_q <= '0;
      claimed_q <= '0;
      claims_q <= '0;
      pre_win_q <= '0;
      pre_j_q <= '0;
      res_win_q <= '0;
      res_g_q <= '0;
      res_cy_q <= '0;
      res_cx_q <= '0;
      res_j_q <= '0;
      written_q <= '0;
    end else begin
      active_q <= active_d;
      preload_q <= preload_d;
      pool_q <= pool_d;
      n_c_q <= n_c_d;
      n_kg_q <= n_kg_d;
      n_cy_q <= n_cy_d;
      n_cx_q <= n_cx_d;
      n_ctx_q <= n_ctx_d;
      total_q <= total_d;
      rd_left_q <= rd_left_d;
      inflight_q <= inflight_d;
      rd_g_q <= rd_g_d;
      rd_cy_q <= rd_cy_d;
      rd_cx_q <= rd_cx_d;
      rd_col_q <= rd_col_d;
      claimed_q <= claimed_d;
      claims_q <= claims_d;
      pre_win_q <= pre_win_d;
      pre_j_q <= pre_j_d;
      res_win_q <= res_win_d;
      res_g_q <= res_g_d;
      res_cy_q <= res_cy_d;
      res_cx_q <= res_cx_d;
      res_j_q <= res_j_d;
      written_q <= written_d;
    end
  end

`ifndef SYNTHESIS
  initial begin
    if (!(Cfg.rows >= 1)) $fatal(1, "psum_manager: Cfg.rows must be at least 1");
    if (!(Cfg.cols >= 1)) $fatal(1, "psum_manager: Cfg.cols must be at least 1");
    if (!(Cfg.acc_bits >= 1)) $fatal(1, "psum_manager: Cfg.acc_bits must be at least 1");
    if (!(Cfg.psum_depth >= 1)) $fatal(1, "psum_manager: Cfg.psum_depth must be at least 1");
  end
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (rst_ni) begin
      if (start_i && active_q) $error("psum_manager: RUN started while the previous one is still active");
      if (start_i && (!pq_empty || inflight_q || !rq_empty))
        $error("psum_manager: RUN started with words left in a queue");
      if (start_i && n_ctx_start == '0) $error("psum_manager: RUN without contexts");
      if (start_i && (pool_start ? 64'(run_n_c_i) * 64'(run_n_cy_i) * 64'(run_n_cx_i)
                                 : 64'(n_ctx_start) * 64'(Cols)) > 64'(Depth))
        $error("psum_manager: RUN does not fit the psum buffer");
      if (start_i && pool_start && (run_preload_i || run_n_kg_i != CountBits'(1)))
        $error("psum_manager: pooling RUN with preload or more than one output-channel group");
      // Judged on the registered counts, like the issue stage's condition (no unsigned wrap here).
      if (claim_i && (!active_q || !preload_q || claims_q >= n_ctx_q))
        $error("psum_manager: claim for a window that takes no SRAM preload");
      if (claim_i && {1'b0, pq_count} < {1'b0, claimed_q} + (UnclaimedBits + 1)'(Cols))
        $error("psum_manager: claim beyond the preload queue");
      if (pre_pop_i && (!active_q || pre_win_q >= n_windows))
        $error("psum_manager: preload pop outside the RUN's windows");
      if (pre_pop_i && take_sram && pq_empty) $error("psum_manager: preload pop from an empty preload queue");
      if (pre_pop_i && take_sram && claimed_q == '0) $error("psum_manager: preload pop of an unclaimed word");
      if (res_valid_i && !pool_q && (!active_q || res_win_q >= n_windows))
        $error("psum_manager: result word outside the RUN's windows");
      if (res_valid_i && !pool_q && res_col_i != LastCol - res_j_q)
        $error("psum_manager: result column %0d where %0d was due", res_col_i, LastCol - res_j_q);
      if (pool_valid_i && (!active_q || !pool_q || {1'b0, res_cy_q} >= {1'b0, n_cy_q} || res_valid_i))
        $error("psum_manager: pooling result outside a pooling RUN's windows");
      if (res_valid_i && pool_q && !pool_valid_i) $error("psum_manager: array result word in a pooling RUN");
      if (rq_push && rq_full) $error("psum_manager: result queue overflow");
      if (read && 32'(rd_addr) >= 32'(Depth)) $error("psum_manager: psum SRAM read address %0d out of range", rd_addr);
    end
  end
`endif

  // ---- Assertions (hw/common/flycol_assert.svh) ----
  `FLYCOL_ASSERT_NEVER(NoStartBusy_A, start_i && busy_o, clk_i, rst_ni)
  `FLYCOL_ASSERT_NEVER(ClaimCovered_A, claim_i && 32'(unclaimed_o) < Cols, clk_i, rst_ni)
  `FLYCOL_ASSERT(ResColInRange_A, res_valid_i |-> 32'(res_col_i) < Cols, clk_i, rst_ni)
  `FLYCOL_ASSERT(AddrInRange_A, psum_req_o |-> 32'(psum_addr_o) < Cfg.psum_depth, clk_i, rst_ni)
  // Writes carry all rows; reads write nothing.
  `FLYCOL_ASSERT(WmaskRule_A, psum_req_o |-> psum_wmask_o == (psum_we_o ? '1 : '0), clk_i, rst_ni)
  `FLYCOL_ASSERT(DoneWhileBusy_A, run_done_o |-> busy_o, clk_i, rst_ni)
  `FLYCOL_ASSERT_KNOWN(CtrlKnown_A, {psum_req_o, busy_o, run_done_o}, clk_i, rst_ni)
  // One result port per RUN: the pooling unit's in a pooling RUN, the array's otherwise.
  `FLYCOL_ASSERT_NEVER(PoolResultOnlyInPoolRun_A, pool_valid_i && !(active_q && pool_q), clk_i, rst_ni)
  `FLYCOL_ASSERT_NEVER(ArrayQuietInPoolRun_A, res_valid_i && pool_q, clk_i, rst_ni)
  `FLYCOL_COVER(Preload_C, start_i && run_preload_i, clk_i, rst_ni)
  `FLYCOL_COVER(PoolRun_C, start_i && run_pool_op_i != '0, clk_i, rst_ni)
  `FLYCOL_COVER(PoolResult_C, pool_valid_i, clk_i, rst_ni)
  // The write wins the port whenever the result queue holds an entry and at most one result
  // arrives per cycle, so the queue never holds two: its second entry is spare (coverage found
  // its "full" cover unreachable; docs/verification.md, coverage).
  `FLYCOL_ASSERT(ResultQueueNeverFull_A, !rq_full, clk_i, rst_ni)
  `FLYCOL_COVER(RunDone_C, run_done_o, clk_i, rst_ni)

endmodule
