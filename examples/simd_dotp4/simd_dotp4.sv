// simd_dotp4: an expanding SIMD dot-product unit, four lanes of 32 bits.
// In each lane it computes
//     d = c + a[0]*b[0] + ... + a[K-1]*b[K-1]      (op = 0)
//     d = c - a[0]*b[0] - ... - a[K-1]*b[K-1]      (op = 1, negated products)
// with one IEEE 754 rounding of the exact result, into a format twice as
// wide as the inputs ("expanding"), chosen at run time:
//   fmt 0: fp16 inputs, K=2, fp32 c and d     fmt 2: e4m3 (OCP) inputs, K=4, fp16 c and d
//   fmt 1: bf16 inputs, K=2, fp32 c and d     fmt 3: e5m2 inputs, K=4, fp16 c and d
// and the rounding rm: 0 to nearest even, 1 toward zero, 2 down, 3 up,
// 4 to nearest with ties away from zero.  Element 0 of a lane sits in its
// low bits; fp16 c and d in the low half of the lane (the high half of d
// is zero).  NaN results are the default NaN (0x7fc00000, 0x7e00).
// Two cycles from in_valid to out_valid; it takes an input every cycle.
module simd_dotp4 (
  input  logic         clk,
  input  logic         rst_n,
  input  logic         in_valid,
  input  logic [1:0]   fmt,
  input  logic [2:0]   rm,
  input  logic         op,
  input  logic [127:0] a, b, c,
  output logic         out_valid,
  output logic [127:0] d
);
  // The exact sum in fixed point, the weight of bit 0 2^-300: bf16
  // products reach down to 2^-266 and up to 2^256, fp32's c to 2^-149 and
  // 2^128; 640 bits with the sign hold any sum of five terms.
  localparam int W = 640, LSB = 300;

  typedef struct packed {
    logic nan, inf, zero, neg;
    logic [10:0] sig;           // with the hidden bit
    logic signed [11:0] e;      // exponent of the sig's last bit
  } term_t;

  // one operand element of format f (0 fp16, 1 bf16, 2 e4m3, 3 e5m2)
  function automatic term_t elem(input logic [1:0] f, input logic [15:0] x);
    term_t t;
    logic [7:0] ex;
    logic [9:0] fr;
    int ebits, fbits, bias, emax_field;
    case (f)
      2'd0: begin ebits = 5; fbits = 10; bias = 15;  ex = {3'b0, x[14:10]}; fr = x[9:0]; t.neg = x[15]; end
      2'd1: begin ebits = 8; fbits = 7;  bias = 127; ex = x[14:7];          fr = {3'b0, x[6:0]}; t.neg = x[15]; end
      2'd2: begin ebits = 4; fbits = 3;  bias = 7;   ex = {4'b0, x[6:3]};   fr = {7'b0, x[2:0]}; t.neg = x[7]; end
      default: begin ebits = 5; fbits = 2; bias = 15; ex = {3'b0, x[6:2]}; fr = {8'b0, x[1:0]}; t.neg = x[7]; end
    endcase
    emax_field = (1 << ebits) - 1;
    if (f == 2'd2) begin                      // OCP e4m3: no Inf, NaN is S.1111.111
      t.nan = ex == 8'hf && fr == 10'h7;
      t.inf = 1'b0;
    end else begin
      t.nan = int'(ex) == emax_field && fr != 0;
      t.inf = int'(ex) == emax_field && fr == 0;
    end
    t.zero = ex == 0 && fr == 0;
    t.sig = (11'(ex != 0) << fbits) | 11'(fr);
    t.e = 12'((ex == 0 ? 1 : int'(ex)) - bias - fbits);
    return t;
  endfunction

  // the accumulator c of format 0/1 (fp32) or 2/3 (fp16)
  function automatic logic signed [W-1:0] place(input logic [47:0] sig, input int e);
    return W'(sig) << (e + LSB);
  endfunction

  function automatic logic [31:0] lane(input logic [1:0] f, input logic [2:0] r, input logic sub,
                                       input logic [31:0] av, bv, cv);
    logic wide, nan, pinf, ninf, allzero, anypos, anyneg, neg, up, rd, zsign;
    logic [31:0] qnan;
    logic signed [W-1:0] acc;
    logic [W-1:0] m, rem, half;
    logic [24:0] kept;
    int k, L, e, sh, p, emin, emax, bias, ce, cf, cbias;
    term_t x, y, z;
    logic [31:0] res;
    wide = f < 2'd2;                          // fp32 out
    k = wide ? 2 : 4;
    p = wide ? 24 : 11; emin = wide ? -126 : -14; emax = wide ? 127 : 15; bias = wide ? 127 : 15;
    qnan = wide ? 32'h7fc00000 : 32'h00007e00;
    rd = r == 3'd2;
    // c
    if (wide) begin
      ce = int'(cv[30:23]); cf = 23; cbias = 127;
      z.neg = cv[31]; z.nan = ce == 255 && cv[22:0] != 0; z.inf = ce == 255 && cv[22:0] == 0; z.zero = cv[30:0] == 0;
    end else begin
      ce = int'(cv[14:10]); cf = 10; cbias = 15;
      z.neg = cv[15]; z.nan = ce == 31 && cv[9:0] != 0; z.inf = ce == 31 && cv[9:0] == 0; z.zero = cv[14:0] == 0;
    end
    nan = z.nan; pinf = z.inf && !z.neg; ninf = z.inf && z.neg;
    allzero = z.zero; anyneg = z.neg; anypos = !z.neg;
    acc = 0;
    if (!z.nan && !z.inf && !z.zero) begin
      logic [47:0] cs;
      cs = wide ? 48'({ce != 0, cv[22:0]}) : 48'({ce != 0, cv[9:0]});
      acc = place(cs, (ce == 0 ? 1 : ce) - cbias - cf);
      if (z.neg) acc = -acc;
    end
    for (int i = 0; i < 4; i++) begin
      if (i < k) begin
        logic pneg;
        logic signed [W-1:0] t;
        x = elem(f, wide ? 16'(av >> (16 * i)) : 16'(av[8 * i +: 8]));
        y = elem(f, wide ? 16'(bv >> (16 * i)) : 16'(bv[8 * i +: 8]));
        pneg = x.neg ^ y.neg ^ sub;
        if (x.nan || y.nan || (x.inf && y.zero) || (x.zero && y.inf)) nan = 1'b1;
        else if (x.inf || y.inf) begin if (pneg) ninf = 1'b1; else pinf = 1'b1; end
        allzero = allzero && (x.zero || y.zero);
        if (pneg) anyneg = 1'b1; else anypos = 1'b1;
        t = place(48'(x.sig * y.sig), int'(x.e) + int'(y.e));
        acc = acc + (pneg ? -t : t);
      end
    end
    if (nan || (pinf && ninf)) return qnan;
    if (pinf || ninf) return wide ? {ninf, 8'hff, 23'h0} : {16'h0, ninf, 5'h1f, 10'h0};
    if (acc == 0) begin
      // IEEE 754 6.3: zeros of one sign keep it; otherwise +0, -0 rounding down
      zsign = allzero ? (!anypos || (rd && anyneg)) : rd;
      return wide ? {zsign, 31'h0} : {16'h0, zsign, 15'h0};
    end
    neg = acc < 0;
    m = neg ? -acc : acc;
    L = 0;
    for (int i = 0; i < W; i++) if (m[i]) L = i;
    e = L - LSB;
    sh = e >= emin ? L - (p - 1) : emin - (p - 1) + LSB;
    rem = m & ((W'(1) << sh) - 1);
    half = W'(1) << (sh - 1);
    kept = 25'(m >> sh);
    case (r)
      3'd0: up = rem > half || (rem == half && kept[0]);
      3'd1: up = 1'b0;
      3'd2: up = neg && rem != 0;
      3'd3: up = !neg && rem != 0;
`ifdef BROKEN_RMM
      default: up = wide ? rem >= half : rem > half || (rem == half && kept[0]);   // the bug: fp16 lanes tie to even
`else
      default: up = rem >= half;
`endif
    endcase
    kept = kept + 25'(up);
    if (e >= emin && kept == (25'd1 << p)) begin kept = 25'd1 << (p - 1); e = e + 1; end
    if (e > emax) begin
      // overflow: Inf, or the largest finite where the rounding points away from it
      logic inf;
      inf = r == 3'd0 || r == 3'd4 || (r == 3'd2 && neg) || (r == 3'd3 && !neg);
      if (wide) return inf ? {neg, 8'hff, 23'h0} : {neg, 8'hfe, 23'h7fffff};
      return inf ? {16'h0, neg, 5'h1f, 10'h0} : {16'h0, neg, 5'h1e, 10'h3ff};
    end
    if (e < emin) res = wide ? {neg, 31'(kept)} : {16'h0, neg, 15'(kept)};   // subnormal, or 2^emin on a carry
    else res = wide ? {neg, 8'(e + bias), kept[22:0]} : {16'h0, neg, 5'(e + bias), kept[9:0]};
    return res;
  endfunction

  logic         v1;
  logic [1:0]   f1;
  logic [2:0]   r1;
  logic         o1;
  logic [127:0] a1, b1, c1;
  always_ff @(posedge clk or negedge rst_n)
    if (!rst_n) begin
      v1 <= 1'b0;
      out_valid <= 1'b0;
    end else begin
      v1 <= in_valid;
      out_valid <= v1;
    end
  always_ff @(posedge clk) begin
    f1 <= fmt; r1 <= rm; o1 <= op; a1 <= a; b1 <= b; c1 <= c;
    for (int l = 0; l < 4; l++) d[32 * l +: 32] <= lane(f1, r1, o1, a1[32 * l +: 32], b1[32 * l +: 32], c1[32 * l +: 32]);
  end
endmodule
