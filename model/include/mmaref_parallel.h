/*
 * mmaref: deterministic parallel loops over many dot products.
 *
 * Work is cut into chunks of a fixed size and handed out to threads; what a
 * chunk computes never depends on which thread runs it, so results are the
 * same bytes for any thread count.  The library prints nothing: a caller
 * that wants a progress line passes a callback.
 */
#ifndef MMAREF_PARALLEL_H
#define MMAREF_PARALLEL_H

#include <stddef.h>
#include <stdint.h>

#include "mmaref.h"

#ifdef __cplusplus
extern "C" {
#endif

/* fn computes items [lo, hi); tid (0 .. threads-1) names the thread, for
 * per-thread scratch space. */
typedef void (*mma_chunk_fn)(void *ctx, int tid, long lo, long hi);
/* Called about four times a second from the calling thread while the loop
 * runs: items done so far, of count, after seconds. */
typedef void (*mma_progress_fn)(void *pctx, long done, long count, double seconds);

/* Runs fn over [0, count) in chunks of `chunk` items on `threads` threads
 * (threads <= 0: one per online core).  If a thread cannot be started, the
 * work it would have done is done by the others (the caller's thread
 * included), so the loop always completes.  progress may be NULL. */
void mma_parallel_for(long count, long chunk, int threads, mma_chunk_fn fn, void *ctx,
                      mma_progress_fn progress, void *pctx);

int mma_default_threads(void);   /* online cores, 1 .. 256 */
double mma_now(void);            /* monotonic seconds */

/* n dot products of u: vector i takes c[i], a[i*k .. i*k+k-1],
 * b[i*k .. i*k+k-1] and, for block-scaled units, sa and sb at
 * i*mma_unit_nscales(u) (NULL otherwise), and writes d[i].  threads <= 0:
 * all cores.  The same d for any thread count. */
void mma_dot_batch(const mma_unit *u, size_t n, const uint64_t *c, const uint64_t *a,
                   const uint64_t *b, const uint64_t *sa, const uint64_t *sb,
                   uint64_t *d, int threads);

#ifdef __cplusplus
}
#endif
#endif
