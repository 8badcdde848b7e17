// The DMA load path (docs/microarchitecture.md 7.3/7.4), RTL twin of hw::StreamLoader
// (hw/dma/stream_loader.{h,cpp}): chunk generator, chunk queue, response FIFO and packer. The LD
// engine and the PS engine each hold one copy, so both load the same way by construction.
//
// Geometry parameters instead of Cfg: the engine that instances the loader knows which element
// width and which SRAM words it serves (the LD engine writes two word widths, chosen per command
// through word_elems_i, like the core's StreamShape). Words and beats are flat vectors on the
// ports because Yosys 0.23 reads no multi-dimensional packed ports.
`include "flycol_assert.svh"

module stream_loader #(
  parameter int unsigned ElemBits  = 16,    // element bits in DRAM and SRAM: 8, 16 or 32
  parameter int unsigned WordElems = 16,    // widest SRAM word written, in elements (1..64)
  parameter int unsigned MaxDepth  = 1024,  // deepest destination buffer, in words
  parameter int unsigned MaxElemStep = 1,   // largest dma_elem_step accepted: 1 (no gather) .. 4
  // Derived: SRAM word address bits, and bits of the small counts (elements in a word, bytes in
  // a beat, and the sums of both).
  localparam int unsigned AddrBits  = flycol_pkg::index_bits(MaxDepth),
  localparam int unsigned CountBits = $clog2(((WordElems > flycol_pkg::BeatBytes) ? WordElems
                                                                                 : flycol_pkg::BeatBytes) + 1),
  // Memory port widths: DRAM byte address, request bytes (1..BEAT), one beat (lane j in [8*j +: 8]).
  localparam int unsigned DramAddrBits = flycol_pkg::DramAddrBits,
  localparam int unsigned BytesBits = flycol_pkg::BytesBits,
  localparam int unsigned BeatBits = flycol_pkg::BeatBits,
  // Element step register bits (1..MaxElemStep).
  localparam int unsigned StepBits = $clog2(MaxElemStep + 1)
) (
  input  logic                          clk_i,         // clock
  input  logic                          rst_ni,        // asynchronous reset, active low
  input  logic                          start_i,       // latch cmd_i at this edge (loader idle)
  input  flycol_pkg::command_t          cmd_i,         // LOAD_*: its dma_* fields
  input  logic [CountBits-1:0]          word_elems_i,  // with start_i: the command's SRAM word, in elements
  input  logic [31:0]                   depth_words_i, // with start_i: destination depth (fits check)
  output logic                          busy_o,        // from the cycle after the start to the done cycle
  output logic                          done_o,        // the last chunk is consumed this cycle
  // Memory request of the chunk generator (Moore) and the responses routed to this loader.
  output logic                          req_valid_o,   // a DRAM chunk with room in the chunk queue
  output logic [DramAddrBits-1:0]       req_addr_o,    // its byte address
  output logic [BytesBits-1:0]          req_bytes_o,   // its bytes (0 without a request)
  input  logic                          req_fire_i,    // the memory takes the request this cycle
  input  logic                          rsp_valid_i,   // a read response for this loader
  input  logic [BeatBits-1:0]           rsp_rdata_i,   // its data: byte lane j in [8*j +: 8]
  // Destination SRAM write (Moore); the engine routes it to the command's buffer.
  output logic                          wr_o,          // write this cycle
  output logic [AddrBits-1:0]           wr_addr_o,     // stream word index
  output logic [WordElems*ElemBits-1:0] wr_data_o,     // word: element e in [e*ElemBits +: ElemBits]
  output logic [WordElems-1:0]          wr_mask_o      // elements 0 .. end of the chunk
);

  localparam int unsigned QueueDepth = flycol_pkg::ChunkQueueDepth;
  // Command field widths (flycol_pkg), and the byte lane bits of a beat.
  localparam int unsigned FieldBits = flycol_pkg::CountBits;
  localparam int unsigned Field1Bits = FieldBits + 1;  // a count field plus one, without overflow
  localparam int unsigned StrideBits = flycol_pkg::ByteStrideBits;
  localparam int unsigned LaneBits = $clog2(flycol_pkg::BeatBytes);
  localparam int unsigned WordBits = WordElems * ElemBits;
  localparam int unsigned WideBits = (WordBits > BeatBits) ? WordBits : BeatBits;
  localparam int unsigned ElemBytes = ElemBits / 8;
  localparam int unsigned Log2ElemBytes = $clog2(ElemBytes);
  // Stream positions: the biggest buffer must fit, and a DRAM row (a row_len field) must too.
  localparam int unsigned CapBits = $clog2(MaxDepth * WordElems + 1);
  localparam int unsigned StreamBits = (CapBits > Field1Bits) ? CapBits : Field1Bits;
  // Chunk queue entry: {zero, count, beat lane of the first element}.
  localparam int unsigned ChunkBits = 1 + CountBits + LaneBits;
  // Elements in one DRAM beat, and the bits of a chunk's span in DRAM elements (count x step).
  localparam int unsigned BeatElems = flycol_pkg::BeatBytes / ElemBytes;
  localparam int unsigned SpanBits = CountBits + StepBits;

  // ---------------------------------------------------------------------------------------------
  // Registers (the core's _q members).

  logic                    active_q, active_d;
  // Command registers, latched at the start.
  logic [FieldBits-1:0]    n_planes_q, n_rows_q, row_len_q;
  logic [StrideBits-1:0]   row_stride_q, plane_stride_q;
  logic [CountBits-1:0]    epw_q;                           // SRAM word of the command in elements
  logic [StepBits-1:0]     step_q;                          // element step: 1 dense, more a gather
  logic [StreamBits-1:0]   z_row_q, z_plane_q, z_last_q;    // zero runs: between rows, planes, after the last
  logic [ElemBits-1:0]     pad_q;                           // the value of every zero-run element (dma_pad_value)
  // Chunk generator walk.
  logic                    more_q, more_d;                  // chunks left to emit
  logic                    zero_q, zero_d;                  // the current segment is a zero run
  logic                    final_q, final_d;                // that zero run is the last segment
  logic [StreamBits-1:0]   rem_q, rem_d;                    // elements left in the segment
  logic [FieldBits-1:0]    plane_q, plane_d, row_q, row_d;  // the DRAM row the walk is in or heads for
  logic [DramAddrBits-1:0] plane_addr_q, plane_addr_d;      // DRAM byte address of the walk's plane
  logic [DramAddrBits-1:0] row_addr_q, row_addr_d;          // and of its row
  logic [DramAddrBits-1:0] addr_q, addr_d;                  // byte address of the next DRAM chunk
  logic [CountBits-1:0]    word_off_q, word_off_d;          // stream position within the SRAM word
  // Packer.
  logic [WordBits-1:0]     word_q, word_d;                  // word register: element e in [e*ElemBits +: ElemBits]
  logic [CountBits-1:0]    pack_off_q, pack_off_d;          // stream position within the word
  logic [AddrBits-1:0]     pack_word_q, pack_word_d;        // stream word index
  logic [StreamBits-1:0]   pack_left_q, pack_left_d;        // elements still to be packed

  // ---------------------------------------------------------------------------------------------
  // Chunk queue and response FIFO.

  logic                            cq_push, cq_pop, cq_full, cq_empty;
  logic [ChunkBits-1:0]            cq_wdata, cq_rdata;
  logic [$clog2(QueueDepth+1)-1:0] cq_count;
  logic                            rq_push, rq_pop, rq_full, rq_empty;
  logic [BeatBits-1:0]             rq_rdata;
  logic [$clog2(QueueDepth+1)-1:0] rq_count;

  fifo #(
    .Width(ChunkBits),
    .Depth(QueueDepth)
  ) u_chunk_queue (
    .clk_i,
    .rst_ni,
    .push_i (cq_push),
    .wdata_i(cq_wdata),
    .pop_i  (cq_pop),
    .rdata_o(cq_rdata),
    .full_o (cq_full),
    .empty_o(cq_empty),
    .count_o(cq_count)
  );

  fifo #(
    .Width(BeatBits),
    .Depth(QueueDepth)
  ) u_rsp_fifo (
    .clk_i,
    .rst_ni,
    .push_i (rq_push),
    .wdata_i(rsp_rdata_i),
    .pop_i  (rq_pop),
    .rdata_o(rq_rdata),
    .full_o (rq_full),
    .empty_o(rq_empty),
    .count_o(rq_count)
  );

  // ---------------------------------------------------------------------------------------------
  // Chunk generator: the longest run from the walk position inside one segment, one SRAM word
  // and, for DRAM data, one beat (chunk_count() of the core).

  logic [CountBits-1:0] space;      // elements to the end of the SRAM word
  logic [BytesBits-1:0] beat_left;  // bytes to the end of the beat
  logic [CountBits-1:0] beat_room;  // elements to the end of the beat (addresses are element aligned)
  logic [CountBits-1:0] beat_kept;  // of those, the ones a gather keeps: ceil(beat_room / step)
  logic [CountBits-1:0] n;          // elements of the next chunk
  logic [SpanBits-1:0]  n_span;     // DRAM elements the chunk advances: n x step
  logic                 gather;     // the command gathers (step > 1): whole-beat requests
  logic                 emit;

  always_comb begin
    space = epw_q - word_off_q;
    n = (rem_q < StreamBits'(space)) ? CountBits'(rem_q) : space;
    beat_left = BytesBits'(flycol_pkg::BeatBytes) - BytesBits'(addr_q[LaneBits-1:0]);
    beat_room = CountBits'(beat_left >> Log2ElemBytes);
    beat_kept = beat_room;
    // Constant divisors per step value: a few small dividers, no general one.
    for (int unsigned st = 2; st <= MaxElemStep; st++)
      if (32'(step_q) == st) beat_kept = CountBits'((SpanBits'(beat_room) + SpanBits'(st - 1)) / SpanBits'(st));
    if (!zero_q && beat_kept < n) n = beat_kept;
    n_span = SpanBits'(n) * SpanBits'(step_q);
    gather = step_q != StepBits'(1);
  end

  // Moore request: a DRAM chunk with room in the chunk queue (registered count). A gather asks
  // for the whole beat that holds the chunk (DRAM moves bursts, section 7.3).
  assign req_valid_o = active_q && more_q && !zero_q && !cq_full;
  assign req_addr_o = gather ? {addr_q[DramAddrBits-1:LaneBits], LaneBits'(0)} : addr_q;
  assign req_bytes_o = !req_valid_o ? '0 : gather ? BytesBits'(flycol_pkg::BeatBytes) : BytesBits'(n << Log2ElemBytes);

  // Walk and chunk queue push.
  logic [Field1Bits-1:0] row_next, plane_next;
  logic [StreamBits-1:0] z;         // zero run after the row that ends here
  logic                  last_row;  // that row is the last DRAM row of the stream

  always_comb begin
    more_d = more_q;
    zero_d = zero_q;
    final_d = final_q;
    rem_d = rem_q;
    plane_d = plane_q;
    row_d = row_q;
    plane_addr_d = plane_addr_q;
    row_addr_d = row_addr_q;
    addr_d = addr_q;
    word_off_d = word_off_q;
    row_next = Field1Bits'(row_q) + Field1Bits'(1);
    plane_next = Field1Bits'(plane_q) + Field1Bits'(1);
    z = '0;
    last_row = 1'b0;

    emit = active_q && more_q && !cq_full && (zero_q || req_fire_i);
    cq_push = emit;
    cq_wdata = {zero_q, n, addr_q[LaneBits-1:0]};

    if (emit) begin
      word_off_d = (word_off_q + n == epw_q) ? '0 : word_off_q + n;
      if (!zero_q) addr_d = addr_q + (DramAddrBits'(n_span) << Log2ElemBytes);
      rem_d = rem_q - StreamBits'(n);
      if (rem_d == '0) begin
        if (zero_q) begin
          if (final_q) begin
            more_d = 1'b0;
          end else begin  // the zero run ends where the next DRAM row begins
            zero_d = 1'b0;
            rem_d = StreamBits'(row_len_q);
            addr_d = row_addr_q;
          end
        end else begin
          if (row_next < Field1Bits'(n_rows_q)) begin
            row_d = row_next[FieldBits-1:0];
            row_addr_d = row_addr_q + DramAddrBits'(row_stride_q);
            z = z_row_q;
          end else if (plane_next < Field1Bits'(n_planes_q)) begin
            plane_d = plane_next[FieldBits-1:0];
            row_d = '0;
            plane_addr_d = plane_addr_q + DramAddrBits'(plane_stride_q);
            row_addr_d = plane_addr_d;
            z = z_plane_q;
          end else begin
            last_row = 1'b1;
            z = z_last_q;
          end
          if (z != '0) begin
            zero_d = 1'b1;
            final_d = last_row;
            rem_d = z;
          end else if (last_row) begin
            more_d = 1'b0;
          end else begin  // adjacent DRAM rows: no zero run between them
            rem_d = StreamBits'(row_len_q);
            addr_d = row_addr_d;
          end
        end
      end
    end
  end

  // ---------------------------------------------------------------------------------------------
  // Packer: consumes the head chunk when its data is here (zeros always are), places its elements
  // at their stream positions in the word register and writes the word when it is complete or
  // the stream ends.

  logic                 head_zero;
  logic [CountBits-1:0] head_count;
  logic [LaneBits-1:0]  head_lane;
  logic                 consume, last_chunk, write_word;
  logic [CountBits-1:0] pack_end;
  // The response moved so that the chunk's first byte lands on its word position, at least a
  // beat wide: a word narrower than a beat takes only its own bits.
  /* verilator lint_off UNUSEDSIGNAL */
  logic [WideBits-1:0] rsp_placed;
  /* verilator lint_on UNUSEDSIGNAL */
  logic [BeatBits-1:0] rsp_shifted;  // the response with the chunk's first element on lane 0
  logic [BeatBits-1:0] rsp_kept;     // its kept elements (every step-th) side by side
  logic [WordBits-1:0] placed;  // the response's chunk at its word position
  logic [WordBits-1:0] merged;  // the word register with the chunk in it

  always_comb begin
    {head_zero, head_count, head_lane} = cq_rdata;
    consume = active_q && !cq_empty && (head_zero || !rq_empty);
    cq_pop = consume;
`ifdef FLYCOL_BUG_DMA_RSP
    rq_pop = consume;  // formal twin: a zero chunk also pops a read response
