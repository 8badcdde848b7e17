// Concurrent assertion macros for flycol's RTL: one spelling for every protocol check and cover
// point, so each tool gets what it can take (Verilator: SVA; Icarus: immediate checks; synthesis:
// nothing). Every RTL module includes this file and ends with an assertion section built from it.
//
// Macros (name: a unique label in the module; it appears in the failure message, e.g.
// "Assertion failed in TOP.flycol_top.u_dma.FifoNoPushFull_A"; by lowRISC habit names end in _A
// for assertions, _M for assumptions, _C for covers):
//   `FLYCOL_ASSERT(name, prop, clk, rst_n)         prop holds on every clock edge out of reset
//   `FLYCOL_ASSERT_NEVER(name, expr, clk, rst_n)   the boolean expr never holds out of reset
//   `FLYCOL_ASSERT_KNOWN(name, sig, clk, rst_n)    sig has no X or Z bit out of reset
//   `FLYCOL_ASSERT_INIT(name, expr)                expr holds at elaboration/time zero (parameters)
//   `FLYCOL_ASSERT_COMB(name, expr)                expr holds whenever it is evaluated (combinational
//                                                  units without a clock: an immediate assertion)
//   `FLYCOL_ASSUME(name, prop, clk, rst_n)         an assumption for formal tools; asserted in simulation
//   `FLYCOL_COVER(name, prop, clk, rst_n)          prop is reached (counted by verilator --coverage)
//   `FLYCOL_ASSERT_VALID_HELD(name, valid, ready, clk, rst_n)
//                                                  an offered item stays offered until taken
//   `FLYCOL_ASSERT_STABLE_UNTIL_TAKEN(name, valid, ready, data, clk, rst_n)
//                                                  and its payload does not change meanwhile
//   `FLYCOL_ASSERT_STREAM(name, valid, ready, data, clk, rst_n)
//                                                  both of the above, as name_Held and name_Stable
// prop may use |-> and |=>, $past, $stable, $rose, $fell (what Verilator 5.006 accepts; it rejects
// sequence delays such as ##1, so write |=> instead). Every property is disabled while rst_n is low.
//
// Tool selection (the first that applies):
//   SYNTHESIS (Yosys read_verilog -sv, synthesis tools)  every macro expands to nothing
//   YOSYS (read_verilog -formal defines no SYNTHESIS)    nothing either: Yosys without Verific
//                                                        parses no `assert property (@(...))`;
//                                                        formal harnesses state their own rules
//   FLYCOL_ASSERT_OFF (a build that wants none)          every macro expands to nothing
//   __ICARUS__ or FLYCOL_NO_SVA (no concurrent SVA)      ASSERT_NEVER, ASSERT_KNOWN and ASSERT_INIT
//                                                        become immediate checks at the clock edge;
//                                                        the rest expand to nothing
//   otherwise (Verilator, commercial simulators)         concurrent SVA

`ifndef FLYCOL_ASSERT_SVH
`define FLYCOL_ASSERT_SVH

`ifdef SYNTHESIS
  `define FLYCOL_ASSERT_NONE
`elsif YOSYS
  `define FLYCOL_ASSERT_NONE
`elsif FLYCOL_ASSERT_OFF
  `define FLYCOL_ASSERT_NONE
`elsif __ICARUS__
  `define FLYCOL_ASSERT_IMMEDIATE
`elsif FLYCOL_NO_SVA
  `define FLYCOL_ASSERT_IMMEDIATE
`endif

`ifdef FLYCOL_ASSERT_NONE

`define FLYCOL_ASSERT(name, prop, clk, rst_n)
`define FLYCOL_ASSERT_NEVER(name, expr, clk, rst_n)
`define FLYCOL_ASSERT_KNOWN(name, sig, clk, rst_n)
`define FLYCOL_ASSERT_INIT(name, expr)
`define FLYCOL_ASSERT_COMB(name, expr)
`define FLYCOL_ASSUME(name, prop, clk, rst_n)
`define FLYCOL_COVER(name, prop, clk, rst_n)
`define FLYCOL_ASSERT_VALID_HELD(name, valid, ready, clk, rst_n)
`define FLYCOL_ASSERT_STABLE_UNTIL_TAKEN(name, valid, ready, data, clk, rst_n)
`define FLYCOL_ASSERT_STREAM(name, valid, ready, data, clk, rst_n)

