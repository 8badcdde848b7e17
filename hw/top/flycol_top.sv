// flycol_top: the whole accelerator (docs/microarchitecture.md, section 1), the RTL twin of
// hw/top/accelerator_core: controller, DMA (LD and PS engines behind the memory arbiter), the EX
// engine (sequencer, data feeder, weight fetcher, PE array, pooling unit, partial-sums manager) and
// six SRAM banks, two buffers each of ifmap, weights and psums.
`include "flycol_assert.svh"

module flycol_top #(
  parameter flycol_pkg::cfg_t Cfg = flycol_cfg_pkg::Cfg,
  localparam int unsigned Rows = Cfg.rows,
  localparam int unsigned Cols = Cfg.cols,
  localparam int unsigned ElemBits = Cfg.elem_bits,
  localparam int unsigned AccBits = Cfg.acc_bits,
  localparam int unsigned Bus = Cfg.bus_elems,
  localparam int unsigned IfmapAddrBits = flycol_pkg::index_bits(Cfg.ifmap_depth),
  localparam int unsigned WeightAddrBits = flycol_pkg::index_bits(Cfg.weight_depth),
  localparam int unsigned PsumAddrBits = flycol_pkg::index_bits(Cfg.psum_depth),
  localparam int unsigned WaitBits = flycol_pkg::WaitBits,
  localparam int unsigned CmdBits = flycol_pkg::CommandBits,
  localparam int unsigned GatedBits = $clog2(Rows * Cols + 1)
) (
  input  logic                     clk_i,            // clock, rising edge
  input  logic                     rst_ni,           // asynchronous reset, active low
  // Command port (section 5)
  input  logic                     cmd_valid_i,      // the host offers cmd_i
  input  flycol_pkg::command_t     cmd_i,            // the offered command
  output logic                     cmd_ready_o,      // accepted at this edge if valid (depends on cmd_i.op)
  // Memory port (section 7.1)
  output logic                     mem_req_valid_o,  // a request is offered
  input  logic                     mem_req_ready_i,  // the memory takes it (Moore output of the memory)
  output logic                     mem_req_write_o,  // 1 write, 0 read
  output flycol_pkg::dram_addr_t   mem_req_addr_o,   // byte address
  output flycol_pkg::req_bytes_t   mem_req_bytes_o,  // 1..BEAT bytes, never across a BEAT boundary
  output flycol_pkg::beat_t        mem_req_wdata_o,  // write data on the address's byte lanes
  input  logic                     mem_rsp_valid_i,  // read response, in order, cannot be refused
  input  flycol_pkg::beat_t        mem_rsp_rdata_i,  // read data on the request's byte lanes
  // Status
  output logic                     idle_o,           // all queues empty and all engines idle (Moore)
  output logic [3*WaitBits-1:0]    done_count_o,     // commands completed by LD, EX, PS (slice e)
  output logic                     run_active_o,     // a RUN is active (the EX engine is busy)
  output logic [2:0]               cycle_kind_o,     // class of this cycle (SequencerCore::CycleKind)
  output logic [GatedBits-1:0]     gated_cnt_o       // PE MACs gated in the previous cycle (statistics)
);

  localparam int unsigned EngLd = 0;
  localparam int unsigned EngEx = 1;
  localparam int unsigned EngPs = 2;

  // ---- Controller ---------------------------------------------------------------------------
  logic [2:0]             eng_busy, eng_done, eng_start;
  logic [3*CmdBits-1:0]   start_cmd;
  flycol_pkg::command_t   ld_cmd, ex_cmd, ps_cmd;

  assign ld_cmd = start_cmd[EngLd*CmdBits +: CmdBits];
  assign ex_cmd = start_cmd[EngEx*CmdBits +: CmdBits];
  assign ps_cmd = start_cmd[EngPs*CmdBits +: CmdBits];

  controller #(.Cfg(Cfg)) u_controller (
    .clk_i,
    .rst_ni,
    .cmd_valid_i,
    .cmd_i,
    .cmd_ready_o,
    .busy_i       (eng_busy),
    .done_i       (eng_done),
    .start_o      (eng_start),
    .start_cmd_o  (start_cmd),
    .idle_o,
    .done_count_o
  );

  // The active RUN, kept for its buffer indices (the blocks keep their own copies of the rest).
  flycol_pkg::command_t run_q, run_d;
  always_comb begin
    run_d = run_q;
    if (eng_start[EngEx]) run_d = ex_cmd;
  end
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) run_q <= '0;
    else         run_q <= run_d;
  end

  // ---- DMA: LD and PS engines behind the memory arbiter --------------------------------------
  logic                      ld_busy, ld_done, ps_busy, ps_done;
  logic [1:0]                dma_ifmap_req, dma_weight_req, dma_psum_req;
  logic                      dma_ifmap_we, dma_weight_we, dma_psum_we;
  logic [IfmapAddrBits-1:0]  dma_ifmap_addr;
  logic [WeightAddrBits-1:0] dma_weight_addr;
  logic [PsumAddrBits-1:0]   dma_psum_addr;
  logic [Bus*ElemBits-1:0]   dma_ifmap_wdata;
  logic [Cols*ElemBits-1:0]  dma_weight_wdata;
  logic [Rows*AccBits-1:0]   dma_psum_wdata;
  logic [Bus-1:0]            dma_ifmap_wmask;
  logic [Cols-1:0]           dma_weight_wmask;
  logic [Rows-1:0]           dma_psum_wmask;
  logic [2*Rows*AccBits-1:0] psum_rdata_both;

  dma #(.Cfg(Cfg)) u_dma (
    .clk_i,
    .rst_ni,
    .ld_start_i      (eng_start[EngLd]),
    .ld_cmd_i        (ld_cmd),
    .ld_busy_o       (ld_busy),
    .ld_done_o       (ld_done),
    .ps_start_i      (eng_start[EngPs]),
    .ps_cmd_i        (ps_cmd),
    .ps_busy_o       (ps_busy),
    .ps_done_o       (ps_done),
    .mem_req_valid_o,
    .mem_req_ready_i,
    .mem_req_write_o,
    .mem_req_addr_o,
    .mem_req_bytes_o,
    .mem_req_wdata_o,
    .mem_rsp_valid_i,
    .mem_rsp_rdata_i,
    .ifmap_req_o     (dma_ifmap_req),
    .ifmap_we_o      (dma_ifmap_we),
    .ifmap_addr_o    (dma_ifmap_addr),
    .ifmap_wdata_o   (dma_ifmap_wdata),
    .ifmap_wmask_o   (dma_ifmap_wmask),
    .weight_req_o    (dma_weight_req),
    .weight_we_o     (dma_weight_we),
    .weight_addr_o   (dma_weight_addr),
    .weight_wdata_o  (dma_weight_wdata),
    .weight_wmask_o  (dma_weight_wmask),
    .psum_req_o      (dma_psum_req),
    .psum_we_o       (dma_psum_we),
    .psum_addr_o     (dma_psum_addr),
    .psum_wdata_o    (dma_psum_wdata),
    .psum_wmask_o    (dma_psum_wmask),
    .psum_rdata_i    (psum_rdata_both)
  );

  // ---- EX engine -----------------------------------------------------------------------------
  localparam int unsigned UnclaimedBits = $clog2(2 * Cols + 1);
  localparam int unsigned ColBits = flycol_pkg::index_bits(Cols);

  logic                      seq_busy, run_done;
  logic                      tok_valid, tok_swap, tok_window, pop, weight_pop, claim;
  logic                      lanes_valid, has_word;
  logic [UnclaimedBits-1:0]  unclaimed;
  logic [Rows*ElemBits-1:0]  lane_data;
  logic [Cols*ElemBits-1:0]  weight_word;
  logic                      pre_pop, res_valid;
  logic [ColBits-1:0]        res_col;
  logic [Rows*AccBits-1:0]   pre_word, res_word;
  logic                      pool_ready, pool_valid;
  logic [Rows*AccBits-1:0]   pool_word;

  logic                      fd_ifmap_req;
  logic [IfmapAddrBits-1:0]  fd_ifmap_addr;
  logic [Bus*ElemBits-1:0]   fd_ifmap_rdata;
  logic                      fd_busy, fd_sel_stall;

  logic                      wf_req, wf_we, wf_busy;
  logic [WeightAddrBits-1:0] wf_addr;
  logic [Cols*ElemBits-1:0]  wf_wdata, wf_rdata;
  logic [Cols-1:0]           wf_wmask;

  logic                      pm_req, pm_we, pm_busy;
  logic [PsumAddrBits-1:0]   pm_addr;
  logic [Rows*AccBits-1:0]   pm_wdata, pm_rdata;
  logic [Rows-1:0]           pm_wmask;

  sequencer #(.Cfg(Cfg)) u_sequencer (
    .clk_i,
    .rst_ni,
    .start_i        (eng_start[EngEx]),
    .run_preload_i  (ex_cmd.run_preload),
    .run_n_kg_i     (ex_cmd.run_n_kg),
    .run_n_cy_i     (ex_cmd.run_n_cy),
    .run_n_cx_i     (ex_cmd.run_n_cx),
    .run_n_c_i      (ex_cmd.run_n_c),
    .run_n_ky_i     (ex_cmd.run_n_ky),
    .run_n_kx_i     (ex_cmd.run_n_kx),
    .run_pool_op_i  (ex_cmd.run_pool_op),
    .lanes_ready_i  (lanes_valid),
    .weight_ready_i (has_word),
    .unclaimed_i    (unclaimed),
    .finish_i       (run_done),
    .pool_ready_i   (pool_ready),
    .token_valid_o  (tok_valid),
    .token_swap_o   (tok_swap),
    .token_window_o (tok_window),
    .pop_o          (pop),
    .weight_pop_o   (weight_pop),
    .claim_o        (claim),
    .busy_o         (seq_busy),
    .cycle_kind_o
  );

  feeder #(.Cfg(Cfg)) u_feeder (
    .clk_i,
    .rst_ni,
    .start_i       (eng_start[EngEx]),
    .run_i         (ex_cmd),
    .ifmap_req_o   (fd_ifmap_req),
    .ifmap_addr_o  (fd_ifmap_addr),
    .ifmap_rdata_i (fd_ifmap_rdata),
    .lanes_valid_o (lanes_valid),
    .lane_data_o   (lane_data),
    .pop_i         (pop),
    .busy_o        (fd_busy),
    .sel_stall_o   (fd_sel_stall)
  );

  weight_fetcher #(.Cfg(Cfg)) u_weight_fetcher (
    .clk_i,
    .rst_ni,
    .start_i        (eng_start[EngEx]),
    .run_n_kg_i     (ex_cmd.run_n_kg),
    .run_n_cy_i     (ex_cmd.run_n_cy),
    .run_n_cx_i     (ex_cmd.run_n_cx),
    .run_n_c_i      (ex_cmd.run_n_c),
    .run_n_ky_i     (ex_cmd.run_n_ky),
    .run_n_kx_i     (ex_cmd.run_n_kx),
    .run_pool_op_i  (ex_cmd.run_pool_op),
    .weight_req_o   (wf_req),
    .weight_we_o    (wf_we),
    .weight_addr_o  (wf_addr),
    .weight_wdata_o (wf_wdata),
    .weight_wmask_o (wf_wmask),
    .weight_rdata_i (wf_rdata),
    .has_word_o     (has_word),
    .word_o         (weight_word),
    .pop_i          (weight_pop),
    .busy_o         (wf_busy)
  );

  // The pooling unit takes the popped elements of a pooling RUN (section 16); its results go to
  // the partial-sums manager instead of the array's.
  pool_unit #(.Cfg(Cfg)) u_pool_unit (
    .clk_i,
    .rst_ni,
    .start_i      (eng_start[EngEx]),
    .run_i        (ex_cmd),
    .pop_i        (pop),
    .lane_data_i  (lane_data),
    .pool_ready_o (pool_ready),
    .res_valid_o  (pool_valid),
    .res_word_o   (pool_word)
  );

  array #(.Cfg(Cfg)) u_array (
    .clk_i,
    .rst_ni,
    .tok_valid_i  (tok_valid),
    .tok_swap_i   (tok_swap),
    .tok_window_i (tok_window),
    .tok_a_i      (lane_data),
    .tok_w_i      (weight_word),
    .pre_word_i   (pre_word),
    .pre_pop_o    (pre_pop),
    .res_valid_o  (res_valid),
    .res_col_o    (res_col),
    .res_word_o   (res_word),
    .gated_cnt_o
  );

  psum_manager #(.Cfg(Cfg)) u_psum_manager (
    .clk_i,
    .rst_ni,
    .start_i       (eng_start[EngEx]),
    .run_preload_i (ex_cmd.run_preload),
    .run_n_kg_i    (ex_cmd.run_n_kg),
    .run_n_cy_i    (ex_cmd.run_n_cy),
    .run_n_cx_i    (ex_cmd.run_n_cx),
    .run_n_c_i     (ex_cmd.run_n_c),
    .run_n_ky_i    (ex_cmd.run_n_ky),
    .run_n_kx_i    (ex_cmd.run_n_kx),
    .run_pool_op_i (ex_cmd.run_pool_op),
    .unclaimed_o   (unclaimed),
    .claim_i       (claim),
    .pre_pop_i     (pre_pop),
    .pre_word_o    (pre_word),
    .res_valid_i   (res_valid),
    .res_col_i     (res_col),
    .res_word_i    (res_word),
    .pool_valid_i  (pool_valid),
    .pool_word_i   (pool_word),
    .psum_req_o    (pm_req),
    .psum_we_o     (pm_we),
    .psum_addr_o   (pm_addr),
    .psum_wdata_o  (pm_wdata),
    .psum_wmask_o  (pm_wmask),
    .psum_rdata_i  (pm_rdata),
    .busy_o        (pm_busy),
    .run_done_o    (run_done)
  );

  // Engine status to the controller (bit 0 LD, 1 EX, 2 PS). The EX engine is the sequencer: it
  // is busy from a RUN's start to the cycle its last result word is written.
  assign eng_busy     = {ps_busy, seq_busy, ld_busy};
  assign eng_done     = {ps_done, run_done, ld_done};
  assign run_active_o = seq_busy;

  // ---- SRAM banks: each buffer is used by the DMA or by the active RUN ------------------------
  localparam int unsigned IfmapWordBits = Bus * ElemBits;
  localparam int unsigned WeightWordBits = Cols * ElemBits;
  localparam int unsigned PsumWordBits = Rows * AccBits;
  // Held read data of both buffers, buffer b at [b*W +: W] (flat: see docs/dev/rtl_conventions.md).
  logic [2*IfmapWordBits-1:0]  ifmap_rdata;
  logic [2*WeightWordBits-1:0] weight_rdata;
  logic [2*PsumWordBits-1:0]   psum_rdata;

  for (genvar b = 0; b < 2; b++) begin : gen_buffers
    // The RUN's reader of this buffer, if the RUN uses it.
    logic ifmap_run, weight_run, psum_run;
    assign ifmap_run  = fd_ifmap_req && (run_q.run_ifmap_buf == 1'(b));
    assign weight_run = wf_req && (run_q.run_weight_buf == 1'(b));
    assign psum_run   = pm_req && (run_q.run_psum_buf == 1'(b));

    sram_bank #(.Depth(Cfg.ifmap_depth), .ElemBits(ElemBits), .Elems(Bus)) u_ifmap (
      .clk_i,
      .rst_ni,
      .req_i   (dma_ifmap_req[b] || ifmap_run),
      .we_i    (dma_ifmap_req[b] ? dma_ifmap_we : 1'b0),
      .addr_i  (dma_ifmap_req[b] ? dma_ifmap_addr : fd_ifmap_addr),
      .wdata_i (dma_ifmap_wdata),
      .wmask_i (dma_ifmap_wmask),
      .rdata_o (ifmap_rdata[b*IfmapWordBits +: IfmapWordBits])
    );

    sram_bank #(.Depth(Cfg.weight_depth), .ElemBits(ElemBits), .Elems(Cols)) u_weight (
      .clk_i,
      .rst_ni,
      .req_i   (dma_weight_req[b] || weight_run),
      .we_i    (dma_weight_req[b] ? dma_weight_we : wf_we),
      .addr_i  (dma_weight_req[b] ? dma_weight_addr : wf_addr),
      .wdata_i (dma_weight_req[b] ? dma_weight_wdata : wf_wdata),
      .wmask_i (dma_weight_req[b] ? dma_weight_wmask : wf_wmask),
      .rdata_o (weight_rdata[b*WeightWordBits +: WeightWordBits])
    );

    sram_bank #(.Depth(Cfg.psum_depth), .ElemBits(AccBits), .Elems(Rows)) u_psum (
      .clk_i,
      .rst_ni,
      .req_i   (dma_psum_req[b] || psum_run),
      .we_i    (dma_psum_req[b] ? dma_psum_we : pm_we),
      .addr_i  (dma_psum_req[b] ? dma_psum_addr : pm_addr),
      .wdata_i (dma_psum_req[b] ? dma_psum_wdata : pm_wdata),
      .wmask_i (dma_psum_req[b] ? dma_psum_wmask : pm_wmask),
      .rdata_o (psum_rdata[b*PsumWordBits +: PsumWordBits])
    );

`ifndef SYNTHESIS
    // The compiler's wait thresholds keep the DMA off the buffers of the active RUN; a violation
    // would silently corrupt data (hw/top/accelerator_core.cpp checks the same). Sensitive to the
    // reset edge like the registers, so that lint sees rst_ni used one way only.
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (rst_ni && dma_ifmap_req[b] && ifmap_run)
        $error("flycol_top: the DMA and the feeder access ifmap buffer %0d in the same cycle", b);
      if (rst_ni && dma_weight_req[b] && weight_run)
        $error("flycol_top: the DMA and the weight fetcher access weight buffer %0d in the same cycle", b);
      if (rst_ni && dma_psum_req[b] && psum_run)
        $error("flycol_top: the DMA and the partial-sums manager access psum buffer %0d in the same cycle", b);
    end
