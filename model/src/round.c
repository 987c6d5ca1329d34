/* Normalize-and-round (paper, FDA step 5): from an exact value
 * (-1)^neg * mag * 2^lsb to the output format, with p fraction bits kept (23
 * for FP32, 13 for the Ada/Hopper FP8 "e8m13" output, 10 for FP16, ...), a
 * rounding direction, and the rules of the configuration for overflow and
 * zeros; the IEEE 754 exception flags it raises come out on the side. */
#include "internal.h"

MMA_HD uint64_t mma_inf(mma_fmt d, int neg)
{
    const mma_format_info *fi = mma_format(d);
    uint64_t e = (((uint64_t)1 << fi->ebits) - 1) << fi->mbits;
    return e | ((uint64_t)neg << (fi->width - 1));
}

MMA_HD int mma_is_nan(mma_fmt d, uint64_t bits)
{
    return mma_decode(d, bits).cls == MMA_NAN;
}

MMA_HD uint64_t mma_quiet(mma_fmt d, uint64_t nan_bits)
{
    const mma_format_info *fi = mma_format(d);
    return nan_bits | ((uint64_t)1 << (fi->mbits - 1));
}

/* The largest finite number of d kept at p fraction bits: exponent of its
 * leading bit and its significand of p+1 bits.  IEEE-like formats reserve
 * the top exponent for Inf and NaN; OCP e4m3 keeps it but for S.1111.111
 * (so 1.110 * 2^8 = 448 is the largest); fnuz, fp6 and fp4 use all of it. */
static MMA_HD void largest(mma_fmt d, int p, int32_t *emaxe, uint64_t *maxq)
{
    const mma_format_info *fi = mma_format(d);
    int top = (1 << fi->ebits) - 1;
    uint64_t full = ((uint64_t)1 << (fi->mbits + 1)) - 1;     /* 1.11...1 */
    if (fi->has_inf) top--;
    else if (d == MMA_FMT_E4M3) full--;                        /* 1.11...0 */
    *emaxe = top - fi->bias;
    *maxq = full >> (fi->mbits - p);
}

static MMA_HD int unsigned_zero(mma_fmt d)    /* no -0: its encoding is the NaN */
{
    return d == MMA_FMT_E4M3FNUZ || d == MMA_FMT_E5M2FNUZ;
}

static MMA_HD uint64_t sign_bit(mma_fmt d, int neg)
{
    const mma_format_info *fi = mma_format(d);
    return neg && fi->has_sign ? (uint64_t)1 << (fi->width - 1) : 0;
}

/* A finite nonzero (-1)^neg * q * 2^(x - p), q of p+1 bits with x >= emin,
 * or a subnormal q * 2^(emin - p), q < 2^p, in d's encoding. */
static MMA_HD uint64_t encode(mma_fmt d, int p, int neg, uint64_t q, int32_t x)
{
    const mma_format_info *fi = mma_format(d);
    uint64_t bexp = x < fi->emin ? 0 : (uint64_t)(x - fi->emin + 1);
    uint64_t frac = (q & (((uint64_t)1 << p) - 1)) << (fi->mbits - p);
    return sign_bit(d, neg) | (bexp << fi->mbits) | frac;
}

MMA_HD uint64_t mma_out_max(mma_fmt d, int p, int neg)
{
    int32_t emaxe;
    uint64_t maxq;
    largest(d, p, &emaxe, &maxq);
    return encode(d, p, neg, maxq, emaxe);
}

uint64_t mma_format_max(mma_fmt f)
{
    switch (f) {
    case MMA_FMT_TF32: return 0x7f7fe000;       /* the fp32 layout, low 13 bits ignored */
    case MMA_FMT_UE8M0: return 0xfe;
    case MMA_FMT_UE4M3: return 0x7e;
    default: return mma_out_max(f, mma_format(f)->mbits, 0);
    }
}

/* An infinite result in d: its Inf; the NaN of a format that has a NaN but
 * no Inf (OCP e4m3, fnuz: as their non-saturating conversions do); the
 * largest finite of a format with neither (fp6, fp4) and under ovf=sat. */
