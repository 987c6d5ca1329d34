/* Special-value rules shared by the fused algorithms (paper, FDA step 1;
 * FDRDA step 3 for the AMD product-overflow variant). */
#include "internal.h"

int mma_terms_special(const mma_term *t, int n, mma_fmt d, uint64_t *out)
{
    int pinf = 0, ninf = 0;
    for (int i = 0; i < n; i++) {
        if (t[i].cls == MMA_NAN) { *out = mma_canonical_nan(d); return 1; }
        if (t[i].cls == MMA_INF) { if (t[i].neg) ninf = 1; else pinf = 1; }
    }
    if (pinf && ninf) { *out = mma_canonical_nan(d); return 1; }
    if (pinf || ninf) { *out = mma_inf(d, ninf); return 1; }
    return 0;
}

void mma_term_overflow(mma_term *p)
{
    if (p->cls != MMA_FINITE) return;
    /* leading bit of sig * 2^(e - fb) */
    int32_t top = 63 - mma_clz64(p->sig) + p->e - p->fb;
    if (top >= 128) p->cls = MMA_INF;
}
