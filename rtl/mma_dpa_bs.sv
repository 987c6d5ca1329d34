// mma_dpa_bs: block-scaled dot-product-accumulate unit
//     d = c + sum_{k<K} (a_k * sa_{k/BLOCK}) * (b_k * sb_{k/BLOCK})
// realizing the C model's block-scaled fused algorithms in one fused step
// (mma_fda), as the Blackwell block-scaled instructions compute them:
//
//   TREE=0  ST-FDPA (kind::mxf8f6f4, MXFP8/6/4 with K=32): each product's
//           exponent gains its block's two scale exponents, then the fused
//           aligned sum of c and the K products with F bits;
//   TREE=2  GDFS (kind::mxf4, kind::mxf4nvf4, K=64): exact sums of G
//           consecutive products, each times its block's two scales and
//           aligned by the scale exponent alone, then the fused sum of the
//           K/G groups and c with F bits (F=35).
//
// The parameters mirror the model's configuration string (docs/rtl.md):
//   A_*, B_*, C_*, D_*, P, F, ALIGN, RHO, ZERO_POS, NAN_CANON, EZERO_EN,
//   EZERO, FTZ, PIPE, SUM, STAGES   as mma_dpa
//   SCALE       scale format: 1 ue8m0 (2^(e-127), 0xff NaN), 2 ue4m3 (the
//               top bit ignored, 0x7f NaN)
//   BLOCK       products per scale: sa, sb hold K/BLOCK scales of 8 bits,
//               the scale of block i at bits [i*8 +: 8]
//   TREE, G     0 ST-FDPA; 2 GDFS with groups of G products
// out_valid follows in_valid by PIPE + STAGES cycles.
module mma_dpa_bs #(
  parameter int A_EB = 4, parameter int A_MB = 3, parameter int A_BIAS = 7,   parameter int A_SPEC = mma_pkg::MMA_SPEC_FN,
  parameter int B_EB = 4, parameter int B_MB = 3, parameter int B_BIAS = 7,   parameter int B_SPEC = mma_pkg::MMA_SPEC_FN,
  parameter int C_EB = 8, parameter int C_MB = 23, parameter int C_BIAS = 127,
  parameter int D_EB = 8, parameter int D_MB = 23, parameter int D_BIAS = 127,
  parameter int P        = 23,
  parameter int K        = 32,
  parameter int TREE     = mma_pkg::MMA_TREE_FUSED,
  parameter int G        = 16,
  parameter int SCALE    = mma_pkg::MMA_SCALE_UE8M0,
  parameter int BLOCK    = 32,
  parameter int F        = 25,
  parameter int ALIGN    = mma_pkg::MMA_RZ,
  parameter int RHO      = mma_pkg::MMA_RZ,
  parameter int ZERO_POS = 1,
  parameter int NAN_CANON = 1,
  parameter int EZERO_EN = 1,
  parameter int EZERO    = -133,
  parameter int FTZ      = 0,
  parameter int PIPE     = 0,
  parameter int SUM      = mma_pkg::MMA_SUM_ADD,
  parameter int STAGES   = 0,
  localparam int AWD = 1 + A_EB + A_MB,
  localparam int BWD = 1 + B_EB + B_MB,
  localparam int CWD = 1 + C_EB + C_MB,
  localparam int DWD = 1 + D_EB + D_MB,
  localparam int NSC = (BLOCK > 0) ? K / BLOCK : 1
) (
  input  logic              clk,
  input  logic              rst_n,
  input  logic              in_valid,
  input  logic [K*AWD-1:0]  a,          // a_k at bits [k*AWD +: AWD]
  input  logic [K*BWD-1:0]  b,
  input  logic [CWD-1:0]    c,
  input  logic [NSC*8-1:0]  sa,         // scale of a's block i at bits [i*8 +: 8]
  input  logic [NSC*8-1:0]  sb,
  output logic              out_valid,
  output logic [DWD-1:0]    d,
  output logic [31:0]       cov
);
  // ---- elaboration-time checks: unsupported parameters stop here --------
  mma_dpa_checks #(
    .TOP("mma_dpa_bs"), .AB_BITS(8), .AB_NOTE("inputs of up to 8 bits (fp8, fp6, fp4)"),
    .A_EB(A_EB), .A_MB(A_MB), .B_EB(B_EB), .B_MB(B_MB), .C_EB(C_EB), .C_MB(C_MB), .D_EB(D_EB), .D_MB(D_MB),
    .P(P), .K(K), .ALIGN(ALIGN), .RHO(RHO), .PIPE(PIPE), .SUM(SUM), .STAGES(STAGES)
  ) u_checks ();
  if (SCALE != mma_pkg::MMA_SCALE_UE8M0 && SCALE != mma_pkg::MMA_SCALE_UE4M3) begin : g_e_scale $error("mma_dpa_bs: parameter SCALE must be 1 (ue8m0) or 2 (ue4m3)"); end
  if (BLOCK < 1 || K % BLOCK != 0 || K / BLOCK > 16)
                                            begin : g_e_block $error("mma_dpa_bs: parameter BLOCK must divide K, in at most 16 blocks"); end
  if (TREE != mma_pkg::MMA_TREE_FUSED && TREE != mma_pkg::MMA_TREE_GROUPS) begin : g_e_tree  $error("mma_dpa_bs: parameter TREE must be 0 (ST-FDPA) or 2 (GDFS groups)"); end
  if (TREE == mma_pkg::MMA_TREE_GROUPS && (G < 1 || BLOCK % G != 0)) begin : g_e_g   $error("mma_dpa_bs: parameter G must divide BLOCK (TREE=2)"); end
  if (TREE == mma_pkg::MMA_TREE_GROUPS && FTZ != 0) begin : g_e_ftz   $error("mma_dpa_bs: parameter FTZ must be 0 for TREE=2 (GDFS uses subnormals exactly)"); end
  if (F < 8 || F > 45)                      begin : g_e_f     $error("mma_dpa_bs: parameter F must be 8..45"); end

  // exponents: the formats' and two scales' (ue8m0 pairs reach +-254)
  localparam int EW = mma_pkg::mma_imax(mma_pkg::mma_ew(A_EB, B_EB, C_EB, D_EB), 11);

  // ---- input register (PIPE >= 2), the valid bit, output register ------
  logic [K*AWD-1:0] a_i;
  logic [K*BWD-1:0] b_i;
  logic [CWD-1:0]   c_i;
  logic [NSC*8-1:0] sa_i, sb_i;
  logic [DWD-1:0]   y;
  logic [31:0]      cv;
  mma_dpa_io #(.IW(K * (AWD + BWD) + CWD + 2 * NSC * 8), .OW(DWD + 32), .PIPE(PIPE), .VD(STAGES)) u_io (
    .clk(clk), .rst_n(rst_n), .in_valid(in_valid), .x({a, b, c, sa, sb}), .x_i({a_i, b_i, c_i, sa_i, sb_i}),
    .y({y, cv}), .q({d, cov}), .out_valid(out_valid));

  // ---- the fused step ------------------------------------------------------
  mma_fda #(
    .A_EB(A_EB), .A_MB(A_MB), .A_BIAS(A_BIAS), .A_SPEC(A_SPEC),
    .B_EB(B_EB), .B_MB(B_MB), .B_BIAS(B_BIAS), .B_SPEC(B_SPEC),
    .C_EB(C_EB), .C_MB(C_MB), .C_BIAS(C_BIAS),
    .D_EB(D_EB), .D_MB(D_MB), .D_BIAS(D_BIAS), .P(P), .L(K), .F(F),
    .ALIGN(ALIGN), .RHO(RHO), .ZERO_POS(ZERO_POS), .NAN_CANON(NAN_CANON), .EZERO_EN(EZERO_EN),
    .EZERO(EZERO), .POVF(0), .FTZ(FTZ), .SCALE(SCALE), .BLOCK(BLOCK), .G((TREE == mma_pkg::MMA_TREE_GROUPS) ? G : 0),
    .SUM(SUM), .STAGES(STAGES), .EW(EW)
  ) u_step (
    .clk(clk), .a(a_i), .b(b_i), .c(c_i), .sa(sa_i), .sb(sb_i), .d(y), .cov(cv));

endmodule
