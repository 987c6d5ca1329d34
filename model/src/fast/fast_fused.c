/* The fast path of the fused algorithms (alg_fused.c): FDA and CoFDA, with
 * block scales (ST-FDPA), interleaved steps and the closing IEEE addition
 * of c (Hopper's fp8 mma.sync, "FDA+FADD").  The same arithmetic as
 * alg_fused.c; a step with an Inf or NaN term is decided by special_step
 * from the operand tables' classes, by the rules of specials.c.
 * Kernels (the plan picks one):
 *   - scalar: operands of 16 bits or fewer decoded through the tables
 *     (one table gives the packed product of two 8-bit formats), tf32
 *     arithmetically;
 *   - AVX2 generic (AVX2, BMI2 and LZCNT checked at run time): eight
 *     products per vector, operands decoded arithmetically, each term
 *     aligned by one variable shift; any l, 32- or 64-bit lanes, RZ or RD,
 *     tf32, MX (ue8m0) block scales of 8 or more products;
 *   - AVX2 specialized: the same for l = 8, 16 or 32, RZ, and the common
 *     outputs (fp32 RZ with p = 23 or 13 and fp16 RNE with p = 10) known
 *     at compile time; operands of 16 bits or fewer decoded together, a in
 *     the low and b in the high 16-bit half of each lane; tf32 apart; a
 *     chained step hands its result to the next one already decoded; steps
 *     of four (Volta, tf32) two to a vector; a step with Inf or NaN decided
 *     from the lanes' classes (s_special).
 * All end in the same scalar code: c joins, then the rounding (fast_round;
 * for fp32 with RZ and p = 23 in the specialized kernels, round_f32rz,
 * through the exact double of the sum).  Interleaved steps and the closing
 * addition wrap any of them (fused_wrap). */
#include "fast.h"

#include <math.h>
#include <stdlib.h>

static int pre_shift(const mma_unit *u, int fbs)
{
    int fbp = mma_format(u->a)->mbits + mma_format(u->b)->mbits + fbs;
    return u->f > fbp ? u->f - fbp : 0;
}

/* fraction bits of a scale product */
static int scale_fb(const mma_unit *u)
{
    return u->scale == MMA_FMT_NONE ? 0 : 2 * mma_format(u->scale)->mbits;
}

static int fused_ok(const mma_unit *u)
{
    /* products hold at most 30 bits (22 for two operands, 8 more for the
     * significands of two ue4m3 scales); the left pre-shift must keep them
     * inside 63 bits.  Product overflow (AMD) and flushed inputs stay with
     * the reference path; interleaved steps take no scales. */
    if (u->tree != MMA_TREE_FUSED || (u->cadd != MMA_CADD_FUSED && u->cadd != MMA_CADD_AFTER)) return 0;
    if (u->flags & (MMA_F_PROD_OVF | MMA_F_FTZ_IN)) return 0;
    if (!fast_op_ok(u->a) || !fast_op_ok(u->b) || u->lmax < 1 || u->lmax > 64 || u->k < u->lmax || u->k % u->lmax) return 0;
    if (u->interleave && (u->lmax % u->interleave || u->scale != MMA_FMT_NONE)) return 0;
    if (u->scale != MMA_FMT_NONE) {
        if ((u->scale != MMA_FMT_UE8M0 && u->scale != MMA_FMT_UE4M3) || u->block < 1 || u->k % u->block ||
            (u->block % u->lmax && u->lmax % u->block))
            return 0;
    }
    if (pre_shift(u, scale_fb(u)) > 40) return 0;
    if (u->c != MMA_FMT_FP32 && !fast_tab[u->c]) return 0;
    if (u->cadd == MMA_CADD_AFTER && u->c != u->d) return 0;
    if ((u->flags & MMA_F_VIA_FP16) && (mma_format(u->a)->width > 8 || mma_format(u->b)->width > 8)) return 0;
    return (u->d == MMA_FMT_FP32 || u->d == MMA_FMT_FP16 || u->d == MMA_FMT_BF16) && u->p >= 1 &&
           u->p <= mma_format(u->d)->mbits;
}

/* ---- the plan of a unit ------------------------------------------------ */

#define V_LOW FAST_EMPTY

typedef struct fast_plan fast_plan;
struct fast_plan {
    fast_hdr h;
    fast_fn inner;                       /* fused_wrap's kernel           */
    int L, steps, f, fbp, pre, base, rd, zeros_part;
    int32_t ezero;
    fast_cfmt c1, cd;                    /* c of the first step, of later */
    fast_out o;
    fast_src src;                        /* the scalar kernel's products  */
    /* block scales */
    int scaled, block;
    const uint64_t *ts;
    /* interleaved steps, the closing addition of c */
    int permute, after, il;
    /* via=fp16 in the vector kernels: they decode the 8-bit operands as
     * they are, which is the fp16 conversion's value and exponent for every
     * operand but a subnormal one (fp16 normalizes it); a dot product with a
     * subnormal operand goes to the scalar plan, whose tables convert */
    const fast_hdr *via_scalar;
    fast_fn via_vec;
    uint64_t sub_e[2], sub_m[2];         /* a, b: exponent field and fraction masks */
    /* how far fp16 normalizes a subnormal significand (by its value, 0
     * for others): s_step's via=fp16 */
    unsigned char lz_a[32], lz_b[32];
    int32_t mag_a[8], mag_b[8];          /* the magnitude bits of a, b: s_special */
    /* s_step's 16-bit halves (a low, b high): 2^(16 - mb) (a right shift
     * by mb through mulhi), exponent, fraction, hidden bit, Inf/NaN mask and
     * value; 1 in each half */
    int32_t pk_shr[8], pk_em[8], pk_mm[8], pk_hid[8], pk_sm[8], pk_sv[8], pk_one[8];
    /* via=fp16 in halves: one table for both operands, by the
     * significand (lz_a's or lz_b's, the other half's index kept at 0 by
     * pk_lzm where its format has nothing to convert), and 2^lz */
    int32_t pk_lzm[8];
    unsigned char pk_lz[32], pk_pw[32];
    uint64_t cnan;                       /* d's canonical NaN: ieee_add */
    int f16c;                            /* ieee_add's fp16 sum through F16C (not in the scalar mode) */
    fast_out oadd;
    unsigned char perm[MMA_MAX_K];       /* k of the j-th product in step order */
    /* vector kernel */
    fast_op va, vb;
#ifdef FAST_HAVE_AVX2
    fast_vop ka, kb;
#endif
    int32_t one[8], ezv[8], low[8];
    int64_t prec[2];
    /* the AVX-512 kernel's 16-bit lanes ([0] a, [1] b): fraction,
     * exponent, hidden bit, Inf/NaN mask and value, the encoding's bits;
     * 1, ezero (or the lowest), the word of each uint64_t; the sign's
     * shift to bit 15 (the fields' shift: ka's and kb's mb) */
    int16_t w_mm[2][32], w_em[2][32], w_hid[2][32], w_sm[2][32], w_sv[2][32], w_wm[2][32];
    int16_t w_one[32], w_ezv[32], w_idx[32];
    int w_nan_only;                      /* a and b have no Inf: Inf/NaN lanes are NaNs */
    int64_t w_ss[2][2], w_pre1[2];       /* (w_pre1: pre + 1, the AVX2 lanes' alignment) */
    int groups, tail, narrow, tf;
    int32_t bab, ez_rel;                 /* bias_a + bias_b; ezero + bab  */
};
#define PLAN(h) ((const fast_plan *)(h))

/* ---- block scales ---------------------------------------------------------- */

/* The packed product of a block's two scales (its class: NaN when either
 * is NaN, zero when either is zero). */
static inline uint64_t scale_pair(const fast_plan *P, const uint64_t *sa, const uint64_t *sb, int blk)
{
    return pack_product(P->ts[sa[blk] & 0xff], P->ts[sb[blk] & 0xff]);
}

/* A packed product times its block's scale product s, as alg_fused.c's
 * product() makes it (mma_term_mul of the two): NaN when either is NaN or
 * an Inf meets a zero; Inf when the product is Inf (scales have none);
 * zero when either is zero; the scale's sign is +. */
static inline uint64_t scale_apply(uint64_t p, uint64_t s)
{
    if (__builtin_expect(((p | s) & (P_SPEC | P_ZERO)) != 0, 0)) {
        uint64_t sg = p & P_NEG;
        if (((p | s) & P_NAN) || ((p & P_SPEC) && (s & P_ZERO))) return sg | P_SPEC | P_NAN;
        if (p & P_SPEC) return sg | P_SPEC;
        return sg | P_ZERO;
    }
    uint64_t e = ((p & P_EMASK) + (s & P_EMASK) - ((uint64_t)P_EOFF << 32)) & P_EMASK;
    return (p & P_NEG) | e | (uint32_t)((uint32_t)p * (uint32_t)s);
}

/* ---- steps that meet Inf or NaN --------------------------------------- */

/* The reference for one step: only for a step that the kernels flag but
 * that holds no Inf or NaN term, which the tables (made by the reference's
 * own decoding) rule out; kept rather than trusting that.  a, b are the
 * step's products in step order (interleaved units take no scales). */
static __attribute__((noinline)) uint64_t reference_step(const fast_plan *P, const mma_unit *u, int first, int s,
                                                        uint64_t acc, const uint64_t *a, const uint64_t *b,
                                                        const uint64_t *sa, const uint64_t *sb)
{
    mma_unit one = *u;
    one.k = P->L;
    one.c = first ? (P->after ? u->d : u->c) : u->d;
    one.interleave = 0;
    one.cadd = MMA_CADD_FUSED;
    one.impl = 1;
    if (P->scaled) {
        one.block = P->block < P->L ? P->block : P->L;
        sa += s * P->L / P->block;
        sb += s * P->L / P->block;
    }
    return mma_alg_fused(&one, acc, a, b, P->scaled ? sa : NULL, P->scaled ? sb : NULL);
}

/* A step that meets a special value, decided as the reference decides it
 * (alg_fused.c, then mma_terms_special in specials.c) over the step's L
 * products and its c (u->c in the first step, the last step's result in
 * d's format after): NaN if any term is NaN (a 0*Inf product is one, a NaN
 * scale makes one), or if Inf of both signs is among them; otherwise the
 * Inf of the one sign.  The NaN is the canonical one with nan=canon, else
 * the IEEE default quiet NaN (+, quiet bit only: alg_fused.c passes no
 * payload on).  Products never overflow here: units with povf or flushed
 * inputs do not take the fast path.  No finite term matters: the sum is
 * not formed.  s: the step; a, b its products. */
static __attribute__((noinline)) uint64_t special_step(const fast_plan *P, const mma_unit *u, int first, int s,
                                                      uint64_t acc, const uint64_t *a, const uint64_t *b,
                                                      const uint64_t *sa, const uint64_t *sb)
{
    unsigned inf = 0;                    /* 1: +Inf met, 2: -Inf met */
    const int L = P->L;
    /* (most products are finite and skipped at one test; a NaN decides
     * at once, whatever the other terms are) */
    const uint64_t *pt = P->src.pt, *ta = P->src.ta, *tb = P->src.tb;
    if (pt && !P->scaled) {
        for (int j = 0; j < L; j++) {
            uint64_t x = pt[(a[j] & 0xff) << 8 | (b[j] & 0xff)];
            if (__builtin_expect(!(x & P_SPEC), 1)) continue;
            if (x & P_NAN) return P->o.nan;
            inf |= (x & P_NEG) ? 2 : 1;
        }
    } else if (ta && tb && !P->scaled) {
        for (int j = 0; j < L; j++) {
            uint64_t x = ta[a[j] & P->src.amask], y = tb[b[j] & P->src.bmask];
            if (__builtin_expect(!((x | y) & T_SPEC), 1)) continue;
            uint64_t p = product_class(x, y);
            if (p & P_NAN) return P->o.nan;
            inf |= (p & P_NEG) ? 2 : 1;
        }
    } else {                             /* tf32 operands, block scales */
        for (int j = 0; j < L; j++) {
            uint64_t x = fast_product(&P->src, a[j], b[j]);
            if (P->scaled) x = scale_apply(x, scale_pair(P, sa, sb, (s * L + j) / P->block));
            if (!(x & P_SPEC)) continue;
            if (x & P_NAN) return P->o.nan;
            inf |= (x & P_NEG) ? 2 : 1;
        }
    }
    uint64_t x = c_class(first ? &P->c1 : &P->cd, acc);
    if (x & P_NAN) return P->o.nan;
    if (x & P_SPEC) inf |= (x & P_NEG) ? 2 : 1;
    if (inf == 3) return P->o.nan;
    if (inf) return P->o.inf | (inf == 2 ? P->o.sign : 0);
    return reference_step(P, u, first, s, acc, a, b, sa, sb);
}

/* special_step where no product is Inf or NaN and c is: c's NaN or Inf
 * decides (a chain's later step after an overflow to Inf, mostly) */
static inline uint64_t c_decides(const fast_plan *P, int first, uint64_t acc)
{
    uint64_t x = c_class(first ? &P->c1 : &P->cd, acc);
    return (x & P_NAN) ? P->o.nan : P->o.inf | ((x & P_NEG) ? P->o.sign : 0);
}

/* emax of the step: ep is the largest product exponent (below FAST_EMPTY / 2
 * if none; zero products already counted with ezero) */
static inline __attribute__((always_inline)) int32_t emax_with_c(const fast_plan *P, int32_t ep, const fast_c *c)
{
    int32_t e = c->sig ? c->e : P->zeros_part ? P->ezero : FAST_EMPTY;
    return e > ep ? e : ep;
}

/* The end of a step: c joins the products' aligned sum, the total is
 * rounded into d (emax not empty; ovf: round_f32rz's). */
static inline __attribute__((always_inline)) uint64_t finish_k(const fast_plan *P, int32_t emax, int64_t sum,
                                                              const fast_c *c, const fast_cfmt *cf,
                                                              const int out, fast_c *cn, const int ovf)
{
    if (c->sig) {                         /* aligned as the products are */
        uint64_t m = c->sig << cf->pre;
        int64_t sh = (int64_t)emax - c->e + cf->base;
        sh = sh > 63 ? 63 : sh;
        if (out || !P->rd) {              /* (the specialized kernels cut with RZ) */
            uint64_t s = -(uint64_t)c->neg;
            sum += (int64_t)(((m >> sh) ^ s) - s);
        } else {
            int64_t v = c->neg ? -(int64_t)m : (int64_t)m;
            sum += v >> sh;
        }
    }
    if (out == OUT_F32 || out == OUT_E8M13) return round_f32rz(&P->o, sum, emax - P->f, O_P(&P->o, out), cn, ovf);
    /* |sum| and its sign without a branch (the sign is data, a coin toss) */
    uint64_t sg = (uint64_t)(sum >> 63);
    uint64_t mag = ((uint64_t)sum ^ sg) - sg;
    return fast_round(&P->o, (int)(sg & 1), mag, emax - P->f, out, cn);
}

