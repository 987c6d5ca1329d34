// mma_csa_tree: the exact multi-operand sum of the fused units as a
// carry-save compressor tree with one carry-propagate adder (the C model's
// mma_fused_sum() sum, like the mma_add tree it replaces when SUM > 0):
//     s = sum_{i<N} x_i,   x_i signed W-bit two's complement at [i*W +: W]
//
// Signs without sign extension: each term's top bit is inverted (the term
// read as x_i + 2^(W-1), unsigned) and one constant row adds -N * 2^(W-1),
// so the rows above bit W-1 are zeros and constants that synthesis folds
// away.  All rows are SW bits and the tree computes modulo 2^SW; the sum
// fits SW = W + clog2(N) bits, so it is exact.
//
// Reduction (Wallace, on whole rows): C42=0 groups the rows of a level in
// threes (mma_csa32, 3 -> 2); C42=1 in fours (mma_csa42, 4 -> 2), a
// leftover three through one mma_csa32.  Rows left over pass to the next
// level.  Levels until two rows remain, then one carry-propagate adder.
// 34 rows (a K=32 unit: 32 products, c, the constant) take 8 levels of
// 3:2 counters or 4 levels of 4:2 compressors and one of 3:2.
module mma_csa_tree #(
  parameter int N   = 4,
  parameter int W   = 16,
  parameter int C42 = 0,
  localparam int SW = W + $clog2(N)
) (
  input  logic [N*W-1:0]   x,
  output logic [SW-1:0]    s
);
  if (N < 1) begin : g_e_n  $error("mma_csa_tree: parameter N must be at least 1"); end
  if (W < 2) begin : g_e_w  $error("mma_csa_tree: parameter W must be at least 2"); end

  // rows after one level of reduction, and after lv levels (Verilog-2005
  // constant functions: Yosys 0.23 takes no return statement)
  function automatic integer next_rows(input integer n);
    if (n <= 2)         next_rows = n;
    else if (C42 != 0)  next_rows = (n / 4) * 2 + ((n % 4 == 3) ? 2 : n % 4);
    else                next_rows = (n / 3) * 2 + n % 3;
  endfunction
  function automatic integer rows_at(input integer lv);
    integer i;
    rows_at = N + 1;
    for (i = 0; i < lv; i = i + 1) rows_at = next_rows(rows_at);
  endfunction
  // levels until two rows remain (at most 2 * clog2(N + 1) + 1 for 3:2 counters)
  function automatic integer levels(input integer n0);
    integer i, n;
    n = n0;
    levels = 0;
    for (i = 0; i < 64; i = i + 1)
      if (n > 2) begin
        n = next_rows(n);
        levels = levels + 1;
      end
  endfunction

  localparam int NL = levels(N + 1);
  localparam logic [SW-1:0] CORR = ~(SW'(N) << (W - 1)) + SW'(1);   // -N * 2^(W-1)

  for (genvar lv = 0; lv <= NL; lv++) begin : g_lv
    localparam int NR = rows_at(lv);                  // rows of this level
    localparam int NP = (lv > 0) ? rows_at(lv - 1) : 0;   // of the level before
    localparam int GS = (C42 != 0) ? 4 : 3;           // rows per compressor
    localparam int NG = NP / GS;                      // compressors of GS rows
    localparam int T3 = (C42 != 0 && NP % 4 == 3) ? 1 : 0;   // a 3:2 for three left over
    localparam int NC = NG + T3;                      // compressors, two rows out each
    localparam int NU = NG * GS + T3 * 3;             // rows taken by them
    for (genvar g = 0; g < NC; g++) begin : g_c
      logic [SW-1:0] cs, cc;
      if (g < NG && C42 != 0) begin : g_42
        mma_csa42 #(.W(SW)) u_c (
          .w(g_lv[lv-1].g_r[4*g].r), .x(g_lv[lv-1].g_r[4*g+1].r),
          .y(g_lv[lv-1].g_r[4*g+2].r), .z(g_lv[lv-1].g_r[4*g+3].r), .s(cs), .c(cc));
      end else begin : g_32
        localparam int B = (g < NG) ? 3 * g : NG * 4;
        mma_csa32 #(.W(SW)) u_c (
          .x(g_lv[lv-1].g_r[B].r), .y(g_lv[lv-1].g_r[B+1].r), .z(g_lv[lv-1].g_r[B+2].r),
          .s(cs), .c(cc));
      end
    end
    for (genvar i = 0; i < NR; i++) begin : g_r
      logic [SW-1:0] r;
      if (lv == 0 && i < N) begin : g_x           // a term, top bit inverted
        assign r = SW'({~x[i*W + W - 1], x[i*W +: W - 1]});
      end else if (lv == 0) begin : g_k           // the constant row
        assign r = CORR;
      end else if (i < 2 * NC) begin : g_o        // out of compressor i/2
        assign r = (i % 2 == 0) ? g_c[i/2].cs : g_c[i/2].cc;
      end else begin : g_p                        // passed on
        assign r = g_lv[lv-1].g_r[NU + i - 2 * NC].r;
      end
    end
  end

  // the carry-propagate adder
  assign s = g_lv[NL].g_r[0].r + g_lv[NL].g_r[1].r;
endmodule
