// mma_add_tree: the exact sum of N signed W-bit values as a balanced tree
// of mma_add nodes (carry-propagate adders), the counterpart of
// mma_csa_tree with the same ports:
//     s = sum_{i<N} x_i,   x_i at [i*W +: W],  s of SW = W + clog2(N) bits
// (the group sums of GDFS units; the fused sum of mma_fda builds the same
// tree inline, with its coverage flags beside it).
module mma_add_tree #(
  parameter int N   = 4,
  parameter int W   = 16,
  localparam int SW = W + $clog2(N)
) (
  input  logic [N*W-1:0]   x,
  output logic [SW-1:0]    s
);
  localparam int LG = $clog2(N);
  localparam int M  = 1 << LG;
  for (genvar lv = 0; lv <= LG; lv++) begin : g_t
    for (genvar j = 0; j < (M >> lv); j++) begin : g_n
      logic signed [W+lv-1:0] v;
      if (lv == 0 && j < N) begin : g_in
        assign v = x[j*W +: W];
      end else if (lv == 0) begin : g_pad
        assign v = '0;
      end else begin : g_add
        mma_add #(.W(W+lv-1)) u_add (.a(g_t[lv-1].g_n[2*j].v), .b(g_t[lv-1].g_n[2*j+1].v), .s(v));
      end
    end
  end
  assign s = g_t[LG].g_n[0].v;
endmodule