`else
    rq_pop = consume && !head_zero;
`endif
    rq_push = rsp_valid_i;

    pack_end = pack_off_q + head_count;
    last_chunk = StreamBits'(head_count) == pack_left_q;
    // The chunk's first byte to lane 0, its kept elements side by side (a gather), then to the
    // chunk's first element in the word.
    rsp_shifted = rq_rdata >> {head_lane, 3'b000};
    rsp_kept = rsp_shifted;
    for (int unsigned st = 2; st <= MaxElemStep; st++)
      if (32'(step_q) == st) begin
        rsp_kept = '0;
        for (int unsigned i = 0; i * st < BeatElems; i++)
          rsp_kept[i*ElemBits +: ElemBits] = rsp_shifted[i*st*ElemBits +: ElemBits];
      end
    rsp_placed = WideBits'(rsp_kept) << (32'(pack_off_q) * ElemBits);
    placed = rsp_placed[WordBits-1:0];
    for (int unsigned e = 0; e < WordElems; e++) begin
      merged[e*ElemBits +: ElemBits] = word_q[e*ElemBits +: ElemBits];
      if (CountBits'(e) >= pack_off_q && CountBits'(e) < pack_end)
        merged[e*ElemBits +: ElemBits] = head_zero ? pad_q : placed[e*ElemBits +: ElemBits];
      wr_mask_o[e] = CountBits'(e) < pack_end;
    end

    active_d = active_q;
    word_d = word_q;
    pack_off_d = pack_off_q;
    pack_word_d = pack_word_q;
    pack_left_d = pack_left_q;
    write_word = 1'b0;
    done_o = 1'b0;
    if (consume) begin
      pack_left_d = pack_left_q - StreamBits'(head_count);
      if (pack_end == epw_q || last_chunk) begin
        write_word = 1'b1;
        word_d = '0;
        pack_off_d = '0;
        pack_word_d = pack_word_q + AddrBits'(1);
      end else begin
        word_d = merged;
        pack_off_d = pack_end;
      end
      if (last_chunk) begin
        done_o = 1'b1;
        active_d = 1'b0;
      end
    end else if (active_q && pack_left_q == '0) begin  // an empty stream completes in its first cycle
      done_o = 1'b1;
      active_d = 1'b0;
    end
  end

  assign wr_o = write_word;
  assign wr_addr_o = pack_word_q;
  assign wr_data_o = merged;
  assign busy_o = active_q;

  // ---------------------------------------------------------------------------------------------
  // Start: the command's registers and the first segment, computed at the edge (the core's
  // tick() with a start request). Zero runs are sums over the padding fields; they are taken
  // modulo 2^StreamBits, exact for every stream that fits the buffer (asserted).

  logic [StreamBits-1:0] s_w, s_rows, s_total, s_z_row, s_z_plane, s_z_last, s_z_first;
  logic                  s_no_data;

  always_comb begin
    s_w = StreamBits'(cmd_i.dma_pad_left) + StreamBits'(cmd_i.dma_row_len) + StreamBits'(cmd_i.dma_pad_right);
    s_rows = StreamBits'(cmd_i.dma_pad_top) + StreamBits'(cmd_i.dma_n_rows) + StreamBits'(cmd_i.dma_pad_bottom);
    s_total = StreamBits'(StreamBits'(cmd_i.dma_n_planes) * s_rows * s_w) + StreamBits'(cmd_i.dma_tail);
    s_z_row = StreamBits'(cmd_i.dma_pad_right) + StreamBits'(cmd_i.dma_pad_left);
    s_z_plane = StreamBits'(cmd_i.dma_pad_right) +
                StreamBits'((StreamBits'(cmd_i.dma_pad_bottom) + StreamBits'(cmd_i.dma_pad_top)) * s_w) +
                StreamBits'(cmd_i.dma_pad_left);
    s_z_last = StreamBits'(cmd_i.dma_pad_right) + StreamBits'(StreamBits'(cmd_i.dma_pad_bottom) * s_w) +
               StreamBits'(cmd_i.dma_tail);
    s_z_first = StreamBits'(StreamBits'(cmd_i.dma_pad_top) * s_w) + StreamBits'(cmd_i.dma_pad_left);
    s_no_data = cmd_i.dma_n_planes == '0 || cmd_i.dma_n_rows == '0 || cmd_i.dma_row_len == '0;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      active_q <= 1'b0;
      n_planes_q <= '0;
      n_rows_q <= '0;
      row_len_q <= '0;
      row_stride_q <= '0;
      plane_stride_q <= '0;
      epw_q <= '0;
      z_row_q <= '0;
      z_plane_q <= '0;
      z_last_q <= '0;
      pad_q <= '0;
      more_q <= 1'b0;
      zero_q <= 1'b0;
      final_q <= 1'b0;
      rem_q <= '0;
      plane_q <= '0;
      row_q <= '0;
      plane_addr_q <= '0;
      row_addr_q <= '0;
      addr_q <= '0;
      word_off_q <= '0;
      word_q <= '0;
      pack_off_q <= '0;
      pack_word_q <= '0;
      pack_left_q <= '0;
    end else if (start_i) begin
      active_q <= 1'b1;
      n_planes_q <= cmd_i.dma_n_planes;
      n_rows_q <= cmd_i.dma_n_rows;
      row_len_q <= cmd_i.dma_row_len;
      row_stride_q <= cmd_i.dma_row_stride;
      plane_stride_q <= cmd_i.dma_plane_stride;
      epw_q <= word_elems_i;
      z_row_q <= s_z_row;
      z_plane_q <= s_z_plane;
      z_last_q <= s_z_last;
      pad_q <= ElemBits'(cmd_i.dma_pad_value);
      more_q <= s_total != '0;
      // Without DRAM data the stream is one zero run; else it opens with the zeros before the
      // first row, if any.
      zero_q <= s_no_data || s_z_first != '0;
      final_q <= s_no_data;
      rem_q <= s_no_data ? s_total : (s_z_first != '0) ? s_z_first : StreamBits'(cmd_i.dma_row_len);
      plane_q <= '0;
      row_q <= '0;
      plane_addr_q <= cmd_i.dma_dram_addr;
      row_addr_q <= cmd_i.dma_dram_addr;
      addr_q <= cmd_i.dma_dram_addr;
      word_off_q <= '0;
      word_q <= '0;
      pack_off_q <= '0;
      pack_word_q <= '0;
      pack_left_q <= s_total;
    end else begin
      active_q <= active_d;
      more_q <= more_d;
      zero_q <= zero_d;
      final_q <= final_d;
      rem_q <= rem_d;
      plane_q <= plane_d;
      row_q <= row_d;
      plane_addr_q <= plane_addr_d;
      row_addr_q <= row_addr_d;
      addr_q <= addr_d;
      word_off_q <= word_off_d;
      word_q <= word_d;
      pack_off_q <= pack_off_d;
      pack_word_q <= pack_word_d;
      pack_left_q <= pack_left_d;
    end
  end

  // The element step: a register only where the loader gathers. A loader without gather has the
  // constant 1, so no state of it exists (an unreachable step would otherwise be free in the
  // induction proofs of the formal harness).
  if (MaxElemStep > 1) begin : gen_step
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) step_q <= StepBits'(1);
      else if (start_i) step_q <= StepBits'(cmd_i.dma_elem_step);
    end
  end else begin : gen_no_step
    assign step_q = StepBits'(1);
  end

  // The run fields and wait thresholds of the command are not the loader's; nor are the FIFO
  // counts (full/empty carry the protocol).
  logic unused_signals;
  assign unused_signals = ^{cmd_i.op, cmd_i.dma_elem_step, cmd_i.wait_ld, cmd_i.wait_ex, cmd_i.wait_ps, cmd_i.dma_buf,
                            cmd_i.dma_dst_ifmap, cmd_i.dma_dst_buf, cmd_i.run_ifmap_buf, cmd_i.run_weight_buf, cmd_i.run_psum_buf, cmd_i.run_preload,
                            cmd_i.run_n_kg, cmd_i.run_n_cy, cmd_i.run_n_cx, cmd_i.run_n_c, cmd_i.run_n_ky,
                            cmd_i.run_n_kx, cmd_i.run_step_cx, cmd_i.run_step_cy, cmd_i.run_step_c,
                            cmd_i.run_step_ky, cmd_i.run_region, cmd_i.run_lane_stride, cmd_i.run_pattern,
                            cmd_i.run_n_kxc, cmd_i.run_step_kxc, cmd_i.run_region_kxc, cmd_i.run_pattern_kxc,
                            cmd_i.run_pack_w, cmd_i.run_pack_r, cmd_i.run_pack_jump,
                            cmd_i.run_pool_op, cmd_i.run_pool_sy, cmd_i.run_pool_y0, cmd_i.run_pool_x0,
                            cmd_i.run_pool_y1, cmd_i.run_pool_x1, cmd_i.run_pool_ky, cmd_i.run_pool_kx,
                            cmd_i.run_pool_sx,
                            cq_count, rq_count};

  // ---------------------------------------------------------------------------------------------
  // Assertions: the descriptor checks of StreamLoader::start() and the protocol of the ports.

`ifndef SYNTHESIS
  initial begin
    if (!(ElemBits == 8 || ElemBits == 16 || ElemBits == 32))
      $fatal(1, "stream_loader: ElemBits must be 8, 16 or 32, not %0d", ElemBits);
    if (!(WordElems >= 1 && WordElems <= 64)) $fatal(1, "stream_loader: WordElems must be 1..64");
    if (!(MaxDepth >= 1)) $fatal(1, "stream_loader: MaxDepth must be at least 1");
    if (!(MaxElemStep >= 1 && MaxElemStep <= 4)) $fatal(1, "stream_loader: MaxElemStep must be 1..4");
  end

  logic [63:0] chk_w, chk_total;
  always_comb begin
    chk_w = 64'(cmd_i.dma_pad_left) + 64'(cmd_i.dma_row_len) + 64'(cmd_i.dma_pad_right);
    chk_total = 64'(cmd_i.dma_n_planes) *
                (64'(cmd_i.dma_pad_top) + 64'(cmd_i.dma_n_rows) + 64'(cmd_i.dma_pad_bottom)) * chk_w +
                64'(cmd_i.dma_tail);
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (rst_ni && start_i) begin
      if (active_q) $error("stream_loader: start while busy");
      if (word_elems_i == '0 || 32'(word_elems_i) > WordElems)
        $error("stream_loader: SRAM word of %0d elements out of range 1..%0d", word_elems_i, WordElems);
      if ((cmd_i.dma_dram_addr[1:0] & 2'(ElemBytes - 1)) != '0 ||
          (cmd_i.dma_row_stride[1:0] & 2'(ElemBytes - 1)) != '0 ||
          (cmd_i.dma_plane_stride[1:0] & 2'(ElemBytes - 1)) != '0)
        $error("stream_loader: DRAM address or stride not element aligned (%0d bytes)", ElemBytes);
      if (chk_total > 64'(depth_words_i) * 64'(word_elems_i))
        $error("stream_loader: stream of %0d elements does not fit the buffer", chk_total);
      if (!cq_empty || !rq_empty) $error("stream_loader: start with data left from a command");
      if (cmd_i.dma_elem_step == '0 || 32'(cmd_i.dma_elem_step) > MaxElemStep)
        $error("stream_loader: element step %0d out of range 1..%0d", cmd_i.dma_elem_step, MaxElemStep);
      if (ElemBits < 16 && (32'(cmd_i.dma_pad_value) >> ElemBits) != 0)
        $error("stream_loader: padding value %0h wider than %0d bits", cmd_i.dma_pad_value, ElemBits);
    end
    if (rst_ni && req_fire_i && !req_valid_o) $error("stream_loader: request fired while req_valid is low");
    // A gather's request is the whole beat that holds every kept element of its chunk.
    if (rst_ni && req_valid_o && gather &&
        (req_bytes_o != BytesBits'(flycol_pkg::BeatBytes) || req_addr_o[LaneBits-1:0] != '0 || n == '0 ||
         32'(addr_q[LaneBits-1:0]) + (32'(n) - 1) * 32'(step_q) * ElemBytes + ElemBytes > flycol_pkg::BeatBytes))
      $error("stream_loader: gather request at %0h of %0d bytes does not hold its %0d elements", req_addr_o,
             req_bytes_o, n);
    if (rst_ni && rsp_valid_i && !active_q) $error("stream_loader: read response while idle");
    // Every DRAM chunk holds a place in the chunk queue before it asks, so responses always fit.
    if (rst_ni && rsp_valid_i && rq_full) $error("stream_loader: read response with the response FIFO full");
  end
`endif

  // ---- Assertions (hw/common/flycol_assert.svh) ----
  `FLYCOL_ASSERT_NEVER(NoStartBusy_A, start_i && busy_o, clk_i, rst_ni)
  `FLYCOL_ASSERT(FireOnRequest_A, req_fire_i |-> req_valid_o, clk_i, rst_ni)
  `FLYCOL_ASSERT(NoReqNoBytes_A, !req_valid_o |-> req_bytes_o == '0, clk_i, rst_ni)
  `FLYCOL_ASSERT(ReqBytes_A, req_valid_o |-> req_bytes_o != '0, clk_i, rst_ni)
  // Responses cannot be refused: the response FIFO always has room for one.
  `FLYCOL_ASSERT_NEVER(RspRoom_A, rsp_valid_i && rq_full, clk_i, rst_ni)
  `FLYCOL_ASSERT(WrInRange_A, wr_o |-> 32'(wr_addr_o) < MaxDepth, clk_i, rst_ni)
  `FLYCOL_ASSERT(WrMask_A, wr_o |-> wr_mask_o != '0, clk_i, rst_ni)
  `FLYCOL_ASSERT(DoneBusy_A, done_o |-> busy_o, clk_i, rst_ni)
  // A gather asks for whole beats; its kept elements stay inside the beat asked for.
  `FLYCOL_ASSERT_NEVER(StepInRange_A, step_q == '0 || 32'(step_q) > MaxElemStep, clk_i, rst_ni)
  `FLYCOL_ASSERT_KNOWN(CtrlKnown_A, {busy_o, done_o, req_valid_o, wr_o}, clk_i, rst_ni)
  `FLYCOL_COVER(ChunkQueueFull_C, cq_full, clk_i, rst_ni)
  `FLYCOL_COVER(DramStall_C, req_valid_o && !req_fire_i, clk_i, rst_ni)
  `FLYCOL_COVER(RspWhileWriting_C, rsp_valid_i && wr_o, clk_i, rst_ni)
  if (MaxElemStep > 1) begin : gen_gather_cover
    `FLYCOL_COVER(GatherFire_C, req_fire_i && step_q != StepBits'(1), clk_i, rst_ni)
  end

endmodule
