/* An exact fixed-point (Kulisch) accumulator: every finite term is added
 * without rounding, so the sum is the exact value.  Used by the exact-sum
 * algorithm (CDNA1) and by the error metrics as the exact reference. */
#include "internal.h"

#include <string.h>

MMA_HD void mma_kacc_init(mma_kacc *k, int32_t lo, int32_t hi)
{
    k->lo = lo;
    k->n = (int)((hi - lo) / 64) + 2;          /* one limb of headroom */
    if (k->n > MMA_KACC_LIMBS) k->n = MMA_KACC_LIMBS;
    memset(k->w, 0, sizeof k->w);
}

static MMA_HD void add_at(mma_kacc *k, int i, uint64_t v, int neg)
{
    if (!neg) {
        for (; i < k->n && v; i++) {
            uint64_t s = k->w[i] + v;
            v = s < v;
            k->w[i] = s;
        }
    } else {
        for (; i < k->n && v; i++) {
            uint64_t s = k->w[i] - v;
            v = s > k->w[i];
            k->w[i] = s;
        }
    }
}

MMA_HD void mma_kacc_add(mma_kacc *k, int neg, unsigned __int128 sig, int32_t lsb)
{
    if (!sig) return;
    int32_t bit = lsb - k->lo;
    if (bit < 0) {                 /* below the window (callers size it so
                                      this cannot happen): drop those bits */
        if (-bit >= 128) return;
        sig >>= -bit;
        bit = 0;
    }
    int i = bit / 64, off = bit % 64;
    uint64_t p0 = (uint64_t)(sig << off);
    uint64_t p1 = (uint64_t)((sig >> (64 - off)) >> 0);
    uint64_t p2 = off ? (uint64_t)(sig >> (128 - off)) : 0;
    if (off == 0) p1 = (uint64_t)(sig >> 64);
    add_at(k, i, p0, neg);
    add_at(k, i + 1, p1, neg);
    add_at(k, i + 2, p2, neg);
}

MMA_HD int mma_kacc_sign(const mma_kacc *k)
{
    if ((int64_t)k->w[k->n - 1] < 0) return -1;
    for (int i = 0; i < k->n; i++) if (k->w[i]) return 1;
    return 0;
}

MMA_HD void mma_kacc_mag(const mma_kacc *k, int *negp, uint64_t *magp, int32_t *lsbp)
{
    uint64_t w[MMA_KACC_LIMBS];
    int neg = mma_kacc_sign(k) < 0;
    memcpy(w, k->w, sizeof(uint64_t) * (size_t)k->n);
    if (neg) {                                   /* magnitude */
        uint64_t carry = 1;
        for (int i = 0; i < k->n; i++) { w[i] = ~w[i] + carry; carry = carry && w[i] == 0; }
    }
    *negp = neg;
    int top = k->n - 1;
    while (top >= 0 && w[top] == 0) top--;
    if (top < 0) { *magp = 0; *lsbp = 0; return; }
    /* leading 63 bits, with everything below folded into a sticky bit 0 */
    int lz = mma_clz64(w[top]);
    int32_t msb = top * 64 + 63 - lz;            /* bit index of the leading 1 */
    int32_t lowbit = msb - 62;                   /* we keep bits msb..lowbit   */
    uint64_t mag = 0;
    int sticky = 0;
    for (int32_t b = msb; b >= lowbit && b >= 0; b--)
        mag = (mag << 1) | ((w[b / 64] >> (b % 64)) & 1);
    if (lowbit < 0) { mag <<= -lowbit; lowbit = 0; }
    for (int i = 0; i < lowbit / 64 && !sticky; i++) sticky = w[i] != 0;
    if (!sticky && lowbit % 64)
        sticky = (w[lowbit / 64] & (((uint64_t)1 << (lowbit % 64)) - 1)) != 0;
    /* a sticky bit one place below the kept 63 bits decides ties, and
     * inexactness, correctly (every format keeps at most 53 bits) */
    *magp = (mag << 1) | (uint64_t)sticky;
    *lsbp = k->lo + lowbit - 1;
}

MMA_HD uint64_t mma_kacc_round_to(const mma_kacc *k, const mma_rspec *r, int zneg, unsigned *flags)
{
    int neg;
    uint64_t mag;
    int32_t lsb;
    mma_kacc_mag(k, &neg, &mag, &lsb);
    return mma_round_to(r, neg, mag, lsb, zneg, flags);
}

MMA_HD uint64_t mma_kacc_round(const mma_kacc *k, mma_fmt d, int p, mma_rounding rho,
                               int zero_signed)
{
    mma_rspec r = {d, p, rho, rho == MMA_RZ ? MMA_OVR_INF : MMA_OVR_IEEE,
                   zero_signed ? MMA_ZS_FIXED : MMA_ZS_POS, 0};
    return mma_kacc_round_to(k, &r, 0, NULL);
}
