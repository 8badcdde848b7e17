// Processing element (docs/microarchitecture.md, section 9.5), the RTL twin of PeCore
// (hw/pe/pe_core.h): accumulator, two reserve registers (banks: links of the row's preload/result
// chains) with the bank pointer,
// pass-through registers of the systolic links, zero gating, operand isolation (hold registers in
// front of the multiplier, Cfg.operand_isolation), and the arithmetic chosen by Cfg.arith.
`include "flycol_assert.svh"

module pe #(
  parameter flycol_pkg::cfg_t Cfg = flycol_cfg_pkg::Cfg,
  localparam int unsigned ElemBits = Cfg.elem_bits,  // EW: 16 (fp16, int16) or 8 (int8)
  localparam int unsigned AccBits = Cfg.acc_bits     // AW: 16 (fp16) or 32 (int)
) (
  input  logic                clk_i,     // clock, rising edge
  input  logic                rst_ni,    // asynchronous reset, active low: every register 0
  input  logic [ElemBits-1:0] a_i,       // ifmap element from the west
  input  logic [ElemBits-1:0] w_i,       // weight from the north
  input  logic                valid_i,   // MAC step
  input  logic                swap_i,    // swap accumulator and the current reserve bank after this step
  input  logic                window_i,  // window flag: passed on, and moves the bank pointer to the other bank
  input  logic [AccBits-1:0]  res_i,     // reserve chain from the west (column 0: the row's preload input)
  input  logic                shift_i,   // the row shifts a reserve chain this cycle (never the swapped bank)
  input  logic                shift_bank_i,  // the bank the row shifts, and the one res_o shows
  output logic [ElemBits-1:0] a_o,       // registered a_i, to the east
  output logic [ElemBits-1:0] w_o,       // registered w_i, to the south
  output logic                valid_o,   // registered valid_i, to the east
  output logic                swap_o,    // registered swap_i, to the east
  output logic                window_o,  // registered window_i, to the east
  output logic [AccBits-1:0]  res_o,     // reserve bank shift_bank_i, to the east (column COLS-1: the row's result)
  output logic [AccBits-1:0]  acc_o,     // accumulator, for tests and waveforms
  output logic                gated_o    // pulse: the MAC step of the previous cycle was gated (statistics, power)
);

  localparam int unsigned ArithFp16 = 0;  // Cfg.arith: 0 fp16, 1 int8, 2 int16

  logic [ElemBits-1:0] a_q, a_d, w_q, w_d;
  logic                valid_q, valid_d, swap_q, swap_d, window_q, window_d, gated_q, gated_d;
  logic [AccBits-1:0]  acc_q, acc_d, res0_q, res0_d, res1_q, res1_d;
  logic                bank_q, bank_d;  // the bank the next swap uses; toggles with every window flag

  // The arithmetic unit: acc_q + mul_a * mul_w, combinational (it closes the one-cycle accumulate
  // loop). Its operands are a_i, w_i on a step that computes; with operand isolation they are the
  // hold registers on any other step, so the multiplier's nets keep still (section 9.5).
  logic [AccBits-1:0]  mac_y;
  logic [ElemBits-1:0] mul_a, mul_w;
  // A zero operand: +-0 for fp16 (the sign bit is ignored), 0 for the integers.
  logic                a_zero, w_zero;

  if (Cfg.arith == ArithFp16) begin : gen_fp16
    fp16_fma u_fma (
      .a_i(mul_a),
      .b_i(mul_w),
      .c_i(acc_q),
      .y_o(mac_y)
    );
    assign a_zero = a_i[ElemBits-2:0] == '0;
    assign w_zero = w_i[ElemBits-2:0] == '0;
  end else begin : gen_int
    int_mac #(
      .ElemBits(ElemBits)
    ) u_mac (
      .a_i  (mul_a),
      .b_i  (mul_w),
      .acc_i(acc_q),
      .acc_o(mac_y)
    );
    assign a_zero = a_i == '0;
    assign w_zero = w_i == '0;
  end

  logic               gate;     // zero gating: no multiply, the accumulator keeps its value
  logic               compute;  // this step's product is used: a MAC step that is not gated
  logic [AccBits-1:0] m;        // accumulator after this cycle's MAC step (if any)

  // Apart from the always_comb below: the multiplier's operands depend on compute and m on the
  // multiplier, so one block holding both would read to Verilator as a combinational loop.
  assign gate = (Cfg.zero_gating != 0) && (a_zero || w_zero);
  assign compute = valid_i && !gate;

  always_comb begin
    m = compute ? mac_y : acc_q;
    res0_d = res0_q;
    res1_d = res1_q;
    if (swap_i) begin
      acc_d = bank_q ? res1_q : res0_q;
      if (bank_q) res1_d = m;
      else res0_d = m;
    end else begin
      acc_d = m;
    end
    if (shift_i) begin
      if (shift_bank_i) res1_d = res_i;
      else res0_d = res_i;
    end
    bank_d = window_i ? !bank_q : bank_q;
    gated_d = valid_i && gate;
    a_d = a_i;
    w_d = w_i;
    valid_d = valid_i;
    swap_d = swap_i;
    window_d = window_i;
  end

  // Operand isolation: two hold registers loaded on every step that computes. Without it the
  // multiplier takes a_i and w_i directly and there are no hold registers.
  if (Cfg.operand_isolation != 0) begin : gen_iso
    logic [ElemBits-1:0] hold_a_q, hold_a_d, hold_w_q, hold_w_d;
    always_comb begin
      hold_a_d = compute ? a_i : hold_a_q;
      hold_w_d = compute ? w_i : hold_w_q;
      mul_a = compute ? a_i : hold_a_q;
      mul_w = compute ? w_i : hold_w_q;
    end
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        hold_a_q <= '0;
        hold_w_q <= '0;
      end else begin
        hold_a_q <= hold_a_d;
        hold_w_q <= hold_w_d;
      end
    end
  end else begin : gen_no_iso
    assign mul_a = a_i;
    assign mul_w = w_i;
  end

  assign a_o = a_q;
  assign w_o = w_q;
  assign valid_o = valid_q;
  assign swap_o = swap_q;
  assign window_o = window_q;
  assign res_o = shift_bank_i ? res1_q : res0_q;
  assign acc_o = acc_q;
  assign gated_o = gated_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      a_q <= '0;
      w_q <= '0;
      valid_q <= 1'b0;
      swap_q <= 1'b0;
      window_q <= 1'b0;
      acc_q <= '0;
      res0_q <= '0;
      res1_q <= '0;
      bank_q <= 1'b0;
      gated_q <= 1'b0;
    end else begin
      a_q <= a_d;
      w_q <= w_d;
      valid_q <= valid_d;
      swap_q <= swap_d;
      window_q <= window_d;
      acc_q <= acc_d;
      res0_q <= res0_d;
      res1_q <= res1_d;
      bank_q <= bank_d;
      gated_q <= gated_d;
    end
  end

`ifndef SYNTHESIS
  localparam int unsigned ArithInt8 = 1;
  initial begin
    if (!(Cfg.arith <= 2)) $fatal(1, "pe: Cfg.arith must be 0 (fp16), 1 (int8) or 2 (int16)");
    if (!(ElemBits == ((Cfg.arith == ArithInt8) ? 8 : 16)))
      $fatal(1, "pe: Cfg.elem_bits must be 16 for fp16 and int16, 8 for int8");
    if (!(AccBits == ((Cfg.arith == ArithFp16) ? 16 : 32)))
      $fatal(1, "pe: Cfg.acc_bits must be 16 for fp16, 32 for the integers");
    if (!(Cfg.operand_isolation <= 1)) $fatal(1, "pe: Cfg.operand_isolation must be 0 or 1");
  end
  // Sensitive to the reset edge like the registers, so that lint sees rst_ni used one way only.
