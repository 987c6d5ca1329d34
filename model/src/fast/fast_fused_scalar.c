/* The fused family's scalar code (fast_fused.h says which file holds
 * what): steps that meet Inf or NaN, decided as the reference decides
 * them; the scalar kernel, operands of 16 bits or fewer decoded through
 * the tables (one table gives the packed product of two 8-bit formats),
 * tf32 arithmetically; interleaved steps and the closing IEEE addition of
 * c (Hopper's fp8 mma.sync, "FDA+FADD"), which wrap any kernel. */
#include "fast_fused.h"
#include "fast_f16add.h"

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
__attribute__((noinline)) uint64_t fused_special_step(const fast_plan *P, const mma_unit *u, int first, int s,
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

/* fused_special_step where no product is Inf or NaN and c is: c's NaN or Inf
 * decides (a chain's later step after an overflow to Inf, mostly) */

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

uint64_t fused_scalar(const fast_hdr *h, uint64_t c, const uint64_t *a,
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
            acc = fused_special_step(P, u, s == 0, s, acc, a, b, sa, sb);
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

/* IEEE addition x + y of two finite or zero encodings of d, to nearest
 * even, as alg_fused.c's ieee_add computes it (exact sum, one rounding; an
 * exact zero is +0 unless both are -0).  In the host's default floating-
 * point state, fp32 through its binary32 addition (IEEE, round to nearest
 * even: the same result) and fp16 through binary64 (add_f16); otherwise,
 * and for the other formats, through an integer sum with a sticky bit. */
static uint64_t add_finite(const fast_plan *P, const mma_unit *u, uint64_t x, uint64_t y)
{
    int host = fast_host_fp_default();
    if (host && u->d == MMA_FMT_FP16) return add_f16(x, y);
    if (host && u->d == MMA_FMT_FP32) {
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

uint64_t fused_ieee_add(const fast_plan *P, uint64_t x, uint64_t y)
{
    const mma_unit *u = &P->h.u;
    if (u->d == MMA_FMT_FP16 && ((x & 0x7c00) != 0x7c00) & ((y & 0x7c00) != 0x7c00)) {
#ifdef FAST_HAVE_AVX2
        if (P->f16c) return add_f16_f16c(x, y);
#endif
        return add_finite(P, u, x, y);   /* (the common case: no Inf or NaN) */
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
uint64_t fused_wrap(const fast_hdr *h, uint64_t c, const uint64_t *a,
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
    return P->after ? fused_ieee_add(P, c, r) : r;
}
