/* Normalize-and-round (paper, FDA step 5): from an exact fixed-point value
 * to the output format, with p fraction bits kept (23 for FP32, 13 for the
 * Ada/Hopper FP8 "e8m13" output, 10 for FP16). */
#include "internal.h"

uint64_t mma_inf(mma_fmt d, int neg)
{
    const mma_format_info *fi = mma_format(d);
    uint64_t e = (((uint64_t)1 << fi->ebits) - 1) << fi->mbits;
    return e | ((uint64_t)neg << (fi->width - 1));
}

uint64_t mma_canonical_nan(mma_fmt d)
{
    const mma_format_info *fi = mma_format(d);
    return ((uint64_t)1 << (fi->width - 1)) - 1;   /* 0x7fff, 0x7fffffff, ... */
}

int mma_is_nan(mma_fmt d, uint64_t bits)
{
    return mma_decode(d, bits).cls == MMA_NAN;
}

uint64_t mma_quiet(mma_fmt d, uint64_t nan_bits)
{
    const mma_format_info *fi = mma_format(d);
    return nan_bits | ((uint64_t)1 << (fi->mbits - 1));
}

/* Core of the rounding: returns the kept significand q (with hidden bit)
 * and the weight of its last bit; *x is the exponent of the leading bit. */
static uint64_t round_core(const mma_format_info *fi, int p, mma_rounding rho,
                           int neg, uint64_t mag, int32_t lsb, int32_t *qlsb)
{
    int32_t x = 63 - mma_clz64(mag) + lsb;         /* leading-bit exponent */
    int32_t keep_lsb = (x < fi->emin ? fi->emin : x) - p;
    int32_t sh = keep_lsb - lsb;
    uint64_t q, rem, half;
    if (sh <= 0) {
        *qlsb = keep_lsb;
        return mag << -sh;
    }
    if (sh >= 64) { q = 0; rem = mag; half = sh == 64 ? (uint64_t)1 << 63 : 0; }
    else { q = mag >> sh; rem = mag & (((uint64_t)1 << sh) - 1);
           half = (uint64_t)1 << (sh - 1); }
    int up = 0;
    if (rem) switch (rho) {
        case MMA_RZ: break;
        case MMA_RNE:
            if (sh > 64) up = 0;           /* rem < 2^64 <= half weight   */
            else up = rem > half || (rem == half && (q & 1));
            break;
        case MMA_RD: up = neg; break;
        case MMA_RU: up = !neg; break;
    }
    q += (uint64_t)up;
    *qlsb = keep_lsb;
    return q;
}

void mma_round_keep(mma_fmt d, int p, mma_rounding rho, int neg,
                    uint64_t *mag, int32_t *lsb)
{
    if (*mag == 0) return;
    int32_t qlsb;
    *mag = round_core(mma_format(d), p, rho, neg, *mag, *lsb, &qlsb);
    *lsb = qlsb;
}

uint64_t mma_round_pack(mma_fmt d, int p, mma_rounding rho, int neg,
                        uint64_t mag, int32_t lsb, int zero_signed)
{
    const mma_format_info *fi = mma_format(d);
    uint64_t sign = (uint64_t)neg << (fi->width - 1);
    if (mag == 0) return zero_signed ? sign : 0;
    int32_t qlsb;
    uint64_t q = round_core(fi, p, rho, neg, mag, lsb, &qlsb);
    if (q == 0) return zero_signed ? sign : 0;
    /* renormalize: q may have grown to 2^(p+1) */
    int32_t x = 63 - mma_clz64(q) + qlsb;
    int32_t emax = (1 << (fi->ebits - 1)) - 1;     /* IEEE-like formats only */
    if (x > emax) {
        int to_inf = rho == MMA_RZ || rho == MMA_RNE ||
                     (rho == MMA_RD && neg) || (rho == MMA_RU && !neg);
        if (to_inf) return mma_inf(d, neg);
        uint64_t maxf = mma_inf(d, 0) - ((uint64_t)1 << (fi->mbits - p));
        return sign | maxf;
    }
    uint64_t frac, bexp;
    if (x < fi->emin) {                   /* subnormal (q < 2^p)           */
        bexp = 0;
        frac = q << (fi->mbits - p);
    } else {
        bexp = (uint64_t)(x - fi->emin + 1);
        /* q has p+1 bits unless x moved; re-express with p fraction bits */
        int32_t shift = (x - p) - qlsb;   /* >0 only after carry-out      */
        uint64_t qq = shift > 0 ? q >> shift : q;
        frac = (qq & (((uint64_t)1 << p) - 1)) << (fi->mbits - p);
    }
    return sign | (bexp << fi->mbits) | frac;
}
