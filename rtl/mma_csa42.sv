// mma_csa42: a row of 4:2 compressors (mma_csa_tree): four W-bit rows in,
// two out, with
//     w + x + y + z = s + c   (mod 2^W)
// Per column the usual compressor cell: the inner carry cout (the majority
// of w, x, y, written as a mux on w ^ x) goes one column up as that
// column's cin and does not depend on cin, so a row has no ripple; sum and
// carry take three XOR delays (two chained 3:2 counters take four).
module mma_csa42 #(
  parameter int W = 16
) (
  input  logic [W-1:0] w,
  input  logic [W-1:0] x,
  input  logic [W-1:0] y,
  input  logic [W-1:0] z,
  output logic [W-1:0] s,
  output logic [W-1:0] c
);
  logic [W-1:0] wx, p, cout, cin, cy;
  assign wx   = w ^ x;
  assign p    = wx ^ y ^ z;                  // parity of the four inputs
  assign cout = (wx & y) | (~wx & w);        // majority(w, x, y)
  assign cin  = cout << 1;
  assign s    = p ^ cin;
  assign cy   = (p & cin) | (~p & z);        // majority(wx ^ y, z, cin)
  assign c    = cy << 1;
endmodule
