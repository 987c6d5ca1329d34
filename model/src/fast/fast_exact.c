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
 * (fast_round, which is mma_round_to's steps); within 60 bits (steps of
 * up to seven products) one 64-bit integer holds the sum.  So the result
 * is the reference's bit for bit.  A step whose terms spread wider (bf16's
 * exponent range is fp32's) is summed in a carry-save accumulator of
 * 32-bit digits held in 64-bit words (wide_sum), exact as well.  A step
 * with an Inf or NaN among c and its operands is decided from their
 * classes (special_step) where the unit's NaN is canonical, as CDNA1's
 * is; other NaN payloads are the reference's.  Random bits put an fp32 c
 * of any exponent beside the products: a c far above them is the step's
 * result, found without summing.  CDNA1's own units (fp16 steps of 4,
 * bf16 steps of 2, fp32 c and d, RNE) have a kernel of their own below
 * (exact_dbl, exact_vdbl_*) that sums in a double's 53 bits or in 128
 * and leaves exact_from the rest; their fp16 steps that the 53 bits
 * cannot hold (random bits: most of them) are summed in a fixed 128-bit
 * window of 2^-48 units instead (fix_step, fix_special).  Their batches
 * (hosts with F16C) take four dot products at a time (eight with
 * AVX-512), one a lane of a vector of doubles, summed exactly and rounded once by the double adder
 * with roundings to odd (xd_*: no alignment or rounding code, and no
 * branch on the data); a batch's last few vectors, and batches under
 * another SSE state, go one at a time (fp16: exact_vfix_f16_b, which
 * takes the fixed window alone while its vectors are such). */
#include "fast.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    fast_hdr h;
    int k, l, fbp, out;            /* fbp: fraction bits of a product   */
    int canon;                     /* NaN results canonical              */
    uint64_t nan, inf[2];          /* then: the NaN, the Inf results     */
    const uint64_t *ta, *tb;
    uint64_t amask, bmask;
    const uint64_t *dt;            /* exact_dbl's bf16 entries           */
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
    return mma_ref_dot(&h->u, c, a, b, sa, sb);
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

/* The exact sum of n terms (-1)^neg sig 2^lsb spread over hi - lo bits:
 * digit i holds bits 32i.. above lo, each term added to two digits; with
 * at most MMA_MAX_K + 1 terms below 2^32 per digit nothing overflows
 * before the one carry pass.  Returns 0 for an exact zero, else 1 with the
 * magnitude's leading 63 bits and a sticky bit below them (*mag * 2^*ml),
 * -1 when the spread passes WIDE_DIGITS (no format of 16 bits or fewer
 * comes near). */
#define WIDE_DIGITS 48
static __attribute__((noinline)) int wide_sum(const uint32_t *sig, const int32_t *lsb, const uint64_t *neg, int n,
                                              int32_t lo, int32_t hi, int *sn, uint64_t *mag, int32_t *ml)
{
    int64_t d[WIDE_DIGITS];
    int nd = ((hi - lo) >> 5) + 2;
    if (nd > WIDE_DIGITS) return -1;
    memset(d, 0, (size_t)nd * sizeof d[0]);       /* (only the digits in use) */
    for (int j = 0; j < n; j++) {
        if (!sig[j]) continue;
        int32_t o = lsb[j] - lo;
        uint64_t v = (uint64_t)sig[j] << (o & 31);
        int64_t l32 = (int64_t)(v & 0xffffffffu), h32 = (int64_t)(v >> 32);
        if (neg[j]) { d[o >> 5] -= l32; d[(o >> 5) + 1] -= h32; }
        else { d[o >> 5] += l32; d[(o >> 5) + 1] += h32; }
    }
    int64_t carry = 0;                        /* the sum is below 2^(32 nd - 24) */
    for (int i = 0; i < nd; i++) {
        int64_t x = d[i] + carry;
        carry = x >> 32;
        d[i] = x & 0xffffffff;
    }
    *sn = carry < 0;
    if (*sn) {                                /* magnitude: two's complement */
        uint64_t b = 1;
        for (int i = 0; i < nd; i++) {
            uint64_t x = (~(uint64_t)d[i] & 0xffffffffu) + b;
            d[i] = (int64_t)(x & 0xffffffffu);
            b = x >> 32;
        }
    }
    int t = nd - 1;
    while (t >= 0 && d[t] == 0) t--;
    if (t < 0) return 0;
    unsigned __int128 w = (unsigned __int128)(uint64_t)d[t] << 64 |
                          (unsigned __int128)(uint64_t)(t >= 1 ? d[t - 1] : 0) << 32 |
                          (uint64_t)(t >= 2 ? d[t - 2] : 0);
    uint64_t sticky = 0;
    for (int i = 0; i < t - 2; i++) sticky |= (uint64_t)d[i];
    uint64_t wh = (uint64_t)(w >> 64);        /* nonzero: w has 65 to 96 bits */
    int s = 65 - __builtin_clzll(wh);
    sticky |= (uint64_t)(w & (((unsigned __int128)1 << s) - 1));
    *mag = (uint64_t)(w >> s) | (sticky != 0);
    *ml = lo + 32 * (t - 2) + s;
    return 1;
}

/* One step the general way (terms spread past SPREADL, or a zero sum):
 * *cc, cfb its c; 1 with *d, or 0 when wide_sum cannot hold the spread
 * (the reference then). */
static __attribute__((noinline)) int slow_step(const exact_plan *P, const fast_c *cc, int cfb, const uint64_t *a,
                                               const uint64_t *b, const int out, uint64_t *d)
{
    const uint64_t *ta = P->ta, *tb = P->tb;
    const int l = P->l, fbp = P->fbp;
    uint32_t sig[MMA_MAX_K + 1];
    int32_t lsb[MMA_MAX_K + 1];
    uint64_t neg[MMA_MAX_K + 1];
    int32_t lo = INT32_MAX, hi = INT32_MIN;
    sig[0] = (uint32_t)cc->sig;
    lsb[0] = cc->e - cfb;
    neg[0] = cc->neg ? T_NEG : 0;
    for (int j = 0; j < l; j++) {
        uint64_t x = ta[a[j] & P->amask], y = tb[b[j] & P->bmask];
        sig[j + 1] = (uint32_t)x * (uint32_t)y;
        lsb[j + 1] = ent_e(x) + ent_e(y) - fbp;
        neg[j + 1] = (x ^ y) & T_NEG;
    }
    for (int j = 0; j <= l; j++) {
        if (!sig[j]) continue;
        int32_t top = lsb[j] + 32 - __builtin_clz(sig[j]);
        lo = lsb[j] < lo ? lsb[j] : lo;
        hi = top > hi ? top : hi;
    }
    if (lo == INT32_MAX) {
        *d = zero_sum(P, cc, a, b);
        return 1;
    }
    /* c far above every product (random bits: an fp32 c of any exponent):
     * with |products| < ulp(c) / 4 an RNE rounding to c's own format
     * gives c, even at a power of two, where the ulp below is half */
    if (out == OUT_F32RNE && cc->sig >> 23 && sig[0]) {
        int32_t pt = INT32_MIN;
        for (int j = 1; j <= l; j++)
            if (sig[j]) {
                int32_t top = lsb[j] + 32 - __builtin_clz(sig[j]);
                pt = top > pt ? top : pt;
            }
        if (pt == INT32_MIN || pt + (32 - __builtin_clz((uint32_t)l)) <= lsb[0] - 2) {
            *d = (uint64_t)(cc->neg ? 0x80000000u : 0) | (uint32_t)(cc->sig & 0x7fffff) |
                 (uint32_t)(cc->e + 127) << 23;
            return 1;
        }
    }
    int sn;
    uint64_t m;
    int32_t ml = lo;
    if (hi - lo > SPREAD) {
        int r = wide_sum(sig, lsb, neg, l + 1, lo, hi, &sn, &m, &ml);
        if (r < 0) return 0;
        if (r == 0) m = 0;
    } else {
        __int128 sum = 0;
        for (int j = 0; j <= l; j++) {
            __int128 t = (__int128)((unsigned __int128)sig[j] << (sig[j] ? lsb[j] - lo : 0));
            sum += neg[j] ? -t : t;
        }
        sn = sum < 0;
        unsigned __int128 mw = sn ? -(unsigned __int128)sum : (unsigned __int128)sum;
        if ((mw >> 63) != 0) {                           /* keep 63 bits, the rest sticky */
            uint64_t mh = (uint64_t)(mw >> 64);
            int s = mh ? 65 - __builtin_clzll(mh) : 1;
            uint64_t st = (mw & (((unsigned __int128)1 << s) - 1)) != 0;
            mw = (mw >> s) | st;
            ml += s;
        }
        m = (uint64_t)mw;
    }
    *d = m ? fast_round(&P->o, sn, m, ml, out, NULL) : zero_sum(P, cc, a, b);
    return 1;
}

/* A step with an Inf or NaN among its c and operands, decided from their
 * classes as alg_exact.c's step decides it: NaN when c or a product is
 * NaN (a NaN operand, or Inf times a zero) or +Inf meets -Inf, else the
 * Inf's rounding (mma_out_inf).  Units whose NaN is canonical only; the
 * others' NaN payloads are the reference's. */
static __attribute__((noinline)) uint64_t special_step(const exact_plan *P, uint64_t ccls, const uint64_t *a,
                                                       const uint64_t *b)
{
    uint64_t nan = ccls & P_NAN, pinf = 0, ninf = 0, any = 0;
    for (int j = 0; j < P->l; j++) any |= P->ta[a[j] & P->amask] | P->tb[b[j] & P->bmask];
    if (nan || (any & T_NAN)) return P->nan;      /* (random bits: most of them) */
    if (ccls & P_SPEC) {
        if (ccls & P_NEG) ninf = 1; else pinf = 1;
    }
    for (int j = 0; j < P->l; j++) {
        uint64_t pc = product_class(P->ta[a[j] & P->amask], P->tb[b[j] & P->bmask]);
        nan |= pc & P_NAN;
        if (pc & P_SPEC) {
            if (pc & P_NEG) ninf = 1; else pinf = 1;
        }
    }
    if (nan || (pinf && ninf)) return P->nan;
    return P->inf[ninf];
}

