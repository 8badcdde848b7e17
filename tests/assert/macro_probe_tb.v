// Icarus bench of macro_probe.sv: one X on valid_i and one forbidden value out of reset; the
// immediate checks of the Icarus branch must name Known_A and NoF_A.
module macro_probe_tb;
  reg clk = 1'b0, rst_n = 1'b0, valid = 1'b0, ready = 1'b1;
  reg [3:0] data = 4'h0;
  wire q;
  macro_probe u_probe (.clk_i(clk), .rst_ni(rst_n), .valid_i(valid), .ready_i(ready), .data_i(data), .q_o(q));
  always #5 clk = ~clk;
  initial begin
    #12 rst_n = 1'b1;
    #10 valid = 1'bx;
    #10 valid = 1'b1;
    data = 4'hf;
    #10 $finish;
  end
endmodule
