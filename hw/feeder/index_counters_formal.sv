// Formal harness of the feeder's index counters (index_counters.sv), proved by
// hw/common/formal.cmake (k-induction): for every RUN that passes the start check, every read
// address lies inside the ifmap buffer and inside the RUN's tile (at most the word of the RUN's
// last element, the end of the last kernel-column chunk of the last region row), every counter
// stays below its loop count and the flush comes with the last read. RUNs without pixel packing
// (pack_w = 0, assumed): a packed context's row start adds pack_jump when its first pixel column
// passes a row end, a non-linear walk this harness's count*step invariants do not describe; the
// packed walk is checked in simulation (feeder_tb's division-based reference, cosim).
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
  // Harness sums: four products (n - 1) * step below 2^(PtrBits+1) plus a region of at most
  // 2^PtrBits never overflow W bits (the region's bound is assumed at the start; a larger one
  // fails the start check), so the start assumption's sum is exact.
  localparam int unsigned W = PtrBits + 4;

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
    .lastc_o      (),
    .lane_stride_o(),
    .pattern_o    (),
    .pattern_kxc_o(),
    .ox_o         (),
    .pack_w_o     (),
    .pack_jump_o  ()
    /* verilator lint_on PINCONNECTEMPTY */
  );

  // Probes of the counters' registers and of their "last value" wires (runner PROBES).
  logic [NB-1:0]      p_ky, p_c, p_cx, p_cy, p_g, p_n_kg, p_n_cy, p_n_cx, p_n_c, p_n_ky, p_region;
  logic [NB-1:0]      p_kxc, p_n_kxc, p_region_kxc;
  logic [PtrBits-1:0] p_joff, p_kyoff, p_coff, p_cxoff, p_cyoff, p_kxcoff;
  logic [PtrBits-1:0] p_step_cx, p_step_cy, p_step_c, p_step_ky, p_step_kxc;
  logic               p_last_j, p_ky_last, p_c_last, p_cx_last, p_cy_last, p_kxc_last;
  logic [NB-1:0]      p_pack_w, p_pack_r, p_ox;  // pixel packing: off (assumed at the start)
  logic [PtrBits-1:0] p_pack_jump;

  // count * step for a count of 0, 1 or 2 (loop counts are limited to 1..3, so every count and
  // every n - 1 is one of these): a multiplexer, no adder, so SAT never meets a product. A macro,
  // not a function: Yosys 0.23 mis-evaluates several calls of a function inside one always_comb;
  // its preprocessor does not substitute a macro argument right after a size cast's tick (W'(s)),
  // hence the concatenations.