/* SPREADL: the terms of a step of up to seven products (eight terms)
 * within 60 bits sum below 2^63 in one signed word */
#define SPREADL 60
_Static_assert(8 * (1ull << SPREADL) - 1 <= (uint64_t)INT64_MAX, "eight terms below 2^60 in an int64");

/* Steps k0 to kend of L (1..7) products, L known at compile time, from
 * the accumulator d (its bits, in cf's format): the common step (terms
 * within SPREADL bits) in registers, with bounds on the terms' widths (c
 * below 2^24, a product below 2^(fbp+2)) instead of their leading bits;
 * the rest in slow_step and special_step.  The result, or the
 * reference's for the whole dot where this cannot decide. */
static inline __attribute__((always_inline)) uint64_t exact_from(const fast_hdr *h, uint64_t c, const uint64_t *a,
                                                                 const uint64_t *b, const uint64_t *sa,
                                                                 const uint64_t *sb, const int out, const int L,
                                                                 int k0, int kend, uint64_t d, const fast_cfmt *cf)
{
    const exact_plan *P = PLAN(h);
    const uint64_t *ta = P->ta, *tb = P->tb;
    const uint64_t amask = P->amask, bmask = P->bmask;
    const int fbp = P->fbp, pw = P->fbp + 2, canon = P->canon;
    fast_c cc = c_decode(cf, d);
    int cfb = cf->fb;
    for (; k0 < kend; k0 += L) {
        const uint64_t *ak = a + k0, *bk = b + k0;
        uint64_t x[8], y[8], spec = 0;
        for (int j = 0; j < L; j++) {
            x[j] = ta[ak[j] & amask];
            y[j] = tb[bk[j] & bmask];
            spec |= x[j] | y[j];
        }
        if (__builtin_expect(cc.spec || (spec & T_SPEC), 0)) {
            if (!canon) return reference(h, c, a, b, sa, sb);
            d = special_step(P, c_class(cf, d), ak, bk);
            if (d == P->nan) return d;             /* a NaN c gives NaN */
            goto next;
        }
        /* products' lsb: ea + eb (fbp below their true weight); c's moved
         * to the same units */
        int32_t lc = cc.e - cfb + fbp;
        int32_t lo = cc.sig ? lc : INT32_MAX, hp = INT32_MIN;
        uint32_t sg[8];
        int32_t ls[8];
        for (int j = 0; j < L; j++) {
            sg[j] = (uint32_t)x[j] * (uint32_t)y[j];
            ls[j] = ent_e(x[j]) + ent_e(y[j]);
            int32_t l1 = sg[j] ? ls[j] : INT32_MAX, h1 = sg[j] ? ls[j] + pw : INT32_MIN;
            lo = l1 < lo ? l1 : lo;
            hp = h1 > hp ? h1 : hp;
        }
        int32_t hi = cc.sig && lc + 24 > hp ? lc + 24 : hp;
        if (__builtin_expect(lo != INT32_MAX && hi - lo <= SPREADL, 1)) {
            uint64_t s0 = -(uint64_t)cc.neg;
            int64_t sum = (int64_t)((((uint64_t)cc.sig << ((lc - lo) & 63)) ^ s0) - s0);
            for (int j = 0; j < L; j++) {
                uint64_t s = (uint64_t)((int64_t)((x[j] ^ y[j]) << 15) >> 63);   /* T_NEG: bit 48 */
                sum += (int64_t)((((uint64_t)sg[j] << ((ls[j] - lo) & 63)) ^ s) - s);
            }
            uint64_t sn = (uint64_t)(sum >> 63), m = ((uint64_t)sum ^ sn) - sn;
            if (__builtin_expect(m != 0, 1)) {
                d = fast_round(&P->o, (int)(sn & 1), m, lo - fbp, out, &cc);
                if (__builtin_expect(cc.spec, 0)) cc = c_decode(&P->cd, d);
                cf = &P->cd;
                cfb = cf->fb;
                continue;
            }
            d = zero_sum(P, &cc, ak, bk);
        } else if (out == OUT_F32RNE && !cf->tab && cc.sig >> 23 && hp + (32 - __builtin_clz(L)) <= lc - 2) {
            /* c far above the products: it is the result (slow_step says
             * why); d and cc stay */
            cf = &P->cd;
            cfb = cf->fb;
            continue;
        } else if (!slow_step(P, &cc, cfb, ak, bk, out, &d)) {
            return reference(h, c, a, b, sa, sb);
        }
    next:
        cf = &P->cd;
        cc = c_decode(cf, d);
        cfb = cf->fb;
    }
    return d;
}

/* Steps of any length, each the general way */
/* the whole dot: from step 0, c its accumulator (the bits of its format:
 * the fp32 shortcut keeps them) */
#define exact_body(h, c, a, b, sa, sb, out, L) \
    exact_from(h, c, a, b, sa, sb, out, L, 0, PLAN(h)->k, (c) & PLAN(h)->c0.mask, &PLAN(h)->c0)

static __attribute__((noinline)) uint64_t exact_body_any(const fast_hdr *h, uint64_t c, const uint64_t *a,
                                                         const uint64_t *b, const uint64_t *sa, const uint64_t *sb)
{
    const exact_plan *P = PLAN(h);
    const fast_cfmt *cf = &P->c0;
    uint64_t d = c & cf->mask;           /* (a c of the fp32 shortcut: its bits) */
    for (int k0 = 0; k0 < P->k; k0 += P->l) {
        const uint64_t *ak = a + k0, *bk = b + k0;
        fast_c cc = c_decode(cf, d);
        uint64_t spec = 0;
        for (int j = 0; j < P->l; j++) spec |= P->ta[ak[j] & P->amask] | P->tb[bk[j] & P->bmask];
        if (cc.spec || (spec & T_SPEC)) {
            if (!P->canon) return reference(h, c, a, b, sa, sb);
            d = special_step(P, c_class(cf, d), ak, bk);
            if (d == P->nan) return d;             /* a NaN c gives NaN */
        } else if (!slow_step(P, &cc, cf->fb, ak, bk, 0, &d)) {
            return reference(h, c, a, b, sa, sb);
        }
        cf = &P->cd;
    }
    return d;
}

static uint64_t exact_dot(const fast_hdr *h, uint64_t c, const uint64_t *a, const uint64_t *b,
                          const uint64_t *sa, const uint64_t *sb)
{
    const exact_plan *P = PLAN(h);
    switch (P->l) {
    case 1: return exact_body(h, c, a, b, sa, sb, 0, 1);
    case 2: return exact_body(h, c, a, b, sa, sb, 0, 2);
    case 4: return exact_body(h, c, a, b, sa, sb, 0, 4);
    default: return exact_body_any(h, c, a, b, sa, sb);
    }
}

/* CDNA1's output: fp32, round to nearest even; steps of 4 (fp16) or 2
 * (bf16) products */
static uint64_t exact_dot_f32rne(const fast_hdr *h, uint64_t c, const uint64_t *a, const uint64_t *b,
                                 const uint64_t *sa, const uint64_t *sb)
{
    if (PLAN(h)->l == 4) return exact_body(h, c, a, b, sa, sb, OUT_F32RNE, 4);
    if (PLAN(h)->l == 2) return exact_body(h, c, a, b, sa, sb, OUT_F32RNE, 2);
    return exact_body_any(h, c, a, b, sa, sb);
}

#ifdef FAST_HAVE_AVX2
/* ---- CDNA1: fp16 or bf16 products, fp32 c and d, RNE (x86-64) -------------
 *
 * The common step without a word of alignment state: every term is put
 * with its top (a bound: c below 2^24 ulps, a product below 2^(fbp+2))
 * at bit DW of its own word, shifted right by its distance to the largest
 * top; when no term loses a bit, the sum (eight terms below 2^50) is an
 * integer below 2^53, exact in a double, and scaling it by a power of two
 * and converting to binary32 is the one rounding to nearest even that
 * mma_round_to makes (subnormals, and overflow to Inf, included: IEEE
 * 754 conversions round once).  A step that loses bits, sums to zero or
 * meets Inf or NaN goes on in exact_from, the rest of the dot with it.
 * The conversions need the SSE state a program starts with (round to
 * nearest, no flush to zero or denormals-are-zero, exceptions masked); a
 * program may change it (a library built with -ffast-math sets FTZ and
 * DAZ when loaded), and then the integer kernel computes the dot. */
#define DW 50
_Static_assert(8 * (1ull << DW) <= (1ull << 53), "eight terms below 2^DW sum exactly in a double");

/* Entries of this kernel: sig in bits 0..31, the exponent (fast_tab's e)
 * + 1024 in bits 32..47, 0 there for a zero, Inf or NaN (such a product
 * never holds the largest top), Inf/NaN in bit 48, the sign in bit 63:
 * two entries' sum holds the product's exponent + 2048, Inf/NaN in bits
 * 48..49 and the sign's xor; from the fp16 (mb 10) or bf16 (mb 7) bits.
 * fp16 operands are decoded so, not looked up: a table of 64 Ki entries
 * misses the caches on random bits; decoding takes more instructions than
 * the lookups but made the fp16 kernels faster on random bits and no
 * slower on the normal suite (on an AMD EPYC).  bf16's are looked up in
 * bf16_table: decoding them made the bf16 kernel slower (random bits spend
 * their time in the steps that lose bits, not in the lookups). */
static inline uint64_t dbl_entry(uint64_t bits, const int mb)
{
    const uint32_t emax = (1u << (15 - mb)) - 1, bias = emax >> 1;
    uint32_t w = (uint32_t)bits & 0xffff, ef = (w >> mb) & emax;
    uint64_t sig = (w & ((1u << mb) - 1)) | (ef ? 1u << mb : 0), spec = ef == emax;
    sig = spec ? 0 : sig;
    uint64_t e = (uint64_t)((ef ? ef : 1) + 1024 - bias) << 32;
    return sig | (sig ? e : 0) | spec << 48 | (uint64_t)(w >> 15) << 63;
}

