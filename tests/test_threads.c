/* Many threads making their first calls into the library at once.
 *
 * Every lazily built table (the instruction catalogue, the fast path's
 * plans and operand tables, the exact reference's tables) is built by
 * whichever thread comes first; a C user with a thread pool meets that on
 * the first call of every thread at the same moment.  Each round runs in a
 * fresh child process (nothing built yet), releases THREADS threads from a
 * barrier into the public entry points, and compares what each thread got
 * with what the same calls give afterwards on one thread.  Built with
 * ThreadSanitizer by `make test-threads`, which then reports any race. */
#include "mmaref.h"
#include "mmaref_exact.h"
#include "mmaref_metrics.h"
#include "mmaref_parallel.h"
#include "mmaref_rng.h"
#include "mmaref_triage.h"
#include "mmaref_vec.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define THREADS 16
#define NVEC 64

/* names a threaded user would parse first: catalogue entries of every
 * family, configuration strings, and names with options */
static const char *names[] = {
    "hopper:wgmma.m64n8k32.f32.e4m3.e4m3",
    "hopper:mma.m16n8k16.f32.bf16.bf16.f32",
    "ampere:mma.m16n8k16.f32.f16.f16.f32",
    "hopper:mma.m8n8k4.f64.f64.f64.f64",
    "cdna3:v_mfma_f32_16x16x32_fp8_fp8",
    "cdna3:v_mfma_f32_16x16x16_f16",
    "cdna2:v_mfma_f32_16x16x16f16",
    "cdna1:v_mfma_f32_4x4x4f16",
    "blackwell:tcgen05.mma.m128n8k32.kind::mxf8f6f4.block32.f32.e4m3.e4m3.ue8m0",
    "blackwell:tcgen05.mma.m128n8k64.kind::mxf4nvf4.block16.f32.e2m1.e2m1.ue4m3",
    "hopper:wgmma.m64n8k8.f32.tf32.tf32",
    "volta:wmma.m16n16k16.f16.f16",
    "fused,a=bf16,k=16,l=8,f=20,round=rne",
    "fused,a=e5m2,b=e4m3,k=32,f=13,round=rz",
    "ieee,a=fp16,c=fp32,d=fp32,k=4,l=1",
};
#define NNAMES (int)(sizeof names / sizeof names[0])

typedef struct {
    int ok;                      /* the unit parsed                 */
    uint64_t d[NVEC];            /* mma_dot                         */
    uint64_t db[NVEC];           /* mma_dot_batch (1 thread)        */
    double x[NVEC];              /* the exact reference as a double */
    int cls[NVEC];               /* triage class of d against d ^ 1 */
    char cfg[600];
    double mean_ulp;             /* a small metrics run             */
} result;

static pthread_barrier_t start;

typedef struct { int name; result *r; } job;

static void draw(const mma_unit *u, int i, uint64_t *c, uint64_t *a, uint64_t *b, uint64_t *sa, uint64_t *sb)
{
    mma_rng g;
    mma_rng_seed(&g, 1000u + (uint64_t)i, 7);
    uint64_t cm = mma_format(u->c)->width >= 64 ? ~0ull : (1ull << mma_format(u->c)->width) - 1;
    *c = mma_rng_next(&g) & cm;
    uint64_t am = (1ull << mma_format(u->a)->width) - 1, bm = (1ull << mma_format(u->b)->width) - 1;
    if (mma_format(u->a)->width >= 64) am = ~0ull;
    if (mma_format(u->b)->width >= 64) bm = ~0ull;
    for (int k = 0; k < u->k; k++) { a[k] = mma_rng_next(&g) & am; b[k] = mma_rng_next(&g) & bm; }
    for (int s = 0; s < MMA_MAX_SCALES; s++) { sa[s] = 0x7f; sb[s] = 0x7e + (uint64_t)(mma_rng_next(&g) & 3); }
}

