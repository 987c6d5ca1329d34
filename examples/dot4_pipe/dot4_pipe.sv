// dot4_pipe: d = c + a0*b0 + a1*b1 + a2*b2 + a3*b3 with fp16 a, b and fp32
// c, d, computed as Volta's tensor cores compute it: exact products, one
// fused sum in which every term is cut toward zero 23 bits below the
// largest exponent (a zero term counts as 2^-131 there), rounded toward
// zero; NaN results are 7fffffff and zero results +0.
//
// Three pipeline stages (decode and multiply, align and add, normalize and
// pack), a valid/ready handshake at both ends and a 4-bit tag that travels
// with each operation.  Element 0 of a and b is in the most significant
// 16 bits.
module dot4_pipe (
  input  logic        clk,
  input  logic        rst_n,
  input  logic        in_valid,
  output logic        in_ready,
  input  logic [63:0] a,
  input  logic [63:0] b,
  input  logic [31:0] c,
  input  logic [3:0]  in_tag,
  output logic        out_valid,
  input  logic        out_ready,
  output logic [31:0] d,
  output logic [3:0]  out_tag
);
  localparam int EZERO = -131;

  // the whole pipeline moves when the output is free or taken
  logic adv;
  assign adv = !out_valid || out_ready;
  assign in_ready = adv;

  // ---- stage 1: decode, exact products ------------------------------------
  logic        v1;
  logic [3:0]  tag1;
  logic [3:0]  p_neg, p_zero;
  logic signed [9:0]  p_exp [4];     // exponent of the product's 2^0 digit
  logic [21:0] p_sig [4];            // 22-bit significand: value p_sig * 2^(p_exp - 20)
  logic        c_neg, c_zero;
  logic signed [9:0]  c_exp;
  logic [23:0] c_sig;
  logic        nan1, pinf1, ninf1;

  always_ff @(posedge clk or negedge rst_n) begin
    if (!rst_n) v1 <= 1'b0;
    else if (adv) begin
      logic [15:0] x, y;
      logic        xn, yn, xi, yi, xz, yz, prod_nan, prod_inf;
      logic [10:0] xs, ys;
      logic signed [9:0] xe, ye;
      logic nan, pinf, ninf;
      nan = 1'b0; pinf = 1'b0; ninf = 1'b0;
      v1   <= in_valid;
      tag1 <= in_tag;
      for (int k = 0; k < 4; k++) begin
        x = a[63 - 16*k -: 16];
        y = b[63 - 16*k -: 16];
        xn = x[14:10] == 5'h1f && x[9:0] != 0;
        yn = y[14:10] == 5'h1f && y[9:0] != 0;
        xi = x[14:10] == 5'h1f && x[9:0] == 0;
        yi = y[14:10] == 5'h1f && y[9:0] == 0;
        xz = x[14:0] == 0;
        yz = y[14:0] == 0;
        xs = {x[14:10] != 0, x[9:0]};
        ys = {y[14:10] != 0, y[9:0]};
        xe = x[14:10] == 0 ? -10'sd14 : $signed({5'b0, x[14:10]}) - 10'sd15;
        ye = y[14:10] == 0 ? -10'sd14 : $signed({5'b0, y[14:10]}) - 10'sd15;
        prod_nan = xn || yn || (xi && yz) || (yi && xz);
        prod_inf = (xi || yi) && !prod_nan;
        nan = nan || prod_nan;
        if (prod_inf && (x[15] ^ y[15])) ninf = 1'b1;
        if (prod_inf && !(x[15] ^ y[15])) pinf = 1'b1;
        p_neg[k]  <= x[15] ^ y[15];
        p_zero[k] <= xz || yz;
        p_exp[k]  <= xe + ye;
        p_sig[k]  <= 22'(xs) * 22'(ys);
      end
      // c
      if (c[30:23] == 8'hff && c[22:0] != 0) nan = 1'b1;
      if (c[30:23] == 8'hff && c[22:0] == 0) begin
        if (c[31]) ninf = 1'b1; else pinf = 1'b1;
      end
      c_neg  <= c[31];
      c_zero <= c[30:0] == 0;
      c_exp  <= c[30:23] == 0 ? -10'sd126 : $signed({2'b0, c[30:23]}) - 10'sd127;
      c_sig  <= {c[30:23] != 0, c[22:0]};
      nan1   <= nan || (pinf && ninf);
      pinf1  <= pinf;
      ninf1  <= ninf;
    end
  end

  // ---- stage 2: the largest exponent, terms cut 23 bits below it, the sum ---
  logic        v2;
  logic [3:0]  tag2;
  logic signed [31:0] sum2;          // the sum in units of 2^(emax2 - 23)
  logic signed [9:0]  emax2;
  logic        nan2, pinf2, ninf2, c_neg2;

  function automatic logic [31:0] shift_cut(input logic [31:0] v, input int sh);
    // v * 2^-sh, cut toward zero (sh < 0: exact left shift)
    if (sh <= -32 || sh >= 32) return sh < 0 ? 32'd0 : 32'd0;
    return sh < 0 ? v << (-sh) : v >> sh;
  endfunction

  always_ff @(posedge clk or negedge rst_n) begin
    if (!rst_n) v2 <= 1'b0;
    else if (adv) begin
      logic signed [9:0]  emax;
      logic signed [31:0] s;
      logic [31:0] t;
      emax = c_zero ? 10'(EZERO) : c_exp;
      for (int k = 0; k < 4; k++) begin
        if (p_zero[k]) begin
          if (10'(EZERO) > emax) emax = 10'(EZERO);
        end else if (p_exp[k] > emax) emax = p_exp[k];
      end
      // c: c_sig * 2^(c_exp - 23), in units of 2^(emax - 23)
      s = 0;
      if (!c_zero) begin
        t = shift_cut({8'b0, c_sig}, int'(emax) - int'(c_exp));
        s = c_neg ? -$signed(t) : $signed(t);
      end
      // products: p_sig * 2^(p_exp - 20), in units of 2^(emax - 23)
      for (int k = 0; k < 4; k++)
        if (!p_zero[k]) begin
          t = shift_cut({10'b0, p_sig[k]}, int'(emax) - int'(p_exp[k]) - 3);
          s = p_neg[k] ? s - $signed(t) : s + $signed(t);
        end
      v2     <= v1;
      tag2   <= tag1;
      sum2   <= s;
      emax2  <= emax;
      nan2   <= nan1;
      pinf2  <= pinf1;
      ninf2  <= ninf1;
      c_neg2 <= c_neg;
    end
  end

  // ---- stage 3: normalize, cut to fp32 (toward zero), pack ----------------------
  always_ff @(posedge clk or negedge rst_n) begin
    if (!rst_n) out_valid <= 1'b0;
    else if (adv) begin
      logic [31:0] mag, q;
      logic neg;
      int m, x;
      neg = sum2 < 0;
      mag = neg ? 32'(-sum2) : 32'(sum2);
      m = 0;
      for (int i = 0; i < 32; i++) if (mag[i]) m = i;
      x = m + int'(emax2) - 23;                 // exponent of the leading bit
      if (nan2)                 d <= 32'h7fffffff;
      else if (pinf2 || ninf2)  d <= {ninf2, 31'h7f800000};
      else if (mag == 0) begin
`ifdef BROKEN_ZERO_SIGN
        d <= {c_neg2, 31'b0};                   // the bug: -0 where c was negative
`else
        d <= 32'h0;
`endif
      end
      else if (x > 127)         d <= {neg, 31'h7f800000};
      else if (x >= -126)       d <= {neg, 8'(x + 127), 23'(m >= 23 ? mag >> (m - 23) : mag << (23 - m))};
      else begin                                // subnormal: the last bit weighs 2^-149
        q = shift_cut(mag, -126 - int'(emax2));
`ifdef BROKEN_ZERO_SIGN
        d <= q == 0 ? {c_neg2, 31'b0} : {neg, 8'h00, q[22:0]};
`else
        d <= q == 0 ? 32'h0 : {neg, 8'h00, q[22:0]};
`endif
      end
      out_valid <= v2;
      out_tag   <= tag2;
    end
  end
endmodule
