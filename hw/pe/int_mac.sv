// int_mac: the integer PE's multiply-accumulate, acc_o = saturate_int32(acc_i + a_i * b_i) on
// two's-complement operands, bit-exact with intmac::mac (base/numerics/int_mac.h).
// Combinational, like fp16_fma: it closes the PE's single-cycle accumulate loop.
`include "flycol_assert.svh"

module int_mac #(
  parameter int unsigned ElemBits = 8  // operand width: 8 (int8) or 16 (int16)
) (
  input  logic [ElemBits-1:0] a_i,    // ifmap element, two's complement
  input  logic [ElemBits-1:0] b_i,    // weight, two's complement
  input  logic [31:0]         acc_i,  // int32 accumulator
  output logic [31:0]         acc_o   // acc_i + a_i * b_i clamped to the int32 range
);

  localparam int unsigned ProdBits = 2 * ElemBits;

`ifndef SYNTHESIS
  // The 33-bit sum below is wide enough only while the product fits in 31 bits.
  initial if (!(ElemBits == 8 || ElemBits == 16)) $fatal(1, "int_mac: ElemBits must be 8 or 16");
`endif

  logic [ProdBits-1:0] prod;  // a_i * b_i, exact (two's complement)
  logic [32:0]         sum;   // acc_i + prod, exact: |sum| < 2^32

  always_comb begin
    // Multiplying the sign-extended operands modulo 2^ProdBits gives the signed product.
    prod = {{ElemBits{a_i[ElemBits-1]}}, a_i} * {{ElemBits{b_i[ElemBits-1]}}, b_i};
    sum = {acc_i[31], acc_i} + {{(33 - ProdBits){prod[ProdBits-1]}}, prod};
    if (sum[32] == sum[31]) begin
      acc_o = sum[31:0];
    end else begin
      // Bits 32 and 31 differ only when the sum left the int32 range; bit 32 is its true sign.
      acc_o = sum[32] ? 32'h8000_0000 : 32'h7FFF_FFFF;
    end
  end

  // ---- Assertions (hw/common/flycol_assert.svh) ----
  // Combinational (no clock): immediate checks. A zero operand leaves the accumulator as it is
  // (acc_i is already an int32, so no clamping can apply).
  `FLYCOL_ASSERT_COMB(ZeroOperand_A, !(a_i == '0 || b_i == '0) || acc_o == acc_i)

endmodule
