/* Batches of dot products on encodings kept at their natural width
 * (mmaref_parallel.h): the element sizes are checked against the unit's
 * formats, then the vectors go through the deterministic parallel loop.
 * Where the unit's fast-path plan reads operands at their natural widths
 * (fast.h: its own loop over a range, bfn, or a kernel for one vector,
 * nfn) and the batch holds them so, the vectors go to it as they lie;
 * otherwise each is widened into a scratch on the stack and handed to
 * mma_dot (or mma_dot_flags).  A K=32 fp8 batch held as uint64_t reads
 * 520 bytes a dot product; at 100,000 vectors that is beyond the caches
 * and the loop waits on memory, while as uint8_t it reads 65 bytes. */
#include "fast.h"
#include "mmaref_parallel.h"

#include <string.h>

#if defined(__x86_64__)
#include <immintrin.h>
#define AVX2 __attribute__((target("avx2")))
#endif


/* Elements at .. at+n-1 of p as uint64_t: in place when they already are,
 * else widened into w. */
static inline const uint64_t *widen_scalar(const void *p, int size, size_t at, size_t n, uint64_t *w)
{
    if (size == 8) return (const uint64_t *)p + at;
    for (size_t j = 0; j < n; j++) w[j] = fast_ld(p, size, at + j);
    return w;
}

#if defined(__x86_64__)
/* The model's fast path loads its operands 256 bits at a time: from a
 * scratch filled by 64-bit stores those loads wait for store forwarding,
 * and a K=32 fp8 dot product took half again as long.  So the scratch is
 * written 256 bits (four encodings) at a time. */
static inline AVX2 __attribute__((always_inline)) const uint64_t *widen_avx2(const void *p, int size, size_t at,
                                                                             size_t n, uint64_t *w)
{
    if (size == 8) return (const uint64_t *)p + at;
    const char *s = (const char *)p + at * (size_t)size;
    size_t j = 0;
    switch (size) {
    case 1:
        for (; j + 4 <= n; j += 4) {
            uint32_t y;
            memcpy(&y, s + j, 4);
            _mm256_storeu_si256((__m256i *)(w + j), _mm256_cvtepu8_epi64(_mm_cvtsi32_si128((int)y)));
        }
        break;
    case 2:
        for (; j + 4 <= n; j += 4) {
            long long y;
            memcpy(&y, s + 2 * j, 8);
            _mm256_storeu_si256((__m256i *)(w + j), _mm256_cvtepu16_epi64(_mm_cvtsi64_si128(y)));
        }
        break;
    default:
        for (; j + 4 <= n; j += 4)
            _mm256_storeu_si256((__m256i *)(w + j), _mm256_cvtepu32_epi64(_mm_loadu_si128((const __m128i *)(s + 4 * j))));
        break;
    }
    for (; j < n; j++) w[j] = fast_ld(p, size, at + j);
    return w;
}

static int avx2_usable(void)
{
    static int r = -1;
    int v = __atomic_load_n(&r, __ATOMIC_RELAXED);
    if (v < 0) {
        __builtin_cpu_init();
        v = __builtin_cpu_supports("avx2") ? 1 : 0;
        __atomic_store_n(&r, v, __ATOMIC_RELAXED);
    }
    return v;
}

static AVX2 void widen_all_avx2(uint64_t *dst, const void *src, int size, size_t count)
{
    const uint64_t *w = widen_avx2(src, size, 0, count, dst);
    if (w != dst) memmove(dst, w, count * sizeof *dst);
}
#endif

void mma_widen(uint64_t *dst, const void *src, int size, size_t count)
{
#if defined(__x86_64__)
    if (avx2_usable()) { widen_all_avx2(dst, src, size, count); return; }
#endif
    const uint64_t *w = widen_scalar(src, size, 0, count, dst);
    if (w != dst) memmove(dst, w, count * sizeof *dst);
}

typedef struct {
    const mma_unit *u;
    const mma_batch *x;
    size_t k, ns;
    const fast_hdr *plan;            /* the plan (NULL: mma_dot's reference path, or flags) */
} job;

/* One chunk through the plan's own loop over a batch (fast_bfn: operands
 * as they lie, two dot products at a time) */
static void chunk_range(void *ctx, int tid, long lo, long hi)
{
    (void)tid;
    const job *j = ctx;
    j->plan->bfn(j->plan, j->x, (size_t)lo, (size_t)hi);
}

/* One chunk through the plan's narrow kernel, a vector at a time: nothing
 * widened.  CSIZE and
 * DSIZE constants for fp32 c and d. */
