/* The CUDA backend (cuda/) against the CPU library, bit for bit:
 *   - every catalogue unit and configurations of every family (the fused
 *     trees with interleaved steps, the closing addition, block scales,
 *     align=rd, the AMD forms, groups, pairwise, fma, exact and ieee with
 *     its flags), on every suite of `mmaref gen` (cli/gen.c, in-process);
 *   - every vector file under the directories given (vectors/hw: hardware
 *     captures; vectors/peer: the peer model's vectors), every vector.
 * Each set is held at its natural widths (mma_natural_size) and computed
 * by the GPU (mma_batch_dot_cuda_copy: the specialized kernel where the
 * unit has one, cuda/fast_kernels.cuh), by the GPU's reference-path kernel
 * (mma_batch_dot_cuda_copy_with, MMA_CUDA_KERNELS_REFERENCE), by both
 * kernels' bodies compiled for the host (mma_batch_dot_cuda_host[_with]:
 * the code each GPU thread runs, built by nvcc as C++) and by the CPU
 * library (mma_batch_dot: the fast path where the unit has one) and its
 * reference path (impl = 1).  The GPU and the host-compiled bodies must
 * give the reference path's bits, flags
 * included, everywhere; the files' d (hardware, peer) must match by
 * mma_result_equal.  The CPU's fast path takes the latitude it takes in
 * tests/test_fastpath.c: where a unit leaves the NaN payload open (nan=any:
 * the AMD units) it may give another NaN than the reference's; those
 * vectors are counted apart, never as matches of a number.
 *
 * Without a GPU (or with --host-only) the GPU's part is skipped, with a
 * message, and the host-compiled body is checked alone.
 *
 * usage: test_cuda [--host-only] [--count N] [--file-count N] [--mutate]
 *                  [dir ...]
 *   --count N       vectors per unit and suite (default 200)
 *   --file-count N  the first N vectors of each file (default 0: all)
 *   --mutate        flip the last bit of one GPU (or host-body) result in
 *                   each set: the run must fail (the test's own test)
 * Exit status 0 when everything matched, 1 otherwise. */
#include "cli.h"
#include "mmaref_cuda.h"

#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char *suites[] = {"compliance", "random", "normal", "cancel", "order", "precision", "rounding",
                               "specials", "ezero", "bits", "ieee-zero", "ieee-overflow", "ieee-tiny",
                               "ieee-sticky", "ieee-nan"};
#define NSUITES (sizeof suites / sizeof suites[0])

