// Sequencer, the EX engine's issue stage (docs/microarchitecture.md, sections 9.4 and 10): the
// token of each cycle (FILL twice, SWAP0, MAC steps, last step of a context), the window rules and the
// cycle class. A pooling RUN (section 16, "The pooling RUN") sends no token: from its first cycle
// it pops the feed lanes into the pooling unit whenever they all have an element and the unit is
// ready. The RTL twin of SequencerCore (hw/sequencer/sequencer_core.*), register for register.
`include "flycol_assert.svh"

module sequencer #(
  parameter flycol_pkg::cfg_t Cfg = flycol_cfg_pkg::Cfg,
  // Derived widths (not overridable). RUN field widths come from command_t; see controller.sv for
  // why through a constant.
  localparam flycol_pkg::command_t CmdShape = '0,
  localparam int unsigned CountBits = $bits(CmdShape.run_n_kg),
  localparam int unsigned PoolOpBits = $bits(CmdShape.run_pool_op),
  // unclaimed = preload words queued and not claimed: 0 .. PQD = 2*COLS.
  localparam int unsigned UnclaimedBits = $clog2(2 * Cfg.cols + 1)
) (
  input  logic                     clk_i,           // clock, rising edge
  input  logic                     rst_ni,          // asynchronous reset, active low
  input  logic                     start_i,         // a RUN starts this cycle (controller start_o[EX]); only while idle
  input  logic                     run_preload_i,   // RUN field, read with start_i
  input  logic [CountBits-1:0]     run_n_kg_i,      // RUN field, read with start_i
  input  logic [CountBits-1:0]     run_n_cy_i,      // RUN field, read with start_i
  input  logic [CountBits-1:0]     run_n_cx_i,      // RUN field, read with start_i
  input  logic [CountBits-1:0]     run_n_c_i,       // RUN field, read with start_i
  input  logic [CountBits-1:0]     run_n_ky_i,      // RUN field, read with start_i
  input  logic [CountBits-1:0]     run_n_kx_i,      // RUN field, read with start_i
  input  logic [PoolOpBits-1:0]    run_pool_op_i,   // RUN field, read with start_i: 0 convolution, else pooling
  input  logic                     lanes_ready_i,   // every feed lane has an element
  input  logic                     weight_ready_i,  // the weight FIFO is not empty
  input  logic [UnclaimedBits-1:0] unclaimed_i,     // preload words not yet claimed (psum manager, Moore)
  input  logic                     finish_i,        // the RUN's last result word is written this cycle
  input  logic                     pool_ready_i,    // the pooling unit takes the next elements (Moore; pooling RUN)
  output logic                     token_valid_o,   // token of this cycle: a MAC step (Mealy)
  output logic                     token_swap_o,    // token of this cycle: swap (Mealy)
  output logic                     token_window_o,  // token of this cycle: opens a window (Mealy)
  output logic                     pop_o,           // pop one element per feed lane: a MAC step or a pool step (Mealy)
  output logic                     weight_pop_o,    // pop one weight word: a MAC step (= token_valid_o; Mealy)
  output logic                     claim_o,         // this window token claims COLS preload words
  output logic                     busy_o,          // a RUN is active (Moore): the EX engine's busy
  output logic [2:0]               cycle_kind_o     // class of this cycle, SequencerCore::CycleKind numbering
);

  localparam int unsigned Cols = Cfg.cols;
  // The core's RUN counters are uint32 (steps and contexts are products of three count fields,
  // wrapping like C++ unsigned arithmetic).
  localparam int unsigned CtrBits = 32;
  // gap_q counts 1 .. COLS and saturates (window tokens COLS apart; the two reserve banks).
  localparam int unsigned GapBits = $clog2(Cols + 1);
  localparam logic [GapBits-1:0] GapFull = GapBits'(Cols);

  typedef enum logic [2:0] {
    PhIdle  = 3'd0,
    PhFill  = 3'd1,
    PhSwap0 = 3'd2,
    PhSteps = 3'd3,
    PhDrain = 3'd4
  } phase_e;

  // Same numbering as SequencerCore::CycleKind (the statistics and the testbench rely on it).
  typedef enum logic [2:0] {
    KindNone         = 3'd0,
    KindMac          = 3'd1,
    KindFeederStall  = 3'd2,
    KindWeightStall  = 3'd3,
    KindContextStall = 3'd4,
    KindPipeline     = 3'd5,
    KindPool         = 3'd6
  } cycle_kind_e;

  phase_e phase_q, phase_d;
  phase_e phase_run;  // next phase from this cycle's token, before finish_i and start_i
  logic [CtrBits-1:0] step_q, step_d;    // MAC step within the context
  logic [CtrBits-1:0] ctx_q, ctx_d;      // context of the RUN
  logic [CtrBits-1:0] win_q, win_d;      // window tokens issued in this RUN
  logic [GapBits-1:0] gap_q, gap_d;      // cycles since the last window token, saturating at COLS
  // The RUN, loaded at start.
  logic               preload_q, preload_d;
  logic               pool_q, pool_d;    // a pooling RUN (run_pool_op != 0)
  logic [CtrBits-1:0] steps_q, steps_d;  // L = n_c*n_ky*n_kx
  logic [CtrBits-1:0] n_ctx_q, n_ctx_d;  // n_kg*n_cy*n_cx

  // Products of the start fields, modulo 2^32 like the core's uint32 arithmetic.
  logic [CtrBits-1:0] steps_start, n_ctx_start;
  logic needs_pre, window_ok, last_step, issue_window, pool_pop;
  cycle_kind_e kind;

  always_comb begin
    steps_start = CtrBits'(run_n_c_i) * CtrBits'(run_n_ky_i) * CtrBits'(run_n_kx_i);
    n_ctx_start = CtrBits'(run_n_kg_i) * CtrBits'(run_n_cy_i) * CtrBits'(run_n_cx_i);

    phase_run = phase_q;
    step_d = step_q;
    ctx_d = ctx_q;
    win_d = win_q;
    gap_d = (gap_q < GapFull) ? gap_q + 1'b1 : gap_q;
    preload_d = preload_q;
    pool_d = pool_q;
    steps_d = steps_q;
    n_ctx_d = n_ctx_q;

    token_valid_o = 1'b0;
    token_swap_o = 1'b0;
    issue_window = 1'b0;
    pool_pop = 1'b0;
    kind = KindNone;

    // Window k takes SRAM preload if the RUN preloads and k < n_ctx; it then needs COLS
    // unclaimed words in the preload queue.
    needs_pre = preload_q && (win_q < n_ctx_q);
    window_ok = (gap_q >= GapFull) && (!needs_pre || (unclaimed_i >= UnclaimedBits'(Cols)));
    last_step = (step_q + 1'b1) == steps_q;

    case (phase_q)
      PhFill: begin  // windows 0 and 1 fill reserve banks 0 and 1
        kind = KindPipeline;
        if (window_ok) begin
          issue_window = 1'b1;
          if (win_q != '0) phase_run = PhSwap0;
        end
      end
      PhSwap0: begin
        kind = KindPipeline;
        if (window_ok) begin
          issue_window = 1'b1;
          token_swap_o = 1'b1;
          phase_run = PhSteps;
        end
      end
      PhSteps: begin
        if (pool_q) begin
          // Pooling RUN (section 16): element steps for the pooling unit, no token.
          if (!lanes_ready_i) begin
            kind = KindFeederStall;
          end else if (!pool_ready_i) begin
            kind = KindContextStall;
          end else begin
            kind = KindPool;
            pool_pop = 1'b1;
            if ((step_q + 1'b1) < steps_q) begin
              step_d = step_q + 1'b1;
            end else begin
              step_d = '0;
              ctx_d = ctx_q + 1'b1;
              if ((ctx_q + 1'b1) == n_ctx_q) phase_run = PhDrain;
            end
          end
        end else if (!lanes_ready_i) begin
          kind = KindFeederStall;
        end else if (!weight_ready_i) begin
          kind = KindWeightStall;
        end else if (last_step && !window_ok) begin
          kind = KindContextStall;
        end else begin
          kind = KindMac;
          token_valid_o = 1'b1;
          if (!last_step) begin
            step_d = step_q + 1'b1;
          end else begin
            // The last step of a context swaps and opens the window of the context's results.
            token_swap_o = 1'b1;
            issue_window = 1'b1;
            step_d = '0;
            ctx_d = ctx_q + 1'b1;
            if ((ctx_q + 1'b1) == n_ctx_q) phase_run = PhDrain;
          end
        end
      end
      PhDrain: kind = KindPipeline;
      default: ;  // PhIdle
    endcase

    token_window_o = issue_window;
    claim_o = issue_window && needs_pre;
    if (issue_window) begin
      win_d = win_q + 1'b1;
      gap_d = GapBits'(1);
    end
    pop_o = token_valid_o || pool_pop;
    weight_pop_o = token_valid_o;
    cycle_kind_o = kind;

    // Edge inputs, in the core's tick() order: the finish pulse ends the RUN, then a start loads the
    // next one (a start is only legal while idle, so it never overrides a live RUN).
    phase_d = phase_run;
    if (finish_i) phase_d = PhIdle;
    if (start_i) begin
      preload_d = run_preload_i;
      pool_d = run_pool_op_i != '0;
      steps_d = steps_start;
      n_ctx_d = n_ctx_start;
      // A pooling RUN has no FILL, FILL, SWAP0: it starts in the step phase.
      phase_d = (run_pool_op_i != '0) ? PhSteps : PhFill;
      step_d = '0;
      ctx_d = '0;
      win_d = '0;
      gap_d = GapFull;
    end
  end

  assign busy_o = phase_q != PhIdle;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      phase_q <= PhIdle;
      step_q <= '0;
      ctx_q <= '0;
      win_q <= '0;
      gap_q <= GapFull;  // saturated: the first window never waits for one before reset
      preload_q <= 1'b0;
      pool_q <= 1'b0;
      steps_q <= CtrBits'(1);
      n_ctx_q <= CtrBits'(1);
    end else begin
      phase_q <= phase_d;
      step_q <= step_d;
      ctx_q <= ctx_d;
      win_q <= win_d;
      gap_q <= gap_d;
      preload_q <= preload_d;
      pool_q <= pool_d;
      steps_q <= steps_d;
      n_ctx_q <= n_ctx_d;
    end
  end

`ifndef SYNTHESIS
  initial begin
    if (!(Cfg.cols >= 1)) $fatal(1, "sequencer: Cfg.cols must be at least 1");
  end
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (rst_ni && start_i && phase_q != PhIdle) $error("sequencer: RUN started while a RUN is active");
    if (rst_ni && start_i && (steps_start == '0 || n_ctx_start == '0))
      $error("sequencer: RUN with no steps or no contexts");
    if (rst_ni && start_i && run_pool_op_i != '0 && (run_preload_i || run_n_kg_i != CountBits'(1)))
      $error("sequencer: pooling RUN with preload or more than one output-channel group");
    // Checked on this cycle's next phase: finishing in the cycle of the last step is legal.
    if (rst_ni && finish_i && phase_run != PhDrain)
      $error("sequencer: results finished before the last step was issued");
  end
