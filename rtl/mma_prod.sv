// mma_prod: one exact product a*b of two encoded inputs (the C model's
// mma_decode() of a_k and b_k, then their exact product in
// mma_fused_sum()): mma_unpack of each operand, then mma_mul; beside the
// product, the two coverage facts of the pair (0*Inf, a NaN operand).
// Used by mma_fda (products and GDFS groups) and mma_fdrda.
module mma_prod #(
  parameter int A_EB = 4, parameter int A_MB = 3, parameter int A_BIAS = 7, parameter int A_SPEC = mma_pkg::MMA_SPEC_FN,
  parameter int B_EB = 4, parameter int B_MB = 3, parameter int B_BIAS = 7, parameter int B_SPEC = mma_pkg::MMA_SPEC_FN,
  parameter int FTZ  = 0,
  parameter int POVF = 0,
  parameter int EW   = 11,
  localparam int AWD = 1 + A_EB + A_MB,
  localparam int BWD = 1 + B_EB + B_MB,
  localparam int PF  = A_MB + B_MB
) (
  input  logic [AWD-1:0]       a,
  input  logic [BWD-1:0]       b,
  output logic                 p_sgn,
  output logic                 p_zero,
  output logic                 p_inf,
  output logic                 p_nan,
  output logic signed [EW-1:0] p_exp,
  output logic [PF+1:0]        p_sig,
  output logic                 a_zero,
  output logic                 b_zero,
  output logic                 zinf,     // 0 * Inf
  output logic                 nan_in    // a NaN operand
);
  logic                 as, ai, an, bs, bi, bn;
  logic signed [EW-1:0] ae, be;
  logic [A_MB:0]        am;
  logic [B_MB:0]        bm;
  mma_unpack #(.EB(A_EB), .MB(A_MB), .BIAS(A_BIAS), .SPEC(A_SPEC), .FTZ(FTZ), .EW(EW)) u_ua (
    .x(a), .sgn(as), .zero(a_zero), .inf(ai), .nan(an), .exp(ae), .sig(am));
  mma_unpack #(.EB(B_EB), .MB(B_MB), .BIAS(B_BIAS), .SPEC(B_SPEC), .FTZ(FTZ), .EW(EW)) u_ub (
    .x(b), .sgn(bs), .zero(b_zero), .inf(bi), .nan(bn), .exp(be), .sig(bm));
  mma_mul #(.MBA(A_MB), .MBB(B_MB), .EW(EW), .POVF(POVF)) u_mul (
    .a_sgn(as), .a_zero(a_zero), .a_inf(ai), .a_nan(an), .a_exp(ae), .a_sig(am),
    .b_sgn(bs), .b_zero(b_zero), .b_inf(bi), .b_nan(bn), .b_exp(be), .b_sig(bm),
    .p_sgn(p_sgn), .p_zero(p_zero), .p_inf(p_inf), .p_nan(p_nan), .p_exp(p_exp), .p_sig(p_sig));
  assign zinf   = (ai & b_zero) | (bi & a_zero);
  assign nan_in = an | bn;
endmodule
