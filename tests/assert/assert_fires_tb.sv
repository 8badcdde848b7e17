// Breaks one protocol rule on purpose so that tests/assert can check that the assertion fires,
// fails the run and names itself. Built with `verilator --binary` by run_assert_tb.cmake; the
// rule is chosen with -DFLYCOL_BREAK_<RULE> (none: a legal run that must pass).
`include "flycol_assert.svh"

// A valid/ready source whose checks are the stream macros (the payload may change only after a
// handshake, valid may not drop before one).
module assert_stream_probe (
  input logic       clk_i,    // clock
  input logic       rst_ni,   // reset, active low
  input logic       valid_i,  // an item is offered
  input logic       ready_i,  // the sink takes it
  input logic [7:0] data_i    // the item
);
  // ---- Assertions (hw/common/flycol_assert.svh) ----
  `FLYCOL_ASSERT_STREAM(Req, valid_i, ready_i, data_i, clk_i, rst_ni)
endmodule

module assert_fires_tb;
  logic clk = 1'b0, rst_n = 1'b0;
  always #5 clk = ~clk;

  // FIFO of depth 2.
  logic f_push = 1'b0, f_pop = 1'b0, f_full, f_empty;
  logic [7:0] f_rdata;
  logic [1:0] f_count;
  fifo #(.Width(8), .Depth(2)) u_fifo (
    .clk_i(clk), .rst_ni(rst_n), .push_i(f_push), .wdata_i(8'h5a), .pop_i(f_pop),
    .rdata_o(f_rdata), .full_o(f_full), .empty_o(f_empty), .count_o(f_count)
  );

  // Weight fetcher with no RUN: its FIFO is empty, has_word_o low.
  logic w_pop = 1'b0, w_req, w_we, w_has, w_busy;
  localparam flycol_pkg::cfg_t Cfg = flycol_cfg_pkg::Cfg;
  localparam int unsigned WAddrBits = flycol_pkg::index_bits(Cfg.weight_depth);
  localparam int unsigned WWordBits = Cfg.cols * Cfg.elem_bits;
  localparam int unsigned WCols = Cfg.cols;
  logic [WAddrBits-1:0] w_addr;
  logic [WWordBits-1:0] w_wdata, w_word;
  logic [WCols-1:0] w_wmask;
  weight_fetcher u_wf (
    .clk_i(clk), .rst_ni(rst_n), .start_i(1'b0),
    .run_n_kg_i('0), .run_n_cy_i('0), .run_n_cx_i('0), .run_n_c_i('0), .run_n_ky_i('0), .run_n_kx_i('0), .run_pool_op_i('0),
    .weight_req_o(w_req), .weight_we_o(w_we), .weight_addr_o(w_addr), .weight_wdata_o(w_wdata),
    .weight_wmask_o(w_wmask), .weight_rdata_i('0), .has_word_o(w_has), .word_o(w_word), .pop_i(w_pop),
    .busy_o(w_busy)
  );

  logic s_valid = 1'b0, s_ready = 1'b0;
  logic [7:0] s_data = 8'h00;
  assert_stream_probe u_probe (.clk_i(clk), .rst_ni(rst_n), .valid_i(s_valid), .ready_i(s_ready), .data_i(s_data));

  initial begin
    repeat (2) @(negedge clk);
    rst_n = 1'b1;
    // Legal traffic first: fill the FIFO, drain it; one stream item held until taken.
    f_push = 1'b1;
    repeat (2) @(negedge clk);
    f_push = 1'b0;
    f_pop = 1'b1;
    repeat (2) @(negedge clk);
    f_pop = 1'b0;
    s_valid = 1'b1;
    s_data = 8'h11;
    repeat (2) @(negedge clk);
    s_ready = 1'b1;
    @(negedge clk);
    s_valid = 1'b0;
    s_ready = 1'b0;
    @(negedge clk);
`ifdef FLYCOL_BREAK_FIFO_PUSH_FULL
    f_push = 1'b1;
    repeat (3) @(negedge clk);  // the third push finds the FIFO full
    f_push = 1'b0;
`elsif FLYCOL_BREAK_WF_POP_EMPTY
    w_pop = 1'b1;  // the issue stage pops a weight word that is not there
    @(negedge clk);
    w_pop = 1'b0;
`elsif FLYCOL_BREAK_STREAM_DROP
    s_valid = 1'b1;
    @(negedge clk);
    s_valid = 1'b0;  // withdrawn before the sink took it
`elsif FLYCOL_BREAK_STREAM_CHANGE
    s_valid = 1'b1;
    s_data = 8'h22;
    @(negedge clk);
    s_data = 8'h23;  // payload changed while waiting
`endif
    repeat (3) @(negedge clk);
    $display("assert_fires_tb: run complete");
    $finish;
  end
endmodule
