// mma_emax_tree: the largest exponent of N terms (the emax of the C model's
// mma_fused_sum()) as a balanced tree of mma_emax nodes, the leaves padded
// to a power of two with terms that take no part; beside it FW flag bits
// per term OR-ed up the same tree.  mma_fda and mma_fdrda use it for emax
// and, on the complements of the exponents, for the smallest exponent of a
// nonzero term (coverage).
module mma_emax_tree #(
  parameter int N  = 2,
  parameter int EW = 11,
  parameter int FW = 1
) (
  input  logic [N-1:0]    t_any,    // term j takes part
  input  logic [N*EW-1:0] t_e,      // its exponent (offset form) at [j*EW +: EW]
  input  logic [N*FW-1:0] t_fl,     // its flags at [j*FW +: FW]
  output logic            any,
  output logic [EW-1:0]   e,
  output logic [FW-1:0]   fl
);
  localparam int LG = $clog2(N);
  localparam int M  = 1 << LG;
  for (genvar lv = 0; lv <= LG; lv++) begin : g_em
    for (genvar j = 0; j < (M >> lv); j++) begin : g_n
      logic          an;
      logic [EW-1:0] ue;
      logic [FW-1:0] f;
      if (lv == 0) begin : g_leaf
        if (j < N) begin : g_in
          assign an = t_any[j];
          assign ue = t_e[j*EW +: EW];
          assign f  = t_fl[j*FW +: FW];
        end else begin : g_pad
          assign an = 1'b0;
          assign ue = '0;
          assign f  = '0;
        end
      end else begin : g_node
        mma_emax #(.EW(EW)) u_em (
          .a_any(g_em[lv-1].g_n[2*j].an), .a_e(g_em[lv-1].g_n[2*j].ue),
          .b_any(g_em[lv-1].g_n[2*j+1].an), .b_e(g_em[lv-1].g_n[2*j+1].ue),
          .any(an), .e(ue));
        assign f = g_em[lv-1].g_n[2*j].f | g_em[lv-1].g_n[2*j+1].f;
      end
    end
  end
  assign any = g_em[LG].g_n[0].an;
  assign e   = g_em[LG].g_n[0].ue;
  assign fl  = g_em[LG].g_n[0].f;
endmodule
