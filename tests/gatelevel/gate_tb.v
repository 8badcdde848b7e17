// Gate-level testbench (tests/gatelevel/README.md): runs one layer on the exported Verilog-2005
// netlist of flycol_top in Icarus Verilog, from Icarus's X-initialised state. It sends the command
// words of cmds.hex on the command interface, serves the memory port from a DRAM array loaded from
// dram.hex (docs/microarchitecture.md 7.1: in-order read responses after a latency, byte-lane
// writes, random req_ready stalls; params.hex holds the timing), and when every command has been
// accepted and the accelerator is idle (or the watchdog fires) dumps the DRAM, X and Z kept, to
// dram_out.hex and the outcome to status.txt for `gate_gen compare`. Run from the layer's directory.
//
// Inputs that carry no meaning in a cycle are driven X (cmd_i without cmd_valid_i, rdata without
// mem_rsp_valid_i, the byte lanes a read did not ask for): the design must not look at them.
// +reset_at=N resets the accelerator in cycle N (asynchronously, mid-layer) and runs the layer
// again from its first command on a freshly loaded DRAM image.
// Plusargs for the must-fail twins: +break_read flips bit 0 of the first requested byte of the
// first read response; +x_beat=N makes every read of DRAM beat N return X (the DRAM keeps its
// value, so only what the accelerator makes of the X shows in the dump).
`include "gate_params.vh"

module gate_tb;
  localparam integer CmdBits = `GATE_CMD_BITS;
  localparam integer Beat = `GATE_BEAT_BYTES;
  localparam integer BeatBits = 8 * `GATE_BEAT_BYTES;
  localparam integer AddrBits = `GATE_ADDR_BITS;
  localparam integer BytesBits = `GATE_BYTES_BITS;
  localparam integer MemBeats = `GATE_MEM_BEATS;
  localparam integer QueueDepth = 64;  // read responses the memory model can hold

  // params.hex, in gate_gen's order.
  reg [31:0] params [0:`GATE_PARAMS-1];
  reg [CmdBits-1:0] cmds [0:`GATE_MAX_CMDS-1];
  reg [BeatBits-1:0] mem [0:MemBeats-1];
  integer n_cmds, n_beats, latency, extra_latency, stall_pct, seed, max_cycles, max_outstanding;

  reg clk, rst_n;
  reg cmd_valid;
  reg [CmdBits-1:0] cmd;
  wire cmd_ready;
  wire req_valid, req_write;
  wire [AddrBits-1:0] req_addr;
  wire [BytesBits-1:0] req_bytes;
  wire [BeatBits-1:0] req_wdata;
  reg req_ready, rsp_valid;
  reg [BeatBits-1:0] rsp_rdata;
  wire idle, run_active;
  wire [3*`GATE_WAIT_BITS-1:0] done_count;
  wire [2:0] cycle_kind;
  wire [`GATE_GATED_BITS-1:0] gated_cnt;

  flycol_top dut (
    .clk_i(clk),
    .rst_ni(rst_n),
    .cmd_valid_i(cmd_valid),
    .cmd_i(cmd),
    .cmd_ready_o(cmd_ready),
    .mem_req_valid_o(req_valid),
    .mem_req_ready_i(req_ready),
    .mem_req_write_o(req_write),
    .mem_req_addr_o(req_addr),
    .mem_req_bytes_o(req_bytes),
    .mem_req_wdata_o(req_wdata),
    .mem_rsp_valid_i(rsp_valid),
    .mem_rsp_rdata_i(rsp_rdata),
    .idle_o(idle),
    .done_count_o(done_count),
    .run_active_o(run_active),
    .cycle_kind_o(cycle_kind),
    .gated_cnt_o(gated_cnt)
  );

  // Read responses in flight: data (taken when the request is accepted) and first valid cycle.
  reg [BeatBits-1:0] q_data [0:QueueDepth-1];
  reg [63:0] q_time [0:QueueDepth-1];
  integer q_head, q_count, q_tail;
  reg [63:0] last_ready_at;

  integer gated_x_cycle;  // first cycle with gated_cnt_o unknown, or -1
  integer reset_at, resets;  // +reset_at=N: reset in cycle N and run the layer again
  integer cycle, next_cmd, i, j, lo, hi, fd, x_beat, reads, writes, stalls;
  reg broke_read, failed, fire_cmd, fire_req, s_write;
  reg [AddrBits-1:0] s_addr;
  reg [BytesBits-1:0] s_bytes;
  reg [BeatBits-1:0] s_wdata;
  reg [BeatBits-1:0] beat;
  reg [1023:0] why;

  task finish_run;
    input [1023:0] outcome;
    begin
      fd = $fopen("dram_out.hex", "w");
      for (i = 0; i < n_beats; i = i + 1) $fdisplay(fd, "%h", mem[i]);
      $fclose(fd);
      fd = $fopen("status.txt", "w");
      $fdisplay(fd, "%0s cycles=%0d commands=%0d/%0d reads=%0d writes=%0d req_ready_low=%0d resets=%0d", outcome,
                cycle, next_cmd, n_cmds, reads, writes, stalls, resets);
      $fclose(fd);
      $display("gate_tb: %0s after %0d cycles (%0d/%0d commands, %0d reads, %0d writes)", outcome, cycle, next_cmd,
               n_cmds, reads, writes);
      $finish;
    end
  endtask

  // An output that is not 0 or 1 where it means something fails the run by itself: every output
  // in every cycle from the first reset cycle on, except cmd_ready_o without cmd_valid_i (it may
  // depend on the X command) and the request fields without mem_req_valid_o (write data: only
  // the lanes of a write, and those end up in the dumped DRAM). The one data-dependent output,
  // gated_cnt_o (MACs with a zero operand), fails the run at its end, so that the DRAM dump
  // still shows where else an unknown operand went.
  task check_outputs;
    begin
      failed = 0;
      if (cmd_valid && cmd_ready !== 1'b0 && cmd_ready !== 1'b1) begin
        failed = 1;
        why = "x_on_cmd_ready_o";
      end
      if (^{req_valid, idle, run_active, done_count, cycle_kind} === 1'bx) begin
        failed = 1;
        $display("gate_tb: cycle %0d: mem_req_valid_o %b idle_o %b run_active_o %b done_count_o %h cycle_kind_o %b",
                 cycle, req_valid, idle, run_active, done_count, cycle_kind);
        why = "x_on_an_output";
      end
      if (req_valid === 1'b1 && ^{req_write, req_addr, req_bytes} === 1'bx) begin
        failed = 1;
        why = "x_in_a_memory_request";
      end
      if (failed) finish_run(why);
      if (^gated_cnt === 1'bx && gated_x_cycle < 0) begin
        gated_x_cycle = cycle;
        $display("gate_tb: cycle %0d: gated_cnt_o %b", cycle, gated_cnt);
      end
    end
  endtask

  // Reset: three cycles with every input idle (asserted with the clock low, asynchronously);
  // nothing else is initialised.
  task reset_dut;
    begin
      rst_n = 0;
      cmd_valid = 0;
      cmd = {CmdBits{1'bx}};
      req_ready = 0;
      rsp_valid = 0;
      rsp_rdata = {BeatBits{1'bx}};
      for (i = 0; i < 3; i = i + 1) begin
        #4 check_outputs;
        #1 clk = 1;
        #5 clk = 0;
      end
      rst_n = 1;
    end
  endtask

  // The memory's Moore outputs of the coming cycle, from its state after the last edge.
  task memory_outputs;
    begin
      req_ready = (q_count < max_outstanding) && (($random(seed) & 32'h7fffffff) % 100 >= stall_pct);
      if (!req_ready) stalls = stalls + 1;
      rsp_valid = q_count > 0 && q_time[q_head] <= cycle;
      rsp_rdata = rsp_valid ? q_data[q_head] : {BeatBits{1'bx}};
    end
  endtask

  initial begin
    $readmemh("params.hex", params);
    n_cmds = params[0];
    n_beats = params[1];
    latency = params[2];
    extra_latency = params[3];
    stall_pct = params[4];
    seed = params[5];
    max_cycles = params[6];
    max_outstanding = params[7] > QueueDepth ? QueueDepth : params[7];
    $readmemh("cmds.hex", cmds, 0, n_cmds - 1);
    $readmemh("dram.hex", mem, 0, n_beats - 1);
    if (!$value$plusargs("x_beat=%d", x_beat)) x_beat = -1;
    broke_read = 0;
    gated_x_cycle = -1;
    q_head = 0;
    q_tail = 0;
    q_count = 0;
    last_ready_at = 0;
    cycle = 0;
    next_cmd = 0;
    reads = 0;
    writes = 0;
    stalls = 0;
    resets = 0;

    if (!$value$plusargs("reset_at=%d", reset_at)) reset_at = -1;
    clk = 0;
    reset_dut;

    forever begin
      if (cycle == reset_at) begin
        // Reset in the middle of the layer, then the layer again from its first command on the
        // DRAM image as it was: every register must come back, whatever it held (the SRAM and
        // FIFO storage keep their contents, which the second run must not depend on).
        $display("gate_tb: reset in cycle %0d after %0d of %0d commands", cycle, next_cmd, n_cmds);
        reset_dut;
        $readmemh("dram.hex", mem, 0, n_beats - 1);
        q_head = 0;
        q_tail = 0;
        q_count = 0;
        next_cmd = 0;
        resets = resets + 1;
      end
      // Clock low: this cycle's inputs, then let the netlist settle.
      cmd_valid = next_cmd < n_cmds;
      cmd = cmd_valid ? cmds[next_cmd] : {CmdBits{1'bx}};
      memory_outputs;
      #4;
      if (next_cmd == n_cmds && idle === 1'b1)
        finish_run(gated_x_cycle >= 0 ? "x_on_gated_cnt_o" : reset_at >= 0 && resets == 0 ? "ended_before_reset_at" : "done");
      if (cycle >= max_cycles) finish_run("timeout");
      check_outputs;
      // What the accelerator shows before the edge (its outputs change after it).
      fire_cmd = cmd_valid && cmd_ready;
      fire_req = req_valid && req_ready;
      s_write = req_write;
      s_addr = req_addr;
      s_bytes = req_bytes;
      s_wdata = req_wdata;
      #1 clk = 1;
      // The edge: the accelerator took what it saw; the memory does the same.
      if (fire_cmd) next_cmd = next_cmd + 1;
      if (rsp_valid) begin
        q_head = (q_head + 1) % QueueDepth;
        q_count = q_count - 1;
      end
      if (fire_req) begin
        lo = s_addr % Beat;
        hi = lo + s_bytes;
        if (s_addr / Beat >= n_beats || s_bytes == 0 || hi > Beat) finish_run("bad_memory_request");
        if (s_write) begin
          writes = writes + 1;
          beat = mem[s_addr/Beat];
          for (j = lo; j < hi; j = j + 1) beat[8*j+:8] = s_wdata[8*j+:8];
          mem[s_addr/Beat] = beat;
        end else begin
          reads = reads + 1;
          beat = {BeatBits{1'bx}};
          for (j = lo; j < hi; j = j + 1) beat[8*j+:8] = s_addr / Beat == x_beat ? 8'hxx : mem[s_addr/Beat][8*j+:8];
          if (!broke_read && $test$plusargs("break_read")) begin
            beat[8*lo] = ~beat[8*lo];
            broke_read = 1;
          end
          q_data[q_tail] = beat;
          q_time[q_tail] = cycle + 1 + latency + (($random(seed) & 32'h7fffffff) % (extra_latency + 1));
          if (q_time[q_tail] <= last_ready_at) q_time[q_tail] = last_ready_at + 1;  // in order
          last_ready_at = q_time[q_tail];
          q_tail = (q_tail + 1) % QueueDepth;
          q_count = q_count + 1;
        end
      end
      cycle = cycle + 1;
      #5 clk = 0;
    end
  end
endmodule
