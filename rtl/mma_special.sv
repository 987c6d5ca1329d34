// mma_special: the special-value rule of the fused units (C model
// mma_terms_special()): any NaN term (a NaN operand, or 0*Inf), or both
// +Inf and -Inf among the terms, gives NaN; otherwise one kind of Inf gives
// that Inf.  The caller overrides the finite result with these.  Its inputs
// are OR-reductions over the terms (the callers fold them into their sum
// trees): some term is NaN, some term is +Inf, some term is -Inf.
module mma_special (
  input  logic any_nan,
  input  logic any_pinf,
  input  logic any_ninf,
  output logic nan,
  output logic inf,
  output logic inf_neg,
  output logic cov_conflict   // +Inf and -Inf met (no NaN operand)
);
  assign nan           = any_nan | (any_pinf & any_ninf);
  assign inf           = ~nan & (any_pinf | any_ninf);
  assign inf_neg       = any_ninf;
  assign cov_conflict  = ~any_nan & any_pinf & any_ninf;
endmodule