static uint64_t *bf16_tab;

static const uint64_t *bf16_table(void)
{
    uint64_t *t = __atomic_load_n(&bf16_tab, __ATOMIC_ACQUIRE);
    if (t) return t;
    if (!(t = malloc(sizeof(uint64_t) * 65536))) return NULL;
    for (uint32_t w = 0; w < 65536; w++) t[w] = dbl_entry(w, 7);
    uint64_t *expected = NULL;
    if (!__atomic_compare_exchange_n(&bf16_tab, &expected, t, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
        free(t);
        return expected;
    }
    return t;
}

/* an operand's entry in the kernels of steps of 4 fp16 products (pw 22)
 * or of 2 bf16 ones */
static inline uint64_t dbl_op(const exact_plan *P, uint64_t bits, const int pw)
{
    return pw == 22 ? dbl_entry(bits, 10) : P->dt[bits & 0xffff];
}

/* Step k0 (of accumulator w) the way exact_from takes it; the step's
 * result, never the reference's whole dot: these units' NaN is canonical
 * and no spread of fp16, bf16 and fp32 terms passes wide_sum's digits. */
static __attribute__((noinline)) uint32_t exact_one(const fast_hdr *h, uint64_t c, const uint64_t *a,
                                                    const uint64_t *b, const uint64_t *sa, const uint64_t *sb,
                                                    int k0, uint32_t w)
{
    const exact_plan *P = PLAN(h);
    const fast_cfmt *cf = k0 ? &P->cd : &P->c0;          /* (both fp32) */
    if (P->l == 4) return (uint32_t)exact_from(h, c, a, b, sa, sb, OUT_F32RNE, 4, k0, k0 + 4, w, cf);
    return (uint32_t)exact_from(h, c, a, b, sa, sb, OUT_F32RNE, 2, k0, k0 + 2, w, cf);
}

/* A step that the 53-bit sum cannot hold (random bits: terms spread past
 * DW - pw bits), in 128 bits the same way: tops at bit 124, five terms
 * below 2^127.  When one term loses bits (a c or product far below the
 * others), its remainder r (0 < |r| < 1 unit, the term's sign) stands in
 * as a half unit of its sign: with |S| >= 2^26 units every rounding
 * boundary of binary32 is a whole number of units, so S + r and S +- 1/2
 * round alike; several such remainders are left out where no boundary
 * lies near S.  The magnitude is then rounded to odd at 53 bits (its last
 * bit the sticky bit), exact in a double, whose conversion to binary32
 * rounds it as a single rounding would (53 >= 24 + 2).  0: not decided
 * (a zero sum, too few units, or S near a boundary). */
static inline __attribute__((always_inline)) int step128(const exact_plan *P, uint32_t *wp, const uint64_t *a,
                                                         const uint64_t *b, const int L, const int pw)
{
    uint32_t w = *wp, ef = (w >> 23) & 0xff;
    uint32_t sg[8];
    int32_t t[8], wd[8], A = INT32_MIN;
    uint64_t ng[8];
    sg[0] = (w & 0x7fffffu) | (ef ? 0x800000u : 0);
    t[0] = (int32_t)(ef ? ef : 1) - 126;
    wd[0] = 24;
    ng[0] = w >> 31;
#pragma GCC unroll 8
    for (int j = 0; j < L; j++) {
        uint64_t x = dbl_op(P, a[j], pw), y = dbl_op(P, b[j], pw), v = x + y;
        sg[j + 1] = (uint32_t)x * (uint32_t)y;
        t[j + 1] = (int32_t)((v >> 32) & 0xffff) - 2046;
        wd[j + 1] = pw;
        ng[j + 1] = v >> 63;
    }
#pragma GCC unroll 8
    for (int i = 0; i <= L; i++)
        if (sg[i] && t[i] > A) A = t[i];
    if (A == INT32_MIN) return 0;                           /* every term zero */
    __int128 S = 0;
    int nlost = 0;
    uint64_t lneg = 0;
#pragma GCC unroll 8
    for (int i = 0; i <= L; i++) {
        /* the term at bit 124 - wd - (A - t) (a zero: nothing) */
        int32_t q = 124 - wd[i] - (A - t[i]);
        unsigned __int128 m;
        if (q >= 0) {
            m = (unsigned __int128)sg[i] << (q & 127);
        } else {
            uint32_t r = (uint32_t)-q, low = r >= 32 ? sg[i] : sg[i] & ((1u << r) - 1);
            m = r >= 32 ? 0 : sg[i] >> r;
            if (low) {
                nlost++;
                lneg = ng[i];
            }
        }
        S += ng[i] ? -(__int128)m : (__int128)m;
    }
    int32_t lsb = A - 124;
    if (S == 0) return 0;
    unsigned __int128 mag = S < 0 ? -(unsigned __int128)S : (unsigned __int128)S;
    uint64_t hi = (uint64_t)(mag >> 64), m53;
    int bl = hi ? 128 - __builtin_clzll(hi) : 64 - __builtin_clzll((uint64_t)mag);
    if (nlost == 1 && bl > 26) {
        mag = 2 * mag + ((S < 0) == (int)lneg ? 1 : -1);    /* |S + r| as |2S +- 1| */
        lsb--;
        bl += (mag >> bl) != 0;
    } else if (nlost) {
        /* several remainders, below nlost < 8 units together, of any
         * signs: S rounds as S + R when no midpoint of binary32 lies
         * within 8 units of S.  With ulp u = 2^(bl-24) units >= 64, the
         * midpoints near S are the odd multiples of u/2 (those of the
         * binade below are u/4 past its end; the overflow threshold is
         * one of them); a subnormal result is left out below. */
        if (bl < 30) return 0;
        unsigned __int128 u = (unsigned __int128)1 << (bl - 24), low = mag & (u - 1);
        if (low + 8 >= u / 2 && low <= u / 2 + 8) return 0;
    }
    if (bl > 53) {
        int sh = bl - 53;
        m53 = (uint64_t)(mag >> sh) | ((mag & (((unsigned __int128)1 << sh) - 1)) != 0);
        lsb += sh;
    } else {
        m53 = (uint64_t)mag;
    }
    uint64_t scb = (uint64_t)(lsb + 1023) << 52;          /* lsb > -500 */
    double scale;
    memcpy(&scale, &scb, sizeof scale);
    float f = (float)((double)m53 * scale);
    memcpy(&w, &f, sizeof w);
    if (nlost && w >> 23 < 2) return 0;                      /* (subnormal boundaries: coarser) */
    *wp = w | (S < 0 ? 0x80000000u : 0);
    return 1;
}

/* (CDNA1: fp16 steps of 4, bf16 steps of 2) */
static __attribute__((noinline)) int exact_step128(const exact_plan *P, uint32_t *wp, const uint64_t *a,
                                                   const uint64_t *b)
{
    return P->l == 4 ? step128(P, wp, a, b, 4, 22) : step128(P, wp, a, b, 2, 16);
}

static inline __attribute__((always_inline)) uint64_t exact_dbl(const fast_hdr *h, uint64_t c, const uint64_t *a,
                                                                const uint64_t *b, const uint64_t *sa,
                                                                const uint64_t *sb, const int L, const int pw)
{
    const exact_plan *P = PLAN(h);
    uint32_t w = (uint32_t)c;
    if (__builtin_expect(!fast_host_fp_default(), 0)) return exact_dot_f32rne(h, c, a, b, sa, sb);
    for (int k0 = 0; k0 < P->k; k0 += L) {
        uint32_t ef = (w >> 23) & 0xff;
        uint64_t csig = (w & 0x7fffffu) | (ef ? 0x800000u : 0);
        int32_t tc = (int32_t)(ef ? ef : 1) - 126;        /* c below 2^tc */
        int32_t A = csig ? tc : INT32_MIN / 2, t[8];
        uint64_t v[8], sg[8], spec = ef == 0xff ? 3ull << 48 : 0;   /* c Inf or NaN */
#pragma GCC unroll 8
        for (int j = 0; j < L; j++) {
            uint64_t x = dbl_op(P, a[k0 + j], pw), y = dbl_op(P, b[k0 + j], pw);
            v[j] = x + y;
            sg[j] = (uint64_t)((uint32_t)x * (uint32_t)y) << (DW - pw);
            spec |= v[j];
            t[j] = (int32_t)((v[j] >> 32) & 0xffff) - 2046;    /* the product below 2^t */
            A = t[j] > A ? t[j] : A;
        }
        /* (a zero term's shift, negative or past 63, is 63: nothing lost) */
        uint32_t sh = (uint32_t)(A - tc);
        sh = sh > 63 ? 63 : sh;
        uint64_t m0 = csig << (DW - 24), m = m0 >> sh, lost = (m << sh) ^ m0, s = -(uint64_t)(w >> 31);
        int64_t sum = (int64_t)((m ^ s) - s);
#pragma GCC unroll 8
        for (int j = 0; j < L; j++) {
            sh = (uint32_t)(A - t[j]);
            sh = sh > 63 ? 63 : sh;
            m = sg[j] >> sh;
            lost |= (m << sh) ^ sg[j];
            s = (uint64_t)((int64_t)v[j] >> 63);
            sum += (int64_t)((m ^ s) - s);
        }
        if (__builtin_expect(lost || sum == 0 || (spec & 3ull << 48), 0)) {
            if ((spec & 3ull << 48) || !exact_step128(P, &w, a + k0, b + k0))
                w = exact_one(h, c, a, b, sa, sb, k0, w);
            if (w == P->nan) return w;
            continue;
        }
        uint64_t sc = (uint64_t)(A - DW + 1023) << 52;     /* 2^(A-DW): A - DW > -400 */
        double scale;
        memcpy(&scale, &sc, sizeof scale);
        float f = (float)((double)sum * scale);
        memcpy(&w, &f, sizeof w);
    }
    return w;
}

/* The same step with the L products in the lanes of one vector (L = 4:
 * 256 bits, L = 2: 128): a variable shift of 64 or more (a zero product's,
 * or a negative distance taken as unsigned) leaves nothing, and shifted
 * back it differs from the term when bits were lost, as above. */
/* A product far above c and the other products (random bits: bf16
 * exponents span 500 bits): below a quarter of its ulp (from its own
 * leading bit: subnormal operands give shorter products) together, they
 * leave it as it is, rounded alone (16 or 22 bits: exact unless it
 * overflows, the same Inf as the sum's); a normal result only.  tl: the
 * products' exponent fields (their top + 2046), sl: their significands
 * shifted to bit DW. */
static inline int dominant_product(const int64_t *tl, const uint64_t *sl, const uint64_t *vl, int L,
                                   uint64_t csig, int32_t tc, uint32_t *wp)
{
    int im = -1;
    int32_t top = INT32_MIN, second = csig ? tc : INT32_MIN;
    for (int j = 0; j < L; j++) {
        if (!sl[j]) continue;
        int32_t t = (int32_t)tl[j] - 2046;
        if (t > top) {
            second = top > second ? top : second;
            top = t;
            im = j;
        } else {
            second = t > second ? t : second;
        }
    }
    if (im < 0) return 0;
    int32_t lead = top - DW + (64 - __builtin_clzll(sl[im]));   /* its own top, not the bound */
    if (lead < -124 || (second != INT32_MIN && second + (32 - __builtin_clz((unsigned)L)) > lead - 26)) return 0;
    uint64_t scb = (uint64_t)(top - DW + 1023) << 52;     /* sl: the product times 2^(DW - top) */
    double scale;
    memcpy(&scale, &scb, sizeof scale);
    float f = (float)((double)sl[im] * scale);
    uint32_t w;
    memcpy(&w, &f, sizeof w);
    *wp = w | (uint32_t)(vl[im] >> 63 << 31);
    return 1;
}

#define EXACT_VDBL(NAME, L, PW, RARE, VT, AND, SET1, ENTRIES, ADD, MUL, SLLI, SRLI, SUB, SRLV, SLLV, XOR, OR, \
                   CMPGT, ZERO, TESTZ, HMAX, HSUM, STORE)                                                        \
    V_FN uint64_t NAME(const fast_hdr *h, uint64_t c, const void *a, const void *b, const int size, int *nrare) \
    {                                                                                                            \
        const exact_plan *P = PLAN(h);                                                                           \
        const VT m16 = SET1(0xffff), sbits = SET1(3ll << 48), z = ZERO();                                        \
        const uint64_t *a8 = a, *b8 = b, *sa = NULL, *sb = NULL;      /* (what RARE leaves: size 8) */        \
        uint32_t w = (uint32_t)c;                                                                                \
        for (int k0 = 0; k0 < P->k; k0 += L) {                                                                   \
            uint32_t ef = (w >> 23) & 0xff;                                                                      \
            uint64_t csig = (w & 0x7fffffu) | (ef ? 0x800000u : 0);                                              \
            int32_t tc = (int32_t)(ef ? ef : 1) - 126;                                                           \
            VT ra, rb, x, y;                                                                                     \
            ENTRIES(P, &ra, &rb, &x, &y, a, b, size, k0);                                                        \
            VT v = ADD(x, y), sg = SLLI(MUL(x, y), DW - PW), t = AND(SRLI(v, 32), m16);                          \
            int32_t A = HMAX(t) - 2046;                                                                          \
            A = csig && tc > A ? tc : A;                                                                         \
            VT sh = SUB(SET1((long long)A + 2046), t), m = SRLV(sg, sh);                                         \
            VT lost = XOR(SLLV(m, sh), sg), s = CMPGT(z, v), spl = AND(v, sbits);                                \
            int64_t sum = HSUM(SUB(XOR(m, s), s));                                                               \
            uint32_t shc = (uint32_t)(A - tc);                                                                   \
            shc = shc > 63 ? 63 : shc;                                                                           \
            uint64_t m0 = csig << (DW - 24), mc = m0 >> shc, sc = -(uint64_t)(w >> 31);                          \
            sum += (int64_t)((mc ^ sc) - sc);                                                                    \
            if (__builtin_expect(!TESTZ(OR(lost, spl), OR(lost, spl)) || ((mc << shc) ^ m0) || sum == 0 ||      \
                                     ef == 0xff, 0)) {                                                           \
                ++*nrare;                                                                                        \
                if (RARE(P, &w, v, x, y, ra, rb)) {                                                              \
                    if (w == P->nan) return w;                                                                   \
                    continue;                                                                                    \
                }                                                                                                \
                if (ef != 0xff && TESTZ(spl, spl) && TESTZ(lost, lost) && !((mc << shc) ^ m0)) {                \
                    w = 0;                      /* an exact zero: +0 (mma_round_to, no zero=ieee here) */        \
                    continue;                                                                                    \
                }                                                                                                \
                if (ef != 0xff && TESTZ(spl, spl)) {                                                             \
                    /* c far above the products: c (exact_from says why) */                                     \
                    int64_t tl[L], sl[L], vl[L];                 /* (bf16: the dominant product) */              \
                    if (L == 2) {                                                                                \
                        STORE((VT *)tl, t);                                                                      \
                        STORE((VT *)sl, sg);                                                                     \
                        STORE((VT *)vl, v);                                                                      \
                    }                                                                                            \
                    if (!(csig >> 23 && HMAX(t) - 2046 + (L == 4 ? 3 : 2) <= tc - 26) &&                        \
                        !(L == 2 &&                                                                              \
                          dominant_product(tl, (const uint64_t *)sl, (const uint64_t *)vl, L, csig, tc, &w)) &&  \
                        !exact_step128(P, &w, a8 + k0, b8 + k0))                                                 \
                        w = exact_one(h, c, a8, b8, sa, sb, k0, w);                                              \
                    continue;                                                                                    \
                }                                                                                                \
                if (TESTZ(spl, spl) && !(w & 0x7fffffu)) continue;   /* Inf c, finite products: Inf */         \
                w = (uint32_t)special_step(P, c_class(&P->cd, w), a8 + k0, b8 + k0);   /* (random bits) */     \
                if (w == P->nan) return w;                                                                       \
                continue;                                                                                        \
            }                                                                                                    \
            uint64_t scb = (uint64_t)(A - DW + 1023) << 52;                                                      \
            double scale;                                                                                        \
            memcpy(&scale, &scb, sizeof scale);                                                                  \
            float f = (float)((double)sum * scale);                                                              \
            memcpy(&w, &f, sizeof w);                                                                            \
        }                                                                                                        \
        return w;                                                                                                \
    }
