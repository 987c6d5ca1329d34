// mma_fda: one fused dot-product-accumulate step (NVIDIA FDA; the C model's
// mma_alg_fused() loop body):
//   d = round( c + sum_{k<L} a_k*b_k )
// with c and the L exact products aligned to the largest exponent, each cut
// to F fraction bits (ALIGN: 0 toward zero, 2 toward -inf), added exactly,
// then normalized and rounded to P fraction bits of the output (RHO).
//
// Structure: per term (generate block g_t) unpack and exact multiply, a
// balanced tree of mma_emax nodes for the maximum exponent, per term
// mma_align, a balanced tree of mma_add nodes for the exact sum, then
// mma_round and mma_pack, with mma_special deciding NaN / Inf.
//
// Formats: *_EB exponent bits, *_MB fraction bits, *_BIAS, *_SPEC (see
// mma_unpack).  c and d are IEEE-like (SPEC 0).
module mma_fda #(
  parameter int A_EB = 4, parameter int A_MB = 3, parameter int A_BIAS = 7,   parameter int A_SPEC = 1,
  parameter int B_EB = 4, parameter int B_MB = 3, parameter int B_BIAS = 7,   parameter int B_SPEC = 1,
  parameter int C_EB = 8, parameter int C_MB = 23, parameter int C_BIAS = 127,
  parameter int D_EB = 8, parameter int D_MB = 23, parameter int D_BIAS = 127,
  parameter int P        = 13,
  parameter int L        = 32,
  parameter int F        = 13,
  parameter int ALIGN    = 0,
  parameter int RHO      = 0,
  parameter int ZERO_POS = 1,
  parameter int NAN_CANON = 1,
  parameter int EZERO_EN = 0,
  parameter int EZERO    = 0,
  parameter int POVF     = 0,
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
  localparam int N   = L + 1;                       // terms: L products and c
  localparam int PF  = A_MB + B_MB;                 // product fraction bits
  localparam int TF  = (PF > C_MB) ? PF : C_MB;     // common fraction bits
  localparam int TW  = TF + 2;                      // significands < 4
  localparam int AW  = TW - TF + F + 1;             // aligned term width (signed)
  localparam int LG  = $clog2(N);                   // tree depth (N >= 2)
  localparam int M   = 1 << LG;                     // tree leaves
  localparam int SW  = AW + LG;                     // sum width (signed)
  localparam int LW  = EW + 3;                      // rounding exponent width
  localparam logic [EW-1:0] FLIP   = {1'b1, {(EW-1){1'b0}}};   // offset form
  localparam logic [EW-1:0] UEZERO = EW'(EZERO) ^ FLIP;

  // Per-term flags, OR-ed up the sum tree with the aligned terms (one OR per
  // node, where an N-bit vector of per-term bits would cost a bit insert per
  // term in simulation): bits cut in alignment, NaN term, +Inf term, -Inf
  // term, 0*Inf, NaN operand.
  localparam int FL_CUT = 0, FL_NAN = 1, FL_PINF = 2, FL_NINF = 3, FL_ZINF = 4, FL_NANIN = 5, FL_NZ = 6;

  // ---- the terms: products (k < L) and c (k = L) ---------------------------
  for (genvar k = 0; k < N; k++) begin : g_t
    logic                 sgn, zero;
    logic [EW-1:0]        ue;       // exponent, offset form
    logic [TW-1:0]        sig;      // TF fraction bits
    logic                 part;     // takes part in emax
    logic                 tinf, tnan, zi, ni;
    logic [6:1]           fl;       // FL_* flags of this term
    if (k < L) begin : g_prod
      logic                 as, az, ai, an, bs, bz, bi, bn, pz, pi, pn;
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
        .p_sgn(sgn), .p_zero(pz), .p_inf(pi), .p_nan(pn), .p_exp(pe), .p_sig(pm));
      assign zero      = pz;
      assign ue        = pe ^ FLIP;
      assign sig       = TW'(pm) << (TF - PF);
      assign tinf      = pi;
      assign tnan      = pn;
      assign zi        = (ai & bz) | (bi & az);
      assign ni        = an | bn;
    end else begin : g_c
      logic                 cz, ci, cn;
      logic signed [EW-1:0] ce;
      logic [C_MB:0]        cm;
      mma_unpack #(.EB(C_EB), .MB(C_MB), .BIAS(C_BIAS), .SPEC(0), .FTZ(FTZ), .EW(EW)) u_uc (
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
  for (genvar lv = 0; lv <= LG; lv++) begin : g_em
    for (genvar j = 0; j < (M >> lv); j++) begin : g_n
      logic          an;
      logic [EW-1:0] ue;
      if (lv == 0) begin : g_leaf
        if (j < N) begin : g_in
          assign an = g_t[j].part;
          assign ue = g_t[j].zero ? UEZERO : g_t[j].ue;
        end else begin : g_pad
          assign an = 1'b0;
          assign ue = '0;
        end
      end else begin : g_node
        mma_emax #(.EW(EW)) u_em (
          .a_any(g_em[lv-1].g_n[2*j].an), .a_e(g_em[lv-1].g_n[2*j].ue),
          .b_any(g_em[lv-1].g_n[2*j+1].an), .b_e(g_em[lv-1].g_n[2*j+1].ue),
          .any(an), .e(ue));
      end
    end
  end
  logic [EW-1:0] uemax;
  logic          any;
  assign uemax = g_em[LG].g_n[0].ue;
  assign any   = g_em[LG].g_n[0].an;

  // ---- alignment and exact sum: tree of mma_add nodes ----------------------
  for (genvar lv = 0; lv <= LG; lv++) begin : g_sum
    for (genvar j = 0; j < (M >> lv); j++) begin : g_n
      logic signed [AW+lv-1:0] s;
      logic [EW-1:0]           nmn;    // ~(smallest exponent of a nonzero term below)
      logic [6:0]              fl;     // FL_* flags of the terms below this node
      if (lv == 0) begin : g_leaf
        if (j < N) begin : g_in
          mma_align #(.EW(EW), .TW(TW), .TF(TF), .F(F), .CUT(ALIGN)) u_al (
            .uemax(uemax), .sgn(g_t[j].sgn), .zero(g_t[j].zero), .uexp(g_t[j].ue),
            .sig(g_t[j].sig), .al(s), .cut(fl[FL_CUT]));
          assign fl[6:1] = g_t[j].fl;
          assign nmn     = ~g_t[j].ue;
        end else begin : g_pad
          assign s   = '0;
          assign nmn = '0;
          assign fl  = '0;
        end
      end else begin : g_node
        mma_add #(.W(AW+lv-1)) u_add (
          .a(g_sum[lv-1].g_n[2*j].s), .b(g_sum[lv-1].g_n[2*j+1].s), .s(s));
        assign fl = g_sum[lv-1].g_n[2*j].fl | g_sum[lv-1].g_n[2*j+1].fl;
        // the min exponent as the max of the complements, on an emax node
        logic nzany;
        mma_emax #(.EW(EW)) u_mn (
          .a_any(g_sum[lv-1].g_n[2*j].fl[FL_NZ]), .a_e(g_sum[lv-1].g_n[2*j].nmn),
          .b_any(g_sum[lv-1].g_n[2*j+1].fl[FL_NZ]), .b_e(g_sum[lv-1].g_n[2*j+1].nmn),
          .any(nzany), .e(nmn));
      end
    end
  end
  logic signed [SW-1:0] s;
  logic [6:0]           fl;
  assign s  = g_sum[LG].g_n[0].s;
  assign fl = g_sum[LG].g_n[0].fl;

  // ---- specials ------------------------------------------------------------
  logic sp_nan, sp_inf, sp_neg, sp_conf;
  mma_special u_sp (
    .any_nan(fl[FL_NAN]), .any_pinf(fl[FL_PINF]), .any_ninf(fl[FL_NINF]),
    .nan(sp_nan), .inf(sp_inf), .inf_neg(sp_neg), .cov_conflict(sp_conf));

  // ---- normalize, round, pack --------------------------------------------
  logic                 neg;
  logic [SW-1:0]        mag;
  logic signed [LW-1:0] lsb, qlsb, lead;
  logic [P+1:0]         q;
  logic                 inexact, c_ovf, c_sub, c_zero;

  assign neg = s[SW-1];
  assign mag = any ? (neg ? SW'(-s) : SW'(s)) : '0;
  assign lsb = LW'($signed(uemax ^ FLIP)) - LW'(F);

  mma_round #(.MW(SW), .LW(LW), .P(P), .EMIN(1 - D_BIAS), .RHO(RHO)) u_rnd (
    .neg(neg), .mag(mag), .lsb(lsb), .q(q), .qlsb(qlsb), .inexact(inexact), .lead(lead));

  mma_pack #(.EB(D_EB), .MB(D_MB), .BIAS(D_BIAS), .P(P), .RHO(RHO),
             .ZERO_POS(ZERO_POS), .NAN_CANON(NAN_CANON), .LW(LW)) u_pk (
    .nan(sp_nan), .inf(sp_inf), .inf_neg(sp_neg), .neg(neg), .q(q), .qlsb(qlsb),
    .y(d), .cov_ovf(c_ovf), .cov_sub(c_sub), .cov_zero(c_zero));

  // ---- coverage observation (see docs/rtl.md) ----------------------------
  // the largest alignment shift of a nonzero term: emax minus the smallest
  // exponent of one (a min tree, cheaper than a saturated shift per term)
  logic fin, nz;
  logic signed [LW-1:0] rel;
  logic [EW-1:0]        dmx;
  logic [7:0]           dsat;   // dmx saturated at 255 (narrow exponents cannot exceed it)
  assign dmx = uemax + g_sum[LG].g_n[0].nmn + EW'(1);
  if (EW > 8) begin : g_dsat
    assign dsat = (dmx > EW'(255)) ? 8'd255 : dmx[7:0];
  end else begin : g_dnarrow
    assign dsat = 8'(dmx);
  end
  assign fin = ~sp_nan & ~sp_inf;
  assign nz  = mag != '0;
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
