/* The fast path's shared pieces (not installed): operand tables, the
 * packed product, the accumulator's decoding, the output rounding with a
 * unit's constants, the plan cache and the AVX2 helpers.  Each algorithm
 * family keeps its own kernels in fast_<family>.c; every kernel computes
 * what the reference (alg_*.c) computes, bit for bit, which
 * tests/test_fastpath.c checks on every suite and vector file.
 *
 * A plan holds what depends only on the unit (formats, shifts, rounding
 * constants, the kernel chosen for this machine); it is made once per unit
 * content and cached (fast.c), so hand-made units (impl 0) are served the
 * same way. */
#ifndef MMAREF_FAST_H
#define MMAREF_FAST_H

#include "../core/internal.h"
#include "mmaref_parallel.h"

#include <stddef.h>
#include <string.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define FAST_HAVE_AVX2 1
#include <immintrin.h>
#endif

/* Whether the host's floating-point state is the one a program starts with
 * (round to nearest, no flush to zero or denormals-are-zero, exceptions
 * masked): kernels that let the host's float or double arithmetic round
 * take their integer route otherwise, since a caller may change it (a
 * library built with -ffast-math sets FTZ and DAZ when loaded). */
#ifdef FAST_HAVE_AVX2
static inline int fast_host_fp_default(void) { return (_mm_getcsr() & 0xffc0) == 0x1f80; }
#else
static inline int fast_host_fp_default(void) { return 1; }
#endif

/* ---- operand tables ----------------------------------------------------- */

/* Entry of an operand of 16 bits or fewer: sig in bits 0..31, e (int16,
 * the term's exponent as term.c gives it) in bits 32..47, flags above:
 * sign, zero, Inf or NaN, NaN (classes as mma_decode gives them; Inf and
 * NaN have sig 0 as a zero has).  tf32 has no table: fast_entry decodes it
 * arithmetically into the same layout, with 10 fraction bits. */
#define T_NEG  ((uint64_t)1 << 48)
#define T_ZERO ((uint64_t)1 << 49)
#define T_SPEC ((uint64_t)1 << 50)
#define T_NAN  ((uint64_t)1 << 51)
extern const uint64_t *fast_tab[MMA_FMT_COUNT];
/* The same operands biased for the product loop (fp16, bf16): significand
 * in bits 0..31, exponent + 1024 in bits 32..43, Inf/NaN in bit 48, sign in
 * bit 63, so that adding two entries adds the exponents (with the
 * product's bias 2048), and xors the signs. */
extern const uint64_t *fast_btab[MMA_FMT_COUNT];
#define B_SPEC ((uint64_t)1 << 48)

static inline int32_t ent_e(uint64_t x) { return (int16_t)(uint16_t)(x >> 32); }

/* the entry of a tf32 operand (fp32 layout, the low 13 bits ignored) */
static inline uint64_t fast_entry_tf32(uint64_t bits)
{
    uint32_t w = (uint32_t)bits, ef = (w >> 23) & 0xff, m = (w >> 13) & 0x3ff;
    uint64_t neg = (w >> 31) ? T_NEG : 0;
    if (ef == 0xff) return neg | T_SPEC | (m ? T_NAN : 0) | ((uint64_t)10 << 32);   /* (e: as term.c) */
    if (!ef && !m) return neg | T_ZERO | ((uint64_t)(uint16_t)(int16_t)-126 << 32);
    uint32_t sig = m | (ef ? 0x400u : 0);
    return neg | sig | ((uint64_t)(uint16_t)(int16_t)((int32_t)(ef ? ef : 1) - 127) << 32);
}

/* The entries of an 8-bit format's operands converted to fp16 first
 * (MMA_F_VIA_FP16: a subnormal becomes a normal fp16, its exponent lower),
 * as alg_fused.c's via_fp16 converts them; NULL when out of memory. */
const uint64_t *fast_via_fp16_table(mma_fmt f);
/* the pair table of two such formats (fast_pair_table's layout) */
const uint64_t *fast_via_fp16_pair_table(mma_fmt fa, mma_fmt fb);

