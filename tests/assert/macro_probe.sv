// Uses every macro of hw/common/flycol_assert.svh once, for tests/assert/run_macro_tools.cmake:
// it is linted by Verilator, read by Yosys (macros empty under SYNTHESIS and -formal), and Icarus runs
// it with X on a checked signal (its immediate checks must name the assertion).
`include "flycol_assert.svh"

module macro_probe (
  input logic       clk_i,    // clock
  input logic       rst_ni,   // reset, active low
  input logic       valid_i,  // an item is offered
  input logic       ready_i,  // the sink takes it
  input logic [3:0] data_i,   // the item
  output logic      q_o       // registered valid_i
);
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) q_o <= 1'b0;
    else q_o <= valid_i;
  end

  // ---- Assertions (hw/common/flycol_assert.svh) ----
  `FLYCOL_ASSERT(Follow_A, valid_i |=> q_o, clk_i, rst_ni)
  `FLYCOL_ASSERT_NEVER(NoF_A, valid_i && data_i == 4'hf, clk_i, rst_ni)
  `FLYCOL_ASSERT_KNOWN(Known_A, valid_i, clk_i, rst_ni)
  `FLYCOL_ASSERT_INIT(Init_A, 1'b1)
  `FLYCOL_ASSERT_COMB(Comb_A, data_i != 4'he)
  `FLYCOL_ASSUME(Ready_M, 1'b1, clk_i, rst_ni)
  `FLYCOL_COVER(Bp_C, valid_i && !ready_i, clk_i, rst_ni)
  `FLYCOL_ASSERT_STREAM(Req, valid_i, ready_i, data_i, clk_i, rst_ni)
endmodule