/* configurations beyond the catalogue: every tree and option family */
static const char *configs[] = {
    "fused,a=fp16,b=e4m3,c=fp32,d=fp32,k=16,l=8,f=24",
    "fused,a=bf16,b=e5m2,c=bf16,d=bf16,k=8,l=4,f=20,round=rne,nan=ieee",
    "fused,a=e5m2,b=fp16,c=fp16,d=fp16,k=16,l=4,f=26,round=rne,nan=ieee",
    "fused,a=ue8m0,b=e4m3fnuz,c=fp32,d=fp32,k=4,f=16",
    "fused,a=e2m1,b=fp16,c=fp16,d=bf16,k=6,l=2,f=30,align=rd,round=rd",
    "fused,a=tf32,b=fp16,c=fp32,d=fp32,k=12,l=4,f=22,round=rne",
    "fused,a=e4m3,b=e2m1,k=64,l=32,f=25,scale=ue8m0,block=16,ezero=-133",
    "fused,a=e2m1,b=e2m1,c=fp16,d=fp16,k=32,l=16,f=20,scale=ue4m3,block=16,round=rne,ezero=-20",
    "fused,a=fp16,b=fp16,k=32,l=8,f=25,scale=ue8m0,block=32,align=rd,round=ru",
    "fused,a=e4m3,b=e5m2,c=fp32,d=fp32,k=32,l=16,interleave=2,cadd=after,f=25,ezero=-133",
    "fused,a=e4m3,b=e4m3,c=bf16,d=bf16,k=24,l=12,interleave=3,cadd=after,f=20,round=rne",
    "fused,a=fp16,b=fp16,c=fp32,d=fp32,k=16,l=8,interleave=4,f=24,ezero=-132",
    "fused,a=e4m3,b=e5m2,c=fp32,d=fp32,k=32,l=16,interleave=2,cadd=after,via=fp16,f=25,ezero=-133",
    "fused,a=e5m2,b=e5m2,c=e5m2,d=e5m2,k=16,f=20,round=rmm,p=2,zero=ieee,ovf=sat",
    "fused,a=e4m3,b=e4m3,c=e4m3,d=e4m3,k=8,f=16,round=rodd,p=3,zero=ieee,nan=prop",
    "fused,a=fp16,b=fp16,k=8,f=24,f2=31,cadd=rd,round=rne,povf=1,nan=canon+any,zero=fixed",
    "fused,a=bf16,b=bf16,k=12,l=6,f=18,f2=25,cadd=rdz,round=rne,povf=1",
    "fused,a=bf16,b=bf16,k=8,l=4,f=24,povf=1",
    "evenodd,a=e4m3fnuz,b=e5m2fnuz,k=32,l=16,f=24,f2=31,cadd=rdz,round=rne,nan=canon+any,zero=fixed",
    "evenodd,a=fp16,b=fp16,k=16,l=8,f=22,f2=28,cadd=rdz,round=rz,povf=1",
    "groups,a=e4m3,b=e4m3,k=32,l=32,g=8,f=30,scale=ue8m0,block=16,ezero=none,round=rne",
    "groups,a=e3m2,b=e2m3,c=fp16,d=fp16,k=64,l=64,g=8,f=24,scale=ue4m3,block=32,ezero=-20",
    "pairwise,a=bf16,b=bf16,k=32,g=8",
    "pairwise,a=fp16,b=fp16,c=fp32,k=4,g=4",
    "fma,a=fp32,b=fp32,c=fp32,d=fp32,k=8",
    "fma,a=fp64,b=fp64,c=fp64,d=fp64,k=16,nan=any",
    "exact,a=bf16,b=bf16,c=fp32,d=fp32,k=16,l=4,round=rz",
    "exact,a=e4m3,b=e5m2,c=bf16,d=bf16,k=32,l=8,round=rd",
    "exact,a=bf16,b=bf16,c=fp32,d=fp16,k=256,l=256,round=rne,nan=canon+any,zero=fixed",
    "exact,a=fp64,b=fp64,c=fp64,d=fp64,k=4,l=4,round=rne",
    "ieee,a=fp16,c=fp32,k=8",
    "ieee,a=fp16,c=fp16,d=fp16,k=4,l=2,round=rd,nan=prop",
    "ieee,a=e4m3,c=e4m3,d=e4m3,k=2,ovf=sat,tiny=before",
    "ieee,a=fp64,c=fp64,d=fp64,k=4,l=2,round=ru,nan=prop",
    "ieee,a=e2m1,b=e5m2,c=bf16,d=bf16,k=8,round=rmm",
    "ieee,a=e4m3,b=e4m3,c=fp32,d=fp32,k=32,scale=ue8m0,block=32,round=rodd",
    "exact,a=e4m3,b=e5m2,c=fp16,d=fp16,k=4,lscale=9,ovf=sat+inf",
    "chains,a=bf16,k=32,ways=2,start=zero,ftz=in+out,nan=x86",
    "chains,a=fp16,b=bf16,k=6,l=3,ways=1,start=c,order=down,round=ru,ftz=in+out,tiny=before",
    "chains,a=e5m2,b=e4m3,k=64,ways=1,fuse=64,start=none,ftz=in+out,nan=indef",
    "chains,a=bf16,k=8,ways=1,fuse=8,start=none,f=26,align=rodd,round=rodd,ovf=inf,zero=pos",
    "chains,a=e4m3,b=e5m2,c=fp16,d=fp16,k=16,ways=2,fuse=4,start=none,f=12,align=rd,round=rd,nan=prop",
    "chains,a=fp32,b=fp32,k=16,ways=1,start=zero,via=tf32,ftz=out,nan=x86",
};
#define NCONFIGS (sizeof configs / sizeof configs[0])

static int gpu = 1, mutate = 0;
static long count = 200, file_count = 0;

/* totals, under lock (files run on several threads) */
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static long t_units, t_sets, t_vecs, t_bad, t_nan_open, t_file_bad, t_files, t_file_vecs, t_spec_vecs;
#define NALG 16
static struct { const char *name; long units, vecs, bad; } alg[NALG];