/* the operand formats the fast path decodes (tables, or tf32) */
static inline int fast_op_ok(mma_fmt f) { return fast_tab[f] || f == MMA_FMT_TF32; }

/* an operand's entry: through its table, or tf32 (tab NULL) decoded */
static inline uint64_t fast_entry(const uint64_t *tab, uint64_t mask, uint64_t bits)
{
    return tab ? tab[bits & mask] : fast_entry_tf32(bits);
}

/* ---- packed products ---------------------------------------------------- */

/* bits 0..31 significand, 32..43 exponent + 2048 (0 for a zero product, so
 * that it never sets emax), 49 Inf or NaN involved, 50 zero, 51 NaN, 63
 * sign (so that an arithmetic shift makes the negation mask). */
#define P_EOFF 2048
#define P_EMASK ((uint64_t)0xfff << 32)
#define P_NEG  ((uint64_t)1 << 63)
#define P_SPEC ((uint64_t)1 << 49)
#define P_ZERO ((uint64_t)1 << 50)
#define P_NAN  ((uint64_t)1 << 51)

/* The class of the product of two entries, as mma_term_mul (term.c) makes
 * it: NaN when either is NaN or an Inf meets a zero (a subnormal is no
 * zero); otherwise Inf when either is Inf; the sign is both signs' xor
 * whatever the class.  Only P_SPEC, P_NAN and P_NEG are set. */
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

/* For two formats of at most 8 bits, one table of 65536 entries, indexed
 * (a & 0xff) << 8 | (b & 0xff), gives the packed product (built on first
 * use; NULL when out of memory). */
const uint64_t *fast_pair_table(mma_fmt fa, mma_fmt fb);

/* ---- the accumulator ---------------------------------------------------- */

/* how a step's c is decoded: fp32 inline (tab NULL), the others through
 * their table; pre and base align it as a product of fbp fraction bits is
 * aligned at F bits (fast_fused*.c) */
typedef struct { const uint64_t *tab; uint64_t mask; int fb, pre, base; } fast_cfmt;
void fast_cfmt_init(fast_cfmt *cf, mma_fmt f, int F);

/* c decoded: sig (hidden bit included; 0 for a zero), the exponent of its
 * unit bit (emin for subnormals and zeros), sign, Inf or NaN */
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

/* c's class in a packed product's bits (P_SPEC, P_NAN, P_NEG) */
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

/* ---- the output rounding ------------------------------------------------ */

/* mma_round_to's constants for a unit's output (d, p, rho, zero sign),
 * and its NaN (canonical, or the IEEE default quiet NaN) and Inf */
typedef struct { int width, mb, p, rho, emin, emaxe, zsigned; uint64_t inf, maxf, nan, sign; } fast_out;
void fast_out_init(fast_out *o, const mma_unit *u);
/* mma_round_to(d, p, rho, neg, mag, lsb, zsigned), every case */
uint64_t fast_round_general(const fast_out *o, int neg, uint64_t mag, int32_t lsb);

/* Output kinds known at compile time in specialized kernels: 0 from the
 * plan; OUT_F32 fp32, RZ, p = 23; OUT_E8M13 fp32, RZ, p = 13; OUT_F16
 * fp16, RNE, p = 10; OUT_F32RNE fp32, RNE, p = 23. */
#define OUT_F32 1
#define OUT_E8M13 2
#define OUT_F16 3
#define OUT_F32RNE 4
#define O_IS32(out) ((out) == OUT_F32 || (out) == OUT_E8M13 || (out) == OUT_F32RNE)
#define O_(o, out, f32, f16, fld) (O_IS32(out) ? (f32) : (out) == OUT_F16 ? (f16) : (o)->fld)
#define O_P(o, out) ((out) == OUT_F32 || (out) == OUT_F32RNE ? 23 : (out) == OUT_E8M13 ? 13 : (out) == OUT_F16 ? 10 : (o)->p)
#define O_RHO(o, out) ((out) == OUT_F32 || (out) == OUT_E8M13 ? MMA_RZ : (out) ? MMA_RNE : (o)->rho)