`endif
  end

  assign fd_ifmap_rdata  = run_q.run_ifmap_buf ? ifmap_rdata[IfmapWordBits +: IfmapWordBits]
                                               : ifmap_rdata[0 +: IfmapWordBits];
  assign wf_rdata        = run_q.run_weight_buf ? weight_rdata[WeightWordBits +: WeightWordBits]
                                                : weight_rdata[0 +: WeightWordBits];
  assign pm_rdata        = run_q.run_psum_buf ? psum_rdata[PsumWordBits +: PsumWordBits]
                                              : psum_rdata[0 +: PsumWordBits];
  assign psum_rdata_both = psum_rdata;

`ifndef SYNTHESIS
  // A DMA engine must not write a buffer the active RUN reads (as AcceleratorCore asserts), even
  // in cycles where they do not collide on the port; and a STORE_PSUMS into ifmap buffer dst_buf
  // (section 7.6) shares it with no RUN and no LOAD_IFMAP. The engines' opcode and buffers are
  // kept for this check only.
  logic ld_ifmap_q, ld_buf_q, ps_buf_q, ps_dst_ifmap_q, ps_dst_buf_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      ld_ifmap_q     <= 1'b0;
      ld_buf_q       <= 1'b0;
      ps_buf_q       <= 1'b0;
      ps_dst_ifmap_q <= 1'b0;
      ps_dst_buf_q   <= 1'b0;
    end else begin
      if (eng_start[EngLd]) begin
        ld_ifmap_q <= ld_cmd.op == flycol_pkg::OpLoadIfmap;
        ld_buf_q   <= ld_cmd.dma_buf;
      end
      if (eng_start[EngPs]) begin
        ps_buf_q       <= ps_cmd.dma_buf;
        ps_dst_ifmap_q <= ps_cmd.dma_dst_ifmap;
        ps_dst_buf_q   <= ps_cmd.dma_dst_buf;
      end
    end
  end
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (rst_ni && seq_busy && ld_busy && ld_ifmap_q && (ld_buf_q == run_q.run_ifmap_buf))
      $error("flycol_top: LOAD_IFMAP writes ifmap buffer %0d while a RUN reads it", run_q.run_ifmap_buf);
    if (rst_ni && seq_busy && ld_busy && !ld_ifmap_q && (ld_buf_q == run_q.run_weight_buf))
      $error("flycol_top: LOAD_WEIGHTS writes weight buffer %0d while a RUN reads it", run_q.run_weight_buf);
    if (rst_ni && seq_busy && ps_busy && (ps_buf_q == run_q.run_psum_buf))
      $error("flycol_top: a psum DMA command uses psum buffer %0d while a RUN uses it", run_q.run_psum_buf);
    if (rst_ni && seq_busy && ps_busy && ps_dst_ifmap_q && (ps_dst_buf_q == run_q.run_ifmap_buf))
      $error("flycol_top: STORE_PSUMS writes ifmap buffer %0d while a RUN reads it", ps_dst_buf_q);
    if (rst_ni && ld_busy && ld_ifmap_q && ps_busy && ps_dst_ifmap_q && (ps_dst_buf_q == ld_buf_q))
      $error("flycol_top: LOAD_IFMAP and STORE_PSUMS write ifmap buffer %0d together", ps_dst_buf_q);
  end