static void count_alg(const mma_unit *u, long vecs, long bad, int new_unit)
{
    const char *a = mma_unit_algorithm(u);
    int i = 0;
    while (i < NALG - 1 && alg[i].name && strcmp(alg[i].name, a)) i++;
    alg[i].name = alg[i].name ? alg[i].name : a;
    alg[i].units += new_unit;
    alg[i].vecs += vecs;
    alg[i].bad += bad;
}

static uint64_t at(const void *p, int size, long i)
{
    uint64_t v = 0;
    memcpy(&v, (const char *)p + (size_t)i * (size_t)size, (size_t)size);   /* (little-endian hosts) */
    return v;
}

/* A set: n vectors of u at natural widths (x, d and flags unset).  Runs
 * every path, compares; want (may be NULL) is d from a file.  Returns the
 * mismatches; *nan_open the latitude taken. */
static long run_set(const char *what, const mma_unit *u, mma_batch *x, const uint64_t *want, const unsigned *want_fl,
                    long *nan_open)
{
    long n = (long)x->n, bad = 0;
    int ds = x->d_size, fl = mma_unit_has_flags(u);
    enum { CPU, REF, BODY, BODY_REF, GPU, GPU_REF, NPATH };
    static const char *path[NPATH] = {"CPU mma_batch_dot", "CPU reference path", "kernel body on the host",
                                      "reference kernel body on the host", "GPU", "GPU reference kernel"};
    unsigned char *d[NPATH] = {0}, *f[NPATH] = {0};
    char err[512];
    mma_unit ref = *u;
    ref.impl = 1;
    for (int p = 0; p < NPATH; p++) {
        d[p] = malloc((size_t)(n ? n : 1) * (size_t)ds);
        f[p] = fl ? malloc((size_t)(n ? n : 1)) : NULL;
        if (!d[p] || (fl && !f[p])) { fprintf(stderr, "FAIL %s: out of memory\n", what); bad++; goto out; }
        memset(d[p], 0xa5, (size_t)n * (size_t)ds);       /* every result must be written */
        if (fl) memset(f[p], 0xa5, (size_t)n);
        mma_batch y = *x;
        y.d = d[p];
        y.flags = f[p];
        int rc = 0;
        switch (p) {
        case CPU: rc = mma_batch_dot(u, &y, err, sizeof err); break;
        case REF: rc = mma_batch_dot(&ref, &y, err, sizeof err); break;
        case BODY: rc = mma_batch_dot_cuda_host(u, &y, err, sizeof err); break;
        case BODY_REF: rc = mma_batch_dot_cuda_host_with(u, &y, MMA_CUDA_KERNELS_REFERENCE, err, sizeof err); break;
        case GPU: if (gpu) rc = mma_batch_dot_cuda_copy(u, &y, err, sizeof err); break;
        default: if (gpu) rc = mma_batch_dot_cuda_copy_with(u, &y, MMA_CUDA_KERNELS_REFERENCE, err, sizeof err); break;
        }
        if (rc) { fprintf(stderr, "FAIL %s: %s: %s\n", what, path[p], err); bad += n ? n : 1; goto out; }
    }
    /* (--mutate: the specialized kernel's result where the unit has one) */
    if (mutate && n) d[gpu ? GPU : BODY][(size_t)(n / 2) * (size_t)ds] ^= 1;
    if (mma_cuda_specialized(u, x)) {
        pthread_mutex_lock(&mu);
        t_spec_vecs += n;
        pthread_mutex_unlock(&mu);
    }
    for (long i = 0; i < n; i++) {
        uint64_t r = at(d[REF], ds, i);
        int miss = 0, open = 0;
        for (int p = 0; p < NPATH; p++) {
            if ((p == GPU || p == GPU_REF) && !gpu) continue;
            uint64_t v = at(d[p], ds, i);
            if (v != r) {
                /* (the CPU's fast path may give another NaN where the unit
                 * leaves the payload open; the GPU and the host-compiled
                 * body must give the reference's bits) */
                if (p == CPU && mma_result_equal(u, v, r)) open = 1;
                else miss = 1;
            }
            if (fl && f[p][i] != f[REF][i]) miss = 1;
        }
        if (want && !mma_result_equal(u, want[i], r)) miss = 1;
        if (want_fl && fl && want_fl[i] != f[REF][i]) miss = 1;
        *nan_open += open && !miss;
        if (miss && bad++ < 3) {
            fprintf(stderr, "MISMATCH %s vector %ld:", what, i);
            if (want) fprintf(stderr, " file %llx", (unsigned long long)want[i]);
            for (int p = 0; p < NPATH; p++)
                if ((p != GPU && p != GPU_REF) || gpu)
                    fprintf(stderr, " %s %llx%s", path[p], (unsigned long long)at(d[p], ds, i), fl ? "" : "");
            if (fl)
                for (int p = 0; p < NPATH; p++)
                    if ((p != GPU && p != GPU_REF) || gpu) fprintf(stderr, " flags(%s) %02x", path[p], f[p][i]);
            fprintf(stderr, "\n");
        }
    }
out:
    for (int p = 0; p < NPATH; p++) { free(d[p]); free(f[p]); }
    return bad;
}

