// mma_dpa_io: the registers around a unit's datapath, shared by the tops
// mma_dpa and mma_dpa_bs (structure only; the model has no counterpart):
// the operands x through an input register when PIPE >= 2, the valid bit
// through the VD register cuts inside the datapath's steps, and the results
// y through an output register when PIPE >= 1.  out_valid follows in_valid
// by VD + PIPE cycles; only the valid bits are reset.
module mma_dpa_io #(
  parameter int IW   = 1,
  parameter int OW   = 1,
  parameter int PIPE = 0,
  parameter int VD   = 0
) (
  input  logic          clk,
  input  logic          rst_n,
  input  logic          in_valid,
  input  logic [IW-1:0] x,          // the operands, as they arrive
  output logic [IW-1:0] x_i,        // to the datapath
  input  logic [OW-1:0] y,          // the datapath's results
  output logic [OW-1:0] q,          // the unit's outputs
  output logic          out_valid
);
  logic v_i, v_o;
  if (PIPE >= 2) begin : g_pin
    always_ff @(posedge clk) x_i <= x;
    always_ff @(posedge clk or negedge rst_n)
      if (!rst_n) v_i <= 1'b0; else v_i <= in_valid;
  end else begin : g_nopin
    assign x_i = x;
    assign v_i = in_valid;
  end
  if (VD > 0) begin : g_vd
    logic [VD-1:0] vq;
    always_ff @(posedge clk or negedge rst_n)
      if (!rst_n) vq <= '0;
      else        vq <= VD'({vq, v_i});
    assign v_o = vq[VD-1];
  end else begin : g_nvd
    assign v_o = v_i;
  end
  if (PIPE >= 1) begin : g_pout
    always_ff @(posedge clk) q <= y;
    always_ff @(posedge clk or negedge rst_n)
      if (!rst_n) out_valid <= 1'b0; else out_valid <= v_o;
  end else begin : g_nopout
    assign q         = y;
    assign out_valid = v_o;
  end
endmodule
