/* The fast path of GDFS (alg_groups.c; NVIDIA OMMA / UTCOMMA, block-scaled
 * fp4 with K=64): exact sums of each g consecutive products, each times
 * its block's two scales and aligned by the scale exponent alone, then one
 * fused aligned sum of the groups and c.  A group's exact sum is an
 * integer in units of the smallest weight any product of the two formats
 * can have (lsb0: a subnormal times a subnormal), so one table per format
 * pair gives each product's value in those units; the reference's own
 * per-group unit gives the same value.  Units whose sums could leave 62
 * bits stay with the reference (groups_ok). */
#include "fast.h"

#include <stdlib.h>

typedef struct {
    fast_hdr h;
    int g, ng, block, f, rd, zeros_part, fbs, wb;
    int32_t ezero, lsb0;
    uint64_t ma, mb;                 /* operand masks (width) */
    const int64_t *vt;               /* (a, b) -> value << 8 | (1: not a zero) */
    const uint64_t *spt;             /* (sa, sb) -> the scales' packed product */
    unsigned char blk[MMA_MAX_K];    /* group -> block */
    fast_cfmt cf;
    fast_out o;
    int8_t lut[32];                  /* e2m1 code -> 2 * value (the vector kernel) */
} groups_plan;
#define PLAN(h) ((const groups_plan *)(h))


static int groups_ok(const mma_unit *u)
{
    if (u->tree != MMA_TREE_GROUPS || (u->flags & (MMA_F_FTZ_IN | MMA_F_VIA_FP16))) return 0;
    if (!fast_tab[u->a] || !fast_tab[u->b] || mma_format(u->a)->width > 8 || mma_format(u->b)->width > 8) return 0;
    if ((u->scale != MMA_FMT_UE8M0 && u->scale != MMA_FMT_UE4M3) || u->g < 1 || u->k % u->g || u->block % u->g)
        return 0;
    if (u->c != MMA_FMT_FP32 && !fast_tab[u->c]) return 0;
    if (!(u->d == MMA_FMT_FP32 || u->d == MMA_FMT_FP16 || u->d == MMA_FMT_BF16) || u->p < 1 ||
        u->p > mma_format(u->d)->mbits || u->f < 1 || u->f > 48)
        return 0;
    return mma_groups_sums_fit(u);
}

/* v * 2^from in units of 2^to, cut toward zero or -inf */
static inline int64_t align_to(int64_t v, int32_t from, int32_t to, int rd)
{
    if (to <= from) return (int64_t)((uint64_t)v << (from - to));
    int32_t sh = to - from;
    if (rd) return sh >= 63 ? (v < 0 ? -1 : 0) : v >> sh;
    uint64_t s = (uint64_t)(v >> 63), m = ((uint64_t)v ^ s) - s;
    m = sh >= 64 ? 0 : m >> sh;
    return (int64_t)((m ^ s) - s);
}

/* The end: each group's exact sum gs[i] (in units of 2^lsb0; nz[i]: it
 * has a product that is no zero) joins its block's scales, then c.  The
 * same decisions as alg_groups.c: a NaN scale makes its group NaN; a
 * group with no nonzero product, or a zero scale, is a zero term; the
 * terms and c then by mma_terms_special (Inf or NaN products add nothing
 * to a group's sum and make no class: the reference sums significands,
 * and theirs are 0). */