/* ---- the suites ------------------------------------------------------------ */

static void run_unit(const char *name)
{
    mma_unit u;
    char err[512];
    if (mma_unit_parse(name, &u, err, sizeof err)) {
        fprintf(stderr, "FAIL: %s\n", err);
        t_bad++;
        return;
    }
    mma_vec *v = malloc(sizeof *v * (size_t)count);
    uint64_t *want = malloc(sizeof *want * (size_t)count);
    unsigned *want_fl = malloc(sizeof *want_fl * (size_t)count);
    long vecs = 0, bad = 0, open = 0;
    for (size_t s = 0; s < NSUITES && v && want && want_fl; s++) {
        long n = cli_gen_suite(&u, suites[s], 1, 0, count, v);
        if (n < 0) { fprintf(stderr, "FAIL %s: suite %s unknown\n", name, suites[s]); bad++; continue; }
        for (long i = 0; i < n; i++) { want[i] = v[i].d; want_fl[i] = v[i].flags; }
        mma_batch x;
        void *mem[6];
        if (cli_batch_natural(&x, mem, &u, v, n)) { fprintf(stderr, "FAIL %s: out of memory\n", name); bad++; continue; }
        char what[400];
        snprintf(what, sizeof what, "%s, suite %s", name, suites[s]);
        /* (the suites' d were computed on the vectors as drawn, which
         * hold no bits above their formats' widths: the natural batch is
         * the same vectors) */
        bad += run_set(what, &u, &x, want, want_fl, &open);
        for (int i = 0; i < 6; i++) free(mem[i]);
        vecs += n;
        t_sets++;
    }
    if (!v || !want || !want_fl) { fprintf(stderr, "FAIL %s: out of memory\n", name); bad++; }
    free(v);
    free(want);
    free(want_fl);
    count_alg(&u, vecs, bad, 1);
    t_units++;
    t_vecs += vecs;
    t_bad += bad;
    t_nan_open += open;
}

/* ---- the files ------------------------------------------------------------- */

typedef struct {
    char **paths;
    long n;
    char **report;        /* per file: its line */
} files_job;

/* growing arrays of one file's vectors at natural widths */
typedef struct {
    unsigned char *p[5];  /* c, a, b, sa, sb */
    size_t cap;
    uint64_t *want;
    unsigned *want_fl;
} packed;

static int pack_grow(packed *q, const mma_unit *u, size_t need)
{
    if (need <= q->cap) return 0;
    size_t cap = q->cap ? q->cap * 2 : 65536, k = (size_t)u->k, ns = (size_t)mma_unit_nscales(u);
    while (cap < need) cap *= 2;
    size_t per[5] = {(size_t)mma_natural_size(u->c), k * (size_t)mma_natural_size(u->a),
                     k * (size_t)mma_natural_size(u->b), ns ? ns * (size_t)mma_natural_size(u->scale) : 1,
                     ns ? ns * (size_t)mma_natural_size(u->scale) : 1};
    for (int i = 0; i < 5; i++) {
        unsigned char *r = realloc(q->p[i], cap * per[i]);
        if (!r) return -1;
        q->p[i] = r;
    }
    uint64_t *w = realloc(q->want, cap * sizeof *w);
    if (!w) return -1;
    q->want = w;
    unsigned *wf = realloc(q->want_fl, cap * sizeof *wf);
    if (!wf) return -1;
    q->want_fl = wf;
    q->cap = cap;
    return 0;
}

static void put(unsigned char *dst, int size, size_t i, uint64_t v)
{
    memcpy(dst + i * (size_t)size, &v, (size_t)size);     /* (little-endian hosts) */
}

