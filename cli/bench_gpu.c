/* mmaref bench --device cuda: dot products per second on the GPU.  The
 * vectors (a suite of mmaref gen, or a file's, repeated) are held at their
 * natural widths, copied to the device once, and the kernel is run over
 * them as many times as fill the measuring time, timed by CUDA events
 * (mma_cuda_bench): the figure leaves out the copies and the generator.
 * Every result is then compared with the CPU library's on the same batch
 * (mma_batch_dot, all cores): a mismatch fails the run. */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

/* vectors [lo, hi) of the batch from a suite: each thread fills its own
 * chunk of mma_vec and packs it */
typedef struct {
    const mma_unit *u;
    const char *suite;
    const mma_vec *file;      /* or a file's vectors, repeated */
    long nfile;
    mma_batch *x;
    int bad;
} fill_job;

static void put(void *dst, int size, size_t i, uint64_t v)
{
    memcpy((char *)dst + i * (size_t)size, &v, (size_t)size);   /* (little-endian hosts) */
}

static void fill_chunk(void *ctx, int tid, long lo, long hi)
{
    (void)tid;
    fill_job *j = ctx;
    const mma_unit *u = j->u;
    mma_batch *x = j->x;
    size_t k = (size_t)u->k, ns = (size_t)mma_unit_nscales(u);
    mma_vec *v = j->file ? NULL : malloc(sizeof *v * (size_t)(hi - lo));
    if (!j->file && (!v || cli_gen_suite(u, j->suite, 1, lo, hi, v) != hi - lo)) { j->bad = 1; free(v); return; }
    for (long i = lo; i < hi; i++) {
        const mma_vec *w = j->file ? &j->file[i % j->nfile] : &v[i - lo];
        size_t s = (size_t)i;
        put((void *)x->c, x->c_size, s, w->c);
        for (size_t q = 0; q < k; q++) {
            put((void *)x->a, x->a_size, s * k + q, w->a[q]);
            put((void *)x->b, x->b_size, s * k + q, w->b[q]);
        }
        for (size_t q = 0; q < ns; q++) {
            put((void *)x->sa, x->sa_size, s * ns + q, w->sa[q]);
            put((void *)x->sb, x->sb_size, s * ns + q, w->sb[q]);
        }
    }
    free(v);
}

/* a batch of n vectors of u at natural widths (arrays in mem[0..6]) */
static int make_batch(mma_batch *x, void *mem[7], const mma_unit *u, size_t n, const char *suite, const mma_vec *file,
                      long nfile)
{
    size_t k = (size_t)u->k, ns = (size_t)mma_unit_nscales(u);
    mma_batch_init(x);
    x->n = n;
    x->c_size = mma_natural_size(u->c);
    x->a_size = mma_natural_size(u->a);
    x->b_size = mma_natural_size(u->b);
    x->d_size = mma_natural_size(u->d);
    x->sa_size = x->sb_size = ns ? mma_natural_size(u->scale) : 1;
    size_t bytes[7] = {n * (size_t)x->c_size, n * k * (size_t)x->a_size, n * k * (size_t)x->b_size,
                       n * (ns ? ns : 1) * (size_t)x->sa_size, n * (ns ? ns : 1) * (size_t)x->sb_size,
                       n * (size_t)x->d_size, n * (size_t)x->d_size};
    for (int i = 0; i < 7; i++)
        if (!(mem[i] = malloc(bytes[i] ? bytes[i] : 1))) return -1;
    x->c = mem[0]; x->a = mem[1]; x->b = mem[2]; x->d = mem[5];
    if (ns) { x->sa = mem[3]; x->sb = mem[4]; }
    fill_job j = {u, suite, file, nfile, x, 0};
    mma_parallel_for((long)n, 4096, 0, fill_chunk, &j, NULL, NULL);
    return j.bad ? -1 : 0;
}

static mma_vec *read_vectors(const char *path, long max, long *n, mma_unit *u)
{
    char err[1024];
    mma_vec_reader *r = mma_vec_open(path, NULL, err, sizeof err);
    if (!r) { fprintf(stderr, "mmaref: %s\n", err); return NULL; }
    *u = *mma_vec_unit(r);
    long cap = 1024, i = 0;
    mma_vec *v = malloc(sizeof *v * (size_t)cap);
    int rc = 0;
    while (v && i < max && (rc = mma_vec_next(r, &v[i], err, sizeof err)) == 1)
        if (++i == cap) {
            cap *= 2;
            mma_vec *w = realloc(v, sizeof *v * (size_t)cap);
            if (!w) { free(v); v = NULL; } else v = w;
        }
    mma_vec_close(r);
    if (rc < 0) fprintf(stderr, "mmaref: %s\n", err);
    if (rc < 0 || !v || i == 0) {
        if (!rc && v && !i) fprintf(stderr, "mmaref bench: %s: no vectors\n", path);
        free(v);
        return NULL;
    }
    *n = i;
    return v;
}

