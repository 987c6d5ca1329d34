/* Exact dot products for the error metrics, on the Kulisch accumulator. */
#include "internal.h"
#include "mmaref_exact.h"

#include <math.h>
#include <string.h>

/* The window covers fp64 products (2^-2148 .. 2^2048) when fp64 is
 * involved, and 2^-1200 .. 2^1200 otherwise (fp32 products and c). */
static void init_window(mma_exact *x, int wide)
{
    mma_kacc k;
    mma_kacc_init(&k, wide ? -2240 : -600, wide ? 2240 : 600);
    x->lo = k.lo;
    x->n = k.n;
    memset(x->w, 0, sizeof x->w);
}

void mma_exact_zero(mma_exact *x)
{
    x->cls = MMA_FINITE;
    x->inf_neg = 0;
    init_window(x, 1);
}

static void add_wide(mma_exact *x, int neg, unsigned __int128 sig, int32_t lsb)
{
    mma_kacc k;
    k.lo = x->lo; k.n = x->n;
    memcpy(k.w, x->w, sizeof(uint64_t) * (size_t)x->n);
    mma_kacc_add(&k, neg, sig, lsb);
    memcpy(x->w, k.w, sizeof(uint64_t) * (size_t)x->n);
}

static void add_term(mma_exact *x, mma_term t)
{
    if (t.cls == MMA_NAN) { x->cls = MMA_NAN; return; }
    if (t.cls == MMA_INF) {
        if (x->cls == MMA_INF && x->inf_neg != t.neg) x->cls = MMA_NAN;
        else if (x->cls != MMA_NAN) { x->cls = MMA_INF; x->inf_neg = t.neg; }
        return;
    }
    if (t.cls != MMA_FINITE) return;
    mma_kacc k;
    k.lo = x->lo; k.n = x->n;
    memcpy(k.w, x->w, sizeof(uint64_t) * (size_t)x->n);
    mma_kacc_add(&k, t.neg, t.sig, t.e - t.fb);
    memcpy(x->w, k.w, sizeof(uint64_t) * (size_t)x->n);
}

void mma_exact_add(mma_exact *x, mma_fmt f, uint64_t bits, int negate)
{
    mma_term t = mma_term_of(f, bits);
    t.neg ^= negate;
    add_term(x, t);
}

void mma_exact_dot(const mma_unit *u, uint64_t c, const uint64_t *a,
                   const uint64_t *b, const uint64_t *sa, const uint64_t *sb,
                   mma_exact *x)
{
    x->cls = MMA_FINITE;
    x->inf_neg = 0;
    init_window(x, u->a == MMA_FMT_FP64 || u->c == MMA_FMT_FP64);
    for (int k = 0; k < u->k; k++) {
        mma_term ta = mma_term_of(u->a, a[k]), tb = mma_term_of(u->b, b[k]);
        ta.neg ^= (u->flags & MMA_F_NEG) != 0;        /* neg=1: c - sum a*b */
        mma_term p = mma_term_mul(ta, tb);
        if (p.cls == MMA_FINITE && (ta.fb + tb.fb > 60)) {
            /* fp64 products need all 106 bits: multiply in 128 */
            add_wide(x, p.neg, (unsigned __int128)ta.sig * tb.sig, p.e - p.fb);
            continue;
        }
        if (u->scale != MMA_FMT_NONE) {
            mma_term s = mma_term_mul(mma_term_of(u->scale, sa[k / u->block]),
                                      mma_term_of(u->scale, sb[k / u->block]));
            p = mma_term_mul(p, s);
        }
        add_term(x, p);
    }
    add_term(x, mma_term_of(u->c, c));
}

static mma_kacc as_kacc(const mma_exact *x)
{
    mma_kacc k;
    k.lo = x->lo; k.n = x->n;
    memcpy(k.w, x->w, sizeof(uint64_t) * (size_t)x->n);
    return k;
}

uint64_t mma_exact_round(const mma_exact *x, mma_fmt d, int p, mma_rounding rho)
{
    if (x->cls == MMA_NAN) return mma_canonical_nan(d);
    if (x->cls == MMA_INF) return mma_inf(d, x->inf_neg);
    mma_kacc k = as_kacc(x);
    return mma_kacc_round(&k, d, p, rho, 0);
}

int mma_exact_sign(const mma_exact *x)
{
    mma_kacc k = as_kacc(x);
    return mma_kacc_sign(&k);
}

double mma_exact_to_double(const mma_exact *x)
{
    if (x->cls == MMA_NAN) return NAN;
    if (x->cls == MMA_INF) return x->inf_neg ? -INFINITY : INFINITY;
    uint64_t bits = mma_exact_round(x, MMA_FMT_FP64, 52, MMA_RNE);
    double v;
    memcpy(&v, &bits, 8);
    return v;
}
