/* The fast path of the exact-sum tree (alg_exact.c) for the units that
 * fast_exact.c leaves: block scales (CDNA4's v_mfma_scale, microscaled
 * units), Arm FPMR's 2^-LSCALE, IEEE zeros, round to odd or away,
 * saturation (ovf=sat, sat+inf); operands of 16 bits or fewer whose
 * products all lie within 118 bits (every 8-bit format, fp16; not bf16).
 *
 * The products of a block (one pair of scales; the step when unscaled)
 * are summed exactly in a signed 128-bit integer whose unit is the lowest
 * bit any product of the two formats has.  c and the blocks' sums, each
 * times its scales' product and 2^-lscale, are then summed exactly: in one
 * more 128-bit integer when they lie close enough (cut to 63 bits and a
 * sticky bit, as the reference's accumulator gives its sum), else in the
 * reference's own Kulisch accumulator; and rounded once by the reference's
 * rounding (mma_round_to) with its zero sign.  Any Inf or NaN operand, scale or c sends the whole dot product
 * to the reference, which decides specials. */
#include "fast.h"

#include <stdlib.h>

typedef struct {
    fast_hdr h;
    int k, l, block, scaled, lscale, fab, narrow;   /* fab: fraction bits of a product */
    int32_t lp;                      /* the unit of a block's sum: the lowest product bit */
    const uint64_t *ta, *tb, *ts;    /* ts: the scales' (fs fraction bits) */
    const uint64_t *pt;              /* the pair table (narrow, 8-bit formats), or NULL */
    int fs;
    uint64_t amask, bmask;
    mma_fmt cf, df, sf;
    mma_rspec r;
} xsum_plan;
#define PLAN(h) ((const xsum_plan *)(h))

static __attribute__((noinline)) uint64_t reference(const fast_hdr *h, uint64_t c, const uint64_t *a, const uint64_t *b,
                                                    const uint64_t *sa, const uint64_t *sb)
{
    return mma_ref_dot(&h->u, c, a, b, sa, sb);
}

/* a step's terms: c and one sum a block, as (-1)^neg * mag * 2^lsb */
typedef struct { unsigned __int128 mag; int32_t lsb; int neg; } term128;

static inline int msb128(unsigned __int128 m)
{
    uint64_t hi = (uint64_t)(m >> 64);
    return hi ? 127 - __builtin_clzll(hi) : 63 - __builtin_clzll((uint64_t)m);
}

/* The terms' exact sum rounded by r: in one 128-bit integer when they lie
 * within 120 bits of each other (its 63 leading bits and a sticky bit
 * below, as mma_kacc_mag gives them), else in the reference's
 * accumulator. */
static uint64_t round_terms(const mma_rspec *r, const term128 *t, int n, int zneg)
{
    int32_t lo = INT32_MAX, hi = INT32_MIN;
    for (int i = 0; i < n; i++) {
        if (t[i].lsb < lo) lo = t[i].lsb;
        if (msb128(t[i].mag) + t[i].lsb > hi) hi = msb128(t[i].mag) + t[i].lsb;
    }
    if (!n) return mma_round_to(r, 0, 0, 0, zneg, NULL);
    if (hi - lo > 120 - 9) {
        mma_kacc acc;
        mma_kacc_init(&acc, -600, 600);                   /* (the reference's range) */
        for (int i = 0; i < n; i++) mma_kacc_add(&acc, t[i].neg, t[i].mag, t[i].lsb);
        return mma_kacc_round_to(&acc, r, zneg, NULL);
    }
    __int128 s = 0;
    for (int i = 0; i < n; i++) {
        __int128 v = (__int128)(t[i].mag << (t[i].lsb - lo));
        s += t[i].neg ? -v : v;
    }
    if (!s) return mma_round_to(r, 0, 0, 0, zneg, NULL);
    int neg = s < 0;
    unsigned __int128 m = neg ? -(unsigned __int128)s : (unsigned __int128)s;
    int top = msb128(m);
    if (top < 63) return mma_round_to(r, neg, (uint64_t)m, lo, zneg, NULL);
    int sh = top - 62;                                     /* keep 63 bits, a sticky bit below */
    uint64_t mag = (uint64_t)(m >> sh) << 1 | (uint64_t)((m & (((unsigned __int128)1 << sh) - 1)) != 0);
    return mma_round_to(r, neg, mag, lo + sh - 1, zneg, NULL);
}

