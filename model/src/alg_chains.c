/* CHAINS: dot products as sequences of rounded operations, the way CPU
 * and vector-ISA specifications write them.
 *
 * A step of l products (longer k chains the steps, each result the next
 * step's c) splits its products among `ways` chains: product j of the step
 * goes to chain j mod ways.  Each chain runs its products in k order (or
 * the reverse) through operations of `fuse` products each; an operation
 * adds its products to the chain's accumulator, when it has one, and rounds
 * once.  The chains' results are then added left to right, each addition
 * rounded, and c is added last (first operand c).  Where a chain starts:
 *   start=c     chain 0's accumulator is c (one chain): VDPBF16PS
 *   start=zero  every chain from +0, c added at the end: TDPBF16PS
 *   start=none  a chain's first operation rounds its products alone, c
 *               added at the end: Arm BFDOT, RISC-V RVBNA, AMX-FP8
 * An operation's sum is exact (f=0), or, for the operations with products,
 * aligned to its largest term keeping f fraction bits, each term cut by
 * `align` (rz, rd, or rodd: the bits cut are or-ed into the last one kept,
 * RISC-V's bulk normalization), then added exactly; the additions that
 * join chains and c are exact before their rounding.  Every operation then rounds by
 * `round` into d, with the unit's overflow and zero rules, and:
 *   ftz=in   an operand (a, b, c, an accumulator) whose value lies below
 *            d's smallest normal counts as a zero of its sign (x86 DAZ on
 *            the fp32 values: a bf16 subnormal is flushed, an fp16 one,
 *            normal in fp32, is not; Arm FPCR.FIZ)
 *   ftz=out  a result that is tiny (tiny=after: below 2^emin once rounded
 *            with an unbounded exponent range, as x86 detects it; before:
 *            the exact value, as Arm does) is a zero of its sign (x86 FTZ,
 *            Arm FPCR.FZ)
 * NaN results (nan=): the default, canonical or propagated NaN as on the
 * other trees, or x86's rule: each operation returns its first NaN operand,
 * an fma's a then b before its accumulator, an addition's first operand
 * before its second, quieted (Intel SDM, VDPBF16PS, Table 5-1's priority
 * a0, b0, a1, b1, c is this rule run through the chain), and an invalid
 * operation with no NaN operand gives the QNaN indefinite 0xffc00000;
 * nan=indef writes the indefinite for every NaN.
 *
 * The functions here are MMA_HD: the CUDA backend runs them (cuda/); the
 * configuration string, explanation and checks are in chains_config.c. */
#include "internal.h"

/* an operand of an operation: its format and encoding */
typedef struct { mma_fmt f; uint64_t bits; } opnd;

static inline MMA_HD opnd opnd_of(mma_fmt f, uint64_t bits)
{
    opnd o = {f, bits};
    return o;
}

/* x86's QNaN floating-point indefinite in d: the default NaN, negative */
static MMA_HD uint64_t indefinite(mma_fmt d)
{
    uint64_t n = mma_default_nan(d);
    return mma_format(d)->has_inf ? n | ((uint64_t)1 << (mma_format(d)->width - 1)) : n;
}

/* AMX-TF32's conversion of an fp32 operand: a NaN quieted, then the low 13
 * fraction bits cleared (Intel ISE, TMMULTF32PS: silence_snan_fp32, then
 * zero_lower_mantissa_bits_fp32) */
static MMA_HD uint64_t via_tf32(uint64_t bits)
{
    uint32_t w = (uint32_t)bits;
    if ((w & 0x7f800000u) == 0x7f800000u && (w & 0x7fffffu)) w |= 0x400000u;
    return w & ~(uint32_t)0x1fff;
}

/* the term of an operand, a subnormal flushed under ftz=in: a value below
 * d's smallest normal counts as a zero of its sign */
static MMA_HD mma_term term_of(const mma_unit *u, opnd x)
{
    mma_term t = mma_term_of(x.f, x.bits);
    if ((u->flags & MMA_F_FTZ_IN) && t.cls == MMA_FINITE &&
        63 - mma_clz64(t.sig) + t.e - t.fb < mma_format(u->d)->emin) {
        t.cls = MMA_ZERO;
        t.sig = 0;
    }
    return t;
}