static inline __attribute__((always_inline)) uint64_t groups_finish(const groups_plan *P, const int64_t *gs,
                                                                   const int *nz, uint64_t c, const void *sa,
                                                                   const void *sb, const int ss)
{
    int64_t val[MMA_MAX_K];
    int32_t lsb[MMA_MAX_K];
    int ng = 0, nan = 0, any_zero = 0;
    int32_t emax = FAST_EMPTY;
    for (int i = 0; i < P->ng; i++) {
        int blk = P->blk[i];          /* (scales of ss bytes: 8, or 1, their natural size) */
        uint64_t s = P->spt[(fast_ld(sa, ss, (size_t)blk) & 0xff) << 8 | (fast_ld(sb, ss, (size_t)blk) & 0xff)];
        if (__builtin_expect(s & P_NAN, 0)) { nan = 1; continue; }
        if (!nz[i] || (s & P_ZERO)) { any_zero = 1; continue; }
        int32_t es = (int32_t)((s >> 32) & 0xfff) - P_EOFF;
        val[ng] = gs[i] * (int64_t)(uint32_t)s;
        lsb[ng++] = es - P->fbs + P->lsb0;
        emax = es > emax ? es : emax;
    }
    fast_c xc = c_decode(&P->cf, c);
    if (__builtin_expect(nan || xc.spec, 0)) {
        if (nan || (c_class(&P->cf, c) & P_NAN)) return P->o.nan;
        return P->o.inf | (xc.neg ? P->o.sign : 0);
    }
    if (xc.sig) emax = xc.e > emax ? xc.e : emax;
    if ((any_zero || !xc.sig) && P->zeros_part && P->ezero > emax) emax = P->ezero;
    if (emax < FAST_EMPTY / 2) return 0;
    int32_t to = emax - P->f;
    int64_t s = 0;
    for (int i = 0; i < ng; i++) s += align_to(val[i], lsb[i], to, P->rd);
    if (xc.sig) s += align_to(xc.neg ? -(int64_t)xc.sig : (int64_t)xc.sig, xc.e - P->cf.fb, to, P->rd);
    uint64_t sg = (uint64_t)(s >> 63);
    return fast_round(&P->o, (int)(sg & 1), ((uint64_t)s ^ sg) - sg, to, 0, NULL);
}

/* the scalar kernel: one table look-up a product */
static uint64_t groups_dot(const fast_hdr *h, uint64_t c, const uint64_t *a, const uint64_t *b,
                           const uint64_t *sa, const uint64_t *sb)
{
    const groups_plan *P = PLAN(h);
    const int g = P->g, wb = P->wb;
    const uint64_t ma = P->ma, mb = P->mb;
    const int64_t *vt = P->vt;
    int64_t gs[MMA_MAX_K];
    int nz[MMA_MAX_K];
    for (int i = 0; i < P->ng; i++, a += g, b += g) {
        int64_t sum = 0;
        for (int k = 0; k < g; k++) sum += vt[(a[k] & ma) << wb | (b[k] & mb)];
        gs[i] = sum >> 8;
        nz[i] = (sum & 0xff) != 0;
    }
    return groups_finish(P, gs, nz, c, sa, sb, 8);
}

#ifdef FAST_HAVE_AVX2
/* 32 operands of 4 bits into 32 bytes: elements 0-15 in bytes 0-7 of
 * both 128-bit lanes, elements 16-31 in bytes 8-15 (the packs work within
 * lanes; a and b are packed alike) */
V_FN __m256i pack32_nibbles(const uint64_t *p, __m256i m)
{
    __m256i x[8];
#pragma GCC unroll 8
    for (int i = 0; i < 8; i++) x[i] = _mm256_and_si256(_mm256_loadu_si256((const __m256i *)(p + 4 * i)), m);
    __m256i q0 = _mm256_packus_epi32(_mm256_packus_epi32(x[0], x[1]), _mm256_packus_epi32(x[2], x[3]));
    __m256i q1 = _mm256_packus_epi32(_mm256_packus_epi32(x[4], x[5]), _mm256_packus_epi32(x[6], x[7]));
    return _mm256_packus_epi16(q0, q1);
}

/* The e2m1 x e2m1 kernel (K = 64, groups of 16): operands decoded by a
 * byte shuffle into signed doubled values (-12..12), products and their
 * sums of pairs by pmaddubsw (|a| unsigned, b carrying a's sign), then of
 * fours by pmaddwd; the four group sums (in units of 2^-2 = 2^lsb0) and,
 * alike from |a| |b|, whether a group has a nonzero product.  Each half
 * (32 operands) of a and b comes in 32 bytes, one operand a byte, either
 * as pack32_nibbles packs them (uint64_t operands) or in order (operands
 * of one byte): `inorder`, which changes where hadd leaves the groups. */
