/* FDA and CoFDA (NVIDIA HMMA, HGMMA, QMMA, QGMMA, UTC*MMA; paper sections C,
 * D), with block scales (ST-FDPA: the product exponent gains the exponents
 * of its block's two scales).  A step is one fused aligned sum of c and at
 * most lmax products, normalized and rounded; longer K chains steps, each
 * step's rounded result being the c of the next. */
#include "internal.h"

static mma_term product(const mma_unit *u, int k, const uint64_t *a,
                        const uint64_t *b, const uint64_t *sa, const uint64_t *sb)
{
    mma_term p = mma_term_mul(mma_term_of(u->a, a[k]), mma_term_of(u->b, b[k]));
    if (u->scale != MMA_FMT_NONE) {
        int blk = k / u->block;
        mma_term s = mma_term_mul(mma_term_of(u->scale, sa[blk]),
                                  mma_term_of(u->scale, sb[blk]));
        p = mma_term_mul(p, s);
    }
    if (u->flags & MMA_F_PROD_OVF) mma_term_overflow(&p);
    return p;
}

uint64_t mma_alg_fused(const mma_unit *u, uint64_t c, const uint64_t *a,
                       const uint64_t *b, const uint64_t *sa, const uint64_t *sb)
{
    mma_term t[MMA_MAX_K + 1];
    mma_fmt cf = u->c;
    int zeros_part = !(u->flags & MMA_F_NO_EZERO);
    int zsigned = !(u->flags & MMA_F_ZERO_POS);
    for (int k0 = 0; k0 < u->k; k0 += u->lmax) {
        int n = 0;
        for (int k = k0; k < k0 + u->lmax; k++) t[n++] = product(u, k, a, b, sa, sb);
        t[n++] = mma_term_of(cf, c);
        if (!mma_terms_special(t, n, u->d, &c)) {
            mma_fixed s = mma_fused_sum(t, n, u->f, u->align, u->ezero, zeros_part);
            uint64_t mag = s.s < 0 ? (uint64_t)-s.s : (uint64_t)s.s;
            c = mma_round_pack(u->d, u->p, u->rho, s.s < 0, s.empty ? 0 : mag,
                               s.emax - u->f, zsigned);
        }
        cf = u->d;
    }
    return c;
}