static void compute(int name, result *r)
{
    mma_unit u;
    char err[512];
    r->ok = !mma_unit_parse(names[name], &u, err, sizeof err);
    if (!r->ok) return;
    mma_unit_config(&u, r->cfg, sizeof r->cfg);
    uint64_t *c = calloc(NVEC, 8), *A = calloc((size_t)NVEC * MMA_MAX_K, 8), *B = calloc((size_t)NVEC * MMA_MAX_K, 8);
    uint64_t *SA = calloc((size_t)NVEC * MMA_MAX_SCALES, 8), *SB = calloc((size_t)NVEC * MMA_MAX_SCALES, 8);
    if (!c || !A || !B || !SA || !SB) abort();
    int ns = mma_unit_nscales(&u);
    for (int i = 0; i < NVEC; i++) {
        uint64_t sa[MMA_MAX_SCALES], sb[MMA_MAX_SCALES];
        draw(&u, i, &c[i], &A[(size_t)i * u.k], &B[(size_t)i * u.k], sa, sb);
        for (int s = 0; s < ns; s++) { SA[(size_t)i * ns + s] = sa[s]; SB[(size_t)i * ns + s] = sb[s]; }
        const uint64_t *pa = &A[(size_t)i * u.k], *pb = &B[(size_t)i * u.k];
        const uint64_t *psa = ns ? &SA[(size_t)i * ns] : NULL, *psb = ns ? &SB[(size_t)i * ns] : NULL;
        r->d[i] = mma_dot(&u, c[i], pa, pb, psa, psb);
        mma_exact x;
        mma_exact_dot(&u, c[i], pa, pb, psa, psb, &x);
        r->x[i] = mma_exact_to_double(&x);
        r->cls[i] = (int)mma_mismatch_classify(&u, c[i], pa, pb, psa, psb, r->d[i], r->d[i] ^ 1);
    }
    mma_dot_batch(&u, NVEC, c, A, B, ns ? SA : NULL, ns ? SB : NULL, r->db, 1);
    mma_metrics_opts o;
    mma_metrics_defaults(&o);
    o.count = 200;
    o.threads = 1;
    mma_row row;
    memset(&row, 0, sizeof row);
    if (!mma_metrics_run(&o, &u, 1, &row, err, sizeof err)) {
        r->mean_ulp = row.tot.n ? row.tot.sum_ulp / (double)row.tot.n : 0;
        mma_row_free(&row);
    } else {
        r->mean_ulp = -1;
    }
    free(c); free(A); free(B); free(SA); free(SB);
}

static void *thread_main(void *arg)
{
    job *j = arg;
    pthread_barrier_wait(&start);
    compute(j->name, j->r);
    return NULL;
}

static int same(const result *x, const result *y)
{
    if (x->ok != y->ok || strcmp(x->cfg, y->cfg) || memcmp(x->d, y->d, sizeof x->d) ||
        memcmp(x->db, y->db, sizeof x->db) || memcmp(x->cls, y->cls, sizeof x->cls))
        return 0;
    for (int i = 0; i < NVEC; i++)
        if (!(x->x[i] == y->x[i] || (x->x[i] != x->x[i] && y->x[i] != y->x[i]))) return 0;
    return x->mean_ulp == y->mean_ulp || (x->mean_ulp != x->mean_ulp && y->mean_ulp != y->mean_ulp);
}

/* one cold round: 0 if every thread got what one thread gets */
static int round_once(int seed)
{
    static result got[THREADS], want;
    pthread_t t[THREADS];
    job jobs[THREADS];
    pthread_barrier_init(&start, NULL, THREADS);
    for (int i = 0; i < THREADS; i++) {
        jobs[i].name = (i * 7 + seed) % NNAMES;
        jobs[i].r = &got[i];
        if (pthread_create(&t[i], NULL, thread_main, &jobs[i])) { perror("pthread_create"); return 1; }
    }
    for (int i = 0; i < THREADS; i++) pthread_join(t[i], NULL);
    pthread_barrier_destroy(&start);
    int bad = 0;
    for (int i = 0; i < THREADS; i++) {
        compute(jobs[i].name, &want);
        if (!want.ok) { fprintf(stderr, "test_threads: %s does not parse\n", names[jobs[i].name]); bad++; continue; }
        if (!same(&got[i], &want)) { fprintf(stderr, "test_threads: round %d thread %d (%s) differs\n", seed, i, names[jobs[i].name]); bad++; }
    }
    /* the catalogue: every entry, the same on many threads at once */
    if (mma_catalogue_size() < 400) { fprintf(stderr, "test_threads: catalogue has %zu entries\n", mma_catalogue_size()); bad++; }
    return bad != 0;
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 20;
    int failed = 0;
    for (int k = 0; k < rounds; k++) {
        fflush(NULL);
        pid_t p = fork();
        if (p < 0) { perror("fork"); return 2; }
        if (p == 0) _exit(round_once(k));
        int st;
        if (waitpid(p, &st, 0) < 0) { perror("waitpid"); return 2; }
        if (!WIFEXITED(st) || WEXITSTATUS(st)) {
            fprintf(stderr, "test_threads: round %d failed (%s %d)\n", k, WIFEXITED(st) ? "exit" : "signal",
                    WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
            failed++;
        }
    }
    printf("test_threads: %d rounds of %d threads making their first calls at once, %d failed\n", rounds, THREADS, failed);
    return failed ? 1 : 0;
}
