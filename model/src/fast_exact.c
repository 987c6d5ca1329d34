/* The fast path of the exact-sum trees (alg_exact.c: E-FDPA, AMD CDNA1),
 * for operands of 16 bits or fewer and no block scales.
 *
 * Each step's terms (c and l products) are exact integers times powers of
 * two: a product of two such operands has at most 22 significand bits
 * (fp16 x fp16), c at most 24 (fp32).  When every nonzero term of a step
 * lies within 117 bits (from the lowest term's last bit to the highest
 * term's leading bit), their sum, with those terms aligned at the lowest
 * term's last bit, is an integer below (MMA_MAX_K + 1) * 2^117 < 2^127: a signed 128-bit
 * addition holds it exactly, as the reference's Kulisch accumulator does.
 * Its magnitude, cut to 63 bits with the rest folded into a sticky bit far
 * below the output's precision, is rounded once by the shared rounding
 * (fast_round, which is mma_round_pack's steps).  So the result is the
 * reference's bit for bit.  A step whose terms spread wider (rare outside
 * random bit patterns), an Inf or NaN operand, or an Inf carried into the
 * next step send the whole call to the reference, which decides the
 * special values and NaN payloads. */
#include "fast.h"

#include <stdlib.h>

typedef struct {
    fast_hdr h;
    int k, l, fbp, out;            /* fbp: fraction bits of a product   */
    const uint64_t *ta, *tb;
    uint64_t amask, bmask;
    fast_cfmt c0, cd;              /* c of the first step; of the others */
    fast_out o;
    mma_rspec r;
} exact_plan;
#define PLAN(h) ((const exact_plan *)(h))

#define SPREAD 117
_Static_assert(MMA_MAX_K < 512, "MMA_MAX_K + 1 terms below 2^117 each sum below 2^126");

static int small_op(mma_fmt f) { return fast_tab[f] && mma_format(f)->width <= 16; }

static int exact_ok(const mma_unit *u)
{
    /* (no_ezero: an exact sum has no emax) */
    const unsigned known = MMA_F_NAN_CANON | MMA_F_NAN_ANY | MMA_F_ZERO_POS | MMA_F_NO_EZERO | MMA_F_OVF_MASK;
    return u->tree == MMA_TREE_EXACT && u->scale == MMA_FMT_NONE && !(u->flags & ~known) && small_op(u->a) &&
           small_op(u->b) && (u->c == MMA_FMT_FP32 || small_op(u->c)) &&
           (u->d == MMA_FMT_FP32 || u->d == MMA_FMT_FP16 || u->d == MMA_FMT_BF16) && u->lmax >= 1 &&
           u->k % u->lmax == 0 && u->p >= 1 && u->p <= mma_format(u->d)->mbits;
}

static __attribute__((noinline)) uint64_t reference(const fast_hdr *h, uint64_t c, const uint64_t *a,
                                                    const uint64_t *b, const uint64_t *sa, const uint64_t *sb)
{
    return mma_dot(&h->u, c, a, b, sa, sb);      /* (h->u: impl 1) */
}

/* the sign of an exactly zero step sum, as alg_exact.c decides it */
static __attribute__((noinline)) uint64_t zero_sum(const exact_plan *P, const fast_c *cc, const uint64_t *a,
                                                   const uint64_t *b)
{
    int allzero = cc->sig == 0, anyneg = cc->neg, anypos = !cc->neg;
    for (int j = 0; j < P->l; j++) {
        uint64_t x = P->ta[a[j] & P->amask], y = P->tb[b[j] & P->bmask];
        allzero &= (uint32_t)x == 0 || (uint32_t)y == 0;
        if ((x ^ y) & T_NEG) anyneg = 1; else anypos = 1;
    }
    return mma_round_to(&P->r, 0, 0, 0, mma_zero_sign(allzero, anypos, anyneg, P->r.rho), NULL);
}

