/* The fast path (model/src/fast/) against the reference path (alg_*.c,
 * forced by impl = 1), bit for bit, for every algorithm family:
 *   - every catalogue unit (all take the fast path);
 *   - configuration strings of every family: the fused ones over F = 8..40,
 *     align rz and rd, outputs fp16, bf16 and fp32 under every rounding,
 *     with operand formats, l, k, c, p and ezero varied along; block
 *     scales, interleaved steps and the closing addition; the AMD forms
 *     with their F, F2 and l varied; groups, pairwise, fma and exact ones;
 * on every suite of `mmaref gen` (cli/gen.c, run in-process), on vectors
 * of random bits (high bits above each format's width included), on a
 * special mix (Inf, NaN payloads, zeros and the largest finite values
 * strewn over a, b, c and the scales at several densities), on skewed
 * vectors (narrow exponent bands, fractions of one or two bits, exact
 * cancellation: near ties), and on every hardware and peer vector file
 * (vectors/; the first --file-count vectors of each, 0: all).  Each vector
 * is computed by the best kernel this machine has (AVX-512, specialized
 * AVX2, generic AVX2 or scalar), by the best one without AVX-512, by the
 * generic AVX2 kernel and the scalar kernel (forced), by a hand-made copy of the
 * unit (impl 0), and by the reference; and, for each of the four kernel
 * choices, the set goes once more through mma_batch_dot with every
 * encoding held at its natural width (uint8_t for fp8 and fp4, uint16_t
 * for fp16: the plan's batch loop or narrow kernel where it has one, else
 * the widening path; a batch loop's once more with c and d as uint64_t and
 * d written over c), each result against the reference on the vector so
 * cut and, bit for bit, against mma_dot on it.  Results must be the same bits,
 * except that a unit that leaves the NaN payload open (nan=any: the AMD
 * units) may give another NaN where the reference gives a NaN (the IEEE
 * families take their NaN from the host's operations, whose payload
 * depends on the order the compiler gives the operands); those are
 * counted apart.
 *
 * usage: test_fastpath [count-per-suite [seed [file-count [vector dirs...]]]]
 *                                      (make test-fastpath, test-fastpath-full)
 */
#include "cli.h"

#include <dirent.h>
#include <fenv.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../model/src/fast/fast_hooks.h"

static const char *suites[] = {"compliance", "random", "normal", "cancel", "order",
                               "precision", "rounding", "specials", "ezero", "neighbours"};
#define NSUITES (sizeof suites / sizeof suites[0])

/* per algorithm family: units, vectors, mismatches */
#define NALG 16
static struct { const char *name; long units, vecs, bad; } alg[NALG];
static long n_units, n_cat, n_vecs, n_bad, n_kernel[5], n_files, n_file_vecs, n_nan_open;
static long n_batch, n_batch_by[3];   /* batch results compared; by what (mma_fast_narrow) */
static char tmpdir[256];

static int alg_index(const mma_unit *u)
{
    const char *a = mma_unit_algorithm(u);
    for (int i = 0; i < NALG; i++) {
        if (!alg[i].name) { alg[i].name = a; return i; }
        if (!strcmp(alg[i].name, a)) return i;
    }
    return NALG - 1;
}

/* the library's generator (mmaref_rng.h), from a fixed state */
static mma_rng rng_g = {{0x9e3779b97f4a7c15ull, 0xbf58476d1ce4e5b9ull, 0x94d049bb133111ebull, 0x243f6a8885a308d3ull}};
static uint64_t rnd(void) { return mma_rng_next(&rng_g); }

static uint64_t dot(const mma_unit *u, const mma_vec *v)
{
    int s = mma_unit_nscales(u);
    return mma_dot(u, v->c, v->a, v->b, s ? v->sa : NULL, s ? v->sb : NULL);
}

/* one vector through every path; returns 0 if all agree */
static int check_one(const char *name, const char *what, const mma_unit *u, const mma_unit *ref,
                     const mma_unit *hand, const mma_vec *v, uint64_t *fast, long i)
{
    uint64_t r = dot(ref, v), h = dot(hand, v);
    if (fast[i] == r && h == r) return 0;
    /* a unit that leaves the NaN payload open (nan=any): any NaN for a NaN */
    if (h == fast[i] && mma_result_equal(u, fast[i], r) && mma_result_equal(u, h, r)) { n_nan_open++; return 0; }
    if (n_bad++ < 20) {
        fprintf(stderr, "MISMATCH %s (%s) vector %ld: reference %llx, fast %llx, hand-made %llx\n  c=%llx a=",
                name, what, i, (unsigned long long)r, (unsigned long long)fast[i], (unsigned long long)h,
                (unsigned long long)v->c);
        for (int k = 0; k < u->k; k++) fprintf(stderr, "%s%llx", k ? "," : "", (unsigned long long)v->a[k]);
        fprintf(stderr, " b=");
        for (int k = 0; k < u->k; k++) fprintf(stderr, "%s%llx", k ? "," : "", (unsigned long long)v->b[k]);
        for (int k = 0; k < mma_unit_nscales(u); k++)
            fprintf(stderr, "%s%llx/%llx", k ? "," : " scales=", (unsigned long long)v->sa[k], (unsigned long long)v->sb[k]);
        fprintf(stderr, "\n");
    }
    return 1;
}

/* v cut to the natural widths (mma_natural_size) of u's formats, as a
 * batch at those widths holds it */
static mma_vec natural(const mma_unit *u, const mma_vec *v)
{
    mma_vec t = *v;
    int sa = mma_natural_size(u->a), sb = mma_natural_size(u->b), ns = mma_unit_nscales(u);
#define CUT(x, size) ((size) == 8 ? (x) : (x) & (((uint64_t)1 << 8 * (size)) - 1))
    t.c = CUT(t.c, mma_natural_size(u->c));
    for (int k = 0; k < u->k; k++) {
        t.a[k] = CUT(t.a[k], sa);
        t.b[k] = CUT(t.b[k], sb);
    }
    for (int k = 0; k < ns; k++) {
        t.sa[k] = CUT(t.sa[k], mma_natural_size(u->scale));
        t.sb[k] = CUT(t.sb[k], mma_natural_size(u->scale));
    }
#undef CUT
    return t;
}

/* The n vectors through mma_batch_dot at their natural widths (one
 * thread: the plan of this thread's forced mode) into d; 0, or -1.  wide:
 * c and d as uint64_t (c cut as natural() cuts it), the batch loops' other
 * way to c and d, and d written over c (a batch updating c in place). */
static int batch_natural(const mma_unit *u, const mma_vec *vs, long n, uint64_t *d, int wide)
{
    mma_batch x;
    void *mem[6];
    char err[256];
    int rc = cli_batch_natural(&x, mem, u, vs, n);
    unsigned char *pd = malloc((size_t)(n ? n : 1) * 8);
    uint64_t *wc = NULL;
    if (!rc && wide) {
        wc = malloc((size_t)(n ? n : 1) * 8);
        if (!wc) rc = -1;
        for (long i = 0; wc && i < n; i++) {
            wc[i] = 0;
            memcpy(&wc[i], (const char *)x.c + (size_t)i * (size_t)x.c_size, (size_t)x.c_size);
        }
        x.c = wc;
        x.c_size = x.d_size = 8;
    }
    x.d = wide ? (void *)wc : (void *)pd;
    x.threads = 1;
    if (rc || !pd || mma_batch_dot(u, &x, err, sizeof err)) {
        fprintf(stderr, "FAIL: batch of %s: %s\n", u->name, rc || !pd ? "out of memory" : err);
        rc = -1;
    }
    for (long i = 0; !rc && i < n; i++) {
        d[i] = 0;
        memcpy(&d[i], (const unsigned char *)x.d + (size_t)i * (size_t)x.d_size, (size_t)x.d_size);   /* (little-endian hosts) */
    }
    for (int i = 0; i < 6; i++) free(mem[i]);
    free(pd);
    free(wc);
    return rc;
}

/* The batch's result bat for a vector cut to natural widths against the
 * reference's on the cut vector r, and bit for bit against mma_dot's on
 * it in the same mode (fast_t): the narrow kernels give what the uint64
 * ones give. */
static int check_batch(const char *name, const char *what, const mma_unit *u, uint64_t r, uint64_t bat,
                       uint64_t fast_t, long i)
{
    if (bat == fast_t && bat == r) return 0;
    if (bat == fast_t && mma_result_equal(u, bat, r)) { n_nan_open++; return 0; }
    if (n_bad++ < 20)
        fprintf(stderr, "MISMATCH %s (%s) vector %ld: reference %llx, mma_dot %llx, mma_batch_dot %llx\n", name,
                what, i, (unsigned long long)r, (unsigned long long)fast_t, (unsigned long long)bat);
    return 1;
}

/* u from a catalogue name or configuration string; a failure counted */
static int unit_of(const char *name, mma_unit *u)
{
    char err[256];
    if (!mma_unit_parse(name, u, err, sizeof err)) return 0;
    fprintf(stderr, "FAIL: %s\n", err);
    n_bad++;
    return -1;
}

/* all vectors of a set, each kernel in turn (switching kernels per batch
 * keeps the plan cache warm); and each kernel's batch at natural widths */
static void check_set(const char *name, const char *what, const mma_unit *u, mma_vec *vs, long n)
{
    mma_unit ref = *u, hand = *u;
    ref.impl = 1;
    hand.impl = 0;
    static const char *kname[4] = {"best kernel", "scalar kernel", "generic vector kernel",
                                   "best kernel without AVX-512"};
    uint64_t *out[4], *bat[4], *fast_t[4], *wide[4] = {NULL, NULL, NULL, NULL};
    mma_vec *t = malloc(sizeof *t * (size_t)(n ? n : 1));
    for (long i = 0; i < n; i++) t[i] = natural(u, &vs[i]);
    long bad = 0;
    for (int m = 0; m < 4; m++) {
        out[m] = malloc(sizeof *out[m] * (size_t)(n ? n : 1));
        bat[m] = malloc(sizeof *bat[m] * (size_t)(n ? n : 1));
        fast_t[m] = malloc(sizeof *fast_t[m] * (size_t)(n ? n : 1));
        mma_fast_force(m);
        for (long i = 0; i < n; i++) out[m][i] = dot(u, &vs[i]);
        for (long i = 0; i < n; i++) fast_t[m][i] = dot(u, &t[i]);
        if (batch_natural(u, vs, n, bat[m], 0)) bad++;
        else {
            n_batch += n;
            n_batch_by[mma_fast_narrow(u)] += n;
        }
        /* (and with c and d wide, d over c, where a batch loop takes the batch) */
        if (mma_fast_narrow(u) == 2) {
            if (!wide[m]) wide[m] = malloc(sizeof *wide[m] * (size_t)(n ? n : 1));
            if (!wide[m] || batch_natural(u, vs, n, wide[m], 1)) bad++;
            else {
                n_batch += n;
                n_batch_by[2] += n;
            }
        }
    }
    mma_fast_force(0);
    char w[300];
    for (long i = 0; i < n; i++) {
        uint64_t rt = dot(&ref, &t[i]);
        for (int m = 0; m < 4; m++) {
            snprintf(w, sizeof w, "%s, %s", what, kname[m]);
            if (check_one(name, w, u, &ref, &hand, &vs[i], out[m], i)) { bad++; break; }
            snprintf(w, sizeof w, "%s, %s, mma_batch_dot at natural widths", what, kname[m]);
            if (check_batch(name, w, u, rt, bat[m][i], fast_t[m][i], i)) { bad++; break; }
            snprintf(w, sizeof w, "%s, %s, mma_batch_dot at natural widths, c and d uint64_t", what, kname[m]);
            if (wide[m] && check_batch(name, w, u, rt, wide[m][i], fast_t[m][i], i)) { bad++; break; }
        }
    }
    int ai = alg_index(u);
    alg[ai].vecs += n;
    alg[ai].bad += bad;
    n_vecs += n;
    for (int m = 0; m < 4; m++) { free(out[m]); free(bat[m]); free(fast_t[m]); free(wide[m]); }
    free(t);
}

