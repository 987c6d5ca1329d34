/* mmaref bench: dot products per second through the model, on one core and
 * on all cores, for pre-generated inputs (the generator is not timed). */
#include "cli.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* (model/src/fast.c) the kernel that computes u: 0 the reference, 1 scalar,
 * 2 AVX2, 3 AVX2 specialized */
int mma_fast_kernel(const mma_unit *u);
static const char *kernel_name[5] = {"reference", "scalar", "avx2", "avx2-spec", "avx512"};

/* Inputs packed densely (c, a[k], b[k], scales per vector), as a caller
 * streaming operands would hold them. */
typedef struct {
    const mma_unit *u;
    const uint64_t *c, *a, *b, *sa, *sb;
    long n, reps;
    uint64_t sink[256];      /* per thread, so that no work is optimized away */
} job;

/* CPU time of this thread: the per-core figure on a machine shared with
 * other jobs (wall time then counts the time the core was taken away) */
static double cpu_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* items lo..hi of reps x n: vector i % n */
static void run_items(void *ctx, int tid, long lo, long hi)
{
    job *j = ctx;
    int s = mma_unit_nscales(j->u), k = j->u->k;
    uint64_t x = 0;
    long i = lo % j->n;      /* (one division, not one a dot product: it cost 5%) */
    for (long it = lo; it < hi; it++, i = i + 1 == j->n ? 0 : i + 1)
        x ^= mma_dot(j->u, j->c[i], j->a + i * k, j->b + i * k, s ? j->sa + i * s : NULL, s ? j->sb + i * s : NULL);
    j->sink[tid & 255] ^= x;
}

/* ---- --file: the vectors at their natural widths, through mma_batch_dot */

/* the `per` encodings at offset `off` of each of the n vectors, in
 * elements of `size` bytes */
static void *pack(const mma_vec *v, long n, size_t off, size_t per, int size)
{
    unsigned char *p = malloc((size_t)n * per * (size_t)size + 1);
    for (long i = 0; p && i < n; i++)
        for (size_t j = 0; j < per; j++) {
            const uint64_t *x = (const uint64_t *)((const char *)&v[i] + off) + j;
            memcpy(p + ((size_t)i * per + j) * (size_t)size, x, (size_t)size);   /* (little-endian hosts) */
        }
    return p;
}

int cli_batch_natural(mma_batch *x, void *mem[6], const mma_unit *u, const mma_vec *v, long n)
{
    int ns = mma_unit_nscales(u);
    memset(mem, 0, 6 * sizeof *mem);
    mma_batch_init(x);
    x->n = (size_t)n;
    x->c_size = mma_natural_size(u->c);
    x->a_size = mma_natural_size(u->a);
    x->b_size = mma_natural_size(u->b);
    x->d_size = mma_natural_size(u->d);
    x->c = mem[0] = pack(v, n, offsetof(mma_vec, c), 1, x->c_size);
    x->a = mem[1] = pack(v, n, offsetof(mma_vec, a), (size_t)u->k, x->a_size);
    x->b = mem[2] = pack(v, n, offsetof(mma_vec, b), (size_t)u->k, x->b_size);
    int ok = mem[0] && mem[1] && mem[2];
    if (ns) {
        x->sa_size = x->sb_size = mma_natural_size(u->scale);
        x->sa = mem[4] = pack(v, n, offsetof(mma_vec, sa), (size_t)ns, x->sa_size);
        x->sb = mem[5] = pack(v, n, offsetof(mma_vec, sb), (size_t)ns, x->sb_size);
        ok = ok && mem[4] && mem[5];
    }
    return ok ? 0 : -1;
}

typedef struct {
    const mma_unit *u;
    mma_batch x;
    void *mem[6];        /* c, a, b, -, sa, sb */
} batch_job;

/* The file's vectors as a caller streaming operands holds them: a K=32 fp8
 * vector is 65 bytes rather than 520, and 100,000 of them stay in the
 * caches (as uint64 the loop waited on memory).  (d: batch_run's, per
 * thread) */