V_FN uint64_t groups_fp4_sums(const groups_plan *P, const __m256i *xa, const __m256i *xb, const int inorder,
                              uint64_t c, const void *sa, const void *sb, const int ss)
{
    const __m256i lut = V_LD(P->lut), ones = _mm256_set1_epi16(1);
    __m256i sum[2], mag[2];
#pragma GCC unroll 2
    for (int i = 0; i < 2; i++) {
        __m256i va = _mm256_shuffle_epi8(lut, xa[i]), vb = _mm256_shuffle_epi8(lut, xb[i]);
        __m256i aa = _mm256_abs_epi8(va);
        sum[i] = _mm256_madd_epi16(_mm256_maddubs_epi16(aa, _mm256_sign_epi8(vb, va)), ones);
        mag[i] = _mm256_madd_epi16(_mm256_maddubs_epi16(aa, _mm256_abs_epi8(vb)), ones);
    }
    __m256i hs = _mm256_hadd_epi32(sum[0], sum[1]), hm = _mm256_hadd_epi32(mag[0], mag[1]);
    int32_t s32[8], m32[8];
    int64_t gs[4];
    int nz[4];
    if (!inorder) {
        /* hadd's order: group 0, 1 of the first 32, then 2, 3, in both lanes */
        __m128i s4 = _mm_add_epi32(_mm256_castsi256_si128(hs), _mm256_extracti128_si256(hs, 1));
        __m128i m4 = _mm_add_epi32(_mm256_castsi256_si128(hm), _mm256_extracti128_si256(hm, 1));
        _mm_storeu_si128((__m128i *)s32, s4);
        _mm_storeu_si128((__m128i *)m32, m4);
        for (int g = 0; g < 4; g++) {
            gs[g] = s32[g];
            nz[g] = m32[g] != 0;
        }
    } else {
        /* one group a lane: after a second hadd, groups 0, 2 in the low
         * lane's first two words, 1, 3 in the high lane's */
        _mm256_storeu_si256((__m256i *)s32, _mm256_hadd_epi32(hs, hs));
        _mm256_storeu_si256((__m256i *)m32, _mm256_hadd_epi32(hm, hm));
        static const int at[4] = {0, 4, 1, 5};
        for (int g = 0; g < 4; g++) {
            gs[g] = s32[at[g]];
            nz[g] = m32[at[g]] != 0;
        }
    }
    return groups_finish(P, gs, nz, c, sa, sb, ss);
}

static V_TARGET uint64_t groups_fp4(const fast_hdr *h, uint64_t c, const uint64_t *a, const uint64_t *b,
                                    const uint64_t *sa, const uint64_t *sb)
{
    const __m256i m = _mm256_set1_epi64x(0xf);
    __m256i xa[2] = {pack32_nibbles(a, m), pack32_nibbles(a + 32, m)};
    __m256i xb[2] = {pack32_nibbles(b, m), pack32_nibbles(b + 32, m)};
    return groups_fp4_sums(PLAN(h), xa, xb, 0, c, sa, sb, 8);
}

/* the same on one byte an operand and a scale (the high nibble ignored,
 * as the uint64_t kernel's mask ignores the bits above) */
static V_TARGET uint64_t groups_fp4_n(const fast_hdr *h, uint64_t c, const void *a, const void *b, const void *sa,
                                      const void *sb)
{
    const __m256i m = _mm256_set1_epi8(0xf);
    __m256i xa[2], xb[2];
    for (int i = 0; i < 2; i++) {
        xa[i] = _mm256_and_si256(V_LD((const uint8_t *)a + 32 * i), m);
        xb[i] = _mm256_and_si256(V_LD((const uint8_t *)b + 32 * i), m);
    }
    return groups_fp4_sums(PLAN(h), xa, xb, 1, c, sa, sb, 1);
}
#endif

