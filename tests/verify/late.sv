// A unit with a valid handshake that gives each result one transaction
// late (with LATE defined): out_valid comes when the transaction's result
// does, but d holds the previous transaction's.  Its dot product is
// examples/bf16_dot8's (two edges from the operands to d).
module late_dot (
  input  logic         clk,
  input  logic         in_valid,
  input  logic [127:0] a, b,
  input  logic [31:0]  c,
  output logic         out_valid,
  output logic [31:0]  d
);
  logic [31:0] q, last;
  logic [1:0]  v = '0;
  bf16_dot8 u (.clk, .en(1'b1),
               .a0(a[15:0]), .a1(a[31:16]), .a2(a[47:32]), .a3(a[63:48]), .a4(a[79:64]), .a5(a[95:80]), .a6(a[111:96]), .a7(a[127:112]),
               .b0(b[15:0]), .b1(b[31:16]), .b2(b[47:32]), .b3(b[63:48]), .b4(b[79:64]), .b5(b[95:80]), .b6(b[111:96]), .b7(b[127:112]),
               .c, .d(q));
  always_ff @(posedge clk) begin
    v <= {v[0], in_valid};
    if (v[1]) last <= q;
  end
  assign out_valid = v[1];
`ifdef LATE
  assign d = last;
`else
  assign d = q;
`endif
endmodule