#define NARROW_CHUNK(NAME, CSIZE, DSIZE)                                                               \
    static void NAME(void *ctx, int tid, long lo, long hi)                                             \
    {                                                                                                  \
        (void)tid;                                                                                     \
        const job *j = ctx;                                                                            \
        const mma_batch *x = j->x;                                                                     \
        const fast_hdr *P = j->plan;                                                                   \
        const fast_nfn fn = P->nfn;                                                                    \
        const size_t k = j->k, ns = j->ns;                                                             \
        const void *pa = x->a, *pb = x->b, *pc = x->c, *psa = x->sa, *psb = x->sb;                     \
        void *pd = x->d;                                                                               \
        const int as = x->a_size, bs = x->b_size, cs = CSIZE, ds = DSIZE, ss = x->sa_size;             \
        for (long i = lo; i < hi; i++) {                                                               \
            size_t s = (size_t)i;                                                                      \
            const void *sa = ns ? fast_at(psa, ss, s * ns) : NULL, *sb = ns ? fast_at(psb, ss, s * ns) : NULL; \
            fast_st(pd, ds, s, fn(P, fast_ld(pc, cs, s), fast_at(pa, as, s * k), fast_at(pb, bs, s * k), sa, sb)); \
        }                                                                                              \
    }

/* One chunk of vectors.  NAME's loop reads elements of ASIZE, BSIZE, CSIZE
 * bytes, the scales' SASIZE and SBSIZE when SCALED, and writes DSIZE: constants in
 * the loops of the common cases, the batch's own sizes in the general one,
 * whose bookkeeping (spilled to the stack: too many live sizes and
 * pointers) took a K=4 fp64 dot product a third of its time. */
#define BATCH_CHUNK(NAME, ATTR, WIDEN, ASIZE, BSIZE, CSIZE, DSIZE, SCALED, SASIZE, SBSIZE, FLAGS)     \
    static ATTR void NAME(void *ctx, int tid, long lo, long hi)                                        \
    {                                                                                                  \
        (void)tid;                                                                                     \
        const job *j = ctx;                                                                            \
        const mma_batch *x = j->x;                                                                     \
        const mma_unit *u = j->u;                                                                      \
        const fast_hdr *P = j->plan;                                                                   \
        const size_t k = j->k, ns = j->ns;                                                             \
        const void *pa = x->a, *pb = x->b, *pc = x->c, *psa = x->sa, *psb = x->sb;                     \
        void *pd = x->d;                                                                               \
        uint8_t *fl = x->flags;                                                                        \
        const int as = ASIZE, bs = BSIZE, cs = CSIZE, ds = DSIZE, sas = SASIZE, sbs = SBSIZE;          \
        (void)psa; (void)psb; (void)sas; (void)sbs; (void)fl;                                          \
        uint64_t wa[MMA_MAX_K] __attribute__((aligned(32))), wb[MMA_MAX_K] __attribute__((aligned(32))); \
        uint64_t wsa[MMA_MAX_SCALES] __attribute__((aligned(32)));                                     \
        uint64_t wsb[MMA_MAX_SCALES] __attribute__((aligned(32)));                                     \
        for (long i = lo; i < hi; i++) {                                                               \
            size_t s = (size_t)i;                                                                      \
            const uint64_t *a = WIDEN(pa, as, s * k, k, wa), *b = WIDEN(pb, bs, s * k, k, wb);         \
            const uint64_t *sa = NULL, *sb = NULL;                                                     \
            if (SCALED) {                                                                              \
                sa = WIDEN(psa, sas, s * ns, ns, wsa);                                                 \
                sb = WIDEN(psb, sbs, s * ns, ns, wsb);                                                 \
            }                                                                                          \
            uint64_t c = fast_ld(pc, cs, s), d;                                                           \
            if (FLAGS) {                                                                               \
                unsigned f = 0;                                                                        \
                d = mma_dot_flags(u, c, a, b, sa, sb, &f);                                             \
                fl[s] = (uint8_t)f;                                                                    \
            } else {   /* (the plan's kernel, without mma_dot's check: 2-3% of a widened batch) */ \
                d = P ? P->fn(P, c, a, b, sa, sb) : mma_dot(u, c, a, b, sa, sb);                       \
            }                                                                                          \
            fast_st(pd, ds, s, d);                                                                       \
        }                                                                                              \
    }

BATCH_CHUNK(chunk_any, , widen_scalar, x->a_size, x->b_size, x->c_size, x->d_size,
            ns != 0, x->sa_size, x->sb_size, fl != NULL)
/* uint64 arrays: nothing to widen (mma_dot_batch) */
BATCH_CHUNK(chunk_u64, , widen_scalar, 8, 8, 8, 8, ns != 0, 8, 8, 0)
#if defined(__x86_64__)
BATCH_CHUNK(chunk_any_avx2, AVX2, widen_avx2, x->a_size, x->b_size, x->c_size, x->d_size,
            ns != 0, x->sa_size, x->sb_size, fl != NULL)
/* the natural widths of the common units, fp32 c and d: fp8 (OCP MX ones
 * with 8-bit scales), fp16 / bf16, tf32 */
