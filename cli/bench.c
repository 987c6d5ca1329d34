/* mmaref bench: dot products per second through the model, on one core and
 * on all cores, for pre-generated inputs (the generator is not timed). */
#include "cli.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Inputs packed densely (c, a[k], b[k], scales per vector), as a caller
 * streaming operands would hold them. */
typedef struct {
    const mma_unit *u;
    const uint64_t *c, *a, *b, *sa, *sb;
    long n, reps;
    uint64_t sink;
} job;

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* CPU time of this thread: the per-core figure on a machine shared with
 * other jobs (wall time then counts the time the core was taken away) */
static double cpu_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void *work(void *p)
{
    job *j = p;
    int s = mma_unit_nscales(j->u), k = j->u->k;
    uint64_t x = 0;
    for (long r = 0; r < j->reps; r++)
        for (long i = 0; i < j->n; i++)
            x ^= mma_dot(j->u, j->c[i], j->a + i * k, j->b + i * k, s ? j->sa + i * s : NULL, s ? j->sb + i * s : NULL);
    j->sink = x;
    return NULL;
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
    char *argv[] = {(char *)instr, "--suite", "normal", "--count", cnt, "--seed", "1", "-o", path};
    if (cmd_gen(9, argv)) { unlink(path); return NULL; }
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
    "usage: mmaref bench [instr|config...] [--threads N] [--seconds S] [--reps R]\n"
    "  dot products per second through the model, on one core (wall and thread CPU time) and\n"
    "  on N threads; without units, seven representative instructions\n"
    "  --threads N      threads for the all-core figure (default: all cores)\n"
    "  --seconds S      measuring time per figure (default 1)\n"
    "  --reps R         a fixed number of passes instead of a time (for perf stat)\n";

int cmd_bench(int argc, char **argv)
{
    long n = 4096;
    double secs = 1.0;
    long fixed_reps = 0;     /* fixed work, for cycle counting with perf stat */
    int threads = (int)sysconf(_SC_NPROCESSORS_ONLN);
    const char *list[64];
    int nl = 0;
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--threads") && i + 1 < argc) threads = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--seconds") && i + 1 < argc) secs = atof(argv[++i]);
        else if (!strcmp(argv[i], "--reps") && i + 1 < argc) fixed_reps = atol(argv[++i]);
        else if (argv[i][0] == '-') { fprintf(stderr, "mmaref bench: unknown option '%s'\n", argv[i]); return 2; }
        else if (nl < 64) list[nl++] = argv[i];
    }
    if (threads < 1) threads = 1;
    if (!nl) {
        static const char *def[] = {"hopper:wgmma.m64n8k32.f32.e4m3.e4m3", "ampere:mma.m16n8k16.f32.f16.f16.f32",
                                    "ampere:mma.m16n8k16.f32.bf16.bf16.f32", "cdna3:v_mfma_f32_16x16x32_fp8_fp8",
                                    "hopper:mma.m8n8k4.f64.f64.f64.f64", "hopper:wgmma.m64n8k16.f32.bf16.bf16",
                                    "blackwell:tcgen05.mma.m128n8k64.kind::mxf4nvf4.block16.f32.e2m1.e2m1.ue4m3"};
        for (size_t i = 0; i < sizeof def / sizeof def[0]; i++) list[nl++] = def[i];
    }
    printf("%-66s %14s %14s %14s %8s\n", "instruction", "dot/s 1 core", "(CPU time)", "dot/s all", "threads");
    for (int li = 0; li < nl; li++) {
        mma_unit u;
        if (cli_unit(list[li], &u)) return 2;
        mma_vec *v = inputs(list[li], n);
        if (!v) { fprintf(stderr, "mmaref bench: cannot make inputs for %s\n", list[li]); return 2; }
        int k = u.k, ns = mma_unit_nscales(&u) ? mma_unit_nscales(&u) : 1;
        uint64_t *buf = malloc(sizeof(uint64_t) * (size_t)n * (size_t)(1 + 2 * k + 2 * ns));
        uint64_t *pc = buf, *pa = pc + n, *pb = pa + n * k, *psa = pb + n * k, *psb = psa + n * ns;
        for (long i = 0; i < n; i++) {
            pc[i] = v[i].c;
            memcpy(pa + i * k, v[i].a, sizeof(uint64_t) * (size_t)k);
            memcpy(pb + i * k, v[i].b, sizeof(uint64_t) * (size_t)k);
            memcpy(psa + i * ns, v[i].sa, sizeof(uint64_t) * (size_t)ns);
            memcpy(psb + i * ns, v[i].sb, sizeof(uint64_t) * (size_t)ns);
        }
        free(v);
        /* calibrate the repetitions to about `secs` on one core */
        job j = {&u, pc, pa, pb, psa, psb, n, 1, 0};
        if (fixed_reps) {
            j.reps = fixed_reps;
            double f0 = now();
            work(&j);
            printf("%-66s %14.0f %14s %14s %8d\n", list[li], (double)n * (double)j.reps / (now() - f0), "-", "-", 1);
            free(buf);
            continue;
        }
        double t0 = now();
        work(&j);
        double t1 = now() - t0;
        j.reps = (long)(secs / (t1 > 1e-6 ? t1 : 1e-6)) + 1;
        t0 = now();
        double c0 = cpu_now();
        work(&j);
        double one = (double)n * (double)j.reps / (now() - t0);
        double onecpu = (double)n * (double)j.reps / (cpu_now() - c0);
        pthread_t th[256];
        job js[256];
        int nt = threads > 256 ? 256 : threads;
        t0 = now();
        for (int t = 0; t < nt; t++) { js[t] = j; pthread_create(&th[t], NULL, work, &js[t]); }
        for (int t = 0; t < nt; t++) pthread_join(th[t], NULL);
        double all = (double)n * (double)j.reps * nt / (now() - t0);
        printf("%-66s %14.0f %14.0f %14.0f %8d\n", list[li], one, onecpu, all, nt);
        fflush(stdout);
        free(buf);
    }
    return 0;
}
