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
module mma_fdrda #(
  parameter int A_EB = 4, parameter int A_MB = 3, parameter int A_BIAS = 8,   parameter int A_SPEC = 2,
  parameter int B_EB = 4, parameter int B_MB = 3, parameter int B_BIAS = 8,   parameter int B_SPEC = 2,
  parameter int C_EB = 8, parameter int C_MB = 23, parameter int C_BIAS = 127,
  parameter int D_EB = 8, parameter int D_MB = 23, parameter int D_BIAS = 127,
  parameter int P        = 23,
  parameter int L        = 16,
  parameter int TREE     = 1,
  parameter int CADD     = 2,
  parameter int F        = 24,
  parameter int F2       = 31,
  parameter int RHO      = 1,
  parameter int ZERO_POS = 1,
  parameter int POVF     = 1,
  parameter int FTZ      = 0,
  parameter int EW       = 11,
  localparam int AWD = 1 + A_EB + A_MB,
  localparam int BWD = 1 + B_EB + B_MB,
  localparam int CWD = 1 + C_EB + C_MB,
  localparam int DWD = 1 + D_EB + D_MB
) (
  input  logic [L*AWD-1:0]  a,
  input  logic [L*BWD-1:0]  b,
  input  logic [CWD-1:0]    c,
  output logic [DWD-1:0]    d,
  output logic [31:0]       cov
);
  if (TREE != 0 && TREE != 1)   begin : g_e_tree $error("mma_fdrda: parameter TREE must be 0 (fused) or 1 (evenodd)"); end
  if (CADD != 1 && CADD != 2)   begin : g_e_cadd $error("mma_fdrda: parameter CADD must be 1 (RD) or 2 (RDZ)"); end
  if (F2 < F)                   begin : g_e_f2   $error("mma_fdrda: parameter F2 must be at least F"); end
  if (TREE == 1 && (L % 2) != 0) begin : g_e_l   $error("mma_fdrda: parameter L must be even for TREE=1 (evenodd)"); end

  localparam int PF  = A_MB + B_MB;
  localparam int TW  = PF + 2;
  localparam int AW  = 2 + F + 1;                   // aligned product width
  localparam int NG  = (TREE == 1) ? L / 2 : L;     // products per group
  localparam int GW  = AW + $clog2(NG);             // group sum width
  localparam int DW0 = (TREE == 1) ? GW + 1 : GW;   // dot sum width (F fraction bits)
  localparam int G   = F2 + 1 - F;                  // extra fraction bits of the c step
  localparam int XW  = DW0 + G;                     // dot at F2+1 fraction bits
  localparam int CW2 = F + 3;                       // c cut at F bits: |c| < 2, signed
  localparam int CS0 = C_MB + 2 + ((F > C_MB) ? F - C_MB : 0);
  localparam int CSW = (CS0 > CW2) ? CS0 : CW2;     // signed c before the cut
  localparam int SW2 = ((XW > CW2 + G) ? XW : CW2 + G) + 1;
  localparam int LW  = EW + 3;

  logic [L-1:0]     p_sgn, p_zero, p_inf, p_nan, zinf, nan_in;
  logic [L*EW-1:0]  p_exp;
  logic [L*TW-1:0]  p_sig;

  // ---- products --------------------------------------------------------
  for (genvar k = 0; k < L; k++) begin : g_p
    logic                 as, az, ai, an, bs, bz, bi, bn;
    logic signed [EW-1:0] ae, be, pe;
    logic [A_MB:0]        am;
    logic [B_MB:0]        bm;
    logic [PF+1:0]        pm;
    mma_unpack #(.EB(A_EB), .MB(A_MB), .BIAS(A_BIAS), .SPEC(A_SPEC), .FTZ(FTZ), .EW(EW)) u_ua (
      .x(a[k*AWD +: AWD]), .sgn(as), .zero(az), .inf(ai), .nan(an), .exp(ae), .sig(am));
    mma_unpack #(.EB(B_EB), .MB(B_MB), .BIAS(B_BIAS), .SPEC(B_SPEC), .FTZ(FTZ), .EW(EW)) u_ub (
      .x(b[k*BWD +: BWD]), .sgn(bs), .zero(bz), .inf(bi), .nan(bn), .exp(be), .sig(bm));
    mma_mul #(.MBA(A_MB), .MBB(B_MB), .EW(EW), .POVF(POVF)) u_mul (
      .a_sgn(as), .a_zero(az), .a_inf(ai), .a_nan(an), .a_exp(ae), .a_sig(am),
      .b_sgn(bs), .b_zero(bz), .b_inf(bi), .b_nan(bn), .b_exp(be), .b_sig(bm),
      .p_sgn(p_sgn[k]), .p_zero(p_zero[k]), .p_inf(p_inf[k]), .p_nan(p_nan[k]),
      .p_exp(pe), .p_sig(pm));
    assign p_exp[k*EW +: EW] = pe;
    assign p_sig[k*TW +: TW] = pm;
    assign zinf[k]   = (ai & bz) | (bi & az);
    assign nan_in[k] = an | bn;
  end

  // ---- c -----------------------------------------------------------------
  logic                 cs, cz, ci, cn;
  logic signed [EW-1:0] ce;
  logic [C_MB:0]        cm;
  mma_unpack #(.EB(C_EB), .MB(C_MB), .BIAS(C_BIAS), .SPEC(0), .FTZ(FTZ), .EW(EW)) u_uc (
    .x(c), .sgn(cs), .zero(cz), .inf(ci), .nan(cn), .exp(ce), .sig(cm));

  // ---- specials ------------------------------------------------------------
  logic sp_nan, sp_inf, sp_neg, sp_conf;
  mma_special #(.N(L + 1)) u_sp (
    .t_nan({cn, p_nan}), .t_inf({ci, p_inf}), .t_sgn({cs, p_sgn}),
    .nan(sp_nan), .inf(sp_inf), .inf_neg(sp_neg), .cov_conflict(sp_conf));

  // ---- the dot part: value = sdot * 2^(edot - F) -----------------------------
  logic signed [EW-1:0]  edot;
  logic                  dany, lost;
  logic signed [DW0-1:0] sdot;
  logic [7:0]            dmax;

  if (TREE == 0) begin : g_fused
    logic [L*AW-1:0] al;
    logic signed [GW-1:0] s;
    mma_align #(.N(L), .EW(EW), .TW(TW), .TF(PF), .F(F), .CUT(0), .EZERO_EN(0), .EZERO(0)) u_al (
      .t_sgn(p_sgn), .t_zero(p_zero), .t_exp(p_exp), .t_sig(p_sig),
      .emax(edot), .any(dany), .t_al(al), .cov_dmax(dmax), .cov_lost(lost));
    mma_add #(.N(L), .W(AW)) u_add (.t(al), .s(s));
    assign sdot = s;
  end else begin : g_evenodd
    logic [NG-1:0]    es, ez, os, oz;
    logic [NG*EW-1:0] ee, oe;
    logic [NG*TW-1:0] em, om;
    for (genvar j = 0; j < NG; j++) begin : g_split
      assign es[j] = p_sgn[2*j];         assign os[j] = p_sgn[2*j+1];
      assign ez[j] = p_zero[2*j];        assign oz[j] = p_zero[2*j+1];
      assign ee[j*EW +: EW] = p_exp[(2*j)*EW +: EW];
      assign oe[j*EW +: EW] = p_exp[(2*j+1)*EW +: EW];
      assign em[j*TW +: TW] = p_sig[(2*j)*TW +: TW];
      assign om[j*TW +: TW] = p_sig[(2*j+1)*TW +: TW];
    end
    logic signed [EW-1:0] e_e, e_o;
    logic                 any_e, any_o, lost_e, lost_o;
    logic [NG*AW-1:0]     al_e, al_o;
    logic [7:0]           dm_e, dm_o;
    logic signed [GW-1:0] s_e, s_o;
    mma_align #(.N(NG), .EW(EW), .TW(TW), .TF(PF), .F(F), .CUT(0), .EZERO_EN(0), .EZERO(0)) u_al_e (
      .t_sgn(es), .t_zero(ez), .t_exp(ee), .t_sig(em),
      .emax(e_e), .any(any_e), .t_al(al_e), .cov_dmax(dm_e), .cov_lost(lost_e));
    mma_align #(.N(NG), .EW(EW), .TW(TW), .TF(PF), .F(F), .CUT(0), .EZERO_EN(0), .EZERO(0)) u_al_o (
      .t_sgn(os), .t_zero(oz), .t_exp(oe), .t_sig(om),
      .emax(e_o), .any(any_o), .t_al(al_o), .cov_dmax(dm_o), .cov_lost(lost_o));
    mma_add #(.N(NG), .W(AW)) u_add_e (.t(al_e), .s(s_e));
    mma_add #(.N(NG), .W(AW)) u_add_o (.t(al_o), .s(s_o));

    // join: both group sums cut down (floor) at F bits relative to the
    // larger group exponent
    logic                 e_big;
    logic [EW:0]          de, d_o;
    logic signed [GW-1:0] fe, fo, se_sh, so_sh;
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
    assign lost  = lost_e | lost_o | (|(s_e & ~({GW{1'b1}} << de))) | (|(s_o & ~({GW{1'b1}} << d_o)));
  end

  // ---- the c step ------------------------------------------------------------
  logic signed [EW-1:0] em2;
  logic [EW:0]          dd, dc;
  logic signed [XW-1:0] xdot, fdot, xdot_sh;
  logic signed [CSW-1:0] xc;
  logic signed [CW2-1:0] fc;
  logic                 drop;
  logic signed [SW2-1:0] s2;

  assign em2  = (dany && edot > ce) ? edot : ce;
  assign dd   = (EW+1)'((EW+1)'(em2) - (EW+1)'(edot));
  assign dc   = (EW+1)'((EW+1)'(em2) - (EW+1)'(ce));
  // dot part: F2+1 fraction bits relative to 2^em2, floor
  assign xdot = $signed({sdot, {G{1'b0}}});
  assign xdot_sh = xdot >>> dd;
  assign fdot = ~dany ? '0 : ((dd >= (EW+1)'(XW)) ? $signed({XW{xdot[XW-1]}}) : xdot_sh);
  // c: F fraction bits relative to 2^em2, floor
  localparam int CLS = (F > C_MB) ? F - C_MB : 0;
  localparam int CRS = (C_MB > F) ? C_MB - F : 0;
  logic [EW+1:0] csh;
  logic signed [CSW-1:0] xcs, xcs_sh;
  assign xc   = cs ? -(CSW'({1'b0, cm})) : CSW'({1'b0, cm});
  assign xcs  = xc <<< CLS;
  assign csh  = (EW+2)'(dc) + (EW+2)'(CRS);
  assign drop = cz | ((CADD == 2) && ((EW+2)'(ce) < (EW+2)'(em2) - (EW+2)'(F + 1)));
  assign xcs_sh = xcs >>> csh;
  assign fc   = drop ? '0 : ((csh >= (EW+2)'(CSW)) ? $signed({CW2{xcs[CSW-1]}}) : CW2'(xcs_sh));
  assign s2   = SW2'(fdot) + (SW2'(fc) <<< G);

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

  mma_round #(.MW(SW2), .LW(LW), .P(F2), .EMIN(1 - D_BIAS), .RHO(2)) u_rnd1 (
    .neg(neg), .mag(mag), .lsb(lsb2), .q(q1), .qlsb(ql1), .inexact(inx1), .lead(lead1));
  mma_round #(.MW(F2 + 2), .LW(LW), .P(P), .EMIN(1 - D_BIAS), .RHO(RHO)) u_rnd2 (
    .neg(neg), .mag(q1), .lsb(ql1), .q(q2), .qlsb(ql2), .inexact(inx2), .lead(lead2));
  mma_pack #(.EB(D_EB), .MB(D_MB), .BIAS(D_BIAS), .P(P), .RHO(RHO),
             .ZERO_POS(ZERO_POS), .LW(LW)) u_pk (
    .nan(sp_nan), .inf(sp_inf), .inf_neg(sp_neg), .neg(neg), .q(q2), .qlsb(ql2),
    .y(d), .cov_ovf(c_ovf), .cov_sub(c_sub), .cov_zero(c_zero));

  // ---- coverage observation (see docs/rtl.md) ----------------------------
  logic fin, nz;
  logic signed [LW-1:0] rel;
  assign fin = ~sp_nan & ~sp_inf;
  assign nz  = mag != '0;
  assign rel = lead1 - LW'(em2);
  assign cov[7:0]   = dmax;
  assign cov[15:8]  = (fin & nz) ? ((rel > 127) ? 8'sd127 : (rel < -128) ? -8'sd128 : rel[7:0]) : 8'd0;
  assign cov[16]    = |nan_in | cn;
  assign cov[17]    = |zinf;
  assign cov[18]    = sp_conf;
  assign cov[19]    = sp_inf;
  assign cov[20]    = sp_nan;
  assign cov[21]    = fin & (lost | (drop & ~cz));
  assign cov[22]    = fin & (dany | ~cz) & ~nz;
  assign cov[23]    = fin & ~dany & cz;
  assign cov[24]    = fin & nz & (inx1 | inx2);
  assign cov[25]    = fin & nz & q2[P+1];
  assign cov[26]    = c_sub;
  assign cov[27]    = c_ovf;
  assign cov[28]    = fin & nz & c_zero;
  assign cov[31:29] = '0;
endmodule