/* The NaN an operation writes, given its operands: products first (a then
 * b, in the operation's order), then its addends in order (x86), or the
 * addends first (prop, IEEE's reading); an invalid operation with no NaN
 * operand gives the rule's NaN. */
static MMA_HD uint64_t nan_result(const mma_unit *u, mma_fmt d, const opnd *add, int nadd, const opnd *pa,
                                  const opnd *pb, int np)
{
    if (u->flags & MMA_F_NAN_CANON) return mma_canonical_nan(d);
    if (u->flags & MMA_F_NAN_INDEF) return indefinite(d);
    if (u->flags & MMA_F_NAN_X86) {
        for (int j = 0; j < np; j++) {
            if (mma_is_nan(pa[j].f, pa[j].bits)) return mma_nan_convert(pa[j].f, pa[j].bits, d);
            if (mma_is_nan(pb[j].f, pb[j].bits)) return mma_nan_convert(pb[j].f, pb[j].bits, d);
        }
        for (int i = 0; i < nadd; i++)
            if (mma_is_nan(add[i].f, add[i].bits)) return mma_nan_convert(add[i].f, add[i].bits, d);
        return indefinite(d);
    }
    if (u->flags & MMA_F_NAN_PROP) {
        for (int i = 0; i < nadd; i++)
            if (mma_is_nan(add[i].f, add[i].bits)) return mma_nan_convert(add[i].f, add[i].bits, d);
        for (int j = 0; j < np; j++) {
            if (mma_is_nan(pa[j].f, pa[j].bits)) return mma_nan_convert(pa[j].f, pa[j].bits, d);
            if (mma_is_nan(pb[j].f, pb[j].bits)) return mma_nan_convert(pb[j].f, pb[j].bits, d);
        }
    }
    return mma_default_nan(d);
}

/* The aligned sum of the finite terms (f > 0): each term aligned to the
 * largest term exponent keeping f fraction bits, cut by align, summed
 * exactly; as (neg, mag, lsb). */
static MMA_HD void aligned_sum(const mma_unit *u, const mma_term *t, int n, int *neg, uint64_t *mag, int32_t *lsb)
{
    int32_t emax = 0;
    int any = 0;
    for (int i = 0; i < n; i++)
        if (t[i].cls == MMA_FINITE && (!any || t[i].e > emax)) { emax = t[i].e; any = 1; }
    __int128 s = 0;
    for (int i = 0; i < n && any; i++) {
        if (t[i].cls != MMA_FINITE) continue;
        /* sig * 2^(e - fb) in units of 2^(emax - f): shift right by sh */
        int32_t sh = (emax - t[i].e) + t[i].fb - u->f;
        unsigned __int128 m = t[i].sig;
        int sticky = 0;
        if (sh <= 0) m <<= -sh;
        else if (sh >= 100) { sticky = m != 0; m = 0; }
        else { sticky = (m & (((unsigned __int128)1 << sh) - 1)) != 0; m >>= sh; }
        if (sticky) {
            if (u->align == MMA_RODD) m |= 1;
            else if (u->align == MMA_RD && t[i].neg) m += 1;   /* toward -inf: a larger magnitude */
        }
        s += t[i].neg ? -(__int128)m : (__int128)m;
    }
    *neg = s < 0;
    unsigned __int128 a = s < 0 ? (unsigned __int128)-s : (unsigned __int128)s;
    /* |s| < 2^60: f <= 48, terms below 2^(f+3), at most 257 of them */
    *mag = (uint64_t)a;
    *lsb = emax - u->f;
}

/* One operation: the addends (the accumulator; an addition's two
 * operands) and np products of a and b summed, rounded once into d. */
