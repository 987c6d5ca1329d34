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
 * nan=indef writes the indefinite for every NaN. */
#include "internal.h"

#include <stdio.h>
#include <string.h>

/* an operand of an operation: its format and encoding */
typedef struct { mma_fmt f; uint64_t bits; } opnd;

/* x86's QNaN floating-point indefinite in d: the default NaN, negative */
static uint64_t indefinite(mma_fmt d)
{
    uint64_t n = mma_default_nan(d);
    return mma_format(d)->has_inf ? n | ((uint64_t)1 << (mma_format(d)->width - 1)) : n;
}

/* AMX-TF32's conversion of an fp32 operand: a NaN quieted, then the low 13
 * fraction bits cleared (Intel ISE, TMMULTF32PS: silence_snan_fp32, then
 * zero_lower_mantissa_bits_fp32) */
static uint64_t via_tf32(uint64_t bits)
{
    uint32_t w = (uint32_t)bits;
    if ((w & 0x7f800000u) == 0x7f800000u && (w & 0x7fffffu)) w |= 0x400000u;
    return w & ~(uint32_t)0x1fff;
}

/* the term of an operand, a subnormal flushed under ftz=in: a value below
 * d's smallest normal counts as a zero of its sign */
static mma_term term_of(const mma_unit *u, opnd x)
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
static uint64_t nan_result(const mma_unit *u, mma_fmt d, const opnd *add, int nadd, const opnd *pa,
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
static void aligned_sum(const mma_unit *u, const mma_term *t, int n, int *neg, uint64_t *mag, int32_t *lsb)
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
static uint64_t operation(const mma_unit *u, const mma_rspec *r, const opnd *add, int nadd, const opnd *pa,
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

uint64_t mma_alg_chains(const mma_unit *u, uint64_t c, const uint64_t *a, const uint64_t *b)
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
            acc[w] = (opnd){u->d, 0};             /* +0 */
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
                    pa[j] = (opnd){af, x};
                    pb[j] = (opnd){bf, y};
                }
                acc[w] = (opnd){u->d, operation(u, &r, &acc[w], has[w], pa, pb, u->fuse)};
                has[w] = 1;
            }
        opnd t = acc[0];
        for (int w = 1; w < u->ways; w++) {
            opnd two[2] = {t, acc[w]};
            t = (opnd){u->d, operation(u, &r, two, 2, NULL, NULL, 0)};
        }
        if (u->start == MMA_START_C) cur = t;
        else {
            opnd two[2] = {cur, t};
            cur = (opnd){u->d, operation(u, &r, two, 2, NULL, NULL, 0)};
        }
    }
    return cur.bits;
}

/* ---- the configuration string and the explanation ------------------------ */

#define APPEND(...) do { int w_ = snprintf(buf + n, n < len ? len - n : 0, __VA_ARGS__); if (w_ > 0) n += (size_t)w_; } while (0)

static const char *rnd_name[] = {"rz", "rne", "rd", "ru", "rmm", "rodd"};
static const char *start_name[] = {"?", "c", "zero", "none"};

static const char *ovf_name(const mma_unit *u)
{
    switch (mma_unit_ovf(u)) {
    case MMA_OVR_INF: return "inf";
    case MMA_OVR_SAT: return (u->flags & MMA_F_SAT_INF) ? "sat+inf" : "sat";
    default: return "ieee";
    }
}

static const char *ftz_name(unsigned fl)
{
    int in = (fl & MMA_F_FTZ_IN) != 0, out = (fl & MMA_F_FTZ_SUM) != 0;
    return in && out ? "in+out" : in ? "in" : out ? "out" : "none";
}

static const char *nan_name(unsigned fl)
{
    const char *r = (fl & MMA_F_NAN_CANON) ? "canon" : (fl & MMA_F_NAN_PROP) ? "prop" : (fl & MMA_F_NAN_X86) ? "x86"
                  : (fl & MMA_F_NAN_INDEF) ? "indef" : "default";
    if (!(fl & MMA_F_NAN_ANY)) return r;
    return !strcmp(r, "canon") ? "canon+any" : !strcmp(r, "prop") ? "prop+any" : !strcmp(r, "x86") ? "x86+any"
         : !strcmp(r, "indef") ? "indef+any" : "any";
}

static const char *zero_name(unsigned fl)
{
    return (fl & MMA_F_ZERO_POS) ? "pos" : (fl & MMA_F_ZERO_IEEE) ? "ieee" : "fixed";
}

