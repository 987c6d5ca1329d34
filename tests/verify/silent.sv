// A test unit for mmaref verify that never answers: it takes operations
// (or, with NEVER_READY, not even that) and gives no result.
module silent (
  input  logic        clk,
  input  logic        rst_n,
  input  logic        in_valid,
  output logic        in_ready,
  input  logic [63:0] a,
  input  logic [63:0] b,
  input  logic [31:0] c,
  output logic        out_valid,
  output logic [31:0] d
);
`ifdef NEVER_READY
  assign in_ready = 1'b0;
`else
  assign in_ready = 1'b1;
`endif
  assign out_valid = 1'b0;
  assign d = 32'h0;
endmodule