MMA_HD uint64_t mma_out_inf(const mma_rspec *r, int neg)
{
    const mma_format_info *fi = mma_format(r->d);
    if (r->ovf == MMA_OVR_SAT) return mma_out_max(r->d, r->p, neg);
    if (fi->has_inf) return mma_inf(r->d, neg);   /* (MMA_OVR_SATOVF too: an Inf operand stays Inf) */
    if (r->d == MMA_FMT_E4M3) return 0x7f | sign_bit(r->d, neg);
    if (unsigned_zero(r->d)) return 0x80;
    return mma_out_max(r->d, r->p, neg);
}

/* Round mag * 2^lsb to p fraction bits below its leading bit, or below
 * 2^emin if that is higher (emin = INT32_MIN / 2: unbounded exponent
 * range).  Returns the kept significand q; *qlsb the weight of its last bit,
 * *inexact whether anything was lost. */
static MMA_HD uint64_t round_core(int32_t emin, int p, mma_rounding rho, int neg, uint64_t mag,
                                  int32_t lsb, int32_t *qlsb, int *inexact)
{
    int32_t x = 63 - mma_clz64(mag) + lsb;         /* leading-bit exponent */
    int32_t keep_lsb = (x < emin ? emin : x) - p;
    int32_t sh = keep_lsb - lsb;
    uint64_t q, rem, half;
    *qlsb = keep_lsb;
    if (sh <= 0) {
        *inexact = 0;
        return mag << -sh;
    }
    if (sh >= 64) { q = 0; rem = mag; half = sh == 64 ? (uint64_t)1 << 63 : 0; }
    else { q = mag >> sh; rem = mag & (((uint64_t)1 << sh) - 1);
           half = (uint64_t)1 << (sh - 1); }
    *inexact = rem != 0;
    if (!rem) return q;
    int up = 0;
    switch (rho) {
    case MMA_RZ: break;
    case MMA_RNE: up = sh <= 64 && (rem > half || (rem == half && (q & 1))); break;  /* sh > 64: rem < half */
    case MMA_RMM: up = sh <= 64 && rem >= half; break;
    case MMA_RD: up = neg; break;
    case MMA_RU: up = !neg; break;
    case MMA_RODD: up = !(q & 1); break;          /* q even: q + 1 is the odd one */
    }
    return q + (uint64_t)up;
}

MMA_HD int mma_round_tiny(const mma_rspec *r, int neg, uint64_t mag, int32_t lsb)
{
    int32_t emin = mma_format(r->d)->emin, ulsb;
    int ui;
    if (r->tiny_before) return 63 - mma_clz64(mag) + lsb < emin;
    uint64_t uq = round_core(INT32_MIN / 2, r->p, r->rho, neg, mag, lsb, &ulsb, &ui);
    return 63 - mma_clz64(uq) + ulsb < emin;
}

MMA_HD void mma_round_keep(mma_fmt d, int p, mma_rounding rho, int neg,
                           uint64_t *mag, int32_t *lsb)
{
    if (*mag == 0) return;
    int32_t qlsb;
    int inexact;
    *mag = round_core(mma_format(d)->emin, p, rho, neg, *mag, *lsb, &qlsb, &inexact);
    *lsb = qlsb;
}

/* IEEE 754 7.4: overflow to Inf under the nearest roundings and the
 * directed rounding toward the result's sign; to the largest finite under
 * the others. */
static MMA_HD int overflow_to_inf(const mma_rspec *r, int neg)
{
    switch (r->ovf) {
    case MMA_OVR_INF: return 1;
    case MMA_OVR_SAT: case MMA_OVR_SATOVF: return 0;
    default: break;
    }
    switch (r->rho) {
    case MMA_RNE: case MMA_RMM: return 1;
    case MMA_RD: return neg;
    case MMA_RU: return !neg;
    default: return 0;                              /* RZ, RODD */
    }
}