static inline __attribute__((always_inline)) uint64_t finish(const fast_plan *P, int32_t emax, int64_t sum,
                                                            const fast_c *c, const fast_cfmt *cf, const int out)
{
    if (emax < FAST_EMPTY / 2) return 0;
    return finish_k(P, emax, sum, c, cf, out, NULL, 0);
}

/* ---- the scalar kernel ------------------------------------------------- */

/* The alignment of the products: small functions keep the loop's state in
 * registers; common pre-shifts get constant shifts. */
static __attribute__((noinline)) int64_t align_rz(const uint64_t *p, int L, int64_t eb, int pre)
{
    return align_body(p, L, eb, pre, 0, 1);
}
static __attribute__((noinline)) int64_t align_rd(const uint64_t *p, int L, int64_t eb, int pre)
{
    return align_body(p, L, eb, pre, 1, 1);
}
#define ALIGN_RZ(PRE) static __attribute__((noinline)) int64_t align_rz_##PRE(const uint64_t *p, int L, int64_t eb) \
    { return align_body(p, L, eb, PRE, 0, 1); }
ALIGN_RZ(4) ALIGN_RZ(5) ALIGN_RZ(7) ALIGN_RZ(10) ALIGN_RZ(11)
#undef ALIGN_RZ

static uint64_t fast_scalar(const fast_hdr *h, uint64_t c, const uint64_t *a,
                            const uint64_t *b, const uint64_t *sa, const uint64_t *sb)
{
    const fast_plan *P = PLAN(h);
    const mma_unit *u = &h->u;
    const int L = P->L, pre = P->pre;
    uint64_t acc = c;
    for (int s = 0; s < P->steps; s++, a += L, b += L) {
        uint64_t p[64], any, emf;
        fast_products(&P->src, a, b, L, p, &any, &emf);
        if (P->scaled && !(any & P_SPEC)) {     /* the block scales join */
            any = emf = 0;
            for (int j = 0; j < L; j++) {
                uint64_t x = scale_apply(p[j], scale_pair(P, sa, sb, (s * L + j) / P->block));
                p[j] = x;
                any |= x;
                uint64_t ef = x & P_EMASK;
                emf = ef > emf ? ef : emf;
            }
        }
        const fast_cfmt *cf = s ? &P->cd : &P->c1;
        fast_c xc = c_decode(cf, acc);
        if ((any & P_SPEC) || xc.spec) {
            acc = special_step(P, u, s == 0, s, acc, a, b, sa, sb);
            continue;
        }
        int32_t ep = emf ? (int32_t)(emf >> 32) - P_EOFF : FAST_EMPTY;
        if ((any & P_ZERO) && P->zeros_part && P->ezero > ep) ep = P->ezero;
        int32_t emax = emax_with_c(P, ep, &xc);
        int64_t sum = 0;
        if (emax >= FAST_EMPTY / 2) {
            const int64_t eb = (int64_t)emax + P_EOFF + P->base;
            if (P->rd) sum = align_rd(p, L, eb, pre);
            else switch (pre) {
                case 4: sum = align_rz_4(p, L, eb); break;
                case 5: sum = align_rz_5(p, L, eb); break;
                case 7: sum = align_rz_7(p, L, eb); break;
                case 10: sum = align_rz_10(p, L, eb); break;
                case 11: sum = align_rz_11(p, L, eb); break;
                default: sum = align_rz(p, L, eb, pre); break;
                }
        }
        acc = finish(P, emax, sum, &xc, cf, 0);
    }
    return acc;
}

/* ---- interleaved steps and the closing addition ------------------------------ */

/* a finite fp16 encoding as a double (exact) */
static inline double f16_double(uint32_t w)
{
    uint32_t ef = (w >> 10) & 0x1f, sig = (w & 0x3ff) | (ef ? 0x400u : 0);
    uint64_t pb = (uint64_t)((int64_t)(ef ? ef : 1) - 25 + 1023) << 52;   /* 2^(e - 10) */
    double sc, v = (double)(int32_t)sig;
    memcpy(&sc, &pb, 8);
    v *= sc;
    return (w >> 15) ? -v : v;
}

/* x + y for two finite fp16 encodings: the host's binary64 sum is exact
 * (both lie on 2^-24's grid below 2^16: at most 41 bits), and IEEE's zero
 * (+0 unless both are -0) under round to nearest; then rounded to nearest
 * even in fp16, an overflow to Inf. */
static inline uint64_t add_f16(uint64_t x, uint64_t y)
{
    double sd = f16_double((uint32_t)x & 0xffff) + f16_double((uint32_t)y & 0xffff);
    uint64_t db;
    memcpy(&db, &sd, 8);
    uint64_t sign = (db >> 63) << 15, frac = db & (((uint64_t)1 << 52) - 1);
    int32_t e = (int32_t)((db >> 52) & 0x7ff) - 1023;
    if (e >= -14) {                      /* normal: 10 of 52 fraction bits kept */
        uint64_t h = ((uint64_t)(e + 15) << 10) + (frac >> 42), rem = frac & (((uint64_t)1 << 42) - 1);
        h += rem > ((uint64_t)1 << 41) || (rem == ((uint64_t)1 << 41) && (h & 1));
        return sign | (h >= 0x7c00 ? 0x7c00 : h);
    }
    /* subnormal or zero: a whole number of 2^-24, to nearest even by the
     * host's addition at 2^52 (the result 0x400 is the smallest normal) */
    double q = (fabs(sd) * 16777216.0 + 4503599627370496.0) - 4503599627370496.0;
    return sign | (uint64_t)q;
}

#ifdef FAST_HAVE_AVX2
/* add_f16 in a fifth of its instructions, where its closing addition took
 * a sixth of a Hopper fp8 mma.sync with fp16 output (80 of 513 a call,
 * the slowest catalogue units on a 2.1 GHz Xeon): both operands to
 * binary32 in one conversion (exact), added by the host (in whatever
 * rounding mode), the sum to nearest even in fp16 by the conversion, which
 * names its rounding.  The binary32 addition is inexact only where the
 * smaller operand lies wholly more than 13 bits below the larger's last
 * bit, and then the sum is not within a binary32 ulp of an fp16 tie: the
 * two roundings give the one rounding of the exact sum.  Checked against
 * add_f16 on every pair of finite fp16 encodings (4.03e9) in each of the
 * four rounding modes (test_fastpath's section 3d runs the kernels in
 * three).  No binary32 here is subnormal (the least fp16 is 2^-24):
 * neither FTZ nor DAZ changes it. */