/* The rounding of (-1)^neg * mag * 2^lsb; the common case (a normal
 * result) inline, the rest in fast_round_general.  When cn is given, it
 * also receives the result decoded as the next step's accumulator
 * (cn->spec = 1: not done, decode the bits). */
static inline __attribute__((always_inline)) uint64_t fast_round(const fast_out *o, int neg, uint64_t mag,
                                                                int32_t lsb, const int out, fast_c *cn)
{
    const int width = O_(o, out, 32, 16, width), mb = O_(o, out, 23, 10, mb), p = O_P(o, out);
    const int32_t emin = O_(o, out, -126, -14, emin), emaxe = O_(o, out, 127, 15, emaxe);
    const int rho = O_RHO(o, out);
    if (cn) cn->spec = 1;
    if (__builtin_expect(mag == 0, 0)) return fast_round_general(o, neg, mag, lsb);
    int top = 63 - __builtin_clzll(mag);
    int32_t x = top + lsb;                                /* leading-bit exponent */
    if (__builtin_expect((uint32_t)(x - emin) >= (uint32_t)(emaxe - emin), 0))
        return fast_round_general(o, neg, mag, lsb);      /* not below emaxe: may overflow */
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

/* round_f32rz where the result is no normal fp32 (be: its biased
 * exponent, 11 bits) */
uint64_t fast_round_f32rz_rare(const fast_out *o, int64_t sum, int32_t lsb, uint32_t be);

/* fp32 with RZ to p bits (23 or 13) of sum * 2^lsb, |sum| < 2^53, through
 * the double that holds sum exactly: its significand cut to 23 bits is
 * the RZ rounding, and its exponent, moved by lsb, the result's when that
 * is a normal fp32 (else fast_round_f32rz_rare).  Sign included.
 * ovf (with no cn): an overflow's Inf chosen without a branch, for
 * kernels whose inputs reach fp32's overflow (random tf32 does in about
 * half of its dot products, and mispredicted the branch); 0 keeps the
 * branch alone, where the select slowed the kernel (a chain's steps,
 * per-call kernels, QGMMA's AVX-512 batch). */
static inline __attribute__((always_inline)) uint64_t round_f32rz(const fast_out *o, int64_t sum, int32_t lsb,
                                                                 const int p, fast_c *cn, const int ovf)
{
    double dv = (double)sum;
    uint64_t db;
    memcpy(&db, &dv, sizeof db);
    /* bits 0..22: the significand's top 23 fraction bits; 23..33: the
     * exponent, rebiased here from 1023 to 127 and moved by lsb */
    uint64_t t = (db >> 29) + ((uint64_t)(int64_t)(lsb + 127 - 1023) << 23);
    uint32_t be = (uint32_t)(t >> 23) & 0x7ff;            /* the result's biased exponent */
    if (cn) cn->spec = 1;
    if (ovf && !cn) {                   /* (fast_round_f32rz_rare says why be 255 to 1023 is an overflow) */
        unsigned inf = (sum != 0) & (be - 255 < 1024 - 255);
        unsigned rare = ((sum == 0) | (be - 1 >= 254)) & !inf;
        if (__builtin_expect(rare, 0)) return fast_round_f32rz_rare(o, sum, lsb, be);
        uint32_t m = (uint32_t)t & 0x7fffffff & ~(((uint32_t)1 << (23 - p)) - 1);
        uint32_t sg = (uint32_t)(db >> 63 << 31);
        return inf ? (uint32_t)o->inf | sg : m | sg;
    }
    if (__builtin_expect(sum == 0 || be - 1 >= 254, 0)) return fast_round_f32rz_rare(o, sum, lsb, be);
    uint32_t m = (uint32_t)t & 0x7fffffff & ~(((uint32_t)1 << (23 - p)) - 1);
    if (cn) {
        cn->spec = 0;
        cn->neg = (int)(db >> 63);
        cn->sig = (m & 0x7fffff) | 0x800000;
        cn->e = (int32_t)be - 127;
    }
    return (uint64_t)(m | (uint32_t)(db >> 63 << 31));
}

/* Where a kernel finds its packed products: the pair table of two 8-bit
 * formats, the biased tables of fp16/bf16, the operand tables, or (a NULL
 * table) tf32 decoded arithmetically. */
typedef struct {
    const uint64_t *ta, *tb, *pt, *bta, *btb;
    uint64_t amask, bmask;               /* a table's index: the width */
} fast_src;
void fast_src_init(fast_src *s, mma_fmt a, mma_fmt b);

/* The L packed products of a and b into p; *any: the or of them (P_SPEC:
 * an Inf or NaN is involved, P_ZERO: a product is zero), *emf: the
 * largest exponent field (0: every product is zero). */
static inline __attribute__((always_inline)) void fast_products(const fast_src *S, const uint64_t *a,
                                                               const uint64_t *b, int L, uint64_t *p,
                                                               uint64_t *anyp, uint64_t *emfp)
{
    const uint64_t *ta = S->ta, *tb = S->tb, *pt = S->pt, *bta = S->bta, *btb = S->btb;
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
    } else if (ta && tb) {
        for (int j = 0; j < L; j++) {
            uint64_t x = pack_product(ta[a[j] & S->amask], tb[b[j] & S->bmask]);
            p[j] = x;
            any |= x;
            uint64_t ef = x & P_EMASK;
            emf = ef > emf ? ef : emf;
        }
    } else {                                /* tf32 */
        for (int j = 0; j < L; j++) {
            uint64_t x = pack_product(fast_entry(ta, S->amask, a[j]), fast_entry(tb, S->bmask, b[j]));
            p[j] = x;
            any |= x;
            uint64_t ef = x & P_EMASK;
            emf = ef > emf ? ef : emf;
        }
    }
    *anyp = any;
    *emfp = emf;
}