static inline __attribute__((always_inline)) uint64_t exact_body(const fast_hdr *h, uint64_t c, const uint64_t *a,
                                                                 const uint64_t *b, const uint64_t *sa,
                                                                 const uint64_t *sb, const int out)
{
    const exact_plan *P = PLAN(h);
    const uint64_t *ta = P->ta, *tb = P->tb;
    const int l = P->l, fbp = P->fbp;
    fast_c cc = c_decode(&P->c0, c);
    int cfb = P->c0.fb;
    uint64_t d = c;
    for (int k0 = 0; k0 < P->k; k0 += l) {
        if (__builtin_expect(cc.spec, 0)) return reference(h, c, a, b, sa, sb);
        uint32_t sig[MMA_MAX_K + 1];
        int32_t lsb[MMA_MAX_K + 1];
        uint64_t neg[MMA_MAX_K + 1], spec = 0;
        int32_t lo = INT32_MAX, hi = INT32_MIN;
        sig[0] = (uint32_t)cc.sig;
        lsb[0] = cc.e - cfb;
        neg[0] = cc.neg ? T_NEG : 0;
        for (int j = 0; j < l; j++) {
            uint64_t x = ta[a[k0 + j] & P->amask], y = tb[b[k0 + j] & P->bmask];
            spec |= x | y;
            sig[j + 1] = (uint32_t)x * (uint32_t)y;
            lsb[j + 1] = ent_e(x) + ent_e(y) - fbp;
            neg[j + 1] = (x ^ y) & T_NEG;
        }
        if (__builtin_expect(spec & T_SPEC, 0)) return reference(h, c, a, b, sa, sb);
        for (int j = 0; j <= l; j++) {
            if (!sig[j]) continue;
            int32_t top = lsb[j] + 32 - __builtin_clz(sig[j]);
            lo = lsb[j] < lo ? lsb[j] : lo;
            hi = top > hi ? top : hi;
        }
        if (__builtin_expect(lo == INT32_MAX, 0)) {
            d = zero_sum(P, &cc, a + k0, b + k0);
            cc = c_decode(&P->cd, d);
            cfb = P->cd.fb;
            continue;
        }
        if (__builtin_expect(hi - lo > SPREAD, 0)) return reference(h, c, a, b, sa, sb);
        __int128 sum = 0;
        for (int j = 0; j <= l; j++) {
            __int128 t = (__int128)((unsigned __int128)sig[j] << (sig[j] ? lsb[j] - lo : 0));
            sum += neg[j] ? -t : t;
        }
        int sn = sum < 0;
        unsigned __int128 m = sn ? -(unsigned __int128)sum : (unsigned __int128)sum;
        int32_t ml = lo;
        if (__builtin_expect((m >> 63) != 0, 0)) {      /* keep 63 bits, the rest sticky */
            uint64_t mh = (uint64_t)(m >> 64);
            int s = mh ? 65 - __builtin_clzll(mh) : 1;
            uint64_t st = (m & (((unsigned __int128)1 << s) - 1)) != 0;
            m = (m >> s) | st;
            ml += s;
        }
        if (__builtin_expect(m == 0, 0)) {
            d = zero_sum(P, &cc, a + k0, b + k0);
            cc = c_decode(&P->cd, d);
        } else {
            d = fast_round(&P->o, sn, (uint64_t)m, ml, out, &cc);
            if (cc.spec) cc = c_decode(&P->cd, d);
        }
        cfb = P->cd.fb;
    }
    return d;
}

static uint64_t exact_dot(const fast_hdr *h, uint64_t c, const uint64_t *a, const uint64_t *b,
                          const uint64_t *sa, const uint64_t *sb)
{
    return exact_body(h, c, a, b, sa, sb, 0);
}

/* CDNA1's output: fp32, round to nearest even */
static uint64_t exact_dot_f32rne(const fast_hdr *h, uint64_t c, const uint64_t *a, const uint64_t *b,
                                 const uint64_t *sa, const uint64_t *sb)
{
    return exact_body(h, c, a, b, sa, sb, OUT_F32RNE);
}

static fast_hdr *exact_build(const mma_unit *u, int mode)
{
    exact_plan *P = calloc(1, sizeof *P);
    if (!P) return NULL;
    P->k = u->k;
    P->l = u->lmax;
    P->fbp = mma_format(u->a)->mbits + mma_format(u->b)->mbits;
    P->ta = fast_tab[u->a];
    P->tb = fast_tab[u->b];
    P->amask = mma_format(u->a)->width <= 8 ? 0xff : 0xffff;   /* (the 8-bit tables repeat narrower formats) */
    P->bmask = mma_format(u->b)->width <= 8 ? 0xff : 0xffff;
    fast_cfmt_init(&P->c0, u->c, 0);
    fast_cfmt_init(&P->cd, u->d, 0);
    fast_out_init(&P->o, u);
    P->r = mma_unit_rspec(u);
    P->h.kernel = FAST_K_SCALAR;
    P->h.fn = exact_dot;
    if (mode != FAST_MODE_SCALAR && u->d == MMA_FMT_FP32 && u->p == 23 && u->rho == MMA_RNE) {
        P->h.fn = exact_dot_f32rne;
        P->h.kernel = FAST_K_SPECIAL;
    }
    return &P->h;
}

const fast_family fast_exact_family = {exact_ok, exact_build};
