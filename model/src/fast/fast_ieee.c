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
 * reference's.  A NaN result is the reference's (the unit's nan= rule)
 * for a unit that fixes the payload; one that leaves it open (nan=any,
 * every AMD unit) takes the NaN that comes out here.
 * Batches (fast_bfn) of both go through batch loops, a vector a SIMD
 * lane, which keep each one-vector kernel's operations and NaN rules and
 * are what makes these units fast on one core ("batch loops" below, with
 * what they measured). */
#include "fast.h"

#include <math.h>
#include <stdlib.h>

typedef struct {
    fast_hdr h;
    int k, g;
    int gnan_fixed;                  /* GPS: a NaN result is gnan (the unit's NaN is one encoding) */
    uint32_t gnan;
    int abf, bbf;                    /* gps_v: a, b bf16 (else fp16) */
    uint64_t dnan;                   /* SFMA: the reference's NaN of an invalid fma */
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
    return mma_ref_dot(&h->u, c, a, b, sa, sb);
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
    /* (a NaN operand makes a NaN result; nan=prop's payload: the reference) */
    if (__builtin_expect(nan && !P->gnan_fixed, 0)) return reference(h, c, a, b, sa, sb);
    float d = f_of(wc);
    for (int k0 = 0; k0 < k; k0 += g) d = ftz(d + pairwise(p + k0, g));
    if (__builtin_expect(d != d, 0)) return P->gnan_fixed ? P->gnan : reference(h, c, a, b, sa, sb);
    return w_of(d);
}

#ifdef FAST_HAVE_AVX2
/* GPS on eight products a vector (K = 8 or 16, G = 2 or 4, fp32 c, a
 * unit whose NaN is one encoding): the operands as the tables have them,
 * the products and the pairwise sums as the scalar kernel makes them,
 * then the chain in order; a NaN result the unit's NaN. */
V_FN __m256 v_ftz(__m256 x)           /* ftz: a subnormal to the zero of its sign */
{
    const __m256i em = _mm256_set1_epi32(0x7f800000), mag = _mm256_set1_epi32(0x7fffffff);
    __m256i z = _mm256_cmpeq_epi32(_mm256_and_si256(_mm256_castps_si256(x), em), _mm256_setzero_si256());
    return _mm256_andnot_ps(_mm256_castsi256_ps(_mm256_and_si256(z, mag)), x);
}

/* The binary32 of eight operands p[0..7] in order, as flushed() makes
 * them (zeros and subnormals +0, a NaN the quiet NaN), decoded
 * arithmetically: bf16 is binary32's top half, fp16 converts exactly
 * (F16C).  (Gathers through the tables: 1.6 times slower on AMD Zen 2.) */
#define GPS_FN static inline __attribute__((always_inline, target(FAST_ISA_AVX2_F16C)))
#define GPS_TARGET __attribute__((target(FAST_ISA_AVX2_F16C)))
/* (p: eight operands of S bytes, 8 or 2 (uint16_t, then h holds them as
 * they lie and fp16 converts straight from it)) */
GPS_FN __m256 v_dec8(const void *p, const int S, const int bf)
{
    __m256i x;
    __m128i h;
    if (S == 2) {
        h = _mm_loadu_si128((const __m128i *)p);
        x = _mm256_cvtepu16_epi32(h);
    } else {
        x = _mm256_and_si256(_mm256_permute4x64_epi64(v_load8((const uint64_t *)p), 0xd8), _mm256_set1_epi32(0xffff));
        h = _mm_packus_epi32(_mm256_castsi256_si128(x), _mm256_extracti128_si256(x, 1));
    }
    const __m256i em = _mm256_set1_epi32(bf ? 0x7f80 : 0x7c00), m15 = _mm256_set1_epi32(0x7fff);
    __m256 f = bf ? _mm256_castsi256_ps(_mm256_slli_epi32(x, 16)) : _mm256_cvtph_ps(h);
    __m256i z = _mm256_cmpeq_epi32(_mm256_and_si256(x, em), _mm256_setzero_si256());
    __m256i nan = _mm256_cmpgt_epi32(_mm256_and_si256(x, m15), em);
    f = _mm256_andnot_ps(_mm256_castsi256_ps(z), f);
    return _mm256_blendv_ps(f, _mm256_castsi256_ps(_mm256_set1_epi32((int)QNAN)), _mm256_castsi256_ps(nan));
}

/* the scalar kernel on operands of S bytes (8, or 2 widened here first) */
static inline __attribute__((always_inline)) uint64_t gps_dot_n(const fast_hdr *h, uint64_t c, const void *a,
                                                                const void *b, const int S, const int K)
{
    uint64_t wa[16], wb[16];
    return gps_dot(h, c, fast_widen(a, S, K, wa), fast_widen(b, S, K, wb), NULL, NULL);
}

/* (operands of S bytes: 8, or 2) */
static inline __attribute__((always_inline)) GPS_TARGET uint64_t gps_v(const fast_hdr *h, uint64_t c, const void *a,
                                                                    const void *b, const int S, const int K,
                                                                    const int G)
{
    const ieee_plan *P = PLAN(h);
    __m256 xa = v_dec8(a, S, P->abf), xb = v_dec8(b, S, P->bbf), ya = xa, yb = xb;
    if (K == 16) {
        ya = v_dec8(fast_at(a, S, 8), S, P->abf);
        yb = v_dec8(fast_at(b, S, 8), S, P->bbf);
    }
    __m256 p0 = v_ftz(_mm256_mul_ps(xa, xb)), p1 = v_ftz(_mm256_mul_ps(ya, yb));
    /* pair sums: lanes 0 1 | 4 5 of p0's pairs, 2 3 | 6 7 of p1's */
    __m256 s = v_ftz(_mm256_add_ps(_mm256_shuffle_ps(p0, p1, 0x88), _mm256_shuffle_ps(p0, p1, 0xdd)));
    float g[8];
    int n = K / G, ord[8];
    if (G == 4) {                               /* lanes 0 | 4: p0's groups; 1 | 5: p1's */
        s = v_ftz(_mm256_add_ps(_mm256_shuffle_ps(s, s, 0x88), _mm256_shuffle_ps(s, s, 0xdd)));
        ord[0] = 0; ord[1] = 4; ord[2] = 1; ord[3] = 5;
    } else {
        ord[0] = 0; ord[1] = 1; ord[2] = 4; ord[3] = 5; ord[4] = 2; ord[5] = 3; ord[6] = 6; ord[7] = 7;
    }
    _mm256_storeu_ps(g, s);
    uint32_t wc = (uint32_t)c;
    if (!(wc & 0x7f800000u)) wc = 0;                  /* flushed to +0 */
    float d = f_of(wc);
    for (int i = 0; i < n; i++) d = ftz(d + g[ord[i]]);
    if (__builtin_expect(d == d, 1)) return w_of(d);
    return P->gnan_fixed ? P->gnan : gps_dot_n(h, c, a, b, S, K);     /* (the unit's NaN) */
}

/* K = 2 or 4 in the low lanes of one 128-bit vector, as gps_v does it
 * (the NaN the same way) */
V_FN __m128 v_ftz4(__m128 x)
{
    __m128i z = _mm_cmpeq_epi32(_mm_and_si128(_mm_castps_si128(x), _mm_set1_epi32(0x7f800000)), _mm_setzero_si128());
    return _mm_andnot_ps(_mm_castsi128_ps(_mm_and_si128(z, _mm_set1_epi32(0x7fffffff))), x);
}

static inline __attribute__((always_inline)) V_TARGET uint64_t gps_v4(const fast_hdr *h, uint64_t c, const void *a,
                                                                     const void *b, const int S, const int K,
                                                                     const int G)
{
    const ieee_plan *P = PLAN(h);
    const uint32_t *fa = P->fa, *fb = P->fb;          /* (loads: gathers are slow on Zen 2) */
#define FA(i) (int)fa[fast_ld(a, S, i) & 0xffff]
#define FB(i) (int)fb[fast_ld(b, S, i) & 0xffff]
    __m128i ia, ib;
    if (K == 4) {
        ia = _mm_set_epi32(FA(3), FA(2), FA(1), FA(0));
        ib = _mm_set_epi32(FB(3), FB(2), FB(1), FB(0));
    } else {
        ia = _mm_set_epi32(0, 0, FA(1), FA(0));
        ib = _mm_set_epi32(0, 0, FB(1), FB(0));
    }
#undef FA
#undef FB
    __m128 p = v_ftz4(_mm_mul_ps(_mm_castsi128_ps(ia), _mm_castsi128_ps(ib)));
    /* lanes 0 1: the pair sums */
    __m128 s = v_ftz4(_mm_add_ps(_mm_shuffle_ps(p, p, 0x88), _mm_shuffle_ps(p, p, 0xdd)));
    float g[4];
    if (G == 4) s = v_ftz4(_mm_add_ps(s, _mm_shuffle_ps(s, s, 0x55)));   /* lane 0: the group */
    _mm_storeu_ps(g, s);
    uint32_t wc = (uint32_t)c;
    if (!(wc & 0x7f800000u)) wc = 0;                  /* flushed to +0 */
    float d = f_of(wc);
    for (int i = 0; i < K / G; i++) d = ftz(d + g[i]);
    if (__builtin_expect(d == d, 1)) return w_of(d);
    return P->gnan_fixed ? P->gnan : gps_dot_n(h, c, a, b, S, K);
}

/* each kernel on uint64_t operands (fast_fn) and on uint16_t ones (NAME_n,
 * a fast_nfn) */
#define GPS_V(NAME, BODY, TGT, K, G)                                                               \
    static TGT uint64_t NAME(const fast_hdr *h, uint64_t c, const uint64_t *a, const uint64_t *b,  \
                             const uint64_t *sa, const uint64_t *sb)                               \
    {                                                                                              \
        (void)sa;                                                                                  \
        (void)sb;                                                                                  \
        return BODY(h, c, a, b, 8, K, G);                                                          \
    }                                                                                              \
    static TGT uint64_t NAME##_n(const fast_hdr *h, uint64_t c, const void *a, const void *b, const void *sa, \
                                 const void *sb)                                                   \
    {                                                                                              \
        (void)sa;                                                                                  \
        (void)sb;                                                                                  \
        return BODY(h, c, a, b, 2, K, G);                                                          \
    }
