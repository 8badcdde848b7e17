// fp16_fma: the PE's IEEE binary16 fused multiply-add, y = RNE(a*b + c) with a single rounding,
// bit-exact with fp16::fma (base/numerics/fp16.h): subnormals kept, canonical NaN 0x7E00.
// Purely combinational, because it closes the PE's single-cycle accumulate loop.
//
// Datapath (all finite operands; specials are resolved beside it and selected at the end):
//
//   A finite half is sig * 2^(e - 25) with sig = {hidden, frac} (11 bits) and e = max(field, 1),
//   so subnormals need no special decode. The product P = sig_a * sig_b (22 bits) has its LSB
//   at 2^(ea + eb - 50); the addend's LSB is at 2^(ec - 25).
//
//   Both terms are placed in one 38-bit fixed-point sum window S[37:0]:
//     * the product always at S[24:3] (three zero bits below it);
//     * the addend with its unshifted position at S[37:27] (two empty bits above the product's
//       top), shifted right by rs = ea + eb - 1 - ec to its true place relative to the product.
//       Addend bits that fall below S[1] are OR-ed into the "jam" bit S[0].
//     * If rs <= 0 (the addend 24 or more product-LSBs above) or the product is zero, the
//       window is anchored on the addend instead: rs = 0 and the product, kept at S[24:3],
//       only stands in for "something below the addend's rounding point".
//   The window's weight follows from the anchor: S[37] has biased exponent e_base =
//   (anchored ? ec : ea + eb - 1), and a result normalized by ls bits gets field e_base - ls.
//
//   Why one rounding of S is exact (R = position of the result's LSB in S):
//     * nothing is approximated unless the addend is jammed (rs >= 27) or the product is
//       pushed below an anchored addend. Jamming replaces a dropped part x in (0, 2^1) of S by
//       exactly 2^0; the computed and the exact sums then lie strictly between the same two
//       multiples of 2^1, and so round the same way whenever the rounding midpoint (at R - 1) is
//       a multiple of 2^1, i.e. R >= 2.
//     * jamming needs rs >= 27, so ea + eb >= ec + 28 >= 29: then the product is nonzero with
//       at least one normal operand, P >= 2^10, the addend is below 2^8 product LSBs, the sum
//       keeps its leading one at S[12] or above and R >= 2 (or R is pinned higher by the
//       subnormal limit).
//     * anchored on the addend with a nonzero product, ec > ea + eb - 1 >= 1, so c is normal
//       (hidden bit at S[37]) and the result's LSB is at S[26] or above (S[26] when c is a
//       power of two and the product pulls it just below): midpoints sit on multiples of 2^25,
//       and any product is below 2^25, so replacing the true product by the one in the window,
//       another value in (0, 2^25), cannot cross a midpoint or a representable value.
//   The magnitude of a*b + c is then normalized by a left shift ls = min(lzc(S), e_base - 1)
//   (the bound keeps subnormal results on the 2^-24 grid), rounded once at S[27] with guard
//   S[26] and sticky S[25:0], and packed as ((e_base - ls - 1) << 10) + sig11 + round_up: the
//   hidden bit adds the last exponent step, so subnormal -> normal and normal -> next binade ->
//   infinity carries need no special cases.
`include "flycol_assert.svh"

module fp16_fma (
  input  logic [15:0] a_i,  // multiplicand, binary16 bits
  input  logic [15:0] b_i,  // multiplier, binary16 bits
  input  logic [15:0] c_i,  // addend (the PE's accumulator), binary16 bits
  output logic [15:0] y_o   // a*b + c rounded once to nearest even; NaN results are 0x7E00
);

  localparam logic [15:0] CanonicalNaN = 16'h7E00;
  localparam logic [14:0] InfMag = 15'h7C00;

  // ---------------------------------------------------------------------------------------------
  // Operand decode and special cases
  // ---------------------------------------------------------------------------------------------
  logic        sign_a, sign_b, sign_c, sign_p;
  logic [5:0]  exp_a, exp_b, exp_c;     // max(field, 1), widened for the exponent sums
  logic [10:0] sig_a, sig_b, sig_c;     // significands with the hidden bit
  logic        zero_a, zero_b, inf_a, inf_b, inf_c, nan_any;
  logic        prod_zero, prod_inf, invalid;

  always_comb begin
    sign_a = a_i[15];
    sign_b = b_i[15];
    sign_c = c_i[15];
    sign_p = sign_a ^ sign_b;

    exp_a = {1'b0, a_i[14:10]} | {5'd0, a_i[14:10] == 5'd0};
    exp_b = {1'b0, b_i[14:10]} | {5'd0, b_i[14:10] == 5'd0};
    exp_c = {1'b0, c_i[14:10]} | {5'd0, c_i[14:10] == 5'd0};
    sig_a = {a_i[14:10] != 5'd0, a_i[9:0]};
    sig_b = {b_i[14:10] != 5'd0, b_i[9:0]};
    sig_c = {c_i[14:10] != 5'd0, c_i[9:0]};

    zero_a = a_i[14:0] == 15'd0;
    zero_b = b_i[14:0] == 15'd0;
    inf_a = a_i[14:0] == InfMag;
    inf_b = b_i[14:0] == InfMag;
    inf_c = c_i[14:0] == InfMag;
    nan_any = (a_i[14:0] > InfMag) | (b_i[14:0] > InfMag) | (c_i[14:0] > InfMag);

    prod_zero = zero_a | zero_b;
    prod_inf = inf_a | inf_b;
    // inf * 0, and inf - inf when the infinite product meets an infinite addend of other sign.
    invalid = (inf_a & zero_b) | (inf_b & zero_a) | (prod_inf & inf_c & (sign_p != sign_c));
  end

  // ---------------------------------------------------------------------------------------------
  // Exact product and addend alignment (independent, side by side)
  // ---------------------------------------------------------------------------------------------
  logic [21:0] prod;        // sig_a * sig_b, exact
  logic [5:0]  exp_prod;    // ea + eb - 1: biased exponent of S[37] when anchored on the product
  logic        anchor_c;    // window anchored on the addend (see header)
  logic [5:0]  rs;          // addend right shift in the window, 0..37
  logic [5:0]  e_base;      // biased exponent of S[37]
  logic [47:0] c_field;     // addend in the window (47:11) and the bits shifted out (10:0)
  logic [37:0] prod_term;   // product in S
  logic [37:0] addend_term; // aligned addend in S, jam bit at S[0]

  always_comb begin
    prod = {11'd0, sig_a} * {11'd0, sig_b};

    exp_prod = exp_a + exp_b - 6'd1;
    anchor_c = prod_zero | (exp_prod <= exp_c);
    rs = 6'd0;
    if (!anchor_c) begin
      // exp_prod - exp_c is 1..58; beyond 37 every addend bit is below the window anyway.
      rs = ((exp_prod - exp_c) > 6'd37) ? 6'd37 : (exp_prod - exp_c);
    end
    e_base = anchor_c ? exp_c : exp_prod;

    c_field = {sig_c, 37'd0} >> rs;
    addend_term = {c_field[47:11], |c_field[10:0]};
    prod_term = {13'd0, prod, 3'd0};
  end

  // ---------------------------------------------------------------------------------------------
  // Signed sum: both differences in parallel, so no negation follows the subtraction
  // ---------------------------------------------------------------------------------------------
  logic        eff_sub;     // the terms have opposite signs
  logic [37:0] sum_pa;      // prod + addend; below 2^38 by the window layout
  logic [38:0] diff_pa;     // prod - addend, bit 38 = borrow
  logic [37:0] diff_ap;     // addend - prod, used only when the addend is the larger one
  logic [37:0] mag;         // |a*b + c| in S (exact, or jammed as above)
  logic        sign_r;      // sign of a nonzero result

  always_comb begin
    eff_sub = sign_p ^ sign_c;
    sum_pa = prod_term + addend_term;
    diff_pa = {1'b0, prod_term} - {1'b0, addend_term};
    diff_ap = addend_term - prod_term;
    if (!eff_sub) begin
      mag = sum_pa;
      sign_r = sign_p;
    end else if (diff_pa[38]) begin
      mag = diff_ap;
      sign_r = sign_c;
    end else begin
      mag = diff_pa[37:0];
      sign_r = sign_p;
    end
  end

  // ---------------------------------------------------------------------------------------------
  // Normalization: left shift by min(lzc(mag), e_base - 1) in six binary stages. A stage of 2^k
  // shifts when its top 2^k bits are zero and the budget allows it; while all earlier stages
  // followed the budget's own bits ("tight"), the budget allows 2^k exactly when its bit k is set,
  // and once a stage fell short of the budget the remaining budget exceeds every later stage.
  // ---------------------------------------------------------------------------------------------
  logic [5:0]  ls_max;      // e_base - 1: more would push the LSB below 2^-24
  logic [5:0]  ls;          // the shift taken
  logic [37:0] norm;        // mag << ls
  logic [5:0]  take;        // per stage: shift by 2^k
  logic        tight;

  always_comb begin
    ls_max = e_base - 6'd1;
    norm = mag;
    tight = 1'b1;

    // Stage k looks at the top 2^k bits, norm[37 -: 2^k], as norm >> (38 - 2^k): a part-select
    // needs a constant width.
    for (int k = 5; k >= 0; k--) begin
      take[k] = ((norm >> (38 - (1 << k))) == 38'd0) & (~tight | ls_max[k]);
      if (take[k]) norm = norm << (1 << k);
      tight = tight & (take[k] == ls_max[k]);
    end

    ls = take;
  end

  // ---------------------------------------------------------------------------------------------
  // Round to nearest even at S[27] and pack
  // ---------------------------------------------------------------------------------------------
  logic [10:0] sig_r;       // significand before rounding (hidden bit = norm[37])
  logic        round_up;
  logic [15:0] packed_r;    // exponent and fraction after rounding; >= 0x7C00 is overflow
  logic        overflow;
  logic        zero_r;      // exact zero sum

  always_comb begin
    sig_r = norm[37:27];
    round_up = norm[26] & ((|norm[25:0]) | sig_r[0]);
    // e_base - ls - 1 >= 0 because ls <= ls_max; at most 60, so 16 bits never wrap.
    packed_r = {e_base - ls - 6'd1, 10'd0} + {5'd0, sig_r} + {15'd0, round_up};
    overflow = packed_r[15] | (packed_r[14:10] == 5'h1F);
    zero_r = mag == 38'd0;
  end

  // ---------------------------------------------------------------------------------------------
  // Result selection
  // ---------------------------------------------------------------------------------------------
  always_comb begin
    if (nan_any | invalid) begin
      y_o = CanonicalNaN;
    end else if (prod_inf) begin
      y_o = {sign_p, InfMag};
    end else if (inf_c) begin
      y_o = c_i;
    end else if (zero_r) begin
      // An exact zero is +0 unless both terms are -0 (only then do both signs say minus).
      y_o = {sign_p & sign_c, 15'd0};
    end else if (overflow) begin
      y_o = {sign_r, InfMag};
    end else begin
      y_o = {sign_r, packed_r[14:0]};
    end
  end

  // ---- Assertions (hw/common/flycol_assert.svh) ----
  // Combinational (no clock): immediate checks. Every NaN result is the canonical 0x7E00, and a
  // NaN operand always gives it.
  `FLYCOL_ASSERT_COMB(NanCanonical_A, !(y_o[14:10] == 5'h1f && y_o[9:0] != '0) || y_o == 16'h7e00)
  `FLYCOL_ASSERT_COMB(NanIn_A,
      !((a_i[14:10] == 5'h1f && a_i[9:0] != '0) || (b_i[14:10] == 5'h1f && b_i[9:0] != '0) ||
        (c_i[14:10] == 5'h1f && c_i[9:0] != '0)) || y_o == 16'h7e00)

endmodule
