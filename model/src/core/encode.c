/* A value into a format: the one rounding encoder (mma_encode_round),
 * which the metrics' exact reference and the public mma_encode share, and
 * the limits of every format it reads. */
#include "internal.h"

#include "mmaref_gen.h"

fmt_lim mma_fmt_lims[MMA_FMT_COUNT];

static fmt_lim limits_of(mma_fmt f)
{
    const mma_format_info *fi = mma_format(f);
    fmt_lim l;
    l.fi = fi;
    l.mb_st = f == MMA_FMT_TF32 ? 23 : fi->mbits;
    l.fnuz = f == MMA_FMT_E4M3FNUZ || f == MMA_FMT_E5M2FNUZ;
    l.neg0 = fi->has_sign && !l.fnuz;
    int top = (1 << fi->ebits) - 1;
    l.maxm = ((uint64_t)1 << fi->mbits) - 1;
    if (fi->has_inf) top--;                              /* IEEE-like */
    else if (f == MMA_FMT_E4M3 || f == MMA_FMT_UE4M3) l.maxm--;   /* S.1111.111 is NaN */
    l.emax = top - fi->bias;
    return l;
}

/* filled before main (and before any thread), so that readers on many
 * threads never race with the fill */
__attribute__((constructor)) static void lims_build(void)
{
    for (int f = 1; f < MMA_FMT_COUNT; f++) mma_fmt_lims[f] = limits_of((mma_fmt)f);
}

uint64_t mma_encode_round(mma_fmt f, int p, mma_rounding rho, int neg, uint64_t mag, int32_t e, int sticky)
{
    fmt_lim l = mma_fmt_lims[f];
    const mma_format_info *fi = l.fi;
    if (p < 0 || p > fi->mbits) p = fi->mbits;
    if (!fi->has_sign) neg = 0;
    if (mag == 0) return mma_pack(f, &l, neg && l.neg0, 0, 0);
    int32_t keep = (e < fi->emin ? fi->emin : e) - p;     /* weight of q's lsb */
    int32_t j = keep - (e - 63);                          /* bits dropped */
    uint64_t q;
    int up = 0;
    if (j <= 0) q = mag << -j;                            /* not reached: p <= 52 */
    else if (j >= 64) {
        q = 0;
        if (rho == MMA_RNE && j == 64) up = mag > ((uint64_t)1 << 63) || (mag == ((uint64_t)1 << 63) && sticky);
    } else {
        q = mag >> j;
        uint64_t rem = mag & (((uint64_t)1 << j) - 1), half = (uint64_t)1 << (j - 1);
        if (rho == MMA_RNE) up = rem > half || (rem == half && (sticky || (q & 1)));
    }
    q += (uint64_t)up;
    if (q == 0) return mma_pack(f, &l, neg && l.neg0, 0, 0);
    if (q >> (p + 1)) { q >>= 1; keep++; }                /* carry out */
    uint64_t one = (uint64_t)1 << p;
    if (q < one)                                          /* subnormal */
        return mma_pack(f, &l, neg, 0, q << (fi->mbits - p));
    int32_t eq = keep + p;
    uint64_t mf = (q - one) << (fi->mbits - p);
    if (eq > l.emax || (eq == l.emax && mf > l.maxm)) {
        if (fi->has_inf) return mma_pack(f, &l, neg, (uint64_t)((1 << fi->ebits) - 1), 0);
        return mma_pack(f, &l, neg, (uint64_t)(l.emax + fi->bias), l.maxm);
    }
    return mma_pack(f, &l, neg, (uint64_t)(eq + fi->bias), mf);
}

/* a quiet NaN of f (the sign of v kept where f's NaNs have one); formats
 * without NaN: their largest finite */
static uint64_t nan_of(mma_fmt f, int neg)
{
    const fmt_lim *l = &mma_fmt_lims[f];
    const mma_format_info *fi = l->fi;
    if (f == MMA_FMT_UE8M0) return 0xff;
    if (l->fnuz) return 0x80;
    if (f == MMA_FMT_E4M3 || f == MMA_FMT_UE4M3) return mma_pack(f, l, neg, (uint64_t)((1 << fi->ebits) - 1), l->maxm + 1);
    if (!fi->has_inf) return mma_pack(f, l, neg, (uint64_t)(l->emax + fi->bias), l->maxm);
    return mma_pack(f, l, neg, (uint64_t)((1 << fi->ebits) - 1), (uint64_t)1 << (fi->mbits - 1));
}

uint64_t mma_encode(mma_fmt f, mma_value v)
{
    if (f <= MMA_FMT_NONE || f >= MMA_FMT_COUNT) return 0;
    const fmt_lim *l = &mma_fmt_lims[f];
    const mma_format_info *fi = l->fi;
    switch (v.cls) {
    case MMA_NAN: return nan_of(f, v.neg);
    case MMA_INF:
        if (fi->has_inf) return mma_pack(f, l, v.neg, (uint64_t)((1 << fi->ebits) - 1), 0);
        if (f == MMA_FMT_UE8M0) return 0xfe;
        return mma_pack(f, l, v.neg, (uint64_t)(l->emax + fi->bias), l->maxm);
    case MMA_ZERO: return f == MMA_FMT_UE8M0 ? 0 : mma_pack(f, l, v.neg && l->neg0, 0, 0);
    default: break;
    }
    if (!v.sig) return mma_encode(f, (mma_value){MMA_ZERO, v.neg, 0, 0});
    int s = __builtin_clzll(v.sig);
    uint64_t mag = v.sig << s;
    int32_t e = v.exp + 63 - s;                       /* the weight of mag's bit 63 */
    if (f == MMA_FMT_UE8M0) {                         /* powers of two 2^-127 .. 2^127 */
        e += mag > ((uint64_t)3 << 62) || (mag == ((uint64_t)3 << 62) && (e & 1));   /* nearest, ties to even */
        return e < -127 ? 0 : e > 127 ? 0xfe : (uint64_t)(e + 127);
    }
    return mma_encode_round(f, -1, MMA_RNE, v.neg, mag, e, 0);
}
