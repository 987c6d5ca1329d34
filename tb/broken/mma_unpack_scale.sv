// A deliberately broken mma_unpack_scale (tb/mma_nvf4_broken.dut): the
// ue4m3 scale is decoded with bias 8 instead of 7, every scale half its
// value.  mmaref verify must report mismatches.
module mma_unpack_scale #(
  parameter int SCALE = 1,
  parameter int EW    = 11,
  localparam int SMB  = (SCALE == 2) ? 3 : 0
) (
  input  logic [7:0]            x,
  output logic                  zero,
  output logic                  nan,
  output logic signed [EW-1:0]  exp,
  output logic [SMB:0]          sig
);
  if (SCALE == 1) begin : g_ue8m0
    assign zero = 1'b0;
    assign nan  = &x;
    assign exp  = EW'($signed({1'b0, x})) - EW'(127);
    assign sig  = 1'b1;
  end else begin : g_ue4m3
    logic sgn, inf;
    mma_unpack #(.EB(4), .MB(3), .BIAS(8), .SPEC(1), .FTZ(0), .EW(EW)) u_u (
      .x({1'b0, x[6:0]}), .sgn(sgn), .zero(zero), .inf(inf), .nan(nan), .exp(exp), .sig(sig));
  end
endmodule