/* The exact sum of the products g0..g1-1 in units of 2^lp, into *out;
 * returns -1 for an Inf or NaN operand, else bit 0: a negative product
 * (zeros included), bit 1: a positive one, bit 2: a nonzero one.  In 64
 * bits where the formats' products and their carries fit (narrow), else
 * in 128. */
#define BLOCK_SUM(name, acc_t)                                                                                   \
    static inline int name(const xsum_plan *P, const uint64_t *a, const uint64_t *b, int g0, int g1,             \
                           __int128 *out)                                                                        \
    {                                                                                                            \
        acc_t sum = 0;                                                                                           \
        uint64_t sgn_or = 0, sgn_and = T_NEG, any = 0;                                                           \
        for (int k = g0; k < g1; k++) {                                                                          \
            uint64_t x = P->ta[a[k] & P->amask], y = P->tb[b[k] & P->bmask];                                     \
            if ((x | y) & T_SPEC) return -1;                                                                     \
            uint64_t sg = (x ^ y) & T_NEG;                                                                       \
            sgn_or |= sg;                                                                                        \
            sgn_and &= sg;                                                                                       \
            uint64_t m = (uint64_t)(uint32_t)x * (uint32_t)y;                                                    \
            any |= m;                                                                                            \
            acc_t v = (acc_t)m << (ent_e(x) + ent_e(y) - P->fab - P->lp);                                       \
            sum += sg ? -v : v;                                                                                  \
        }                                                                                                        \
        *out = sum;                                                                                              \
        return (sgn_or ? 1 : 0) | (sgn_and ? 0 : 2) | (any ? 4 : 0);                                             \
    }
BLOCK_SUM(block_sum64, int64_t)
BLOCK_SUM(block_sum128, __int128)

/* The same for two formats of 8 bits or fewer, in 64 bits: one load a
 * product from the pair table (fast.h's packed products; a zero product
 * has significand 0, so the shift's mask only keeps it defined) */
static inline int block_sum_pair(const xsum_plan *P, const uint64_t *a, const uint64_t *b, int g0, int g1,
                                 __int128 *out)
{
    int64_t sum = 0;
    uint64_t sgn_or = 0, sgn_and = P_NEG, any = 0, spec = 0;
    int32_t off = P_EOFF + P->fab + P->lp;
    for (int k = g0; k < g1; k++) {
        uint64_t p = P->pt[(a[k] & 0xff) << 8 | (b[k] & 0xff)];
        spec |= p;
        uint64_t sg = p & P_NEG;
        sgn_or |= sg;
        sgn_and &= sg;
        uint64_t m = (uint32_t)p;
        any |= m;
        int64_t v = (int64_t)(m << (((int32_t)((p >> 32) & 0xfff) - off) & 63));
        sum += sg ? -v : v;
    }
    if (spec & P_SPEC) return -1;
    *out = sum;
    return (sgn_or ? 1 : 0) | (sgn_and ? 0 : 2) | (any ? 4 : 0);
}

static uint64_t xsum_dot(const fast_hdr *h, uint64_t c, const uint64_t *a, const uint64_t *b, const uint64_t *sa,
                         const uint64_t *sb)
{
    const xsum_plan *P = PLAN(h);
    mma_fmt cf = P->cf;
    uint64_t cur = c;
    term128 t[MMA_MAX_K + 1];
    for (int k0 = 0; k0 < P->k; k0 += P->l) {
        mma_term ct = mma_term_of(cf, cur);
        if (ct.cls == MMA_NAN || ct.cls == MMA_INF) return reference(h, c, a, b, sa, sb);
        int allzero = ct.cls == MMA_ZERO, anyneg = ct.neg, anypos = !ct.neg, n = 0;
        if (ct.cls == MMA_FINITE) t[n++] = (term128){ct.sig, ct.e - ct.fb, ct.neg};
        for (int g0 = k0, end = k0 + P->l; g0 < end;) {
            int g1 = end;
            uint64_t ssig = 1;
            int32_t slsb = 0;
            int szero = 0;
            if (P->scaled) {
                int blk = g0 / P->block;
                if ((blk + 1) * P->block < g1) g1 = (blk + 1) * P->block;
                uint64_t x = P->ts[sa[blk] & 0xff], y = P->ts[sb[blk] & 0xff];
                if ((x | y) & T_SPEC) return reference(h, c, a, b, sa, sb);
                szero = ((x | y) & T_ZERO) != 0;
                ssig = (uint64_t)(uint32_t)x * (uint32_t)y;
                slsb = ent_e(x) + ent_e(y) - 2 * P->fs;
            }
            __int128 sum;
            int r = P->pt ? block_sum_pair(P, a, b, g0, g1, &sum)
                  : P->narrow ? block_sum64(P, a, b, g0, g1, &sum) : block_sum128(P, a, b, g0, g1, &sum);
            if (r < 0) return reference(h, c, a, b, sa, sb);
            anyneg |= r & 1;
            anypos |= (r >> 1) & 1;
            if (r & 4 && !szero) allzero = 0;
            if (sum && !szero) {                              /* (a zero scale: zero products) */
                unsigned __int128 mag = sum < 0 ? -(unsigned __int128)sum : (unsigned __int128)sum;
                t[n++] = (term128){mag * ssig, P->lp + slsb - P->lscale, sum < 0};
            }
            g0 = g1;
        }
        cur = round_terms(&P->r, t, n, mma_zero_sign(allzero, anypos, anyneg, P->r.rho));
        cf = P->df;
    }
    return cur;
}