static MMA_HD uint64_t operation(const mma_unit *u, const mma_rspec *r, const opnd *add, int nadd, const opnd *pa,
                                 const opnd *pb, int np)
{
    mma_term t[MMA_MAX_K + 2];
    int n = 0, nan = 0, pinf = 0, ninf = 0, allzero = 1, anypos = 0, anyneg = 0;
    for (int i = 0; i < nadd; i++) t[n++] = term_of(u, add[i]);
    for (int j = 0; j < np; j++) t[n++] = mma_term_mul(term_of(u, pa[j]), term_of(u, pb[j]));
    for (int i = 0; i < n; i++) {
        if (t[i].cls == MMA_NAN) nan = 1;         /* a NaN operand, or 0 * Inf */
        else if (t[i].cls == MMA_INF) { if (t[i].neg) ninf = 1; else pinf = 1; }
        allzero &= t[i].cls == MMA_ZERO;
        if (t[i].neg) anyneg = 1; else anypos = 1;
    }
    if (nan || (pinf && ninf)) return nan_result(u, r->d, add, nadd, pa, pb, np);
    if (pinf || ninf) return mma_out_inf(r, ninf);
    int neg;
    uint64_t mag;
    int32_t lsb;
    if (u->f && np) aligned_sum(u, t, n, &neg, &mag, &lsb);   /* (additions are exact: RVBNA adds c as vfredusum does) */
    else {
        mma_kacc acc;
        mma_kacc_init(&acc, -700, 600);
        for (int i = 0; i < n; i++)
            if (t[i].cls == MMA_FINITE) mma_kacc_add(&acc, t[i].neg, t[i].sig, t[i].e - t[i].fb);
        mma_kacc_mag(&acc, &neg, &mag, &lsb);
    }
    if (mag && (u->flags & MMA_F_FTZ_SUM) && mma_round_tiny(r, neg, mag, lsb)) {
        mma_rspec z = *r;                         /* flushed: a zero of its sign (zero=pos: +0) */
        if (z.zero == MMA_ZS_FIXED) z.zero = MMA_ZS_IEEE;
        return mma_round_to(&z, neg, 0, 0, neg, NULL);
    }
    return mma_round_to(r, neg, mag, lsb, mma_zero_sign(allzero, anypos, anyneg, r->rho), NULL);
}

MMA_HD uint64_t mma_alg_chains(const mma_unit *u, uint64_t c, const uint64_t *a, const uint64_t *b)
{
    mma_rspec r = mma_unit_rspec(u);
    mma_fmt af = (u->flags & MMA_F_VIA_TF32) ? MMA_FMT_FP32 : u->a, bf = (u->flags & MMA_F_VIA_TF32) ? MMA_FMT_FP32 : u->b;
    opnd cur = {u->c, c};
    int per = u->lmax / u->ways;                  /* products of a chain in a step */
    for (int k0 = 0; k0 < u->k; k0 += u->lmax) {
        opnd acc[8] = {{u->d, 0}};
        int has[8] = {0};
        for (int w = 0; w < u->ways; w++) {
            has[w] = u->start != MMA_START_NONE;
            acc[w] = opnd_of(u->d, 0);             /* +0 */
        }
        if (u->start == MMA_START_C) acc[0] = cur;
        for (int w = 0; w < u->ways; w++)
            for (int j0 = 0; j0 < per; j0 += u->fuse) {
                opnd pa[MMA_MAX_K], pb[MMA_MAX_K];
                for (int j = 0; j < u->fuse; j++) {
                    int jj = (u->flags & MMA_F_ORDER_DOWN) ? per - 1 - (j0 + j) : j0 + j;
                    int k = k0 + w + u->ways * jj;
                    uint64_t x = a[k], y = b[k];
                    if (u->flags & MMA_F_VIA_TF32) { x = via_tf32(x); y = via_tf32(y); }
                    pa[j] = opnd_of(af, x);
                    pb[j] = opnd_of(bf, y);
                }
                acc[w] = opnd_of(u->d, operation(u, &r, &acc[w], has[w], pa, pb, u->fuse));
                has[w] = 1;
            }
        opnd t = acc[0];
        for (int w = 1; w < u->ways; w++) {
            opnd two[2] = {t, acc[w]};
            t = opnd_of(u->d, operation(u, &r, two, 2, NULL, NULL, 0));
        }
        if (u->start == MMA_START_C) cur = t;
        else {
            opnd two[2] = {cur, t};
            cur = opnd_of(u->d, operation(u, &r, two, 2, NULL, NULL, 0));
        }
    }
    return cur.bits;
}