GPS_V(gps_v4g4, gps_v4, V_TARGET, 4, 4)
GPS_V(gps_v4g2, gps_v4, V_TARGET, 4, 2)
GPS_V(gps_v2g2, gps_v4, V_TARGET, 2, 2)
GPS_V(gps_v8g4, gps_v, GPS_TARGET, 8, 4)
GPS_V(gps_v16g4, gps_v, GPS_TARGET, 16, 4)
GPS_V(gps_v8g2, gps_v, GPS_TARGET, 8, 2)
GPS_V(gps_v16g2, gps_v, GPS_TARGET, 16, 2)
#undef GPS_V
#endif

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
static __attribute__((target(FAST_ISA_FMA))) uint64_t fma_dot_hw(const fast_hdr *h, uint64_t c, const uint64_t *a,
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

/* ---- batch loops: a vector a lane ------------------------------------------ */

/* Why: the one-vector kernels above are a chain of dependent IEEE
 * operations (K fmas; GPS's products, pair sums and the chain of group
 * sums), so one vector at a time waits on each operation's latency and
 * leaves the vector units idle.  A batch (fast_bfn) has many independent
 * vectors: here lane j of a SIMD register carries vector lo + j through
 * exactly the scalar kernel's operations in the scalar kernel's order
 * (IEEE operations on binary32 / binary64, round to nearest even, the same
 * flushes on the bits), so each lane's bits are that kernel's bits.  A lane
 * whose result is a NaN takes the reference's NaN rule: SFMA's done again
 * with the rule on the lanes (SFMA_RANGE), GPS's the unit's one NaN
 * (GPS_RANGE); a range's tail of fewer vectors than lanes goes through the
 * one-vector kernel.
 *
 * The operands of lane j lie at (lo + j) * K, and the lanes' element e
 * comes from contiguous registers by unzips (B_ROWS, B_BLOCK).  Measured
 * on one core of AMD Zen 4 (random-bit files of 100,000 vectors, mmaref
 * bench --file, best of 3), in dot products a second:
 *                             one-vector   AVX-512 lanes:        AVX2 lanes
 *                             kernel       gathered   unzipped   (unzipped)
 *   DMMA f64 K=4 (hopper)        228 M       276 M      734 M      317 M
 *   SFMA f32 K=4 (cdna3)         154 M       265 M      703 M      426 M
 *   GPS f16 K=16 G=4 (cdna2)      47 M        90 M      187 M      102 M
 * (gathered: vgatherdpd / vpgatherdd, a register of element e; unzipped
 * with the lanes to do again collected without a branch (GPS now needs none); AVX2:
 * MMAREF_NO_AVX512=1.)  Those SFMA figures sent each NaN lane to the
 * reference; its registers with a NaN done again on the lanes with the NaN
 * rule (SFMA_RANGE) took fp32 from 0.70 to 1.0 G dot/s (without NaNs,
 * bench's normal inputs, it takes 1.5 G). */
#ifdef FAST_HAVE_AVX2
/* (AVX2 lane sets: B2 the common pieces, F2 with fma (SFMA), GPS_* with
 * f16c (GPS), each asked for only where the plan checked it) */
#define B2_FN static inline __attribute__((always_inline, target(FAST_ISA_AVX2)))
#define F2_TARGET __attribute__((target(FAST_ISA_AVX2_FMA)))
#define F2_FN static inline __attribute__((always_inline, target(FAST_ISA_AVX2_FMA)))
#define B5_TARGET __attribute__((target(FAST_ISA_AVX512_FMA_F16C)))
#define B5_FN static inline __attribute__((always_inline, target(FAST_ISA_AVX512_FMA_F16C)))

/* One lane set X a vector width: X_v the lanes, X_e an element's bits,
 * X_W lanes; X_ld / X_st: W contiguous elements; X_unzip: the even
 * elements of two registers (in order) and their odd ones; X_nan: the
 * lanes holding a NaN, a bit each.  d8 / s16 AVX-512 (binary64 /
 * binary32), d4 / s8 AVX2. */
typedef __m512d d8_v; typedef uint64_t d8_e; enum { d8_W = 8 };
typedef __m256d d4_v; typedef uint64_t d4_e; enum { d4_W = 4 };
typedef __m512 s16_v; typedef uint32_t s16_e; enum { s16_W = 16 };
typedef __m256 s8_v; typedef uint32_t s8_e; enum { s8_W = 8 };

B5_FN d8_v d8_ld(const void *p) { return _mm512_loadu_pd(p); }
B2_FN d4_v d4_ld(const void *p) { return _mm256_loadu_pd((const double *)p); }
B5_FN s16_v s16_ld(const void *p) { return _mm512_loadu_ps(p); }
B2_FN s8_v s8_ld(const void *p) { return _mm256_loadu_ps((const float *)p); }
B5_FN void d8_st(void *p, d8_v v) { _mm512_storeu_pd(p, v); }
B2_FN void d4_st(void *p, d4_v v) { _mm256_storeu_pd((double *)p, v); }
B5_FN void s16_st(void *p, s16_v v) { _mm512_storeu_ps(p, v); }
B2_FN void s8_st(void *p, s8_v v) { _mm256_storeu_ps((float *)p, v); }

B5_FN void d8_unzip(d8_v a, d8_v b, d8_v *ev, d8_v *od)
{
    const __m512i i = _mm512_setr_epi64(0, 2, 4, 6, 8, 10, 12, 14);
    *ev = _mm512_permutex2var_pd(a, i, b);
    *od = _mm512_permutex2var_pd(a, _mm512_add_epi64(i, _mm512_set1_epi64(1)), b);
}
B5_FN void s16_unzip(s16_v a, s16_v b, s16_v *ev, s16_v *od)
{
    const __m512i i = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
    *ev = _mm512_permutex2var_ps(a, i, b);
    *od = _mm512_permutex2var_ps(a, _mm512_add_epi32(i, _mm512_set1_epi32(1)), b);
}
B2_FN void d4_unzip(d4_v a, d4_v b, d4_v *ev, d4_v *od)     /* (a0 b0 a2 b2 -> a0 a2 b0 b2) */
{
    *ev = _mm256_permute4x64_pd(_mm256_unpacklo_pd(a, b), 0xd8);
    *od = _mm256_permute4x64_pd(_mm256_unpackhi_pd(a, b), 0xd8);
}
B2_FN void s8_unzip(s8_v a, s8_v b, s8_v *ev, s8_v *od)     /* (in 128-bit halves, then the halves) */
{
    *ev = _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(_mm256_shuffle_ps(a, b, 0x88)), 0xd8));
    *od = _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(_mm256_shuffle_ps(a, b, 0xdd)), 0xd8));
}