static __attribute__((target(FAST_ISA_F16C))) uint64_t add_f16_f16c(uint64_t x, uint64_t y)
{
    __m128 v = _mm_cvtph_ps(_mm_cvtsi32_si128((int)((x & 0xffff) | (y & 0xffff) << 16)));
    __m128 r = _mm_add_ss(v, _mm_movehdup_ps(v));
    return (uint16_t)_mm_cvtsi128_si32(_mm_cvtps_ph(r, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
}
#endif

/* IEEE addition x + y of two finite or zero encodings of d, to nearest
 * even, as alg_fused.c's ieee_add computes it (exact sum, one rounding; an
 * exact zero is +0 unless both are -0).  fp32 through the host's binary32
 * addition (IEEE, round to nearest even: the same result); fp16 through
 * binary64 (add_f16); others through an integer sum with a sticky bit. */
static uint64_t add_finite(const fast_plan *P, const mma_unit *u, uint64_t x, uint64_t y)
{
    if (u->d == MMA_FMT_FP16) return add_f16(x, y);
    if (u->d == MMA_FMT_FP32) {
        float fx, fy, fr;
        uint32_t wx = (uint32_t)x, wy = (uint32_t)y, wr;
        memcpy(&fx, &wx, 4);
        memcpy(&fy, &wy, 4);
        fr = fx + fy;
        memcpy(&wr, &fr, 4);
        return wr;
    }
    fast_c cx = c_decode(&P->cd, x), cy = c_decode(&P->cd, y);
    if (!cx.sig && !cy.sig) return cx.neg && cy.neg ? P->oadd.sign : 0;
    int fb = P->cd.fb;
    /* the larger exponent first */
    if (!cx.sig || (cy.sig && cy.e > cx.e)) { fast_c t = cx; cx = cy; cy = t; }
    int32_t lsb = cx.e - fb - 36;                /* cx.sig << 36: at most 48 bits */
    int64_t vx = (int64_t)(cx.sig << 36), vy = 0;
    if (cy.sig) {
        int32_t sh = lsb - (cy.e - fb);           /* >= 0: cy.e <= cx.e */
        uint64_t m = cy.sig;
        if (sh > 0) m = sh >= 64 ? 1 : (m >> sh) | ((m & (((uint64_t)1 << sh) - 1)) != 0);
        else m <<= -sh;
        vy = (int64_t)m;
    }
    int64_t sum = (cx.neg ? -vx : vx) + (cy.neg ? -vy : vy);
    uint64_t sg = (uint64_t)(sum >> 63);
    if (u->d == MMA_FMT_FP16) return fast_round(&P->oadd, (int)(sg & 1), ((uint64_t)sum ^ sg) - sg, lsb, OUT_F16, NULL);
    return fast_round_general(&P->oadd, (int)(sg & 1), ((uint64_t)sum ^ sg) - sg, lsb);
}

static uint64_t ieee_add(const fast_plan *P, const mma_unit *u, uint64_t x, uint64_t y)
{
    if (u->d == MMA_FMT_FP16 && ((x & 0x7c00) != 0x7c00) & ((y & 0x7c00) != 0x7c00)) {
#ifdef FAST_HAVE_AVX2
        if (P->f16c) return add_f16_f16c(x, y);
#endif
        return add_f16(x, y);            /* (the common case: no Inf or NaN) */
    }
    uint64_t cx = c_class(&P->cd, x), cy = c_class(&P->cd, y);
    if (__builtin_expect((cx | cy) & P_SPEC, 0)) {    /* specials.c: canonical NaN */
        if ((cx | cy) & P_NAN) return P->cnan;
        if ((cx & P_SPEC) && (cy & P_SPEC) && ((cx ^ cy) & P_NEG)) return P->cnan;
        return P->o.inf | (((cx & P_SPEC) ? cx : cy) & P_NEG ? P->o.sign : 0);
    }
    return add_finite(P, u, x, y);
}

/* Interleaved steps: the products in step order; the closing addition:
 * the steps start from +0 and c is added at the end. */
static uint64_t fused_wrap(const fast_hdr *h, uint64_t c, const uint64_t *a,
                           const uint64_t *b, const uint64_t *sa, const uint64_t *sb)
{
    const fast_plan *P = PLAN(h);
    const mma_unit *u = &h->u;
    uint64_t pa[MMA_MAX_K], pb[MMA_MAX_K];
    if (P->permute) {
        const int k = u->k;
        if (P->il == 2) {                /* runs of two: 16-byte moves */
            for (int j = 0; j < k; j += 2) {
                memcpy(pa + j, a + P->perm[j], 16);
                memcpy(pb + j, b + P->perm[j], 16);
            }
        } else {
            for (int j = 0; j < k; j++) {
                pa[j] = a[P->perm[j]];
                pb[j] = b[P->perm[j]];
            }
        }
        a = pa;
        b = pb;
    }
    uint64_t r = P->inner(h, P->after ? 0 : c, a, b, sa, sb);
    return P->after ? ieee_add(P, u, c, r) : r;
}

/* ---- the AVX2 kernels ------------------------------------------------------ */
#ifdef FAST_HAVE_AVX2

/* The exponent offset of each group of eight from its block scales (ue8m0:
 * sig 1), and whether a scale is NaN; groups of one block share it. */
V_FN int v_scales(const fast_plan *P, const uint64_t *sa, const uint64_t *sb, int s, const int G, __m256i *so)
{
    /* a block holds whole steps, or a step whole blocks (fused_ok): one
     * pair of scales for gpb groups of eight */
    int nan = 0, one = P->block >= P->L;
    int blk = one ? s * P->L / P->block : s * (P->L / P->block), gpb = one ? G : P->block / 8;
    __m256i v = _mm256_setzero_si256();
    for (int g = 0, left = 0; g < G; g++, left--) {
        if (!left) {
            uint32_t x = (uint32_t)sa[blk] & 0xff, y = (uint32_t)sb[blk] & 0xff;
            nan |= x == 0xff || y == 0xff;
            v = _mm256_set1_epi32((int32_t)(x + y) - 254);
            blk++;
            left = gpb;
        }
        so[g] = v;
    }
    return nan;
}

/* One step: G groups of eight products, the last one holding `tail`
 * products when tail > 0.  G and tail are constants in the common
 * kernels, so that the loops unroll into straight code; tf: an operand
 * is tf32 (shifted first); sc: MX block scales. */
V_FN uint64_t v_step(const fast_plan *P, const mma_unit *u, const int first, int s, uint64_t acc, const uint64_t *a,
                     const uint64_t *b, const uint64_t *psa, const uint64_t *psb, const int G, const int tail,
                     const int tf, const int sc)
{
    __m256i SP[8], EP[8], SG[8], SO[8];
    const __m256i zero = _mm256_setzero_si256();
    __m256i spec = zero, emv = V_LD(P->low);
    int snan = sc ? v_scales(P, psa, psb, s, G, SO) : 0;
#pragma GCC unroll 8
    for (int g = 0; g < G; g++) {
        __m256i xa, xb, sa, sb, ea, eb, valid = zero;
        const int part = tail && g == G - 1;
        v_operands(a, b, g, part ? tail : 0, tf, &P->ka, &P->kb, P->one, &xa, &xb, &sa, &sb, &ea, &eb, &valid, &spec);
        __m256i sp = _mm256_mullo_epi32(sa, sb);
        __m256i ep = _mm256_add_epi32(ea, eb);
        if (sc) ep = _mm256_add_epi32(ep, SO[g]);
        __m256i z = _mm256_cmpeq_epi32(sp, zero);
        ep = _mm256_blendv_epi8(ep, V_LD(P->ezv), z);
        if (part) ep = _mm256_blendv_epi8(V_LD(P->low), ep, valid);
        __m256i sg = _mm256_srai_epi32(_mm256_xor_si256(_mm256_sll_epi32(xa, V_CNT(P->ka.ssh)),
                                                        _mm256_sll_epi32(xb, V_CNT(P->kb.ssh))), 31);
        SG[g] = _mm256_andnot_si256(z, sg);
        SP[g] = sp;
        EP[g] = ep;
        emv = _mm256_max_epi32(emv, ep);
    }
    const fast_cfmt *cf = first ? &P->c1 : &P->cd;
    fast_c xc = c_decode(cf, acc);
    int pspec = (!_mm256_testz_si256(spec, spec)) | snan;
    if (__builtin_expect(pspec || xc.spec, 0)) return special_step(P, u, first, s, acc, a, b, psa, psb);
    int32_t emax = emax_with_c(P, v_hmax(emv) - P->bab, &xc);
    int64_t sum = 0;
    if (emax >= FAST_EMPTY / 2) {
        const __m256i ebv = _mm256_set1_epi32(emax + P->bab + P->base);
        const __m128i pre = V_CNT(P->prec);
        __m256i sv = zero;
        if (P->narrow) {                        /* 32-bit lanes suffice */
            if (!P->rd) {
#pragma GCC unroll 8
                for (int g = 0; g < G; g++) {
                    __m256i m = _mm256_sll_epi32(SP[g], pre), sh = _mm256_sub_epi32(ebv, EP[g]);
                    sv = _mm256_add_epi32(sv, _mm256_xor_si256(_mm256_srlv_epi32(m, sh), SG[g]));
                    sv = _mm256_sub_epi32(sv, SG[g]);
                }
            } else {
#pragma GCC unroll 8
                for (int g = 0; g < G; g++) {
                    __m256i m = _mm256_sll_epi32(SP[g], pre), sh = _mm256_sub_epi32(ebv, EP[g]);
                    sv = _mm256_add_epi32(sv, _mm256_xor_si256(_mm256_srlv_epi32(_mm256_add_epi32(m, SG[g]), sh), SG[g]));
                }
            }
            sum = v_hsum32(sv);
        } else {                                /* 64-bit lanes */
            for (int g = 0; g < G; g++) {
                __m256i sh32 = _mm256_sub_epi32(ebv, EP[g]);
                for (int hh = 0; hh < 2; hh++) {
                    __m128i sp4 = hh ? _mm256_extracti128_si256(SP[g], 1) : _mm256_castsi256_si128(SP[g]);
                    __m128i sh4 = hh ? _mm256_extracti128_si256(sh32, 1) : _mm256_castsi256_si128(sh32);
                    __m128i sg4 = hh ? _mm256_extracti128_si256(SG[g], 1) : _mm256_castsi256_si128(SG[g]);
                    __m256i m = _mm256_sll_epi64(_mm256_cvtepu32_epi64(sp4), pre);
                    __m256i sh = _mm256_cvtepu32_epi64(sh4), sgn = _mm256_cvtepi32_epi64(sg4);
                    if (!P->rd) {
                        sv = _mm256_add_epi64(sv, _mm256_xor_si256(_mm256_srlv_epi64(m, sh), sgn));
                        sv = _mm256_sub_epi64(sv, sgn);
                    } else {
                        sv = _mm256_add_epi64(sv, _mm256_xor_si256(_mm256_srlv_epi64(_mm256_add_epi64(m, sgn), sh), sgn));
                    }
                }
            }
            sum = v_hsum64(sv);
        }
    }
    return finish(P, emax, sum, &xc, cf, 0);
}

/* The specialized integer kernel: a and b of one width, 32-bit lanes, RZ
 * alignment, and the output (and c) one of the compile-time kinds.  Inf
 * and NaN operands are found through running maxima: of the exponent
 * fields (all ones: SPK_EXP, fp16/bf16/e5m2 only), of x & smask (equal to
 * sval: SPK_AND, e4m3 and the mixes), or not at all (SPK_NONE, fp6/fp4).
 * sc: 1 MX block scales; 2 interleaved runs of two in two steps (Hopper's
 * fp8 mma.sync: step 0 takes k = 0, 1 mod 4, step 1 k = 2, 3 mod 4, which
 * are the low and high halves of v_load8's lanes: two loads give a step's
 * group of eight by one lane permutation). */
#define SPK_EXP 0
#define SPK_AND 1
#define SPK_NONE 2
/* the nine forms of the specialized kernels, each handed to M(out, ck,
 * spk): outputs 1 and 2 (OUT_F32, OUT_E8M13) with an fp32 c, 3 (OUT_F16)
 * with an fp16 one, and the three ways of finding Inf and NaN */
#define OUT_SPK_FORMS(M) M(1, CK_F32, 0) M(1, CK_F32, 1) M(1, CK_F32, 2) M(2, CK_F32, 0) M(2, CK_F32, 1) \
    M(2, CK_F32, 2) M(3, CK_F16, 0) M(3, CK_F16, 1) M(3, CK_F16, 2)
/* group g of a step's operands (sc 2: the interleaved runs of two; tf:
 * tf32, shifted to its 19 bits) */
V_FN void s_load(const fast_plan *P, const void *pa, const void *pb, int g, int s, const int sc, const int tf,
                 const int nw, __m256i *xa, __m256i *xb)
{
    const uint64_t *a = (const uint64_t *)pa, *b = (const uint64_t *)pb;
    if (nw) {                            /* natural widths (batches): lanes in order */
        *xa = v_load8_n((const char *)pa + 8 * g * nw, nw);
        *xb = v_load8_n((const char *)pb + 8 * g * nw, nw);
        if (tf) {
            *xa = _mm256_srl_epi32(*xa, V_CNT(P->ka.shr));
            *xb = _mm256_srl_epi32(*xb, V_CNT(P->kb.shr));
        }
        return;
    }
    if (tf) {
        *xa = _mm256_srl_epi32(v_load8(a + 8 * g), V_CNT(P->ka.shr));
        *xb = _mm256_srl_epi32(v_load8(b + 8 * g), V_CNT(P->kb.shr));
        return;
    }
    if (sc == 2) {
        __m256i a0 = v_load8(a + 16 * g), a1 = v_load8(a + 16 * g + 8);
        __m256i b0 = v_load8(b + 16 * g), b1 = v_load8(b + 16 * g + 8);
        *xa = s ? _mm256_permute2x128_si256(a0, a1, 0x31) : _mm256_permute2x128_si256(a0, a1, 0x20);
        *xb = s ? _mm256_permute2x128_si256(b0, b1, 0x31) : _mm256_permute2x128_si256(b0, b1, 0x20);
    } else {
        *xa = v_load8(a + 8 * g);
        *xb = v_load8(b + 8 * g);
    }
}

/* special_step's decision for s_step's operands, eight products a
 * vector: a lane is Inf or NaN where x & smask is sval, NaN where its
 * fraction is also nonzero (e4m3's S.1111.111 included), zero where its
 * magnitude bits are; then the rules of special_step.  MX scales (sc 1)
 * have no zero and no Inf: a NaN one (snan) makes its block's products
 * NaN, and the others change no class. */
static V_TARGET __attribute__((noinline)) uint64_t s_special(const fast_plan *P, const mma_unit *u, int first, int s,
                                                            uint64_t acc, const void *a, const void *b,
                                                            const uint64_t *psa, const uint64_t *psb, int snan,
                                                            const int G, const int sc, const int tf, const int nw)
{
    if (snan) return P->o.nan;
    /* A NaN c makes the step NaN whatever its products are: with random
     * bits, a chain's later steps mostly meet the NaN of the one before */
    uint64_t x = c_class(first ? &P->c1 : &P->cd, acc);
    if (x & P_NAN) return P->o.nan;
    const fast_vop *ka = &P->ka, *kb = &P->kb;
    const __m256i zero = _mm256_setzero_si256();
    const __m128i ssh = V_CNT(ka->ssh);
    __m256i nan = zero, infp = zero, infn = zero;
    for (int g = 0; g < G; g++) {
        __m256i xa, xb;
        s_load(P, a, b, g, s, sc, tf, nw, &xa, &xb);
        __m256i spa = _mm256_cmpeq_epi32(_mm256_and_si256(xa, V_LD(ka->sm)), V_LD(ka->sv));
        __m256i spb = _mm256_cmpeq_epi32(_mm256_and_si256(xb, V_LD(kb->sm)), V_LD(kb->sv));
        __m256i fza = _mm256_cmpeq_epi32(_mm256_and_si256(xa, V_LD(ka->mm)), zero);
        __m256i fzb = _mm256_cmpeq_epi32(_mm256_and_si256(xb, V_LD(kb->mm)), zero);
        __m256i za = _mm256_cmpeq_epi32(_mm256_and_si256(xa, V_LD(P->mag_a)), zero);
        __m256i zb = _mm256_cmpeq_epi32(_mm256_and_si256(xb, V_LD(P->mag_b)), zero);
        __m256i ia = _mm256_and_si256(spa, fza), ib = _mm256_and_si256(spb, fzb);
        nan = _mm256_or_si256(nan, _mm256_or_si256(_mm256_andnot_si256(fza, spa), _mm256_andnot_si256(fzb, spb)));
        nan = _mm256_or_si256(nan, _mm256_or_si256(_mm256_and_si256(ia, zb), _mm256_and_si256(ib, za)));
        __m256i inf = _mm256_or_si256(ia, ib);
        __m256i sg = _mm256_srai_epi32(_mm256_xor_si256(_mm256_sll_epi32(xa, ssh), _mm256_sll_epi32(xb, V_CNT(kb->ssh))), 31);
        infp = _mm256_or_si256(infp, _mm256_andnot_si256(sg, inf));
        infn = _mm256_or_si256(infn, _mm256_and_si256(sg, inf));
    }
    if (!_mm256_testz_si256(nan, nan)) return P->o.nan;
    unsigned inf = (_mm256_testz_si256(infp, infp) ? 0 : 1) | (_mm256_testz_si256(infn, infn) ? 0 : 2);
    if (x & P_SPEC) inf |= (x & P_NEG) ? 2 : 1;
    if (inf == 3) return P->o.nan;
    if (inf) return P->o.inf | (inf == 2 ? P->o.sign : 0);
    /* (no Inf or NaN after all: special_step's reference, on the step's
     * products in step order as uint64_t; a, b: the whole dot's for sc 2,
     * a batch's narrow operands for nw) */
    uint64_t pa[64], pb[64];
    if (nw) return special_step(P, u, first, s, acc, fast_widen(a, nw, 8 * G, pa), fast_widen(b, nw, 8 * G, pb), NULL, NULL);
    if (sc != 2) return special_step(P, u, first, s, acc, a, b, psa, psb);
    for (int j = 0; j < P->L; j++) {
        pa[j] = ((const uint64_t *)a)[P->perm[s * P->L + j]];
        pb[j] = ((const uint64_t *)b)[P->perm[s * P->L + j]];
    }
    return special_step(P, u, first, s, acc, pa, pb, NULL, NULL);
}

V_FN uint64_t s_step(const fast_plan *P, const mma_unit *u, const int first, int s, uint64_t acc, fast_c *xcp,
                     const void *a, const void *b, const uint64_t *psa, const uint64_t *psb, const int G,
                     const int out, const int ck, const int spk, const int scw, const int via, const int nw)
{
    /* scw: sc, + 8 for a and b of 16 bits or fewer (any two widths),
     * decoded as 16-bit halves of one lane (a low, b high), + 16 for tf32
     * (else a and b of one width) */
    const int sc = scw & 3, pk = (scw >> 3) & 1, tf = scw >> 4;
    __m256i SP[4], EP[4], SG[4], SO[4];
    const __m256i zero = _mm256_setzero_si256();
    const fast_vop *ka = &P->ka, *kb = &P->kb;
    const __m128i mba = V_CNT(ka->mb), mbb = V_CNT(kb->mb), ssh = V_CNT(ka->ssh);
    __m256i smaxa = zero, smaxb = zero, emv = V_LD(P->low);
    int snan = sc == 1 ? v_scales(P, psa, psb, s, G, SO) : 0;
#pragma GCC unroll 4
    for (int g = 0; g < G; g++) {
        __m256i xa, xb;
        s_load(P, a, b, g, s, sc, tf, nw, &xa, &xb);
        if (pk) {                        /* (the fields' shifts by a multiply: one per half) */
            __m256i x = _mm256_blend_epi16(xa, _mm256_slli_epi32(xb, 16), 0xaa);
            __m256i r = _mm256_and_si256(_mm256_mulhi_epu16(x, V_LD(P->pk_shr)), V_LD(P->pk_em));
            __m256i sig = _mm256_or_si256(_mm256_and_si256(x, V_LD(P->pk_mm)),
                                          _mm256_andnot_si256(_mm256_cmpeq_epi16(r, zero), V_LD(P->pk_hid)));
            __m256i lz = zero;
            if (via) {                   /* (high bytes: index bit 7, a 0) */
                __m256i idx = _mm256_or_si256(_mm256_and_si256(sig, V_LD(P->pk_lzm)), _mm256_set1_epi16((short)0x8000));
                lz = _mm256_shuffle_epi8(V_LD(P->pk_lz), idx);
                sig = _mm256_mullo_epi16(sig, _mm256_shuffle_epi8(V_LD(P->pk_pw), idx));
            }
            if (spk == SPK_EXP) smaxa = _mm256_max_epu16(smaxa, r);
            if (spk == SPK_AND) smaxa = _mm256_max_epu16(smaxa, _mm256_and_si256(x, V_LD(P->pk_sm)));
            __m256i sp = _mm256_madd_epi16(sig, _mm256_srli_epi32(sig, 16));   /* (times the high half: 0) */
            __m256i ep = _mm256_madd_epi16(_mm256_max_epi16(r, V_LD(P->pk_one)), V_LD(P->pk_one));
            if (via) ep = _mm256_sub_epi32(ep, _mm256_madd_epi16(lz, V_LD(P->pk_one)));
            if (sc == 1) ep = _mm256_add_epi32(ep, SO[g]);
            ep = _mm256_blendv_epi8(ep, V_LD(P->ezv), _mm256_cmpeq_epi32(sp, zero));
            SG[g] = _mm256_srai_epi32(_mm256_xor_si256(_mm256_sll_epi32(xa, ssh), _mm256_sll_epi32(xb, V_CNT(kb->ssh))), 31);
            SP[g] = sp;
            EP[g] = ep;
            emv = _mm256_max_epi32(emv, ep);
            continue;
        }
        __m256i ra = _mm256_and_si256(_mm256_srl_epi32(xa, mba), V_LD(ka->em));
        __m256i rb = _mm256_and_si256(_mm256_srl_epi32(xb, mbb), V_LD(kb->em));
        __m256i sa = _mm256_or_si256(_mm256_and_si256(xa, V_LD(ka->mm)),
                                     _mm256_andnot_si256(_mm256_cmpeq_epi32(ra, zero), V_LD(ka->hid)));
        __m256i sb = _mm256_or_si256(_mm256_and_si256(xb, V_LD(kb->mm)),
                                     _mm256_andnot_si256(_mm256_cmpeq_epi32(rb, zero), V_LD(kb->hid)));
        if (spk == SPK_EXP) {
            smaxa = _mm256_max_epi32(smaxa, ra);
            smaxb = _mm256_max_epi32(smaxb, rb);
        }
        if (spk == SPK_AND) {
            smaxa = _mm256_max_epi32(smaxa, _mm256_and_si256(xa, V_LD(ka->sm)));
            smaxb = _mm256_max_epi32(smaxb, _mm256_and_si256(xb, V_LD(kb->sm)));
        }
        __m256i lz = zero;
        if (via) {                       /* a subnormal converted to fp16: the same value, normalized */
            __m256i la = _mm256_shuffle_epi8(V_LD(P->lz_a), sa), lb = _mm256_shuffle_epi8(V_LD(P->lz_b), sb);
            sa = _mm256_sllv_epi32(sa, la);
            sb = _mm256_sllv_epi32(sb, lb);
            lz = _mm256_add_epi32(la, lb);
        }
        __m256i sp = _mm256_mullo_epi32(sa, sb);
        __m256i ep = _mm256_add_epi32(_mm256_max_epi32(ra, V_LD(P->one)), _mm256_max_epi32(rb, V_LD(P->one)));
        if (via) ep = _mm256_sub_epi32(ep, lz);
        if (sc == 1) ep = _mm256_add_epi32(ep, SO[g]);
        ep = _mm256_blendv_epi8(ep, V_LD(P->ezv), _mm256_cmpeq_epi32(sp, zero));
        /* the product's sign (a zero product's does not matter with RZ) */
        SG[g] = _mm256_srai_epi32(_mm256_sll_epi32(_mm256_xor_si256(xa, xb), ssh), 31);
        SP[g] = sp;
        EP[g] = ep;
        emv = _mm256_max_epi32(emv, ep);
    }
    const fast_cfmt *cf = first ? &P->c1 : &P->cd;
    /* (the last step's result, decoded; xcp NULL: a single step) */
    fast_c xc = !xcp || xcp->spec ? c_decode_k(cf, acc, ck) : *xcp;
    int pspec = snan;
    if (pk && spk != SPK_NONE) {
        __m256i q = _mm256_cmpeq_epi16(smaxa, spk == SPK_EXP ? V_LD(P->pk_em) : V_LD(P->pk_sv));
        pspec |= !_mm256_testz_si256(q, q);
    } else if (spk != SPK_NONE) {
        __m256i qa = spk == SPK_EXP ? _mm256_cmpeq_epi32(smaxa, V_LD(ka->em)) : _mm256_cmpeq_epi32(smaxa, V_LD(ka->sv));
        __m256i qb = spk == SPK_EXP ? _mm256_cmpeq_epi32(smaxb, V_LD(kb->em)) : _mm256_cmpeq_epi32(smaxb, V_LD(kb->sv));
        pspec |= !_mm256_testz_si256(_mm256_or_si256(qa, qb), _mm256_or_si256(qa, qb));
    }
    if (__builtin_expect(pspec, 0)) {
        if (xcp) xcp->spec = 1;
        return s_special(P, u, first, s, acc, a, b, psa, psb, snan, G, sc, tf, nw);   /* (both shifts: any widths) */
    }
    if (__builtin_expect(xc.spec, 0)) {
        if (xcp) xcp->spec = 1;
        return c_decides(P, first, acc);
    }
    int32_t er = v_hmax(emv);
    int32_t ecr = xc.sig ? xc.e + P->bab : P->ez_rel;    /* c's exponent (a zero c's: ezero) */
    int32_t emr = ecr > er ? ecr : er;                  /* emax, relative */
    /* (nothing sets emax: every term is 0, so is the sum, and the rounding
     * of 0 gives +0 as the reference does) */
    const __m256i ebv = _mm256_set1_epi32(emr + P->base);
    const __m128i pre = V_CNT(P->prec);
    __m256i sv = zero;
#pragma GCC unroll 4
    for (int g = 0; g < G; g++) {
        __m256i m = _mm256_sll_epi32(SP[g], pre), sh = _mm256_sub_epi32(ebv, EP[g]);
        sv = _mm256_add_epi32(sv, _mm256_xor_si256(_mm256_srlv_epi32(m, sh), SG[g]));
        sv = _mm256_sub_epi32(sv, SG[g]);
    }
    /* (the branch-free overflow only in a batch's single steps: in a
     * chain it cost Ampere's normal inputs 8%, per call tf32's 9% and
     * ST-FDPA's 4%) */
    return finish_k(P, emr - P->bab, v_hsum32(sv), &xc, cf, out, xcp, !xcp && nw);
}

/* A dot product through s_step; nw: 0 the operands as uint64_t (mma_dot),
 * else the bytes of each (a batch at natural widths) */
V_FN uint64_t s_dot(const fast_plan *P, uint64_t c, const void *a, const void *b, const uint64_t *psa,
                    const uint64_t *psb, const int G, const int out, const int ck, const int spk, const int sc,
                    const int nw)
{
    const mma_unit *u = &P->h.u;
    const size_t st = 8 * G * (nw ? nw : 8);     /* a step's operand bytes */
    fast_c xc = {0, 0, 0, 1};                    /* (spec: decode c) */
    if (!nw && P->steps == 1)                    /* (nothing to hand on) */
        return s_step(P, u, 1, 0, c, NULL, a, b, psa, psb, G, out, ck, spk, sc, 0, nw);
    uint64_t acc = s_step(P, u, 1, 0, c, &xc, a, b, psa, psb, G, out, ck, spk, sc, 0, nw);
    const char *ca = (const char *)a, *cb = (const char *)b;
    if (!nw && P->steps == 2)                    /* (the common chain, straight; not in the batch
                                                    loops, whose two chains side by side cost
                                                    enough compile time already) */
        return s_step(P, u, 0, 1, acc, &xc, ca + st, cb + st, psa, psb, G, out, ck, spk, sc, 0, nw);
    for (int s = 1; s < P->steps; s++) {
        /* (a NaN stays one: each later step meets it as its c) */
        if (__builtin_expect(xc.spec, 0) && acc == P->o.nan) break;
        ca += st;
        cb += st;
        acc = s_step(P, u, 0, s, acc, &xc, ca, cb, psa, psb, G, out, ck, spk, sc, 0, nw);
    }
    return acc;
}

/* A batch's dot product of a single step: nothing handed on, so s_step
 * neither loops nor decodes its result for a next step */
V_FN uint64_t s_dot1(const fast_plan *P, uint64_t c, const void *a, const void *b, const uint64_t *psa,
                     const uint64_t *psb, const int G, const int out, const int ck, const int spk, const int sc,
                     const int nw)
{
    return s_step(P, &P->h.u, 1, 0, c, NULL, a, b, psa, psb, G, out, ck, spk, sc, 0, nw);
}

/* A batch's dot product of two steps (Ampere's k = 16 in steps of 8),
 * straight: the first step's result handed on decoded, a NaN kept */
V_FN uint64_t s_dot2(const fast_plan *P, uint64_t c, const void *a, const void *b, const uint64_t *psa,
                     const uint64_t *psb, const int G, const int out, const int ck, const int spk, const int sc,
                     const int nw)
{
    const mma_unit *u = &P->h.u;
    const size_t st = 8 * G * nw;                /* a step's operand bytes */
    fast_c xc = {0, 0, 0, 1};
    uint64_t acc = s_step(P, u, 1, 0, c, &xc, a, b, psa, psb, G, out, ck, spk, sc, 0, nw);
    if (__builtin_expect(xc.spec, 0) && acc == P->o.nan) return acc;
    return s_step(P, u, 0, 1, acc, &xc, (const char *)a + st, (const char *)b + st, psa, psb, G, out, ck, spk, sc, 0,
                  nw);
}

/* fast_bfn: vectors lo .. hi-1 of a batch through DOT(P, c, a, b, ...), two
 * at a time (NW: bytes an operand).  Each starts on 64 bytes: the tf32
 * batch ran 12% slower, at the same instructions, when other files'
 * growth moved it (47.8 -> 41.7 M/s on random bits, 45.8 aligned). */
#define B_RANGE(NAME, TGT, NW, DOT, ...)                                                           \
    static TGT __attribute__((aligned(64))) void NAME(const fast_hdr *h, const mma_batch *x, size_t lo, \
                                                      size_t hi)                                   \
    {                                                                                              \
        const fast_plan *P = PLAN(h);                                                              \
        const size_t st = (size_t)h->u.k * NW;                                                     \
        const char *a = (const char *)x->a, *b = (const char *)x->b;                               \
        const int cs = x->c_size, ds = x->d_size;                                                  \
        for (size_t i = lo; i < hi; i += 2) {   /* (an odd last one: computed twice) */            \
            size_t j = i + 1 < hi ? i + 1 : i;                                                     \
            uint64_t d0 = DOT(P, fast_ld(x->c, cs, i), a + i * st, b + i * st, __VA_ARGS__);          \
            uint64_t d1 = DOT(P, fast_ld(x->c, cs, j), a + j * st, b + j * st, __VA_ARGS__);          \
            fast_st(x->d, ds, j, d1);                                                                 \
            fast_st(x->d, ds, i, d0);                                                                 \
        }                                                                                          \
    }

#define S_KERNEL(NAME, G, OUT, CK, SPK, SC)                                                        \
    static V_TARGET uint64_t NAME(const fast_hdr *h, uint64_t c, const uint64_t *a, const uint64_t *b, \
                                  const uint64_t *sa, const uint64_t *sb)                          \
    {                                                                                              \
        return s_dot(PLAN(h), c, a, b, sa, sb, G, OUT, CK, SPK, SC, 0);                            \
    }
#define S_KERNELS(OUT, CK, SPK, SC) S_KERNEL(fast_s_1_##OUT##_##SPK##_##SC, 1, OUT, CK, SPK, SC) \
    S_KERNEL(fast_s_2_##OUT##_##SPK##_##SC, 2, OUT, CK, SPK, SC) S_KERNEL(fast_s_4_##OUT##_##SPK##_##SC, 4, OUT, CK, SPK, SC)
/* the batch ranges at natural widths: NW bytes an operand (1 or 2; 4 for tf32) */
#define S_BATCH(NAME, G, OUT, CK, SPK, SC, NW) B_RANGE(NAME, V_TARGET, NW, s_dot, NULL, NULL, G, OUT, CK, SPK, SC, NW)
#define S_BATCHES_W(OUT, CK, SPK, SC, NW) S_BATCH(fast_sb##NW##_1_##OUT##_##SPK##_##SC, 1, OUT, CK, SPK, SC, NW) \
    S_BATCH(fast_sb##NW##_2_##OUT##_##SPK##_##SC, 2, OUT, CK, SPK, SC, NW)                         \
    S_BATCH(fast_sb##NW##_4_##OUT##_##SPK##_##SC, 4, OUT, CK, SPK, SC, NW)
#define S_KERNELS_N(OUT, CK, SPK, SC) S_KERNELS(OUT, CK, SPK, SC) S_BATCHES_W(OUT, CK, SPK, SC, 1) \
    S_BATCHES_W(OUT, CK, SPK, SC, 2)
S_KERNELS_N(1, CK_F32, 0, 8) S_KERNELS_N(1, CK_F32, 1, 8) S_KERNELS_N(1, CK_F32, 2, 8)
S_KERNELS_N(2, CK_F32, 0, 8) S_KERNELS_N(2, CK_F32, 1, 8) S_KERNELS_N(2, CK_F32, 2, 8)
S_KERNELS_N(3, CK_F16, 0, 8) S_KERNELS_N(3, CK_F16, 1, 8) S_KERNELS_N(3, CK_F16, 2, 8)
S_KERNELS(1, CK_F32, 0, 9) S_KERNELS(1, CK_F32, 1, 9) S_KERNELS(1, CK_F32, 2, 9)
S_KERNELS(1, CK_F32, 1, 16) S_BATCHES_W(1, CK_F32, 1, 16, 4)
#define S_BATCH2(OUT, CK, SPK) B_RANGE(fast_sb2s2_##OUT##_##SPK, V_TARGET, 2, s_dot2, NULL, NULL, 1, OUT, CK, SPK, 8, 2)
OUT_SPK_FORMS(S_BATCH2)
#undef S_BATCH2
#define S_BATCH1(NAME, G) B_RANGE(NAME, V_TARGET, 4, s_dot1, NULL, NULL, G, 1, CK_F32, 1, 16, 4)
S_BATCH1(fast_sb4s1_1, 1) S_BATCH1(fast_sb4s1_2, 2) S_BATCH1(fast_sb4s1_4, 4)
#undef S_BATCH1
#undef S_KERNELS_N
#undef S_BATCHES_W
#undef S_BATCH
#undef S_KERNELS
#undef S_KERNEL
#define S_ROW(OUT, SPK, SC) {fast_s_1_##OUT##_##SPK##_##SC, fast_s_2_##OUT##_##SPK##_##SC, fast_s_4_##OUT##_##SPK##_##SC}
#define S_ROWB(NW, OUT, SPK, SC) {fast_sb##NW##_1_##OUT##_##SPK##_##SC, fast_sb##NW##_2_##OUT##_##SPK##_##SC, fast_sb##NW##_4_##OUT##_##SPK##_##SC}
/* operands of 16 bits or fewer, any two widths, decoded in halves */
static const fast_fn s_kernels[3][3][3] = {   /* [out - 1][spk][G: 1 2 4] */
    {S_ROW(1, 0, 8), S_ROW(1, 1, 8), S_ROW(1, 2, 8)}, {S_ROW(2, 0, 8), S_ROW(2, 1, 8), S_ROW(2, 2, 8)},
    {S_ROW(3, 0, 8), S_ROW(3, 1, 8), S_ROW(3, 2, 8)}};
/* the same for batches, both operands of one byte or both of two */
static const fast_bfn s_batches[2][3][3][3] = {   /* [bytes - 1][out - 1][spk][G] */
    {{S_ROWB(1, 1, 0, 8), S_ROWB(1, 1, 1, 8), S_ROWB(1, 1, 2, 8)},
     {S_ROWB(1, 2, 0, 8), S_ROWB(1, 2, 1, 8), S_ROWB(1, 2, 2, 8)},
     {S_ROWB(1, 3, 0, 8), S_ROWB(1, 3, 1, 8), S_ROWB(1, 3, 2, 8)}},
    {{S_ROWB(2, 1, 0, 8), S_ROWB(2, 1, 1, 8), S_ROWB(2, 1, 2, 8)},
     {S_ROWB(2, 2, 0, 8), S_ROWB(2, 2, 1, 8), S_ROWB(2, 2, 2, 8)},
     {S_ROWB(2, 3, 0, 8), S_ROWB(2, 3, 1, 8), S_ROWB(2, 3, 2, 8)}}};
/* two steps of eight, operands of two bytes: [out - 1][spk] */
static const fast_bfn s_batches2[3][3] = {{fast_sb2s2_1_0, fast_sb2s2_1_1, fast_sb2s2_1_2},
                                          {fast_sb2s2_2_0, fast_sb2s2_2_1, fast_sb2s2_2_2},
                                          {fast_sb2s2_3_0, fast_sb2s2_3_1, fast_sb2s2_3_2}};
static const fast_fn s_kernels_mx[3][3] = {   /* fp32 RZ p = 23, MX scales: [spk][G] */
    S_ROW(1, 0, 9), S_ROW(1, 1, 9), S_ROW(1, 2, 9)};
static const fast_fn s_kernels_tf[3] = S_ROW(1, 1, 16);   /* tf32, fp32 RZ p = 23: [G] */
static const fast_bfn s_batches_tf[2][3] = {S_ROWB(4, 1, 1, 16),   /* [one step][G] */
                                            {fast_sb4s1_1, fast_sb4s1_2, fast_sb4s1_4}};
#undef S_ROWB
#undef S_ROW

/* ---- tf32 batches: a dot product a lane ----------------------------------- */

/* Why: s_step puts a step's eight products in one vector, but its end (the
 * largest exponent and the sum across the lanes, c's join, the rounding) is
 * scalar, and a batch of tf32 wgmma took 182 instructions a dot product so.
 * Eight dot products, one a 32-bit lane, share every instruction instead
 * (as fast_amd.c's amd_lstep does for CDNA3): operand j of eight dot
 * products is one vector, the largest exponent and the aligned sum are
 * vertical, and the rounding is the host's conversion of the lane's int32
 * sum to binary32 (to nearest), stepped one unit toward zero where it went
 * up, which is round_f32rz's RZ to 24 bits, then moved by emax - F in the
 * exponent field.  The same fused sum as s_step: products exact, aligned
 * to the largest exponent (a zero product's and a zero c's: ezero), cut
 * toward zero at F fraction bits, summed with c, one rounding.  A lane
 * whose result overflows takes Inf of the sum's sign (round_f32rz); one
 * whose c is Inf (a chain's later step after an overflow, mostly) and whose
 * products are finite takes c (c_decides).  Lanes that meet an Inf or NaN
 * operand, a NaN c, or a result below fp32's normal range are done again by
 * the plan's one-vector kernel.  The units: tf32 operands, c and d fp32,
 * RZ to p = 23, steps of 4 or 8 (t_lanes_ok). */
#ifdef FAST_HAVE_AVX2

/* whether P's unit takes the lane loop: besides the specialized tf32
 * kernels' conditions, a lane's sum (L products below 2^(F+2) units and c
 * below 2^(F+1)) must fit int32, and a vector's operands a local copy */
static int t_lanes_ok(const fast_plan *P, const mma_unit *u)
{
    return u->a == MMA_FMT_TF32 && u->b == MMA_FMT_TF32 && u->c == MMA_FMT_FP32 && u->d == MMA_FMT_FP32 &&
           u->rho == MMA_RZ && u->p == 23 && !P->rd && !P->scaled && !P->permute && !P->after &&
           (P->L == 4 || P->L == 8) && u->k <= 32 && P->c1.tab == NULL &&
           ((int64_t)P->L << (u->f + 2)) + ((int64_t)1 << (u->f + 1)) < ((int64_t)1 << 31) &&
           (!P->zeros_part || (P->ez_rel > -(1 << 20) && P->ez_rel < (1 << 20)));
}

/* One step of eight dot products, dot v in lane v: xa[j], xb[j] operand j
 * of each (fp32 layout), c their accumulators (fp32 bits).  Returns the
 * step's results; or's into *rare the lanes to be done again. */
V_FN __m256i t_lstep(const fast_plan *P, __m256i c, const __m256i *xa, const __m256i *xb, const int L, __m256i *rare)
{
    const __m256i zero = _mm256_setzero_si256(), one = _mm256_set1_epi32(1);
    const __m256i mag = _mm256_set1_epi32(0x7fffe000), h10 = _mm256_set1_epi32(0x400);
    const __m256i ezv = _mm256_set1_epi32(P->ez_rel), finf = _mm256_set1_epi32(0x7f800000);
    const __m128i pre = _mm_cvtsi32_si128(P->pre);
    __m256i SP[8], EP[8], SG[8], amax = zero, emv = _mm256_set1_epi32(V_LOW);
#pragma GCC unroll 8
    for (int j = 0; j < L; j++) {
        /* the magnitudes' tf32 bits: their largest says Inf (0x7f800000)
         * or NaN (above) */
        __m256i ma = _mm256_and_si256(xa[j], mag), mb = _mm256_and_si256(xb[j], mag);
        amax = _mm256_max_epi32(amax, _mm256_max_epi32(ma, mb));
        /* exponent field e, max(e, 1), and the significand: the fields
         * e:m less (max(e, 1) - 1) units of 2^10 (the hidden bit where
         * normal) */
        __m256i ya = _mm256_srli_epi32(ma, 13), yb = _mm256_srli_epi32(mb, 13);
        __m256i ea = _mm256_max_epi32(_mm256_srli_epi32(ma, 23), one), eb = _mm256_max_epi32(_mm256_srli_epi32(mb, 23), one);
        __m256i sa = _mm256_add_epi32(_mm256_sub_epi32(ya, _mm256_slli_epi32(ea, 10)), h10);
        __m256i sb = _mm256_add_epi32(_mm256_sub_epi32(yb, _mm256_slli_epi32(eb, 10)), h10);
        __m256i sp = _mm256_madd_epi16(sa, sb);                           /* (high halves 0) */
        __m256i ep = _mm256_add_epi32(ea, eb);
        emv = _mm256_max_epi32(emv, _mm256_blendv_epi8(ep, ezv, _mm256_cmpeq_epi32(sp, zero)));
        EP[j] = ep;                      /* (a zero product's shift does not matter) */
        SP[j] = _mm256_sll_epi32(sp, pre);
        SG[j] = _mm256_or_si256(_mm256_xor_si256(xa[j], xb[j]), one);   /* psignd: never 0 */
    }
    /* c: its exponent relative as the products' (bias_a + bias_b added),
     * its significand; Inf or NaN apart */
    __m256i cabs = _mm256_and_si256(c, _mm256_set1_epi32(0x7fffffff));
    __m256i ce = _mm256_srli_epi32(cabs, 23);
    __m256i csig = _mm256_or_si256(_mm256_and_si256(c, _mm256_set1_epi32(0x7fffff)),
                                   _mm256_slli_epi32(_mm256_min_epu32(ce, one), 23));
    __m256i ec = _mm256_add_epi32(_mm256_max_epi32(ce, one), _mm256_set1_epi32(P->bab - 127));
    __m256i emax = _mm256_max_epi32(emv, _mm256_blendv_epi8(ec, ezv, _mm256_cmpeq_epi32(csig, zero)));
    /* the aligned sum, each term cut toward zero at emax - F */
    const __m256i ebv = _mm256_add_epi32(emax, _mm256_set1_epi32(P->base));
    __m256i sum = _mm256_srlv_epi32(_mm256_sll_epi32(csig, _mm_cvtsi32_si128(P->c1.pre)),
                                    _mm256_sub_epi32(_mm256_add_epi32(emax, _mm256_set1_epi32(P->c1.base)), ec));
    sum = _mm256_sign_epi32(sum, _mm256_or_si256(c, one));
#pragma GCC unroll 8
    for (int j = 0; j < L; j++)
        sum = _mm256_add_epi32(sum, _mm256_sign_epi32(_mm256_srlv_epi32(SP[j], _mm256_sub_epi32(ebv, EP[j])), SG[j]));
    /* RZ to 24 bits: to nearest by the conversion (|sum| < 2^31 - 2^7: no
     * overflow back), one unit toward zero where that grew |sum| */
    __m256 f = _mm256_cvtepi32_ps(sum);
    __m256i sgn = _mm256_srai_epi32(sum, 31);
    __m256i up = _mm256_cmpgt_epi32(_mm256_xor_si256(_mm256_cvttps_epi32(f), sgn), _mm256_xor_si256(sum, sgn));
    __m256i fb = _mm256_add_epi32(_mm256_castps_si256(f), up);
    /* times 2^(emax - F): the result's biased exponent must lie in 1..254 */
    __m256i lsb = _mm256_sub_epi32(emax, _mm256_set1_epi32(P->bab + P->f));
    __m256i be = _mm256_add_epi32(_mm256_srli_epi32(_mm256_slli_epi32(fb, 1), 24), lsb);
    __m256i r = _mm256_add_epi32(fb, _mm256_slli_epi32(lsb, 23));
    __m256i iszero = _mm256_cmpeq_epi32(sum, zero);
    __m256i ovf = _mm256_cmpgt_epi32(be, _mm256_set1_epi32(254));
    __m256i tiny = _mm256_andnot_si256(iszero, _mm256_cmpgt_epi32(one, be));
    r = _mm256_blendv_epi8(r, _mm256_or_si256(finf, _mm256_slli_epi32(sgn, 31)), ovf);
    r = _mm256_andnot_si256(iszero, r);                                   /* an exact zero: +0 */
    /* specials (special_step, c_decides): a NaN operand or c gives the
     * NaN; an Inf c with finite products gives c; an Inf operand goes
     * to the plan's kernel */
    __m256i cinf = _mm256_cmpeq_epi32(cabs, finf);
    __m256i nan = _mm256_or_si256(_mm256_cmpgt_epi32(amax, finf), _mm256_cmpgt_epi32(cabs, finf));
    __m256i inf = _mm256_cmpeq_epi32(amax, finf);
    r = _mm256_blendv_epi8(r, c, cinf);
    r = _mm256_blendv_epi8(r, _mm256_set1_epi32((int32_t)P->o.nan), nan);
    *rare = _mm256_or_si256(*rare, _mm256_andnot_si256(nan, _mm256_or_si256(inf, _mm256_andnot_si256(cinf, tiny))));
    return r;
}

/* fast_bfn: eight dot products at a time (t_lstep); the lanes to do again
 * by the plan's kernel (fn, on the operands widened); a last group of
 * fewer than eight vectors copied into zeros first */
V_FN void t_lanes(const fast_hdr *h, const mma_batch *x, size_t lo, size_t hi, const int L)
{
    const fast_plan *P = PLAN(h);
    const int k = h->u.k;
    const size_t st = (size_t)k * 4;
    const char *a = (const char *)x->a, *b = (const char *)x->b;
    const int cs = x->c_size, ds = x->d_size;
    uint32_t ta[8 * 32], tb[8 * 32];
    for (size_t i = lo; i < hi; i += 8) {
        const int n = hi - i < 8 ? (int)(hi - i) : 8;
        uint32_t cv[8] = {0}, rv[8];
        const char *pa = a + i * st, *pb = b + i * st;
        if (n < 8) {
            memset(ta, 0, sizeof ta);
            memset(tb, 0, sizeof tb);
            memcpy(ta, pa, (size_t)n * st);
            memcpy(tb, pb, (size_t)n * st);
            pa = (const char *)ta;
            pb = (const char *)tb;
        }
        __m256i r;
        if (cs == 4 && n == 8) {
            r = V_LD((const uint32_t *)x->c + i);
        } else {
            for (int v = 0; v < n; v++) cv[v] = (uint32_t)fast_ld(x->c, cs, i + (size_t)v);
            r = V_LD(cv);
        }
        const __m256i c0 = r;
        __m256i rare = _mm256_setzero_si256();
        for (int s = 0; s < P->steps; s++) {
            __m256i xa[8], xb[8];
#pragma GCC unroll 2
            for (int q = 0; q < L / 4; q++) {
                v_load8x16_t(pa + 16 * (size_t)(s * L / 4 + q), st, xa + 4 * q);
                v_load8x16_t(pb + 16 * (size_t)(s * L / 4 + q), st, xb + 4 * q);
            }
            r = t_lstep(P, r, xa, xb, L, &rare);
        }
        unsigned m = (unsigned)_mm256_movemask_ps(_mm256_castsi256_ps(rare)) & ((1u << n) - 1);
        if (ds == 4 && n == 8 && !m) {
            _mm256_storeu_si256((__m256i *)((uint32_t *)x->d + i), r);
            continue;
        }
        _mm256_storeu_si256((__m256i *)rv, r);
        _mm256_storeu_si256((__m256i *)cv, c0);
        while (m) {
            int v = __builtin_ctz(m);
            uint64_t wa[32], wb[32];
            m &= m - 1;
            rv[v] = (uint32_t)h->fn(h, cv[v], fast_widen(pa + (size_t)v * st, 4, k, wa),
                                    fast_widen(pb + (size_t)v * st, 4, k, wb), NULL, NULL);
        }
        for (int v = 0; v < n; v++) fast_st(x->d, ds, i + (size_t)v, rv[v]);
    }
}
static V_TARGET void t_lanes_4(const fast_hdr *h, const mma_batch *x, size_t lo, size_t hi)
{
    t_lanes(h, x, lo, hi, 4);
}
static V_TARGET void t_lanes_8(const fast_hdr *h, const mma_batch *x, size_t lo, size_t hi)
{
    t_lanes(h, x, lo, hi, 8);
}
#endif

/* Steps of four products (Volta's f16, the tf32 units): two steps
 * decoded together in one vector (step s in the low half, s + 1 in the
 * high one), each then aligned, summed and rounded in 128 bits.  The
 * specialized kernel's conditions otherwise; tf: tf32 operands. */
V_FN void q_decode(const fast_plan *P, const uint64_t *a, const uint64_t *b, const int two, const int spk, const int tf,
                   __m256i *SP, __m256i *EP, __m256i *SG, int *spec)
{
    const __m256i zero = _mm256_setzero_si256();
    const fast_vop *ka = &P->ka, *kb = &P->kb;
    __m256i xa, xb;
    if (two) {                           /* operands 0..7 in order */
        xa = _mm256_permute4x64_epi64(v_load8(a), 0xd8);
        xb = _mm256_permute4x64_epi64(v_load8(b), 0xd8);
    } else {                             /* 0..3, twice */
        const __m256i idx = _mm256_setr_epi32(0, 2, 4, 6, 0, 2, 4, 6);
        xa = _mm256_permutevar8x32_epi32(V_LD(a), idx);
        xb = _mm256_permutevar8x32_epi32(V_LD(b), idx);
    }
    if (tf) {
        xa = _mm256_srl_epi32(xa, V_CNT(ka->shr));
        xb = _mm256_srl_epi32(xb, V_CNT(kb->shr));
    }
    __m256i ra = _mm256_and_si256(_mm256_srl_epi32(xa, V_CNT(ka->mb)), V_LD(ka->em));
    __m256i rb = _mm256_and_si256(_mm256_srl_epi32(xb, V_CNT(kb->mb)), V_LD(kb->em));
    __m256i sa = _mm256_or_si256(_mm256_and_si256(xa, V_LD(ka->mm)),
                                 _mm256_andnot_si256(_mm256_cmpeq_epi32(ra, zero), V_LD(ka->hid)));
    __m256i sb = _mm256_or_si256(_mm256_and_si256(xb, V_LD(kb->mm)),
                                 _mm256_andnot_si256(_mm256_cmpeq_epi32(rb, zero), V_LD(kb->hid)));
    __m256i q = zero;
    if (spk == SPK_EXP) q = _mm256_or_si256(_mm256_cmpeq_epi32(ra, V_LD(ka->em)), _mm256_cmpeq_epi32(rb, V_LD(kb->em)));
    if (spk == SPK_AND)
        q = _mm256_or_si256(_mm256_cmpeq_epi32(_mm256_and_si256(xa, V_LD(ka->sm)), V_LD(ka->sv)),
                            _mm256_cmpeq_epi32(_mm256_and_si256(xb, V_LD(kb->sm)), V_LD(kb->sv)));
    *spec = _mm256_movemask_ps(_mm256_castsi256_ps(q));
    __m256i sp = _mm256_mullo_epi32(sa, sb);
    __m256i ep = _mm256_add_epi32(_mm256_max_epi32(ra, V_LD(P->one)), _mm256_max_epi32(rb, V_LD(P->one)));
    *EP = _mm256_blendv_epi8(ep, V_LD(P->ezv), _mm256_cmpeq_epi32(sp, zero));
    *SG = _mm256_srai_epi32(_mm256_sll_epi32(_mm256_xor_si256(xa, xb), V_CNT(ka->ssh)), 31);
    *SP = sp;
}

/* one step of four (a, b: its operands; spec: its Inf/NaN lanes) */
V_FN uint64_t q_step(const fast_plan *P, const mma_unit *u, int first, int s, uint64_t acc, fast_c *xcp, __m128i sp,
                     __m128i ep, __m128i sg, int spec, const uint64_t *a, const uint64_t *b, const int out, const int ck)
{
    const fast_cfmt *cf = first ? &P->c1 : &P->cd;
    fast_c xc = xcp->spec ? c_decode_k(cf, acc, ck) : *xcp;
    if (__builtin_expect(spec | xc.spec, 0)) {
        xcp->spec = 1;
        return special_step(P, u, first, s, acc, a, b, NULL, NULL);
    }
    __m128i m = _mm_max_epi32(ep, _mm_shuffle_epi32(ep, 0x4e));
    m = _mm_max_epi32(m, _mm_shuffle_epi32(m, 0xb1));
    int32_t er = _mm_cvtsi128_si32(m);
    int32_t ecr = xc.sig ? xc.e + P->bab : P->ez_rel;
    int32_t emr = ecr > er ? ecr : er;
    __m128i t = _mm_srlv_epi32(_mm_sll_epi32(sp, V_CNT(P->prec)), _mm_sub_epi32(_mm_set1_epi32(emr + P->base), ep));
    t = _mm_sub_epi32(_mm_xor_si128(t, sg), sg);
    return finish_k(P, emr - P->bab, v_hsum64(_mm256_cvtepi32_epi64(t)), &xc, cf, out, xcp, 0);
}

#define Q_KERNEL(NAME, OUT, CK, SPK, TF)                                                           \
    static V_TARGET uint64_t NAME(const fast_hdr *h, uint64_t c, const uint64_t *a, const uint64_t *b, \
                                  const uint64_t *sa, const uint64_t *sb)                          \
    {                                                                                              \
        const fast_plan *P = PLAN(h);                                                              \
        const mma_unit *u = &h->u;                                                                 \
        fast_c xc;                                                                                 \
        xc.spec = 1;                                                                               \
        uint64_t acc = c;                                                                          \
        __m256i SP, EP, SG;                                                                        \
        int s = 0, spec;                                                                           \
        (void)sa;                                                                                  \
        (void)sb;                                                                                  \
        for (; s + 2 <= P->steps; s += 2, a += 8, b += 8) {                                        \
            q_decode(P, a, b, 1, SPK, TF, &SP, &EP, &SG, &spec);                                   \
            acc = q_step(P, u, s == 0, s, acc, &xc, _mm256_castsi256_si128(SP), _mm256_castsi256_si128(EP), \
                         _mm256_castsi256_si128(SG), spec & 15, a, b, OUT, CK);                    \
            acc = q_step(P, u, 0, s + 1, acc, &xc, _mm256_extracti128_si256(SP, 1),                \
                         _mm256_extracti128_si256(EP, 1), _mm256_extracti128_si256(SG, 1), spec >> 4, \
                         a + 4, b + 4, OUT, CK);                                                   \
        }                                                                                          \
        if (s < P->steps) {                                                                        \
            q_decode(P, a, b, 0, SPK, TF, &SP, &EP, &SG, &spec);                                   \
            acc = q_step(P, u, s == 0, s, acc, &xc, _mm256_castsi256_si128(SP), _mm256_castsi256_si128(EP), \
                         _mm256_castsi256_si128(SG), spec & 15, a, b, OUT, CK);                    \
        }                                                                                          \
        return acc;                                                                                \
    }
#define Q_KERNELS(OUT, CK, SPK) Q_KERNEL(fast_q_##OUT##_##SPK##_0, OUT, CK, SPK, 0) \
    Q_KERNEL(fast_q_##OUT##_##SPK##_1, OUT, CK, SPK, 1)
OUT_SPK_FORMS(Q_KERNELS)
#undef Q_KERNELS
#undef Q_KERNEL
#define Q_ROW(OUT, SPK) {fast_q_##OUT##_##SPK##_0, fast_q_##OUT##_##SPK##_1}
static const fast_fn q_kernels[3][3][2] = {   /* [out - 1][spk][tf] */
    {Q_ROW(1, 0), Q_ROW(1, 1), Q_ROW(1, 2)}, {Q_ROW(2, 0), Q_ROW(2, 1), Q_ROW(2, 2)},
    {Q_ROW(3, 0), Q_ROW(3, 1), Q_ROW(3, 2)}};
#undef Q_ROW

/* Hopper's fp8 mma.sync: two interleaved steps from +0, then c added.
 * VIA: the operands converted to fp16 (s_step normalizes subnormals, in
 * 32-bit lanes); without it, the 16-bit halves' decoding. */
#define S_KERNEL_IL2(NAME, G, OUT, CK, SPK, VIA)                                                   \
    static V_TARGET uint64_t NAME(const fast_hdr *h, uint64_t c, const uint64_t *a, const uint64_t *b, \
                                  const uint64_t *sa, const uint64_t *sb)                          \
    {                                                                                              \
        const fast_plan *P = PLAN(h);                                                              \
        const mma_unit *u = &h->u;                                                                 \
        fast_c xc;                                                                                 \
        xc.spec = 1;                                                                               \
        uint64_t acc = s_step(P, u, 1, 0, 0, &xc, a, b, sa, sb, G, OUT, CK, SPK, VIA == 1 ? 2 : 2 + 8, VIA, 0); \
        if (OUT == OUT_F16 ? (acc & 0x7fff) > 0x7c00 : (acc & 0x7fffffff) > 0x7f800000)            \
            return P->cnan;              /* a NaN stays one, and the addition makes it canonical */ \
        acc = s_step(P, u, 0, 1, acc, &xc, a, b, sa, sb, G, OUT, CK, SPK, VIA == 1 ? 2 : 2 + 8, VIA, 0); \
        return ieee_add(P, u, c, acc);                                                             \
    }
#define S_KERNELS_IL2(OUT, CK, SPK, VIA) S_KERNEL_IL2(fast_il2_1_##OUT##_##SPK##_##VIA, 1, OUT, CK, SPK, VIA) \
    S_KERNEL_IL2(fast_il2_2_##OUT##_##SPK##_##VIA, 2, OUT, CK, SPK, VIA)
S_KERNELS_IL2(1, CK_F32, 0, 0) S_KERNELS_IL2(1, CK_F32, 1, 0) S_KERNELS_IL2(1, CK_F32, 2, 0)
S_KERNELS_IL2(3, CK_F16, 0, 0) S_KERNELS_IL2(3, CK_F16, 1, 0) S_KERNELS_IL2(3, CK_F16, 2, 0)
S_KERNELS_IL2(1, CK_F32, 0, 1) S_KERNELS_IL2(1, CK_F32, 1, 1) S_KERNELS_IL2(1, CK_F32, 2, 1)
S_KERNELS_IL2(3, CK_F16, 0, 1) S_KERNELS_IL2(3, CK_F16, 1, 1) S_KERNELS_IL2(3, CK_F16, 2, 1)
S_KERNELS_IL2(1, CK_F32, 0, 2) S_KERNELS_IL2(1, CK_F32, 1, 2) S_KERNELS_IL2(1, CK_F32, 2, 2)
S_KERNELS_IL2(3, CK_F16, 0, 2) S_KERNELS_IL2(3, CK_F16, 1, 2) S_KERNELS_IL2(3, CK_F16, 2, 2)
#undef S_KERNELS_IL2
#undef S_KERNEL_IL2
#define S_ROW(OUT, SPK, VIA) {fast_il2_1_##OUT##_##SPK##_##VIA, fast_il2_2_##OUT##_##SPK##_##VIA}
/* [via: none, 32-bit lanes, 16-bit halves][f32, f16][spk][G: 1 2] */
static const fast_fn s_kernels_il2[3][2][3][2] = {
    {{S_ROW(1, 0, 0), S_ROW(1, 1, 0), S_ROW(1, 2, 0)}, {S_ROW(3, 0, 0), S_ROW(3, 1, 0), S_ROW(3, 2, 0)}},
    {{S_ROW(1, 0, 1), S_ROW(1, 1, 1), S_ROW(1, 2, 1)}, {S_ROW(3, 0, 1), S_ROW(3, 1, 1), S_ROW(3, 2, 1)}},
    {{S_ROW(1, 0, 2), S_ROW(1, 1, 2), S_ROW(1, 2, 2)}, {S_ROW(3, 0, 2), S_ROW(3, 1, 2), S_ROW(3, 2, 2)}}};
#undef S_ROW

/* ---- AVX-512: 32 products in 16-bit lanes ----------------------------- */

/* Hopper's fp8 fused sum (wgmma, F = 13) fits a 16-bit lane: an 8-bit
 * operand's significand has at most 4 bits, a product 8, and aligned with
 * its pre-shift it stays below 2^15; AVX-512 BW shifts each 16-bit lane by
 * its own count (vpsrlvw), so the 32 products of a step are one register:
 * decoded, aligned to emax, negated where negative and summed in pairs to
 * 32 bits.  The same semantics as s_step (RZ alignment; a zero product
 * counts with ezero; Inf and NaN steps go to s_special). */
#define W_TARGET __attribute__((target(FAST_ISA_AVX512)))
#define W_FN static inline __attribute__((always_inline, target(FAST_ISA_AVX512)))
#define W_LD(p) _mm512_loadu_si512((const void *)(p))

/* a step's 32 operands of one side as 16-bit lanes, k in order: bytes
 * (nw 1) widened, or the low word of each uint64_t picked by vpermt2w */
W_FN __m512i w_load(const fast_plan *P, const void *p, int i, const int nw)
{
    __m512i x;
    if (nw == 1) {
        x = _mm512_cvtepu8_epi16(_mm256_loadu_si256((const __m256i *)p));
    } else {
        const uint64_t *q = (const uint64_t *)p;
        __m512i lo = _mm512_permutex2var_epi16(W_LD(q), W_LD(P->w_idx), W_LD(q + 8));
        __m512i hi = _mm512_permutex2var_epi16(W_LD(q + 16), W_LD(P->w_idx), W_LD(q + 24));
        x = _mm512_inserti64x4(lo, _mm512_castsi512_si256(hi), 1);
    }
    return _mm512_and_si512(x, W_LD(P->w_wm[i]));
}

/* rare: for a dot product of one step through mma_dot, the kernel that
 * takes over when an operand or c is Inf or NaN (the whole dot product
 * again, as a tail call): with no call left on the common path the
 * kernel saves no registers and aligns no stack, which was a tenth of
 * its instructions. */
W_FN uint64_t w_step(const fast_plan *P, const mma_unit *u, const int first, int s, uint64_t acc, fast_c *xcp,
                     const void *a, const void *b, const int out, const int ck, const int spk, const int nw,
                     const fast_fn rare)
{
    const __m512i zero = _mm512_setzero_si512(), one = W_LD(P->w_one);
    __m512i xa = w_load(P, a, 0, nw), xb = w_load(P, b, 1, nw);
    __m512i ra = _mm512_and_si512(_mm512_srl_epi16(xa, V_CNT(P->ka.mb)), W_LD(P->w_em[0]));
    __m512i rb = _mm512_and_si512(_mm512_srl_epi16(xb, V_CNT(P->kb.mb)), W_LD(P->w_em[1]));
    __m512i sa = _mm512_and_si512(xa, W_LD(P->w_mm[0])), sb = _mm512_and_si512(xb, W_LD(P->w_mm[1]));
    sa = _mm512_mask_add_epi16(sa, _mm512_test_epi16_mask(ra, ra), sa, W_LD(P->w_hid[0]));
    sb = _mm512_mask_add_epi16(sb, _mm512_test_epi16_mask(rb, rb), sb, W_LD(P->w_hid[1]));
    __m512i sp = _mm512_mullo_epi16(sa, sb);
    __m512i ep = _mm512_add_epi16(_mm512_max_epu16(ra, one), _mm512_max_epu16(rb, one));
    ep = _mm512_mask_mov_epi16(ep, _mm512_testn_epi16_mask(sp, sp), W_LD(P->w_ezv));
    __mmask32 neg = _mm512_movepi16_mask(
        _mm512_xor_si512(_mm512_sll_epi16(xa, V_CNT(P->w_ss[0])), _mm512_sll_epi16(xb, V_CNT(P->w_ss[1]))));
    __mmask32 spec = 0;
    if (spk == SPK_AND)
        spec = _mm512_cmpeq_epi16_mask(_mm512_and_si512(xa, W_LD(P->w_sm[0])), W_LD(P->w_sv[0])) |
               _mm512_cmpeq_epi16_mask(_mm512_and_si512(xb, W_LD(P->w_sm[1])), W_LD(P->w_sv[1]));
    if (spk == SPK_EXP)
        spec = _mm512_cmpeq_epi16_mask(ra, W_LD(P->w_em[0])) | _mm512_cmpeq_epi16_mask(rb, W_LD(P->w_em[1]));
    const fast_cfmt *cf = first ? &P->c1 : &P->cd;
    fast_c xc = !xcp || xcp->spec ? c_decode_k(cf, acc, ck) : *xcp;
    if (__builtin_expect(spec | (unsigned)xc.spec, 0)) {
        if (rare) return rare(&P->h, acc, (const uint64_t *)a, (const uint64_t *)b, NULL, NULL);
        if (xcp) xcp->spec = 1;
        /* (formats with no Inf, e4m3: an Inf/NaN lane is a NaN operand, and
         * a NaN term makes the step's result NaN whatever c is) */
        if (spk == SPK_AND && spec && P->w_nan_only) return P->o.nan;
        return s_special(P, u, first, s, acc, a, b, NULL, NULL, 0, 4, 0, 0, nw);
    }
    /* emax of the products: the largest signed word, as the smallest of
     * 0x7fff - x (phminposuw); -32768 in every lane: none */
    __m256i m8 = _mm256_max_epi16(_mm512_castsi512_si256(ep), _mm512_extracti64x4_epi64(ep, 1));
    __m128i m4 = _mm_max_epi16(_mm256_castsi256_si128(m8), _mm256_extracti128_si256(m8, 1));
    int32_t er = 0x7fff - (int32_t)(uint16_t)_mm_cvtsi128_si32(_mm_minpos_epu16(_mm_sub_epi16(_mm_set1_epi16(0x7fff), m4)));
    er = er == -32768 ? V_LOW : er;
    int32_t ecr = xc.sig ? xc.e + P->bab : P->ez_rel;
    int32_t emr = ecr > er ? ecr : er;
    /* (emr below FAST_EMPTY / 2: every product and c are zero, and so is
     * the sum, whatever the shifts) */
    __m512i sh = _mm512_sub_epi16(_mm512_set1_epi16((short)(emr + P->base)), ep);
    __m512i t = _mm512_srlv_epi16(_mm512_sll_epi16(sp, V_CNT(P->prec)), sh);
    t = _mm512_mask_sub_epi16(t, neg, zero, t);
    int32_t sum = _mm512_reduce_add_epi32(_mm512_madd_epi16(t, one));
    return finish_k(P, emr - P->bab, sum, &xc, cf, out, xcp, 0);
}

W_FN uint64_t w_dot(const fast_plan *P, uint64_t c, const void *a, const void *b, const int out, const int ck,
                    const int spk, const int nw)
{
    const mma_unit *u = &P->h.u;
    if (P->steps == 1) return w_step(P, u, 1, 0, c, NULL, a, b, out, ck, spk, nw, NULL);
    fast_c xc = {0, 0, 0, 1};
    const char *ca = (const char *)a, *cb = (const char *)b;
    uint64_t acc = w_step(P, u, 1, 0, c, &xc, ca, cb, out, ck, spk, nw, NULL);
    for (int s = 1; s < P->steps; s++) {
        ca += 32 * (nw ? nw : 8);
        cb += 32 * (nw ? nw : 8);
        acc = w_step(P, u, 0, s, acc, &xc, ca, cb, out, ck, spk, nw, NULL);
    }
    return acc;
}
/* a fast_fn NAME (TGT: its target) of no block scales returning CALL */
#define FN_UNSCALED(NAME, TGT, CALL)                                                              \
    static TGT uint64_t NAME(const fast_hdr *h, uint64_t c, const uint64_t *a, const uint64_t *b,  \
                             const uint64_t *sa, const uint64_t *sb)                               \
    {                                                                                              \
        (void)sa;                                                                                  \
        (void)sb;                                                                                  \
        return CALL;                                                                               \
    }
#define W_KERNELS(OUT, CK, SPK)                                                                    \
    FN_UNSCALED(fast_w_##OUT##_##SPK, W_TARGET, w_dot(PLAN(h), c, a, b, OUT, CK, SPK, 0))           \
    FN_UNSCALED(fast_w1_##OUT##_##SPK, W_TARGET,                                                    \
                w_step(PLAN(h), &h->u, 1, 0, c, NULL, a, b, OUT, CK, SPK, 0, fast_w_##OUT##_##SPK))    \
    B_RANGE(fast_wb_##OUT##_##SPK, W_TARGET, 1, w_dot, OUT, CK, SPK, 1)
OUT_SPK_FORMS(W_KERNELS)
#undef W_KERNELS
static const fast_fn w_kernels[3][3] = {   /* [out - 1][spk] */
    {fast_w_1_0, fast_w_1_1, fast_w_1_2}, {fast_w_2_0, fast_w_2_1, fast_w_2_2}, {fast_w_3_0, fast_w_3_1, fast_w_3_2}};
static const fast_fn w1_kernels[3][3] = {   /* one step */
    {fast_w1_1_0, fast_w1_1_1, fast_w1_1_2}, {fast_w1_2_0, fast_w1_2_1, fast_w1_2_2}, {fast_w1_3_0, fast_w1_3_1, fast_w1_3_2}};
static const fast_bfn w_batches[3][3] = {
    {fast_wb_1_0, fast_wb_1_1, fast_wb_1_2}, {fast_wb_2_0, fast_wb_2_1, fast_wb_2_2}, {fast_wb_3_0, fast_wb_3_1, fast_wb_3_2}};

/* whether P's steps fit the 16-bit lanes (32 products a step of 8-bit
 * signed operands, pre-shifted products below 2^15, ezero a word), and
 * the lanes' constants */
static int w_plan(fast_plan *P, const mma_unit *u)
{
    const mma_format_info *fa = mma_format(u->a), *fb = mma_format(u->b);
    if (P->L != 32 || fa->width > 8 || fb->width > 8 || !fa->has_sign || !fb->has_sign) return 0;
    uint32_t top = (2 * P->va.hidden - 1) * (2 * P->vb.hidden - 1);
    if (P->pre > 15 || (top << P->pre) >= 0x8000 || P->base > 1000 || (P->zeros_part && (P->ez_rel < -30000 || P->ez_rel > 30000)))
        return 0;
    const fast_op *op[2] = {&P->va, &P->vb};
    const int w[2] = {fa->width, fb->width};
    for (int i = 0; i < 2; i++) {
        for (int j = 0; j < 32; j++) {
            P->w_mm[i][j] = (int16_t)op[i]->mmask;
            P->w_em[i][j] = (int16_t)op[i]->emask;
            P->w_hid[i][j] = (int16_t)op[i]->hidden;
            P->w_sm[i][j] = (int16_t)op[i]->smask;
            P->w_sv[i][j] = (int16_t)op[i]->sval;
            P->w_wm[i][j] = (int16_t)((1 << w[i]) - 1);
        }
        P->w_ss[i][0] = 16 - w[i];
    }
    P->w_pre1[0] = P->pre + 1;
    P->w_nan_only = !fa->has_inf && !fb->has_inf;
    for (int j = 0; j < 32; j++) {
        P->w_one[j] = 1;
        P->w_ezv[j] = (int16_t)(P->zeros_part ? P->ez_rel : -32768);
        P->w_idx[j] = (int16_t)(4 * (j & 15));
    }
    return 1;
}

/* ---- AVX2: the same 16-bit lanes, 16 products a register ------------- */

/* w_step's semantics and w_plan's constants (their first 16 words) for a
 * dot product of one step through mma_dot where AVX-512 is not there.
 * AVX2 has no per-lane 16-bit shift: m >> sh (m < 2^15) is the high word
 * of 2m * 2^(15 - sh), the power looked up by vpshufb from sh in both
 * bytes of its word (saturated to a byte, plus 0x70 in the low byte and
 * 0x78 in the high one: 16 and more set the index's bit 7, which gives
 * 0).  A step with an Inf or NaN operand or c, and a rare rounding, goes
 * (a tail call) to the general kernel, as w_step's rare. */
V_FN void h_load(const uint64_t *p, __m256i *lo, __m256i *hi)
{
    /* words in the order 0 8 1 9 ..., the same for a and b: the sum does
     * not care */
    *lo = _mm256_blend_epi16(v_load8(p), _mm256_slli_epi32(v_load8(p + 8), 16), 0xaa);
    *hi = _mm256_blend_epi16(v_load8(p + 16), _mm256_slli_epi32(v_load8(p + 24), 16), 0xaa);
}

/* significand (hidden bit added where the exponent field is nonzero) and
 * the exponent field of 16 operands of side i */
V_FN void h_decode(const fast_plan *P, int i, __m256i x, __m256i *sig, __m256i *r)
{
    *r = _mm256_and_si256(_mm256_srl_epi16(x, V_CNT(i ? P->kb.mb : P->ka.mb)), V_LD(P->w_em[i]));
    __m256i h = _mm256_andnot_si256(_mm256_cmpeq_epi16(*r, _mm256_setzero_si256()), V_LD(P->w_hid[i]));
    *sig = _mm256_add_epi16(_mm256_and_si256(x, V_LD(P->w_mm[i])), h);
}

/* 16 products: the significands' product, the exponent (ezero's where the
 * product is zero), the sign word (negative where the product is, never 0) */
V_FN void h_prod(const fast_plan *P, __m256i xa, __m256i xb, __m256i *sp, __m256i *ep, __m256i *sg, __m256i *ra,
                 __m256i *rb)
{
    const __m256i one = V_LD(P->w_one);
    __m256i sa, sb;
    h_decode(P, 0, xa, &sa, ra);
    h_decode(P, 1, xb, &sb, rb);
    *sp = _mm256_mullo_epi16(sa, sb);
    __m256i e = _mm256_add_epi16(_mm256_max_epu16(*ra, one), _mm256_max_epu16(*rb, one));
    *ep = _mm256_blendv_epi8(e, V_LD(P->w_ezv), _mm256_cmpeq_epi16(*sp, _mm256_setzero_si256()));
    *sg = _mm256_or_si256(_mm256_xor_si256(_mm256_sll_epi16(xa, V_CNT(P->w_ss[0])), _mm256_sll_epi16(xb, V_CNT(P->w_ss[1]))),
                          one);
}

/* the 16 products aligned (RZ) to ebv and signed, summed in pairs */
V_FN __m256i h_align(const fast_plan *P, __m256i ebv, __m256i sp, __m256i ep, __m256i sg)
{
    const __m256i pow = _mm256_setr_epi8(0, 0, 0, 0, 0, 0, 0, 0, (char)0x80, 0x40, 0x20, 0x10, 8, 4, 2, 1,
                                         0, 0, 0, 0, 0, 0, 0, 0, (char)0x80, 0x40, 0x20, 0x10, 8, 4, 2, 1);
    __m256i sh = _mm256_min_epu16(_mm256_sub_epi16(ebv, ep), _mm256_set1_epi16(0xff));
    __m256i idx = _mm256_adds_epu8(_mm256_mullo_epi16(sh, _mm256_set1_epi16(0x0101)), _mm256_set1_epi16(0x7870));
    __m256i t = _mm256_mulhi_epu16(_mm256_sll_epi16(sp, V_CNT(P->w_pre1)), _mm256_shuffle_epi8(pow, idx));
    return _mm256_madd_epi16(_mm256_sign_epi16(t, sg), V_LD(P->w_one));
}

V_FN uint64_t h_dot1(const fast_hdr *h, uint64_t c, const uint64_t *a, const uint64_t *b, const int out,
                     const int ck, const int spk, const fast_fn rare)
{
    const fast_plan *P = PLAN(h);
    __m256i a0, a1, b0, b1, sp0, sp1, ep0, ep1, sg0, sg1, ra0, ra1, rb0, rb1;
    h_load(a, &a0, &a1);
    h_load(b, &b0, &b1);
    h_prod(P, a0, b0, &sp0, &ep0, &sg0, &ra0, &rb0);
    h_prod(P, a1, b1, &sp1, &ep1, &sg1, &ra1, &rb1);
    __m256i q = _mm256_setzero_si256();
    if (spk == SPK_AND) {                /* (sval is the largest x & smask: s_step's running maxima) */
        __m256i ma = _mm256_max_epu16(_mm256_and_si256(a0, V_LD(P->w_sm[0])), _mm256_and_si256(a1, V_LD(P->w_sm[0])));
        __m256i mb = _mm256_max_epu16(_mm256_and_si256(b0, V_LD(P->w_sm[1])), _mm256_and_si256(b1, V_LD(P->w_sm[1])));
        q = _mm256_or_si256(_mm256_cmpeq_epi16(ma, V_LD(P->w_sv[0])), _mm256_cmpeq_epi16(mb, V_LD(P->w_sv[1])));
    }
    if (spk == SPK_EXP)
        q = _mm256_or_si256(_mm256_cmpeq_epi16(_mm256_max_epu16(ra0, ra1), V_LD(P->w_em[0])),
                            _mm256_cmpeq_epi16(_mm256_max_epu16(rb0, rb1), V_LD(P->w_em[1])));
    fast_c xc = c_decode_k(&P->c1, c, ck);
    if (__builtin_expect((!_mm256_testz_si256(q, q)) | xc.spec, 0)) return rare(h, c, a, b, NULL, NULL);
    /* emax as w_step finds it */
    __m256i m8 = _mm256_max_epi16(ep0, ep1);
    __m128i m4 = _mm_max_epi16(_mm256_castsi256_si128(m8), _mm256_extracti128_si256(m8, 1));
    int32_t er = 0x7fff - (int32_t)(uint16_t)_mm_cvtsi128_si32(_mm_minpos_epu16(_mm_sub_epi16(_mm_set1_epi16(0x7fff), m4)));
    er = er == -32768 ? V_LOW : er;
    int32_t ecr = xc.sig ? xc.e + P->bab : P->ez_rel;
    int32_t emr = ecr > er ? ecr : er;
    const __m256i ebv = _mm256_set1_epi16((short)(emr + P->base));
    __m256i sv = _mm256_add_epi32(h_align(P, ebv, sp0, ep0, sg0), h_align(P, ebv, sp1, ep1, sg1));
    __m128i s4 = _mm_add_epi32(_mm256_castsi256_si128(sv), _mm256_extracti128_si256(sv, 1));
    s4 = _mm_add_epi32(s4, _mm_shuffle_epi32(s4, 0x4e));
    s4 = _mm_add_epi32(s4, _mm_shuffle_epi32(s4, 0xb1));
    return finish_k(P, emr - P->bab, _mm_cvtsi128_si32(s4), &xc, &P->c1, out, NULL, 0);
}
#define H_KERNEL(OUT, CK, SPK)                                                                     \
    FN_UNSCALED(fast_h1_##OUT##_##SPK, V_TARGET, h_dot1(h, c, a, b, OUT, CK, SPK, fast_s_4_##OUT##_##SPK##_8))
OUT_SPK_FORMS(H_KERNEL)
#undef H_KERNEL
#undef FN_UNSCALED
static const fast_fn h1_kernels[3][3] = {   /* [out - 1][spk] */
    {fast_h1_1_0, fast_h1_1_1, fast_h1_1_2}, {fast_h1_2_0, fast_h1_2_1, fast_h1_2_2}, {fast_h1_3_0, fast_h1_3_1, fast_h1_3_2}};

#define V_KERNEL(NAME, G, TAIL, TF, SC)                                                            \
    static V_TARGET uint64_t NAME(const fast_hdr *h, uint64_t c, const uint64_t *a, \
                                  const uint64_t *b, const uint64_t *sa, const uint64_t *sb)       \
    {                                                                                              \
        const fast_plan *P = PLAN(h);                                                              \
        const mma_unit *u = &h->u;                                                                 \
        uint64_t acc = v_step(P, u, 1, 0, c, a, b, sa, sb, G, TAIL, TF, SC);                       \
        for (int s = 1; s < P->steps; s++) {                                                       \
            a += P->L;                                                                             \
            b += P->L;                                                                             \
            acc = v_step(P, u, 0, s, acc, a, b, sa, sb, G, TAIL, TF, SC);                          \
        }                                                                                          \
        return acc;                                                                                \
    }
V_KERNEL(fast_avx2_g1, 1, 0, 0, 0)
V_KERNEL(fast_avx2_g2, 2, 0, 0, 0)
V_KERNEL(fast_avx2_g4, 4, 0, 0, 0)
V_KERNEL(fast_avx2_gn, P->groups, P->tail, 0, 0)
V_KERNEL(fast_avx2_tf_g1, 1, 0, 1, 0)
V_KERNEL(fast_avx2_tf_gn, P->groups, P->tail, 1, 0)
V_KERNEL(fast_avx2_mx_gn, P->groups, 0, 0, 1)
#undef V_KERNEL
#endif

/* ---- plans ------------------------------------------------------------------- */

static fast_hdr *fused_build(const mma_unit *u, int mode);

#ifdef FAST_HAVE_AVX2
/* any subnormal among the k operands of x (exponent field and fraction
 * masks of its format): four a vector */
V_FN int any_subnormal(const uint64_t *x, int k, uint64_t em, uint64_t mm)
{
    const __m256i E = _mm256_set1_epi64x((long long)em), M = _mm256_set1_epi64x((long long)mm);
    const __m256i z = _mm256_setzero_si256();
    __m256i acc = z;
    int i = 0, r = 0;
    for (; i + 4 <= k; i += 4) {
        __m256i v = _mm256_loadu_si256((const __m256i *)(x + i));
        __m256i e0 = _mm256_cmpeq_epi64(_mm256_and_si256(v, E), z), m0 = _mm256_cmpeq_epi64(_mm256_and_si256(v, M), z);
        acc = _mm256_or_si256(acc, _mm256_andnot_si256(m0, e0));
    }
    for (; i < k; i++) r |= !(x[i] & em) & !!(x[i] & mm);
    return r | !_mm256_testz_si256(acc, acc);
}

static V_TARGET uint64_t via_dot(const fast_hdr *h, uint64_t c, const uint64_t *a, const uint64_t *b,
                                 const uint64_t *sa, const uint64_t *sb)
{
    const fast_plan *P = PLAN(h);
    const int k = h->u.k;
    if (any_subnormal(a, k, P->sub_e[0], P->sub_m[0]) | any_subnormal(b, k, P->sub_e[1], P->sub_m[1]))
        return P->via_scalar->fn(P->via_scalar, c, a, b, sa, sb);
    return P->via_vec(h, c, a, b, sa, sb);
}
#endif

#ifdef FAST_HAVE_AVX2
/* via=fp16 with the vector kernels: the plan of the unit without the
 * conversion, and beside it the scalar plan with it */
static fast_hdr *via_build(const mma_unit *u, int mode)
{
    mma_unit plain = *u;
    plain.flags &= ~(unsigned)MMA_F_VIA_FP16;
    fast_hdr *S = fused_build(u, FAST_MODE_SCALAR);
    fast_hdr *V = S ? fused_build(&plain, mode) : NULL;
    if (!V || V->kernel == FAST_K_SCALAR) { free(V); return S; }
    V->sub = S;                          /* (freed with V) */
    S->u = *u;                           /* (what the cache sets for the plans it holds) */
    S->u.impl = 1;
    fast_plan *P = (fast_plan *)V;
    const mma_format_info *fa = mma_format(u->a), *fb = mma_format(u->b);
    P->via_scalar = S;
    P->via_vec = V->fn;
    P->sub_e[0] = (((uint64_t)1 << fa->ebits) - 1) << fa->mbits;
    P->sub_m[0] = ((uint64_t)1 << fa->mbits) - 1;
    P->sub_e[1] = (((uint64_t)1 << fb->ebits) - 1) << fb->mbits;
    P->sub_m[1] = ((uint64_t)1 << fb->mbits) - 1;
    V->fn = via_dot;
    /* a subnormal significand i (1 <= i < hidden) is shifted left until it
     * is normal, or until the exponent reaches fp16's minimum (alg_fused.c:
     * via_fp16); the tables' 16 entries, by the significand's value */
    for (int t = 0; t < 2; t++) {
        const mma_format_info *fi = t ? fb : fa;
        unsigned char *lz = t ? P->lz_b : P->lz_a;
        for (int i = 0; i < 32; i++) {
            int v = i % 16, n = 0;
            if (v && v < (1 << fi->mbits) && fi->mbits < 4)
                while (!((v << n) >> fi->mbits) && fi->emin - n > -14) n++;
            lz[i] = (unsigned char)n;
        }
    }
    /* the interleaved kernels convert themselves, where a subnormal changes
     * (e5m2's are fp16's own: nothing to convert) */
    int lza = 0, lzb = 0, same = 1;
    for (int i = 0; i < 32; i++) {
        lza |= P->lz_a[i];
        lzb |= P->lz_b[i];
        same &= P->lz_a[i] == P->lz_b[i];
    }
    /* in 16-bit halves where one table serves both (one format converts,
     * or both alike) */
    int halves = !lza || !lzb || same;
    for (int i = 0; i < 32; i++) {
        P->pk_lz[i] = lza ? P->lz_a[i] : P->lz_b[i];
        P->pk_pw[i] = (unsigned char)(1u << P->pk_lz[i]);
    }
    for (int i = 0; i < 8; i++) P->pk_lzm[i] = (int32_t)((lza ? 0xfu : 0) | (lzb ? 0xfu << 16 : 0));
    for (int i = 0; i < 2 * 3 * 2; i++)
        if (P->via_vec == (&s_kernels_il2[0][0][0][0])[i])
            V->fn = !lza && !lzb ? P->via_vec : (&s_kernels_il2[halves ? 2 : 1][0][0][0])[i];
    return V;
}
#endif

static fast_hdr *fused_build(const mma_unit *u, int mode)
{
#ifdef FAST_HAVE_AVX2
    if ((u->flags & MMA_F_VIA_FP16) && mode != FAST_MODE_SCALAR) return via_build(u, mode);
#endif
    fast_plan *P = calloc(1, sizeof *P);
    if (!P) return NULL;
    const mma_format_info *fa = mma_format(u->a), *fb = mma_format(u->b), *fd = mma_format(u->d);
    const int via = (u->flags & MMA_F_VIA_FP16) != 0;    /* operands as fp16: 10 fraction bits each */
    P->L = u->lmax;
    P->steps = u->k / u->lmax;
    P->f = u->f;
    P->fbp = (via ? 20 : fa->mbits + fb->mbits) + scale_fb(u);
    P->pre = u->f > P->fbp ? u->f - P->fbp : 0;
    P->base = P->fbp - u->f + P->pre;
    P->rd = u->align == MMA_RD;
    P->zeros_part = !(u->flags & MMA_F_NO_EZERO);
    P->ezero = u->ezero;
    P->after = u->cadd == MMA_CADD_AFTER;
    fast_cfmt_init(&P->c1, P->after ? u->d : u->c, u->f);
    fast_cfmt_init(&P->cd, u->d, u->f);
    fast_out_init(&P->o, u);
    /* the closing addition: to nearest even at the format's full width,
     * an exact zero +0 */
    P->oadd = P->o;
    P->oadd.p = fd->mbits;
    P->oadd.rho = MMA_RNE;
    P->oadd.zsigned = 0;
    P->oadd.maxf = P->oadd.inf - 1;
    P->cnan = mma_canonical_nan(u->d);
#ifdef FAST_HAVE_AVX2
    P->f16c = mode != FAST_MODE_SCALAR && fast_f16c_usable();
#endif
    fast_src_init(&P->src, u->a, u->b);
    if (via) {                             /* the converted operands' tables */
        P->src.ta = fast_via_fp16_table(u->a);
        P->src.tb = fast_via_fp16_table(u->b);
        P->src.pt = fast_via_fp16_pair_table(u->a, u->b);
        P->src.bta = P->src.btb = NULL;
        if (!P->src.ta || !P->src.tb || !P->src.pt) { free(P); return NULL; }
    }
    P->scaled = u->scale != MMA_FMT_NONE;
    P->block = u->block;
    P->ts = P->scaled ? fast_tab[u->scale] : NULL;
    P->permute = u->interleave != 0;
    P->il = u->interleave;
    for (int j = 0; j < u->k; j++) {
        int s = j / u->lmax, i = j % u->lmax, steps = u->k / u->lmax;
        int run = u->interleave ? i / u->interleave : 0;
        P->perm[j] = (unsigned char)(u->interleave ? (run * steps + s) * u->interleave + i % u->interleave : j);
    }
    fast_fn fn = fast_scalar;
    int kernel = FAST_K_SCALAR;
#ifdef FAST_HAVE_AVX2
    /* ezero far outside the exponent range would overflow the lanes' int32
     * arithmetic: such units keep the scalar kernel */
    int mx = !P->scaled || (u->scale == MMA_FMT_UE8M0 && u->block % 8 == 0 && P->L % 8 == 0);
    if (mode != FAST_MODE_SCALAR && !via && (!P->zeros_part || (u->ezero >= -100000 && u->ezero <= 100000)) &&
        fast_vec_op(&P->va, u->a) && fast_vec_op(&P->vb, u->b) && mx && fast_avx2_usable()) {
        int lg = 0;
        P->groups = (P->L + 7) / 8;
        P->tail = P->L % 8;
        while ((1 << lg) < P->groups) lg++;
        P->narrow = (u->f > P->fbp ? u->f : P->fbp) + 2 + lg <= 30;
        P->tf = P->va.shr || P->vb.shr;
        P->bab = P->va.bias + P->vb.bias;
        P->ez_rel = P->zeros_part ? u->ezero + P->bab : V_LOW;
        fast_vop_init(&P->ka, &P->va);
        fast_vop_init(&P->kb, &P->vb);
        for (int i = 0; i < 8; i++) {
#define PK(FA, FB) (int32_t)((uint32_t)(FA) | (uint32_t)(FB) << 16)
            P->pk_shr[i] = PK(1u << (16 - P->va.mb), 1u << (16 - P->vb.mb));
            P->pk_em[i] = PK(P->va.emask, P->vb.emask);
            P->pk_mm[i] = PK(P->va.mmask, P->vb.mmask);
            P->pk_hid[i] = PK(P->va.hidden, P->vb.hidden);
            P->pk_sm[i] = PK(P->va.smask, P->vb.smask);
            P->pk_sv[i] = PK(P->va.sval, P->vb.sval);
            P->pk_one[i] = PK(1, 1);
#undef PK
            P->mag_a[i] = (int32_t)(((uint32_t)1 << (31 - P->va.sshift)) - 1);   /* (tf32 shifted) */
            P->mag_b[i] = (int32_t)(((uint32_t)1 << (31 - P->vb.sshift)) - 1);
            P->one[i] = 1;
            P->ezv[i] = P->ez_rel;
            P->low[i] = V_LOW;
        }
        P->prec[0] = P->pre;
        kernel = FAST_K_VECTOR;
        if (P->scaled) fn = fast_avx2_mx_gn;
        else if (P->tf) fn = P->groups == 1 && !P->tail ? fast_avx2_tf_g1 : fast_avx2_tf_gn;
        else fn = P->tail ? fast_avx2_gn : P->groups == 1 ? fast_avx2_g1 : P->groups == 2 ? fast_avx2_g2 :
                  P->groups == 4 ? fast_avx2_g4 : fast_avx2_gn;
        /* the specialized integer kernels */
        int f32 = u->d == MMA_FMT_FP32 && u->rho == MMA_RZ && P->c1.tab == NULL;
        int out = f32 && u->p == 23 ? OUT_F32 : f32 && u->p == 13 ? OUT_E8M13 :
                  u->d == MMA_FMT_FP16 && u->rho == MMA_RNE && (P->after ? u->d : u->c) == MMA_FMT_FP16 &&
                  u->p == 10 ? OUT_F16 : 0;
        /* Inf/NaN tests by maxima: not for fnuz (NaN = 0x80) */
        int fnuz = u->a == MMA_FMT_E4M3FNUZ || u->a == MMA_FMT_E5M2FNUZ || u->b == MMA_FMT_E4M3FNUZ ||
                   u->b == MMA_FMT_E5M2FNUZ;
        int ieee_a = u->a == MMA_FMT_FP16 || u->a == MMA_FMT_BF16 || u->a == MMA_FMT_E5M2;
        int ieee_b = u->b == MMA_FMT_FP16 || u->b == MMA_FMT_BF16 || u->b == MMA_FMT_E5M2;
        int spk = fnuz ? -1 : ieee_a && ieee_b ? SPK_EXP : P->va.smask || P->vb.smask ? SPK_AND : SPK_NONE;
        int gi = P->groups == 1 ? 0 : P->groups == 2 ? 1 : P->groups == 4 ? 2 : -1;
        if (mode == FAST_MODE_BEST && out && spk >= 0 && gi >= 0 && !P->tail && fa->width <= 16 && fb->width <= 16 &&
            P->narrow && !P->rd && !P->tf && (!P->scaled || out == OUT_F32)) {
            fn = P->scaled ? s_kernels_mx[spk][gi] : s_kernels[out - 1][spk][gi];
            kernel = FAST_K_SPECIAL;
            if (!P->scaled && !P->permute && !P->after && (fa->width + 7) / 8 == (fb->width + 7) / 8)
                P->h.bfn = P->steps == 2 && gi == 0 && fa->width > 8 ? s_batches2[out - 1][spk] :
                           s_batches[(fa->width + 7) / 8 - 1][out - 1][spk][gi];
            int wl = !P->scaled && !P->permute && !P->after && !(u->flags & MMA_F_VIA_FP16) && w_plan(P, u);
            if (wl && fast_avx512_usable()) {
                fn = P->steps == 1 ? w1_kernels[out - 1][spk] : w_kernels[out - 1][spk];
                P->h.bfn = w_batches[out - 1][spk];
                kernel = FAST_K_AVX512;
            } else if (wl && P->steps == 1) {
                fn = h1_kernels[out - 1][spk];   /* (its batches stay s_step's: their bytes widen cheaper) */
            }
            if (P->permute || P->after) {
                if (P->after && u->interleave == 2 && P->steps == 2 && gi < 2 && out != OUT_E8M13) {
                    P->h.kernel = FAST_K_SPECIAL;
                    P->h.fn = s_kernels_il2[0][out == OUT_F16][spk][gi];
                    return &P->h;
                }
                kernel = FAST_K_VECTOR;       /* (the wrapped kernel below) */
            }
        } else if (mode == FAST_MODE_BEST && out == OUT_F32 && spk == SPK_AND && gi >= 0 && !P->tail && P->tf &&
                   u->a == MMA_FMT_TF32 && u->b == MMA_FMT_TF32 && P->narrow && !P->rd && !P->scaled && !P->permute &&
                   !P->after) {
            fn = s_kernels_tf[gi];
            kernel = FAST_K_SPECIAL;
            P->h.bfn = t_lanes_ok(P, u) ? (P->L == 8 ? t_lanes_8 : t_lanes_4) : s_batches_tf[P->steps == 1][gi];
        } else if (mode == FAST_MODE_BEST && out && spk >= 0 && P->L == 4 && P->va.sshift == P->vb.sshift &&
                   P->va.shr == P->vb.shr && P->narrow && !P->rd && !P->scaled && !P->permute && !P->after) {
            fn = q_kernels[out - 1][spk][P->tf];
            kernel = FAST_K_SPECIAL;
            if (out == OUT_F32 && t_lanes_ok(P, u)) P->h.bfn = t_lanes_4;
        }
    }
#endif
    P->h.kernel = kernel;
    P->h.fn = fn;
    if (P->permute || P->after) {
        P->inner = fn;
        P->h.fn = fused_wrap;
    }
    return &P->h;
}

const fast_family fast_fused_family = {fused_ok, fused_build};
