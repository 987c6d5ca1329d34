// bf16_dot8: d = c + sum of a_k * b_k over 8 bf16 pairs, c and d fp32, as
// Ampere's bf16 mma.m16n8k8 computes it: exact products; c and the products
// aligned to the largest exponent (a zero term counts as 2^-132), each cut
// toward zero 24 bits below it; the sum rounded toward zero to fp32.
// Special values: any NaN, Inf times zero, or Infs of both signs give
// 7fffffff; otherwise an Inf gives that Inf.  Zero results are +0.
//
// One port per element, no handshake: the result is in d two clock edges
// after its operands (products, then sum and rounding), while en is high.
module bf16_dot8 (
  input  logic        clk,
  input  logic        en,
  input  logic [15:0] a0, a1, a2, a3, a4, a5, a6, a7,
  input  logic [15:0] b0, b1, b2, b3, b4, b5, b6, b7,
  input  logic [31:0] c,
  output logic [31:0] d
);
  localparam int EZERO = -132;
  logic [15:0] a [8], b [8];
  assign a = '{a0, a1, a2, a3, a4, a5, a6, a7};
  assign b = '{b0, b1, b2, b3, b4, b5, b6, b7};

  // ---- decode -------------------------------------------------------------
  function automatic logic signed [9:0] exp_bf16(input logic [15:0] x);
    return x[14:7] == 0 ? -10'sd126 : $signed({2'b0, x[14:7]}) - 10'sd127;
  endfunction
  function automatic logic is_nan(input logic [15:0] x); return x[14:7] == 8'hff && x[6:0] != 0; endfunction
  function automatic logic is_inf(input logic [15:0] x); return x[14:7] == 8'hff && x[6:0] == 0; endfunction
  function automatic logic is_zero(input logic [15:0] x); return x[14:0] == 0; endfunction

  // ---- stage 1: products ------------------------------------------------------
  logic        neg_q [8], zero_q [8];
  logic signed [9:0] pexp_q [8];        // product = psig_q * 2^(pexp_q - 14)
  logic [15:0] psig_q [8];
  logic        cneg_q, czero_q;
  logic signed [9:0] cexp_q;
  logic [23:0] csig_q;
  logic        nan_q, pinf_q, ninf_q;

  always_ff @(posedge clk) if (en) begin
    logic nan, pinf, ninf, pn, pi;
    nan  = c[30:23] == 8'hff && c[22:0] != 0;
    pinf = c[30:23] == 8'hff && c[22:0] == 0 && !c[31];
    ninf = c[30:23] == 8'hff && c[22:0] == 0 && c[31];
    for (int k = 0; k < 8; k++) begin
      pn = is_nan(a[k]) || is_nan(b[k]) || (is_inf(a[k]) && is_zero(b[k])) || (is_inf(b[k]) && is_zero(a[k]));
      pi = (is_inf(a[k]) || is_inf(b[k])) && !pn;
      nan = nan | pn;
      if (pi && (a[k][15] ^ b[k][15])) ninf = 1'b1;
      if (pi && !(a[k][15] ^ b[k][15])) pinf = 1'b1;
      neg_q[k]  <= a[k][15] ^ b[k][15];
      zero_q[k] <= is_zero(a[k]) || is_zero(b[k]);
      pexp_q[k] <= exp_bf16(a[k]) + exp_bf16(b[k]);
      psig_q[k] <= {8'b0, a[k][14:7] != 0, a[k][6:0]} * {8'b0, b[k][14:7] != 0, b[k][6:0]};
    end
    cneg_q  <= c[31];
    czero_q <= c[30:0] == 0;
    cexp_q  <= c[30:23] == 0 ? -10'sd126 : $signed({2'b0, c[30:23]}) - 10'sd127;
    csig_q  <= {c[30:23] != 0, c[22:0]};
    nan_q   <= nan || (pinf && ninf);
    pinf_q  <= pinf;
    ninf_q  <= ninf;
  end

  // ---- stage 2: align to the largest exponent, add, round, pack ------------------
  // |v| * 2^-sh cut toward zero; sh < 0 shifts left (exact)
  function automatic logic [33:0] cut(input logic [33:0] v, input int sh);
    if (sh >= 34) return '0;
    return sh < 0 ? v << (-sh) : v >> sh;
  endfunction

  always_ff @(posedge clk) if (en) begin
    int emax, m, x;
    logic signed [33:0] s;
    logic [33:0] t, mag;
    logic neg;
    emax = czero_q ? EZERO : int'(cexp_q);
    for (int k = 0; k < 8; k++) begin
      int e;
      e = zero_q[k] ? EZERO : int'(pexp_q[k]);
      if (e > emax) emax = e;
    end
    // in units of 2^(emax - 24): c = csig * 2^(cexp - 23), products psig * 2^(pexp - 14)
    s = 0;
    if (!czero_q) begin
      t = cut({10'b0, csig_q}, emax - int'(cexp_q) - 1);
      s = cneg_q ? -$signed(t) : $signed(t);
    end
    for (int k = 0; k < 8; k++)
      if (!zero_q[k]) begin
        t = cut({18'b0, psig_q[k]}, emax - int'(pexp_q[k]) - 10);
        s = neg_q[k] ? s - $signed(t) : s + $signed(t);
      end
    neg = s < 0;
    mag = neg ? 34'(-s) : 34'(s);
    m = 0;
    for (int i = 0; i < 34; i++) if (mag[i]) m = i;
    x = m + emax - 24;                          // exponent of the leading bit
    if (nan_q) begin
`ifdef BROKEN_NAN
      d <= 32'h7fc00000;                        // the bug: the IEEE default NaN
`else
      d <= 32'h7fffffff;
`endif
    end
    else if (pinf_q || ninf_q) d <= {ninf_q, 31'h7f800000};
    else if (mag == 0)         d <= 32'h0;
    else if (x > 127)          d <= {neg, 31'h7f800000};
    else if (x >= -126)        d <= {neg, 8'(x + 127), 23'(m >= 23 ? mag >> (m - 23) : mag << (23 - m))};
    else begin
      t = cut(mag, -125 - emax);               // subnormal: the last bit weighs 2^-149
      d <= t == 0 ? 32'h0 : {neg, 8'h00, t[22:0]};
    end
  end
endmodule