V_FN int32_t hmax4(__m256i t)        /* lanes' low halves; the high ones are 0 */
{
    __m128i m = _mm_max_epi32(_mm256_castsi256_si128(t), _mm256_extracti128_si256(t, 1));
    return _mm_cvtsi128_si32(_mm_max_epi32(m, _mm_shuffle_epi32(m, 0x4e)));
}
V_FN int32_t hmax2(__m128i t) { return _mm_cvtsi128_si32(_mm_max_epi32(t, _mm_shuffle_epi32(t, 0x4e))); }
V_FN int64_t hsum2(__m128i s) { return _mm_cvtsi128_si64(_mm_add_epi64(s, _mm_shuffle_epi32(s, 0x4e))); }
/* dbl_entry in the lanes of a vector (bits above 16 ignored): x the
 * exponent field, whose maximum with the hidden bit is also the exponent
 * (1 for a subnormal) in place */
V_FN __m256i dbl_entries(__m256i w, const int mb)
{
    const __m256i one = _mm256_set1_epi64x(1ll << mb), emask = _mm256_set1_epi64x(((1ll << (15 - mb)) - 1) << mb);
    const long long bias = (1ll << (14 - mb)) - 1;
    __m256i x = _mm256_and_si256(w, emask), spec = _mm256_cmpeq_epi64(x, emask);
    __m256i sig = _mm256_or_si256(_mm256_and_si256(w, _mm256_set1_epi64x((1ll << mb) - 1)), _mm256_min_epu32(x, one));
    sig = _mm256_andnot_si256(spec, sig);
    __m256i e = _mm256_add_epi64(_mm256_slli_epi64(_mm256_max_epu32(x, one), 32 - mb),
                                 _mm256_set1_epi64x((1024 - bias) << 32));
    e = _mm256_andnot_si256(_mm256_cmpeq_epi64(sig, _mm256_setzero_si256()), e);
    __m256i top = _mm256_or_si256(_mm256_and_si256(_mm256_slli_epi64(w, 48), _mm256_set1_epi64x(INT64_MIN)),
                                  _mm256_and_si256(spec, _mm256_set1_epi64x(1ll << 48)));
    return _mm256_or_si256(_mm256_or_si256(sig, e), top);
}
/* four fp16 operands from p + k0, of `size` bytes (8: uint64_t, 2:
 * uint16_t), in 64-bit lanes */
V_FN __m256i f16_load4(const void *p, const int size, int k0)
{
    if (size == 2) return _mm256_cvtepu16_epi64(_mm_loadl_epi64((const __m128i *)((const uint16_t *)p + k0)));
    return _mm256_loadu_si256((const __m256i *)((const uint64_t *)p + k0));
}

/* the entries of four fp16 operands of a and of b (decoded); of two bf16
 * ones (looked up one by one: a gather is slower on AMD Zen 2) */
V_FN void dbl_entries4(const exact_plan *P, __m256i *ra, __m256i *rb, __m256i *x, __m256i *y, const void *a,
                       const void *b, const int size, int k0)
{
    (void)P;
    *ra = f16_load4(a, size, k0);
    *rb = f16_load4(b, size, k0);
    *x = dbl_entries(*ra, 10);
    *y = dbl_entries(*rb, 10);
}
V_FN void dbl_entries2(const exact_plan *P, __m128i *ra, __m128i *rb, __m128i *x, __m128i *y, const void *a,
                       const void *b, const int size, int k0)
{
    const uint64_t *a8 = (const uint64_t *)a + k0, *b8 = (const uint64_t *)b + k0;   /* (size 8) */
    (void)size;
    *ra = *rb = _mm_setzero_si128();                                                /* (not used) */
    *x = _mm_set_epi64x(P->dt[a8[1] & 0xffff], P->dt[a8[0] & 0xffff]);
    *y = _mm_set_epi64x(P->dt[b8[1] & 0xffff], P->dt[b8[0] & 0xffff]);
}

