// Pool lane (docs/microarchitecture.md, sections 15 and 16, "Pool lane datapath" and "Pool lane
// interface"): the RTL twin of hw::PoolLaneCore. One lane reduces the windows the issue stage
// hands it, one element per cycle:
//   * max: a running maximum register (binary16 order with -0 = +0, or signed integers) and a
//     sticky NaN flag; the result is written at the edge that takes the window's last element.
//   * average: the exact sum of the window (binary16: a signed fixed-point sum in units of 2^-24
//     with NaN / +Inf / -Inf flags; int8 / int16: a 40-bit integer sum), handed at the edge that
//     takes the last element to an iterative restoring divider of D = 21 (binary16) or 16 (int)
//     steps, radix 4 (two quotient bits per cycle) whatever the values; with pow2_i (the divisor
//     is 0 or a power of two) the quotient and remainder are loaded shifted and masked instead,
//     and D = 1. The divider holds one window while the accumulator takes the next; only the last
//     element of a window through the divider (average, masked sum) can wait for it.
//   * argmax (section 16, "Backward of max pooling"): the max register, its NaN flag, a valid-seen
//     flag and the best element's position; elements marked pad_i are skipped, the first valid NaN
//     ends the search, else the first valid element strictly greater than the best becomes it. The
//     result, pos - best position (counted from the window's end; 0xFFFF without a valid element,
//     zero-extended), is written like a max result.
//   * masked sum: an average whose elements come in (index, value) pairs: an element at an even
//     window position sets the hit flag when its bits, unsigned, equal pos / 2; one at an odd
//     position joins the sum and flags only after a hit. Divisor, divider and timing: the average's.
// The window position pos_q counts the elements of every window (0 at a first element).
// The divider is a remainder register and one shift register that holds the dividend bits still to
// come at its top and the quotient bits found so far at its bottom. Its last step cycle also
// rounds (binary16: once, to nearest even) and applies the specials, and the result register
// takes the value at the end of it.
`include "flycol_assert.svh"

module pool_lane #(
  parameter flycol_pkg::cfg_t Cfg = flycol_cfg_pkg::Cfg,
  localparam int unsigned ElemBits = Cfg.elem_bits,  // EW: 16 (fp16, int16) or 8 (int8)
  localparam int unsigned AccBits = Cfg.acc_bits     // AW: 16 (fp16) or 32 (int)
) (
  input  logic                clk_i,        // clock, rising edge
  input  logic                rst_ni,       // asynchronous reset, active low: every register 0
  input  logic                in_valid_i,   // an element is offered
  output logic                in_ready_o,   // the element is taken this cycle if in_valid_i; low only for
                                            // the last element of a window through the divider (op_i
                                            // bit 0) while the divider is busy and not in its last step
  input  logic                in_first_i,   // the element is its window's first (only with in_valid_i)
  input  logic                in_last_i,    // the element is its window's last (both for a window of one)
  input  logic [ElemBits-1:0] in_elem_i,    // the element's bits (padding: the LOAD's pad_value)
  input  logic [1:0]          op_i,         // 0 max, 1 average, 2 argmax, 3 masked sum (bit 0: through the
                                            // divider); sampled with every element, constant within a window
  input  logic                pad_i,        // the element is padding: an argmax window ignores it (the
                                            // other ops do not read it)
  input  logic [16:0]         count_i,      // with the last element of an average or masked-sum window:
                                            // its divisor, 0..65536
  input  logic                pow2_i,       // with the last element of an average or masked-sum window:
                                            // count_i is 0 or a power of two; the divider shifts, in one step
  output logic                out_valid_o,  // a window's result, for one cycle
  output logic [AccBits-1:0]  out_value_o   // the result: binary16, or int32 (int8 / int16 sign-extended);
                                            // holds the last result while out_valid_o is low
);

  localparam int unsigned ArithFp16 = 0;  // Cfg.arith: 0 fp16, 1 int8, 2 int16
  localparam bit IsFp16 = Cfg.arith == ArithFp16;
  // The average's sum: binary16 elements are below 2^40 units of 2^-24, so 2^16 of them fit in 57
  // signed bits (one spare); int16 elements: 2^16 of them in 32 bits, int8 in 24 (40 as the spec).
  localparam int unsigned SumBits = IsFp16 ? 58 : 40;
  // The quotient the divider forms (binary16: Q = floor(2|S| / n) < 2^41, formed in 42 bits whose
  // top one flags an overflow; int: q = floor((2|s| + n) / (2n)) <= 2^31, 32 bits) and D, its
  // steps of two bits each (radix 4).
  localparam int unsigned FpQBits = 41;  // the binary16 quotient the rounding reads
  localparam int unsigned QBits = IsFp16 ? FpQBits + 1 : 32;
  localparam int unsigned Steps = QBits / 2;
  // The dividend: binary16 2|S| (SumBits + 1 bits); int 2|s| + n (SumBits + 2 bits).
  localparam int unsigned XBits = IsFp16 ? SumBits + 1 : SumBits + 2;
  localparam int unsigned TopBits = XBits - QBits;  // dividend bits above the quotient's: 17 / 10
  // Remainder and divisor: n <= 65536 (binary16) or 2n <= 131072 (int) fit in 18 bits, and so
  // does the dividend's top part (the initial remainder).
  localparam int unsigned RemBits = 18;
  localparam int unsigned StepCntBits = 6;
  localparam logic [StepCntBits-1:0] StepsInit = StepCntBits'(Steps);
  localparam logic [1:0] OpMax = 2'd0;        // op_i: 0 max, 1 average, 2 argmax, 3 masked sum
  localparam logic [1:0] OpArgmax = 2'd2;
  localparam logic [1:0] OpMaskedSum = 2'd3;
  // Window positions: an argmax or masked-sum element's is below 65536 (PositionRange_A), so 17 bits
  // hold the next one; the best position of an argmax window and its result take 16.
  localparam int unsigned PosBits = 17;
  localparam logic [PosBits-1:0] PosLimit = PosBits'(65536);
  localparam int unsigned BestBits = 16;
  localparam logic [BestBits-1:0] NoArgmax = 16'hFFFF;  // an argmax window without a valid element

  // ---- Registers ----
  logic [1:0]             op_q, op_d;        // op of the open window (taken from its first element)
  logic                   win_q, win_d;      // a window is open: its first element taken, its last not yet
  logic [PosBits-1:0]     pos_q, pos_d;      // window position of the next element; 0 between windows
  logic [ElemBits-1:0]    max_q, max_d;      // running maximum (max windows), best valid element (argmax)
  logic [SumBits-1:0]     sum_q, sum_d;      // running sum, signed (average, masked sum); 0 between windows
  logic                   nan_q, nan_d;      // the window has had a NaN (binary16; max, average, masked sum
                                             // values that joined) / its best is a NaN (argmax)
  logic                   pinf_q, pinf_d;    // ... a +Inf (binary16 average)
  logic                   ninf_q, ninf_d;    // ... a -Inf (binary16 average)
  logic                   any_q, any_d;      // argmax: the window has had a valid (non-padding) element
  logic [BestBits-1:0]    best_q, best_d;    // argmax: the best element's window position
  logic                   hit_q, hit_d;      // masked sum: the last index element equalled its pair's number
  logic [StepCntBits-1:0] steps_q, steps_d;  // divider steps still to do; busy while nonzero
  logic [RemBits-1:0]     rem_q, rem_d;      // divider: partial remainder
  logic [QBits-1:0]       quo_q, quo_d;      // divider: dividend bits to come (top), quotient bits (bottom)
  logic [RemBits-1:0]     dvs_q, dvs_d;      // divider: divisor, n (binary16) or 2n (int)
  logic                   dneg_q, dneg_d;    // divider's window: its sum is negative
  logic                   dnan_q, dnan_d;    // ... its NaN flag
  logic                   dpinf_q, dpinf_d;  // ... its +Inf flag
  logic                   dninf_q, dninf_d;  // ... its -Inf flag
  logic                   dcnt0_q, dcnt0_d;  // ... its count is 0
  logic                   dovf_q, dovf_d;    // ... its quotient does not fit in QBits bits
  logic                   dpow2_q, dpow2_d;  // ... was loaded shifted (pow2_i): quo_q, rem_q are final
  logic                   out_valid_q, out_valid_d;
  logic [AccBits-1:0]     out_value_q, out_value_d;

  // ---- Handshake ----
  logic busy;       // the divider holds a window (steps it in this cycle)
  logic last_step;  // this cycle is the divider's last step: its result is written at the edge
  logic take;       // an element is taken this cycle
  logic divides;    // op_i goes through the divider: average or masked sum
  logic argmax;     // op_i is argmax
  logic masked;     // op_i is masked sum
  logic load;       // the last element of a window through the divider is taken: it loads at the edge
  logic max_done;   // the last element of a max or argmax window is taken: the result is written at the edge

  assign divides = op_i[0];
  assign argmax = op_i == OpArgmax;
  assign masked = op_i == OpMaskedSum;
  assign busy = steps_q != '0;
  assign last_step = steps_q == StepCntBits'(1);
  assign in_ready_o = !(in_valid_i && in_last_i && divides && busy && !last_step);
  assign take = in_valid_i && in_ready_o;
  assign load = take && in_last_i && divides;
  assign max_done = take && in_last_i && !divides;

  // ---- Element decode and the arithmetic-dependent parts ----
  logic [SumBits-1:0] elem_fix;   // sum_elem on the sum's grid, signed (0 for NaN and infinities)
  logic               elem_nan;   // the element is a NaN (binary16)
  logic               elem_pinf;  // ... +Inf
  logic               elem_ninf;  // ... -Inf
  logic               elem_gt;    // the element is strictly greater than max_q
  logic [PosBits-1:0] pos;        // the element's window position (0 for a first element)
  logic               joins;      // the element joins the sum and flags: always but in a masked sum,
                                  // where only a value (odd position) after a hit does
  logic [ElemBits-1:0] sum_elem;  // the element if it joins, else 0 (gated before the decode: 16 bits,
                                  // not the sum's 58)
  logic               idx_hit;    // masked sum: the element's bits, unsigned, equal its pair's number
  logic               arg_any;    // argmax: the window's valid-seen flag before this element
  logic               arg_nan;    // ... its NaN flag before this element
  logic               arg_upd;    // argmax: the element becomes the window's best
  logic               any_next;   // argmax: the flags including this element
  logic               arg_nan_next;
  logic [BestBits-1:0] best_next; // argmax: the best position including this element
  logic [BestBits-1:0] arg_dist; // argmax: pos - best_next (the best counted from the end), or 0xFFFF
  logic [AccBits-1:0] arg_res;    // an argmax window's result: arg_dist zero-extended
  logic               nan_next;   // the window's flags including this element
  logic               pinf_next, ninf_next;
  logic [ElemBits-1:0] max_next;  // the running maximum including this element
  logic [AccBits-1:0] max_res;    // a max window's result from max_next and nan_next
  logic [SumBits-1:0] sum_next;   // the running sum including this element
  logic [SumBits-1:0] sum_abs;    // |sum_next|
  logic [XBits-1:0]   dividend;   // 2|S| (binary16) or 2|s| + n (int)
  logic [RemBits-1:0] divisor;    // n (binary16) or 2n (int)
  logic [RemBits-1:0] rem_init;   // the dividend's top part: the remainder before the first step
  logic               ovf_init;   // rem_init >= divisor: the quotient needs more than QBits bits
  logic [RemBits+1:0] trial;      // one step: the remainder with the next two dividend bits shifted in
  logic [RemBits+1:0] dvs1, dvs2, dvs3;  // the divisor times 1, 2, 3
  logic [1:0]         digit;      // this step's two quotient bits: the largest k with trial >= k * divisor
  logic [RemBits-1:0] trial_diff; // trial - digit * divisor (below the divisor, so RemBits wide)
  logic [RemBits-1:0] rem_step;   // the remainder after this cycle's step
  logic [QBits-1:0]   quo_step;   // the shift register after this cycle's step
  logic [AccBits-1:0] div_res;    // the average from quo_fin / rem_fin (used in the last step)
  logic [4:0]         shift;      // pow2_i: log2 of the divisor (0 for a divisor of 0)
  logic [QBits-1:0]   quo_pow2;   // pow2_i: the quotient, dividend >> shift
  logic [RemBits-1:0] rem_pow2;   // pow2_i: the remainder, the dividend's bits below the shift
  logic [QBits-1:0]   quo_fin;    // the quotient in the last step: quo_q when loaded shifted, else quo_step
  logic [RemBits-1:0] rem_fin;    // the remainder, likewise

  // ---- Window position; the masked sum's pairs ----
  // pos_q is 0 whenever no window is open (PositionIdle_A), and a first element is only legal then
  // (FirstOutsideWindow_A), so pos_q is the element's position for a first element too: in_first_i
  // stays off the masked sum's gate below, and so off the divider's load path. An even position
  // holds an index, the odd one after it the value it selects.
  assign pos = pos_q;
  assign idx_hit = PosBits'(in_elem_i) == {1'b0, pos[PosBits-1:1]};
  assign joins = !masked || (pos[0] && hit_q);
  assign sum_elem = joins ? in_elem_i : '0;

  if (IsFp16) begin : gen_fp16
    logic        sgn;
    logic [4:0]  field;
    logic [9:0]  frac;
    logic [39:0] mag;   // |sum_elem| in units of 2^-24: at most 2047 << 29 < 2^40
    logic [15:0] key_elem, key_max;  // signed keys of binary16 order: -x for a negative x, -0 = +0

    always_comb begin
      sgn = in_elem_i[15];
      field = in_elem_i[14:10];
      frac = in_elem_i[9:0];
      elem_nan = (field == 5'h1F) && (frac != 10'd0);
      elem_pinf = (field == 5'h1F) && (frac == 10'd0) && !sgn;
      elem_ninf = (field == 5'h1F) && (frac == 10'd0) && sgn;
      // The addend, from sum_elem: normal: significand with the hidden one shifted left by
      // field - 1; subnormal: the fraction; 0 for NaN and infinities (their flags instead).
      mag = '0;
      if (sum_elem[14:10] == 5'd0) mag = {30'd0, sum_elem[9:0]};
      else if (sum_elem[14:10] != 5'h1F) mag = {29'd0, 1'b1, sum_elem[9:0]} << (sum_elem[14:10] - 5'd1);
      elem_fix = sum_elem[15] ? (SumBits'(0) - {18'd0, mag}) : {18'd0, mag};

      key_elem = sgn ? (16'd0 - {1'b0, in_elem_i[14:0]}) : {1'b0, in_elem_i[14:0]};
      key_max = max_q[15] ? (16'd0 - {1'b0, max_q[14:0]}) : {1'b0, max_q[14:0]};
      elem_gt = $signed(key_elem) > $signed(key_max);
      max_res = nan_next ? 16'h7E00 : max_next;
    end

    // Dividend 2|S| < 2^59, divisor n; the quotient fits in 42 bits iff 2|S| >> 42 < n (and in
    // the 41 the rounding reads iff its bit 41 is 0 too).
    always_comb begin
      dividend = {sum_abs, 1'b0};
      divisor = {1'b0, count_i};
      rem_init = RemBits'(dividend[XBits-1:QBits]);
    end

    // Rounding of Q = floor(2|S| / n) (units of 2^-25) with sticky_r = (remainder != 0).
    logic [FpQBits-1:0] q;
    logic             qovf;    // the quotient does not fit FpQBits: beyond binary16 either way
    logic             sticky_r;
    logic [5:0]       lz;      // leading zeros of q (used when q >= 2^12: 0..28)
    logic [FpQBits-1:0] qn;    // q << lz: its leading one at the top
    logic [10:0]      sig;     // the 11 kept bits
    logic             rnd;     // round bit
    logic             sticky;  // any bit below the round bit, or a nonzero remainder
    logic [4:0]       e;       // biased exponent before rounding (0 or 1 for m <= 11, else m - 10)
    logic [11:0]      sig_r;   // sig rounded to nearest even (may carry to 2^11)
    logic [16:0]      bits;    // (e << 10) + sig_r - (e > 0 ? 1024 : 0)
    logic [14:0]      res_mag;

    always_comb begin
      q = quo_fin[FpQBits-1:0];
      qovf = dovf_q || quo_fin[QBits-1];
      sticky_r = rem_fin != '0;
      lz = 6'd0;
      for (int i = 0; i < FpQBits; i++) begin
        if (q[i]) lz = 6'(FpQBits - 1 - i);  // the highest one is the last to assign
      end
      qn = q << lz;
      if (q[FpQBits-1:12] == '0) begin
        // m <= 11 (or Q = 0): the result is on the finest grid, 2^-24.
        sig = q[11:1];
        rnd = q[0];
        sticky = sticky_r;
        e = {4'd0, q[11]};
      end else begin
        // m >= 12: sig = Q >> (m - 10), round bit Q[m - 11], e = m - 10 = 30 - lz.
        sig = qn[FpQBits-1 -: 11];
        rnd = qn[FpQBits-12];
        sticky = sticky_r || (qn[FpQBits-13:0] != '0);
        e = 5'(6'd30 - lz);
      end
      sig_r = {1'b0, sig} + {11'd0, rnd && (sticky || sig[0])};
      bits = {2'd0, e, 10'd0} + {5'd0, sig_r} - ((e != 5'd0) ? 17'd1024 : 17'd0);
      res_mag = (qovf || bits >= 17'h7C00) ? 15'h7C00 : bits[14:0];
      // Specials override: NaN, +Inf with -Inf, or a count of 0; then an infinity; a zero sum
      // needs no case of its own (Q = 0 and a positive sign give 0x0000).
      if (dnan_q || (dpinf_q && dninf_q) || dcnt0_q) div_res = 16'h7E00;
      else if (dpinf_q) div_res = 16'h7C00;
      else if (dninf_q) div_res = 16'hFC00;
      else div_res = {dneg_q, res_mag};
    end
  end else begin : gen_int
    always_comb begin
      elem_nan = 1'b0;
      elem_pinf = 1'b0;
      elem_ninf = 1'b0;
      elem_fix = SumBits'($signed(sum_elem));
      elem_gt = $signed(in_elem_i) > $signed(max_q);
      max_res = AccBits'($signed(max_next));
    end

    // Dividend 2|s| + n < 2^42, divisor 2n; within the contract (at most 2^16 elements) the
    // quotient fits in 32 bits (IntQuotientFits_A).
    always_comb begin
      dividend = {1'b0, sum_abs, 1'b0} + {{(XBits - 17) {1'b0}}, count_i};
      divisor = {count_i, 1'b0};
      rem_init = {{(RemBits - TopBits) {1'b0}}, dividend[XBits-1:QBits]};
    end

    // q = floor((2|s| + n) / (2n)); the sign of s after; a count of 0 gives 0.
    always_comb begin
      if (dcnt0_q) div_res = '0;
      else if (dneg_q) div_res = AccBits'(0) - quo_fin;
      else div_res = quo_fin;
    end

    // The remainder and the flags of the binary16 average are not needed here.
    logic unused_int;
    assign unused_int = ^{rem_fin, dpinf_q, dninf_q, dnan_q, dovf_q, pinf_q, ninf_q};
  end

  // ---- Datapath and next state ----
  // Three blocks in the order the values flow (the arithmetic-dependent parts above sit between
  // them): the window's values including this element, the divider's step, the next state.
  always_comb begin
    // The window's flags and running values including this element (a first element starts them).
    nan_next = (!in_first_i && nan_q) || (joins && elem_nan);
    pinf_next = (!in_first_i && pinf_q) || (joins && elem_pinf);
    ninf_next = (!in_first_i && ninf_q) || (joins && elem_ninf);
    max_next = (in_first_i || elem_gt) ? in_elem_i : max_q;
    sum_next = (in_first_i ? '0 : sum_q) + elem_fix;
    sum_abs = sum_next[SumBits-1] ? ('0 - sum_next) : sum_next;

    // Argmax: a valid element becomes the best if none was valid yet, or (no NaN best yet) if it is
    // a NaN or strictly greater than the best (the max path's comparison).
    arg_any = !in_first_i && any_q;
    arg_nan = !in_first_i && nan_q;
    arg_upd = !pad_i && !arg_nan && (elem_nan || !arg_any || elem_gt);
    any_next = arg_any || arg_upd;
    arg_nan_next = arg_upd ? elem_nan : arg_nan;
    best_next = arg_upd ? pos[BestBits-1:0] : best_q;
    arg_dist = any_next ? pos[BestBits-1:0] - best_next : NoArgmax;
    arg_res = AccBits'(arg_dist);
  end

  always_comb begin
    ovf_init = rem_init >= divisor;

    // One radix-4 restoring division step on the registers: the remainder (below the divisor)
    // with the next two dividend bits, less the largest of 0, 1, 2 or 3 times the divisor it holds.
    trial = {rem_q, quo_q[QBits-1 -: 2]};
    dvs1 = {2'b00, dvs_q};
    dvs2 = {1'b0, dvs_q, 1'b0};
    dvs3 = dvs1 + dvs2;
    if (trial >= dvs3) begin
      digit = 2'd3;
      trial_diff = RemBits'(trial - dvs3);
    end else if (trial >= dvs2) begin
      digit = 2'd2;
      trial_diff = RemBits'(trial - dvs2);
    end else if (trial >= dvs1) begin
      digit = 2'd1;
      trial_diff = RemBits'(trial - dvs1);
    end else begin
      digit = 2'd0;
      trial_diff = RemBits'(trial);
    end
    rem_step = trial_diff;
    quo_step = {quo_q[QBits-3:0], digit};
    quo_fin = dpow2_q ? quo_q : quo_step;
    rem_fin = dpow2_q ? rem_q : rem_step;

    // A divisor of 2^shift (n binary16, 2n int): the quotient is the dividend shifted right, the
    // remainder its bits below (the divisor minus one masks them).
    shift = '0;
    for (int i = 0; i < RemBits; i++) begin
      if (divisor[i]) shift = 5'(i);
    end
    quo_pow2 = QBits'(dividend >> shift);
    rem_pow2 = dividend[RemBits-1:0] & (divisor - RemBits'(1));
  end

  always_comb begin
    op_d = op_q;
    win_d = win_q;
    pos_d = pos_q;
    max_d = max_q;
    sum_d = sum_q;
    nan_d = nan_q;
    pinf_d = pinf_q;
    ninf_d = ninf_q;
    any_d = any_q;
    best_d = best_q;
    hit_d = hit_q;
    if (take) begin
      if (in_first_i) op_d = op_i;
      win_d = !in_last_i;
      pos_d = in_last_i ? '0 : pos + PosBits'(1);
      if (argmax) begin
        // The sum and the infinity flags are not the argmax's; its flags outlive the window (a
        // first element restarts them).
        if (arg_upd) max_d = in_elem_i;
        nan_d = arg_nan_next;
        any_d = any_next;
        best_d = best_next;
      end else begin
        if (divides) sum_d = in_last_i ? '0 : sum_next;
        else max_d = max_next;
        nan_d = !in_last_i && nan_next;
        pinf_d = !in_last_i && pinf_next;
        ninf_d = !in_last_i && ninf_next;
        if (masked && !pos[0]) hit_d = idx_hit;
      end
    end

    steps_d = steps_q;
    rem_d = rem_q;
    quo_d = quo_q;
    dvs_d = dvs_q;
    dneg_d = dneg_q;
    dnan_d = dnan_q;
    dpinf_d = dpinf_q;
    dninf_d = dninf_q;
    dcnt0_d = dcnt0_q;
    dovf_d = dovf_q;
    dpow2_d = dpow2_q;
    if (busy) begin
      steps_d = steps_q - StepCntBits'(1);
      rem_d = rem_step;
      quo_d = quo_step;
    end
    // A load in the last step cycle starts the next window at the same edge.
    if (load) begin
      steps_d = pow2_i ? StepCntBits'(1) : StepsInit;
      rem_d = pow2_i ? rem_pow2 : rem_init;
      quo_d = pow2_i ? quo_pow2 : dividend[QBits-1:0];
      dpow2_d = pow2_i;
      dvs_d = divisor;
      dneg_d = sum_next[SumBits-1];
      dnan_d = nan_next;
      dpinf_d = pinf_next;
      dninf_d = ninf_next;
      dcnt0_d = count_i == '0;
      dovf_d = ovf_init;
    end

    out_valid_d = 1'b0;
    out_value_d = out_value_q;
    if (last_step) begin
      out_valid_d = 1'b1;
      out_value_d = div_res;
    end
    // Both in one cycle is a protocol error (ResultCollision_A); the max or argmax result would win.
    if (max_done) begin
      out_valid_d = 1'b1;
      out_value_d = argmax ? arg_res : max_res;
    end
  end

  assign out_valid_o = out_valid_q;
  assign out_value_o = out_value_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      op_q <= OpMax;
      win_q <= 1'b0;
      pos_q <= '0;
      max_q <= '0;
      sum_q <= '0;
      nan_q <= 1'b0;
      pinf_q <= 1'b0;
      ninf_q <= 1'b0;
      any_q <= 1'b0;
      best_q <= '0;
      hit_q <= 1'b0;
      steps_q <= '0;
      rem_q <= '0;
      quo_q <= '0;
      dvs_q <= '0;
      dneg_q <= 1'b0;
      dnan_q <= 1'b0;
      dpinf_q <= 1'b0;
      dninf_q <= 1'b0;
      dcnt0_q <= 1'b0;
      dovf_q <= 1'b0;
      dpow2_q <= 1'b0;
      out_valid_q <= 1'b0;
      out_value_q <= '0;
    end else begin
      op_q <= op_d;
      win_q <= win_d;
      pos_q <= pos_d;
      max_q <= max_d;
      sum_q <= sum_d;
      nan_q <= nan_d;
      pinf_q <= pinf_d;
      ninf_q <= ninf_d;
      any_q <= any_d;
      best_q <= best_d;
      hit_q <= hit_d;
      steps_q <= steps_d;
      rem_q <= rem_d;
      quo_q <= quo_d;
      dvs_q <= dvs_d;
      dneg_q <= dneg_d;
      dnan_q <= dnan_d;
      dpinf_q <= dpinf_d;
      dninf_q <= dninf_d;
      dcnt0_q <= dcnt0_d;
      dovf_q <= dovf_d;
      dpow2_q <= dpow2_d;
      out_valid_q <= out_valid_d;
      out_value_q <= out_value_d;
    end
  end

`ifndef SYNTHESIS
  localparam int unsigned ArithInt8 = 1;
  initial begin
    flycol_pkg::check_range("pool_lane", "arith", Cfg.arith, flycol_pkg::CfgArithMin, flycol_pkg::CfgArithMax);
    if (!(ElemBits == ((Cfg.arith == ArithInt8) ? 8 : 16)))
      $fatal(1, "pool_lane: Cfg.elem_bits must be 16 for fp16 and int16, 8 for int8");
    if (!(AccBits == (IsFp16 ? 16 : 32)))
      $fatal(1, "pool_lane: Cfg.acc_bits must be 16 for fp16, 32 for the integers");
  end