/* A mask register's bits in a general register: GCC 12 at -O1 with
 * -fsanitize=address,undefined spilled a __mmask8 made unsigned with kmovb
 * (one byte) and read the slot back with a 32-bit popcnt, three bytes of
 * garbage above (make test-fastpath-sanitize, fma fp64 k=1: a lane done
 * again that was not one) */
static inline __attribute__((always_inline)) unsigned b_kbits(unsigned m)
{
    __asm__("" : "+r"(m));
    return m;
}
B5_FN unsigned d8_nan(d8_v v) { return b_kbits(_cvtmask8_u32(_mm512_cmp_pd_mask(v, v, _CMP_UNORD_Q))); }
B2_FN unsigned d4_nan(d4_v v) { return (unsigned)_mm256_movemask_pd(_mm256_cmp_pd(v, v, _CMP_UNORD_Q)); }
B5_FN unsigned s16_nan(s16_v v) { return b_kbits(_cvtmask16_u32(_mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q))); }
B2_FN unsigned s8_nan(s8_v v) { return (unsigned)_mm256_movemask_ps(_mm256_cmp_ps(v, v, _CMP_UNORD_Q)); }

B5_FN d8_v d8_fma(d8_v a, d8_v b, d8_v c) { return _mm512_fmadd_pd(a, b, c); }
F2_FN d4_v d4_fma(d4_v a, d4_v b, d4_v c) { return _mm256_fmadd_pd(a, b, c); }
B5_FN s16_v s16_fma(s16_v a, s16_v b, s16_v c) { return _mm512_fmadd_ps(a, b, c); }
F2_FN s8_v s8_fma(s8_v a, s8_v b, s8_v c) { return _mm256_fmadd_ps(a, b, c); }

