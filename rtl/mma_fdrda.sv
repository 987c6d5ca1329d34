// mma_fdrda: one AMD CDNA3 step (the C model's alg_amd.c step()):
//   FDRDA  (TREE=0): the L products are fused among themselves (F bits, cut
//                    toward zero, emax over the nonzero products);
//   GFDRDA (TREE=1): the even-index and the odd-index products are fused
//                    apart that way, and the two group sums are aligned to
//                    the larger group exponent and cut down (toward -inf) at
//                    F bits, then added;
// then the dot part (exponent e_dot, not renormalized) and c are aligned to
// emax = max(e_dot, e_c) with round-down: the dot part at F2+1 fraction bits,
// c at F bits; with CADD=2 (RDZ) c is dropped when e_c < emax - F - 1.  The
// sum is rounded down to F2 fraction bits, then rounded (RHO) to P bits.
// The groups use the same blocks as mma_fda: per product unpack and exact
// multiply, trees of mma_emax and mma_add nodes around per-product mma_align
// (SUM > 0: mma_csa_tree for each group's sum).
//
// Pipeline (STAGES, docs/rtl.md): register cuts, in the order they are
// added, A after the alignment of the products (STAGES >= 1), S after the
// group sums (>= 2), P after the products and the groups' emax (>= 3), R
// after the c step's addition, before the two roundings (>= 4).
module mma_fdrda #(
  parameter int A_EB = 4, parameter int A_MB = 3, parameter int A_BIAS = 8,   parameter int A_SPEC = mma_pkg::MMA_SPEC_FNUZ,
  parameter int B_EB = 4, parameter int B_MB = 3, parameter int B_BIAS = 8,   parameter int B_SPEC = mma_pkg::MMA_SPEC_FNUZ,
  parameter int C_EB = 8, parameter int C_MB = 23, parameter int C_BIAS = 127,
  parameter int D_EB = 8, parameter int D_MB = 23, parameter int D_BIAS = 127,
  parameter int P        = 23,
  parameter int L        = 16,
  parameter int TREE     = mma_pkg::MMA_TREE_EVENODD,
  parameter int CADD     = mma_pkg::MMA_CADD_RDZ,
  parameter int F        = 24,
  parameter int F2       = 31,
  parameter int RHO      = mma_pkg::MMA_RNE,
  parameter int ZERO_POS = 1,
  parameter int NAN_CANON = 1,
  parameter int POVF     = 1,
  parameter int FTZ      = 0,
  parameter int SUM      = mma_pkg::MMA_SUM_ADD,
  parameter int STAGES   = 0,
  parameter int EW       = 11,
  localparam int AWD = 1 + A_EB + A_MB,
  localparam int BWD = 1 + B_EB + B_MB,
  localparam int CWD = 1 + C_EB + C_MB,
  localparam int DWD = 1 + D_EB + D_MB
) (
  input  logic              clk,        // used when STAGES > 0
  input  logic [L*AWD-1:0]  a,
  input  logic [L*BWD-1:0]  b,
  input  logic [CWD-1:0]    c,
  output logic [DWD-1:0]    d,
  output logic [31:0]       cov
);
  if (TREE != mma_pkg::MMA_TREE_FUSED && TREE != mma_pkg::MMA_TREE_EVENODD) begin : g_e_tree $error("mma_fdrda: parameter TREE must be 0 (fused) or 1 (evenodd)"); end
  if (CADD != mma_pkg::MMA_CADD_RD && CADD != mma_pkg::MMA_CADD_RDZ) begin : g_e_cadd $error("mma_fdrda: parameter CADD must be 1 (RD) or 2 (RDZ)"); end
  if (F2 < F)                   begin : g_e_f2   $error("mma_fdrda: parameter F2 must be at least F"); end
  if (TREE == mma_pkg::MMA_TREE_EVENODD && (L % 2) != 0) begin : g_e_l   $error("mma_fdrda: parameter L must be even for TREE=1 (evenodd)"); end
  if (SUM < mma_pkg::MMA_SUM_ADD || SUM > mma_pkg::MMA_SUM_CSA42) begin : g_e_sum  $error("mma_fdrda: parameter SUM must be 0, 1 or 2"); end
  if (STAGES < 0 || STAGES > 4) begin : g_e_stg  $error("mma_fdrda: parameter STAGES must be 0..4"); end

  localparam int PF  = A_MB + B_MB;
  localparam int TW  = PF + 2;
  localparam int AW  = 2 + F + 1;                   // aligned product width
  localparam int G   = (TREE == mma_pkg::MMA_TREE_EVENODD) ? 2 : 1;        // product groups
  localparam int NG  = L / G;                       // products per group
  localparam int LG  = (NG > 1) ? $clog2(NG) : 0;   // group tree depth
  localparam int GW  = AW + LG;                     // group sum width
  localparam int DW0 = (TREE == mma_pkg::MMA_TREE_EVENODD) ? GW + 1 : GW;  // dot sum width (F fraction bits)
  localparam int G2  = F2 + 1 - F;                  // extra fraction bits of the c step
  localparam int XW  = DW0 + G2;                    // dot at F2+1 fraction bits
  localparam int CW2 = F + 3;                       // c cut at F bits: |c| < 2, signed
  localparam int CS0 = C_MB + 2 + ((F > C_MB) ? F - C_MB : 0);
  localparam int CSW = (CS0 > CW2) ? CS0 : CW2;     // signed c before the cut
  localparam int SW2 = ((XW > CW2 + G2) ? XW : CW2 + G2) + 1;
  localparam int LW  = EW + 3;
  localparam logic [EW-1:0] FLIP = {1'b1, {(EW-1){1'b0}}};   // offset form
  // the pipeline cuts
  localparam int CUT_A = (STAGES >= 1) ? 1 : 0;
  localparam int CUT_S = (STAGES >= 2) ? 1 : 0;
  localparam int CUT_P = (STAGES >= 3) ? 1 : 0;
  localparam int CUT_R = (STAGES >= 4) ? 1 : 0;
  localparam int CRW   = 1 + 1 + EW + C_MB + 1;         // the c record: sign, zero, exponent, significand

  logic [L-1:0] p_sgn, p_inf, p_nan, zinf, nan_in;

  // ---- products --------------------------------------------------------
  for (genvar k = 0; k < L; k++) begin : g_p
    logic                 zero, az, bz;
    logic signed [EW-1:0] pe;
    logic [PF+1:0]        pm;
    logic [EW-1:0]        ue;
    mma_prod #(.A_EB(A_EB), .A_MB(A_MB), .A_BIAS(A_BIAS), .A_SPEC(A_SPEC),
               .B_EB(B_EB), .B_MB(B_MB), .B_BIAS(B_BIAS), .B_SPEC(B_SPEC),
               .FTZ(FTZ), .POVF(POVF), .EW(EW)) u_p (
      .a(a[k*AWD +: AWD]), .b(b[k*BWD +: BWD]),
      .p_sgn(p_sgn[k]), .p_zero(zero), .p_inf(p_inf[k]), .p_nan(p_nan[k]), .p_exp(pe), .p_sig(pm),
      .a_zero(az), .b_zero(bz), .zinf(zinf[k]), .nan_in(nan_in[k]));
    assign ue        = pe ^ FLIP;
  end

  // ---- c -----------------------------------------------------------------
  logic                 cs, cz, ci, cn;
  logic signed [EW-1:0] ce;
  logic [C_MB:0]        cm;
  mma_unpack #(.EB(C_EB), .MB(C_MB), .BIAS(C_BIAS), .SPEC(mma_pkg::MMA_SPEC_IEEE), .FTZ(FTZ), .EW(EW)) u_uc (
    .x(c), .sgn(cs), .zero(cz), .inf(ci), .nan(cn), .exp(ce), .sig(cm));

  // ---- specials ------------------------------------------------------------
  logic sp_nan0, sp_inf0, sp_neg0, sp_conf0;
  mma_special u_sp (
    .any_nan(cn | (|p_nan)), .any_pinf((ci & ~cs) | (|(p_inf & ~p_sgn))),
    .any_ninf((ci & cs) | (|(p_inf & p_sgn))),
    .nan(sp_nan0), .inf(sp_inf0), .inf_neg(sp_neg0), .cov_conflict(sp_conf0));

  // what crosses the cuts beside the products: c, the specials and two
  // coverage bits (NaN operand, 0*Inf), through cuts P, A and S
  logic [CRW+5:0] x0, xp, xa, xs;
  assign x0 = {cs, cz, ce, cm, sp_nan0, sp_inf0, sp_neg0, sp_conf0, |nan_in | cn, |zinf};
  if (CUT_P != 0) begin : g_xp
    mma_reg #(.W(CRW + 6)) u_xp (.clk(clk), .d(x0), .q(xp));
  end else begin : g_xp_w
    assign xp = x0;
  end
  if (CUT_A != 0) begin : g_xa
    mma_reg #(.W(CRW + 6)) u_xa (.clk(clk), .d(xp), .q(xa));
  end else begin : g_xa_w
    assign xa = xp;
  end
  if (CUT_S != 0) begin : g_xs
    mma_reg #(.W(CRW + 6)) u_xs (.clk(clk), .d(xa), .q(xs));
  end else begin : g_xs_w
    assign xs = xa;
  end

  // ---- groups of products fused apart (F bits, cut toward zero) -----------
  // group g holds the products k = g + G*j; TREE=0: one group of all L
  for (genvar g = 0; g < G; g++) begin : g_g
    // maximum exponent of the group's nonzero products
    logic [NG-1:0]    em_any;
    logic [NG*EW-1:0] em_e;
    logic [EW-1:0]    em_max;
    logic             em_an, em_fl;
    for (genvar j = 0; j < NG; j++) begin : g_eml
      assign em_any[j]        = ~g_p[g + G*j].zero;
      assign em_e[j*EW +: EW] = g_p[g + G*j].ue;
    end
    mma_emax_tree #(.N(NG), .EW(EW), .FW(1)) u_em (
      .t_any(em_any), .t_e(em_e), .t_fl('0), .any(em_an), .e(em_max), .fl(em_fl));
    // cut P: the products and the group's emax; alignment; cut A
    logic [EW-1:0] uemax_p, uemax_a, uemax_s;
    logic          any_p, any_a, any_s;
    if (CUT_P != 0) begin : g_rp
      mma_reg #(.W(EW + 1)) u_rp (
        .clk(clk),
        .d({em_max, em_an}),
        .q({uemax_p, any_p}));
    end else begin : g_rp_w
      assign {uemax_p, any_p} = {em_max, em_an};
    end
    if (CUT_A != 0) begin : g_ra
      mma_reg #(.W(EW + 1)) u_ra (.clk(clk), .d({uemax_p, any_p}), .q({uemax_a, any_a}));
    end else begin : g_ra_w
      assign {uemax_a, any_a} = {uemax_p, any_p};
    end
    for (genvar j = 0; j < NG; j++) begin : g_al
      logic                 sgn, zero, cut0, cut;
      logic [EW-1:0]        ue, nmn;
      logic [TW-1:0]        pm;
      logic signed [AW-1:0] al, s;
      if (CUT_P != 0) begin : g_rp
        mma_reg #(.W(2 + EW + TW)) u_r (
          .clk(clk), .d({p_sgn[g + G*j], g_p[g + G*j].zero, g_p[g + G*j].ue, g_p[g + G*j].pm}),
          .q({sgn, zero, ue, pm}));
      end else begin : g_wp     // (field by field: Verilator keeps a concatenation)
        assign sgn  = p_sgn[g + G*j];
        assign zero = g_p[g + G*j].zero;
        assign ue   = g_p[g + G*j].ue;
        assign pm   = g_p[g + G*j].pm;
      end
      mma_align #(.EW(EW), .TW(TW), .TF(PF), .F(F), .CUT(mma_pkg::MMA_RZ)) u_al (
        .uemax(uemax_p), .sgn(sgn), .zero(zero), .uexp(ue), .sig(pm), .al(al), .cut(cut0));
      logic nz;
      if (CUT_A != 0) begin : g_ra
        mma_reg #(.W(AW + 1 + 1 + EW)) u_r (
          .clk(clk), .d({al, cut0, ~zero, ~ue}), .q({s, cut, nz, nmn}));
      end else begin : g_wa
        assign s   = al;
        assign cut = cut0;
        assign nz  = ~zero;
        assign nmn = ~ue;
      end
    end
    // exact sum (mma_sum_tree); beside it the bits cut and the smallest
    // exponent of a nonzero product (coverage: the max of the complements
    // on an mma_emax_tree)
    logic [NG*AW-1:0] x;
    logic [NG-1:0]    x_nz, x_cut;
    logic [NG*EW-1:0] x_nmn;
    for (genvar j = 0; j < NG; j++) begin : g_x
      assign x[j*AW +: AW]     = g_al[j].s;
      assign x_nz[j]           = g_al[j].nz;
      assign x_cut[j]          = g_al[j].cut;
      assign x_nmn[j*EW +: EW] = g_al[j].nmn;
    end
    logic signed [GW-1:0] s0;
    logic [EW-1:0]        nmn0;
    logic                 cut0, nzany;
    mma_sum_tree #(.N(NG), .W(AW), .SUM(SUM)) u_sum (.x(x), .s(s0));
    mma_emax_tree #(.N(NG), .EW(EW), .FW(1)) u_mn (
      .t_any(x_nz), .t_e(x_nmn), .t_fl(x_cut), .any(nzany), .e(nmn0), .fl(cut0));
    // cut S: the group's sum
    logic signed [GW-1:0] s;
    logic [EW-1:0]        nmn;
    logic                 lost;   // bits cut in alignment
    if (CUT_S != 0) begin : g_rs
      mma_reg #(.W(GW + EW + 1 + EW + 1)) u_rs (
        .clk(clk),
        .d({s0, nmn0, cut0, uemax_a, any_a}),
        .q({s, nmn, lost, uemax_s, any_s}));
    end else begin : g_rs_w
      assign {s, nmn, lost, uemax_s, any_s} = {s0, nmn0, cut0, uemax_a, any_a};
    end
    logic signed [EW-1:0] emax;
    logic                 any;
    logic [EW-1:0]        dmx;
    logic [7:0]           dm;      // largest alignment shift of a nonzero product
    assign any  = any_s;
    assign emax = $signed(uemax_s ^ FLIP);
    assign dmx  = uemax_s + nmn + EW'(1);
    if (EW > 8) begin : g_dsat      // narrow exponents cannot exceed 255
      assign dm = any ? ((dmx > EW'(255)) ? 8'd255 : dmx[7:0]) : 8'd0;
    end else begin : g_dnarrow
      assign dm = any ? 8'(dmx) : 8'd0;
    end
  end

  // c, the specials and the coverage bits after cut S
  logic                 cs_s, cz_s;
  logic signed [EW-1:0] ce_s;
  logic [C_MB:0]        cm_s;
  logic                 sp_nan, sp_inf, sp_neg, sp_conf, cv_nan, cv_zinf;
  logic                 sp_nan_s, sp_inf_s, sp_neg_s, sp_conf_s, cv_nan_s, cv_zinf_s;
  assign {cs_s, cz_s, ce_s, cm_s, sp_nan_s, sp_inf_s, sp_neg_s, sp_conf_s, cv_nan_s, cv_zinf_s} = xs;

  // ---- the dot part: value = sdot * 2^(edot - F) -----------------------------
  logic signed [EW-1:0]  edot;
  logic                  dany, lost;
  logic signed [DW0-1:0] sdot;
  logic [7:0]            dmax;

  if (G == 1) begin : g_fused         // (G, not TREE: a refused TREE stops at its $error)
    assign edot = g_g[0].emax;
    assign dany = g_g[0].any;
    assign sdot = g_g[0].s;
    assign dmax = g_g[0].dm;
    assign lost = g_g[0].lost;
  end else begin : g_evenodd
    // join: both group sums cut down (floor) at F bits relative to the
    // larger group exponent
    logic signed [EW-1:0] e_e, e_o;
    logic                 any_e, any_o, e_big;
    logic signed [GW-1:0] s_e, s_o;
    logic [EW:0]          de, d_o;
    logic signed [GW-1:0] fe, fo, se_sh, so_sh;
    logic [7:0]           dm_e, dm_o;
    assign e_e   = g_g[0].emax;
    assign e_o   = g_g[1].emax;
    assign any_e = g_g[0].any;
    assign any_o = g_g[1].any;
    assign s_e   = g_g[0].s;
    assign s_o   = g_g[1].s;
    assign dm_e  = g_g[0].dm;
    assign dm_o  = g_g[1].dm;
    assign e_big = any_e & (~any_o | (e_e >= e_o));
    assign edot  = e_big ? e_e : e_o;
    assign dany  = any_e | any_o;
    assign de    = any_e ? (EW+1)'((EW+1)'(edot) - (EW+1)'(e_e)) : '0;
    assign d_o   = any_o ? (EW+1)'((EW+1)'(edot) - (EW+1)'(e_o)) : '0;
    // (the shifts stand alone: inside a ?: with an unsigned branch, >>> would
    // be a logical shift)
    assign se_sh = s_e >>> de;
    assign so_sh = s_o >>> d_o;
    assign fe    = (de  >= (EW+1)'(GW)) ? $signed({GW{s_e[GW-1]}}) : se_sh;
    assign fo    = (d_o >= (EW+1)'(GW)) ? $signed({GW{s_o[GW-1]}}) : so_sh;
    assign sdot  = DW0'(fe) + DW0'(fo);
    assign dmax  = (dm_e > dm_o) ? dm_e : dm_o;
    assign lost  = g_g[0].lost | g_g[1].lost | (|(s_e & ~({GW{1'b1}} << de))) | (|(s_o & ~({GW{1'b1}} << d_o)));
  end

  // ---- the c step ------------------------------------------------------------
  logic [EW:0]          dd, dc;
  logic signed [XW-1:0] xdot, fdot, xdot_sh;
  logic signed [CSW-1:0] xc;
  logic signed [CW2-1:0] fc;
  logic signed [SW2-1:0] s20;
  logic signed [EW-1:0]  em20;
  logic                  drop0;

  assign em20 = (dany && edot > ce_s) ? edot : ce_s;
  assign dd   = (EW+1)'((EW+1)'(em20) - (EW+1)'(edot));
  assign dc   = (EW+1)'((EW+1)'(em20) - (EW+1)'(ce_s));
  // dot part: F2+1 fraction bits relative to 2^em2, floor
  assign xdot = $signed({sdot, {G2{1'b0}}});
  assign xdot_sh = xdot >>> dd;
  assign fdot = ~dany ? '0 : ((dd >= (EW+1)'(XW)) ? $signed({XW{xdot[XW-1]}}) : xdot_sh);
  // c: F fraction bits relative to 2^em2, floor
  localparam int CLS = (F > C_MB) ? F - C_MB : 0;
  localparam int CRS = (C_MB > F) ? C_MB - F : 0;
  logic [EW+1:0] csh;
  logic signed [CSW-1:0] xcs, xcs_sh;
  assign xc   = cs_s ? -(CSW'({1'b0, cm_s})) : CSW'({1'b0, cm_s});
  assign xcs  = xc <<< CLS;
  assign csh  = (EW+2)'(dc) + (EW+2)'(CRS);
  assign drop0 = cz_s | ((CADD == mma_pkg::MMA_CADD_RDZ) && ((EW+2)'(ce_s) < (EW+2)'(em20) - (EW+2)'(F + 1)));
  assign xcs_sh = xcs >>> csh;
  assign fc   = drop0 ? '0 : ((csh >= (EW+2)'(CSW)) ? $signed({CW2{xcs[CSW-1]}}) : CW2'(xcs_sh));
  assign s20  = SW2'(fdot) + (SW2'(fc) <<< G2);

  // ---- cut R: the sum of the c step ------------------------------------------
  logic signed [SW2-1:0] s2;
  logic signed [EW-1:0]  em2;
  logic                  drop, cz_r, dany_r, lost_r;
  logic [7:0]            dmax_r;
  if (CUT_R != 0) begin : g_rr
    mma_reg #(.W(SW2 + EW + 4 + 8 + 6)) u_rr (
      .clk(clk),
      .d({s20, em20, drop0, cz_s, dany, lost, dmax, sp_nan_s, sp_inf_s, sp_neg_s, sp_conf_s, cv_nan_s, cv_zinf_s}),
      .q({s2,  em2,  drop,  cz_r, dany_r, lost_r, dmax_r, sp_nan, sp_inf, sp_neg, sp_conf, cv_nan, cv_zinf}));
  end else begin : g_rr_w
    assign {s2,  em2,  drop,  cz_r, dany_r, lost_r, dmax_r, sp_nan, sp_inf, sp_neg, sp_conf, cv_nan, cv_zinf}
         = {s20, em20, drop0, cz_s, dany, lost, dmax, sp_nan_s, sp_inf_s, sp_neg_s, sp_conf_s, cv_nan_s, cv_zinf_s};
  end

  // ---- round down to F2 bits, then RHO to P bits, pack -------------------
  logic                 neg;
  logic [SW2-1:0]       mag;
  logic signed [LW-1:0] lsb2, ql1, ql2, lead1, lead2;
  logic [F2+1:0]        q1;
  logic [P+1:0]         q2;
  logic                 inx1, inx2, c_ovf, c_sub, c_zero;
  assign neg  = s2[SW2-1];
  assign mag  = neg ? SW2'(-s2) : SW2'(s2);
  assign lsb2 = LW'(em2) - LW'(F2 + 1);

  mma_round #(.MW(SW2), .LW(LW), .P(F2), .EMIN(1 - D_BIAS), .RHO(mma_pkg::MMA_RD)) u_rnd1 (
    .neg(neg), .mag(mag), .lsb(lsb2), .q(q1), .qlsb(ql1), .inexact(inx1), .lead(lead1));
  mma_round #(.MW(F2 + 2), .LW(LW), .P(P), .EMIN(1 - D_BIAS), .RHO(RHO)) u_rnd2 (
    .neg(neg), .mag(q1), .lsb(ql1), .q(q2), .qlsb(ql2), .inexact(inx2), .lead(lead2));
  mma_pack #(.EB(D_EB), .MB(D_MB), .BIAS(D_BIAS), .P(P), .RHO(RHO),
             .ZERO_POS(ZERO_POS), .NAN_CANON(NAN_CANON), .LW(LW)) u_pk (
    .nan(sp_nan), .inf(sp_inf), .inf_neg(sp_neg), .neg(neg), .q(q2), .qlsb(ql2),
    .y(d), .cov_ovf(c_ovf), .cov_sub(c_sub), .cov_zero(c_zero));

  // ---- coverage observation (see docs/rtl.md) ----------------------------
  logic fin, nz;
  logic signed [LW-1:0] rel;
  assign fin = ~sp_nan & ~sp_inf;
  assign nz  = mag != '0;
  assign rel = lead1 - LW'(em2);
  assign cov[7:0]   = dmax_r;
  assign cov[15:8]  = (fin & nz) ? ((rel > 127) ? 8'sd127 : (rel < -128) ? -8'sd128 : rel[7:0]) : 8'd0;
  assign cov[16]    = cv_nan;
  assign cov[17]    = cv_zinf;
  assign cov[18]    = sp_conf;
  assign cov[19]    = sp_inf;
  assign cov[20]    = sp_nan;
  assign cov[21]    = fin & (lost_r | (drop & ~cz_r));
  assign cov[22]    = fin & (dany_r | ~cz_r) & ~nz;
  assign cov[23]    = fin & ~dany_r & cz_r;
  assign cov[24]    = fin & nz & (inx1 | inx2);
  assign cov[25]    = fin & nz & q2[P+1];
  assign cov[26]    = c_sub;
  assign cov[27]    = c_ovf;
  assign cov[28]    = fin & nz & c_zero;
  assign cov[31:29] = '0;
endmodule
