/* The fused-sum algorithms (FDA, CoFDA) again, specialized for speed: the
 * same arithmetic as alg_fused.c.  A step with an Inf or NaN term is
 * decided by special_step from the operand tables' classes, by the rules
 * of specials.c; tests/test_fastpath.c compares every kernel with the
 * reference on every suite.
 *
 * What depends only on the unit (formats, F, shifts, rounding constants,
 * the kernel) is worked out once into a plan, cached by the content of the
 * unit, so hand-made units (impl 0) are served the same way.  Kernels:
 *   - scalar: operands of 16 bits or fewer decoded through per-format
 *     tables (one table gives the packed product of two 8-bit formats);
 *   - AVX2 generic (AVX2, BMI2 and LZCNT checked at run time): eight
 *     products per vector, operands decoded arithmetically, each term
 *     aligned by one variable shift; any l, 32- or 64-bit lanes, RZ or RD;
 *   - AVX2 specialized: the same for l = 8, 16 or 32, RZ, operands of one
 *     width, and the common outputs (fp32 RZ with p = 23 or 13 and fp16
 *     RNE with p = 10) known at compile time; a chained step hands its
 *     result to the next one already decoded.
 * All end in the same scalar code: c joins, then the rounding (fast_round:
 * the steps of mma_round_to, with the unit's constants; for fp32 with RZ
 * and p = 23 in the specialized kernels, round_f32rz, through the exact
 * double of the sum).
 *
 * Alignment without branches.  A product term is sig * 2^(e - fbp); in
 * units of 2^(emax - F) it is M >> sh with M = sig << pre and
 * sh = emax - e + base (pre = max(F - fbp, 0), base = fbp - F + pre >= 0).
 * With s = 0 for a positive term and s = -1 (all ones) for a negative one:
 *   RZ (cut toward zero):  ((M >> sh) ^ s) - s
 *   RD (cut toward -inf):  ((M + s) >> sh) ^ s      (= ~((M - 1) >> sh))
 * where a shift by the lane width or more gives 0.  Zero products have
 * M = 0 and contribute nothing. */
#include "internal.h"

#include <limits.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define FAST_HAVE_AVX2 1
#include <immintrin.h>
#endif

/* ---- operand tables (scalar kernel, accumulator) ----------------------- */

/* table entry: sig in bits 0..31, e (int16) in bits 32..47, flags above:
 * sign, zero, Inf or NaN, NaN (zero, Inf and NaN as mma_decode classes
 * them; Inf and NaN have sig 0 as a zero has) */
#define T_NEG  ((uint64_t)1 << 48)
#define T_ZERO ((uint64_t)1 << 49)
#define T_SPEC ((uint64_t)1 << 50)
#define T_NAN  ((uint64_t)1 << 51)

static uint64_t *tables[MMA_FMT_COUNT];
/* The same operands biased for the product loop: significand in bits
 * 0..31, exponent + 1024 in bits 32..43, Inf/NaN in bit 48, sign in bit 63,
 * so that adding two entries adds the exponents (with the product's bias
 * 2048), and xors the signs; the significands are multiplied apart. */
static uint64_t *btables[MMA_FMT_COUNT];
static uint64_t bstore16[2][65536];
#define B_SPEC ((uint64_t)1 << 48)
static uint64_t store8[9][256];
static uint64_t store16[2][65536];

static inline int32_t ent_e(uint64_t x) { return (int16_t)(uint16_t)(x >> 32); }

static uint64_t entry(mma_fmt f, uint64_t bits)
{
    mma_term t = mma_term_of(f, bits);
    uint64_t x = (uint64_t)(uint32_t)t.sig | ((uint64_t)(uint16_t)(int16_t)t.e << 32);
    if (t.neg) x |= T_NEG;
    if (t.cls == MMA_INF || t.cls == MMA_NAN) x |= T_SPEC;
    if (t.cls == MMA_NAN) x |= T_NAN;
    if (t.cls == MMA_ZERO) x = (x & ~(uint64_t)0xffffffffu) | T_ZERO;
    return x;
}

__attribute__((constructor)) static void build_tables(void)
{
    static const mma_fmt f8[9] = {MMA_FMT_E4M3, MMA_FMT_E5M2, MMA_FMT_E4M3FNUZ, MMA_FMT_E5M2FNUZ,
                                  MMA_FMT_E3M2, MMA_FMT_E2M3, MMA_FMT_E2M1, MMA_FMT_UE8M0, MMA_FMT_UE4M3};
    for (int i = 0; i < 9; i++) {
        int n = 1 << mma_format(f8[i])->width;
        for (int b = 0; b < 256; b++) store8[i][b] = entry(f8[i], (uint64_t)(b & (n - 1)));
        tables[f8[i]] = store8[i];
    }
    for (int b = 0; b < 65536; b++) {
        store16[0][b] = entry(MMA_FMT_FP16, (uint64_t)b);
        store16[1][b] = entry(MMA_FMT_BF16, (uint64_t)b);
    }
    tables[MMA_FMT_FP16] = store16[0];
    tables[MMA_FMT_BF16] = store16[1];
    for (int t = 0; t < 2; t++)
        for (int b = 0; b < 65536; b++) {
            uint64_t x = store16[t][b];
            bstore16[t][b] = (uint64_t)(uint32_t)x | (uint64_t)(uint32_t)(ent_e(x) + 1024) << 32 |
                             ((x & T_SPEC) ? B_SPEC : 0) | ((x & T_NEG) ? (uint64_t)1 << 63 : 0);
        }
    btables[MMA_FMT_FP16] = bstore16[0];
    btables[MMA_FMT_BF16] = bstore16[1];
}

/* A product, packed: bits 0..31 significand, 32..43 exponent + 2048 (0 for a
 * zero product, so that it never sets emax), 49 Inf or NaN involved, 50
 * zero, 51 NaN, 63 sign (so that an arithmetic shift makes the negation
 * mask). */
#define P_EOFF 2048
#define P_EMASK ((uint64_t)0xfff << 32)
#define P_NEG  ((uint64_t)1 << 63)
#define P_SPEC ((uint64_t)1 << 49)
#define P_ZERO ((uint64_t)1 << 50)
#define P_NAN  ((uint64_t)1 << 51)

/* The class of the product of two table entries, as mma_term_mul (term.c)
 * makes it: NaN when either is NaN or an Inf meets a zero (a subnormal is
 * no zero); otherwise Inf when either is Inf; the sign is both signs'
 * xor whatever the class.  Only P_SPEC, P_NAN and P_NEG are set. */
_Static_assert(T_SPEC >> 1 == T_ZERO, "one entry's Inf/NaN flag shifts onto the other's zero flag");
static inline uint64_t product_class(uint64_t x, uint64_t y)
{
    uint64_t inf_zero = (((x >> 1) & y) | ((y >> 1) & x)) & T_ZERO;   /* (a NaN there is NaN anyway) */
    return ((((x | y) & T_NAN) | inf_zero) ? P_NAN : 0) | (((x | y) & T_SPEC) ? P_SPEC : 0) |
           (((x ^ y) & T_NEG) ? P_NEG : 0);
}

static inline uint64_t pack_product(uint64_t x, uint64_t y)
{
    uint32_t s = (uint32_t)x * (uint32_t)y;
    int32_t e = ent_e(x) + ent_e(y);
    uint64_t p = product_class(x, y);
    return s ? p | s | (uint64_t)(uint32_t)(e + P_EOFF) << 32 : p | P_ZERO;
}

/* For two formats of at most 8 bits one table gives the packed product.
 * Built on first use and published atomically (threads may race to build;
 * the loser frees its copy). */
static uint64_t *pair_tab[MMA_FMT_COUNT][MMA_FMT_COUNT];

