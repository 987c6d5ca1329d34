// mma_dpa: parametrized dot-product-accumulate unit
//     d = c + sum_{k<K} a_k * b_k
// realizing the C model's fused algorithms (FDA / CoFDA, FDRDA / CoFDRDA,
// GFDRDA / CoGFDRDA).  K products are split into K/L steps of L products;
// each step's rounded result is the c of the next (chained; L=K: one fused
// step).  The parameters mirror the model's configuration string (see
// docs/rtl.md for the preset parameter sets):
//
//   A_*, B_*    input formats: EB exponent bits, MB fraction bits, BIAS,
//               SPEC 0 IEEE / 1 FN (no Inf) / 2 FNUZ / 3 FINITE
//   C_*, D_*    accumulator and output formats (IEEE-like)
//   P           fraction bits kept in the output (23 fp32, 13 "e8m13", 10 fp16)
//   K, L        products in all, products per fused step
//   TREE        0 fused, 1 even/odd groups, 5 exact (mma_tree): the exact sum
//               of c and each step's products, rounded once (CDNA1 E-FDPA):
//               the fused step with an alignment window F wide enough that
//               no term loses a bit (a Kulisch accumulator)
//   CADD        0 c fused as a term, 1 RD, 2 RDZ (mma_cadd)
//   F, F2       fraction bits kept in alignment (F: 8..40; TREE=5: at least
//               FX, the exact window below), AMD second stage
//   ALIGN       cut of aligned terms: 0 toward zero, 2 toward -inf
//   RHO         output rounding: 0 RZ, 1 RNE, 2 RD, 3 RU (mma_rounding)
//   ZERO_POS    a zero result is +0
//   NAN_CANON   NaN result 0x7fffffff (1) or the IEEE default 0x7fc00000 (0)
//   EZERO_EN    zero terms take part in emax with exponent EZERO
//   POVF        products reaching 2^128 overflow to Inf (AMD)
//   FTZ         subnormal inputs flush to +0
//   PIPE        0 combinational; 1 output register; 2 input and output registers
//   SUM         the exact sum of a step: 0 a tree of carry-propagate adders
//               (mma_add), 1 a carry-save tree of 3:2 counters, 2 of 4:2
//               compressors, with one carry-propagate adder (mma_csa_tree)
//   STAGES      0..4 register cuts inside each step (mma_fda, mma_fdrda);
//               out_valid follows in_valid by PIPE + STAGES * K/L cycles
//
// cov is a coverage observation port (bit map in docs/rtl.md); leave it
// unconnected in a design, synthesis removes its logic.
module mma_dpa #(
  parameter int A_EB = 4, parameter int A_MB = 3, parameter int A_BIAS = 7,   parameter int A_SPEC = mma_pkg::MMA_SPEC_FN,
  parameter int B_EB = 4, parameter int B_MB = 3, parameter int B_BIAS = 7,   parameter int B_SPEC = mma_pkg::MMA_SPEC_FN,
  parameter int C_EB = 8, parameter int C_MB = 23, parameter int C_BIAS = 127,
  parameter int D_EB = 8, parameter int D_MB = 23, parameter int D_BIAS = 127,
  parameter int P        = 13,
  parameter int K        = 32,
  parameter int L        = 32,
  parameter int TREE     = mma_pkg::MMA_TREE_FUSED,
  parameter int CADD     = mma_pkg::MMA_CADD_FUSED,
  parameter int F        = 13,
  parameter int F2       = 31,
  parameter int ALIGN    = mma_pkg::MMA_RZ,
  parameter int RHO      = mma_pkg::MMA_RZ,
  parameter int ZERO_POS = 1,
  parameter int NAN_CANON = 1,
  parameter int EZERO_EN = 0,
  parameter int EZERO    = 0,
  parameter int POVF     = 0,
  parameter int FTZ      = 0,
  parameter int PIPE     = 0,
  parameter int SUM      = mma_pkg::MMA_SUM_ADD,
  parameter int STAGES   = 0,
  localparam int AWD = 1 + A_EB + A_MB,
  localparam int BWD = 1 + B_EB + B_MB,
  localparam int CWD = 1 + C_EB + C_MB,
  localparam int DWD = 1 + D_EB + D_MB
) (
  input  logic              clk,
  input  logic              rst_n,
  input  logic              in_valid,
  input  logic [K*AWD-1:0]  a,          // a_k at bits [k*AWD +: AWD]
  input  logic [K*BWD-1:0]  b,
  input  logic [CWD-1:0]    c,
  output logic              out_valid,
  output logic [DWD-1:0]    d,
  output logic [31:0]       cov
);
  // ---- elaboration-time checks: unsupported parameters stop here --------
  mma_dpa_checks #(
    .TOP("mma_dpa"), .AB_BITS(16), .AB_NOTE("inputs of up to 16 bits (fp16, bf16, fp8, fp6, fp4)"),
    .A_EB(A_EB), .A_MB(A_MB), .B_EB(B_EB), .B_MB(B_MB), .C_EB(C_EB), .C_MB(C_MB), .D_EB(D_EB), .D_MB(D_MB),
    .P(P), .K(K), .ALIGN(ALIGN), .RHO(RHO), .PIPE(PIPE), .SUM(SUM), .STAGES(STAGES)
  ) u_checks ();
  localparam int NS = (L > 0) ? K / L : 1;
  if (L < 1 || (K % L) != 0)            begin : g_e_l     $error("mma_dpa: parameter L must divide K"); end
  // the exact window: F - TF must cover the largest exponent distance
  // between two terms (products, c), so that the alignment cuts nothing
  localparam int A_EMIN = 1 - A_BIAS, A_EMAX = (1 << A_EB) - ((A_SPEC == mma_pkg::MMA_SPEC_IEEE) ? 2 : 1) - A_BIAS;
  localparam int B_EMIN = 1 - B_BIAS, B_EMAX = (1 << B_EB) - ((B_SPEC == mma_pkg::MMA_SPEC_IEEE) ? 2 : 1) - B_BIAS;
  localparam int C_EMIN = 1 - ((C_BIAS > D_BIAS) ? C_BIAS : D_BIAS);
  localparam int C_EMX0 = (1 << C_EB) - 2 - C_BIAS, D_EMX0 = (1 << D_EB) - 2 - D_BIAS;
  localparam int C_EMAX = (C_EMX0 > D_EMX0) ? C_EMX0 : D_EMX0;
  localparam int XPP = (A_EMAX + B_EMAX) - (A_EMIN + B_EMIN);
  localparam int XPC = (A_EMAX + B_EMAX) - C_EMIN;
  localparam int XCP = C_EMAX - (A_EMIN + B_EMIN);
  localparam int XTF0 = (A_MB + B_MB > C_MB) ? A_MB + B_MB : C_MB;
  localparam int XTF  = (XTF0 > D_MB) ? XTF0 : D_MB;
  localparam int FX  = XTF + ((XPP > XPC) ? ((XPP > XCP) ? XPP : XCP) : ((XPC > XCP) ? XPC : XCP));
  if (TREE != mma_pkg::MMA_TREE_EXACT && (F < 8 || F > 40))   begin : g_e_f     $error("mma_dpa: parameter F must be 8..40"); end
  if (TREE == mma_pkg::MMA_TREE_EXACT && (F < FX || F > 1100)) begin : g_e_fx   $error("mma_dpa: parameter F must be at least the exact window for TREE=5 (exact)"); end
  if (TREE != mma_pkg::MMA_TREE_FUSED && TREE != mma_pkg::MMA_TREE_EVENODD && TREE != mma_pkg::MMA_TREE_EXACT) begin : g_e_tree $error("mma_dpa: parameter TREE must be 0 (fused), 1 (evenodd) or 5 (exact)"); end
  if (TREE == mma_pkg::MMA_TREE_EXACT && (CADD != mma_pkg::MMA_CADD_FUSED || EZERO_EN != 0 || FTZ != 0))
                                        begin : g_e_tx    $error("mma_dpa: parameter TREE=5 (exact) needs CADD=0, EZERO_EN=0 and FTZ=0"); end
  if (CADD < mma_pkg::MMA_CADD_FUSED || CADD > mma_pkg::MMA_CADD_RDZ) begin : g_e_cadd  $error("mma_dpa: parameter CADD must be 0 (fused), 1 (rd) or 2 (rdz)"); end
  if (TREE == mma_pkg::MMA_TREE_EVENODD && CADD == mma_pkg::MMA_CADD_FUSED) begin : g_e_tc    $error("mma_dpa: parameter TREE=1 (evenodd) needs CADD=1 or 2"); end
  if (CADD != mma_pkg::MMA_CADD_FUSED && (F2 < F || F2 > 40)) begin : g_e_f2    $error("mma_dpa: parameter F2 must be F..40"); end
  if (CADD != mma_pkg::MMA_CADD_FUSED && ALIGN != mma_pkg::MMA_RZ) begin : g_e_al2   $error("mma_dpa: parameter ALIGN must be 0 (RZ) when CADD is RD/RDZ (AMD products are cut toward zero)"); end
  if (CADD != mma_pkg::MMA_CADD_FUSED && EZERO_EN != 0) begin : g_e_ez2   $error("mma_dpa: parameter EZERO_EN must be 0 when CADD is RD/RDZ"); end

  localparam int EW = mma_pkg::mma_ew(A_EB, B_EB, C_EB, D_EB);

  // ---- input register (PIPE >= 2), the valid bit, output register ------
  logic [K*AWD-1:0] a_i;
  logic [K*BWD-1:0] b_i;
  logic [CWD-1:0]   c_i;
  logic [31:0]      cov_c;
  mma_dpa_io #(.IW(K * (AWD + BWD) + CWD), .OW(DWD + 32), .PIPE(PIPE), .VD(NS * STAGES)) u_io (
    .clk(clk), .rst_n(rst_n), .in_valid(in_valid), .x({a, b, c}), .x_i({a_i, b_i, c_i}),
    .y({g_s[NS-1].y, cov_c}), .q({d, cov}), .out_valid(out_valid));

  // ---- the chained steps ------------------------------------------------
  // With STAGES > 0 a step takes STAGES cycles: the operands of step s wait
  // s * STAGES cycles for the c that step s-1 gives.
  for (genvar s = 0; s < NS; s++) begin : g_s
    logic [DWD-1:0] y;
    logic [31:0]    cv;
    localparam int SC_EB   = (s == 0) ? C_EB   : D_EB;
    localparam int SC_MB   = (s == 0) ? C_MB   : D_MB;
    localparam int SC_BIAS = (s == 0) ? C_BIAS : D_BIAS;
    localparam int SCW     = 1 + SC_EB + SC_MB;
    localparam int DLY     = s * STAGES;
    logic [SCW-1:0] cin;
    if (s == 0) begin : g_c0
      assign cin = c_i;
    end else begin : g_cn
      assign cin = g_s[s-1].y;
    end
    for (genvar t = 0; t <= DLY; t++) begin : g_dl
      logic [L*AWD-1:0] as;
      logic [L*BWD-1:0] bs;
      if (t == 0) begin : g_in
        assign as = a_i[s*L*AWD +: L*AWD];
        assign bs = b_i[s*L*BWD +: L*BWD];
      end else begin : g_r
        mma_reg #(.W(L * (AWD + BWD))) u_r (
          .clk(clk), .d({g_dl[t-1].as, g_dl[t-1].bs}), .q({as, bs}));
      end
    end
    if (CADD == mma_pkg::MMA_CADD_FUSED) begin : g_nv
      mma_fda #(
        .A_EB(A_EB), .A_MB(A_MB), .A_BIAS(A_BIAS), .A_SPEC(A_SPEC),
        .B_EB(B_EB), .B_MB(B_MB), .B_BIAS(B_BIAS), .B_SPEC(B_SPEC),
        .C_EB(SC_EB), .C_MB(SC_MB), .C_BIAS(SC_BIAS),
        .D_EB(D_EB), .D_MB(D_MB), .D_BIAS(D_BIAS), .P(P), .L(L), .F(F),
        .ALIGN(ALIGN), .RHO(RHO), .ZERO_POS(ZERO_POS), .NAN_CANON(NAN_CANON), .EZERO_EN(EZERO_EN),
        .EZERO(EZERO), .POVF(POVF), .FTZ(FTZ), .SUM(SUM), .STAGES(STAGES), .EW(EW)
      ) u_step (
        .clk(clk), .a(g_dl[DLY].as), .b(g_dl[DLY].bs), .c(cin), .sa(8'h00), .sb(8'h00),
        .d(y), .cov(cv));
    end else begin : g_amd
      mma_fdrda #(
        .A_EB(A_EB), .A_MB(A_MB), .A_BIAS(A_BIAS), .A_SPEC(A_SPEC),
        .B_EB(B_EB), .B_MB(B_MB), .B_BIAS(B_BIAS), .B_SPEC(B_SPEC),
        .C_EB(SC_EB), .C_MB(SC_MB), .C_BIAS(SC_BIAS),
        .D_EB(D_EB), .D_MB(D_MB), .D_BIAS(D_BIAS), .P(P), .L(L),
        .TREE(TREE), .CADD(CADD), .F(F), .F2(F2), .RHO(RHO),
        .ZERO_POS(ZERO_POS), .NAN_CANON(NAN_CANON), .POVF(POVF), .FTZ(FTZ),
        .SUM(SUM), .STAGES(STAGES), .EW(EW)
      ) u_step (
        .clk(clk), .a(g_dl[DLY].as), .b(g_dl[DLY].bs), .c(cin), .d(y), .cov(cv));
    end
  end

  // coverage over the steps: flags OR-ed, largest shift, last step's lead
  logic [NS*32-1:0] cvs;
  for (genvar s = 0; s < NS; s++) begin : g_cvs
    assign cvs[s*32 +: 32] = g_s[s].cv;
  end
  always_comb begin
    cov_c = cvs[(NS-1)*32 +: 32];
    for (int s = 0; s < NS - 1; s++) begin
      cov_c[31:16] = cov_c[31:16] | cvs[s*32+16 +: 16];
      if (cvs[s*32 +: 8] > cov_c[7:0]) cov_c[7:0] = cvs[s*32 +: 8];
    end
  end

endmodule
