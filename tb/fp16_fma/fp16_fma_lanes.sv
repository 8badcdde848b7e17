// fp16_fma_lanes: test wrapper for fp16_fma_rtl_tb, Lanes independent FMAs side by side so that
// one Verilated eval checks Lanes operand triples (the random and exhaustive runs need speed).
// Not part of the design.
module fp16_fma_lanes #(
  parameter int unsigned Lanes = 64  // FMAs evaluated per eval
) (
  input  logic [Lanes-1:0][15:0] a_i,  // per lane: multiplicand
  input  logic [Lanes-1:0][15:0] b_i,  // per lane: multiplier
  input  logic [Lanes-1:0][15:0] c_i,  // per lane: addend
  output logic [Lanes-1:0][15:0] y_o   // per lane: fp16_fma result
);

  for (genvar i = 0; i < Lanes; i++) begin : gen_lane
    fp16_fma u_fma (
      .a_i(a_i[i]),
      .b_i(b_i[i]),
      .c_i(c_i[i]),
      .y_o(y_o[i])
    );
  end

endmodule
