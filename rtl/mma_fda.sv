// mma_fda: one fused dot-product-accumulate step (NVIDIA FDA; the C model's
// mma_alg_fused() loop body, and mma_alg_groups() for G > 0):
//   d = round( c + sum_{k<L} a_k*b_k )
// with c and the L exact products aligned to the largest exponent, each cut
// to F fraction bits (ALIGN: 0 toward zero, 2 toward -inf), added exactly,
// then normalized and rounded to P fraction bits of the output (RHO).
//
// Block scales (SCALE 1 ue8m0, 2 ue4m3; one pair of scales sa/sb per BLOCK
// products):
//   G = 0  ST-FDPA (MXFP8): each product is multiplied by its block's two
//          scales (mma_scale) before the fused sum;
//   G > 0  GDFS (NVFP4, MXFP4): the terms are the exact sums of G
//          consecutive products (in fixed point at the products' smallest
//          weight), each times its block's two scales and aligned by the
//          scale exponent alone (not renormalized): a group whose products
//          are all zero, or whose scale is zero, is a zero term; one whose
//          products cancel keeps the scale exponent in the search for emax.
//
// Structure: per term (generate block g_t) unpack and exact multiply (and
// scale, or the group sum), a balanced tree of mma_emax nodes for the
// maximum exponent, per term mma_align (g_al), the exact sum (SUM: 0 a
// balanced tree of mma_add nodes, 1 a carry-save tree of 3:2 counters,
// 2 of 4:2 compressors, then one carry-propagate adder: mma_csa_tree),
// then mma_round and mma_pack, with mma_special deciding NaN / Inf.
//
// Pipeline (STAGES, docs/rtl.md): register cuts, in the order they are
// added, A after the alignment (STAGES >= 1), S after the sum (>= 2), P
// after the products and emax (>= 3), R after the rounding (>= 4).
//
// Formats: *_EB exponent bits, *_MB fraction bits, *_BIAS, *_SPEC (see
// mma_unpack).  c and d are IEEE-like (SPEC 0).
module mma_fda #(
  parameter int A_EB = 4, parameter int A_MB = 3, parameter int A_BIAS = 7,   parameter int A_SPEC = mma_pkg::MMA_SPEC_FN,
  parameter int B_EB = 4, parameter int B_MB = 3, parameter int B_BIAS = 7,   parameter int B_SPEC = mma_pkg::MMA_SPEC_FN,
  parameter int C_EB = 8, parameter int C_MB = 23, parameter int C_BIAS = 127,
  parameter int D_EB = 8, parameter int D_MB = 23, parameter int D_BIAS = 127,
  parameter int P        = 13,
  parameter int L        = 32,
  parameter int F        = 13,
  parameter int ALIGN    = mma_pkg::MMA_RZ,
  parameter int RHO      = mma_pkg::MMA_RZ,
  parameter int ZERO_POS = 1,
  parameter int NAN_CANON = 1,
  parameter int EZERO_EN = 0,
  parameter int EZERO    = 0,
  parameter int POVF     = 0,
  parameter int FTZ      = 0,
  parameter int SCALE    = mma_pkg::MMA_SCALE_NONE,
  parameter int BLOCK    = 32,
  parameter int G        = 0,
  parameter int SUM      = mma_pkg::MMA_SUM_ADD,
  parameter int STAGES   = 0,
  parameter int EW       = 11,
  localparam int AWD = 1 + A_EB + A_MB,
  localparam int BWD = 1 + B_EB + B_MB,
  localparam int CWD = 1 + C_EB + C_MB,
  localparam int DWD = 1 + D_EB + D_MB,
  localparam int NSC = (SCALE != mma_pkg::MMA_SCALE_NONE) ? L / BLOCK : 1   // scales per operand
) (
  input  logic              clk,        // used when STAGES > 0
  input  logic [L*AWD-1:0]  a,
  input  logic [L*BWD-1:0]  b,
  input  logic [CWD-1:0]    c,
  input  logic [NSC*8-1:0]  sa,         // scale of a's block i at [i*8 +: 8] (SCALE > 0)
  input  logic [NSC*8-1:0]  sb,
  output logic [DWD-1:0]    d,
  output logic [31:0]       cov
);
  if (SCALE < mma_pkg::MMA_SCALE_NONE || SCALE > mma_pkg::MMA_SCALE_UE4M3) begin : g_e_scale $error("mma_fda: parameter SCALE must be 0 (none), 1 (ue8m0) or 2 (ue4m3)"); end
  if (SCALE != mma_pkg::MMA_SCALE_NONE && (BLOCK < 1 || L % BLOCK != 0)) begin : g_e_block $error("mma_fda: parameter BLOCK must divide L"); end
  if (G < 0 || (G > 0 && (SCALE == mma_pkg::MMA_SCALE_NONE || L % G != 0 || BLOCK % G != 0)))
                                                begin : g_e_g     $error("mma_fda: parameter G (groups) needs SCALE and must divide L and BLOCK"); end
  if (SCALE != mma_pkg::MMA_SCALE_NONE && EW < 11)                 begin : g_e_ew    $error("mma_fda: parameter EW must be at least 11 with block scales"); end
  if (SUM < mma_pkg::MMA_SUM_ADD || SUM > mma_pkg::MMA_SUM_CSA42) begin : g_e_sum   $error("mma_fda: parameter SUM must be 0 (adder tree), 1 (3:2 carry-save tree) or 2 (4:2 carry-save tree)"); end
  if (STAGES < 0 || STAGES > 4)                 begin : g_e_stg   $error("mma_fda: parameter STAGES must be 0..4"); end

  localparam int NT  = (G > 0) ? L / G : L;         // terms besides c
  localparam int N   = NT + 1;                      // terms: products (or groups) and c
  localparam int PF  = A_MB + B_MB;                 // product fraction bits
  localparam int SMB = (SCALE == mma_pkg::MMA_SCALE_UE4M3) ? 3 : 0;       // scale fraction bits
  localparam int SPW = 2 * SMB + 2;                 // scale pair significand bits
  // a GDFS group sum: products as integers in units of 2^LSB0 (the weight of
  // the smallest subnormal product), at most PVW bits
  localparam int A_EMIN = 1 - A_BIAS;
  localparam int B_EMIN = 1 - B_BIAS;
  localparam int RNG  = ((1 << A_EB) - 2) + ((1 << B_EB) - 2);   // product exponent range
  localparam int PVW  = PF + 2 + RNG;
  localparam int GSW  = PVW + 1 + $clog2((G > 0) ? G : 1);        // signed group sum
  localparam int LSB0 = A_EMIN + B_EMIN - PF;
  localparam int GMW  = GSW - 1 + SPW;              // |group sum| * scale significand
  // the terms' significands: TFP fraction bits and IBP integer bits for the
  // products (or groups), C_MB and 1 for c, in a common TW = TF + IB bits
  localparam int TFP = (G > 0) ? 2 * SMB - LSB0 : PF + 2 * SMB;
  localparam int IBP = (G > 0) ? ((GMW > TFP) ? GMW - TFP : 1) : ((SCALE == mma_pkg::MMA_SCALE_UE4M3) ? 4 : 2);
  localparam int TF  = (TFP > C_MB) ? TFP : C_MB;
  localparam int IB  = (IBP > 2) ? IBP : 2;
  localparam int TW  = TF + IB;
  localparam int AW  = IB + F + 1;                  // aligned term width (signed)
  localparam int LG  = $clog2(N);                   // tree depth (N >= 2)
  localparam int SW  = AW + LG;                     // sum width (signed)
  localparam int LW  = EW + 3;                      // rounding exponent width
  localparam logic [EW-1:0] FLIP   = {1'b1, {(EW-1){1'b0}}};   // offset form
  localparam logic [EW-1:0] UEZERO = EW'(EZERO) ^ FLIP;
  // the pipeline cuts
  localparam int CUT_A = (STAGES >= 1) ? 1 : 0;
  localparam int CUT_S = (STAGES >= 2) ? 1 : 0;
  localparam int CUT_P = (STAGES >= 3) ? 1 : 0;
  localparam int CUT_R = (STAGES >= 4) ? 1 : 0;

  // Per-term flags, OR-ed up the sum tree with the aligned terms (one OR per
  // node, where an N-bit vector of per-term bits would cost a bit insert per
  // term in simulation): bits cut in alignment, NaN term, +Inf term, -Inf
  // term, 0*Inf, NaN operand.
  localparam int FL_CUT = 0, FL_NAN = 1, FL_PINF = 2, FL_NINF = 3, FL_ZINF = 4, FL_NANIN = 5, FL_NZ = 6;

  // ---- block scales: the product of each block's two scales ----------------
  for (genvar blk = 0; blk < NSC; blk++) begin : g_sc
    logic                 zero, nan;
    logic signed [EW-1:0] exp;
    logic [SPW-1:0]       sig;
    if (SCALE != mma_pkg::MMA_SCALE_NONE) begin : g_s
      logic                 az, an, bz, bn, ps, pi;
      logic signed [EW-1:0] ae, be;
      logic [SMB:0]         am, bm;
      mma_unpack_scale #(.SCALE(SCALE), .EW(EW)) u_ua (
        .x(sa[blk*8 +: 8]), .zero(az), .nan(an), .exp(ae), .sig(am));
      mma_unpack_scale #(.SCALE(SCALE), .EW(EW)) u_ub (
        .x(sb[blk*8 +: 8]), .zero(bz), .nan(bn), .exp(be), .sig(bm));
      mma_mul #(.MBA(SMB), .MBB(SMB), .EW(EW), .POVF(0)) u_mul (
        .a_sgn(1'b0), .a_zero(az), .a_inf(1'b0), .a_nan(an), .a_exp(ae), .a_sig(am),
        .b_sgn(1'b0), .b_zero(bz), .b_inf(1'b0), .b_nan(bn), .b_exp(be), .b_sig(bm),
        .p_sgn(ps), .p_zero(zero), .p_inf(pi), .p_nan(nan), .p_exp(exp), .p_sig(sig));
    end else begin : g_none
      assign zero = 1'b0;
      assign nan  = 1'b0;
      assign exp  = '0;
      assign sig  = SPW'(1);
    end
  end

  // ---- the terms: products or groups (k < NT) and c (k = NT) ---------------
  for (genvar k = 0; k < N; k++) begin : g_t
    logic                 sgn, zero;
    logic [EW-1:0]        ue;       // exponent, offset form
    logic [TW-1:0]        sig;      // TF fraction bits
    logic                 part;     // takes part in emax
    logic                 tinf, tnan, zi, ni;
    logic [6:1]           fl;       // FL_* flags of this term
    if (k < NT && G == 0) begin : g_prod
      localparam int BK = (SCALE != mma_pkg::MMA_SCALE_NONE && k / BLOCK < NSC) ? k / BLOCK : 0;   // (0 when BLOCK is refused)
      logic                 ps, pz, pi, pn, az, bz, pzi, pni;
      logic signed [EW-1:0] pe;
      logic [PF+1:0]        pm;
      mma_prod #(.A_EB(A_EB), .A_MB(A_MB), .A_BIAS(A_BIAS), .A_SPEC(A_SPEC),
                 .B_EB(B_EB), .B_MB(B_MB), .B_BIAS(B_BIAS), .B_SPEC(B_SPEC),
                 .FTZ(FTZ), .POVF(POVF), .EW(EW)) u_p (
        .a(a[k*AWD +: AWD]), .b(b[k*BWD +: BWD]),
        .p_sgn(ps), .p_zero(pz), .p_inf(pi), .p_nan(pn), .p_exp(pe), .p_sig(pm),
        .a_zero(az), .b_zero(bz), .zinf(pzi), .nan_in(pni));
      if (SCALE != mma_pkg::MMA_SCALE_NONE) begin : g_scaled
        logic                 tz;
        logic signed [EW-1:0] te;
        logic [PF+1+SPW:0]    tm;
        mma_scale #(.EW(EW), .PW(PF + 2), .SPW(SPW)) u_sc (
          .p_sgn(ps), .p_zero(pz), .p_inf(pi), .p_nan(pn), .p_exp(pe), .p_sig(pm),
          .s_zero(g_sc[BK].zero), .s_nan(g_sc[BK].nan), .s_exp(g_sc[BK].exp), .s_sig(g_sc[BK].sig),
          .t_sgn(sgn), .t_zero(tz), .t_inf(tinf), .t_nan(tnan), .t_exp(te), .t_sig(tm));
        assign zero = tz;
        assign ue   = te ^ FLIP;
        assign sig  = TW'(tm) << (TF - TFP);
        assign zi   = pzi | (pi & g_sc[BK].zero);
        assign ni   = pni | g_sc[BK].nan;
      end else begin : g_plain
        assign sgn  = ps;
        assign zero = pz;
        assign ue   = pe ^ FLIP;
        assign sig  = TW'(pm) << (TF - TFP);
        assign tinf = pi;
        assign tnan = pn;
        assign zi   = pzi;
        assign ni   = pni;
      end
    end else if (k < NT) begin : g_grp
      // group k: the products k*G .. k*G+G-1, summed exactly
      localparam int BK = ((k * G) / BLOCK < NSC) ? (k * G) / BLOCK : 0;
      logic [G*(PVW+1)-1:0] pv;     // signed products in units of 2^LSB0
      logic [G-1:0]         pzs, nis;
      for (genvar j = 0; j < G; j++) begin : g_p
        localparam int KK = k * G + j;
        logic                 ps, pz, pi, pn, az, bz, pzi, pni;
        logic signed [EW-1:0] pe;
        logic [PF+1:0]        pm;
        logic [EW-1:0]        sh;
        logic [PVW-1:0]       mag;
        mma_prod #(.A_EB(A_EB), .A_MB(A_MB), .A_BIAS(A_BIAS), .A_SPEC(A_SPEC),
                   .B_EB(B_EB), .B_MB(B_MB), .B_BIAS(B_BIAS), .B_SPEC(B_SPEC),
                   .FTZ(0), .POVF(0), .EW(EW)) u_p (
          .a(a[KK*AWD +: AWD]), .b(b[KK*BWD +: BWD]),
          .p_sgn(ps), .p_zero(pz), .p_inf(pi), .p_nan(pn), .p_exp(pe), .p_sig(pm),
          .a_zero(az), .b_zero(bz), .zinf(pzi), .nan_in(pni));
        // a NaN or Inf operand has no significand in the model: its product
        // adds nothing (and is not a zero product)
        assign sh  = pe - EW'(A_EMIN + B_EMIN);
        assign mag = (pz | pi | pn) ? '0 : (PVW'(pm) << sh);
        assign pv[j*(PVW+1) +: PVW+1] = ps ? -((PVW+1)'(mag)) : (PVW+1)'(mag);
        assign pzs[j] = pz;
        assign nis[j] = pni;
      end
      logic [GSW-1:0]       gs;
      logic [GSW-2:0]       gm;
      mma_sum_tree #(.N(G), .W(PVW + 1), .SUM(SUM)) u_gs (.x(pv), .s(gs));
      assign gm   = gs[GSW-1] ? (GSW-1)'(-gs) : (GSW-1)'(gs);
      assign sgn  = gs[GSW-1];
      assign zero = ~g_sc[BK].nan & ((&pzs) | g_sc[BK].zero);
      assign ue   = g_sc[BK].exp ^ FLIP;
      assign sig  = TW'(GMW'(gm) * GMW'(g_sc[BK].sig)) << (TF - TFP);
      assign tinf = 1'b0;
      assign tnan = g_sc[BK].nan;
      assign zi   = 1'b0;
      assign ni   = g_sc[BK].nan | (|nis);
    end else begin : g_c
      logic                 cz, ci, cn;
      logic signed [EW-1:0] ce;
      logic [C_MB:0]        cm;
      mma_unpack #(.EB(C_EB), .MB(C_MB), .BIAS(C_BIAS), .SPEC(mma_pkg::MMA_SPEC_IEEE), .FTZ(FTZ), .EW(EW)) u_uc (
        .x(c), .sgn(sgn), .zero(cz), .inf(ci), .nan(cn), .exp(ce), .sig(cm));
      assign zero     = cz;
      assign ue       = ce ^ FLIP;
      assign sig      = TW'(cm) << (TF - C_MB);
      assign tinf     = ci;
      assign tnan     = cn;
      assign zi       = 1'b0;
      assign ni       = cn;
    end
    assign part     = ~zero | (EZERO_EN != 0);
    assign fl       = {~zero, ni, zi, tinf & sgn, tinf & ~sgn, tnan};
  end


  // ---- maximum exponent: tree of mma_emax nodes ----------------------------
  logic [N-1:0]    em_any;
  logic [N*EW-1:0] em_e;
  logic [EW-1:0]   em_max;
  logic            em_an;
  logic            em_fl;       // (no flags)
  for (genvar k = 0; k < N; k++) begin : g_eml
    assign em_any[k]        = g_t[k].part;
    assign em_e[k*EW +: EW] = g_t[k].zero ? UEZERO : g_t[k].ue;
  end
  mma_emax_tree #(.N(N), .EW(EW), .FW(1)) u_em (
    .t_any(em_any), .t_e(em_e), .t_fl('0), .any(em_an), .e(em_max), .fl(em_fl));

  // ---- cut P: the terms and emax ---------------------------------------------
  logic [EW-1:0] uemax_p, uemax_a, uemax_s, uemax;
  logic          any_p, any_a, any_s, any;
  if (CUT_P != 0) begin : g_rp
    mma_reg #(.W(EW + 1)) u_rp (
      .clk(clk),
      .d({em_max, em_an}),
      .q({uemax_p, any_p}));
  end else begin : g_rp_w
    assign {uemax_p, any_p} = {em_max, em_an};
  end
  for (genvar k = 0; k < N; k++) begin : g_tp
    logic          sgn, zero;
    logic [EW-1:0] ue;
    logic [TW-1:0] sig;
    logic [6:1]    fl;
    if (CUT_P != 0) begin : g_r
      mma_reg #(.W(2 + EW + TW + 6)) u_r (
        .clk(clk), .d({g_t[k].sgn, g_t[k].zero, g_t[k].ue, g_t[k].sig, g_t[k].fl}),
        .q({sgn, zero, ue, sig, fl}));
    end else begin : g_w     // (field by field: Verilator keeps a concatenation)
      assign sgn  = g_t[k].sgn;
      assign zero = g_t[k].zero;
      assign ue   = g_t[k].ue;
      assign sig  = g_t[k].sig;
      assign fl   = g_t[k].fl;
    end
  end

  // ---- alignment, then cut A -------------------------------------------------
  if (CUT_A != 0) begin : g_ra
    mma_reg #(.W(EW + 1)) u_ra (.clk(clk), .d({uemax_p, any_p}), .q({uemax_a, any_a}));
  end else begin : g_ra_w
    assign {uemax_a, any_a} = {uemax_p, any_p};
  end
  for (genvar k = 0; k < N; k++) begin : g_al
    logic signed [AW-1:0] al, s;
    logic                 cut;
    logic [6:0]           fl;     // FL_* flags: the term's, and bits cut
    logic [EW-1:0]        nmn;    // ~exponent (the min tree of the coverage)
    mma_align #(.EW(EW), .TW(TW), .TF(TF), .F(F), .CUT(ALIGN)) u_al (
      .uemax(uemax_p), .sgn(g_tp[k].sgn), .zero(g_tp[k].zero), .uexp(g_tp[k].ue),
      .sig(g_tp[k].sig), .al(al), .cut(cut));
    if (CUT_A != 0) begin : g_r
      mma_reg #(.W(AW + 7 + EW)) u_r (
        .clk(clk), .d({al, g_tp[k].fl, cut, ~g_tp[k].ue}), .q({s, fl, nmn}));
    end else begin : g_w
      assign s   = al;
      assign fl  = {g_tp[k].fl, cut};
      assign nmn = ~g_tp[k].ue;
    end
  end

  // ---- exact sum (mma_sum_tree), and beside it the flags OR-ed and the
  // smallest exponent of a nonzero term (the max of the complements on an
  // mma_emax_tree, for the coverage)
  logic [N*AW-1:0] x;
  logic [N-1:0]    x_nz;
  logic [N*EW-1:0] x_nmn;
  logic [N*7-1:0]  x_fl;
  for (genvar j = 0; j < N; j++) begin : g_x
    assign x[j*AW +: AW]     = g_al[j].s;
    assign x_nz[j]           = g_al[j].fl[FL_NZ];
    assign x_nmn[j*EW +: EW] = g_al[j].nmn;
    assign x_fl[j*7 +: 7]    = g_al[j].fl;
  end
  logic signed [SW-1:0] s0;
  logic [6:0]           fl0;
  logic [EW-1:0]        nmn0;
  logic                 nzany;
  mma_sum_tree #(.N(N), .W(AW), .SUM(SUM)) u_sum (.x(x), .s(s0));
  mma_emax_tree #(.N(N), .EW(EW), .FW(7)) u_mn (
    .t_any(x_nz), .t_e(x_nmn), .t_fl(x_fl), .any(nzany), .e(nmn0), .fl(fl0));

  // ---- cut S: the sum ----------------------------------------------------------
  logic signed [SW-1:0] s;
  logic [6:0]           fl_s, fl;
  logic [EW-1:0]        nmn_s, nmn;
  if (CUT_S != 0) begin : g_rs
    mma_reg #(.W(SW + 7 + EW + EW + 1)) u_rs (
      .clk(clk),
      .d({s0, fl0, nmn0, uemax_a, any_a}),
      .q({s, fl_s, nmn_s, uemax_s, any_s}));
  end else begin : g_rs_w
    assign {s, fl_s, nmn_s, uemax_s, any_s} = {s0, fl0, nmn0, uemax_a, any_a};
  end

  // ---- specials, normalize, round ------------------------------------------
  logic sp_nan0, sp_inf0, sp_neg0, sp_conf0, sp_nan, sp_inf, sp_neg, sp_conf;
  mma_special u_sp (
    .any_nan(fl_s[FL_NAN]), .any_pinf(fl_s[FL_PINF]), .any_ninf(fl_s[FL_NINF]),
    .nan(sp_nan0), .inf(sp_inf0), .inf_neg(sp_neg0), .cov_conflict(sp_conf0));

  logic                 neg0, neg, nz0, nz, inexact0, inexact;
  logic [SW-1:0]        mag;
  logic signed [LW-1:0] lsb, qlsb0, qlsb, lead0, lead;
  logic [P+1:0]         q0, q;

  assign neg0 = s[SW-1];
  assign mag  = any_s ? (neg0 ? SW'(-s) : SW'(s)) : '0;
  assign nz0  = mag != '0;
  assign lsb  = LW'($signed(uemax_s ^ FLIP)) - LW'(F);

  mma_round #(.MW(SW), .LW(LW), .P(P), .EMIN(1 - D_BIAS), .RHO(RHO)) u_rnd (
    .neg(neg0), .mag(mag), .lsb(lsb), .q(q0), .qlsb(qlsb0), .inexact(inexact0), .lead(lead0));

  // ---- cut R: the rounded significand --------------------------------------
  if (CUT_R != 0) begin : g_rr
    mma_reg #(.W(P + 2 + 2 * LW + 7 + 7 + EW + EW + 1)) u_rr (
      .clk(clk),
      .d({q0, qlsb0, lead0, inexact0, neg0, nz0, sp_nan0, sp_inf0, sp_neg0, sp_conf0, fl_s, nmn_s, uemax_s, any_s}),
      .q({q,  qlsb,  lead,  inexact,  neg,  nz,  sp_nan,  sp_inf,  sp_neg,  sp_conf,  fl,   nmn,   uemax,   any}));
  end else begin : g_rr_w
    assign {q,  qlsb,  lead,  inexact,  neg,  nz,  sp_nan,  sp_inf,  sp_neg,  sp_conf,  fl,   nmn,   uemax,   any}
         = {q0, qlsb0, lead0, inexact0, neg0, nz0, sp_nan0, sp_inf0, sp_neg0, sp_conf0, fl_s, nmn_s, uemax_s, any_s};
  end

  // ---- pack ------------------------------------------------------------------
  logic c_ovf, c_sub, c_zero;
  mma_pack #(.EB(D_EB), .MB(D_MB), .BIAS(D_BIAS), .P(P), .RHO(RHO),
             .ZERO_POS(ZERO_POS), .NAN_CANON(NAN_CANON), .LW(LW)) u_pk (
    .nan(sp_nan), .inf(sp_inf), .inf_neg(sp_neg), .neg(neg), .q(q), .qlsb(qlsb),
    .y(d), .cov_ovf(c_ovf), .cov_sub(c_sub), .cov_zero(c_zero));

  // ---- coverage observation (see docs/rtl.md) ----------------------------
  // the largest alignment shift of a nonzero term: emax minus the smallest
  // exponent of one (a min tree, cheaper than a saturated shift per term)
  logic fin;
  logic signed [LW-1:0] rel;
  logic [EW-1:0]        dmx;
  logic [7:0]           dsat;   // dmx saturated at 255 (narrow exponents cannot exceed it)
  assign dmx = uemax + nmn + EW'(1);
  if (EW > 8) begin : g_dsat
    assign dsat = (dmx > EW'(255)) ? 8'd255 : dmx[7:0];
  end else begin : g_dnarrow
    assign dsat = 8'(dmx);
  end
  assign fin = ~sp_nan & ~sp_inf;
  assign rel = lead - LW'($signed(uemax ^ FLIP));
  // one assignment of the whole word (bit by bit, each bit costs an insert in
  // simulation); the layout is docs/rtl.md's
  logic [7:0] c_dm, c_rel;
  assign c_dm  = fl[FL_NZ] ? dsat : 8'd0;
  assign c_rel = (fin & nz) ? ((rel > 127) ? 8'sd127 : (rel < -128) ? -8'sd128 : rel[7:0]) : 8'd0;
  assign cov = {3'b000,
                fin & nz & c_zero,          // 28 underflow to zero
                c_ovf,                      // 27 overflow
                c_sub,                      // 26 subnormal result
                fin & nz & q[P+1],          // 25 rounding carry-out
                fin & nz & inexact,         // 24 inexact
                fin & ~any,                 // 23 all terms zero
                fin & any & ~nz,            // 22 exact cancellation to zero
                fin & fl[FL_CUT],           // 21 bits cut in alignment
                sp_nan,                     // 20 NaN result
                sp_inf,                     // 19 Inf result
                sp_conf,                    // 18 +Inf and -Inf
                fl[FL_ZINF],                // 17 0*Inf
                fl[FL_NANIN],               // 16 NaN operand
                c_rel, c_dm};
endmodule
