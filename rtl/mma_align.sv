// mma_align: maximum exponent and alignment, the C model's
// mma_fused_sum() up to (not including) the addition.
//
// Term i is (-1)^sgn * sig * 2^(exp - TF), sig a TW-bit integer with TF
// fraction bits.  emax is the largest exponent among the nonzero terms
// (EZERO_EN=0: zero terms take no part, as the H100 shows) or among all
// terms with a zero counting as exponent EZERO (EZERO_EN=1).  Each nonzero
// term is shifted right by emax - exp and only F bits after the binary
// point (relative to 2^emax) are kept:
//   CUT=0 (RZ): the magnitude is truncated (sign-magnitude, toward zero)
//   CUT=2 (RD): toward -inf (a negative term that lost bits grows by one ulp)
// Output term i is a signed AW-bit integer in units of 2^(emax - F).
// any=0 when no term set emax (all terms zero and EZERO_EN=0).
module mma_align #(
  parameter int N        = 33,
  parameter int EW       = 11,
  parameter int TW       = 25,
  parameter int TF       = 23,
  parameter int F        = 13,
  parameter int CUT      = 0,
  parameter int EZERO_EN = 0,
  parameter int EZERO    = 0,
  localparam int AW      = TW - TF + F + 1
) (
  input  logic [N-1:0]          t_sgn,
  input  logic [N-1:0]          t_zero,
  input  logic [N*EW-1:0]       t_exp,
  input  logic [N*TW-1:0]       t_sig,
  output logic signed [EW-1:0]  emax,
  output logic                  any,
  output logic [N*AW-1:0]       t_al,
  output logic [7:0]            cov_dmax,   // largest emax - exp of a nonzero term (saturated)
  output logic                  cov_lost    // some nonzero bit was cut
);
  if (CUT != 0 && CUT != 2) begin : g_e_cut $error("mma_align: parameter CUT must be 0 (RZ) or 2 (RD)"); end
  if (TF >= TW)             begin : g_e_tf  $error("mma_align: parameter TF must be below TW"); end

  localparam int LSH = (F > TF) ? F - TF : 0;   // static left shift
  localparam int RSH = (TF > F) ? TF - F : 0;   // static right shift
  localparam int XW  = TW + LSH;                // pre-shift width
  localparam int MW  = AW - 1;                  // aligned magnitude width (= XW - RSH)
  localparam int SHW = EW + 2;                  // shift amount width

  // maximum exponent over the terms that take part
  always_comb begin
    logic signed [EW-1:0] e;
    emax = '0;
    any  = 1'b0;
    for (int i = 0; i < N; i++) begin
      e = t_zero[i] ? EW'(EZERO) : $signed(t_exp[i*EW +: EW]);
      if ((!t_zero[i] || EZERO_EN != 0) && (!any || e > emax)) begin
        emax = e;
        any  = 1'b1;
      end
    end
  end

  logic [N*8-1:0] dsat;
  logic [N-1:0]   lost;

  for (genvar i = 0; i < N; i++) begin : g_t
    logic signed [EW:0]  d;
    logic [SHW-1:0]      sh;
    logic [XW-1:0]       x;
    logic [MW-1:0]       m;
    logic                cut_any;
    logic [MW-1:0]       mr;

    assign d  = $signed({emax[EW-1], emax}) - $signed({t_exp[i*EW+EW-1], t_exp[i*EW +: EW]});
    assign sh = SHW'(d) + SHW'(RSH);
    assign x  = XW'(t_sig[i*TW +: TW]) << LSH;
    always_comb begin
      if (sh >= SHW'(XW)) begin
        m       = '0;
        cut_any = |x;
      end else begin
        m       = MW'(x >> sh);
        cut_any = |(x & ~({XW{1'b1}} << sh));
      end
    end
    if (CUT == 2) begin : g_rd
      assign mr = m + MW'(t_sgn[i] & cut_any);
    end else begin : g_rz
      assign mr = m;
    end
    assign t_al[i*AW +: AW] = t_zero[i] ? '0 : (t_sgn[i] ? -{1'b0, mr} : {1'b0, mr});
    assign lost[i]          = ~t_zero[i] & cut_any;
    assign dsat[i*8 +: 8]   = (t_zero[i] | ~any) ? 8'd0 : ((d > 255) ? 8'd255 : d[7:0]);
  end

  always_comb begin
    cov_dmax = '0;
    for (int i = 0; i < N; i++)
      if (dsat[i*8 +: 8] > cov_dmax) cov_dmax = dsat[i*8 +: 8];
  end
  assign cov_lost = |lost;
endmodule
