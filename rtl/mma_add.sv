// mma_add: one node of the multi-operand adder tree (the exact fixed-point
// addition of the C model's mma_fused_sum()): two signed W-bit operands,
// a W+1-bit sum that cannot overflow.
module mma_add #(
  parameter int W = 16
) (
  input  logic signed [W-1:0]  a,
  input  logic signed [W-1:0]  b,
  output logic signed [W:0]    s
);
  assign s = (W+1)'(a) + (W+1)'(b);
endmodule
