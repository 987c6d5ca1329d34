/* The fast path of the algorithms made of IEEE operations (alg_ieee.c):
 *  - GPS (AMD CDNA2 fp16/bf16): operands decoded to binary32 through a
 *    table (fp16) or a shift (bf16), flushed as the reference flushes them,
 *    then the same products, pairwise sums and chain, with the flushes done
 *    on the bits;
 *  - SFMA: the fma chain alone (the hardware's fma where there is one; an
 *    fma is exactly rounded, so any gives the same bits), the reference only
 *    when the result is NaN (a NaN anywhere reaches the end, and the
 *    reference's NaN rules then decide the payload).
 * The host's binary32 arithmetic is IEEE round-to-nearest-even, as the
 * reference's.  A NaN that the operations make themselves is the host's
 * default NaN whatever the order of the operands, so results agree bit for
 * bit unless an operand is a NaN; then a unit that leaves the payload open
 * (nan=any, every AMD unit) takes the NaN that comes out here, and any
 * other unit the reference. */
#include "fast.h"

#include <math.h>
#include <stdlib.h>

typedef struct {
    fast_hdr h;
    int k, g, anynan;
    mma_fmt a, b, c;
    const uint32_t *fa, *fb, *fc;    /* 16-bit operand -> flushed binary32 bits */
} ieee_plan;
#define PLAN(h) ((const ieee_plan *)(h))

/* ---- GPS ------------------------------------------------------------------ */

static int pairwise_ok(const mma_unit *u)
{
    return u->tree == MMA_TREE_PAIRWISE && (u->a == MMA_FMT_FP16 || u->a == MMA_FMT_BF16) &&
           (u->b == MMA_FMT_FP16 || u->b == MMA_FMT_BF16) &&
           (u->c == MMA_FMT_FP32 || u->c == MMA_FMT_FP16 || u->c == MMA_FMT_BF16) && u->d == MMA_FMT_FP32 &&
           u->g >= 1 && u->g <= 64 && !(u->g & (u->g - 1)) && u->k % u->g == 0;
}

/* fp16 and bf16 as alg_ieee.c's f32_from makes them (a NaN is the quiet
 * NaN 0x7fc00000), then flushed to +0 below the format's smallest normal */
#define QNAN 0x7fc00000u
static uint32_t *f32tab[2];

static uint32_t flushed(mma_fmt f, uint64_t bits)
{
    mma_value v = mma_decode(f, bits);
    float x;
    switch (v.cls) {
    case MMA_NAN: return QNAN;
    case MMA_INF: x = INFINITY; break;
    case MMA_ZERO: return 0;
    default:
        if (63 - __builtin_clzll(v.sig) + v.exp < mma_format(f)->emin) return 0;
        x = ldexpf((float)v.sig, v.exp);
        break;
    }
    if (v.neg) x = -x;
    uint32_t w;
    memcpy(&w, &x, 4);
    return w;
}

