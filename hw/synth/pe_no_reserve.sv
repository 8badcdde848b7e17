// pe_no_reserve: the PE with its reserve chains tied off (no swap, no shift, no preload, result
// unused), synthesized only by `flycol synth` (sim/synth): the PE's area minus this one's is what
// the two reserve banks and their bank pointer cost. Not part of the design; not registered with flycol_rtl_sources().
`include "flycol_assert.svh"

module pe_no_reserve #(
  parameter flycol_pkg::cfg_t Cfg = flycol_cfg_pkg::Cfg,
  localparam int unsigned ElemBits = Cfg.elem_bits,
  localparam int unsigned AccBits = Cfg.acc_bits
) (
  input  logic                clk_i,     // clock, rising edge
  input  logic                rst_ni,    // asynchronous reset, active low
  input  logic [ElemBits-1:0] a_i,       // ifmap element from the west
  input  logic [ElemBits-1:0] w_i,       // weight from the north
  input  logic                valid_i,   // MAC step
  input  logic                window_i,  // window flag, passed on
  output logic [ElemBits-1:0] a_o,       // registered a_i
  output logic [ElemBits-1:0] w_o,       // registered w_i
  output logic                valid_o,   // registered valid_i
  output logic                window_o,  // registered window_i
  output logic [AccBits-1:0]  acc_o,     // accumulator
  output logic                gated_o    // the previous MAC step was gated
);

  /* verilator lint_off PINCONNECTEMPTY */
  pe #(
    .Cfg(Cfg)
  ) u_pe (
    .clk_i,
    .rst_ni,
    .a_i,
    .w_i,
    .valid_i,
    .swap_i  (1'b0),
    .window_i,
    .res_i   ('0),
    .shift_i (1'b0),
    .shift_bank_i(1'b0),
    .a_o,
    .w_o,
    .valid_o,
    .swap_o  (),
    .window_o,
    .res_o   (),
    .acc_o,
    .gated_o
  );
  /* verilator lint_on PINCONNECTEMPTY */

  // ---- Assertions (hw/common/flycol_assert.svh) ----
  `FLYCOL_ASSERT(AccHold_A, !valid_i |=> $stable(acc_o), clk_i, rst_ni)
  `FLYCOL_ASSERT_KNOWN(CtrlKnown_A, {valid_o, window_o, gated_o}, clk_i, rst_ni)
  `FLYCOL_COVER(Gated_C, gated_o, clk_i, rst_ni)

endmodule
