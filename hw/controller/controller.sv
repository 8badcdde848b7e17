// Controller (docs/microarchitecture.md, section 5): command dispatch into the in-order queues of
// the three engines (LD, EX, PS), the start rule on the done counters, and the done counters. The
// RTL twin of ControllerCore (hw/controller/controller_core.*), register for register.
`include "flycol_assert.svh"

module controller #(
  /* verilator lint_off UNUSEDPARAM */
  // Every block takes the configuration; no field of it changes the controller (as in the core).
  parameter flycol_pkg::cfg_t Cfg = flycol_cfg_pkg::Cfg,
  /* verilator lint_on UNUSEDPARAM */
  // Widths of the command format, taken from command_t (not overridable). Yosys 0.23 gets $bits()
  // of a member of a *signal* wrong (it returns the whole struct), but not of a constant's member.
  localparam flycol_pkg::command_t CmdShape = '0,
  localparam int unsigned CmdBits = $bits(CmdShape),
  localparam int unsigned WaitBits = $bits(CmdShape.wait_ld),
  localparam int unsigned Engines = 3
) (
  input  logic                        clk_i,         // clock, rising edge
  input  logic                        rst_ni,        // asynchronous reset, active low
  input  logic                        cmd_valid_i,   // the host offers cmd_i
  input  flycol_pkg::command_t        cmd_i,         // the offered command
  output logic                        cmd_ready_o,   // cmd_i.op's queue has room (registered count; Mealy in cmd_i.op)
  input  logic [Engines-1:0]          busy_i,        // bit e: engine e runs a command (0 LD, 1 EX, 2 PS)
  input  logic [Engines-1:0]          done_i,        // bit e: engine e completes its command this cycle
  output logic [Engines-1:0]          start_o,       // bit e: engine e starts its queue head now (Mealy in busy_i)
  output logic [Engines*CmdBits-1:0]  start_cmd_o,   // slice e: head of queue e; meaningful with start_o[e]
  output logic                        idle_o,        // all queues empty and all busy_i low
  output logic [Engines*WaitBits-1:0] done_count_o   // slice e: commands completed by engine e (registered)
);

  localparam int unsigned EngLd = 0;
  localparam int unsigned EngEx = 1;
  localparam int unsigned EngPs = 2;

  // Queue signals, bit e (or slice e) per engine. Flat vectors, not [Engines-1:0][W-1:0]: Yosys 0.23
  // does not parse multi-dimensional packed arrays.
  logic [Engines-1:0] q_push, q_pop, q_full, q_empty;
  logic [Engines*CmdBits-1:0] q_head;

  // Registers besides the queues: done counters, and commands accepted per engine (the latter only
  // feed the dispatch check below, so synthesis removes them, as it would the core's).
  logic [Engines*WaitBits-1:0] done_q, done_d;
  logic [Engines*WaitBits-1:0] dispatched_q, dispatched_d;

  logic [1:0] target;  // engine named by cmd_i.op
  logic       accept;

  /* verilator lint_off UNUSEDSIGNAL */
  // Only the thresholds of a queue head are read here; the whole command leaves by start_cmd_o.
  flycol_pkg::command_t head;  // the queue head under consideration (loop temporary)
  /* verilator lint_on UNUSEDSIGNAL */

  for (genvar e = 0; e < Engines; e++) begin : gen_queue
    /* verilator lint_off PINCONNECTEMPTY */
    // The occupancy is not needed: cmd_ready uses full_o, the start rule empty_o.
    fifo #(
      .Width(CmdBits),
      .Depth(flycol_pkg::CmdQueueDepth)
    ) u_queue (
      .clk_i,
      .rst_ni,
      .push_i (q_push[e]),
      .wdata_i(cmd_i),
      .pop_i  (q_pop[e]),
      .rdata_o(q_head[e*CmdBits +: CmdBits]),
      .full_o (q_full[e]),
      .empty_o(q_empty[e]),
      .count_o()
    );
    /* verilator lint_on PINCONNECTEMPTY */

  end

  always_comb begin
    // Engine of the offered command; opcodes outside the table count as LD, as in engine_of().
    case (cmd_i.op)
      flycol_pkg::OpRun:        target = 2'(EngEx);
      flycol_pkg::OpLoadPsums,
      flycol_pkg::OpStorePsums: target = 2'(EngPs);
      default:                  target = 2'(EngLd);
    endcase

    // Ready looks at the named queue only, so it depends on cmd_i.op but never on cmd_valid_i.
    cmd_ready_o = !q_full[target];
    accept = cmd_valid_i && cmd_ready_o;

    q_push = '0;
    q_push[target] = accept;

    // Start rule: idle engine, queue not empty, every threshold met by the registered counters.
    head = '0;
    for (int unsigned e = 0; e < Engines; e++) begin
      head = q_head[e*CmdBits +: CmdBits];
      start_o[e] = !busy_i[e] && !q_empty[e]
                   && done_q[EngLd*WaitBits +: WaitBits] >= head.wait_ld
                   && done_q[EngEx*WaitBits +: WaitBits] >= head.wait_ex
                   && done_q[EngPs*WaitBits +: WaitBits] >= head.wait_ps;
    end
    q_pop = start_o;
    start_cmd_o = q_head;
    idle_o = (&q_empty) && !(|busy_i);

    // An engine completing in this cycle counts at this edge, so a command waiting for it can
    // start in the next cycle.
    done_d = done_q;
    dispatched_d = dispatched_q;
    for (int unsigned e = 0; e < Engines; e++) begin
      done_d[e*WaitBits +: WaitBits] = done_q[e*WaitBits +: WaitBits] + WaitBits'(done_i[e]);
    end
    if (accept) begin
      dispatched_d[target*WaitBits +: WaitBits] = dispatched_q[target*WaitBits +: WaitBits] + 1'b1;
    end
  end

  assign done_count_o = done_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      done_q <= '0;
      dispatched_q <= '0;
    end else begin
      done_q <= done_d;
      dispatched_q <= dispatched_d;
    end
  end

`ifndef SYNTHESIS
  initial begin
    if (!(flycol_pkg::CmdQueueDepth >= 1)) $fatal(1, "controller: CmdQueueDepth must be at least 1");
  end
  // A threshold above the number of commands of that engine accepted before this one names a
  // command that can only come later (or itself): the stream would deadlock (section 5).
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (rst_ni && accept) begin
      if (cmd_i.wait_ld > dispatched_q[EngLd*WaitBits +: WaitBits])
        $error("controller: opcode %0d waits for command %0d of engine 0 but only %0d were dispatched",
               cmd_i.op, cmd_i.wait_ld, dispatched_q[EngLd*WaitBits +: WaitBits]);
      if (cmd_i.wait_ex > dispatched_q[EngEx*WaitBits +: WaitBits])
        $error("controller: opcode %0d waits for command %0d of engine 1 but only %0d were dispatched",
               cmd_i.op, cmd_i.wait_ex, dispatched_q[EngEx*WaitBits +: WaitBits]);
      if (cmd_i.wait_ps > dispatched_q[EngPs*WaitBits +: WaitBits])
        $error("controller: opcode %0d waits for command %0d of engine 2 but only %0d were dispatched",
               cmd_i.op, cmd_i.wait_ps, dispatched_q[EngPs*WaitBits +: WaitBits]);
    end
  end
`endif

  // ---- Assertions (hw/common/flycol_assert.svh) ----
  // Section 5: an engine starts only when idle, done comes from a busy engine.
  `FLYCOL_ASSERT_NEVER(StartIdle_A, (start_o & busy_i) != '0, clk_i, rst_ni)
  `FLYCOL_ASSERT_NEVER(DoneBusy_A, (done_i & ~busy_i) != '0, clk_i, rst_ni)
  `FLYCOL_ASSERT(IdleNoStart_A, idle_o |-> start_o == '0 && busy_i == '0, clk_i, rst_ni)
  `FLYCOL_ASSERT_KNOWN(CtrlKnown_A, {cmd_ready_o, start_o, idle_o}, clk_i, rst_ni)
  `FLYCOL_COVER(BackPressure_C, cmd_valid_i && !cmd_ready_o, clk_i, rst_ni)
  `FLYCOL_COVER(AllBusy_C, busy_i == '1, clk_i, rst_ni)
  `FLYCOL_COVER(StartLd_C, start_o[0], clk_i, rst_ni)
  `FLYCOL_COVER(StartEx_C, start_o[1], clk_i, rst_ni)
  `FLYCOL_COVER(StartPs_C, start_o[Engines-1], clk_i, rst_ni)

endmodule