static int batch_setup(batch_job *j, const mma_unit *u, const mma_vec *v, long n)
{
    j->u = u;
    return cli_batch_natural(&j->x, j->mem, u, v, n);
}

static void batch_free(batch_job *j)
{
    for (int i = 0; i < 6; i++) free(j->mem[i]);
}

/* The passes of one thread over the file, through mma_batch_dot on one
 * thread, into a d of its own (threads sharing one d would fight over its
 * cache lines).  Every thread runs whole passes, rather than each pass
 * being cut among the threads: a pass over 100,000 vectors is too short
 * for the thread starts of a parallel call to vanish in it. */
typedef struct {
    batch_job *bj;
    long reps;
    unsigned char *d;     /* per thread: n results */
} batch_threads;

static void batch_passes(void *ctx, int tid, long lo, long hi)
{
    (void)tid;
    batch_threads *t = ctx;
    mma_batch x = t->bj->x;
    char err[256];
    x.threads = 1;
    for (long i = lo; i < hi; i++) {
        x.d = t->d + (size_t)i * x.n * (size_t)x.d_size;
        for (long r = 0; r < t->reps; r++)
            if (mma_batch_dot(t->bj->u, &x, err, sizeof err)) { fprintf(stderr, "mmaref bench: %s\n", err); exit(2); }
    }
}

static void batch_run(batch_job *j, long reps, int threads)
{
    batch_threads t = {j, reps, malloc((size_t)threads * j->x.n * (size_t)j->x.d_size)};
    if (!t.d) { fprintf(stderr, "mmaref bench: out of memory\n"); exit(2); }
    mma_parallel_for(threads, 1, threads, batch_passes, &t, NULL, NULL);
    free(t.d);
}

/* What a figure times: reps passes over the n vectors on each of `threads`
 * threads; the generated inputs as uint64 through mma_dot (job), or a
 * file's at their natural widths through mma_batch_dot (bj). */
typedef struct {
    job *j;
    uint64_t *buf;
    batch_job *bj;
    long n;
} passes;

static void run_passes(passes *p, long reps, int threads)
{
    if (p->bj) batch_run(p->bj, reps, threads);
    else if (threads == 1) run_items(p->j, 0, 0, p->n * reps);
    else mma_parallel_for(p->n * reps * threads, p->n, threads, run_items, p->j, NULL, NULL);
}

static void passes_free(passes *p)
{
    if (p->bj) batch_free(p->bj);
    free(p->buf);
    free(p->j);
}

/* c, a[k], b[k], sa, sb of every vector, densely as uint64 */
static uint64_t *packed64(const mma_unit *u, const mma_vec *v, long n)
{
    int k = u->k, ns = mma_unit_nscales(u) ? mma_unit_nscales(u) : 1;
    uint64_t *buf = malloc(sizeof(uint64_t) * (size_t)n * (size_t)(1 + 2 * k + 2 * ns));
    uint64_t *pc = buf, *pa = pc + n, *pb = pa + n * k, *psa = pb + n * k, *psb = psa + n * ns;
    for (long i = 0; buf && i < n; i++) {
        pc[i] = v[i].c;
        memcpy(pa + i * k, v[i].a, sizeof(uint64_t) * (size_t)k);
        memcpy(pb + i * k, v[i].b, sizeof(uint64_t) * (size_t)k);
        memcpy(psa + i * ns, v[i].sa, sizeof(uint64_t) * (size_t)ns);
        memcpy(psb + i * ns, v[i].sb, sizeof(uint64_t) * (size_t)ns);
    }
    return buf;
}

