/* GDFS (NVIDIA OMMA / UTCOMMA, block-scaled fp4 with K=64; paper section E,
 * GST-FDPA in the final version): exact sums of each G consecutive products,
 * each group sum multiplied by its block's two scales, then one fused aligned
 * sum of the groups and c with F=35 bits, RZ to FP32.  A group is aligned by
 * its scale exponent alone: its sum is not renormalized.  A group whose
 * products are all zero (or whose scale is zero) takes the exponent ezero;
 * a group whose products cancel to zero keeps its scale exponent. */
#include "internal.h"

#include <stdint.h>

static int lg2(int x) { int l = 0; while ((1 << l) < x) l++; return l; }

/* the largest exponent a finite value of f reaches (of its leading bit) */
static int top_exp(mma_fmt f)
{
    int top = -10000;
    for (uint64_t x = 0; x < ((uint64_t)1 << mma_format(f)->width); x++) {
        mma_value v = mma_decode(f, x);
        if (v.cls == MMA_FINITE) { int t = 63 - mma_clz64(v.sig) + v.exp; top = t > top ? t : top; }
    }
    return top;
}

int32_t mma_groups_lsb0(mma_fmt a, mma_fmt b)
{
    const mma_format_info *fa = mma_format(a), *fb = mma_format(b);
    return fa->emin - fa->mbits + fb->emin - fb->mbits;
}

/* A group sum is not renormalized: its exact sum (in units of 2^lsb0, with
 * 8 bits of count below), that sum times the scales aligned at F bits, and
 * the sum of all groups must fit 64-bit fixed point (found by fuzzing:
 * e5m2fnuz x e4m3fnuz in groups of 16 at f=35 overflowed it). */
int mma_groups_sums_fit(const mma_unit *u)
{
    int ta = top_exp(u->a) + 1, tb = top_exp(u->b) + 1, lg = lg2(u->g);
    int ssb = u->scale == MMA_FMT_UE4M3 ? 8 : 0, fbs = 2 * mma_format(u->scale)->mbits;
    int gbits = ta + tb - mma_groups_lsb0(u->a, u->b) + lg;
    int tbits = ta + tb + lg + ssb + u->f - fbs + 1;
    return gbits + 8 <= 62 && tbits + lg2(u->k / u->g + 1) <= 61 && u->f + 2 <= 61;
}

MMA_HD uint64_t mma_alg_groups(const mma_unit *u, uint64_t c, const uint64_t *a,
                               const uint64_t *b, const uint64_t *sa, const uint64_t *sb)
{
    mma_term t[MMA_MAX_K + 1];
    int ng = 0, zall = 1, anypos = 0, anyneg = 0;    /* of products and c: the sign of a zero */
    for (int k0 = 0; k0 < u->k; k0 += u->g) {
        /* exact group sum, in units of 2^lsb (products of one format pair
         * share the LSB weight of their subnormal grid) */
        int32_t lsb = INT32_MAX;      /* the smallest LSB weight of the group */
        int allzero = 1;
        mma_term ps[MMA_MAX_K];
        for (int k = k0; k < k0 + u->g; k++) {
            ps[k - k0] = mma_term_mul(mma_term_of(u->a, a[k]), mma_term_of(u->b, b[k]));
            if (ps[k - k0].cls != MMA_ZERO) allzero = 0;
            zall &= ps[k - k0].cls == MMA_ZERO;
            if (ps[k - k0].neg) anyneg = 1; else anypos = 1;
            int32_t l = ps[k - k0].e - ps[k - k0].fb;
            if (l < lsb) lsb = l;
        }
        int64_t gs = 0;
        for (int k = 0; k < u->g; k++) {
            if (ps[k].cls == MMA_ZERO) continue;
            int64_t v = (int64_t)(ps[k].sig << ((ps[k].e - ps[k].fb) - lsb));
            gs += ps[k].neg ? -v : v;
        }
        int blk = k0 / u->block;
        mma_term s = mma_term_mul(mma_term_of(u->scale, sa[blk]),
                                  mma_term_of(u->scale, sb[blk]));
        mma_term g = {MMA_FINITE, gs < 0, s.e, 0, gs < 0 ? (uint64_t)-gs : (uint64_t)gs};
        /* value = gs * 2^lsb * ssig * 2^(s.e - s.fb); exponent for alignment
         * is s.e, so fb = s.fb - lsb expresses the rest */
        g.sig *= s.sig;
        g.fb = s.fb - lsb;
        if (s.cls == MMA_NAN) g.cls = MMA_NAN;
        else if (allzero || s.cls == MMA_ZERO) { g.cls = MMA_ZERO; g.sig = 0; }
        /* a group whose products cancel stays FINITE with sig 0: it keeps
         * its scale exponent s.e in the search for emax */
        t[ng++] = g;
    }
    mma_term ct = mma_term_of(u->c, c);
    t[ng++] = ct;
    zall &= ct.cls == MMA_ZERO;
    if (ct.neg) anyneg = 1; else anypos = 1;
    uint64_t out;
    mma_rspec rs = mma_unit_rspec(u);
    mma_nansrc src = {u->c, u->a, u->b, c, a, b, NULL, u->k};
    if (mma_step_special(u, &rs, t, ng, &src, &out)) return out;
    mma_fixed r = mma_fused_sum(t, ng, u->f, u->align, u->ezero,
                                !(u->flags & MMA_F_NO_EZERO));
    uint64_t mag = r.s < 0 ? (uint64_t)-r.s : (uint64_t)r.s;
    return mma_round_to(&rs, r.s < 0, r.empty ? 0 : mag, r.emax - u->f,
                        mma_zero_sign(zall, anypos, anyneg, u->rho), NULL);
}