`endif

  // ---- Assertions (hw/common/flycol_assert.svh) ----
  // The row's control never shifts the bank a swap uses in the same cycle (section 9.5).
  `FLYCOL_ASSERT_NEVER(NoSwapShift_A, swap_i && shift_i && shift_bank_i == bank_q, clk_i, rst_ni)
  // Without a MAC step or a swap the accumulator holds; without a swap or a shift, both banks;
  // without a window flag, the bank pointer.
  `FLYCOL_ASSERT(AccHold_A, (!valid_i && !swap_i) |=> $stable(acc_o), clk_i, rst_ni)
  `FLYCOL_ASSERT(ResHold_A, (!swap_i && !shift_i) |=> $stable({res0_q, res1_q}), clk_i, rst_ni)
  `FLYCOL_ASSERT(BankHold_A, !window_i |=> $stable(bank_q), clk_i, rst_ni)
  // A gated pulse follows a MAC step, and only with zero gating on.
  `FLYCOL_ASSERT(GatedAfterStep_A, gated_o |-> $past(valid_i) && Cfg.zero_gating != 0, clk_i, rst_ni)
  // Operand isolation: on a step that computes nothing the multiplier's operands do not change
  // (from the last cycle out of reset); on a step that computes they are this step's operands.
  `FLYCOL_ASSERT(IsoHold_A, (Cfg.operand_isolation != 0 && !compute && $past(rst_ni)) |-> $stable({mul_a, mul_w}),
                 clk_i, rst_ni)
  `FLYCOL_ASSERT(MulOperands_A, (compute || Cfg.operand_isolation == 0) |-> (mul_a == a_i && mul_w == w_i), clk_i,
                 rst_ni)
  `FLYCOL_ASSERT_KNOWN(CtrlKnown_A, {valid_o, swap_o, window_o, gated_o}, clk_i, rst_ni)
  `FLYCOL_COVER(Swap_C, swap_i, clk_i, rst_ni)
  `FLYCOL_COVER(Shift_C, shift_i, clk_i, rst_ni)
  // Short contexts: a swap on one bank while the row shifts the other.
  `FLYCOL_COVER(SwapWhileShift_C, swap_i && shift_i, clk_i, rst_ni)
  `FLYCOL_COVER(Gated_C, gated_o, clk_i, rst_ni)

endmodule
