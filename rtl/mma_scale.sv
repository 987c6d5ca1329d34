// mma_scale: an exact product times its block's scale pair (the C model's
// product(): p = mma_term_mul(p, s), s = mma_term_mul(scale_a, scale_b)),
// the ST-FDPA step of the block-scaled units:
//   exponent p_exp + s_exp, significand p_sig * s_sig (fraction bits add),
//   NaN if either is NaN or an Inf product meets a zero scale, Inf if the
//   product is, zero if either is.  Scales are positive and never Inf.
module mma_scale #(
  parameter int EW  = 11,
  parameter int PW  = 8,     // product significand bits
  parameter int SPW = 2      // scale pair significand bits
) (
  input  logic                  p_sgn, p_zero, p_inf, p_nan,
  input  logic signed [EW-1:0]  p_exp,
  input  logic [PW-1:0]         p_sig,
  input  logic                  s_zero, s_nan,
  input  logic signed [EW-1:0]  s_exp,
  input  logic [SPW-1:0]        s_sig,
  output logic                  t_sgn, t_zero, t_inf, t_nan,
  output logic signed [EW-1:0]  t_exp,
  output logic [PW+SPW-1:0]     t_sig
);
  assign t_nan  = p_nan | s_nan | (p_inf & s_zero);
  assign t_inf  = p_inf & ~t_nan;
  assign t_zero = (p_zero | s_zero) & ~t_nan & ~t_inf;
  assign t_sgn  = p_sgn;
  assign t_exp  = p_exp + s_exp;
  assign t_sig  = (PW+SPW)'(p_sig) * (PW+SPW)'(s_sig);
endmodule
