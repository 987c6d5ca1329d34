// mma_reg: a pipeline register at one of the cut points of a fused step
// (STAGES, docs/rtl.md), or a wire where that cut is not taken (EN=0).
// Data registers have no reset: out_valid, delayed beside them with an
// asynchronous reset (mma_dpa), says when they hold a result.
module mma_reg #(
  parameter int W  = 1,
  parameter int EN = 1
) (
  input  logic         clk,
  input  logic [W-1:0] d,
  output logic [W-1:0] q
);
  if (EN != 0) begin : g_ff
    always_ff @(posedge clk) q <= d;
  end else begin : g_wire
    assign q = d;
  end
endmodule