/* one packed product (the slow paths) */
static inline uint64_t fast_product(const fast_src *S, uint64_t a, uint64_t b)
{
    if (S->pt) return S->pt[(a & 0xff) << 8 | (b & 0xff)];
    return pack_product(fast_entry(S->ta, S->amask, a), fast_entry(S->tb, S->bmask, b));
}

/* ---- scalar alignment of packed products -------------------------------- */

/* The sum of L packed products, each aligned (shifted right by eb minus
 * its biased exponent, after a left shift by pre) and cut toward zero (RZ)
 * or toward -inf (rd); a shift of 63 or more leaves nothing.  A product
 * of sig * 2^(e - fbp) in units of 2^(emax - F) is M >> sh with
 * M = sig << pre and sh = emax - e + base (pre = max(F - fbp, 0),
 * base = fbp - F + pre >= 0).  With s = 0 for a positive term and s = -1
 * (all ones) for a negative one:
 *   RZ (cut toward zero):  ((M >> sh) ^ s) - s
 *   RD (cut toward -inf):  ((M + s) >> sh) ^ s      (= ~((M - 1) >> sh))
 * Zero products have M = 0 and contribute nothing.  stride 2 takes every
 * other product (the AMD even/odd sums). */
static inline int64_t align_body(const uint64_t *p, int L, int64_t eb, int pre, int rd, int stride)
{
    int64_t sum = 0;
    for (int j = 0; j < L; j += stride) {
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

/* ---- plans -------------------------------------------------------------- */

#define FAST_EMPTY (-(1 << 24))       /* exponent of nothing: no term sets emax */
#define FAST_KEY_OFF offsetof(mma_unit, a)
#define FAST_KEY_BYTES (sizeof(mma_unit) - FAST_KEY_OFF)

/* Kernel kinds, for the tests and `mmaref bench`. */
enum { FAST_K_REF = 0, FAST_K_SCALAR = 1, FAST_K_VECTOR = 2, FAST_K_SPECIAL = 3, FAST_K_AVX512 = 4 };

typedef struct fast_hdr fast_hdr;
typedef uint64_t (*fast_fn)(const fast_hdr *, uint64_t c, const uint64_t *a, const uint64_t *b,
                            const uint64_t *sa, const uint64_t *sb);
/* A kernel for a range of a batch (mma_batch, mmaref_parallel.h): vectors
 * lo .. hi-1, a and b at their natural widths (1 byte for 8-bit formats,
 * 2 for 16-bit ones, 4 for tf32), c and d at the batch's sizes, no block
 * scales, no flags (batch.c checks).  Set by a family's build where it has
 * one (NULL: calloc's), it computes two dot products at a time: one dot
 * product's chain of steps (decode, emax, align, sum, round) is long, and
 * two side by side keep the core busy where one call after another did
 * not (K=32 fp8 on one core: 62 M/s, against 51 M/s calling the kernel
 * per vector). */
typedef void (*fast_bfn)(const fast_hdr *, const mma_batch *x, size_t lo, size_t hi);
/* A kernel for one dot product on operands at their natural widths
 * (narrow kernels, for plans without a bfn and for block-scaled batches,
 * which bfn does not take): a and b (k elements each) and, for
 * block-scaled units, sa and sb (one per block) each in fast_nat_size
 * bytes of its format (uint8_t for fp8 and fp4,
 * uint16_t for fp16, uint32_t for tf32), as mma_batch_dot's callers hold
 * them; c and the result as fn has them.  It returns what fn returns for
 * the same operands zero-extended to uint64_t, and is checked against the
 * reference as fn is (tests/test_fastpath.c, through mma_batch_dot).
 *
 * Why: a batch held at natural widths otherwise widens every vector into
 * uint64_t scratch, which fn then repacks into 32-bit lanes; for a K=64
 * fp4 unit that took a third of the time.  Plugging one in: a family's
 * build sets h.nfn where it has one for the plan's kernel (NULL, calloc's
 * default: batches widen and call fn).  Its common path reads the narrow
 * operands directly (v_operands_n, v_load8_n below); its rare paths
 * (Inf, NaN, the reference) may widen the operands into a local scratch
 * (fast_widen) and take fn's own code.  batch.c calls it when the batch's
 * a, b, sa and sb have the natural sizes and the batch wants no flags. */
typedef uint64_t (*fast_nfn)(const fast_hdr *, uint64_t c, const void *a, const void *b, const void *sa,
                             const void *sb);
/* the head of every family's plan */
struct fast_hdr {
    uint64_t key[(FAST_KEY_BYTES + 7) / 8];   /* the unit's fields from a on */
    int mode;                                 /* the forced mode when made   */
    int kernel;                               /* FAST_K_*                    */
    fast_fn fn;
    fast_bfn bfn;                             /* a batch's ranges, or NULL   */
    fast_nfn nfn;                             /* narrow kernel, or NULL      */
    mma_unit u;                               /* the unit (impl 1)           */
    fast_hdr *sub;                            /* a plan this one owns, or NULL */
};

/* The plan of u for a batch (batch.c): NULL when u takes the reference
 * (impl 1, or impl 0 decided so) or no plan could be made.  A plan in the
 * cache is never freed; with the cache full it is this thread's spare,
 * freed at the thread's next miss or its end, so the caller may hand it to
 * other threads only while it looks up no other plan (a batch or narrow
 * kernel looks up none). */
const fast_hdr *fast_plan_of(const mma_unit *u);

/* ---- narrow operands ------------------------------------------------------ */

/* the natural element size of f: the fewest of 1, 2, 4, 8 bytes that
 * hold its encodings */
static inline int fast_nat_size(mma_fmt f)
{
    int w = mma_format(f)->width;
    return w <= 8 ? 1 : w <= 16 ? 2 : w <= 32 ? 4 : 8;
}

/* element i of p, of `size` bytes (1, 2, 4 or 8), zero-extended
 * (branches rather than a switch's jump table: one well-predicted compare
 * an element) */
static inline uint64_t fast_ld(const void *p, int size, size_t i)
{
    if (size == 8) return ((const uint64_t *)p)[i];
    if (size == 4) return ((const uint32_t *)p)[i];
    if (size == 2) return ((const uint16_t *)p)[i];
    return ((const uint8_t *)p)[i];
}

/* element i of p, of `size` bytes, set to x's low bytes */
static inline void fast_st(void *p, int size, size_t i, uint64_t x)
{
    if (size == 8) ((uint64_t *)p)[i] = x;
    else if (size == 4) ((uint32_t *)p)[i] = (uint32_t)x;
    else if (size == 2) ((uint16_t *)p)[i] = (uint16_t)x;
    else ((uint8_t *)p)[i] = (uint8_t)x;
}

/* the n elements at p as uint64_t: p itself when they are (size 8),
 * else zero-extended into w (a narrow kernel's rare paths) */
static inline const uint64_t *fast_widen(const void *p, int size, int n, uint64_t *w)
{
    if (size == 8) return (const uint64_t *)p;
    for (int j = 0; j < n; j++) w[j] = fast_ld(p, size, (size_t)j);
    return w;
}

/* the address of element i of p, of `size` bytes */
static inline const void *fast_at(const void *p, int size, size_t i)
{
    return (const char *)p + i * (size_t)size;
}

/* Modes (tests): 0 the best kernel; 1 scalar kernels only; 2 no
 * specialized vector kernel; 3 the best kernel without AVX-512 (a family's
 * build sees FAST_MODE_BEST, and fast_avx512_usable says 0). */
#define FAST_MODE_BEST 0
#define FAST_MODE_SCALAR 1
#define FAST_MODE_GENERIC 2
#define FAST_MODE_AVX2 3

/* What the kernels know: a unit with another rounding or another flag
 * (one that a later version of the reference defines) stays with the
 * reference until a kernel learns it (fast_known, in every family's ok). */
#define FAST_FLAGS_KNOWN (MMA_F_FTZ_IN | MMA_F_FTZ_SUM | MMA_F_PROD_OVF | MMA_F_NAN_CANON | MMA_F_ZERO_POS | \
                          MMA_F_NO_EZERO | MMA_F_NAN_ANY | MMA_F_VIA_FP16 | \
                          MMA_F_OVF_MASK /* (the rules the kernels know: fast.c's semantics_ok) */)
static inline int fast_known(const mma_unit *u)
{
    return !(u->flags & ~(unsigned)FAST_FLAGS_KNOWN) && (u->rho == MMA_RZ || u->rho == MMA_RNE || u->rho == MMA_RD ||
                                                          u->rho == MMA_RU) && (u->align == MMA_RZ || u->align == MMA_RD);
}

/* A family: whether it computes u, and its plan for u (malloc'ed, its
 * fast_hdr first; the key is filled in by the cache). */
typedef struct {
    int (*ok)(const mma_unit *u);
    fast_hdr *(*build)(const mma_unit *u, int mode);
} fast_family;
extern const fast_family fast_fused_family, fast_amd_family, fast_groups_family, fast_ieee_family,
    fast_exact_family, fast_chains_family, fast_xsum_family;

/* ---- AVX2 --------------------------------------------------------------- */

/* a vector-decodable operand format: fraction bits mb, exponent mask,
 * hidden bit, Inf/NaN test ((x & smask) == sval), sign shift to bit 31,
 * bias; shr: right shift first (13 for tf32, which keeps 10 of fp32's 23
 * fraction bits) */
typedef struct { uint32_t mmask, emask, hidden, smask, sval; int mb, sshift, bias, shr; } fast_op;
int fast_vec_op(fast_op *o, mma_fmt f);

#ifdef FAST_HAVE_AVX2
/* 1: AVX2, BMI2 and LZCNT are there */
/* The instruction sets of the kernels, one spelling each (GCC and clang
 * target attributes): a kernel is compiled for its set and called only
 * where cpuid shows it (fast_*_usable). */
#define FAST_ISA_FMA "fma"
#define FAST_ISA_F16C "f16c"
#define FAST_ISA_AVX2 "avx2,bmi2,lzcnt"
#define FAST_ISA_AVX2_F16C "avx2,bmi2,lzcnt,f16c"
#define FAST_ISA_AVX2_FMA "avx2,fma,bmi2,lzcnt"
#define FAST_ISA_AVX512 "avx512f,avx512bw,avx512vl,avx512dq,avx2,bmi2,lzcnt"
#define FAST_ISA_AVX512_F16C "avx512f,avx512bw,avx512vl,avx512dq,avx2,bmi2,lzcnt,f16c"
#define FAST_ISA_AVX512_FMA_F16C "avx512f,avx512bw,avx512vl,avx512dq,avx2,fma,bmi2,lzcnt,f16c"
int fast_avx2_usable(void);
int fast_f16c_usable(void);
/* 1: AVX-512 F, BW, VL and DQ are there (and the plan being built is not
 * one of FAST_MODE_AVX2) */
int fast_avx512_usable(void);

#define V_FN static inline __attribute__((always_inline, target(FAST_ISA_AVX2)))
#define V_TARGET __attribute__((target(FAST_ISA_AVX2)))
#define V_LD(p) _mm256_loadu_si256((const __m256i *)(p))
#define V_CNT(p) _mm_loadu_si128((const __m128i *)(p))

/* the same, broadcast for the vector kernels (memory operands) */
typedef struct { int32_t mm[8], em[8], hid[8], sm[8], sv[8]; int64_t mb[2], ssh[2], shr[2]; } fast_vop;
void fast_vop_init(fast_vop *k, const fast_op *o);

/* eight operands, low 32 bits of each; the lane order (0 1 4 5 2 3 6 7)
 * is the same for a and b, and a fused sum does not depend on order (the
 * low 128 bits hold the k = 0, 1 mod 4, the high ones k = 2, 3 mod 4; even
 * lanes hold even k) */
V_FN __m256i v_load8(const uint64_t *p)
{
    __m256 lo = _mm256_castsi256_ps(_mm256_loadu_si256((const __m256i *)p));
    __m256 hi = _mm256_castsi256_ps(_mm256_loadu_si256((const __m256i *)(p + 4)));
    return _mm256_castps_si256(_mm256_shuffle_ps(lo, hi, 0x88));
}

/* the first n (1..7) of eight, zeros after; *valid: all ones in the lanes
 * loaded */
extern const int64_t fast_v_ramp[16];
V_FN __m256i v_load_part(const uint64_t *p, int n, __m256i *valid)
{
    __m256i mlo = _mm256_loadu_si256((const __m256i *)(fast_v_ramp + 8 - n));
    __m256i mhi = _mm256_loadu_si256((const __m256i *)(fast_v_ramp + 12 - n));
    __m256 lo = _mm256_castsi256_ps(_mm256_maskload_epi64((const long long *)p, mlo));
    __m256 hi = _mm256_castsi256_ps(_mm256_maskload_epi64((const long long *)(p + 4), mhi));
    *valid = _mm256_castps_si256(_mm256_shuffle_ps(_mm256_castsi256_ps(mlo), _mm256_castsi256_ps(mhi), 0x88));
    return _mm256_castps_si256(_mm256_shuffle_ps(lo, hi, 0x88));
}

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

/* Eight operands of `size` bytes (8: as v_load8, 1, 2, 4: in order; the
 * parity of k is kept either way), low 32 bits of each. */
V_FN __m256i v_load8_n(const void *p, const int size)
{
    if (size == 1) return _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)p));
    if (size == 2) return _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)p));
    if (size == 4) return _mm256_loadu_si256((const __m256i *)p);
    return v_load8((const uint64_t *)p);
}