static mma_vec *random_bits(const mma_unit *u, long count);

/* threads that share the plan cache: each runs the units in its own order,
 * the fast path against results computed beforehand by the reference */
#define T_UNITS 8
#define T_VECS 300
typedef struct { mma_unit u[T_UNITS]; mma_vec *v[T_UNITS]; uint64_t *want[T_UNITS]; int rot; long bad; } t_job;
static void *t_run(void *p)
{
    t_job *j = p;
    for (int r = 0; r < 20; r++)
        for (int q = 0; q < T_UNITS; q++) {
            int x = (q + j->rot + r) % T_UNITS;
            mma_unit hand = j->u[x];
            hand.impl = (r & 1) ? 0 : hand.impl;     /* hand-made units as well */
            for (int i = 0; i < T_VECS; i++)
                if (dot(&hand, &j->v[x][i]) != j->want[x][i]) j->bad++;
        }
    return NULL;
}

static void check_threads(long *bad)
{
    static const char *names[T_UNITS] = {"hopper:wgmma.m64n8k32.f32.e4m3.e4m3", "ampere:mma.m16n8k16.f32.f16.f16.f32",
        "cdna3:v_mfma_f32_16x16x32_fp8_fp8", "hopper:wgmma.m64n8k16.f16.f16.f16",
        "fused,a=e5m2,b=e4m3,c=fp16,d=fp16,k=32,l=16,f=13,round=rne,p=10,ezero=-20",
        "fused,a=bf16,b=bf16,k=24,l=12,f=31,align=rd,d=bf16,round=ru",
        "blackwell:tcgen05.mma.m128n8k64.kind::mxf4nvf4.block16.f32.e2m1.e2m1.ue4m3",
        "cdna2:v_mfma_f32_16x16x16f16"};
    static t_job jobs[4];
    for (int q = 0; q < T_UNITS; q++) {
        char err[256];
        if (mma_unit_parse(names[q], &jobs[0].u[q], err, sizeof err)) { fprintf(stderr, "FAIL: %s\n", err); (*bad)++; return; }
        jobs[0].v[q] = random_bits(&jobs[0].u[q], T_VECS);
        jobs[0].want[q] = malloc(sizeof(uint64_t) * T_VECS);
        mma_unit ref = jobs[0].u[q];
        ref.impl = 1;
        for (int i = 0; i < T_VECS; i++) jobs[0].want[q][i] = dot(&ref, &jobs[0].v[q][i]);
    }
    pthread_t th[4];
    for (int t = 0; t < 4; t++) {
        if (t) jobs[t] = jobs[0];
        jobs[t].rot = t;
        jobs[t].bad = 0;
        pthread_create(&th[t], NULL, t_run, &jobs[t]);
    }
    for (int t = 0; t < 4; t++) {
        pthread_join(th[t], NULL);
        if (jobs[t].bad) fprintf(stderr, "MISMATCH: thread %d, %ld results\n", t, jobs[t].bad);
        *bad += jobs[t].bad;
    }
    for (int q = 0; q < T_UNITS; q++) { free(jobs[0].v[q]); free(jobs[0].want[q]); }
}

/* up to count vectors of a file (count <= 0: all) */
static mma_vec *read_vectors(const char *path, const char *instr, long count, long *n, mma_unit *u)
{
    char err[512];
    mma_vec_reader *r = mma_vec_open(path, instr, err, sizeof err);
    if (!r) { fprintf(stderr, "%s\n", err); return NULL; }
    if (u) *u = *mma_vec_unit(r);
    long cap = count > 0 ? count : 4096, i = 0;
    mma_vec *v = malloc(sizeof *v * (size_t)cap);
    int rc;
    while ((count <= 0 || i < count) && (rc = mma_vec_next(r, &v[i], err, sizeof err)) == 1) {
        if (++i == cap && count <= 0) { cap *= 2; v = realloc(v, sizeof *v * (size_t)cap); }
    }
    mma_vec_close(r);
    *n = i;
    return v;
}

static mma_vec *gen_suite(const char *name, const char *suite, long count, unsigned seed, long *n)
{
    mma_unit u;
    mma_gen g;
    char err[512];
    if (mma_unit_parse(name, &u, err, sizeof err)) { fprintf(stderr, "%s\n", err); return NULL; }
    if (mma_gen_init(&g, &u, suite, seed)) { fprintf(stderr, "unknown suite %s\n", suite); return NULL; }
    mma_vec *v = malloc(sizeof *v * (size_t)(count ? count : 1));
    if (v) *n = mma_gen_vectors(&g, 0, count, v);
    return v;
}

/* random bits in every field, also above the formats' widths */
static mma_vec *random_bits(const mma_unit *u, long count)
{
    mma_vec *v = calloc((size_t)(count ? count : 1), sizeof *v);
    int ns = mma_unit_nscales(u);
    for (long i = 0; i < count; i++) {
        uint64_t keep = (i & 1) ? ~(uint64_t)0 : 0xffffffffu;
        v[i].c = rnd() & keep;
        for (int k = 0; k < u->k; k++) {
            v[i].a[k] = rnd() & keep;
            v[i].b[k] = rnd() & keep;
        }
        for (int k = 0; k < ns; k++) {
            v[i].sa[k] = rnd() & keep;
            v[i].sb[k] = rnd() & keep;
        }
    }
    return v;
}

/* Encodings of f of one class (MMA_ZERO, MMA_INF, MMA_NAN, MMA_FINITE:
 * among the two largest exponents when big), either sign: drawn from
 * every encoding of the class for formats of 16 bits or fewer, built for
 * fp32 and fp64; random bits where f has no such encoding. */
static uint16_t *pool[MMA_FMT_COUNT][5];
static long pool_n[MMA_FMT_COUNT][5];
static void pool_build(mma_fmt f)
{
    uint64_t n = (uint64_t)1 << mma_format(f)->width;
    int32_t top = INT32_MIN;
    for (uint64_t x = 0; x < n; x++) {
        mma_value v = mma_decode(f, x);
        if (v.cls == MMA_FINITE && v.exp > top) top = v.exp;
    }
    for (int c = 0; c < 5; c++) pool[f][c] = malloc(sizeof(uint16_t) * n);
    for (uint64_t x = 0; x < n; x++) {
        mma_value v = mma_decode(f, x);
        pool[f][v.cls][pool_n[f][v.cls]++] = (uint16_t)x;
        if (v.cls == MMA_FINITE && v.exp >= top - 1) pool[f][4][pool_n[f][4]++] = (uint16_t)x;
    }
}
static uint64_t draw(mma_fmt f, mma_class want, int big)
{
    const mma_format_info *fi = mma_format(f);
    uint64_t mask = fi->width >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << fi->width) - 1;
    if (fi->width <= 16) {
        if (!pool[f][0]) pool_build(f);
        int c = big && want == MMA_FINITE ? 4 : (int)want;
        return pool_n[f][c] ? pool[f][c][rnd() % (uint64_t)pool_n[f][c]] : rnd() & mask;
    }
    int wide = f == MMA_FMT_FP64;
    int eb = wide ? 11 : 8, mb = wide ? 52 : 23;
    uint64_t emax = ((uint64_t)1 << eb) - 1;
    uint64_t sign = (rnd() & 1) << (eb + mb), m = rnd() & (((uint64_t)1 << mb) - 1);
    switch (want) {
    case MMA_ZERO: return sign;
    case MMA_INF: return sign | emax << mb;
    case MMA_NAN: return sign | emax << mb | m | (uint64_t)1 << (rnd() % (uint64_t)mb);
    default: return sign | (big ? emax - 1 - (rnd() & 1) : rnd() % (emax - 1) + 1) << mb | m;
    }
}

/* the special mix: in vector i one operand in 64, 16, 4 or 2 is Inf, NaN,
 * a zero or one of the largest finite values, the others random finite
 * ones or zeros; every other group of four vectors with junk above the
 * formats' widths */
static uint64_t mix_one(mma_fmt f, long i)
{
    static const unsigned odds[4] = {64, 16, 4, 2};
    static const mma_class cls[5] = {MMA_INF, MMA_INF, MMA_NAN, MMA_ZERO, MMA_FINITE};
    const mma_format_info *fi = mma_format(f);
    uint64_t x;
    if (rnd() % odds[i % 4] == 0) {
        int c = (int)(rnd() % 5);
        x = draw(f, cls[c], c == 4);
    } else {
        x = draw(f, rnd() % 8 ? MMA_FINITE : MMA_ZERO, 0);
    }
    if ((i / 4) % 2 && fi->width < 64) x |= rnd() << fi->width;
    return x;
}

/* an fp16 (bf16: bf) operand's value */
static double op_value(uint64_t x, int bf)
{
    if (bf) {
        uint32_t w = (uint32_t)(x & 0xffff) << 16;
        float f;
        memcpy(&f, &w, sizeof f);
        return f;
    }
    int e = (int)(x >> 10 & 31);
    double m = (double)(x & 0x3ff) + (e ? 1024 : 0), v = m;
    for (int t = (e ? e : 1) - 25; t < 0; t++) v /= 2;
    for (int t = (e ? e : 1) - 25; t > 0; t--) v *= 2;
    return x & 0x8000 ? -v : v;
}

/* the binary32 bits of x (rounded as the host rounds) */
static uint64_t f32_bits(double x)
{
    float f = (float)x;
    uint32_t w;
    memcpy(&w, &f, sizeof w);
    return w;
}

