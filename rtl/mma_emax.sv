// mma_emax: one node of the maximum-exponent tree (the emax of the C
// model's mma_fused_sum()).  Exponents are in offset form (two's complement
// with the sign bit flipped, so that unsigned order is numeric order); a
// side with any=0 (no term that takes part) loses.
module mma_emax #(
  parameter int EW = 11
) (
  input  logic          a_any,
  input  logic [EW-1:0] a_e,
  input  logic          b_any,
  input  logic [EW-1:0] b_e,
  output logic          any,
  output logic [EW-1:0] e
);
  assign any = a_any | b_any;
  assign e   = (a_any & (~b_any | (a_e >= b_e))) ? a_e : b_e;
endmodule
