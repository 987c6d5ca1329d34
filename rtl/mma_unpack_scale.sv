// mma_unpack_scale: decode one block scale (the C model's mma_term_of() of
// a scale format) into (zero, NaN, exponent, significand):
//
//   value = sig * 2^(exp - SMB)
//
//   SCALE=1  ue8m0 (MX, OCP):   2^(x - 127), no significand (SMB=0, sig=1);
//                               0xff is NaN
//   SCALE=2  ue4m3 (NVFP4):     an unsigned e4m3 whose top bit the hardware
//                               ignores (the paper's GDFS): x[6:0] decoded as
//                               a positive e4m3 (mma_unpack), 0x7f (and 0xff)
//                               NaN, 0 a zero scale, subnormals exact
module mma_unpack_scale #(
  parameter int SCALE = mma_pkg::MMA_SCALE_UE8M0,
  parameter int EW    = 11,
  localparam int SMB  = (SCALE == mma_pkg::MMA_SCALE_UE4M3) ? 3 : 0
) (
  input  logic [7:0]            x,
  output logic                  zero,
  output logic                  nan,
  output logic signed [EW-1:0]  exp,
  output logic [SMB:0]          sig
);
  if (SCALE != mma_pkg::MMA_SCALE_UE8M0 && SCALE != mma_pkg::MMA_SCALE_UE4M3) begin : g_e_scale $error("mma_unpack_scale: parameter SCALE must be 1 (ue8m0) or 2 (ue4m3)"); end
  if (EW < 10)                  begin : g_e_ew    $error("mma_unpack_scale: parameter EW must be at least 10"); end

  if (SCALE == mma_pkg::MMA_SCALE_UE8M0) begin : g_ue8m0
    assign zero = 1'b0;
    assign nan  = &x;
    assign exp  = EW'($signed({1'b0, x})) - EW'(127);
    assign sig  = 1'b1;
  end else begin : g_ue4m3
    logic sgn, inf;
    mma_unpack #(.EB(4), .MB(3), .BIAS(7), .SPEC(mma_pkg::MMA_SPEC_FN), .FTZ(0), .EW(EW)) u_u (
      .x({1'b0, x[6:0]}), .sgn(sgn), .zero(zero), .inf(inf), .nan(nan), .exp(exp), .sig(sig));
  end
endmodule
