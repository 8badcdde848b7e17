// Formal harness of the feeder's index counters (index_counters.sv), proved by
// hw/common/formal.cmake (k-induction): for every RUN that passes the start check, every read
// address lies inside the ifmap buffer and inside the RUN's tile (at most the word of the RUN's
// last element), every counter stays below its loop count and the flush comes with the last read.
`ifdef FORMAL
module index_counters_formal #(
  parameter flycol_pkg::cfg_t Cfg = flycol_cfg_pkg::Cfg
) (
  input logic                 clk_i,    // clock (one SAT step per cycle)
  input logic                 rst_ni,   // reset: low in the first cycle only (assumed)
  input logic                 start_i,  // free; only while idle (assumed)
  input flycol_pkg::command_t run_i,    // free; a RUN that passes the start check (assumed)
  input logic                 issue_i   // free; only while a read is left (assumed)
);

  localparam int unsigned Log2B = Cfg.log2_bus;
  localparam int unsigned B = Cfg.bus_elems;
  localparam int unsigned AddrBits = flycol_pkg::index_bits(Cfg.ifmap_depth);
  localparam int unsigned PtrBits = AddrBits + Log2B;
  localparam int unsigned NB = flycol_pkg::CountBits;  // count fields
  // Wide enough for four offsets below 2^PtrBits plus a 16-bit region without overflow.
  localparam int unsigned W = ((PtrBits > NB) ? PtrBits : NB) + 4;
  // Loop counts are limited to 1..2^NS-1 (assumed at the start). The offsets are running sums
  // in the RTL; the invariant ties each one to count * step, written below as NS shifted adds
  // (not a W x W multiplier, whose identities SAT does not settle in the default run's budget).
  localparam int unsigned NS = 2;

  logic                    has_read, flush;
  logic [AddrBits-1:0]     addr;

  index_counters #(
    .Cfg(Cfg)
  ) u_dut (
    .clk_i,
    .rst_ni,
    .start_i,
    .run_i,
    .issue_i,
    .has_read_o   (has_read),
    .addr_o       (addr),
    /* verilator lint_off PINCONNECTEMPTY */
    .b_o          (),
    .flush_o      (flush),
    .lane_stride_o(),
    .pattern_o    ()
    /* verilator lint_on PINCONNECTEMPTY */
  );

  // Probes of the counters' registers (runner PROBES): the invariant needs them.
  logic [NB-1:0]      p_ky, p_c, p_cx, p_cy, p_g, p_n_kg, p_n_cy, p_n_cx, p_n_c, p_n_ky, p_region;
  logic [PtrBits-1:0] p_joff, p_kyoff, p_coff, p_cxoff, p_cyoff;
  logic [PtrBits-1:0] p_step_cx, p_step_cy, p_step_c, p_step_ky;

  // count * step as NS = 2 shifted adds (count < 2^NS by the invariant). A macro, not a function:
  // Yosys 0.23 mis-evaluates several calls of a looping function inside one always_comb. Its
  // preprocessor does not substitute a macro argument right after a size cast's tick (W'(s)),
  // hence the concatenations.
`define IC_MUL(n, s) ((((n) & 16'd1) != 16'd0 ? {{(W - PtrBits){1'b0}}, s} : {W{1'b0}}) + \
                      (((n) & 16'd2) != 16'd0 ? {{(W - PtrBits - 1){1'b0}}, s, 1'b0} : {W{1'b0}}))

  // The element index of the RUN's last read element, from the start check
  // (hw::IndexCounters::check_run): the sum of (n-1)*step over the four counters + region - 1.
  logic [W-1:0] last_in;
  assign last_in = `IC_MUL(run_i.run_n_cx - 1'b1, PtrBits'(run_i.run_step_cx)) +
                   `IC_MUL(run_i.run_n_cy - 1'b1, PtrBits'(run_i.run_step_cy)) +
                   `IC_MUL(run_i.run_n_c - 1'b1, PtrBits'(run_i.run_step_c)) +
                   `IC_MUL(run_i.run_n_ky - 1'b1, PtrBits'(run_i.run_step_ky)) +
                   W'(run_i.run_region) - 1'b1;

  logic init_q = 1'b1;
  always_ff @(posedge clk_i) init_q <= 1'b0;
  always_comb begin
    assume (rst_ni == !init_q);
    if (start_i) begin
      // The feeder starts a RUN only while idle, and the RUN passed the start check.
      assume (!has_read && !issue_i);
      assume (run_i.run_n_kg != '0 && run_i.run_n_cy != '0 && run_i.run_n_cx != '0 &&
              run_i.run_n_c != '0 && run_i.run_n_ky != '0 && run_i.run_region != '0);
      assume (run_i.run_n_kg < NB'(2 ** NS) && run_i.run_n_cy < NB'(2 ** NS) &&
              run_i.run_n_cx < NB'(2 ** NS) && run_i.run_n_c < NB'(2 ** NS) &&
              run_i.run_n_ky < NB'(2 ** NS));
      // The RTL keeps PtrBits of each step (a larger one only fits with n = 1, never added).
      assume (run_i.run_step_cx < 24'(2 ** PtrBits) && run_i.run_step_cy < 24'(2 ** PtrBits) &&
              run_i.run_step_c < 24'(2 ** PtrBits) && run_i.run_step_ky < 24'(2 ** PtrBits));
      assume ((last_in >> Log2B) < W'(Cfg.ifmap_depth));
    end
    if (issue_i) assume (has_read);
  end

  // The invariant's products, as wires (kept out of the assertions' expressions), and the tile
  // bound of the RUN in progress: the start check's sum on the RUN's registers (constant during
  // the RUN; reset: the default RUN, one element at 0).
  logic [W-1:0] m_ky, m_c, m_cx, m_cy, last_now;
  assign m_ky = `IC_MUL(p_ky, p_step_ky);
  assign m_c = `IC_MUL(p_c, p_step_c);
  assign m_cx = `IC_MUL(p_cx, p_step_cx);
  assign m_cy = `IC_MUL(p_cy, p_step_cy);
  assign last_now = `IC_MUL(p_n_cx - 1'b1, p_step_cx) + `IC_MUL(p_n_cy - 1'b1, p_step_cy) +
                    `IC_MUL(p_n_c - 1'b1, p_step_c) + `IC_MUL(p_n_ky - 1'b1, p_step_ky) +
                    W'(p_region) - 1'b1;

  logic [W-1:0] row_start, go, ptr;
  always_comb begin
    row_start = W'(p_kyoff) + W'(p_coff) + W'(p_cxoff) + W'(p_cyoff);
    go = row_start & W'(B - 1);
    ptr = row_start + W'(p_joff);
  end

  always_comb begin
    if (rst_ni) begin
      if (has_read) begin
        // Every read inside the ifmap buffer and inside the RUN's tile: at most the word of the
        // RUN's last element (so no word of another tile is read).
        a_in_buf: assert (32'(addr) < Cfg.ifmap_depth);
        a_in_tile: assert (W'(addr) <= (last_now >> Log2B));
        a_addr: assert (W'(addr) == (ptr >> Log2B));
        // The word is one of the row's: it starts before the row's last element.
        a_in_row: assert (W'(p_joff) < go + W'(p_region));
      end
      // Counters within range.
      a_range: assert (p_ky < p_n_ky && p_c < p_n_c && p_cx < p_n_cx && p_cy < p_n_cy &&
                       p_g < p_n_kg);
      // The flush marks the last read: every counter at its last value.
      if (flush) a_flush: assert (p_ky == p_n_ky - 1'b1 && p_c == p_n_c - 1'b1 &&
                                  p_cx == p_n_cx - 1'b1 && p_cy == p_n_cy - 1'b1 &&
                                  p_g == p_n_kg - 1'b1);
      // Induction strengthening: the running sums are count * step, the loop counts stay in
      // 1..2^NS-1, the region is not empty, the word offset is whole words, and the tile bound
      // is the start check's sum.
      a_inv_off: assert (W'(p_kyoff) == m_ky && W'(p_coff) == m_c && W'(p_cxoff) == m_cx &&
                         W'(p_cyoff) == m_cy);
      a_inv_n: assert (p_n_kg < NB'(2 ** NS) && p_n_cy < NB'(2 ** NS) && p_n_cx < NB'(2 ** NS) &&
                       p_n_c < NB'(2 ** NS) && p_n_ky < NB'(2 ** NS) && p_region != '0);
      a_inv_joff: assert ((p_joff & PtrBits'(B - 1)) == '0);
      // Idle: the counters wrapped to zero (the next RUN starts from a clean state anyway).
      if (!has_read) a_inv_idle: assert (p_ky == '0 && p_c == '0 && p_cx == '0 && p_cy == '0 &&
                                         p_g == '0 && p_joff == '0);
      a_inv_fit: assert ((last_now >> Log2B) < W'(Cfg.ifmap_depth));
    end
  end

  // Not vacuous (formal_index_counters_*_reach): a RUN with two reads per row, a second kernel
  // row and a second channel runs to its flush and ends.
  logic reach_multi_q, reach_end_q;
  (* keep *) logic reach_all;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      reach_multi_q <= 1'b0;
      reach_end_q <= 1'b0;
    end else begin
      reach_multi_q <= reach_multi_q || (has_read && p_joff != '0 && p_ky != '0 && p_c != '0);
      reach_end_q <= reach_end_q || (reach_multi_q && issue_i && flush);
    end
  end
  assign reach_all = reach_end_q;

endmodule
`undef IC_MUL
`endif