`define IC_P(n, s) (((n) == 16'd0) ? {W{1'b0}} : \
                    ((n) == 16'd1) ? {{(W - PtrBits){1'b0}}, s} : {{(W - PtrBits - 1){1'b0}}, s, 1'b0})

  // ---- Environment ----
  logic [W-1:0] st_l_ky, st_l_c, st_l_cx, st_l_cy, st_l_kxc, st_last;
  always_comb begin
    st_l_ky = `IC_P(run_i.run_n_ky - 1'b1, PtrBits'(run_i.run_step_ky));
    st_l_c = `IC_P(run_i.run_n_c - 1'b1, PtrBits'(run_i.run_step_c));
    st_l_cx = `IC_P(run_i.run_n_cx - 1'b1, PtrBits'(run_i.run_step_cx));
    st_l_cy = `IC_P(run_i.run_n_cy - 1'b1, PtrBits'(run_i.run_step_cy));
    st_l_kxc = `IC_P(run_i.run_n_kxc - 1'b1, PtrBits'(run_i.run_step_kxc));
    // The element index of the RUN's last element (hw::IndexCounters::check_run), summed from the
    // outermost loop inwards as the harness's running sums below.
    st_last = st_l_cy + st_l_cx + st_l_c + st_l_ky + st_l_kxc + W'(run_i.run_region) - 1'b1;
  end

  logic init_q = 1'b1;
  always_ff @(posedge clk_i) init_q <= 1'b0;
  always_comb begin
    assume (rst_ni == !init_q);
    if (start_i) begin
      // The feeder starts a RUN only while idle, and the RUN passed the start check.
      assume (!has_read && !issue_i);
      assume (run_i.run_n_kg != '0 && run_i.run_n_cy != '0 && run_i.run_n_cx != '0 &&
              run_i.run_n_c != '0 && run_i.run_n_ky != '0 && run_i.run_region != '0 &&
              run_i.run_n_kxc != '0 && (run_i.run_n_kxc == 16'd1 || run_i.run_region_kxc != '0));
      // Loop counts limited to 1..3 (the harness's products are multiplexers over 0, 1, 2).
      assume (run_i.run_n_kg < 16'd4 && run_i.run_n_cy < 16'd4 && run_i.run_n_cx < 16'd4 &&
              run_i.run_n_c < 16'd4 && run_i.run_n_ky < 16'd4 && run_i.run_n_kxc < 16'd4);
      // The RTL keeps PtrBits of each step (a larger one only fits with n = 1, never added).
      assume (run_i.run_step_cx < 24'(2 ** PtrBits) && run_i.run_step_cy < 24'(2 ** PtrBits) &&
              run_i.run_step_c < 24'(2 ** PtrBits) && run_i.run_step_ky < 24'(2 ** PtrBits) &&
              run_i.run_step_kxc < 24'(2 ** PtrBits));
      // The regions fit the buffer (implied by the next lines for the ones in use; keeps the W-bit
      // sums exact). An earlier chunk ends no later than the last one (start check).
      assume (run_i.run_region <= 16'(2 ** PtrBits) && run_i.run_region_kxc <= 16'(2 ** PtrBits));
      assume (run_i.run_n_kxc == 16'd1 ||
              W'(run_i.run_region_kxc) <= W'(PtrBits'(run_i.run_step_kxc)) + W'(run_i.run_region));
      assume ((st_last >> Log2B) < W'(Cfg.ifmap_depth));
      assume (run_i.run_pack_w == '0 && run_i.run_pack_r == '0 && run_i.run_pack_jump == '0);  // no packing
    end
    if (issue_i) assume (has_read);
  end

  // ---- The RUN's bounds, latched at the start ----
  // l_* = (n - 1) * step per loop; m_* = the sums of l_* from the outermost loop (cy) inwards,
  // i.e. the largest partial row start of each level; last_q = the RUN's last element.
  logic [W-1:0] l_ky_q, l_c_q, l_cx_q, l_cy_q, l_kxc_q, m_c_q, m_cx_q, m_ky_q, m_kxc_q, last_q;
  // ---- Running partial sums, outermost first ----
  // s_cy = cyoff, s_cx = s_cy + cxoff, s_c = s_cx + coff, s_ky = s_c + kyoff, s_kxc = s_ky + kxcoff
  // (the row start).
  // A level holds its register while no carry reaches it, so the bound s_<x> <= m_<x> of an
  // untouched level carries over from the previous cycle and each new bound needs one addition
  // (a <= b and c <= d give a + c <= b + d): SAT settles that in a second, while a bound of a
  // four-term sum from four per-level bounds did not finish in 10 minutes.
  logic [W-1:0] s_cy_q, s_cx_q, s_c_q, s_ky_q, s_kxc_q, s_cy_d, s_cx_d, s_c_d, s_ky_d, s_kxc_d;
  logic         cin_kxc, cin_ky, cin_c, cin_cx, cin_cy;
  logic [NB-1:0] kxc_n, ky_n, c_n, cx_n, cy_n;
  always_comb begin
    // A carry into a level: that level advances or wraps this cycle (the RTL's own conditions).
    cin_kxc = issue_i && p_last_j;
    cin_ky = cin_kxc && p_kxc_last;
    cin_c = cin_ky && p_ky_last;
    cin_cx = cin_c && p_c_last;
    cin_cy = cin_cx && p_cx_last;
    kxc_n = !cin_kxc ? p_kxc : p_kxc_last ? '0 : p_kxc + 1'b1;
    ky_n = !cin_ky ? p_ky : p_ky_last ? '0 : p_ky + 1'b1;
    c_n = !cin_c ? p_c : p_c_last ? '0 : p_c + 1'b1;
    cx_n = !cin_cx ? p_cx : p_cx_last ? '0 : p_cx + 1'b1;
    cy_n = !cin_cy ? p_cy : p_cy_last ? '0 : p_cy + 1'b1;
    s_cy_d = s_cy_q;
    s_cx_d = s_cx_q;
    s_c_d = s_c_q;
    s_ky_d = s_ky_q;
    s_kxc_d = s_kxc_q;
    if (start_i) begin
      s_cy_d = '0;
      s_cx_d = '0;
      s_c_d = '0;
      s_ky_d = '0;
      s_kxc_d = '0;
    end else begin
      if (cin_cy) s_cy_d = `IC_P(cy_n, p_step_cy);
      if (cin_cx) s_cx_d = s_cy_d + `IC_P(cx_n, p_step_cx);
      if (cin_c) s_c_d = s_cx_d + `IC_P(c_n, p_step_c);
      if (cin_ky) s_ky_d = s_c_d + `IC_P(ky_n, p_step_ky);
      if (cin_kxc) s_kxc_d = s_ky_d + `IC_P(kxc_n, p_step_kxc);
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      l_ky_q <= '0;
      l_c_q <= '0;
      l_cx_q <= '0;
      l_cy_q <= '0;
      l_kxc_q <= '0;
      m_cx_q <= '0;
      m_c_q <= '0;
      m_ky_q <= '0;
      m_kxc_q <= '0;
      last_q <= '0;
      s_cy_q <= '0;
      s_cx_q <= '0;
      s_c_q <= '0;
      s_ky_q <= '0;
      s_kxc_q <= '0;
    end else begin
      if (start_i) begin
        l_ky_q <= st_l_ky;
        l_c_q <= st_l_c;
        l_cx_q <= st_l_cx;
        l_cy_q <= st_l_cy;
        l_kxc_q <= st_l_kxc;
        m_cx_q <= st_l_cy + st_l_cx;
        m_c_q <= st_l_cy + st_l_cx + st_l_c;
        m_ky_q <= st_l_cy + st_l_cx + st_l_c + st_l_ky;
        m_kxc_q <= st_l_cy + st_l_cx + st_l_c + st_l_ky + st_l_kxc;
        last_q <= st_last;
      end
      s_cy_q <= s_cy_d;
      s_cx_q <= s_cx_d;
      s_c_q <= s_c_d;
      s_ky_q <= s_ky_d;
      s_kxc_q <= s_kxc_d;
    end
  end

  // The RTL's row start and read pointer (PtrBits, its own sums, wrapping) and the harness's exact
  // W-bit ones.
  logic [PtrBits-1:0] row_start, ptr;
  logic [W-1:0]       ptr_w, go, row_last, region_w;
  always_comb begin
    row_start = p_kxcoff + p_kyoff + p_coff + p_cxoff + p_cyoff;
    ptr = row_start + p_joff;
    ptr_w = s_kxc_q + W'(p_joff);
    go = s_kxc_q & W'(B - 1);
    region_w = p_kxc_last ? W'(p_region) : W'(p_region_kxc);  // the chunk's region
    row_last = s_kxc_q + region_w - 1'b1;
  end

  always_comb begin
    if (rst_ni) begin
      if (has_read) begin
        // Every read inside the ifmap buffer and inside the RUN's tile: at most the word of the
        // RUN's last element (so no word of another tile is read).
        a_in_buf: assert (32'(addr) < Cfg.ifmap_depth);
        a_in_tile: assert (W'(addr) <= (last_q >> Log2B));
        // The word is one of the row's: it starts before the row's last element.
        a_in_row: assert (W'(p_joff) < go + region_w);
      end
      // Counters within range.
      a_range: assert (p_kxc < p_n_kxc && p_ky < p_n_ky && p_c < p_n_c && p_cx < p_n_cx &&
                       p_cy < p_n_cy && p_g < p_n_kg);
      // The flush marks the last read: every counter at its last value.
      if (flush) a_flush: assert (p_kxc == p_n_kxc - 1'b1 && p_ky == p_n_ky - 1'b1 &&
                                  p_c == p_n_c - 1'b1 &&
                                  p_cx == p_n_cx - 1'b1 && p_cy == p_n_cy - 1'b1 &&
                                  p_g == p_n_kg - 1'b1);
      // ---- Induction strengthening ----
      // Loop counts in 1..3, region not empty, whole-word offsets within the row.
      a_inv_n: assert (p_n_kg < 16'd4 && p_n_cy < 16'd4 && p_n_cx < 16'd4 && p_n_c < 16'd4 &&
                       p_n_ky < 16'd4 && p_n_kxc < 16'd4 && p_n_kg != '0 && p_n_kxc != '0 &&
                       p_region != '0 && p_region <= 16'(2 ** PtrBits) &&
                       (p_n_kxc == 16'd1 || p_region_kxc != '0) && p_region_kxc <= 16'(2 ** PtrBits));
      a_inv_kxc_last: assert (p_kxc_last == (p_kxc + 1'b1 >= p_n_kxc));
      // No packing in this proof: the packing registers keep the zeros the start loaded.
      a_inv_nopack: assert (p_pack_w == '0 && p_pack_r == '0 && p_pack_jump == '0 && p_ox == '0);
      a_inv_joff: assert ((p_joff & PtrBits'(B - 1)) == '0);
      // The RUN's bounds are the RUN registers' (n - 1) * step and their sums; they fit the buffer.
      a_inv_l: assert (l_ky_q == `IC_P(p_n_ky - 1'b1, p_step_ky) &&
                       l_c_q == `IC_P(p_n_c - 1'b1, p_step_c) &&
                       l_cx_q == `IC_P(p_n_cx - 1'b1, p_step_cx) &&
                       l_cy_q == `IC_P(p_n_cy - 1'b1, p_step_cy) &&
                       l_kxc_q == `IC_P(p_n_kxc - 1'b1, p_step_kxc));
      a_inv_m: assert (m_cx_q == l_cy_q + l_cx_q && m_c_q == m_cx_q + l_c_q &&
                       m_ky_q == m_c_q + l_ky_q && m_kxc_q == m_ky_q + l_kxc_q &&
                       last_q == m_kxc_q + W'(p_region) - 1'b1);
      a_inv_m_le: assert (l_cy_q <= m_cx_q && m_cx_q <= m_c_q && m_c_q <= m_ky_q &&
                          m_ky_q <= m_kxc_q && m_kxc_q <= last_q);
      // An earlier chunk ends no later than the last one (the start check's rule).
      a_inv_rkxc: assert (p_n_kxc == 16'd1 || W'(p_region_kxc) <= W'(p_step_kxc) + W'(p_region));
      a_inv_fit: assert ((last_q >> Log2B) < W'(Cfg.ifmap_depth));
      // Each running-sum offset is count * step (RTL register, zero-extended).
      a_inv_off: assert (W'(p_kyoff) == `IC_P(p_ky, p_step_ky) && W'(p_coff) == `IC_P(p_c, p_step_c) &&
                         W'(p_cxoff) == `IC_P(p_cx, p_step_cx) && W'(p_cyoff) == `IC_P(p_cy, p_step_cy) &&
                         W'(p_kxcoff) == `IC_P(p_kxc, p_step_kxc));
      // The partial sums: definitions and bounds, level by level.
      a_inv_s: assert (s_cy_q == W'(p_cyoff) && s_cx_q == s_cy_q + W'(p_cxoff) &&
                       s_c_q == s_cx_q + W'(p_coff) && s_ky_q == s_c_q + W'(p_kyoff) &&
                       s_kxc_q == s_ky_q + W'(p_kxcoff));
      a_inv_s_le: assert (s_cy_q <= l_cy_q && s_cx_q <= m_cx_q && s_c_q <= m_c_q &&
                          s_ky_q <= m_ky_q && s_kxc_q <= m_kxc_q);
      // The chunk offset: the last chunk's is l_kxc, an earlier one's at least a step less, so
      // an earlier chunk's region (region_kxc <= step_kxc + region) ends inside the last one's.
      a_inv_kxcoff: assert (p_kxc_last ? W'(p_kxcoff) == l_kxc_q :
                                         W'(p_kxcoff) + W'(p_step_kxc) <= l_kxc_q);
      // The RTL's wrapping row start and read pointer are the exact ones modulo 2^PtrBits (an
      // exact W-bit equality costs the step twice the time), and the exact pointer's word is at
      // most the RUN's last word, so below 2^PtrBits (no wrap).
      a_inv_rs: assert (PtrBits'(s_kxc_q) == row_start);
      a_inv_ptr: assert (PtrBits'(ptr_w) == ptr && (ptr_w >> Log2B) <= (last_q >> Log2B));
      a_inv_row: assert (row_last <= last_q);
      // Idle: the counters wrapped to zero (the next RUN starts from a clean state anyway).
      if (!has_read) a_inv_idle: assert (p_kxc == '0 && p_ky == '0 && p_c == '0 && p_cx == '0 &&
                                         p_cy == '0 &&
                                         p_g == '0 && p_joff == '0);
    end
  end

  // Not vacuous (formal_index_counters_*_reach): a RUN with two reads per row, a second
  // kernel-column chunk, a second kernel row and a second channel runs to its flush and ends.
  logic reach_multi_q, reach_end_q;
  (* keep *) logic reach_all;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      reach_multi_q <= 1'b0;
      reach_end_q <= 1'b0;
    end else begin
      reach_multi_q <= reach_multi_q ||
                       (has_read && p_joff != '0 && p_kxc != '0 && p_ky != '0 && p_c != '0);
      reach_end_q <= reach_end_q || (reach_multi_q && issue_i && flush);
    end
  end
  assign reach_all = reach_end_q;

endmodule
`undef IC_P
`endif