static const uint32_t *flush_table(mma_fmt f)
{
    int i = f == MMA_FMT_BF16;
    uint32_t *t = __atomic_load_n(&f32tab[i], __ATOMIC_ACQUIRE);
    if (t) return t;
    t = malloc(sizeof(uint32_t) * 65536);
    if (!t) return NULL;
    for (uint32_t x = 0; x < 65536; x++) t[x] = flushed(f, x);
    uint32_t *expected = NULL;
    if (!__atomic_compare_exchange_n(&f32tab[i], &expected, t, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
        free(t);
        return expected;
    }
    return t;
}

static inline float f_of(uint32_t w) { float f; memcpy(&f, &w, 4); return f; }
static inline uint32_t w_of(float f) { uint32_t w; memcpy(&w, &f, 4); return w; }

/* |x| < 2^-126 (a zero or subnormal): the zero of x's sign */
static inline float ftz(float x)
{
    uint32_t w = w_of(x);
    return f_of((w & 0x7f800000u) ? w : w & 0x80000000u);
}

static inline float pairwise(const float *p, int n)
{
    if (n == 1) return p[0];
    if (n == 2) return ftz(p[0] + p[1]);
    if (n == 4) return ftz(ftz(p[0] + p[1]) + ftz(p[2] + p[3]));
    return ftz(pairwise(p, n / 2) + pairwise(p + n / 2, n - n / 2));
}

static __attribute__((noinline)) uint64_t reference(const fast_hdr *h, uint64_t c, const uint64_t *a,
                                                    const uint64_t *b, const uint64_t *sa, const uint64_t *sb)
{
    return mma_dot(&h->u, c, a, b, sa, sb);      /* (h->u: impl 1) */
}

static uint64_t gps_dot(const fast_hdr *h, uint64_t c, const uint64_t *a, const uint64_t *b,
                        const uint64_t *sa, const uint64_t *sb)
{
    const ieee_plan *P = PLAN(h);
    const uint32_t *fa = P->fa, *fb = P->fb;
    const int k = P->k, g = P->g;
    float p[MMA_MAX_K];
    uint32_t nan = 0;
    for (int i = 0; i < k; i++) {
        uint32_t x = fa[a[i] & 0xffff], y = fb[b[i] & 0xffff];
        nan |= (x == QNAN) | (y == QNAN);
        p[i] = ftz(f_of(x) * f_of(y));
    }
    uint32_t wc = P->fc ? P->fc[c & 0xffff] : (uint32_t)c;
    if (!P->fc) {
        nan |= (wc & 0x7fffffffu) > 0x7f800000u;
        if (!(wc & 0x7f800000u)) wc = 0;          /* flushed to +0 */
    } else {
        nan |= wc == QNAN;
    }
    if (__builtin_expect(nan && !P->anynan, 0)) return reference(h, c, a, b, sa, sb);
    float d = f_of(wc);
    for (int k0 = 0; k0 < k; k0 += g) d = ftz(d + pairwise(p + k0, g));
    return w_of(d);
}

/* ---- SFMA ----------------------------------------------------------------- */

static int fma_ok(const mma_unit *u)
{
    return u->tree == MMA_TREE_FMA && (u->d == MMA_FMT_FP64 || u->d == MMA_FMT_FP32) && u->a == u->d &&
           u->b == u->d && u->c == u->d;
}

static inline double d_of(uint64_t w) { double f; memcpy(&f, &w, 8); return f; }
static inline uint64_t w64_of(double f) { uint64_t w; memcpy(&w, &f, 8); return w; }

#define FMA_BODY                                                                                   \
    const ieee_plan *P = PLAN(h);                                                                  \
    if (P->h.u.d == MMA_FMT_FP64) {                                                                \
        double d = d_of(c);                                                                        \
        for (int i = 0; i < P->k; i++) d = FMA64(d_of(a[i]), d_of(b[i]), d);                       \
        if (__builtin_expect(d == d, 1)) return w64_of(d);                                         \
    } else {                                                                                       \
        float d = f_of((uint32_t)c);                                                               \
        for (int i = 0; i < P->k; i++) d = FMA32(f_of((uint32_t)a[i]), f_of((uint32_t)b[i]), d);   \
        if (__builtin_expect(d == d, 1)) return w_of(d);                                           \
    }                                                                                              \
    return reference(h, c, a, b, sa, sb);

static uint64_t fma_dot(const fast_hdr *h, uint64_t c, const uint64_t *a, const uint64_t *b,
                        const uint64_t *sa, const uint64_t *sb)
{
#define FMA64 fma
#define FMA32 fmaf
    FMA_BODY
#undef FMA64
#undef FMA32
}

#ifdef FAST_HAVE_AVX2
static __attribute__((target("fma"))) uint64_t fma_dot_hw(const fast_hdr *h, uint64_t c, const uint64_t *a,
                                                          const uint64_t *b, const uint64_t *sa,
                                                          const uint64_t *sb)
{
#define FMA64 __builtin_fma
#define FMA32 __builtin_fmaf
    FMA_BODY
#undef FMA64
#undef FMA32
}
#endif

/* ---- the family ------------------------------------------------------------ */

static int ieee_ok(const mma_unit *u) { return !(u->flags & MMA_F_VIA_FP16) && (pairwise_ok(u) || fma_ok(u)); }

static fast_hdr *ieee_build(const mma_unit *u, int mode)
{
    ieee_plan *P = calloc(1, sizeof *P);
    if (!P) return NULL;
    P->k = u->k;
    P->g = u->g;
    P->anynan = (u->flags & MMA_F_NAN_ANY) != 0;
    P->h.kernel = FAST_K_SCALAR;
    if (u->tree == MMA_TREE_PAIRWISE) {
        P->fa = flush_table(u->a);
        P->fb = flush_table(u->b);
        P->fc = u->c == MMA_FMT_FP32 ? NULL : flush_table(u->c);
        if (!P->fa || !P->fb || (u->c != MMA_FMT_FP32 && !P->fc)) { free(P); return NULL; }
        P->h.fn = gps_dot;
        return &P->h;
    }
    P->h.fn = fma_dot;
#ifdef FAST_HAVE_AVX2
    __builtin_cpu_init();
    if (mode != FAST_MODE_SCALAR && __builtin_cpu_supports("fma")) {
        P->h.fn = fma_dot_hw;
        P->h.kernel = FAST_K_SPECIAL;
    }
#else
    (void)mode;
#endif
    return &P->h;
}

const fast_family fast_ieee_family = {ieee_ok, ieee_build};
