// mma_align: alignment of one term to the maximum exponent (the C model's
// align_term(), used by mma_fused_sum()).
//
// The term is (-1)^sgn * sig * 2^(exp - TF), sig a TW-bit integer with TF
// fraction bits; exponents are in offset form (see mma_emax).  It is shifted
// right by emax - exp and only F bits after the binary point (relative to
// 2^emax) are kept:
//   CUT=0 (RZ): the magnitude is truncated (sign-magnitude, toward zero)
//   CUT=2 (RD): toward -inf (a negative term that lost bits grows by one ulp)
// al is the signed result in units of 2^(emax - F); a zero term gives 0.
module mma_align #(
  parameter int EW  = 11,
  parameter int TW  = 25,
  parameter int TF  = 23,
  parameter int F   = 13,
  parameter int CUT = mma_pkg::MMA_RZ,
  localparam int AW = TW - TF + F + 1
) (
  input  logic [EW-1:0]         uemax,
  input  logic                  sgn,
  input  logic                  zero,
  input  logic [EW-1:0]         uexp,
  input  logic [TW-1:0]         sig,
  output logic signed [AW-1:0]  al,
  output logic                  cut      // nonzero bits were cut off
);
  if (CUT != mma_pkg::MMA_RZ && CUT != mma_pkg::MMA_RD) begin : g_e_cut $error("mma_align: parameter CUT must be 0 (RZ) or 2 (RD)"); end
  if (TF >= TW)             begin : g_e_tf  $error("mma_align: parameter TF must be below TW"); end

  localparam int LSH = (F > TF) ? F - TF : 0;   // static left shift
  localparam int RSH = (TF > F) ? TF - F : 0;   // static right shift
  localparam int XW  = TW + LSH;                // pre-shift width
  localparam int SHW = EW + 2;                  // shift amount width

  logic [EW:0]    d;
  logic [SHW-1:0] sh;
  logic [XW-1:0]  x, m, mr;
  logic           big, lost, up;

  assign d    = {1'b0, uemax} - {1'b0, uexp};
  assign sh   = SHW'(d) + SHW'(RSH);
  assign x    = XW'(sig) << LSH;
  assign big  = sh >= SHW'(XW);
  assign m    = big ? '0 : (x >> sh);
  assign lost = big ? (|x) : (|(x & ~({XW{1'b1}} << sh)));
  assign up   = (CUT == mma_pkg::MMA_RD) & sgn & lost;
  assign mr   = m + XW'(up);
  assign al   = zero ? '0 : ((AW'(mr) ^ {AW{sgn}}) + AW'(sgn));
  assign cut  = ~zero & lost;
endmodule