`elsif FLYCOL_ASSERT_IMMEDIATE

// Icarus Verilog 11/12 parses no concurrent assertions; the checks that need no temporal operator
// still run as immediate checks at the clock edge, which is where 4-state X detection pays off.
`define FLYCOL_ASSERT(name, prop, clk, rst_n)
`define FLYCOL_ASSERT_NEVER(name, expr, clk, rst_n) \
  always @(posedge clk) begin \
    if (rst_n === 1'b1 && (expr) === 1'b1) $error("Assertion failed: %m.%s", `"name`"); \
  end
`define FLYCOL_ASSERT_KNOWN(name, sig, clk, rst_n) \
  always @(posedge clk) begin \
    if (rst_n === 1'b1 && ^(sig) === 1'bx) $error("Assertion failed: %m.%s (X or Z)", `"name`"); \
  end
`define FLYCOL_ASSERT_INIT(name, expr) \
  initial begin \
    if ((expr) !== 1'b1) $error("Assertion failed: %m.%s", `"name`"); \
  end
`define FLYCOL_ASSERT_COMB(name, expr) \
  always @* begin \
    if ((expr) === 1'b0) $error("Assertion failed: %m.%s", `"name`"); \
  end
`define FLYCOL_ASSUME(name, prop, clk, rst_n)
`define FLYCOL_COVER(name, prop, clk, rst_n)
`define FLYCOL_ASSERT_VALID_HELD(name, valid, ready, clk, rst_n)
`define FLYCOL_ASSERT_STABLE_UNTIL_TAKEN(name, valid, ready, data, clk, rst_n)
`define FLYCOL_ASSERT_STREAM(name, valid, ready, data, clk, rst_n)

`else

// The label before `assert` is what Verilator prints ("Assertion failed in <scope>.<name>"), so a
// failing run names the rule it broke. rst_ni is an asynchronous reset of the registers and a
// synchronous `disable iff` here; the waiver keeps Verilator's SYNCASYNCNET for the logic itself.
`define FLYCOL_ASSERT(name, prop, clk, rst_n) \
  /* verilator lint_off SYNCASYNCNET */ \
  name: assert property (@(posedge clk) disable iff (!(rst_n)) (prop)); \
  /* verilator lint_on SYNCASYNCNET */
`define FLYCOL_ASSERT_NEVER(name, expr, clk, rst_n) \
  /* verilator lint_off SYNCASYNCNET */ \
  name: assert property (@(posedge clk) disable iff (!(rst_n)) !(expr)); \
  /* verilator lint_on SYNCASYNCNET */
`define FLYCOL_ASSERT_KNOWN(name, sig, clk, rst_n) \
  /* verilator lint_off SYNCASYNCNET */ \
  name: assert property (@(posedge clk) disable iff (!(rst_n)) !$isunknown(sig)); \
  /* verilator lint_on SYNCASYNCNET */
`define FLYCOL_ASSERT_INIT(name, expr) \
  initial begin \
    name: assert (expr); \
  end
`define FLYCOL_ASSERT_COMB(name, expr) \
  always_comb begin \
    name: assert (expr); \
  end
`define FLYCOL_ASSUME(name, prop, clk, rst_n) \
  /* verilator lint_off SYNCASYNCNET */ \
  name: assume property (@(posedge clk) disable iff (!(rst_n)) (prop)); \
  /* verilator lint_on SYNCASYNCNET */
`define FLYCOL_COVER(name, prop, clk, rst_n) \
  /* verilator lint_off SYNCASYNCNET */ \
  name: cover property (@(posedge clk) disable iff (!(rst_n)) (prop)); \
  /* verilator lint_on SYNCASYNCNET */
`define FLYCOL_ASSERT_VALID_HELD(name, valid, ready, clk, rst_n) \
  /* verilator lint_off SYNCASYNCNET */ \
  name: assert property (@(posedge clk) disable iff (!(rst_n)) ((valid) && !(ready)) |=> (valid)); \
  /* verilator lint_on SYNCASYNCNET */
`define FLYCOL_ASSERT_STABLE_UNTIL_TAKEN(name, valid, ready, data, clk, rst_n) \
  /* verilator lint_off SYNCASYNCNET */ \
  name: assert property (@(posedge clk) disable iff (!(rst_n)) ((valid) && !(ready)) |=> $stable(data)); \
  /* verilator lint_on SYNCASYNCNET */
`define FLYCOL_ASSERT_STREAM(name, valid, ready, data, clk, rst_n) \
  `FLYCOL_ASSERT_VALID_HELD(name``_Held, valid, ready, clk, rst_n) \
  `FLYCOL_ASSERT_STABLE_UNTIL_TAKEN(name``_Stable, valid, ready, data, clk, rst_n)

`endif

`endif  // FLYCOL_ASSERT_SVH
