// mma_sum_tree: the exact sum of N signed W-bit aligned terms (the sum of
// the C model's mma_fused_sum()), built as SUM chooses (the same arithmetic
// in every case):
//   SUM=0  a balanced tree of mma_add nodes (carry-propagate adders), the
//          leaves padded with zeros to a power of two;
//   SUM=1  a carry-save tree of 3:2 counters, SUM=2 of 4:2 compressors, with
//          one carry-propagate adder (mma_csa_tree).
//     s = sum_{i<N} x_i,   x_i at [i*W +: W],  s of SW = W + clog2(N) bits
// mma_fda (the fused sum, the GDFS group sums) and mma_fdrda use it.
module mma_sum_tree #(
  parameter int N   = 4,
  parameter int W   = 16,
  parameter int SUM = mma_pkg::MMA_SUM_ADD,
  localparam int SW = W + $clog2(N)
) (
  input  logic [N*W-1:0]   x,
  output logic [SW-1:0]    s
);
  localparam int LG = $clog2(N);
  localparam int M  = 1 << LG;
  if (SUM == mma_pkg::MMA_SUM_ADD) begin : g_cpa
    // node j of level lv (W + lv bits, sign-extended) at t[(lv*M + j)*SW +: SW]
    // (one flat vector, no names inside generate arrays: Verilator 5.006
    // loses those in a module elaborated under two parents)
    logic [(LG+1)*M*SW-1:0] t;
    for (genvar lv = 0; lv <= LG; lv++) begin : g_t
      for (genvar j = 0; j < M; j++) begin : g_n
        if (lv == 0 && j < N) begin : g_in
          assign t[j*SW +: SW] = SW'($signed(x[j*W +: W]));
        end else if (lv == 0 || j >= (M >> lv)) begin : g_pad
          assign t[(lv*M + j)*SW +: SW] = '0;
        end else begin : g_add
          logic signed [W+lv-1:0] v;
          mma_add #(.W(W+lv-1)) u_add (
            .a(t[((lv-1)*M + 2*j)*SW +: W+lv-1]), .b(t[((lv-1)*M + 2*j+1)*SW +: W+lv-1]), .s(v));
          assign t[(lv*M + j)*SW +: SW] = SW'(v);
        end
      end
    end
    assign s = t[LG*M*SW +: SW];
  end else begin : g_csa
    mma_csa_tree #(.N(N), .W(W), .C42((SUM == mma_pkg::MMA_SUM_CSA42) ? 1 : 0)) u_t (.x(x), .s(s));
  end
endmodule
