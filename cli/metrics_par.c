/* The metrics' parallel loop: the library's deterministic loop
 * (mma_parallel_for), with a progress line on stderr when it is a terminal. */
#include "metrics.h"

#include "mmaref_parallel.h"

#include <unistd.h>

double mx_now(void) { return mma_now(); }

int mx_default_threads(void) { return mma_default_threads(); }

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

typedef struct { const char *what; double evals_per_item; } progress_line;

static void show_progress(void *pctx, long done, long count, double now)
{
    const progress_line *p = pctx;
    if (done >= count) { fprintf(stderr, "\r%*s\r", 78, ""); return; }
    double rate = now > 0 ? (double)done / now : 0;
    char r[32], e[32];
    si(r, sizeof r, rate * p->evals_per_item);
    eta(e, sizeof e, rate > 0 ? (double)(count - done) / rate : -1);
    fprintf(stderr, "\r%s: %5.1f%%  %ld/%ld  %s eval/s  ETA %s   ", p->what,
            count ? 100.0 * (double)done / (double)count : 100.0, done, count, r, e);
}

void mx_parallel(long count, long chunk, int threads, mx_chunk_fn fn, void *ctx,
                 const char *what, double evals_per_item)
{
    progress_line p = {what, evals_per_item};
    mma_parallel_for(count, chunk, threads, fn, ctx, isatty(2) ? show_progress : NULL, &p);
}
