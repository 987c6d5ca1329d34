/* The fused aligned sum with F fraction bits (paper, FDA steps 3-4):
 * align every term to the largest exponent, keep F bits after the binary
 * point, cut the rest per term, add exactly in fixed point.  Because the cut
 * happens before the addition, the sum does not depend on the order. */
#include "internal.h"

/* |sig| * 2^(e - fb) expressed in units of 2^lsb, cut per mode; signed. */
static MMA_HD int64_t align_term(uint64_t sig, int neg, int32_t e, int fb,
                                 int32_t lsb, mma_rounding cut)
{
    int32_t sh = lsb - (e - fb);          /* right shift amount */
    if (sh <= 0) {
        int64_t v = (int64_t)(sig << -sh);
        return neg ? -v : v;
    }
    uint64_t q = sh >= 64 ? 0 : sig >> sh;
    if (neg && cut == MMA_RD) {
        uint64_t lost = sh >= 64 ? sig : sig & (((uint64_t)1 << sh) - 1);
        if (lost) q++;                    /* toward -inf: magnitude up */
    }
    return neg ? -(int64_t)q : (int64_t)q;
}

MMA_HD mma_fixed mma_fused_sum(const mma_term *t, int n, int f, mma_rounding cut,
                               int ezero, int zeros_take_part)
{
    mma_fixed r = {0, INT32_MIN, f, 1};
    for (int i = 0; i < n; i++) {
        int32_t e = t[i].cls == MMA_ZERO ? (zeros_take_part ? ezero : INT32_MIN)
                                         : t[i].e;
        if (e > r.emax) r.emax = e;
    }
    if (r.emax == INT32_MIN) { r.emax = 0; return r; }   /* empty: value 0 */
    r.empty = 0;
    int32_t lsb = r.emax - f;
    for (int i = 0; i < n; i++)
        if (t[i].cls != MMA_ZERO)
            r.s += align_term(t[i].sig, t[i].neg, t[i].e, t[i].fb, lsb, cut);
    return r;
}

MMA_HD int64_t mma_fixed_realign(int64_t s, int32_t from_lsb, int32_t to_lsb,
                                 mma_rounding cut)
{
    if (to_lsb <= from_lsb) return (int64_t)((uint64_t)s << (from_lsb - to_lsb));
    int32_t sh = to_lsb - from_lsb;
    if (cut == MMA_RD) {                  /* floor */
        if (sh >= 63) return s < 0 ? -1 : 0;
        return s >> sh;                   /* arithmetic shift = floor */
    }
    uint64_t m = s < 0 ? (uint64_t)-s : (uint64_t)s;
    uint64_t q = sh >= 64 ? 0 : m >> sh;
    return s < 0 ? -(int64_t)q : (int64_t)q;
}
