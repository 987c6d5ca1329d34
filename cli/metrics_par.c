/* A deterministic parallel loop: chunks of a fixed size are handed out to
 * the threads; what a chunk computes does not depend on which thread runs
 * it.  On a terminal (stderr), a progress line shows the rate and ETA. */
#include "metrics.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

double mx_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int mx_default_threads(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > 256 ? 256 : (int)n;
}

typedef struct {
    long count, chunk, nchunks;
    atomic_long next, done;
    mx_chunk_fn fn;
    void *ctx;
} job;

typedef struct { job *j; int tid; } worker;

static void *run(void *arg)
{
    worker *w = arg;
    job *j = w->j;
    for (;;) {
        long c = atomic_fetch_add(&j->next, 1);
        if (c >= j->nchunks) break;
        long lo = c * j->chunk, hi = lo + j->chunk < j->count ? lo + j->chunk : j->count;
        j->fn(j->ctx, w->tid, lo, hi);
        atomic_fetch_add(&j->done, hi - lo);
    }
    return NULL;
}

static void eta(char *buf, size_t n, double s)
{
    if (s < 0 || s > 1e7) { snprintf(buf, n, "?"); return; }
    long t = (long)(s + 0.5);
    if (t >= 3600) snprintf(buf, n, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
    else snprintf(buf, n, "%ld:%02ld", t / 60, t % 60);
}

static void si(char *buf, size_t n, double x)
{
    if (x >= 1e9) snprintf(buf, n, "%.2fG", x / 1e9);
    else if (x >= 1e6) snprintf(buf, n, "%.2fM", x / 1e6);
    else if (x >= 1e3) snprintf(buf, n, "%.1fk", x / 1e3);
    else snprintf(buf, n, "%.0f", x);
}

void mx_parallel(long count, long chunk, int threads, mx_chunk_fn fn, void *ctx,
                 const char *what, double evals_per_item)
{
    job j;
    j.count = count;
    j.chunk = chunk;
    j.nchunks = (count + chunk - 1) / chunk;
    atomic_init(&j.next, 0);
    atomic_init(&j.done, 0);
    j.fn = fn;
    j.ctx = ctx;
    if (threads < 1) threads = 1;
    if (threads > j.nchunks) threads = j.nchunks > 0 ? (int)j.nchunks : 1;
    worker *w = calloc((size_t)threads, sizeof *w);
    pthread_t *t = calloc((size_t)threads, sizeof *t);
    if (!w || !t) { fprintf(stderr, "mmaref: out of memory\n"); exit(2); }
    int show = isatty(2);
    double t0 = mx_now();
    for (int i = 0; i < threads; i++) {
        w[i].j = &j;
        w[i].tid = i;
        if (pthread_create(&t[i], NULL, run, &w[i])) { fprintf(stderr, "mmaref: cannot start a thread\n"); exit(2); }
    }
    if (show) {
        double last = 0;
        while (atomic_load(&j.done) < count) {
            struct timespec ts = {0, 50 * 1000 * 1000};
            nanosleep(&ts, NULL);
            double now = mx_now() - t0;
            if (now - last < 0.25) continue;
            last = now;
            long d = atomic_load(&j.done);
            double rate = d / now;
            char r[32], e[32];
            si(r, sizeof r, rate * evals_per_item);
            eta(e, sizeof e, rate > 0 ? (double)(count - d) / rate : -1);
            fprintf(stderr, "\r%s: %5.1f%%  %ld/%ld  %s eval/s  ETA %s   ", what,
                    count ? 100.0 * (double)d / (double)count : 100.0, d, count, r, e);
        }
    }
    for (int i = 0; i < threads; i++) pthread_join(t[i], NULL);
    if (show) fprintf(stderr, "\r%*s\r", 78, "");
    free(w);
    free(t);
}