static int64_t *vtab[MMA_FMT_COUNT][MMA_FMT_COUNT];

/* value << 8 | nonzero of every (a, b) pair: built once, published
 * atomically (a thread that loses the race frees its copy) */
static const int64_t *value_table(mma_fmt fa, mma_fmt fb)
{
    int64_t *t = __atomic_load_n(&vtab[fa][fb], __ATOMIC_ACQUIRE);
    if (t) return t;
    int wa = mma_format(fa)->width, wb = mma_format(fb)->width;
    int32_t lsb0 = mma_groups_lsb0(fa, fb);
    t = malloc(sizeof(int64_t) << (wa + wb));
    if (!t) return NULL;
    for (uint64_t x = 0; x < ((uint64_t)1 << wa); x++)
        for (uint64_t y = 0; y < ((uint64_t)1 << wb); y++) {
            mma_term p = mma_term_mul(mma_term_of(fa, x), mma_term_of(fb, y));
            int64_t v = 0;
            if (p.cls == MMA_FINITE) {
                v = (int64_t)(p.sig << ((p.e - p.fb) - lsb0));
                v = p.neg ? -v : v;
            }
            t[x << wb | y] = (int64_t)((uint64_t)v << 8) | (p.cls != MMA_ZERO);
        }
    int64_t *expected = NULL;
    if (!__atomic_compare_exchange_n(&vtab[fa][fb], &expected, t, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
        free(t);
        return expected;
    }
    return t;
}

static fast_hdr *groups_build(const mma_unit *u, int mode)
{
    groups_plan *P = calloc(1, sizeof *P);
    if (!P) return NULL;
    P->vt = value_table(u->a, u->b);
    if (!P->vt) { free(P); return NULL; }
    P->g = u->g;
    P->ng = u->k / u->g;
    P->block = u->block;
    P->f = u->f;
    P->rd = u->align == MMA_RD;
    P->zeros_part = !(u->flags & MMA_F_NO_EZERO);
    P->ezero = u->ezero;
    P->fbs = 2 * mma_format(u->scale)->mbits;
    P->lsb0 = mma_groups_lsb0(u->a, u->b);
    P->wb = mma_format(u->b)->width;
    P->ma = ((uint64_t)1 << mma_format(u->a)->width) - 1;
    P->mb = ((uint64_t)1 << P->wb) - 1;
    P->spt = fast_pair_table(u->scale, u->scale);
    if (!P->spt) { free(P); return NULL; }
    for (int i = 0; i < P->ng; i++) P->blk[i] = (unsigned char)(i * u->g / u->block);
    fast_cfmt_init(&P->cf, u->c, u->f);
    fast_out_init(&P->o, u);
    P->o.nan = mma_canonical_nan(u->d);      /* mma_terms_special's NaN */
    P->h.fn = groups_dot;
    P->h.kernel = FAST_K_SCALAR;
#ifdef FAST_HAVE_AVX2
    if (mode != FAST_MODE_SCALAR && u->a == MMA_FMT_E2M1 && u->b == MMA_FMT_E2M1 && u->k == 64 && u->g == 16 &&
        fast_avx2_usable()) {
        for (int x = 0; x < 32; x++) {
            mma_value v = mma_decode(MMA_FMT_E2M1, (uint64_t)(x & 15));
            int32_t t = v.cls == MMA_FINITE ? (int32_t)(v.sig << (v.exp + 1)) : 0;   /* exp >= -1 */
            P->lut[x] = (int8_t)(v.neg ? -t : t);
        }
        P->h.fn = groups_fp4;
        P->h.nfn = groups_fp4_n;                   /* (e2m1 and the scales: one byte) */
        P->h.kernel = FAST_K_SPECIAL;
    }
#endif
    return &P->h;
}

const fast_family fast_groups_family = {groups_ok, groups_build};
