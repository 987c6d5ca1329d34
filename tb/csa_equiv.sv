// csa_equiv: mma_csa_tree against the plain sum of its terms, for
// tb/csa_equiv.sh's proof (yosys sat): eq must be 1 for every input.
module csa_equiv #(
  parameter int N   = 5,
  parameter int W   = 6,
  parameter int C42 = 0,
  localparam int SW = W + $clog2(N)
) (
  input  logic [N*W-1:0] x,
  output logic           eq
);
  logic [SW-1:0] s, r;
  mma_csa_tree #(.N(N), .W(W), .C42(C42)) u_tree (.x(x), .s(s));
  always_comb begin
    r = '0;
    for (int i = 0; i < N; i++) r = r + SW'($signed(x[i*W +: W]));
  end
  assign eq = s == r;
endmodule
