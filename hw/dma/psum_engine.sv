// The PS engine (docs/microarchitecture.md 7.4, 7.5, 7.6), RTL twin of hw::PsumEngine
// (hw/dma/psum_engine.{h,cpp}): LOAD_PSUMS through its copy of the load path with accumulator-wide
// elements, STORE_PSUMS through the store path, one command at a time, on the psum buffers. A
// STORE_PSUMS with dma_dst_ifmap writes ifmap buffer dma_dst_buf on its ifmap port instead of DRAM,
// in the cycles in which the LD engine does not write the ifmap SRAM (ld_ifmap_wr_i).
`include "flycol_assert.svh"

module psum_engine #(
  parameter flycol_pkg::cfg_t Cfg = flycol_cfg_pkg::Cfg,
  // Derived: accumulator bits, psum word (ROWS) in elements, address bits.
  localparam int unsigned AccBits = Cfg.acc_bits,
  localparam int unsigned ElemBits = Cfg.elem_bits,
  localparam int unsigned Rows = Cfg.rows,
  localparam int unsigned Bus = Cfg.bus_elems,
  localparam int unsigned PsumAddrBits = flycol_pkg::index_bits(Cfg.psum_depth),
  localparam int unsigned IfmapAddrBits = flycol_pkg::index_bits(Cfg.ifmap_depth)
) (
  input  logic                      clk_i,        // clock
  input  logic                      rst_ni,       // asynchronous reset, active low
  // Command port (the controller starts the engine while it is idle).
  input  logic                      start_i,      // start cmd_i (idle): latched at the edge
  input  flycol_pkg::command_t      cmd_i,        // LOAD_PSUMS or STORE_PSUMS
  output logic                      busy_o,       // from the cycle after the start to the done cycle
  output logic                      done_o,       // completes this cycle (a store: Mealy, req_fire_i)
  // Memory request (Moore) and responses, through the memory arbiter.
  output logic                      req_valid_o,  // a request
  output logic                      req_write_o,  // 1 write (store), 0 read (load)
  output flycol_pkg::dram_addr_t    req_addr_o,   // byte address
  output flycol_pkg::req_bytes_t    req_bytes_o,  // 1..BEAT (0 without a request)
  output flycol_pkg::beat_t         req_wdata_o,  // write data on the address's byte lanes
  input  logic                      req_fire_i,   // the request is taken this cycle
  input  logic                      rsp_valid_i,  // a read response for this engine
  input  flycol_pkg::beat_t         rsp_rdata_i,  // its data: byte lane j in [8*j +: 8]
  // Psum SRAM. req_o has a bit per buffer; we/addr/wdata/wmask are shared by both buffers and
  // meaningful for the one whose req bit is set; each buffer has its own read data.
  output logic [1:0]                psum_req_o,   // bit b: access buffer b this cycle
  output logic                      psum_we_o,    // 1 write (load), 0 read (store)
  output logic [PsumAddrBits-1:0]   psum_addr_o,  // word address
  output logic [Rows*AccBits-1:0]   psum_wdata_o, // write word: element e in [e*AccBits +: AccBits]
  output logic [Rows-1:0]           psum_wmask_o, // elements written
  input  logic [2*Rows*AccBits-1:0] psum_rdata_i, // buffer b's held read data: [b*Rows*AccBits +: Rows*AccBits]
  // ifmap SRAM, write only (a STORE_PSUMS with dst_ifmap, section 7.6); the same sharing as psum_*.
  input  logic                      ld_ifmap_wr_i, // the LD engine writes the ifmap SRAM this cycle: wait
  output logic [1:0]                ifmap_req_o,   // bit b: write buffer b this cycle
  output logic                      ifmap_we_o,    // write (high with every req)
  output logic [IfmapAddrBits-1:0]  ifmap_addr_o,  // word address
  output logic [Bus*ElemBits-1:0]   ifmap_wdata_o, // write word: element e in [e*ElemBits +: ElemBits]
  output logic [Bus-1:0]            ifmap_wmask_o  // elements written
);

  // Width of the loader's element counts (its word_elems_i).
  localparam int unsigned CountBits = $clog2(((Rows > flycol_pkg::BeatBytes) ? Rows
                                                                              : flycol_pkg::BeatBytes) + 1);

  logic buf_q;      // the command's buffer, for both paths
  logic dst_buf_q;  // the ifmap buffer of a dst_ifmap store
  // Partial sums become ifmap elements only where they are as wide (no requantizer, section 7.6).
  localparam bit DstEnable = AccBits == ElemBits;

  logic                                       l_start, l_busy, l_done, l_req_valid, l_wr;
  flycol_pkg::dram_addr_t         l_req_addr;
  flycol_pkg::req_bytes_t l_req_bytes;
  logic [PsumAddrBits-1:0]                    l_wr_addr;
  logic [Rows*AccBits-1:0]                    l_wr_data;
  logic [Rows-1:0]                            l_wr_mask;

  logic                                       s_start, s_busy, s_done, s_req_valid, s_rd;
  flycol_pkg::dram_addr_t         s_req_addr, s_chunk_addr;
  flycol_pkg::req_bytes_t s_req_bytes, s_chunk_bytes;
  flycol_pkg::beat_t           s_req_wdata, s_chunk_wdata;
  logic [PsumAddrBits-1:0]                    s_rd_addr;
  logic                                       s_to_ifmap, s_fire;
  logic [IfmapAddrBits-1:0]                   s_dst_addr;
  logic [Bus*AccBits-1:0]                     s_dst_data;
  logic [Bus-1:0]                             s_dst_mask;

  assign l_start = start_i && cmd_i.op == flycol_pkg::OpLoadPsums;
  assign s_start = start_i && cmd_i.op == flycol_pkg::OpStorePsums;

  stream_loader #(
    .ElemBits (AccBits),
    .WordElems(Rows),
    .MaxDepth (Cfg.psum_depth)
  ) u_loader (
    .clk_i,
    .rst_ni,
    .start_i      (l_start),
    .cmd_i,
    .word_elems_i (CountBits'(Rows)),
    .depth_words_i(32'(Cfg.psum_depth)),
    .busy_o       (l_busy),
    .done_o       (l_done),
    .req_valid_o  (l_req_valid),
    .req_addr_o   (l_req_addr),
    .req_bytes_o  (l_req_bytes),
    // Only the busy path has a request; the other one sees no fire.
    .req_fire_i   (req_fire_i && l_req_valid),
    .rsp_valid_i,
    .rsp_rdata_i,
    .wr_o         (l_wr),
    .wr_addr_o    (l_wr_addr),
    .wr_data_o    (l_wr_data),
    .wr_mask_o    (l_wr_mask)
  );

  store_stream #(
    .ElemBits (AccBits),
    .WordElems(Rows),
    .Depth    (Cfg.psum_depth),
    .DstElems (Bus),
    .DstDepth (Cfg.ifmap_depth),
    .DstEnable(DstEnable)
  ) u_store (
    .clk_i,
    .rst_ni,
    .start_i    (s_start),
    .cmd_i,
    .busy_o     (s_busy),
    .done_o     (s_done),
    .req_valid_o(s_req_valid),
    .req_addr_o (s_chunk_addr),
    .req_bytes_o(s_chunk_bytes),
    .req_wdata_o(s_chunk_wdata),
    .req_fire_i (s_fire),
    .rd_o       (s_rd),
    .rd_addr_o  (s_rd_addr),
    .rdata_i    (psum_rdata_i[32'(buf_q)*Rows*AccBits +: Rows*AccBits]),
    .to_ifmap_o (s_to_ifmap),
    .dst_addr_o (s_dst_addr),
    .dst_data_o (s_dst_data),
    .dst_mask_o (s_dst_mask)
  );

  // A store's chunk goes out when the memory takes it, or into an ifmap buffer whenever the LD
  // engine leaves the ifmap port free (the LD engine keeps the port; the store waits).
  assign s_fire = s_to_ifmap ? s_req_valid && !ld_ifmap_wr_i : req_fire_i && s_req_valid;

  // The memory arbiter never sees a store into the ifmap buffer: its chunk is no memory request.
  assign s_req_addr = s_to_ifmap ? '0 : s_chunk_addr;
  assign s_req_bytes = s_to_ifmap ? '0 : s_chunk_bytes;
  assign s_req_wdata = s_to_ifmap ? '0 : s_chunk_wdata;

  assign busy_o = l_busy || s_busy;
  assign done_o = l_done || s_done;
  assign req_valid_o = l_req_valid || (s_req_valid && !s_to_ifmap);
  // The core's req(): the store's request while it is busy, else the loader's.
  assign req_write_o = s_busy && !s_to_ifmap;
  assign req_addr_o = s_busy ? s_req_addr : l_req_addr;
  assign req_bytes_o = s_busy ? s_req_bytes : l_req_bytes;
  assign req_wdata_o = s_busy ? s_req_wdata : '0;

  // The ifmap write of a store into ifmap buffer dst_buf_q, in the cycle its chunk fires.
  always_comb begin
    ifmap_req_o = 2'b00;
    ifmap_req_o[dst_buf_q] = s_to_ifmap && s_fire;
    ifmap_we_o = s_to_ifmap && s_fire;
    ifmap_addr_o = s_dst_addr;
    ifmap_wmask_o = s_dst_mask;
  end
  if (DstEnable) begin : gen_dst
    assign ifmap_wdata_o = s_dst_data;
  end else begin : gen_no_dst
    // Never written (dst_ifmap is refused): the store's wider elements are not ifmap elements.
    assign ifmap_wdata_o = '0;
    logic unused_dst_data;
    assign unused_dst_data = ^s_dst_data;
  end

  // Only one path is busy at a time, so the port carries either the loader's write or the
  // store's read (both functions of registers).
  always_comb begin
    psum_req_o = 2'b00;
    psum_req_o[buf_q] = l_wr || s_rd;
    psum_we_o = l_wr;
    psum_addr_o = l_wr ? l_wr_addr : s_rd_addr;
    psum_wdata_o = l_wr_data;
    psum_wmask_o = l_wr_mask;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      buf_q <= 1'b0;
      dst_buf_q <= 1'b0;
    end else if (start_i) begin
      buf_q <= cmd_i.dma_buf;
      dst_buf_q <= cmd_i.dma_dst_buf;
    end
  end

`ifndef SYNTHESIS
  initial begin
    if (!(Cfg.acc_bits == 16 || Cfg.acc_bits == 32)) $fatal(1, "psum_engine: acc_bits must be 16 or 32");
    if (!(Rows >= 1 && Rows <= 64)) $fatal(1, "psum_engine: rows must be 1..64, not %0d", Rows);
    if (!(Cfg.psum_depth >= 1)) $fatal(1, "psum_engine: psum_depth must be >= 1");
  end
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (rst_ni && start_i && cmd_i.op != flycol_pkg::OpLoadPsums && cmd_i.op != flycol_pkg::OpStorePsums)
      $error("psum_engine: cannot execute opcode %0d", cmd_i.op);
    if (rst_ni && start_i && busy_o) $error("psum_engine: start while busy");
    if (rst_ni && start_i && cmd_i.dma_pad_value != '0)
      $error("psum_engine: padding value %0h (only LOAD_IFMAP pads with a value)", cmd_i.dma_pad_value);
    if (rst_ni && start_i && cmd_i.dma_dst_ifmap && cmd_i.op != flycol_pkg::OpStorePsums)
      $error("psum_engine: dst_ifmap on opcode %0d (STORE_PSUMS only)", cmd_i.op);
    if (rst_ni && start_i && cmd_i.dma_dst_ifmap && !DstEnable)
      $error("psum_engine: dst_ifmap: %0d-bit partial sums cannot become %0d-bit ifmap elements", AccBits, ElemBits);
    if (rst_ni && req_fire_i && !req_valid_o) $error("psum_engine: request fired while req_valid is low");
    if (rst_ni && l_busy && s_busy) $error("psum_engine: load and store busy together");
  end
`endif

  // ---- Assertions (hw/common/flycol_assert.svh) ----
  `FLYCOL_ASSERT_NEVER(NoStartBusy_A, start_i && busy_o, clk_i, rst_ni)
  `FLYCOL_ASSERT(FireOnRequest_A, req_fire_i |-> req_valid_o, clk_i, rst_ni)
  `FLYCOL_ASSERT(NoReqNoBytes_A, !req_valid_o |-> req_bytes_o == '0, clk_i, rst_ni)
  `FLYCOL_ASSERT(ReqBytes_A, req_valid_o |-> req_bytes_o != '0 && 32'(req_bytes_o) <= flycol_pkg::BeatBytes,
                 clk_i, rst_ni)
  `FLYCOL_ASSERT(OneBuffer_A, $countones(psum_req_o) <= 1, clk_i, rst_ni)
  // Section 7.6: dst_ifmap only with STORE_PSUMS (where partial sums are elements), dst_buf only
  // with it; the store's chunks go to the ifmap port, never to the arbiter, and only in cycles in
  // which the LD engine does not write the ifmap SRAM.
  `FLYCOL_ASSERT(DstIfmapStore_A, (start_i && cmd_i.dma_dst_ifmap) |-> cmd_i.op == flycol_pkg::OpStorePsums && DstEnable,
                 clk_i, rst_ni)
  `FLYCOL_ASSERT(DstBufNeedsIfmap_A, (start_i && !cmd_i.dma_dst_ifmap) |-> cmd_i.dma_dst_buf == 1'b0, clk_i, rst_ni)
  `FLYCOL_ASSERT_NEVER(IfmapNoMemReq_A, s_to_ifmap && req_valid_o, clk_i, rst_ni)
  `FLYCOL_ASSERT_NEVER(IfmapAfterLd_A, ld_ifmap_wr_i && ifmap_req_o != 2'b00, clk_i, rst_ni)
  `FLYCOL_ASSERT(IfmapWrites_A, ifmap_req_o != 2'b00 |-> s_to_ifmap && ifmap_we_o && ifmap_wmask_o != '0, clk_i, rst_ni)
  `FLYCOL_ASSERT(DoneBusy_A, done_o |-> busy_o, clk_i, rst_ni)
  `FLYCOL_ASSERT_KNOWN(CtrlKnown_A, {busy_o, done_o, req_valid_o, psum_req_o, ifmap_req_o}, clk_i, rst_ni)
  `FLYCOL_COVER(IfmapWaits_C, s_to_ifmap && s_req_valid && ld_ifmap_wr_i, clk_i, rst_ni)
  `FLYCOL_COVER(ReqWaits_C, req_valid_o && !req_fire_i, clk_i, rst_ni)
  `FLYCOL_COVER(Store_C, req_valid_o && req_write_o, clk_i, rst_ni)
  `FLYCOL_COVER(Load_C, req_valid_o && !req_write_o, clk_i, rst_ni)

endmodule