static void run_file(const char *path, char *line, size_t linelen)
{
    char err[1024];
    mma_vec_reader *r = mma_vec_open(path, NULL, err, sizeof err);
    if (!r) { snprintf(line, linelen, "FAIL %s", err); pthread_mutex_lock(&mu); t_file_bad++; pthread_mutex_unlock(&mu); return; }
    const mma_unit *u = mma_vec_unit(r);
    int k = u->k, ns = mma_unit_nscales(u), ff = mma_vec_has_flags(r);
    int cs = mma_natural_size(u->c), as = mma_natural_size(u->a), bs = mma_natural_size(u->b),
        ss = ns ? mma_natural_size(u->scale) : 1;
    packed q;
    memset(&q, 0, sizeof q);
    mma_vec *v = malloc(sizeof *v);
    long n = 0;
    int rc = 0;
    while (v && (file_count <= 0 || n < file_count) && (rc = mma_vec_next(r, v, err, sizeof err)) == 1) {
        if (pack_grow(&q, u, (size_t)n + 1)) { rc = -2; break; }
        put(q.p[0], cs, (size_t)n, v->c);
        for (int j = 0; j < k; j++) {
            put(q.p[1], as, (size_t)n * (size_t)k + (size_t)j, v->a[j]);
            put(q.p[2], bs, (size_t)n * (size_t)k + (size_t)j, v->b[j]);
        }
        for (int j = 0; j < ns; j++) {
            put(q.p[3], ss, (size_t)n * (size_t)ns + (size_t)j, v->sa[j]);
            put(q.p[4], ss, (size_t)n * (size_t)ns + (size_t)j, v->sb[j]);
        }
        q.want[n] = v->d;
        q.want_fl[n] = v->flags;
        n++;
    }
    long bad = 0, open = 0;
    if (rc < 0 || !v) {
        snprintf(line, linelen, "FAIL %s: %s", path, rc == -1 ? err : "out of memory");
        bad = 1;
    } else {
        mma_batch x;
        mma_batch_init(&x);
        x.n = (size_t)n;
        x.c = q.p[0]; x.a = q.p[1]; x.b = q.p[2];
        x.c_size = cs; x.a_size = as; x.b_size = bs; x.d_size = mma_natural_size(u->d);
        if (ns) { x.sa = q.p[3]; x.sb = q.p[4]; x.sa_size = x.sb_size = ss; }
        x.threads = 1;
        bad = run_set(path, u, &x, mma_vec_has_d(r) ? q.want : NULL, ff ? q.want_fl : NULL, &open);
        snprintf(line, linelen, "%s %s: %ld vectors, %ld mismatches%s", bad ? "FAIL" : "ok  ", path, n, bad,
                 open ? " (NaN payloads open: see the end)" : "");
    }
    pthread_mutex_lock(&mu);
    t_files++;
    t_file_vecs += n;
    t_file_bad += bad != 0;
    t_bad += bad;
    t_nan_open += open;
    count_alg(u, n, bad, 0);
    pthread_mutex_unlock(&mu);
    mma_vec_close(r);
    for (int i = 0; i < 5; i++) free(q.p[i]);
    free(q.want);
    free(q.want_fl);
    free(v);
}

static void files_chunk(void *ctx, int tid, long lo, long hi)
{
    (void)tid;
    files_job *j = ctx;
    for (long i = lo; i < hi; i++) {
        j->report[i] = malloc(2048);
        if (j->report[i]) run_file(j->paths[i], j->report[i], 2048);
    }
}

static int is_vec(const char *name)
{
    size_t n = strlen(name);
    return (n > 4 && !strcmp(name + n - 4, ".vec")) || (n > 7 && !strcmp(name + n - 7, ".vec.xz")) ||
           (n > 7 && !strcmp(name + n - 7, ".vec.gz"));
}

static void collect(const char *dir, char ***paths, long *n, long *cap)
{
    struct dirent **ent;
    int m = scandir(dir, &ent, NULL, alphasort);
    for (int i = 0; i < m; i++) {
        char p[4096];
        snprintf(p, sizeof p, "%s/%s", dir, ent[i]->d_name);
        struct stat st;
        if (ent[i]->d_name[0] != '.' && !stat(p, &st)) {
            if (S_ISDIR(st.st_mode)) collect(p, paths, n, cap);
            else if (is_vec(ent[i]->d_name)) {
                if (*n == *cap) { *cap = *cap ? *cap * 2 : 256; *paths = realloc(*paths, sizeof **paths * (size_t)*cap); }
                (*paths)[(*n)++] = strdup(p);
            }
        }
        free(ent[i]);
    }
    if (m >= 0) free(ent);
}

