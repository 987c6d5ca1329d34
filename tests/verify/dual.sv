// A test unit for mmaref verify: two of our mma_dpa units behind one set of
// ports, the fmt input choosing an e4m3 unit (K=4, 8-bit elements) or a
// bf16 unit (K=2, 16-bit elements) on the same 32-bit buses; c and d travel
// NaN-boxed in 64-bit ports.  One testbench build checks both.  Like many a
// designer's unit it has an output its description leaves out (cov, the
// units' coverage flags), an input the description holds (en, set to 1)
// and a parameter with a negative value (CHECK, set by the description:
// Yosys must be handed it as Verilator is).
module dual #(parameter int CHECK = 0) (
  input  logic         clk,
  input  logic         rst_n,
  input  logic         in_valid,
  input  logic         en,
  input  logic         fmt,
  input  logic [31:0]  a,
  input  logic [31:0]  b,
  input  logic [63:0]  c,
  output logic         out_valid,
  output logic [63:0]  d,
  output logic [31:0]  cov
);
  if (CHECK != -5) begin : g_check $error("dual: parameter CHECK is %0d, not the description's -5", CHECK); end
  logic v8, v16;
  logic [31:0] d8, d16, cov8, cov16;
  mma_dpa #(.A_EB(4), .A_MB(3), .A_BIAS(7), .A_SPEC(1), .B_EB(4), .B_MB(3), .B_BIAS(7), .B_SPEC(1),
            .P(13), .K(4), .L(4), .F(13), .PIPE(1))
    u8 (.clk(clk), .rst_n(rst_n), .in_valid(in_valid && en && !fmt), .a(a), .b(b), .c(c[31:0]),
        .out_valid(v8), .d(d8), .cov(cov8));
  mma_dpa #(.A_EB(8), .A_MB(7), .A_BIAS(127), .A_SPEC(0), .B_EB(8), .B_MB(7), .B_BIAS(127), .B_SPEC(0),
            .P(23), .K(2), .L(2), .F(25), .PIPE(1))
    u16 (.clk(clk), .rst_n(rst_n), .in_valid(in_valid && en && fmt), .a(a), .b(b), .c(c[31:0]),
         .out_valid(v16), .d(d16), .cov(cov16));
  assign out_valid = v8 || v16;
  assign d = {32'hffffffff, v8 ? d8 : d16};
  assign cov = cov8 | cov16;
endmodule