/* One step of SFMA's NaN rule (mma_alg_fma) on the lanes: a step that meets
 * NaNs gives the first of y (b_k), d, x (a_k) that is one, quieted; an fma
 * that makes a NaN itself (0 x Inf, Inf - Inf) gives the reference's
 * default NaN dn.  The later selects win, so they come in reverse order. */
#define B5_NSTEP(X, S, MASK, QBIT)                                                                 \
    B5_FN X##_v X##_nstep(X##_v x, X##_v y, X##_v d, X##_v dn)                                     \
    {                                                                                              \
        const __m512i q = QBIT;                                                                    \
        const MASK nx = _mm512_cmp_##S##_mask(x, x, _CMP_UNORD_Q), ny = _mm512_cmp_##S##_mask(y, y, _CMP_UNORD_Q), \
                   nd = _mm512_cmp_##S##_mask(d, d, _CMP_UNORD_Q);                                 \
        X##_v r = _mm512_fmadd_##S(x, y, d);                                                       \
        r = _mm512_mask_mov_##S(r, _mm512_cmp_##S##_mask(r, r, _CMP_UNORD_Q), dn);                 \
        r = _mm512_mask_mov_##S(r, nx, _mm512_castsi512_##S(_mm512_or_si512(_mm512_cast##S##_si512(x), q))); \
        r = _mm512_mask_mov_##S(r, nd, _mm512_castsi512_##S(_mm512_or_si512(_mm512_cast##S##_si512(d), q))); \
        return _mm512_mask_mov_##S(r, ny, _mm512_castsi512_##S(_mm512_or_si512(_mm512_cast##S##_si512(y), q))); \
    }
#define F2_NSTEP(X, S, QBIT)                                                                       \
    F2_FN X##_v X##_nstep(X##_v x, X##_v y, X##_v d, X##_v dn)                                     \
    {                                                                                              \
        const X##_v q = _mm256_castsi256_##S(QBIT);                                                \
        X##_v r = _mm256_fmadd_##S(x, y, d);                                                       \
        r = _mm256_blendv_##S(r, dn, _mm256_cmp_##S(r, r, _CMP_UNORD_Q));                          \
        r = _mm256_blendv_##S(r, _mm256_or_##S(x, q), _mm256_cmp_##S(x, x, _CMP_UNORD_Q));         \
        r = _mm256_blendv_##S(r, _mm256_or_##S(d, q), _mm256_cmp_##S(d, d, _CMP_UNORD_Q));         \
        return _mm256_blendv_##S(r, _mm256_or_##S(y, q), _mm256_cmp_##S(y, y, _CMP_UNORD_Q));     \
    }
B5_NSTEP(d8, pd, __mmask8, _mm512_set1_epi64((long long)0x0008000000000000ull))
B5_NSTEP(s16, ps, __mmask16, _mm512_set1_epi32(0x00400000))
F2_NSTEP(d4, pd, _mm256_set1_epi64x((long long)0x0008000000000000ull))
F2_NSTEP(s8, ps, _mm256_set1_epi32(0x00400000))
#undef B5_NSTEP
#undef F2_NSTEP

/* R registers of R elements each, register r from p + r S (elements),
 * transposed: lane j of E[e] is element e of register j; or, for R < W, R
 * contiguous registers of W vectors of R elements each (S = W), and lane j
 * of E[e] is element e of vector j.  Element e of vector j is number
 * f = j R + e either way; an unzip of every pair of registers moves number
 * f to (f >> 1) + (f & 1) W R / 2 (a rotation of its bits), so log2 R of
 * them take it to e W + j. */
