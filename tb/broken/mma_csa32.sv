// A deliberately broken mma_csa32 (tb/mma_dpa_csa_broken.dut): the carry
// out of column 3 is dropped, as a miswired counter would drop it.  mmaref
// verify must report mismatches.
module mma_csa32 #(
  parameter int W = 16
) (
  input  logic [W-1:0] x,
  input  logic [W-1:0] y,
  input  logic [W-1:0] z,
  output logic [W-1:0] s,
  output logic [W-1:0] c
);
  logic [W-1:0] maj;
  assign s   = x ^ y ^ z;
  assign maj = (x & y) | (x & z) | (y & z);
  assign c   = (maj & ~(W'(1) << 3)) << 1;
endmodule