/* a CDNA1 vector at one of the double-lane batch loops' edges (section 4c) */
static void xd_edge(const mma_unit *u, mma_vec *v, int kind)
{
    int bf = u->a == MMA_FMT_BF16, l = bf ? 2 : 4, ebits = bf ? 0x7f80 : 0x7c00;
    memset(v, 0, sizeof *v);
    for (int k = 0; k < u->k; k++) {            /* finite operands, exponents near the middle */
        uint64_t mid = bf ? (uint64_t)(112 + rnd() % 32) << 7 : (uint64_t)(8 + rnd() % 16) << 10;
        v->a[k] = (rnd() & (bf ? 0x807f : 0x83ff)) | mid;
        v->b[k] = (rnd() & (bf ? 0x807f : 0x83ff)) | mid;
    }
    double p = 0;                                /* the first step's products, near enough */
    for (int k = 0; k < l; k++) p += op_value(v->a[k], bf) * op_value(v->b[k], bf);
    switch (kind) {
    case 0:                                      /* c cancels the first step to a few units */
        v->c = f32_bits(-p);
        break;
    case 1:                                      /* pairs of products cancel exactly, c = +-0 */
        for (int k = 0; k < u->k; k += 2) {
            v->a[k + 1] = v->a[k] ^ 0x8000;
            v->b[k + 1] = v->b[k];
        }
        v->c = rnd() & 0x80000000u;
        break;
    case 2:                                      /* c a power of two, products just below its ulp */
        v->c = (rnd() & 0x80000000u) | (uint64_t)((int)(f32_bits(p) >> 23 & 0xff) + 22 + (int)(rnd() % 4)) << 23;
        break;
    case 3:                                      /* tiny operands (bf16: products near 2^-266) */
        for (int k = 0; k < u->k; k++) {
            v->a[k] = (rnd() & 0x8000) | (rnd() % 4 ? rnd() % 0x180 : 0);
            v->b[k] = (rnd() & 0x8000) | (rnd() % 4 ? rnd() % 0x180 : 0);
        }
        v->c = rnd() % 2 ? rnd() & 0x80000000u : (rnd() & 0x800000ffu);
        break;
    case 4:                                      /* c near the largest binary32, products past it */
        v->c = (rnd() & 0x807fffffu) | 0x7f000000u;
        for (int k = 0; k < u->k; k++) {
            v->a[k] = (v->a[k] & ~(uint64_t)ebits) | (bf ? (uint64_t)(0xfc + rnd() % 2) << 7 : 0x7800);
            v->b[k] = (v->b[k] & ~(uint64_t)ebits) | (bf ? (uint64_t)(0xfc + rnd() % 2) << 7 : 0x7800);
        }
        break;
    default:                                     /* c a subnormal left alone or cancelled */
        v->c = rnd() & 0x807fffffu;
        if (rnd() % 2) v->a[0] = v->b[0] = 0;
        break;
    }
}

static mma_vec *special_mix(const mma_unit *u, long count)
{
    mma_vec *v = calloc((size_t)(count ? count : 1), sizeof *v);
    int ns = mma_unit_nscales(u);
    for (long i = 0; i < count; i++) {
        v[i].c = mix_one(u->c, i);
        for (int k = 0; k < u->k; k++) {
            v[i].a[k] = mix_one(u->a, i);
            v[i].b[k] = mix_one(u->b, i);
        }
        for (int k = 0; k < ns; k++) {
            v[i].sa[k] = mix_one(u->scale, i);
            v[i].sb[k] = mix_one(u->scale, i);
        }
    }
    return v;
}

/* Skewed vectors, for the near ties after cancellation that the suites
 * above seldom reach (a CDNA1 kernel once took a product's exponent bound
 * for its leading bit and passed them): in each vector the exponents lie
 * in a narrow band (spread 0, 1, 2 or 4 fields above a random base, or
 * the whole range), the fractions are random or keep only their top one
 * or two bits (exact ties), one operand in eight is a zero, half the pairs
 * repeat the pair before with a negated (exact cancellation), and c is a
 * zero, the largest binade, about the products' size or random. */
static uint64_t skew_field(mma_fmt f, int e, int fb, int neg)
{
    const mma_format_info *fi = mma_format(f);
    int top = (1 << fi->ebits) - 1 - (fi->has_inf ? 1 : 0);     /* the largest finite field */
    e = e < 0 ? 0 : e > top ? top : e;
    uint64_t m = fi->mbits ? rnd() & (((uint64_t)1 << fi->mbits) - 1) : 0;
    if (fb && fi->mbits > fb) m &= ~(((uint64_t)1 << (fi->mbits - fb)) - 1);
    uint64_t x = (uint64_t)e << fi->mbits | m;
    return fi->has_sign && neg ? x | (uint64_t)1 << (fi->width - 1) : x;
}

/* A tf32 operand (fp32 layout; the low 13 bits, which tf32 ignores, at
 * random): exponent field e, sign neg, fraction at random */
static uint64_t tf32_of(int e, int neg)
{
    return (uint64_t)neg << 31 | (uint64_t)(e & 0xff) << 23 | (rnd() & 0x7fffff);
}

/* Vectors at the edges of the tf32 lane batch loops (fast_fused_tf32.c,
 * t_lstep), one case each, so that eight lanes side by side mix them:
 * a small product of either sign whose bits below emax - F are cut (and
 * ties there), c dominating the products, exact cancellation to zero (c
 * 0 or -0), subnormal operands and products, sums past fp32's largest
 * binade (Inf of either sign), results below its least normal (the lane
 * done again), NaN and Inf operands (Inf * 0 too), c Inf or NaN, every
 * product zero; random bits otherwise. */
static mma_vec *tf32_lane_edges(const mma_unit *u, long count)
{
    mma_vec *v = random_bits(u, count);
    for (long i = 0; i < count; i++) {
        mma_vec *x = &v[i];
        int kk = (int)(rnd() % (uint64_t)u->k), cs = (int)(rnd() & 1);
        switch (i % 11) {
        case 0: break;
        case 1:                     /* products about 1, one of 2^-20 to 2^-32 */
            for (int k = 0; k < u->k; k++) {
                x->a[k] = tf32_of(127 + (int)(rnd() % 3) - 1, (int)(rnd() & 1));
                x->b[k] = tf32_of(127, 0);
            }
            x->a[kk] = tf32_of(127 - 20 - (int)(rnd() % 13), (int)(rnd() & 1));
            if (rnd() & 1) x->a[kk] &= 0xff800000u;                       /* a power of two */
            x->c = rnd() & 1 ? 0 : tf32_of(127 - (int)(rnd() % 30), cs);
            break;
        case 2:                     /* c dominating */
            for (int k = 0; k < u->k; k++) {
                x->a[k] = tf32_of(127 + (int)(rnd() % 5) - 2, (int)(rnd() & 1));
                x->b[k] = tf32_of(127 + (int)(rnd() % 5) - 2, (int)(rnd() & 1));
            }
            x->c = tf32_of(127 + 10 + (int)(rnd() % 30), cs);
            break;
        case 3:                     /* exact cancellation, c 0 or -0 */
            for (int k = 0; k + 1 < u->k; k += 2) {
                x->a[k] = tf32_of(100 + (int)(rnd() % 50), (int)(rnd() & 1));
                x->b[k] = tf32_of(100 + (int)(rnd() % 50), (int)(rnd() & 1));
                x->a[k + 1] = x->a[k] ^ 0x80000000u;
                x->b[k + 1] = x->b[k];
            }
            x->c = (uint64_t)cs << 31;
            break;
        case 4:                     /* subnormal and least normal operands, c tiny or 0 */
            for (int k = 0; k < u->k; k++) {
                x->a[k] = tf32_of((int)(rnd() % 2), (int)(rnd() & 1));
                x->b[k] = tf32_of(rnd() % 2 ? (int)(rnd() % 2) : 127 + 100 + (int)(rnd() % 27), (int)(rnd() & 1));
            }
            x->c = rnd() & 1 ? 0 : tf32_of((int)(rnd() % 3), cs);
            break;
        case 5:                     /* past the largest binade: Inf of the sign */
            for (int k = 0; k < u->k; k++) {
                x->a[k] = tf32_of(127 + 60 + (int)(rnd() % 8), cs ^ (rnd() % 8 == 0));
                x->b[k] = tf32_of(127 + 60 + (int)(rnd() % 8), 0);
            }
            x->c = rnd() & 1 ? 0x7f7fffffu | (uint64_t)cs << 31 : tf32_of(250 + (int)(rnd() % 5), cs);
            break;
        case 6:                     /* below the least normal */
            for (int k = 0; k < u->k; k++) {
                x->a[k] = tf32_of(20 + (int)(rnd() % 20), (int)(rnd() & 1));
                x->b[k] = tf32_of(20 + (int)(rnd() % 20), (int)(rnd() & 1));
            }
            x->c = rnd() & 1 ? 0 : tf32_of((int)(rnd() % 2), cs);
            break;
        case 7: x->a[kk] = tf32_of(255, cs) | 0x2000; break;               /* NaN (a fraction bit tf32 keeps) */
        case 8:                                                             /* Inf, Inf * 0, Inf of both signs */
            x->a[kk] = 0x7f800000u | (uint64_t)cs << 31 | (rnd() & 0x1fff);   /* (13 ignored bits: still Inf) */
            if (rnd() % 3 == 0) x->b[kk] = (rnd() & 1) << 31;
            else if (rnd() & 1) x->a[(kk + 1) % u->k] = x->a[kk] ^ 0x80000000u;
            break;
        case 9: x->c = rnd() % 3 ? 0x7f800000u | (uint64_t)cs << 31 : 0x7fc00000u | (rnd() & 0x3fffff); break;
        case 10:                    /* every product zero, c anything */
            for (int k = 0; k < u->k; k++) x->a[k] = (rnd() & 1) << 31;
            break;
        }
    }
    return v;
}

/* Vectors at the edges of the CDNA3 lane batch loops, one case each:
 * results near fp32's largest binade (rounding up to Inf) and below its
 * least normal (the lane done again), Inf and NaN operands and c (Inf
 * with a zero: NaN), products that cancel exactly (+0), products all zero
 * (c alone), products reaching 2^128 of either sign or both, a power of
 * two c less products just under its 24th bit (near ties that the dot
 * part's last bit decides), and products a few binades either side of c
 * (the dot part shifted up or down to c's bits); random bits otherwise. */
