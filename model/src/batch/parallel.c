/* Deterministic parallel loops (mmaref_parallel.h): chunks of a fixed size
 * handed out by an atomic counter, so that the partition of the work, and
 * therefore every result, does not depend on the number of threads. */
#include "mmaref_parallel.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

double mma_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int mma_default_threads(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > 256 ? 256 : (int)n;
}

typedef struct {
    long count, chunk, nchunks;
    atomic_long next, done;
    mma_chunk_fn fn;
    void *ctx;
} job;

typedef struct { job *j; int tid; } worker;

static void work(job *j, int tid)
{
    for (;;) {
        long c = atomic_fetch_add(&j->next, 1);
        if (c >= j->nchunks) break;
        long lo = c * j->chunk, hi = lo + j->chunk < j->count ? lo + j->chunk : j->count;
        j->fn(j->ctx, tid, lo, hi);
        atomic_fetch_add(&j->done, hi - lo);
    }
}

static void *thread_main(void *arg)
{
    worker *w = arg;
    work(w->j, w->tid);
    return NULL;
}

static void watch(job *j, double t0, mma_progress_fn progress, void *pctx)
{
    double last = 0;
    while (atomic_load(&j->done) < j->count) {
        struct timespec ts = {0, 50 * 1000 * 1000};
        nanosleep(&ts, NULL);
        double now = mma_now() - t0;
        if (now - last < 0.25) continue;
        last = now;
        progress(pctx, atomic_load(&j->done), j->count, now);
    }
}

void mma_parallel_for(long count, long chunk, int threads, mma_chunk_fn fn, void *ctx,
                      mma_progress_fn progress, void *pctx)
{
    if (count <= 0) return;
    job j;
    j.count = count;
    j.chunk = chunk < 1 ? 1 : chunk;
    j.nchunks = (count + j.chunk - 1) / j.chunk;
    atomic_init(&j.next, 0);
    atomic_init(&j.done, 0);
    j.fn = fn;
    j.ctx = ctx;
    if (threads <= 0) threads = mma_default_threads();
    if (threads > j.nchunks) threads = (int)j.nchunks;
    /* thread 0 is the caller unless it watches the progress */
    int first = progress ? 0 : 1;
    worker *w = calloc((size_t)threads, sizeof *w);
    pthread_t *t = calloc((size_t)threads, sizeof *t);
    int started = 0;
    double t0 = mma_now();
    if (w && t) {
        for (int i = first; i < threads; i++) {
            w[i].j = &j;
            w[i].tid = i;
            if (pthread_create(&t[i], NULL, thread_main, &w[i])) break;
            started = i + 1;
        }
    }
    if (progress && started > 0) watch(&j, t0, progress, pctx);
    /* The caller works as thread 0: beside threads 1.. when there is no
     * progress to watch; otherwise only when no thread could be started
     * (the watch returns once every chunk is done, so nothing is left). */
    work(&j, 0);
    for (int i = first; i < started; i++) pthread_join(t[i], NULL);
    if (progress) progress(pctx, count, count, mma_now() - t0);
    free(w);
    free(t);
}
