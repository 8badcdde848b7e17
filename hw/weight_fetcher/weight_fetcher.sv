// Weight fetcher (docs/microarchitecture.md, section 9.3): reads a RUN's weight words from the
// weight SRAM in MAC-step order into the weight FIFO, one read per cycle while the FIFO and the
// read in flight leave room. A pooling RUN (section 16) reads nothing: the fetcher stays idle.
// The RTL twin of WeightFetcherCore (hw/weight_fetcher/), register for register.
`include "flycol_assert.svh"

module weight_fetcher #(
  parameter flycol_pkg::cfg_t Cfg = flycol_cfg_pkg::Cfg,
  // Derived widths (not overridable); RUN field widths from command_t (see controller.sv).
  localparam flycol_pkg::command_t CmdShape = '0,
  localparam int unsigned CountBits = $bits(CmdShape.run_n_kg),
  localparam int unsigned PoolOpBits = $bits(CmdShape.run_pool_op),
  localparam int unsigned Cols = Cfg.cols,
  localparam int unsigned ElemBits = Cfg.elem_bits,
  localparam int unsigned WordBits = Cols * ElemBits,
  // Same address width as hw/common/sram_bank.sv.
  localparam int unsigned AddrBits = flycol_pkg::index_bits(Cfg.weight_depth)
) (
  input  logic                  clk_i,           // clock, rising edge
  input  logic                  rst_ni,          // asynchronous reset, active low
  input  logic                  start_i,         // a RUN starts this cycle; only while !busy_o && !has_word_o
  input  logic [CountBits-1:0]  run_n_kg_i,      // RUN field, read with start_i
  input  logic [CountBits-1:0]  run_n_cy_i,      // RUN field, read with start_i
  input  logic [CountBits-1:0]  run_n_cx_i,      // RUN field, read with start_i
  input  logic [CountBits-1:0]  run_n_c_i,       // RUN field, read with start_i
  input  logic [CountBits-1:0]  run_n_ky_i,      // RUN field, read with start_i
  input  logic [CountBits-1:0]  run_n_kx_i,      // RUN field, read with start_i
  input  logic [PoolOpBits-1:0] run_pool_op_i,   // RUN field, read with start_i (nonzero: pooling, read nothing)
  output logic                  weight_req_o,    // weight SRAM (the RUN's buffer): access this cycle
  output logic                  weight_we_o,     // weight SRAM: write (never: this block only reads)
  output logic [AddrBits-1:0]   weight_addr_o,   // weight SRAM: word address
  output logic [WordBits-1:0]   weight_wdata_o,  // weight SRAM: write word (unused, zero)
  output logic [Cols-1:0]       weight_wmask_o,  // weight SRAM: write mask (unused, zero)
  input  logic [WordBits-1:0]   weight_rdata_i,  // weight SRAM: word of the last read (column c at c*ElemBits)
  output logic                  has_word_o,      // the weight FIFO is not empty (Moore)
  output logic [WordBits-1:0]   word_o,          // FIFO head (column c at c*ElemBits); zero when empty (Moore)
  input  logic                  pop_i,           // the issue stage takes the head this cycle
  output logic                  busy_o           // reads left or a read in flight (Moore; FIFO words do not count)
);

  localparam int unsigned Depth = Cfg.weight_depth;
  localparam int unsigned Wfd = flycol_pkg::WeightFifoDepth;
  localparam int unsigned CntBits = $clog2(Wfd + 1);  // the FIFO's count_o
  // The core's word counters are uint32 (L is a product of three count fields).
  localparam int unsigned CtrBits = 32;

  // RUN shape, loaded at start.
  logic [CtrBits-1:0]   len_q, len_d;  // L = n_c*n_ky*n_kx
  logic [CountBits-1:0] n_cx_q, n_cx_d, n_cy_q, n_cy_d, n_kg_q, n_kg_d;
  // Read walk: word base_q + step_q, base_q = g_q * L.
  logic [CtrBits-1:0]   step_q, step_d, base_q, base_d;
  logic [CountBits-1:0] cx_q, cx_d, cy_q, cy_d, g_q, g_d;
  logic reads_left_q, reads_left_d, inflight_q, inflight_d;

  logic [CtrBits-1:0] len_start;  // L of the starting RUN, modulo 2^32 like the core
  logic [CtrBits-1:0] addr_full;  // base_q + step_q before narrowing to the port
  logic read;

  logic               f_push, f_pop, f_empty;
  logic [WordBits-1:0] f_head;
  logic [CntBits-1:0] f_count;

  /* verilator lint_off PINCONNECTEMPTY */
  // full_o is not used: the read rule counts the words in flight as well (count + inflight < WFD).
  fifo #(
    .Width(WordBits),
    .Depth(Wfd)
  ) u_wfifo (
    .clk_i,
    .rst_ni,
    .push_i (f_push),
    .wdata_i(weight_rdata_i),
    .pop_i  (f_pop),
    .rdata_o(f_head),
    .full_o (),
    .empty_o(f_empty),
    .count_o(f_count)
  );
  /* verilator lint_on PINCONNECTEMPTY */

  always_comb begin
    len_start = CtrBits'(run_n_c_i) * CtrBits'(run_n_ky_i) * CtrBits'(run_n_kx_i);

    len_d = len_q;
    n_cx_d = n_cx_q;
    n_cy_d = n_cy_q;
    n_kg_d = n_kg_q;
    step_d = step_q;
    cx_d = cx_q;
    cy_d = cy_q;
    g_d = g_q;
    base_d = base_q;
    reads_left_d = reads_left_q;

    // Last cycle's read data is on the bank's output now; it enters the FIFO at this edge.
    f_push = inflight_q;
    f_pop = pop_i;

    // Registered counts only: a pop in this cycle frees its slot for next cycle's decision.
    read = reads_left_q && ({1'b0, f_count} + CntBits'(inflight_q)) < (CntBits + 1)'(Wfd);
    inflight_d = read;
    addr_full = base_q + step_q;

    if (read) begin
      if ((step_q + 1'b1) < len_q) begin
        step_d = step_q + 1'b1;
      end else begin
        step_d = '0;
        if (({1'b0, cx_q} + 1'b1) < {1'b0, n_cx_q}) begin
          cx_d = cx_q + 1'b1;
        end else begin
          cx_d = '0;
          if (({1'b0, cy_q} + 1'b1) < {1'b0, n_cy_q}) begin
            cy_d = cy_q + 1'b1;
          end else begin
            cy_d = '0;
            if (({1'b0, g_q} + 1'b1) < {1'b0, n_kg_q}) begin
              g_d = g_q + 1'b1;
              base_d = base_q + len_q;
            end else begin
              g_d = '0;
              base_d = '0;
              reads_left_d = 1'b0;
            end
          end
        end
      end
    end

    // A start is only legal while idle, so nothing computed above is lost.
    if (start_i) begin
      len_d = len_start;
      n_cx_d = run_n_cx_i;
      n_cy_d = run_n_cy_i;
      n_kg_d = run_n_kg_i;
      step_d = '0;
      cx_d = '0;
      cy_d = '0;
      g_d = '0;
      base_d = '0;
      reads_left_d = run_pool_op_i == '0;  // a pooling RUN reads no weights
    end
  end

  assign weight_req_o = read;
  assign weight_we_o = 1'b0;
  assign weight_addr_o = addr_full[AddrBits-1:0];
  assign weight_wdata_o = '0;
  assign weight_wmask_o = '0;
  assign has_word_o = !f_empty;
  assign word_o = f_empty ? '0 : f_head;
  assign busy_o = reads_left_q || inflight_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      len_q <= '0;
      n_cx_q <= '0;
      n_cy_q <= '0;
      n_kg_q <= '0;
      step_q <= '0;
      cx_q <= '0;
      cy_q <= '0;
      g_q <= '0;
      base_q <= '0;
      reads_left_q <= 1'b0;
      inflight_q <= 1'b0;
    end else begin
      len_q <= len_d;
      n_cx_q <= n_cx_d;
      n_cy_q <= n_cy_d;
      n_kg_q <= n_kg_d;
      step_q <= step_d;
      cx_q <= cx_d;
      cy_q <= cy_d;
      g_q <= g_d;
      base_q <= base_d;
      reads_left_q <= reads_left_d;
      inflight_q <= inflight_d;
    end
  end

`ifndef SYNTHESIS
  logic [CtrBits-1:0] n_ctx_start;
  assign n_ctx_start = CtrBits'(run_n_kg_i) * CtrBits'(run_n_cy_i) * CtrBits'(run_n_cx_i);

  initial begin
    if (!(Cfg.cols >= 1)) $fatal(1, "weight_fetcher: Cfg.cols must be at least 1");
    if (!(Cfg.elem_bits >= 1)) $fatal(1, "weight_fetcher: Cfg.elem_bits must be at least 1");
    if (!(Cfg.weight_depth >= 1)) $fatal(1, "weight_fetcher: Cfg.weight_depth must be at least 1");
  end
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (rst_ni && pop_i && f_empty) $error("weight_fetcher: pop of an empty weight FIFO");
    if (rst_ni && start_i && (busy_o || has_word_o))
      $error("weight_fetcher: RUN started while the previous one is still fetching");
    if (rst_ni && start_i && (len_start == '0 || n_ctx_start == '0)) $error("weight_fetcher: RUN without steps");
    if (rst_ni && start_i && run_pool_op_i == '0 && 64'(run_n_kg_i) * 64'(len_start) > 64'(Depth))
      $error("weight_fetcher: RUN does not fit the weight buffer");
    if (rst_ni && read && addr_full >= CtrBits'(Depth))
      $error("weight_fetcher: weight SRAM address %0d out of range", addr_full);
  end
`endif

  // ---- Assertions (hw/common/flycol_assert.svh) ----
  `FLYCOL_ASSERT_NEVER(NoPopEmpty_A, pop_i && !has_word_o, clk_i, rst_ni)
  `FLYCOL_ASSERT_NEVER(NoStartBusy_A, start_i && (busy_o || has_word_o), clk_i, rst_ni)
  // Read only: the write port is tied off.
  `FLYCOL_ASSERT_NEVER(NoWrite_A, weight_we_o || weight_wmask_o != '0 || weight_wdata_o != '0, clk_i, rst_ni)
  `FLYCOL_ASSERT(AddrInRange_A, weight_req_o |-> 32'(weight_addr_o) < Cfg.weight_depth, clk_i, rst_ni)
  `FLYCOL_ASSERT(EmptyWordZero_A, !has_word_o |-> word_o == '0, clk_i, rst_ni)
  `FLYCOL_ASSERT_KNOWN(CtrlKnown_A, {weight_req_o, has_word_o, busy_o}, clk_i, rst_ni)
  `FLYCOL_COVER(FifoFull_C, 32'(f_count) == Wfd, clk_i, rst_ni)
  `FLYCOL_COVER(WordWaits_C, has_word_o && !pop_i, clk_i, rst_ni)
  `FLYCOL_COVER(Start_C, start_i, clk_i, rst_ni)
  `FLYCOL_COVER(PoolStart_C, start_i && run_pool_op_i != '0, clk_i, rst_ni)

endmodule