`endif

  // Signals only the statistics and assertions of the C++ twin look at.
  logic unused;
  assign unused = ^{fd_busy, fd_sel_stall, wf_busy, pm_busy};

  // ---- Assertions (hw/common/flycol_assert.svh) ----
  // The memory port of section 7.1. The request may change while mem_req_ready_i is low (the
  // arbiter can switch requesters), so no hold rule is asserted here; the stores hold theirs.
  `FLYCOL_ASSERT(ReqBytes_A, mem_req_valid_o |-> mem_req_bytes_o != '0 &&
                 32'(mem_req_addr_o[$clog2(flycol_pkg::BeatBytes)-1:0]) + 32'(mem_req_bytes_o) <= flycol_pkg::BeatBytes,
                 clk_i, rst_ni)
  `FLYCOL_ASSERT(IdleNoRun_A, idle_o |-> !run_active_o, clk_i, rst_ni)
  `FLYCOL_ASSERT(IdleNoMem_A, idle_o |-> !mem_req_valid_o, clk_i, rst_ni)
  `FLYCOL_ASSERT_KNOWN(CtrlKnown_A, {cmd_ready_o, mem_req_valid_o, idle_o, run_active_o}, clk_i, rst_ni)
  `FLYCOL_COVER(CmdBackPressure_C, cmd_valid_i && !cmd_ready_o, clk_i, rst_ni)
  `FLYCOL_COVER(DramStall_C, mem_req_valid_o && !mem_req_ready_i, clk_i, rst_ni)
  `FLYCOL_COVER(RunWithMem_C, run_active_o && mem_req_valid_o, clk_i, rst_ni)

endmodule