`endif

  // ---- Assertions (hw/common/flycol_assert.svh) ----
  // Legal phase (enum value in range) and the token rules of section 4.
  `FLYCOL_ASSERT(PhaseLegal_A, phase_q inside {PhIdle, PhFill, PhSwap0, PhSteps, PhDrain}, clk_i, rst_ni)
  `FLYCOL_ASSERT(KindLegal_A, cycle_kind_o <= 3'(KindPool), clk_i, rst_ni)
  `FLYCOL_ASSERT_NEVER(NoStartActive_A, start_i && busy_o, clk_i, rst_ni)
  // The feed lanes pop with every MAC step and every pool step; the weight FIFO only with a MAC step.
  `FLYCOL_ASSERT(PopIsStep_A, pop_o == (token_valid_o || cycle_kind_o == 3'(KindPool)), clk_i, rst_ni)
  `FLYCOL_ASSERT(WeightPopIsMac_A, weight_pop_o == token_valid_o, clk_i, rst_ni)
  `FLYCOL_ASSERT(StepHasData_A, token_valid_o |-> lanes_ready_i && weight_ready_i, clk_i, rst_ni)
  // A pooling RUN sends the array nothing and pops only what the pooling unit takes.
  `FLYCOL_ASSERT(PoolNoToken_A, pool_q |-> !token_valid_o && !token_swap_o && !token_window_o && !claim_o,
                 clk_i, rst_ni)
  `FLYCOL_ASSERT(PoolStepHasData_A, cycle_kind_o == 3'(KindPool) |-> pool_q && lanes_ready_i && pool_ready_i,
                 clk_i, rst_ni)
  `FLYCOL_ASSERT(ClaimOnWindow_A, claim_o |-> token_window_o, clk_i, rst_ni)
  `FLYCOL_ASSERT(IdleQuiet_A, !busy_o |-> !token_valid_o && !token_swap_o && !token_window_o, clk_i, rst_ni)
  `FLYCOL_ASSERT_KNOWN(CtrlKnown_A, {token_valid_o, token_swap_o, token_window_o, pop_o, weight_pop_o, busy_o,
                                     cycle_kind_o}, clk_i, rst_ni)
  `FLYCOL_COVER(PhFill_C, phase_q == PhFill, clk_i, rst_ni)
  `FLYCOL_COVER(PhSwap0_C, phase_q == PhSwap0, clk_i, rst_ni)
  `FLYCOL_COVER(PhSteps_C, phase_q == PhSteps, clk_i, rst_ni)
  `FLYCOL_COVER(PhDrain_C, phase_q == PhDrain, clk_i, rst_ni)
  `FLYCOL_COVER(FeederStall_C, cycle_kind_o == 3'(KindFeederStall), clk_i, rst_ni)
  `FLYCOL_COVER(WeightStall_C, cycle_kind_o == 3'(KindWeightStall), clk_i, rst_ni)
  `FLYCOL_COVER(ContextStall_C, cycle_kind_o == 3'(KindContextStall), clk_i, rst_ni)
  `FLYCOL_COVER(Swap_C, token_swap_o, clk_i, rst_ni)
  `FLYCOL_COVER(PoolStep_C, cycle_kind_o == 3'(KindPool), clk_i, rst_ni)
  `FLYCOL_COVER(PoolWait_C, pool_q && phase_q == PhSteps && lanes_ready_i && !pool_ready_i, clk_i, rst_ni)

endmodule