/* ---- CDNA1 fp16: a fixed window ---------------------------------------------
 *
 * Random bits put most fp16 steps past the 53-bit sum above: the products
 * spread over 80 bits and c may have any exponent, so 44% of K=4 vectors
 * went on to step128, at about 450 instructions each.  But every fp16
 * product is a whole number of u = 2^-48 (2^-24 squared) below 2^80 u:
 * the four of a step sum exactly, below 2^82 u, in 128 bits, whatever
 * their spread.  Product j, sg_j << sh_j (sh_j = 0..58), goes in as
 * sg_j << (sh_j mod 32), below 2^53, to the low sum or to the high one
 * (weight 2^32), a lane each.  c (its last bit at lc, in u) joins that
 * sum P, without a branch on where it lies:
 *   P = 0: the result is c (+0 for a zero c: an exact zero);
 *   lc >= 0: S = P + c << lc, below 2^125 while lc <= 100; past 100 c is
 *     shifted by 100 only: |P| is below a quarter of c's ulp either way,
 *     so both sums round to c's significand, and the scale gives back
 *     c's exponent;
 *   lc < 0: S = P << 44 + c (P << 44 below 2^126), exact while lc >= -44;
 *     below that c's bits under the unit (a remainder of c's sign, below
 *     one unit) stand for a half unit of its sign, as in step128 (|S| >=
 *     2^44 units: every rounding boundary is a whole number of units).
 * S is rounded to odd at 53 bits, exact in a double, whose conversion to
 * binary32 is the one rounding, as in step128. */

/* One step of finite terms: v, sg the products' lanes (dbl_entries'
 * sums and significands), w the accumulator's bits; the step's result. */
V_FN uint32_t fix_step(__m256i v, __m256i sg, uint32_t w)
{
    const __m256i z = _mm256_setzero_si256();
    __m256i sh = _mm256_and_si256(_mm256_sub_epi64(_mm256_srli_epi64(v, 32), _mm256_set1_epi64x(2020)),
                                  _mm256_set1_epi64x(63));         /* (a zero product: any, sg 0) */
    __m256i t = _mm256_sllv_epi64(sg, _mm256_and_si256(sh, _mm256_set1_epi64x(31)));
    __m256i ng = _mm256_cmpgt_epi64(z, v), hm = _mm256_cmpgt_epi64(sh, _mm256_set1_epi64x(31));
    t = _mm256_sub_epi64(_mm256_xor_si256(t, ng), ng);
    __int128 S = (__int128)v_hsum64(_mm256_and_si256(hm, t)) * ((__int128)1 << 32) +
                 v_hsum64(_mm256_andnot_si256(hm, t));
    uint32_t ef = (w >> 23) & 0xff;
    int64_t csig = (w & 0x7fffff) | (ef ? 0x800000 : 0), cn = -(int64_t)(w >> 31);   /* cn: 0 or -1 */
    if (__builtin_expect(S == 0, 0)) return csig ? w : 0;
    int32_t lc = (int32_t)(ef ? ef : 1) - 102, sp = lc < 0 ? 44 : 0, e = lc + sp;   /* e: c's last bit in S */
    int32_t sc = e < 0 ? 0 : e > 100 ? 100 : e, dn = e < 0 ? -e : 0;             /* (-e <= 57) */
    int64_t ct = csig >> dn, st = (ct << dn) != csig ? cn | 1 : 0;                /* st: the half unit */
    S = (__int128)((unsigned __int128)S << sp) + (__int128)((unsigned __int128)(__int128)((ct ^ cn) - cn) << sc);
    S = 2 * S + st;
    int32_t lsb = -49 - sp + (e > 100 ? e - 100 : 0);
    if (__builtin_expect(S == 0, 0)) return 0;                                   /* an exact zero: +0 */
    /* |S| normalized (top bit at 127), rounded to odd at 53 bits */
    unsigned __int128 mag = S < 0 ? -(unsigned __int128)S : (unsigned __int128)S;
    uint64_t hi = (uint64_t)(mag >> 64);
    int n = hi ? __builtin_clzll(hi) : 64 + __builtin_clzll((uint64_t)mag);
    mag <<= n;
    uint64_t m64 = (uint64_t)(mag >> 64) | ((uint64_t)mag != 0), m53 = (m64 >> 11) | ((m64 & 0x7ff) != 0);
    uint64_t scb = (uint64_t)(lsb + 75 - n + 1023) << 52;                        /* lsb + 75 - n > -150 */
    double scale;
    memcpy(&scale, &scb, sizeof scale);
    float f = (float)((double)m53 * scale);
    uint32_t r;
    memcpy(&r, &f, sizeof r);
    return r | (S < 0 ? 0x80000000u : 0);
}

/* A step with an Inf or NaN among c and its operands (ra, rb: their bits):
 * a NaN operand or c (random bits: most such steps) is the NaN, found in
 * the lanes; the rest as special_step decides. */
static V_TARGET __attribute__((noinline)) uint32_t fix_special(const exact_plan *P, uint32_t w, __m256i ra,
                                                                __m256i rb)
{
    const __m256i m = _mm256_set1_epi64x(0x7fff), inf = _mm256_set1_epi64x(0x7c00);
    __m256i nan = _mm256_or_si256(_mm256_cmpgt_epi64(_mm256_and_si256(ra, m), inf),
                                  _mm256_cmpgt_epi64(_mm256_and_si256(rb, m), inf));
    if (!_mm256_testz_si256(nan, nan) || (w & 0x7fffffffu) > 0x7f800000u) return (uint32_t)P->nan;
    uint64_t a[4], b[4];
    _mm256_storeu_si256((__m256i *)a, ra);
    _mm256_storeu_si256((__m256i *)b, rb);
    return (uint32_t)special_step(P, c_class(&P->cd, w), a, b);
}

/* an fp16 step in the fixed window, its Inf and NaN included: x, y the
 * operands' entries, v their sums, ra, rb their bits */
V_FN uint32_t fix_any(const exact_plan *P, uint32_t w, __m256i v, __m256i x, __m256i y, __m256i ra, __m256i rb)
{
    if ((w & 0x7f800000u) != 0x7f800000u && _mm256_testz_si256(v, _mm256_set1_epi64x(3ll << 48)))
        return fix_step(v, _mm256_mul_epu32(x, y), w);
    return fix_special(P, w, ra, rb);
}

/* (out of the 53-bit sum's loop: inlined there, it took the normal suite's
 * K=4 dot from 197 instructions to 202, and 9% of its rate) */
static V_TARGET __attribute__((noinline)) uint32_t fix_rest(const exact_plan *P, uint32_t w, __m256i v, __m256i x,
                                                             __m256i y, __m256i ra, __m256i rb)
{
    return fix_any(P, w, v, x, y, ra, rb);
}

/* the rest of a step that the 53-bit sum cannot decide: fp16's in the
 * fixed window, 1; bf16's as EXACT_VDBL goes on, 0 */
V_FN int fix_rare(const exact_plan *P, uint32_t *wp, __m256i v, __m256i x, __m256i y, __m256i ra, __m256i rb)
{
    *wp = fix_rest(P, *wp, v, x, y, ra, rb);
    return 1;
}
V_FN int no_rare(const exact_plan *P, uint32_t *wp, __m128i v, __m128i x, __m128i y, __m128i ra, __m128i rb)
{
    (void)P, (void)wp, (void)v, (void)x, (void)y, (void)ra, (void)rb;
    return 0;
}
EXACT_VDBL(vdbl_f16, 4, 22, fix_rare, __m256i, _mm256_and_si256, _mm256_set1_epi64x, dbl_entries4,
           _mm256_add_epi64, _mm256_mul_epu32, _mm256_slli_epi64, _mm256_srli_epi64, _mm256_sub_epi64,
           _mm256_srlv_epi64, _mm256_sllv_epi64, _mm256_xor_si256, _mm256_or_si256, _mm256_cmpgt_epi64,
           _mm256_setzero_si256, _mm256_testz_si256, hmax4, v_hsum64, _mm256_storeu_si256)
EXACT_VDBL(vdbl_bf16, 2, 16, no_rare, __m128i, _mm_and_si128, _mm_set1_epi64x, dbl_entries2, _mm_add_epi64,
           _mm_mul_epu32, _mm_slli_epi64, _mm_srli_epi64, _mm_sub_epi64, _mm_srlv_epi64, _mm_sllv_epi64,
           _mm_xor_si128, _mm_or_si128, _mm_cmpgt_epi64, _mm_setzero_si128, _mm_testz_si128, hmax2, hsum2,
           _mm_storeu_si128)
#undef EXACT_VDBL

static V_TARGET uint64_t exact_vdbl_bf16(const fast_hdr *h, uint64_t c, const uint64_t *a, const uint64_t *b,
                                         const uint64_t *sa, const uint64_t *sb)
{
    if (__builtin_expect(!fast_host_fp_default(), 0)) return exact_dot_f32rne(h, c, a, b, sa, sb);
    int nrare = 0;
    return vdbl_bf16(h, c, a, b, 8, &nrare);
}

static V_TARGET uint64_t exact_vfix_f16(const fast_hdr *h, uint64_t c, const uint64_t *a, const uint64_t *b,
                                        const uint64_t *sa, const uint64_t *sb)
{
    if (__builtin_expect(!fast_host_fp_default(), 0)) return exact_dot_f32rne(h, c, a, b, sa, sb);
    int nrare = 0;
    return vdbl_f16(h, c, a, b, 8, &nrare);
}