static mma_vec *lane_edges(const mma_unit *u, long count)
{
    mma_vec *v = random_bits(u, count);
    const mma_format_info *fa = mma_format(u->a), *fb = mma_format(u->b);
    const int ta = (1 << fa->ebits) - 1 - (fa->has_inf ? 1 : 0), tb = (1 << fb->ebits) - 1 - (fb->has_inf ? 1 : 0);
    const uint64_t ia = fa->has_inf ? ((uint64_t)ta + 1) << fa->mbits : (uint64_t)1 << (fa->width - 1);   /* Inf, or NaN */
    for (long i = 0; i < count; i++) {
        mma_vec *x = &v[i];
        int cs = (int)(rnd() & 1), kk = (int)(rnd() % (uint64_t)u->k);
        switch (i % 11) {
        case 0: break;
        case 1:                     /* c in the largest binades, products about 1 */
            x->c = skew_field(MMA_FMT_FP32, 252 + (int)(rnd() % 3), 0, cs) | (rnd() % 3 ? 0x7fffff : 0);
            for (int k = 0; k < u->k; k++) {
                x->a[k] = skew_field(u->a, fa->bias + (int)(rnd() % 3) - 1, 0, (int)(rnd() & 1));
                x->b[k] = skew_field(u->b, fb->bias + (int)(rnd() % 3) - 1, 0, cs);
            }
            break;
        case 2:                     /* c tiny, products zero or the least */
            x->c = skew_field(MMA_FMT_FP32, (int)(rnd() % 3), 0, cs);
            for (int k = 0; k < u->k; k++) {
                x->a[k] = rnd() % 2 ? 0 : skew_field(u->a, 0, 0, (int)(rnd() & 1));
                x->b[k] = skew_field(u->b, (int)(rnd() % 2), 0, (int)(rnd() & 1));
            }
            break;
        case 3: x->a[kk] = ia | (rnd() & 1 ? (uint64_t)1 << (fa->width - 1) : 0); break;   /* Inf (or NaN) */
        case 4: x->a[kk] = ia; x->b[kk] = 0; break;                                          /* Inf * 0 */
        case 5: x->c = rnd() % 3 ? 0x7f800000u | (uint64_t)cs << 31 : 0x7fc00000u; break;   /* c Inf or NaN */
        case 6:                     /* exact cancellation, c 0, -0 or small */
            for (int k = 0; k + 1 < u->k; k += 2) {
                x->a[k] = skew_field(u->a, fa->bias + (int)(rnd() % 5) - 2, 0, (int)(rnd() & 1));
                x->b[k] = skew_field(u->b, fb->bias + (int)(rnd() % 5) - 2, 0, (int)(rnd() & 1));
                x->a[k + 1] = x->a[k] ^ (uint64_t)1 << (fa->width - 1);
                x->b[k + 1] = x->b[k];
            }
            x->c = rnd() % 3 ? (uint64_t)cs << 31 : skew_field(MMA_FMT_FP32, 100, 0, cs);
            break;
        case 7:                     /* every product zero */
            for (int k = 0; k < u->k; k++) x->a[k] = rnd() & 1 ? (uint64_t)1 << (fa->width - 1) : 0;
            break;
        case 8:                     /* the largest operands: products to 2^128 (bf16), signs mixed */
            for (int k = 0; k < u->k; k++) {
                x->a[k] = skew_field(u->a, ta - (int)(rnd() % 4), 0, (int)(rnd() % 4 == 0));
                x->b[k] = skew_field(u->b, tb - (int)(rnd() % 4), 0, rnd() % 8 == 0);
            }
            if (i % 20 < 10) break;
            /* (or products of 2^123 to 2^126 of one sign, whose sum, with
             * c's, passes 2^128 without any one reaching it) */
            x->c = rnd() % 2 ? skew_field(MMA_FMT_FP32, 254, 0, cs) : 0;
            for (int k = 0; k < u->k; k++) {
                x->a[k] = skew_field(u->a, fa->bias + 60 + (int)(rnd() % 3), 0, cs);
                x->b[k] = skew_field(u->b, fb->bias + 63, 0, 0);
            }
            break;
        case 9:                     /* c a power of two less products of its 2^-24 to 2^-32: the sum
                                       just below it, whose bit at emax - F2 - 1 decides a tie */
            if (u->a == MMA_FMT_FP16 && i % 20 == 9) {
                /* 1 - 1.5 * 2^-24 + 2^-32: the dot part at 2^-32 gives 1 - 383 * 2^-32,
                 * above the tie 1 - 3 * 2^-25, so 1 - 2^-24 (0x3f7fffff); cut at 2^-31
                 * it would be the tie, to even 1 - 2^-23 */
                memset(x->a, 0, sizeof x->a);
                memset(x->b, 0, sizeof x->b);
                x->a[0] = 0x8e00; x->b[0] = 0x0c00;           /* -1.5 * 2^-12 * 2^-12 */
                x->a[1] = 0x0100; x->b[1] = 0x0100;           /* 2^-16 * 2^-16 */
                x->c = 0x3f800000;
                break;
            }
            x->c = skew_field(MMA_FMT_FP32, 120 + (int)(rnd() % 10), 0, cs) & ~(uint64_t)0x7ffffe;
            for (int k = 0; k < u->k; k++) {
                int e = (int)(x->c >> 23 & 0xff) - 127 - 24 - (int)(rnd() % 9), e1 = e / 2;
                x->a[k] = rnd() % 4 ? 0 : skew_field(u->a, e1 + fa->bias, 1, !cs);
                x->b[k] = skew_field(u->b, e - e1 + fb->bias, 1, 0);
            }
            break;
        default: {                  /* products a few binades either side of c */
            int ec = 100 + (int)(rnd() % 40);
            x->c = skew_field(MMA_FMT_FP32, ec, (int)(rnd() % 3), cs);
            for (int k = 0; k < u->k; k++) {
                int e = ec - 127 + (int)(rnd() % 24) - 14;       /* the product's binade */
                int e1 = e / 2, e2 = e - e1;
                x->a[k] = skew_field(u->a, e1 + fa->bias, (int)(rnd() % 3), (int)(rnd() & 1));
                x->b[k] = skew_field(u->b, e2 + fb->bias, (int)(rnd() % 3), (int)(rnd() & 1));
            }
        }
        }
    }
    return v;
}

static mma_vec *skewed(const mma_unit *u, long count)
{
    static const int spreads[5] = {0, 1, 2, 4, 1 << 12};
    mma_vec *v = calloc((size_t)(count ? count : 1), sizeof *v);
    const mma_format_info *fa = mma_format(u->a), *fb = mma_format(u->b), *fc = mma_format(u->c);
    int ns = mma_unit_nscales(u);
    for (long i = 0; i < count; i++) {
        int sp = spreads[i % 5], bits = (int)((i / 5) % 3);
        int ea = (int)(rnd() % (uint64_t)(1 << fa->ebits)), eb = (int)(rnd() % (uint64_t)(1 << fb->ebits));
        for (int k = 0; k < u->k; k++) {
            if (k % 2 && rnd() % 2) {    /* the pair before, a negated */
                v[i].a[k] = v[i].a[k - 1] ^ (fa->has_sign ? (uint64_t)1 << (fa->width - 1) : 0);
                v[i].b[k] = v[i].b[k - 1];
                continue;
            }
            int ja = sp ? (int)(rnd() % (uint64_t)(sp + 1)) : 0, jb = sp ? (int)(rnd() % (uint64_t)(sp + 1)) : 0;
            v[i].a[k] = rnd() % 8 ? skew_field(u->a, ea + ja, bits, (int)(rnd() & 1)) : 0;
            v[i].b[k] = rnd() % 8 ? skew_field(u->b, eb + jb, bits, (int)(rnd() & 1)) : 0;
        }
        /* c: the products' binade is about ea + eb less the biases */
        int ec = ea - fa->bias + eb - fb->bias + fc->bias + (int)(rnd() % 5) - 2;
        switch (i % 4) {
        case 0: v[i].c = 0; break;
        case 1: v[i].c = skew_field(u->c, 1 << 12, bits, (int)(rnd() & 1)); break;
        case 2: v[i].c = skew_field(u->c, ec, bits, (int)(rnd() & 1)); break;
        default: v[i].c = skew_field(u->c, (int)(rnd() % (uint64_t)(1 << fc->ebits)), 0, (int)(rnd() & 1));
        }
        for (int k = 0; k < ns; k++) {
            v[i].sa[k] = draw(u->scale, MMA_FINITE, 0);
            v[i].sb[k] = draw(u->scale, MMA_FINITE, 0);
        }
    }
    return v;
}

/* returns 1 when the unit was checked, 0 when it is not on the fast path */
static int check_unit(const char *name, long count, unsigned seed)
{
    mma_unit u;
    char err[512];
    if (mma_unit_parse(name, &u, err, sizeof err)) {
        fprintf(stderr, "FAIL: cannot parse '%s': %s\n", name, err);
        n_bad++;
        return -1;
    }
    int kern = mma_fast_kernel(&u);
    if (!kern) return 0;
    n_units++;
    n_kernel[kern]++;
    alg[alg_index(&u)].units++;
    for (size_t s = 0; s < NSUITES; s++) {
        long n = 0;
        mma_vec *v = gen_suite(name, suites[s], count, seed + (unsigned)s, &n);
        if (!v) {
            fprintf(stderr, "FAIL: gen %s --suite %s\n", name, suites[s]);
            n_bad++;
            continue;
        }
        check_set(name, suites[s], &u, v, n);
        free(v);
    }
    mma_vec *v = random_bits(&u, count);
    check_set(name, "random bits", &u, v, count);
    free(v);
    v = special_mix(&u, count);
    check_set(name, "special mix", &u, v, count);
    free(v);
    v = skewed(&u, count);
    check_set(name, "skewed", &u, v, count);
    free(v);
    return 1;
}

/* every vector file under dir (hardware captures, peer vectors) */
static void check_files(const char *dir, long count)
{
    DIR *d = opendir(dir);
    if (!d) return;
    struct dirent *e;
    char path[1024];
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (e->d_type == DT_DIR) { check_files(path, count); continue; }
        if (!strstr(e->d_name, ".vec")) continue;
        long n = 0;
        mma_unit u;
        mma_vec *v = read_vectors(path, NULL, count, &n, &u);
        if (!v) { n_bad++; continue; }
        if (mma_fast_kernel(&u)) {
            check_set(path, "vector file", &u, v, n);
            n_files++;
            n_file_vecs += n;
        } else {
            fprintf(stderr, "note: %s: %s is not on the fast path\n", path, u.name);
        }
        free(v);
    }
    closedir(d);
}

