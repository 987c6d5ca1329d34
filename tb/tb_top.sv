// tb_top: Verilator testbench of mma_dpa with the mmaref C model as DPI
// scoreboard (docs/rtl.md).  The clock comes from tb_main.cpp.
//
// Plusargs:
//   +instr=<name|config>  the model to compare with (required unless +vec
//                         names a file whose '# instr:' is used)
//   +vec=<file>           drive a vector file (docs/vector-format.md), else
//   +n=<count>            constrained-random vectors (default 100000)
//   +seed=<s>  +mode=<uniform|finite|cluster|cancel|tiny|huge|special|carry|mix>
//   +fst=<file>           on the first mismatch, replay it into an FST trace
//                         (binary built with TRACE=1) and stop
//   +quiet                no coverage table
//   +allow_param_diff     run although the RTL parameters are not those of
//                         the unit (the deliberately broken variant)
//   +nomodel              do not call the scoreboard (speed breakdown only)
// Prints "<N> vectors, <M> mismatches"; exit status 1 on mismatches.
module tb_top #(
  parameter int A_EB = 4, parameter int A_MB = 3, parameter int A_BIAS = 7,   parameter int A_SPEC = 1,
  parameter int B_EB = 4, parameter int B_MB = 3, parameter int B_BIAS = 7,   parameter int B_SPEC = 1,
  parameter int C_EB = 8, parameter int C_MB = 23, parameter int C_BIAS = 127,
  parameter int D_EB = 8, parameter int D_MB = 23, parameter int D_BIAS = 127,
  parameter int P        = 13,
  parameter int K        = 32,
  parameter int L        = 32,
  parameter int TREE     = 0,
  parameter int CADD     = 0,
  parameter int F        = 13,
  parameter int F2       = 31,
  parameter int ALIGN    = 0,
  parameter int RHO      = 0,
  parameter int ZERO_POS = 1,
  parameter int NAN_CANON = 1,
  parameter int EZERO_EN = 0,
  parameter int EZERO    = 0,
  parameter int POVF     = 0,
  parameter int FTZ      = 0,
  parameter int PIPE     = 0,
  parameter int SUM      = 0,
  parameter int STAGES   = 0
) (
  input logic clk
);
  import mmaref_pkg::*;

  localparam int AWD = 1 + A_EB + A_MB;
  localparam int BWD = 1 + B_EB + B_MB;
  localparam int CWD = 1 + C_EB + C_MB;
  localparam int DWD = 1 + D_EB + D_MB;
  localparam int AB  = K * AWD;
  localparam int BB  = K * BWD;
  localparam int LAT = PIPE + STAGES * (K / L) + 2;   // cycles from driving to checking (the driver stage, PIPE, the steps' cuts, the unit)

  // packed fast path of the DPI layer, at this unit's exact widths: the
  // driver pushes each vector it applies onto the scoreboard's queue (the
  // model's d computed there), the monitor pops and checks the oldest when
  // the DUT's d comes out (docs/dpi.md)
  import "DPI-C" function int  mmaref_gen_push_pk(input chandle g, input chandle sb,
                                                  output longint unsigned c,
                                                  output bit [AB-1:0] a, output bit [BB-1:0] b);
  import "DPI-C" function int  mmaref_file_push_pk(input chandle f, input chandle sb,
                                                   output longint unsigned c,
                                                   output bit [AB-1:0] a, output bit [BB-1:0] b);
  import "DPI-C" function int  mmaref_sb_last_pk(input chandle sb, output longint unsigned c,
                                                 output bit [AB-1:0] a, output bit [BB-1:0] b);
  import "DPI-C" function void tb_exit_status(input int code);
  import "DPI-C" function void tb_vectors(input longint n);
  import "DPI-C" function int  tb_trace_open(input string path);

  // ---- the unit under test ------------------------------------------------
  logic             rst_n = 1'b0;
  logic             v_r   = 1'b0;        // the unit's inputs (driver stage)
  logic [AB-1:0]    a_r   = '0;
  logic [BB-1:0]    b_r   = '0;
  logic [CWD-1:0]   c_r   = '0;
  logic             v_n   = 1'b0;        // the next vector, from the stimulus process
  logic [AB-1:0]    a_n   = '0;
  logic [BB-1:0]    b_n   = '0;
  logic [CWD-1:0]   c_n   = '0;
  logic             out_valid;
  logic [DWD-1:0]   d;
  logic [31:0]      cov;

  mma_dpa #(
    .A_EB(A_EB), .A_MB(A_MB), .A_BIAS(A_BIAS), .A_SPEC(A_SPEC),
    .B_EB(B_EB), .B_MB(B_MB), .B_BIAS(B_BIAS), .B_SPEC(B_SPEC),
    .C_EB(C_EB), .C_MB(C_MB), .C_BIAS(C_BIAS),
    .D_EB(D_EB), .D_MB(D_MB), .D_BIAS(D_BIAS),
    .P(P), .K(K), .L(L), .TREE(TREE), .CADD(CADD), .F(F), .F2(F2),
    .ALIGN(ALIGN), .RHO(RHO), .ZERO_POS(ZERO_POS), .NAN_CANON(NAN_CANON), .EZERO_EN(EZERO_EN),
    .EZERO(EZERO), .POVF(POVF), .FTZ(FTZ), .PIPE(PIPE),
    .SUM(SUM), .STAGES(STAGES)
  ) dut (
    .clk(clk), .rst_n(rst_n), .in_valid(v_r), .a(a_r), .b(b_r), .c(c_r),
    .out_valid(out_valid), .d(d), .cov(cov));

  // ---- configuration --------------------------------------------------------
  string            instr, vec, mode, fst;
  longint unsigned  seed;
  longint           n_max;
  int               quiet, h, ndiff, nomodel;
  bit               want_fst;
  chandle           gen, file, sb, sbq;   // sbq: sb, or null with +nomodel

  function automatic void chk(input string name, input int value);
    longint want;
    want = mmaref_rtl_param(h, name, -1000000);
    if (want != longint'(value)) begin
      $display("tb_top: RTL parameter %s=%0d, the model's unit has %0d", name, value, want);
      ndiff = ndiff + 1;
    end
  endfunction

  initial begin
    instr = ""; vec = ""; mode = "mix"; fst = ""; seed = 1; n_max = 100000;
    gen = null; file = null;
    void'($value$plusargs("instr=%s", instr));
    void'($value$plusargs("vec=%s", vec));
    void'($value$plusargs("mode=%s", mode));
    void'($value$plusargs("fst=%s", fst));
    void'($value$plusargs("seed=%d", seed));
    void'($value$plusargs("n=%d", n_max));
    quiet = $test$plusargs("quiet") ? 1 : 0;
    want_fst = (fst != "");
    if (vec != "") begin
      file = mmaref_file_open(vec, instr);
      if (file == null) begin
        tb_exit_status(2);
        $fatal(1, "tb_top: cannot read vector file %s", vec);
      end
      h = mmaref_file_unit(file);
    end else begin
      if (instr == "") begin
        tb_exit_status(2);
        $fatal(1, "tb_top: give +instr=<instruction or configuration> or +vec=<file>");
      end
      h = mmaref_open(instr);
      if (h < 0) begin
        tb_exit_status(2);
        $fatal(1, "tb_top: %s", mmaref_error());
      end
      gen = mmaref_gen_open(h, seed, mode);
      if (gen == null) begin
        tb_exit_status(2);
        $fatal(1, "tb_top: %s", mmaref_error());
      end
    end
    if (mmaref_k(h) != K || mmaref_width(h, 0) != AWD || mmaref_width(h, 1) != BWD ||
        mmaref_width(h, 2) != CWD || mmaref_width(h, 3) != DWD) begin
      tb_exit_status(2);
      $fatal(1, "tb_top: the RTL parameters (K=%0d, widths %0d/%0d/%0d/%0d) do not fit %s",
             K, AWD, BWD, CWD, DWD, mmaref_config(h));
    end
    // the RTL parameters must be those realizing the model's unit
    ndiff = 0;
    chk("A_EB", A_EB); chk("A_MB", A_MB); chk("A_BIAS", A_BIAS); chk("A_SPEC", A_SPEC);
    chk("B_EB", B_EB); chk("B_MB", B_MB); chk("B_BIAS", B_BIAS); chk("B_SPEC", B_SPEC);
    chk("C_EB", C_EB); chk("C_MB", C_MB); chk("C_BIAS", C_BIAS);
    chk("D_EB", D_EB); chk("D_MB", D_MB); chk("D_BIAS", D_BIAS);
    chk("P", P); chk("K", K); chk("L", L); chk("TREE", TREE); chk("CADD", CADD);
    chk("F", F); chk("F2", F2); chk("ALIGN", ALIGN); chk("RHO", RHO);
    chk("ZERO_POS", ZERO_POS); chk("NAN_CANON", NAN_CANON); chk("EZERO_EN", EZERO_EN); chk("EZERO", EZERO);
    chk("POVF", POVF); chk("FTZ", FTZ);
    if (ndiff != 0 && !$test$plusargs("allow_param_diff")) begin
      tb_exit_status(2);
      $fatal(1, "tb_top: the RTL is not the unit %s (+allow_param_diff runs it anyway)", mmaref_config(h));
    end
    nomodel = $test$plusargs("nomodel") ? 1 : 0;
    sb = mmaref_sb_open(h, vec != "" ? vec : mmaref_name(h));
    sbq = nomodel != 0 ? null : sb;
    $display("tb_top: %s [%s] vs RTL K=%0d L=%0d F=%0d TREE=%0d CADD=%0d PIPE=%0d SUM=%0d STAGES=%0d; %s",
             mmaref_name(h), mmaref_config(h), K, L, F, TREE, CADD, PIPE, SUM, STAGES,
             vec != "" ? vec : $sformatf("%0d %s vectors, seed %0d", n_max, mode, seed));
  end

  // ---- driver stage ----------------------------------------------------------
  // A process of its own between the stimulus (whose process calls the DPI
  // layer) and the unit: Verilator then evaluates the unit's logic in a
  // function without DPI calls and keeps its intermediate signals in locals
  // instead of members (about 1.5x faster for the combinational unit).  One
  // cycle more of latency; the scoreboard's queue does not mind.
  always_ff @(posedge clk or negedge rst_n)
    if (!rst_n) v_r <= 1'b0;
    else begin
      v_r <= v_n;
      a_r <= a_n;
      b_r <= b_n;
      c_r <= c_n;
    end

  // ---- stimulus and scoreboard ------------------------------------------------
  longint            issued = 0;
  int                cyc = 0, drain = 0;
  logic              done = 1'b0, replay = 1'b0;
  int                replay_cnt = 0;
  logic [AB-1:0]     a_fail = '0;
  logic [BB-1:0]     b_fail = '0;
  logic [CWD-1:0]    c_fail = '0;

  always_ff @(posedge clk) begin
    longint unsigned cn;
    bit [AB-1:0]     an;
    bit [BB-1:0]     bn;
    int              got, mm;

    cyc <= cyc + 1;
    if (cyc == 1) rst_n <= 1'b1;

    // check the oldest vector in flight against the DUT's d
    if (out_valid && !replay && nomodel == 0) begin
      mm = mmaref_sb_pop_check(sb, 64'(d), 64'(cov));
      if (mm < 0) begin
        tb_exit_status(2);
        $fatal(1, "tb_top: the DUT gave a result for no vector driven");
      end
      if (mm != 0 && want_fst) begin
        void'(mmaref_sb_last_pk(sb, cn, an, bn));
        a_fail <= an;
        b_fail <= bn;
        c_fail <= CWD'(cn);
`ifdef TB_TRACE
        replay <= 1'b1;
`else
        if (mmaref_sb_mismatches(sb) == 1)
          $display("tb_top: +fst needs a binary built with --trace-fst -DTB_TRACE (the tb-broken build is)");
`endif
      end
    end

    // drive the next vector
    got = 0; cn = 0; an = '0; bn = '0;
    if (replay) begin
      if (replay_cnt == 0) begin
        if (tb_trace_open(fst) != 0)
          $display("tb_top: first mismatch replayed into %s", fst);
      end
      replay_cnt <= replay_cnt + 1;
      an = a_fail; bn = b_fail; cn = 64'(c_fail); got = 1;
      if (replay_cnt > LAT + 2) begin
        void'(mmaref_sb_report(sb, quiet));
        tb_exit_status(1);
        $finish;
      end
    end else if (cyc >= 2 && !done) begin   // after reset (rst_n is the DUT's alone: async)
      if (file != null) got = mmaref_file_push_pk(file, sbq, cn, an, bn);
      else if (issued < n_max) got = mmaref_gen_push_pk(gen, sbq, cn, an, bn);
      if (got < 0) begin
        tb_exit_status(2);
        $fatal(1, "tb_top: the stimulus failed (bad vector file, or the scoreboard queue; message above)");
      end
      if (got == 0) done <= 1'b1;
      else issued <= issued + 1;
    end
    v_n <= (got == 1);
    a_n <= an;
    b_n <= bn;
    c_n <= CWD'(cn);

    if (done && !replay) begin
      drain <= drain + 1;
      if (drain == LAT + 1) begin
        if (nomodel != 0) $display("tb_top: +nomodel: %0d vectors driven, none checked", issued);
        tb_vectors(issued);
        if (nomodel != 0) tb_exit_status(0);
        else tb_exit_status(mmaref_sb_report(sb, quiet));
        $finish;
      end
    end
  end
endmodule
