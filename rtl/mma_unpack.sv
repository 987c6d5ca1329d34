// mma_unpack: decode one floating-point encoding into (sign, class,
// exponent, integer significand), the C model's mma_term_of().
//
//   value = (-1)^sgn * sig * 2^(exp - MB)
//
// exp is the exponent of the hidden-bit position: E - BIAS for a normal
// number, 1 - BIAS (the format's minimum exponent) for a subnormal, so a
// subnormal keeps its significand exactly, without the hidden bit.
//
// SPEC selects the special-value encoding of the format:
//   0  IEEE   all-ones exponent: Inf (fraction 0) or NaN      (fp32, fp16, bf16, e5m2)
//   1  FN     no Inf; only S.1..1.1..1 is NaN                (OCP e4m3fn)
//   2  FNUZ   no Inf, no -0; only 1000..0 is NaN             (AMD e4m3fnuz, e5m2fnuz)
//   3  FINITE no Inf, no NaN                                 (fp6 e3m2/e2m3, fp4 e2m1)
// FTZ=1 flushes subnormal inputs to +0.
module mma_unpack #(
  parameter int EB   = 4,
  parameter int MB   = 3,
  parameter int BIAS = 7,
  parameter int SPEC = mma_pkg::MMA_SPEC_FN,
  parameter int FTZ  = 0,
  parameter int EW   = 8        // width of the signed exponent output
) (
  input  logic [EB+MB:0]        x,
  output logic                  sgn,
  output logic                  zero,
  output logic                  inf,
  output logic                  nan,
  output logic signed [EW-1:0]  exp,
  output logic [MB:0]           sig
);
  if (EB < 2 || EB > 11)        begin : g_e_eb   $error("mma_unpack: parameter EB must be 2..11");   end
  if (MB < 1 || MB > 52)        begin : g_e_mb   $error("mma_unpack: parameter MB must be 1..52");   end
  if (SPEC < mma_pkg::MMA_SPEC_IEEE || SPEC > mma_pkg::MMA_SPEC_FINITE) begin : g_e_spec $error("mma_unpack: parameter SPEC must be 0 (IEEE), 1 (FN), 2 (FNUZ) or 3 (FINITE)"); end
  if (EW < EB + 2)              begin : g_e_ew   $error("mma_unpack: parameter EW must be at least EB+2"); end

  logic [EB-1:0] ef;
  logic [MB-1:0] mf;
  logic          s, e_all1, e_zero, m_zero, m_all1, sub;

  assign s      = x[EB+MB];
  assign ef     = x[MB +: EB];
  assign mf     = x[MB-1:0];
  assign e_all1 = &ef;
  assign e_zero = ~|ef;
  assign m_zero = ~|mf;
  assign m_all1 = &mf;
  assign sub    = e_zero & ~m_zero;

  if (SPEC == mma_pkg::MMA_SPEC_IEEE) begin : g_ieee
    assign nan = e_all1 & ~m_zero;
    assign inf = e_all1 &  m_zero;
  end else if (SPEC == mma_pkg::MMA_SPEC_FN) begin : g_fn
    assign nan = e_all1 & m_all1;
    assign inf = 1'b0;
  end else if (SPEC == mma_pkg::MMA_SPEC_FNUZ) begin : g_fnuz
    assign nan = s & e_zero & m_zero;
    assign inf = 1'b0;
  end else begin : g_finite
    assign nan = 1'b0;
    assign inf = 1'b0;
  end

  logic flush;
  assign flush = (FTZ != 0) & sub;
  assign zero  = e_zero & (m_zero | flush) & ~nan;
  assign sgn   = s & ~flush;
  assign sig   = zero ? '0 : {~e_zero, mf};
  assign exp   = e_zero ? EW'(1 - BIAS) : EW'($signed({1'b0, ef})) - EW'(BIAS);
endmodule
