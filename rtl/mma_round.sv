// mma_round: normalize and round an exact value
//     (-1)^neg * mag * 2^lsb
// to P fraction bits (the C model's round_core(), used by mma_round_pack()
// and mma_round_keep()).  The kept significand q (P+1 bits, or P+2 after a
// rounding carry) has its last bit at weight 2^qlsb, with
//     qlsb = max(x, EMIN) - P,  x = exponent of mag's leading bit,
// so results below 2^EMIN land on the subnormal grid 2^(EMIN-P).
// RHO: 0 RZ, 1 RNE, 2 RD (toward -inf), 3 RU (toward +inf); the values of the
// C model's mma_rounding.
module mma_round #(
  parameter int MW   = 32,   // magnitude width
  parameter int LW   = 14,   // width of the signed exponents lsb / qlsb
  parameter int P    = 23,
  parameter int EMIN = -126,
  parameter int RHO  = mma_pkg::MMA_RZ
) (
  input  logic                  neg,
  input  logic [MW-1:0]         mag,
  input  logic signed [LW-1:0]  lsb,
  output logic [P+1:0]          q,
  output logic signed [LW-1:0]  qlsb,
  output logic                  inexact,
  output logic signed [LW-1:0]  lead      // exponent of mag's leading bit (x)
);
  if (RHO < mma_pkg::MMA_RZ || RHO > mma_pkg::MMA_RU) begin : g_e_rho $error("mma_round: parameter RHO must be 0 (RZ), 1 (RNE), 2 (RD) or 3 (RU)"); end
  if (P < 1)              begin : g_e_p   $error("mma_round: parameter P must be at least 1"); end

  localparam int WW  = MW + P;            // {mag, P zero bits}
  localparam int UW  = $clog2(WW + 2) + 1;
  localparam int LZW = $clog2(MW + 1);

  logic [LZW-1:0]        l;               // leading-one position of mag
  logic signed [LW-1:0]  x, keep, u;
  logic [UW-1:0]         us;              // saturated right-shift amount
  logic [WW-1:0]         wv, qw;
  logic                  guard, sticky, inc;

  // leading-one position by halving (log2 steps, no data-dependent branches)
  localparam int LP = 1 << $clog2(MW);
  always_comb begin
    logic [LP-1:0] v;
    logic          hit;
    v = LP'(mag);
    l = '0;
    for (int s = LP / 2; s >= 1; s = s / 2) begin
      hit = (v >> s) != '0;
      v   = hit ? (v >> s) : v;
      l   = hit ? l + LZW'(s) : l;
    end
  end
  assign x    = lsb + LW'(l);
  assign keep = ((x < LW'(EMIN)) ? LW'(EMIN) : x) - LW'(P);
  // right shift of {mag, P zeros}: keep - lsb + P >= 0
  assign u    = keep - lsb + LW'(P);
  assign us   = (u > LW'(WW)) ? UW'(WW + 1) : UW'(u);
  assign wv   = {mag, {P{1'b0}}};
  assign qw   = wv >> us;
  assign guard  = (us != '0) & |(wv & ({{(WW-1){1'b0}}, 1'b1} << (us - 1'b1)));
  assign sticky = (us > UW'(1)) & |(wv & ~({WW{1'b1}} << (us - 1'b1)));

  always_comb begin
    case (RHO)
      mma_pkg::MMA_RNE: inc = guard & (sticky | qw[0]);
      mma_pkg::MMA_RD:  inc = neg  & (guard | sticky);
      mma_pkg::MMA_RU:  inc = ~neg & (guard | sticky);
      default:          inc = 1'b0;
    endcase
  end
  assign q       = (P+2)'(qw) + (P+2)'(inc);
  assign qlsb    = keep;
  assign inexact = guard | sticky;
  assign lead    = x;
endmodule
