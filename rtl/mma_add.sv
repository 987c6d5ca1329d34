// mma_add: exact multi-operand addition of N signed W-bit terms (the
// fixed-point adder of the fused sum).  SW = W + clog2(N) bits cannot
// overflow.
module mma_add #(
  parameter int N  = 33,
  parameter int W  = 16,
  localparam int SW = W + $clog2(N)
) (
  input  logic [N*W-1:0]        t,
  output logic signed [SW-1:0]  s
);
  always_comb begin
    s = '0;
    for (int i = 0; i < N; i++)
      s = s + SW'($signed(t[i*W +: W]));
  end
endmodule
