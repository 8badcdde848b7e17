// The LD engine (docs/microarchitecture.md 7.4), RTL twin of hw::LoadEngine
// (hw/dma/load_engine.{h,cpp}): runs LOAD_IFMAP into an ifmap buffer and LOAD_WEIGHTS into a
// weight buffer, one command at a time, on its copy of the load path (stream_loader).
`include "flycol_assert.svh"

module load_engine #(
  parameter flycol_pkg::cfg_t Cfg = flycol_cfg_pkg::Cfg,
  // Derived: element bits, ifmap word (B) and weight word (COLS) in elements, address bits.
  localparam int unsigned ElemBits = Cfg.elem_bits,
  localparam int unsigned Bus = Cfg.bus_elems,
  localparam int unsigned Cols = Cfg.cols,
  localparam int unsigned IfmapAddrBits = flycol_pkg::index_bits(Cfg.ifmap_depth),
  localparam int unsigned WeightAddrBits = flycol_pkg::index_bits(Cfg.weight_depth)
) (
  input  logic                      clk_i,          // clock
  input  logic                      rst_ni,         // asynchronous reset, active low
  // Command port (the controller starts the engine while it is idle).
  input  logic                      start_i,        // start cmd_i (idle): latched at the edge
  input  flycol_pkg::command_t      cmd_i,          // LOAD_IFMAP or LOAD_WEIGHTS
  output logic                      busy_o,         // from the cycle after the start to the done cycle
  output logic                      done_o,         // the command completes this cycle
  // Memory request (Moore) and responses, through the memory arbiter.
  output logic                      req_valid_o,    // a read request
  output logic                      req_write_o,    // always 0: the LD engine only reads
  output flycol_pkg::dram_addr_t    req_addr_o,     // byte address
  output flycol_pkg::req_bytes_t    req_bytes_o,    // 1..BEAT (0 without a request)
  output flycol_pkg::beat_t         req_wdata_o,    // always 0
  input  logic                      req_fire_i,     // the request is taken this cycle
  input  logic                      rsp_valid_i,    // a read response for this engine
  input  flycol_pkg::beat_t         rsp_rdata_i,    // its data: byte lane j in [8*j +: 8]
  // ifmap SRAM, write only (no read data). req_o has a bit per buffer; the rest is shared by
  // both buffers and meaningful for the one whose req bit is set.
  output logic [1:0]                ifmap_req_o,    // bit b: access buffer b this cycle
  output logic                      ifmap_we_o,     // write (high with every req)
  output logic [IfmapAddrBits-1:0]  ifmap_addr_o,   // word address
  output logic [Bus*ElemBits-1:0]   ifmap_wdata_o,  // write word: element e in [e*ElemBits +: ElemBits]
  output logic [Bus-1:0]            ifmap_wmask_o,  // elements written
  // Weight SRAM, write only, same shape.
  output logic [1:0]                weight_req_o,   // bit b: access buffer b this cycle
  output logic                      weight_we_o,    // write (high with every req)
  output logic [WeightAddrBits-1:0] weight_addr_o,  // word address
  output logic [Cols*ElemBits-1:0]  weight_wdata_o, // write word: element e in [e*ElemBits +: ElemBits]
  output logic [Cols-1:0]           weight_wmask_o  // elements written
);

  // One loader writes both kinds of buffer: its word register is the wider of the two words.
  localparam int unsigned WordElems = (Bus > Cols) ? Bus : Cols;
  localparam int unsigned MaxDepth = (Cfg.ifmap_depth > Cfg.weight_depth) ? Cfg.ifmap_depth
                                                                          : Cfg.weight_depth;
  localparam int unsigned AddrBits = flycol_pkg::index_bits(MaxDepth);
  localparam int unsigned CountBits = $clog2(((WordElems > flycol_pkg::BeatBytes) ? WordElems
                                                                                 : flycol_pkg::BeatBytes) + 1);

  logic weights_q;  // destination: weight (else ifmap) buffers
  logic buf_q;      // destination buffer
  logic start_weights;

  logic                          wr;
  logic [AddrBits-1:0]           wr_addr;
  logic [WordElems*ElemBits-1:0] wr_data;
  logic [WordElems-1:0]          wr_mask;

  assign start_weights = cmd_i.op == flycol_pkg::OpLoadWeights;

  stream_loader #(
    .ElemBits (ElemBits),
    .WordElems(WordElems),
    .MaxDepth (MaxDepth),
    .MaxElemStep(4)  // ifmap rows may be gathered (hw::kMaxElemStep); weights never are
  ) u_loader (
    .clk_i,
    .rst_ni,
    .start_i,
    .cmd_i,
    .word_elems_i (start_weights ? CountBits'(Cols) : CountBits'(Bus)),
    .depth_words_i(start_weights ? 32'(Cfg.weight_depth) : 32'(Cfg.ifmap_depth)),
    .busy_o,
    .done_o,
    .req_valid_o,
    .req_addr_o,
    .req_bytes_o,
    .req_fire_i,
    .rsp_valid_i,
    .rsp_rdata_i,
    .wr_o         (wr),
    .wr_addr_o    (wr_addr),
    .wr_data_o    (wr_data),
    .wr_mask_o    (wr_mask)
  );

  assign req_write_o = 1'b0;
  assign req_wdata_o = '0;

  // The loader's write goes to the buffer latched with the command (a function of registers).
  always_comb begin
    ifmap_req_o = 2'b00;
    weight_req_o = 2'b00;
    if (weights_q) weight_req_o[buf_q] = wr;
    else ifmap_req_o[buf_q] = wr;
    ifmap_we_o = wr;
    ifmap_addr_o = IfmapAddrBits'(wr_addr);
    ifmap_wdata_o = wr_data[Bus*ElemBits-1:0];
    ifmap_wmask_o = wr_mask[Bus-1:0];
    weight_we_o = wr;
    weight_addr_o = WeightAddrBits'(wr_addr);
    weight_wdata_o = wr_data[Cols*ElemBits-1:0];
    weight_wmask_o = wr_mask[Cols-1:0];
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      weights_q <= 1'b0;
      buf_q <= 1'b0;
    end else if (start_i) begin
      weights_q <= start_weights;
      buf_q <= cmd_i.dma_buf;
    end
  end

`ifndef SYNTHESIS
  initial begin
    if (!(Cfg.elem_bits == 8 || Cfg.elem_bits == 16)) $fatal(1, "load_engine: elem_bits must be 8 or 16");
    if (!(Bus >= 1 && Bus <= 64 && Cols >= 1 && Cols <= 64))
      $fatal(1, "load_engine: SRAM words of %0d (ifmap) and %0d (weights) elements, allowed 1..64", Bus, Cols);
    if (!(Cfg.ifmap_depth >= 1 && Cfg.weight_depth >= 1)) $fatal(1, "load_engine: SRAM depths must be >= 1");
  end
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (rst_ni && start_i && cmd_i.op != flycol_pkg::OpLoadIfmap && cmd_i.op != flycol_pkg::OpLoadWeights)
      $error("load_engine: cannot execute opcode %0d", cmd_i.op);
    if (rst_ni && start_i && cmd_i.op == flycol_pkg::OpLoadWeights && cmd_i.dma_elem_step != 8'd1)
      $error("load_engine: LOAD_WEIGHTS with element step %0d (only LOAD_IFMAP gathers)", cmd_i.dma_elem_step);
    if (rst_ni && start_i && (cmd_i.dma_dst_ifmap || cmd_i.dma_dst_buf != '0))
      $error("load_engine: opcode %0d with dst_ifmap or dst_buf (STORE_PSUMS only)", cmd_i.op);
    if (rst_ni && start_i && cmd_i.op == flycol_pkg::OpLoadWeights && cmd_i.dma_pad_value != '0)
      $error("load_engine: LOAD_WEIGHTS with padding value %0h (only LOAD_IFMAP pads with a value)",
             cmd_i.dma_pad_value);
  end
`endif

  // ---- Assertions (hw/common/flycol_assert.svh) ----
  `FLYCOL_ASSERT_NEVER(NoStartBusy_A, start_i && busy_o, clk_i, rst_ni)
  `FLYCOL_ASSERT_NEVER(ReadOnly_A, req_write_o || req_wdata_o != '0, clk_i, rst_ni)
  `FLYCOL_ASSERT(FireOnRequest_A, req_fire_i |-> req_valid_o, clk_i, rst_ni)
  `FLYCOL_ASSERT(NoReqNoBytes_A, !req_valid_o |-> req_bytes_o == '0, clk_i, rst_ni)
  `FLYCOL_ASSERT(ReqBytes_A, req_valid_o |-> req_bytes_o != '0 && 32'(req_bytes_o) <= flycol_pkg::BeatBytes,
                 clk_i, rst_ni)
  `FLYCOL_ASSERT(OneBuffer_A, $countones(ifmap_req_o) + $countones(weight_req_o) <= 1, clk_i, rst_ni)
  `FLYCOL_ASSERT(ReqWrites_A, (ifmap_req_o == '0 || ifmap_we_o) && (weight_req_o == '0 || weight_we_o), clk_i, rst_ni)
  `FLYCOL_ASSERT(DoneBusy_A, done_o |-> busy_o, clk_i, rst_ni)
  `FLYCOL_ASSERT_KNOWN(CtrlKnown_A, {busy_o, done_o, req_valid_o, ifmap_req_o, weight_req_o}, clk_i, rst_ni)
  `FLYCOL_COVER(ReqWaits_C, req_valid_o && !req_fire_i, clk_i, rst_ni)
  `FLYCOL_COVER(Done_C, done_o, clk_i, rst_ni)

endmodule
