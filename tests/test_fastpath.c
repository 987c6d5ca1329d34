/* The fast path of the fused algorithms (model/src/fast_fused.c) against
 * the reference path (alg_fused.c, forced by impl = 1), bit for bit:
 *   - every catalogue unit that takes the fast path;
 *   - configuration strings over F = 8..40, align rz and rd, outputs fp16,
 *     bf16 and fp32 under every rounding, with operand formats, l, k, c,
 *     p and ezero varied along;
 * on every suite of `mmaref gen` (cli/gen.c, run in-process), on
 * vectors of random bits (high bits above each format's width included)
 * and on a special mix (Inf, NaN payloads, zeros and the largest finite
 * values strewn over a, b and c at several densities, so that steps meet
 * 0*Inf, Inf of both signs, NaN or Inf in c, overflow in a step before).
 * Each vector is computed by the best kernel this machine has (specialized
 * AVX2, generic AVX2 or scalar), by the generic AVX2 kernel and the scalar
 * kernel (forced), by a hand-made copy of the unit (impl 0), and by the
 * reference.
 *
 * usage: test_fastpath [count-per-suite] [seed]        (make test-fastpath)
 */
#include "cli.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* model/src/fast_fused.c, for tests: 0 best kernel, 1 scalar, 2 generic
 * vector kernel; which kernel u gets (0 reference .. 3 specialized) */
void mma_fast_fused_force(int mode);
int mma_fast_fused_kernel(const mma_unit *u);

static const char *suites[] = {"compliance", "random", "normal", "cancel", "order",
                               "precision", "rounding", "specials", "ezero"};
#define NSUITES (sizeof suites / sizeof suites[0])

static long n_units, n_vecs, n_bad, n_kernel[4];
static char tmpdir[256];

static uint64_t rng_state = 0x9e3779b97f4a7c15u;
static uint64_t rnd(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

/* one vector through every path; returns 0 if all agree */
static int check_one(const char *name, const char *what, const mma_unit *u, const mma_unit *ref,
                     const mma_unit *hand, const mma_vec *v, uint64_t *fast, long i)
{
    uint64_t r = mma_dot(ref, v->c, v->a, v->b, NULL, NULL);
    uint64_t h = mma_dot(hand, v->c, v->a, v->b, NULL, NULL);
    if (fast[i] == r && h == r) return 0;
    if (n_bad++ < 20) {
        fprintf(stderr, "MISMATCH %s (%s) vector %ld: reference %llx, fast %llx, hand-made %llx\n  c=%llx a=",
                name, what, i, (unsigned long long)r, (unsigned long long)fast[i], (unsigned long long)h,
                (unsigned long long)v->c);
        for (int k = 0; k < u->k; k++) fprintf(stderr, "%s%llx", k ? "," : "", (unsigned long long)v->a[k]);
        fprintf(stderr, " b=");
        for (int k = 0; k < u->k; k++) fprintf(stderr, "%s%llx", k ? "," : "", (unsigned long long)v->b[k]);
        fprintf(stderr, "\n");
    }
    return 1;
}

/* all vectors of a set, each kernel in turn (switching kernels per batch
 * keeps the plan cache warm) */
static void check_set(const char *name, const char *what, const mma_unit *u, mma_vec *vs, long n)
{
    mma_unit ref = *u, hand = *u;
    ref.impl = 1;
    hand.impl = 0;
    static const char *kname[3] = {"best kernel", "scalar kernel", "generic vector kernel"};
    uint64_t *out[3];
    for (int m = 0; m < 3; m++) {
        out[m] = malloc(sizeof *out[m] * (size_t)(n ? n : 1));
        mma_fast_fused_force(m);
        for (long i = 0; i < n; i++) out[m][i] = mma_dot(u, vs[i].c, vs[i].a, vs[i].b, NULL, NULL);
    }
    mma_fast_fused_force(0);
    char w[300];
    for (long i = 0; i < n; i++)
        for (int m = 0; m < 3; m++) {
            snprintf(w, sizeof w, "%s, %s", what, kname[m]);
            if (check_one(name, w, u, &ref, &hand, &vs[i], out[m], i)) break;
        }
    n_vecs += n;
    for (int m = 0; m < 3; m++) free(out[m]);
}

static mma_vec *random_bits(const mma_unit *u, long count);

/* threads that share the plan cache: each runs the units in its own order,
 * the fast path against results computed beforehand by the reference */
#define T_UNITS 6
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
                if (mma_dot(&hand, j->v[x][i].c, j->v[x][i].a, j->v[x][i].b, NULL, NULL) != j->want[x][i]) j->bad++;
        }
    return NULL;
}