/* fp16 steps in the fixed window alone (not the 53-bit sum first) */
V_FN uint64_t fix_dot(const fast_hdr *h, uint64_t c, const void *a, const void *b, const int size)
{
    const exact_plan *P = PLAN(h);
    uint32_t w = (uint32_t)c;
    for (int k0 = 0; k0 < P->k; k0 += 4) {
        __m256i ra = f16_load4(a, size, k0), rb = f16_load4(b, size, k0);
        __m256i x = dbl_entries(ra, 10), y = dbl_entries(rb, 10);
        w = fix_any(P, w, _mm256_add_epi64(x, y), x, y, ra, rb);
        if (w == P->nan) return w;                     /* a NaN c gives NaN */
    }
    return w;
}

/* A batch of fp16 operands at their natural width (fast_bfn).  The 53-bit
 * sum is cheaper than the fixed window where it decides a step (the
 * normal suite: 197 instructions a K=4 dot), but on random bits it
 * decides a third of them, and the branch between the two mispredicts:
 * K=4 random bits, 27 M dot/s through both, 37 M through the fixed
 * window alone.  So the loop watches its blocks of FIX_BLOCK vectors:
 * after one where a quarter of the steps or more went past the 53-bit
 * sum, the next FIX_BLOCKS blocks take the fixed window alone.  Both
 * compute the same bits. */
#define FIX_BLOCK 32
#define FIX_BLOCKS 7
static V_TARGET void exact_vfix_f16_b(const fast_hdr *h, const mma_batch *x, size_t lo, size_t hi)
{
    const size_t k = (size_t)PLAN(h)->k;
    const uint16_t *a = x->a, *b = x->b;
    const int cs = x->c_size, ds = x->d_size;
    if (__builtin_expect(!fast_host_fp_default(), 0)) {
        uint64_t wa[MMA_MAX_K], wb[MMA_MAX_K];
        for (size_t i = lo; i < hi; i++)
            fast_st(x->d, ds, i, exact_dot_f32rne(h, fast_ld(x->c, cs, i), fast_widen(a + i * k, 2, (int)k, wa),
                                                  fast_widen(b + i * k, 2, (int)k, wb), NULL, NULL));
        return;
    }
    int fixed = 0;                                      /* blocks left to the fixed window alone */
    for (size_t i0 = lo; i0 < hi; i0 += FIX_BLOCK) {
        size_t i1 = hi - i0 < FIX_BLOCK ? hi : i0 + FIX_BLOCK;
        if (fixed) {
            fixed--;
            for (size_t i = i0; i < i1; i++)
                fast_st(x->d, ds, i, fix_dot(h, fast_ld(x->c, cs, i), a + i * k, b + i * k, 2));
        } else {
            int nrare = 0;
            for (size_t i = i0; i < i1; i++)
                fast_st(x->d, ds, i, vdbl_f16(h, fast_ld(x->c, cs, i), a + i * k, b + i * k, 2, &nrare));
            if (16 * (size_t)nrare >= (i1 - i0) * k) fixed = FIX_BLOCKS;   /* (k / 4 steps a vector) */
        }
    }
}
/* ---- CDNA1 batches: a dot product a double lane ------------------------------
 *
 * The batch loops below take four dot products at once, one in each lane
 * of a vector of doubles, and compute each step's exact sum rounded once
 * with the double adder itself (no alignment, normalisation or rounding
 * code):
 *   - the products are exact in a double (fp16: 22 bits, from 2^-48 to
 *     2^32, exact even in binary32, so F16C's conversions and one
 *     multiplication give them; bf16: 16 bits, from 2^-266 to 2^256);
 *   - their sum P is made exactly into two doubles u + v with |v| <=
 *     ulp(u)/2: bf16's two products by Knuth's TwoSum; fp16's four are
 *     first cut at the grid G = 2^-16 (p = ph + pl, ph the multiple of G
 *     nearest p, by adding and subtracting 1.5 * 2^36), so that the four
 *     ph (multiples of G below 2^34) and the four pl (multiples of 2^-48
 *     below 2^-15) sum exactly in any order, and then the two sums by
 *     TwoSum;
 *   - c + u = s + e by TwoSum; t = RO(e + v) and z = RO(s + t), RO the
 *     rounding to odd at 53 bits, made from TwoSum's error (a sum whose
 *     error is not zero, with an even last bit, goes one unit toward the
 *     error).  z = RO(c + P): where e = 0, z = RO(s + v) exactly; else
 *     c + u is inexact, so c and u do not cancel (Sterbenz), ulp(u) <=
 *     2 ulp(s) and |e + v| <= 1.5 ulp(s), while |c + P| >= 2^51 ulp(s):
 *     the grid of t (ulp(e + v) <= 2^-52 ulp(s)) is at least twice finer
 *     than that of c + P, s is a multiple of twice it, and an odd
 *     rounding to a fine grid followed by one to a grid at least twice
 *     coarser is the odd rounding to the coarse one (Boldo and Melquiond,
 *     "Emulation of FMA and correctly rounded sums: proved algorithms
 *     using rounding to odd", IEEE TC 57(4), 2008);
 *   - z converted to binary32 is the one rounding to nearest even of c +
 *     P (53 >= 24 + 2 bits: the odd rounding keeps it, subnormal and
 *     overflowing results included), as step128 uses it.
 * No value here comes near a double's subnormals (every term is a
 * multiple of 2^-266) or its overflow.  An exact zero is +0 (z + +0; a
 * bf16 sum too small for binary32's subnormals keeps its sign, as
 * mma_round_to's).  Inf and NaN: the plain sum c + sum of ph (bf16: c + u)
 * is not finite exactly when c or a product is Inf or NaN (a finite one
 * stays below 2^257), and is then the step's Inf, or a NaN that becomes
 * the canonical one, as special_step decides.  The conversions and
 * additions need the SSE state a program starts with (fast_host_fp_default).  The
 * kernels are never compiled for FMA, so no a * b + c is contracted. */
#define XD_FN static inline __attribute__((always_inline, target(FAST_ISA_AVX2_F16C)))
#define XD_TARGET __attribute__((target(FAST_ISA_AVX2_F16C)))

/* TwoSum: RN(a + b), and *e = a + b - RN(a + b) exactly (for vectors of
 * 4 and 8 doubles, by the compilers' vector operators) */
#define TWO_SUM_FN(FN, V, NAME)                                                                                  \
    FN V NAME(V a, V b, V *e)                                                                                    \
    {                                                                                                            \
        V s = a + b, bb = s - a;                                                                                 \
        *e = (a - (s - bb)) + (b - bb);                                                                          \
        return s;                                                                                                \
    }
TWO_SUM_FN(XD_FN, __m256d, xd_two_sum)

/* RO(a + b) at 53 bits: a + b when exact; else RN(a + b) if its last bit
 * is odd, else its neighbour toward the error (the bits one less where
 * the error's sign is not the sum's: the predecessor of a power of two is
 * the odd one below it) */
XD_FN __m256d xd_add_odd(__m256d a, __m256d b)
{
    __m256d e, s = xd_two_sum(a, b, &e);
    const __m256i one = _mm256_set1_epi64x(1), z = _mm256_setzero_si256();
    __m256i si = _mm256_castpd_si256(s);
    __m256i fix = _mm256_andnot_si256(_mm256_castpd_si256(_mm256_cmp_pd(e, _mm256_setzero_pd(), _CMP_EQ_OQ)),
                                      _mm256_cmpeq_epi64(_mm256_and_si256(si, one), z));
    __m256i dir = _mm256_or_si256(_mm256_cmpgt_epi64(z, _mm256_xor_si256(si, _mm256_castpd_si256(e))), one);
    return _mm256_castsi256_pd(_mm256_add_epi64(si, _mm256_and_si256(fix, dir)));
}

/* RO(c + u + v) (|v| <= ulp(u)/2, the comment above says why) */
XD_FN __m256d xd_sum3(__m256d c, __m256d u, __m256d v)
{
    __m256d e, s = xd_two_sum(c, u, &e);
    return xd_add_odd(s, xd_add_odd(e, v));
}

/* the step's binary32 result from z (RO of the exact sum) and the plain
 * sum sp (not finite: the step's Inf or NaN); a NaN as it comes (xd_canon
 * makes the dot's canonical: a NaN c gives NaN) */
XD_FN __m128 xd_result(__m256d z, __m256d sp)
{
    const __m256d inf = _mm256_set1_pd(__builtin_inf()), sign = _mm256_set1_pd(-0.0);
    z = _mm256_add_pd(z, _mm256_setzero_pd());          /* an exact zero: +0 (-0 + +0) */
    return _mm256_cvtpd_ps(_mm256_blendv_pd(z, sp, _mm256_cmp_pd(_mm256_andnot_pd(sign, sp), inf, _CMP_NLT_UQ)));
}
XD_FN __m128 xd_canon(__m128 f, __m128 nan) { return _mm_blendv_ps(f, nan, _mm_cmpunord_ps(f, f)); }

/* four c (or d) of fp32 bits at p + i, in elements of `size` bytes (4 or
 * 8, the bits above 32 ignored) */
XD_FN __m128 xd_load_c(const void *p, int size, size_t i)
{
    if (size == 4) return _mm_loadu_ps((const float *)p + i);
    __m256i w = _mm256_loadu_si256((const __m256i *)((const uint64_t *)p + i));
    w = _mm256_permutevar8x32_epi32(w, _mm256_setr_epi32(0, 2, 4, 6, 0, 2, 4, 6));
    return _mm_castsi128_ps(_mm256_castsi256_si128(w));
}
XD_FN void xd_store_d(void *p, int size, size_t i, __m128 f)
{
    if (size == 4) _mm_storeu_ps((float *)p + i, f);
    else _mm256_storeu_si256((__m256i *)((uint64_t *)p + i), _mm256_cvtepu32_epi64(_mm_castps_si128(f)));
}

/* step s (products 4s..4s+3) of the four fp16 dot products at p (k
 * elements each): the four products of two of them as binary32 */
XD_FN __m256 xd_f16_pair(const uint16_t *a, const uint16_t *b, size_t k, int s)
{
    __m128i x = _mm_loadl_epi64((const __m128i *)(a + 4 * s)), y = _mm_loadl_epi64((const __m128i *)(b + 4 * s));
    x = _mm_castpd_si128(_mm_loadh_pd(_mm_castsi128_pd(x), (const double *)(a + k + 4 * s)));
    y = _mm_castpd_si128(_mm_loadh_pd(_mm_castsi128_pd(y), (const double *)(b + k + 4 * s)));
    return _mm256_mul_ps(_mm256_cvtph_ps(x), _mm256_cvtph_ps(y));
}