`endif

  // ---- Assertions (hw/common/flycol_assert.svh) ----
  // Interface rules (section 16, "Pool lane interface").
  `FLYCOL_ASSERT_NEVER(FirstValid_A, in_first_i && !in_valid_i, clk_i, rst_ni)
  `FLYCOL_ASSERT_NEVER(CountRange_A, load && count_i > 17'd65536, clk_i, rst_ni)
  // pow2_i promises a divisor the shift divides exactly: 0 or a power of two.
  `FLYCOL_ASSERT_NEVER(Pow2Count_A, load && pow2_i && (count_i & (count_i - 17'd1)) != '0, clk_i, rst_ni)
  // Windows: a first element opens one, a later element continues the open one with its op.
  `FLYCOL_ASSERT_NEVER(FirstOutsideWindow_A, take && in_first_i && win_q, clk_i, rst_ni)
  `FLYCOL_ASSERT_NEVER(LaterInsideWindow_A, take && !in_first_i && !win_q, clk_i, rst_ni)
  `FLYCOL_ASSERT_NEVER(OpConstant_A, take && !in_first_i && win_q && op_i != op_q, clk_i, rst_ni)
  // An argmax or masked-sum element's position fits the position counter (the core's protocol
  // error for a window of more than 65536 elements).
  `FLYCOL_ASSERT_NEVER(PositionRange_A, take && op_i[1] && pos >= PosLimit, clk_i, rst_ni)
  // One result port: a max or argmax window must not end in the divider's last step cycle (both
  // results would be written at the same edge; the spec gives the port no second slot).
  `FLYCOL_ASSERT_NEVER(ResultCollision_A, max_done && last_step, clk_i, rst_ni)
  // Integers: within the contract (at most 2^16 elements) the 32-bit quotient is exact.
  `FLYCOL_ASSERT_NEVER(IntQuotientFits_A, !IsFp16 && load && ovf_init && count_i != '0, clk_i, rst_ni)
  // Only the last element of an average or masked-sum window waits, and only for a busy divider.
  `FLYCOL_ASSERT(ReadyLow_A, !in_ready_o |-> in_valid_i && in_last_i && divides && steps_q > StepCntBits'(1),
                 clk_i, rst_ni)
  // The position counter restarts with every window.
  `FLYCOL_ASSERT(PositionIdle_A, !win_q |-> pos_q == '0, clk_i, rst_ni)
  // The divider runs exactly D steps after its load (one when shifted), and its result is valid
  // right after the last.
  `FLYCOL_ASSERT(StepsLoad_A, steps_q == StepsInit |-> $past(load), clk_i, rst_ni)
  `FLYCOL_ASSERT(StepsPow2_A, load && pow2_i |=> steps_q == StepCntBits'(1) && dpow2_q, clk_i, rst_ni)
  `FLYCOL_ASSERT(StepsCount_A, busy && !load |=> steps_q == $past(steps_q) - StepCntBits'(1), clk_i, rst_ni)
  `FLYCOL_ASSERT(OutValid_A, out_valid_o |-> $past(last_step) || $past(max_done), clk_i, rst_ni)
  `FLYCOL_ASSERT(OutHold_A, !out_valid_o |-> $stable(out_value_o), clk_i, rst_ni)
  `FLYCOL_ASSERT_KNOWN(CtrlKnown_A, {in_ready_o, out_valid_o}, clk_i, rst_ni)
  // The divider stalls the last element of an average window.
  `FLYCOL_COVER(DivStall_C, in_valid_i && !in_ready_o, clk_i, rst_ni)
  // Back-to-back average windows: a load in the last step cycle of the previous window.
  `FLYCOL_COVER(DivBackToBack_C, load && last_step, clk_i, rst_ni)
  // Back-to-back windows: a window's first element right after the previous window's last.
  `FLYCOL_COVER(WindowBackToBack_C, take && in_first_i && $past(take && in_last_i), clk_i, rst_ni)
  `FLYCOL_COVER(OneElementWindow_C, take && in_first_i && in_last_i, clk_i, rst_ni)
  // Shifted windows back to back: one average window of one element every cycle.
  `FLYCOL_COVER(Pow2BackToBack_C, load && pow2_i && last_step && dpow2_q, clk_i, rst_ni)
  `FLYCOL_COVER(MaxWhileDividing_C, max_done && busy, clk_i, rst_ni)
  // Argmax: a padding element, a later element that beats the best, a window without a valid
  // element (0xFFFF), a NaN best (binary16), a window that ends while the divider works.
  `FLYCOL_COVER(ArgmaxPad_C, take && argmax && pad_i, clk_i, rst_ni)
  `FLYCOL_COVER(ArgmaxLater_C, take && argmax && arg_upd && arg_any, clk_i, rst_ni)
  `FLYCOL_COVER(ArgmaxNone_C, max_done && argmax && !any_next, clk_i, rst_ni)
  `FLYCOL_COVER(ArgmaxNan_C, max_done && argmax && arg_nan_next, clk_i, rst_ni)
  `FLYCOL_COVER(ArgmaxWhileDividing_C, max_done && argmax && busy, clk_i, rst_ni)
  // Masked sum: a value that joins the sum after a hit, one that does not, a shifted window.
  `FLYCOL_COVER(MaskedHit_C, take && masked && pos[0] && hit_q, clk_i, rst_ni)
  `FLYCOL_COVER(MaskedMiss_C, take && masked && pos[0] && !hit_q, clk_i, rst_ni)
  `FLYCOL_COVER(MaskedShift_C, load && masked && pow2_i, clk_i, rst_ni)

endmodule
