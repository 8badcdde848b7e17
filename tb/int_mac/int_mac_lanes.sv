// int_mac_lanes: test wrapper for int_mac_rtl_tb, Lanes int8 and Lanes int16 MACs side by side so
// that one Verilated eval checks many vectors of both operand widths.
// Not part of the design.
module int_mac_lanes #(
  parameter int unsigned Lanes = 64  // MACs of each width evaluated per eval
) (
  input  logic [Lanes-1:0][7:0]  a8_i,     // per int8 lane: operand a
  input  logic [Lanes-1:0][7:0]  b8_i,     // per int8 lane: operand b
  input  logic [Lanes-1:0][31:0] acc8_i,   // per int8 lane: accumulator in
  output logic [Lanes-1:0][31:0] acc8_o,   // per int8 lane: int_mac #(8) result
  input  logic [Lanes-1:0][15:0] a16_i,    // per int16 lane: operand a
  input  logic [Lanes-1:0][15:0] b16_i,    // per int16 lane: operand b
  input  logic [Lanes-1:0][31:0] acc16_i,  // per int16 lane: accumulator in
  output logic [Lanes-1:0][31:0] acc16_o   // per int16 lane: int_mac #(16) result
);

  for (genvar i = 0; i < Lanes; i++) begin : gen_lane
    int_mac #(.ElemBits(8)) u_mac8 (
      .a_i(a8_i[i]),
      .b_i(b8_i[i]),
      .acc_i(acc8_i[i]),
      .acc_o(acc8_o[i])
    );
    int_mac #(.ElemBits(16)) u_mac16 (
      .a_i(a16_i[i]),
      .b_i(b16_i[i]),
      .acc_i(acc16_i[i]),
      .acc_o(acc16_o[i])
    );
  end

endmodule