/* one fp16 step of four dot products from c (their lanes) */
XD_FN __m128 xd_f16_step(const uint16_t *a, const uint16_t *b, size_t k, int s, __m256d c)
{
    const __m256d M = _mm256_set1_pd(0x1.8p36);       /* (p + M) - M: p to a multiple of 2^-16 */
    __m256 q01 = xd_f16_pair(a, b, k, s), q23 = xd_f16_pair(a + 2 * k, b + 2 * k, k, s);
    __m256d p[4] = {_mm256_cvtps_pd(_mm256_castps256_ps128(q01)), _mm256_cvtps_pd(_mm256_extractf128_ps(q01, 1)),
                    _mm256_cvtps_pd(_mm256_castps256_ps128(q23)), _mm256_cvtps_pd(_mm256_extractf128_ps(q23, 1))};
    __m256d ph[4], pl[4];
    for (int d = 0; d < 4; d++) {
        ph[d] = _mm256_sub_pd(_mm256_add_pd(p[d], M), M);
        pl[d] = _mm256_sub_pd(p[d], ph[d]);
    }
    /* the sums of each dot's four, dot d in lane d */
    __m256d h01 = _mm256_hadd_pd(ph[0], ph[1]), h23 = _mm256_hadd_pd(ph[2], ph[3]);
    __m256d l01 = _mm256_hadd_pd(pl[0], pl[1]), l23 = _mm256_hadd_pd(pl[2], pl[3]);
    __m256d H = _mm256_add_pd(_mm256_permute2f128_pd(h01, h23, 0x21), _mm256_blend_pd(h01, h23, 0xc));
    __m256d L = _mm256_add_pd(_mm256_permute2f128_pd(l01, l23, 0x21), _mm256_blend_pd(l01, l23, 0xc));
    __m256d v, u = xd_two_sum(H, L, &v);
    return xd_result(xd_sum3(c, u, v), _mm256_add_pd(c, H));
}

/* four fp16 dot products from dot i on (steps of 4: k a multiple of 4) */
XD_FN void xd_f16_four(const mma_batch *x, size_t k, size_t i, __m128 nan)
{
    const uint16_t *a = (const uint16_t *)x->a + i * k, *b = (const uint16_t *)x->b + i * k;
    __m128 f = xd_load_c(x->c, x->c_size, i);
    for (int s = 0; s < (int)(k / 4); s++) f = xd_f16_step(a, b, k, s, _mm256_cvtps_pd(f));
    xd_store_d(x->d, x->d_size, i, xd_canon(f, nan));
}

/* the bf16 operands 2s, 2s+1 of four dot products at p (k elements
 * each), a 32-bit lane each (inserted one by one: stored to memory and
 * loaded as one vector, they wait for the store to reach the cache) */
XD_FN __m128i xd_bf16_four_ops(const uint16_t *p, size_t k, int s)
{
    const uint16_t *q = p + 2 * s;
    uint32_t w[4];
    for (int d = 0; d < 4; d++) memcpy(&w[d], q + d * k, 4);
    return _mm_insert_epi32(_mm_insert_epi32(_mm_insert_epi32(_mm_cvtsi32_si128((int)w[0]), (int)w[1], 1), (int)w[2], 2),
                            (int)w[3], 3);
}

/* the bf16 operands 2s, 2s+1 of four dot products at p, as doubles: dots
 * 0 and 1 in *lo, 2 and 3 in *hi */
XD_FN void xd_bf16_ops(const uint16_t *p, size_t k, int s, __m256d *lo, __m256d *hi)
{
    __m256i x = _mm256_slli_epi32(_mm256_cvtepu16_epi32(xd_bf16_four_ops(p, k, s)), 16);
    __m256 f = _mm256_castsi256_ps(x);
    *lo = _mm256_cvtps_pd(_mm256_castps256_ps128(f));
    *hi = _mm256_cvtps_pd(_mm256_extractf128_ps(f, 1));
}

/* four bf16 dot products from dot i on (steps of 2), their lanes in the
 * order 0, 2, 1, 3 (unpacking the products' pairs) */
XD_FN void xd_bf16_four(const mma_batch *x, size_t k, size_t i, __m128 nan)
{
    const uint16_t *a = (const uint16_t *)x->a + i * k, *b = (const uint16_t *)x->b + i * k;
    __m128 f = xd_load_c(x->c, x->c_size, i);
    f = _mm_shuffle_ps(f, f, 0xd8);
    for (int s = 0; s < (int)(k / 2); s++) {
        __m256d alo, ahi, blo, bhi;
        xd_bf16_ops(a, k, s, &alo, &ahi);
        xd_bf16_ops(b, k, s, &blo, &bhi);
        __m256d plo = _mm256_mul_pd(alo, blo), phi = _mm256_mul_pd(ahi, bhi);
        __m256d p0 = _mm256_unpacklo_pd(plo, phi), p1 = _mm256_unpackhi_pd(plo, phi);
        __m256d c = _mm256_cvtps_pd(f), v, u = xd_two_sum(p0, p1, &v);
        f = xd_result(xd_sum3(c, u, v), _mm256_add_pd(c, u));
    }
    f = xd_canon(f, nan);
    xd_store_d(x->d, x->d_size, i, _mm_shuffle_ps(f, f, 0xd8));
}

/* The batch loops: four dot products at a time (above), the last few and
 * batches under another SSE state one at a time */
static XD_TARGET void exact_xd_f16_b(const fast_hdr *h, const mma_batch *x, size_t lo, size_t hi)
{
    const size_t k = (size_t)PLAN(h)->k;
    const __m128 nan = _mm_castsi128_ps(_mm_set1_epi32((int)(uint32_t)PLAN(h)->nan));
    size_t i = lo;
    if (__builtin_expect(fast_host_fp_default(), 1))
        for (; hi - i >= 4; i += 4) xd_f16_four(x, k, i, nan);
    exact_vfix_f16_b(h, x, i, hi);
}

static XD_TARGET void exact_xd_bf16_b(const fast_hdr *h, const mma_batch *x, size_t lo, size_t hi)
{
    const size_t k = (size_t)PLAN(h)->k;
    const __m128 nan = _mm_castsi128_ps(_mm_set1_epi32((int)(uint32_t)PLAN(h)->nan));
    const uint16_t *a = x->a, *b = x->b;
    size_t i = lo;
    if (__builtin_expect(fast_host_fp_default(), 1))
        for (; hi - i >= 4; i += 4) xd_bf16_four(x, k, i, nan);
    for (; i < hi; i++) {
        uint64_t wa[MMA_MAX_K], wb[MMA_MAX_K];
        fast_st(x->d, x->d_size, i,
                exact_vdbl_bf16(h, fast_ld(x->c, x->c_size, i), fast_widen(a + i * k, 2, (int)k, wa),
                                fast_widen(b + i * k, 2, (int)k, wb), NULL, NULL));
    }
}
/* The same with eight dot products a vector (AVX-512): dots 0..7 in the
 * lanes in the order 0, 2, 1, 3, 4, 6, 5, 7 (the products' transposition
 * leaves them so; c and d are permuted alike, a permutation its own
 * inverse) */
#define X5_FN static inline __attribute__((always_inline, target(FAST_ISA_AVX512_F16C)))
#define X5_TARGET __attribute__((target(FAST_ISA_AVX512_F16C)))

TWO_SUM_FN(X5_FN, __m512d, x5_two_sum)
#undef TWO_SUM_FN
X5_FN __m512d x5_add_odd(__m512d a, __m512d b)
{
    __m512d e, s = x5_two_sum(a, b, &e);
    const __m512i one = _mm512_set1_epi64(1);
    __m512i si = _mm512_castpd_si512(s);
    __mmask8 fix = _mm512_cmp_pd_mask(e, _mm512_setzero_pd(), _CMP_NEQ_OQ) & _mm512_testn_epi64_mask(si, one);
    __mmask8 down = _mm512_movepi64_mask(_mm512_xor_si512(si, _mm512_castpd_si512(e)));
    __m512i dir = _mm512_mask_blend_epi64(down, one, _mm512_set1_epi64(-1));
    return _mm512_castsi512_pd(_mm512_mask_add_epi64(si, fix, si, dir));
}
X5_FN __m256 x5_result(__m512d c, __m512d u, __m512d v, __m512d sp)
{
    __m512d e, s = x5_two_sum(c, u, &e);
    __m512d z = _mm512_add_pd(x5_add_odd(s, x5_add_odd(e, v)), _mm512_setzero_pd());
    __m512d mag = _mm512_castsi512_pd(_mm512_and_si512(_mm512_castpd_si512(sp), _mm512_set1_epi64(INT64_MAX)));
    __mmask8 spec = _mm512_cmp_pd_mask(mag, _mm512_set1_pd(__builtin_inf()), _CMP_NLT_UQ);
    return _mm512_cvtpd_ps(_mm512_mask_blend_pd(spec, z, sp));
}
/* eight c at p + i into the lanes (lane j: dot perm[j]); eight d from
 * them (inv: perm's inverse) */
X5_FN __m256 x5_load_c(const void *p, int size, size_t i, __m256i perm)
{
    __m256 f = size == 4 ? _mm256_loadu_ps((const float *)p + i)
                         : _mm256_castsi256_ps(_mm512_cvtepi64_epi32(_mm512_loadu_si512((const uint64_t *)p + i)));
    return _mm256_permutevar8x32_ps(f, perm);
}
X5_FN void x5_store_d(void *p, int size, size_t i, __m256 f, __m256 nan, __m256i inv)
{
    f = _mm256_mask_blend_ps(_mm256_cmp_ps_mask(f, f, _CMP_UNORD_Q), f, nan);
    f = _mm256_permutevar8x32_ps(f, inv);
    if (size == 4) _mm256_storeu_ps((float *)p + i, f);
    else _mm512_storeu_si512((uint64_t *)p + i, _mm512_cvtepu32_epi64(_mm256_castps_si256(f)));
}
/* the sums of the products' parts q[0..3] (dots 0-1, 2-3, 4-5, 6-7, four
 * each), in the lanes' order */
