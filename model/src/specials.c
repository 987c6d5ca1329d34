/* Special values: which steps give Inf or NaN (paper, FDA step 1; FDRDA
 * step 3 for the AMD product overflow), which NaN a unit writes, and the
 * sign of an exactly zero sum (IEEE 754-2019 section 6.3). */
#include "internal.h"

MMA_HD int mma_terms_special_class(const mma_term *t, int n, int *inf_neg)
{
    int pinf = 0, ninf = 0;
    for (int i = 0; i < n; i++) {
        if (t[i].cls == MMA_NAN) return MMA_NAN;
        if (t[i].cls == MMA_INF) { if (t[i].neg) ninf = 1; else pinf = 1; }
    }
    if (pinf && ninf) return MMA_NAN;
    *inf_neg = ninf;
    return pinf || ninf ? MMA_INF : MMA_FINITE;
}

MMA_HD int mma_terms_special(const mma_term *t, int n, mma_fmt d, uint64_t *out)
{
    int neg = 0, cls = mma_terms_special_class(t, n, &neg);
    if (cls == MMA_NAN) *out = mma_canonical_nan(d);
    else if (cls == MMA_INF) *out = mma_inf(d, neg);
    return cls != MMA_FINITE;
}

MMA_HD void mma_term_overflow(mma_term *p)
{
    if (p->cls != MMA_FINITE) return;
    /* leading bit of sig * 2^(e - fb) */
    int32_t top = 63 - mma_clz64(p->sig) + p->e - p->fb;
    if (top >= 128) p->cls = MMA_INF;
}

/* ---- NaN encodings ----------------------------------------------------- */

/* Formats whose NaN is one fixed encoding (OCP e4m3: S.1111.111, sign
 * kept; fnuz: 0x80) or that have none (fp6, fp4: the largest finite,
 * positive, stands in). */
static MMA_HD int fixed_nan(mma_fmt d, int neg, uint64_t *out)
{
    if (d == MMA_FMT_E4M3) { *out = 0x7f | (neg ? 0x80u : 0u); return 1; }
    if (d == MMA_FMT_E4M3FNUZ || d == MMA_FMT_E5M2FNUZ) { *out = 0x80; return 1; }
    if (!mma_format(d)->has_inf) { *out = mma_out_max(d, mma_format(d)->mbits, 0); return 1; }
    return 0;
}

/* NVIDIA's canonical NaN: all ones but the sign (0x7fffffff, 0x7fff, 0x7f) */
MMA_HD uint64_t mma_canonical_nan(mma_fmt d)
{
    uint64_t out;
    if (fixed_nan(d, 0, &out)) return out;
    return ((uint64_t)1 << (mma_format(d)->width - 1)) - 1;
}

/* IEEE 754's default quiet NaN as RISC-V writes it: positive, quiet bit only
 * (0x7fc00000, 0x7e00, 0x7fc0, 0x7e for e5m2) */
MMA_HD uint64_t mma_default_nan(mma_fmt d)
{
    uint64_t out;
    if (fixed_nan(d, 0, &out)) return out;
    return mma_inf(d, 0) | ((uint64_t)1 << (mma_format(d)->mbits - 1));
}

MMA_HD int mma_is_snan(mma_fmt f, uint64_t bits)
{
    const mma_format_info *fi = mma_format(f);
    if (!fi->has_inf || !mma_is_nan(f, bits)) return 0;     /* fixed NaNs are quiet */
    int mb = f == MMA_FMT_TF32 ? 23 : fi->mbits;
    return !((bits >> (mb - 1)) & 1);
}

/* A NaN operand of format f written in format d: the sign kept, the
 * payload (the fraction bits) aligned to the top of d's fraction (cut or
 * extended with zeros), quieted: IEEE 754 6.2.3, as conversions between
 * binary formats do. */
static MMA_HD uint64_t nan_convert(mma_fmt f, uint64_t bits, mma_fmt d)
{
    const mma_format_info *fi = mma_format(f), *di = mma_format(d);
    if (f == MMA_FMT_E4M3FNUZ || f == MMA_FMT_E5M2FNUZ) return mma_default_nan(d);  /* no payload */
    int neg = (int)((bits >> (fi->width - 1)) & 1);
    uint64_t out;
    if (fixed_nan(d, neg, &out)) return out;
    int mb = f == MMA_FMT_TF32 ? 23 : fi->mbits;
    uint64_t pay = bits & (((uint64_t)1 << mb) - 1);
    if (f == MMA_FMT_TF32) { pay >>= 13; mb = 10; }           /* tensor cores' bits only */
    pay = di->mbits >= mb ? pay << (di->mbits - mb) : pay >> (mb - di->mbits);
    return mma_inf(d, neg) | pay | ((uint64_t)1 << (di->mbits - 1));
}

MMA_HD uint64_t mma_nan_convert(mma_fmt f, uint64_t bits, mma_fmt d) { return nan_convert(f, bits, d); }

MMA_HD uint64_t mma_nan_out(const mma_unit *u, mma_fmt d, const mma_nansrc *s)
{
    if (u->flags & MMA_F_NAN_CANON) return mma_canonical_nan(d);
    if ((u->flags & MMA_F_NAN_PROP) && s) {
        if (mma_is_nan(s->cf, s->c)) return nan_convert(s->cf, s->c, d);
        for (int j = 0; j < s->n; j++) {
            int k = s->k ? s->k[j] : j;
            if (mma_is_nan(s->af, s->a[k])) return nan_convert(s->af, s->a[k], d);
            if (mma_is_nan(s->bf, s->b[k])) return nan_convert(s->bf, s->b[k], d);
        }
    }
    return mma_default_nan(d);
}

MMA_HD int mma_step_special(const mma_unit *u, const mma_rspec *r, const mma_term *t, int n,
                            const mma_nansrc *s, uint64_t *out)
{
    int neg = 0, cls = mma_terms_special_class(t, n, &neg);
    if (cls == MMA_NAN) *out = mma_nan_out(u, r->d, s);
    else if (cls == MMA_INF) *out = mma_out_inf(r, neg);
    return cls != MMA_FINITE;
}

/* IEEE 754-2019 6.3: a sum that is exactly zero takes the sign its terms
 * share when they are all zeros of one sign (x + x has the sign of x), and
 * otherwise (zeros of both signs, or terms that cancel) is +0, or -0
 * rounding toward -inf. */
MMA_HD int mma_zero_sign(int allzero, int anypos, int anyneg, mma_rounding rho)
{
    if (allzero && !(anypos && anyneg)) return anyneg;
    return rho == MMA_RD;
}

MMA_HD int mma_terms_zneg(const mma_term *t, int n, mma_rounding rho)
{
    int allzero = 1, anypos = 0, anyneg = 0;
    for (int i = 0; i < n; i++) {
        allzero &= t[i].cls == MMA_ZERO;
        if (t[i].neg) anyneg = 1; else anypos = 1;
    }
    return mma_zero_sign(allzero, anypos, anyneg, rho);
}
