// ieee_dot2: d = a0*b0 + a1*b1 + c, fp16 a and b, fp32 c and d, with one
// IEEE 754 rounding of the exact result in the mode given by rm:
//   0 to nearest, ties to even   1 toward zero   2 down (toward -inf)
//   3 up (toward +inf)   4 to nearest, ties away from zero
// and the exception flags {nv, dz, of, uf, nx} (invalid, divide by zero,
// overflow, underflow, inexact; RISC-V's fflags order).
//
// The exact sum is formed in a fixed-point accumulator wide enough for
// every term: fp16 products are multiples of 2^-48 below 2^32, an fp32 c a
// multiple of 2^-149 below 2^128, so 2^-149 .. 2^130 with a sign covers
// them all and the sum of three.  A result in the subnormal range is then
// exact (a multiple of 2^-149 below 2^-126), so underflow never raises.
//
// One register stage: the result is in d, with out_valid, the cycle after
// in_valid.
module ieee_dot2 (
  input  logic        clk,
  input  logic        rst_n,
  input  logic        in_valid,
  input  logic [2:0]  rm,
  input  logic [15:0] a0, b0, a1, b1,
  input  logic [31:0] c,
  output logic        out_valid,
  output logic [31:0] d,
  output logic [4:0]  fflags
);
  localparam int W = 282;                 // accumulator bits, LSB weight 2^-149

  typedef struct packed {
    logic nan, snan, inf, zero, neg;
    logic signed [9:0] e;                 // exponent of the LSB of sig
    logic [23:0] sig;
  } num_t;

  function automatic num_t dec16(input logic [15:0] x);
    num_t n;
    n.neg  = x[15];
    n.nan  = x[14:10] == 5'h1f && x[9:0] != 0;
    n.snan = n.nan && !x[9];
    n.inf  = x[14:10] == 5'h1f && x[9:0] == 0;
    n.zero = x[14:0] == 0;
    n.sig  = {13'b0, x[14:10] != 0, x[9:0]};
    n.e    = (x[14:10] == 0 ? -10'sd14 : $signed({5'b0, x[14:10]}) - 10'sd15) - 10'sd10;
    return n;
  endfunction

  function automatic num_t dec32(input logic [31:0] x);
    num_t n;
    n.neg  = x[31];
    n.nan  = x[30:23] == 8'hff && x[22:0] != 0;
    n.snan = n.nan && !x[22];
    n.inf  = x[30:23] == 8'hff && x[22:0] == 0;
    n.zero = x[30:0] == 0;
    n.sig  = {x[30:23] != 0, x[22:0]};
    n.e    = (x[30:23] == 0 ? -10'sd126 : $signed({2'b0, x[30:23]}) - 10'sd127) - 10'sd23;
    return n;
  endfunction

  // a term sig * 2^e into the accumulator (e >= -149 for every term here)
  function automatic logic signed [W-1:0] place(input logic [47:0] sig, input logic neg, input int e);
    logic signed [W-1:0] t;
    t = W'(sig) << (e + 149);
    return neg ? -t : t;
  endfunction

  always_ff @(posedge clk or negedge rst_n) begin
    if (!rst_n) out_valid <= 1'b0;
    else begin
      num_t x0, y0, x1, y1, z;
      logic nv, of, nx, nan, pinf, ninf, p0inf, p1inf, p0z, p1z, neg, up, rd;
      logic signed [W-1:0] acc;
      logic [W-1:0] mag, rest;
      logic [24:0] q;
      int m, sh, ex;
      x0 = dec16(a0); y0 = dec16(b0); x1 = dec16(a1); y1 = dec16(b1); z = dec32(c);
      rd = rm == 3'd2;
      nv = x0.snan || y0.snan || x1.snan || y1.snan || z.snan ||
           (x0.inf && y0.zero) || (x0.zero && y0.inf) || (x1.inf && y1.zero) || (x1.zero && y1.inf);
      nan = x0.nan || y0.nan || x1.nan || y1.nan || z.nan || nv;
      p0inf = x0.inf || y0.inf;
      p1inf = x1.inf || y1.inf;
      pinf = (p0inf && !(x0.neg ^ y0.neg)) || (p1inf && !(x1.neg ^ y1.neg)) || (z.inf && !z.neg);
      ninf = (p0inf && (x0.neg ^ y0.neg)) || (p1inf && (x1.neg ^ y1.neg)) || (z.inf && z.neg);
      if (!nan && pinf && ninf) begin nv = 1'b1; nan = 1'b1; end
      of = 1'b0;
      nx = 1'b0;
      if (nan)       d <= 32'h7fc00000;            // the default quiet NaN
      else if (pinf) d <= 32'h7f800000;
      else if (ninf) d <= 32'hff800000;
      else begin
        p0z = x0.zero || y0.zero;
        p1z = x1.zero || y1.zero;
        acc = 0;
        if (!p0z) acc = acc + place(48'(x0.sig) * 48'(y0.sig), x0.neg ^ y0.neg, int'(x0.e) + int'(y0.e));
        if (!p1z) acc = acc + place(48'(x1.sig) * 48'(y1.sig), x1.neg ^ y1.neg, int'(x1.e) + int'(y1.e));
        if (!z.zero) acc = acc + place({24'b0, z.sig}, z.neg, int'(z.e));
        neg = acc < 0;
        mag = neg ? -acc : acc;
        if (mag == 0) begin
          // an exact zero (IEEE 754 6.3): zeros of one sign keep it; any
          // other zero sum is +0, or -0 rounding down
          if (p0z && p1z && z.zero && (x0.neg ^ y0.neg) == z.neg && (x1.neg ^ y1.neg) == z.neg)
            d <= {z.neg, 31'b0};
          else d <= rd ? 32'h80000000 : 32'h0;
        end else begin
          m = 0;
          for (int i = 0; i < W; i++) if (mag[i]) m = i;
          ex = m - 149;                           // exponent of the leading bit
          if (ex < -126) d <= {neg, 8'h00, mag[22:0]};   // subnormal: exact
          else begin
            sh = m - 23;                          // bits below the 24 kept
            q = 25'(mag >> sh);
            rest = sh == 0 ? '0 : mag & ((W'(1) << sh) - 1);
`ifdef BROKEN_INEXACT
            nx = sh > 0 && mag[sh - 1];           // the bug: inexact only when the first bit cut is 1
`else
            nx = rest != 0;
`endif
            case (rm)
              3'd0: up = sh > 0 && mag[sh - 1] && (rest != (W'(1) << (sh - 1)) || q[0]);
              3'd1: up = 1'b0;
              3'd2: up = neg && rest != 0;
              3'd3: up = !neg && rest != 0;
              3'd4: up = sh > 0 && mag[sh - 1];
              default: up = 1'b0;
            endcase
            q = q + 25'(up);
            if (q[24]) begin q = q >> 1; ex = ex + 1; end
            if (ex > 127) begin
              of = 1'b1;
              nx = 1'b1;
              // to Inf, or to the largest finite number when rounding toward zero or away from the sign
              if (rm == 3'd1 || (rm == 3'd2 && !neg) || (rm == 3'd3 && neg)) d <= {neg, 31'h7f7fffff};
              else d <= {neg, 31'h7f800000};
            end else d <= {neg, 8'(ex + 127), q[22:0]};
          end
        end
      end
      fflags    <= {nv, 1'b0, of, 1'b0, nx};
      out_valid <= in_valid;
    end
  end
endmodule