/* A nonzero mag: the rounded encoding, its flags into *fl */
static MMA_HD uint64_t round_nonzero(const mma_rspec *r, int neg, uint64_t mag, int32_t lsb, unsigned *fl)
{
    mma_fmt d = r->d;
    const mma_format_info *fi = mma_format(d);
    int p = r->p;
    int32_t qlsb;
    int inexact;
    uint64_t q = round_core(fi->emin, p, r->rho, neg, mag, lsb, &qlsb, &inexact);
    int32_t x0 = 63 - mma_clz64(mag) + lsb;
    if (inexact) {
        *fl |= MMA_FLAG_INEXACT;
        /* tininess: the exact value below 2^emin (before rounding), or its
         * rounding to p+1 bits with an unbounded exponent range (after) */
        int tiny = x0 < fi->emin;
        if (tiny && !r->tiny_before) {
            int32_t ulsb;
            int ui;
            uint64_t uq = round_core(INT32_MIN / 2, p, r->rho, neg, mag, lsb, &ulsb, &ui);
            tiny = 63 - mma_clz64(uq) + ulsb < fi->emin;
        }
        if (tiny) *fl |= MMA_FLAG_UNDERFLOW;
    }
    if (q == 0)                                     /* rounded to zero */
        return r->zero != MMA_ZS_POS && !unsigned_zero(d) ? sign_bit(d, neg) : 0;
    int32_t x = 63 - mma_clz64(q) + qlsb;           /* x0, or x0 + 1 after a carry */
    if (x - p > qlsb) q >>= 1;                      /* a carry to p+2 bits: back to p+1 */
    int32_t emaxe;
    uint64_t maxq;
    largest(d, p, &emaxe, &maxq);
    if (x > emaxe || (x == emaxe && q > maxq)) {
        *fl |= MMA_FLAG_OVERFLOW | MMA_FLAG_INEXACT;
        return overflow_to_inf(r, neg) ? mma_out_inf(r, neg) : encode(d, p, neg, maxq, emaxe);
    }
    return encode(d, p, neg, q, x);
}

MMA_HD uint64_t mma_round_to(const mma_rspec *r, int neg, uint64_t mag, int32_t lsb, int zneg,
                             unsigned *flags)
{
    unsigned fl = 0;
    uint64_t out;
    if (mag == 0)                                   /* an exactly zero sum */
        out = r->zero == MMA_ZS_IEEE && !unsigned_zero(r->d) ? sign_bit(r->d, zneg) : 0;
    else
        out = round_nonzero(r, neg, mag, lsb, &fl);
    if (flags) *flags |= fl;
    return out;
}

MMA_HD mma_rspec mma_unit_rspec(const mma_unit *u)
{
    mma_rspec r;
    r.d = u->d;
    r.p = u->p;
    r.rho = u->rho;
    r.ovf = mma_unit_ovf(u);
    if (r.ovf == MMA_OVR_SAT && (u->flags & MMA_F_SAT_INF)) r.ovf = MMA_OVR_SATOVF;
    r.zero = (u->flags & MMA_F_ZERO_POS) ? MMA_ZS_POS : (u->flags & MMA_F_ZERO_IEEE) ? MMA_ZS_IEEE : MMA_ZS_FIXED;
    r.tiny_before = (u->flags & MMA_F_TINY_BEFORE) != 0;
    return r;
}

MMA_HD mma_ovr mma_default_ovf(mma_tree t, mma_rounding rho)
{
    int nvidia_like = t == MMA_TREE_FUSED || t == MMA_TREE_EVENODD || t == MMA_TREE_GROUPS || t == MMA_TREE_EXACT;
    return nvidia_like && rho == MMA_RZ ? MMA_OVR_INF : MMA_OVR_IEEE;
}

MMA_HD mma_ovr mma_unit_ovf(const mma_unit *u)
{
    unsigned o = (u->flags & MMA_F_OVF_MASK) >> 10;
    return o ? (mma_ovr)o : mma_default_ovf(u->tree, u->rho);
}