/* up to max vectors of a file (*n: how many), its unit in *u */
static mma_vec *read_file(const char *path, long max, long *n, mma_unit *u)
{
    char err[1024];
    mma_vec_reader *r = mma_vec_open(path, NULL, err, sizeof err);
    if (!r) { fprintf(stderr, "mmaref: %s\n", err); return NULL; }
    *u = *mma_vec_unit(r);
    long cap = 4096, i = 0;
    mma_vec *v = malloc(sizeof *v * (size_t)cap);
    int rc = 0;
    while (v && i < max && (rc = mma_vec_next(r, &v[i], err, sizeof err)) == 1)
        if (++i == cap) { cap *= 2; mma_vec *w = realloc(v, sizeof *v * (size_t)cap); if (!w) { free(v); v = NULL; } else v = w; }
    mma_vec_close(r);
    if (rc < 0) fprintf(stderr, "mmaref: %s\n", err);
    if (rc < 0 || !v || i == 0) { free(v); return NULL; }
    *n = i;
    return v;
}

/* Inputs: the normal suite (random significands, clustered exponents),
 * written by gen into a temporary file and read back. */
static mma_vec *inputs(const char *instr, long n)
{
    char path[] = "/tmp/mmaref-bench-XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0) return NULL;
    close(fd);
    char cnt[32];
    snprintf(cnt, sizeof cnt, "%ld", n);
    char *argv[] = {(char *)instr, "--suite", "normal", "--count", cnt, "--seed", "1", "-o", path, "--threads", "1"};
    if (cmd_gen(11, argv)) { unlink(path); return NULL; }
    char err[512];
    mma_vec_reader *r = mma_vec_open(path, NULL, err, sizeof err);
    mma_vec *v = malloc(sizeof *v * (size_t)n);
    long i = 0;
    while (r && v && i < n && mma_vec_next(r, &v[i], err, sizeof err) == 1) i++;
    mma_vec_close(r);
    unlink(path);
    if (i != n) { free(v); return NULL; }
    return v;
}

const char cli_bench_help[] =
    "usage: mmaref bench [instr|config ...] [--all] [--file F.vec ...] [--threads N] [--seconds S] [--reps R]\n"
    "                    [--device cuda [--count N] [--suite S] [--launch \"B,P ...\"]]\n"
    "  dot products per second: one core (thread CPU time and wall clock) and N threads,\n"
    "  on 4096 vectors of the normal suite, each a call of mma_dot; then the same vectors at\n"
    "  their natural widths through mma_batch_dot on one core (CPU time: \"batch 1 core\");\n"
    "  without units, seven representative instructions\n"
    "  --all            every catalogue unit, then the slowest\n"
    "  --file F.vec     the vectors of a file instead (up to 1,000,000), each encoding held\n"
    "                   in the fewest bytes that hold its format (one for fp8) and computed\n"
    "                   through the library's batch call, mma_batch_dot (all cores: each\n"
    "                   thread makes the call on the whole file)\n"
    "  --threads N      threads for the all-core figure (default: every core)\n"
    "  --seconds S      measuring time per figure (default 1)\n"
    "  --reps R         R fixed passes over the vectors on one core (for instruction counts)\n"
    "  --device cuda    on the GPU instead (mmaref built with MMAREF_CUDA=1): --count N vectors\n"
    "                   (default 4194304; at most 1 GB of operands) of --suite S (default\n"
    "                   normal) or of each --file (repeated to N), copied to the GPU once, the\n"
    "                   kernel run over them for --seconds and timed by CUDA events; every\n"
    "                   result compared with the CPU library's (a mismatch: exit 1)\n"
    "  --launch \"B,P ...\" with --device cuda: the kernel's launch shapes to time, B threads a\n"
    "                   block and P blocks a multiprocessor (0: all that fit), a line each\n";

static int usage(void)
{
    fputs(cli_bench_help, stderr);
    return 2;
}

