// mma_special: the special-value rule of the fused units (C model
// mma_terms_special()): any NaN term (a NaN operand, or 0*Inf), or both
// +Inf and -Inf among the terms, gives NaN; otherwise one kind of Inf gives
// that Inf.  The caller overrides the finite result with these.
module mma_special #(
  parameter int N = 33
) (
  input  logic [N-1:0] t_nan,
  input  logic [N-1:0] t_inf,
  input  logic [N-1:0] t_sgn,
  output logic         nan,
  output logic         inf,
  output logic         inf_neg,
  output logic         cov_conflict   // +Inf and -Inf met (no NaN operand)
);
  logic pinf, ninf;
  assign pinf          = |(t_inf & ~t_sgn);
  assign ninf          = |(t_inf &  t_sgn);
  assign nan           = (|t_nan) | (pinf & ninf);
  assign inf           = ~nan & (pinf | ninf);
  assign inf_neg       = ninf;
  assign cov_conflict  = ~(|t_nan) & pinf & ninf;
endmodule
