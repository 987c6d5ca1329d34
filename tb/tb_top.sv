// tb_top: Verilator testbench of mma_dpa with the mmaref C model as DPI
// scoreboard (docs/rtl.md).  The clock comes from tb_main.cpp.
//
// Plusargs:
//   +instr=<name|config>  the model to compare with (required unless +vec
//                         names a file whose '# instr:' is used)
//   +vec=<file>           drive a vector file (BRIEF section 6), else
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
  parameter int PIPE     = 0
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
  localparam int LAT = PIPE + 1;          // cycles from driving to checking

  // packed fast path of the DPI layer, at this unit's exact widths
  import "DPI-C" function void mmaref_gen_pk(input chandle g, output longint unsigned c,
                                             output bit [AB-1:0] a, output bit [BB-1:0] b);
  import "DPI-C" function int  mmaref_file_next_pk(input chandle f, output longint unsigned c,
                                                   output bit [AB-1:0] a, output bit [BB-1:0] b,
                                                   output longint unsigned d, output int has_d);
  import "DPI-C" function int  mmaref_sb_check_pk(input chandle sb, input longint unsigned c,
                                                  input bit [AB-1:0] a, input bit [BB-1:0] b,
                                                  input longint unsigned got, input int has_ref,
                                                  input longint unsigned refd, input longint cov);
  import "DPI-C" function void tb_exit_status(input int code);
  import "DPI-C" function void tb_vectors(input longint n);
  import "DPI-C" function int  tb_trace_open(input string path);

  // ---- the unit under test ------------------------------------------------
  logic             rst_n = 1'b0;
  logic             v_r   = 1'b0;
  logic [AB-1:0]    a_r   = '0;
  logic [BB-1:0]    b_r   = '0;
  logic [CWD-1:0]   c_r   = '0;
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
    .EZERO(EZERO), .POVF(POVF), .FTZ(FTZ), .PIPE(PIPE)
  ) dut (
    .clk(clk), .rst_n(rst_n), .in_valid(v_r), .a(a_r), .b(b_r), .c(c_r),
    .out_valid(out_valid), .d(d), .cov(cov));

  // ---- configuration --------------------------------------------------------
  string            instr, vec, mode, fst;
  longint unsigned  seed;
  longint           n_max;
  int               quiet, h, ndiff, nomodel;
  bit               want_fst;
  chandle           gen, file, sb;

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
    $display("tb_top: %s [%s] vs RTL K=%0d L=%0d F=%0d TREE=%0d CADD=%0d PIPE=%0d; %s",
             mmaref_name(h), mmaref_config(h), K, L, F, TREE, CADD, PIPE,
             vec != "" ? vec : $sformatf("%0d %s vectors, seed %0d", n_max, mode, seed));
  end

  // ---- stimulus, delay line, scoreboard -----------------------------------
  logic [AB-1:0]     a_q  [LAT];
  logic [BB-1:0]     b_q  [LAT];
  logic [CWD-1:0]    c_q  [LAT];
  longint unsigned   dr_q [LAT];
  logic              hr_q [LAT];

  longint            issued = 0;
  int                cyc = 0, drain = 0;
  logic              done = 1'b0, replay = 1'b0;
  int                replay_cnt = 0;
  logic [AB-1:0]     a_fail = '0;
  logic [BB-1:0]     b_fail = '0;
  logic [CWD-1:0]    c_fail = '0;

  always_ff @(posedge clk) begin
    longint unsigned cn, dn;
    bit [AB-1:0]     an;
    bit [BB-1:0]     bn;
    int              got, hn, mm;

    cyc <= cyc + 1;
    if (cyc == 1) rst_n <= 1'b1;

    // check the vector driven LAT cycles ago
    if (out_valid && !replay && nomodel == 0) begin
      mm = mmaref_sb_check_pk(sb, 64'(c_q[LAT-1]), a_q[LAT-1], b_q[LAT-1], 64'(d),
                              32'(hr_q[LAT-1]), dr_q[LAT-1], 64'(cov));
      if (mm != 0 && want_fst) begin
        a_fail <= a_q[LAT-1];
        b_fail <= b_q[LAT-1];
        c_fail <= c_q[LAT-1];
`ifdef TB_TRACE
        replay <= 1'b1;
`else
        if (mmaref_sb_mismatches(sb) == 1)
          $display("tb_top: +fst needs a binary built with --trace-fst -DTB_TRACE (the tb-broken build is)");
`endif
      end
    end

    // drive the next vector
    got = 0; hn = 0; cn = 0; dn = 0; an = '0; bn = '0;
    if (replay) begin
      if (replay_cnt == 0) begin
        if (tb_trace_open(fst) != 0)
          $display("tb_top: first mismatch replayed into %s", fst);
      end
      replay_cnt <= replay_cnt + 1;
      an = a_fail; bn = b_fail; cn = 64'(c_fail); got = 1;
      if (replay_cnt > LAT + 2) begin
        mmaref_sb_report(sb, quiet);
        tb_exit_status(1);
        $finish;
      end
    end else if (rst_n && !done) begin
      if (file != null) begin
        got = mmaref_file_next_pk(file, cn, an, bn, dn, hn);
        if (got < 0) begin
          tb_exit_status(2);
          $fatal(1, "tb_top: bad vector file");
        end
      end else if (issued < n_max) begin
        mmaref_gen_pk(gen, cn, an, bn);
        got = 1;
      end
      if (got == 0) done <= 1'b1;
      else issued <= issued + 1;
    end
    v_r <= (got == 1);
    a_r <= an;
    b_r <= bn;
    c_r <= CWD'(cn);
    a_q[0]  <= an;
    b_q[0]  <= bn;
    c_q[0]  <= CWD'(cn);
    dr_q[0] <= dn;
    hr_q[0] <= (hn != 0);
    for (int i = 1; i < LAT; i++) begin
      a_q[i]  <= a_q[i-1];
      b_q[i]  <= b_q[i-1];
      c_q[i]  <= c_q[i-1];
      dr_q[i] <= dr_q[i-1];
      hr_q[i] <= hr_q[i-1];
    end

    if (done && !replay) begin
      drain <= drain + 1;
      if (drain == LAT + 1) begin
        if (nomodel != 0) $display("tb_top: +nomodel: %0d vectors driven, none checked", issued);
        tb_vectors(issued);
        mmaref_sb_report(sb, quiet);
        tb_exit_status(mmaref_sb_mismatches(sb) != 0 ? 1 : 0);
        $finish;
      end
    end
  end
endmodule
