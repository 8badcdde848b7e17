// Index counters of the data feeder (docs/microarchitecture.md, section 9.1, stage IC): the RTL
// twin of hw::IndexCounters (index_counters.h/.cpp), register for register. Six counters (j, kxc,
// ky, c, cx, cy) and the group repeat g walk a RUN's interest regions; one SRAM read per issued
// cycle. kxc walks the kernel-column chunks of a kernel row (section 9.2).
`include "flycol_assert.svh"

module index_counters #(
  parameter flycol_pkg::cfg_t Cfg = flycol_cfg_pkg::Cfg,
  localparam int unsigned Log2B = Cfg.log2_bus,
  localparam int unsigned PB = Cfg.pattern_bits,
  localparam int unsigned AddrBits = flycol_pkg::index_bits(Cfg.ifmap_depth),
  // Element index into the buffer. A RUN that passes the start checks keeps every counter output,
  // their sum and the read pointer below IFD*B <= 2^PtrBits.
  localparam int unsigned PtrBits = AddrBits + Log2B,
  // b = go - j*B lies in (-2^PtrBits, B).
  localparam int unsigned BBits = PtrBits + 1
) (
  input  logic                   clk_i,          // clock
  input  logic                   rst_ni,         // asynchronous reset, active low
  input  logic                   start_i,        // load run_i, read from next cycle (!has_read_o)
  // Only the run_* fields of the command are read; the rest belongs to other engines.
  /* verilator lint_off UNUSEDSIGNAL */
  input  flycol_pkg::command_t   run_i,          // the RUN, sampled with start_i
  /* verilator lint_on UNUSEDSIGNAL */
  input  logic                   issue_i,        // the current read is issued this cycle: advance
  output logic                   has_read_o,     // a read is left (active_q)
  output logic [AddrBits-1:0]    addr_o,         // word address of the current read
  output logic signed [BBits-1:0] b_o,           // its signed base shift go - j*B
  output logic                   flush_o,        // it is the last read of the RUN
  output logic                   lastc_o,        // it belongs to the last chunk of its kernel row
  output logic [flycol_pkg::LaneStrideBits-1:0] lane_stride_o,  // the RUN's lane stride (sx)
  output logic [PB-1:0]          pattern_o,      // the RUN's kernel pattern (last chunk)
  output logic [PB-1:0]          pattern_kxc_o,  // the pattern of the other chunks
  // Pixel packing (section 9.2): the current read's context column and the RUN's packing fields.
  output logic [flycol_pkg::CountBits-1:0] ox_o,        // column of the context's first pixel
  output logic [flycol_pkg::CountBits-1:0] pack_w_o,    // packed row width (0: no packing)
  output logic [PtrBits-1:0]     pack_jump_o     // lane offset added per row wrap
);

  localparam int unsigned B = Cfg.bus_elems;
  // Field widths from flycol_pkg (Yosys 0.23 gets $bits of a struct member wrong).
  localparam int unsigned CountBits = flycol_pkg::CountBits;
  localparam int unsigned RegionBits = flycol_pkg::CountBits;
  localparam int unsigned LsBits = flycol_pkg::LaneStrideBits;
  // Wide enough for go + region and joff + B without overflow.
  localparam int unsigned CmpBits = ((PtrBits > RegionBits) ? PtrBits : RegionBits) + 2;

  // RUN registers (hw::IndexCounters::run_q_). The steps are kept PtrBits wide: a step whose
  // counter ever advances is at most the last row start, below 2^PtrBits (start check), and the
  // step of a counter with n = 1 is never added. n_kx is only checked, never used, so not kept.
  logic [CountBits-1:0]  n_kg_q, n_kg_d, n_cy_q, n_cy_d, n_cx_q, n_cx_d;
  logic [CountBits-1:0]  n_c_q, n_c_d, n_ky_q, n_ky_d, n_kxc_q, n_kxc_d;
  logic [PtrBits-1:0]    step_cx_q, step_cx_d, step_cy_q, step_cy_d, step_c_q, step_c_d;
  logic [PtrBits-1:0]    step_ky_q, step_ky_d, step_kxc_q, step_kxc_d;
  logic [RegionBits-1:0] region_q, region_d, region_kxc_q, region_kxc_d;
  logic [LsBits-1:0]     lane_stride_q, lane_stride_d;
  logic [PB-1:0]         pattern_q, pattern_d, pattern_kxc_q, pattern_kxc_d;
  // Packing fields; pack_jump is kept PtrBits wide for the same reason as the steps.
  logic [CountBits-1:0]  pack_w_q, pack_w_d, pack_r_q, pack_r_d;
  logic [PtrBits-1:0]    pack_jump_q, pack_jump_d;
  // The current context's first pixel column (hw::IndexCounters::ox_q_).
  logic [CountBits-1:0]  ox_q, ox_d;
  logic [CountBits:0]    ox_next;   // ox_q + pack_r, one bit wider
  logic                  row_wrap;  // the next context's first pixel passes one more row end

  logic                 active_q, active_d;
  // Counter indices (for the limits) and the counters' outputs, running sums of their steps.
  logic [CountBits-1:0] kxc_q, kxc_d, ky_q, ky_d, c_q, c_d, cx_q, cx_d, cy_q, cy_d, g_q, g_d;
  logic [PtrBits-1:0]   joff_q, joff_d, kxcoff_q, kxcoff_d, kyoff_q, kyoff_d, coff_q, coff_d;
  logic [PtrBits-1:0]   cxoff_q, cxoff_d, cyoff_q, cyoff_d;

  logic [PtrBits-1:0]    row_start, ptr, go;
  logic [RegionBits-1:0] region;  // the current chunk's region width
  logic                  last_j, kxc_last, ky_last, c_last, cx_last, cy_last, g_last;

  // Outputs of the current read.
  always_comb begin
    row_start = kxcoff_q + kyoff_q + coff_q + cxoff_q + cyoff_q;
    ptr = row_start + joff_q;
    go = row_start & PtrBits'(B - 1);
    kxc_last = {1'b0, kxc_q} + 1'b1 >= {1'b0, n_kxc_q};
    region = kxc_last ? region_q : region_kxc_q;
    // j is the last read of the row when the next word would start beyond the region:
    // go + region <= (j+1)*B, without a divider.
    last_j = CmpBits'(go) + CmpBits'(region) <= CmpBits'(joff_q) + CmpBits'(B);
    // "counter + 1 < n" is the core's advance test; its negation marks the counter's last value.
`ifdef FLYCOL_BUG_IC_BOUND
    ky_last = {1'b0, ky_q} + 1'b1 > {1'b0, n_ky_q};  // formal twin: one kernel row too many
`else
    ky_last = {1'b0, ky_q} + 1'b1 >= {1'b0, n_ky_q};
`endif
    c_last = {1'b0, c_q} + 1'b1 >= {1'b0, n_c_q};
    cx_last = {1'b0, cx_q} + 1'b1 >= {1'b0, n_cx_q};
    cy_last = {1'b0, cy_q} + 1'b1 >= {1'b0, n_cy_q};
    g_last = {1'b0, g_q} + 1'b1 >= {1'b0, n_kg_q};
    ox_next = {1'b0, ox_q} + {1'b0, pack_r_q};
    row_wrap = (pack_w_q != '0) && (ox_next >= {1'b0, pack_w_q});
  end

  assign has_read_o = active_q;
  assign addr_o = AddrBits'(ptr >> Log2B);
  assign b_o = $signed({1'b0, go}) - $signed({1'b0, joff_q});
  assign flush_o = active_q && last_j && kxc_last && ky_last && c_last && cx_last && cy_last &&
                   g_last;
  assign lastc_o = kxc_last;
  assign lane_stride_o = lane_stride_q;
  assign pattern_o = pattern_q;
  assign pattern_kxc_o = pattern_kxc_q;
  assign ox_o = ox_q;
  assign pack_w_o = pack_w_q;
  assign pack_jump_o = pack_jump_q;

  // Next state: a start loads the RUN and clears the counters; an issued read advances them,
  // innermost first (j, kxc, ky, c, cx, cy, g), each wrapping to zero and carrying into the next.
  always_comb begin
    n_kg_d = n_kg_q;
    n_cy_d = n_cy_q;
    n_cx_d = n_cx_q;
    n_c_d = n_c_q;
    n_ky_d = n_ky_q;
    n_kxc_d = n_kxc_q;
    step_cx_d = step_cx_q;
    step_cy_d = step_cy_q;
    step_c_d = step_c_q;
    step_ky_d = step_ky_q;
    step_kxc_d = step_kxc_q;
    region_d = region_q;
    region_kxc_d = region_kxc_q;
    lane_stride_d = lane_stride_q;
    pattern_d = pattern_q;
    pattern_kxc_d = pattern_kxc_q;
    pack_w_d = pack_w_q;
    pack_r_d = pack_r_q;
    pack_jump_d = pack_jump_q;
    ox_d = ox_q;
    active_d = active_q;
    kxc_d = kxc_q;
    ky_d = ky_q;
    c_d = c_q;
    cx_d = cx_q;
    cy_d = cy_q;
    g_d = g_q;
    joff_d = joff_q;
    kxcoff_d = kxcoff_q;
    kyoff_d = kyoff_q;
    coff_d = coff_q;
    cxoff_d = cxoff_q;
    cyoff_d = cyoff_q;
    if (start_i) begin
      n_kg_d = run_i.run_n_kg;
      n_cy_d = run_i.run_n_cy;
      n_cx_d = run_i.run_n_cx;
      n_c_d = run_i.run_n_c;
      n_ky_d = run_i.run_n_ky;
      n_kxc_d = run_i.run_n_kxc;
      step_cx_d = PtrBits'(run_i.run_step_cx);
      step_cy_d = PtrBits'(run_i.run_step_cy);
      step_c_d = PtrBits'(run_i.run_step_c);
      step_ky_d = PtrBits'(run_i.run_step_ky);
      step_kxc_d = PtrBits'(run_i.run_step_kxc);
      region_d = run_i.run_region;
      region_kxc_d = run_i.run_region_kxc;
      lane_stride_d = run_i.run_lane_stride;
      pattern_d = run_i.run_pattern[PB-1:0];
      pattern_kxc_d = run_i.run_pattern_kxc[PB-1:0];
      pack_w_d = run_i.run_pack_w;
      pack_r_d = run_i.run_pack_r;
      pack_jump_d = PtrBits'(run_i.run_pack_jump);
      ox_d = '0;
      active_d = 1'b1;
      kxc_d = '0;
      ky_d = '0;
      c_d = '0;
      cx_d = '0;
      cy_d = '0;
      g_d = '0;
      joff_d = '0;
      kxcoff_d = '0;
      kyoff_d = '0;
      coff_d = '0;
      cxoff_d = '0;
      cyoff_d = '0;
    end else if (issue_i) begin
      if (!last_j) begin
        joff_d = joff_q + PtrBits'(B);
      end else if (!kxc_last) begin
        joff_d = '0;
        kxc_d = kxc_q + 1'b1;
        kxcoff_d = kxcoff_q + step_kxc_q;
      end else begin
        joff_d = '0;
        kxc_d = '0;
        kxcoff_d = '0;
        if (!ky_last) begin
          ky_d = ky_q + 1'b1;
          kyoff_d = kyoff_q + step_ky_q;
        end else begin
          ky_d = '0;
          kyoff_d = '0;
          if (!c_last) begin
            c_d = c_q + 1'b1;
            coff_d = coff_q + step_c_q;
          end else begin
            c_d = '0;
            coff_d = '0;
            if (!cx_last) begin
              cx_d = cx_q + 1'b1;
              cxoff_d = cxoff_q + step_cx_q + (row_wrap ? pack_jump_q : '0);
              ox_d = row_wrap ? CountBits'(ox_next - {1'b0, pack_w_q}) : CountBits'(ox_next);
            end else begin
              cx_d = '0;
              cxoff_d = '0;
              ox_d = '0;
              if (!cy_last) begin
                cy_d = cy_q + 1'b1;
                cyoff_d = cyoff_q + step_cy_q;
              end else begin
                cy_d = '0;
                cyoff_d = '0;
                if (!g_last) begin
                  g_d = g_q + 1'b1;
                end else begin
                  g_d = '0;
                  active_d = 1'b0;
                end
              end
            end
          end
        end
      end
    end
  end

  // Reset values are hw::RunDesc's defaults (n = 1, steps 0, regions 1, lane stride 1, patterns 1).
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      n_kg_q <= CountBits'(1);
      n_cy_q <= CountBits'(1);
      n_cx_q <= CountBits'(1);
      n_c_q <= CountBits'(1);
      n_ky_q <= CountBits'(1);
      n_kxc_q <= CountBits'(1);
      step_cx_q <= '0;
      step_cy_q <= '0;
      step_c_q <= '0;
      step_ky_q <= '0;
      step_kxc_q <= '0;
      region_q <= RegionBits'(1);
      region_kxc_q <= RegionBits'(1);
      lane_stride_q <= LsBits'(1);
      pattern_q <= PB'(1);
      pattern_kxc_q <= PB'(1);
      pack_w_q <= '0;
      pack_r_q <= '0;
      pack_jump_q <= '0;
      ox_q <= '0;
      active_q <= 1'b0;
      kxc_q <= '0;
      ky_q <= '0;
      c_q <= '0;
      cx_q <= '0;
      cy_q <= '0;
      g_q <= '0;
      joff_q <= '0;
      kxcoff_q <= '0;
      kyoff_q <= '0;
      coff_q <= '0;
      cxoff_q <= '0;
      cyoff_q <= '0;
    end else begin
      n_kg_q <= n_kg_d;
      n_cy_q <= n_cy_d;
      n_cx_q <= n_cx_d;
      n_c_q <= n_c_d;
      n_ky_q <= n_ky_d;
      n_kxc_q <= n_kxc_d;
      step_cx_q <= step_cx_d;
      step_cy_q <= step_cy_d;
      step_c_q <= step_c_d;
      step_ky_q <= step_ky_d;
      step_kxc_q <= step_kxc_d;
      region_q <= region_d;
      region_kxc_q <= region_kxc_d;
      lane_stride_q <= lane_stride_d;
      pattern_q <= pattern_d;
      pattern_kxc_q <= pattern_kxc_d;
      pack_w_q <= pack_w_d;
      pack_r_q <= pack_r_d;
      pack_jump_q <= pack_jump_d;
      ox_q <= ox_d;
      active_q <= active_d;
      kxc_q <= kxc_d;
      ky_q <= ky_d;
      c_q <= c_d;
      cx_q <= cx_d;
      cy_q <= cy_d;
      g_q <= g_d;
      joff_q <= joff_d;
      kxcoff_q <= kxcoff_d;
      kyoff_q <= kyoff_d;
      coff_q <= coff_d;
      cxoff_q <= cxoff_d;
      cyoff_q <= cyoff_d;
    end
  end

`ifndef SYNTHESIS
  initial begin
    flycol_pkg::check_range("index_counters", "rows", Cfg.rows, flycol_pkg::CfgRowsMin,
                            flycol_pkg::CfgRowsMax);
    if (!(Cfg.bus_elems >= flycol_pkg::CfgBusElemsMin && Cfg.bus_elems <= flycol_pkg::CfgBusElemsMax &&
          Cfg.log2_bus <= flycol_pkg::CfgLog2BusMax && (1 << Cfg.log2_bus) == Cfg.bus_elems))
      $fatal(1, "index_counters: Cfg.bus_elems = %0d is not 2^log2_bus (%0d..%0d)", Cfg.bus_elems,
             flycol_pkg::CfgBusElemsMin, flycol_pkg::CfgBusElemsMax);
    flycol_pkg::check_range("index_counters", "pattern_bits", PB, 1, flycol_pkg::PatternBits);
    flycol_pkg::check_range("index_counters", "ifmap_depth", Cfg.ifmap_depth, flycol_pkg::CfgIfmapDepthMin,
                            flycol_pkg::CfgIfmapDepthMax);
  end

  // hw::IndexCounters::check_run on the RUN being started: a compiler bug must not run silently.
  // (The `_kxc` checks apply to the chunks other than the last, which exist when n_kxc > 1.)
  localparam int unsigned LaneElems = Cfg.lane_fifo_depth * Cfg.m;
  logic [63:0] chk_msb, chk_need, chk_msb_kxc, chk_need_kxc, chk_rs, chk_last_word, chk_cols;
  logic [63:0] chk_wraps, chk_extra, chk_gcd;
  // gcd(rows, pack_w) by Euclid's algorithm (bounded: 64 steps cover 16-bit operands).
  function automatic logic [63:0] gcd64(input logic [63:0] a_in, input logic [63:0] b_in);
    logic [63:0] a, b, t;
    a = a_in;
    b = b_in;
    for (int i = 0; i < 64; i++) begin
      if (b != 0) begin
        t = a % b;
        a = b;
        b = t;
      end
    end
    gcd64 = a;
  endfunction
  always_comb begin
    chk_msb = '0;
    chk_msb_kxc = '0;
    for (int i = 0; i < flycol_pkg::PatternBits; i++) begin
      if (run_i.run_pattern[i]) chk_msb = 64'(i);
      if (run_i.run_pattern_kxc[i]) chk_msb_kxc = 64'(i);
    end
    // hw::pack_max_wraps: the context columns are multiples of gcd(rows, pack_w).
    chk_gcd = gcd64(64'(run_i.run_pack_w), 64'(Cfg.rows));
    chk_wraps = (run_i.run_pack_w == '0) ? 64'd0 :
                (64'(run_i.run_pack_w) - chk_gcd + 64'(Cfg.rows) - 64'd1) / 64'(run_i.run_pack_w);
    chk_extra = (run_i.run_pack_w == '0) ? 64'd0 :
                (64'(run_i.run_n_cx) - 64'd1) * 64'(run_i.run_pack_r) / 64'(run_i.run_pack_w);
    chk_need = (64'(Cfg.rows) - 64'd1) * 64'(run_i.run_lane_stride) + chk_wraps * 64'(run_i.run_pack_jump) +
               chk_msb + 64'd1;
    chk_need_kxc = (64'(Cfg.rows) - 64'd1) * 64'(run_i.run_lane_stride) + chk_wraps * 64'(run_i.run_pack_jump) +
                   chk_msb_kxc + 64'd1;
    chk_rs = (64'(run_i.run_n_cx) - 64'd1) * 64'(run_i.run_step_cx) + chk_extra * 64'(run_i.run_pack_jump) +
             (64'(run_i.run_n_cy) - 64'd1) * 64'(run_i.run_step_cy) +
             (64'(run_i.run_n_c) - 64'd1) * 64'(run_i.run_step_c) +
             (64'(run_i.run_n_ky) - 64'd1) * 64'(run_i.run_step_ky);
    chk_last_word = (chk_rs + (64'(run_i.run_n_kxc) - 64'd1) * 64'(run_i.run_step_kxc) +
                     64'(run_i.run_region) - 64'd1) >> Log2B;
    chk_cols = 64'($countones(run_i.run_pattern)) +
               (64'(run_i.run_n_kxc) - 64'd1) * 64'($countones(run_i.run_pattern_kxc));
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (rst_ni && start_i) begin
      if (active_q) $error("index_counters: start while reads remain");
      if (issue_i) $error("index_counters: start and an issued read in one cycle");
      if (run_i.run_n_kg == '0) $error("index_counters: RUN field n_kg = 0 outside 1..65535");
      if (run_i.run_n_cy == '0) $error("index_counters: RUN field n_cy = 0 outside 1..65535");
      if (run_i.run_n_cx == '0) $error("index_counters: RUN field n_cx = 0 outside 1..65535");
      if (run_i.run_n_c == '0) $error("index_counters: RUN field n_c = 0 outside 1..65535");
      if (run_i.run_n_ky == '0) $error("index_counters: RUN field n_ky = 0 outside 1..65535");
      if (run_i.run_n_kx == '0) $error("index_counters: RUN field n_kx = 0 outside 1..65535");
      if (run_i.run_region == '0) $error("index_counters: RUN field region = 0 outside 1..65535");
      if (run_i.run_pattern == '0) $error("index_counters: RUN field pattern is zero");
      else if (chk_msb >= 64'(PB))
        $error("index_counters: RUN field pattern = %h does not fit pattern_bits = %0d",
               run_i.run_pattern, PB);
      if (run_i.run_n_kxc == '0) $error("index_counters: RUN field n_kxc = 0 outside 1..65535");
      else if (chk_cols != 64'(run_i.run_n_kx))
        $error("index_counters: RUN fields pattern = %h, n_kxc = %0d, pattern_kxc = %h give %0d %s %0d",
               run_i.run_pattern, run_i.run_n_kxc, run_i.run_pattern_kxc, chk_cols, "columns, not n_kx =",
               run_i.run_n_kx);
      if (run_i.run_pattern != '0 && 64'(run_i.run_region) < chk_need)
        $error("index_counters: RUN field region = %0d smaller than %0d %s", run_i.run_region,
               chk_need, "= (rows-1)*lane_stride + wraps*pack_jump + pattern width");
      if (run_i.run_pack_w == '0 && (run_i.run_pack_r != '0 || run_i.run_pack_jump != '0))
        $error("index_counters: RUN fields pack_r = %0d, pack_jump = %0d must be 0 without packing",
               run_i.run_pack_r, run_i.run_pack_jump);
      if (run_i.run_pack_w != '0 && 64'(run_i.run_pack_r) != 64'(Cfg.rows) % 64'(run_i.run_pack_w))
        $error("index_counters: RUN field pack_r = %0d is not rows mod pack_w", run_i.run_pack_r);
      if (chk_wraps > 64'(flycol_pkg::PackWraps))
        $error("index_counters: RUN field pack_w = %0d: a lane would wrap %0d rows, the lanes compare %0d",
               run_i.run_pack_w, chk_wraps, flycol_pkg::PackWraps);
      if (Cfg.rows > 1 && $countones(run_i.run_pattern) > int'(LaneElems))
        $error("index_counters: RUN field pattern = %h has more than fifo_depth x m = %0d columns",
               run_i.run_pattern, LaneElems);
      if (run_i.run_n_kxc != '0 && chk_last_word >= 64'(Cfg.ifmap_depth))
        $error("index_counters: RUN reads word %0d but the ifmap buffer has %0d words",
               chk_last_word, Cfg.ifmap_depth);
      if (run_i.run_n_kxc > 16'd1) begin
        if (run_i.run_region_kxc == '0)
          $error("index_counters: RUN field region_kxc = 0 outside 1..65535");
        if (run_i.run_pattern_kxc == '0) $error("index_counters: RUN field pattern_kxc is zero");
        else if (chk_msb_kxc >= 64'(PB))
          $error("index_counters: RUN field pattern_kxc = %h does not fit pattern_bits = %0d",
                 run_i.run_pattern_kxc, PB);
        if (run_i.run_pattern_kxc != '0 && 64'(run_i.run_region_kxc) < chk_need_kxc)
          $error("index_counters: RUN field region_kxc = %0d smaller than %0d %s", run_i.run_region_kxc,
                 chk_need_kxc, "= (rows-1)*lane_stride + wraps*pack_jump + pattern_kxc width");
        if (Cfg.rows > 1 && $countones(run_i.run_pattern_kxc) > int'(LaneElems))
          $error("index_counters: RUN field pattern_kxc = %h has more than fifo_depth x m = %0d columns",
                 run_i.run_pattern_kxc, LaneElems);
        if (64'(run_i.run_region_kxc) > 64'(run_i.run_step_kxc) + 64'(run_i.run_region))
          $error("index_counters: RUN field region_kxc = %0d larger than step_kxc + region = %0d",
                 run_i.run_region_kxc, 64'(run_i.run_step_kxc) + 64'(run_i.run_region));
      end
    end
    if (rst_ni && issue_i && !active_q) $error("index_counters: read issued with no read left");
    if (rst_ni && active_q && (64'(ptr) >> Log2B) >= 64'(Cfg.ifmap_depth))
      $error("index_counters: read address %0d out of range (depth %0d)", ptr >> Log2B,
             Cfg.ifmap_depth);
  end
`endif

  // ---- Assertions (hw/common/flycol_assert.svh) ----
  `FLYCOL_ASSERT_NEVER(NoStartActive_A, start_i && has_read_o, clk_i, rst_ni)
  `FLYCOL_ASSERT_NEVER(NoIssueIdle_A, issue_i && !has_read_o, clk_i, rst_ni)
  // Loop counters stay below their RUN bounds while a RUN reads.
  `FLYCOL_ASSERT(CountersInRange_A,
                 has_read_o |-> kxc_q < n_kxc_q && ky_q < n_ky_q && c_q < n_c_q && cx_q < n_cx_q &&
                                cy_q < n_cy_q && g_q < n_kg_q,
                 clk_i, rst_ni)
  // The last read ends the RUN: after issuing it no read is left.
  `FLYCOL_ASSERT(FlushEnds_A, (issue_i && flush_o) |=> !has_read_o, clk_i, rst_ni)
  `FLYCOL_ASSERT(StartReads_A, start_i |=> has_read_o, clk_i, rst_ni)
  `FLYCOL_ASSERT_KNOWN(CtrlKnown_A, {has_read_o, flush_o}, clk_i, rst_ni)
  `FLYCOL_COVER(Flush_C, issue_i && flush_o, clk_i, rst_ni)
  `FLYCOL_COVER(ReadWait_C, has_read_o && !issue_i, clk_i, rst_ni)
  // Packing: the context column stays inside its row; it is 0 whenever packing is off.
  `FLYCOL_ASSERT(PackColumnInRow_A, has_read_o |-> (pack_w_q == '0 ? ox_q == '0 : ox_q < pack_w_q), clk_i, rst_ni)
  `FLYCOL_COVER(PackRowWrap_C, issue_i && last_j && ky_last && c_last && !cx_last && row_wrap, clk_i, rst_ni)

endmodule
