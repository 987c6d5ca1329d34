/* The chains tree's configuration string, its explanation (describe) and
 * its checks and defaults (alg_chains.c holds the arithmetic). */
#include "internal.h"

#include <stdio.h>
#include <string.h>

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