int mma_chains_config(const mma_unit *u, char *buf, size_t len)
{
    size_t n = 0;
    APPEND("chains,a=%s,b=%s,c=%s,d=%s,k=%d,l=%d,ways=%d,fuse=%d,start=%s,order=%s", mma_format(u->a)->name,
           mma_format(u->b)->name, mma_format(u->c)->name, mma_format(u->d)->name, u->k, u->lmax, u->ways, u->fuse,
           start_name[u->start], (u->flags & MMA_F_ORDER_DOWN) ? "down" : "up");
    if (u->f) APPEND(",f=%d,align=%s", u->f, rnd_name[u->align]);
    APPEND(",round=%s,ovf=%s,ftz=%s,tiny=%s,nan=%s,zero=%s", rnd_name[u->rho], ovf_name(u), ftz_name(u->flags),
           (u->flags & MMA_F_TINY_BEFORE) ? "before" : "after", nan_name(u->flags), zero_name(u->flags));
    if (u->flags & MMA_F_VIA_TF32) APPEND(",via=tf32");
    return (int)n;
}

static const char *round_words(mma_rounding r)
{
    static const char *w[] = {"toward zero", "to nearest, ties to even", "down (toward -Inf)", "up (toward +Inf)",
                              "to nearest, ties away from zero", "to odd (cut, then the last bit set if anything was cut)"};
    return w[r];
}

int mma_chains_explain(const mma_unit *u, char *buf, size_t len)
{
    size_t n = 0;
    const char *dn = mma_format(u->d)->name;
    int steps = u->k / u->lmax, per = u->lmax / u->ways, ops = per / u->fuse;
    APPEND("%s: d = c + sum of %d products a[k]*b[k], a in %s, b in %s, c in %s, d in %s. ", mma_unit_algorithm(u),
           u->k, (u->flags & MMA_F_VIA_TF32) ? "fp32 taken as tf32" : mma_format(u->a)->name,
           (u->flags & MMA_F_VIA_TF32) ? "fp32 taken as tf32" : mma_format(u->b)->name, mma_format(u->c)->name, dn);
    if (u->flags & MMA_F_VIA_TF32)
        APPEND("Each fp32 operand is first quieted when a NaN, then its low 13 fraction bits are cleared. ");
    if (steps > 1) APPEND("%d steps of %d products are chained, each step's result being the next step's c. ", steps, u->lmax);
    if (u->ways > 1) APPEND("In a step, product j goes to chain j mod %d. ", u->ways);
    else APPEND("In a step, the products form one chain. ");
    APPEND("A chain takes its %d products in %s k order", per, (u->flags & MMA_F_ORDER_DOWN) ? "descending" : "ascending");
    if (u->fuse == 1) APPEND(", one fused multiply-add each");
    else if (ops > 1) APPEND(", %d at a time", u->fuse);
    if (u->start == MMA_START_C) APPEND("; its accumulator starts as c. ");
    else if (u->start == MMA_START_ZERO) APPEND("; its accumulator starts at +0. ");
    else APPEND("; its first operation has no accumulator: it rounds its products alone. ");
    APPEND("An operation sums %s", u->fuse == 1 ? "its product and the accumulator" : "its products and the accumulator");
    if (u->f)
        APPEND(" aligned to the largest exponent among the nonzero terms, each keeping %d fraction bits (cut %s), added exactly",
               u->f, u->align == MMA_RZ ? "toward zero" : u->align == MMA_RD ? "toward -inf"
                   : "to odd: the bits cut are or-ed into the last one kept");
    else APPEND(" exactly");
    APPEND(", and rounds once %s into %s. ", round_words(u->rho), dn);
    if (u->ways > 1) APPEND("The chains' results are added left to right, each addition rounded. ");
    if (u->start != MMA_START_C) APPEND("Then c is added (c the first operand), rounded likewise. ");
    if (u->flags & MMA_F_FTZ_IN)
        APPEND("Every operand (a, b, c, an accumulator) whose value lies below %s's smallest normal counts as a zero of its sign. ", dn);
    if (u->flags & MMA_F_FTZ_SUM)
        APPEND("Every result that is tiny (%s) is a zero of its sign. ",
               (u->flags & MMA_F_TINY_BEFORE) ? "its exact value below the smallest normal"
                                               : "below the smallest normal once rounded with an unbounded exponent range");
    APPEND("Specials per operation: a NaN operand, 0*Inf, or +Inf with -Inf gives NaN; otherwise an Inf gives that Inf. ");
    switch (mma_unit_ovf(u)) {
    case MMA_OVR_INF: APPEND("Overflow gives Inf whatever the rounding (ovf=inf). "); break;
    case MMA_OVR_SAT:
        APPEND((u->flags & MMA_F_SAT_INF) ? "Overflow gives the largest finite %s, an Inf operand still Inf (ovf=sat+inf). "
                                          : "Overflow, and an infinite result, give the largest finite %s (ovf=sat). ", dn);
        break;
    default: APPEND("Overflow as IEEE 754 says (ovf=ieee). "); break;
    }
    if (u->flags & MMA_F_NAN_X86)
        APPEND("A NaN result is the operation's first NaN operand (an fma's a, then b, then the accumulator; an addition's first operand, then the second), quieted, its payload at the top of the fraction; an invalid operation without a NaN operand gives the QNaN indefinite (x86's rule, nan=x86).");
    else if (u->flags & MMA_F_NAN_INDEF) APPEND("A NaN result is x86's QNaN indefinite (negative, quiet bit only; nan=indef).");
    else if (u->flags & MMA_F_NAN_CANON) APPEND("A NaN result is the canonical NaN (nan=canon).");
    else if (u->flags & MMA_F_NAN_PROP) APPEND("A NaN result is the operation's first NaN operand, its addends before its products, quieted (nan=prop).");
    else APPEND("A NaN result is the IEEE default quiet NaN (positive, quiet bit only; nan=default).");
    if (u->flags & MMA_F_NAN_ANY) APPEND(" Its payload is not specified: checkers match any NaN against any NaN.");
    if (u->flags & MMA_F_ZERO_POS) APPEND(" A zero result is +0 (zero=pos).");
    else if (u->flags & MMA_F_ZERO_IEEE)
        APPEND(" An exactly zero sum takes IEEE 754's sign (section 6.3: zeros of one sign keep it, else +0, or -0 rounding down) (zero=ieee).");
    else APPEND(" An exactly zero sum is +0; a nonzero result rounded or flushed to zero keeps its sign (zero=fixed).");
    return (int)n;
}