#define B_ROWS(X, p, R, S, E)                                                                      \
    do {                                                                                           \
        _Pragma("GCC unroll 16") for (int r_ = 0; r_ < (R); r_++) E[r_] = X##_ld((const X##_e *)(p) + r_ * (S)); \
        _Pragma("GCC unroll 4") for (int s_ = 1; s_ < (R); s_ *= 2) {                              \
            X##_v T_[R];                                                                           \
            _Pragma("GCC unroll 8") for (int q_ = 0; q_ < (R) / 2; q_++)                           \
                X##_unzip(E[2 * q_], E[2 * q_ + 1], &T_[q_], &T_[(R) / 2 + q_]);                   \
            _Pragma("GCC unroll 16") for (int r_ = 0; r_ < (R); r_++) E[r_] = T_[r_];              \
        }                                                                                          \
    } while (0)
/* The lanes' elements in blocks of B_KB(X, K): all K where K < W (log2 K
 * unzips), else W at a time from the W vectors (log2 W unzips, W by W):
 * fp64 K=16 on four lanes took 93 M dot/s with its 16 elements unzipped
 * at once (four unzips, registers spilled), against 123 M for the
 * one-vector kernel. */
#define B_KB(X, K) ((K) < X##_W ? (K) : X##_W)
#define B_BLOCK(X, p, K, e0, E) B_ROWS(X, (p) + (e0), B_KB(X, K), (K) < X##_W ? X##_W : (K), E)

/* c (or d) of the W vectors from i: one load where the batch holds them at
 * the element's width, else element by element (cut to the element, as
 * the one-vector kernels cut c) */