static void check_threads(long *bad)
{
    static const char *names[T_UNITS] = {"hopper:wgmma.m64n8k32.f32.e4m3.e4m3", "ampere:mma.m16n8k16.f32.f16.f16.f32",
        "ampere:mma.m16n8k16.f32.bf16.bf16.f32", "hopper:wgmma.m64n8k16.f16.f16.f16",
        "fused,a=e5m2,b=e4m3,c=fp16,d=fp16,k=32,l=16,f=13,round=rne,p=10,ezero=-20",
        "fused,a=bf16,b=bf16,k=24,l=12,f=31,align=rd,d=bf16,round=ru"};
    static t_job jobs[4];
    for (int q = 0; q < T_UNITS; q++) {
        char err[256];
        if (mma_unit_parse(names[q], &jobs[0].u[q], err, sizeof err)) { fprintf(stderr, "FAIL: %s\n", err); (*bad)++; return; }
        jobs[0].v[q] = random_bits(&jobs[0].u[q], T_VECS);
        jobs[0].want[q] = malloc(sizeof(uint64_t) * T_VECS);
        mma_unit ref = jobs[0].u[q];
        ref.impl = 1;
        for (int i = 0; i < T_VECS; i++)
            jobs[0].want[q][i] = mma_dot(&ref, jobs[0].v[q][i].c, jobs[0].v[q][i].a, jobs[0].v[q][i].b, NULL, NULL);
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

static mma_vec *gen_suite(const char *name, const char *suite, long count, unsigned seed, long *n)
{
    char path[512], cnt[32], sd[32];
    snprintf(path, sizeof path, "%s/g.vec", tmpdir);
    snprintf(cnt, sizeof cnt, "%ld", count);
    snprintf(sd, sizeof sd, "%u", seed);
    char *argv[] = {(char *)name, "--suite", (char *)suite, "--count", cnt, "--seed", sd, "-o", path};
    if (cmd_gen(9, argv)) return NULL;
    char err[512];
    mma_vec_reader *r = mma_vec_open(path, NULL, err, sizeof err);
    if (!r) { fprintf(stderr, "%s\n", err); return NULL; }
    mma_vec *v = malloc(sizeof *v * (size_t)(count ? count : 1));
    long i = 0;
    while (i < count && mma_vec_next(r, &v[i], err, sizeof err) == 1) i++;
    mma_vec_close(r);
    unlink(path);
    *n = i;
    return v;
}

/* random bits in every field, also above the formats' widths */
static mma_vec *random_bits(const mma_unit *u, long count)
{
    mma_vec *v = calloc((size_t)(count ? count : 1), sizeof *v);
    for (long i = 0; i < count; i++) {
        uint64_t keep = (i & 1) ? ~(uint64_t)0 : 0xffffffffu;
        v[i].c = rnd() & keep;
        for (int k = 0; k < u->k; k++) {
            v[i].a[k] = rnd() & keep;
            v[i].b[k] = rnd() & keep;
        }
    }
    return v;
}

/* Encodings of f of one class (MMA_ZERO, MMA_INF, MMA_NAN, MMA_FINITE:
 * among the two largest exponents when big), either sign: drawn from
 * every encoding of the class for formats of 16 bits or fewer, built for
 * fp32; random bits where f has no such encoding. */
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
    if (f != MMA_FMT_FP32) return rnd() & mask;
    uint64_t sign = (rnd() & 1) << 31, m = rnd() & 0x7fffff;
    switch (want) {
    case MMA_ZERO: return sign;
    case MMA_INF: return sign | 0x7f800000;
    case MMA_NAN: return sign | 0x7f800000 | m | (uint64_t)1 << (rnd() % 23);
    default: return sign | (big ? 0x7f000000 - (rnd() & 1) * 0x800000 : (rnd() % 254 + 1) << 23) | m;
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

static mma_vec *special_mix(const mma_unit *u, long count)
{
    mma_vec *v = calloc((size_t)(count ? count : 1), sizeof *v);
    for (long i = 0; i < count; i++) {
        v[i].c = mix_one(u->c, i);
        for (int k = 0; k < u->k; k++) {
            v[i].a[k] = mix_one(u->a, i);
            v[i].b[k] = mix_one(u->b, i);
        }
    }
    return v;
}

static int check_unit(const char *name, long count, unsigned seed)
{
    mma_unit u;
    char err[512];
    if (mma_unit_parse(name, &u, err, sizeof err)) {
        fprintf(stderr, "FAIL: cannot parse '%s': %s\n", name, err);
        n_bad++;
        return -1;
    }
    int kern = mma_fast_fused_kernel(&u);
    if (!kern) return 0;                 /* not on the fast path */
    n_units++;
    n_kernel[kern]++;
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
    return 1;
}

int main(int argc, char **argv)
{
    long count = argc > 1 ? atol(argv[1]) : 120;
    unsigned seed = argc > 2 ? (unsigned)atol(argv[2]) : 1;
    snprintf(tmpdir, sizeof tmpdir, "/tmp/mmaref-fastpath-XXXXXX");
    if (!mkdtemp(tmpdir)) { perror("mkdtemp"); return 2; }

    /* 0. four threads sharing the plan cache (first, while it has room) */
    check_threads(&n_bad);

    /* 1. every catalogue unit on the fast path */
    long cat = 0;
    for (size_t i = 0;; i++) {
        mma_catalogue_entry e;
        mma_unit u;
        if (mma_catalogue_get(i, &e, &u) < 0) break;
        if (!mma_fast_fused_kernel(&u)) continue;
        char name[256];
        snprintf(name, sizeof name, "%s:%s", e.arch, e.qualifier);
        if (check_unit(name, count, seed + (unsigned)i * 16) > 0) cat++;
    }
    long cat_units = n_units;

    /* 2. configuration strings: F = 8..40, align rz/rd, d fp16/bf16/fp32;
     * the rest varies from one to the next */
    static const char *ops[][2] = {
        {"e4m3", "e4m3"}, {"fp16", "fp16"}, {"bf16", "bf16"}, {"e5m2", "e4m3"}, {"e2m1", "e2m1"},
        {"e4m3fnuz", "e5m2fnuz"}, {"e3m2", "e2m3"}, {"fp16", "fp16"}, {"e5m2", "e5m2"}, {"bf16", "bf16"},
        {"e2m3", "e4m3"}, {"e5m2fnuz", "e5m2fnuz"}, {"e4m3", "e2m1"}};
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
                check_unit(cfg, count, seed + 7919u * (unsigned)idx);
            }

    /* 2b. operands of two widths (the scalar kernel's table-by-table
     * products), an unsigned operand format, c in another format than d,
     * IEEE NaNs with fp16 and bf16 outputs */
    static const char *odd[] = {
        "fused,a=fp16,b=e4m3,c=fp32,d=fp32,k=16,l=8,f=24",
        "fused,a=bf16,b=e5m2,c=bf16,d=bf16,k=8,l=4,f=20,round=rne,nan=ieee",
        "fused,a=e5m2,b=fp16,c=fp16,d=fp16,k=16,l=4,f=26,round=rne,nan=ieee",
        "fused,a=ue8m0,b=e4m3fnuz,c=fp32,d=fp32,k=4,f=16",
        "fused,a=e2m1,b=fp16,c=fp16,d=bf16,k=6,l=2,f=30,align=rd,round=rd"};
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
                uint64_t want = i ? 0xc000 : 0x4000, got = mma_dot(&u, v[i].c, v[i].a, v[i].b, NULL, NULL);
                if (got != want) { fprintf(stderr, "MISMATCH directed carry %d: %llx, wanted %llx\n", i, (unsigned long long)got, (unsigned long long)want); n_bad++; }
            }
            check_set(cfg, "directed carry", &u, v, 2);
            free(v);
        }
    }

    /* 4. the bench set again with more random-bit vectors (the kernels'
     * common paths) */
    static const char *hot[] = {"hopper:wgmma.m64n8k32.f32.e4m3.e4m3", "ampere:mma.m16n8k16.f32.f16.f16.f32",
                                "ampere:mma.m16n8k16.f32.bf16.bf16.f32", "hopper:wgmma.m64n8k16.f32.bf16.bf16"};
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

    rmdir(tmpdir);
    printf("test_fastpath: %ld catalogue units and %ld configurations on the fast path "
           "(best kernel here: %ld specialized AVX2, %ld generic AVX2, %ld scalar), %ld vectors, %ld mismatches\n",
           cat_units, n_units - cat_units, n_kernel[3], n_kernel[2], n_kernel[1], n_vecs, n_bad);
    (void)cat;
    return n_bad ? 1 : 0;
}