/* The checks and defaults of a chains unit (from mma_unit_finish, once the
 * fields every tree shares are checked). */
int mma_chains_finish(mma_unit *u, char *err, size_t len)
{
    if (!u->ways) u->ways = 1;
    if (!u->fuse) u->fuse = 1;
    if (!u->start) u->start = u->ways == 1 ? MMA_START_C : MMA_START_ZERO;
    if (u->ways > 8 || u->lmax % u->ways)
        return mma_errf(err, len, "configuration: field 'ways' must be 1..8 and divide l (l=%d, ways=%d)", u->lmax, u->ways);
    if ((u->lmax / u->ways) % u->fuse)
        return mma_errf(err, len, "configuration: field 'fuse' must divide l / ways (%d)", u->lmax / u->ways);
    if (u->start == MMA_START_C && u->ways != 1)
        return mma_errf(err, len, "configuration: start=c needs ways=1 (c is one chain's accumulator)");
    if (u->f < 0 || u->f > 48)
        return mma_errf(err, len, "configuration: field 'f' must be 0 (exact operations) or 1..48 (got %d)", u->f);
    if (!u->f && u->align != MMA_RZ)
        return mma_errf(err, len, "configuration: field 'align' cuts aligned terms: it needs 'f' (tree chains)");
    if (u->a == MMA_FMT_FP64 || u->b == MMA_FMT_FP64 || u->c == MMA_FMT_FP64 || u->d == MMA_FMT_FP64)
        return mma_errf(err, len, "configuration: tree 'chains' takes no fp64 operands (tree 'ieee' with l=1 is an fp64 fma chain)");
    if (u->scale != MMA_FMT_NONE || u->cadd != MMA_CADD_FUSED || u->interleave || (u->flags & (MMA_F_PROD_OVF | MMA_F_VIA_FP16)))
        return mma_errf(err, len, "configuration: tree 'chains' takes no 'scale', 'cadd', 'interleave', 'povf' or via=fp16");
    if ((u->flags & MMA_F_VIA_TF32) && (u->a != MMA_FMT_FP32 || u->b != MMA_FMT_FP32))
        return mma_errf(err, len, "configuration: via=tf32 takes fp32 a and b");
    if (u->lscale) return mma_errf(err, len, "configuration: field 'lscale' belongs to trees 'exact' and 'ieee'");
    return 0;
}
