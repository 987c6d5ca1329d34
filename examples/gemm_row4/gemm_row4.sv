// gemm_row4: one row of an FP16 GEMM engine.  Four processing elements in
// a chain, each a fused multiply-add acc + a*b in IEEE 754 binary16 with
// one rounding to nearest (ties to even); the operands arrive skewed, as a
// systolic array feeds them: element k's a and b come k cycles after
// element 0's, when the partial sum of element k-1 does.  c enters element
// 0 with a0 and b0; the row's sum leaves element 3 four cycles later.
// Every element registers its own exception flags {nv, dz, of, uf, nx}
// (RISC-V's fflags order; underflow: tiny after rounding, and inexact) one
// cycle after its operands.  No valid, no reset: data moves every cycle.
module gemm_row4 (
  input  logic        clk,
  input  logic [15:0] a0, a1, a2, a3,
  input  logic [15:0] b0, b1, b2, b3,
  input  logic [15:0] c_in,
  output logic [15:0] acc_out,
  output logic [4:0]  fflags0, fflags1, fflags2, fflags3
);
  logic [15:0] acc1, acc2, acc3;
  fp16_fma_pe pe0 (.clk, .a(a0), .b(b0), .acc_in(c_in), .acc_out(acc1),    .flags(fflags0));
  fp16_fma_pe pe1 (.clk, .a(a1), .b(b1), .acc_in(acc1), .acc_out(acc2),    .flags(fflags1));
  fp16_fma_pe pe2 (.clk, .a(a2), .b(b2), .acc_in(acc2), .acc_out(acc3),    .flags(fflags2));
  fp16_fma_pe pe3 (.clk, .a(a3), .b(b3), .acc_in(acc3), .acc_out(acc_out), .flags(fflags3));
endmodule

// acc_out = acc_in + a*b, rounded once, registered with its flags
module fp16_fma_pe (
  input  logic        clk,
  input  logic [15:0] a, b, acc_in,
  output logic [15:0] acc_out,
  output logic [4:0]  flags
);
  // The exact sum in fixed point: fp16 products are multiples of 2^-48
  // below 2^32, an fp16 addend a multiple of 2^-24 below 2^16; 96 bits
  // with the sign hold every sum.
  localparam int W = 96;

  function automatic logic [20:0] fma16(input logic [15:0] x, y, z);
    logic sx, sy, sz, sp, xnan, ynan, znan, xinf, yinf, zinf, xzero, yzero, zzero, nv;
    logic [10:0] mx, my, mz;
    int ex, ey, ez, L, e, sh;
    logic signed [W-1:0] p, q, s;
    logic [W-1:0] m, rem, half;
    logic [11:0] r, r2;
    logic neg, up, inexact, tiny, of;
    sx = x[15]; sy = y[15]; sz = z[15]; sp = sx ^ sy;
    xnan = x[14:10] == 5'h1f && x[9:0] != 0;  xinf = x[14:10] == 5'h1f && x[9:0] == 0;  xzero = x[14:0] == 0;
    ynan = y[14:10] == 5'h1f && y[9:0] != 0;  yinf = y[14:10] == 5'h1f && y[9:0] == 0;  yzero = y[14:0] == 0;
    znan = z[14:10] == 5'h1f && z[9:0] != 0;  zinf = z[14:10] == 5'h1f && z[9:0] == 0;  zzero = z[14:0] == 0;
    // invalid: a signaling NaN, or 0 * Inf (even beside a quiet NaN)
    nv = (xnan && !x[9]) || (ynan && !y[9]) || (znan && !z[9]) || (xinf && yzero) || (xzero && yinf);
    if (xnan || ynan || znan || nv) return {16'h7e00, nv, 4'b0};
    if ((xinf || yinf) && zinf && sp != sz) return {16'h7e00, 5'b10000};   // Inf - Inf
    if (xinf || yinf) return {sp, 5'h1f, 10'h0, 5'b0};
    if (zinf) return {z, 5'b0};
    // significand and exponent of the least significant bit
    mx = {x[14:10] != 0, x[9:0]};  ex = (x[14:10] == 0 ? 1 : int'(x[14:10])) - 25;
    my = {y[14:10] != 0, y[9:0]};  ey = (y[14:10] == 0 ? 1 : int'(y[14:10])) - 25;
    mz = {z[14:10] != 0, z[9:0]};  ez = (z[14:10] == 0 ? 1 : int'(z[14:10])) - 25;
    p = W'(mx * my) << (ex + ey + 48);
    q = W'(mz) << (ez + 48);
    s = (sp ? -p : p) + (sz ? -q : q);
    if (s == 0) return {(p == 0 && q == 0) ? sp & sz : 1'b0, 15'h0, 5'b0};
    neg = s < 0;
    m = neg ? -s : s;
    L = 0;
    for (int i = 0; i < W; i++) if (m[i]) L = i;
    e = L - 48;                                // exponent of the leading bit
    sh = e >= -14 ? L - 10 : 24;               // the result's last bit: 11 bits, or 2^-24
    rem = m & ((W'(1) << sh) - 1);
    half = W'(1) << (sh - 1);
    r = 12'(m >> sh);
    up = rem > half || (rem == half && r[0]);
    r = r + 12'(up);
    inexact = rem != 0;
    // tininess after rounding: below 2^-14 even rounded to 11 bits
    r2 = 12'(m >> (L - 10)) + 12'((m & ((W'(1) << (L - 10)) - 1)) > (W'(1) << (L - 11)) ||
                                  ((m & ((W'(1) << (L - 10)) - 1)) == (W'(1) << (L - 11)) && m[L - 10]));
`ifdef BROKEN_TINY
    tiny = e < -14;                            // the bug: tininess before rounding
`else
    tiny = e < -14 && !(e == -15 && r2 == 12'd2048);
`endif
    if (e < -14) return {neg, 15'(r), 1'b0, 2'b0, tiny && inexact, inexact};   // subnormal (2^-14 on a carry)
    if (r == 12'd2048) begin r = 12'd1024; e = e + 1; end
    of = e > 15;
    if (of) return {neg, 5'h1f, 10'h0, 5'b00101};
    return {neg, 5'(e + 15), r[9:0], 4'b0, inexact};
  endfunction

  always_ff @(posedge clk) {acc_out, flags} <= fma16(a, b, acc_in);
endmodule