BATCH_CHUNK(chunk_e8_avx2, AVX2, widen_avx2, 1, 1, 4, 4, 0, 1, 1, 0)
BATCH_CHUNK(chunk_e8_scaled_avx2, AVX2, widen_avx2, 1, 1, 4, 4, 1, 1, 1, 0)
BATCH_CHUNK(chunk_e16_avx2, AVX2, widen_avx2, 2, 2, 4, 4, 0, 1, 1, 0)
BATCH_CHUNK(chunk_e32_avx2, AVX2, widen_avx2, 4, 4, 4, 4, 0, 1, 1, 0)
#endif
#undef BATCH_CHUNK
NARROW_CHUNK(chunk_narrow, x->c_size, x->d_size)
NARROW_CHUNK(chunk_narrow_f32, 4, 4)
#undef NARROW_CHUNK

/* The array `name`, of element size `size`, holding format f (NONE: any);
 * needed (not NULL) when `need`. */
static int check(const void *p, int size, mma_fmt f, int need, const char *name, char *err, size_t errlen)
{
    if (size != 1 && size != 2 && size != 4 && size != 8)
        return mma_errf(err, errlen, "%s: elements of %d bytes (1, 2, 4 or 8 expected)", name, size);
    if (f != MMA_FMT_NONE && size * 8 < mma_format(f)->width)
        return mma_errf(err, errlen, "%s: %d-byte elements cannot hold %s's %d bits", name, size, mma_format(f)->name,
                    mma_format(f)->width);
    if (need && !p) return mma_errf(err, errlen, "%s: NULL, but the batch has vectors to compute", name);
    return 0;
}

int mma_batch_check(const mma_unit *u, const mma_batch *x, char *err, size_t errlen)
{
    int need = x->n > 0;
    if (check(x->c, x->c_size, u->c, need, "c", err, errlen) || check(x->a, x->a_size, u->a, need, "a", err, errlen) ||
        check(x->b, x->b_size, u->b, need, "b", err, errlen) || check(x->d, x->d_size, u->d, need, "d", err, errlen))
        return -1;
    if (mma_unit_nscales(u) && (check(x->sa, x->sa_size, u->scale, need, "sa", err, errlen) ||
                                check(x->sb, x->sb_size, u->scale, need, "sb", err, errlen)))
        return -1;
    return 0;
}

int mma_batch_dot(const mma_unit *u, const mma_batch *x, char *err, size_t errlen)
{
    size_t ns = (size_t)mma_unit_nscales(u);
    if (mma_batch_check(u, x, err, errlen)) return -1;
    if (!x->n) return 0;
    const fast_hdr *P = x->flags ? NULL : fast_plan_of(u);
    job j = {u, x, (size_t)u->k, ns, P};
    mma_chunk_fn fn = chunk_any;
    int z = x->a_size, plain = !x->flags && x->b_size == z;
    int s1 = !ns || (x->sa_size == 1 && x->sb_size == 1), s8 = !ns || (x->sa_size == 8 && x->sb_size == 8);
    /* (a batch with flags: mma_dot_flags, whose units raise them on the
     * reference path) */
    int natural = P && x->a_size == fast_nat_size(u->a) && x->b_size == fast_nat_size(u->b);
    if (natural && P->bfn && !ns) {
        fn = chunk_range;
    } else if (natural && P->nfn && (!ns || (x->sa_size == fast_nat_size(u->scale) && x->sb_size == x->sa_size))) {
        fn = x->c_size == 4 && x->d_size == 4 ? chunk_narrow_f32 : chunk_narrow;
    } else if (plain && z == 8 && x->c_size == 8 && x->d_size == 8 && s8) fn = chunk_u64;
#if defined(__x86_64__)
    else if (avx2_usable()) {
        fn = chunk_any_avx2;
        if (plain && x->c_size == 4 && x->d_size == 4) {
            if (z == 1 && s1) fn = ns ? chunk_e8_scaled_avx2 : chunk_e8_avx2;
            else if (z == 2 && !ns) fn = chunk_e16_avx2;
            else if (z == 4 && !ns) fn = chunk_e32_avx2;
        }
    }
#endif
    (void)s1;
    /* Each d[i] depends on vector i alone, so the chunk size changes no
     * result: about eight chunks a thread, so that threads finish together,
     * of at least 256 vectors, so that handing them out costs nothing. */
    int t = x->threads > 0 ? x->threads : mma_default_threads();
    long chunk = (long)(x->n / ((size_t)t * 8));
    chunk = chunk < 256 ? 256 : chunk > 4096 ? 4096 : chunk;
    mma_parallel_for((long)x->n, chunk, t, fn, &j, NULL, NULL);
    return 0;
}

int mma_natural_size(mma_fmt f) { return fast_nat_size(f); }

void mma_batch_init(mma_batch *x)
{
    memset(x, 0, sizeof *x);
    x->c_size = x->a_size = x->b_size = x->sa_size = x->sb_size = x->d_size = 8;
}

void mma_dot_batch(const mma_unit *u, size_t n, const uint64_t *c, const uint64_t *a,
                   const uint64_t *b, const uint64_t *sa, const uint64_t *sb,
                   uint64_t *d, int threads)
{
    mma_batch x;
    mma_batch_init(&x);
    x.n = n; x.c = c; x.a = a; x.b = b; x.sa = sa; x.sb = sb; x.d = d; x.threads = threads;
    mma_batch_dot(u, &x, NULL, 0);
}
