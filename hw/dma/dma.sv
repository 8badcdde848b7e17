// The DMA (docs/microarchitecture.md 7): LD engine, PS engine and memory arbiter behind the one
// memory port, RTL twin of the SC_MODULE hw::Dma (hw/dma/dma.h) with its port names, plus the SRAM
// ports of the six buffers the engines reach. The accelerator top can use it or its three parts.
// The ifmap port carries the LD engine's writes and, in the cycles without one, those of a
// STORE_PSUMS into the ifmap buffer (section 7.6).
`include "flycol_assert.svh"

module dma #(
  parameter flycol_pkg::cfg_t Cfg = flycol_cfg_pkg::Cfg,
  // Derived: element and accumulator bits, SRAM words in elements, address bits.
  localparam int unsigned ElemBits = Cfg.elem_bits,
  localparam int unsigned AccBits = Cfg.acc_bits,
  localparam int unsigned Bus = Cfg.bus_elems,
  localparam int unsigned Cols = Cfg.cols,
  localparam int unsigned Rows = Cfg.rows,
  localparam int unsigned IfmapAddrBits = flycol_pkg::index_bits(Cfg.ifmap_depth),
  localparam int unsigned WeightAddrBits = flycol_pkg::index_bits(Cfg.weight_depth),
  localparam int unsigned PsumAddrBits = flycol_pkg::index_bits(Cfg.psum_depth)
) (
  input  logic                      clk_i,           // clock
  input  logic                      rst_ni,          // asynchronous reset, active low
  // LD engine command port.
  input  logic                      ld_start_i,      // start ld_cmd_i (engine idle), latched at the edge
  input  flycol_pkg::command_t      ld_cmd_i,        // LOAD_IFMAP / LOAD_WEIGHTS
  output logic                      ld_busy_o,       // from the cycle after the start to the done cycle
  output logic                      ld_done_o,       // the LD command completes this cycle
  // PS engine command port.
  input  logic                      ps_start_i,      // start ps_cmd_i (engine idle), latched at the edge
  input  flycol_pkg::command_t      ps_cmd_i,        // LOAD_PSUMS / STORE_PSUMS
  output logic                      ps_busy_o,       // from the cycle after the start to the done cycle
  output logic                      ps_done_o,       // the PS command completes this cycle (Mealy: ready)
  // Memory port (section 7.1).
  output logic                      mem_req_valid_o, // a request is offered
  input  logic                      mem_req_ready_i, // the memory takes it (Moore output of the memory)
  output logic                      mem_req_write_o, // 1 write, 0 read
  output flycol_pkg::dram_addr_t    mem_req_addr_o,  // byte address
  output flycol_pkg::req_bytes_t    mem_req_bytes_o, // 1..BEAT, never across a BEAT boundary
  output flycol_pkg::beat_t         mem_req_wdata_o, // write data on the address's byte lanes
  input  logic                      mem_rsp_valid_i, // read response (in order, cannot be refused)
  input  flycol_pkg::beat_t         mem_rsp_rdata_i, // read data on the request's byte lanes
  // SRAM ports (docs/dev/rtl_conventions.md): req_o has a bit per buffer; we, addr, wdata and
  // wmask are shared by the two buffers of an SRAM and meaningful for the one whose req bit is
  // set. Words are flat vectors, element e in [e*W +: W].
  // ifmap SRAM (LD engine, and a PS store with dst_ifmap; write only).
  output logic [1:0]                ifmap_req_o,     // bit b: access buffer b this cycle
  output logic                      ifmap_we_o,      // write (high with every req)
  output logic [IfmapAddrBits-1:0]  ifmap_addr_o,    // word address
  output logic [Bus*ElemBits-1:0]   ifmap_wdata_o,   // write word
  output logic [Bus-1:0]            ifmap_wmask_o,   // elements written
  // Weight SRAM (LD engine, write only).
  output logic [1:0]                weight_req_o,    // bit b: access buffer b this cycle
  output logic                      weight_we_o,     // write (high with every req)
  output logic [WeightAddrBits-1:0] weight_addr_o,   // word address
  output logic [Cols*ElemBits-1:0]  weight_wdata_o,  // write word
  output logic [Cols-1:0]           weight_wmask_o,  // elements written
  // Psum SRAM (PS engine).
  output logic [1:0]                psum_req_o,      // bit b: access buffer b this cycle
  output logic                      psum_we_o,       // 1 write (LOAD_PSUMS), 0 read (STORE_PSUMS)
  output logic [PsumAddrBits-1:0]   psum_addr_o,     // word address
  output logic [Rows*AccBits-1:0]   psum_wdata_o,    // write word
  output logic [Rows-1:0]           psum_wmask_o,    // elements written
  input  logic [2*Rows*AccBits-1:0] psum_rdata_i     // buffer b's held read data: [b*Rows*AccBits +: Rows*AccBits]
);

  // Engine requests (Moore outputs of the engines) and the arbiter's answers.
  logic                                       ld_req_valid, ld_req_write, ld_req_fire, ld_rsp_valid;
  logic                                       ps_req_valid, ps_req_write, ps_req_fire, ps_rsp_valid;
  flycol_pkg::dram_addr_t                     ld_req_addr, ps_req_addr;
  flycol_pkg::req_bytes_t                     ld_req_bytes, ps_req_bytes;
  flycol_pkg::beat_t                          ld_req_wdata, ps_req_wdata;
  // The engines' ifmap writes, before the port multiplexer.
  logic [1:0]                                 ld_ifmap_req, ps_ifmap_req;
  logic                                       ld_ifmap_we, ps_ifmap_we, ld_ifmap_wr;
  logic [IfmapAddrBits-1:0]                   ld_ifmap_addr, ps_ifmap_addr;
  logic [Bus*ElemBits-1:0]                    ld_ifmap_wdata, ps_ifmap_wdata;
  logic [Bus-1:0]                             ld_ifmap_wmask, ps_ifmap_wmask;

  load_engine #(
    .Cfg(Cfg)
  ) u_ld_engine (
    .clk_i,
    .rst_ni,
    .start_i       (ld_start_i),
    .cmd_i         (ld_cmd_i),
    .busy_o        (ld_busy_o),
    .done_o        (ld_done_o),
    .req_valid_o   (ld_req_valid),
    .req_write_o   (ld_req_write),
    .req_addr_o    (ld_req_addr),
    .req_bytes_o   (ld_req_bytes),
    .req_wdata_o   (ld_req_wdata),
    .req_fire_i    (ld_req_fire),
    .rsp_valid_i   (ld_rsp_valid),
    .rsp_rdata_i   (mem_rsp_rdata_i),
    .ifmap_req_o   (ld_ifmap_req),
    .ifmap_we_o    (ld_ifmap_we),
    .ifmap_addr_o  (ld_ifmap_addr),
    .ifmap_wdata_o (ld_ifmap_wdata),
    .ifmap_wmask_o (ld_ifmap_wmask),
    .weight_req_o,
    .weight_we_o,
    .weight_addr_o,
    .weight_wdata_o,
    .weight_wmask_o
  );

  psum_engine #(
    .Cfg(Cfg)
  ) u_ps_engine (
    .clk_i,
    .rst_ni,
    .start_i     (ps_start_i),
    .cmd_i       (ps_cmd_i),
    .busy_o      (ps_busy_o),
    .done_o      (ps_done_o),
    .req_valid_o (ps_req_valid),
    .req_write_o (ps_req_write),
    .req_addr_o  (ps_req_addr),
    .req_bytes_o (ps_req_bytes),
    .req_wdata_o (ps_req_wdata),
    .req_fire_i  (ps_req_fire),
    .rsp_valid_i (ps_rsp_valid),
    .rsp_rdata_i (mem_rsp_rdata_i),
    .psum_req_o,
    .psum_we_o,
    .psum_addr_o,
    .psum_wdata_o,
    .psum_wmask_o,
    .psum_rdata_i,
    .ld_ifmap_wr_i (ld_ifmap_wr),
    .ifmap_req_o   (ps_ifmap_req),
    .ifmap_we_o    (ps_ifmap_we),
    .ifmap_addr_o  (ps_ifmap_addr),
    .ifmap_wdata_o (ps_ifmap_wdata),
    .ifmap_wmask_o (ps_ifmap_wmask)
  );

  // The ifmap port: the LD engine's write has priority; the PS engine writes only in a cycle
  // without one (it is told so), so its request selects the port (section 7.6).
  assign ld_ifmap_wr = ld_ifmap_req != 2'b00;
  always_comb begin
    ifmap_req_o = ld_ifmap_req | ps_ifmap_req;
    ifmap_we_o = (ps_ifmap_req != 2'b00) ? ps_ifmap_we : ld_ifmap_we;
    ifmap_addr_o = (ps_ifmap_req != 2'b00) ? ps_ifmap_addr : ld_ifmap_addr;
    ifmap_wdata_o = (ps_ifmap_req != 2'b00) ? ps_ifmap_wdata : ld_ifmap_wdata;
    ifmap_wmask_o = (ps_ifmap_req != 2'b00) ? ps_ifmap_wmask : ld_ifmap_wmask;
  end

  mem_arbiter u_mem_arbiter (
    .clk_i,
    .rst_ni,
    .ld_req_valid_i(ld_req_valid),
    .ld_req_write_i(ld_req_write),
    .ld_req_addr_i (ld_req_addr),
    .ld_req_bytes_i(ld_req_bytes),
    .ld_req_wdata_i(ld_req_wdata),
    .ld_req_fire_o (ld_req_fire),
    .ld_rsp_valid_o(ld_rsp_valid),
    .ps_req_valid_i(ps_req_valid),
    .ps_req_write_i(ps_req_write),
    .ps_req_addr_i (ps_req_addr),
    .ps_req_bytes_i(ps_req_bytes),
    .ps_req_wdata_i(ps_req_wdata),
    .ps_req_fire_o (ps_req_fire),
    .ps_rsp_valid_o(ps_rsp_valid),
    .mem_req_valid_o,
    .mem_req_ready_i,
    .mem_req_write_o,
    .mem_req_addr_o,
    .mem_req_bytes_o,
    .mem_req_wdata_o,
    .mem_rsp_valid_i
  );

  // ---- Assertions (hw/common/flycol_assert.svh) ----
  `FLYCOL_ASSERT_NEVER(NoLdStartBusy_A, ld_start_i && ld_busy_o, clk_i, rst_ni)
  `FLYCOL_ASSERT_NEVER(NoPsStartBusy_A, ps_start_i && ps_busy_o, clk_i, rst_ni)
  `FLYCOL_ASSERT(LdDoneBusy_A, ld_done_o |-> ld_busy_o, clk_i, rst_ni)
  `FLYCOL_ASSERT(PsDoneBusy_A, ps_done_o |-> ps_busy_o, clk_i, rst_ni)
  `FLYCOL_ASSERT(ReqBytes_A, mem_req_valid_o |-> mem_req_bytes_o != '0 &&
                 32'(mem_req_addr_o[$clog2(flycol_pkg::BeatBytes)-1:0]) + 32'(mem_req_bytes_o) <= flycol_pkg::BeatBytes,
                 clk_i, rst_ni)
  `FLYCOL_ASSERT(OneBufferEach_A, $countones(ifmap_req_o) <= 1 && $countones(weight_req_o) <= 1 &&
                 $countones(psum_req_o) <= 1, clk_i, rst_ni)
  // Section 7.6: dst_ifmap (and dst_buf) only on a STORE_PSUMS; never an ifmap write by both
  // engines in one cycle.
  `FLYCOL_ASSERT(LdNoDst_A, ld_start_i |-> !ld_cmd_i.dma_dst_ifmap && ld_cmd_i.dma_dst_buf == 1'b0, clk_i, rst_ni)
  `FLYCOL_ASSERT(PsDstStore_A, (ps_start_i && ps_cmd_i.dma_dst_ifmap) |-> ps_cmd_i.op == flycol_pkg::OpStorePsums,
                 clk_i, rst_ni)
  `FLYCOL_ASSERT_NEVER(OneIfmapWriter_A, ld_ifmap_req != 2'b00 && ps_ifmap_req != 2'b00, clk_i, rst_ni)
  `FLYCOL_ASSERT_KNOWN(CtrlKnown_A, {ld_busy_o, ld_done_o, ps_busy_o, ps_done_o, mem_req_valid_o}, clk_i, rst_ni)
  `FLYCOL_COVER(DramStall_C, mem_req_valid_o && !mem_req_ready_i, clk_i, rst_ni)
  `FLYCOL_COVER(BothBusy_C, ld_busy_o && ps_busy_o, clk_i, rst_ni)
  `FLYCOL_COVER(StoreIntoIfmap_C, ps_ifmap_req != 2'b00, clk_i, rst_ni)

endmodule