int main(int argc, char **argv)
{
    int host_only = 0;
    char **dirs = calloc((size_t)argc, sizeof *dirs);
    int nd = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--host-only")) host_only = 1;
        else if (!strcmp(argv[i], "--mutate")) mutate = 1;
        else if (!strcmp(argv[i], "--count") && i + 1 < argc) count = atol(argv[++i]);
        else if (!strcmp(argv[i], "--file-count") && i + 1 < argc) file_count = atol(argv[++i]);
        else if (argv[i][0] == '-') { fprintf(stderr, "test_cuda: unknown option %s\n", argv[i]); return 2; }
        else dirs[nd++] = argv[i];
    }
    char name[512], err[512];
    if (host_only) {
        gpu = 0;
        printf("test_cuda: --host-only: the GPU part skipped\n");
    } else if (mma_cuda_device(name, sizeof name, err, sizeof err)) {
        gpu = 0;
        printf("test_cuda: %s: the GPU part SKIPPED (the kernel body compiled for the host is checked alone)\n", err);
    } else {
        printf("test_cuda: %s\n", name);
    }
    double t0 = mma_now();
    size_t nc = mma_catalogue_size();
    for (size_t i = 0; i < nc; i++) {
        mma_catalogue_entry e;
        mma_catalogue_get(i, &e, NULL);
        char unit[256];
        snprintf(unit, sizeof unit, "%s:%s", e.arch, e.qualifier);
        run_unit(unit);
    }
    for (size_t i = 0; i < NCONFIGS; i++) run_unit(configs[i]);
    printf("suites: %ld units (%zu catalogue, %zu configurations), %zu suites each, %ld sets, %ld vectors, "
           "%ld mismatches (%.1f s)\n", t_units, nc, NCONFIGS, NSUITES, t_sets, t_vecs, t_bad, mma_now() - t0);
    long suite_bad = t_bad;
    t0 = mma_now();
    char **paths = NULL;
    long np = 0, cap = 0;
    for (int i = 0; i < nd; i++) collect(dirs[i], &paths, &np, &cap);
    files_job j = {paths, np, calloc((size_t)(np ? np : 1), sizeof(char *))};
    /* (threads: the files' reading and the CPU paths; the GPU takes each
     * file's batch in one call) */
    mma_parallel_for(np, 1, 0, files_chunk, &j, NULL, NULL);
    for (long i = 0; i < np; i++) {
        if (j.report[i] && (j.report[i][0] == 'F' || getenv("TEST_CUDA_VERBOSE"))) printf("%s\n", j.report[i]);
        free(j.report[i]);
        free(paths[i]);
    }
    printf("files: %ld files, %ld vectors, %ld files with mismatches or errors (%.1f s)\n", t_files, t_file_vecs,
           t_file_bad, mma_now() - t0);
    for (int i = 0; i < NALG && alg[i].name; i++)
        printf("  %-14s %4ld units %10ld vectors %6ld mismatches\n", alg[i].name, alg[i].units, alg[i].vecs,
               alg[i].bad);
    printf("the CPU's fast path (mma_batch_dot) with another NaN than the reference's, where the unit leaves the "
           "payload open (nan=any): %ld vectors (the GPU gives the reference's)\n", t_nan_open);
    long total = t_vecs + t_file_vecs;
    printf("kernels: %ld of the %ld vectors through a specialized kernel (FDA, FDRDA, GDFS: cuda/fast_kernels.cuh), "
           "every vector through the reference path's kernel as well\n", t_spec_vecs, total);
    printf("test_cuda: %s: %ld vectors, %ld mismatches (%s)\n", t_bad ? "FAIL" : "PASS", total, t_bad,
           gpu ? "GPU and host-compiled bodies, specialized and reference kernels, CPU library and reference path"
               : "kernel bodies on the host, specialized and reference, against the CPU library and reference path; "
                 "GPU not run");
    (void)suite_bad;
    free(paths);
    free(j.report);
    free(dirs);
    return t_bad ? 1 : 0;
}
