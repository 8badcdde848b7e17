// The memory arbiter (docs/microarchitecture.md 7.2), RTL twin of hw::MemArbiter
// (hw/dma/mem_arbiter.{h,cpp}): round robin between the LD engine (requester 0) and the PS engine
// (requester 1) on the one memory port, and the order FIFO that routes each in-order read response.
//
// No Cfg parameter: nothing here depends on the configuration (the memory port is fixed by
// flycol_pkg), and an unused parameter would need a lint waiver. Beats are flat vectors (byte
// lane j in bits [8*j +: 8]) because Yosys 0.23 reads no multi-dimensional packed ports.
`include "flycol_assert.svh"

module mem_arbiter (
  input  logic                    clk_i,           // clock
  input  logic                    rst_ni,          // asynchronous reset, active low
  // Requester 0: the LD engine (Moore request).
  input  logic                    ld_req_valid_i,  // a request
  input  logic                    ld_req_write_i,  // 1 write, 0 read
  input  flycol_pkg::dram_addr_t  ld_req_addr_i,   // byte address
  input  flycol_pkg::req_bytes_t  ld_req_bytes_i,  // 1..BEAT
  input  flycol_pkg::beat_t       ld_req_wdata_i,  // write data on the address's byte lanes
  output logic                    ld_req_fire_o,   // the LD request is taken this cycle
  output logic                    ld_rsp_valid_o,  // this cycle's read response is the LD engine's
  // Requester 1: the PS engine (Moore request).
  input  logic                    ps_req_valid_i,  // a request
  input  logic                    ps_req_write_i,  // 1 write, 0 read
  input  flycol_pkg::dram_addr_t  ps_req_addr_i,   // byte address
  input  flycol_pkg::req_bytes_t  ps_req_bytes_i,  // 1..BEAT
  input  flycol_pkg::beat_t       ps_req_wdata_i,  // write data on the address's byte lanes
  output logic                    ps_req_fire_o,   // the PS request is taken this cycle
  output logic                    ps_rsp_valid_o,  // this cycle's read response is the PS engine's
  // Memory port (section 7.1). Ready and the response are Moore outputs of the memory.
  output logic                    mem_req_valid_o, // a request is offered
  input  logic                    mem_req_ready_i, // the memory takes it this cycle
  output logic                    mem_req_write_o, // 1 write, 0 read
  output flycol_pkg::dram_addr_t  mem_req_addr_o,  // byte address
  output flycol_pkg::req_bytes_t  mem_req_bytes_o, // 1..BEAT, never across a BEAT boundary
  output flycol_pkg::beat_t       mem_req_wdata_o, // write data on the address's byte lanes
  input  logic                    mem_rsp_valid_i  // a read response (cannot be refused)
);

  localparam int unsigned OrderDepth = 2 * flycol_pkg::ChunkQueueDepth;
  localparam int unsigned LaneBits = $clog2(flycol_pkg::BeatBytes);      // byte lane in a beat
  localparam int unsigned SumBits = flycol_pkg::BytesBits + 1;                      // lane + bytes

  // Requester granted last: 1 = PS. Reset to 1 so that LD wins the first conflict; it only moves
  // when a request fires, so a requester refused by the memory keeps its turn.
  logic last_q, last_d;
  logic grant;  // requester offered to the memory this cycle: 0 LD, 1 PS
  logic fire;

  logic                            order_push, order_pop, order_head, order_full, order_empty;
  logic [$clog2(OrderDepth+1)-1:0] order_count;

  always_comb begin
    grant = (ld_req_valid_i && ps_req_valid_i) ? !last_q : ps_req_valid_i;
    mem_req_valid_o = ld_req_valid_i || ps_req_valid_i;
    mem_req_write_o = grant ? ps_req_write_i : ld_req_write_i;
    mem_req_addr_o = grant ? ps_req_addr_i : ld_req_addr_i;
    mem_req_bytes_o = grant ? ps_req_bytes_i : ld_req_bytes_i;
    mem_req_wdata_o = grant ? ps_req_wdata_i : ld_req_wdata_i;
    fire = mem_req_valid_o && mem_req_ready_i;
    ld_req_fire_o = fire && !grant;
    ps_req_fire_o = fire && grant;
    last_d = fire ? grant : last_q;
    // Every fired read records its requester; every response pops it.
    order_push = fire && !mem_req_write_o;
    order_pop = mem_rsp_valid_i;
`ifdef FLYCOL_BUG_ARB_ORDER
    // Formal twin: route the response by this cycle's grant instead of the order FIFO.
    ld_rsp_valid_o = mem_rsp_valid_i && !grant;
    ps_rsp_valid_o = mem_rsp_valid_i && grant;