/* the first n (1..7) of eight such, zeros after, as v_load_part (no byte
 * read past the n-th element) */
V_FN __m256i v_load_part_n(const void *p, const int size, int n, __m256i *valid)
{
    if (size == 8) return v_load_part((const uint64_t *)p, n, valid);
    *valid = _mm256_cmpgt_epi32(_mm256_set1_epi32(n), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
    if (size == 4) return _mm256_maskload_epi32((const int *)p, *valid);
    unsigned char t[16] = {0};                            /* (1 or 2 bytes) */
    memcpy(t, p, (size_t)n * (size_t)size);
    __m128i x = _mm_loadu_si128((const __m128i *)t);
    return size == 1 ? _mm256_cvtepu8_epi32(x) : _mm256_cvtepu16_epi32(x);
}

/* Group g of eight operands of a and b (the last group holding `part`
 * operands when part > 0), of as and bs bytes each (fast_nat_size, or 8
 * for uint64_t; both 8 or neither, the lane orders differing), shifted first where tf (tf32) and decoded: the raw
 * lanes, significands, max(biased exponent, 1), Inf/NaN lanes or'ed into
 * *spec, the loaded lanes in *valid (part > 0). */
V_FN void v_operands_n(const void *a, const void *b, const int as, const int bs, int g, const int part,
                       const int tf, const fast_vop *ka, const fast_vop *kb, const int32_t *one, __m256i *xa,
                       __m256i *xb, __m256i *sa, __m256i *sb, __m256i *ea, __m256i *eb, __m256i *valid,
                       __m256i *spec)
{
    const void *pa = fast_at(a, as, 8 * (size_t)g), *pb = fast_at(b, bs, 8 * (size_t)g);
    if (part) {
        *xa = v_load_part_n(pa, as, part, valid);
        *xb = v_load_part_n(pb, bs, part, valid);
    } else {
        *xa = v_load8_n(pa, as);
        *xb = v_load8_n(pb, bs);
    }
    if (tf) {
        *xa = _mm256_srl_epi32(*xa, V_CNT(ka->shr));
        *xb = _mm256_srl_epi32(*xb, V_CNT(kb->shr));
    }
    v_decode(*xa, ka, one, sa, ea, spec);
    v_decode(*xb, kb, one, sb, eb, spec);
}

/* the same on uint64_t operands */
V_FN void v_operands(const uint64_t *a, const uint64_t *b, int g, const int part, const int tf, const fast_vop *ka,
                     const fast_vop *kb, const int32_t *one, __m256i *xa, __m256i *xb, __m256i *sa, __m256i *sb,
                     __m256i *ea, __m256i *eb, __m256i *valid, __m256i *spec)
{
    v_operands_n(a, b, 8, 8, g, part, tf, ka, kb, one, xa, xb, sa, sb, ea, eb, valid, spec);
}

/* Eight vectors' 16 bytes each (vector v at p + v * stride) turned so
 * that d[j]'s lane v holds bytes 4j .. 4j+3 of vector v: a batch loop
 * with a vector a lane (8 fp16 or 16 fp8 operands of a step) */
V_FN void v_load8x16_t(const char *p, size_t stride, __m256i d[4])
{
    __m256i y[4];
#pragma GCC unroll 4
    for (int v = 0; v < 4; v++)
        y[v] = _mm256_inserti128_si256(_mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)(p + (size_t)v * stride))),
                                       _mm_loadu_si128((const __m128i *)(p + (size_t)(v + 4) * stride)), 1);
    __m256i t0 = _mm256_unpacklo_epi32(y[0], y[1]), t1 = _mm256_unpackhi_epi32(y[0], y[1]);
    __m256i t2 = _mm256_unpacklo_epi32(y[2], y[3]), t3 = _mm256_unpackhi_epi32(y[2], y[3]);
    d[0] = _mm256_unpacklo_epi64(t0, t2);
    d[1] = _mm256_unpackhi_epi64(t0, t2);
    d[2] = _mm256_unpacklo_epi64(t1, t3);
    d[3] = _mm256_unpackhi_epi64(t1, t3);
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
#endif

#endif
