// mma_dpa_checks: the elaboration-time checks the two tops, mma_dpa and
// mma_dpa_bs, share (no logic).  Each top instantiates it with its own
// parameters and its name (TOP), so that a refused value stops elaboration
// with a message naming the module the user instantiated and the
// parameter; the checks that are a top's own stay in that top.
//
//   AB_BITS, AB_NOTE  the widest input format the top takes, in bits, and
//                     the words that say so in the message
//
// The standard (and so Verilator) formats $error's arguments; Yosys 0.23
// prints the first argument alone, as text, so for Yosys the message is one
// concatenated string.
`ifdef YOSYS
`define MMA_CHECK_FAIL(msg) $error({TOP, ": ", msg})
`else
`define MMA_CHECK_FAIL(msg) $error("%s: %s", TOP, msg)
`endif
module mma_dpa_checks #(
  parameter TOP = "mma_dpa",
  parameter AB_NOTE = "inputs of up to 16 bits",
  parameter int AB_BITS = 16,
  parameter int A_EB = 4, parameter int A_MB = 3,
  parameter int B_EB = 4, parameter int B_MB = 3,
  parameter int C_EB = 8, parameter int C_MB = 23,
  parameter int D_EB = 8, parameter int D_MB = 23,
  parameter int P      = 13,
  parameter int K      = 32,
  parameter int ALIGN  = mma_pkg::MMA_RZ,
  parameter int RHO    = mma_pkg::MMA_RZ,
  parameter int PIPE   = 0,
  parameter int SUM    = mma_pkg::MMA_SUM_ADD,
  parameter int STAGES = 0
) ();
  if (K < 1 || K > 256)                 begin : g_e_k     `MMA_CHECK_FAIL("parameter K must be 1..256"); end
  if (ALIGN != mma_pkg::MMA_RZ && ALIGN != mma_pkg::MMA_RD) begin : g_e_align `MMA_CHECK_FAIL("parameter ALIGN must be 0 (RZ) or 2 (RD)"); end
  if (RHO < mma_pkg::MMA_RZ || RHO > mma_pkg::MMA_RU) begin : g_e_rho `MMA_CHECK_FAIL("parameter RHO must be 0..3"); end
  if (P < 1 || P > D_MB)                begin : g_e_p     `MMA_CHECK_FAIL("parameter P must be 1..D_MB"); end
  if (D_EB + D_MB + 1 > 32 || D_EB < 5) begin : g_e_d     `MMA_CHECK_FAIL("parameter D_EB/D_MB: the output must be an IEEE-like format of 16 to 32 bits (fp32, fp16, bf16)"); end
  if (C_EB + C_MB + 1 > 32 || C_EB < 5) begin : g_e_c     `MMA_CHECK_FAIL("parameter C_EB/C_MB: c must be fp32, fp16 or bf16"); end
  if (A_EB + A_MB + 1 > AB_BITS)        begin : g_e_a     `MMA_CHECK_FAIL({"parameter A_EB/A_MB: ", AB_NOTE}); end
  if (B_EB + B_MB + 1 > AB_BITS)        begin : g_e_b     `MMA_CHECK_FAIL({"parameter B_EB/B_MB: ", AB_NOTE}); end
  if (PIPE < 0 || PIPE > 2)             begin : g_e_pipe  `MMA_CHECK_FAIL("parameter PIPE must be 0, 1 or 2"); end
  if (SUM < mma_pkg::MMA_SUM_ADD || SUM > mma_pkg::MMA_SUM_CSA42) begin : g_e_sum `MMA_CHECK_FAIL("parameter SUM must be 0 (adder tree), 1 (3:2 carry-save tree) or 2 (4:2 carry-save tree)"); end
  if (STAGES < 0 || STAGES > 4)         begin : g_e_stg   `MMA_CHECK_FAIL("parameter STAGES must be 0..4"); end
endmodule
`undef MMA_CHECK_FAIL
