// mma_pack: encode a rounded significand into the output format, with
// overflow and the special-value override (the C model's mma_round_pack()
// after round_core()).
//   value = (-1)^neg * q * 2^qlsb, q < 2^(P+2), from mma_round.
// Overflow (leading bit above the format's largest exponent): RZ and RNE
// give Inf (NVIDIA: even under RZ), RD/RU saturate on the side they do not
// round toward.  A zero result is +0 when ZERO_POS=1, else it carries neg.
// NaN: NAN_CANON=1 the canonical 0 1..1 1..1 (0x7fffffff, 0x7fff, NVIDIA and
// AMD), NAN_CANON=0 the IEEE default quiet NaN 0 1..1 10..0 (0x7fc00000).
module mma_pack #(
  parameter int EB       = 8,
  parameter int MB       = 23,
  parameter int BIAS     = 127,
  parameter int P        = 23,
  parameter int RHO      = mma_pkg::MMA_RZ,
  parameter int ZERO_POS = 1,
  parameter int NAN_CANON = 1,
  parameter int LW       = 14
) (
  input  logic                  nan,
  input  logic                  inf,
  input  logic                  inf_neg,
  input  logic                  neg,
  input  logic [P+1:0]          q,
  input  logic signed [LW-1:0]  qlsb,
  output logic [EB+MB:0]        y,
  output logic                  cov_ovf,     // finite result overflowed
  output logic                  cov_sub,     // subnormal result
  output logic                  cov_zero     // zero result (from a finite sum)
);
  if (P < 1 || P > MB) begin : g_e_p $error("mma_pack: parameter P must be 1..MB"); end

  localparam int EMAXE = (1 << (EB - 1)) - 1;
  localparam logic [EB-1:0] EONES = {EB{1'b1}};

  logic                 hi, normal, ovf, to_inf;
  logic signed [LW-1:0] xe;
  logic [EB-1:0]        bexp;
  logic [P-1:0]         fr;

  assign hi     = q[P+1];
  assign normal = q[P+1] | q[P];
  assign xe     = qlsb + LW'(P) + LW'(hi);
  assign ovf    = normal & (xe > LW'(EMAXE));
  assign bexp   = normal ? EB'(xe + LW'(BIAS)) : '0;
  assign fr     = hi ? q[P:1] : q[P-1:0];
  assign to_inf = (RHO == mma_pkg::MMA_RZ) | (RHO == mma_pkg::MMA_RNE) | ((RHO == mma_pkg::MMA_RD) & neg) |
                  ((RHO == mma_pkg::MMA_RU) & ~neg);

  always_comb begin
    if (nan)
      y = (NAN_CANON != 0) ? {1'b0, EONES, {MB{1'b1}}} : {1'b0, EONES, 1'b1, {(MB-1){1'b0}}};
    else if (inf)
      y = {inf_neg, EONES, {MB{1'b0}}};
    else if (q == '0)
      y = {(ZERO_POS == 0) & neg, {(EB+MB){1'b0}}};
    else if (ovf)
      y = to_inf ? {neg, EONES, {MB{1'b0}}}
                 : {neg, EONES - EB'(1), MB'({P{1'b1}}) << (MB - P)};
    else
      y = {neg, bexp, MB'(fr) << (MB - P)};
  end
  assign cov_ovf  = ~nan & ~inf & ovf;
  assign cov_sub  = ~nan & ~inf & (q != '0) & ~normal;
  assign cov_zero = ~nan & ~inf & (q == '0);
endmodule