#define B_LDC(X, x, i, t)                                                                          \
    (x->c_size == (int)sizeof(X##_e) ? X##_ld((const X##_e *)x->c + (i))                          \
                                      : (b_fill(t, sizeof(X##_e), x->c, x->c_size, i, X##_W), X##_ld(t)))
#define B_STD(X, x, i, v, t)                                                                       \
    do {                                                                                           \
        if (x->d_size == (int)sizeof(X##_e)) X##_st((X##_e *)x->d + (i), v);                      \
        else {                                                                                     \
            X##_st(t, v);                                                                          \
            for (int j_ = 0; j_ < X##_W; j_++) fast_st(x->d, x->d_size, (i) + j_, fast_ld(t, sizeof(X##_e), j_)); \
        }                                                                                          \
    } while (0)
static inline void b_fill(void *t, int es, const void *p, int size, size_t i, int w)
{
    for (int j = 0; j < w; j++) fast_st(t, es, (size_t)j, fast_ld(p, size, i + (size_t)j));
}

/* (a window of B_SB vectors: the SFMA NaN rule's redo, below) */
#define B_SB 256
/* whether d's vectors lo .. hi-1 overlap c's */
static inline int b_overlap(const mma_batch *x, size_t lo, size_t hi)
{
    uintptr_t c0 = (uintptr_t)x->c + lo * (size_t)x->c_size, c1 = (uintptr_t)x->c + hi * (size_t)x->c_size;
    uintptr_t d0 = (uintptr_t)x->d + lo * (size_t)x->d_size, d1 = (uintptr_t)x->d + hi * (size_t)x->d_size;
    return c0 < d1 && d0 < c1;
}

/* SFMA: vector i, with c, through the plan's one-vector kernel (a range's
 * tail of fewer vectors than lanes) */
static uint64_t sfma_one(const fast_hdr *h, const mma_batch *x, size_t i, uint64_t c, int es)
{
    const size_t k = (size_t)PLAN(h)->k;
    uint64_t wa[MMA_MAX_K], wb[MMA_MAX_K];
    const uint64_t *a = fast_widen(fast_at(x->a, es, i * k), es, (int)k, wa);
    const uint64_t *b = fast_widen(fast_at(x->b, es, i * k), es, (int)k, wb);
    return h->fn(h, c, a, b, NULL, NULL);
}

/* The K steps of the W vectors from i, d from c: fmas, or with RULE the
 * steps of the NaN rule (X_nstep) */
#define SFMA_CHAIN(X, K, i, d, RULE)                                                               \
    _Pragma("GCC unroll 4") for (int e0 = 0; e0 < K; e0 += B_KB(X, K)) {                           \
        X##_v ea[B_KB(X, K)], eb[B_KB(X, K)];                                                      \
        B_BLOCK(X, a + (i) * K, K, e0, ea);                                                        \
        B_BLOCK(X, b + (i) * K, K, e0, eb);                                                        \
        _Pragma("GCC unroll 16") for (int e = 0; e < B_KB(X, K); e++)                              \
            d = (RULE) ? X##_nstep(ea[e], eb[e], d, dn) : X##_fma(ea[e], eb[e], d);                 \
    }

/* fast_bfn for SFMA (K a power of two up to 16) with lane set X:
 * d = fma(a[e], b[e], d), e = 0 .. K-1, as fma_dot_hw.  A register of W
 * vectors with a NaN result is listed without a branch and done again
 * after its window of B_SB vectors with the NaN rule in every step, which
 * gives the reference's NaN (mma_alg_fma) in the lanes.  (Before, each NaN
 * lane went to the reference on its own: random-bit fp32 has 3.5% NaN
 * results, and they took half of its time on one core.)  c is kept for
 * the registers listed where d overlaps c (a batch that updates c in
 * place: c is written over by then), else read again. */
#define SFMA_RANGE(NAME, X, TGT, K)                                                                \
    static TGT void NAME(const fast_hdr *h, const mma_batch *x, size_t lo, size_t hi)              \
    {                                                                                              \
        const X##_e *a = (const X##_e *)x->a, *b = (const X##_e *)x->b;                            \
        X##_e t[X##_W] __attribute__((aligned(64)));                                               \
        for (int j = 0; j < X##_W; j++) t[j] = (X##_e)PLAN(h)->dnan;                               \
        const X##_v dn = X##_ld(t);                                                                \
        const int keep = b_overlap(x, lo, hi);                                                     \
        size_t i = lo;                                                                             \
        while (i + X##_W <= hi) {                                                                  \
            uint32_t rl_[B_SB / X##_W];                                                            \
            X##_e rc_[B_SB] __attribute__((aligned(64)));                                          \
            unsigned n_ = 0;                                                                       \
            const size_t b_ = i, e_ = hi - b_ > B_SB ? b_ + B_SB : hi;                             \
            for (; i + X##_W <= e_; i += X##_W) {                                                  \
                X##_v c = B_LDC(X, x, i, t), d = c;                                                \
                SFMA_CHAIN(X, K, i, d, 0)                                                          \
                B_STD(X, x, i, d, t);                                                              \
                rl_[n_] = (uint32_t)(i - b_);                                                      \
                if (keep) X##_st(rc_ + n_ * X##_W, c);                                             \
                n_ += X##_nan(d) != 0;                                                             \
            }                                                                                      \
            for (unsigned p_ = 0; p_ < n_; p_++) {                                                 \
                const size_t v_ = b_ + rl_[p_];                                                    \
                X##_v d = keep ? X##_ld(rc_ + p_ * X##_W) : B_LDC(X, x, v_, t);                    \
                SFMA_CHAIN(X, K, v_, d, 1)                                                         \
                B_STD(X, x, v_, d, t);                                                             \
            }                                                                                      \
        }                                                                                          \
        for (; i < hi; i++)                                                                        \
            fast_st(x->d, x->d_size, i, sfma_one(h, x, i, fast_ld(x->c, x->c_size, i), (int)sizeof *a)); \
    }
#define SFMA_SET(X, TGT)                                                                           \
    SFMA_RANGE(sfma_##X##_1, X, TGT, 1) SFMA_RANGE(sfma_##X##_2, X, TGT, 2) SFMA_RANGE(sfma_##X##_4, X, TGT, 4) \
    SFMA_RANGE(sfma_##X##_8, X, TGT, 8) SFMA_RANGE(sfma_##X##_16, X, TGT, 16)
SFMA_SET(d8, B5_TARGET)
SFMA_SET(d4, F2_TARGET)
SFMA_SET(s16, B5_TARGET)
SFMA_SET(s8, F2_TARGET)
#define SFMA_ROW(X) {sfma_##X##_1, sfma_##X##_2, sfma_##X##_4, sfma_##X##_8, sfma_##X##_16}
/* [AVX-512][fp64][log2 K] */
static const fast_bfn sfma_batches[2][2][5] = {{SFMA_ROW(s8), SFMA_ROW(d4)}, {SFMA_ROW(s16), SFMA_ROW(d8)}};
#undef SFMA_ROW
#undef SFMA_SET
#undef SFMA_CHAIN
#undef SFMA_RANGE

/* GPS's lanes (s16, s8), on the dwords that hold elements 2m, 2m + 1
 * (X_iv, X_asi): X_lo / X_hi, one element of such a dword in a lane's low
 * 16 bits (X_lo may leave the other above it: X_dec ignores those where it
 * can); X_dec: the flushed binary32 of such an element (as flushed() and
 * v_dec8 make it); X_ftz, X_cflush: ftz() and c's flush to +0; X_fixnan:
 * the unit's NaN in the lanes that hold a NaN. */
typedef __m512i s16_iv;
typedef __m256i s8_iv;
B5_FN s16_iv s16_asi(s16_v v) { return _mm512_castps_si512(v); }
B2_FN s8_iv s8_asi(s8_v v) { return _mm256_castps_si256(v); }
B5_FN s16_iv s16_lo(s16_iv w) { return w; }
B2_FN s8_iv s8_lo(s8_iv w) { return _mm256_and_si256(w, _mm256_set1_epi32(0xffff)); }   /* (packus saturates) */
B5_FN s16_iv s16_hi(s16_iv w) { return _mm512_srli_epi32(w, 16); }
B2_FN s8_iv s8_hi(s8_iv w) { return _mm256_srli_epi32(w, 16); }
B5_FN s16_v s16_dec(s16_iv v, const int bf)
{
    const __m512i em = _mm512_set1_epi32(bf ? 0x7f80 : 0x7c00);
    __m512 f = bf ? _mm512_castsi512_ps(_mm512_slli_epi32(v, 16)) : _mm512_cvtph_ps(_mm512_cvtepi32_epi16(v));
    __mmask16 nz = _mm512_test_epi32_mask(v, em);          /* (a zero or subnormal: +0) */
    __mmask16 nan = _mm512_cmpgt_epi32_mask(_mm512_and_si512(v, _mm512_set1_epi32(0x7fff)), em);
    f = _mm512_maskz_mov_ps(nz, f);
    return _mm512_mask_mov_ps(f, nan, _mm512_castsi512_ps(_mm512_set1_epi32((int)QNAN)));
}
GPS_FN s8_v s8_dec(s8_iv v, const int bf)
{
    const __m256i em = _mm256_set1_epi32(bf ? 0x7f80 : 0x7c00), m15 = _mm256_set1_epi32(0x7fff);
    __m256 f = bf ? _mm256_castsi256_ps(_mm256_slli_epi32(v, 16))
                  : _mm256_cvtph_ps(_mm_packus_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1)));
    __m256i z = _mm256_cmpeq_epi32(_mm256_and_si256(v, em), _mm256_setzero_si256());
    __m256i nan = _mm256_cmpgt_epi32(_mm256_and_si256(v, m15), em);
    f = _mm256_andnot_ps(_mm256_castsi256_ps(z), f);
    return _mm256_blendv_ps(f, _mm256_castsi256_ps(_mm256_set1_epi32((int)QNAN)), _mm256_castsi256_ps(nan));
}
B5_FN s16_v s16_ftz(s16_v x)
{
    __m512i w = _mm512_castps_si512(x);
    __mmask16 z = _mm512_testn_epi32_mask(w, _mm512_set1_epi32(0x7f800000));
    return _mm512_castsi512_ps(_mm512_mask_and_epi32(w, z, w, _mm512_set1_epi32((int)0x80000000u)));
}
GPS_FN s8_v s8_ftz(s8_v x) { return v_ftz(x); }
B5_FN s16_v s16_cflush(s16_v c)
{
    return _mm512_maskz_mov_ps(_mm512_test_epi32_mask(_mm512_castps_si512(c), _mm512_set1_epi32(0x7f800000)), c);
}
B2_FN s8_v s8_cflush(s8_v c)
{
    __m256i z = _mm256_cmpeq_epi32(_mm256_and_si256(_mm256_castps_si256(c), _mm256_set1_epi32(0x7f800000)),
                                   _mm256_setzero_si256());
    return _mm256_andnot_ps(_mm256_castsi256_ps(z), c);
}
B5_FN s16_v s16_mul(s16_v a, s16_v b) { return _mm512_mul_ps(a, b); }
B2_FN s8_v s8_mul(s8_v a, s8_v b) { return _mm256_mul_ps(a, b); }
B5_FN s16_v s16_add(s16_v a, s16_v b) { return _mm512_add_ps(a, b); }
B2_FN s8_v s8_add(s8_v a, s8_v b) { return _mm256_add_ps(a, b); }
B5_FN s16_v s16_fixnan(s16_v d, uint32_t nan)
{
    return _mm512_mask_mov_ps(d, _mm512_cmp_ps_mask(d, d, _CMP_UNORD_Q), _mm512_castsi512_ps(_mm512_set1_epi32((int)nan)));
}
B2_FN s8_v s8_fixnan(s8_v d, uint32_t nan)
{
    return _mm256_blendv_ps(d, _mm256_castsi256_ps(_mm256_set1_epi32((int)nan)), _mm256_cmp_ps(d, d, _CMP_UNORD_Q));
}

/* ftz(p[2m] + p[2m + 1]) of the products of one dword of each side */
#define GPS_PAIR(X, wa, wb, BF)                                                                    \
    ({                                                                                             \
        X##_iv wa_ = X##_asi(wa), wb_ = X##_asi(wb);                                               \
        X##_v p0_ = X##_ftz(X##_mul(X##_dec(X##_lo(wa_), BF), X##_dec(X##_lo(wb_), BF)));          \
        X##_v p1_ = X##_ftz(X##_mul(X##_dec(X##_hi(wa_), BF), X##_dec(X##_hi(wb_), BF)));          \
        X##_ftz(X##_add(p0_, p1_));                                                                \
    })

/* fast_bfn for GPS (fp32 c, nan=any with one NaN encoding, G = 2 or 4, a
 * and b both fp16 or both bf16: BF) with lane set X: the products, pair
 * sums, group sums and chain of gps_dot, each flushed; a NaN lane the
 * unit's NaN, as gps_dot makes it.  The tail: gps_v (nfn). */
#define GPS_RANGE(NAME, X, TGT, K, G, BF)                                                          \
    static TGT void NAME(const fast_hdr *h, const mma_batch *x, size_t lo, size_t hi)              \
    {                                                                                              \
        const uint16_t *a = (const uint16_t *)x->a, *b = (const uint16_t *)x->b;                   \
        const size_t k = K;                                                                        \
        const uint32_t gnan = PLAN(h)->gnan;                                                       \
        X##_e t[X##_W] __attribute__((aligned(64)));                                               \
        size_t i = lo;                                                                             \
        for (; i + X##_W <= hi; i += X##_W) {                                                      \
            X##_v wa[K / 2], wb[K / 2], c = B_LDC(X, x, i, t), d = X##_cflush(c);                  \
            B_ROWS(X, a + i * K, K / 2, X##_W, wa);   /* (dwords: K / 2 < W) */                    \
            B_ROWS(X, b + i * K, K / 2, X##_W, wb);                                                \
            _Pragma("GCC unroll 8") for (int m = 0; m < K / 2; m += G / 2) {                       \
                X##_v s = GPS_PAIR(X, wa[m], wb[m], BF);                                           \
                if (G == 4) s = X##_ftz(X##_add(s, GPS_PAIR(X, wa[m + G / 4], wb[m + G / 4], BF))); \
                d = X##_ftz(X##_add(d, s));                                                        \
            }                                                                                      \
            d = X##_fixnan(d, gnan);                                                               \
            B_STD(X, x, i, d, t);                                                                  \
        }                                                                                          \
        for (; i < hi; i++) fast_st(x->d, x->d_size, i, GPS_ONE(i, fast_ld(x->c, x->c_size, i)));  \
    }
#define GPS_ONE(v, c) h->nfn(h, c, a + (v) * k, b + (v) * k, NULL, NULL)
/* the K, G pairs of gps_v: 2 2, 4 2, 4 4, 8 2, 8 4, 16 2, 16 4 */
#define GPS_SET(X, TGT, BF)                                                                        \
    GPS_RANGE(gps_##X##_##BF##_2_2, X, TGT, 2, 2, BF) GPS_RANGE(gps_##X##_##BF##_4_2, X, TGT, 4, 2, BF) \
    GPS_RANGE(gps_##X##_##BF##_4_4, X, TGT, 4, 4, BF) GPS_RANGE(gps_##X##_##BF##_8_2, X, TGT, 8, 2, BF) \
    GPS_RANGE(gps_##X##_##BF##_8_4, X, TGT, 8, 4, BF) GPS_RANGE(gps_##X##_##BF##_16_2, X, TGT, 16, 2, BF) \
    GPS_RANGE(gps_##X##_##BF##_16_4, X, TGT, 16, 4, BF)
GPS_SET(s16, B5_TARGET, 0)
GPS_SET(s16, B5_TARGET, 1)
GPS_SET(s8, GPS_TARGET, 0)
GPS_SET(s8, GPS_TARGET, 1)
#define GPS_ROW(X, BF)                                                                             \
    {gps_##X##_##BF##_2_2, gps_##X##_##BF##_4_2, gps_##X##_##BF##_4_4, gps_##X##_##BF##_8_2,        \
     gps_##X##_##BF##_8_4, gps_##X##_##BF##_16_2, gps_##X##_##BF##_16_4}
/* [AVX-512][bf16][K, G as GPS_SET] */
static const fast_bfn gps_batches[2][2][7] = {{GPS_ROW(s8, 0), GPS_ROW(s8, 1)}, {GPS_ROW(s16, 0), GPS_ROW(s16, 1)}};
#undef GPS_ROW
#undef GPS_SET
#undef GPS_ONE
#undef GPS_RANGE
#undef GPS_PAIR
#endif

/* ---- the family ------------------------------------------------------------ */

static int ieee_ok(const mma_unit *u) { return !(u->flags & MMA_F_VIA_FP16) && (pairwise_ok(u) || fma_ok(u)); }

static fast_hdr *ieee_build(const mma_unit *u, int mode)
{
    ieee_plan *P = calloc(1, sizeof *P);
    if (!P) return NULL;
    P->k = u->k;
    P->g = u->g;
    P->h.kernel = FAST_K_SCALAR;
    if (u->tree == MMA_TREE_PAIRWISE) {
        /* the unit's NaN, when it is one encoding (not nan=prop's operand) */
        P->gnan_fixed = !(u->flags & MMA_F_NAN_PROP);
        P->gnan = (uint32_t)mma_nan_out(u, MMA_FMT_FP32, NULL);
        P->fa = flush_table(u->a);
        P->fb = flush_table(u->b);
        P->fc = u->c == MMA_FMT_FP32 ? NULL : flush_table(u->c);
        if (!P->fa || !P->fb || (u->c != MMA_FMT_FP32 && !P->fc)) { free(P); return NULL; }
        P->h.fn = gps_dot;
#ifdef FAST_HAVE_AVX2
        if (mode == FAST_MODE_BEST && P->gnan_fixed && !P->fc && (u->g == 2 || (u->g == 4 && u->k >= 4)) &&
            (u->k == 2 || u->k == 4 || u->k == 8 || u->k == 16) && fast_avx2_usable() &&
            fast_f16c_usable()) {
            /* the K, G pairs as GPS_SET: 2 2, 4 2, 4 4, 8 2, 8 4, 16 2, 16 4 */
            static const fast_fn fns[7] = {gps_v2g2, gps_v4g2, gps_v4g4, gps_v8g2, gps_v8g4, gps_v16g2, gps_v16g4};
            static const fast_nfn nfns[7] = {gps_v2g2_n, gps_v4g2_n, gps_v4g4_n, gps_v8g2_n,   /* (two bytes) */
                                             gps_v8g4_n, gps_v16g2_n, gps_v16g4_n};
            int g4 = u->g == 4, kg = u->k == 2 ? 0 : u->k == 4 ? 1 + g4 : u->k == 8 ? 3 + g4 : 5 + g4;
            P->h.fn = fns[kg];
            P->h.nfn = nfns[kg];
            if (u->a == u->b) P->h.bfn = gps_batches[fast_avx512_usable()][u->a == MMA_FMT_BF16][kg];
            P->h.kernel = FAST_K_SPECIAL;
            P->abf = u->a == MMA_FMT_BF16;
            P->bbf = u->b == MMA_FMT_BF16;
        }
#endif
        return &P->h;
    }
    P->h.fn = fma_dot;
#ifdef FAST_HAVE_AVX2
    __builtin_cpu_init();
    if (mode != FAST_MODE_SCALAR && __builtin_cpu_supports("fma")) {
        P->h.fn = fma_dot_hw;
        P->h.kernel = FAST_K_SPECIAL;
        /* the NaN of 0 x Inf, from the reference itself (P->h.u is
         * filled in after the build) */
        uint64_t z[MMA_MAX_K] = {0}, inf[MMA_MAX_K];
        for (int i = 0; i < u->k; i++) inf[i] = mma_inf(u->d, 0);
        P->dnan = mma_ref_dot(u, 0, z, inf, NULL, NULL);
        /* (the batch loops in the best mode alone, as fast_fused.c's plans do, so
         * that the tests' other modes keep the one-vector path) */
        int lk = __builtin_ctz((unsigned)u->k);
        if (mode == FAST_MODE_BEST && fast_avx2_usable() && u->k == 1 << lk && lk <= 4)
            P->h.bfn = sfma_batches[fast_avx512_usable()][u->d == MMA_FMT_FP64][lk];
    }
#else
    (void)mode;
#endif
    return &P->h;
}

const fast_family fast_ieee_family = {ieee_ok, ieee_build};
