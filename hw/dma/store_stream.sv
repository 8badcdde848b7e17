// The DMA store path of the PS engine (STORE_PSUMS, docs/microarchitecture.md 7.5), RTL twin of
// hw::StoreStream (hw/dma/store_stream.{h,cpp}): a reader that fetches the data words of every psum
// row (word-aligned rows) or plane (packed rows), a word FIFO of depth 2, and a writer that keeps the
// DRAM position and cuts each word into write requests bounded by the word, the row and the beat.
// With dma_dst_ifmap (section 7.6) the position is a byte address in an ifmap buffer, a chunk is
// bounded by DB = min(BEAT, ifmap word) instead of the beat, and it is also given as the ifmap word
// write it makes (dst_*_o); the engine routes it to the ifmap port instead of the memory arbiter.
//
// Geometry parameters instead of Cfg, like stream_loader: the PS engine passes the psum word and
// the ifmap word and depth.
// Words and beats are flat vectors on the ports (Yosys 0.23 reads no multi-dimensional packed ports).
`include "flycol_assert.svh"

module store_stream #(
  parameter int unsigned ElemBits  = 16,    // element bits in DRAM and SRAM: 8, 16 or 32
  parameter int unsigned WordElems = 16,    // SRAM word in elements (1..64)
  parameter int unsigned Depth     = 1024,  // source buffer depth in words
  parameter int unsigned DstElems  = 16,    // dst_ifmap: the ifmap word in elements (ElemBits each)
  parameter int unsigned DstDepth  = 1024,  // dst_ifmap: the ifmap buffer depth in words
  parameter bit          DstEnable = 1'b1,  // dst_ifmap is possible (0: the bit is ignored, checked at start)
  localparam int unsigned AddrBits = flycol_pkg::index_bits(Depth),  // SRAM word address bits
  localparam int unsigned DstAddrBits = flycol_pkg::index_bits(DstDepth),  // ifmap word address bits
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
  input  logic [WordElems*ElemBits-1:0] rdata_i,     // held read data: element e in [e*ElemBits +: ElemBits]
  // dst_ifmap (section 7.6): the request is the ifmap write below; req_fire_i says it was made.
  output logic                          to_ifmap_o,  // the command writes an ifmap buffer (a register)
  output logic [DstAddrBits-1:0]        dst_addr_o,  // the chunk's ifmap word (0 without a request)
  output logic [DstElems*ElemBits-1:0]  dst_data_o,  // its elements at their word positions, 0 elsewhere
  output logic [DstElems-1:0]           dst_mask_o   // exactly those positions
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
  // Reader word counts: a row's data words, or a packed plane's words (at most the depth).
  localparam int unsigned RdWordBits = (Field1Bits > AddrBits + 1) ? Field1Bits : AddrBits + 1;
  // dst_ifmap: the ifmap word in bytes (a power of two), its byte-offset bits, and DB, the block a
  // chunk may not cross (section 7.6).
  localparam int unsigned DstWordBytes = DstElems * ElemBytes;
  localparam int unsigned DstOffBits = $clog2(DstWordBytes);
  localparam int unsigned DstBlockBytes = (DstWordBytes < flycol_pkg::BeatBytes) ? DstWordBytes
                                                                                 : flycol_pkg::BeatBytes;
  localparam int unsigned DstBits = DstElems * ElemBits;
  localparam int unsigned DstWideBits = (DstBits > BeatBits) ? DstBits : BeatBits;

  // ---------------------------------------------------------------------------------------------
  // Registers (the core's _q members).

  logic                    active_q, active_d;
  // Command registers, latched at the start.
  logic [FieldBits-1:0]    n_planes_q, n_rows_q, row_len_q;
  logic [StrideBits-1:0]   row_stride_q, plane_stride_q;
  logic                    packed_q;                        // packed rows (section 7.5)
  logic                    to_ifmap_q;                      // dst_ifmap: rows into an ifmap buffer (7.6)
  logic [FieldBits-1:0]    rd_rows_q;                       // reader rows per plane: n_rows, or 1 when packed
  logic [RdWordBits-1:0]   data_words_q;                    // per reader row: words with data
  logic [AddrBits-1:0]     row_words_q;                     // per reader row: words in SRAM (adds wrap at the depth)
  // Reader.
  logic                    more_q, more_d;                  // words left to read
  logic [FieldBits-1:0]    plane_q, plane_d, row_q, row_d;  // the reader row being read
  logic [RdWordBits-1:0]   word_q, word_d;                  // data word within the row
  logic [AddrBits-1:0]     row_sram_q, row_sram_d;          // SRAM word address of the row's start
  logic                    inflight_q, inflight_d;          // a read issued last cycle
  // Writer: the DRAM position of the head word's next element.
  logic [CountBits-1:0]    elem_q, elem_d;                  // next element of the head word
  logic [FieldBits-1:0]    w_plane_q, w_plane_d, w_row_q, w_row_d, w_col_q, w_col_d;
  logic [DramAddrBits-1:0] w_plane_addr_q, w_plane_addr_d;  // DRAM byte address of the plane
  logic [DramAddrBits-1:0] w_row_addr_q, w_row_addr_d;      // and of the row

  // ---------------------------------------------------------------------------------------------
  // Word FIFO.

  logic                           wf_push, wf_pop, wf_full, wf_empty;
  logic [WordBits-1:0]            wf_wdata, wf_rdata;
  logic [$clog2(FifoDepth+1)-1:0] wf_count;

  fifo #(
    .Width(WordBits),
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
  // Writer outputs (the core's update_outputs()): the head word's next chunk, which ends at the
  // word's end, the row's end or the beat's end.

  logic [WordBits-1:0]     head_data;  // the head word: element e in [e*ElemBits +: ElemBits]
  // The head data from the next element on, at least a beat wide. A chunk never spans more than
  // one beat, so the bits beyond the first beat are not needed.
  /* verilator lint_off UNUSEDSIGNAL */
  logic [WideBits-1:0] head_from_elem;
  /* verilator lint_on UNUSEDSIGNAL */
  logic [BeatBits-1:0]  chunk_data;  // the chunk's bytes from lane 0, zeros after them
  logic [BytesBits-1:0] block_bytes; // the block a chunk stays in: the beat, or DB into an ifmap buffer
  logic [BytesBits-1:0] beat_left;   // bytes to the end of the block
  logic [CountBits-1:0]  left;        // elements of the head word still to write
  logic [Field1Bits-1:0] row_left;    // elements of the row still to write
  logic [CountBits-1:0]  beat_room;   // elements to the end of the block (addresses are element aligned)
  logic [CountBits-1:0]  req_elems;   // elements of the chunk
  logic [CountBits-1:0]  req_bytes;   // its bytes
  logic                  req_row_end; // the chunk ends its row
  // dst_ifmap: the chunk's ifmap word (above the buffer's address bits only in a bad command, which
  // the start check reports), its first element in the word, and the word's data before trimming.
  /* verilator lint_off UNUSEDSIGNAL */
  logic [DramAddrBits-1:0] dst_word;
  logic [DstWideBits-1:0]  dst_wide;
  /* verilator lint_on UNUSEDSIGNAL */
  logic [DstOffBits-1:0]   dst_pos;

  always_comb begin
    head_data = wf_rdata;
    req_valid_o = active_q && !wf_empty;
    req_addr_o = w_row_addr_q + (DramAddrBits'(w_col_q) << Log2ElemBytes);
    left = CountBits'(WordElems) - elem_q;
    row_left = Field1Bits'(row_len_q) - Field1Bits'(w_col_q);
    block_bytes = to_ifmap_q ? BytesBits'(DstBlockBytes) : BytesBits'(flycol_pkg::BeatBytes);
    beat_left = block_bytes - (BytesBits'(req_addr_o[LaneBits-1:0]) & (block_bytes - BytesBits'(1)));
    beat_room = CountBits'(beat_left >> Log2ElemBytes);
    req_elems = (beat_room < left) ? beat_room : left;
    if (row_left < Field1Bits'(req_elems)) req_elems = CountBits'(row_left);
    req_row_end = Field1Bits'(req_elems) == row_left;
    req_bytes = CountBits'(req_elems << Log2ElemBytes);
    head_from_elem = WideBits'(head_data) >> (32'(elem_q) * ElemBits);
    chunk_data = head_from_elem[BeatBits-1:0];
    for (int unsigned b = 0; b < flycol_pkg::BeatBytes; b++) begin
      if (CountBits'(b) >= req_bytes) chunk_data[b*8 +: 8] = '0;
    end
    req_wdata_o = chunk_data << {req_addr_o[LaneBits-1:0], 3'b000};
    req_bytes_o = BytesBits'(req_bytes);
    // dst_ifmap: ifmap word addr / (B*EB), the chunk's elements from (addr mod (B*EB)) / EB on.
    dst_word = req_addr_o >> DstOffBits;
    dst_pos = DstOffBits'(req_addr_o[DstOffBits-1:0] >> Log2ElemBytes);
    dst_wide = DstWideBits'(chunk_data) << (32'(dst_pos) * ElemBits);
    for (int unsigned e = 0; e < DstElems; e++) begin
      dst_mask_o[e] = 32'(e) >= 32'(dst_pos) && 32'(e) < 32'(dst_pos) + 32'(req_elems);
    end
    dst_addr_o = dst_word[DstAddrBits-1:0];
    dst_data_o = dst_wide[DstBits-1:0];
    if (!req_valid_o || !to_ifmap_q) begin
      dst_addr_o = '0;
      dst_data_o = '0;
      dst_mask_o = '0;
    end
    if (!req_valid_o) begin
      req_addr_o = '0;
      req_bytes_o = '0;
      req_wdata_o = '0;
      req_elems = '0;
      req_row_end = 1'b0;
    end
  end
  assign to_ifmap_o = active_q && to_ifmap_q;

  // ---------------------------------------------------------------------------------------------
  // Reader and writer state.

  logic [Field1Bits-1:0] row_next, plane_next, w_row_next, w_plane_next;
  logic                  w_pop, w_plane_end;

  always_comb begin
    more_d = more_q;
    plane_d = plane_q;
    row_d = row_q;
    word_d = word_q;
    row_sram_d = row_sram_q;
    active_d = active_q;
    inflight_d = 1'b0;
    elem_d = elem_q;
    w_plane_d = w_plane_q;
    w_row_d = w_row_q;
    w_col_d = w_col_q;
    w_plane_addr_d = w_plane_addr_q;
    w_row_addr_d = w_row_addr_q;
    w_pop = 1'b0;
    w_plane_end = 1'b0;
    wf_push = 1'b0;
    wf_pop = 1'b0;
    rd_o = 1'b0;
    done_o = 1'b0;
    row_next = Field1Bits'(row_q) + Field1Bits'(1);
    plane_next = Field1Bits'(plane_q) + Field1Bits'(1);
    w_row_next = Field1Bits'(w_row_q) + Field1Bits'(1);
    w_plane_next = Field1Bits'(w_plane_q) + Field1Bits'(1);
    wf_wdata = rdata_i;

    if (active_q) begin
      // Last cycle's read data enters the FIFO; a new read if FIFO + in flight < 2 (registered).
      wf_push = inflight_q;
      if (more_q && 32'(wf_count) + 32'(inflight_q) < FifoDepth) begin
        rd_o = 1'b1;
        inflight_d = 1'b1;
        if (word_q + RdWordBits'(1) < data_words_q) begin
          word_d = word_q + RdWordBits'(1);
        end else begin
          word_d = '0;
          row_sram_d = row_sram_q + row_words_q;
          if (row_next < Field1Bits'(rd_rows_q)) begin
            row_d = row_next[FieldBits-1:0];
          end else if (plane_next < Field1Bits'(n_planes_q)) begin
            plane_d = plane_next[FieldBits-1:0];
            row_d = '0;
          end else begin
            more_d = 1'b0;
          end
        end
      end

      // Writer: the head word's chunk went out if the request fired. The word is popped after its
      // last element, after a row end (word-aligned rows: the rest is pad_right) or after a plane
      // end (packed rows: the rest is tail).
      if (req_fire_i) begin
        elem_d = elem_q + req_elems;
        w_col_d = w_col_q + FieldBits'(req_elems);
        w_pop = elem_d == CountBits'(WordElems);
        if (req_row_end) begin
          w_col_d = '0;
          w_plane_end = w_row_next == Field1Bits'(n_rows_q);
          if (!packed_q || w_plane_end) w_pop = 1'b1;
          if (!w_plane_end) begin
            w_row_d = w_row_next[FieldBits-1:0];
            w_row_addr_d = w_row_addr_q + DramAddrBits'(row_stride_q);
          end else if (w_plane_next < Field1Bits'(n_planes_q)) begin
            w_plane_d = w_plane_next[FieldBits-1:0];
            w_row_d = '0;
            w_plane_addr_d = w_plane_addr_q + DramAddrBits'(plane_stride_q);
            w_row_addr_d = w_plane_addr_d;
          end else begin
            done_o = 1'b1;
            active_d = 1'b0;
          end
        end
        if (w_pop) begin
          wf_pop = 1'b1;
          elem_d = '0;
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

  logic                  s_packed;
  logic [2*FieldBits:0]  s_plane_elems;  // packed: n_rows * row_len + tail
  /* verilator lint_off UNUSEDSIGNAL */
  logic [2*FieldBits:0]  s_data_words;   // at most the depth in a valid command
  // Words per SRAM row; the reader adds them modulo the depth, so only the address bits are kept.
  logic [Field1Bits-1:0] s_row_words;
  /* verilator lint_on UNUSEDSIGNAL */

  always_comb begin
    s_packed = ((Field1Bits'(cmd_i.dma_row_len) + Field1Bits'(cmd_i.dma_pad_right)) % Field1Bits'(WordElems)) != '0;
    s_plane_elems = (2*FieldBits+1)'(cmd_i.dma_n_rows) * (2*FieldBits+1)'(cmd_i.dma_row_len) +
                    (2*FieldBits+1)'(cmd_i.dma_tail);
    s_row_words = (Field1Bits'(cmd_i.dma_row_len) + Field1Bits'(cmd_i.dma_pad_right)) / Field1Bits'(WordElems);
    if (s_packed) begin
      s_data_words = (s_plane_elems + (2*FieldBits+1)'(WordElems - 1)) / (2*FieldBits+1)'(WordElems);
    end else begin
      s_data_words = ((2*FieldBits+1)'(cmd_i.dma_row_len) + (2*FieldBits+1)'(WordElems - 1)) /
                     (2*FieldBits+1)'(WordElems);
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      active_q <= 1'b0;
      n_planes_q <= '0;
      n_rows_q <= '0;
      row_len_q <= '0;
      row_stride_q <= '0;
      plane_stride_q <= '0;
      packed_q <= 1'b0;
      to_ifmap_q <= 1'b0;
      rd_rows_q <= '0;
      data_words_q <= '0;
      row_words_q <= '0;
      more_q <= 1'b0;
      plane_q <= '0;
      row_q <= '0;
      word_q <= '0;
      row_sram_q <= '0;
      inflight_q <= 1'b0;
      elem_q <= '0;
      w_plane_q <= '0;
      w_row_q <= '0;
      w_col_q <= '0;
      w_plane_addr_q <= '0;
      w_row_addr_q <= '0;
    end else if (start_i) begin
      active_q <= 1'b1;
      n_planes_q <= cmd_i.dma_n_planes;
      n_rows_q <= cmd_i.dma_n_rows;
      row_len_q <= cmd_i.dma_row_len;
      row_stride_q <= cmd_i.dma_row_stride;
      plane_stride_q <= cmd_i.dma_plane_stride;
      packed_q <= s_packed;
      to_ifmap_q <= DstEnable && cmd_i.dma_dst_ifmap;
      rd_rows_q <= s_packed ? FieldBits'(1) : cmd_i.dma_n_rows;
      data_words_q <= RdWordBits'(s_data_words);
      row_words_q <= s_packed ? AddrBits'(s_data_words) : s_row_words[AddrBits-1:0];
      more_q <= cmd_i.dma_n_planes != '0 && cmd_i.dma_n_rows != '0 && cmd_i.dma_row_len != '0;
      plane_q <= '0;
      row_q <= '0;
      word_q <= '0;
      row_sram_q <= '0;
      inflight_q <= 1'b0;
      elem_q <= '0;
      w_plane_q <= '0;
      w_row_q <= '0;
      w_col_q <= '0;
      w_plane_addr_q <= cmd_i.dma_dram_addr;
      w_row_addr_q <= cmd_i.dma_dram_addr;
    end else begin
      active_q <= active_d;
      more_q <= more_d;
      plane_q <= plane_d;
      row_q <= row_d;
      word_q <= word_d;
      row_sram_q <= row_sram_d;
      inflight_q <= inflight_d;
      elem_q <= elem_d;
      w_plane_q <= w_plane_d;
      w_row_q <= w_row_d;
      w_col_q <= w_col_d;
      w_plane_addr_q <= w_plane_addr_d;
      w_row_addr_q <= w_row_addr_d;
    end
  end

  // Only the dma_* fields of the command belong to the store (pad_right and tail only to the start;
  // the buffers are the engine's).
  logic unused_signals;
  assign unused_signals = ^{cmd_i.op, cmd_i.dma_elem_step, cmd_i.dma_pad_value, cmd_i.wait_ld, cmd_i.wait_ex, cmd_i.wait_ps,
                            cmd_i.dma_buf, cmd_i.dma_dst_buf,
                            cmd_i.run_ifmap_buf, cmd_i.run_weight_buf, cmd_i.run_psum_buf, cmd_i.run_preload,
                            cmd_i.run_n_kg, cmd_i.run_n_cy, cmd_i.run_n_cx, cmd_i.run_n_c, cmd_i.run_n_ky,
                            cmd_i.run_n_kx, cmd_i.run_step_cx, cmd_i.run_step_cy, cmd_i.run_step_c,
                            cmd_i.run_step_ky, cmd_i.run_region, cmd_i.run_lane_stride, cmd_i.run_pattern,
                            cmd_i.run_n_kxc, cmd_i.run_step_kxc, cmd_i.run_region_kxc, cmd_i.run_pattern_kxc,
                            cmd_i.run_pack_w, cmd_i.run_pack_r, cmd_i.run_pack_jump,
                            cmd_i.run_pool_op, cmd_i.run_pool_sy, cmd_i.run_pool_y0, cmd_i.run_pool_x0,
                            cmd_i.run_pool_y1, cmd_i.run_pool_x1, cmd_i.run_pool_ky, cmd_i.run_pool_kx,
                            cmd_i.run_pool_sx,
                            wf_full};

  // ---------------------------------------------------------------------------------------------
  // Assertions: the descriptor checks of StoreStream::start() and the port protocol.

`ifndef SYNTHESIS
  initial begin
    if (!(ElemBits == 8 || ElemBits == 16 || ElemBits == 32))
      $fatal(1, "store_stream: ElemBits must be 8, 16 or 32, not %0d", ElemBits);
    if (!(WordElems >= 1 && WordElems <= 64)) $fatal(1, "store_stream: WordElems must be 1..64");
    if (!(Depth >= 1)) $fatal(1, "store_stream: Depth must be at least 1");
    if (!(DstElems >= 1 && DstElems <= 64 && DstDepth >= 1 && (DstWordBytes & (DstWordBytes - 1)) == 0 &&
          DstWordBytes >= 2))
      $fatal(1, "store_stream: the ifmap word (%0d elements of %0d bits) must be a power of two bytes, at least 2",
             DstElems, ElemBits);
  end

  logic [63:0] chk_w, chk_plane, chk_total, chk_end;
  always_comb begin
    chk_w = 64'(cmd_i.dma_row_len) + 64'(cmd_i.dma_pad_right);
    chk_plane = (chk_w % 64'(WordElems) == '0) ? 64'(cmd_i.dma_n_rows) * chk_w
                                                : 64'(cmd_i.dma_n_rows) * 64'(cmd_i.dma_row_len) + 64'(cmd_i.dma_tail);
    chk_total = 64'(cmd_i.dma_n_planes) * chk_plane;
    // dst_ifmap: one past the last byte the rows write (the last row of the last plane ends furthest).
    chk_end = 64'(cmd_i.dma_dram_addr) + (64'(cmd_i.dma_n_planes) - 64'd1) * 64'(cmd_i.dma_plane_stride) +
              (64'(cmd_i.dma_n_rows) - 64'd1) * 64'(cmd_i.dma_row_stride) + 64'(cmd_i.dma_row_len) * 64'(ElemBytes);
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (rst_ni && start_i) begin
      if (active_q) $error("store_stream: start while busy");
      if ((cmd_i.dma_dram_addr[1:0] & 2'(ElemBytes - 1)) != '0 ||
          (cmd_i.dma_row_stride[1:0] & 2'(ElemBytes - 1)) != '0 ||
          (cmd_i.dma_plane_stride[1:0] & 2'(ElemBytes - 1)) != '0)
        $error("store_stream: DRAM address or stride not element aligned (%0d bytes)", ElemBytes);
      if (cmd_i.dma_pad_left != '0 || cmd_i.dma_pad_top != '0 || cmd_i.dma_pad_bottom != '0)
        $error("store_stream: STORE_PSUMS uses no padding but pad_right or tail");
      if (cmd_i.dma_elem_step != 8'd1) $error("store_stream: STORE_PSUMS writes dense rows (element step 1)");
      if (chk_w % 64'(WordElems) == '0 && cmd_i.dma_tail != '0)
        $error("store_stream: tail is only for packed rows (row_len + pad_right not a whole number of words)");
      if (chk_w % 64'(WordElems) != '0 && cmd_i.dma_pad_right != '0)
        $error("store_stream: packed rows (row_len + pad_right = %0d, words of %0d) take no pad_right", chk_w,
               WordElems);
      if (chk_w % 64'(WordElems) != '0 &&
          (chk_plane % 64'(WordElems) != '0 || 64'(cmd_i.dma_tail) >= 64'(WordElems)))
        $error("store_stream: packed rows: n_rows * row_len + tail = %0d is not a whole number of %0d-element words, or tail is a word or more",
               chk_plane, WordElems);
      if (chk_total > 64'(Depth) * 64'(WordElems))
        $error("store_stream: stream of %0d elements exceeds the buffer", chk_total);
      if (!wf_empty || inflight_q) $error("store_stream: start with data left from a command");
      if (cmd_i.dma_dst_ifmap && !DstEnable) $error("store_stream: dst_ifmap without an ifmap destination");
      if (!cmd_i.dma_dst_ifmap && cmd_i.dma_dst_buf != '0) $error("store_stream: dst_buf without dst_ifmap");
      if (cmd_i.dma_dst_ifmap && cmd_i.dma_n_planes != '0 && cmd_i.dma_n_rows != '0 && cmd_i.dma_row_len != '0 &&
          chk_end > 64'(DstDepth) * 64'(DstWordBytes))
        $error("store_stream: dst_ifmap: the rows reach byte %0d of the %0d-byte ifmap buffer", chk_end,
               64'(DstDepth) * 64'(DstWordBytes));
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
  `FLYCOL_ASSERT_KNOWN(CtrlKnown_A, {busy_o, done_o, req_valid_o, rd_o, to_ifmap_o}, clk_i, rst_ni)
  // Section 7.6: a chunk into an ifmap buffer stays inside one DB block, so its elements lie in one
  // ifmap word (that word inside the buffer), and it writes exactly them.
  `FLYCOL_ASSERT(DstInBlock_A, (req_valid_o && to_ifmap_q) |->
                 (32'(req_addr_o[LaneBits-1:0]) & (DstBlockBytes - 1)) + 32'(req_bytes_o) <= DstBlockBytes,
                 clk_i, rst_ni)
  `FLYCOL_ASSERT(DstInWord_A, (req_valid_o && to_ifmap_q) |-> 32'(dst_pos) + 32'(req_elems) <= DstElems &&
                 dst_word < DramAddrBits'(DstDepth), clk_i, rst_ni)
  `FLYCOL_ASSERT(DstMask_A, (req_valid_o && to_ifmap_q) |-> 32'($countones(dst_mask_o)) == 32'(req_elems),
                 clk_i, rst_ni)
  `FLYCOL_COVER(WordFifoFull_C, wf_full, clk_i, rst_ni)
  `FLYCOL_COVER(DramStall_C, req_valid_o && !req_fire_i, clk_i, rst_ni)

endmodule