int main(int argc, char **argv)
{
    long count = argc > 1 ? atol(argv[1]) : 120;
    unsigned seed = argc > 2 ? (unsigned)atol(argv[2]) : 1;
    long file_count = argc > 3 ? atol(argv[3]) : 2000;
    snprintf(tmpdir, sizeof tmpdir, "/tmp/mmaref-fastpath-XXXXXX");
    if (!mkdtemp(tmpdir)) { perror("mkdtemp"); return 2; }

    /* 0. four threads sharing the plan cache (first, while it has room) */
    check_threads(&n_bad);

    /* 1. every catalogue unit: each must take the fast path */
    for (size_t i = 0;; i++) {
        mma_catalogue_entry e;
        mma_unit u;
        if (mma_catalogue_get(i, &e, &u) < 0) break;
        char name[256];
        snprintf(name, sizeof name, "%s:%s", e.arch, e.qualifier);
        int r = check_unit(name, count, seed + (unsigned)i * 16);
        if (r == 0) fprintf(stderr, "note: catalogue unit %s (%s) is not on the fast path\n", name, mma_unit_algorithm(&u));
    }
    n_cat = n_units;

    /* 2. configuration strings of the fused family: F = 8..40, align rz/rd,
     * d fp16/bf16/fp32; the rest varies from one to the next */
    static const char *ops[][2] = {
        {"e4m3", "e4m3"}, {"fp16", "fp16"}, {"bf16", "bf16"}, {"e5m2", "e4m3"}, {"e2m1", "e2m1"},
        {"e4m3fnuz", "e5m2fnuz"}, {"e3m2", "e2m3"}, {"fp16", "fp16"}, {"e5m2", "e5m2"}, {"bf16", "bf16"},
        {"e2m3", "e4m3"}, {"e5m2fnuz", "e5m2fnuz"}, {"e4m3", "e2m1"}, {"tf32", "tf32"}};
    static const int kl[][2] = {{32, 32}, {16, 8}, {16, 16}, {8, 8}, {32, 16}, {12, 12}, {4, 4},
                                {64, 64}, {24, 24}, {8, 4}, {30, 10}, {5, 5}, {64, 32}, {1, 1}};
    static const char *rnd_names[] = {"rz", "rne", "rd", "ru"};
    static const char *douts[] = {"fp16", "bf16", "fp32"};
    static const char *ezs[] = {"", ",ezero=none", ",ezero=-40", ",ezero=3", ",zero=fixed", ",nan=default"};
    int idx = 0;
    for (int f = 8; f <= 40; f++)
        for (int al = 0; al < 2; al++)
            for (int di = 0; di < 3; di++, idx++) {
                const char *d = douts[di];
                const char *(*op) = ops[idx % (int)(sizeof ops / sizeof ops[0])];
                const int *k = kl[(idx / 3) % (int)(sizeof kl / sizeof kl[0])];
                const char *c = (idx / 7) % 3 == 0 ? "fp32" : (idx / 7) % 3 == 1 ? d : "fp16";
                int mb = di == 0 ? 10 : di == 1 ? 7 : 23;
                int p = (idx / 5) % 4 == 0 ? mb - 1 - (idx % 3) : mb;
                char cfg[512];
                snprintf(cfg, sizeof cfg, "fused,a=%s,b=%s,c=%s,d=%s,k=%d,l=%d,f=%d,align=%s,round=%s,p=%d%s",
                         op[0], op[1], c, d, k[0], k[1], f, al ? "rd" : "rz", rnd_names[(idx / 2) % 4], p,
                         ezs[(idx / 11) % (int)(sizeof ezs / sizeof ezs[0])]);
                if (check_unit(cfg, count, seed + 7919u * (unsigned)idx) == 0) {
                    fprintf(stderr, "FAIL: '%s' is not on the fast path\n", cfg);
                    n_bad++;
                }
            }

    /* 2b. every other family and the corners of the fused one: operands of
     * two widths (the scalar kernel's table-by-table products), an
     * unsigned operand format, c in another format than d, IEEE NaNs with
     * fp16 and bf16 outputs, block scales (ue8m0 and ue4m3, blocks shorter
     * than a step), interleaved steps with the closing addition, the AMD
     * forms, groups, pairwise, fma, exact sums (steps of 1 to 256 products,
     * every rounding, outputs fp16, bf16, fp32) */
    static const char *odd[] = {
        "fused,a=fp16,b=e4m3,c=fp32,d=fp32,k=16,l=8,f=24",
        "fused,a=bf16,b=e5m2,c=bf16,d=bf16,k=8,l=4,f=20,round=rne,nan=ieee",
        "fused,a=e5m2,b=fp16,c=fp16,d=fp16,k=16,l=4,f=26,round=rne,nan=ieee",
        "fused,a=ue8m0,b=e4m3fnuz,c=fp32,d=fp32,k=4,f=16",
        "fused,a=e2m1,b=fp16,c=fp16,d=bf16,k=6,l=2,f=30,align=rd,round=rd",
        "fused,a=tf32,b=fp16,c=fp32,d=fp32,k=12,l=4,f=22,round=rne",
        "fused,a=e4m3,b=e2m1,k=64,l=32,f=25,scale=ue8m0,block=16,ezero=-133",
        "fused,a=e4m3,b=e4m3,k=32,f=13,p=13,scale=ue8m0,block=32,ezero=-133",
        "fused,a=e2m1,b=e2m1,c=fp16,d=fp16,k=32,l=16,f=20,scale=ue4m3,block=16,round=rne,ezero=-20",
        "fused,a=fp16,b=fp16,k=32,l=8,f=25,scale=ue8m0,block=32,align=rd,round=ru",
        "fused,a=bf16,b=bf16,k=16,l=8,f=25,scale=ue4m3,block=4,nan=ieee",
        "fused,a=e4m3,b=e5m2,c=fp32,d=fp32,k=32,l=16,interleave=2,cadd=after,f=25,ezero=-133",
        "fused,a=e5m2,b=e5m2,c=fp16,d=fp16,k=16,l=8,interleave=2,cadd=after,f=25,ezero=-21",
        "fused,a=e4m3,b=e4m3,c=bf16,d=bf16,k=24,l=12,interleave=3,cadd=after,f=20,round=rne",
        "fused,a=fp16,b=fp16,c=fp32,d=fp32,k=16,l=8,interleave=4,f=24,ezero=-132",
        "fused,a=e4m3,b=e5m2,c=fp32,d=fp32,k=32,l=16,interleave=2,cadd=after,via=fp16,f=25,ezero=-133",
        "fused,a=e5m2,b=e4m3,c=fp16,d=fp16,k=16,l=16,via=fp16,f=22,round=rne,ezero=-21",
        "fused,a=tf32,b=tf32,c=fp32,d=fp32,k=8,l=4,f=24,ezero=-132",
        "fused,a=fp16,b=fp16,k=8,f=24,f2=31,cadd=rd,round=rne,povf=1,nan=canon+any,zero=fixed",
        "fused,a=bf16,b=bf16,k=16,l=8,f=24,f2=31,cadd=rd,round=rne,povf=1,nan=canon+any,zero=fixed",
        "fused,a=tf32,b=tf32,k=8,l=4,f=24,f2=31,cadd=rd,round=rne,povf=1,nan=canon+any,zero=fixed",
        "fused,a=fp16,b=fp16,k=16,l=4,f=20,f2=30,cadd=rd,round=rz,zero=pos",
        "fused,a=bf16,b=bf16,k=12,l=6,f=18,f2=25,cadd=rdz,round=rne,povf=1",
        "evenodd,a=e4m3fnuz,b=e5m2fnuz,k=32,l=16,f=24,f2=31,cadd=rdz,round=rne,nan=canon+any,zero=fixed",
        "evenodd,a=e5m2,b=e4m3,k=16,l=16,f=24,f2=31,cadd=rd,round=rne",
        "evenodd,a=fp16,b=fp16,k=16,l=8,f=22,f2=28,cadd=rdz,round=rz,povf=1",
        /* (the AMD narrow kernels: steps of 8 fp8 operands, operands of
         * two natural sizes, steps ending in a part of eight) */
        "fused,a=e4m3,b=e5m2,k=16,l=8,f=24,f2=31,cadd=rd,round=rne",
        "fused,a=fp16,b=e4m3,k=12,l=6,f=24,f2=31,cadd=rdz,round=rne,povf=1",
        "evenodd,a=tf32,b=bf16,k=20,l=10,f=24,f2=31,cadd=rd,round=rne",
        "groups,a=e2m1,b=e2m1,k=64,l=64,g=16,f=35,scale=ue8m0,block=32,ezero=-139",
        "groups,a=e2m1,b=e2m1,k=64,l=64,g=16,f=35,scale=ue4m3,block=16,ezero=-139",
        "groups,a=e4m3,b=e4m3,k=32,l=32,g=8,f=30,scale=ue8m0,block=16,ezero=none,round=rne",
        "groups,a=e3m2,b=e2m3,c=fp16,d=fp16,k=64,l=64,g=8,f=24,scale=ue4m3,block=32,ezero=-20",
        "pairwise,a=fp16,b=fp16,k=16,g=4,nan=any",
        "pairwise,a=bf16,b=bf16,k=8,g=2",
        "pairwise,a=bf16,b=bf16,k=32,g=8",
        "pairwise,a=fp16,b=fp16,c=fp32,k=4,g=4",
        "fma,a=fp32,b=fp32,c=fp32,d=fp32,k=8",
        "fma,a=fp64,b=fp64,c=fp64,d=fp64,k=16,nan=any",
        "fma,a=fp64,b=fp64,c=fp64,d=fp64,k=1",
        "exact,a=bf16,b=bf16,c=fp32,d=fp32,k=16,l=4,round=rz",
        "exact,a=fp16,b=fp16,c=fp16,d=fp16,k=8,l=2,round=rne,p=10",
        "exact,a=e4m3,b=e5m2,c=bf16,d=bf16,k=32,l=8,round=rd",
        "exact,a=fp16,b=bf16,c=fp32,d=fp32,k=64,l=64,round=ru,zero=pos",
        "exact,a=e2m1,b=ue8m0,c=fp32,d=fp32,k=8,l=1,round=rne,p=13",
        "exact,a=bf16,b=bf16,c=fp32,d=fp16,k=256,l=256,round=rne,nan=canon+any,zero=fixed",
        "exact,a=fp16,b=fp16,c=fp32,d=fp32,k=16,l=8,round=rne,nan=default,zero=fixed",
        /* (exact sums fast_exact.c leaves, fast_xsum.c: Arm FPMR's lscale and
         * saturation, IEEE zeros, rodd and rmm, block scales over steps,
         * scales that do not divide a step, chained steps) */
        "exact,a=e4m3,b=e5m2,c=fp32,d=fp32,k=4,lscale=7,zero=ieee,nan=default",
        "exact,a=e5m2,b=e5m2,c=fp16,d=fp16,k=2,lscale=15,ovf=sat+inf,zero=ieee",
        "exact,a=e4m3,b=e4m3,c=fp16,d=fp16,k=8,l=4,lscale=3,ovf=sat,round=rne,zero=ieee",
        "exact,a=e2m3,b=e3m2,c=fp32,d=fp32,k=64,round=rodd,zero=ieee,nan=prop",
        "exact,a=e4m3,b=e2m1,c=fp32,d=fp32,k=128,round=rz,scale=ue8m0,block=32,nan=canon+any,zero=fixed",
        "exact,a=e2m1,b=e2m1,c=bf16,d=bf16,k=64,l=16,round=rmm,scale=ue4m3,block=32",
        "exact,a=e5m2,b=e4m3,c=fp32,d=fp16,k=48,l=24,round=rd,scale=ue8m0,block=16,lscale=2",
        "exact,a=fp16,b=e5m2,c=fp32,d=fp32,k=16,l=8,round=ru,ovf=sat,zero=ieee",
        /* (chains, fast_chains.c: fma chains of every start, order and
         * flush, every rounding, the zero rules; one fused operation a
         * chain, exact or aligned; tf32; chained steps) */
        "chains,a=bf16,k=32,ways=2,start=zero,ftz=in+out,nan=x86",
        "chains,a=bf16,k=8,ways=4,start=zero,round=rz,ftz=out,zero=fixed",
        "chains,a=fp16,k=16,ways=2,start=none,round=rd,ftz=in,tiny=before",
        "chains,a=fp16,b=bf16,k=6,l=3,ways=1,start=c,order=down,round=ru,ftz=in+out",
        "chains,a=e4m3,b=e5m2,k=16,ways=4,start=none,round=rodd,ovf=inf,ftz=in+out,tiny=before,zero=pos",
        "chains,a=bf16,k=4,l=2,ways=2,start=none,round=rodd,ovf=inf,ftz=in+out,tiny=before",
        "chains,a=bf16,k=4,l=2,ways=1,fuse=2,start=none,round=rne,nan=prop",
        "chains,a=fp16,k=2,ways=1,fuse=2,start=none,round=rd,ftz=out",
        "chains,a=e5m2,b=e4m3,k=64,ways=1,fuse=64,start=none,ftz=in+out,nan=indef",
        "chains,a=e4m3,k=32,ways=2,fuse=16,start=none,round=rz,zero=fixed",
        "chains,a=bf16,k=8,ways=1,fuse=8,start=none,f=26,align=rodd,round=rodd,ovf=inf,zero=pos",
        "chains,a=e5m2,b=e4m3,k=16,ways=2,fuse=8,start=none,f=20,align=rz,round=rne",
        "chains,a=fp16,k=8,ways=1,fuse=8,start=none,f=30,align=rd,round=ru,ftz=out",
        "chains,a=fp32,b=fp32,k=16,ways=1,start=zero,via=tf32,ftz=out,nan=x86",
        "chains,a=fp32,b=fp32,k=8,l=4,ways=2,start=zero,via=tf32,round=rz,ftz=in+out",
        /* (the host's fma, fast_chains.c: chains with no accumulator at first,
         * whose first product is rounded alone, in every rounding) */
        "chains,a=bf16,k=8,ways=2,start=none,round=rne,nan=x86",
        "chains,a=fp16,k=6,l=3,ways=1,start=none,order=down,round=rd,ftz=out",
        "chains,a=bf16,k=4,ways=4,start=none,round=ru,ftz=in+out,nan=x86",
        "chains,a=fp32,b=fp32,k=4,ways=2,start=none,via=tf32,round=rz,ftz=in"};
    for (size_t i = 0; i < sizeof odd / sizeof odd[0]; i++)
        if (check_unit(odd[i], count, seed + 104729u * (unsigned)(i + 1)) == 0) {
            fprintf(stderr, "FAIL: '%s' is not on the fast path\n", odd[i]);
            n_bad++;
        }

    /* 3. directed: a step that rounds up to a power of two (RNE carry) and
     * hands it on as the next step's c, whose exponent (one more) sets
     * emax, so that a product cut at emax - F decides a tie: 2 + 2^-10 +
     * (1.5 * 2^-24 cut to 0) is a tie, rounded to even, 2 (0x4000). */
    {
        static const char *cfg = "fused,a=fp16,b=fp16,c=fp16,d=fp16,k=16,l=8,f=24,align=rz,round=rne,p=10,ezero=-20";
        mma_unit u;
        char err[256];
        if (mma_unit_parse(cfg, &u, err, sizeof err)) { fprintf(stderr, "FAIL: %s\n", err); n_bad++; }
        else {
            mma_vec *v = calloc(2, sizeof *v);
            /* step 1: (2 - 2^-10) * 1 + 2^-11 * 1 = 2 - 2^-11, a tie: 2;
             * step 2: 2 + 2^-10 * 1 + (1.5 * 2^-12) * 2^-12 */
            v[0].a[0] = 0x3fff; v[0].b[0] = 0x3c00; v[0].a[1] = 0x1000; v[0].b[1] = 0x3c00;
            v[0].a[8] = 0x1400; v[0].b[8] = 0x3c00; v[0].a[9] = 0x0e00; v[0].b[9] = 0x0c00;
            v[1] = v[0];                    /* and all negated */
            for (int k = 0; k < 16; k++) if (v[1].a[k]) v[1].a[k] |= 0x8000;
            for (int i = 0; i < 2; i++) {
                uint64_t want = i ? 0xc000 : 0x4000, got = dot(&u, &v[i]);
                if (got != want) { fprintf(stderr, "MISMATCH directed carry %d: %llx, wanted %llx\n", i, (unsigned long long)got, (unsigned long long)want); n_bad++; }
            }
            check_set(cfg, "directed carry", &u, v, 2);
            free(v);
        }
    }

    /* 3b. directed: Inf and NaN met in a chain's steps, and fp32 results at
     * the edges of the exponent range, through every kernel and batch loop
     * (fast_fused_avx2.c: fused_s_special, c_decides, a chain stopped at
     * a NaN, s_dot1 and s_dot2; fast.h: round_f32rz's overflow, with and without a branch).
     * Ampere f16 (two steps of 8, c and d fp32, RZ): 0x7bff squared is
     * 2^32 less a little, fp32's largest 0x7f7fffff; tf32 wgmma (one step of
     * 8) and a tf32 unit of two steps (its batch loop not s_dot1's). */
    {
        static const char *units[] = {"ampere:mma.m16n8k16.f32.f16.f16.f32", "hopper:wgmma.m64n8k8.f32.tf32.tf32",
                                      "fused,a=tf32,b=tf32,c=fp32,d=fp32,k=16,l=8,f=25,ezero=-132"};
        for (int ui = 0; ui < 3; ui++) {
            mma_unit u;
            if (unit_of(units[ui], &u)) continue;
            const int tf = u.a == MMA_FMT_TF32;
            /* big: an operand whose square overflows fp32 beside c = max;
             * one, inf, nan, zero: those values; sh: the sign bit */
            const uint64_t big = tf ? 0x7f000000 : 0x7bff, one = tf ? 0x3f800000 : 0x3c00, inf = tf ? 0x7f800000 : 0x7c00;
            const uint64_t nan = tf ? 0x7fc00000 : 0x7e00, sh = tf ? 0x80000000u : 0x8000, maxf = 0x7f7fffff;
            enum { NV = 16 };
            mma_vec *v = calloc(NV, sizeof *v);
            const int L = u.lmax;                /* (the second step's first operand: v.a[L]) */
            for (int i = 0; i < NV; i++)
                for (int k = 0; k < u.k; k++) { v[i].a[k] = k % 3 ? one : 0; v[i].b[k] = one; }
            v[0].c = maxf; v[0].a[0] = big; v[0].b[0] = big;                  /* overflow: +Inf, then finite */
            v[1] = v[0]; v[1].c |= 0x80000000u; v[1].a[0] |= sh;               /* -Inf, then finite */
            v[2] = v[0]; v[2].a[L] = inf | sh;                                  /* +Inf, then -Inf: NaN */
            v[3] = v[1]; v[3].a[L] = inf; v[3].b[L + 1] = 0; v[3].a[L + 1] = inf;   /* -Inf, then Inf*0: NaN */
            v[4].c = 0x3f800000; v[4].a[0] = nan;                               /* NaN, then finite */
            v[5].c = 0x3f800000; v[5].a[1] = nan; v[5].a[L] = inf;              /* NaN, then Inf */
            v[6].c = 0x7fc00001; v[6].a[L] = inf;                               /* NaN c */
            v[7].c = 0xff800000; v[7].a[L] = inf | sh;                          /* -Inf c and -Inf */
            v[8].c = 0x7f800000; v[8].a[0] = inf; v[8].b[0] = 0;                /* +Inf c, Inf * 0 */
            v[9].c = 0x7f000000; v[9].a[0] = 0;                                 /* 2^127 and ones: be 254 */
            v[10].c = maxf; v[10].a[0] = one; v[10].b[0] = tf ? 0x73800000 : 0x7800;   /* c + 2^104 or 2^15 */
            v[11].c = 0xff7fffff;                                               /* -max, ones, cut toward 0 */
            v[12].c = 0x00000001; for (int k = 0; k < u.k; k++) v[12].a[k] = 0; /* a subnormal c alone */
            v[13].c = 0x80800000; v[13].a[0] = 0;                               /* -2^-126 and ones */
            v[14].c = 0xbf800000; for (int k = 0; k < u.k; k++) v[14].a[k] = 0; v[14].a[0] = one;   /* 1 - 1 */
            v[15] = v[0]; v[15].a[L] = big; v[15].b[L] = big | sh;              /* +Inf, then a big negative product */
            check_set(units[ui], "directed Inf and NaN in steps, fp32 range edges", &u, v, NV);
            free(v);
        }
    }

    /* 3c. directed: the 16-bit lanes of one fp8 step (w_step in
     * fast_fused_avx512.c, h_dot1 in fast_fused_avx2.c): c's exponent field through all of fp32's (0 to
     * 254) beside finite products of every e4m3/e5m2 exponent, so that
     * each product is aligned by every shift from 0 past 255 (the AVX2
     * lanes look 2^(15 - sh) up from sh saturated to a byte); every third
     * vector with some zero products, every fifth with c zero; and zero
     * products of ezero 260 and 1000, whose emax puts the others' shifts
     * past a byte */
    {
        static const char *units[] = {"hopper:wgmma.m64n8k32.f32.e4m3.e4m3", "hopper:wgmma.m64n8k32.f32.e5m2.e4m3",
                                      "fused,a=e4m3,b=e4m3,c=fp32,d=fp32,k=32,l=32,f=13,ezero=260",
                                      "fused,a=e4m3,b=e4m3,c=fp32,d=fp32,k=32,l=32,f=13,ezero=1000"};
        for (int ui = 0; ui < 4; ui++) {
            mma_unit u;
            if (unit_of(units[ui], &u)) continue;
            const int n = 255 * 8;
            mma_vec *v = calloc((size_t)n, sizeof *v);
            for (int i = 0; i < n; i++) {
                v[i].c = (i % 5 == 4 ? 0 : (uint64_t)(i / 8) << 23 | (rnd() & 0x7fffff)) | (rnd() & 1) << 31;
                for (int k = 0; k < u.k; k++) {
                    uint64_t x = rnd() & 0xff, y = rnd() & 0xff;
                    if ((x & 0x7f) == 0x7f || (u.a == MMA_FMT_E5M2 && (x & 0x7c) == 0x7c)) x &= 0xbf;   /* finite */
                    if ((y & 0x7f) == 0x7f) y &= 0xbf;
                    if (i % 3 == 1 && k % 4 == 0) x &= 0x80;   /* zeros */
                    v[i].a[k] = x;
                    v[i].b[k] = y;
                }
            }
            check_set(units[ui], "directed fp8 alignment shifts", &u, v, n);
            free(v);
        }
    }

    /* 3d. directed: the closing fp16 addition of Hopper's fp8 mma.sync with
     * fp16 output (fast_fused_scalar.c, add_f16_f16c: F16C's conversions around
     * the host's binary32 addition): one to three nonzero products, so
     * that the steps' sum is one fp16 value of any size, and c of any fp16
     * exponent and sign, ±0 among them; the host's addition is inexact
     * where the two lie more than 13 bits apart.  In the default rounding
     * mode and again upward and toward zero: the result may not depend on
     * the mode the caller left set. */
    {
        static const char *units[] = {"hopper:mma.m16n8k32.f16.e4m3.e4m3.f16", "hopper:mma.m16n8k32.f16.e5m2.e4m3.f16"};
        static const int modes[] = {FE_TONEAREST, FE_UPWARD, FE_TOWARDZERO};
        static const char *what[] = {"directed closing fp16 addition", "directed closing fp16 addition, rounding upward",
                                     "directed closing fp16 addition, rounding toward zero"};
        for (int ui = 0; ui < 2; ui++) {
            mma_unit u;
            if (unit_of(units[ui], &u)) continue;
            const long n = 100 * count + 5;
            mma_vec *v = calloc((size_t)n, sizeof *v);
            for (long i = 0; i < n; i++) {
                uint64_t e = rnd() % 31, f = i % 7 == 0 ? 0 : rnd() & 0x3ff;
                v[i].c = i % 11 == 0 ? (rnd() & 1) << 15 : (rnd() & 1) << 15 | e << 10 | f;
                for (int t = 0; t < 1 + (int)(i % 3); t++) {
                    int k = (int)(rnd() % (uint64_t)u.k);
                    uint64_t x = rnd() & 0xff, y = rnd() & 0xff;
                    if ((x & 0x7f) == 0x7f || (u.a == MMA_FMT_E5M2 && (x & 0x7c) == 0x7c)) x &= 0xbf;   /* finite */
                    if ((y & 0x7f) == 0x7f) y &= 0xbf;
                    v[i].a[k] = x;
                    v[i].b[k] = y;
                }
            }
            for (int m = 0; m < 3; m++) {
                fesetround(modes[m]);
                check_set(units[ui], what[m], &u, v, n);
                fesetround(FE_TONEAREST);
            }
            free(v);
        }
    }

    /* 3d'. the closing addition in every format where the host's own
     * float or double addition would round it (fast_fused_scalar.c,
     * add_finite): Hopper's fp8 mma.sync with fp32 and fp16 output on the
     * compliance and cancel suites, the caller's rounding mode left
     * downward, upward and toward zero; the kernels take their integer sum
     * there (fast_host_fp_default), as the reference does */
    {
        static const char *units[] = {"hopper:mma.m16n8k32.f32.e4m3.e4m3.f32", "hopper:mma.m16n8k32.f16.e4m3.e4m3.f16"};
        static const char *close_suites[] = {"compliance", "cancel"};
        static const int modes[] = {FE_DOWNWARD, FE_UPWARD, FE_TOWARDZERO};
        static const char *what[] = {"closing addition, the caller rounding downward",
                                     "closing addition, the caller rounding upward",
                                     "closing addition, the caller rounding toward zero"};
        for (int ui = 0; ui < 2; ui++)
            for (int si = 0; si < 2; si++) {
                mma_unit u;
                long n = 0;
                if (unit_of(units[ui], &u)) continue;
                mma_vec *v = gen_suite(units[ui], close_suites[si], 20 * count, 3, &n);
                if (!v) continue;
                for (int m = 0; m < 3; m++) {
                    fesetround(modes[m]);
                    check_set(units[ui], what[m], &u, v, n);
                    fesetround(FE_TONEAREST);
                }
                free(v);
            }
    }

    /* 3e. directed: the chains family's two-term additions (fast_chains.c,
     * add2): c of any fp32 exponent beside products from far above it to
     * far below its last bit, where a far term is replaced by one bit 27
     * places below the larger's leading bit; sums on a tie and a quarter
     * ulp beside it; c near 2^-126 with products of a half ulp (the flush
     * by tininess after or before rounding); exact cancellation */
    {
        static const char *units[] = {"x86:vdpbf16ps", "x86:tdpbf16ps", "armv9:bfdot",
                                      "chains,a=bf16,k=2,ways=1,start=c,round=rz,ftz=out",
                                      "chains,a=bf16,k=2,ways=1,start=c,round=rd,ftz=in+out,tiny=before",
                                      "chains,a=bf16,k=2,ways=2,start=zero,round=ru,ftz=in+out",
                                      "chains,a=fp16,k=2,ways=1,start=c,round=rodd,ftz=out,zero=fixed"};
        for (size_t ui = 0; ui < sizeof units / sizeof units[0]; ui++) {
            mma_unit u;
            if (unit_of(units[ui], &u)) continue;
            const long n = 200 * count + 3;
            const int bf = u.a == MMA_FMT_BF16;
            mma_vec *v = calloc((size_t)n, sizeof *v);
            for (long i = 0; i < n; i++) {
                int ec = (int)(rnd() % 254) + 1, kind = (int)(i % 4);
                if (kind == 3) ec = 1 + (int)(rnd() % 3);                     /* near 2^-126 */
                v[i].c = (uint64_t)(rnd() & 1) << 31 | (uint64_t)ec << 23 | (kind == 1 ? rnd() % 4 : rnd() & 0x7fffff);
                for (int k = 0; k < u.k; k++) {
                    /* a product 2^(ec - 127 + off): off from +8 down to -60 */
                    int off = kind == 3 ? -24 - (int)(rnd() % 4) : 8 - (int)(rnd() % 69);
                    int ep = ec - 127 + off, ea = ep / 2, eb = ep - ea;
                    if (bf) {
                        if (ea < -126) ea = -126;
                        if (eb < -126) eb = -126;
                        v[i].a[k] = (rnd() & 0x8000) | (uint64_t)(ea + 127) << 7 | (kind == 1 ? 0 : rnd() & 0x7f);
                        v[i].b[k] = (uint64_t)(eb + 127) << 7 | (kind == 1 ? 0 : rnd() & 0x7f);
                    } else {                                                   /* fp16: exponents -14..15 */
                        ea = ea < -14 ? -14 : ea > 15 ? 15 : ea;
                        eb = eb < -14 ? -14 : eb > 15 ? 15 : eb;
                        v[i].a[k] = (rnd() & 0x8000) | (uint64_t)(ea + 15) << 10 | (rnd() & 0x3ff);
                        v[i].b[k] = (uint64_t)(eb + 15) << 10 | (rnd() & 0x3ff);
                    }
                }
                if (kind == 2 && u.k >= 2) {                                  /* cancellation */
                    v[i].a[1] = v[i].a[0] ^ 0x8000;
                    v[i].b[1] = v[i].b[0];
                }
            }
            check_set(units[ui], "directed chains additions", &u, v, n);
            free(v);
        }
    }

    /* 3f. directed: overflows in the chains (the host's fma kernel takes
     * them: an Inf from an overflow, Inf - Inf between chains or with c,
     * the x86 indefinite, another unit's NaN from the reference): bf16 and
     * tf32 operands a third of them near the largest, random signs */
    {
        static const char *units[] = {"x86:tdpbf16ps", "x86:vdpbf16ps", "x86:tmmultf32ps",
                                      "chains,a=bf16,k=8,ways=2,start=none,round=rne",
                                      "chains,a=bf16,k=4,ways=2,start=zero,round=rz,ftz=in+out,nan=x86",
                                      "chains,a=bf16,k=4,ways=1,start=c,order=down,round=rd,nan=prop",
                                      "chains,a=fp32,b=fp32,k=4,ways=2,start=zero,via=tf32,round=ru,nan=default"};
        for (size_t ui = 0; ui < sizeof units / sizeof units[0]; ui++) {
            mma_unit u;
            if (unit_of(units[ui], &u)) continue;
            const long n = 50 * count + 3;
            const int f32 = u.a == MMA_FMT_FP32;
            mma_vec *v = calloc((size_t)n, sizeof *v);
            for (long i = 0; i < n; i++) {
                int ec = rnd() % 2 ? 250 + (int)(rnd() % 5) : 100 + (int)(rnd() % 50);
                v[i].c = (uint64_t)(rnd() & 1) << 31 | (uint64_t)ec << 23 | (rnd() & 0x7fffff);
                for (int k = 0; k < u.k; k++) {
                    int ea = rnd() % 3 ? 120 + (int)(rnd() % 20) : 250 + (int)(rnd() % 5);
                    int eb = rnd() % 3 ? 120 + (int)(rnd() % 20) : 250 + (int)(rnd() % 5);
                    uint64_t x = (rnd() & 1) << 31 | (uint64_t)ea << 23 | (rnd() & 0x7fffff);
                    uint64_t y = (rnd() & 1) << 31 | (uint64_t)eb << 23 | (rnd() & 0x7fffff);
                    v[i].a[k] = f32 ? x : x >> 16;
                    v[i].b[k] = f32 ? y : y >> 16;
                }
            }
            check_set(units[ui], "directed chains overflows", &u, v, n);
            free(v);
        }
    }

    /* 4. the bench set again with more random-bit vectors (the kernels'
     * common paths) */
    static const char *hot[] = {"hopper:wgmma.m64n8k32.f32.e4m3.e4m3", "ampere:mma.m16n8k16.f32.f16.f16.f32",
                                "ampere:mma.m16n8k16.f32.bf16.bf16.f32", "hopper:wgmma.m64n8k16.f32.bf16.bf16",
                                "cdna3:v_mfma_f32_16x16x32_fp8_fp8", "cdna3:v_mfma_f32_16x16x16_f16",
                                "blackwell:tcgen05.mma.m128n8k64.kind::mxf4nvf4.block16.f32.e2m1.e2m1.ue4m3",
                                "blackwell:tcgen05.mma.m128n8k32.kind::mxf8f6f4.block32.f32.e4m3.e4m3.ue8m0",
                                /* (CDNA1 fp16: the fixed window and its batch loop's two modes) */
                                "cdna1:v_mfma_f32_4x4x4f16", "cdna1:v_mfma_f32_16x16x16f16",
                                /* (fast_ieee.c's batch loops: NaN, Inf and subnormal lanes) */
                                "hopper:mma.m8n8k4.f64.f64.f64.f64", "cdna3:v_mfma_f32_16x16x4_f32",
                                "cdna2:v_mfma_f32_16x16x16f16", "cdna2:v_mfma_f32_16x16x8bf16",
                                "cdna2:v_mfma_f32_32x32x8bf16_1k",
                                /* (round_f32rz's overflow without a branch: random tf32 overflows) */
                                "hopper:wgmma.m64n8k8.f32.tf32.tf32"};
    for (size_t i = 0; i < sizeof hot / sizeof hot[0]; i++) {
        mma_unit u;
        char err[256];
        if (mma_unit_parse(hot[i], &u, err, sizeof err)) continue;
        long n = 20 * count;
        mma_vec *v = random_bits(&u, n);
        check_set(hot[i], "random bits", &u, v, n);
        free(v);
        v = special_mix(&u, n);
        check_set(hot[i], "special mix", &u, v, n);
        free(v);
    }

    /* 4b. CDNA1 fp16's fixed window at its edges (fast_exact.c, fix_step):
     * tiny products (subnormal and the least normal operands, some zero)
     * beside a c just below or astride the window's last bit, where c's
     * bits below it (a half unit) or above it decide the rounding */
    static const char *fixw[] = {"cdna1:v_mfma_f32_4x4x4f16", "cdna1:v_mfma_f32_16x16x16f16"};
    for (size_t i = 0; i < sizeof fixw / sizeof fixw[0]; i++) {
        mma_unit u;
        if (unit_of(fixw[i], &u)) continue;
        long n = 20 * count;
        mma_vec *v = calloc((size_t)n, sizeof *v);
        for (long j = 0; j < n; j++) {
            v[j].c = (rnd() & 0x807fffffu) | (uint64_t)(40 + rnd() % 41) << 23;   /* exponent field 40..80 */
            for (int k = 0; k < u.k; k++) {
                v[j].a[k] = rnd() % 4 ? (rnd() & 0x83ff) | (rnd() % 4) << 10 : 0;
                v[j].b[k] = rnd() % 4 ? (rnd() & 0x83ff) | (rnd() % 4) << 10 : 0;
            }
            if (j & 1) {            /* one product of a few units 2^-48, c of 2^-69 to 2^-88 */
                memset(v[j].a, 0, sizeof v[j].a);
                v[j].a[rnd() % u.k] = 1 + rnd() % 4;
                memcpy(v[j].b, v[j].a, sizeof v[j].b);
                v[j].c = (rnd() & 0x807fffffu) | (uint64_t)(45 + rnd() % 18) << 23;
            }
        }
        check_set(fixw[i], "fixed window edges", &u, v, n);
        free(v);
    }

    /* 4c. CDNA1's batch loops, a dot product a double lane (fast_exact.c,
     * xd_*): sums that cancel to a few units or to exactly zero (c = -0
     * too), c a power of two with products of either sign just below its
     * ulp (the odd rounding's step down to the binade below), bf16
     * products near 2^-266 that round to a zero of either sign or to a
     * subnormal, and c near the largest binary32 with products past it
     * (Inf); a count that leaves a batch's last vectors to the loop's tail */
    static const char *xdu[] = {"cdna1:v_mfma_f32_4x4x4f16", "cdna1:v_mfma_f32_16x16x16f16",
                                "cdna1:v_mfma_f32_4x4x2bf16", "cdna1:v_mfma_f32_16x16x8bf16"};
    for (size_t i = 0; i < sizeof xdu / sizeof xdu[0]; i++) {
        mma_unit u;
        if (unit_of(xdu[i], &u)) continue;
        long n = 20 * count + 3;
        mma_vec *v = calloc((size_t)n, sizeof *v);
        for (long j = 0; j < n; j++) xd_edge(&u, &v[j], (int)(j % 6));
        check_set(xdu[i], "double lane edges", &u, v, n);
        free(v);
    }

    /* 4d. the CDNA3 batch loops with a dot product a lane (fast_amd.c,
     * amd_lstep): each vector one of the cases a lane handles apart, so
     * that eight lanes side by side mix them (and the count leaves a tail
     * of fewer than eight) */
    static const char *lanes[] = {"cdna3:v_mfma_f32_16x16x16_f16", "cdna3:v_mfma_f32_32x32x8_f16",
                                  "cdna3:v_mfma_f32_16x16x16_bf16", "cdna3:v_mfma_f32_32x32x8_bf16",
                                  "cdna3:v_mfma_f32_16x16x32_fp8_bf8", "cdna3:v_mfma_f32_32x32x16_bf8_bf8"};
    for (size_t i = 0; i < sizeof lanes / sizeof lanes[0]; i++) {
        mma_unit u;
        if (unit_of(lanes[i], &u)) continue;
        long n = 20 * count + 5;
        mma_vec *v = lane_edges(&u, n);
        if (mma_fast_narrow(&u) != 2) {
            fprintf(stderr, "FAIL: %s: no batch loop (%d)\n", lanes[i], mma_fast_narrow(&u));
            n_bad++;
        }
        check_set(lanes[i], "lane edges", &u, v, n);
        free(v);
    }

    /* 4e. the tf32 batch loops with a dot product a lane (fast_fused_tf32.c,
     * t_lstep): one step of 8 (Hopper), two steps of 4 and one (Ampere) */
    static const char *tfl[] = {"hopper:wgmma.m64n8k8.f32.tf32.tf32", "ampere:mma.m16n8k8.f32.tf32.tf32.f32",
                                "ampere:mma.m16n8k4.f32.tf32.tf32.f32"};
    for (size_t i = 0; i < sizeof tfl / sizeof tfl[0]; i++) {
        mma_unit u;
        if (unit_of(tfl[i], &u)) continue;
        long n = 20 * count + 5;
        mma_vec *v = tf32_lane_edges(&u, n);
        if (mma_fast_narrow(&u) != 2) {
            fprintf(stderr, "FAIL: %s: no batch loop (%d)\n", tfl[i], mma_fast_narrow(&u));
            n_bad++;
        }
        check_set(tfl[i], "tf32 lane edges", &u, v, n);
        free(v);
    }

    /* 4f. negated products (neg=1): the fast path leaves them to the
     * reference, whose results must be those of the plain unit (on the fast
     * path) with every a negated, on every suite: c - a*b = c + (-a)*b,
     * zeros and Inf included.  (Vectors with a NaN a: its sign is the
     * payload; formats whose sign flip is an encoding of its own: fp16, bf16,
     * e4m3, e5m2, e2m1, tf32.) */
    static const char *negu[][2] = {
        {"fused,a=e4m3,b=e4m3,c=fp32,d=fp32,k=32,f=13,p=13,ezero=-133", "0x80"},
        {"fused,a=fp16,b=fp16,c=fp32,d=fp32,k=16,l=8,f=24,ezero=-132", "0x8000"},
        {"fused,a=bf16,b=bf16,c=bf16,d=bf16,k=8,l=1,f=25,round=rne,nan=default,zero=ieee", "0x8000"},
        {"fused,a=e5m2,b=e4m3,c=fp16,d=fp16,k=16,l=8,interleave=2,cadd=after,f=25,ezero=-21", "0x80"},
        {"exact,a=fp16,b=fp16,c=fp32,d=fp32,k=8,l=4,round=rd,zero=ieee", "0x8000"},
        {"ieee,a=fp16,b=fp16,c=fp32,d=fp32,k=4,l=1,round=rmm", "0x8000"},
        {"ieee,a=e2m1,b=e2m1,c=fp16,d=fp16,k=4,round=ru", "0x8"},
        {"ieee,a=tf32,b=tf32,c=fp32,d=fp32,k=2,round=rodd", "0x80000000"}};
    long neg_vecs = 0, neg_bad0 = n_bad;
    for (size_t i = 0; i < sizeof negu / sizeof negu[0]; i++) {
        mma_unit plain, neg;
        char cfg[600];
        snprintf(cfg, sizeof cfg, "%s,neg=1", negu[i][0]);
        if (unit_of(negu[i][0], &plain) || unit_of(cfg, &neg)) continue;
        uint64_t sign = strtoull(negu[i][1], NULL, 0);
        if (mma_fast_kernel(&neg)) { fprintf(stderr, "FAIL: %s takes the fast path\n", cfg); n_bad++; }
        for (size_t s = 0; s < NSUITES; s++) {
            long n = 0;
            mma_vec *v = gen_suite(negu[i][0], suites[s], count, seed + 31u * (unsigned)(i * NSUITES + s), &n);
            if (!v) { n_bad++; continue; }
            for (long j = 0; j < n; j++) {
                int nan_a = 0;
                for (int k = 0; k < plain.k; k++) nan_a |= mma_decode(plain.a, v[j].a[k]).cls == MMA_NAN;
                if (nan_a) continue;
                mma_vec w = v[j];
                for (int k = 0; k < plain.k; k++) w.a[k] ^= sign;
                uint64_t r = dot(&neg, &v[j]), want = dot(&plain, &w);
                neg_vecs++;
                if (!mma_result_equal(&plain, r, want) && n_bad++ < 20)
                    fprintf(stderr, "MISMATCH %s (%s) vector %ld: neg=1 %llx, the plain unit with a negated %llx\n",
                            cfg, suites[s], j, (unsigned long long)r, (unsigned long long)want);
            }
            free(v);
        }
    }
    printf("test_fastpath: negated products (neg=1, the reference): %zu units, %ld vectors against the plain units "
           "(the fast path) with a negated, %ld mismatches\n", sizeof negu / sizeof negu[0], neg_vecs, n_bad - neg_bad0);

    /* 5. the hardware and peer vector files */
    for (int i = 4; i < argc; i++) check_files(argv[i], file_count);

    rmdir(tmpdir);
    printf("test_fastpath: %ld catalogue units and %ld configurations on the fast path "
           "(best kernel here: %ld AVX-512, %ld specialized AVX2, %ld generic AVX2, %ld scalar), %ld vectors "
           "(%ld of them from %ld vector files), each through the four kernel choices and their batches at natural "
           "widths (%ld batch results: %ld by plans' batch loops, %ld by narrow kernels, %ld widened), %ld mismatches "
           "(%ld NaN results of units that leave the payload open matched as any NaN)\n",
           n_cat, n_units - n_cat, n_kernel[4], n_kernel[3], n_kernel[2], n_kernel[1], n_vecs, n_file_vecs, n_files,
           n_batch, n_batch_by[2], n_batch_by[1], n_batch_by[0], n_bad, n_nan_open);
    for (int i = 0; i < NALG && alg[i].name; i++)
        printf("  %-11s %4ld units %9ld vectors %ld mismatches\n", alg[i].name, alg[i].units, alg[i].vecs, alg[i].bad);
    printf("test_fastpath (vectors, mismatching results): %ld passed, %ld failed\n", n_vecs > n_bad ? n_vecs - n_bad : 0, n_bad);
    return n_bad ? 1 : 0;
}