`else
    ld_rsp_valid_o = mem_rsp_valid_i && !order_head;
    ps_rsp_valid_o = mem_rsp_valid_i && order_head;
`endif
  end

  fifo #(
    .Width(1),
    .Depth(OrderDepth)
  ) u_order_fifo (
    .clk_i,
    .rst_ni,
    .push_i (order_push),
    .wdata_i(grant),
    .pop_i  (order_pop),
    .rdata_o(order_head),
    .full_o (order_full),
    .empty_o(order_empty),
    .count_o(order_count)
  );

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      last_q <= 1'b1;
    end else begin
      last_q <= last_d;
    end
  end

  // count_o is not needed: full and empty say all the arbiter asks.
  logic unused_order_count;
  assign unused_order_count = ^order_count;

`ifndef SYNTHESIS
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (rst_ni && mem_rsp_valid_i && order_empty)
      $error("mem_arbiter: read response with no read outstanding");
    // Each engine reserves room for its responses (QD reads each), so 2*QD never overflows.
    if (rst_ni && order_push && order_full) $error("mem_arbiter: more than 2*QD reads outstanding");
    if (rst_ni && mem_req_valid_o &&
        (mem_req_bytes_o == '0 ||
         SumBits'(mem_req_addr_o[LaneBits-1:0]) + SumBits'(mem_req_bytes_o) >
             SumBits'(flycol_pkg::BeatBytes)))
      $error("mem_arbiter: request of %0d bytes at %0h leaves its beat", mem_req_bytes_o, mem_req_addr_o);
  end
`endif

  // ---- Assertions (hw/common/flycol_assert.svh) ----
  // Section 7.2: at most one grant, and a grant fires only on a request the memory takes.
  `FLYCOL_ASSERT_NEVER(OneFire_A, ld_req_fire_o && ps_req_fire_o, clk_i, rst_ni)
  `FLYCOL_ASSERT(LdFire_A, ld_req_fire_o |-> ld_req_valid_i && mem_req_valid_o && mem_req_ready_i, clk_i, rst_ni)
  `FLYCOL_ASSERT(PsFire_A, ps_req_fire_o |-> ps_req_valid_i && mem_req_valid_o && mem_req_ready_i, clk_i, rst_ni)
  `FLYCOL_ASSERT(ValidIsOr_A, mem_req_valid_o == (ld_req_valid_i || ps_req_valid_i), clk_i, rst_ni)
  `FLYCOL_ASSERT(RspOnce_A, !(ld_rsp_valid_o && ps_rsp_valid_o) && ((ld_rsp_valid_o || ps_rsp_valid_o) == mem_rsp_valid_i),
                 clk_i, rst_ni)
  `FLYCOL_ASSERT_NEVER(RspOutstanding_A, mem_rsp_valid_i && order_empty, clk_i, rst_ni)
  // Round robin: with both requesting, the one not granted last wins.
  `FLYCOL_ASSERT(RoundRobin_A, (ld_req_valid_i && ps_req_valid_i && mem_req_ready_i) |-> (ps_req_fire_o == !last_q),
                 clk_i, rst_ni)
  `FLYCOL_ASSERT_KNOWN(CtrlKnown_A, {mem_req_valid_o, ld_req_fire_o, ps_req_fire_o, ld_rsp_valid_o, ps_rsp_valid_o},
                       clk_i, rst_ni)
  // DRAM stall (request waits), both engines competing, reads in flight.
  `FLYCOL_COVER(DramStall_C, mem_req_valid_o && !mem_req_ready_i, clk_i, rst_ni)
  `FLYCOL_COVER(BothRequest_C, ld_req_valid_i && ps_req_valid_i, clk_i, rst_ni)
  `FLYCOL_COVER(ReadsInFlight_C, !order_empty && !mem_rsp_valid_i, clk_i, rst_ni)

endmodule
