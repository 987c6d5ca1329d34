/* E-FDPA (AMD CDNA1; paper, the exact dot-product algorithm) and the IEEE
 * unit: c and the products of a step summed exactly in a Kulisch
 * accumulator and rounded once; longer K chains the steps, each result
 * being the next step's c.  The ieee tree is this arithmetic with IEEE 754
 * semantics as its defaults and the exception flags of the whole
 * operation (a sequence of such operations, when chained):
 *  - invalid: a signaling NaN operand; a product 0 * Inf (even beside a
 *    quiet NaN, as RISC-V's fused multiply-add has it); +Inf and -Inf
 *    among the terms when no operand is a NaN;
 *  - overflow, underflow, inexact: from the rounding (round.c). */
#include "internal.h"

#include <string.h>

static MMA_HD uint64_t step(const mma_unit *u, const mma_rspec *r, mma_fmt cf, uint64_t c,
                            const uint64_t *a, const uint64_t *b, const uint64_t *sa,
                            const uint64_t *sb, int k0, int wide, unsigned *flags)
{
    int n = u->lmax, scaled = u->scale != MMA_FMT_NONE, neg = (u->flags & MMA_F_NEG) != 0;
    int nan = 0, invalid = 0, pinf = 0, ninf = 0;
    mma_term ct = mma_term_of(cf, c);
    int allzero = ct.cls == MMA_ZERO, anyneg = ct.neg, anypos = !ct.neg;
    if (ct.cls == MMA_NAN) { nan = 1; invalid |= mma_is_snan(cf, c); }
    else if (ct.cls == MMA_INF) { if (ct.neg) ninf = 1; else pinf = 1; }
    mma_term ta[MMA_MAX_K], tb[MMA_MAX_K], ts[MMA_MAX_K];
    for (int j = 0; j < n; j++) {
        int k = k0 + j;
        ta[j] = mma_term_of(u->a, a[k]);
        tb[j] = mma_term_of(u->b, b[k]);
        mma_term p = mma_term_mul(ta[j], tb[j]);
        int op_nan = ta[j].cls == MMA_NAN || tb[j].cls == MMA_NAN;
        if (scaled) {
            ts[j] = mma_term_mul(mma_term_of(u->scale, sa[k / u->block]),
                                 mma_term_of(u->scale, sb[k / u->block]));
            op_nan |= ts[j].cls == MMA_NAN;
            p = mma_term_mul(p, ts[j]);
        }
        p.neg ^= neg;     /* neg=1: c - a*b, the product's IEEE sign flipped (zeros and Inf too) */
        invalid |= mma_is_snan(u->a, a[k]) || mma_is_snan(u->b, b[k]);
        if (p.cls == MMA_NAN) { nan = 1; invalid |= !op_nan; }       /* 0 * Inf */
        else if (p.cls == MMA_INF) { if (p.neg) ninf = 1; else pinf = 1; }
        allzero &= p.cls == MMA_ZERO;
        if (p.neg) anyneg = 1; else anypos = 1;
    }
    if (!nan && pinf && ninf) { nan = 1; invalid = 1; }
    if (nan) {
        mma_nansrc src = {cf, u->a, u->b, c, a + k0, b + k0, NULL, n};
        if (invalid) *flags |= MMA_FLAG_INVALID;
        return mma_nan_out(u, r->d, &src);
    }
    if (pinf || ninf) return mma_out_inf(r, ninf);
    mma_kacc acc;
    mma_kacc_init(&acc, wide ? -2240 : -600, wide ? 2240 : 600);
    if (ct.cls == MMA_FINITE) mma_kacc_add(&acc, ct.neg, ct.sig, ct.e - ct.fb);
    for (int j = 0; j < n; j++) {
        if (ta[j].cls != MMA_FINITE || tb[j].cls != MMA_FINITE) continue;
        /* fp64 significands need all 106 bits of their product */
        unsigned __int128 sig = (unsigned __int128)ta[j].sig * tb[j].sig;
        int32_t lsb = ta[j].e - ta[j].fb + tb[j].e - tb[j].fb;
        if (scaled) {
            if (ts[j].cls != MMA_FINITE) continue;
            sig *= ts[j].sig;
            lsb += ts[j].e - ts[j].fb;
        }
        mma_kacc_add(&acc, ta[j].neg ^ tb[j].neg ^ neg, sig, lsb - u->lscale);   /* (Arm FP8: 2^-LSCALE) */
    }
    return mma_kacc_round_to(&acc, r, mma_zero_sign(allzero, anypos, anyneg, r->rho), flags);
}

MMA_HD uint64_t mma_alg_exact(const mma_unit *u, uint64_t c, const uint64_t *a,
                              const uint64_t *b, const uint64_t *sa, const uint64_t *sb,
                              unsigned *flags)
{
    mma_rspec r = mma_unit_rspec(u);
    mma_fmt cf = u->c;
    unsigned fl = 0;
    int wide = u->a == MMA_FMT_FP64 || u->b == MMA_FMT_FP64 || u->c == MMA_FMT_FP64 || u->d == MMA_FMT_FP64;
    for (int k0 = 0; k0 < u->k; k0 += u->lmax) {
        c = step(u, &r, cf, c, a, b, sa, sb, k0, wide, &fl);
        cf = u->d;
    }
    if (flags) *flags = fl;
    return c;
}