static const uint64_t *pair_table(mma_fmt fa, mma_fmt fb)
{
    uint64_t *t = __atomic_load_n(&pair_tab[fa][fb], __ATOMIC_ACQUIRE);
    if (t) return t;
    t = malloc(sizeof(uint64_t) * 65536);
    if (!t) return NULL;
    for (int x = 0; x < 256; x++)
        for (int y = 0; y < 256; y++) t[x << 8 | y] = pack_product(tables[fa][x], tables[fb][y]);
    uint64_t *expected = NULL;
    if (!__atomic_compare_exchange_n(&pair_tab[fa][fb], &expected, t, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
        free(t);
        return expected;
    }
    return t;
}

static int pre_shift(const mma_unit *u)
{
    int fbp = mma_format(u->a)->mbits + mma_format(u->b)->mbits;
    return u->f > fbp ? u->f - fbp : 0;
}

/* The result rules the kernels implement (fast_round, special_step): RZ,
 * RNE, RD or RU; overflow to Inf under RZ and RNE, IEEE's under RD and RU;
 * zero=pos or fixed; the canonical or the default NaN. */
static int semantics_ok(const mma_unit *u)
{
    mma_ovr o = mma_unit_ovf(u);
    int ovf_ok = u->rho == MMA_RNE ? o != MMA_OVR_SAT : o == (u->rho == MMA_RZ ? MMA_OVR_INF : MMA_OVR_IEEE);
    return u->rho <= MMA_RU && ovf_ok && !(u->flags & (MMA_F_ZERO_IEEE | MMA_F_NAN_PROP));
}

int mma_fast_fused_ok(const mma_unit *u)
{
    /* products hold at most 22 bits; the left pre-shift must keep them
     * inside 63 bits.  Product overflow (AMD) and flushed inputs stay with
     * the reference path. */
    return u->tree == MMA_TREE_FUSED && semantics_ok(u) &&
           (u->c == MMA_FMT_FP32 || u->c == MMA_FMT_FP16 || u->c == MMA_FMT_BF16) && u->cadd == MMA_CADD_FUSED && u->scale == MMA_FMT_NONE &&
           !u->interleave && !(u->flags & (MMA_F_PROD_OVF | MMA_F_FTZ_IN)) &&
           (int)u->a > 0 && u->a < MMA_FMT_COUNT && (int)u->b > 0 && u->b < MMA_FMT_COUNT &&
           (int)u->c > 0 && u->c < MMA_FMT_COUNT && tables[u->a] && tables[u->b] &&
           u->lmax >= 1 && u->lmax <= 64 && u->k >= u->lmax && pre_shift(u) <= 40 &&
           (u->c == MMA_FMT_FP32 || tables[u->c]) &&
           (u->d == MMA_FMT_FP32 || u->d == MMA_FMT_FP16 || u->d == MMA_FMT_BF16) &&
           u->p >= 1 && u->p <= mma_format(u->d)->mbits;
}

/* ---- the plan of a unit ------------------------------------------------ */

#define FAST_EMPTY (-(1 << 24))       /* exponent of nothing: no term sets emax */
#define V_LOW FAST_EMPTY
#define KEY_OFF offsetof(mma_unit, a)
#define KEY_BYTES (sizeof(mma_unit) - KEY_OFF)

typedef struct { const uint64_t *tab; uint64_t mask; int fb, pre, base; } fast_cfmt;   /* c */
typedef struct { int width, mb, p, rho, emin, emaxe, zsigned; uint64_t inf, maxf, nan, sign; } fast_out;
typedef struct { uint32_t mmask, emask, hidden, smask, sval; int mb, sshift, bias; } fast_op;
/* the same, broadcast for the vector kernel (memory operands) */
typedef struct { int32_t mm[8], em[8], hid[8], sm[8], sv[8]; int64_t mb[2], ssh[2]; } fast_vop;

typedef struct fast_plan fast_plan;
typedef uint64_t (*fast_fn)(const fast_plan *, const mma_unit *, uint64_t, const uint64_t *,
                            const uint64_t *);
struct fast_plan {
    uint64_t key[(KEY_BYTES + 7) / 8];   /* the unit's fields from a on  */
    int mode;                            /* fast_mode_forced when made    */
    fast_fn fn;
    int L, steps, f, fbp, pre, base, rd, zeros_part;
    int32_t ezero;
    fast_cfmt c1, cd;                    /* c of the first step, of later */
    fast_out o;
    /* scalar kernel */
    const uint64_t *ta, *tb, *pt, *bta, *btb;
    uint64_t amask, bmask;               /* a table's index: the width    */
    /* vector kernel */
    fast_op va, vb;
    fast_vop ka, kb;
    int32_t one[8], ezv[8], low[8];
    int64_t prec[2];
    int groups, tail, narrow;
    int32_t bab, ez_rel;                 /* bias_a + bias_b; ezero + bab  */
};

/* the accumulator operand of a step, decoded: fp32 inline, the other
 * formats through the tables */
typedef struct { uint64_t sig; int32_t e; int neg, spec; } fast_c;

#define CK_F32 1                  /* c kinds known at compile time */
#define CK_F16 2
static inline __attribute__((always_inline)) fast_c c_decode_k(const fast_cfmt *cf, uint64_t bits, const int ck)
{
    fast_c r;
    if (ck == CK_F16) {
        uint32_t w = (uint32_t)bits & 0xffff, ef = (w >> 10) & 0x1f;
        r.spec = ef == 0x1f;
        r.sig = (w & 0x3ff) | (ef ? 0x400u : 0);
        r.e = (int32_t)(ef ? ef : 1) - 15;
        r.neg = (int)(w >> 15);
    } else if (ck == CK_F32 || !cf->tab) {
        uint32_t w = (uint32_t)bits, ef = (w >> 23) & 0xff;
        r.spec = ef == 0xff;
        r.sig = (w & 0x7fffff) | (ef ? 0x800000u : 0);
        r.e = (int32_t)(ef ? ef : 1) - 127;
        r.neg = (int)(w >> 31);
    } else {
        uint64_t x = cf->tab[bits & cf->mask];
        r.sig = (uint32_t)x;
        r.e = ent_e(x);
        r.neg = (x & T_NEG) != 0;
        r.spec = (x & T_SPEC) != 0;
    }
    return r;
}
#define c_decode(cf, bits) c_decode_k(cf, bits, 0)

/* ---- steps that meet Inf or NaN --------------------------------------- */

/* c's class in a packed product's bits (P_SPEC, P_NAN, P_NEG), from the
 * step's c format: fp32 inline, the others through their table */
static inline uint64_t c_class(const fast_cfmt *cf, uint64_t bits)
{
    if (!cf->tab) {
        uint32_t w = (uint32_t)bits;
        if ((w & 0x7f800000u) != 0x7f800000u) return 0;
        return P_SPEC | ((w & 0x7fffffu) ? P_NAN : 0) | ((w >> 31) ? P_NEG : 0);
    }
    uint64_t x = cf->tab[bits & cf->mask];
    return ((x & T_SPEC) ? P_SPEC : 0) | ((x & T_NAN) ? P_NAN : 0) | ((x & T_NEG) ? P_NEG : 0);
}

/* The reference for one step: only for a step that the kernels flag but
 * that holds no Inf or NaN term, which the tables (made by the reference's
 * own decoding) rule out; kept rather than trusting that. */
static __attribute__((noinline)) uint64_t reference_step(const fast_plan *P, const mma_unit *u, int first,
                                                        uint64_t acc, const uint64_t *a, const uint64_t *b)
{
    mma_unit one = *u;
    one.k = P->L;
    one.c = first ? u->c : u->d;
    one.impl = 1;
    return mma_alg_fused(&one, acc, a, b, NULL, NULL);
}

/* A step that meets a special value, decided as the reference decides it
 * (alg_fused.c, then mma_terms_special in specials.c) over the step's L
 * products and its c (u->c in the first step, the last step's result in
 * d's format after): NaN if any term is NaN (a 0*Inf product is one), or
 * if Inf of both signs is among them; otherwise the Inf of the one sign.
 * The NaN is the canonical one with nan=canon, else the IEEE default quiet
 * NaN (+, quiet bit only: alg_fused.c passes no payload on).  Products
 * never overflow here: units with povf, scales or flushed inputs do not
 * take the fast path (mma_fast_fused_ok).  No finite term matters: the
 * sum is not formed. */
static __attribute__((noinline)) uint64_t special_step(const fast_plan *P, const mma_unit *u, int first,
                                                      uint64_t acc, const uint64_t *a, const uint64_t *b,
                                                      int prod_special)
{
    unsigned inf = 0;                    /* 1: +Inf met, 2: -Inf met */
    /* (most products are finite and skipped at one test; a NaN decides
     * at once, whatever the other terms are) */
    if (prod_special) {
        const uint64_t *pt = P->pt, *ta = P->ta, *tb = P->tb;
        const int L = P->L;
        if (pt) {
            for (int j = 0; j < L; j++) {
                uint64_t x = pt[(a[j] & 0xff) << 8 | (b[j] & 0xff)];
                if (__builtin_expect(!(x & P_SPEC), 1)) continue;
                if (x & P_NAN) return P->o.nan;
                inf |= (x & P_NEG) ? 2 : 1;
            }
        } else {
            for (int j = 0; j < L; j++) {
                uint64_t x = ta[a[j] & P->amask], y = tb[b[j] & P->bmask];
                if (__builtin_expect(!((x | y) & T_SPEC), 1)) continue;
                uint64_t p = product_class(x, y);
                if (p & P_NAN) return P->o.nan;
                inf |= (p & P_NEG) ? 2 : 1;
            }
        }
    }
    uint64_t x = c_class(first ? &P->c1 : &P->cd, acc);
    if (x & P_NAN) return P->o.nan;
    if (x & P_SPEC) inf |= (x & P_NEG) ? 2 : 1;
    if (inf == 3) return P->o.nan;
    if (inf) return P->o.inf | (inf == 2 ? P->o.sign : 0);
    return reference_step(P, u, first, acc, a, b);
}

/* emax of the step: ep is the largest product exponent (below FAST_EMPTY / 2
 * if none; zero products already counted with ezero) */
static inline __attribute__((always_inline)) int32_t emax_with_c(const fast_plan *P, int32_t ep, const fast_c *c)
{
    int32_t e = c->sig ? c->e : P->zeros_part ? P->ezero : FAST_EMPTY;
    return e > ep ? e : ep;
}

/* mma_round_to (round.c) with the constants of d
 * taken from the plan: the same steps, the same results.  fast_round takes
 * the common case (a normal result) and leaves the rest to round_general. */
static __attribute__((noinline)) uint64_t round_general(const fast_out *o, int neg, uint64_t mag, int32_t lsb)
{
    uint64_t sign = (uint64_t)neg << (o->width - 1);
    if (mag == 0) return o->zsigned ? sign : 0;
    int32_t x = 63 - __builtin_clzll(mag) + lsb;          /* leading-bit exponent */
    int32_t keep = (x < o->emin ? o->emin : x) - o->p;
    int32_t sh = keep - lsb;
    uint64_t q;
    if (sh <= 0) {
        q = mag << -sh;
    } else {
        uint64_t rem, half;
        if (sh >= 64) { q = 0; rem = mag; half = sh == 64 ? (uint64_t)1 << 63 : 0; }
        else { q = mag >> sh; rem = mag & (((uint64_t)1 << sh) - 1); half = (uint64_t)1 << (sh - 1); }
        if (rem && o->rho != MMA_RZ) {
            int up;
            if (o->rho == MMA_RNE) up = sh > 64 ? 0 : rem > half || (rem == half && (q & 1));
            else if (o->rho == MMA_RD) up = neg;
            else up = !neg;
            q += (uint64_t)up;
        }
        if (q == 0) return o->zsigned ? sign : 0;
    }
    int32_t xq = 63 - __builtin_clzll(q) + keep;           /* q may have carried out */
    if (xq > o->emaxe) {
        int to_inf = o->rho == MMA_RZ || o->rho == MMA_RNE || (o->rho == MMA_RD && neg) ||
                     (o->rho == MMA_RU && !neg);
        return sign | (to_inf ? o->inf : o->maxf);
    }
    uint64_t bexp, frac;
    if (xq < o->emin) {
        bexp = 0;
        frac = q << (o->mb - o->p);
    } else {
        bexp = (uint64_t)(xq - o->emin + 1);
        int32_t shift = (xq - o->p) - keep;
        uint64_t qq = shift > 0 ? q >> shift : q;
        frac = (qq & (((uint64_t)1 << o->p) - 1)) << (o->mb - o->p);
    }
    return sign | (bexp << o->mb) | frac;
}

/* Output kinds known at compile time in the specialized kernels:
 * 0 from the plan; OUT_F32 fp32, RZ, p = 23; OUT_E8M13 fp32, RZ, p = 13;
 * OUT_F16 fp16, RNE, p = 10. */
#define OUT_F32 1
#define OUT_E8M13 2
#define OUT_F16 3
#define O_(o, out, f32, f16, fld) ((out) == OUT_F32 || (out) == OUT_E8M13 ? (f32) : (out) == OUT_F16 ? (f16) : (o)->fld)
#define O_P(o, out) ((out) == OUT_F32 ? 23 : (out) == OUT_E8M13 ? 13 : (out) == OUT_F16 ? 10 : (o)->p)

/* The rounding; when cn is given, it also receives the result decoded as
 * the next step's accumulator (cn->spec = 1: not done, decode the bits). */
static inline __attribute__((always_inline)) uint64_t fast_round(const fast_out *o, int neg, uint64_t mag,
                                                                int32_t lsb, const int out, fast_c *cn)
{
    const int width = O_(o, out, 32, 16, width), mb = O_(o, out, 23, 10, mb), p = O_P(o, out);
    const int32_t emin = O_(o, out, -126, -14, emin), emaxe = O_(o, out, 127, 15, emaxe);
    const int rho = O_(o, out, MMA_RZ, MMA_RNE, rho);
    if (cn) cn->spec = 1;
    if (__builtin_expect(mag == 0, 0)) return round_general(o, neg, mag, lsb);
    int top = 63 - __builtin_clzll(mag);
    int32_t x = top + lsb;                                /* leading-bit exponent */
    if (__builtin_expect((uint32_t)(x - emin) >= (uint32_t)(emaxe - emin), 0))
        return round_general(o, neg, mag, lsb);           /* not below emaxe: may overflow */
    int sh = top - p;                                     /* bits cut off */
    uint64_t q;
    if (__builtin_expect(sh > 0, 1)) {
        q = mag >> sh;
        if (rho != MMA_RZ) {
            uint64_t rem = mag & (((uint64_t)1 << sh) - 1), half = (uint64_t)1 << (sh - 1);
            int up;
            if (rho == MMA_RNE) up = rem > half || (rem == half && (q & 1));
            else if (rho == MMA_RD) up = neg && rem;
            else up = !neg && rem;
            q += (uint64_t)up;
        }
    } else {
        q = mag << -sh;
    }
    /* q: p+1 bits (hidden bit at p), or 2^(p+1) after a carry, which the
     * addition carries into the exponent field (x < emaxe: no overflow) */
    uint64_t m = q << (mb - p);
    if (cn) {
        cn->spec = 0;
        cn->neg = neg;
        if (rho != MMA_RZ) {                              /* a carry: 2^(mb+1) is 2^mb, x + 1 */
            int c = (int)(m >> (mb + 1));
            cn->sig = m >> c;
            cn->e = x + c;
        } else {
            cn->sig = m;
            cn->e = x;
        }
    }
    return ((uint64_t)neg << (width - 1)) | (m + ((uint64_t)(x - emin) << mb));
}

/* fp32 with RZ to p bits (23 or 13) of sum * 2^lsb, |sum| < 2^53, through
 * the double that holds sum exactly: its significand cut to 23 bits is
 * the RZ rounding, and its exponent, moved by lsb, the result's when that
 * is a normal fp32 (else round_general, as for zero).  Sign included. */
static inline __attribute__((always_inline)) uint64_t round_f32rz(const fast_out *o, int64_t sum, int32_t lsb,
                                                                 const int p, fast_c *cn)
{
    double dv = (double)sum;
    uint64_t db;
    memcpy(&db, &dv, sizeof db);
    /* bits 0..22: the significand's top 23 fraction bits; 23..33: the
     * exponent, rebiased here from 1023 to 127 and moved by lsb */
    uint64_t t = (db >> 29) + ((uint64_t)(int64_t)(lsb + 127 - 1023) << 23);
    uint32_t be = (uint32_t)(t >> 23) & 0x7ff;            /* the result's biased exponent */
    if (cn) cn->spec = 1;
    if (__builtin_expect(sum == 0 || be - 1 >= 254, 0)) {
        uint64_t sg = (uint64_t)(sum >> 63);
        return round_general(o, (int)(sg & 1), ((uint64_t)sum ^ sg) - sg, lsb);
    }
    uint32_t m = (uint32_t)t & 0x7fffffff & ~(((uint32_t)1 << (23 - p)) - 1);
    if (cn) {
        cn->spec = 0;
        cn->neg = (int)(db >> 63);
        cn->sig = (m & 0x7fffff) | 0x800000;
        cn->e = (int32_t)be - 127;
    }
    return (uint64_t)(m | (uint32_t)(db >> 63 << 31));
}

/* The end of a step: c joins the products' aligned sum, the total is
 * rounded into d (emax not empty). */
static inline __attribute__((always_inline)) uint64_t finish_k(const fast_plan *P, int32_t emax, int64_t sum,
                                                              const fast_c *c, const fast_cfmt *cf,
                                                              const int out, fast_c *cn)
{
    if (c->sig) {                         /* aligned as the products are */
        uint64_t m = c->sig << cf->pre;
        int64_t sh = (int64_t)emax - c->e + cf->base;
        sh = sh > 63 ? 63 : sh;
        if (out || !P->rd) {              /* (the specialized kernels cut with RZ) */
            uint64_t s = -(uint64_t)c->neg;
            sum += (int64_t)(((m >> sh) ^ s) - s);
        } else {
            int64_t v = c->neg ? -(int64_t)m : (int64_t)m;
            sum += v >> sh;
        }
    }
    if (out == OUT_F32) return round_f32rz(&P->o, sum, emax - P->f, 23, cn);
    /* |sum| and its sign without a branch (the sign is data, a coin toss) */
    uint64_t sg = (uint64_t)(sum >> 63);
    uint64_t mag = ((uint64_t)sum ^ sg) - sg;
    return fast_round(&P->o, (int)(sg & 1), mag, emax - P->f, out, cn);
}

static inline __attribute__((always_inline)) uint64_t finish(const fast_plan *P, int32_t emax, int64_t sum,
                                                            const fast_c *c, const fast_cfmt *cf, const int out)
{
    if (emax < FAST_EMPTY / 2) return 0;
    return finish_k(P, emax, sum, c, cf, out, NULL);
}

/* ---- the scalar kernel ------------------------------------------------- */

/* The alignment of the products (packed as above): small functions keep
 * the loop's state in registers; common pre-shifts get constant shifts. */
static inline int64_t align_body(const uint64_t *p, int L, int64_t eb, int pre, int rd)
{
    int64_t sum = 0;
    for (int j = 0; j < L; j++) {
        uint64_t x = p[j];
        int64_t sh = eb - (int64_t)((x >> 32) & 0xfff);
        sh = sh > 63 ? 63 : sh;                 /* 63: the term is gone */
        uint64_t m = (uint64_t)(uint32_t)x << pre;
        uint64_t s = (uint64_t)((int64_t)x >> 63);
        if (!rd) sum += (int64_t)(((m >> sh) ^ s) - s);
        else sum += (int64_t)(m ? ((m + s) >> sh) ^ s : 0);
    }
    return sum;
}
static __attribute__((noinline)) int64_t align_rz(const uint64_t *p, int L, int64_t eb, int pre)
{
    return align_body(p, L, eb, pre, 0);
}
static __attribute__((noinline)) int64_t align_rd(const uint64_t *p, int L, int64_t eb, int pre)
{
    return align_body(p, L, eb, pre, 1);
}
#define ALIGN_RZ(PRE) static __attribute__((noinline)) int64_t align_rz_##PRE(const uint64_t *p, int L, int64_t eb) \
    { return align_body(p, L, eb, PRE, 0); }
ALIGN_RZ(4) ALIGN_RZ(5) ALIGN_RZ(7) ALIGN_RZ(10) ALIGN_RZ(11)
#undef ALIGN_RZ

static uint64_t fast_scalar(const fast_plan *P, const mma_unit *u, uint64_t c, const uint64_t *a,
                            const uint64_t *b)
{
    const uint64_t *ta = P->ta, *tb = P->tb, *pt = P->pt, *bta = P->bta, *btb = P->btb;
    const int L = P->L, pre = P->pre;
    uint64_t acc = c;
    for (int s = 0; s < P->steps; s++, a += L, b += L) {
        uint64_t p[64];
        uint64_t any = 0, emf = 0;
        if (pt) {
            for (int j = 0; j < L; j++) {
                uint64_t x = pt[(a[j] & 0xff) << 8 | (b[j] & 0xff)];
                p[j] = x;
                any |= x;
                uint64_t ef = x & P_EMASK;
                emf = ef > emf ? ef : emf;
            }
        } else if (bta && btb) {
            for (int j = 0; j < L; j++) {
                uint64_t x = bta[a[j] & 0xffff], y = btb[b[j] & 0xffff];
                uint32_t sg = (uint32_t)x * (uint32_t)y;
                uint64_t hi = (x + y) & ~(uint64_t)0xffffffffu;    /* e sum, sign xor, specials */
                any |= (x | y) & B_SPEC;
                uint64_t v = (hi & ~(uint64_t)(B_SPEC | (B_SPEC << 1))) | sg;
                v = sg ? v : P_ZERO;
                p[j] = v;
                any |= v;
                uint64_t ef = v & P_EMASK;
                emf = ef > emf ? ef : emf;
            }
            if (any & B_SPEC) any |= P_SPEC;
        } else {
            for (int j = 0; j < L; j++) {
                uint64_t x = pack_product(ta[a[j] & P->amask], tb[b[j] & P->bmask]);
                p[j] = x;
                any |= x;
                uint64_t ef = x & P_EMASK;
                emf = ef > emf ? ef : emf;
            }
        }
        const fast_cfmt *cf = s ? &P->cd : &P->c1;
        fast_c xc = c_decode(cf, acc);
        if ((any & P_SPEC) || xc.spec) {
            acc = special_step(P, u, s == 0, acc, a, b, (any & P_SPEC) != 0);
            continue;
        }
        int32_t ep = emf ? (int32_t)(emf >> 32) - P_EOFF : FAST_EMPTY;
        if ((any & P_ZERO) && P->zeros_part && P->ezero > ep) ep = P->ezero;
        int32_t emax = emax_with_c(P, ep, &xc);
        int64_t sum = 0;
        if (emax >= FAST_EMPTY / 2) {
            const int64_t eb = (int64_t)emax + P_EOFF + P->base;
            if (P->rd) sum = align_rd(p, L, eb, pre);
            else switch (pre) {
                case 4: sum = align_rz_4(p, L, eb); break;
                case 5: sum = align_rz_5(p, L, eb); break;
                case 7: sum = align_rz_7(p, L, eb); break;
                case 10: sum = align_rz_10(p, L, eb); break;
                case 11: sum = align_rz_11(p, L, eb); break;
                default: sum = align_rz(p, L, eb, pre); break;
                }
        }
        acc = finish(P, emax, sum, &xc, cf, 0);
    }
    return acc;
}

/* ---- the AVX2 kernel --------------------------------------------------- */
#ifdef FAST_HAVE_AVX2
#include <cpuid.h>
/* LZCNT (ABM): CPUID leaf 0x80000001, ECX bit 5 */
static int cpu_has_lzcnt(void)
{
    unsigned ea, eb, ec, ed;
    if (!__get_cpuid(0x80000001, &ea, &eb, &ec, &ed)) return 0;
    return (ec >> 5) & 1;
}
#define V_FN static inline __attribute__((always_inline, target("avx2,bmi2,lzcnt")))

/* eight operands, low 32 bits of each; the lane order (0 1 4 5 2 3 6 7)
 * is the same for a and b, and a fused sum does not depend on order */
V_FN __m256i v_load8(const uint64_t *p)
{
    __m256 lo = _mm256_castsi256_ps(_mm256_loadu_si256((const __m256i *)p));
    __m256 hi = _mm256_castsi256_ps(_mm256_loadu_si256((const __m256i *)(p + 4)));
    return _mm256_castps_si256(_mm256_shuffle_ps(lo, hi, 0x88));
}

/* the first n (1..7) of eight, zeros after; *valid: all ones in the lanes
 * loaded */
static const int64_t v_ramp[16] = {-1, -1, -1, -1, -1, -1, -1, -1, 0, 0, 0, 0, 0, 0, 0, 0};
V_FN __m256i v_load_part(const uint64_t *p, int n, __m256i *valid)
{
    __m256i mlo = _mm256_loadu_si256((const __m256i *)(v_ramp + 8 - n));
    __m256i mhi = _mm256_loadu_si256((const __m256i *)(v_ramp + 12 - n));
    __m256 lo = _mm256_castsi256_ps(_mm256_maskload_epi64((const long long *)p, mlo));
    __m256 hi = _mm256_castsi256_ps(_mm256_maskload_epi64((const long long *)(p + 4), mhi));
    *valid = _mm256_castps_si256(_mm256_shuffle_ps(_mm256_castsi256_ps(mlo), _mm256_castsi256_ps(mhi), 0x88));
    return _mm256_castps_si256(_mm256_shuffle_ps(lo, hi, 0x88));
}

#define V_LD(p) _mm256_loadu_si256((const __m256i *)(p))
#define V_CNT(p) _mm_loadu_si128((const __m128i *)(p))

/* significand (hidden bit included) and max(biased exponent, 1); lanes
 * that hold Inf or NaN are or'ed into *spec */
V_FN void v_decode(__m256i x, const fast_vop *k, const int32_t *one, __m256i *sig, __m256i *ex, __m256i *spec)
{
    __m256i e = _mm256_and_si256(_mm256_srl_epi32(x, V_CNT(k->mb)), V_LD(k->em));
    __m256i z = _mm256_cmpeq_epi32(e, _mm256_setzero_si256());
    *sig = _mm256_or_si256(_mm256_and_si256(x, V_LD(k->mm)), _mm256_andnot_si256(z, V_LD(k->hid)));
    *ex = _mm256_max_epi32(e, V_LD(one));
    *spec = _mm256_or_si256(*spec, _mm256_cmpeq_epi32(_mm256_and_si256(x, V_LD(k->sm)), V_LD(k->sv)));
}

V_FN int32_t v_hmax(__m256i v)
{
    __m128i m = _mm_max_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    m = _mm_max_epi32(m, _mm_shuffle_epi32(m, 0x4e));
    m = _mm_max_epi32(m, _mm_shuffle_epi32(m, 0xb1));
    return _mm_cvtsi128_si32(m);
}

V_FN int64_t v_hsum64(__m256i w)
{
    __m128i s = _mm_add_epi64(_mm256_castsi256_si128(w), _mm256_extracti128_si256(w, 1));
    return _mm_cvtsi128_si64(s) + _mm_extract_epi64(s, 1);
}

V_FN int64_t v_hsum32(__m256i v)
{
    return v_hsum64(_mm256_add_epi64(_mm256_cvtepi32_epi64(_mm256_castsi256_si128(v)),
                                     _mm256_cvtepi32_epi64(_mm256_extracti128_si256(v, 1))));
}

/* One step: G groups of eight products, the last one holding `tail`
 * products when tail > 0.  G and tail are constants in the common
 * kernels, so that the loops unroll into straight code. */
V_FN uint64_t v_step(const fast_plan *P, const mma_unit *u, const int first, uint64_t acc, const uint64_t *a,
                     const uint64_t *b, const int G, const int tail)
{
    __m256i SP[8], EP[8], SG[8];
    const __m256i zero = _mm256_setzero_si256();
    __m256i spec = zero, emv = V_LD(P->low);
#pragma GCC unroll 8
    for (int g = 0; g < G; g++) {
        __m256i xa, xb, sa, sb, ea, eb, valid = zero;
        const int part = tail && g == G - 1;
        if (part) {
            xa = v_load_part(a + 8 * g, tail, &valid);
            xb = v_load_part(b + 8 * g, tail, &valid);
        } else {
            xa = v_load8(a + 8 * g);
            xb = v_load8(b + 8 * g);
        }
        v_decode(xa, &P->ka, P->one, &sa, &ea, &spec);
        v_decode(xb, &P->kb, P->one, &sb, &eb, &spec);
        __m256i sp = _mm256_mullo_epi32(sa, sb);
        __m256i ep = _mm256_add_epi32(ea, eb);
        __m256i z = _mm256_cmpeq_epi32(sp, zero);
        ep = _mm256_blendv_epi8(ep, V_LD(P->ezv), z);
        if (part) ep = _mm256_blendv_epi8(V_LD(P->low), ep, valid);
        __m256i sg = _mm256_srai_epi32(_mm256_xor_si256(_mm256_sll_epi32(xa, V_CNT(P->ka.ssh)),
                                                        _mm256_sll_epi32(xb, V_CNT(P->kb.ssh))), 31);
        SG[g] = _mm256_andnot_si256(z, sg);
        SP[g] = sp;
        EP[g] = ep;
        emv = _mm256_max_epi32(emv, ep);
    }
    const fast_cfmt *cf = first ? &P->c1 : &P->cd;
    fast_c xc = c_decode(cf, acc);
    int pspec = !_mm256_testz_si256(spec, spec);
    if (__builtin_expect(pspec || xc.spec, 0)) return special_step(P, u, first, acc, a, b, pspec);
    int32_t emax = emax_with_c(P, v_hmax(emv) - P->bab, &xc);
    int64_t sum = 0;
    if (emax >= FAST_EMPTY / 2) {
        const __m256i ebv = _mm256_set1_epi32(emax + P->bab + P->base);
        const __m128i pre = V_CNT(P->prec);
        __m256i sv = zero;
        if (P->narrow) {                        /* 32-bit lanes suffice */
            if (!P->rd) {
#pragma GCC unroll 8
                for (int g = 0; g < G; g++) {
                    __m256i m = _mm256_sll_epi32(SP[g], pre), sh = _mm256_sub_epi32(ebv, EP[g]);
                    sv = _mm256_add_epi32(sv, _mm256_xor_si256(_mm256_srlv_epi32(m, sh), SG[g]));
                    sv = _mm256_sub_epi32(sv, SG[g]);
                }
            } else {
#pragma GCC unroll 8
                for (int g = 0; g < G; g++) {
                    __m256i m = _mm256_sll_epi32(SP[g], pre), sh = _mm256_sub_epi32(ebv, EP[g]);
                    sv = _mm256_add_epi32(sv, _mm256_xor_si256(_mm256_srlv_epi32(_mm256_add_epi32(m, SG[g]), sh), SG[g]));
                }
            }
            sum = v_hsum32(sv);
        } else {                                /* 64-bit lanes */
            for (int g = 0; g < G; g++) {
                __m256i sh32 = _mm256_sub_epi32(ebv, EP[g]);
                for (int h = 0; h < 2; h++) {
                    __m128i sp4 = h ? _mm256_extracti128_si256(SP[g], 1) : _mm256_castsi256_si128(SP[g]);
                    __m128i sh4 = h ? _mm256_extracti128_si256(sh32, 1) : _mm256_castsi256_si128(sh32);
                    __m128i sg4 = h ? _mm256_extracti128_si256(SG[g], 1) : _mm256_castsi256_si128(SG[g]);
                    __m256i m = _mm256_sll_epi64(_mm256_cvtepu32_epi64(sp4), pre);
                    __m256i sh = _mm256_cvtepu32_epi64(sh4), s = _mm256_cvtepi32_epi64(sg4);
                    if (!P->rd) {
                        sv = _mm256_add_epi64(sv, _mm256_xor_si256(_mm256_srlv_epi64(m, sh), s));
                        sv = _mm256_sub_epi64(sv, s);
                    } else {
                        sv = _mm256_add_epi64(sv, _mm256_xor_si256(_mm256_srlv_epi64(_mm256_add_epi64(m, s), sh), s));
                    }
                }
            }
            sum = v_hsum64(sv);
        }
    }
    return finish(P, emax, sum, &xc, cf, 0);
}

/* The specialized integer kernel: a and b of one width, 32-bit lanes, RZ
 * alignment, and the output (and c) one of the compile-time kinds.  Inf
 * and NaN operands are found through running maxima: of the exponent
 * fields (all ones: SPK_EXP, fp16/bf16/e5m2 only), of x & smask (equal to
 * sval: SPK_AND, e4m3 and the mixes), or not at all (SPK_NONE, fp6/fp4). */
#define SPK_EXP 0
#define SPK_AND 1
#define SPK_NONE 2
V_FN uint64_t s_step(const fast_plan *P, const mma_unit *u, const int first, uint64_t acc, fast_c *xcp,
                     const uint64_t *a, const uint64_t *b, const int G, const int out, const int ck,
                     const int spk)
{
    __m256i SP[4], EP[4], SG[4];
    const __m256i zero = _mm256_setzero_si256();
    const fast_vop *ka = &P->ka, *kb = &P->kb;
    const __m128i mba = V_CNT(ka->mb), mbb = V_CNT(kb->mb), ssh = V_CNT(ka->ssh);
    __m256i smaxa = zero, smaxb = zero, emv = V_LD(P->low);
#pragma GCC unroll 4
    for (int g = 0; g < G; g++) {
        __m256i xa = v_load8(a + 8 * g), xb = v_load8(b + 8 * g);
        __m256i ra = _mm256_and_si256(_mm256_srl_epi32(xa, mba), V_LD(ka->em));
        __m256i rb = _mm256_and_si256(_mm256_srl_epi32(xb, mbb), V_LD(kb->em));
        __m256i sa = _mm256_or_si256(_mm256_and_si256(xa, V_LD(ka->mm)),
                                     _mm256_andnot_si256(_mm256_cmpeq_epi32(ra, zero), V_LD(ka->hid)));
        __m256i sb = _mm256_or_si256(_mm256_and_si256(xb, V_LD(kb->mm)),
                                     _mm256_andnot_si256(_mm256_cmpeq_epi32(rb, zero), V_LD(kb->hid)));
        if (spk == SPK_EXP) {
            smaxa = _mm256_max_epi32(smaxa, ra);
            smaxb = _mm256_max_epi32(smaxb, rb);
        }
        if (spk == SPK_AND) {
            smaxa = _mm256_max_epi32(smaxa, _mm256_and_si256(xa, V_LD(ka->sm)));
            smaxb = _mm256_max_epi32(smaxb, _mm256_and_si256(xb, V_LD(kb->sm)));
        }
        __m256i sp = _mm256_mullo_epi32(sa, sb);
        __m256i ep = _mm256_add_epi32(_mm256_max_epi32(ra, V_LD(P->one)), _mm256_max_epi32(rb, V_LD(P->one)));
        ep = _mm256_blendv_epi8(ep, V_LD(P->ezv), _mm256_cmpeq_epi32(sp, zero));
        /* the product's sign (a zero product's does not matter with RZ) */
        SG[g] = _mm256_srai_epi32(_mm256_sll_epi32(_mm256_xor_si256(xa, xb), ssh), 31);
        SP[g] = sp;
        EP[g] = ep;
        emv = _mm256_max_epi32(emv, ep);
    }
    const fast_cfmt *cf = first ? &P->c1 : &P->cd;
    fast_c xc = xcp->spec ? c_decode_k(cf, acc, ck) : *xcp;   /* (the last step's result, decoded) */
    int pspec = 0;
    if (spk != SPK_NONE) {
        __m256i sa = spk == SPK_EXP ? _mm256_cmpeq_epi32(smaxa, V_LD(ka->em)) : _mm256_cmpeq_epi32(smaxa, V_LD(ka->sv));
        __m256i sb = spk == SPK_EXP ? _mm256_cmpeq_epi32(smaxb, V_LD(kb->em)) : _mm256_cmpeq_epi32(smaxb, V_LD(kb->sv));
        pspec = !_mm256_testz_si256(_mm256_or_si256(sa, sb), _mm256_or_si256(sa, sb));
    }
    if (__builtin_expect(pspec | xc.spec, 0)) {
        xcp->spec = 1;
        return special_step(P, u, first, acc, a, b, pspec);
    }
    int32_t er = v_hmax(emv);
    int32_t ecr = xc.sig ? xc.e + P->bab : P->ez_rel;    /* c's exponent (a zero c's: ezero) */
    int32_t emr = ecr > er ? ecr : er;                  /* emax, relative */
    /* (nothing sets emax: every term is 0, so is the sum, and the rounding
     * of 0 gives +0 as the reference does) */
    const __m256i ebv = _mm256_set1_epi32(emr + P->base);
    const __m128i pre = V_CNT(P->prec);
    __m256i sv = zero;
#pragma GCC unroll 4
    for (int g = 0; g < G; g++) {
        __m256i m = _mm256_sll_epi32(SP[g], pre), sh = _mm256_sub_epi32(ebv, EP[g]);
        sv = _mm256_add_epi32(sv, _mm256_xor_si256(_mm256_srlv_epi32(m, sh), SG[g]));
        sv = _mm256_sub_epi32(sv, SG[g]);
    }
    return finish_k(P, emr - P->bab, v_hsum32(sv), &xc, cf, out, xcp);
}

#define S_KERNEL(NAME, G, OUT, CK, SPK)                                                            \
    static __attribute__((target("avx2,bmi2,lzcnt"))) uint64_t NAME(const fast_plan *P, const mma_unit *u,\
                                                              uint64_t c, const uint64_t *a,       \
                                                              const uint64_t *b)                   \
    {                                                                                              \
        fast_c xc;                                                                                 \
        xc.spec = 1;                                                                               \
        uint64_t acc = s_step(P, u, 1, c, &xc, a, b, G, OUT, CK, SPK);                             \
        if (P->steps == 2) /* (the common chain, straight) */                                      \
            return s_step(P, u, 0, acc, &xc, a + 8 * G, b + 8 * G, G, OUT, CK, SPK);               \
        for (int s = 1; s < P->steps; s++) {                                                       \
            a += 8 * G;                                                                            \
            b += 8 * G;                                                                            \
            acc = s_step(P, u, 0, acc, &xc, a, b, G, OUT, CK, SPK);                                \
        }                                                                                          \
        return acc;                                                                                \
    }
#define S_KERNELS(OUT, CK, SPK) S_KERNEL(fast_s_1_##OUT##_##SPK, 1, OUT, CK, SPK) \
    S_KERNEL(fast_s_2_##OUT##_##SPK, 2, OUT, CK, SPK) S_KERNEL(fast_s_4_##OUT##_##SPK, 4, OUT, CK, SPK)
S_KERNELS(1, CK_F32, 0) S_KERNELS(1, CK_F32, 1) S_KERNELS(1, CK_F32, 2)
S_KERNELS(2, CK_F32, 0) S_KERNELS(2, CK_F32, 1) S_KERNELS(2, CK_F32, 2)
S_KERNELS(3, CK_F16, 0) S_KERNELS(3, CK_F16, 1) S_KERNELS(3, CK_F16, 2)
#undef S_KERNELS
#undef S_KERNEL
#define S_ROW(OUT, SPK) {fast_s_1_##OUT##_##SPK, fast_s_2_##OUT##_##SPK, fast_s_4_##OUT##_##SPK}
static const fast_fn s_kernels[3][3][3] = {   /* [out - 1][spk][G: 1 2 4] */
    {S_ROW(1, 0), S_ROW(1, 1), S_ROW(1, 2)}, {S_ROW(2, 0), S_ROW(2, 1), S_ROW(2, 2)},
    {S_ROW(3, 0), S_ROW(3, 1), S_ROW(3, 2)}};
#undef S_ROW

#define V_KERNEL(NAME, G, TAIL)                                                                    \
    static __attribute__((target("avx2,bmi2,lzcnt"))) uint64_t NAME(const fast_plan *P, const mma_unit *u,   \
                                                         uint64_t c, const uint64_t *a,           \
                                                         const uint64_t *b)                       \
    {                                                                                              \
        uint64_t acc = v_step(P, u, 1, c, a, b, G, TAIL);                                          \
        for (int s = 1; s < P->steps; s++) {                                                       \
            a += P->L;                                                                             \
            b += P->L;                                                                             \
            acc = v_step(P, u, 0, acc, a, b, G, TAIL);                                             \
        }                                                                                          \
        return acc;                                                                                \
    }
V_KERNEL(fast_avx2_g1, 1, 0)
V_KERNEL(fast_avx2_g2, 2, 0)
V_KERNEL(fast_avx2_g4, 4, 0)
V_KERNEL(fast_avx2_gn, P->groups, P->tail)
#undef V_KERNEL

/* 1: AVX2, BMI2 and LZCNT are there */
static int avx2_usable(void)
{
    static int r = -1;
    int v = __atomic_load_n(&r, __ATOMIC_RELAXED);
    if (v < 0) {
        __builtin_cpu_init();
        v = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi2") && cpu_has_lzcnt() ? 1 : 0;
        __atomic_store_n(&r, v, __ATOMIC_RELAXED);
    }
    return v;
}
#endif

/* ---- plans: made once per unit content, cached ------------------------- */

static int fast_mode_forced;   /* 0: the best kernel; 1: scalar only; 2: no specialized kernel (tests) */

static inline int key_eq(const fast_plan *P, const mma_unit *u)
{
    const unsigned char *s = (const unsigned char *)u + KEY_OFF;
#ifdef FAST_HAVE_AVX2
    if (KEY_BYTES % 16 == 0) {            /* SSE2, part of x86-64 */
        const unsigned char *k = (const unsigned char *)P->key;
        __m128i d = _mm_setzero_si128();
#pragma GCC unroll 16
        for (size_t i = 0; i < KEY_BYTES; i += 16)
            d = _mm_or_si128(d, _mm_xor_si128(_mm_loadu_si128((const __m128i *)(s + i)),
                                              _mm_loadu_si128((const __m128i *)(k + i))));
        return _mm_movemask_epi8(_mm_cmpeq_epi8(d, _mm_setzero_si128())) == 0xffff;
    }
#endif
    if (KEY_BYTES % 8 == 0) {
        uint64_t d = 0;
#pragma GCC unroll 32
        for (size_t i = 0; i < KEY_BYTES / 8; i++) {
            uint64_t w;
            memcpy(&w, s + 8 * i, 8);
            d |= w ^ P->key[i];
        }
        return d == 0;
    }
    return memcmp(s, P->key, KEY_BYTES) == 0;
}

static void cfmt_of(fast_cfmt *cf, mma_fmt f, int F)
{
    cf->tab = f == MMA_FMT_FP32 ? NULL : tables[f];
    cf->mask = f == MMA_FMT_FP32 ? 0xffffffffu : ((uint64_t)1 << mma_format(f)->width) - 1;
    cf->fb = mma_format(f)->mbits;
    cf->pre = F > cf->fb ? F - cf->fb : 0;
    cf->base = cf->fb - F + cf->pre;
}

/* the operand formats that the vector kernel decodes arithmetically */
static int vec_op(fast_op *o, mma_fmt f)
{
    const mma_format_info *fi = mma_format(f);
    switch (f) {
    case MMA_FMT_FP16: case MMA_FMT_BF16: case MMA_FMT_E5M2:     /* Inf/NaN: exponent all ones */
        o->smask = o->sval = (((uint32_t)1 << fi->ebits) - 1) << fi->mbits;
        break;
    case MMA_FMT_E4M3:                                           /* NaN: S.1111.111 */
        o->smask = o->sval = 0x7f;
        break;
    case MMA_FMT_E4M3FNUZ: case MMA_FMT_E5M2FNUZ:                /* NaN: 0x80 */
        o->smask = 0xff;
        o->sval = 0x80;
        break;
    case MMA_FMT_E3M2: case MMA_FMT_E2M3: case MMA_FMT_E2M1:     /* no specials */
        o->smask = 0;
        o->sval = 1;
        break;
    default:
        return 0;
    }
    if (fi->emin != 1 - fi->bias || !fi->has_sign || fi->width > 16) return 0;
    o->mb = fi->mbits;
    o->mmask = ((uint32_t)1 << fi->mbits) - 1;
    o->emask = ((uint32_t)1 << fi->ebits) - 1;
    o->hidden = (uint32_t)1 << fi->mbits;
    o->sshift = 32 - fi->width;
    o->bias = fi->bias;
    return 1;
}

#ifdef FAST_HAVE_AVX2
static void vop_of(fast_vop *k, const fast_op *o)
{
    for (int i = 0; i < 8; i++) {
        k->mm[i] = (int32_t)o->mmask;
        k->em[i] = (int32_t)o->emask;
        k->hid[i] = (int32_t)o->hidden;
        k->sm[i] = (int32_t)o->smask;
        k->sv[i] = (int32_t)o->sval;
    }
    k->mb[0] = o->mb;
    k->ssh[0] = o->sshift;
}
#endif

static void plan_build(fast_plan *P, const mma_unit *u, int mode)
{
    memset(P, 0, sizeof *P);
    memcpy(P->key, (const unsigned char *)u + KEY_OFF, KEY_BYTES);
    P->mode = mode;
    const mma_format_info *fa = mma_format(u->a), *fb = mma_format(u->b), *fd = mma_format(u->d);
    P->L = u->lmax;
    P->steps = u->k / u->lmax;
    P->f = u->f;
    P->fbp = fa->mbits + fb->mbits;
    P->pre = u->f > P->fbp ? u->f - P->fbp : 0;
    P->base = P->fbp - u->f + P->pre;
    P->rd = u->align == MMA_RD;
    P->zeros_part = !(u->flags & MMA_F_NO_EZERO);
    P->ezero = u->ezero;
    cfmt_of(&P->c1, u->c, u->f);
    cfmt_of(&P->cd, u->d, u->f);
    P->o.zsigned = !(u->flags & MMA_F_ZERO_POS);
    P->o.width = fd->width;
    P->o.mb = fd->mbits;
    P->o.p = u->p;
    P->o.rho = u->rho;
    P->o.emin = fd->emin;
    P->o.emaxe = (1 << (fd->ebits - 1)) - 1;
    P->o.inf = (((uint64_t)1 << fd->ebits) - 1) << fd->mbits;
    P->o.maxf = P->o.inf - ((uint64_t)1 << (fd->mbits - u->p));
    P->o.sign = (uint64_t)1 << (fd->width - 1);
    /* alg_fused.c's NaN: canonical, or the default quiet NaN */
    P->o.nan = (u->flags & MMA_F_NAN_CANON) ? mma_canonical_nan(u->d)
                                            : mma_inf(u->d, 0) | ((uint64_t)1 << (fd->mbits - 1));
    P->ta = tables[u->a];
    P->tb = tables[u->b];
    P->amask = fa->width <= 8 ? 0xff : 0xffff;   /* (the 8-bit tables repeat narrower formats) */
    P->bmask = fb->width <= 8 ? 0xff : 0xffff;
    P->pt = fa->width <= 8 && fb->width <= 8 ? pair_table(u->a, u->b) : NULL;
    P->bta = btables[u->a];
    P->btb = btables[u->b];
    P->fn = fast_scalar;
#ifdef FAST_HAVE_AVX2
    /* ezero far outside the exponent range would overflow the lanes' int32
     * arithmetic: such units keep the scalar kernel */
    if (mode != 1 && (!P->zeros_part || (u->ezero >= -100000 && u->ezero <= 100000)) && vec_op(&P->va, u->a) &&
        vec_op(&P->vb, u->b) && avx2_usable()) {
        int lg = 0;
        P->groups = (P->L + 7) / 8;
        P->tail = P->L % 8;
        while ((1 << lg) < P->groups) lg++;
        P->narrow = (u->f > P->fbp ? u->f : P->fbp) + 2 + lg <= 30;
        P->bab = P->va.bias + P->vb.bias;
        P->ez_rel = P->zeros_part ? u->ezero + P->bab : V_LOW;
        vop_of(&P->ka, &P->va);
        vop_of(&P->kb, &P->vb);
        for (int i = 0; i < 8; i++) {
            P->one[i] = 1;
            P->ezv[i] = P->ez_rel;
            P->low[i] = V_LOW;
        }
        P->prec[0] = P->pre;
        P->fn = P->tail ? fast_avx2_gn : P->groups == 1 ? fast_avx2_g1 : P->groups == 2 ? fast_avx2_g2 :
                P->groups == 4 ? fast_avx2_g4 : fast_avx2_gn;
        /* the specialized integer kernels */
        int f32 = u->d == MMA_FMT_FP32 && u->rho == MMA_RZ && u->c == MMA_FMT_FP32;
        int out = f32 && u->p == 23 ? OUT_F32 : f32 && u->p == 13 ? OUT_E8M13 :
                  u->d == MMA_FMT_FP16 && u->rho == MMA_RNE && u->c == MMA_FMT_FP16 && u->p == 10 ? OUT_F16 : 0;
        /* Inf/NaN tests by maxima: not for fnuz (NaN = 0x80) */
        int fnuz = u->a == MMA_FMT_E4M3FNUZ || u->a == MMA_FMT_E5M2FNUZ || u->b == MMA_FMT_E4M3FNUZ ||
                   u->b == MMA_FMT_E5M2FNUZ;
        int ieee_a = u->a == MMA_FMT_FP16 || u->a == MMA_FMT_BF16 || u->a == MMA_FMT_E5M2;
        int ieee_b = u->b == MMA_FMT_FP16 || u->b == MMA_FMT_BF16 || u->b == MMA_FMT_E5M2;
        int spk = fnuz ? -1 : ieee_a && ieee_b ? SPK_EXP : P->va.smask || P->vb.smask ? SPK_AND : SPK_NONE;
        int gi = P->groups == 1 ? 0 : P->groups == 2 ? 1 : P->groups == 4 ? 2 : -1;
        if (mode == 0 && out && spk >= 0 && gi >= 0 && !P->tail && P->va.sshift == P->vb.sshift && P->narrow && !P->rd)
            P->fn = s_kernels[out - 1][spk][gi];
    }
#endif
}

/* Plans are immutable once published in the table and never freed; when
 * the table is full a thread rebuilds its own spare plan on each miss. */
#define PLAN_SLOTS 128
static fast_plan *plan_tab[PLAN_SLOTS];
static __thread const fast_plan *tl_last __attribute__((tls_model("initial-exec")));
static __thread fast_plan *tl_spare __attribute__((tls_model("initial-exec")));

static __attribute__((noinline)) const fast_plan *plan_lookup(const mma_unit *u)
{
    int mode = __atomic_load_n(&fast_mode_forced, __ATOMIC_RELAXED);
    for (int i = 0; i < PLAN_SLOTS; i++) {
        fast_plan *P = __atomic_load_n(&plan_tab[i], __ATOMIC_ACQUIRE);
        if (!P) break;
        if (P->mode == mode && key_eq(P, u)) return tl_last = P;
    }
    fast_plan *P = malloc(sizeof *P);
    if (P) {
        plan_build(P, u, mode);
        for (int i = 0; i < PLAN_SLOTS; i++) {
            fast_plan *seen = NULL;
            if (__atomic_compare_exchange_n(&plan_tab[i], &seen, P, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
                return tl_last = P;
            if (seen->mode == mode && key_eq(seen, u)) {   /* another thread was first */
                free(P);
                return tl_last = seen;
            }
        }
        free(P);
    }
    if (!tl_spare) tl_spare = malloc(sizeof *tl_spare);
    if (!tl_spare) return tl_last = NULL;
    plan_build(tl_spare, u, mode);
    return tl_last = tl_spare;
}

/* Tests: mode 1 makes plans with the scalar kernel only, 2 without the
 * specialized vector kernels, 0 with the best (affects plans looked up from
 * now on by this thread; not for concurrent use). */
void mma_fast_fused_force(int mode);
void mma_fast_fused_force(int mode)
{
    __atomic_store_n(&fast_mode_forced, mode, __ATOMIC_RELAXED);
    tl_last = NULL;
}

/* Tests: the kernel that computes u: 0 the reference, 1 scalar, 2 AVX2
 * generic, 3 AVX2 specialized. */
int mma_fast_fused_kernel(const mma_unit *u);
int mma_fast_fused_kernel(const mma_unit *u)
{
    if (!mma_fast_fused_ok(u)) return 0;
    const fast_plan *P = plan_lookup(u);
    if (!P) return 0;
    if (P->fn == fast_scalar) return 1;
#ifdef FAST_HAVE_AVX2
    for (int i = 0; i < 27; i++)
        if (P->fn == (&s_kernels[0][0][0])[i]) return 3;
#endif
    return 2;
}

static __attribute__((noinline)) uint64_t fast_fused_miss(const mma_unit *u, uint64_t c, const uint64_t *a,
                                                           const uint64_t *b)
{
    const fast_plan *P = plan_lookup(u);
    if (!P) return mma_alg_fused(u, c, a, b, NULL, NULL);
    return P->fn(P, u, c, a, b);
}

/* (mma_fast_fused_force clears this thread's last plan, so that the mode
 * needs no check here) */
uint64_t mma_fast_fused(const mma_unit *u, uint64_t c, const uint64_t *a,
                        const uint64_t *b)
{
    const fast_plan *P = tl_last;
    if (__builtin_expect(P && key_eq(P, u), 1)) return P->fn(P, u, c, a, b);
    return fast_fused_miss(u, c, a, b);
}