int cli_bench_gpu(const char **list, int nl, int files, long count, double secs, const char *suite, const char *launch)
{
    char name[512], err[1024], info[256];
    if (cli_dev_name(name, sizeof name, err, sizeof err)) { fprintf(stderr, "mmaref bench: --device cuda: %s\n", err); return 2; }
    printf("# %s; %s vectors, %ld a launch (at most 1 GB of operands), the kernel timed by CUDA events\n", name,
           files ? "the file's" : suite, count);
    printf("%-80s %-10s %10s %16s %12s  %s\n", "instruction", "algorithm", "vectors", "dot/s GPU", "launches",
           "kernel");
    int rc = 0;
    for (int li = 0; li < nl && !rc; li++) {
        mma_unit u;
        mma_vec *fv = NULL;
        long nf = 0;
        if (files) {
            if (!(fv = read_vectors(list[li], 1000000, &nf, &u))) { rc = 2; break; }
        } else if (cli_unit(list[li], &u)) { rc = 2; break; }
        size_t per = (size_t)mma_natural_size(u.c) + (size_t)u.k * (size_t)(mma_natural_size(u.a) + mma_natural_size(u.b)) +
                     (size_t)mma_natural_size(u.d) * 2;
        size_t n = (size_t)count, most = ((size_t)1 << 30) / per;
        if (n > most) n = most;
        mma_batch x;
        void *mem[7] = {0};
        if (make_batch(&x, mem, &u, n, suite, fv, nf)) {
            fprintf(stderr, "mmaref bench: out of memory (or no suite '%s')\n", suite);
            rc = 2;
        }
        /* each launch shape asked for (--launch), a figure each */
        const char *lp = launch;
        double best = 0, t = 0;
        int reps = 1;
        char shape[64] = "";
        do {
            int blk = 0, bps = 0, used = 0;
            if (lp && sscanf(lp, " %d,%d%n", &blk, &bps, &used) == 2) lp += used;
            else lp = NULL;
            cli_dev_launch(blk, bps);
            if (!rc && cli_dev_bench(&u, &x, 1, &t, info, sizeof info, err, sizeof err)) rc = 2;
            if (!rc) {
                reps = (int)(secs / (t > 1e-6 ? t : 1e-6)) + 1;
                if (reps > 100000) reps = 100000;
                if (cli_dev_bench(&u, &x, reps, &t, info, sizeof info, err, sizeof err)) rc = 2;
            }
            if (!rc && lp) {
                printf("%-80s %-10s %10zu %16.0f %12d  %s (launch %d,%d)\n", files ? u.name : list[li],
                       mma_unit_algorithm(&u), n, (double)n * reps / t, reps, info, blk, bps);
                fflush(stdout);
            }
            if (!rc && (double)n * reps / t > best) { best = (double)n * reps / t; snprintf(shape, sizeof shape, "%d,%d", blk, bps); }
            while (lp && (*lp == ' ' || *lp == ';')) lp++;
            if (lp && !*lp) lp = NULL;
        } while (!rc && lp);
        cli_dev_launch(0, 0);
        if (rc == 2 && err[0]) fprintf(stderr, "mmaref bench: %s: %s\n", list[li], err);
        /* the GPU's d against the CPU library's */
        long bad = 0, open = 0;
        if (!rc) {
            mma_batch y = x;
            y.d = mem[6];
            y.threads = 0;
            if (mma_batch_dot(&u, &y, err, sizeof err)) { fprintf(stderr, "mmaref bench: %s\n", err); rc = 2; }
            for (size_t i = 0; !rc && i < n; i++) {
                uint64_t g = 0, c = 0;
                memcpy(&g, (char *)mem[5] + i * (size_t)x.d_size, (size_t)x.d_size);
                memcpy(&c, (char *)mem[6] + i * (size_t)x.d_size, (size_t)x.d_size);
                if (g == c) continue;
                if (mma_result_equal(&u, g, c)) open++;
                else if (bad++ < 3)
                    fprintf(stderr, "mmaref bench: %s: vector %zu: GPU d=%llx, CPU d=%llx\n", list[li], i,
                            (unsigned long long)g, (unsigned long long)c);
            }
        }
        if (!rc) {
            printf("%-80s %-10s %10zu %16.0f %12d  %s", files ? u.name : list[li], mma_unit_algorithm(&u), n,
                   launch ? best : (double)n * reps / t, reps, info);
            if (launch) printf(" (best: launch %s)", shape);
            if (open) printf("; %ld NaN payloads differ (nan=any)", open);
            printf("%s\n", bad ? "; MISMATCHES against the CPU" : "");
            fflush(stdout);
            if (bad) rc = 1;
        }
        for (int i = 0; i < 7; i++) free(mem[i]);
        free(fv);
    }
    return rc;
}
