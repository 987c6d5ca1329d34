/* Exact terms: decoded operands and exact products (paper, FDA step 2:
 * products are neither normalized nor rounded). */
#include "internal.h"

MMA_HD mma_term mma_term_of(mma_fmt f, uint64_t bits)
{
    mma_value v = mma_decode(f, bits);
    const mma_format_info *fi = mma_format(f);
    int fb = f == MMA_FMT_TF32 ? 23 : fi->mbits;
    mma_term t = {v.cls, v.neg, v.exp + fb, fb, v.sig};
    if (v.cls == MMA_ZERO) t.e = fi->emin;
    return t;
}

MMA_HD mma_term mma_term_mul(mma_term x, mma_term y)
{
    mma_term p;
    p.neg = x.neg ^ y.neg;
    p.e = x.e + y.e;
    p.fb = x.fb + y.fb;
    p.sig = x.sig * y.sig;
    if (x.cls == MMA_NAN || y.cls == MMA_NAN) p.cls = MMA_NAN;
    else if (x.cls == MMA_INF || y.cls == MMA_INF)
        p.cls = (x.cls == MMA_ZERO || y.cls == MMA_ZERO) ? MMA_NAN : MMA_INF;
    else if (x.cls == MMA_ZERO || y.cls == MMA_ZERO) { p.cls = MMA_ZERO; p.sig = 0; }
    else p.cls = MMA_FINITE;
    return p;
}
