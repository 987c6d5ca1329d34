// mma_csa32: a row of 3:2 counters (full adders), the carry-save adder of
// the compressor tree (mma_csa_tree): three W-bit rows in, two out, with
//     x + y + z = s + c   (mod 2^W)
// Bit i of s is the parity of the three bits of column i; c holds their
// majority one column up (its bit 0 is 0, a carry out of bit W-1 is
// dropped: the tree computes modulo 2^W, see mma_csa_tree).
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
  assign c   = maj << 1;
endmodule