X5_FN __m512d x5_sum4(const __m512d *q)
{
    __m512d s01 = _mm512_add_pd(_mm512_unpacklo_pd(q[0], q[1]), _mm512_unpackhi_pd(q[0], q[1]));
    __m512d s23 = _mm512_add_pd(_mm512_unpacklo_pd(q[2], q[3]), _mm512_unpackhi_pd(q[2], q[3]));
    return _mm512_add_pd(_mm512_shuffle_f64x2(s01, s23, 0x88), _mm512_shuffle_f64x2(s01, s23, 0xdd));
}
/* step s of the eight fp16 dot products at a, b (k elements each) */
X5_FN __m256 x5_f16_step(const uint16_t *a, const uint16_t *b, size_t k, int s, __m512d c)
{
    const __m512d M = _mm512_set1_pd(0x1.8p36);
    __m512 pr[2];
    for (int g = 0; g < 2; g++) {
        const uint16_t *ag = a + 4 * g * k, *bg = b + 4 * g * k;
        __m256i x = _mm256_set_m128i(
            _mm_castpd_si128(_mm_loadh_pd(_mm_castsi128_pd(_mm_loadl_epi64((const __m128i *)(ag + 2 * k + 4 * s))),
                                          (const double *)(ag + 3 * k + 4 * s))),
            _mm_castpd_si128(_mm_loadh_pd(_mm_castsi128_pd(_mm_loadl_epi64((const __m128i *)(ag + 4 * s))),
                                          (const double *)(ag + k + 4 * s))));
        __m256i y = _mm256_set_m128i(
            _mm_castpd_si128(_mm_loadh_pd(_mm_castsi128_pd(_mm_loadl_epi64((const __m128i *)(bg + 2 * k + 4 * s))),
                                          (const double *)(bg + 3 * k + 4 * s))),
            _mm_castpd_si128(_mm_loadh_pd(_mm_castsi128_pd(_mm_loadl_epi64((const __m128i *)(bg + 4 * s))),
                                          (const double *)(bg + k + 4 * s))));
        pr[g] = _mm512_mul_ps(_mm512_cvtph_ps(x), _mm512_cvtph_ps(y));
    }
    __m512d ph[4], pl[4];
    for (int j = 0; j < 4; j++) {
        __m256 h = j & 1 ? _mm512_extractf32x8_ps(pr[j >> 1], 1) : _mm512_castps512_ps256(pr[j >> 1]);
        __m512d p = _mm512_cvtps_pd(h);
        ph[j] = _mm512_sub_pd(_mm512_add_pd(p, M), M);
        pl[j] = _mm512_sub_pd(p, ph[j]);
    }
    __m512d H = x5_sum4(ph), L = x5_sum4(pl), v, u = x5_two_sum(H, L, &v);
    return x5_result(c, u, v, _mm512_add_pd(c, H));
}
static X5_TARGET void exact_x5_f16_b(const fast_hdr *h, const mma_batch *x, size_t lo, size_t hi)
{
    const size_t k = (size_t)PLAN(h)->k;
    const __m256 nan = _mm256_castsi256_ps(_mm256_set1_epi32((int)(uint32_t)PLAN(h)->nan));
    const __m256i perm = _mm256_setr_epi32(0, 2, 1, 3, 4, 6, 5, 7);
    size_t i = lo;
    if (__builtin_expect(fast_host_fp_default(), 1))
        for (; hi - i >= 8; i += 8) {
            const uint16_t *a = (const uint16_t *)x->a + i * k, *b = (const uint16_t *)x->b + i * k;
            __m256 f = x5_load_c(x->c, x->c_size, i, perm);
            for (int s = 0; s < (int)(k / 4); s++) f = x5_f16_step(a, b, k, s, _mm512_cvtps_pd(f));
            x5_store_d(x->d, x->d_size, i, f, nan, perm);
        }
    exact_xd_f16_b(h, x, i, hi);
}

/* bf16 operands 2s, 2s+1 of eight dot products at p as doubles: dots 0-3
 * in *lo, 4-7 in *hi */
X5_FN void x5_bf16_ops(const uint16_t *p, size_t k, int s, __m512d *lo, __m512d *hi)
{
    __m256i x = _mm256_set_m128i(xd_bf16_four_ops(p + 4 * k, k, s), xd_bf16_four_ops(p, k, s));
    __m512 f = _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(x), 16));
    *lo = _mm512_cvtps_pd(_mm512_castps512_ps256(f));
    *hi = _mm512_cvtps_pd(_mm512_extractf32x8_ps(f, 1));
}

/* eight bf16 dot products a vector; the products' unpacking leaves dots
 * in the lanes' order 0, 4, 1, 5, 2, 6, 3, 7 */
static X5_TARGET void exact_x5_bf16_b(const fast_hdr *h, const mma_batch *x, size_t lo, size_t hi)
{
    const size_t k = (size_t)PLAN(h)->k;
    const __m256 nan = _mm256_castsi256_ps(_mm256_set1_epi32((int)(uint32_t)PLAN(h)->nan));
    const __m256i perm = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7), inv = _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7);
    size_t i = lo;
    if (__builtin_expect(fast_host_fp_default(), 1))
        for (; hi - i >= 8; i += 8) {
            const uint16_t *a = (const uint16_t *)x->a + i * k, *b = (const uint16_t *)x->b + i * k;
            __m256 f = x5_load_c(x->c, x->c_size, i, perm);
            for (int s = 0; s < (int)(k / 2); s++) {
                __m512d alo, ahi, blo, bhi;
                x5_bf16_ops(a, k, s, &alo, &ahi);
                x5_bf16_ops(b, k, s, &blo, &bhi);
                __m512d plo = _mm512_mul_pd(alo, blo), phi = _mm512_mul_pd(ahi, bhi);
                __m512d c = _mm512_cvtps_pd(f), v, u = x5_two_sum(_mm512_unpacklo_pd(plo, phi),
                                                                  _mm512_unpackhi_pd(plo, phi), &v);
                f = x5_result(c, u, v, _mm512_add_pd(c, u));
            }
            x5_store_d(x->d, x->d_size, i, f, nan, inv);
        }
    exact_xd_bf16_b(h, x, i, hi);
}

static uint64_t exact_dbl_f16(const fast_hdr *h, uint64_t c, const uint64_t *a, const uint64_t *b,
                              const uint64_t *sa, const uint64_t *sb)
{
    return exact_dbl(h, c, a, b, sa, sb, 4, 22);
}

static uint64_t exact_dbl_bf16(const fast_hdr *h, uint64_t c, const uint64_t *a, const uint64_t *b,
                               const uint64_t *sa, const uint64_t *sb)
{
    return exact_dbl(h, c, a, b, sa, sb, 2, 16);
}
#endif

static fast_hdr *exact_build(const mma_unit *u, int mode)
{
    exact_plan *P = calloc(1, sizeof *P);
    if (!P) return NULL;
    P->k = u->k;
    P->l = u->lmax;
    P->fbp = mma_format(u->a)->mbits + mma_format(u->b)->mbits;
    P->canon = (u->flags & MMA_F_NAN_CANON) != 0;
    P->nan = mma_canonical_nan(u->d);
    P->r = mma_unit_rspec(u);
    P->inf[0] = mma_out_inf(&P->r, 0);
    P->inf[1] = mma_out_inf(&P->r, 1);
    P->ta = fast_tab[u->a];
    P->tb = fast_tab[u->b];
    P->amask = mma_format(u->a)->width <= 8 ? 0xff : 0xffff;   /* (the 8-bit tables repeat narrower formats) */
    P->bmask = mma_format(u->b)->width <= 8 ? 0xff : 0xffff;
    fast_cfmt_init(&P->c0, u->c, 0);
    fast_cfmt_init(&P->cd, u->d, 0);
    fast_out_init(&P->o, u);
    P->h.kernel = FAST_K_SCALAR;
    P->h.fn = exact_dot;
    if (mode != FAST_MODE_SCALAR && u->d == MMA_FMT_FP32 && u->p == 23 && u->rho == MMA_RNE) {
        P->h.fn = exact_dot_f32rne;
        P->h.kernel = FAST_K_SPECIAL;
        /* CDNA1's fp16 (steps of 4) and bf16 (steps of 2): the double
         * kernel, where overflow gives Inf as a conversion does */
        int f16 = u->a == MMA_FMT_FP16 && u->b == MMA_FMT_FP16 && P->l == 4,
            bf16 = u->a == MMA_FMT_BF16 && u->b == MMA_FMT_BF16 && P->l == 2;
#ifdef FAST_HAVE_AVX2
        if ((f16 || bf16) && P->canon && P->r.zero != MMA_ZS_IEEE && u->c == MMA_FMT_FP32 &&
            P->inf[0] == 0x7f800000u && P->inf[1] == 0xff800000u &&
            (f16 || (P->dt = bf16_table()))) {
            P->h.fn = f16 ? exact_dbl_f16 : exact_dbl_bf16;       /* (the generic mode's: tested too) */
            if (mode == FAST_MODE_BEST && fast_avx2_usable()) {
                P->h.fn = f16 ? exact_vfix_f16 : exact_vdbl_bf16;
                /* (a dot product a lane of doubles: F16C; else fp16's fixed window) */
                if (fast_f16c_usable())
                    P->h.bfn = fast_avx512_usable() ? (f16 ? exact_x5_f16_b : exact_x5_bf16_b)
                                                    : (f16 ? exact_xd_f16_b : exact_xd_bf16_b);
                else if (f16)
                    P->h.bfn = exact_vfix_f16_b;
            }
        }
#else
        (void)f16;
        (void)bf16;
#endif
    }
    return &P->h;
}

const fast_family fast_exact_family = {exact_ok, exact_build};