int cmd_bench(int argc, char **argv)
{
    long n = 4096;
    double secs = 1.0;
    long fixed_reps = 0;     /* fixed work, for instruction counting */
    int threads = mma_default_threads(), all = 0, device = CLI_DEV_CPU;
    long gpu_count = 1L << 22;
    const char *suite = "normal", *launch = NULL;
    const char **list = malloc(sizeof *list * (size_t)(argc + mma_catalogue_size() + 16));
    char (*names)[256] = NULL;
    int nl = 0, files = 0;
    for (int i = 0; i < argc; i++) {
        char *e = NULL;
        if (!strcmp(argv[i], "--threads") && i + 1 < argc) {
            if ((threads = cli_threads(argv[++i])) < 0) { free(list); return 2; }
        } else if (!strcmp(argv[i], "--seconds") && i + 1 < argc) {
            const char *v = argv[++i];
            secs = strtod(v, &e);
            /* (an hour a figure is already more than anyone waits for) */
            if (!*v || *e || !(secs > 0) || secs > 3600) {
                fprintf(stderr, "mmaref bench: --seconds needs a number of seconds above 0, at most 3600 (got '%s')\n", v);
                free(list);
                return 2;
            }
        } else if (!strcmp(argv[i], "--reps") && i + 1 < argc) {
            if ((fixed_reps = cli_count_arg("bench", "--reps", argv[++i], 1L << 30)) < 1) {
                if (!fixed_reps) fprintf(stderr, "mmaref bench: --reps needs at least 1\n");
                free(list);
                return 2;
            }
        } else if (!strcmp(argv[i], "--device") && i + 1 < argc) {
            if (cli_device_arg("bench", argv[++i], &device)) { free(list); return 2; }
        } else if (!strcmp(argv[i], "--count") && i + 1 < argc) {
            if ((gpu_count = cli_count_arg("bench", "--count", argv[++i], 1L << 27)) < 1) { free(list); return 2; }
        } else if (!strcmp(argv[i], "--suite") && i + 1 < argc) {
            suite = argv[++i];
        } else if (!strcmp(argv[i], "--launch") && i + 1 < argc) {
            launch = argv[++i];
        } else if (!strcmp(argv[i], "--all")) all = 1;
        else if (!strcmp(argv[i], "--file")) {
            files = 1;
            if (i + 1 == argc) { fprintf(stderr, "mmaref bench: --file needs a value (one or more vector files)\n"); free(list); return 2; }
        }
        else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) { free(list); usage(); return 0; }
        else if (argv[i][0] == '-') { cli_bad_option("bench", argv[i], "--threads --seconds --reps --device --count --suite --launch"); free(list); return 2; }
        else list[nl++] = argv[i];
    }
    if (threads > 256) threads = 256;
    if (all) {
        size_t nc = mma_catalogue_size();
        names = malloc(sizeof *names * nc);
        for (size_t i = 0; i < nc; i++) {
            mma_catalogue_entry e;
            mma_catalogue_get(i, &e, NULL);
            snprintf(names[i], sizeof names[i], "%s:%s", e.arch, e.qualifier);
            list[nl++] = names[i];
        }
    }
    if (!nl) {
        static const char *def[] = {"hopper:wgmma.m64n8k32.f32.e4m3.e4m3", "ampere:mma.m16n8k16.f32.f16.f16.f32",
                                    "ampere:mma.m16n8k16.f32.bf16.bf16.f32", "cdna3:v_mfma_f32_16x16x32_fp8_fp8",
                                    "hopper:mma.m8n8k4.f64.f64.f64.f64", "hopper:wgmma.m64n8k16.f32.bf16.bf16",
                                    "blackwell:tcgen05.mma.m128n8k64.kind::mxf4nvf4.block16.f32.e2m1.e2m1.ue4m3"};
        for (size_t i = 0; i < sizeof def / sizeof def[0]; i++) list[nl++] = def[i];
    }
    if (device == CLI_DEV_CUDA) {
        int rc = cli_bench_gpu(list, nl, files, gpu_count, secs, suite, launch);
        free(names);
        free(list);
        return rc;
    }
    if (!fixed_reps)
        printf("%-80s %-10s %-9s %14s %14s %14s %7s %14s\n", "instruction", "algorithm", "kernel", "dot/s 1 core",
               "(wall)", "dot/s all", "threads", "batch 1 core");
    const char *slowest = NULL;
    double slow_rate = 0;
    int rc = 0;
    for (int li = 0; li < nl; li++) {
        mma_unit u;
        mma_vec *v;
        if (files) {
            if (!(v = read_file(list[li], 1000000, &n, &u))) { rc = 2; break; }
        } else {
            n = 4096;
            if (cli_unit(list[li], &u)) { rc = 2; break; }
            v = inputs(list[li], n);
            if (!v) { fprintf(stderr, "mmaref bench: cannot make inputs for %s\n", list[li]); rc = 2; break; }
        }
        passes p = {NULL, NULL, NULL, n};
        batch_job bj, bn;            /* bn: the generated inputs as a batch */
        int has_bn = 0;
        if (files) {
            int bad = batch_setup(&bj, &u, v, n);
            free(v);
            if (bad) { batch_free(&bj); fprintf(stderr, "mmaref bench: out of memory\n"); rc = 2; break; }
            p.bj = &bj;
        } else {
            has_bn = !fixed_reps && !batch_setup(&bn, &u, v, n);
            p.buf = packed64(&u, v, n);
            free(v);
            p.j = calloc(1, sizeof *p.j);
            if (!p.buf || !p.j) { passes_free(&p); fprintf(stderr, "mmaref bench: out of memory\n"); rc = 2; break; }
            int ns = mma_unit_nscales(&u) ? mma_unit_nscales(&u) : 1;
            uint64_t *pa = p.buf + n, *pb = pa + n * u.k, *psa = pb + n * u.k;
            *p.j = (job){&u, p.buf, pa, pb, psa, psa + n * ns, n, 1, {0}};
        }
        if (fixed_reps) {
            double f0 = mma_now();
            run_passes(&p, fixed_reps, 1);
            printf("%-80s %14.0f\n", list[li], (double)n * (double)fixed_reps / (mma_now() - f0));
            passes_free(&p);
            continue;
        }
        /* calibrate the repetitions to about `secs` on one core */
        double t0 = mma_now();
        run_passes(&p, 1, 1);
        double t1 = mma_now() - t0;
        long reps = (long)(secs / (t1 > 1e-6 ? t1 : 1e-6)) + 1;
        t0 = mma_now();
        double c0 = cpu_now();
        run_passes(&p, reps, 1);
        double onecpu = (double)n * (double)reps / (cpu_now() - c0);
        double one = (double)n * (double)reps / (mma_now() - t0);
        /* all threads: the same work per thread, through the library's
         * parallel loop */
        t0 = mma_now();
        run_passes(&p, reps, threads);
        double allr = (double)n * (double)reps * threads / (mma_now() - t0);
        /* the same vectors at their natural widths through mma_batch_dot
         * on one core (CPU time): the library's throughput call */
        char batchr[32] = "-";
        if (has_bn) {
            passes q = {NULL, NULL, &bn, n};
            c0 = cpu_now();
            run_passes(&q, 1, 1);
            double t2 = cpu_now() - c0;
            long reps2 = (long)(secs / (t2 > 1e-6 ? t2 : 1e-6)) + 1;
            c0 = cpu_now();
            run_passes(&q, reps2, 1);
            snprintf(batchr, sizeof batchr, "%.0f", (double)n * (double)reps2 / (cpu_now() - c0));
            batch_free(&bn);
        }
        printf("%-80s %-10s %-9s %14.0f %14.0f %14.0f %7d %14s\n", files ? u.name : list[li], mma_unit_algorithm(&u),
               kernel_name[mma_fast_kernel(&u) % 5], onecpu, one, allr, threads, batchr);
        fflush(stdout);
        if (!slowest || onecpu < slow_rate) { slowest = list[li]; slow_rate = onecpu; }
        passes_free(&p);
    }
    if (!rc && all && slowest)
        printf("slowest of %d units: %s, %.1f M dot/s on one core (CPU time)\n", nl, slowest, slow_rate / 1e6);
    free(names);
    free(list);
    return rc;
}
