/* FDA and CoFDA (NVIDIA HMMA, HGMMA, QMMA, QGMMA, UTC*MMA; paper sections C,
 * D), with block scales (ST-FDPA: the product exponent gains the exponents
 * of its block's two scales).  A step is one fused aligned sum of c and at
 * most lmax products, normalized and rounded; longer K chains steps, each
 * step's rounded result being the c of the next. */
#include "internal.h"

/* An operand, flushed to +0 when subnormal if the unit flushes inputs. */
static MMA_HD mma_term operand(const mma_unit *u, mma_fmt f, uint64_t bits)
{
    mma_term t = mma_term_of(f, bits);
    if ((u->flags & MMA_F_FTZ_IN) && t.cls == MMA_FINITE && t.sig >> t.fb == 0) {
        t.cls = MMA_ZERO;
        t.sig = 0;
        t.neg = 0;
    }
    return t;
}

/* The operand as the fp16 the emulation converts it to (F2FP, exact):
 * fp16 keeps 10 fraction bits down to 2^-14, so an e4m3 subnormal becomes
 * normal and its product's exponent e_a + e_b falls by the shift.  The H100
 * showed it: with e4m3 x e5m2 operands a subnormal e4m3 product can be the
 * largest term, and the unnormalized exponent cut one bit too few. */
static MMA_HD mma_term via_fp16(mma_term t)
{
    if (t.cls != MMA_FINITE) return t;
    t.sig <<= 10 - t.fb;
    t.fb = 10;
    while (t.sig < (1u << 10) && t.e > -14) { t.sig <<= 1; t.e--; }
    return t;
}

static MMA_HD mma_term product(const mma_unit *u, int k, const uint64_t *a,
                               const uint64_t *b, const uint64_t *sa, const uint64_t *sb)
{
    mma_term x = operand(u, u->a, a[k]), y = operand(u, u->b, b[k]);
    if (u->flags & MMA_F_VIA_FP16) { x = via_fp16(x); y = via_fp16(y); }
    mma_term p = mma_term_mul(x, y);
    if (u->scale != MMA_FMT_NONE) {
        int blk = k / u->block;
        mma_term s = mma_term_mul(mma_term_of(u->scale, sa[blk]),
                                  mma_term_of(u->scale, sb[blk]));
        p = mma_term_mul(p, s);
    }
    if (u->flags & MMA_F_PROD_OVF) mma_term_overflow(&p);
    if (u->flags & MMA_F_NEG) p.neg ^= 1;   /* c - a*b: the IEEE signs of -(a*b), zeros and Inf too */
    return p;
}

/* k of the j-th product of step s */
static MMA_HD int kindex(const mma_unit *u, int s, int j)
{
    if (!u->interleave) return s * u->lmax + j;
    int steps = u->k / u->lmax, run = j / u->interleave;
    return (run * steps + s) * u->interleave + j % u->interleave;
}

/* IEEE addition x + y rounded to nearest even in format d (exact sum
 * first): Hopper's FADD, whose rounding and zeros are its own whatever the
 * unit's round= and zero= say; a NaN follows the unit's nan=. */
static MMA_HD uint64_t ieee_add(const mma_unit *u, mma_fmt d, uint64_t x, uint64_t y)
{
    mma_term t[2] = {mma_term_of(d, x), mma_term_of(d, y)};
    mma_rspec r = {d, mma_format(d)->mbits, MMA_RNE, MMA_OVR_IEEE, MMA_ZS_IEEE, 0};
    uint64_t out;
    mma_nansrc src = {d, d, d, x, &y, &y, NULL, 1};
    if (mma_step_special(u, &r, t, 2, &src, &out)) return out;
    mma_kacc acc;
    mma_kacc_init(&acc, -1200, 1200);
    for (int i = 0; i < 2; i++)
        if (t[i].cls == MMA_FINITE) mma_kacc_add(&acc, t[i].neg, t[i].sig, t[i].e - t[i].fb);
    return mma_kacc_round_to(&acc, &r, mma_terms_zneg(t, 2, MMA_RNE), NULL);
}

MMA_HD uint64_t mma_alg_fused(const mma_unit *u, uint64_t c, const uint64_t *a,
                              const uint64_t *b, const uint64_t *sa, const uint64_t *sb)
{
    mma_term t[MMA_MAX_K + 1];
    mma_fmt cf = u->c;
    int zeros_part = !(u->flags & MMA_F_NO_EZERO);
    mma_rspec r = mma_unit_rspec(u);
    uint64_t c_in = c;
    if (u->cadd == MMA_CADD_AFTER) { c = 0; cf = u->d; }
    for (int step = 0; step < u->k / u->lmax; step++) {
        int n = 0, ks[MMA_MAX_K];
        for (int j = 0; j < u->lmax; j++) {
            ks[j] = kindex(u, step, j);
            t[n++] = product(u, ks[j], a, b, sa, sb);
        }
        t[n++] = operand(u, cf, c);
        mma_nansrc src = {cf, u->a, u->b, c, a, b, ks, u->lmax};
        if (mma_step_special(u, &r, t, n, &src, &c)) {
            /* decided */
        } else {
            mma_fixed s = mma_fused_sum(t, n, u->f, u->align, u->ezero, zeros_part);
            uint64_t mag = s.s < 0 ? (uint64_t)-s.s : (uint64_t)s.s;
            c = mma_round_to(&r, s.s < 0, s.empty ? 0 : mag, s.emax - u->f,
                             r.zero == MMA_ZS_IEEE && mma_terms_zneg(t, n, u->rho), NULL);
        }
        cf = u->d;
    }
    if (u->cadd == MMA_CADD_AFTER) {
        c = ieee_add(u, u->d, c_in, c);
    }
    return c;
}
