// mma_reg: a pipeline register at one of the cut points of a fused step
// (STAGES, docs/rtl.md), instantiated only where the cut is taken.  Data
// registers have no reset: out_valid, delayed beside them with an
// asynchronous reset (mma_dpa, mma_dpa_bs), says when they hold a result.
module mma_reg #(
  parameter int W = 1
) (
  input  logic         clk,
  input  logic [W-1:0] d,
  output logic [W-1:0] q
);
  always_ff @(posedge clk) q <= d;
endmodule