/* ---- the family ------------------------------------------------------------ */

static int op_ok(mma_fmt f) { return fast_tab[f] && mma_format(f)->width <= 16; }

static int32_t lowest_lsb(mma_fmt f) { return mma_format(f)->emin - mma_format(f)->mbits; }
static int32_t highest_msb(mma_fmt f)
{
    mma_value v = mma_decode(f, mma_format_max(f));
    return 63 - __builtin_clzll(v.sig) + v.exp;
}

/* the bits from the lowest product bit to above the highest product's leading bit */
static int32_t span(const mma_unit *u)
{
    return highest_msb(u->a) + highest_msb(u->b) + 2 - (lowest_lsb(u->a) + lowest_lsb(u->b));
}

static int xsum_ok(const mma_unit *u)
{
    const unsigned known = MMA_F_NAN_CANON | MMA_F_NAN_ANY | MMA_F_NAN_PROP | MMA_F_ZERO_POS | MMA_F_ZERO_IEEE |
                           MMA_F_NO_EZERO | MMA_F_OVF_MASK | MMA_F_SAT_INF | MMA_F_TINY_BEFORE;
    if (u->tree != MMA_TREE_EXACT || (u->flags & ~known) || !op_ok(u->a) || !op_ok(u->b)) return 0;
    if (u->c == MMA_FMT_FP64 || u->d == MMA_FMT_FP64 || u->lmax < 1 || u->k % u->lmax) return 0;
    int scaled = u->scale != MMA_FMT_NONE;
    if (scaled && (!(u->scale == MMA_FMT_UE8M0 || u->scale == MMA_FMT_UE4M3) || u->block < 1)) return 0;
    /* a block's sum in 128 bits: the products' span, the carries of
     * MMA_MAX_K of them (9 bits) and the scales' significands (8) */
    return span(u) + 9 + 8 <= 126;
}

static fast_hdr *xsum_build(const mma_unit *u, int mode)
{
    (void)mode;
    xsum_plan *P = calloc(1, sizeof *P);
    if (!P) return NULL;
    P->k = u->k;
    P->l = u->lmax;
    P->scaled = u->scale != MMA_FMT_NONE;
    P->block = P->scaled ? u->block : u->k;
    P->lscale = u->lscale;
    P->fab = mma_format(u->a)->mbits + mma_format(u->b)->mbits;
    P->lp = lowest_lsb(u->a) + lowest_lsb(u->b);
    P->narrow = span(u) + 9 <= 62;
    if (P->narrow && mma_format(u->a)->width <= 8 && mma_format(u->b)->width <= 8)
        P->pt = fast_pair_table(u->a, u->b);     /* (NULL when out of memory: the two tables) */
    P->ta = fast_tab[u->a];
    P->tb = fast_tab[u->b];
    P->amask = mma_format(u->a)->width <= 8 ? 0xff : 0xffff;
    P->bmask = mma_format(u->b)->width <= 8 ? 0xff : 0xffff;
    P->cf = u->c;
    P->df = u->d;
    P->sf = u->scale;
    if (P->scaled) {
        P->ts = fast_tab[u->scale];
        P->fs = mma_format(u->scale)->mbits;
    }
    P->r = mma_unit_rspec(u);
    P->h.fn = xsum_dot;
    P->h.kernel = FAST_K_SCALAR;
    return &P->h;
}

const fast_family fast_xsum_family = {xsum_ok, xsum_build};
