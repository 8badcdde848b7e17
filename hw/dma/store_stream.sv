// The DMA store path of the PS engine (STORE_PSUMS, docs/microarchitecture.md 7.5), RTL twin of
// hw::StoreStream (hw/dma/store_stream.{h,cpp}): a reader that fetches the data words of every psum
// row, a word FIFO of depth 2, and a writer that cuts each word into beat-bounded write requests.
//
// Geometry parameters instead of Cfg, like stream_loader: the PS engine passes the psum word.
// Words and beats are flat vectors on the ports (Yosys 0.23 reads no multi-dimensional packed ports).
`include "flycol_assert.svh"

module store_stream #(
  parameter int unsigned ElemBits  = 16,    // element bits in DRAM and SRAM: 8, 16 or 32
  parameter int unsigned WordElems = 16,    // SRAM word in elements (1..64)
  parameter int unsigned Depth     = 1024,  // source buffer depth in words
  localparam int unsigned AddrBits = flycol_pkg::index_bits(Depth),  // SRAM word address bits
  // Memory port widths: DRAM byte address, request bytes (1..BEAT), one beat (lane j in [8*j +: 8]).
  localparam int unsigned DramAddrBits = flycol_pkg::DramAddrBits,
  localparam int unsigned BytesBits = flycol_pkg::BytesBits,
  localparam int unsigned BeatBits = flycol_pkg::BeatBits
) (
  input  logic                          clk_i,       // clock
  input  logic                          rst_ni,      // asynchronous reset, active low
  input  logic                          start_i,     // latch cmd_i at this edge (store idle)
  input  flycol_pkg::command_t          cmd_i,       // STORE_PSUMS: its dma_* fields
  output logic                          busy_o,      // from the cycle after the start to the done cycle
  output logic                          done_o,      // the last write fires this cycle (Mealy: req_fire_i); an empty store: no write
  // Memory request of the writer (Moore).
  output logic                          req_valid_o, // the head word's next chunk
  output logic [DramAddrBits-1:0]       req_addr_o,  // its byte address (0 without a request)
  output logic [BytesBits-1:0]          req_bytes_o, // its bytes (0 without a request)
  output logic [BeatBits-1:0]           req_wdata_o, // its data on the address's byte lanes, 0 elsewhere
  input  logic                          req_fire_i,  // the memory takes the request this cycle
  // Source SRAM read (Moore); the engine routes it to the command's buffer.
  output logic                          rd_o,        // read this cycle
  output logic [AddrBits-1:0]           rd_addr_o,   // word address
  input  logic [WordElems*ElemBits-1:0] rdata_i      // held read data: element e in [e*ElemBits +: ElemBits]
);

  localparam int unsigned FifoDepth = 2;  // kStoreWordFifoDepth
  // Command field widths (flycol_pkg), and the byte lane bits of a beat.
  localparam int unsigned FieldBits = flycol_pkg::CountBits;
  localparam int unsigned Field1Bits = FieldBits + 1;  // a count field plus one, without overflow
  localparam int unsigned StrideBits = flycol_pkg::ByteStrideBits;
  localparam int unsigned LaneBits = $clog2(flycol_pkg::BeatBytes);
  localparam int unsigned WordBits = WordElems * ElemBits;
  localparam int unsigned WideBits = (WordBits > BeatBits) ? WordBits : BeatBits;
  localparam int unsigned ElemBytes = ElemBits / 8;
  localparam int unsigned Log2ElemBytes = $clog2(ElemBytes);
  localparam int unsigned CountBits = $clog2(((WordElems > flycol_pkg::BeatBytes) ? WordElems
                                                                                 : flycol_pkg::BeatBytes) + 1);
  // A word's tag: {last word of the stream, data elements, DRAM byte address of element 0}.
  localparam int unsigned TagBits = 1 + CountBits + DramAddrBits;
  localparam int unsigned EntryBits = TagBits + WordBits;

  // ---------------------------------------------------------------------------------------------
  // Registers (the core's _q members).

  logic                    active_q, active_d;
  // Command registers, latched at the start.
  logic [FieldBits-1:0]    n_planes_q, n_rows_q, row_len_q;
  logic [StrideBits-1:0]   row_stride_q, plane_stride_q;
  logic [Field1Bits-1:0]   data_words_q;                    // per row: words with data
  logic [AddrBits-1:0]     row_words_q;                     // per row: words in SRAM (adds wrap at the depth)
  // Reader.
  logic                    more_q, more_d;                  // words left to read
  logic [FieldBits-1:0]    plane_q, plane_d, row_q, row_d;  // the row being read
  logic [Field1Bits-1:0]   word_q, word_d;                  // data word within the row
  logic [AddrBits-1:0]     row_sram_q, row_sram_d;          // SRAM word address of the row's start
  logic [DramAddrBits-1:0] plane_addr_q, plane_addr_d;      // DRAM byte address of the plane
  logic [DramAddrBits-1:0] row_addr_q, row_addr_d;          // and of the row
  logic                    inflight_q, inflight_d;          // a read issued last cycle
  logic [TagBits-1:0]      inflight_tag_q, inflight_tag_d;  // where its data goes
  // Writer.
  logic [CountBits-1:0]    elem_q, elem_d;                  // next element of the head word

  // ---------------------------------------------------------------------------------------------
  // Word FIFO.

  logic                           wf_push, wf_pop, wf_full, wf_empty;
  logic [EntryBits-1:0]           wf_wdata, wf_rdata;
  logic [$clog2(FifoDepth+1)-1:0] wf_count;

  fifo #(
    .Width(EntryBits),
    .Depth(FifoDepth)
  ) u_word_fifo (
    .clk_i,
    .rst_ni,
    .push_i (wf_push),
    .wdata_i(wf_wdata),
    .pop_i  (wf_pop),
    .rdata_o(wf_rdata),
    .full_o (wf_full),
    .empty_o(wf_empty),
    .count_o(wf_count)
  );

  // ---------------------------------------------------------------------------------------------
  // Writer outputs (the core's update_outputs()): the head word's next chunk.

  logic                    head_last;  // the head word ends the stream
  logic [CountBits-1:0]    head_n;     // its data elements
  logic [DramAddrBits-1:0] head_addr;  // DRAM byte address of its element 0
  logic [WordBits-1:0]     head_data;  // its data: element e in [e*ElemBits +: ElemBits]
  // The head data from the next element on, at least a beat wide. A chunk never spans more than
  // one beat, so the bits beyond the first beat are not needed.
  /* verilator lint_off UNUSEDSIGNAL */
  logic [WideBits-1:0] head_from_elem;
  /* verilator lint_on UNUSEDSIGNAL */
  logic [BeatBits-1:0]  chunk_data;  // the chunk's bytes from lane 0, zeros after them
  logic [BytesBits-1:0] beat_left;   // bytes to the end of the beat
  logic [CountBits-1:0] left;        // elements of the head word still to write
  logic [CountBits-1:0] beat_room;   // elements to the end of the beat (addresses are element aligned)
  logic [CountBits-1:0] req_elems;   // elements of the chunk
  logic [CountBits-1:0] req_bytes;   // its bytes

  always_comb begin
    {head_last, head_n, head_addr, head_data} = wf_rdata;
    req_valid_o = active_q && !wf_empty;
    req_addr_o = head_addr + (DramAddrBits'(elem_q) << Log2ElemBytes);
    left = head_n - elem_q;
    beat_left = BytesBits'(flycol_pkg::BeatBytes) - BytesBits'(req_addr_o[LaneBits-1:0]);
    beat_room = CountBits'(beat_left >> Log2ElemBytes);
    req_elems = (beat_room < left) ? beat_room : left;
    req_bytes = CountBits'(req_elems << Log2ElemBytes);
    head_from_elem = WideBits'(head_data) >> (32'(elem_q) * ElemBits);
    chunk_data = head_from_elem[BeatBits-1:0];
    for (int unsigned b = 0; b < flycol_pkg::BeatBytes; b++) begin
      if (CountBits'(b) >= req_bytes) chunk_data[b*8 +: 8] = '0;
    end
    req_wdata_o = chunk_data << {req_addr_o[LaneBits-1:0], 3'b000};
    req_bytes_o = BytesBits'(req_bytes);
    if (!req_valid_o) begin
      req_addr_o = '0;
      req_bytes_o = '0;
      req_wdata_o = '0;
      req_elems = '0;
    end
  end

  // ---------------------------------------------------------------------------------------------
  // Reader and writer state.

  logic [Field1Bits-1:0] row_next, plane_next;
  logic [TagBits-1:0]    rd_tag;   // tag_of(reader position)
  logic [Field1Bits-1:0] rd_elem;  // first element of the word within the row
  logic [Field1Bits-1:0] rd_left;  // data elements of the row from that word on
  logic [CountBits-1:0]  rd_count; // data elements of that word

  always_comb begin
    more_d = more_q;
    plane_d = plane_q;
    row_d = row_q;
    word_d = word_q;
    row_sram_d = row_sram_q;
    plane_addr_d = plane_addr_q;
    row_addr_d = row_addr_q;
    active_d = active_q;
    inflight_d = 1'b0;
    inflight_tag_d = inflight_tag_q;
    elem_d = elem_q;
    wf_push = 1'b0;
    wf_pop = 1'b0;
    rd_o = 1'b0;
    done_o = 1'b0;
    row_next = Field1Bits'(row_q) + Field1Bits'(1);
    plane_next = Field1Bits'(plane_q) + Field1Bits'(1);

    rd_elem = Field1Bits'(word_q * WordElems);
    rd_left = Field1Bits'(row_len_q) - rd_elem;
    // Not inside the concatenation: Yosys 0.23 gives a ?: holding a narrowing cast the width of
    // the cast's operand, which pushed the `last` bit out of the tag.
    rd_count = (rd_left < Field1Bits'(WordElems)) ? CountBits'(rd_left) : CountBits'(WordElems);
    rd_tag = {word_q + Field1Bits'(1) == data_words_q && row_next == Field1Bits'(n_rows_q) &&
                  plane_next == Field1Bits'(n_planes_q),
              rd_count,
              row_addr_q + (DramAddrBits'(rd_elem) << Log2ElemBytes)};
    wf_wdata = {inflight_tag_q, rdata_i};

    if (active_q) begin
      // Last cycle's read data enters the FIFO; a new read if FIFO + in flight < 2 (registered).
      wf_push = inflight_q;
      if (more_q && 32'(wf_count) + 32'(inflight_q) < FifoDepth) begin
        rd_o = 1'b1;
        inflight_d = 1'b1;
        inflight_tag_d = rd_tag;
        if (word_q + Field1Bits'(1) < data_words_q) begin
          word_d = word_q + Field1Bits'(1);
        end else begin
          word_d = '0;
          row_sram_d = row_sram_q + row_words_q;
          if (row_next < Field1Bits'(n_rows_q)) begin
            row_d = row_next[FieldBits-1:0];
            row_addr_d = row_addr_q + DramAddrBits'(row_stride_q);
          end else if (plane_next < Field1Bits'(n_planes_q)) begin
            plane_d = plane_next[FieldBits-1:0];
            row_d = '0;
            plane_addr_d = plane_addr_q + DramAddrBits'(plane_stride_q);
            row_addr_d = plane_addr_d;
          end else begin
            more_d = 1'b0;
          end
        end
      end

      // Writer: the head word's chunk went out if the request fired.
      if (req_fire_i) begin
        elem_d = elem_q + req_elems;
        if (elem_d == head_n) begin
          wf_pop = 1'b1;
          elem_d = '0;
          if (head_last) begin
            done_o = 1'b1;
            active_d = 1'b0;
          end
        end
      end else if (!more_q && !inflight_q && wf_empty) begin  // an empty store
        done_o = 1'b1;
        active_d = 1'b0;
      end
    end
  end

  assign rd_addr_o = row_sram_q + AddrBits'(word_q);
  assign busy_o = active_q;

  // ---------------------------------------------------------------------------------------------
  // Start (the core's tick() with a start request).

  logic [Field1Bits-1:0] s_data_words;
  // Words per SRAM row; the reader adds them modulo the depth, so only the address bits are kept.
  /* verilator lint_off UNUSEDSIGNAL */
  logic [Field1Bits-1:0] s_row_words;
  /* verilator lint_on UNUSEDSIGNAL */

  always_comb begin
    s_data_words = (Field1Bits'(cmd_i.dma_row_len) + Field1Bits'(WordElems - 1)) / Field1Bits'(WordElems);
    s_row_words = (Field1Bits'(cmd_i.dma_row_len) + Field1Bits'(cmd_i.dma_pad_right)) /
                  Field1Bits'(WordElems);
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      active_q <= 1'b0;
      n_planes_q <= '0;
      n_rows_q <= '0;
      row_len_q <= '0;
      row_stride_q <= '0;
      plane_stride_q <= '0;
      data_words_q <= '0;
      row_words_q <= '0;
      more_q <= 1'b0;
      plane_q <= '0;
      row_q <= '0;
      word_q <= '0;
      row_sram_q <= '0;
      plane_addr_q <= '0;
      row_addr_q <= '0;
      inflight_q <= 1'b0;
      inflight_tag_q <= '0;
      elem_q <= '0;
    end else if (start_i) begin
      active_q <= 1'b1;
      n_planes_q <= cmd_i.dma_n_planes;
      n_rows_q <= cmd_i.dma_n_rows;
      row_len_q <= cmd_i.dma_row_len;
      row_stride_q <= cmd_i.dma_row_stride;
      plane_stride_q <= cmd_i.dma_plane_stride;
      data_words_q <= s_data_words;
      row_words_q <= s_row_words[AddrBits-1:0];
      more_q <= cmd_i.dma_n_planes != '0 && cmd_i.dma_n_rows != '0 && cmd_i.dma_row_len != '0;
      plane_q <= '0;
      row_q <= '0;
      word_q <= '0;
      row_sram_q <= '0;
      plane_addr_q <= cmd_i.dma_dram_addr;
      row_addr_q <= cmd_i.dma_dram_addr;
      inflight_q <= 1'b0;
      inflight_tag_q <= inflight_tag_d;
      elem_q <= '0;
    end else begin
      active_q <= active_d;
      more_q <= more_d;
      plane_q <= plane_d;
      row_q <= row_d;
      word_q <= word_d;
      row_sram_q <= row_sram_d;
      plane_addr_q <= plane_addr_d;
      row_addr_q <= row_addr_d;
      inflight_q <= inflight_d;
      inflight_tag_q <= inflight_tag_d;
      elem_q <= elem_d;
    end
  end

  // Only the dma_* fields of the command belong to the store (and pad_right only to the start).
  logic unused_signals;
  assign unused_signals = ^{cmd_i.op, cmd_i.dma_elem_step, cmd_i.wait_ld, cmd_i.wait_ex, cmd_i.wait_ps, cmd_i.dma_buf,
                            cmd_i.run_ifmap_buf, cmd_i.run_weight_buf, cmd_i.run_psum_buf, cmd_i.run_preload,
                            cmd_i.run_n_kg, cmd_i.run_n_cy, cmd_i.run_n_cx, cmd_i.run_n_c, cmd_i.run_n_ky,
                            cmd_i.run_n_kx, cmd_i.run_step_cx, cmd_i.run_step_cy, cmd_i.run_step_c,
                            cmd_i.run_step_ky, cmd_i.run_region, cmd_i.run_lane_stride, cmd_i.run_pattern,
                            cmd_i.run_n_kxc, cmd_i.run_step_kxc, cmd_i.run_region_kxc, cmd_i.run_pattern_kxc,
                            cmd_i.run_pack_w, cmd_i.run_pack_r, cmd_i.run_pack_jump,
                            wf_full};

  // ---------------------------------------------------------------------------------------------
  // Assertions: the descriptor checks of StoreStream::start() and the port protocol.

`ifndef SYNTHESIS
  initial begin
    if (!(ElemBits == 8 || ElemBits == 16 || ElemBits == 32))
      $fatal(1, "store_stream: ElemBits must be 8, 16 or 32, not %0d", ElemBits);
    if (!(WordElems >= 1 && WordElems <= 64)) $fatal(1, "store_stream: WordElems must be 1..64");
    if (!(Depth >= 1)) $fatal(1, "store_stream: Depth must be at least 1");
  end

  logic [63:0] chk_w, chk_total;
  always_comb begin
    chk_w = 64'(cmd_i.dma_row_len) + 64'(cmd_i.dma_pad_right);
    chk_total = 64'(cmd_i.dma_n_planes) * 64'(cmd_i.dma_n_rows) * chk_w;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (rst_ni && start_i) begin
      if (active_q) $error("store_stream: start while busy");
      if ((cmd_i.dma_dram_addr[1:0] & 2'(ElemBytes - 1)) != '0 ||
          (cmd_i.dma_row_stride[1:0] & 2'(ElemBytes - 1)) != '0 ||
          (cmd_i.dma_plane_stride[1:0] & 2'(ElemBytes - 1)) != '0)
        $error("store_stream: DRAM address or stride not element aligned (%0d bytes)", ElemBytes);
      if (cmd_i.dma_pad_left != '0 || cmd_i.dma_pad_top != '0 || cmd_i.dma_pad_bottom != '0 ||
          cmd_i.dma_tail != '0)
        $error("store_stream: STORE_PSUMS uses no padding but pad_right");
      if (cmd_i.dma_elem_step != 8'd1) $error("store_stream: STORE_PSUMS writes dense rows (element step 1)");
      if (chk_w % 64'(WordElems) != '0)
        $error("store_stream: row_len + pad_right = %0d is not a whole number of %0d-element words", chk_w,
               WordElems);
      if (chk_total > 64'(Depth) * 64'(WordElems))
        $error("store_stream: stream of %0d elements exceeds the buffer", chk_total);
      if (!wf_empty || inflight_q) $error("store_stream: start with data left from a command");
    end
    if (rst_ni && req_fire_i && !req_valid_o) $error("store_stream: request fired while req_valid is low");
  end
`endif

  // ---- Assertions (hw/common/flycol_assert.svh) ----
  `FLYCOL_ASSERT_NEVER(NoStartBusy_A, start_i && busy_o, clk_i, rst_ni)
  `FLYCOL_ASSERT(FireOnRequest_A, req_fire_i |-> req_valid_o, clk_i, rst_ni)
  `FLYCOL_ASSERT(NoReqZero_A, !req_valid_o |-> req_bytes_o == '0 && req_addr_o == '0, clk_i, rst_ni)
  `FLYCOL_ASSERT(ReqBytes_A, req_valid_o |-> req_bytes_o != '0, clk_i, rst_ni)
  // A request waits for the memory with the same chunk (its words sit in the word FIFO).
  `FLYCOL_ASSERT_STREAM(Req, req_valid_o, req_fire_i, {req_addr_o, req_bytes_o, req_wdata_o}, clk_i, rst_ni)
  // Done comes with the last write's fire; an empty store (no DRAM data) is done without one.
  `FLYCOL_ASSERT(DoneBusy_A, done_o |-> busy_o, clk_i, rst_ni)
  `FLYCOL_ASSERT(DoneOnFire_A, (done_o && req_valid_o) |-> req_fire_i, clk_i, rst_ni)
  `FLYCOL_ASSERT(RdInRange_A, rd_o |-> 32'(rd_addr_o) < Depth, clk_i, rst_ni)
  `FLYCOL_ASSERT_KNOWN(CtrlKnown_A, {busy_o, done_o, req_valid_o, rd_o}, clk_i, rst_ni)
  `FLYCOL_COVER(WordFifoFull_C, wf_full, clk_i, rst_ni)
  `FLYCOL_COVER(DramStall_C, req_valid_o && !req_fire_i, clk_i, rst_ni)

endmodule
