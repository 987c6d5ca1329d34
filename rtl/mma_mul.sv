// mma_mul: exact product of two unpacked operands, the C model's
// mma_term_mul() (+ mma_term_overflow() when POVF=1).
//
//   p = (-1)^sgn * sig * 2^(exp - (MBA+MBB))
//
// exp = exp_a + exp_b, not renormalized: the significand of a product of
// two normal numbers lies in [1,4).  NaN: a NaN operand, or 0 * Inf.
// POVF=1 (AMD CDNA3) turns a finite product whose magnitude reaches 2^128
// into Inf; NVIDIA units (POVF=0) never overflow here.
module mma_mul #(
  parameter int MBA  = 3,
  parameter int MBB  = 3,
  parameter int EW   = 8,
  parameter int POVF = 0
) (
  input  logic                  a_sgn, a_zero, a_inf, a_nan,
  input  logic signed [EW-1:0]  a_exp,
  input  logic [MBA:0]          a_sig,
  input  logic                  b_sgn, b_zero, b_inf, b_nan,
  input  logic signed [EW-1:0]  b_exp,
  input  logic [MBB:0]          b_sig,
  output logic                  p_sgn, p_zero, p_inf, p_nan,
  output logic signed [EW-1:0]  p_exp,
  output logic [MBA+MBB+1:0]    p_sig
);
  localparam int PW = MBA + MBB + 2;
  logic nan0, inf0, ovf;

  assign nan0  = a_nan | b_nan | (a_inf & b_zero) | (b_inf & a_zero);
  assign inf0  = (a_inf | b_inf) & ~nan0;
  assign p_sgn = a_sgn ^ b_sgn;
  assign p_exp = a_exp + b_exp;
  assign p_sig = PW'(a_sig) * PW'(b_sig);

  if (POVF != 0) begin : g_ovf
    // leading bit of sig * 2^(exp - MBA - MBB) at exponent >= 128
    logic [$clog2(PW+1)-1:0] lead;
    always_comb begin
      lead = '0;
      for (int i = 0; i < PW; i++) if (p_sig[i]) lead = i[$clog2(PW+1)-1:0];
    end
    assign ovf = ~a_zero & ~b_zero & ~a_inf & ~b_inf & ~nan0 &
                 ((EW+2)'(p_exp) + (EW+2)'($signed({1'b0, lead})) - (EW+2)'(MBA + MBB) >= (EW+2)'(128));
  end else begin : g_novf
    assign ovf = 1'b0;
  end

  assign p_nan  = nan0;
  assign p_inf  = inf0 | ovf;
  assign p_zero = (a_zero | b_zero) & ~nan0 & ~inf0;
endmodule
